"""Benchmarks: the library's solvers against the reference tools, measured in the same run.

Every function returns a list of rows with the columns of :data:`COLUMNS`: the time of our solver
and of the reference (best of up to ``repeat`` calls, fewer when a single call already exceeds the
``budget`` in seconds), their ratio (reference / ours, so > 1 means ours is faster), the accuracy
both reached (stated in ``accuracy``), and, for rows that test a speed goal of the library, the goal
ratio and whether it was met. Nothing here changes a solver: the functions only call them.

BLAS is limited to one thread by the callers (book appendix, ``benchmarks/run.py``): the machine
has two cores shared with other jobs, and Clarabel and the numba kernels are single-threaded.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import datasets, signsvm
from ..featelim import solve_qp1
from ..reference.ball import ball_max_sdp, ball_max_trust_region
from ..reference.qp1 import solve_qp1_cvxpy
from ..reference.signsvm import solve_primal_cvxpy
from ..reference.weighted_svm import kernel_factor, solve_weighted_primal_cvxpy
from ..kernels import rbf_kernel
from ..screening import fit_weighted_svm, maximize_quadratic_on_ball
from ..screening.weighted_problem import regularised_intercept
from ..exceptions import ConvergenceWarning
from .families import crossing_template, hard_ball_case
from .instances import instance_rng
from .timing import clock

__all__ = ["COLUMNS", "measure", "mnist_problem", "warm_up", "sign_constrained", "first_order", "unconstrained",
           "line_search", "quadratic_on_ball", "qp1", "weighted_svm", "goals", "SVC_TOLS", "TIMING_COLUMNS", "PATH_COLUMNS",
           "PATH_REASON"]

COLUMNS = ["benchmark", "parameters", "size", "ours_seconds", "reference_seconds", "ratio", "ours_accuracy",
           "reference_accuracy", "accuracy", "goal", "met", "ours_runs", "reference_runs", "note"]
#: columns that hold wall-clock measurements or verdicts derived from them (excluded from drift checks)
TIMING_COLUMNS = ["ours_seconds", "reference_seconds", "ratio", "met", "ours_runs", "reference_runs"]
#: columns set by where each solver stopped inside its tolerance (accuracy reached, passes, the LinearSVC
#: tolerance the search settled on): they move with floating-point kernels and are not compared
PATH_COLUMNS = ["ours_accuracy", "reference_accuracy", "note"]
PATH_REASON = "the accuracy each solver reached and the passes it took are set by where it stopped inside its tolerance"
#: tolerances tried for LinearSVC, loosest first: the first whose objective is no worse than ours is timed
SVC_TOLS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


def measure(fn, repeat: int = 3, budget: float = 2.0, min_seconds: float = 0.0):
    """Best CPU time (:data:`~svmcert.experiments.timing.clock`) of up to ``repeat`` calls of ``fn()``: stops repeating once the time spent
    exceeds ``budget``; keeps repeating (up to 200 calls) until ``min_seconds`` were spent, so that
    millisecond calls are timed many times. Returns (best seconds, last result, calls)."""
    best, spent, calls, out = np.inf, 0.0, 0, None
    while True:
        t0 = clock()
        out = fn()
        dt = clock() - t0
        best, spent, calls = min(best, dt), spent + dt, calls + 1
        if calls >= 200 or (spent >= min_seconds and (calls >= repeat or spent >= budget)):
            return float(best), out, calls


def _row(benchmark, parameters, size, ours, ref, ours_acc, ref_acc, accuracy, goal_ratio=None,
         met_extra=True, note=""):
    """One row; ``ours``/``ref`` are (seconds, runs). ``met`` needs ratio >= goal and ``met_extra``."""
    ratio = ref[0] / ours[0]
    met = None if goal_ratio is None else bool(ratio >= goal_ratio and met_extra)
    return {"benchmark": benchmark, "parameters": parameters, "size": size, "ours_seconds": ours[0],
            "reference_seconds": ref[0], "ratio": ratio, "ours_accuracy": float(ours_acc),
            "reference_accuracy": float(ref_acc), "accuracy": accuracy,
            "goal": "" if goal_ratio is None else f"ratio >= {goal_ratio:.3g}", "met": met,
            "ours_runs": ours[1], "reference_runs": ref[1], "note": note}


def _quiet(fn):
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return fn()
    return run


# ----------------------------------------------------------------------------- goals 1 and 2: MNIST-5k

def mnist_problem(rows: int | None = None, seed: int = 0):
    """MNIST-5k odd vs even with unit rows and a random half of the pixels sign-constrained with
    random signs (as in the convergence chapter); ``rows`` keeps a random subset of the samples."""
    X, y = datasets.load_scaled(datasets.MNIST_NAME, rows, seed=seed)
    rng = instance_rng(seed, "benchmarks", "mnist sign pattern")
    d = X.shape[1]
    sign = np.zeros(d)
    half = rng.choice(d, size=d // 2, replace=False)
    sign[half] = rng.choice([-1.0, 1.0], size=half.size)
    return X, y, sign


def warm_up():
    """Compile the numba kernels and cvxpy's first problem outside the timed calls."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((20, 5)), np.tile([1.0, -1.0], 10)
    _quiet(lambda: signsvm.solve(X, y, 0.1, np.array([1.0, -1, 0, 0, 1]), max_epochs=3))()
    _quiet(lambda: signsvm.solve(X, y, 0.1, max_epochs=3))()
    solve_qp1(X[:, 0], y, 1.0, 1.0, record=False)
    _quiet(lambda: fit_weighted_svm(X @ X.T + 1, y, 1.0, np.ones(20), max_epochs=3))()
    A = X.T @ X
    maximize_quadratic_on_ball(A, X[0], X[1], 1.0)
    ball_max_sdp(np.eye(3), np.ones(3), np.zeros(3), 1.0)


def _rel_gap(primal, dual):
    return (primal - dual) / max(abs(primal), np.finfo(float).tiny)


def sign_constrained(X, y, sign, lam_ns, *, tol=1e-6, max_epochs=20000, repeat=3, budget=2.5):
    """Goal 1: ``signsvm.solve`` vs cvxpy/Clarabel (tolerances 1e-10) at each lambda n.

    Our accuracy is the certified relative gap; cvxpy's is the relative gap of its primal value
    against our dual bound D(alpha), an upper bound on its relative error. cvxpy's time includes
    building the problem (what a user pays) and is a single call. Goals: ratio >= 10 at
    lambda n in {1, 100}, >= 1 otherwise (ours must also reach ``tol``). Returns (rows, duals).
    """
    n = len(y)
    rows, duals = [], {}
    for lam_n in lam_ns:
        lam = lam_n / n
        t_o, res, k_o = measure(_quiet(lambda: signsvm.solve(X, y, lam, sign, tol=tol, max_epochs=max_epochs)),
                                repeat, budget)
        t_r, ref, k_r = measure(lambda: solve_primal_cvxpy(X, y, lam, sign), 1, 0.0)
        duals[lam_n] = res.dual
        goal = 10.0 if lam_n in (1.0, 100.0) else 1.0
        note = f"{res.n_iter} passes" + ("" if res.converged else f", not converged (cap {max_epochs} passes)")
        rows.append(_row("sign-constrained SVM vs cvxpy", f"n={n}, d={X.shape[1]}, lam_n={lam_n:g}", n,
                         (t_o, k_o), (t_r, k_r), res.gap / res.primal, _rel_gap(ref.value, res.dual),
                         "relative gap against our dual bound", goal, res.converged, note))
    return rows, duals


def first_order(X, y, sign, lam_ns, iterations, duals, dca_rows):
    """Frank-Wolfe (Algorithm 1; stops early at relative gap 1e-6 like ours) and projected gradient
    (eq. 6) with a fixed iteration budget, next
    to dual coordinate ascent (the rows of :func:`sign_constrained`). Frank-Wolfe's accuracy is its
    certified gap; projected gradient has no dual, so its best primal value is measured against the
    dual bound of coordinate ascent."""
    n = len(y)
    out = []
    dca = {r["parameters"]: r for r in dca_rows}
    for lam_n in lam_ns:
        lam = lam_n / n
        r = dca[f"n={n}, d={X.shape[1]}, lam_n={lam_n:g}"]
        out.append({"lam_n": lam_n, "method": "dual coordinate ascent (solve)", "iterations": r["note"].split()[0],
                    "seconds": r["ours_seconds"], "relative_gap": r["ours_accuracy"]})
        t, fw, _ = measure(_quiet(lambda: signsvm.frank_wolfe(X, y, lam, sign, tol=1e-6, max_iter=iterations,
                                                                record_history=False)), 1, 0.0)
        out.append({"lam_n": lam_n, "method": "Frank-Wolfe", "iterations": str(fw.n_iter), "seconds": t,
                    "relative_gap": fw.gap / fw.primal})
        t, pg, _ = measure(_quiet(lambda: signsvm.projected_gradient(X, y, lam, sign, n_iter=iterations)), 1, 0.0)
        out.append({"lam_n": lam_n, "method": "projected gradient", "iterations": str(pg.n_iter), "seconds": t,
                    "relative_gap": _rel_gap(pg.primal, max(duals[lam_n], fw.dual))})
    return out


def unconstrained(X, y, lam_ns, *, tol=1e-6, max_epochs=20000, repeat=3, budget=2.5, random_state=0):
    """Goal 2: all signs free; ours vs ``LinearSVC(loss="hinge", dual=True, fit_intercept=False,
    C=1/(lambda n))``, whose objective is P(w)/lambda. LinearSVC's ``tol`` is the loosest of
    :data:`SVC_TOLS` whose P(w) is no larger than ours (same objective accuracy or better), or the
    tightest if none is (then LinearSVC is timed at an accuracy below ours, and the note says so);
    both accuracies are relative gaps against our dual bound. Goal: ratio >= 1/3 with ours
    converged."""
    from sklearn.svm import LinearSVC

    n = len(y)
    rows = []
    for lam_n in lam_ns:
        lam = lam_n / n
        t_o, res, k_o = measure(_quiet(lambda: signsvm.solve(X, y, lam, tol=tol, max_epochs=max_epochs)),
                                repeat, budget)

        def svc(t):
            m = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1.0 / lam_n, tol=t, max_iter=1_000_000,
                          random_state=random_state)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return m.fit(X, y)

        chosen, reached = SVC_TOLS[-1], False
        for t in SVC_TOLS:
            if signsvm.primal_objective(svc(t).coef_.ravel(), X, y, lam) <= res.primal:
                chosen, reached = t, True
                break
        t_r, m, k_r = measure(lambda: svc(chosen), repeat, budget)
        p_svc = signsvm.primal_objective(m.coef_.ravel(), X, y, lam)
        note = (f"{res.n_iter} passes" + ("" if res.converged else f", not converged (cap {max_epochs} passes)")
                + f"; LinearSVC tol={chosen:g}" + ("" if reached else " (its tightest; objective still above ours)")
                + f", {int(np.max(m.n_iter_))} iterations")
        rows.append(_row("unconstrained SVM vs LinearSVC", f"n={n}, d={X.shape[1]}, lam_n={lam_n:g}", n,
                         (t_o, k_o), (t_r, k_r), res.gap / res.primal, _rel_gap(p_svc, res.dual),
                         "relative gap against our dual bound", 1.0 / 3.0, res.converged, note))
    return rows


# ----------------------------------------------------------------------------- goal 3: line search

def line_search(seed, sizes, *, repeat=3, budget=2.0):
    """Goal 3: the O(d log d) sweep (``signsvm.line_search``) vs the paper's O(d^2) construction
    (``line_search_pieces_quadratic``) on the worst case d_t = d + 1 (n = 2, every coordinate
    crossing inside (0, 1)). Accuracy: shortfall of D(alpha + eta q) at each method's eta below the
    better of the two, relative. Goal: ratio >= 50 at d = 10^4."""
    rows = []
    for d in sizes:
        inst = crossing_template(instance_rng(seed, "benchmarks", "line search", int(d)), int(d))
        args = (inst.alpha, inst.u, inst.X, inst.y, inst.lam, inst.sign)
        t_o, ls, k_o = measure(lambda: signsvm.line_search(*args), repeat, budget, min_seconds=0.05)
        t_r, lq, k_r = measure(lambda: signsvm.line_search_pieces_quadratic(*args), repeat, budget)
        q = inst.u - inst.alpha
        vals = [signsvm.dual_objective(inst.alpha + e * q, inst.X, inst.y, inst.lam, inst.sign) for e in (ls.eta, lq.eta)]
        best = max(vals)
        rows.append(_row("exact line search vs O(d^2) pieces", f"n=2, d={d}, d_t={len(ls.a)}", int(d),
                         (t_o, k_o), (t_r, k_r), (best - vals[0]) / abs(best), (best - vals[1]) / abs(best),
                         "dual shortfall at eta, relative", 50.0 if d == 10_000 else None))
    return rows


# ----------------------------------------------------------------------------- goal 4: quadratic on a ball

def _ball_instance(rng, n, hard=False):
    if hard:
        return hard_ball_case(rng, n, 2, 2.0, False)
    G = rng.standard_normal((n, n))
    return G @ G.T / n, rng.standard_normal(n), rng.standard_normal(n), 1.0


def quadratic_on_ball(seed, sizes, sdp_sizes, *, repeat=3, budget=2.0, hard_sizes=()):
    """Goal 4: ``maximize_quadratic_on_ball`` vs scipy's exact trust-region subproblem solver
    (IterativeSubproblem with k_easy = k_hard = 1e-12, far tighter than its defaults) at ``sizes``,
    and vs the cvxpy SDP (Shor relaxation, Clarabel 1e-10) at ``sdp_sizes``. Random PSD A = GG'/n,
    S = 1; ``hard_sizes`` adds hard-case instances (top eigenvalue double, b orthogonal to its
    eigenspace, radius twice the critical one). Accuracy: shortfall below the best value found,
    relative (for the SDP, the distance of its value from it)."""
    rows = []
    cases = [(n, False) for n in sorted(set(sizes) | set(sdp_sizes))] + [(n, True) for n in hard_sizes]
    for n, hard in cases:
        A, b, c, S = _ball_instance(instance_rng(seed, "benchmarks", "ball", n, hard), n, hard)
        t_o, ours, k_o = measure(lambda: maximize_quadratic_on_ball(A, b, c, S), repeat, budget, min_seconds=0.05)
        kind = "hard case" if hard else "random PSD"
        if n in sizes or hard:
            t_r, sp, k_r = measure(lambda: ball_max_trust_region(A, b, c, S), repeat, budget, min_seconds=0.05)
            best = max(ours.value, sp.value if np.isfinite(sp.value) else -np.inf)
            rows.append(_row("quadratic on ball vs scipy trust-region", f"n={n}, {kind}", n, (t_o, k_o), (t_r, k_r),
                             (best - ours.value) / abs(best), (best - sp.value) / abs(best),
                             "shortfall below best value, relative", 1.0, note=sp.status))
        if n in sdp_sizes and not hard:
            t_r, sdp, k_r = measure(lambda: ball_max_sdp(A, b, c, S), 1, 0.0)
            rows.append(_row("quadratic on ball vs cvxpy SDP", f"n={n}, {kind}", n, (t_o, k_o), (t_r, k_r), 0.0,
                             abs(sdp.value - ours.value) / abs(ours.value), "|value - ours|, relative",
                             1000.0 if n == max(sdp_sizes) else None, note=sdp.status))
    return rows


# ----------------------------------------------------------------------------- goal 6: QP1

def qp1(seed, sizes, Cs, *, repeat=3, budget=2.0):
    """``solve_qp1(..., record=False)`` (engine "auto" then picks the compiled DRD loop) vs cvxpy/Clarabel on random
    overlapping instances (g = N(0,1) + y/2, W = 1). Accuracy: our duality gap and cvxpy's objective
    minus our dual value, both relative to max(1, |P|). Goal: ratio >= 10 at N = 1000."""
    rows = []
    for N in sizes:
        rng = instance_rng(seed, "benchmarks", "qp1", N)
        y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
        g = rng.standard_normal(N) + 0.5 * y
        for C in Cs:
            t_o, res, k_o = measure(lambda: solve_qp1(g, y, C, 1.0, record=False), repeat, budget, min_seconds=0.05)
            t_r, ref, k_r = measure(lambda: solve_qp1_cvxpy(g, y, C, 1.0), repeat, budget)
            scale = max(1.0, abs(res.objective))
            rows.append(_row("QP1 vs cvxpy", f"N={N}, C={C:g}", N, (t_o, k_o), (t_r, k_r), res.gap / scale,
                             (ref.objective - res.dual_objective) / scale, "gap against our dual, / max(1, |P|)",
                             10.0 if N == 1000 else None, note=f"{res.n_iter} iterations"))
    return rows


# ----------------------------------------------------------------------------- goal 5: weighted kernel SVM

def weighted_svm(sizes, *, lam_over_n=10 ** -1.5, tol=1e-8, seed=0, repeat=3, budget=3.0):
    """Goal 5: ``fit_weighted_svm`` (hinge, unit weights) vs cvxpy/Clarabel on svmguide1 with the
    RBF kernel (+1 for the intercept, as in the DRSSS chapter), lambda = n 10^-1.5 (Table 3), on
    random subsets of ``sizes`` samples (the full n = 3089 only if listed). cvxpy solves the
    primal on a factor F F^T = K; its time includes the eigendecomposition that builds F. Accuracy:
    our certified relative gap; cvxpy's primal value against our dual bound. Goal: ratio >= 10."""
    X, y = datasets.load_scaled("svmguide1")      # the former setup of the drsss chapter: x / max|x|
    rows = []
    for m in sizes:
        rng = instance_rng(seed, "benchmarks", "svmguide1 subset", m)
        idx = np.sort(rng.choice(len(y), size=m, replace=False)) if m < len(y) else np.arange(len(y))
        ys = y[idx]
        K = regularised_intercept(rbf_kernel(X[idx]))     # the intercept as a constant feature: K + 1
        lam = m * lam_over_n
        w = np.ones(m)
        t_o, res, k_o = measure(_quiet(lambda: fit_weighted_svm(K, ys, lam, w, tol=tol)), repeat, budget)
        t_r, ref, k_r = measure(lambda: solve_weighted_primal_cvxpy(kernel_factor(K), ys, lam, w), 1, 0.0)
        rows.append(_row("weighted kernel SVM vs cvxpy", f"svmguide1 subset n={m}, RBF, lam=n*10^-1.5", m,
                         (t_o, k_o), (t_r, k_r), res.gap / res.primal, _rel_gap(ref.value, res.dual),
                         "relative gap against our dual bound", 10.0 if m == max(sizes) else None, res.converged,
                         note=f"{res.n_iter} epochs"))
    return rows


def goals(rows):
    """The rows that test a speed goal."""
    return [r for r in rows if r["goal"]]
