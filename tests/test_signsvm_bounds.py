"""Lemma 2, Theorem 6.1, eq. (8) and the curvature estimates (Tajima et al., Secs. 4 and 6.3).

References: direct enumeration with itertools, numpy's spectral norm and eigenvalues, the
definition of the Bregman divergence evaluated from eqs. (9)/(30), Frank-Wolfe runs checked
against cvxpy's optimum, and brute-force search over T for the iteration bound.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmcert.experiments.sign_constrained.curvature import taylor_counterexample
from svmcert.reference.signsvm import solve_primal_cvxpy
from svmcert.signsvm import bounds
from svmcert.signsvm.frank_wolfe import frank_wolfe
from svmcert.signsvm.projected_gradient import primal_subgradient

signs = st.sampled_from([-1.0, 0.0, 1.0])


@st.composite
def problems(draw, max_n=6, max_d=3, lo=-3.0, hi=3.0):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(float, (n, d), elements=st.floats(lo, hi, allow_nan=False)))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    lam = draw(st.floats(1e-2, 10))
    sign = np.array(draw(st.lists(signs, min_size=d, max_size=d)))
    return X, y, lam, sign


def _cube(draw, n):
    return np.array(draw(st.lists(st.floats(0, 1) | st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))


# ----------------------------------------------------------------------------- closed-form bounds


def test_closed_forms_on_a_known_instance():
    X = np.array([[3.0, 4.0], [0.0, 1.0]])    # R = 5
    assert bounds.max_row_norm(X) == 5.0
    assert bounds.curvature_bound(X, 0.5) == 50.0
    assert bounds.gradient_norm_bound(X, 2.0) == pytest.approx(2.0 + 5.0)
    assert bounds.theorem41_bound(X, 2.0, 1) == 0.0
    assert bounds.theorem41_bound(X, 2.0, 10) == pytest.approx(49 * math.log(10) / 20)
    assert bounds.theorem41_corrected_bound(X, 2.0, 1) == pytest.approx(49 / 4)
    assert bounds.frank_wolfe_error_bound(X, 0.5, 3) == pytest.approx(2 * 50 / 5)
    np.testing.assert_allclose(bounds.theorem41_bound(X, 2.0, np.array([1, 10])), [0.0, 49 * math.log(10) / 20])


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 1e3), st.floats(1e-4, 1e4), st.floats(0.1, 100))
def test_iteration_bound_is_smallest_T_with_eq24_below_eps(lam, eps, R):
    X = np.array([[R, 0.0]])
    T = bounds.frank_wolfe_iteration_bound(X, lam, eps)
    C = R * R / lam
    assert T >= 1
    assert 2 * C / (T + 2) <= eps * (1 + 1e-12)                  # eq. (26) => eq. (24) <= eps
    if T > 1:
        assert 2 * C / (T + 1) > eps * (1 - 1e-12)               # and T is the smallest such
    assert T >= 2 * C / eps - 2 - 1e-9


@given(st.integers(1, 10**6))
def test_printed_eq8_exceeds_corrected_bound_exactly_from_T3(T):
    X = np.array([[1.0]])
    printed, fixed = bounds.theorem41_bound(X, 0.3, T), bounds.theorem41_corrected_bound(X, 0.3, T)
    assert (printed >= fixed) == (T >= 3)


@settings(max_examples=60, deadline=None)
@given(problems(), st.data())
def test_gradient_norm_bound_on_the_ball(prob, data):
    X, y, lam, _ = prob
    d = X.shape[1]
    w = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=d, max_size=d)))
    if np.linalg.norm(w) > 0:
        w *= np.sqrt(2 / lam) * data.draw(st.floats(0, 1)) / np.linalg.norm(w)
    g = primal_subgradient(w, X, y, lam)
    assert np.linalg.norm(g) <= bounds.gradient_norm_bound(X, lam) * (1 + 1e-12)


def test_spectral_bound_and_top_eigenpair_against_numpy(rng):
    for shape in [(30, 5), (5, 30)]:
        X = rng.standard_normal(shape)
        val, vec = bounds.top_eigenpair(X)
        assert val == pytest.approx(np.linalg.norm(X, 2) ** 2, rel=1e-10)
        np.testing.assert_allclose(np.linalg.norm(X @ vec), np.sqrt(val), rtol=1e-10)
        assert bounds.curvature_spectral_bound(X, 0.7) == pytest.approx(np.linalg.norm(X, 2) ** 2 / (0.7 * shape[0]))
        assert bounds.curvature_spectral_bound(X, 0.7) <= bounds.curvature_bound(X, 0.7) * (1 + 1e-12)


# ----------------------------------------------------------------------------- curvature


@settings(max_examples=80, deadline=None)
@given(problems(), st.data())
def test_bregman_forms_agree_and_are_nonnegative(prob, data):
    X, y, lam, sign = prob
    n = X.shape[0]
    a, b = _cube(data.draw, n), _cube(data.draw, n)
    stable = bounds.dual_bregman(a, b, X, y, lam, sign)
    literal = bounds.dual_bregman(a, b, X, y, lam, sign, method="definition")
    assert stable >= 0
    assert stable == pytest.approx(literal, abs=1e-9 * (1 + np.abs(X).max() ** 2 / lam))
    assert bounds.dual_bregman(a, a, X, y, lam, sign) == 0.0


@settings(max_examples=80, deadline=None)
@given(problems(), st.data())
def test_lemma2_every_ratio_below_free_curvature_spectral_and_R2_over_lam(prob, data):
    X, y, lam, sign = prob
    n = X.shape[0]
    x = np.vstack([_cube(data.draw, n) for _ in range(4)])
    u = np.vstack([_cube(data.draw, n) for _ in range(4)])
    gammas = [1.0, 0.3, 1e-3]
    r = bounds.curvature_ratios_gammas(X, y, lam, sign, x, u, gammas)
    for k, g in enumerate(gammas):
        # the two routes round differently; at gamma = 1e-3 rounding is amplified ~1e3 times
        np.testing.assert_allclose(r[:, k], bounds.curvature_ratios(X, y, lam, sign, x, u, g), rtol=1e-9, atol=1e-12)
    exact = bounds.unconstrained_curvature_exact(X, lam)[0]
    scale = 1e-9 * (1 + exact)
    assert r.max() <= exact + scale
    assert exact <= bounds.curvature_spectral_bound(X, lam) * (1 + 1e-12) + 1e-15
    assert exact <= bounds.curvature_bound(X, lam) * (1 + 1e-12) + 1e-15
    if not sign.any():
        # Without constraints F is quadratic: (2/gamma^2) D_F = (u - x)^T H (u - x) for every gamma.
        Z = y[:, None] * X
        H = Z @ Z.T / (lam * n * n)
        quad = np.einsum("ij,jk,ik->i", u - x, H, u - x)
        np.testing.assert_allclose(r, np.repeat(quad[:, None], 3, axis=1), rtol=1e-6, atol=1e-9 * (1 + exact))


def test_exact_curvature_against_itertools_and_duplicates(rng):
    X = rng.standard_normal((7, 3))
    brute = max(np.sum((np.array(b) @ X) ** 2) for b in itertools.product([-1.0, 1.0], repeat=7)) / (0.5 * 49)
    val, beta = bounds.unconstrained_curvature_exact(X, 0.5)
    assert val == pytest.approx(brute, rel=1e-12)
    assert np.sum((beta @ X) ** 2) / (0.5 * 49) == pytest.approx(val, rel=1e-12)
    ls, _ = bounds.unconstrained_curvature_local_search(X, 0.5)
    assert ls <= val * (1 + 1e-12)
    v = np.array([1.0, -2.0, 2.0])
    dup = np.vstack([v, -v, v, v])                     # all +-v: Lemma 2 is attained
    assert bounds.unconstrained_curvature_exact(dup, 2.0)[0] == pytest.approx(bounds.curvature_bound(dup, 2.0), rel=1e-12)


def test_eq47_counterexample():
    res = taylor_counterexample()
    assert res["bregman"] == pytest.approx(0.125)
    assert set(np.round(res["taylor_values"], 12)) == {0.0, 0.5}
    assert res["mismatch"] == pytest.approx(0.125)


@pytest.mark.filterwarnings("ignore::svmcert.signsvm.result.ConvergenceWarning")
@settings(max_examples=15, deadline=None)
@given(problems(max_n=8, max_d=3))
def test_theorem61_dual_error_below_eq24_along_frank_wolfe(prob):
    X, y, lam, sign = prob
    ref = solve_primal_cvxpy(X, y, lam, sign)
    res = frank_wolfe(X, y, lam, sign, tol=1e-9, max_iter=300)
    err = ref.value - np.asarray(res.history["dual"])[1:]
    T = np.arange(1, err.size + 1)
    if T.size:
        assert np.all(err <= bounds.frank_wolfe_error_bound(X, lam, T) + 1e-7)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call, name", [
    (lambda: bounds.curvature_bound([[1.0]], 0.0), "lam"),
    (lambda: bounds.curvature_bound([[np.nan]], 1.0), "X"),
    (lambda: bounds.max_row_norm([1.0, 2.0]), "X"),
    (lambda: bounds.frank_wolfe_iteration_bound([[1.0]], 1.0, 0.0), "eps"),
    (lambda: bounds.frank_wolfe_iteration_bound([[1.0]], -1.0, 0.1), "lam"),
    (lambda: bounds.theorem41_bound([[1.0]], 1.0, 0), "T"),
    (lambda: bounds.theorem41_bound([[1.0]], 1.0, 2.5), "T"),
    (lambda: bounds.theorem41_corrected_bound([[1.0]], 1.0, True), "T"),
    (lambda: bounds.frank_wolfe_error_bound([[1.0]], 1.0, np.array([1, 0])), "T"),
    (lambda: bounds.gradient_norm_bound([[1.0]], np.inf), "lam"),
    (lambda: bounds.dual_bregman([0.5], [0.5], [[1.0]], [1.0], 1.0, method="taylor"), "method"),
    (lambda: bounds.dual_bregman([1.5], [0.5], [[1.0]], [1.0], 1.0), "a"),
    (lambda: bounds.dual_bregman([0.5], [0.5], [[1.0]], [2.0], 1.0), "y"),
    (lambda: bounds.curvature_ratios([[1.0]], [1.0], 1.0, None, [[0.0]], [[1.0]], 0.0), "gamma"),
    (lambda: bounds.curvature_ratios([[1.0]], [1.0], 1.0, None, [[0.0]], [[2.0]], 1.0), "u"),
    (lambda: bounds.curvature_ratios([[1.0]], [1.0], 1.0, [5.0], [[0.0]], [[1.0]], 1.0), "sign"),
    (lambda: bounds.curvature_ratios_gammas([[1.0]], [1.0], 1.0, None, [[0.0]], [[1.0]], [1.5]), "gammas"),
    (lambda: bounds.unconstrained_curvature_exact(np.ones((30, 2)), 1.0), "X"),
    (lambda: bounds.unconstrained_curvature_local_search(np.ones((3, 2)), 1.0, beta0=[1.0]), "beta0"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
