"""LIBSVM sets and MNIST-5k from the offline mirror through ``svmcert.datasets.load_scaled``
(every feature divided by its largest |x|; MNIST-5k odd/even with unit rows)."""

from benchopt import BaseDataset
from svmcert import datasets


class Dataset(BaseDataset):
    name = "libsvm"
    requirements = []
    parameters = {"data": ["heart", "australian", "ionosphere", "svmguide1", "mnist5k"]}
    test_parameters = {"data": ["heart"]}

    def get_data(self):
        X, y = datasets.load_scaled(self.data)
        return dict(X=X, y=y, name=self.data)
