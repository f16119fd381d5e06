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


# --------------------------------------------------------------------------- certified counts at the optimum
from svmcert.screening.certified import duplicate_groups, optimum_screening  # noqa: E402
from svmcert.screening.weighted_linear import fit_weighted_linear  # noqa: E402


def _linear_problem(seed, n=80, d=4, copies=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.7 * rng.standard_normal(n) > 0, 1.0, -1.0)
    if copies:
        X = np.vstack([X, X[:copies]])
        y = np.concatenate([y, y[:copies]])
    return X, y


def _screen(X, y, lam, tol, max_epochs=100000):
    import warnings

    from svmcert.signsvm.result import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        f = fit_weighted_linear(X, y, lam, np.ones(len(y)), tol=tol, max_epochs=max_epochs)
    return f, optimum_screening(y, lam, f.alpha, f.margins, f.gap, features=X, groups=duplicate_groups(X, y))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_certified_decisions_contain_the_exact_ones(seed):
    X, y = _linear_problem(seed)
    lam, S = 8.0, 0.2
    _, exact = _screen(X, y, lam, 1e-15)
    ref = exact.drsss(S)
    assert ref.undecided == 0 and ref.removed > 0          # the reference decides everything and removes something
    for epochs in (3, 10, 40):                              # rough fits: wider intervals, never wrong
        _, rough = _screen(X, y, lam, 1e-15, max_epochs=epochs)
        dec = rough.drsss(S)
        assert not np.any(dec.certain & ~ref.certain)
        assert not np.any(ref.certain & ~dec.possible)


def test_closed_form_radius_is_theorem_41_at_the_optimum():
    X, y = _linear_problem(5)
    lam, S = 8.0, 0.2
    f, sc = _screen(X, y, lam, 1e-15)
    K = X @ X.T
    res = drsss(K, y, lam, np.ones(len(y)), S, alpha_hat=f.alpha)
    closed = S ** 2 * sc.root ** 2 / (2 * lam)
    assert res.max_gap == pytest.approx(closed, rel=1e-8, abs=f.gap * (1 + S) + 1e-12)
    np.testing.assert_array_equal(res.removable, sc.drsss(S).certain)


def test_isss_radius_never_exceeds_the_drsss_radius_and_nests():
    X, y = _linear_problem(6)
    lam, S = 8.0, 0.2
    _, sc = _screen(X, y, lam, 1e-15)
    rng = np.random.default_rng(0)
    v = rng.standard_normal((50, len(y)))
    D = S * v / np.linalg.norm(v, axis=1, keepdims=True)
    dec = sc.drsss(S)
    out = sc.isss(D, subset=dec.certain)
    assert np.all(out["radius"] <= sc.radius(S) * (1 + 1e-12))
    assert out["not_subset"] == 0 and np.all(out["removed"] >= dec.removed)


def test_copies_share_their_dual_variable_evenly():
    X, y = _linear_problem(7, n=40, copies=6)
    lam, S = 4.0, 0.1
    _, sc = _screen(X, y, lam, 1e-15)
    assert sc.copies == 6
    dec = sc.drsss(S)
    assert dec.undecided == 0 and dec.removed > 0
    np.testing.assert_array_equal(dec.certain[40:], dec.certain[:6])   # a copy is decided like its original


def test_fit_weighted_linear_agrees_with_the_kernel_solver():
    X, y = _linear_problem(8, n=60)
    w = np.random.default_rng(1).uniform(0.5, 1.5, 60)
    lin = fit_weighted_linear(X, y, 3.0, w, tol=1e-13)
    ker = ws.fit_weighted_svm(X @ X.T, y, 3.0, w, tol=1e-13)
    beta_k = ws.weights_from_dual(ker.alpha, X, y, 3.0, w)
    assert lin.gap <= 1e-13 * lin.primal
    assert np.linalg.norm(lin.beta - beta_k) <= lin.radius + np.sqrt(2 * ker.gap / 3.0) + 1e-12
    ref = fit_weighted_linear(X, y, 3.0, w, tol=1e-13, engine="numpy")
    assert np.linalg.norm(ref.beta - lin.beta) <= ref.radius + lin.radius


def test_instance_streams_are_keyed():
    from svmcert.experiments.safe_screening.drsss_setup import instance_key, instance_rng

    a = instance_rng(0, "weights", "heart", "linear", 2, 7).standard_normal(3)
    instance_rng(0, "weights", "sonar", "linear", 2, 7).standard_normal(1000)     # other instances draw freely
    np.testing.assert_array_equal(instance_rng(0, "weights", "heart", "linear", 2, 7).standard_normal(3), a)
    assert instance_key("a", 1) != instance_key("a", 2)
    with pytest.raises(ValueError, match="seed"):
        instance_rng(-1, "x")


def test_setup_names_its_bad_argument():
    from svmcert.experiments.safe_screening.drsss_setup import Setup

    with pytest.raises(ValueError, match="^scaling"):
        Setup(scaling="whiten")
    with pytest.raises(ValueError, match="^ball"):
        Setup(ball="cube")
