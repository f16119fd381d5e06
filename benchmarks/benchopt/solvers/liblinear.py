"""liblinear (``LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1/(lam n))``),
``max_iter`` iterations; free sign pattern only."""

import warnings

import numpy as np
from benchopt import BaseSolver
from benchopt.stopping_criterion import SufficientProgressCriterion
from sklearn.svm import LinearSVC


class Solver(BaseSolver):
    name = "liblinear"
    requirements = ["pip::scikit-learn"]
    sampling_strategy = "iteration"
    stopping_criterion = SufficientProgressCriterion(eps=1e-12, patience=8, strategy="iteration")

    def skip(self, X, y, lam, sign):
        if np.any(sign != 0):
            return True, "liblinear has no sign constraints"
        return False, None

    def set_objective(self, X, y, lam, sign):
        self.X, self.y, self.lam = X, y, lam

    def get_next(self, stop_val):
        return max(2 * stop_val, stop_val + 1)

    def run(self, n_iter):
        if n_iter < 1:
            self.w = np.zeros(self.X.shape[1])
            return
        m = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1.0 / (self.lam * len(self.y)), tol=1e-15,
                      max_iter=int(n_iter), random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(self.X, self.y)
        self.w = m.coef_.ravel()

    def get_result(self):
        return dict(w=self.w)
