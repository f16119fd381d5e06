"""Active-set Newton steps on the kernel dual (4), for
:func:`svmcert.screening.weighted_svm.fit_weighted_svm`.

D_w is a concave quadratic over a box: gradient g = w (1 - m) (hinge) or w (1 - alpha / 2 - m)
(squared hinge), negative Hessian H = diag(w) Q diag(w) / lam (+ diag(w) / 2 for the squared
hinge), Q = diag(y) K diag(y). When lam is small H is ill-conditioned (an RBF Gram matrix has a
numerical rank far below n) and coordinate ascent converges slowly, although it has found which
samples sit at a bound long before. :func:`active_set_newton` is the primal active-set method for
a box-constrained quadratic programme (Nocedal and Wright, Numerical Optimization, Alg. 16.3),
started from coordinate ascent's point: with the samples at a bound held fixed, take the
regularised Newton direction of the free samples F, p = (H_FF + delta I)^-1 g_F (delta =
1e-12 max_i H_ii, so that a singular H still gives an ascent direction), and move along it to the
line's maximum or to the first bound, whichever comes first (a blocking sample is put exactly on
its bound and leaves F). At the face's maximum, the fixed sample whose gradient points most into
the box joins F; when none does, the point is optimal. Every step increases D_w (the caller
certifies the result by the duality gap); each step's cost is estimated before it runs
(:func:`step_flops`) and charged to a budget.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["active_set_newton", "free_count", "step_flops"]

REGULARISATION = 1e-12


def step_flops(n: int, n_free: int) -> float:
    """Cost model of one step: gathering the rows K_F and forming H (n |F| + |F|^2), its Cholesky
    factor (|F|^3 / 3) and the margin update K_F^T v (2 n |F|)."""
    f = float(n_free)
    return 3.0 * n * f + f * f + f ** 3 / 3.0


def free_count(alpha, w, squared) -> int:
    """|F|: samples with w_i > 0 strictly inside the dual domain."""
    hi = np.inf if squared else 1.0
    return int(np.count_nonzero((w > 0) & (alpha > 0.0) & (alpha < hi)))


def _gradient(alpha, m, w, squared):
    g = w * (1.0 - m)
    return g - 0.5 * w * alpha if squared else g


def active_set_newton(K, y, w, alpha, m, lam, squared, max_steps: int, max_flops: float):
    """Active-set Newton steps, updating ``alpha`` and the margins ``m`` in place.

    Parameters
    ----------
    K : (n, n) Gram matrix (C-contiguous: rows are read); y : labels; w : weights (samples with
        w_i = 0 are left alone); alpha : dual point in the domain; m : margins y K (y w alpha) / lam.
    lam : lambda; squared : squared hinge (no upper bound) instead of hinge.
    max_steps : most steps; max_flops : most work (:func:`step_flops` per step, estimated before it
        is taken).

    Returns
    -------
    (steps, flops, outcome) : outcome is "optimal" (the face's maximum, with no fixed sample
        pointing into the box), "no progress" (a step gained nothing: rounding level),
        "singular", "max_steps" or "budget".
    """
    n = K.shape[0]
    hi = np.inf if squared else 1.0
    F = (w > 0) & (alpha > 0.0) & (alpha < hi)
    steps, flops = 0, 0.0
    while True:
        if not F.any():
            g = _gradient(alpha, m, w, squared)
            push = np.where((w > 0) & (alpha <= 0.0), g, np.where((w > 0) & (alpha >= hi), -g, -np.inf))
            j = int(np.argmax(push))
            if not push[j] > 0.0:
                return steps, flops, "optimal"
            F[j] = True
        Fi = np.flatnonzero(F)
        if steps >= max_steps:
            return steps, flops, "max_steps"
        cost = step_flops(n, Fi.size)
        if flops + cost > max_flops:
            return steps, flops, "budget"
        flops += cost
        steps += 1
        wF, yF, aF = w[Fi], y[Fi], alpha[Fi]
        gF = _gradient(aF, m[Fi], wF, squared)
        KF = K[Fi]                                       # rows: contiguous
        H = KF[:, Fi] * np.outer(yF * wF, yF * wF) / lam
        if squared:
            H[np.diag_indices(Fi.size)] += 0.5 * wF
        delta = REGULARISATION * max(float(np.max(np.diag(H))), np.finfo(float).tiny)
        try:
            p = sla.cho_solve(sla.cho_factor(H + delta * np.eye(Fi.size), check_finite=False), gF,
                              check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return steps, flops, "singular"
        slope, curvature = float(gF @ p), float(p @ (H @ p))
        if not slope > 0.0:
            return steps, flops, "no progress"
        t = slope / curvature if curvature > 0.0 else np.inf
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(p > 0, (hi - aF) / p, np.where(p < 0, -aF / p, np.inf))
        k = int(np.argmin(room))
        blocked = room[k] < t
        t = min(t, float(room[k]))
        if not np.isfinite(t):
            return steps, flops, "singular"
        new = np.clip(aF + t * p, 0.0, hi)
        if blocked:                                      # the blocking sample lands exactly on its bound
            new[k] = 0.0 if p[k] < 0 else hi
            F[Fi[k]] = False
        gain = t * slope - 0.5 * t * t * curvature
        alpha[Fi] = new
        m += y * (KF.T @ (yF * wF * (new - aF))) / lam
        if not gain > 1e-16 * max(abs(float(w @ alpha)), np.finfo(float).tiny):
            return steps, flops, "no progress"
        if not blocked:                                  # the face's maximum: free the worst fixed sample
            g = _gradient(alpha, m, w, squared)
            push = np.where(~F & (w > 0) & (alpha <= 0.0), g, np.where(~F & (w > 0) & (alpha >= hi), -g, -np.inf))
            j = int(np.argmax(push))
            if not push[j] > 0.0:
                return steps, flops, "optimal"
            F[j] = True
