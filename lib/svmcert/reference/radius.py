"""cvxpy and brute-force references for the data radius of Aksu (eq. (9) and the squared diameter "ER").

Ground truth only: never called by :mod:`svmcert.featelim`. Written with its own code (no import
from the library), so a mistake in the library cannot leak into its reference.

- :func:`sphere_dual_cvxpy`: eq. (9), max sum_i beta_i K_ii - beta^T K beta over the simplex, as a
  QP in cvxpy (Clarabel), through a factor K = F F^T so that beta^T K beta = ||F^T beta||^2.
- :func:`sphere_primal_cvxpy`: the minimum enclosing ball itself, min r s.t. ||x_i - c|| <= r, an
  SOCP in cvxpy for explicit points X.
- :func:`squared_diameter_bruteforce`: max over all pairs of ||x_i - x_j||^2, one row at a time.

Both cvxpy references return *rigorous* numbers besides the solver's value: the dual objective at
the solver's beta after clipping it onto the simplex (a lower bound on R^2), and the primal
max_i ||x_i - c||^2 at the solver's centre c (an upper bound on R^2: any centre gives one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["SphereReference", "sphere_dual_cvxpy", "sphere_primal_cvxpy", "squared_diameter_bruteforce",
           "gram_factor"]

# Clarabel's stopping tolerances (defaults 1e-8). The QP reaches 1e-10 with status "optimal" on every
# data set of the book; the SOCP stops at "optimal_inaccurate" below 1e-9, so it is asked for 1e-9.
_TIGHT_QP = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500)
_TIGHT_SOCP = dict(tol_gap_abs=1e-9, tol_gap_rel=1e-9, tol_feas=1e-9, max_iter=500)


@dataclass(frozen=True)
class SphereReference:
    """A reference R^2: ``value`` is the bound recomputed at the solver's point (lower bound from the
    dual, upper bound from the primal), ``solver_value`` the objective the solver reported, ``point``
    its beta (dual) or centre (primal), ``status`` cvxpy's status."""

    value: float
    solver_value: float
    point: np.ndarray
    status: str


def gram_factor(K) -> np.ndarray:
    """F with F F^T = K after moving the points to their mean (H K H, H = I - 11^T/n, which leaves
    eq. (9) unchanged on the simplex) and setting negative eigenvalues to zero."""
    K = np.asarray(K, dtype=float)
    K = 0.5 * (K + K.T)
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    vals, vecs = np.linalg.eigh(H @ K @ H)
    keep = vals > 0
    return vecs[:, keep] * np.sqrt(vals[keep])


def _solve(prob, solver, tight):
    opts = tight if solver == "CLARABEL" else {}
    prob.solve(solver=solver, **opts)
    return prob.status


def sphere_dual_cvxpy(K=None, *, X=None, solver: str = "CLARABEL") -> SphereReference:
    """Eq. (9) as a QP: max_beta sum_i beta_i ||f_i||^2 - ||F^T beta||^2 s.t. beta >= 0, 1^T beta = 1.

    Give the Gram matrix ``K`` (factored by :func:`gram_factor`) or the points ``X`` (rows; moved
    to their mean, F = X - mean). The objective is divided by max_i ||f_i||^2 for the solver and
    scaled back. ``value`` = the objective at the solver's beta clipped to >= 0 and renormalised,
    evaluated in numpy: a lower bound on R^2 up to rounding.
    """
    cp = require("cvxpy", "reference")

    if (K is None) == (X is None):
        raise ValueError("sphere_dual_cvxpy: give exactly one of K or X")
    if X is not None:
        X = np.asarray(X, dtype=float)
        F = X - X.mean(axis=0)
    else:
        F = gram_factor(K)
    n = F.shape[0]
    sq = np.einsum("ij,ij->i", F, F)
    scale = float(sq.max()) if F.size and sq.max() > 0 else 1.0
    if n == 1 or F.shape[1] == 0 or sq.max() == 0:
        return SphereReference(0.0, 0.0, np.full(n, 1.0 / n), "trivial (all points equal)")
    Fs, sqs = F / np.sqrt(scale), sq / scale
    beta = cp.Variable(n, nonneg=True)
    prob = cp.Problem(cp.Maximize(sqs @ beta - cp.sum_squares(Fs.T @ beta)), [cp.sum(beta) == 1])
    status = _solve(prob, solver, _TIGHT_QP)
    b = np.maximum(np.asarray(beta.value, dtype=float), 0.0)
    b /= b.sum()
    c = F.T @ b
    value = float(b @ sq - c @ c)
    return SphereReference(value, float(prob.value) * scale, b, status)


def sphere_primal_cvxpy(X, *, solver: str = "CLARABEL") -> SphereReference:
    """The minimum enclosing ball as an SOCP: min r s.t. ||x_i - c|| <= r for every row x_i of X.

    Solved for the points moved to their mean and divided by their largest norm; ``value`` =
    max_i ||x_i - c||^2 at the solver's centre c (mapped back), an upper bound on R^2 since every
    centre gives one; ``solver_value`` = r^2 as reported; ``point`` = c in the original coordinates.
    """
    cp = require("cvxpy", "reference")

    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    Z = X - mean
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    if X.shape[0] == 1 or norms.max() == 0:
        return SphereReference(0.0, 0.0, mean, "trivial (all points equal)")
    s = float(norms.max())
    Zs = Z / s
    c = cp.Variable(X.shape[1])
    r = cp.Variable()
    prob = cp.Problem(cp.Minimize(r), [cp.norm(Zs - cp.reshape(c, (1, X.shape[1]), order="C"), 2, axis=1) <= r])
    status = _solve(prob, solver, _TIGHT_SOCP)
    center = np.asarray(c.value, dtype=float) * s
    value = float(np.max(np.sum((Z - center) ** 2, axis=1)))
    return SphereReference(value, float(r.value) ** 2 * s * s, center + mean, status)


def squared_diameter_bruteforce(X) -> float:
    """max_{i<j} ||x_i - x_j||^2 by direct differences, one point against all later ones."""
    X = np.asarray(X, dtype=float)
    best = 0.0
    for i in range(X.shape[0] - 1):
        diff = X[i + 1:] - X[i]
        best = max(best, float(np.max(np.sum(diff * diff, axis=1))))
    return best
