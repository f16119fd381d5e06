"""Decisions taken at near-ties are stable under rounding: a perturbation of the order of the
inputs' accuracy never changes a rank, an order, a feature count or the existence of a direction."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from svmcert.experiments.safe_screening.gap_safe_ball import null_direction
from svmcert.experiments.feature_elimination.data_radius import same_first, spearman, stable_order, tied_ranks
from svmcert.kernels import rbf_kernel
from svmcert.reference.weighted_svm import kernel_factor


def test_spearman_is_scipys_without_ties_and_ignores_rounding_level_differences(rng):
    a, b = rng.random(40), rng.random(40)
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic, abs=1e-14)
    tie = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    for wobble in (1e-13, -1e-13):                    # the two 2.0s in either order
        moved = tie.copy()
        moved[3] += wobble
        assert spearman(moved, np.arange(5.0)) == spearman(tie, np.arange(5.0))
        assert list(stable_order(moved)) == [1, 2, 3, 0, 4]
        assert list(tied_ranks(moved)) == [4.0, 1.0, 2.5, 2.5, 5.0]
    assert same_first(np.array([1.0, 1.0 + 1e-12, 3.0]), np.array([5.0, 2.0, 4.0]))


def test_kernel_factor_keeps_one_column_per_sample_whatever_the_rounding(rng):
    X = rng.standard_normal((60, 3))
    K = rbf_kernel(X)
    for noise in (0.0, 1e-15, -1e-15):
        E = noise * rng.standard_normal(K.shape)
        F = kernel_factor(K + 0.5 * (E + E.T))
        assert F.shape == (60, 60)
    np.testing.assert_allclose(F @ F.T, K, atol=1e-12)


def test_a_null_direction_exists_by_shape_alone(rng):
    F = np.hstack([kernel_factor(rbf_kernel(rng.standard_normal((30, 2)))), np.ones((30, 1))])
    e = null_direction(F)
    assert e is not None and np.linalg.norm(e) == pytest.approx(1.0) and np.linalg.norm(F @ e) < 1e-10
    assert null_direction(rng.standard_normal((30, 5))) is None
