"""The sign-constrained SVM: feasible set, primal and dual objectives (Tajima et al., eqs. 3-9).

Conventions (DESIGN.md): ``X`` is (n, d) with samples as rows and ``y`` holds +-1; the paper's
d x n matrix with columns y_i x_i is ``(y[:, None] * X).T`` here. ``sign`` has entries in
{-1, 0, +1}: +1 asks w_h >= 0, -1 asks w_h <= 0, 0 leaves w_h free. The paper only treats
{0, +1} (it flips features to turn <= 0 into >= 0); allowing -1 directly is equivalent.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_alpha, check_positive, check_sign, check_vector
from .problem import check_data

__all__ = ["sign_projection", 
    "project_sign",
    "primal_objective",
    "dual_objective",
    "weights_from_dual",
    "dual_gradient",
    "margins",
]


def sign_projection(v: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Pi_S(v) of eq. (7) for validated float arrays: the coordinates whose sign disagrees with the
    constraint are set to 0 (:func:`project_sign` is the validating door)."""
    return np.where(sign * v < 0.0, 0.0, v)


def project_sign(v, sign=None) -> np.ndarray:
    """Euclidean projection onto S = {w : sign_h * w_h >= 0 for every h} (eq. 7).

    Parameters
    ----------
    v : array of shape (d,)
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.

    Returns
    -------
    ndarray of shape (d,)
        ``v`` with the coordinates that violate their constraint set to zero. For the paper's
        sigma in {0, 1} this is eq. (7), omega + max(0, -sigma * omega).

    Examples
    --------
    >>> from svmcert.signsvm import project_sign
    >>> project_sign([1.5, -2.0, -0.5], sign=[1, 1, 0])
    array([ 1.5,  0. , -0.5])
    """
    v = check_vector(v, "v")
    sign = check_sign(sign, v.shape[0])
    return sign_projection(v, sign)


def _hinge_mean(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.maximum(0.0, 1.0 - y * (X @ w))))


def primal_objective(w, X, y, lam) -> float:
    """P(w) = lam/2 ||w||^2 + (1/n) sum_i max(0, 1 - y_i <x_i, w>)  (eq. 5).

    Parameters
    ----------
    w : array of shape (d,)
    X : array or scipy.sparse matrix of shape (n, d)
        Samples as rows (a sparse X of any format is held as CSR, never densified).
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import primal_objective
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = np.array([1.0, -1.0])
    >>> primal_objective([0.5, -0.5], X, y, lam=1.0)    # 1/2 * 0.5 + mean of the hinges 0.5, 0.5
    0.75
    """
    X, y = check_data(X, y)
    w = check_vector(w, "w", X.shape[1])
    lam = check_positive(lam, "lam")
    return 0.5 * lam * float(w @ w) + _hinge_mean(w, X, y)


def unprojected_weights(alpha: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """X^T (y alpha) / (lam n): the weights before the sign projection (the paper's X alpha / (lam n)
    with columns y_i x_i), for validated arguments."""
    return X.T @ (y * alpha) / (lam * X.shape[0])


def weights_unchecked(alpha, X, y, lam, sign):
    """:func:`weights_from_dual` for arguments already validated (:func:`check_dual_args`)."""
    return sign_projection(unprojected_weights(alpha, X, y, lam), sign)


def check_dual_args(alpha, X, y, lam, sign, accept_sparse: bool = False):
    """Validate (alpha, X, y, lam, sign) once at a public door of the dual objective's functions;
    with ``accept_sparse`` X may be scipy.sparse (held as CSR)."""
    X, y = check_data(X, y, accept_sparse)
    alpha = check_alpha(alpha, X.shape[0])
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    return alpha, X, y, lam, sign


def weights_from_dual(alpha, X, y, lam, sign=None) -> np.ndarray:
    """w(alpha) = Pi_S(X alpha / (lam n)), the primal point attached to alpha (eq. 9).

    Parameters
    ----------
    alpha : array of shape (n,)
        Dual point in [0, 1]^n.
    X : array or scipy.sparse matrix of shape (n, d)
        Samples as rows (a sparse X of any format is held as CSR, never densified).
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.

    Returns
    -------
    ndarray of shape (d,)
        sum_i alpha_i y_i x_i / (lam n), projected onto the sign constraints (eq. 7).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import weights_from_dual
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = np.array([1.0, -1.0])
    >>> weights_from_dual([1.0, 1.0], X, y, lam=1.0)
    array([ 0.5, -0.5])
    >>> weights_from_dual([1.0, 1.0], X, y, lam=1.0, sign=[1, 1])
    array([0.5, 0. ])
    """
    alpha, X, y, lam, sign = check_dual_args(alpha, X, y, lam, sign, accept_sparse=True)
    return weights_unchecked(alpha, X, y, lam, sign)


def dual_objective(alpha, X, y, lam, sign=None) -> float:
    """D(alpha) = -lam/2 ||w(alpha)||^2 + (1/n) <1, alpha>  (eq. 9).

    Parameters
    ----------
    alpha : array of shape (n,)
        Dual point in [0, 1]^n.
    X, y, lam, sign
        The problem, as in :func:`weights_from_dual`.

    Returns
    -------
    float
        D(alpha) <= P(w) for every feasible w (weak duality), so
        ``primal_objective(weights_from_dual(alpha, ...), ...) - dual_objective(alpha, ...)``
        bounds how far w(alpha) is from optimal (eq. 10).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import dual_objective, primal_objective, weights_from_dual
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = np.array([1.0, -1.0])
    >>> alpha = np.ones(2)
    >>> dual_objective(alpha, X, y, lam=1.0)
    0.75
    >>> primal_objective(weights_from_dual(alpha, X, y, 1.0), X, y, 1.0)   # gap 0: both optimal
    0.75
    """
    alpha, X, y, lam, sign = check_dual_args(alpha, X, y, lam, sign, accept_sparse=True)
    w = weights_unchecked(alpha, X, y, lam, sign)
    return -0.5 * lam * float(w @ w) + float(alpha.sum()) / X.shape[0]


def margins(w, X, y) -> np.ndarray:
    """z_i = y_i <x_i, w>, the quantity thresholded by eq. (14); X dense or scipy.sparse."""
    X, y = check_data(X, y)
    w = check_vector(w, "w", X.shape[1])
    return y * (X @ w)


def dual_gradient(alpha, X, y, lam, sign=None) -> np.ndarray:
    """Gradient of D at alpha: g_i = (1 - y_i <w(alpha), x_i>) / n  (eq. 30).

    D is differentiable although Pi_S is not: (1/2)||Pi_S(v)||^2 has gradient Pi_S(v) because S
    is a closed convex cone (Moreau decomposition), so the chain rule through omega = X alpha/(lam n)
    gives lam * (X^T Pi_S(omega)) / (lam n) for the quadratic term.
    """
    alpha, X, y, lam, sign = check_dual_args(alpha, X, y, lam, sign, accept_sparse=True)
    w = weights_unchecked(alpha, X, y, lam, sign)
    return (1.0 - y * (X @ w)) / X.shape[0]
