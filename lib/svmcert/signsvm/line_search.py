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

:func:`line_search` sorts the breakpoints once and forms the three sums for every piece from a
prefix sum over entering and a suffix sum over leaving coordinates (O(d log d), no downdating); :func:`line_search_pieces_quadratic` recomputes the sums for each piece
from scratch, the O(d^2) formulation of the paper, kept as a reference and for benchmarks.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validation import check_vector, check_X_y
from .objectives import unprojected_weights, check_dual_args

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


def _alpha_u(alpha, u, X, y):
    """alpha and u as vectors of length n (the rows of X); the rest is checked by _line_data."""
    n = check_X_y(X, y)[0].shape[0]
    return check_vector(alpha, "alpha", n), check_vector(u, "u", n)


def _line_data(alpha, u_or_q, X, y, lam, sign, name):
    alpha, X, y, lam, sign = check_dual_args(alpha, X, y, lam, sign)
    q = check_vector(u_or_q, name, X.shape[0])
    end = alpha + q
    if end.min() < -1e-12 or end.max() > 1 + 1e-12:
        raise ValueError(f"{name}: expected alpha + q inside the cube [0, 1]^n, found range "
                         f"[{end.min():g}, {end.max():g}]")
    n = X.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        w0 = unprojected_weights(alpha, X, y, lam)
        wq = X.T @ (y * q) / (lam * n)
    if not (np.isfinite(w0).all() and np.isfinite(wq).all()):
        raise ValueError(f"X, lam: omega = X^T (y alpha) / (lam n) is beyond the float64 range "
                         f"(lam = {lam:.6g}); rescale X")
    return w0, wq, sign, lam, float(q.sum()) / n, float(alpha.sum()) / n


_MERGE = 8 * np.finfo(float).eps  # crossings closer than this are one breakpoint


def _breakpoints(w0, wq, sign):
    """Crossings in (0, 1) of constrained coordinates, and which coordinates are active just after 0.

    The status of a coordinate that moves (omega_q,h != 0) is decided from its crossing alone,
    never from the rounded sign of omega_0,h: after its crossing it is active iff it moves towards
    its sign. Crossings within rounding distance of 0 or 1 would only create pieces of zero width:
    one just after 0 counts as already passed, one just before 1 as not reached.
    """
    constrained = sign != 0
    s0, sq = sign * w0, sign * wq
    moving = constrained & (wq != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.where(moving, -w0 / wq, np.nan)
    passed = moving & (cross <= _MERGE)
    active0 = np.where(moving, np.where(passed, sq > 0, sq < 0), ~constrained | (s0 > 0))
    inside = moving & (cross > _MERGE) & (cross < 1 - _MERGE)
    return active0, cross, np.flatnonzero(inside)


def _group_starts(t):
    """Indices in the sorted crossings ``t`` that start a new breakpoint: crossings within
    _MERGE of the first crossing of their group are one breakpoint (as in the O(d^2) reference)."""
    starts, first = [], None
    for i, value in enumerate(t):
        if first is None or value - first > _MERGE:
            starts.append(i)
            first = value
    return np.asarray(starts, dtype=np.int64)


def pieces_sweep(w0, wq, sign, lam, sum_q, sum_a):
    """Breakpoints and piece coefficients (eqs. 16, 20-23) by one sort, in O(d log d).

    Each constrained coordinate changes status at most once in (0, 1): one that moves against
    its sign (sign_h omega_qh < 0) is active on the pieces before its crossing and inactive after,
    one that moves with its sign is inactive before and active after. Hence the sums of eq. (22)
    over H_k are a constant part, a prefix sum over the coordinates that entered and a suffix sum
    over those that have yet to leave. Both are cumulative sums of terms of one piece's active
    set only, so no sum is ever downdated by subtraction: a large coordinate that leaves early
    cannot wipe out the small ones that stay (rounding is relative to the active terms, as in the
    O(d^2) construction).

    Parameters
    ----------
    w0, wq : arrays of shape (d,)
        omega_0 and omega_q of eq. (20).
    sign : array of shape (d,)
        Entries in {-1, 0, +1}.
    lam : float > 0
    sum_q, sum_a : float
        <1, q>/n and <1, alpha>/n.

    Returns
    -------
    theta : ndarray of shape (d_t + 1,)
        Breakpoints 0 = theta_1 < ... < theta_{d_t+1} = 1.
    a, b, c : ndarrays of shape (d_t,)
        Coefficients of eq. (22); every a_k <= 0.
    """
    active0, cross, idx = _breakpoints(w0, wq, sign)
    order = idx[np.argsort(cross[idx], kind="stable")]
    t = cross[order]
    starts = _group_starts(t)
    groups = np.cumsum(np.isin(np.arange(t.size), starts)) - 1   # group index of each crossing
    n_groups = starts.size
    enters = sign[order] * wq[order] > 0                          # moves with its sign: enters
    steady = active0.copy()
    steady[idx] = False                                           # active on every piece

    def piece_sums(u0, uq):
        out = []
        for v in (uq * uq, u0 * uq, u0 * u0):
            vo = v[order]
            entered = np.bincount(groups[enters], weights=vo[enters], minlength=n_groups)
            leaving = np.bincount(groups[~enters], weights=vo[~enters], minlength=n_groups)
            prefix = np.concatenate([[0.0], np.cumsum(entered)])           # entered before piece k
            suffix = np.concatenate([np.cumsum(leaving[::-1])[::-1], [0.0]])  # leave after piece k
            out.append(float(np.sum(v[steady])) + prefix + suffix)
        return out

    theta = np.concatenate([[0.0], t[starts], [1.0]])
    with np.errstate(over="ignore", invalid="ignore"):
        sa, sb, sc = piece_sums(w0, wq)
    if np.isfinite(sa).all() and np.isfinite(sb).all() and np.isfinite(sc).all():
        # sa is a sum of squares (>= 0 in floating point too), so every a_k <= 0 exactly
        return theta, -0.5 * lam * sa, -lam * sb + sum_q, -0.5 * lam * sc + sum_a
    # Squares of omega beyond float64 (|omega| > 1e154), although lam/2 omega^2 may not be (lam < 2):
    # the sums of omega / 2^e (exact) times lam, then scaled back by 4^e; a coefficient that is
    # itself beyond float64 stays +-inf and the caller decides (line_search raises).
    e = math.frexp(max(float(np.abs(w0).max(initial=0.0)), float(np.abs(wq).max(initial=0.0))))[1]
    sa, sb, sc = piece_sums(np.ldexp(w0, -e), np.ldexp(wq, -e))
    with np.errstate(over="ignore"):
        return (theta, np.ldexp(-0.5 * lam * sa, 2 * e), np.ldexp(-lam * sb, 2 * e) + sum_q,
                np.ldexp(-0.5 * lam * sc, 2 * e) + sum_a)


def maximize_pieces(theta, a, b) -> float:
    """argmax over [0, 1] of a concave, C^1 piecewise quadratic given by its pieces.

    The derivative 2 a_k eta + b_k decreases; the maximiser is the first point where it reaches 0,
    or 1 if it stays positive (Fig. 2 of the paper: optimum at 0, at 1, or inside a piece).
    Coefficients near the float64 limit (where 2 a_k would overflow) are first scaled by a common
    power of 2, which changes neither the maximiser nor any comparison.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    top = max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    if top > 2.0 ** 1000 and math.isfinite(top):
        e = math.frexp(top)[1]
        a, b = np.ldexp(a, -e), np.ldexp(b, -e)
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
    alpha : array of shape (n,)
        The current point in [0, 1]^n.
    u : array of shape (n,)
        The vertex from :func:`lp_step` (any point of the cube works); q = u - alpha.
    X, y, lam, sign
        The problem, as in :func:`dual_objective`.

    Returns
    -------
    LineSearch
        eta, breakpoints theta and piece coefficients (a, b, c).

    Raises
    ------
    ValueError
        Naming the argument for bad input; naming ``X, lam`` when omega or the coefficients of
        zeta exceed the float64 range (the dual objective along the line is then no float).
        Where only the squares of omega overflow (``|omega| > 1e154`` with lam < 2), the sums are
        formed after scaling omega by a power of 2 and the answer is exact to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import dual_objective, line_search, lp_step
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]); y = np.array([1.0, -1.0, 1.0])
    >>> alpha = np.zeros(3); u = lp_step(alpha, X, y, lam=1.0)
    >>> ls = line_search(alpha, u, X, y, lam=1.0)
    >>> round(ls.eta, 12), ls.theta                   # one piece: no coordinate changes sign
    (0.9, array([0., 1.]))
    >>> round(dual_objective(alpha + ls.eta * (u - alpha), X, y, 1.0), 12)  # above D(u) = 4/9
    0.45
    """
    alpha_arr, u_arr = _alpha_u(alpha, u, X, y)
    if u_arr.min() < 0 or u_arr.max() > 1:
        raise ValueError(f"u: expected every entry in [0, 1], found range [{u_arr.min():g}, {u_arr.max():g}]")
    w0, wq, sign, lam, sum_q, sum_a = _line_data(alpha_arr, u_arr - alpha_arr, X, y, lam, sign, "u")
    theta, a, b, c = pieces_sweep(w0, wq, sign, lam, sum_q, sum_a)
    _require_finite_pieces(a, b, c, lam)
    return LineSearch(maximize_pieces(theta, a, b), theta, a, b, c)


def _require_finite_pieces(a, b, c, lam):
    """The coefficients of zeta are part of the answer: if they exceed float64, say so."""
    if not (np.isfinite(a).all() and np.isfinite(b).all() and np.isfinite(c).all()):
        raise ValueError(f"X, lam: the dual objective along this line is beyond the float64 range "
                         f"(its coefficients lam/2 ||omega||^2, omega = X^T (y alpha) / (lam n), exceed "
                         f"1.8e308 with lam = {lam:.6g}); rescale X")


def line_search_pieces_quadratic(alpha, u, X, y, lam, sign=None) -> LineSearch:
    """The same pieces computed as the paper does: for every piece, sum over all d coordinates
    whether each is active at the piece's midpoint (O(d) per piece, O(d^2) in all).

    Crossings that :func:`line_search` does not make breakpoints, those within rounding distance
    of 0 (passed) or of 1 (not reached), take that status here too; otherwise the midpoint rule of
    eq. (23) decides. Where crossings within 8 eps of each other are merged into one breakpoint,
    the midpoint of a piece a few eps wide can lie before a merged crossing, and the two
    constructions then differ in that piece's coefficients (not in its values, to rounding).
    """
    alpha_arr, u_arr = _alpha_u(alpha, u, X, y)
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
    # crossings in a dropped rounding-width piece at either end keep the status of the side that
    # has positive width (as in _breakpoints): just after 0 passed, just before 1 not reached
    towards = sign * wq > 0
    near0 = (cross > 0) & (cross <= _MERGE)            # nan (not moving) compares False
    near1 = (cross >= 1 - _MERGE) & (cross < 1)
    a, b, c = [], [], []
    for k in range(len(theta) - 1):
        mid = 0.5 * (theta[k] + theta[k + 1])
        act = (sign == 0) | (sign * (w0 + mid * wq) > 0)
        act = np.where(near0, towards, np.where(near1, ~towards, act))
        a.append(-0.5 * lam * np.sum(wq[act] ** 2))
        b.append(-lam * np.sum(w0[act] * wq[act]) + sum_q)
        c.append(-0.5 * lam * np.sum(w0[act] ** 2) + sum_a)
    a, b, c = np.array(a), np.array(b), np.array(c)
    _require_finite_pieces(a, b, c, lam)        # the reference does not rescale
    return LineSearch(maximize_pieces(theta, a, b), theta, a, b, c)
