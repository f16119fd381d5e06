"""The sign-constrained hinge SVM of Tajima et al. as a benchopt objective.

P(w) = lam/2 ||w||^2 + (1/n) sum_i max(0, 1 - y_i <x_i, w>) subject to sign_h w_h >= 0 for
every constrained feature h (``sign`` in {-1, 0, +1}^d), lam = lam_n / n. Solvers receive
(X, y, lam, sign) and return a weight vector ``w``; it is projected on the sign set before P is
evaluated (``violation`` reports how far outside it was).

``suboptimality`` is (P(w) - P*) / P* with P* the primal value of a certified
``svmcert.signsvm.solve`` at relative gap 1e-10 (computed once per data set in ``set_data``);
``p_star_gap`` is that solve's own relative gap, the uncertainty of P*. Iteration-budget solvers
double their budget between points (``get_next``) and stop after 8 points without progress
(benchopt's default, 3, stops projected gradient, which is not monotone, too early); tolerance
solvers divide their tolerance by 10.
"""

import numpy as np
from benchopt import BaseObjective
from svmcert import signsvm
from svmcert.experiments.instances import instance_rng


def sign_pattern(pattern, data, d):
    """free / nonneg / mixed (random {-1, 0, +1} from the keyed stream of benchmarks/convergence_grid.py)."""
    if pattern == "free":
        return np.zeros(d)
    if pattern == "nonneg":
        return np.ones(d)
    return instance_rng(0, "sign", data, "mixed").choice([-1.0, 0.0, 1.0], size=d)


class Objective(BaseObjective):
    name = "Sign-constrained hinge SVM"
    min_benchopt_version = "1.5"
    requirements = []
    parameters = {"lam_n": [1.0], "pattern": ["free", "mixed"]}
    test_config = {"dataset": {"name": "simulated", "n_samples": 200, "n_features": 10}}

    def set_data(self, X, y, name):
        self.X, self.y, self.data_name = X, y, name
        n, d = X.shape
        self.lam = self.lam_n / n
        self.sign = sign_pattern(self.pattern, name, d)
        ref = signsvm.solve(X, y, self.lam, self.sign, tol=1e-10)
        self.p_star, self.p_star_gap = ref.primal, ref.gap / ref.primal

    def get_objective(self):
        return dict(X=self.X, y=self.y, lam=self.lam, sign=self.sign)

    def evaluate_result(self, w):
        w = np.asarray(w, float).ravel()
        value = signsvm.primal_objective(signsvm.project_sign(w, self.sign), self.X, self.y, self.lam)
        return dict(value=value, suboptimality=(value - self.p_star) / self.p_star,
                    violation=float(np.max(np.maximum(0.0, -self.sign * w), initial=0.0)),
                    p_star=self.p_star, p_star_gap=self.p_star_gap)

    def get_one_result(self):
        return dict(w=np.zeros(self.X.shape[1]))
