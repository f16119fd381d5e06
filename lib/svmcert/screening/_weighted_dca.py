"""Inner loops of :func:`svmcert.screening.weighted_svm.fit_weighted_svm`.

- :func:`epoch_compiled` / :func:`epoch_numpy`: one pass of exact coordinate steps on the kernel
  dual (4) (numba, and the numpy reference the tests compare it with).
- :func:`pivoted_cholesky`, :func:`epoch_factor_compiled` / :func:`epoch_factor_numpy`: the same
  steps when K = G G^T has low rank r (a linear kernel): the model v = G^T (y w alpha) / lam in
  R^r is kept instead of the n margins, so a step costs O(r) instead of O(n) (Hsieh et al., 2008).

Notation: Q = diag(y) K diag(y), u = w * alpha, margins m = Q u / lam. Along alpha_i the dual has
derivative w_i (1 - m_i) (hinge) or w_i (1 - alpha_i / 2 - m_i) (squared hinge) and curvature
-w_i^2 K_ii / lam (- w_i / 2): a concave quadratic, maximised in closed form.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["epoch_compiled", "epoch_numpy", "pivoted_cholesky", "epoch_factor_compiled",
           "epoch_factor_numpy"]


def coordinate_step(a, mi, wi, kii, lam, squared):
    """The exact maximiser of D_w along alpha_i, from alpha_i = a and margin m_i = mi.

    hinge: clip(a + lam (1 - m_i) / (w_i K_ii), 0, 1) (1 when K_ii = 0: phi(x_i) = 0 and D grows
    with alpha_i at rate w_i); squared hinge: max(0, a + (1 - a/2 - m_i) / (1/2 + w_i K_ii / lam)).
    """
    if squared:
        return max(a + (1.0 - 0.5 * a - mi) / (0.5 + wi * kii / lam), 0.0)
    if kii <= 0.0:
        return 1.0
    return min(max(a + lam * (1.0 - mi) / (wi * kii), 0.0), 1.0)


#: the same step compiled, for the compiled epochs (the Python one serves the numpy references)
coordinate_step_compiled = njit(cache=True, nogil=True)(coordinate_step)


@njit(cache=True, nogil=True)
def epoch_compiled(order, K, y, w, alpha, m, lam, squared):
    """One pass of exact coordinate steps (the arithmetic of :func:`epoch_numpy`, compiled);
    returns the number of steps that moved an alpha_i (each cost O(n))."""
    n = K.shape[0]
    moved = 0
    for i in order:
        wi = w[i]
        kii = K[i, i]
        a = alpha[i]
        new = coordinate_step_compiled(a, m[i], wi, kii, lam, squared)
        d = new - a
        if d != 0.0:
            moved += 1
            alpha[i] = new
            c = y[i] * wi * d / lam
            for j in range(n):
                m[j] += y[j] * K[i, j] * c
    return moved


def epoch_numpy(order, K, y, w, alpha, m, lam, squared):
    """Reference epoch: maximise D_w exactly along alpha_i for each i in ``order`` (all w_i > 0),
    updating the margins m in place.

    hinge: alpha_i <- clip(alpha_i + lam (1 - m_i) / (w_i K_ii), 0, 1);
    squared hinge: alpha_i <- max(0, alpha_i + (1 - alpha_i/2 - m_i) / (1/2 + w_i K_ii / lam)).
    Returns the number of steps that moved an alpha_i.
    """
    moved = 0
    for i in order:
        wi, kii, a = w[i], K[i, i], alpha[i]
        new = coordinate_step(a, m[i], wi, kii, lam, squared)
        if new != a:
            moved += 1
            alpha[i] = new
            m += y * K[i] * (y[i] * wi * (new - a) / lam)
    return moved


def pivoted_cholesky(K, max_rank, rel_tol=1e-13):
    """G (n x r) with K ~ G G^T by diagonally pivoted Cholesky, or None if the rank exceeds max_rank.

    Stops when every residual diagonal entry is <= rel_tol * max_i K_ii; the residual K - G G^T is
    positive semidefinite, so all its entries are then that small. O(n r^2); reads rows of the
    symmetric K (contiguous in C order) rather than columns.
    """
    n = K.shape[0]
    d = np.array(np.diag(K), dtype=float)
    stop = rel_tol * max(float(d.max()), 0.0)
    G = np.zeros((n, max(int(max_rank), 0)))
    for k in range(G.shape[1] + 1):
        j = int(np.argmax(d))
        if d[j] <= stop:
            return G[:, :k].copy()
        if k == G.shape[1]:
            return None
        g = (K[j] - G[:, :k] @ G[j, :k]) / np.sqrt(d[j])
        G[:, k] = g
        d -= g * g
        d[j] = 0.0
    return None


@njit(cache=True, nogil=True)
def epoch_factor_compiled(order, G, y, w, alpha, v, lam, squared):
    """:func:`epoch_numpy`'s steps with K = G G^T: m_i = y_i <G_i, v>, v updated in place."""
    r = G.shape[1]
    for i in order:
        wi = w[i]
        kii = 0.0
        mi = 0.0
        for k in range(r):
            kii += G[i, k] * G[i, k]
            mi += G[i, k] * v[k]
        mi *= y[i]
        a = alpha[i]
        new = coordinate_step_compiled(a, mi, wi, kii, lam, squared)
        d = new - a
        if d != 0.0:
            alpha[i] = new
            c = y[i] * wi * d / lam
            for k in range(r):
                v[k] += G[i, k] * c


def epoch_factor_numpy(order, G, y, w, alpha, v, lam, squared):
    """Reference for :func:`epoch_factor_compiled` (the steps of :func:`epoch_numpy`)."""
    for i in order:
        wi, gi, a = w[i], G[i], alpha[i]
        kii, mi = float(gi @ gi), y[i] * float(gi @ v)
        new = coordinate_step(a, mi, wi, kii, lam, squared)
        if new != a:
            alpha[i] = new
            v += gi * (y[i] * wi * (new - a) / lam)
