"""svmcert's interior-point method (``solve(solver="interior-point")``), decreasing relative-gap tolerance."""

import warnings

from benchopt import BaseSolver
from svmcert import signsvm


class Solver(BaseSolver):
    name = "svmcert-interior-point"
    requirements = []
    sampling_strategy = "tolerance"

    def set_objective(self, X, y, lam, sign):
        self.X, self.y, self.lam, self.sign = X, y, lam, sign

    def warm_up(self):
        self.run(1e-3)

    def get_next(self, stop_val):
        return max(min(1.0, stop_val / 10.0), 1e-12)

    def run(self, tol):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.res = signsvm.solve(self.X, self.y, self.lam, self.sign, solver="interior-point", tol=min(tol, 1.0))

    def get_result(self):
        return dict(w=self.res.w)
