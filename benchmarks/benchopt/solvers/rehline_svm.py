"""ReHLine (``plq_Ridge_Classifier(loss={"name": "svm"}, fit_intercept=False, C=1/(lam n))``),
``max_iter`` iterations; sign constraints as ``{"name": "nonnegative"}`` when all are +1, else
the custom constraint A w >= 0 with one row sign_h e_h per constrained feature."""

import warnings

import numpy as np
from benchopt import BaseSolver
from benchopt.stopping_criterion import SufficientProgressCriterion
from rehline import plq_Ridge_Classifier


class Solver(BaseSolver):
    name = "rehline"
    requirements = ["pip::rehline"]
    sampling_strategy = "iteration"
    stopping_criterion = SufficientProgressCriterion(eps=1e-12, patience=8, strategy="iteration")

    def set_objective(self, X, y, lam, sign):
        self.X, self.y, self.lam, self.sign = X, y, lam, sign
        rows = np.flatnonzero(sign)
        if rows.size == sign.size and np.all(sign == 1):
            self.constraint = [{"name": "nonnegative"}]
        elif rows.size:
            A = np.zeros((rows.size, sign.size))
            A[np.arange(rows.size), rows] = sign[rows]
            self.constraint = [{"name": "custom", "A": A, "b": np.zeros(rows.size)}]
        else:
            self.constraint = None

    def warm_up(self):
        self.run(2)

    def get_next(self, stop_val):
        return max(2 * stop_val, stop_val + 1)

    def run(self, n_iter):
        if n_iter < 1:
            self.w = np.zeros(self.X.shape[1])
            return
        m = plq_Ridge_Classifier(loss={"name": "svm"}, constraint=self.constraint, C=1.0 / (self.lam * len(self.y)),
                                 fit_intercept=False, tol=1e-15, max_iter=int(n_iter))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(self.X, self.y)
        self.w = np.asarray(m.coef_, float).ravel()

    def get_result(self):
        return dict(w=self.w)
