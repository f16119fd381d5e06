"""Compiled inner loop of the specialised DRD active-set method (no iteration records).

The same iteration as :func:`svmcert.featelim.drd_active_set.drd_active_set`, written with scalar loops
for numba: each iteration is one pass over the N samples. The numpy implementation stays the
tested reference and the only one that records working sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _first_block(g, y, a, b, in1, in2, s, rate_scale, pivot):
    """Ratio test: first sample whose slack reaches 0 or whose margin falls to 1.

    The margin of sample n changes at ``rate = y_n * sigma`` (pivot, ``rate_scale = sigma``) or
    ``rate = y_n (g_n - g_s) * direction`` (DRD step, ``rate_scale = direction``).
    """
    best = np.inf
    r = -1
    for n in range(g.shape[0]):
        o1 = in1[n] and not in2[n]
        o2 = in2[n] and not in1[n]
        if not (o1 or o2):
            continue
        if pivot:
            rate = y[n] * rate_scale
        else:
            rate = y[n] * (g[n] - g[s]) * rate_scale
        m = y[n] * (a * g[n] + b)
        if o1 and rate > 0:
            t = (1.0 - m) / rate
        elif o2 and rate < 0:
            t = (m - 1.0) / (-rate)
        else:
            continue
        if t < 0:
            t = 0.0
        if t < best:
            best = t
            r = n
    return r, best


@njit(cache=True)
def drd_kernel(g, y, C, W, a, b, in1, in2, s0, tol, max_iter):
    """Run the DRD method from ``(a, b)`` and working set ``(in1, in2)`` with margin-setter ``s0``.

    Returns ``(a, b, D0, D1, lam0, lam1, iterations, converged, pivots)``: the doubly-active
    samples (``D1 = -1`` when there is one) and their margin-row multipliers at the end.
    """
    N = g.shape[0]
    D0, D1 = s0, -1
    tol_lam = tol * C * max(N, 1)
    lam0, lam1 = 0.0, 0.0
    converged = False
    pivots = 0
    k = 0
    while k < max_iter:
        k += 1
        if D1 < 0:
            s = D0
            slope = W * a
            scale = W * abs(a)
            S1 = 0.0
            for n in range(N):
                if in1[n] and not in2[n]:
                    dg = g[n] - g[s]
                    slope -= C * y[n] * dg
                    scale += C * abs(dg)
                    S1 += y[n]
            if abs(slope) <= tol * (scale + 1e-300):
                l1 = -y[s] * C * S1
                l2 = C - l1
                if min(l1, l2) >= -tol_lam:
                    lam0 = min(max(l1, 0.0), C)
                    converged = True
                    break
                if l1 <= l2:
                    in1[s] = False
                    sigma = y[s]
                else:
                    in2[s] = False
                    sigma = -y[s]
                r, t = _first_block(g, y, a, b, in1, in2, s, sigma, True)
                if r < 0:
                    raise RuntimeError("QP1 active set: unbounded pivot")
                if in1[r] and not in2[r]:
                    in2[r] = True
                else:
                    in1[r] = True
                b = y[r] - a * g[r]
                D0 = r
                pivots += 1
                continue
            t_star = -slope / W
            direction = 1.0 if t_star > 0 else -1.0
            r, t = _first_block(g, y, a, b, in1, in2, s, direction, False)
            if r >= 0 and t < abs(t_star):
                if in1[r] and not in2[r]:
                    in2[r] = True
                else:
                    in1[r] = True
                if g[s] != g[r]:
                    a = (y[s] - y[r]) / (g[s] - g[r])
                else:
                    a = a + direction * t
                b = y[s] - a * g[s]
                D1 = r
            else:
                a = a + t_star
                b = y[s] - a * g[s]
            continue
        s, r = D0, D1
        ra = W * a
        rb = 0.0
        for n in range(N):
            if in1[n] and not in2[n]:
                ra -= C * y[n] * g[n]
                rb -= C * y[n]
        det = y[s] * y[r] * (g[s] - g[r])
        l1s = (ra * y[r] - rb * y[r] * g[r]) / det
        l1r = (rb * y[s] * g[s] - ra * y[s]) / det
        # the four rows (absolute index, multiplier); the most negative leaves, ties to the lowest row
        rows = np.array([s, r, N + s, N + r])
        vals = np.array([l1s, l1r, C - l1s, C - l1r])
        w = 0
        for i in range(1, 4):
            if vals[i] < vals[w] or (vals[i] == vals[w] and rows[i] < rows[w]):
                w = i
        if vals[w] >= -tol_lam:
            lam0 = min(max(l1s, 0.0), C)
            lam1 = min(max(l1r, 0.0), C)
            converged = True
            break
        sample = rows[w] % N
        if rows[w] < N:
            in1[sample] = False
        else:
            in2[sample] = False
        D0 = r if sample == s else s
        D1 = -1
    return a, b, D0, D1, lam0, lam1, k, converged, pivots
