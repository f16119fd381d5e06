"""Inner loops of :func:`svmcert.screening.weighted_svm.fit_weighted_svm`.

- :func:`epoch_compiled` / :func:`epoch_numpy`: one pass of exact coordinate steps on the kernel
  dual (4) (numba, and the numpy reference the tests compare it with).
- :func:`greedy_compiled` / :func:`greedy_numpy`: the same exact steps, each on the coordinate whose
  step raises D_w most (Gauss-Southwell with the exact gain). A step on K costs O(n) whichever
  coordinate it takes (the margins' update), so choosing the best one in the same pass over the
  row costs nothing more, and far fewer steps are needed than in random order (the SMO-type
  selection of libsvm, without its pair: here no equality constraint couples the alpha_i).
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

__all__ = ["epoch_compiled", "epoch_numpy", "greedy_compiled", "greedy_numpy", "gain_coefficients", "step_gains", "pivoted_cholesky", "epoch_factor_compiled",
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


def gain_coefficients(kdiag, w, lam, squared):
    """Per sample, (s, h) such that the exact step along alpha_i is t = a + s_i u_i, clipped to the
    domain, and its gain is d (w_i u_i - h_i d / 2), with u_i = 1 - m_i (hinge) or
    1 - alpha_i / 2 - m_i (squared hinge) and d the clipped step: s_i = lam / (w_i K_ii) and
    h_i = w_i^2 K_ii / lam (hinge), s_i = 1 / (1/2 + w_i K_ii / lam) and
    h_i = w_i^2 K_ii / lam + w_i / 2 (squared hinge). Samples with w_i = 0 get s_i = h_i = 0 (no
    step, no gain); K_ii = 0 gives s_i = inf (hinge: the step to alpha_i = 1)."""
    s = np.zeros_like(w)
    h = np.zeros_like(w)
    on = w > 0
    wk = w[on] * kdiag[on]
    with np.errstate(divide="ignore"):
        s[on] = 1.0 / (0.5 + wk / lam) if squared else lam / wk
    h[on] = w[on] * wk / lam + (0.5 * w[on] if squared else 0.0)
    return s, h


def step_gains(alpha, m, w, s, h, squared):
    """The gain of the exact step along every alpha_i (:func:`gain_coefficients`), vectorised."""
    u = 1.0 - m - 0.5 * alpha if squared else 1.0 - m
    t = alpha + s * u
    new = np.maximum(t, 0.0) if squared else np.minimum(np.maximum(t, 0.0), 1.0)
    d = new - alpha
    return d * (w * u - 0.5 * h * d)


@njit(cache=True, nogil=True)
def _update_and_gains(Ki, y, w, alpha, m, s, h, c, squared, gains):
    """m += y K_i c, then every sample's gain (the arithmetic of :func:`step_gains`) into
    ``gains``; returns the largest gain (>= 0). Two plain loops that the compiler vectorises."""
    n = Ki.shape[0]
    if c != 0.0:
        for j in range(n):
            m[j] += y[j] * Ki[j] * c
    for j in range(n):
        a = alpha[j]
        if squared:
            u = 1.0 - m[j] - 0.5 * a
            d = max(a + s[j] * u, 0.0) - a
        else:
            u = 1.0 - m[j]
            d = min(max(a + s[j] * u, 0.0), 1.0) - a
        gains[j] = d * (w[j] * u - 0.5 * h[j] * d)
    return _largest(gains)


@njit(cache=True, nogil=True, fastmath={"nnan", "ninf", "nsz"})
def _largest(gains):
    """max(0, max gains): a reduction the compiler may reorder (max is exact in any order; the
    flags only let it assume no NaN, and a gain is never NaN: see :func:`gain_coefficients`)."""
    best = 0.0
    for j in range(gains.shape[0]):
        best = max(best, gains[j])
    return best


@njit(cache=True, nogil=True)
def greedy_compiled(K, y, w, alpha, m, lam, squared, s, h, max_steps):
    """Up to ``max_steps`` exact coordinate steps (:func:`coordinate_step`), each on the sample of
    largest gain (:func:`step_gains`, with ``s, h`` from :func:`gain_coefficients`; ties go to the
    lowest index), updating ``alpha`` and the margins ``m`` in place. Each step costs one pass over
    a row of K for the margins and one over the samples for their gains. Returns the number of
    steps taken (fewer when no step gains anything, or when the chosen step rounds to no change of
    alpha_i: its gain is then at the rounding level of the margins, and repeating it would change
    nothing)."""
    n = K.shape[0]
    gains = np.empty(n)
    best = _update_and_gains(K[0], y, w, alpha, m, s, h, 0.0, squared, gains)
    steps = 0
    while steps < max_steps and best > 0.0:
        i = 0
        while gains[i] != best:
            i += 1
        wi = w[i]
        a = alpha[i]
        new = coordinate_step_compiled(a, m[i], wi, K[i, i], lam, squared)
        if new == a:                        # a null step: nothing changes, the same i would follow
            break
        alpha[i] = new
        c = y[i] * wi * (new - a) / lam
        steps += 1
        best = _update_and_gains(K[i], y, w, alpha, m, s, h, c, squared, gains)
    return steps


def greedy_numpy(K, y, w, alpha, m, lam, squared, s, h, max_steps):
    """Reference for :func:`greedy_compiled`: the gains of all samples recomputed by
    :func:`step_gains` before each step."""
    steps = 0
    while steps < max_steps:
        gains = step_gains(alpha, m, w, s, h, squared)
        i = int(np.argmax(gains))
        if not gains[i] > 0.0:
            break
        a = alpha[i]
        new = coordinate_step(a, m[i], w[i], K[i, i], lam, squared)
        if new == a:
            break
        alpha[i] = new
        m += y * K[i] * (y[i] * w[i] * (new - a) / lam)
        steps += 1
    return steps


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
