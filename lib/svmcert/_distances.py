"""Squared Euclidean distances in units of a power of two (the RBF kernel's inner step)."""

from __future__ import annotations

import numpy as np

__all__ = ["squared_distances_in_units"]


def squared_distances_in_units(X, Y=None):
    """(||x_i - z_j||^2 / s^2, Var(X / s), s) with Z = Y, or X when Y is None (then exactly
    symmetric with a zero diagonal), s the power of two with s <= max |entry| < 2 s (1 for zeros).

    Dividing by a power of two is exact, so for ordinary entries every product is bit for bit the
    unscaled one divided by s^2; entries near 1e-155 (whose squares are subnormal) or 1e154 (whose
    squares overflow) keep their digits.

    Examples
    --------
    >>> import numpy as np
    >>> sq, var, s = squared_distances_in_units(np.array([[3e-200], [0.0]]))   # 9e-400 underflows
    >>> bool(s <= 3e-200 < 2 * s), float(sq[0, 1] / (3e-200 / s) ** 2)
    (True, 1.0)
    """
    top = float(np.abs(X).max()) if Y is None else max(float(np.abs(X).max()), float(np.abs(Y).max()))
    s = float(2.0 ** (np.frexp(top)[1] - 1)) if top > 0 else 1.0
    Xs = X if s == 1.0 else X / s
    Zs = Xs if Y is None else (Y if s == 1.0 else Y / s)
    sq = np.einsum("ij,ij->i", Xs, Xs)[:, None] + np.einsum("ij,ij->i", Zs, Zs)[None, :] - 2.0 * (Xs @ Zs.T)
    np.maximum(sq, 0.0, out=sq)
    if Y is None:
        sq = (sq + sq.T) / 2
        np.fill_diagonal(sq, 0.0)
    return sq, float(Xs.var()), s
