"""The data radius of Aksu's feature elimination: eq. (9) (smallest enclosing sphere, dual form) and the
squared diameter "ER", checked against cvxpy (Clarabel), brute force, Jung's theorem and closed forms.

Tolerances: Clarabel is asked for relative gaps of 1e-10 (dual QP) and 1e-9 (primal SOCP), and the
library for a certified relative gap of 1e-10, so agreement within 1e-7 leaves two orders of margin.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.featelim import radius as rad
from svmcert.reference import radius as ref
from svmcert.signsvm.result import ConvergenceWarning

RTOL_CVXPY = 1e-7


def _points(seed, n, d, scale=1.0, offset=0.0, decimals=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * scale + offset
    if decimals is not None:                       # coarse grid: creates duplicate points
        X = np.round(X, decimals)
    return X


def _gram(X):
    return X @ X.T


# --------------------------------------------------------------------------- against cvxpy

@pytest.mark.parametrize("seed,n,d", [(0, 30, 3), (1, 40, 8), (2, 25, 40), (3, 60, 2), (4, 12, 1)])
def test_sphere_agrees_with_cvxpy_dual_and_primal(seed, n, d):
    X = _points(seed, n, d, scale=np.random.default_rng(seed).uniform(0.1, 10), offset=3.0)
    res = rad.enclosing_sphere(_gram(X))
    dual = ref.sphere_dual_cvxpy(_gram(X))
    dual_x = ref.sphere_dual_cvxpy(X=X)
    primal = ref.sphere_primal_cvxpy(X)
    assert res.converged and res.gap <= 1e-10 * res.r2
    for r in (dual, dual_x, primal):
        assert r.value == pytest.approx(res.r2, rel=RTOL_CVXPY)
        assert r.solver_value == pytest.approx(res.r2, rel=RTOL_CVXPY)
    # rigorous sandwich: the clipped cvxpy beta gives a lower bound, the cvxpy centre an upper bound
    slack = 1e-12 * res.r2
    assert max(dual.value, dual_x.value) <= res.upper + slack
    assert res.r2 <= primal.value + slack
    # the library's centre sum_i beta_i x_i is a feasible centre: its farthest point is >= R^2
    c = res.beta @ X
    assert np.max(np.sum((X - c) ** 2, axis=1)) >= res.r2 - slack
    assert np.max(np.sum((X - c) ** 2, axis=1)) <= res.upper * (1 + 1e-9)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 25), st.integers(1, 6))
def test_certificate_upper_bounds_the_true_radius(seed, n, d):
    X = _points(seed, n, d)
    res = rad.enclosing_sphere(_gram(X), tol=1e-3)          # loose: the bound must hold anyway
    primal = ref.sphere_primal_cvxpy(X)
    assert res.upper >= primal.solver_value * (1 - RTOL_CVXPY)
    assert res.r2 <= primal.value * (1 + 1e-12) + 1e-15
    assert res.gap <= 1e-3 * max(res.r2, 1e-300) or res.gap <= 1e-14 * np.abs(_gram(X)).max()


# --------------------------------------------------------------------------- Jung's theorem

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 30), st.integers(1, 8),
       st.sampled_from([1e-3, 1.0, 1e3]), st.sampled_from([0.0, 5.0, -100.0]), st.sampled_from([None, 0]))
def test_jung_sandwich(seed, n, d, scale, offset, decimals):
    X = _points(seed, n, d, scale, offset, decimals)
    K = _gram(X)
    res = rad.enclosing_sphere(K)
    D2 = rad.squared_diameter(K)
    assert D2 == pytest.approx(ref.squared_diameter_bruteforce(X), rel=1e-9, abs=1e-9 * (1 + np.abs(K).max()))
    m = min(d, n - 1)
    lo, hi = rad.jung_interval(D2, m)
    rounding = 1e-12 * (scale ** 2 * (1 + d)) + 64 * np.finfo(float).eps * np.abs(K).max()
    assert lo <= res.upper + rounding
    assert res.r2 <= hi + rounding
    if n >= 2 and res.r2 > 1e6 * rounding:                   # ER / R^2 between 2(m+1)/m and 4
        assert 2 * (m + 1) / m * (1 - 1e-5) <= D2 / res.upper and D2 / res.r2 <= 4 * (1 + 1e-5)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 20])
def test_regular_simplex_attains_jungs_bound(m):
    X = np.eye(m + 1) * 3.0 + 1.5                           # m + 1 equidistant points, affine hull of dim m
    rng = np.random.default_rng(m)
    Q, _ = np.linalg.qr(rng.standard_normal((m + 1, m + 1)))
    X = X @ Q                                                # a rotation changes nothing
    K = _gram(X)
    res = rad.enclosing_sphere(K)
    D2 = rad.squared_diameter(K)
    assert D2 == pytest.approx(18.0, rel=1e-13)
    _, hi = rad.jung_interval(D2, m)
    assert res.r2 == pytest.approx(hi, rel=1e-10)
    assert res.r2 == pytest.approx(9.0 * m / (m + 1), rel=1e-10)
    assert np.allclose(res.beta, 1.0 / (m + 1), atol=1e-5)


# --------------------------------------------------------------------------- edge cases

def test_single_point_has_zero_radius():
    res = rad.enclosing_sphere([[4.0]])
    assert res.r2 == 0.0 and res.upper == 0.0 and res.converged and res.iterations == 0
    assert res.beta.tolist() == [1.0] and res.center_weights is res.beta
    assert rad.squared_diameter([[4.0]]) == 0.0
    assert rad.radius_squared_without_each_feature([[1.0, 2.0]]).tolist() == [0.0, 0.0]
    assert rad.radius_squared_without_each_feature([[1.0, 2.0]], "diameter").tolist() == [0.0, 0.0]


def test_two_points_radius_is_a_quarter_of_the_squared_distance():
    X = np.array([[0.0], [2.0]])
    res = rad.enclosing_sphere(_gram(X))
    assert res.r2 == 1.0 and rad.squared_diameter(_gram(X)) == 4.0
    for seed in range(5):
        X = _points(seed, 2, 5, scale=10.0, offset=1.0)
        D2 = float(np.sum((X[0] - X[1]) ** 2))
        assert rad.enclosing_sphere(_gram(X)).r2 == pytest.approx(D2 / 4, rel=1e-14)
        assert rad.radius_squared(_gram(X), "diameter") == pytest.approx(D2, rel=1e-14)


def test_duplicate_and_identical_points():
    X = _points(7, 15, 3)
    base = rad.enclosing_sphere(_gram(X)).r2
    Xd = np.vstack([X, X[:5], X[:5]])
    assert rad.enclosing_sphere(_gram(Xd)).r2 == pytest.approx(base, rel=1e-10)
    same = np.tile([[0.1, -0.3, 7.0]], (9, 1))
    res = rad.enclosing_sphere(_gram(same))
    assert res.converged and abs(res.r2) <= 1e-14 and res.upper <= 1e-14
    assert rad.squared_diameter(_gram(same)) <= 1e-13
    assert np.allclose(rad.radius_squared_without_each_feature(same), 0.0, atol=1e-14)


def test_collinear_points():
    rng = np.random.default_rng(3)
    t = rng.uniform(-2, 5, 40)
    u, a = np.array([1.0, -2.0, 0.5]), np.array([3.0, 1.0, -1.0])
    X = a + t[:, None] * u
    span2 = (t.max() - t.min()) ** 2 * float(u @ u)
    res = rad.enclosing_sphere(_gram(X))
    assert res.r2 == pytest.approx(span2 / 4, rel=1e-10)
    assert rad.squared_diameter(_gram(X)) == pytest.approx(span2, rel=1e-12)
    assert np.count_nonzero(res.beta) == 2


def test_float32_input_is_promoted():
    X = _points(11, 30, 4).astype(np.float32)
    K32 = X @ X.T
    r32 = rad.enclosing_sphere(K32)
    # Cast to float64, K32 is indefinite beyond float64 rounding (it is PSD only to float32's), so
    # the float64 calls skip the PSD test, which for K32 itself uses float32's epsilon.
    r64 = rad.enclosing_sphere(K32.astype(np.float64), check_psd=False)
    assert r32.r2 == r64.r2 and isinstance(r32.r2, float)
    assert rad.squared_diameter(K32) == rad.squared_diameter(K32.astype(np.float64), check_psd=False)
    assert np.allclose(rad.radius_squared_without_each_feature(X), rad.radius_squared_without_each_feature(
        X.astype(np.float64)), rtol=1e-12)


# --------------------------------------------------------------------------- solver behaviour

def test_warm_start_gives_the_cold_result():
    X = _points(5, 80, 6, offset=2.0)
    K = _gram(X)
    cold = rad.enclosing_sphere(K)
    warm = rad.enclosing_sphere(K, beta0=cold.beta)
    assert warm.r2 == pytest.approx(cold.r2, rel=1e-10) and warm.iterations <= 1
    other = rad.enclosing_sphere(K, beta0=np.random.default_rng(0).uniform(-1, 1, 80))   # negatives clipped
    assert other.r2 == pytest.approx(cold.r2, rel=1e-9) and other.converged
    uniform = rad.enclosing_sphere(K, beta0=np.full(80, 5.0))                            # renormalised
    assert uniform.r2 == pytest.approx(cold.r2, rel=1e-9)


def test_numba_and_numpy_engines_agree():
    X = _points(9, 50, 5)
    a = rad.enclosing_sphere(_gram(X), engine="numba")
    b = rad.enclosing_sphere(_gram(X), engine="numpy")
    assert a.iterations == b.iterations
    assert a.r2 == pytest.approx(b.r2, rel=1e-13) and np.allclose(a.beta, b.beta, atol=1e-12)
    for method in rad.METHODS:
        va = rad.radius_squared_without_each_feature(X, method, engine="numba")
        vb = rad.radius_squared_without_each_feature(X, method, engine="numpy")
        assert np.allclose(va, vb, rtol=1e-12)
    Xd = np.vstack([X, X[:3]]) * 1e3                              # duplicates, other scale, dominant pair
    Xd[0, 0] = 1e5
    assert np.allclose(rad.radius_squared_without_each_feature(Xd, "diameter", engine="numba"),
                       rad.radius_squared_without_each_feature(Xd, "diameter", engine="numpy"), rtol=1e-12)


def test_max_iter_warns_and_reports_not_converged():
    K = _gram(_points(2, 200, 20))
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        res = rad.enclosing_sphere(K, max_iter=2)
    assert not res.converged and res.iterations == 2 and res.max_iter == 2 and res.gap > 1e-10 * res.r2
    full = rad.enclosing_sphere(K)
    assert full.converged and full.max_iter == 100000 and full.iterations <= full.max_iter
    assert res.upper >= rad.enclosing_sphere(K).r2               # the certificate holds at any point
    with pytest.warns(ConvergenceWarning):
        rad.radius_squared_without_each_feature(_points(2, 200, 20), max_iter=1)


# --------------------------------------------------------------------------- one feature removed

@pytest.mark.parametrize("seed,n,d", [(0, 60, 7), (1, 208, 12), (2, 5, 9)])
def test_without_each_feature_matches_solving_each_reduced_problem(seed, n, d):
    X = _points(seed, n, d, offset=1.0)
    X[:, 0] *= 4.0                                              # one dominant feature
    sph, up = rad.radius_squared_without_each_feature(X, "sphere", return_upper=True)
    dia = rad.radius_squared_without_each_feature(X, "diameter")
    for m in range(d):
        Z = np.delete(X, m, axis=1)
        assert sph[m] == pytest.approx(rad.enclosing_sphere(_gram(Z)).r2, rel=1e-9)
        assert sph[m] <= up[m] <= sph[m] * (1 + 1e-9)
        assert dia[m] == pytest.approx(ref.squared_diameter_bruteforce(Z), rel=1e-12)
    if n <= 60:
        for m in (0, d - 1):
            assert sph[m] == pytest.approx(ref.sphere_dual_cvxpy(X=np.delete(X, m, axis=1)).value, rel=RTOL_CVXPY)


def test_radius_squared_front_door():
    K = _gram(_points(1, 20, 3))
    assert rad.radius_squared(K) == rad.enclosing_sphere(K).r2
    assert rad.radius_squared(K, method="sphere", tol=1e-6) == pytest.approx(rad.enclosing_sphere(K).r2, rel=1e-5)
    assert rad.radius_squared(K, method="diameter") == rad.squared_diameter(K)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("K,word", [
    ([[1.0, np.nan], [np.nan, 1.0]], "K"),
    ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "square"),
    ([[1.0, 0.5], [0.0, 1.0]], "symmetric"),
    ([[-1.0, 0.0], [0.0, 1.0]], "negative diagonal"),
    ([1.0, 2.0], "2-D"),
    ([["a"]], "K"),
])
def test_bad_gram_matrices(K, word):
    for f in (rad.enclosing_sphere, rad.squared_diameter, rad.radius_squared):
        with pytest.raises(ValueError, match=word):
            f(K)


def test_bad_options():
    K = _gram(_points(0, 5, 2))
    X = _points(0, 5, 2)
    cases = [(lambda: rad.radius_squared(K, method="ball"), "method"),
             (lambda: rad.radius_squared(K, method="diameter", tol=1e-3), "method"),
             (lambda: rad.enclosing_sphere(K, tol=0.0), "tol"),
             (lambda: rad.enclosing_sphere(K, tol=math.nan), "tol"),
             (lambda: rad.enclosing_sphere(K, max_iter=-1), "max_iter"),
             (lambda: rad.enclosing_sphere(K, max_iter=2.5), "max_iter"),
             (lambda: rad.enclosing_sphere(K, beta0=np.ones(4)), "beta0"),
             (lambda: rad.enclosing_sphere(K, beta0=-np.ones(5)), "beta0"),
             (lambda: rad.enclosing_sphere(K, beta0=[np.nan] * 5), "beta0"),
             (lambda: rad.enclosing_sphere(K, engine="fortran"), "engine"),
             (lambda: rad.radius_squared_without_each_feature(X, "ball"), "method"),
             (lambda: rad.radius_squared_without_each_feature(X, "diameter", engine="C"), "engine"),
             (lambda: rad.radius_squared_without_each_feature(np.where(X > 0, np.nan, X)), "X"),
             (lambda: rad.radius_squared_without_each_feature(X[0]), "X"),
             (lambda: rad.radius_squared_without_each_feature(X, beta0=np.ones(3)), "beta0")]
    for call, word in cases:
        with pytest.raises(ValueError, match=word):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rad.enclosing_sphere(K, max_iter=0 + 1000)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_max_iter_below_one_or_not_an_integer_is_refused(bad):
    K = np.eye(3)
    with pytest.raises(ValueError, match="max_iter: expected an integer >= 1"):
        rad.enclosing_sphere(K, max_iter=bad)
