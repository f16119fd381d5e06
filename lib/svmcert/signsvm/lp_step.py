"""Closed-form direction finding of the Frank-Wolfe method (Tajima et al., eq. 14, Sec. 9.1)."""

from __future__ import annotations

import numpy as np

from .objectives import check_dual_args, weights_unchecked

__all__ = ["lp_step"]


def lp_step(alpha, X, y, lam, sign=None) -> np.ndarray:
    """Vertex of the cube [0, 1]^n maximising <grad D(alpha), u>  (eq. 14).

    The linear program separates over coordinates: u_i multiplies g_i = (1 - z_i)/n with
    z_i = y_i <w(alpha), x_i>, so u_i = 1 when z_i < 1 and u_i = 0 otherwise. At a tie z_i = 1
    the coefficient is zero and either value is optimal; like eq. (14) we return 0.

    Parameters
    ----------
    alpha : array of shape (n,), entries in [0, 1]
    X : array of shape (n, d)
    y : array of shape (n,), entries +-1
    lam : float > 0
    sign : array of shape (d,) with entries in {-1, 0, +1}, optional

    Returns
    -------
    u : ndarray of shape (n,) with entries in {0.0, 1.0}

    Notes
    -----
    Cost O(nd): one product X^T (y * alpha), a projection, one product X w. The paper prints the
    subproblem (13) as a minimisation and the cost summary as u_i = 1(1 <= z_i); both contradict
    eq. (14). The book's errata page shows the smallest counterexample.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import lp_step
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]); y = np.array([1.0, -1.0, 1.0])
    >>> lp_step(np.zeros(3), X, y, lam=1.0)     # w(0) = 0: every margin z_i = 0 < 1
    array([1., 1., 1.])
    >>> lp_step(np.ones(3), X, y, lam=1.0)      # z = (1, -1/3, 8/3): the tie z_1 = 1 gives 0
    array([0., 1., 0.])
    """
    alpha, X, y, lam, sign = check_dual_args(alpha, X, y, lam, sign)
    w = weights_unchecked(alpha, X, y, lam, sign)
    z = y * (X @ w)
    return (z < 1.0).astype(np.float64)
