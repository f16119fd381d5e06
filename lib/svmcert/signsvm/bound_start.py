"""The closed-form solution of a strongly regularised problem: every alpha_i at its upper bound.

At alpha = u (u_i = s_i, the sample weights, or 1) the dual point gives omega_u = Z^T u / (lam n)
and w_u = Pi_S(omega_u) (eq. 7), with margins m_i = y_i <x_i, w_u>. If m_i <= 1 for every sample
with u_i > 0, the pair (w_u, u) satisfies the optimality conditions of eqs. (8)-(9): every hinge is
active (or at its kink), so alpha_i = u_i is a subgradient choice for each loss, and w_u is the
minimiser of the Lagrangian over S at that alpha. The duality gap is then zero: the hinge terms sum
to (1/n) sum_i u_i (1 - m_i), and sum_i u_i m_i = <Z^T u, w_u> = lam n <omega_u, Pi_S(omega_u)>
= lam n ||w_u||^2 (the sign projection keeps the coordinates it does not zero), so
P(w_u) - D(u) = lam ||w_u||^2 - (1/n) sum_i u_i m_i = 0. Since omega_u scales as 1 / (lam n) and
Pi_S is positively homogeneous, this happens exactly when

    lam n >= lam_max n = max_{i: u_i > 0} y_i <x_i, Pi_S(Z^T u)>,

the sign-constrained counterpart of the largest useful regularisation of a regularisation path.
Coordinate ascent tests this point before its passes (:func:`all_at_bound`), on the rows it
passes over: one product Z^T u, then the margins row by row, stopping at the first above 1 (on a
problem that is not this strongly regularised, usually within the first rows). The run's own
certificate then confirms the point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .objectives import sign_projection

__all__ = ["all_at_bound", "lam_max_n"]


def lam_max_n(Z, upper, sign) -> float:
    """lam_max n = max over samples with u_i > 0 of y_i <x_i, Pi_S(Z^T u)>: the smallest lam n at
    which alpha = u (every sample at its upper bound) is optimal (module docstring).

    ``Z`` has rows y_i x_i (an array, or any object with ``Z @ w`` and ``Z.T @ a`` such as
    :class:`._signed_rows.SignedRows`); ``upper`` the box's upper bounds u; ``sign`` the
    validated sign vector. Never negative: the largest margin is at least the u-weighted mean
    margin, ||Pi_S(Z^T u)||^2 / sum_i u_i.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.bound_start import lam_max_n
    >>> Z = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])      # rows y_i x_i
    >>> lam_max_n(Z, np.ones(3), np.array([0.0, -1.0]))          # Z^T 1 = (2, 3); w_2 <= 0 zeroes it
    2.0
    """
    upper = np.asarray(upper, dtype=float)
    if not np.any(upper > 0.0):
        return 0.0
    w = sign_projection(Z.T @ upper, sign)
    return float(np.max((Z @ w)[upper > 0.0]))


@njit(cache=True, nogil=True)
def all_at_bound(indptr, indices, values, upper, lam_n, sign):
    """(True, omega_u) when alpha = u is optimal for lam n, else (False, omega_u); the rows
    (indptr, indices, values) are those of Z / (lam n) in CSR form, as the passes read them
    (``_dca_kernel.dense_rows``, ``coordinate_ascent._csr_sparse``), so that omega_u =
    sum_i u_i values_i. The margins lam n <values_i, w_u> are summed in storage order, as
    ``_signed_rows.csr_matvec`` sums them for the certificate; the first above 1 (u_i > 0) ends
    the test.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.bound_start import all_at_bound
    >>> indptr, indices = np.array([0, 1, 2, 4]), np.array([0, 1, 0, 1], np.int32)
    >>> Z = np.array([1.0, 2.0, 1.0, 1.0])                   # rows (1, 0), (0, 2), (1, 1)
    >>> sign = np.array([0.0, -1.0])
    >>> ok, omega = all_at_bound(indptr, indices, Z / 2.0, np.ones(3), 2.0, sign)
    >>> bool(ok), omega.tolist()                              # lam n = lam_max n = 2: optimal
    (True, [1.0, 1.5])
    >>> bool(all_at_bound(indptr, indices, Z / 1.9, np.ones(3), 1.9, sign)[0])   # margin 2 / 1.9
    False
    """
    n = indptr.shape[0] - 1
    d = sign.shape[0]
    omega = np.zeros(d)
    for i in range(n):
        ui = upper[i]
        for k in range(indptr[i], indptr[i + 1]):
            omega[indices[k]] += values[k] * ui
    w = np.empty(d)
    for h in range(d):
        w[h] = 0.0 if sign[h] * omega[h] < 0.0 else omega[h]
    for i in range(n):
        if upper[i] <= 0.0:
            continue
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += values[k] * w[indices[k]]
        if lam_n * acc > 1.0:
            return False, omega
    return True, omega
