"""The front door: ``solve(X, y, lam, sign)`` picks a certified solver for the sign-constrained SVM."""

from __future__ import annotations

from .._validation import check_two_classes, check_X_y
from .coordinate_ascent import dual_coordinate_ascent
from .frank_wolfe import frank_wolfe
from .result import SolverResult

__all__ = ["SOLVERS", "solve"]

SOLVERS = ("auto", "dual-coordinate", "frank-wolfe")


def solve(X, y, lam, sign=None, solver: str = "auto", tol: float = 1e-6, **options) -> SolverResult:
    """Solve problem (4) of Tajima et al. to a certified relative duality gap.

    Parameters
    ----------
    X : (n, d) samples as rows; y : (n,) labels +-1, both classes present (the algorithms
        themselves, :func:`dual_coordinate_ascent` and :func:`frank_wolfe`, also accept one class:
        without an intercept that problem is well posed, and the book uses it for counterexamples);
        lam : lambda > 0.
    sign : (d,) entries in {-1, 0, +1} (+1: w_h >= 0, -1: w_h <= 0, 0: free); default all free.
    solver : ``"auto"`` (currently dual coordinate ascent with exact steps, the fastest certified
        solver measured here), ``"dual-coordinate"`` or ``"frank-wolfe"`` (Algorithm 1).
    tol : relative duality gap (P(w) - D(alpha)) / P(w) at which to stop; by eq. (10) it bounds the
        relative primal error.
    options : passed to the chosen solver (e.g. ``max_epochs``, ``max_iter``, ``seed``).

    Returns
    -------
    SolverResult
        ``w``, ``alpha``, ``primal``, ``dual``, ``gap``, ``n_iter``, ``converged``, ``history``.
        A solver that stops at its iteration limit warns (:class:`ConvergenceWarning`) and sets
        ``converged=False``.
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver: expected one of {SOLVERS}, got {solver!r}")
    X, y = check_X_y(X, y)
    check_two_classes(y)
    if solver in ("auto", "dual-coordinate"):
        return dual_coordinate_ascent(X, y, lam, sign, tol=tol, **options)
    return frank_wolfe(X, y, lam, sign, tol=tol, **options)
