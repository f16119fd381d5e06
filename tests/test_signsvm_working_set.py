"""The interior-point method finishing on a working set of samples (``signsvm.working_set``): its
answers are checked by a duality gap recomputed here from (w, alpha) with plain numpy, and against
the run without the working set."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from svmcert.signsvm import working_set
from svmcert.signsvm.problem import make_problem

ipm_module = importlib.import_module("svmcert.signsvm.interior_point")


def _instance(seed, n, d, sparse=False, weights=None):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=rng) if sparse else rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    s = None
    if weights == "positive":
        s = rng.uniform(0.5, 1.5, n)
    elif weights == "some zero":
        s = np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0.5, 1.5, n))
    return X, y, sign, s


def _run(X, y, lam, sign, s, use, tol=1e-7):
    p = make_problem(X, y, lam, sign, sample_weight=s, accept_sparse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ipm_module.run_interior_point(p, tol, 200, None, True, working_set=use)


def _gap(res, X, y, lam, sign, s):
    """(P(w) - D(alpha), P(w)) from the definitions, with w checked sign-feasible and alpha in its box."""
    n = X.shape[0]
    s = np.ones(n) if s is None else s
    assert np.all(sign * res.w >= 0.0)
    assert np.all(res.alpha >= 0.0) and np.all(res.alpha <= s)
    hinge = np.maximum(0.0, 1.0 - y * np.asarray(X @ res.w).ravel())
    primal = 0.5 * lam * res.w @ res.w + (s @ hinge) / n
    omega = np.asarray(X.T @ (y * res.alpha)).ravel() / (lam * n)
    w_alpha = np.where(sign * omega < 0.0, 0.0, omega)
    dual = res.alpha.sum() / n - 0.5 * lam * w_alpha @ w_alpha
    return primal - dual, primal


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(300, 900), st.integers(2, 15), st.floats(-2, 2),
       st.sampled_from([None, "positive", "some zero"]), st.booleans())
def test_the_working_set_answer_is_certified_and_is_the_full_runs_optimum(seed, n, d, log_lam_n, weights, sparse):
    X, y, sign, s = _instance(seed, n, d, sparse, weights)
    lam = 10.0 ** log_lam_n / n
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(working_set, "WORKING_SET_MIN_ROWS", 100)
        mp.setattr(working_set, "WORKING_SET_MIN_ROWS_PER_COLUMN", 0)   # sparse ones too, whatever n / d
        res = _run(X, y, lam, sign, s, True)
    ref = _run(X, y, lam, sign, s, False)
    gap, primal = _gap(res, X, y, lam, sign, s)
    assert res.converged and gap <= 1e-7 * primal + 1e-15
    ref_gap, ref_primal = _gap(ref, X, y, lam, sign, s)
    assert abs(primal - ref_primal) <= gap + ref_gap + 1e-14


def test_a_large_problem_finishes_on_a_small_working_set():
    X, y, sign, _ = _instance(3, working_set.WORKING_SET_MIN_ROWS, 8)
    lam = 1.0 / X.shape[0]
    p = make_problem(X, y, lam, sign)
    res = ipm_module.run_interior_point(p, 1e-6, 200, None, True)
    stats = res.history["working_set"]
    assert stats["outcome"] == "certified"
    assert max(stats["band"]) <= working_set.WORKING_SET_MAX_SHARE * X.shape[0]
    gap, primal = _gap(res, X, y, lam, sign, None)
    assert res.converged and gap <= 1e-6 * primal
    assert res.history["gap"][-1] == pytest.approx(res.gap)       # the finish is in the history
    full = _run(X, y, lam, sign, None, False, tol=1e-6)
    assert res.n_iter < full.n_iter


@pytest.mark.parametrize("per_column", [None, 0])
def test_a_sparse_problem_with_few_samples_per_column_runs_without_it(per_column, monkeypatch):
    # 10 000 x 600 CSR (3 nonzeros a row): 16.7 samples per column, below
    # WORKING_SET_MIN_ROWS_PER_COLUMN, so the run goes without the working set (a subset would pay
    # the 600 x 600 factor at each of its iterations, over several rounds); with the limit at 0 the
    # same run tries it. Either way the answer is certified.
    n, d = working_set.WORKING_SET_MIN_ROWS, 600
    assert n < working_set.WORKING_SET_MIN_ROWS_PER_COLUMN * d
    rng = np.random.default_rng(11)
    cols = np.stack([rng.choice(d, 3, replace=False) for _ in range(n)]).ravel()
    X = sp.csr_matrix((rng.standard_normal(3 * n), cols, np.arange(0, 3 * n + 1, 3)), shape=(n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    if per_column is not None:
        monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS_PER_COLUMN", per_column)
    sign = np.zeros(d)
    lam = 1.0 / n
    res = _run(X, y, lam, sign, None, True, tol=1e-6)
    assert ("working_set" in res.history) == (per_column is not None)
    gap, primal = _gap(res, X, y, lam, sign, None)
    assert res.converged and gap <= 1e-6 * primal


def test_a_split_that_does_not_certify_hands_back_to_the_full_run(monkeypatch):
    X, y, sign, _ = _instance(4, 600, 6)
    lam = 1.0 / X.shape[0]
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS", 100)
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS_PER_COLUMN", 0)   # sparse ones too, whatever n / d
    monkeypatch.setattr(working_set, "WORKING_SET_BAND", 0.0)      # an empty band: U alone, wrong
    monkeypatch.setattr(working_set, "WORKING_SET_UNSETTLED", 0.5)
    monkeypatch.setattr(working_set, "WORKING_SET_ROUNDS", 1)
    p = make_problem(X, y, lam, sign)
    res = ipm_module.run_interior_point(p, 1e-8, 200, None, False)
    stats = res.history["working_set"]
    assert stats["attempts"] >= 1 and "outcome" not in stats
    gap, primal = _gap(res, X, y, lam, sign, None)
    assert res.converged and gap <= 1e-8 * primal


def test_small_problems_do_not_try_it():
    X, y, sign, _ = _instance(5, 400, 5)
    res = ipm_module.interior_point(X, y, 1.0 / 400, sign)
    assert "working_set" not in res.history


def test_the_subset_runs_do_not_try_it_again(monkeypatch):
    """The subsets are themselves large enough to try a finish here (threshold 100): each subset run
    must be made without one, so the finish never recurses."""
    X, y, sign, s = _instance(6, 800, 6, weights="positive")
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS", 100)
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS_PER_COLUMN", 0)   # sparse ones too, whatever n / d
    original, calls = ipm_module.run_interior_point, []

    def spy(p, *args, **kw):                      # the finish's subset runs look the function up here
        out = original(p, *args, **kw)
        calls.append((p.n, kw.get("working_set", True), "working_set" in out.history))
        return out

    monkeypatch.setattr(ipm_module, "run_interior_point", spy)
    res = original(make_problem(X, y, 1.0 / 800, sign, sample_weight=s), 1e-7, 200, None, False)
    assert res.history["working_set"]["outcome"] == "certified"
    assert calls and all(n >= 100 and not use and not tried for n, use, tried in calls)


@pytest.mark.parametrize("weights", [None, "positive", "some zero"])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_split_itself_certifies_dense_sparse_and_weighted(weights, sparse, monkeypatch):
    X, y, sign, s = _instance(0, 600, 8, sparse, weights)
    lam = 1.0 / X.shape[0]
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS", 100)
    monkeypatch.setattr(working_set, "WORKING_SET_MIN_ROWS_PER_COLUMN", 0)   # sparse ones too, whatever n / d
    res = _run(X, y, lam, sign, s, True)
    assert res.history["working_set"]["outcome"] == "certified"
    gap, primal = _gap(res, X, y, lam, sign, s)
    assert res.converged and gap <= 1e-7 * primal
