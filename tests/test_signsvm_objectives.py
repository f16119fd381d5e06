"""Unit and property tests of svmcert.signsvm's objectives, projection and direction step.

References are independent of the code under test: brute force over cube vertices, central
differences, the paper's own formula (7), and weak duality (eq. 10).
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmcert import signsvm
from svmcert.reference import dual_gradient_reference, solve_box_lp_linprog

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, max_n=8, max_d=6):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(float, (n, d), elements=st.floats(-10, 10, allow_nan=False)))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    lam = draw(st.floats(1e-3, 1e2))
    sign = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=d, max_size=d)))
    alpha = draw(arrays(float, (n,), elements=st.floats(0, 1)))
    return X, y, lam, sign, alpha


@given(arrays(float, st.integers(1, 20), elements=finite), st.data())
def test_projection_is_feasible_idempotent_and_closest(v, data):
    sign = np.array(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=v.size, max_size=v.size)))
    p = signsvm.project_sign(v, sign)
    assert np.all(sign * p >= 0)
    np.testing.assert_array_equal(signsvm.project_sign(p, sign), p)
    # Moreau: the residual is orthogonal to the projection (S is a cone).
    assert abs(p @ (v - p)) <= 1e-9 * (1 + v @ v)
    # closest among random feasible points
    w = data.draw(arrays(float, (v.size,), elements=finite))
    w = np.where(sign * w < 0, -w, w)
    assert np.linalg.norm(v - p) <= np.linalg.norm(v - w) + 1e-9


@given(arrays(float, st.integers(1, 20), elements=finite), st.data())
def test_projection_matches_paper_eq7_for_nonnegativity(omega, data):
    sigma = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=omega.size, max_size=omega.size)))
    paper = omega + np.maximum(0.0, -sigma * omega)
    np.testing.assert_array_equal(signsvm.project_sign(omega, sigma), paper)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_weak_duality_eq10(prob):
    X, y, lam, sign, alpha = prob
    w = signsvm.weights_from_dual(alpha, X, y, lam, sign)
    assert np.all(sign * w >= 0)
    P = signsvm.primal_objective(w, X, y, lam)
    D = signsvm.dual_objective(alpha, X, y, lam, sign)
    assert P >= D - 1e-9 * (1 + abs(P) + abs(D))


@settings(max_examples=100, deadline=None)
@given(problems())
def test_dual_gradient_matches_central_differences(prob):
    X, y, lam, sign, alpha = prob
    h = 1e-6
    a = np.clip(alpha, 2 * h, 1 - 2 * h)
    g = signsvm.dual_gradient(a, X, y, lam, sign)
    n = len(a)
    L = np.linalg.norm(X, 2) ** 2 / (lam * n * n)
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        fp = signsvm.dual_objective(a + e, X, y, lam, sign)
        fm = signsvm.dual_objective(a - e, X, y, lam, sign)
        bound = L * h / 2 + 4 * np.finfo(float).eps * max(1.0, abs(fp), abs(fm)) / h
        assert abs((fp - fm) / (2 * h) - g[i]) <= bound


@settings(max_examples=150, deadline=None)
@given(problems(max_n=7))
def test_lp_step_beats_every_cube_vertex(prob):
    X, y, lam, sign, alpha = prob
    u = signsvm.lp_step(alpha, X, y, lam, sign)
    assert set(np.unique(u)) <= {0.0, 1.0}
    g = dual_gradient_reference(alpha, X, y, lam, sign)
    best = max(g @ np.array(v) for v in itertools.product([0.0, 1.0], repeat=len(alpha)))
    assert g @ u >= best - 1e-12 * (1 + np.abs(g).sum())


def test_lp_step_tie_returns_zero_and_is_optimal():
    # n = 2 (power of two) and lam = 1/n make z exactly 1 for the first sample.
    X = np.array([[1.0], [0.0]])
    y = np.array([1.0, 1.0])
    alpha = np.array([1.0, 0.0])
    u = signsvm.lp_step(alpha, X, y, 0.5, None)
    assert u[0] == 0.0 and u[1] == 1.0
    g = dual_gradient_reference(alpha, X, y, 0.5)
    assert g[0] == 0.0
    assert g @ u == pytest.approx(solve_box_lp_linprog(g).value, abs=1e-12)


def test_unconstrained_dual_is_standard_svm_dual():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 3))
    y = np.array([1, -1, 1, -1, 1, 1.0])
    alpha = rng.uniform(size=6)
    lam = 0.3
    Z = y[:, None] * X
    w_std = Z.T @ alpha / (lam * 6)
    np.testing.assert_allclose(signsvm.weights_from_dual(alpha, X, y, lam), w_std)
    D_std = -0.5 * lam * w_std @ w_std + alpha.sum() / 6
    assert signsvm.dual_objective(alpha, X, y, lam) == pytest.approx(D_std)


def test_float32_and_lists_accepted():
    X = np.array([[1.0, 2.0], [-1.0, 0.5]], dtype=np.float32)
    y = [1, -1]
    u = signsvm.lp_step(np.zeros(2, dtype=np.float32), X, y, 1.0, [1, -1])
    np.testing.assert_array_equal(u, [1.0, 1.0])
    assert signsvm.primal_objective(np.zeros(2, np.float32), X, y, np.float32(0.5)) == pytest.approx(1.0)


X0, y0, a0 = np.ones((3, 2)), np.array([1.0, -1.0, 1.0]), np.zeros(3)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(X=np.array([[np.nan, 1.0]] * 3)), "X"),
        (dict(X=np.ones(3)), "X"),
        (dict(X=np.ones((3, 2)) * np.inf), "X"),
        (dict(y=np.array([1.0, 0.0, 1.0])), "y"),
        (dict(y=np.array([1.0, -1.0])), "y"),
        (dict(lam=0.0), "lam"),
        (dict(lam=-1.0), "lam"),
        (dict(lam=np.nan), "lam"),
        (dict(lam="1"), "lam"),
        (dict(sign=np.array([2.0, 0.0])), "sign"),
        (dict(sign=np.array([1.0])), "sign"),
        (dict(alpha=np.array([0.0, 1.5, 0.0])), "alpha"),
        (dict(alpha=np.array([0.0, 0.0])), "alpha"),
    ],
)
@pytest.mark.parametrize("fn", [signsvm.lp_step, signsvm.dual_objective, signsvm.weights_from_dual, signsvm.dual_gradient])
def test_bad_input_names_the_argument(fn, kwargs, word):
    args = dict(alpha=a0, X=X0, y=y0, lam=1.0, sign=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{word}:"):
        fn(args["alpha"], args["X"], args["y"], args["lam"], args["sign"])


def test_primal_bad_w_shape():
    with pytest.raises(ValueError, match="^w:"):
        signsvm.primal_objective(np.zeros(3), X0, y0, 1.0)
