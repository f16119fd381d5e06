"""What every sign-constrained SVM solver returns, and the warning for stopping early."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._budget import Deadline  # noqa: F401  (re-exported: the solvers import it from here)
from ..exceptions import ConvergenceWarning  # noqa: F401  (re-exported: the contract names it here)
from .objectives import sign_projection

__all__ = ["SolverResult", "ConvergenceWarning", "Certificate", "certificate", "better_primal", "hinge_risk", "Deadline"]


@dataclass
class SolverResult:
    """Outcome of a solver.

    Attributes
    ----------
    w : ndarray of shape (d,)
        Primal weights (feasible: sign * w >= 0).
    alpha : ndarray of shape (n,) or None
        Dual point in [0, 1]^n, or in [0, s_1] x ... x [0, s_n] for per-sample weights s (for the
        primal method
        :func:`~svmcert.signsvm.projected_gradient`, one built from its sub-gradients).
    primal, dual : float
        P(w) and D(alpha).
    gap : float
        primal - dual, a certificate that P(w) - P* <= gap (weak duality, eq. 10).
    n_iter : int
        Iterations performed.
    converged : bool
        Whether the relative gap reached the solver's ``tol``.
    history : dict of lists
        Per iteration: primal, dual, gap, seconds.
    """

    w: np.ndarray
    alpha: np.ndarray | None
    primal: float
    dual: float | None
    gap: float | None
    n_iter: int
    converged: bool
    history: dict = field(default_factory=dict)


class Certificate:
    """P(w(alpha)), D(alpha) and the margins z = Z w at one dual point (eqs. 5, 9, 10)."""

    __slots__ = ("w", "z", "primal", "dual")

    def __init__(self, w, z, primal, dual):
        self.w, self.z, self.primal, self.dual = w, z, primal, dual

    @property
    def gap(self) -> float:
        return self.primal - self.dual

    def relative_gap_below(self, tol: float) -> bool:
        """(P - D) / P <= tol (guarded for P = 0, where only a zero gap passes). An overflowed
        certificate (P or D infinite or NaN, as with a lambda so small that Z^T alpha / (lam n)
        overflows) never passes: inf <= tol * inf would."""
        if not (math.isfinite(self.primal) and math.isfinite(self.dual)):
            return False
        return self.gap <= tol * max(self.primal, np.finfo(float).tiny)


def hinge_risk(z, weights=None) -> float:
    """(1/n) sum_i s_i max(0, 1 - z_i) at the margins z (s_i = 1 when ``weights`` is None)."""
    loss = np.maximum(0.0, 1.0 - z)
    return float(loss.mean() if weights is None else (weights * loss).mean())


def certificate(omega, alpha, Z, lam, sign, weights=None) -> Certificate:
    """Evaluate the certificate from omega = Z^T alpha / (lam n): one O(nd) product Z w.

    ``Z`` has rows y_i x_i; w = Pi_S(omega) (eq. 7). With per-sample ``weights`` s the primal is
    the weighted one (``svmcert.signsvm.problem``) and alpha must lie in the box [0, s]; the dual's formula
    does not change.
    """
    w = sign_projection(omega, sign)
    z = Z @ w if w.any() else np.zeros(Z.shape[0])    # X is finite, so Z 0 = 0 exactly
    half = 0.5 * lam * float(w @ w)
    primal = half + hinge_risk(z, weights)
    dual = -half + float(alpha.sum()) / Z.shape[0]
    return Certificate(w, z, primal, dual)


def better_primal(cert: Certificate, w, z, lam, weights=None) -> Certificate:
    """``cert``, or its dual bound against P(w) at another sign-feasible ``w`` (margins ``z`` = Z w)
    when that value is smaller: the gap then bounds the error of the better primal point."""
    primal = 0.5 * lam * float(w @ w) + hinge_risk(z, weights)
    return Certificate(w, z, primal, cert.dual) if primal < cert.primal else cert


class History(dict):
    """Per-iteration primal, dual, gap and seconds since ``start``."""

    def __init__(self, start: float):
        super().__init__(primal=[], dual=[], gap=[], seconds=[])
        self._start = start

    def add(self, cert: Certificate, now: float) -> None:
        for key, val in zip(("primal", "dual", "gap", "seconds"),
                            (cert.primal, cert.dual, cert.gap, now - self._start)):
            self[key].append(val)
