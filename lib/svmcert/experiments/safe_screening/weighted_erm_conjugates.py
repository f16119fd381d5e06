"""Convex conjugates of the weighted-ERM chapter (Hanada et al., Table 1, Lemmas A.1-A.2, Corollary A.3,
Sec. 4.1, Appendix D.1 and Lemma D.1), all by brute force or scipy, never by the closed forms checked.

- :func:`grid_conjugate`: ``sup_t (s t - f(t))`` over a grid, with the maximiser.
- :func:`biconjugate_checks`: Fenchel-Moreau (Lemma A.1), ``f** = f`` on an inner interval, for the
  paper's losses and regularisers, and a non-convex foil for which it fails.
- :func:`strong_convexity_of_conjugates` / :func:`smoothness_of_conjugates`: Lemma A.2's two bullets
  measured as moduli (midpoint inequality; Lipschitz constant of the maximiser, which is the
  gradient of the conjugate by Danskin's theorem).
- :func:`conjugate_growth`: Corollary A.3 (a strongly convex regulariser has a finite conjugate), with
  the L1 norm as the foil.
- :func:`midpoint_modulus`: the largest kappa for which ``f - kappa/2 ||.||^2`` passes the midpoint test
  on given pairs (Table 1's definition of strong convexity; Lemma D.1).
- :func:`representer_residual`: Lemma D.1's kernelisation: the weighted hinge problem with
  ``rho = kappa/2 ||b||^2 + H(||b||)`` solved by cvxpy, and the part of ``beta*`` outside the span of
  the samples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.optimize

from ..instances import instance_rng

__all__ = ["printed_pnorm", "printed_smoothness_counterexample", "FUNCTIONS", "grid_conjugate", "biconjugate_checks", "strong_convexity_of_conjugates",
           "smoothness_of_conjugates", "conjugate_growth", "midpoint_modulus", "representer_residual",
           "l2_conjugate_check", "elastic_net_conjugate_check"]

LAM, LAM1 = 2.0, 0.5          # lambda and lambda' of the regularisers used below


def _hinge(t):
    return np.maximum(0.0, 1.0 - t)


#: name -> (f, convex?, smoothness nu or None, strong-convexity kappa or None, curvature bound on [-4, 4]).
FUNCTIONS = {
    "hinge": (_hinge, True, None, None, 0.0),
    "squared hinge": (lambda t: _hinge(t) ** 2, True, 2.0, None, 2.0),
    "eps-insensitive (y = 0.75, eps = 0.5)": (lambda t: np.maximum(0.0, np.abs(t - 0.75) - 0.5), True, None, None, 0.0),
    "squared eps-insensitive (y = 0.75, eps = 0.5)": (lambda t: np.maximum(0.0, np.abs(t - 0.75) - 0.5) ** 2, True, 2.0,
                                                      None, 2.0),
    "logistic": (lambda t: np.logaddexp(0.0, -t), True, 0.25, None, 0.25),
    "L2 regulariser (lam = 2)": (lambda t: 0.5 * LAM * t * t, True, LAM, LAM, LAM),
    "elastic net (lam = 2, lam' = 0.5)": (lambda t: 0.5 * LAM * t * t + LAM1 * np.abs(t), True, None, LAM, LAM),
    "hinge + L2 (lam = 2)": (lambda t: _hinge(t) + 0.5 * LAM * t * t, True, None, LAM, LAM),
    "double well (not convex)": (lambda t: np.minimum((t - 1.0) ** 2, (t + 1.0) ** 2), False, None, None, 2.0),
}


def grid_conjugate(f, s, t):
    """``sup_{t in grid} (s t - f(t))`` for every ``s`` and the grid point attaining it."""
    s = np.asarray(s, dtype=float)
    ft = f(t)
    vals = s[:, None] * t[None, :] - ft[None, :]
    k = np.argmax(vals, axis=1)
    return vals[np.arange(s.size), k], t[k]


def biconjugate_checks(h: float = 2.0 ** -7, T: float = 4.0, S: float = 12.0, inner: float = 2.0) -> pd.DataFrame:
    """f* on the s-grid [-S, S], then f** on the t-grid, compared with f on [-inner, inner].

    f* is the conjugate of f restricted to [-T, T]; on the inner interval its biconjugate is f when f
    is convex and its slopes there lie in [-S, S]. Each supremum over a grid of step ``h`` misses by
    at most (curvature of the maximised function) h^2 / 8; for these functions on [-2, 2] both misses
    together stay below 1e-4, the tolerance the chapter uses. Kinks are dyadic, so piecewise-linear
    functions are exact.
    """
    t = np.arange(-T, T + h / 2, h)
    s = np.arange(-S, S + h / 2, h)
    inside = np.abs(t) <= inner + 1e-12
    rows = []
    for name, (f, convex, *_rest) in FUNCTIONS.items():
        fstar, _ = grid_conjugate(f, s, t)
        vals = t[inside][:, None] * s[None, :] - fstar[None, :]
        fss = vals.max(axis=1)
        err = fss - f(t[inside])
        rows.append({"function": name, "convex": convex, "points": int(inside.sum()),
                     "max_abs_error": float(np.abs(err).max()), "largest_gap_below_f": float(max(0.0, -err.min()))})
    return pd.DataFrame(rows)


def strong_convexity_of_conjugates(seed: int, pairs: int = 2000, h: float = 2.0 ** -10) -> pd.DataFrame:
    """Lemma A.2, first bullet: for each nu-smooth function, the midpoint modulus of its conjugate
    (computed on a grid of t) over random pairs of its domain, times nu. The lemma says >= 1.

    The domain is where the conjugate's maximiser lies inside the grid; the pairs are drawn there from
    the stream ``("weighted-erm", "lemma A.2", name)``.
    """
    rows = []
    t = np.arange(-8.0, 8.0 + h / 2, h)
    for name, (f, _convex, nu, _kappa, _c) in FUNCTIONS.items():
        if nu is None:
            continue
        rng = instance_rng(seed, "weighted-erm", "lemma A.2", name)
        lo, hi = _slope_range(f, -6.0, 6.0)
        u, v = rng.uniform(lo, hi, pairs), rng.uniform(lo, hi, pairs)
        keep = np.abs(u - v) > 0.05 * (hi - lo)
        u, v = u[keep], v[keep]
        fu, _ = grid_conjugate(f, u, t)
        fv, _ = grid_conjugate(f, v, t)
        fm, _ = grid_conjugate(f, (u + v) / 2, t)
        modulus = np.min(((fu + fv) / 2 - fm) / ((u - v) ** 2 / 8))
        rows.append({"function": name, "nu": nu, "pairs": int(u.size), "conjugate_modulus": float(modulus),
                     "modulus_times_nu": float(modulus * nu)})
    return pd.DataFrame(rows)


def _slope_range(f, a, b):
    """The range of slopes of f between a and b (one-sided quotients at the ends), shrunk by 5 %."""
    d = 1e-6
    lo, hi = (f(np.array([a + d])) - f(np.array([a])))[0] / d, (f(np.array([b])) - f(np.array([b - d])))[0] / d
    w = hi - lo
    return lo + 0.05 * w, hi - 0.05 * w


def _argmax_conjugate(f, s, bound=50.0):
    """The maximiser of ``s t - f(t)`` (a gradient of f* by Danskin) by bounded scalar minimisation."""
    out = scipy.optimize.minimize_scalar(lambda t: f(np.array([t]))[0] - s * t, bounds=(-bound, bound), method="bounded",
                                         options={"xatol": 1e-12, "maxiter": 2000})
    return float(out.x)


def smoothness_of_conjugates(seed: int, pairs: int = 300) -> pd.DataFrame:
    """Lemma A.2, second bullet: for each kappa-strongly convex function, the largest ratio
    |grad f*(u) - grad f*(v)| / |u - v| over random pairs in [-6, 6], times kappa. The lemma says <= 1.
    In floating point the maximiser of s t - f(t) is determined only to about sqrt(2 eps |f| / kappa),
    below 1e-7 here, because the objective is flat to second order there; pairs closer than 1 are
    skipped, so the ratio is known to 1e-6."""
    rows = []
    for name, (f, _convex, _nu, kappa, _c) in FUNCTIONS.items():
        if kappa is None:
            continue
        rng = instance_rng(seed, "weighted-erm", "lemma A.2 smooth", name)
        u, v = rng.uniform(-6, 6, pairs), rng.uniform(-6, 6, pairs)
        keep = np.abs(u - v) > 1.0
        gu = np.array([_argmax_conjugate(f, a) for a in u[keep]])
        gv = np.array([_argmax_conjugate(f, b) for b in v[keep]])
        ratio = np.max(np.abs(gu - gv) / np.abs(u[keep] - v[keep]))
        rows.append({"function": name, "kappa": kappa, "pairs": int(keep.sum()), "gradient_lipschitz": float(ratio),
                     "lipschitz_times_kappa": float(ratio * kappa)})
    return pd.DataFrame(rows)


def conjugate_growth(s_max: float = 6.0, T: float = 16.0, h: float = 2.0 ** -8) -> pd.DataFrame:
    """Corollary A.3: the conjugate of a strongly convex regulariser is finite. For |s| <= s_max the
    supremum over [-2T, 2T] equals that over [-T, T] (growth 0): the maximiser is at |t| <= |s| / kappa.
    The L1 norm lam' |t| (not strongly convex) is the foil: its conjugate is +inf for |s| > lam', and the
    growth is (|s| - lam') T."""
    s = np.linspace(-s_max, s_max, 97)
    t1, t2 = np.arange(-T, T + h / 2, h), np.arange(-2 * T, 2 * T + h / 2, h)
    funcs = {k: FUNCTIONS[k][0] for k in ("L2 regulariser (lam = 2)", "elastic net (lam = 2, lam' = 0.5)")}
    funcs["L1 norm (lam' = 0.5, not strongly convex)"] = lambda t: LAM1 * np.abs(t)
    rows = []
    for name, f in funcs.items():
        g1, _ = grid_conjugate(f, s, t1)
        g2, _ = grid_conjugate(f, s, t2)
        rows.append({"regulariser": name, "arguments": int(s.size), "max_growth": float(np.max(g2 - g1)),
                     "infinite_at": int(np.sum(g2 - g1 > 1e-9))})
    return pd.DataFrame(rows)


def midpoint_modulus(f, u, v) -> float:
    """The largest kappa with f((u+v)/2) <= (f(u)+f(v))/2 - kappa/8 ||u-v||^2 on all the given pairs
    (rows of ``u`` and ``v``): Table 1's strong convexity, tested at midpoints."""
    u, v = np.atleast_2d(u), np.atleast_2d(v)
    gap = (f(u) + f(v)) / 2 - f((u + v) / 2)
    return float(np.min(gap / (np.sum((u - v) ** 2, axis=1) / 8)))


def representer_residual(seed: int, kind: str, n: int = 6, d: int = 10, kappa: float = 1.0, c: float = 0.5) -> dict:
    """Lemma D.1's kernelisation: weighted hinge RERM with rho = kappa/2 ||b||^2 + H(||b||), solved by
    cvxpy/Clarabel with d > n; returns the relative norm of beta* outside the span of the samples.
    ``kind`` "L1 norm (foil)" adds c ||b||_1 instead, which is not a function of ||b||: its optimum
    leaves the span, which shows the residual can tell."""
    import cvxpy as cp

    rng = instance_rng(seed, "weighted-erm", "lemma D.1", kind)
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    w = rng.uniform(0.5, 1.5, n)
    b = cp.Variable(d)
    H = {"linear": c * cp.norm(b, 2), "quadratic": c * cp.sum_squares(b), "exponential": c * (cp.exp(cp.norm(b, 2)) - 1),
         "L1 norm (foil)": c * cp.norm(b, 1)}[kind]
    obj = cp.sum(cp.multiply(w, cp.pos(1 - cp.multiply(y, X @ b)))) + kappa / 2 * cp.sum_squares(b) + H
    cp.Problem(cp.Minimize(obj)).solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    beta = np.asarray(b.value)
    Q, _ = np.linalg.qr(X.T)                      # orthonormal basis of the span of the samples
    outside = beta - Q @ (Q.T @ beta)
    return {"H": kind, "n": n, "d": d, "beta_norm": float(np.linalg.norm(beta)),
            "outside_span": float(np.linalg.norm(outside) / max(np.linalg.norm(beta), 1e-300))}


def l2_conjugate_check(seed: int, count: int = 20, d: int = 3) -> float:
    """Sec. 4.1: rho*(v) = ||v||^2 / (2 lam) for rho = lam/2 ||b||^2, with the supremum of Table 1's
    definition computed by BFGS from a random start; returns the largest relative error."""
    worst = 0.0
    for k in range(int(count)):
        rng = instance_rng(seed, "weighted-erm", "l2 conjugate", k)
        v, lam = rng.standard_normal(d) * 3, float(10 ** rng.uniform(-1, 1))
        res = scipy.optimize.minimize(lambda b: 0.5 * lam * b @ b - v @ b, rng.standard_normal(d), method="BFGS",
                                      jac=lambda b: lam * b - v, options={"gtol": 1e-12})
        sup = -res.fun
        worst = max(worst, abs(sup - v @ v / (2 * lam)) / max(v @ v / (2 * lam), 1e-12))
    return float(worst)


def elastic_net_conjugate_check(seed: int, count: int = 40, d: int = 4) -> float:
    """App. D.1: rho*(v) = sum_j max(0, |v_j| - lam')^2 / (2 lam) for rho = lam/2 ||b||^2 + lam' ||b||_1.
    The supremum is computed coordinate by coordinate (rho is separable) by bounded scalar
    minimisation; returns the largest absolute error."""
    f = FUNCTIONS["elastic net (lam = 2, lam' = 0.5)"][0]
    worst = 0.0
    for k in range(int(count)):
        rng = instance_rng(seed, "weighted-erm", "elastic net", k)
        v = rng.uniform(-4, 4, d)
        sup = 0.0
        for vj in v:
            t = _argmax_conjugate(f, vj)
            sup += vj * t - f(np.array([t]))[0]
        printed = np.sum(np.maximum(0.0, np.abs(v) - LAM1) ** 2) / (2 * LAM)
        worst = max(worst, abs(sup - printed))
    return float(worst)


def printed_pnorm(v, p) -> float:
    """Table 1's p-norm as printed, (sum_i v_i^p)^(1/p), without absolute values."""
    v = np.asarray(v, dtype=float)
    return float(np.sum(v ** p) ** (1.0 / p))


def printed_smoothness_counterexample(v: float = 3.0, v2: float = 0.0, h: float = 2.0 ** -10) -> dict:
    """Lemma A.2 read with Table 1's definition of mu-smooth, |f(v) - f(v')| <= mu ||v - v'||: rho = t^2/2
    is 1-strongly convex, so rho* should be 1-smooth. rho* from a grid supremum (exact here: v and the
    maximisers are on the grid)."""
    t = np.arange(-16.0, 16.0 + h / 2, h)
    (a, b), _ = grid_conjugate(lambda x: 0.5 * x * x, [v, v2], t)
    return {"rho": "t^2 / 2", "kappa": 1.0, "mu_claimed": 1.0, "v": v, "v_prime": v2, "rho_star_v": float(a),
            "rho_star_v_prime": float(b), "difference": float(abs(a - b)), "mu_times_distance": abs(v - v2)}
