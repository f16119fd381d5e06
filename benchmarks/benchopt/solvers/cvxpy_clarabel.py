"""cvxpy with Clarabel on the primal QP (slacks xi_i >= 0, xi_i >= 1 - y_i <x_i, w>, sign bounds),
Clarabel's gap and feasibility tolerances set to the decreasing ``tol``; the time includes
cvxpy's compilation, as a user pays it."""

import cvxpy as cp
import numpy as np
from benchopt import BaseSolver


class Solver(BaseSolver):
    name = "cvxpy-clarabel"
    requirements = ["pip::cvxpy", "pip::clarabel"]
    sampling_strategy = "tolerance"

    def set_objective(self, X, y, lam, sign):
        self.X, self.y, self.lam, self.sign = X, y, lam, sign

    def get_next(self, stop_val):
        return max(min(1.0, stop_val / 10.0), 1e-10)

    def run(self, tol):
        X, y, sign = self.X, self.y, self.sign
        n, d = X.shape
        w, xi = cp.Variable(d), cp.Variable(n)
        cons = [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)]
        if np.any(sign > 0):
            cons.append(w[np.flatnonzero(sign > 0)] >= 0)
        if np.any(sign < 0):
            cons.append(w[np.flatnonzero(sign < 0)] <= 0)
        prob = cp.Problem(cp.Minimize(self.lam / 2 * cp.sum_squares(w) + cp.sum(xi) / n), cons)
        t = float(min(tol, 1.0))
        try:
            prob.solve(solver="CLARABEL", tol_gap_abs=t, tol_gap_rel=t, tol_feas=t, max_iter=500)
            self.w = np.asarray(w.value, float) if w.value is not None else np.zeros(d)
        except cp.error.SolverError:
            self.w = np.zeros(d)

    def get_result(self):
        return dict(w=self.w)
