"""Compiled kernels the solvers of several parts share (numba, one thread each)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["matvec_compiled"]


@njit(cache=True, nogil=True)
def matvec_compiled(K, v):
    """K @ v in one thread, summed row by row in index order (a threaded BLAS gemv degrades badly
    when the cores are shared). ``K`` is a C-contiguous float64 matrix, ``v`` a float64 vector.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert._compiled import matvec_compiled
    >>> matvec_compiled(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
    array([-1., -1.])
    """
    n = K.shape[0]
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(K.shape[1]):
            acc += K[i, j] * v[j]
        out[i] = acc
    return out
