"""Two Gaussian classes N(+u, I) and N(-u, I), ||u|| = 1 (u = e_1), from a keyed stream."""

import numpy as np
from benchopt import BaseDataset
from svmcert.experiments.instances import instance_rng


class Dataset(BaseDataset):
    name = "simulated"
    requirements = []
    parameters = {"n_samples": [2000], "n_features": [50]}
    test_parameters = {"n_samples": [200], "n_features": [10]}

    def get_data(self):
        n, d = self.n_samples, self.n_features
        rng = instance_rng(0, "benchopt", "gaussian", n, d)
        y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
        X = rng.standard_normal((n, d))
        X[:, 0] += y
        return dict(X=X, y=y, name=f"gaussian-{n}-{d}")
