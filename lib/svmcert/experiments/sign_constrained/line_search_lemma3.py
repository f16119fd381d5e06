"""Lemma 3 of Tajima et al. (Sec. 9.2, eq. 32): on each piece of the line search the weights are affine.

For eta in [theta_k, theta_{k+1}], w_h(alpha + eta q) = omega_{h,0} + eta omega_{h,q} for h in H_k
(eq. 23) and 0 for the other constrained h. :func:`affine_error` evaluates the projection
w(alpha + eta q) (eq. 9) at points of every piece, endpoints included, and compares it with that
affine formula, in units of the rounding of the products that form omega.
"""

from __future__ import annotations

import numpy as np

from ... import signsvm
from .line_search import EPS, omegas, piece_active_sets

__all__ = ["affine_error"]


def affine_error(inst, fractions=(0.0, 0.25, 0.5, 0.75, 1.0)) -> float:
    """Largest |w(alpha + eta q) - affine formula| over the pieces and the given fractions of each,
    divided by the rounding scale (n + 4) eps max(|X|^T (alpha + eta |q|)) / (lam n) (at least 1 ulp of
    the largest weight). The lemma says this stays of order 1."""
    ls = signsvm.line_search(inst.alpha, inst.u, inst.X, inst.y, inst.lam, inst.sign)
    w0, wq, _, _ = omegas(inst)
    theta = np.asarray(ls.theta, float)
    H = piece_active_sets(w0, wq, inst.sign, theta)
    worst = 0.0
    for k in range(len(theta) - 1):
        for f in fractions:
            eta = theta[k] + f * (theta[k + 1] - theta[k])
            w = signsvm.weights_from_dual(inst.alpha + eta * inst.q, inst.X, inst.y, inst.lam, inst.sign)
            affine = np.where(H[k], w0 + eta * wq, 0.0)
            bar = (inst.alpha + eta * np.abs(inst.q)) @ np.abs(inst.X) / (inst.lam * inst.n)
            scale = (inst.n + 4) * EPS * max(float(bar.max()), float(np.abs(w).max()), np.finfo(float).tiny)
            worst = max(worst, float(np.abs(w - affine).max()) / scale)
    return worst
