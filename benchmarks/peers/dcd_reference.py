"""A plain compiled pass of dual coordinate descent for the *unconstrained* hinge SVM (Hsieh et al.,
2008), the yardstick for the cost of one of the library's passes. Diagnostic only: it is not a
solver of the library and certifies nothing.

In the variables of Tajima et al. (alpha in [0, 1]^n, w = Z^T alpha / (lam n), z_i = y_i x_i),
n dD/dalpha_i = 1 - <z_i, w> and the exact step on coordinate i is
alpha_i <- clip(alpha_i + (1 - <z_i, w>) lam n / ||z_i||^2, 0, 1), w += (change) z_i / (lam n).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["csr_of", "hsieh_pass", "pass_seconds"]


def csr_of(X, y):
    """CSR arrays (indptr, indices, values) of Z = diag(y) X, and the squared row norms."""
    from scipy import sparse

    S = sparse.csr_matrix(X * y[:, None])
    sq = np.asarray(S.multiply(S).sum(axis=1)).ravel()
    return S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data, sq


@njit(cache=True, nogil=True)
def hsieh_pass(indptr, indices, values, sq, alpha, w, order, lam_n):
    for i in order:
        if sq[i] == 0.0:
            alpha[i] = 1.0
            continue
        g = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            g += values[k] * w[indices[k]]
        a = min(max(alpha[i] + (1.0 - g) * lam_n / sq[i], 0.0), 1.0)
        delta = (a - alpha[i]) / lam_n
        if delta != 0.0:
            alpha[i] = a
            for k in range(indptr[i], indptr[i + 1]):
                w[indices[k]] += delta * values[k]


def pass_seconds(X, y, lam_n, passes=5, seed=0):
    """CPU seconds per pass of :func:`hsieh_pass` over ``passes`` passes from alpha = 0 (random
    order each pass), the CSR built outside the timing; returns (seconds per pass, alpha, w)."""
    import time

    indptr, indices, values, sq = csr_of(X, y)
    n, d = X.shape
    rng = np.random.default_rng(seed)
    alpha, w = np.zeros(n), np.zeros(d)
    hsieh_pass(indptr, indices, values, sq, alpha.copy(), w.copy(), np.arange(min(n, 2)), lam_n)   # compile
    t0 = time.process_time()
    for _ in range(passes):
        hsieh_pass(indptr, indices, values, sq, alpha, w, rng.permutation(n), lam_n)
    return (time.process_time() - t0) / passes, alpha, w
