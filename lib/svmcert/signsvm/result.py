"""What every sign-constrained SVM solver returns, and the warning for stopping early."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SolverResult", "ConvergenceWarning"]


class ConvergenceWarning(UserWarning):
    """A solver stopped at its iteration limit before reaching the requested tolerance."""


@dataclass
class SolverResult:
    """Outcome of a solver.

    Attributes
    ----------
    w : primal weights (feasible: sign * w >= 0).
    alpha : dual point in [0, 1]^n (None for primal methods).
    primal, dual : P(w) and D(alpha) (dual is None for primal methods).
    gap : primal - dual, a certificate that P(w) - P* <= gap (None for primal methods).
    n_iter : iterations performed.
    converged : whether the stopping rule was met.
    history : per-iteration dict of lists: primal, dual, gap, seconds.
    """

    w: np.ndarray
    alpha: np.ndarray | None
    primal: float
    dual: float | None
    gap: float | None
    n_iter: int
    converged: bool
    history: dict = field(default_factory=dict)
