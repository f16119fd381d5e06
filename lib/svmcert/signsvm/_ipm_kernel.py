"""One compiled iteration of :func:`svmcert.signsvm.interior_point.run_interior_point` for a small
dense X.

The iteration is the one written out in numpy in :mod:`.interior_point` (Mehrotra's
predictor-corrector on the d x d normal matrix M = B + X^T diag(delta) X), in the same order of
operations; the products with X and the dot products call the same BLAS routines (numba's
``np.dot``), so they agree with numpy's bit for bit. The normal matrix (one BLAS-3 product of the
scaled rows), its Cholesky factor (LAPACK, with the same diagonal shifts on failure) and the two
triangular solves per step are computed differently, so iterates differ from the numpy path by
rounding. What the compiled iteration saves is the glue: on the small LIBSVM sets an iteration was
about 90 numpy calls on length-n vectors, most of its time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["dense_iteration", "dense_certificate", "FUSED_MAX_ENTRIES", "FUSED_MAX_D"]

FUSED_MAX_ENTRIES = 1 << 20
"""Largest n d for which ``run_interior_point`` uses the compiled iteration: beyond it the
products dominate an iteration (and the normal matrix is formed by blocks, which keeps the scaled
rows in cache), so the glue the compilation saves no longer matters."""
FUSED_MAX_D = 256
"""Largest d for the compiled iteration (its triangular solves are plain loops, O(d^2))."""

_SHIFTS = (0.0, 1e-14, 1e-12, 1e-10, 1e-8)
_STEP_TO_BOUNDARY = 0.99


@njit(cache=True, nogil=True)
def _cholesky_shifted(M):
    """Lower Cholesky factor of M, retried with the diagonal shifts of
    ``interior_point._cholesky`` (relative to max |M_hh|); (L, False) if every try fails."""
    d = M.shape[0]
    scale = 0.0
    for h in range(d):
        scale = max(scale, abs(M[h, h]))
    for shift in _SHIFTS:
        A = M.copy()
        if shift != 0.0:
            for h in range(d):
                A[h, h] += shift * scale
        try:
            return np.linalg.cholesky(A), True
        except Exception:  # noqa: BLE001 - numba raises LinAlgError for a matrix that is not PD
            continue
    return np.zeros_like(M), False


@njit(cache=True, nogil=True)
def _cho_solve_lower(L, r):
    """x with L L^T x = r (forward, then backward substitution)."""
    d = r.shape[0]
    z = np.empty(d)
    for i in range(d):
        acc = r[i]
        for k in range(i):
            acc -= L[i, k] * z[k]
        z[i] = acc / L[i, i]
    x = np.empty(d)
    for i in range(d - 1, -1, -1):
        acc = z[i]
        for k in range(i + 1, d):
            acc -= L[k, i] * x[k]
        x[i] = acc / L[i, i]
    return x


@njit(cache=True, nogil=True, inline="always")
def _step_bound(v, dv, step):
    """The step shortened so that v + step dv stays >= 0 (v >= 0). One test, v + step dv < 0,
    which holds only where dv < 0 and equals -v > step dv (a rounded sum has its exact sign):
    rarely true once the step has shrunk, so well predicted, unlike a test of dv's sign."""
    if v + step * dv < 0.0:
        return min(step, -v / dv)
    return step


@njit(cache=True, nogil=True, inline="always")
def _step_bound_scaled(inv_v, dv, step):
    """:func:`_step_bound` for v = 1 / inv_v: -v / dv = -1 / (inv_v dv)."""
    if 1.0 + step * dv * inv_v < 0.0:
        return min(step, -1.0 / (dv * inv_v))
    return step


@njit(cache=True, nogil=True)
def _newton(X, y, L, C, sg, w_rhs, r_p, r_xi, xi, inv_beta, s, inv_alpha, delta, q, mu, r_s, r_b, r_m):
    """One solve of the Newton system for the right-hand sides (r_s, r_b, r_m) (``newton`` in
    ``run_interior_point``, with divisions by alpha and beta taken as products with their
    reciprocals): the directions and the largest step in (0, 1] that keeps every nonnegative
    variable nonnegative (alpha = 1 / inv_alpha and beta = 1 / inv_beta in the step's bounds)."""
    n = r_p.shape[0]
    g = np.empty(n)
    gdy = np.empty(n)
    for i in range(n):
        g[i] = (-r_p[i] + (r_b[i] + xi[i] * r_xi[i]) * inv_beta[i]) - r_s[i] * inv_alpha[i]
        gdy[i] = y[i] * (g[i] * delta[i])
    rhs = w_rhs + np.dot(X.T, gdy)
    for j in range(C.shape[0]):
        rhs[C[j]] -= sg[j] * r_m[j] / q[j]
    dw = _cho_solve_lower(L, rhs)
    xdw = np.dot(X, dw)
    da, db, ds, dxi = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    step = 1.0
    for i in range(n):
        da[i] = (g[i] - y[i] * xdw[i]) * delta[i]
        db[i] = r_xi[i] - da[i]
        ds[i] = (-r_s[i] - s[i] * da[i]) * inv_alpha[i]
        dxi[i] = (-r_b[i] - xi[i] * db[i]) * inv_beta[i]
        step = _step_bound(s[i], ds[i], step)
        step = _step_bound(xi[i], dxi[i], step)
        step = _step_bound_scaled(inv_alpha[i], da[i], step)
        step = _step_bound_scaled(inv_beta[i], db[i], step)
    m = C.shape[0]
    dq, dmu = np.empty(m), np.empty(m)
    for j in range(m):
        dq[j] = sg[j] * dw[C[j]]
        dmu[j] = (-r_m[j] - mu[j] * dq[j]) / q[j]
        step = _step_bound(q[j], dq[j], step)
        step = _step_bound(mu[j], dmu[j], step)
    return dw, da, db, ds, dxi, dq, dmu, step


@njit(cache=True, nogil=True)
def dense_iteration(X, y, w, alpha, beta, s, xi, mu, C, sg, c, box, m_total):
    """One predictor-corrector iteration on a dense C-ordered X (d <= n), updating w, alpha,
    beta, s, xi and mu in place; returns False (and changes nothing) when the normal matrix
    cannot be factorised even with the largest shift."""
    n, d = X.shape
    m = C.shape[0]
    q = np.empty(m)
    for j in range(m):
        q[j] = sg[j] * w[C[j]]
    xw = np.dot(X, w)
    ya = y * alpha
    r_w = c * w - np.dot(X.T, ya)
    for j in range(m):
        r_w[C[j]] -= sg[j] * mu[j]
    r_xi = np.empty(n)
    r_p = np.empty(n)
    delta = np.empty(n)
    root = np.empty(n)
    inv_alpha = 1.0 / alpha
    inv_beta = 1.0 / beta
    for i in range(n):
        r_xi[i] = box[i] - alpha[i] - beta[i]
        r_p[i] = y[i] * xw[i] + xi[i] - 1.0 - s[i]
        delta[i] = 1.0 / (xi[i] * inv_beta[i] + s[i] * inv_alpha[i])
        root[i] = np.sqrt(delta[i])
    tau = (np.dot(alpha, s) + np.dot(beta, xi) + np.dot(mu, q)) / m_total
    A = np.empty((n, d))
    for i in range(n):
        for h in range(d):
            A[i, h] = X[i, h] * root[i]
    b_diag = np.full(d, c)
    for j in range(m):
        b_diag[C[j]] += mu[j] / q[j]
    M = np.dot(A.T, A)
    for h in range(d):
        M[h, h] += b_diag[h]
    L, ok = _cholesky_shifted(M)
    if not ok:
        return False
    w_rhs = -r_w
    aff = _newton(X, y, L, C, sg, w_rhs, r_p, r_xi, xi, inv_beta, s, inv_alpha, delta, q, mu,
                  alpha * s, beta * xi, mu * q)
    _, da, db, ds, dxi, dq, dmu, a_aff = aff
    acc = 0.0
    for i in range(n):
        acc += (alpha[i] + a_aff * da[i]) * (s[i] + a_aff * ds[i])
    acc2 = 0.0
    for i in range(n):
        acc2 += (beta[i] + a_aff * db[i]) * (xi[i] + a_aff * dxi[i])
    tau_aff = (acc + acc2 + np.dot(mu + a_aff * dmu, q + a_aff * dq)) / m_total
    sigma = min(1.0, (tau_aff / tau) ** 3)
    st = sigma * tau
    cor = _newton(X, y, L, C, sg, w_rhs, r_p, r_xi, xi, inv_beta, s, inv_alpha, delta, q, mu,
                  alpha * s + da * ds - st, beta * xi + db * dxi - st, mu * q + dmu * dq - st)
    dw, da, db, ds, dxi, dq, dmu, a_cor = cor
    a = min(1.0, _STEP_TO_BOUNDARY * a_cor)
    for h in range(d):
        w[h] += a * dw[h]
    for i in range(n):
        alpha[i] += a * da[i]
        beta[i] += a * db[i]
        s[i] += a * ds[i]
        xi[i] += a * dxi[i]
    for j in range(m):
        mu[j] += a * dmu[j]
    tiny = np.finfo(np.float64).tiny
    for j in range(m):
        w[C[j]] = sg[j] * max(sg[j] * w[C[j]], tiny)
    return True


@njit(cache=True, nogil=True)
def _projected(v, sign):
    out = v.copy()
    for h in range(v.shape[0]):
        if sign[h] * v[h] < 0.0:
            out[h] = 0.0
    return out


@njit(cache=True, nogil=True)
def _primal(X, y, w, lam, weights, weighted):
    """P(w) = lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>) (s_i = 1 unweighted)."""
    n = X.shape[0]
    z = np.dot(X, w)
    risk = 0.0
    for i in range(n):
        loss = max(0.0, 1.0 - y[i] * z[i])
        risk += weights[i] * loss if weighted else loss
    return 0.5 * lam * np.dot(w, w) + risk / n


@njit(cache=True, nogil=True)
def dense_certificate(X, y, w, alpha, lam, sign, c, box, weighted):
    """The certificate of ``interior_point._certify`` on a dense X: D(a) for a = alpha clipped to
    [0, box], against the better of P(w(a)) (w(a) = Pi_S(X^T (y a) / c)) and P(Pi_S(w)).
    Returns (primal, dual, the primal point, the clipped alpha); sums run in index order."""
    n = X.shape[0]
    a = np.empty(n)
    asum = 0.0
    for i in range(n):
        a[i] = min(max(alpha[i], 0.0), box[i])
        asum += a[i]
    w_dual = _projected(np.dot(X.T, y * a) / c, sign)
    p_dual = _primal(X, y, w_dual, lam, box, weighted)
    dual = -0.5 * lam * np.dot(w_dual, w_dual) + asum / n
    w_it = _projected(w, sign)
    p_it = _primal(X, y, w_it, lam, box, weighted)
    if p_it < p_dual:
        return p_it, dual, w_it, a
    return p_dual, dual, w_dual, a
