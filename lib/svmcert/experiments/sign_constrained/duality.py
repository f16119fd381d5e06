"""Chapter "Duality and the certificate" (Tajima et al., eqs. 4-10).

For each data set, lambda and sign pattern: solve the dual with the library to a certified gap,
solve the primal independently with cvxpy, and compare. Also weak duality at arbitrary points
and the reduction to the standard SVM dual when no sign is constrained.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import signsvm
from ...datasets import load_scaled
from ...reference import solve_primal_cvxpy
from ..instances import instance_rng
from ..patterns import sign_vector

__all__ = ["SIGN_PATTERNS", "load_scaled", "strong_duality", "weak_duality",
           "standard_svm_dual_cvxpy", "standard_dual_identity", "sec3_reduction", "sec3_reduction_rows"]

SIGN_PATTERNS = ("free", "all >= 0", "correlation", "mixed")


def strong_duality(name, X, y, lam_n_grid, patterns, seed, tol=1e-9, max_epochs=None, weak_count=0):
    """Library dual solve vs cvxpy primal, one row per (lambda, sign pattern).

    The library's solve is ``signsvm.solve``'s ``auto`` plan (coordinate ascent on the dual, or the
    interior-point method where coordinate ascent is slow; column ``method``); with ``max_epochs``
    it is coordinate ascent alone under that limit.

    Random sign patterns and the weak-duality points of each (lambda, pattern) come from streams
    keyed by the data set, lambda and pattern (:func:`~svmcert.experiments.instances.instance_rng`).

    Columns: the library's P(w(alpha)) and D(alpha) and their gap; cvxpy's P_ref (evaluated at its
    own w); ``bracket`` = how far P_ref lies outside [D, P] relative to P_ref (0 when inside);
    ``w_dist_over_bound`` = ||w - w_ref|| / (sqrt(2 gap / lam) + sqrt(2 (P_ref - D) / lam)), each gap at
    least the rounding (n + d) eps |P| of the sums that produce it, which
    strong convexity of P bounds by 1. With ``weak_count`` > 0, also eq. (10) at that many arbitrary
    alpha (:func:`weak_duality`), relative to P_ref: ``max_dual_minus_pref``, ``min_primal_minus_pref``.
    """
    import pandas as pd

    rows = []
    n = X.shape[0]
    for lam_n in lam_n_grid:
        lam = lam_n / n
        for kind in patterns:
            sign = sign_vector(kind, X, y, instance_rng(seed, "duality", "sign", name, lam_n, kind))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                res = signsvm.solve(X, y, lam, sign, tol=tol, **({} if max_epochs is None else {"max_epochs": max_epochs}))
            ref = solve_primal_cvxpy(X, y, lam, sign)
            P, D = res.primal, res.dual
            outside = max(D - ref.value, ref.value - P, 0.0) / max(ref.value, 1e-300)
            # P and D are sums of n + d terms: each carries a rounding error up to (n + d) eps |P|, so a
            # difference below that is not resolved; the radii take it as their smallest gap
            rounding = (n + X.shape[1]) * np.finfo(float).eps * abs(P)
            radius = np.sqrt(2 * max(P - D, rounding) / lam) + np.sqrt(2 * max(ref.value - D, rounding) / lam)
            dist = float(np.linalg.norm(res.w - ref.w))
            rows.append({
                "data": name, "n": n, "d": X.shape[1], "lam_n": lam_n, "sign_pattern": kind,
                "constrained": int(np.count_nonzero(sign)), "primal": P, "dual": D,
                "rel_gap": (P - D) / P, "converged": res.converged, "epochs": res.n_iter,
                "method": "+".join(res.history.get("method", [])),
                "p_ref": ref.value, "bracket": outside,
                "w_dist_over_bound": dist / radius if radius > 0 else (0.0 if dist == 0 else np.inf),
                "weights_norm": float(np.linalg.norm(res.w)),
            })
            if weak_count:
                worst_d, worst_p = weak_duality(X, y, lam, sign, ref.value,
                                                instance_rng(seed, "duality", "weak", name, lam_n, kind), weak_count)
                rows[-1]["max_dual_minus_pref"] = worst_d / ref.value
                rows[-1]["min_primal_minus_pref"] = worst_p / ref.value
    return pd.DataFrame(rows)


def weak_duality(X, y, lam, sign, p_ref, rng, count=200):
    """D(alpha) <= P* <= P(w(alpha)) at arbitrary alpha (eq. 10): random cube points, vertices,
    sparse points. Returns the worst D(alpha) - P_ref and the smallest P(w(alpha)) - P_ref."""
    worst_dual, worst_primal = -np.inf, np.inf
    n = X.shape[0]
    for k in range(count):
        kind = k % 3
        if kind == 0:
            alpha = rng.uniform(size=n)
        elif kind == 1:
            alpha = rng.integers(0, 2, size=n).astype(float)
        else:
            alpha = np.where(rng.uniform(size=n) < 0.1, rng.uniform(size=n), 0.0)
        w = signsvm.weights_from_dual(alpha, X, y, lam, sign)
        worst_dual = max(worst_dual, signsvm.dual_objective(alpha, X, y, lam, sign) - p_ref)
        worst_primal = min(worst_primal, signsvm.primal_objective(w, X, y, lam) - p_ref)
    return float(worst_dual), float(worst_primal)


def standard_svm_dual_cvxpy(X, y, lam):
    """The textbook SVM dual, max <1, alpha>/n - alpha^T Q alpha / (2 lam n^2) over the cube with
    Q_ij = y_i y_j <x_i, x_j>, solved by cvxpy (written from scratch, no sign constraints)."""
    import cvxpy as cp

    n = X.shape[0]
    Z = y[:, None] * X
    alpha = cp.Variable(n)
    objective = cp.sum(alpha) / n - cp.sum_squares(Z.T @ alpha) / (2 * lam * n * n)
    problem = cp.Problem(cp.Maximize(objective), [alpha >= 0, alpha <= 1])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return float(problem.value), np.asarray(alpha.value)


def standard_dual_identity(X, y, lam, rng, count=100):
    """Largest |D(alpha) - D_std(alpha)| / max(1, |D_std|) over random alpha with all signs free,
    where D_std is the textbook quadratic form written out independently."""
    n = X.shape[0]
    Q = (y[:, None] * X) @ (y[:, None] * X).T
    worst = 0.0
    for _ in range(count):
        alpha = rng.uniform(size=n)
        d_std = alpha.sum() / n - alpha @ Q @ alpha / (2 * lam * n * n)
        worst = max(worst, abs(signsvm.dual_objective(alpha, X, y, lam) - d_std) / max(1.0, abs(d_std)))
    return worst


def sec3_reduction(X, y, lam, plus, minus, *, as_printed: bool, tol: float = 1e-10):
    """Sec. 3's reduction of the sign constraints (w_h >= 0 on ``plus``, w_h <= 0 on ``minus``) to
    non-negativity constraints only: negate some features, solve with sigma_h = 1 on the constrained
    ones, negate the solution back. As printed, the features of I_+ are negated and sigma marks I_+;
    corrected, the features of I_- are negated and sigma marks I_+ and I_-. Returns w."""
    flip = sorted(plus if as_printed else minus)
    constrained = sorted(plus if as_printed else set(plus) | set(minus))
    Xr = np.array(X, dtype=float)
    Xr[:, flip] *= -1.0
    sigma = np.zeros(Xr.shape[1])
    sigma[constrained] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        w = signsvm.solve(Xr, y, lam, sigma, tol=tol).w.copy()
    w[flip] *= -1.0
    return w


def sec3_reduction_rows(seed, count=30):
    """The corrected reduction against cvxpy on the original constraints, random problems (n = 40,
    d = 6, a random split of the features into I_+, I_- and free, lam n in {0.1, 1, 10}), each from
    the stream ``("duality", "sec. 3 reduction", k)``: relative objective difference and the largest
    violation of the original constraints."""
    import pandas as pd

    rows = []
    for k in range(int(count)):
        rng = instance_rng(seed, "duality", "sec. 3 reduction", k)
        n, d = 40, 6
        X = rng.standard_normal((n, d))
        y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
        kind = rng.integers(0, 3, size=d)                 # 0 free, 1 in I_+, 2 in I_-
        plus, minus = set(np.flatnonzero(kind == 1).tolist()), set(np.flatnonzero(kind == 2).tolist())
        lam = float(rng.choice([0.1, 1.0, 10.0])) / n
        sign = np.where(kind == 1, 1.0, np.where(kind == 2, -1.0, 0.0))
        ref = solve_primal_cvxpy(X, y, lam, sign)
        w = sec3_reduction(X, y, lam, plus, minus, as_printed=False)
        P = signsvm.primal_objective(w, X, y, lam)
        rows.append({"k": k, "n_plus": len(plus), "n_minus": len(minus), "lam_n": lam * n,
                     "rel_objective_error": abs(P - ref.value) / ref.value,
                     "constraint_violation": float(max(0.0, *(-w[list(plus)]), *(w[list(minus)])))})
    return pd.DataFrame(rows)
