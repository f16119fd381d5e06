"""The Newton system of :mod:`.interior_point`'s numpy iteration: the d x d normal matrix
M = B + X^T diag(delta) X (B diagonal), or when n < d the n x n Woodbury matrix
diag(1/delta) + X B^-1 X^T, formed from X (dense, by row blocks; sparse, from products) and
factorised by LAPACK's Cholesky with small diagonal shifts when rounding makes it fail."""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.linalg.blas import dsyrk
from scipy.linalg.lapack import dpotrf, dpotrs

from ._signed_rows import dense_block

__all__ = ["NormalEquations", "weighted_gram", "sparse_weighted_gram", "GRAM_BLOCK_ENTRIES"]


class NormalEquations:
    """Factor of M = B + X^T diag(delta) X (B diagonal, d x d) or, when n < d, of the Woodbury
    matrix diag(1/delta) + X B^-1 X^T (n x n); ``solve(r)`` returns M^-1 r either way."""

    def __init__(self, X, XT, b_diag, delta):
        n, d = X.shape
        self.X, self.XT, self.b = X, XT, b_diag
        self.primal_form = d <= n
        if hasattr(X, "nnz"):                              # sparse X: the same matrices from its rows
            if self.primal_form:
                M = sparse_weighted_gram(X.indptr, X.indices, X.data, delta, d)
                M[np.diag_indices(d)] += b_diag
            else:
                Xb = X.multiply(1.0 / b_diag[None, :]).tocsr()
                M = dense_block(Xb @ XT)
                M[np.diag_indices(n)] += 1.0 / delta
        elif self.primal_form:
            M = weighted_gram(X, delta)                    # upper triangle of X^T diag(delta) X
            M[np.diag_indices(d)] += b_diag
        else:
            Xb = X / b_diag[None, :]
            M = Xb @ XT
            M[np.diag_indices(n)] += 1.0 / delta
        self.factor = _cholesky(M)

    def solve(self, r):
        if self.primal_form:
            return _cho_solve(self.factor, r)
        rb = r / self.b
        return rb - np.asarray(self.XT @ _cho_solve(self.factor, np.asarray(self.X @ rb))) / self.b


GRAM_BLOCK_ENTRIES = 1 << 18
"""Rows of X enter the normal matrix in blocks of about this many entries (2 MB): the scaled block
stays in cache, and no n x d temporary is formed. At n = 10^5 and 10^6, d = 100 (one thread) the
blocks took 0.06 and 0.49 s against 0.30 and 2.5 s for one scaled copy of X; a problem with fewer
rows than a block is one block, as before."""


def weighted_gram(X, delta):
    """Upper triangle of X^T diag(delta) X (d x d, Fortran order), accumulated by dsyrk over row
    blocks of GRAM_BLOCK_ENTRIES entries."""
    n, d = X.shape
    rows = max(64, GRAM_BLOCK_ENTRIES // max(d, 1))
    root = np.sqrt(delta)
    M = np.zeros((d, d), order="F")
    for start in range(0, n, rows):
        A = X[start:start + rows] * root[start:start + rows, None]
        M = dsyrk(1.0, A.T, beta=1.0, c=M, trans=0, lower=0, overwrite_c=1)
    return M


@njit(cache=True, nogil=True)
def sparse_weighted_gram(indptr, indices, values, delta, d):
    """Upper triangle of X^T diag(delta) X (d x d, Fortran order, the lower triangle zero) for a
    CSR X with sorted column indices: each row adds delta_i x_ik x_il at (h_k, h_l), k <= l, so
    the work is sum_i nnz_i^2 / 2, not n d^2.

    Built in place of scipy's sparse product A^T A (A = diag(sqrt(delta)) X) and its dense copy,
    which cost 0.11 s an iteration at n = 10^5, d = 1000, 1% nonzeros (one thread), against
    about 0.01 s here. The numpy twin (that product) is compared with it in the tests."""
    M = np.zeros((d, d))                   # C order: M[l, k] is entry (k, l) of the transpose
    for i in range(indptr.shape[0] - 1):
        di = delta[i]
        for a in range(indptr[i], indptr[i + 1]):
            va = di * values[a]
            ha = indices[a]
            for b in range(a, indptr[i + 1]):
                M[indices[b], ha] += va * values[b]
    return M.T


def _cho_factor(A):
    """``scipy.linalg.cho_factor(A, lower=False)`` without its wrapper's checks: the same LAPACK
    dpotrf call, whose Python overhead was a tenth of an iteration on small sets."""
    c, info = dpotrf(A, lower=0, clean=0, overwrite_a=0)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotrf: info = {info}")
    return c


def _cho_solve(c, r):
    """``scipy.linalg.cho_solve((c, False), r)``: the same LAPACK dpotrs call."""
    x, info = dpotrs(c, r, lower=0, overwrite_b=0)
    if info != 0:
        raise ValueError(f"dpotrs: illegal argument {-info}")
    return x


def _cholesky(M):
    """Cholesky factor of the upper triangle of M, with a diagonal shift of relative size
    1e-14, 1e-12, ... when rounding makes the (positive definite) matrix fail the factorisation."""
    scale = float(np.abs(np.diag(M)).max())
    for shift in (0.0, 1e-14, 1e-12, 1e-10, 1e-8):
        try:
            A = M if shift == 0.0 else M + shift * scale * np.eye(M.shape[0])
            return _cho_factor(A)
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("interior_point: the Newton matrix is not positive definite")
