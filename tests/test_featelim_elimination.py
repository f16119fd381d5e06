"""Elimination criteria (Aksu eqs. 5, 10-11, 15) against per-candidate recomputation, LO
feasibility against separability, leave-one-out counting, and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.featelim import (CRITERIA, candidate_projections, candidate_scores, eliminate_features, l1svm_bound,
                              linearly_separable, lo_scores, loo_errors, radius_margin_bound, radius_squared,
                              solve_lo, solve_qp1)
from svmcert.kernels import linear_kernel


def _data(rng, n=40, d=6, shift=1.5):
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1, -1]
    X = rng.normal(size=(n, d))
    X[:, 0] += shift * y
    return X, y


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(2, 30), d=st.integers(1, 6), shift=st.floats(0, 4))
def test_lo_scores_equal_solve_lo_per_column(seed, n, d, shift):
    rng = np.random.default_rng(seed)
    X, y = _data(rng, n, d, shift)
    w = rng.normal(size=d)
    G, W = candidate_projections(X, w)
    vec = lo_scores(G, y, np.maximum(W, 1e-12))
    for m in range(d):
        keep = np.arange(d) != m
        np.testing.assert_allclose(G[:, m], X[:, keep] @ w[keep], rtol=1e-12, atol=1e-12)
        lo = solve_lo(G[:, m], y, max(W[m], 1e-12))
        if lo.feasible:
            assert vec[m] == pytest.approx(lo.wnorm2_after, rel=1e-12)
            # a feasible LO is a separating direction: the data without m are separable
            assert linearly_separable(X[:, keep], y) if d > 1 else True
        else:
            assert vec[m] == np.inf


def test_hbmfe_scores_are_radius_times_lo():
    rng = np.random.default_rng(1)
    X, y = _data(rng, 30, 5, 3.0)
    w = rng.normal(size=5)
    w[0] = 3.0
    G, W = candidate_projections(X, w)
    lo = lo_scores(G, y, W)
    for crit, method in (("hbmfe-lo-sphere", "sphere"), ("hbmfe-lo-er", "diameter")):
        s, info = candidate_scores(X, y, w, crit)
        for m in range(5):
            r2 = radius_squared(linear_kernel(np.delete(X, m, axis=1)), method=method)
            if np.isfinite(lo[m]):
                assert s[m] == pytest.approx(r2 * lo[m], rel=1e-8)
            else:
                assert s[m] == np.inf
        assert info["n_infeasible"] == int(np.isinf(lo).sum())


def test_qp1_criterion_matches_direct_evaluation():
    rng = np.random.default_rng(2)
    X, y = _data(rng, 25, 4, 1.0)
    w = rng.normal(size=4)
    grid = [10.0, 1.0, 0.1]
    s, info = candidate_scores(X, y, w, "qp1-lnm3-er", C_grid=grid)
    G, W = candidate_projections(X, w)
    for m in range(4):
        r2 = radius_squared(linear_kernel(np.delete(X, m, axis=1)), method="diameter")
        vals = []
        for C in grid:
            q = solve_qp1(G[:, m], y, C, W[m])
            vals.append((r2 + 1 / C) * (q.a ** 2 * W[m] + 2 * C * q.xi.sum()))
        assert s[m] == pytest.approx(min(vals), rel=1e-9)
        assert info["best_C"][m] == grid[int(np.argmin(vals))]


@pytest.mark.parametrize("criterion", CRITERIA)
def test_eliminate_features_removes_every_feature_once(criterion):
    rng = np.random.default_rng(3)
    X, y = _data(rng, 40, 5, 2.0)
    res = eliminate_features(X, y, criterion, n_keep=1, C=10.0, C_grid=(1.0, 0.1))
    assert sorted(res.order + res.remaining) == list(range(5))
    assert len(res.steps) == 4 and [s.n_features for s in res.steps] == [5, 4, 3, 2]
    for s in res.steps:
        assert np.isfinite(s.score)
        if criterion in ("mfe-lo", "hbmfe-lo-sphere", "hbmfe-lo-er"):
            assert s.fallback == (s.n_infeasible == s.n_features)


def test_not_separable_means_every_lo_candidate_infeasible():
    rng = np.random.default_rng(4)
    X, y = _data(rng, 40, 4, 0.0)
    X[0], X[1] = X[2], X[2]                 # the same point with both labels: never separable
    y[2] = 1.0
    assert not linearly_separable(X, y)
    res = eliminate_features(X, y, "mfe-lo", n_keep=2, C=1.0)
    assert all(s.fallback and s.n_infeasible == s.n_features for s in res.steps)


def test_loo_errors_matches_brute_force():
    from sklearn.svm import SVC
    rng = np.random.default_rng(5)
    X, y = _data(rng, 30, 3, 1.0)
    errors, refits = loo_errors(X, y, 1.0)
    brute = 0
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        m = SVC(kernel="linear", C=1.0).fit(X[keep], y[keep])
        brute += int(y[i] * m.decision_function(X[i:i + 1])[0] <= 0)
    assert errors == brute and refits < len(y)


def test_radius_margin_bound_on_separable_data():
    rng = np.random.default_rng(6)
    X, y = _data(rng, 30, 3, 6.0)
    assert linearly_separable(X, y)
    from svmcert.featelim import fit_linear_svm
    w = fit_linear_svm(X, y, 1e4).coef_.ravel()
    errors, _ = loo_errors(X, y, 1e4)
    assert errors <= radius_margin_bound(radius_squared(linear_kernel(X)), w @ w)


@pytest.mark.parametrize("kwargs, match", [
    (dict(criterion="lasso"), "criterion"), (dict(n_keep=0), "n_keep"), (dict(n_keep=9), "n_keep"),
    (dict(C=0.0), "C"), (dict(C_grid=()), "C_grid"), (dict(C_grid=(1.0, -1.0)), "C_grid"),
    (dict(y=np.ones(10)), "y"), (dict(X=np.full((10, 3), np.nan)), "X"),
])
def test_bad_input(kwargs, match):
    rng = np.random.default_rng(7)
    X, y = _data(rng, 10, 3)
    args = dict(X=X, y=y, criterion="mfe-lo")
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        eliminate_features(**args)


def test_bound_helpers_validate():
    with pytest.raises(ValueError, match="r2"):
        radius_margin_bound(-1.0, 1.0)
    with pytest.raises(ValueError, match="C"):
        l1svm_bound(1.0, 1.0, 0.0, 0.0)
    assert l1svm_bound(2.0, 3.0, 0.5, 1.0) == pytest.approx((2 + 1) * (3 + 1))


def test_ties_go_to_the_smallest_index_whatever_the_rounding():
    from svmcert.featelim.elimination import _stable_argmin

    assert _stable_argmin(np.array([1.0 + 1e-12, 1.0, 2.0]), 1e-9) == 0      # a rounding-level tie
    assert _stable_argmin(np.array([1.0 + 1e-6, 1.0, 2.0]), 1e-9) == 1       # a real difference
    assert _stable_argmin(np.array([np.inf, np.inf]), 1e-9) == 0
    # two identical features score the same up to rounding: the first of them goes first
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 4))
    X[:, 3] = X[:, 1]
    y = np.where(X[:, 0] + 0.5 * X[:, 2] > 0, 1.0, -1.0)
    order = eliminate_features(X, y, "rfe", n_keep=1).order
    assert order.index(1) < order.index(3)
