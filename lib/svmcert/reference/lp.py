"""Reference solutions of the Frank-Wolfe direction-finding LP (Tajima et al., eq. 13).

The LP is max <g, u> over u in [0, 1]^n, with g the gradient of the dual objective. Two
general-purpose solvers answer it: cvxpy with Clarabel (an interior-point conic solver) and
scipy's ``linprog`` with HiGHS (dual simplex, or interior point without presolve).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["BoxLPSolution", "dual_gradient_reference", "solve_box_lp_cvxpy", "solve_box_lp_linprog"]


@dataclass(frozen=True)
class BoxLPSolution:
    """Solution of max <g, u> over the unit cube: the point, its objective value, solver status."""

    u: np.ndarray
    value: float
    status: str


def dual_gradient_reference(alpha, X, y, lam, sign=None) -> np.ndarray:
    """Gradient of D(alpha) written out independently of :mod:`svmcert.signsvm`.

    omega = sum_i alpha_i y_i x_i / (lam n); w_h = max(omega_h, 0) where w_h >= 0 is required,
    min(omega_h, 0) where w_h <= 0 is required, omega_h otherwise; g_i = (1 - y_i <x_i, w>) / n.

    Parameters
    ----------
    alpha : array of shape (n,)
        Dual point in [0, 1]^n.
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.reference import dual_gradient_reference
    >>> from svmcert.signsvm import dual_gradient
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 3)); y = np.sign(rng.standard_normal(20)); alpha = rng.random(20)
    >>> g = dual_gradient_reference(alpha, X, y, lam=0.5, sign=[1, 0, -1])
    >>> bool(np.allclose(g, dual_gradient(alpha, X, y, 0.5, [1, 0, -1]), rtol=1e-12, atol=1e-15))
    True
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    n, d = X.shape
    sign = np.zeros(d) if sign is None else np.asarray(sign, dtype=float)
    omega = (alpha * y) @ X / (lam * n)
    w = omega.copy()
    w[sign > 0] = np.maximum(omega[sign > 0], 0.0)
    w[sign < 0] = np.minimum(omega[sign < 0], 0.0)
    return (1.0 - y * (X @ w)) / n


def solve_box_lp_cvxpy(g, solver: str = "CLARABEL") -> BoxLPSolution:
    """max <g, u> s.t. 0 <= u <= 1 with cvxpy (default solver Clarabel).

    Parameters
    ----------
    g : array of shape (n,)
        The objective, e.g. the gradient of the dual at the current point.
    solver : str
        A cvxpy solver name.

    Returns
    -------
    BoxLPSolution
        The point ``u``, its objective ``value`` and the solver's ``status`` line.

    Examples
    --------
    >>> from svmcert.reference import solve_box_lp_cvxpy
    >>> sol = solve_box_lp_cvxpy([0.5, -1.0, 2.0])
    >>> sol.u.round(6), round(sol.value, 6)
    (array([1., 0., 1.]), 2.5)
    """
    cp = require("cvxpy", "reference")

    g = np.asarray(g, dtype=float)
    u = cp.Variable(g.shape[0])
    problem = cp.Problem(cp.Maximize(g @ u), [u >= 0, u <= 1])
    problem.solve(solver=solver)
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} did not solve the box LP: status {problem.status}")
    return BoxLPSolution(np.asarray(u.value, dtype=float), float(problem.value), f"cvxpy/{solver}: {problem.status}")


def solve_box_lp_linprog(g, method: str = "highs-ds", presolve: bool = True) -> BoxLPSolution:
    """max <g, u> s.t. 0 <= u <= 1 with ``scipy.optimize.linprog`` (HiGHS).

    ``presolve=False`` keeps HiGHS from recognising that the box LP separates, so that the cost
    of a general-purpose LP solve is what gets measured.

    Parameters
    ----------
    g : array of shape (n,)
        The objective.
    method : str
        A HiGHS method of ``linprog`` (``"highs-ds"``: dual simplex; ``"highs-ipm"``: interior
        point).
    presolve : bool

    Returns
    -------
    BoxLPSolution

    Examples
    --------
    >>> from svmcert.reference import solve_box_lp_linprog
    >>> sol = solve_box_lp_linprog([0.5, -1.0, 2.0])
    >>> sol.u, sol.value
    (array([1., 0., 1.]), 2.5)
    """
    from scipy.optimize import linprog

    g = np.asarray(g, dtype=float)
    res = linprog(-g, bounds=[(0.0, 1.0)] * g.shape[0], method=method, options={"presolve": presolve})
    if res.status != 0:
        raise RuntimeError(f"linprog/{method} did not solve the box LP: {res.message}")
    return BoxLPSolution(np.asarray(res.x, dtype=float), float(g @ res.x), f"linprog/{method}: {res.message}")
