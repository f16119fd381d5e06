"""Chapter "Weighted ERM and its dual" (Hanada et al., Definition 2.1, eqs. 1-7, Lemma B.2, Table 5).

Three groups of checks:

- :func:`conjugate_checks`: every row of Table 5 against a brute-force supremum on a grid, the
  printed domains (where the supremum stops growing) and the printed zero sets Z[l] (from one-sided
  difference quotients).
- :func:`duality_instances`: weighted problems on random and real data with random weights (some
  zero), solved three times: by :func:`svmcert.screening.weighted_svm.fit_weighted_svm`, by cvxpy on
  the primal (2) with explicit features and by cvxpy on the dual (4) in kernel form. Returns the
  numbers behind eq. (5), links (6)-(7) and the printed dual of Lemma B.2.
- :func:`problem_features`: the feature matrices (linear + regularised intercept, RBF + intercept).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ...reference.weighted_svm import solve_weighted_dual_cvxpy, solve_weighted_primal_cvxpy
from ...exceptions import ConvergenceWarning
from ...screening.weighted_svm import fit_weighted_svm, loss_conjugate, loss_value
from ..families import problem_features, random_weights, rbf_gram  # noqa: F401  (re-exported)
from ..instances import InstanceStreams

__all__ = ["TABLE5_ROWS", "table5_loss", "table5_conjugate", "table5_domain", "table5_zero_set",
           "conjugate_checks", "zero_set_checks", "rbf_gram", "problem_features", "random_weights",
           "link7_residual", "instance_parameters", "duality_instances", "InstanceStreams"]

TABLE5_ROWS = ("hinge", "squared_hinge", "eps_insensitive", "squared_eps_insensitive")


def table5_loss(t, row, y=1.0, eps=0.5):
    """l_y(t) for a row of Table 5 (first column). The library's l for the two classification rows."""
    t = np.asarray(t, dtype=float)
    if row in ("hinge", "squared_hinge"):
        return loss_value(t, row)
    e = np.maximum(0.0, np.abs(t - y) - eps)
    return e if row == "eps_insensitive" else e * e


def table5_conjugate(s, row, y=1.0, eps=0.5):
    """l*_y(s) as printed in Table 5 (fourth column); the library's for the two classification rows."""
    s = np.asarray(s, dtype=float)
    if row in ("hinge", "squared_hinge"):
        return loss_conjugate(s, row)
    if row == "eps_insensitive":
        return np.where((s >= -1) & (s <= 0), s * (y - eps), np.where((s > 0) & (s <= 1), s * (y + eps), np.inf))
    return (s * s + 4 * y * s) / 4 + np.abs(s) * eps


def table5_domain(row):
    """The printed interval of s = -alpha where l*(s) < inf (fifth column, in terms of s)."""
    return {"hinge": (-1.0, 0.0), "squared_hinge": (-np.inf, 0.0), "eps_insensitive": (-1.0, 1.0),
            "squared_eps_insensitive": (-np.inf, np.inf)}[row]


def table5_zero_set(t, row, eps=0.5):
    """Membership of t in Z[l] as printed (sixth column): (1, inf), [1, inf), (-eps, eps), [-eps, eps]."""
    t = np.asarray(t, dtype=float)
    return {"hinge": t > 1, "squared_hinge": t >= 1, "eps_insensitive": (t > -eps) & (t < eps),
            "squared_eps_insensitive": (t >= -eps) & (t <= eps)}[row]


def conjugate_checks(s_values, T=16.0, h=2.0 ** -10, ys=(-1.5, 0.0, 0.75), epss=(0.125, 0.5)):
    """Brute-force sup_t (s t - l(t)) on the grid t in [-T, T] (step h) and on [-2T, 2T], per row.

    Kinks (1, y +- eps) are dyadic, so they lie on the grid. Returns one row per (loss, y, eps, s):
    ``closed`` (printed l*), ``grid`` (sup on [-T, T]), ``growth`` = (sup on [-2T, 2T] - sup on
    [-T, T]) / T, and ``dist`` = distance of s to the printed domain. Inside the domain the maximiser
    lies in [-T, T] (growth 0) and grid <= closed <= grid + h^2/4; outside, the objective grows
    linearly with slope exactly ``dist`` towards one end.
    """
    import pandas as pd

    t1 = np.arange(-T, T + h / 2, h)
    t2 = np.arange(-2 * T, 2 * T + h / 2, h)
    rows = []
    for row in TABLE5_ROWS:
        params = [(1.0, 0.0)] if row in ("hinge", "squared_hinge") else [(y, e) for y in ys for e in epss]
        lo, hi = table5_domain(row)
        for y, e in params:
            l1, l2 = table5_loss(t1, row, y, e), table5_loss(t2, row, y, e)
            for s in s_values:
                g1, g2 = float(np.max(s * t1 - l1)), float(np.max(s * t2 - l2))
                dist = max(lo - s, s - hi, 0.0)
                rows.append({"loss": row, "y": y, "eps": e, "s": float(s),
                             "closed": float(table5_conjugate(s, row, y, e)), "grid": g1,
                             "growth": (g2 - g1) / T, "dist": dist})
    df = pd.DataFrame(rows)
    inside = df["dist"] == 0
    df["grid_error"] = np.where(inside, np.abs(df["closed"] - df["grid"]), np.nan)
    return df


def zero_set_checks(t_values, delta=2.0 ** -20, ys=(-1.0, 0.0, 1.0), epss=(0.125, 0.5)):
    """Z[l] = {t : dl(t) = {0}} from one-sided difference quotients, against the printed set.

    For convex l, dl(t) = [l'_-(t), l'_+(t)]; both one-sided quotients with step ``delta`` are within
    2 delta of the one-sided derivatives (curvature <= 2), so "both below 4 delta in absolute value"
    decides dl(t) = {0} for grid points at least delta away from every kink (or exactly on one).
    """
    import pandas as pd

    rows = []
    for row in TABLE5_ROWS:
        params = [(1.0, 0.5)] if row in ("hinge", "squared_hinge") else [(y, e) for y in ys for e in epss]
        for y, e in params:
            t = np.asarray(t_values, dtype=float)
            f = table5_loss(t, row, y, e)
            right = (table5_loss(t + delta, row, y, e) - f) / delta
            left = (f - table5_loss(t - delta, row, y, e)) / delta
            numeric = (np.abs(right) <= 4 * delta) & (np.abs(left) <= 4 * delta)
            printed = table5_zero_set(t, row, e)
            bad = numeric != printed
            first = int(np.argmax(bad)) if bad.any() else -1
            rows.append({"loss": row, "y": y, "eps": e, "points": t.size, "mismatches": int(bad.sum()),
                         "example_t": float(t[first]) if first >= 0 else np.nan,
                         "example_left": float(left[first]) if first >= 0 else np.nan,
                         "example_right": float(right[first]) if first >= 0 else np.nan})
    return pd.DataFrame(rows)


def link7_residual(alpha, m_lo, m_hi, w, gap, loss):
    """How far -alpha_i is from dl over the certified margin interval [m_lo, m_hi], and the largest
    distance the gap allows (Fenchel-Young: w_i FY_i(m*_i, alpha_i) <= gap).

    hinge: if m_lo > 1, alpha_i <= gap / (w_i (m_lo - 1)); if m_hi < 1, 1 - alpha_i <= gap / (w_i (1 - m_hi)).
    squared hinge: |alpha_i - 2 max(0, 1 - m*_i)| <= 2 sqrt(gap / w_i).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        if loss == "hinge":
            res = np.where(m_lo > 1, alpha, np.where(m_hi < 1, 1 - alpha, 0.0))
            bound = np.where(m_lo > 1, gap / (w * (m_lo - 1)), np.where(m_hi < 1, gap / (w * (1 - m_hi)), np.inf))
        else:
            a_lo, a_hi = 2 * np.maximum(0, 1 - m_hi), 2 * np.maximum(0, 1 - m_lo)
            res = np.maximum(np.maximum(a_lo - alpha, alpha - a_hi), 0.0)
            bound = 2 * np.sqrt(gap / w)
    return res, bound


def instance_parameters(streams, data, kernel, n) -> dict:
    """lam = n 10^-e (e uniform over 0, 0.5, ..., 3) and the weights of one problem, each from its
    own stream keyed by the data set and kernel (``streams``: an
    :class:`~svmcert.experiments.instances.InstanceStreams`)."""
    lam = n * 10 ** -float(streams("weighted-erm", "lambda", data, kernel).choice(np.arange(0, 3.01, 0.5)))
    return {"lam": lam, "weights": random_weights(n, streams("weighted-erm", "weights", data, kernel))}


def duality_instances(problems, losses, tol=1e-10, max_epochs=100000, rounding=1e-12):
    """Library vs cvxpy primal vs cvxpy dual for each (problem, loss).

    ``problems`` is a list of dicts with keys data, kernel, F (features, K = F F^T), y, lam, weights.
    Columns (G = P_ref - D_ref + rounding * P_ref, the cvxpy pair's gap with a rounding allowance):

    - ``p_lib, d_lib, gap_lib, converged``: the library's certified bracket.
    - ``p_ref, d_ref``: cvxpy's P_w(beta_P) and D_w(alpha_D), recomputed at the returned points.
    - ``zero_gap`` = (p_ref - d_ref) / p_ref (eq. 5); ``bracket`` = largest of (d_lib - p_ref) / p_ref
      and (d_ref - p_lib) / p_lib (weak duality across solvers, <= 0); ``lib_excess`` =
      (p_lib - p_ref) / p_ref, at most the certified gap of the library.
    - ``link6_ratio`` = ||beta_P - X_check^T (w alpha_D) / lam|| / (2 sqrt(2 G / lam)) (<= 1 by eq. 6).
    - ``link7_ratio``: largest residual / allowance of :func:`link7_residual` over samples with
      w_i > 0; ``link7_zero_weight``: largest residual of (7) at samples with w_i = 0.
    - ``b2_excess`` = (D_B2(alpha_D) - p_ref) / p_ref for Lemma B.2's printed dual (+ rho*).
    """
    import pandas as pd

    rows = []
    for prob in problems:
        F, y, lam, w = prob["F"], prob["y"], prob["lam"], prob["weights"]
        K = F @ F.T
        for loss in losses:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                lib = fit_weighted_svm(K, y, lam, w, loss, tol=tol, max_epochs=max_epochs)
            t_lib = time.perf_counter() - t0
            t0 = time.perf_counter()
            prim = solve_weighted_primal_cvxpy(F, y, lam, w, loss)
            dual = solve_weighted_dual_cvxpy(K, y, lam, w, loss, factor=F)
            t_ref = time.perf_counter() - t0
            p_ref, d_ref = prim.value, dual.value
            G = max(p_ref - d_ref, 0.0) + rounding * p_ref
            r = np.sqrt(2 * G / lam)
            beta_link = F.T @ (y * w * dual.alpha) / lam
            m = y * (F @ prim.beta)
            spread = np.linalg.norm(F, axis=1) * r
            res, bound = link7_residual(dual.alpha, m - spread, m + spread, w, G, loss)
            pos = w > 0
            rho_star = float(np.sum((F.T @ (y * w * dual.alpha)) ** 2)) / (2 * lam)
            b2 = d_ref + 2 * rho_star  # -sum w l*(-alpha) + rho*(...) = D + 2 rho*
            zres, _ = link7_residual(dual.alpha, m - spread, m + spread, np.ones_like(w), G, loss)
            rows.append({
                "data": prob["data"], "kernel": prob["kernel"], "loss": loss, "n": len(y), "features": F.shape[1],
                "lam": lam, "zero_weights": int((~pos).sum()), "p_lib": lib.primal, "d_lib": lib.dual,
                "gap_lib": lib.gap, "converged": lib.converged, "epochs": lib.n_iter, "p_ref": p_ref, "d_ref": d_ref,
                "zero_gap": (p_ref - d_ref) / p_ref,
                "bracket": max((lib.dual - p_ref) / p_ref, (d_ref - lib.primal) / lib.primal),
                "lib_excess": (lib.primal - p_ref) / p_ref, "lib_rel_gap": lib.gap / lib.primal,
                "link6_ratio": float(np.linalg.norm(prim.beta - beta_link) / (2 * r)),
                "link7_ratio": float(np.max(np.where(pos, res / bound, 0.0))) if pos.any() else 0.0,
                "link7_zero_weight": float(np.max(zres[~pos])) if (~pos).any() else 0.0,
                "b2_excess": (b2 - p_ref) / p_ref, "seconds_lib": t_lib, "seconds_cvxpy": t_ref,
            })
    return pd.DataFrame(rows)


def lemma_b2_counterexample():
    """n = d = 1, x = y = w = lam = 1: P* = 1/2 at beta* = 1, alpha* = 1; Lemma B.2's printed dual
    -w l*(-alpha) + rho*(w y x alpha) = alpha + alpha^2 / 2 reaches 3/2 > P*."""
    K, y, w, lam = np.ones((1, 1)), np.ones(1), np.ones(1), 1.0
    res = fit_weighted_svm(K, y, lam, w, "hinge", tol=1e-14)
    a = res.alpha
    printed = float(-(w @ loss_conjugate(-a, "hinge")) + (w[0] * a[0]) ** 2 / (2 * lam))
    return {"instance": {"n": 1, "d": 1, "x": 1.0, "y": 1.0, "w": 1.0, "lam": 1.0, "loss": "hinge",
                         "alpha": float(a[0]), "P_star": res.primal, "D_eq4": res.dual, "D_lemma_B2": printed},
            "excess": printed - res.primal}


def zero_weight_counterexample():
    """n = d = 1, x = y = 1, w = 0: P_w(beta) = lam/2 beta^2, beta* = 0, margin 0, dl(0) = {-1}; D_w is
    identically 0 on [0, 1], so alpha = 1/2 maximises (4) but -1/2 is not in dl(0)."""
    K, y, w, lam = np.ones((1, 1)), np.ones(1), np.zeros(1), 1.0
    from ...screening.weighted_svm import dual_objective

    values = [dual_objective(np.array([a]), K, y, lam, w) for a in (0.0, 0.5, 1.0)]
    return {"instance": {"n": 1, "x": 1.0, "y": 1.0, "w": 0.0, "lam": 1.0, "loss": "hinge", "beta_star": 0.0,
                         "alpha": 0.5, "D(0), D(1/2), D(1)": values, "subdifferential_at_margin_0": [-1.0]},
            "residual": 0.5}
