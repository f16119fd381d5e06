"""The library contract (DESIGN.md, "Library contract"): the public names that the chapters, the
tests and outside code rely on, by module. The API reference pages must document every one of
them (tests/test_browser.py), and every function among them must carry a numpydoc Examples
section that the test suite runs (tests/test_docstring_examples.py).
"""

CONTRACT = {
    "svmcert.signsvm": [
        "project_sign", "primal_objective", "dual_objective", "weights_from_dual", "lp_step",
        "line_search", "LineSearch", "solve", "frank_wolfe", "projected_gradient", "SolverResult",
        "curvature_bound", "frank_wolfe_iteration_bound", "SignConstrainedSVC",
    ],
    "svmcert.screening": [
        "maximize_quadratic_on_ball", "BallMaximum", "secular_roots", "gap_safe_radius",
        "fit_weighted_svm", "WeightedSVM", "sss_screen", "drsss_screen",
    ],
    "svmcert.featelim": ["solve_qp1", "QP1Result", "radius_squared", "eliminate_features"],
    "svmcert.kernels": ["linear_kernel", "rbf_kernel", "ntk_kernel"],
    "svmcert.datasets": ["load"],
    # "the cvxpy formulations used as ground truth": the names the package exports
    "svmcert.reference": [
        "solve_primal_cvxpy", "PrimalReference", "solve_box_lp_cvxpy", "solve_box_lp_linprog",
        "dual_gradient_reference",
    ],
}

#: The API reference page that documents each module (a page of _toc.yml).
API_PAGES = {
    "svmcert.signsvm": "book/api/signsvm",
    "svmcert.screening": "book/api/screening",
    "svmcert.featelim": "book/api/featelim",
    "svmcert.kernels": "book/api/kernels-and-data",
    "svmcert.datasets": "book/api/kernels-and-data",
    "svmcert.reference": "book/api/reference",
}

#: Result types: records of fields, documented by their Attributes sections, not by examples.
RESULT_TYPES = {"LineSearch", "SolverResult", "BallMaximum", "WeightedSVM", "QP1Result", "PrimalReference"}


def contract_names() -> list[str]:
    """Every contract name, fully qualified (``svmcert.signsvm.lp_step``)."""
    return [f"{module}.{name}" for module, names in CONTRACT.items() for name in names]
