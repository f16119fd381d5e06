"""DRSSS (Theorem 3.5, eq. 11): the gap quadratic against a direct primal - dual evaluation, the
support reduction against the full maximisation, and safety against fits at random weights."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.screening import weighted_svm as ws
from svmcert.screening.drsss import drsss, drsss_screen, gap_quadratic, max_gap_on_ball


def _problem(seed, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.standard_normal((n, d)), np.ones((n, 1))])   # intercept as a regularised feature
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y, X @ X.T, rng


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["hinge", "squared_hinge"]))
def test_gap_quadratic_is_the_duality_gap_of_every_weight(seed, loss):
    X, y, K, rng = _problem(seed)
    n = len(y)
    lam = float(10 ** rng.uniform(-1, 1.5))
    wt = rng.uniform(0.5, 1.5, n)
    fit = ws.fit_weighted_svm(K, y, lam, wt, loss, tol=1e-8)
    q = gap_quadratic(K, y, lam, wt, fit.alpha, loss)
    beta = ws.weights_from_dual(fit.alpha, X, y, lam, wt)
    for _ in range(3):
        w = np.maximum(wt + 0.3 * rng.standard_normal(n), 0.0)
        direct = ws.linear_primal_objective(beta, X, y, lam, w, loss) - ws.linear_dual_objective(fit.alpha, X, y, lam, w, loss)
        assert q.value(w) == pytest.approx(direct, rel=1e-9, abs=1e-9)
    assert q.value(wt) == pytest.approx(fit.gap, rel=1e-6, abs=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_support_reduction_equals_full_maximisation(seed):
    X, y, K, rng = _problem(seed, n=60)
    n = len(y)
    wt = np.ones(n)
    fit = ws.fit_weighted_svm(K, y, 3.0, wt, tol=1e-10)
    q = gap_quadratic(K, y, 3.0, wt, fit.alpha)
    assert np.count_nonzero(fit.alpha) < n   # the reduction has something to remove
    for S in (0.05, 0.5, 3.0):
        full = max_gap_on_ball(q, wt, S, fit.alpha, reduce=False)
        red = max_gap_on_ball(q, wt, S, fit.alpha, reduce=True)
        assert red == pytest.approx(full, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_screened_samples_stay_inactive_for_random_weights_in_the_ball(seed):
    X, y, K, rng = _problem(seed, n=50)
    n = len(y)
    wt, lam, S = np.ones(n), 2.0, 0.3
    res = drsss(K, y, lam, wt, S)
    assert res.removable.any()          # otherwise the test would not test anything
    for _ in range(10):
        d = rng.standard_normal(n)
        w = np.maximum(wt + S * rng.uniform() * d / np.linalg.norm(d), 0.0)
        fit = ws.fit_weighted_svm(K, y, lam, w, tol=1e-12)
        # alpha*_i = 0 for screened samples: their exact margins exceed 1 (link 7)
        assert np.all(fit.margins[res.removable] > 1.0 - 1e-9)
    np.testing.assert_array_equal(drsss_screen(K, y, lam, wt, S), res.removable)


def test_bad_radius():
    X, y, K, _ = _problem(0)
    with pytest.raises(ValueError, match="^S:"):
        drsss_screen(K, y, 1.0, np.ones(len(y)), 0.0)
