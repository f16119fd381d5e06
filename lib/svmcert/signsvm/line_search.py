"""Exact line search of the Frank-Wolfe method (Tajima et al., Lemma 1, eqs. 15-23).

Along alpha + eta q the unprojected vector moves on a line, omega(eta) = omega_0 + eta omega_q.
A constrained coordinate h contributes omega_h(eta)^2 to ||w||^2 while it has the required sign
and 0 otherwise; it changes status only where omega_h(eta) = 0, at eta_h = -omega_0h / omega_qh.
Between consecutive such points the active set is fixed, so

    zeta(eta) = a_k eta^2 + b_k eta + c_k  on [theta_k, theta_{k+1}],
    a_k = -lam/2 sum_active omega_qh^2,  b_k = -lam sum_active omega_0h omega_qh + <1, q>/n,
    c_k = -lam/2 sum_active omega_0h^2 + <1, alpha>/n.

A coordinate enters or leaves where its contribution and its slope are both zero, so zeta is
continuously differentiable (eq. 17) and, with every a_k <= 0, concave.

:func:`line_search` sorts the breakpoints once and updates the three sums as coordinates enter
or leave (O(d log d)); :func:`line_search_pieces_quadratic` recomputes the sums for each piece
from scratch, the O(d^2) formulation of the paper, kept as a reference and for benchmarks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_vector
from .objectives import _omega, _validate_dual_args

__all__ = ["LineSearch", "line_search", "line_search_pieces_quadratic", "maximize_pieces", "pieces_sweep"]


class LineSearch(NamedTuple):
    """Result of the exact line search.

    Attributes
    ----------
    eta : float
        A maximiser of zeta(eta) = D(alpha + eta q) over [0, 1].
    theta : ndarray of shape (d_t + 1,)
        Breakpoints 0 = theta_1 < ... < theta_{d_t+1} = 1.
    a, b, c : ndarray of shape (d_t,)
        Coefficients of zeta on each piece (eq. 16); every a_k <= 0.
    """

    eta: float
    theta: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray


def _line_data(alpha, u_or_q, X, y, lam, sign, name):
    alpha, X, y, lam, sign = _validate_dual_args(alpha, X, y, lam, sign)
    q = check_vector(u_or_q, name, X.shape[0])
    end = alpha + q
    if end.min() < -1e-12 or end.max() > 1 + 1e-12:
        raise ValueError(f"{name}: expected alpha + q inside the cube [0, 1]^n, found range "
                         f"[{end.min():g}, {end.max():g}]")
    n = X.shape[0]
    w0 = _omega(alpha, X, y, lam)
    wq = X.T @ (y * q) / (lam * n)
    return w0, wq, sign, lam, float(q.sum()) / n, float(alpha.sum()) / n


_MERGE = 8 * np.finfo(float).eps  # crossings closer than this are one breakpoint


def _breakpoints(w0, wq, sign):
    """Crossings in (0, 1) of constrained coordinates, and which coordinates are active just after 0."""
    constrained = sign != 0
    s0, sq = sign * w0, sign * wq
    active0 = ~constrained | (s0 > 0) | ((s0 == 0) & (sq > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.where(constrained & (wq != 0), -w0 / wq, np.nan)
    # Crossings within rounding distance of 0 or 1 would only create pieces of zero width: one
    # just after 0 decides the status on the whole first piece; one just before 1 is dropped.
    near_zero = np.isfinite(cross) & (cross > 0) & (cross <= _MERGE)
    active0 = np.where(near_zero, sq > 0, active0)
    inside = np.isfinite(cross) & (cross > _MERGE) & (cross < 1 - _MERGE)
    return active0, cross, np.flatnonzero(inside)


def pieces_sweep(w0, wq, sign, lam, sum_q, sum_a):
    """Breakpoints and piece coefficients by one sorted sweep (O(d log d)).

    The sums over the active set are formed once just after eta = 0 and then updated as each
    coordinate crosses zero (it enters or leaves), instead of being recomputed for every piece.
    """
    active0, cross, idx = _breakpoints(w0, wq, sign)
    order = idx[np.argsort(cross[idx], kind="stable")]
    sa = float(np.sum(wq[active0] ** 2))
    sb = float(np.sum(w0[active0] * wq[active0]))
    sc = float(np.sum(w0[active0] ** 2))
    theta, a, b, c = [0.0], [], [], []
    k, m = 0, len(order)
    while True:
        a.append(-0.5 * lam * sa)
        b.append(-lam * sb + sum_q)
        c.append(-0.5 * lam * sc + sum_a)
        if k >= m:
            theta.append(1.0)
            break
        t = cross[order[k]]
        theta.append(float(t))
        while k < m and cross[order[k]] - t <= _MERGE:
            h = order[k]
            # Crossing zero flips the status: a coordinate moving against its sign leaves.
            sgn = -1.0 if sign[h] * wq[h] < 0 else 1.0
            sa += sgn * wq[h] ** 2
            sb += sgn * w0[h] * wq[h]
            sc += sgn * w0[h] ** 2
            k += 1
    # Sums of squares updated by subtraction can round to a tiny positive number.
    return np.array(theta), np.minimum(np.array(a), 0.0), np.array(b), np.array(c)



def maximize_pieces(theta, a, b) -> float:
    """argmax over [0, 1] of a concave, C^1 piecewise quadratic given by its pieces.

    The derivative 2 a_k eta + b_k decreases; the maximiser is the first point where it reaches 0,
    or 1 if it stays positive (Fig. 2 of the paper: optimum at 0, at 1, or inside a piece).
    """
    for k in range(len(a)):
        right = theta[k + 1]
        if 2 * a[k] * right + b[k] >= 0:
            continue
        left = theta[k]
        if 2 * a[k] * left + b[k] <= 0:
            return float(left)
        return float(min(max(-b[k] / (2 * a[k]), left), right))  # a_k < 0 here
    return 1.0


def line_search(alpha, u, X, y, lam, sign=None) -> LineSearch:
    """Maximise D(alpha + eta (u - alpha)) over eta in [0, 1] exactly (Lemma 1), in O(nd + d log d).

    Parameters
    ----------
    alpha : array (n,), the current point in [0, 1]^n.
    u : array (n,), the vertex from :func:`lp_step` (any point of the cube works); q = u - alpha.
    X, y, lam, sign : the problem, as in :func:`dual_objective`.

    Returns
    -------
    LineSearch
        eta, breakpoints theta and piece coefficients (a, b, c).
    """
    alpha_arr = check_vector(alpha, "alpha")
    u_arr = check_vector(u, "u", alpha_arr.shape[0])
    if u_arr.min() < 0 or u_arr.max() > 1:
        raise ValueError(f"u: expected every entry in [0, 1], found range [{u_arr.min():g}, {u_arr.max():g}]")
    w0, wq, sign, lam, sum_q, sum_a = _line_data(alpha_arr, u_arr - alpha_arr, X, y, lam, sign, "u")
    theta, a, b, c = pieces_sweep(w0, wq, sign, lam, sum_q, sum_a)
    return LineSearch(maximize_pieces(theta, a, b), theta, a, b, c)


def line_search_pieces_quadratic(alpha, u, X, y, lam, sign=None) -> LineSearch:
    """The same pieces computed as the paper does: for every piece, sum over all d coordinates
    whether each is active at the piece's midpoint (O(d) per piece, O(d^2) in all)."""
    alpha_arr = check_vector(alpha, "alpha")
    u_arr = check_vector(u, "u", alpha_arr.shape[0])
    w0, wq, sign, lam, sum_q, sum_a = _line_data(alpha_arr, u_arr - alpha_arr, X, y, lam, sign, "u")
    _, cross, idx = _breakpoints(w0, wq, sign)
    ordered = np.sort(cross[idx])
    keep = np.ones(ordered.size, bool)
    group_start = 0
    for i in range(1, ordered.size):  # same grouping as the sweep: within _MERGE of the group's first
        if ordered[i] - ordered[group_start] <= _MERGE:
            keep[i] = False
        else:
            group_start = i
    theta = np.concatenate([[0.0], ordered[keep], [1.0]])
    a, b, c = [], [], []
    for k in range(len(theta) - 1):
        mid = 0.5 * (theta[k] + theta[k + 1])
        act = (sign == 0) | (sign * (w0 + mid * wq) > 0)
        # a coordinate whose crossing lies in a dropped rounding-width piece takes its status
        # from the side that has positive width (as in _breakpoints)
        with np.errstate(divide="ignore", invalid="ignore"):
            cr = np.where((sign != 0) & (wq != 0), -w0 / wq, np.nan)
        if k == 0:
            act = np.where((cr > 0) & (cr <= _MERGE), sign * wq > 0, act)
        a.append(-0.5 * lam * np.sum(wq[act] ** 2))
        b.append(-lam * np.sum(w0[act] * wq[act]) + sum_q)
        c.append(-0.5 * lam * np.sum(w0[act] ** 2) + sum_a)
    a, b, c = np.array(a), np.array(b), np.array(c)
    return LineSearch(maximize_pieces(theta, a, b), theta, a, b, c)
