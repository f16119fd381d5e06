"""svmcert's projected (sub)gradient method (eq. (6) of Tajima et al.), ``n_iter`` iterations."""

import warnings

import numpy as np
from benchopt import BaseSolver
from benchopt.stopping_criterion import SufficientProgressCriterion
from svmcert import signsvm


class Solver(BaseSolver):
    name = "svmcert-projected-gradient"
    requirements = []
    sampling_strategy = "iteration"
    stopping_criterion = SufficientProgressCriterion(eps=1e-12, patience=8, strategy="iteration")

    def set_objective(self, X, y, lam, sign):
        self.X, self.y, self.lam, self.sign = X, y, lam, sign

    def warm_up(self):
        self.run(2)

    def get_next(self, stop_val):
        return max(2 * stop_val, stop_val + 1)

    def run(self, n_iter):
        if n_iter < 1:
            self.w = np.zeros(self.X.shape[1])
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.w = signsvm.projected_gradient(self.X, self.y, self.lam, self.sign, n_iter=int(n_iter),
                                                record_history=False, tol=1e-15).w

    def get_result(self):
        return dict(w=self.w)
