"""Z = diag(y) X without forming it: the products the certificates and the polishing need."""

from __future__ import annotations

import numpy as np

__all__ = ["SignedRows"]


class SignedRows:
    """The matrix Z with rows y_i x_i, held as (X, y) (y in {-1, +1}, so every product below
    equals the one with a formed Z bit for bit: multiplying by +-1 is exact).

    Supports ``Z @ w``, ``Z.T @ a``, ``Z.shape`` and ``Z[np.ix_(rows, cols)]``.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.X, self.y = X, y
        self.shape = X.shape

    def __matmul__(self, w):
        return self.y * (self.X @ w)

    @property
    def T(self):
        return _Transposed(self)

    def __getitem__(self, key):
        rows, cols = key
        return self.y[rows] * self.X[rows, cols]   # rows from np.ix_ has shape (k, 1)


class _Transposed:
    def __init__(self, Z: SignedRows):
        self.Z = Z

    def __matmul__(self, a):
        return self.Z.X.T @ (self.Z.y * a)
