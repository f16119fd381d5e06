"""The splice data set's features as DNA: LIBSVM's splice_scale writes each of the 60 positions as one
of four codes (:data:`SPLICE_CODES`); :func:`decode_splice` turns rows back into sequences."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["SPLICE_CODES", "decode_splice"]


#: splice_scale codes as LIBSVM writes them (1/3 rounded to 6 decimals).
SPLICE_CODES = {"A": -1.0, "G": -0.333333, "C": 0.333333, "T": 1.0}


def decode_splice(X, atol=1e-6):
    """Decode splice_scale features into DNA strings (A -1, G -1/3, C +1/3, T +1).

    Parameters
    ----------
    X : array_like of shape (n, 60)
        Rows of ``load("splice")[0]``.
    atol : float, default 1e-6
        Every value must lie this close to one of :data:`SPLICE_CODES`.

    Returns
    -------
    list of str
        One sequence per row.

    Raises
    ------
    ValueError
        X is not 2-D, a value is not within ``atol`` of a code, or ``atol`` is not a finite
        number >= 0.
    """
    if isinstance(atol, bool) or not isinstance(atol, numbers.Real) or not np.isfinite(atol) or atol < 0:
        raise ValueError(f"atol: expected a finite number >= 0, got {atol!r}")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, positions), got shape {X.shape}")
    letters = np.array(list(SPLICE_CODES))
    dist = np.abs(X[..., None] - np.array(list(SPLICE_CODES.values())))
    nearest = dist.argmin(axis=-1)
    bad = ~(dist.min(axis=-1) <= atol)  # also catches NaN
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise ValueError(f"X[{i}, {j}] = {float(X[i, j])!r} is not within {atol} of a splice code "
                         f"{SPLICE_CODES}")
    return ["".join(row) for row in letters[nearest]]
