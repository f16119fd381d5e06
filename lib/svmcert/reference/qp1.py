"""References for Part III's small problems (QP1, LO): cvxpy, scipy's linprog, scikit-learn's SVC.

Ground truth only: never called by :mod:`svmcert.featelim`; written from the problem statement
with its own code.

- :func:`solve_qp1_cvxpy`: eq. (6) as stated, variables ``(a, b, xi)``, Clarabel.
- :func:`solve_qp1_svc`: the equivalent 1-D soft-margin SVM on ``z_n = g_n / sqrt(W)`` (LIBSVM
  through scikit-learn), mapped back with ``a = w_1d / sqrt(W)``.
- :func:`solve_lo_linprog`: LO (eq. 5) as two LPs, ``min a`` over ``a >= 0`` and ``max a`` over
  ``a <= 0`` (the notes' "LP min a" reading and its mirror).

Every function returns the objective recomputed at the returned ``(a, b)`` with the slacks
``max(0, 1 - y (a g + b))``, so a reference value is an upper bound on the optimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["QP1Reference", "solve_qp1_cvxpy", "solve_qp1_svc", "solve_lo_linprog"]


@dataclass(frozen=True)
class QP1Reference:
    a: float
    b: float
    objective: float
    status: str


def _objective(a, b, g, y, C, wnorm2):
    return 0.5 * wnorm2 * a * a + C * float(np.maximum(0.0, 1.0 - y * (a * g + b)).sum())


def solve_qp1_cvxpy(g, y, C, wnorm2, solver: str = "CLARABEL") -> QP1Reference:
    """QP1 (eq. 6) with cvxpy; tight Clarabel tolerances (1e-10)."""
    cp = require("cvxpy", "reference")
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    a, b = cp.Variable(), cp.Variable()
    xi = cp.Variable(g.shape[0])
    cons = [cp.multiply(y, a * g + b) >= 1 - xi, xi >= 0]
    prob = cp.Problem(cp.Minimize(0.5 * wnorm2 * cp.square(a) + C * cp.sum(xi)), cons)
    kw = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500) if solver == "CLARABEL" else {}
    prob.solve(solver=solver, **kw)
    av, bv = float(a.value), float(b.value)
    return QP1Reference(av, bv, _objective(av, bv, g, y, C, wnorm2), prob.status)


def solve_qp1_svc(g, y, C, wnorm2, tol: float = 1e-12) -> QP1Reference:
    """QP1 as a 1-D soft-margin SVM: ``SVC(kernel="linear", C)`` on ``z = g / sqrt(W)``."""
    from sklearn.svm import SVC
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    scale = np.sqrt(wnorm2)
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    clf = SVC(kernel="linear", C=C, tol=tol, max_iter=10 ** 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf.fit((g / scale)[:, None], y)
    status = "max_iter" if any(issubclass(w.category, ConvergenceWarning) for w in caught) else "optimal"
    w1d = float(clf.coef_[0, 0])
    av, bv = w1d / scale, float(clf.intercept_[0])
    return QP1Reference(av, bv, _objective(av, bv, g, y, C, wnorm2), status)


def solve_lo_linprog(g, y):
    """LO by linear programming: returns ``(feasible, a, b)`` with the smallest ``|a|``."""
    from scipy.optimize import linprog
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    best = None
    for sign in (1.0, -1.0):
        # variables (a, b); minimise sign * a subject to -y (a g + b) <= -1 and sign * a >= 0
        A_ub = np.column_stack([-y * g, -y])
        res = linprog(c=[sign, 0.0], A_ub=A_ub, b_ub=-np.ones_like(g),
                      bounds=[(0, None) if sign > 0 else (None, 0), (None, None)], method="highs")
        if res.status == 0 and (best is None or abs(res.x[0]) < abs(best[0])):
            best = (float(res.x[0]), float(res.x[1]))
    if best is None:
        return False, float("nan"), float("nan")
    return True, best[0], best[1]
