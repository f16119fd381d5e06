"""Pairwise (SMO) steps on the enclosing-sphere dual, eq. (9) of Aksu (compiled and the numpy
reference with the same arithmetic), for :mod:`svmcert.featelim.radius`. Each call stops after
``max_iter`` steps at most and returns how many it took."""

from __future__ import annotations

import numpy as np
from numba import njit

_TINY = np.finfo(float).tiny

__all__ = ["smo_compiled", "smo_numpy"]


@njit(cache=True, nogil=True)
def smo_compiled(K, v, beta, u, tol, floor, max_iter):
    """Pairwise steps on eq. (9) for the matrix K - v v^T (the arithmetic of :func:`smo_numpy`)."""
    n = K.shape[0]
    it, f, gap = 0, 0.0, 0.0
    while True:
        f, bg, i, gi = 0.0, 0.0, 0, -np.inf
        for k in range(n):
            dk = K[k, k] - v[k] * v[k]
            gk = dk - 2.0 * u[k]
            f += beta[k] * (dk - u[k])
            bg += beta[k] * gk
            if gk > gi:
                gi, i = gk, k
        gap = max(gi - bg, 0.0)
        if gap <= max(tol * max(f, 2.2250738585072014e-308), floor) or it >= max_iter:
            break
        di, j, best = K[i, i] - v[i] * v[i], -1, -1.0
        for k in range(n):
            if beta[k] > 0.0:
                dk = K[k, k] - v[k] * v[k]
                delta = gi - (dk - 2.0 * u[k])
                if delta > 0.0:
                    d2 = max(di + dk - 2.0 * (K[i, k] - v[i] * v[k]), 2.2250738585072014e-308)
                    score = delta * delta / d2
                    if score > best:
                        best, j = score, k
        if j < 0:
            break
        dj = K[j, j] - v[j] * v[j]
        delta = gi - (dj - 2.0 * u[j])
        d2 = di + dj - 2.0 * (K[i, j] - v[i] * v[j])
        t = beta[j]
        if d2 > 0.0 and delta / (2.0 * d2) < t:
            t = delta / (2.0 * d2)
        beta[i] += t
        beta[j] = 0.0 if t == beta[j] else beta[j] - t
        vivj = v[i] - v[j]
        for k in range(n):
            u[k] += t * (K[i, k] - K[j, k] - v[k] * vivj)  # rows: K is symmetric, rows are contiguous
        it += 1
    return f, gap, it


def smo_numpy(K, v, beta, u, tol, floor, max_iter):
    """Reference pairwise solver for eq. (9) with the matrix K - v v^T, updating beta and u = (K - vv^T) beta
    in place. Each step takes i = argmax_k g_k and, among the support's j with g_j < g_i, the one with
    the largest (g_i - g_j)^2 / D^2_ij (second-order choice, as in LIBSVM), then moves mass t from j
    to i with the exact line search t = min(beta_j, (g_i - g_j) / (2 D^2_ij)), D^2_ij the squared
    distance between points i and j. Returns (f, gap, iterations)."""
    d = np.diag(K) - v * v
    it = 0
    while True:
        g = d - 2.0 * u
        f = float(beta @ (d - u))
        i = int(np.argmax(g))
        gap = max(float(g[i] - beta @ g), 0.0)
        if gap <= max(tol * max(f, _TINY), floor) or it >= max_iter:
            return f, gap, it
        delta = g[i] - g
        cand = (beta > 0) & (delta > 0)
        if not cand.any():
            return f, gap, it
        d2 = d[i] + d - 2.0 * (K[i] - v[i] * v)
        score = np.where(cand, delta * delta / np.maximum(d2, _TINY), -1.0)
        j = int(np.argmax(score))
        t = beta[j]
        if d2[j] > 0 and delta[j] / (2.0 * d2[j]) < t:
            t = delta[j] / (2.0 * d2[j])
        beta[i] += t
        beta[j] = 0.0 if t == beta[j] else beta[j] - t
        u += t * (K[i] - K[j] - v * (v[i] - v[j]))
        it += 1
