"""What every sign-constrained SVM solver returns, and the warning for stopping early."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["SolverResult", "ConvergenceWarning", "Certificate", "certificate", "Deadline"]


class ConvergenceWarning(UserWarning):
    """A solver stopped at its iteration limit or time limit before reaching the requested tolerance."""


class Deadline:
    """A wall-clock budget of ``time_limit`` seconds from ``start`` (None: no limit).

    ``remaining()`` is the time left (inf without a limit); ``allows(seconds)`` says whether a
    step expected to take ``seconds`` would end before the limit; ``passed()`` whether the limit
    is reached.
    """

    def __init__(self, time_limit, start: float):
        self.time_limit = time_limit
        self.end = None if time_limit is None else start + float(time_limit)

    @property
    def limited(self) -> bool:
        return self.end is not None

    def remaining(self) -> float:
        return np.inf if self.end is None else self.end - time.perf_counter()

    def allows(self, seconds: float) -> bool:
        return self.end is None or time.perf_counter() + seconds <= self.end

    def passed(self) -> bool:
        return self.end is not None and time.perf_counter() >= self.end


@dataclass
class SolverResult:
    """Outcome of a solver.

    Attributes
    ----------
    w : ndarray of shape (d,)
        Primal weights (feasible: sign * w >= 0).
    alpha : ndarray of shape (n,) or None
        Dual point in [0, 1]^n (for the primal method
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
        """(P - D) / P <= tol (guarded for P = 0, where only a zero gap passes)."""
        return self.gap <= tol * max(self.primal, np.finfo(float).tiny)


def certificate(omega, alpha, Z, lam, sign, project) -> Certificate:
    """Evaluate the certificate from omega = Z^T alpha / (lam n): one O(nd) product Z w.

    ``Z`` has rows y_i x_i; ``project`` is the projection onto the sign-constrained set.
    """
    w = project(omega, sign)
    z = Z @ w
    half = 0.5 * lam * float(w @ w)
    primal = half + float(np.maximum(0.0, 1.0 - z).mean())
    dual = -half + float(alpha.sum()) / Z.shape[0]
    return Certificate(w, z, primal, dual)


class History(dict):
    """Per-iteration primal, dual, gap and seconds since ``start``."""

    def __init__(self, start: float):
        super().__init__(primal=[], dual=[], gap=[], seconds=[])
        self._start = start

    def add(self, cert: Certificate, now: float) -> None:
        for key, val in zip(("primal", "dual", "gap", "seconds"),
                            (cert.primal, cert.dual, cert.gap, now - self._start)):
            self[key].append(val)
