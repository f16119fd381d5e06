"""Z = diag(y) X without forming it: the products the certificates and the polishing need."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["SignedRows", "CSRSignedRows", "dense_block", "csr_matvec", "csr_rmatvec", "CSR_PRODUCTS_MAX_DENSITY"]

CSR_PRODUCTS_MAX_DENSITY = 0.5
"""A dense X with at most this fraction of nonzeros takes its products with Z from the passes' CSR
(:class:`CSRSignedRows`): on MNIST-5k (19% nonzeros) a product then costs 0.6-0.7 ms against
1.8-1.9 ms with BLAS (one thread); a fully dense matrix is faster through BLAS."""


def dense_block(S) -> np.ndarray:
    """A small sparse matrix (a sub-block of X, or a product such as X^T D X) as a dense array.

    Filled from its COO entries rather than with ``toarray``: the solvers densify only such
    blocks, never X itself, and a test can make ``toarray``/``todense`` raise to prove it.
    """
    coo = S.tocoo()
    out = np.zeros(coo.shape)
    np.add.at(out, (coo.row, coo.col), coo.data)
    return out


class SignedRows:
    """The matrix Z with rows y_i x_i, held as (X, y) (y in {-1, +1}, so every product below
    equals the one with a formed Z bit for bit: multiplying by +-1 is exact).

    X is a dense array or a scipy.sparse CSR matrix (never densified: a sub-block
    ``Z[np.ix_(rows, cols)]`` is returned dense, and only that block is formed).

    Supports ``Z @ w``, ``Z.T @ a``, ``Z.shape`` and ``Z[np.ix_(rows, cols)]``.
    """

    def __init__(self, X, y: np.ndarray):
        self.X, self.y = X, y
        self.shape = X.shape
        self.sparse = hasattr(X, "tocsr") and hasattr(X, "nnz")

    def __matmul__(self, w):
        return self.y * np.asarray(self.X @ w)

    @property
    def T(self):
        return _Transposed(self)

    def __getitem__(self, key):
        rows, cols = key
        if self.sparse:                            # rows (k, 1), cols (1, m) from np.ix_
            block = dense_block(self.X[np.ravel(rows)][:, np.ravel(cols)])
            return self.y[np.ravel(rows)][:, None] * block
        return self.y[rows] * self.X[rows, cols]   # rows from np.ix_ has shape (k, 1)


class _Transposed:
    def __init__(self, Z: SignedRows):
        self.Z = Z

    def __matmul__(self, a):
        return np.asarray(self.Z.X.T @ (self.Z.y * a))


class CSRSignedRows(SignedRows):
    """:class:`SignedRows` whose products ``Z @ w`` and ``Z.T @ a`` are taken from a CSR copy of
    Z / (lam n) (the rows the compiled passes read: ``(indptr, indices, values)``), while indexing
    still reads (X, y). The products equal SignedRows' up to rounding (a few ulp: the sums run over
    the nonzeros in another order, and the scale lam n is multiplied back).

    The products are compiled loops over the three arrays (:func:`csr_matvec`,
    :func:`csr_rmatvec`), the same sums in the same order as scipy's CSR products, so the same
    values bit for bit, without the index checks a ``scipy.sparse.csr_matrix`` makes on
    construction (on MNIST-5k, one thread: 1.73 ms for both products against 1.91 ms with the
    wrapper built once).
    """

    def __init__(self, X, y: np.ndarray, csr: tuple, lam_n: float):
        super().__init__(X, y)
        self.csr = csr
        self.lam_n = float(lam_n)

    def __matmul__(self, w):
        return self.lam_n * csr_matvec(*self.csr, np.ascontiguousarray(w, dtype=np.float64))

    @property
    def T(self):
        return _TransposedCSR(self)


class _TransposedCSR:
    def __init__(self, Z: CSRSignedRows):
        self.Z = Z

    def __matmul__(self, a):
        return self.Z.lam_n * csr_rmatvec(*self.Z.csr, np.ascontiguousarray(a, dtype=np.float64), self.Z.shape[1])


@njit(cache=True, nogil=True)
def csr_matvec(indptr, indices, values, w):
    """A w for A in CSR form: each row's sum over its stored entries in storage order (scipy's
    ``csr_matvec``)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += values[k] * w[indices[k]]
        out[i] = acc
    return out


@njit(cache=True, nogil=True)
def csr_rmatvec(indptr, indices, values, a, d):
    """A^T a for A (n x d) in CSR form: row i's entries times a_i added in row order, each row in
    storage order (scipy's ``csc_matvec`` on the transpose)."""
    out = np.zeros(d)
    for i in range(indptr.shape[0] - 1):
        ai = a[i]
        for k in range(indptr[i], indptr[i + 1]):
            out[indices[k]] += values[k] * ai
    return out
