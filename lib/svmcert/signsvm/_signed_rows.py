"""Z = diag(y) X without forming it: the products the certificates and the polishing need."""

from __future__ import annotations

import numpy as np

__all__ = ["SignedRows", "dense_block"]


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
