"""cvxpy references for the weighted problems of Hanada et al. (eqs. 2 and 4, rho = lam/2 ||beta||^2).

Ground truth only: never called by :mod:`svmcert.screening`. Written from the paper with its own
code (no import from the library), so a mistake in the library cannot leak into its reference.

- :func:`solve_weighted_primal_cvxpy`: eq. (2) with explicit features X (rows phi(x_i)).
- :func:`solve_weighted_dual_cvxpy`: eq. (4) for a Gram matrix K, through a factor K = F F^T
  (eigendecomposition, eigenvalues below zero set to zero), so
  ||sum_i w_i alpha_i y_i phi(x_i)||^2 = ||F^T (w * alpha * y)||^2 is a sum of squares.
- :func:`kernel_factor`: that factor; the primal of a kernel problem is the explicit problem on F.

Both recompute the objective at the returned point (after removing the interior-point residue
from the constraints), so the primal value is an upper bound on P* and the dual value a lower
bound on D* = P*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["WeightedPrimalReference", "WeightedDualReference", "kernel_factor",
           "solve_weighted_primal_cvxpy", "solve_weighted_dual_cvxpy"]

_TIGHT = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500)


@dataclass(frozen=True)
class WeightedPrimalReference:
    """cvxpy's primal point beta and P_w(beta) recomputed from it."""

    beta: np.ndarray
    value: float
    status: str


@dataclass(frozen=True)
class WeightedDualReference:
    """cvxpy's dual point alpha (inside the domain of Table 5) and D_w(alpha) recomputed from it."""

    alpha: np.ndarray
    value: float
    status: str


def kernel_factor(K) -> np.ndarray:
    """F (n x n) with F F^T = K up to the negative eigenvalues of K, which are set to zero.

    Every eigenvector keeps its column (a zero column for a non-positive eigenvalue): which of the
    tiny eigenvalues of a kernel matrix come out positive is decided by rounding, so dropping them
    would make the number of features depend on the machine.
    """
    K = np.asarray(K, dtype=float)
    vals, vecs = np.linalg.eigh(0.5 * (K + K.T))
    return vecs * np.sqrt(np.maximum(vals, 0.0))


def _loss_sum(m, w, loss):
    h = np.maximum(0.0, 1.0 - m)
    return float(w @ (h if loss == "hinge" else h * h))


def solve_weighted_primal_cvxpy(X, y, lam, weights, loss: str = "hinge", solver: str = "CLARABEL",
                                high_accuracy: bool = True) -> WeightedPrimalReference:
    """min_beta sum_i w_i l(y_i x_i^T beta) + lam/2 ||beta||^2 (eq. 2), l hinge or squared hinge."""
    cp = require("cvxpy", "reference")

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.asarray(weights, dtype=float)
    beta = cp.Variable(X.shape[1])
    slack = cp.pos(1 - cp.multiply(y, X @ beta))
    risk = w @ slack if loss == "hinge" else w @ cp.square(slack)
    problem = cp.Problem(cp.Minimize(risk + lam / 2 * cp.sum_squares(beta)))
    problem.solve(solver=solver, **(_TIGHT if high_accuracy and solver == "CLARABEL" else {}))
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} did not solve the weighted primal: status {problem.status}")
    b = np.asarray(beta.value, dtype=float)
    value = _loss_sum(y * (X @ b), w, loss) + lam / 2 * float(b @ b)
    return WeightedPrimalReference(b, value, f"cvxpy/{solver}: {problem.status}")


def solve_weighted_dual_cvxpy(K, y, lam, weights, loss: str = "hinge", solver: str = "CLARABEL",
                              high_accuracy: bool = True, factor=None) -> WeightedDualReference:
    """max_alpha -sum_i w_i l*(-alpha_i) - ||F^T (w alpha y)||^2 / (2 lam) (eq. 4, K = F F^T).

    Conjugates from Table 5: -l*(-a) = a on [0, 1] (hinge), a - a^2/4 on a >= 0 (squared hinge).
    """
    cp = require("cvxpy", "reference")

    y = np.asarray(y, dtype=float)
    w = np.asarray(weights, dtype=float)
    F = kernel_factor(K) if factor is None else np.asarray(factor, dtype=float)
    alpha = cp.Variable(y.shape[0])
    lin = w @ alpha if loss == "hinge" else w @ alpha - cp.sum(cp.multiply(w / 4, cp.square(alpha)))
    cons = [alpha >= 0] + ([alpha <= 1] if loss == "hinge" else [])
    objective = lin - cp.sum_squares(F.T @ cp.multiply(w * y, alpha)) / (2 * lam)
    problem = cp.Problem(cp.Maximize(objective), cons)
    problem.solve(solver=solver, **(_TIGHT if high_accuracy and solver == "CLARABEL" else {}))
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} did not solve the weighted dual: status {problem.status}")
    a = np.clip(np.asarray(alpha.value, dtype=float), 0.0, 1.0 if loss == "hinge" else np.inf)
    v = F.T @ (w * y * a)
    neg_conj = a if loss == "hinge" else a - a * a / 4
    value = float(w @ neg_conj) - float(v @ v) / (2 * lam)
    return WeightedDualReference(a, value, f"cvxpy/{solver}: {problem.status}")
