"""Projected (sub)gradient descent on the primal of the sign-constrained SVM (Tajima et al., Sec. 4).

The method is Pegasos with the full sub-gradient instead of a sampled one, followed by a
projection onto S (the sign constraints, eq. 7) and then onto the ball B of radius sqrt(2/lam)
(eq. 6). One iteration costs O(nd): one product X w for the margins (which also gives P(w_t))
and one product X^T c for the sub-gradient.

Because S is a closed convex cone and B a ball centred at the origin, projecting first onto S
and then onto B gives the projection onto the intersection B cap S (third property listed
before Theorem 4.1); the opposite order does not.
"""

from __future__ import annotations

import time

import numpy as np

from .._validation import check_positive, check_sign, check_vector, check_X_y
from .objectives import _project
from .result import SolverResult

__all__ = ["project_ball", "project_ball_sign", "projected_gradient", "ball_radius", "primal_subgradient"]


def ball_radius(lam) -> float:
    """Radius sqrt(2/lam) of the ball B of eq. (6), which contains the optimum w*."""
    lam = check_positive(lam, "lam")
    return float(np.sqrt(2.0 / lam))


def _ball(w: np.ndarray, radius: float) -> np.ndarray:
    norm = float(np.linalg.norm(w))
    return w if norm <= radius else w * (radius / norm)


def project_ball(w, radius) -> np.ndarray:
    """Euclidean projection Pi_B onto the ball {v : ||v|| <= radius} centred at 0.

    Parameters
    ----------
    w : array of shape (d,)
    radius : float > 0

    Returns
    -------
    ndarray of shape (d,)
        ``w`` itself when ||w|| <= radius, otherwise ``w`` rescaled to norm ``radius``.
    """
    w = check_vector(w, "w")
    radius = check_positive(radius, "radius")
    return _ball(w, radius)


def project_ball_sign(w, sign, radius) -> np.ndarray:
    """Pi_B(Pi_S(w)): clip the coordinates that break their sign constraint, then rescale into the ball.

    This composition is the projection onto B cap S (Tajima et al., Sec. 4, third property
    before Theorem 4.1), because S is a cone and B is centred at the origin.

    Parameters
    ----------
    w : array of shape (d,)
    sign : array of shape (d,) with entries in {-1, 0, +1}, or None (no constraint).
    radius : float > 0, the radius of B.

    Returns
    -------
    ndarray of shape (d,)
    """
    w = check_vector(w, "w")
    sign = check_sign(sign, w.shape[0])
    radius = check_positive(radius, "radius")
    return _ball(_project(w, sign), radius)


def _subgradient(w, X, y, lam, n):
    z = y * (X @ w)
    active = z < 1.0
    hinge = float(np.sum(1.0 - z[active])) / n
    g = lam * w - X.T @ (y * active) / n
    return g, 0.5 * lam * float(w @ w) + hinge


def primal_subgradient(w, X, y, lam) -> np.ndarray:
    """A sub-gradient of P at w: lam w - (1/n) sum_{i : y_i <x_i, w> < 1} y_i x_i.

    At a margin exactly 1 the hinge term contributes 0 (a valid element of its sub-differential).
    This is the "gradient" of eq. (6).
    """
    X, y = check_X_y(X, y)
    w = check_vector(w, "w", X.shape[1])
    lam = check_positive(lam, "lam")
    return _subgradient(w, X, y, lam, X.shape[0])[0]


def projected_gradient(X, y, lam, sign=None, n_iter: int = 1000, record_history: bool = True,
                       radius=None) -> SolverResult:
    """Projected sub-gradient method of eq. (6) (Tajima et al., Sec. 4).

    Starting from w_1 = 0, the iterates are

        w_{t+1} = Pi_B(Pi_S(w_t - (1/(lam t)) g_t)),   g_t a sub-gradient of P at w_t,

    with B the ball of radius sqrt(2/lam). ``n_iter = T`` generates and evaluates w_1, ..., w_T
    (T - 1 updates); the sub-gradient at w_T is evaluated for the history but not applied.

    Parameters
    ----------
    X : (n, d) samples as rows; y : (n,) labels +-1; lam : lambda > 0.
    sign : (d,) entries in {-1, 0, +1}, optional (default: no constraint).
    n_iter : number T >= 1 of iterates.
    record_history : keep per-iteration values (see ``history`` below).
    radius : radius of B; default sqrt(2/lam) as in eq. (6).

    Returns
    -------
    SolverResult
        ``w`` is the **best** iterate, argmin_{t <= T} P(w_t), not the last one: Theorem 4.1
        (eq. 8) bounds the error of the best iterate. ``primal`` = P(w). ``alpha``, ``dual`` and
        ``gap`` are None: the method has no dual point and so certifies no accuracy; ``converged``
        is True once the T iterations have run (the budget is the only stopping rule).
        ``history`` (if recorded) holds lists of length T: ``primal`` (P(w_t)), ``grad_norm``
        (||g_t||), ``w_norm`` (||w_t||), ``seconds`` (time since the start when w_t had been
        evaluated), and ``best_iteration`` (the 1-based t of the returned iterate). There are no
        ``dual`` or ``gap`` entries.

    Notes
    -----
    Cost O(nd) per iteration: X w_t and X^T (y * active) / n.
    """
    X, y = check_X_y(X, y)
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or int(n_iter) < 1:
        raise ValueError(f"n_iter: expected an integer >= 1, got {n_iter!r}")
    n_iter = int(n_iter)
    radius = float(np.sqrt(2.0 / lam)) if radius is None else check_positive(radius, "radius")
    n = X.shape[0]
    w = np.zeros(X.shape[1])
    best_w, best_p, best_t = w, np.inf, 0
    hist = {"primal": [], "grad_norm": [], "w_norm": [], "seconds": []}
    start = time.perf_counter()
    for t in range(1, n_iter + 1):
        g, p = _subgradient(w, X, y, lam, n)
        if p < best_p:
            best_w, best_p, best_t = w, p, t
        if record_history:
            hist["primal"].append(p)
            hist["grad_norm"].append(float(np.linalg.norm(g)))
            hist["w_norm"].append(float(np.linalg.norm(w)))
            hist["seconds"].append(time.perf_counter() - start)
        if t < n_iter:
            w = _ball(_project(w - g / (lam * t), sign), radius)
    if record_history:
        hist["best_iteration"] = best_t
    return SolverResult(w=best_w.copy(), alpha=None, primal=float(best_p), dual=None, gap=None, n_iter=n_iter,
                        converged=True, history=hist if record_history else {})
