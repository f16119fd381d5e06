"""Numba kernel for one epoch of :func:`svmcert.signsvm.coordinate_ascent.dual_coordinate_ascent`.

The same exact coordinate step as :func:`~svmcert.signsvm.coordinate_ascent.coordinate_step`
(the pure-numpy reference, which the tests compare this kernel with), compiled so that the loop
over samples runs without Python overhead. Rows are given in CSR form (indptr, indices, values)
with values already divided by lam * n.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["epoch"]


@njit(cache=True, nogil=True)
def _root(A, B, target, left, right):
    if A <= 0.0:
        return left
    t = (target - B) / A
    return min(max(t, left), right)


@njit(cache=True, nogil=True)
def _step(omega, sign, cols, v, target, lo, hi):
    m = cols.shape[0]
    A = 0.0
    B = 0.0
    cross = np.empty(m)
    moves = np.empty(m)       # +1 enters, -1 leaves, 0 no breakpoint inside (lo, hi)
    nb = 0
    for j in range(m):
        h = cols[j]
        om, vj, s = omega[h], v[j], sign[h]
        moves[j] = 0.0
        if s == 0.0:
            active = True
        elif vj == 0.0:
            active = s * om > 0.0
        else:
            # decided from the crossing alone, as in coordinate_step
            c = -om / vj
            active = (s * vj > 0.0) if c <= lo else (s * vj < 0.0)
            if lo < c < hi:
                cross[j] = c
                moves[j] = 1.0 if s * vj > 0.0 else -1.0
                nb += 1
        if active:
            A += vj * vj
            B += vj * om
    if B + lo * A >= target:
        return lo
    left = lo
    if nb > 0:
        idx = np.empty(nb, np.int64)
        k = 0
        for j in range(m):
            if moves[j] != 0.0:
                idx[k] = j
                k += 1
        order = idx[np.argsort(cross[idx], kind="mergesort")]
        for k in range(nb):
            j = order[k]
            t = cross[j]
            if B + t * A > target:
                return _root(A, B, target, left, t)
            vj = v[j]
            A += moves[j] * vj * vj
            B += moves[j] * vj * omega[cols[j]]
            left = t
    if B + hi * A <= target:
        return hi
    return _root(A, B, target, left, hi)


@njit(cache=True, nogil=True)
def epoch(order, indptr, indices, values, alpha, omega, sign, target):
    """One pass over ``order``: exact step on each alpha_i, omega updated in place."""
    for i in order:
        start, end = indptr[i], indptr[i + 1]
        if start == end:
            alpha[i] = 1.0
            continue
        cols = indices[start:end]
        v = values[start:end]
        t = _step(omega, sign, cols, v, target, -alpha[i], 1.0 - alpha[i])
        if t != 0.0:
            a = alpha[i] + t
            alpha[i] = min(max(a, 0.0), 1.0)
            for j in range(cols.shape[0]):
                omega[cols[j]] += t * v[j]
