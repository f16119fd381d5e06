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
passes over: omega_u (summed while a dense X is laid out as those rows, one product Z^T u for a
sparse X), then the margins row by row, stopping at the first above 1 (on a problem that is not
this strongly regularised, usually within the first rows). The run's own
certificate then confirms the point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._signed_rows import SignedRows
from .objectives import sign_projection
from .problem import make_problem

__all__ = ["lambda_max", "all_at_bound", "lam_max_n"]


def lambda_max(X, y, sign=None, *, sample_weight=None) -> float:
    """The smallest lambda at which every sample sits at its upper bound: for lam >= lambda_max
    the solution of problem (4) is w = Pi_S(sum_i s_i y_i x_i) / (lam n) in closed form, with dual
    alpha_i = s_i (s_i = 1 without weights), and a regularisation path has nothing to compute
    above it.

    lambda_max = max_i y_i <x_i, Pi_S(sum_j s_j y_j x_j)> / n over the samples with s_i > 0: at
    lam >= lambda_max every margin of that w is at most 1, so every hinge is active and the
    duality gap (eq. 10) is zero (``svmcert.signsvm.bound_start``); below it some margin exceeds
    1 and that sample leaves the bound. :func:`~svmcert.signsvm.solve` recognises the case
    itself: coordinate ascent then certifies the closed form without a pass.

    Parameters
    ----------
    X : array or scipy.sparse matrix of shape (n, d)
    y : array of shape (n,)
        Labels +-1.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.
    sample_weight : array of shape (n,), optional
        The weights s_i >= 0 of the weighted problem (``svmcert.signsvm.problem``).

    Returns
    -------
    float
        lambda_max >= 0 (0 when every weight is 0 or every such margin is at most 0).

    Raises
    ------
    ValueError
        Naming the argument, as :func:`~svmcert.signsvm.solve` does.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert import signsvm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(200))
    >>> sign = np.array([1, 0, 0, -1, 1])
    >>> top = signsvm.lambda_max(X, y, sign)
    >>> res = signsvm.solve(X, y, top, sign)                  # every alpha_i at 1, no pass made
    >>> bool(res.converged), res.n_iter, bool(np.all(res.alpha == 1.0))
    (True, 0, True)
    >>> res = signsvm.solve(X, y, 0.9 * top, sign)            # below it, some sample leaves the bound
    >>> bool(res.converged), bool(np.all(res.alpha == 1.0))
    (True, False)
    """
    p = make_problem(X, y, 1.0, sign, sample_weight=sample_weight, accept_sparse=True)
    return lam_max_n(SignedRows(p.X, p.y), p.upper, p.sign) / p.n


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


_MARGIN_SLACK = 1.0 + 1e-12
"""The test accepts margins up to 1 + 1e-12, so that lam = lambda_max itself, computed in another
order of summation, is not lost to rounding; a margin 1 + delta costs the certificate a gap of at
most delta sum_i u_i / n, which the run's own certificate measures against ``tol``."""


@njit(cache=True, nogil=True)
def all_at_bound(indptr, indices, values, upper, lam_n, sign, omega):
    """Whether alpha = u is optimal for lam n, given omega = omega_u = sum_i u_i values_i: the rows
    (indptr, indices, values) are those of Z / (lam n) in CSR form, as the passes read them
    (``_dca_kernel.dense_rows``, which also returns omega_u; ``_signed_rows.csr_rmatvec`` for
    other rows). The margins lam n <values_i, Pi_S(omega_u)> are summed in storage order, as
    ``_signed_rows.csr_matvec`` sums them for the certificate; the first above 1 (u_i > 0; up to
    the rounding slack _MARGIN_SLACK) ends the test.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.bound_start import all_at_bound
    >>> indptr, indices = np.array([0, 1, 2, 4]), np.array([0, 1, 0, 1], np.int32)
    >>> Z = np.array([1.0, 2.0, 1.0, 1.0])                   # rows (1, 0), (0, 2), (1, 1)
    >>> sign = np.array([0.0, -1.0])
    >>> omega = np.array([2.0, 3.0])                         # Z^T 1
    >>> bool(all_at_bound(indptr, indices, Z / 2.0, np.ones(3), 2.0, sign, omega / 2.0))
    True
    >>> bool(all_at_bound(indptr, indices, Z / 1.9, np.ones(3), 1.9, sign, omega / 1.9))
    False
    """
    n = indptr.shape[0] - 1
    d = sign.shape[0]
    w = np.empty(d)
    for h in range(d):
        w[h] = 0.0 if sign[h] * omega[h] < 0.0 else omega[h]
    for i in range(n):
        if upper[i] <= 0.0:
            continue
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += values[k] * w[indices[k]]
        if lam_n * acc > _MARGIN_SLACK:
            return False
    return True
