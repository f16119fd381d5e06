"""The closed-form start of coordinate ascent (``signsvm.bound_start``): every alpha_i at its upper
bound is optimal exactly when lam n >= lam_max n. Checked against the public objectives (the
duality gap at that point), against cvxpy's primal solution, and against the runs it replaces."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert import signsvm
from svmcert.reference import solve_primal_cvxpy
from svmcert.signsvm.bound_start import all_at_bound, lam_max_n


def _problem(seed, n, d, weighted):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.8)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    weights = rng.uniform(0.0, 2.0, n) * (rng.random(n) < 0.8) if weighted else None
    if weights is not None:
        weights[0] = 1.0                  # at least one positive weight
    return X, y, sign, weights


def _lam_max_n(X, y, sign, weights):
    """The threshold written out in numpy, independently of the library: with every alpha_i at
    its bound u_i, w = Pi_S(Z^T u / (lam n)) (Pi_S zeroes the coordinates whose sign is wrong),
    and every sample keeps the margin y_i <x_i, w> <= 1 its bound needs exactly when lam n is at
    least max_i y_i <x_i, Pi_S(Z^T u)> over the samples with u_i > 0."""
    u = np.ones(len(y)) if weights is None else weights
    Z = X * y[:, None]
    v = Z.T @ u
    v = np.where(sign * v < 0.0, 0.0, v)
    return float(np.max((Z @ v)[u > 0.0]))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 40), st.integers(1, 6), st.booleans())
def test_the_library_threshold_is_the_written_out_one(seed, n, d, weighted):
    X, y, sign, weights = _problem(seed, n, d, weighted)
    u = np.ones(n) if weights is None else weights
    ours, ref = lam_max_n(X * y[:, None], u, sign), _lam_max_n(X, y, sign, weights)
    # the same sums (BLAS products of the same arrays in the same order): rounding-level at most
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-12 * np.abs(X).sum() * u.sum())


def _objectives(w, alpha, X, y, lam, sign, u):
    """P(w) and D(alpha) of the weighted problem, written out (eqs. 5 and 9 with weights u)."""
    n = len(y)
    P = 0.5 * lam * w @ w + np.mean(u * np.maximum(0.0, 1.0 - y * (X @ w)))
    v = (X * y[:, None]).T @ alpha / (lam * n)
    v = np.where(sign * v < 0.0, 0.0, v)
    return P, -0.5 * lam * v @ v + alpha.sum() / n


def _dca(X, y, lam, sign, weights, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return signsvm.dual_coordinate_ascent(X, y, lam, sign, sample_weight=weights, **kw)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 40), st.integers(1, 6), st.booleans(),
       st.sampled_from([1.0 + 1e-6, 1.5, 10.0]))
def test_above_lam_max_every_sample_at_its_bound_is_optimal(seed, n, d, weighted, factor):
    X, y, sign, weights = _problem(seed, n, d, weighted)
    top = _lam_max_n(X, y, sign, weights)
    if top <= 0.0:
        return                                            # no lam n > 0 is below it: nothing to test
    lam = factor * top / n
    res = _dca(X, y, lam, sign, weights, tol=1e-9)
    u = np.ones(n) if weights is None else weights
    assert res.converged and res.n_iter == 0
    np.testing.assert_array_equal(res.alpha, u)
    # the gap recomputed from (w, alpha) in plain numpy (independent of the solver's certificate):
    # zero up to the rounding of O(n d) sums, 1e-12 relative
    P, D = _objectives(res.w, res.alpha, X, y, lam, sign, u)
    assert abs(P - D) <= 1e-12 * max(abs(P), 1.0)
    assert np.all(sign * res.w >= 0.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 40), st.integers(1, 6), st.booleans())
def test_below_lam_max_the_bound_is_not_taken_and_the_run_still_certifies(seed, n, d, weighted):
    X, y, sign, weights = _problem(seed, n, d, weighted)
    top = _lam_max_n(X, y, sign, weights)
    if top <= 0.0:
        return
    lam = 0.999 * top / n
    u = np.ones(n) if weights is None else weights
    indptr = np.arange(n + 1) * d                     # dense rows of Z / (lam n) as CSR
    indices = np.tile(np.arange(d), n)
    values = (X * y[:, None]).ravel() / (lam * n)
    omega = (X * y[:, None]).T @ u / (lam * n)
    assert not all_at_bound(indptr, indices, values, u, lam * n, sign, omega)
    r = 0.999 / 1.001                                      # the same rows and omega at lam n = 1.001 top
    assert all_at_bound(indptr, indices, values * r, u, lam * n / r, sign, omega * r)
    res = _dca(X, y, lam, sign, weights, tol=1e-8, max_epochs=100000)
    assert res.converged and res.n_iter > 0 and res.gap <= 1e-8 * res.primal


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("pattern", ["free", "nonneg", "mixed"])
def test_the_closed_form_solution_is_cvxpys(seed, pattern):
    X, y, sign, _ = _problem(seed, 60, 5, False)
    sign = {"free": np.zeros(5), "nonneg": np.ones(5), "mixed": sign}[pattern]
    lam = 2.0 * _lam_max_n(X, y, sign, None) / 60
    res = signsvm.solve(X, y, lam, sign)
    ref = solve_primal_cvxpy(X, y, lam, sign)
    assert res.converged and res.history["method"] == ["dual-coordinate"] and res.n_iter == 0
    # cvxpy/Clarabel at 1e-10 tolerances: its value (recomputed from its w, so an upper bound on
    # P*) is within ~1e-9 of P*, while ours is certified at P* up to rounding; the objective is
    # lam-strongly convex, so a value excess e puts w within sqrt(2 e / lam) of the optimum
    scale = abs(ref.value)
    assert res.primal <= ref.value + 1e-12 * scale and ref.value <= res.primal + 1e-9 * scale
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * 1e-9 * scale / lam)


def test_the_default_start_gives_the_same_run_as_a_zero_start_below_lam_max():
    # below lam_max the default start is alpha = 0: the same passes, bit for bit, as alpha0 = 0
    X, y, sign, _ = _problem(11, 200, 8, False)
    lam = 0.3 * _lam_max_n(X, y, sign, None) / 200
    a = _dca(X, y, lam, sign, None)
    b = _dca(X, y, lam, sign, None, alpha0=np.zeros(200))
    assert a.n_iter == b.n_iter > 0
    assert np.array_equal(a.alpha, b.alpha) and np.array_equal(a.w, b.w)


def test_lam_max_of_a_zero_box_is_zero():
    assert lam_max_n(np.eye(3), np.zeros(3), np.zeros(3)) == 0.0


def test_lambda_max_is_the_threshold_of_the_public_solve_and_takes_sparse_input():
    from scipy.sparse import csr_matrix

    X, y, sign, weights = _problem(5, 80, 6, True)
    top = signsvm.lambda_max(X, y, sign, sample_weight=weights)
    assert top == pytest.approx(_lam_max_n(X, y, sign, weights) / 80, rel=1e-15)
    assert signsvm.lambda_max(csr_matrix(X), y, sign, sample_weight=weights) == pytest.approx(top, rel=1e-12)
    above = signsvm.solve(X, y, 1.01 * top, sign, sample_weight=weights)
    below = signsvm.solve(X, y, 0.99 * top, sign, sample_weight=weights)
    assert above.converged and above.n_iter == 0 and below.converged and below.n_iter > 0
    assert not np.array_equal(below.alpha, weights)


@pytest.mark.parametrize("kwargs, name", [(dict(sign=[2, 0, 0]), "sign"), (dict(sample_weight=[-1, 1, 1, 1]), "sample_weight")])
def test_lambda_max_names_the_bad_argument(kwargs, name):
    X = np.eye(4, 3)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match=name):
        signsvm.lambda_max(X, y, **kwargs)
