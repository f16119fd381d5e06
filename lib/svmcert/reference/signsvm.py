"""Reference solutions of the sign-constrained SVM (Tajima et al., eq. 4) with cvxpy.

Used as ground truth for duality, convergence and estimator checks; never called by a solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["PrimalReference", "solve_primal_cvxpy"]


@dataclass(frozen=True)
class PrimalReference:
    """cvxpy's optimum: weights, objective value P*, and the solver's status line."""

    w: np.ndarray
    value: float
    status: str


def solve_primal_cvxpy(X, y, lam, sign=None, solver: str = "CLARABEL", high_accuracy: bool = True,
                       weights=None) -> PrimalReference:
    """min_w lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>) s.t. sign_h w_h >= 0.

    ``weights`` are the s_i >= 0 (default all 1, the paper's problem). X may be a scipy.sparse
    matrix. Written as a QP with slack variables xi_i >= 0, xi_i >= 1 - y_i <x_i, w>. With
    ``high_accuracy`` Clarabel's gap and feasibility tolerances are tightened to 1e-10, so the
    returned value is within about 1e-9 (relative) of the true optimum. The objective value is
    recomputed from the returned w (not taken from the solver), so it is an upper bound on P*.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.
    solver : str
        A cvxpy solver name.
    high_accuracy : bool
        Tighten Clarabel's tolerances to 1e-10.

    Returns
    -------
    PrimalReference

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.reference import solve_primal_cvxpy
    >>> from svmcert.signsvm import solve
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3)); y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(50))
    >>> ref = solve_primal_cvxpy(X, y, lam=0.1, sign=[1, 0, -1])
    >>> res = solve(X, y, lam=0.1, sign=[1, 0, -1])
    >>> bool(abs(ref.value - res.primal) <= 1e-6 * ref.value), ref.status
    (True, 'cvxpy/CLARABEL: optimal')
    """
    cp = require("cvxpy", "reference")

    X = X.astype(float) if hasattr(X, "tocsr") else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    s = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    sign = np.zeros(d) if sign is None else np.asarray(sign, dtype=float)
    w = cp.Variable(d)
    xi = cp.Variable(n)
    constraints = [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)]
    if np.any(sign > 0):
        constraints.append(w[np.flatnonzero(sign > 0)] >= 0)
    if np.any(sign < 0):
        constraints.append(w[np.flatnonzero(sign < 0)] <= 0)
    risk = cp.sum(xi) / n if weights is None else s @ xi / n
    problem = cp.Problem(cp.Minimize(lam / 2 * cp.sum_squares(w) + risk), constraints)
    opts = {}
    if high_accuracy and solver == "CLARABEL":
        opts = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500)
    problem.solve(solver=solver, **opts)
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} did not solve the primal: status {problem.status}")
    w_val = np.asarray(w.value, dtype=float)
    w_val[(sign > 0) & (w_val < 0)] = 0.0  # remove feasibility residue of the interior-point solution
    w_val[(sign < 0) & (w_val > 0)] = 0.0
    value = lam / 2 * float(w_val @ w_val) + float((s * np.maximum(0.0, 1.0 - y * np.asarray(X @ w_val))).mean())
    return PrimalReference(w_val, value, f"cvxpy/{solver}: {problem.status}")
