"""Input validation across the public API (issue 7, item 4; DESIGN.md "bad input").

Every public function of :mod:`svmcert.signsvm`, :mod:`svmcert.screening`, :mod:`svmcert.kernels`
and :mod:`svmcert.datasets` rejects each class of bad input (NaN/inf, wrong shapes, labels other
than +-1, lam <= 0, bad sign vectors, non-positive radii, non-symmetric or indefinite matrices
where PSD is required, empty data, one-class data where a classifier is fitted, bad iteration
limits and tolerances) with a ValueError whose message names the argument. float32 input gives
the float64 answer, and every iterative solver that stops at its iteration limit says so.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from svmcert import datasets, kernels, screening, signsvm
from svmcert.signsvm import ConvergenceWarning

# ----------------------------------------------------------------------------- a valid problem

_rng = np.random.default_rng(7)
N, D = 6, 3
X0 = _rng.standard_normal((N, D))
Y0 = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
SIGN0 = np.array([1.0, -1.0, 0.0])
ALPHA0 = np.full(N, 0.5)
K0 = X0 @ X0.T + np.eye(N)
W0 = np.ones(N)
A0 = np.diag([2.0, 1.0, 0.5])
B0 = np.array([0.3, -0.2, 0.1])


def _svc_fit(X=X0, y=Y0, **params):
    return signsvm.SignConstrainedSVC(**params).fit(X, y)


def _svc_fit_weighted(X=X0, y=Y0, sample_weight=None, **params):
    return signsvm.SignConstrainedSVC(**params).fit(X, y, sample_weight=sample_weight)


def _svc_predict(X=X0):
    return signsvm.SignConstrainedSVC(lam=0.5).fit(X0, Y0).predict(X)


# function name -> (callable, valid keyword arguments)
FUNCS = {
    "project_sign": (signsvm.project_sign, dict(v=X0[0], sign=SIGN0)),
    "primal_objective": (signsvm.primal_objective, dict(w=X0[0], X=X0, y=Y0, lam=0.5)),
    "dual_objective": (signsvm.dual_objective, dict(alpha=ALPHA0, X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "dual_gradient": (signsvm.dual_gradient, dict(alpha=ALPHA0, X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "weights_from_dual": (signsvm.weights_from_dual, dict(alpha=ALPHA0, X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "margins": (signsvm.margins, dict(w=X0[0], X=X0, y=Y0)),
    "lp_step": (signsvm.lp_step, dict(alpha=ALPHA0, X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "line_search": (signsvm.line_search, dict(alpha=ALPHA0, u=np.ones(N), X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "line_search_pieces_quadratic": (signsvm.line_search_pieces_quadratic,
                                     dict(alpha=ALPHA0, u=np.ones(N), X=X0, y=Y0, lam=0.5, sign=SIGN0)),
    "frank_wolfe": (signsvm.frank_wolfe, dict(X=X0, y=Y0, lam=0.5, sign=SIGN0, max_iter=5)),
    "dual_coordinate_ascent": (signsvm.dual_coordinate_ascent, dict(X=X0, y=Y0, lam=0.5, sign=SIGN0, max_epochs=5)),
    "solve": (signsvm.solve, dict(X=X0, y=Y0, lam=0.5, sign=SIGN0, max_epochs=5)),
    "interior_point": (signsvm.interior_point, dict(X=X0, y=Y0, lam=0.5, sign=SIGN0, max_iter=5)),
    "lambda_max": (signsvm.lambda_max, dict(X=X0, y=Y0, sign=SIGN0)),
    "SignConstrainedSVC.fit": (_svc_fit, dict(X=X0, y=Y0, lam=0.5)),
    "SignConstrainedSVC.fit(sample_weight)": (_svc_fit_weighted, dict(X=X0, y=Y0, lam=0.5, sample_weight=np.ones(N))),
    "SignConstrainedSVC.predict": (_svc_predict, dict(X=X0)),
    "projected_gradient": (signsvm.projected_gradient, dict(X=X0, y=Y0, lam=0.5, sign=SIGN0, n_iter=5)),
    "project_ball": (signsvm.project_ball, dict(w=X0[0], radius=1.0)),
    "project_ball_sign": (signsvm.project_ball_sign, dict(w=X0[0], sign=SIGN0, radius=1.0)),
    "curvature_bound": (signsvm.curvature_bound, dict(X=X0, lam=0.5)),
    "frank_wolfe_iteration_bound": (signsvm.frank_wolfe_iteration_bound, dict(X=X0, lam=0.5, eps=0.1)),
    "maximize_quadratic_on_ball": (screening.maximize_quadratic_on_ball,
                                   dict(A=A0, b=B0, center=np.zeros(3), radius=1.0)),
    "secular_roots": (screening.secular_roots, dict(phi=np.diag(A0), xi=B0, radius=1.0)),
    "gap_safe_radius": (screening.gap_safe_radius, dict(primal=1.0, dual=0.5, kappa=0.5)),
    "margin_interval": (screening.margin_interval, dict(K=K0, y=Y0, lam=0.5, weights=W0, alpha_hat=ALPHA0)),
    "sss_screen": (screening.sss_screen, dict(K=K0, y=Y0, lam=0.5, weights=W0, alpha_hat=ALPHA0)),
    "gap_quadratic": (screening.gap_quadratic, dict(K=K0, y=Y0, lam=0.5, w_tilde=W0, alpha_hat=ALPHA0)),
    "fit_weighted_svm": (screening.fit_weighted_svm, dict(K=K0, y=Y0, lam=0.5, weights=W0, max_epochs=5)),
    "drsss": (screening.drsss, dict(K=K0, y=Y0, lam=0.5, w_tilde=W0, S=0.1)),
    "drsss_screen": (screening.drsss_screen, dict(K=K0, y=Y0, lam=0.5, w_tilde=W0, S=0.1)),
    "fit_weighted_linear": (screening.fit_weighted_linear, dict(X=X0, y=Y0, lam=0.5, weights=W0, max_epochs=5)),
    "optimum_screening": (screening.optimum_screening, dict(y=Y0, lam=0.5, alpha=ALPHA0, margins=np.ones(N), gap=0.0,
                                                            K=K0)),
    "linear_kernel": (kernels.linear_kernel, dict(X=X0, Y=X0[:2])),
    "rbf_kernel": (kernels.rbf_kernel, dict(X=X0, Y=X0[:2], gamma=0.5)),
    "rbf_gamma_scale": (kernels.rbf_gamma_scale, dict(X=X0)),
    "arccos_ntk_fc": (kernels.arccos_ntk_fc, dict(X=X0, Y=X0[:2], depth=2)),
    # the NTK functions validate everything before importing JAX; only bad calls are made here
    "ntk_kernel": (kernels.ntk_kernel, dict(X=X0, Y=X0[:2])),
    "empirical_ntk_kernel": (kernels.empirical_ntk_kernel, dict(X=X0, Y=X0[:2])),
    "ntk_network": (kernels.ntk_network, dict()),
    "load": (datasets.load, dict(name="heart")),
    "data_file": (datasets.data_file, dict(name="heart")),
    "checksum": (datasets.checksum, dict(name="heart")),
    "decode_splice": (datasets.decode_splice, dict(X=np.array([[-1.0, 1.0]]))),
    "load_scaled": (datasets.load_scaled, dict(name="heart", max_rows=10)),
}

NAN_X = X0.copy()
NAN_X[1, 2] = np.nan
INF_X = X0.copy()
INF_X[0, 0] = np.inf
NONSYM = K0.copy()
NONSYM[0, 1] += 0.5
INDEF = K0 - 20 * np.eye(N)
EMPTY_X, EMPTY_Y = np.zeros((0, D)), np.zeros(0)
ONE_CLASS = np.ones(N)


def _nan(v, i=0):
    v = np.array(v, dtype=float)
    v.flat[i] = np.nan
    return v


# (class of bad input, overrides, argument the message must name)
X_CASES = [("nan", dict(X=NAN_X), "X"), ("inf", dict(X=INF_X), "X"), ("shape", dict(X=X0[0]), "X"),
           ("empty", dict(X=EMPTY_X), "X"), ("dtype", dict(X=np.full((N, D), "a")), "X")]
Y_CASES = [("empty", dict(X=EMPTY_X, y=EMPTY_Y), "X"), ("labels", dict(y=np.where(Y0 > 0, 1.0, 0.0)), "y"), ("labels", dict(y=2 * Y0), "y"),
           ("nan", dict(y=_nan(Y0)), "y"), ("shape", dict(y=Y0[:-1]), "y"), ("shape", dict(y=Y0[:, None]), "y")]
LAM_CASES = [("lam", dict(lam=0.0), "lam"), ("lam", dict(lam=-1.0), "lam"), ("nan", dict(lam=np.nan), "lam"),
             ("inf", dict(lam=np.inf), "lam"), ("lam", dict(lam="1"), "lam"), ("lam", dict(lam=None), "lam")]
SIGN_CASES = [("sign", dict(sign=np.array([2.0, 0.0, 0.0])), "sign"), ("sign", dict(sign=np.array([0.5, 0, 0])), "sign"),
              ("shape", dict(sign=SIGN0[:2]), "sign"), ("nan", dict(sign=_nan(SIGN0)), "sign")]
ALPHA_CASES = [("nan", dict(alpha=_nan(ALPHA0)), "alpha"), ("range", dict(alpha=ALPHA0 + 0.6), "alpha"),
               ("range", dict(alpha=ALPHA0 - 0.6), "alpha"), ("shape", dict(alpha=ALPHA0[:-1]), "alpha")]
W_CASES = [("nan", dict(w=_nan(X0[0])), "w"), ("inf", dict(w=np.array([np.inf, 0, 0])), "w"),
           ("shape", dict(w=X0[0, :2]), "w")]
ITER_CASES = {key: [("iter", {key: 0}, key), ("iter", {key: -3}, key), ("nan", {key: np.nan}, key),
                    ("iter", {key: "ten"}, key), ("iter", {key: None}, key), ("iter", {key: 2.5}, key)]
              for key in ("max_iter", "max_epochs", "n_iter")}
TOL_CASES = [("tol", dict(tol=0.0), "tol"), ("tol", dict(tol=-1e-3), "tol"), ("nan", dict(tol=np.nan), "tol")]
TIME_CASES = [("time", dict(time_limit=0.0), "time_limit"), ("time", dict(time_limit=-1.0), "time_limit"),
              ("nan", dict(time_limit=np.nan), "time_limit"), ("time", dict(time_limit="1s"), "time_limit")]
ALPHA0_CASES = [("nan", dict(alpha0=_nan(ALPHA0)), "alpha0"), ("shape", dict(alpha0=ALPHA0[:-1]), "alpha0")]
ONE_CLASS_CASES = [("one-class", dict(y=ONE_CLASS), "y")]
SAMPLE_WEIGHT_CASES = [("weights", dict(sample_weight=-np.ones(N)), "sample_weight"),
                       ("weights", dict(sample_weight=np.zeros(N)), "sample_weight"),
                       ("nan", dict(sample_weight=_nan(np.ones(N))), "sample_weight"),
                       ("shape", dict(sample_weight=np.ones(N - 1)), "sample_weight")]
K_CASES = [("nan", dict(K=_nan(K0, 7)), "K"), ("inf", dict(K=np.where(np.eye(N) > 0, np.inf, K0)), "K"),
           ("shape", dict(K=K0[:, :-1]), "K"), ("shape", dict(K=K0[:-1, :-1]), "K"),
           ("nonsymmetric", dict(K=NONSYM), "K"), ("indefinite", dict(K=INDEF), "K"),
           ("empty", dict(K=np.zeros((0, 0)), y=np.zeros(0), weights=np.zeros(0)), "y|K")]
WEIGHT_CASES = [("weights", dict(weights=-W0), "weights"), ("nan", dict(weights=_nan(W0)), "weights"),
                ("shape", dict(weights=W0[:-1]), "weights")]
WT_CASES = [("weights", dict(w_tilde=-W0), "w_tilde"), ("nan", dict(w_tilde=_nan(W0)), "w_tilde"),
            ("shape", dict(w_tilde=W0[:-1]), "w_tilde")]
AHAT_CASES = [("nan", dict(alpha_hat=_nan(ALPHA0)), "alpha_hat"), ("range", dict(alpha_hat=-ALPHA0), "alpha_hat"),
              ("shape", dict(alpha_hat=ALPHA0[:-1]), "alpha_hat")]
LOSS_CASES = [("option", dict(loss="logistic"), "loss")]
KY_CASES = [(c, o, n) for c, o, n in Y_CASES if "X" not in o and (c != "shape" or o["y"].ndim == 2)] + [
    ("shape", dict(y=Y0[:-1]), "K|y")]  # y of another length: the Gram matrix no longer matches
PAIR_CASES = X_CASES[:4] + [("nan", dict(Y=_nan(X0[:2])), "Y"), ("shape", dict(Y=X0[:2, :2]), "Y"),
                            ("shape", dict(Y=X0[0]), "Y")]


def _radius(key):
    return [("radius", {key: 0.0}, key), ("radius", {key: -1.0}, key), ("nan", {key: np.nan}, key),
            ("inf", {key: np.inf}, key)]


SIGNSVM_DUAL = X_CASES + Y_CASES + LAM_CASES + SIGN_CASES + ALPHA_CASES
SOLVER = X_CASES + Y_CASES + LAM_CASES + SIGN_CASES + TOL_CASES
KERNEL_PROBLEM = K_CASES + KY_CASES + LAM_CASES + WEIGHT_CASES + LOSS_CASES

CASES = {
    "project_sign": [("nan", dict(v=_nan(X0[0])), "v"), ("shape", dict(v=X0), "v")] + SIGN_CASES,
    "primal_objective": X_CASES + Y_CASES + LAM_CASES + W_CASES,
    "dual_objective": SIGNSVM_DUAL,
    "dual_gradient": SIGNSVM_DUAL,
    "weights_from_dual": SIGNSVM_DUAL,
    "margins": X_CASES + Y_CASES + W_CASES,
    "lp_step": SIGNSVM_DUAL,
    "line_search": SIGNSVM_DUAL + [("nan", dict(u=_nan(np.ones(N))), "u"), ("range", dict(u=np.full(N, 2.0)), "u"),
                                   ("shape", dict(u=np.ones(N - 1)), "u")],
    "line_search_pieces_quadratic": SIGNSVM_DUAL + [("nan", dict(u=_nan(np.ones(N))), "u"),
                                                    ("range", dict(u=np.full(N, 2.0)), "u"),
                                                    ("shape", dict(u=np.ones(N - 1)), "u")],
    "frank_wolfe": SOLVER + ITER_CASES["max_iter"] + ALPHA0_CASES + TIME_CASES,
    "dual_coordinate_ascent": SOLVER + ITER_CASES["max_epochs"] + ALPHA0_CASES + TIME_CASES
    + [("option", dict(engine="cuda"), "engine")],
    "solve": SOLVER + ONE_CLASS_CASES + ITER_CASES["max_epochs"] + TIME_CASES
    + [("option", dict(solver="newton"), "solver")] + SAMPLE_WEIGHT_CASES,
    "SignConstrainedSVC.fit(sample_weight)": SAMPLE_WEIGHT_CASES,
    "interior_point": SOLVER + ITER_CASES["max_iter"] + TIME_CASES,
    "lambda_max": X_CASES + Y_CASES + SIGN_CASES + SAMPLE_WEIGHT_CASES,
    "SignConstrainedSVC.fit": [c for c in X_CASES if c[0] != "empty"] + Y_CASES[:1] + [("nan", dict(y=_nan(Y0)), "y"), ("shape", dict(y=Y0[:-1]), "y"),
                                         ("one-class", dict(y=ONE_CLASS), "y"),
                                         ("labels", dict(y=np.linspace(0.0, 1.0, N)), "y")]
    + LAM_CASES[:5] + [("lam", dict(lam=None, C=0.0), "C"), ("nan", dict(lam=None, C=np.nan), "C"),
                       ("sign", dict(sign_constraints=[2, 0, 0]), "sign_constraints"),
                       ("shape", dict(sign_constraints=[1, 0]), "sign_constraints")]
    + TOL_CASES + [c for c in ITER_CASES["max_iter"] if c[1]["max_iter"] is not None]   # None: the solver's budget
    + [("radius", dict(fit_intercept=True, intercept_scaling=0.0), "intercept_scaling"),
       ("nan", dict(fit_intercept=True, intercept_scaling=np.nan), "intercept_scaling"),
       ("option", dict(solver="newton"), "solver")],
    "SignConstrainedSVC.predict": [("nan", dict(X=NAN_X), "X"), ("shape", dict(X=X0[:, :2]), "X"),
                                   ("shape", dict(X=X0[0]), "X")],
    "projected_gradient": X_CASES + Y_CASES + LAM_CASES + SIGN_CASES + ITER_CASES["n_iter"] + _radius("radius"),
    "project_ball": W_CASES[:2] + [("shape", dict(w=X0), "w")] + _radius("radius"),
    "project_ball_sign": W_CASES[:2] + [("shape", dict(w=X0), "w")] + SIGN_CASES + _radius("radius"),
    "curvature_bound": X_CASES + LAM_CASES,
    "frank_wolfe_iteration_bound": X_CASES + LAM_CASES + _radius("eps"),
    "maximize_quadratic_on_ball": [
        ("nan", dict(A=_nan(A0, 4)), "A"), ("inf", dict(A=np.diag([np.inf, 1, 1])), "A"),
        ("shape", dict(A=A0[:, :2]), "A"), ("shape", dict(A=np.diag(A0)), "A"),
        ("nonsymmetric", dict(A=A0 + np.triu(np.ones((3, 3)), 1)), "A"),
        ("indefinite", dict(A=np.diag([1.0, -1.0, 0.5]), method="enumerate"), "A"),
        ("nan", dict(b=_nan(B0)), "b"), ("shape", dict(b=B0[:2]), "b"),
        ("nan", dict(center=_nan(np.zeros(3))), "center"), ("shape", dict(center=np.zeros(4)), "center"),
        ("option", dict(method="newton"), "method")] + _radius("radius"),
    "secular_roots": [("nan", dict(phi=_nan(np.diag(A0))), "phi"), ("inf", dict(xi=np.array([np.inf, 0, 0])), "xi"),
                      ("shape", dict(xi=B0[:2]), "xi"), ("shape", dict(phi=A0), "phi")] + _radius("radius"),
    "gap_safe_radius": [("nan", dict(primal=np.nan), "primal"), ("inf", dict(primal=np.inf), "primal"),
                        ("nan", dict(dual=np.nan), "dual"), ("inf", dict(dual=np.inf), "dual"),
                        ("shape", dict(primal=np.ones(2)), "primal"), ("order", dict(primal=0.0), "primal")]
    + _radius("kappa"),
    "margin_interval": KERNEL_PROBLEM + AHAT_CASES,
    "sss_screen": KERNEL_PROBLEM + AHAT_CASES,
    "gap_quadratic": K_CASES[:-1] + KY_CASES + LAM_CASES + WT_CASES + AHAT_CASES + LOSS_CASES,
    "fit_weighted_svm": KERNEL_PROBLEM + TOL_CASES + ITER_CASES["max_epochs"]
    + [("nan", dict(alpha0=_nan(ALPHA0)), "alpha0"), ("shape", dict(alpha0=ALPHA0[:-1]), "alpha0"),
       ("option", dict(engine="cuda"), "engine")],
    "drsss": K_CASES[:-1] + KY_CASES + LAM_CASES + WT_CASES + AHAT_CASES + LOSS_CASES + TOL_CASES + _radius("S"),
    "drsss_screen": K_CASES[:-1] + KY_CASES + LAM_CASES + WT_CASES + LOSS_CASES + _radius("S"),
    "fit_weighted_linear": X_CASES[:4] + LAM_CASES + [("weights", dict(weights=-W0), "weights"),
                                                      ("nan", dict(weights=_nan(W0)), "weights")],
    "optimum_screening": LAM_CASES + [("nan", dict(alpha=_nan(ALPHA0)), "alpha"), ("shape", dict(margins=np.ones(N - 1)), "margins"),
                                      ("shape", dict(K=K0[:-1, :-1]), "K"), ("option", dict(K=None), "K, features")],
    "linear_kernel": PAIR_CASES,
    "rbf_kernel": PAIR_CASES + _radius("gamma"),
    "rbf_gamma_scale": X_CASES,
    "arccos_ntk_fc": PAIR_CASES + [("iter", dict(depth=0), "depth"), ("iter", dict(depth=1.5), "depth")]
    + _radius("W_std") + [("radius", dict(b_std=-0.1), "b_std"), ("nan", dict(b_std=np.nan), "b_std")],
    "ntk_kernel": PAIR_CASES + [("iter", dict(depth=0), "depth"), ("iter", dict(block_size=0), "block_size"),
                                ("option", dict(architecture="rnn"), "architecture")] + _radius("W_std"),
    "empirical_ntk_kernel": PAIR_CASES + [("iter", dict(width=0), "width"), ("option", dict(dtype="int8"), "dtype")],
    "ntk_network": [("iter", dict(depth=0), "depth"), ("radius", dict(W_std=0.0), "W_std"),
                    ("radius", dict(b_std=-1.0), "b_std"), ("option", dict(architecture="rnn"), "architecture")],
    "load": [("option", dict(name="iris"), "name"), ("option", dict(name=None), "name")],
    "data_file": [("option", dict(name="iris"), "name")],
    "checksum": [("option", dict(name="iris"), "name")],
    "decode_splice": [("shape", dict(X=np.array([-1.0, 1.0])), "X"), ("nan", dict(X=np.array([[np.nan, 1.0]])), "X"),
                      ("radius", dict(atol=-1.0), "atol"), ("nan", dict(atol=np.nan), "atol")],
    "load_scaled": [("option", dict(name="iris"), "name"), ("iter", dict(max_rows=0), "max_rows"),
                    ("iter", dict(max_rows=2.5), "max_rows"), ("option", dict(seed=-1), "seed")],
}


def all_cases():
    """(function name, class of bad input, overrides, expected argument name), one per case."""
    out = []
    for fname, cases in CASES.items():
        for kind, overrides, name in cases:
            out.append((fname, kind, overrides, name))
    return out


def call(fname, overrides):
    fn, base = FUNCS[fname]
    kwargs = dict(base)
    kwargs.update(overrides)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(**kwargs)


def _case_id(case):
    fname, kind, overrides, name = case
    return f"{fname}-{kind}-{'+'.join(overrides)}"


_ALL = all_cases()


@pytest.mark.parametrize("case", _ALL, ids=[f"{_case_id(c)}-{i}" for i, c in enumerate(_ALL)])
def test_bad_input_raises_value_error_naming_the_argument(case):
    fname, kind, overrides, name = case
    with pytest.raises(ValueError, match=rf"(^|\W)({name})(\W|$)"):
        call(fname, overrides)


@pytest.mark.parametrize("fname", [f for f in FUNCS if f not in ("ntk_kernel", "empirical_ntk_kernel", "ntk_network",
                                                                 "load", "data_file", "checksum", "load_scaled")])
def test_the_valid_baseline_runs(fname):
    # the overrides above are the only thing wrong in each bad call
    call(fname, {})


def test_every_class_of_bad_input_is_covered():
    kinds = {kind for _, kind, _, _ in _ALL}
    assert {"nan", "inf", "shape", "labels", "lam", "sign", "radius", "nonsymmetric", "indefinite", "empty",
            "one-class", "iter", "tol"} <= kinds


def test_every_public_function_is_covered():
    public = set(signsvm.__all__) | set(screening.__all__) | set(kernels.__all__) | set(datasets.__all__)
    classes_and_constants = {"SolverResult", "ConvergenceWarning", "LineSearch", "BallMaximum", "MarginInterval",
                             "WeightedSVM", "DRSSSResult", "LinearWeightedSVM", "OptimumScreening", "NAMES", "REGISTRY", "SOLVERS", "SPLICE_CODES", "DatasetError",
                             "DatasetSpec", "SignConstrainedSVC"}
    no_numeric_input = {"cache_dir", "mirror_dirs", "file_sha256", "mnist_odd_even", "splice_sequences", "download_url"}
    covered = {f.split(".")[0] for f in CASES}
    assert public - classes_and_constants - no_numeric_input <= covered
    assert "SignConstrainedSVC" in covered


# ----------------------------------------------------------------------------- float32


def _f32(a):
    return np.asarray(a, dtype=np.float32)


def _rounded(a):
    """The float64 numbers a float32 caller actually passes."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


@pytest.mark.parametrize("fname", ["primal_objective", "dual_objective", "dual_gradient", "weights_from_dual", "margins",
                                   "lp_step", "line_search", "project_sign", "project_ball_sign", "curvature_bound",
                                   "frank_wolfe_iteration_bound", "linear_kernel", "rbf_kernel", "arccos_ntk_fc",
                                   "rbf_gamma_scale", "maximize_quadratic_on_ball", "secular_roots", "margin_interval",
                                   "gap_quadratic", "gap_safe_radius"])
def test_float32_inputs_give_the_float64_answer(fname):
    _, base = FUNCS[fname]
    as32 = {k: (_f32(v) if isinstance(v, (np.ndarray, float)) else v) for k, v in base.items()}
    as64 = {k: (_rounded(v) if isinstance(v, (np.ndarray, float)) else v) for k, v in base.items()}
    if fname == "frank_wolfe_iteration_bound":   # a float32 scalar eps
        as32["eps"] = np.float32(base["eps"])
    got, want = call(fname, as32), call(fname, as64)
    got, want = (list(got), list(want)) if isinstance(got, tuple) else ([got], [want])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(g, np.ndarray):
            assert g.dtype == np.float64          # computed in float64, not float32
        else:
            assert isinstance(g, (float, int))
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fname, key", [("frank_wolfe", "max_iter"), ("dual_coordinate_ascent", "max_epochs"),
                                        ("solve", "max_epochs"), ("projected_gradient", "n_iter")])
def test_float32_problem_solves_like_float64(fname, key):
    fn, base = FUNCS[fname]
    kw = {"X": X0, "y": Y0, "lam": 0.5, "sign": SIGN0, key: 2000 if key != "n_iter" else 50}
    if fname != "projected_gradient":
        kw["tol"] = 1e-10
    r32 = fn(**{**kw, "X": _f32(X0), "y": _f32(Y0), "lam": np.float32(0.5), "sign": _f32(SIGN0)})
    r64 = fn(**{**kw, "X": _rounded(X0)})
    assert r32.w.dtype == np.float64
    assert r32.primal == pytest.approx(r64.primal, rel=1e-12)
    np.testing.assert_allclose(r32.w, r64.w, rtol=1e-9, atol=1e-12)


def test_float32_kernel_screening_like_float64():
    K32 = _f32(K0)
    fit32 = screening.fit_weighted_svm(K32, _f32(Y0), np.float32(0.5), _f32(W0), tol=1e-12)
    fit64 = screening.fit_weighted_svm(_rounded(K0), Y0, 0.5, W0, tol=1e-12, check_psd=False)
    assert fit32.primal == pytest.approx(fit64.primal, rel=1e-12)
    mask32 = screening.drsss_screen(K32, _f32(Y0), np.float32(0.5), _f32(W0), np.float32(0.01))
    mask64 = screening.drsss(_rounded(K0), Y0, 0.5, W0, float(np.float32(0.01)), check_psd=False).removable
    np.testing.assert_array_equal(mask32, mask64)
    svc32 = signsvm.SignConstrainedSVC(lam=0.5).fit(_f32(X0), Y0)
    svc64 = signsvm.SignConstrainedSVC(lam=0.5).fit(_rounded(X0), Y0)
    np.testing.assert_allclose(svc32.coef_, svc64.coef_, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- iteration limits

_HARD = dict(X=X0, y=Y0, lam=1e-3, sign=SIGN0, tol=1e-15)   # cannot reach tol in one or two steps


@pytest.mark.parametrize("run", [
    lambda: signsvm.frank_wolfe(**_HARD, max_iter=2),
    lambda: signsvm.dual_coordinate_ascent(**_HARD, max_epochs=1),
    lambda: signsvm.dual_coordinate_ascent(**_HARD, max_epochs=1, engine="numpy"),
    lambda: signsvm.solve(**_HARD, max_epochs=1),
    lambda: signsvm.solve(**_HARD, solver="frank-wolfe", max_iter=2),
    lambda: screening.fit_weighted_svm(K0, Y0, 1e-3, W0, tol=1e-15, max_epochs=1),
    lambda: screening.fit_weighted_svm(K0, Y0, 1e-3, W0, "squared_hinge", tol=1e-15, max_epochs=1, low_rank=False),
], ids=["frank_wolfe", "dual_coordinate_ascent", "dual_coordinate_ascent-numpy", "solve", "solve-frank-wolfe",
        "fit_weighted_svm", "fit_weighted_svm-squared_hinge"])
def test_stopping_at_the_iteration_limit_warns_and_flags(run):
    with pytest.warns(ConvergenceWarning, match=r"max_(iter|epochs)"):
        res = run()
    assert res.converged is False
    assert res.gap > 0


def test_estimator_stopping_at_max_iter_warns_and_flags():
    with pytest.warns(ConvergenceWarning):
        clf = signsvm.SignConstrainedSVC(lam=1e-3, tol=1e-15, max_iter=1).fit(X0, Y0)
    assert clf.result_.converged is False


def test_reaching_tol_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert signsvm.solve(X0, Y0, 0.5, SIGN0, tol=1e-6).converged
        assert signsvm.frank_wolfe(X0, Y0, 0.5, SIGN0, tol=1e-3, max_iter=100000).converged
        assert screening.fit_weighted_svm(K0, Y0, 0.5, W0, tol=1e-9).converged


def test_one_class_is_accepted_below_the_front_doors():
    # Without an intercept a one-class problem is well posed (w points at the data); the book's
    # counterexamples use n = 1. Only the classifier-facing front doors (solve, the estimator)
    # reject one-class labels, as tested above.
    X1, y1 = np.array([[1.0]]), np.array([1.0])
    assert signsvm.projected_gradient(X1, y1, 1.0, n_iter=1).primal == 1.0
    assert signsvm.frank_wolfe(X1, y1, 1.0, tol=1e-9).converged
    assert signsvm.dual_coordinate_ascent(X1, y1, 1.0, tol=1e-9).primal == pytest.approx(0.5)
    assert screening.fit_weighted_svm(np.ones((1, 1)), y1, 1.0, np.ones(1), tol=1e-12).primal == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [None, -1, 1.5, True, "3"])
@pytest.mark.parametrize("call", ["dual_coordinate_ascent", "solve", "auto"])
def test_the_seed_of_coordinate_ascent_must_be_an_integer(bad, call):
    # the passes' shuffles are seeded from it; a bad seed is named at the door, not a TypeError
    # from deep inside (None) nor silently truncated (1.5) or wrapped (-1)
    fn = getattr(signsvm, "solve" if call == "auto" else call)
    kwargs = {"solver": "dual-coordinate"} if call == "solve" else {}     # auto checks it whatever
    # its plan (the interior-point method alone draws no order)
    with pytest.raises(ValueError, match="seed: expected an integer >= 0"):
        fn(X0, Y0, 0.1, SIGN0, seed=bad, **kwargs)
    assert fn(X0, Y0, 0.1, SIGN0, seed=np.int64(3), **kwargs).converged


@pytest.mark.parametrize("layout", ["dense", "csr", "fortran", "strided"])
def test_a_design_matrix_whose_squares_overflow_is_rejected(layout):
    """Entries near 1e200 are finite, but their squares are not: the interior-point method's
    compiled iteration divided by zero on them. The door now rejects them and says how to rescale."""
    import scipy.sparse as sp

    big = np.repeat(X0, 2, axis=1) * 1e200
    X = {"dense": big[:, :D], "csr": sp.csr_matrix(big[:, :D]), "fortran": np.asfortranarray(big[:, :D]),
         "strided": big[:, ::2]}[layout]
    with pytest.raises(ValueError, match=r"^X: expected entries whose squares sum to a finite"):
        signsvm.solve(X, Y0, 0.5, SIGN0)


def test_the_rescaling_advice_gives_the_same_problem():
    """The message's advice: X / c with lam / c**2 is the same problem, with w multiplied by c (the
    penalty lam / c**2 ||c w||^2 / 2 equals lam ||w||^2 / 2, and the margins (X / c)(c w) = X w)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, 1.0, -1.0)
    sign = np.array([1.0, -1.0, 0.0, 1.0, 0.0])
    c = 1e3
    a = signsvm.solve(X, y, 0.05, sign, tol=1e-10)
    b = signsvm.solve(X / c, y, 0.05 / c**2, sign, tol=1e-10)
    assert a.converged and b.converged
    # both certified to a relative gap of 1e-10; the objective is strongly convex with modulus lam,
    # so ||w - w*|| <= sqrt(2 gap / lam), about 5e-5 here (and c times that for c w): within 1e-3 ||w||
    np.testing.assert_allclose(b.w, c * a.w, atol=1e-3 * c * np.linalg.norm(a.w))
    assert abs(b.primal - a.primal) <= 1e-9 * a.primal


@pytest.mark.parametrize("params, X_scale, name", [(dict(C=1e308), 1.0, "C"), (dict(C=1e-310), 1.0, "C"),
                                                   ({}, 1e160, "X"),
                                                   (dict(fit_intercept=True, intercept_scaling=1e200), 1.0,
                                                    "intercept_scaling")])
def test_the_estimator_refuses_what_solve_refuses(params, X_scale, name):
    """C whose lambda = 1 / (C n) over- or underflows, and a design matrix (the intercept's column
    included) whose squares overflow: the estimator returned inf, NaN or zero coefficients with
    only a ConvergenceWarning, where solve raises."""
    with pytest.raises(ValueError, match=rf"(^|\W){name}(\W|$)"):
        signsvm.SignConstrainedSVC(**params).fit(X0 * X_scale, Y0)
