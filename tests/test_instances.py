"""Instances come from the seed and their own key: no solver, and no other instance, can move them."""

import numpy as np
import pytest

from svmcert.experiments.safe_screening import gap_safe_ball as gap_safe
from svmcert.experiments.instances import InstanceStreams, instance_rng, key_words

INSTANCE_COLUMNS = ["data", "kernel", "loss", "n", "lam", "weights_sum", "zero_weights"]


def test_keyed_streams_are_stable_and_independent():
    first = instance_rng(3, "weights", "heart", "rbf").standard_normal(5)
    for _ in range(3):  # other keys draw any amount in between
        instance_rng(3, "weights", "sonar", "rbf").standard_normal(1000)
    assert np.array_equal(instance_rng(3, "weights", "heart", "rbf").standard_normal(5), first)
    assert not np.array_equal(instance_rng(4, "weights", "heart", "rbf").standard_normal(5), first)
    assert not np.array_equal(instance_rng(3, "weights", "heart", "linear").standard_normal(5), first)
    assert key_words("a", 1) == key_words("a", 1) != key_words("a", "1 ")
    assert np.array_equal(InstanceStreams(3)("weights", "heart", "rbf").standard_normal(5), first)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "0"])
def test_seed_is_validated(seed):
    with pytest.raises(ValueError, match="seed"):
        instance_rng(seed, "x")


def test_gap_safe_instances_do_not_depend_on_the_solver_path(monkeypatch):
    """The reference solves stop after a few epochs in the second run: every instance is the same."""
    args = dict(datasets_used=["heart"], kernels=["linear"], checkpoints=[1, 2], seed=0, n_perturb=2)
    *_, full = gap_safe.run_instances(**args)
    real = gap_safe.fit_weighted_svm

    def capped(*a, **kw):
        kw["max_epochs"] = min(kw.get("max_epochs", 10 ** 6), 3)
        return real(*a, **kw)

    monkeypatch.setattr(gap_safe, "fit_weighted_svm", capped)
    *_, short = gap_safe.run_instances(**args)
    assert (short["reference_epochs"] < full["reference_epochs"]).all()   # the solver path did change
    assert short[INSTANCE_COLUMNS].equals(full[INSTANCE_COLUMNS])
