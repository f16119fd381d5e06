"""Projected (sub)gradient descent on the primal of the sign-constrained SVM (Tajima et al., Sec. 4).

The method is Pegasos with the full sub-gradient instead of a sampled one, followed by a
projection onto S (the sign constraints, eq. 7) and then onto the ball B of radius sqrt(2/lam)
(eq. 6). One iteration costs O(nd): one product X w for the margins (which also gives P(w_t))
and one product X^T c for the sub-gradient.

Because S is a closed convex cone and B a ball centred at the origin, projecting first onto S
and then onto B gives the projection onto the intersection B cap S (third property listed
before Theorem 4.1); the opposite order does not.

The method itself certifies nothing, so :func:`projected_gradient` builds dual points of eq. (9)
from the sub-gradients it computes anyway: the sub-gradient at w_t is lam w_t - X^T(y a_t)/n with
a_t the indicator of the margins below 1, and a_t, like any average of such indicators, lies in
the cube [0, 1]^n. Weak duality makes P(w) - D(alpha) a bound on P(w) - P* for every pair, so the
verdict is a duality-gap certificate like that of every other solver here. Without constraints and
without the ball, the iterates are w_{t+1} = omega(mean of a_1..a_t) exactly (Pegasos' iteration
is Frank-Wolfe on the dual with step 1/t), which is why averages of the a_t make good dual points;
the average over the second half of the run (suffix averaging, Rakhlin, Shamir & Sridharan,
ICML 2012) certifies the best iterate to within a few per cent of its true error on the book's
instances, while a single a_t stalls at the samples on the margin.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ..exceptions import ConvergenceWarning
from .._validation import check_positive, check_sign, check_vector, check_X_y
from .objectives import sign_projection
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
    return _ball(sign_projection(w, sign), radius)


def _subgradient_parts(w, X, y, lam, n):
    """Sub-gradient g = lam w - v at w, P(w), the indicator a of the margins below 1 and
    v = X^T (y a) / n (so that omega(a) = v / lam, eq. 9)."""
    z = y * (X @ w)
    active = z < 1.0
    hinge = float(np.sum(1.0 - z[active])) / n
    v = X.T @ (y * active) / n
    g = lam * w - v
    return g, 0.5 * lam * float(w @ w) + hinge, active, v


def _subgradient(w, X, y, lam, n):
    g, p, _, _ = _subgradient_parts(w, X, y, lam, n)
    return g, p


def _dual_value(v, mean_alpha, lam, sign):
    """D(alpha) of eq. (9) from v = X^T (y alpha) / n and mean(alpha)."""
    w = sign_projection(v / lam, sign)
    return -0.5 * lam * float(w @ w) + mean_alpha


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
                       radius=None, tol: float = 1e-6) -> SolverResult:
    """Projected sub-gradient method of eq. (6) (Tajima et al., Sec. 4), with a duality-gap verdict.

    Starting from w_1 = 0, the iterates are

        w_{t+1} = Pi_B(Pi_S(w_t - (1/(lam t)) g_t)),   g_t a sub-gradient of P at w_t,

    with B the ball of radius sqrt(2/lam). ``n_iter = T`` generates and evaluates w_1, ..., w_T
    (T - 1 updates); the sub-gradient at w_T is evaluated for the history but not applied. The
    budget is always spent (the iterates do not depend on ``tol``); ``tol`` only decides the verdict.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1} (+1: w_h >= 0, -1: w_h <= 0, 0: free); default all free.
    n_iter : int, default 1000
        The number T >= 1 of iterates.
    record_history : bool, default True
        Keep per-iteration values (see ``history`` below).
    radius : float > 0, optional
        Radius of B; default sqrt(2/lam) as in eq. (6).
    tol : float, default 1e-6
        Relative duality gap (P(w) - D(alpha)) / P(w) below which the result counts as converged;
        if the budget ends above it, :class:`ConvergenceWarning` is issued and ``converged=False``.

    Returns
    -------
    SolverResult
        ``w`` is the **best** iterate, argmin_{t <= T} P(w_t), not the last one: Theorem 4.1
        (eq. 8) bounds the error of the best iterate. ``primal`` = P(w). ``alpha`` is the best dual
        point found among the sub-gradient indicators a_t (a_t,i = 1 where y_i <x_i, w_t> < 1) and
        their averages over t = floor(T/2) + 1, ..., t' (suffix averages, see the module
        docstring); ``dual`` = D(alpha) (eq. 9, recomputed from alpha) and ``gap`` = primal - dual,
        which bounds P(w) - P* (weak duality, eq. 10). ``converged`` is gap <= tol * primal.
        ``history`` (if recorded) holds lists of length T: ``primal`` (P(w_t)), ``dual`` (the best
        dual value among the candidates up to t, from running sums: equal to D of that candidate
        up to rounding), ``gap`` (min_{s <= t} P(w_s) minus that dual), ``grad_norm`` (||g_t||),
        ``w_norm`` (||w_t||), ``seconds`` (time since the start when w_t had been evaluated), and
        ``best_iteration`` (the 1-based t of the returned iterate).

    Notes
    -----
    Cost O(nd) per iteration: X w_t and X^T (y * active) / n; the dual candidates add O(n + d).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import projected_gradient
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(200))
    >>> res = projected_gradient(X, y, lam=0.1, sign=[1, 0, 0, 0, -1], n_iter=200, tol=1e-4)
    >>> bool(res.converged and res.gap <= 1e-4 * res.primal), res.n_iter
    (True, 200)
    """
    X, y = check_X_y(X, y)
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or int(n_iter) < 1:
        raise ValueError(f"n_iter: expected an integer >= 1, got {n_iter!r}")
    n_iter = int(n_iter)
    radius = float(np.sqrt(2.0 / lam)) if radius is None else check_positive(radius, "radius")
    tol = check_positive(tol, "tol")
    n = X.shape[0]
    w = np.zeros(X.shape[1])
    best_w, best_p, best_t = w, np.inf, 0
    # dual candidates: the indicator a_t itself, and its average over [tail_start, t]
    tail_start = n_iter // 2 + 1
    tail_a, tail_v, tail_count, tail_len = np.zeros(n), np.zeros(X.shape[1]), 0, 0
    best_d, best_alpha = -np.inf, None
    hist = {"primal": [], "dual": [], "gap": [], "grad_norm": [], "w_norm": [], "seconds": []}
    start = time.perf_counter()
    for t in range(1, n_iter + 1):
        g, p, active, v = _subgradient_parts(w, X, y, lam, n)
        if p < best_p:
            best_w, best_p, best_t = w, p, t
        count = int(np.count_nonzero(active))
        d_t = _dual_value(v, count / n, lam, sign)
        if d_t > best_d:
            best_d, best_alpha = d_t, active
        if t >= tail_start:
            tail_a += active
            tail_v += v
            tail_count += count
            tail_len += 1
            d_tail = _dual_value(tail_v / tail_len, tail_count / (n * tail_len), lam, sign)
            if d_tail > best_d:
                best_d, best_alpha = d_tail, tail_a / tail_len
        if record_history:
            hist["primal"].append(p)
            hist["dual"].append(best_d)
            hist["gap"].append(best_p - best_d)
            hist["grad_norm"].append(float(np.linalg.norm(g)))
            hist["w_norm"].append(float(np.linalg.norm(w)))
            hist["seconds"].append(time.perf_counter() - start)
        if t < n_iter:
            w = _ball(sign_projection(w - g / (lam * t), sign), radius)
    if record_history:
        hist["best_iteration"] = best_t
    alpha = np.asarray(best_alpha, dtype=float)
    dual = _dual_value(X.T @ (y * alpha) / n, float(alpha.sum()) / n, lam, sign)   # exact D(alpha)
    gap = float(best_p) - dual
    converged = bool(gap <= tol * max(float(best_p), np.finfo(float).tiny))
    if not converged:
        warnings.warn(f"projected_gradient: the budget n_iter={n_iter} ended with relative duality gap "
                      f"{gap / max(float(best_p), np.finfo(float).tiny):.3g} > tol={tol:g}",
                      ConvergenceWarning, stacklevel=2)
    return SolverResult(w=best_w.copy(), alpha=alpha, primal=float(best_p), dual=dual, gap=gap, n_iter=n_iter,
                        converged=converged, history=hist if record_history else {})
