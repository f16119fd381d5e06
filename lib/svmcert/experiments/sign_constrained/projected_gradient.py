"""Chapter "Projected gradient and the ball around w*" (Tajima et al., Sec. 4, eqs. 6-8, Theorem 4.1).

Instance families (real data sets with several lambdas and sign patterns, tiny random
problems), cached cvxpy reference optima, the check of Pi_B(Pi_S(.)) against a cvxpy projection
onto B cap S, and the projected-gradient runs compared with eq. (8).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...reference.signsvm import solve_primal_cvxpy
from ...signsvm import bounds
from ...signsvm.objectives import sign_projection
from ...signsvm.projected_gradient import project_ball_sign, projected_gradient
from ...exceptions import ConvergenceWarning
from ..families import SVMInstance as Instance
from ..patterns import SIGN_PATTERNS, sign_vector

__all__ = [
    "SIGN_PATTERNS",
    "Instance",
    "sign_vector",
    "unit_rows",
    "real_instances",
    "random_instances",
    "solve_references",
    "norm_table",
    "projection_instances",
    "project_ball_sign_cvxpy",
    "projection_check",
    "convergence_runs",
    "theorem41_counterexample",
]



def unit_rows(X) -> np.ndarray:
    """Rows scaled to unit Euclidean norm (zero rows left as they are), as the paper does for MNIST."""
    X = np.asarray(X, float)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def real_instances(data: dict, lam_rel, patterns, seed: int) -> list[Instance]:
    """Every (data set, lambda, sign pattern) combination; lambda = lam_rel * R^2 with R the largest
    row norm, so that the same lam_rel means the same regime for raw and rescaled data. A random
    pattern comes from the stream keyed by the data set, lam_rel and the pattern."""
    from ..instances import instance_rng

    out = []
    for name, (X, y) in data.items():
        R2 = bounds.max_row_norm(X) ** 2
        for c in lam_rel:
            for p in patterns:
                rng = instance_rng(seed, "sign", name, float(c), p)
                out.append(Instance(name, X, y, float(c * R2), sign_vector(p, X, y, rng), p, float(c)))
    return out


def random_instances(seed: int, count: int, max_n: int = 6, max_d: int = 4) -> list[Instance]:
    """Tiny Gaussian problems with lambda / R^2 in [1e-3, 10] and every sign pattern; instance k
    from the stream keyed ``("projected-gradient", "random", k)``.

    Every third instance is 'clustered': all y_i x_i close to one vector, the regime in which
    every margin can be near 1 and ||w*|| near the radius sqrt(1/lam).
    """
    from ..instances import instance_rng

    out = []
    for k in range(count):
        rng = instance_rng(seed, "projected-gradient", "random", k)
        n, d = int(rng.integers(1, max_n + 1)), int(rng.integers(1, max_d + 1))
        if k % 3 == 0:
            v = rng.standard_normal(d)
            y = rng.choice([-1.0, 1.0], size=n)
            X = y[:, None] * (v + 0.05 * rng.standard_normal((n, d)))
            family = "random clustered"
        else:
            X = rng.standard_normal((n, d))
            y = rng.choice([-1.0, 1.0], size=n)
            family = "random"
        c = float(10.0 ** rng.uniform(-3, 1))
        lam = c * bounds.max_row_norm(X) ** 2
        p = SIGN_PATTERNS[k % len(SIGN_PATTERNS)]
        out.append(Instance(family, X, y, lam, sign_vector(p, X, y, rng), p, c))
    return out


def solve_references(instances, progress: bool = False) -> None:
    """Attach the cvxpy/Clarabel optimum (``inst.ref``) to each instance, solving each problem once."""
    it = instances
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(instances, desc="cvxpy references", leave=False)
    for inst in it:
        if inst.ref is None:
            inst.ref = solve_primal_cvxpy(inst.X, inst.y, inst.lam, inst.sign)


def norm_table(instances):
    """||w*|| against the paper's radius sqrt(2/lam) and Pegasos' sqrt(1/lam), per instance."""
    import pandas as pd

    rows = []
    for inst in instances:
        norm = float(np.linalg.norm(inst.ref.w))
        rows.append({**inst.label(), "P_star": inst.ref.value, "norm_w_star": norm,
                     "ratio_sqrt_2_over_lam": norm / np.sqrt(2.0 / inst.lam),
                     "ratio_sqrt_1_over_lam": norm * np.sqrt(inst.lam)})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- projection onto B cap S


def projection_instances(seed: int, count: int) -> list[dict]:
    """Random (w, sign, radius): d in [1, 30], scales 1e-2..1e2, radii below and above ||w||;
    instance k from the stream keyed ``("projected-gradient", "projection", k)``.

    Cycles through special cases: w already feasible and inside the ball, w in the polar cone
    (projection 0), all coordinates constrained, and no constraint at all.
    """
    from ..instances import instance_rng

    out = []
    for k in range(count):
        rng = instance_rng(seed, "projected-gradient", "projection", k)
        d = int(rng.integers(1, 31))
        w = 10.0 ** rng.uniform(-2, 2) * rng.standard_normal(d)
        sign = rng.choice([-1.0, 0.0, 1.0], size=d)
        kind = ("generic", "inside", "polar", "all constrained", "free")[k % 5]
        if kind == "polar":
            sign = rng.choice([-1.0, 1.0], size=d)
            w = -sign * np.abs(w)
        elif kind == "all constrained":
            sign = rng.choice([-1.0, 1.0], size=d)
        elif kind == "free":
            sign = np.zeros(d)
        radius = float(np.linalg.norm(w) * 10.0 ** rng.uniform(-1.5, 0.5)) or 1.0
        if kind == "inside":
            w = np.where(sign * w < 0, -w, w)
            radius = 2.0 * float(np.linalg.norm(w)) + 1e-3
        out.append({"kind": kind, "w": w, "sign": sign, "radius": radius})
    return out


def project_ball_sign_cvxpy(w, sign, radius) -> np.ndarray:
    """Reference projection onto B cap S: min ||q - w||^2 s.t. ||q|| <= radius, sign_h q_h >= 0 (cvxpy/Clarabel).

    The problem is rescaled by s = max(||w||, radius) so the solver works on O(1) numbers;
    Clarabel's gap and feasibility tolerances are tightened to 1e-10.
    """
    import cvxpy as cp

    w = np.asarray(w, float)
    sign = np.asarray(sign, float)
    s = max(float(np.linalg.norm(w)), float(radius))
    q = cp.Variable(w.size)
    cons = [cp.norm(q, 2) <= radius / s]
    if np.any(sign > 0):
        cons.append(q[np.flatnonzero(sign > 0)] >= 0)
    if np.any(sign < 0):
        cons.append(q[np.flatnonzero(sign < 0)] <= 0)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(q - w / s)), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/CLARABEL projection failed: {prob.status}")
    return s * np.asarray(q.value, float)


def projection_check(instances, progress: bool = False):
    """Pi_B(Pi_S(w)) against cvxpy's projection onto B cap S, and the reversed order Pi_S(Pi_B(w)).

    Columns (distances relative to s = max(||w||, radius)): ``closer_than_cvxpy`` = (||w - p|| -
    ||w - q|| - v(q))/s, where v(q) = ||q - Pi_S(q)|| + max(0, ||Pi_S(q)|| - radius) bounds the
    distance from cvxpy's (possibly slightly infeasible) q to B cap S, so the column is <= 0 up to
    rounding exactly when p is at least as close to w as any feasible point near q;
    ``dist_cvxpy`` = ||p - q||/s; ``infeasibility`` of p = max(norm excess / radius, largest sign
    violation / s); ``dist_reversed`` = ||Pi_S(Pi_B(w)) - p||/s.
    """
    import pandas as pd

    rows = []
    it = instances
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(instances, desc="projections", leave=False)
    for inst in it:
        w, sign, r = inst["w"], inst["sign"], inst["radius"]
        s = max(float(np.linalg.norm(w)), r)
        p = project_ball_sign(w, sign, r)
        q = project_ball_sign_cvxpy(w, sign, r)
        qs = sign_projection(q, sign)
        v_q = float(np.linalg.norm(q - qs)) + max(0.0, float(np.linalg.norm(qs)) - r)
        nb = float(np.linalg.norm(w))
        reverse = sign_projection(w if nb <= r else w * (r / nb), sign)
        rows.append({"kind": inst["kind"], "d": w.size, "radius_over_norm": r / max(nb, 1e-300),
                     "closer_than_cvxpy": (np.linalg.norm(w - p) - np.linalg.norm(w - q) - v_q) / s,
                     "dist_cvxpy": float(np.linalg.norm(p - q)) / s,
                     "infeasibility": max(0.0, (float(np.linalg.norm(p)) - r) / r, float(np.max(-sign * p, initial=0.0)) / s),
                     "dist_reversed": float(np.linalg.norm(reverse - p)) / s})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- convergence (eq. 8)


def log_grid(T_max: int, size: int) -> np.ndarray:
    """About ``size`` integers from 1 to T_max spaced evenly on a log scale (1, 2, 3 always included)."""
    g = np.unique(np.round(np.logspace(0, np.log10(T_max), size)).astype(int))
    return np.unique(np.concatenate([[1, 2, 3], g[g <= T_max]]))


def _fixed_budget(X, y, lam, sign, T, **kw):
    """Eq. (6) for exactly T iterates. These runs study the iterates against eq. (8) and P* from
    cvxpy, not a solve to tolerance, so the solver's ConvergenceWarning (its duality-gap verdict
    at the end of the budget, kept in the result) is not shown."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return projected_gradient(X, y, lam, sign, n_iter=T, **kw)


def convergence_runs(instances, T_max: int, grid=None, progress: bool = False):
    """Run eq. (6) for T_max iterates on each instance (whose ``ref`` is set) and compare with eq. (8).

    Returns
    -------
    per_T : DataFrame, one row per (instance, T on the log grid): ``best_error`` = min_{t<=T}
        P(w_t) - P*, ``last_error`` = P(w_T) - P*, the printed bound of eq. (8) and the
        corrected bound G^2 (1 + ln T)/(2 lam T), and their ratios (``ratio_eq8`` is NaN at T = 1,
        where the printed bound is 0). ``grid`` defaults to :func:`log_grid` (T_max, 25); values
        above T_max are dropped.
    per_run : DataFrame, one row per instance: worst ||g_t|| / (sqrt(2 lam) + R), the largest
        ||w_t|| sqrt(lam/2) (1 = on the sphere of B), the fraction of iterates on that sphere,
        the final best error and the seconds per iteration.
    """
    import pandas as pd

    rows, runs = [], []
    it = instances
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(instances, desc="projected gradient", leave=False)
    grid = log_grid(T_max, 25) if grid is None else np.asarray(grid, int)
    grid = grid[(grid >= 1) & (grid <= T_max)]
    for inst in it:
        res = _fixed_budget(inst.X, inst.y, inst.lam, inst.sign, T_max)
        h = res.history
        primal = np.asarray(h["primal"])
        best = np.minimum.accumulate(primal)
        P_star = inst.ref.value
        G = bounds.gradient_norm_bound(inst.X, inst.lam)
        paper = bounds.theorem41_bound(inst.X, inst.lam, grid)
        fixed = bounds.theorem41_corrected_bound(inst.X, inst.lam, grid)
        for T, b8, bc in zip(grid, paper, fixed):
            err = float(best[T - 1] - P_star)
            rows.append({**inst.label(), "T": int(T), "best_error": err, "last_error": float(primal[T - 1] - P_star),
                         "bound_eq8": float(b8), "bound_corrected": float(bc),
                         "ratio_eq8": err / b8 if b8 > 0 else np.nan,
                         "ratio_corrected": err / bc})
        w_rel = np.asarray(h["w_norm"]) * np.sqrt(inst.lam / 2.0)
        runs.append({**inst.label(), "T_max": T_max, "max_grad_ratio": float(np.max(h["grad_norm"]) / G),
                     "max_norm_over_radius": float(w_rel.max()),
                     "fraction_on_sphere": float(np.mean(w_rel >= 1.0 - 1e-12)),
                     "best_error": float(best[-1] - P_star), "best_iteration": int(h["best_iteration"]),
                     "seconds_per_iteration": float(h["seconds"][-1]) / T_max})
    return pd.DataFrame(rows), pd.DataFrame(runs)


def theorem41_counterexample() -> dict:
    """Eq. (8) at T = 1 on the smallest instance: n = d = 1, x = 1, y = +1, lam = 1, no constraint.

    w_1 = 0 gives P(w_1) = 1, while P* = 1/2 at w* = 1; the printed bound is G^2 log(1)/lam = 0.
    P* comes from cvxpy. Returns the observed error, the bound and the instance.
    """
    X, y, lam = np.array([[1.0]]), np.array([1.0]), 1.0
    res = _fixed_budget(X, y, lam, None, 1)
    ref = solve_primal_cvxpy(X, y, lam)
    return {"observed": float(res.primal - ref.value), "bound": bounds.theorem41_bound(X, lam, 1),
            "corrected_bound": bounds.theorem41_corrected_bound(X, lam, 1), "w_star": float(ref.w[0]),
            "instance": {"X": [[1.0]], "y": [1.0], "lam": 1.0, "sign": [0.0], "T": 1}}
