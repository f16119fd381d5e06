"""The front door: ``solve(X, y, lam, sign)`` picks a certified solver for the sign-constrained SVM.

``solver="auto"`` follows the plan of :mod:`.plan` (the rules on the problem's shape, lambda and
its rows' norm, and the time models behind coordinate ascent's budget); the plan's names stay
importable from here. Every method certifies its answer by the duality gap of eq. (10), computed
from the returned ``w`` and ``alpha``.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .._validation import check_iterations, check_positive, check_seed, check_vector
from .coordinate_ascent import dca_options, run_coordinate_ascent
from .frank_wolfe import run_frank_wolfe
from ._normal_equations import gram_from_dense_blocks
from .interior_point import IPM_MAX_ITER, run_interior_point
from .plan import (AUTO_DCA_EXTRA, AUTO_DCA_SHARE, AUTO_IPM_ABOVE_SCALED_NORM, AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED,
                   AUTO_IPM_ABOVE_SCALED_NORM_SPARSE, AUTO_IPM_BELOW_LAM_N, AUTO_IPM_MAX_PASSES,
                   AUTO_IPM_MAX_PASSES_SPARSE, DCA_MAX_EPOCHS,
                   DCA_SEC_PER_WORK, IPM_FUSED_SEC, IPM_ITERATIONS, IPM_SEC, IPM_SPARSE_SEC, SPARSE_IPM_MAX_DIM,
                   auto_plan, auto_work_options, ipm_is_cheap, ipm_seconds, row_norm_scale, rows_threshold)
from .problem import SignSVMProblem, check_time_limit, make_problem
from ..exceptions import ConvergenceWarning
from .result import SolverResult

__all__ = ["SOLVERS", "solve", "solve_problem", "auto_plan", "auto_work_options", "ipm_seconds", "ipm_is_cheap",
           "row_norm_scale", "AUTO_IPM_BELOW_LAM_N", "AUTO_IPM_ABOVE_SCALED_NORM",
           "AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED", "AUTO_IPM_ABOVE_SCALED_NORM_SPARSE", "AUTO_IPM_MAX_PASSES",
           "AUTO_IPM_MAX_PASSES_SPARSE",
           "AUTO_DCA_SHARE", "AUTO_DCA_EXTRA", "SPARSE_IPM_MAX_DIM", "DCA_MAX_EPOCHS", "IPM_SEC", "IPM_ITERATIONS",
           "DCA_SEC_PER_WORK", "IPM_FUSED_SEC", "IPM_SPARSE_SEC"]

SOLVERS = ("auto", "dual-coordinate", "interior-point", "frank-wolfe")

_DCA_ONLY = ("max_epochs", "alpha0", "engine", "shrinking", "polish")


def solve(X, y, lam, sign=None, solver: str = "auto", tol: float = 1e-6, *, time_limit: float | None = None,
          sample_weight=None, **options) -> SolverResult:
    """Solve problem (4) of Tajima et al. to a certified relative duality gap.

    Parameters
    ----------
    X : array or scipy.sparse matrix of shape (n, d)
        Samples as rows. A sparse X (any format; held as CSR) is never densified: coordinate
        ascent reads its rows, the interior-point method forms only its min(n, d) square normal
        matrix (``auto`` runs it on sparse data only when min(n, d) <= SPARSE_IPM_MAX_DIM). A
        sparse X with about 28% of its entries nonzero or more
        (``_normal_equations.SPARSE_GRAM_DENSE_FROM``) enters that matrix by dense row blocks and
        is planned by ``auto`` as a dense array of its shape.
    y : array of shape (n,)
        Labels +-1, both classes present (the algorithms themselves,
        :func:`dual_coordinate_ascent`, :func:`interior_point` and :func:`frank_wolfe`, also
        accept one class: without an intercept that problem is well posed, and the book uses it
        for counterexamples).
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1} (+1: w_h >= 0, -1: w_h <= 0, 0: free); default all free.
    solver : {"auto", "dual-coordinate", "interior-point", "frank-wolfe"}, default "auto"
        ``"auto"``: the interior-point method below lam n = AUTO_IPM_BELOW_LAM_N, and where that
        method is cheap (``signsvm.solve.ipm_is_cheap``) and the rows' mean squared norm is at least
        AUTO_IPM_ABOVE_SCALED_NORM lam n (``signsvm.plan.rows_threshold`` gives the thresholds with
        sign constraints and for a sparse X, on which the rule also reaches rows at least
        AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY lam n long where the method is not cheap);
        otherwise coordinate ascent within a budget of work (or until its rate shows it would not
        finish within it) and the interior-point method if it has not certified ``tol`` by then.
        ``"frank-wolfe"`` is the paper's Algorithm 1.
    tol : float, default 1e-6
        Relative duality gap (P(w) - D(alpha)) / P(w) at which to stop; by eq. (10) it bounds the
        relative primal error.
    time_limit : float, optional
        Seconds: the whole call stops before a step that would end after it and returns its best
        certified point with ``converged=False`` and a :class:`ConvergenceWarning`.
    sample_weight : array of shape (n,), optional
        Weights s_i >= 0 (at least one positive): each sample's hinge loss is multiplied by s_i,
        P(w) = lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>), and the dual box becomes
        alpha_i in [0, s_i] (``svmcert.signsvm.problem``); a zero weight removes the sample.
        Default: all ones, the paper's problem.
    **options
        Passed to the chosen solver (e.g. ``max_epochs``, ``max_iter``, ``seed``). With
        ``"auto"``, ``max_iter`` caps the iterations of whichever method runs (passes of
        coordinate ascent, Newton iterations of the interior-point method) and ``seed`` orders
        the coordinates; an option only coordinate ascent knows (``max_epochs``, ``alpha0``,
        ``engine``, ``shrinking``, ``polish``) makes ``"auto"`` run coordinate ascent alone, so
        that the caller's limit on its passes is the limit on the call's work.

    Returns
    -------
    SolverResult
        ``w``, ``alpha``, ``primal``, ``dual``, ``gap``, ``n_iter``, ``converged``, ``history``
        (with ``"auto"``, also ``history["method"]``: the methods run, in order, and
        ``history["dca_work"]``: the work coordinate ascent did, if it ran). A solver that
        stops at its iteration or time limit warns (:class:`ConvergenceWarning`) and sets
        ``converged=False``.

    Notes
    -----
    The certificate is computed in float64, and its dual value holds the term
    ``lam/2 ||Pi_S(Z^T alpha / (lam n))||^2``: at a vanishing lambda, ``Z^T alpha`` must cancel to
    about ``sqrt(lam)`` of its terms' size for the gap to resolve ``tol``. Far below the lambdas
    of practice a run therefore warns instead of certifying (the tests pin where on two LIBSVM
    sets), and so does a run on X scaled by a large c, the same problem as ``X / c`` with
    ``lam / c^2``. X whose squared entries overflow is rejected.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert import signsvm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 10)); y = np.sign(X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(500))
    >>> sign = np.r_[1, -1, np.zeros(8)]
    >>> res = signsvm.solve(X, y, lam=1e-2 / 500, sign=sign)          # small lambda: interior point
    >>> bool(res.converged and res.gap <= 1e-6 * res.primal), res.history["method"]
    (True, ['interior-point'])
    >>> res = signsvm.solve(X, y, lam=100.0 / 500, sign=sign)         # large lambda: coordinate ascent
    >>> bool(res.converged), res.history["method"]
    (True, ['dual-coordinate'])
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver: expected one of {SOLVERS}, got {solver!r}")
    return solve_problem(make_problem(X, y, lam, sign, sample_weight=sample_weight, two_classes=True,
                                      accept_sparse=True), solver, tol,
                         time_limit=time_limit, **options)


def solve_problem(p: SignSVMProblem, solver: str = "auto", tol: float = 1e-6, *, time_limit: float | None = None,
                  start=None, **options) -> SolverResult:
    """:func:`solve` on a problem whose data were validated (:func:`~.problem.make_problem`): the
    door the estimator uses after its own checks. The options are checked here, once.

    ``start``: a dual point (length n, clipped to the box) to start from, used by the methods
    that take one (coordinate ascent, also as the first stage of ``auto``, and Frank-Wolfe; the
    interior-point method starts from its own interior point): the estimator's ``warm_start``.
    Unlike ``alpha0`` it does not make ``auto`` run coordinate ascent alone."""
    if solver not in SOLVERS:
        raise ValueError(f"solver: expected one of {SOLVERS}, got {solver!r}")
    tol, time_limit = check_positive(tol, "tol"), check_time_limit(time_limit)
    if solver == "interior-point":
        return run_interior_point(p, tol, check_iterations(options.pop("max_iter", IPM_MAX_ITER), "max_iter"), time_limit,
                        bool(options.pop("record_history", True)), **_no_more(options))
    if start is not None and solver in ("dual-coordinate", "frank-wolfe") and "alpha0" not in options:
        options["alpha0"] = start
    if solver == "frank-wolfe":
        alpha0 = options.pop("alpha0", None)
        return run_frank_wolfe(p, tol, check_iterations(options.pop("max_iter", 10_000), "max_iter"),
                       None if alpha0 is None else check_vector(alpha0, "alpha0", p.n),
                       bool(options.pop("record_history", True)), time_limit, **_no_more(options))
    if solver == "dual-coordinate" or any(key in options for key in _DCA_ONLY):
        alpha0 = options.pop("alpha0", None)
        opts = dca_options(tol=tol, time_limit=time_limit, **options)
        res = run_coordinate_ascent(p, opts, None if alpha0 is None else check_vector(alpha0, "alpha0", p.n))
        if solver == "auto":
            res.history["method"] = ["dual-coordinate"]
        return res
    return _auto(p, tol, time_limit, alpha_start=start, **options)


def _no_more(options: dict) -> dict:
    if options:
        raise ValueError(f"options: not an option of this solver: {sorted(options)}")
    return {}


def _auto(p: SignSVMProblem, tol, time_limit, max_iter=None, seed=0, record_history=True,
          alpha_start=None) -> SolverResult:
    cap = None if max_iter is None else check_iterations(max_iter, "max_iter")
    seed = check_seed(seed)                 # checked here too: the interior-point plan takes none
    alpha0 = None if alpha_start is None else check_vector(alpha_start, "alpha0", p.n)
    n, d = p.n, p.d
    nnz = int(p.X.nnz) if p.sparse else 0
    constrained = bool(np.any(p.sign != 0.0))
    # a CSR X dense enough to be summed by dense blocks costs what a dense array does: planned as one
    sparse = p.sparse and not gram_from_dense_blocks(p.X)
    rule_applies = np.isfinite(rows_threshold(n, d, nnz if sparse else None, sparse, constrained))
    plan, work = auto_plan(n, d, nnz, p.lam, sparse, row_norm_scale(p.X) if rule_applies else None,
                           constrained=constrained)
    if p.sparse and min(n, d) > SPARSE_IPM_MAX_DIM:       # no dense normal matrix of that size
        opts = dca_options(tol=tol, seed=seed, record_history=record_history,
                           max_epochs=DCA_MAX_EPOCHS if cap is None else cap, time_limit=time_limit)
        res = run_coordinate_ascent(p, opts, alpha0)
        res.history["method"] = ["dual-coordinate"]
        return res
    start = time.perf_counter()
    methods = []
    if plan == "dual-coordinate":
        methods.append("dual-coordinate")
        opts = dca_options(tol=tol, seed=seed, record_history=record_history,
                           max_epochs=DCA_MAX_EPOCHS if cap is None else cap, time_limit=time_limit,
                           **auto_work_options(n, d, p.lam, sparse, nnz))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)   # a budget, not the caller's limit
            first = run_coordinate_ascent(p, opts, alpha0)
        first.history["method"] = methods
        first.history["dca_work"] = float(first.history.get("work", [0.0])[-1])
        if first.converged or (time_limit is not None and time.perf_counter() - start >= time_limit):
            if not first.converged:
                warnings.warn(f"solve: stopped at time_limit={time_limit:g} s with relative gap "
                              f"{first.gap / max(first.primal, np.finfo(float).tiny):.3g} > tol={tol:g}",
                              ConvergenceWarning, stacklevel=3)
            return first
    remaining = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 1e-9)
    methods.append("interior-point")
    res = run_interior_point(p, tol, IPM_MAX_ITER if cap is None else min(IPM_MAX_ITER, cap), remaining,
                   bool(record_history))
    if plan == "dual-coordinate" and first.gap < res.gap:      # keep the better certificate
        res = SolverResult(w=first.w, alpha=first.alpha, primal=first.primal, dual=first.dual, gap=first.gap,
                           n_iter=res.n_iter, converged=False, history=res.history)
    res.history["method"] = methods
    if plan == "dual-coordinate":
        res.history["dca_work"] = first.history["dca_work"]
    return res
