"""Projected gradient (Tajima et al., Sec. 4, eq. 6) and the projection onto B cap S.

References are independent of the code under test: the variational inequality that characterises a
Euclidean projection, cvxpy's projection and primal optimum, the literal first step of eq. (6),
and the convergence bound the Pegasos argument proves (checked against cvxpy's P*).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmcert.reference.signsvm import solve_primal_cvxpy
from svmcert.signsvm import bounds
from svmcert.signsvm.objectives import dual_objective, primal_objective
from svmcert.signsvm.projected_gradient import (
    ball_radius,
    primal_subgradient,
    project_ball,
    project_ball_sign,
    projected_gradient,
)

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
signs = st.sampled_from([-1.0, 0.0, 1.0])


@st.composite
def vector_sign_radius(draw):
    d = draw(st.integers(1, 12))
    w = draw(arrays(float, (d,), elements=finite))
    sign = np.array(draw(st.lists(signs, min_size=d, max_size=d)))
    radius = draw(st.floats(1e-3, 1e3))
    return w, sign, radius


@st.composite
def problems(draw, max_n=6, max_d=3):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(float, (n, d), elements=st.floats(-3, 3, allow_nan=False)))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    lam = draw(st.floats(1e-2, 10))
    sign = np.array(draw(st.lists(signs, min_size=d, max_size=d)))
    return X, y, lam, sign


# ----------------------------------------------------------------------------- projections


def test_project_ball_inside_and_outside():
    w = np.array([3.0, 4.0])
    np.testing.assert_array_equal(project_ball(w, 10.0), w)
    np.testing.assert_allclose(project_ball(w, 1.0), [0.6, 0.8], rtol=1e-15)


@given(vector_sign_radius(), st.data())
def test_project_ball_sign_is_the_projection_onto_the_intersection(prob, data):
    w, sign, r = prob
    p = project_ball_sign(w, sign, r)
    assert np.all(sign * p >= 0)
    assert np.linalg.norm(p) <= r * (1 + 1e-12)
    np.testing.assert_allclose(project_ball_sign(p, sign, r), p, rtol=1e-12, atol=1e-300)
    # Variational inequality <w - p, z - p> <= 0 for feasible z: random points of B cap S.
    d = w.size
    for _ in range(5):
        z = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=d, max_size=d)))
        z = np.where(sign * z < 0, -z, z)
        nz = np.linalg.norm(z)
        if nz > 0:
            z = z * (r * data.draw(st.floats(0, 1)) / nz)
        scale = (np.linalg.norm(w) + r) ** 2
        assert (w - p) @ (z - p) <= 1e-9 * scale
    # Cases where the composition obviously must agree.
    if np.linalg.norm(np.where(sign * w < 0, 0, w)) <= r:
        np.testing.assert_array_equal(p, np.where(sign * w < 0, 0, w))


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_project_ball_sign_against_cvxpy(rng):
    cp = pytest.importorskip("cvxpy")
    for _ in range(12):
        d = int(rng.integers(1, 8))
        w = rng.standard_normal(d) * 3
        sign = rng.choice([-1.0, 0.0, 1.0], size=d)
        r = float(rng.uniform(0.1, 2.0))
        q = cp.Variable(d)
        cons = [cp.norm(q, 2) <= r]
        if np.any(sign > 0):
            cons.append(q[np.flatnonzero(sign > 0)] >= 0)
        if np.any(sign < 0):
            cons.append(q[np.flatnonzero(sign < 0)] <= 0)
        cp.Problem(cp.Minimize(cp.sum_squares(q - w)), cons).solve(
            solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        p = project_ball_sign(w, sign, r)
        scale = max(np.linalg.norm(w), r)
        # 1-strong convexity of ||q - w||^2 / 2: a 1e-10 objective gap allows distance ~1.4e-5 * scale.
        np.testing.assert_allclose(p, q.value, atol=2e-5 * scale)
        # and ours is no farther from w than cvxpy's point (after crediting its infeasibility)
        qs = np.where(sign * q.value < 0, 0.0, q.value)
        v = np.linalg.norm(q.value - qs) + max(0.0, np.linalg.norm(qs) - r)
        assert np.linalg.norm(w - p) <= np.linalg.norm(w - q.value) + v + 1e-12 * scale


def test_reversed_order_is_not_the_projection():
    # w = (2, -2), w_2 >= 0, r = 1: Pi_S(Pi_B(w)) = (0.707, 0) lies strictly inside the ball.
    w, sign = np.array([2.0, -2.0]), np.array([0.0, 1.0])
    np.testing.assert_allclose(project_ball_sign(w, sign, 1.0), [1.0, 0.0])
    reversed_order = np.where(sign * project_ball(w, 1.0) < 0, 0.0, project_ball(w, 1.0))
    assert np.linalg.norm(reversed_order - [1.0, 0.0]) > 0.29


# ----------------------------------------------------------------------------- the method


def test_first_step_is_eq6_literally():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 3))
    y = rng.choice([-1.0, 1.0], 7)
    lam, sign = 0.5, np.array([1.0, -1.0, 0.0])
    res = projected_gradient(X, y, lam, sign, n_iter=2)
    # At w_1 = 0 every margin is 0 < 1, so g_1 = -(1/n) sum_i y_i x_i; step 1/lam.
    g1 = -(y[:, None] * X).mean(axis=0)
    w2 = -g1 / lam
    w2 = np.where(sign * w2 < 0, 0.0, w2)
    r = np.sqrt(2 / lam)
    if np.linalg.norm(w2) > r:
        w2 *= r / np.linalg.norm(w2)
    assert res.history["primal"][0] == pytest.approx(1.0)
    assert res.history["primal"][1] == pytest.approx(primal_objective(w2, X, y, lam), rel=1e-12)
    assert res.history["w_norm"][1] == pytest.approx(np.linalg.norm(w2), rel=1e-12)


def test_subgradient_at_zero_and_history_shapes():
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    y = np.array([1.0, -1.0])
    np.testing.assert_allclose(primal_subgradient(np.zeros(2), X, y, 1.0), [-0.5, 1.0])
    res = projected_gradient(X, y, 1.0, n_iter=7, tol=0.5)
    assert res.n_iter == 7
    # the verdict is the duality-gap certificate (tests/test_faults.py has the failing budgets)
    assert res.converged is bool(res.gap <= 0.5 * res.primal)
    assert res.alpha.shape == (2,) and np.all((0 <= res.alpha) & (res.alpha <= 1))
    assert res.dual == pytest.approx(dual_objective(res.alpha, X, y, 1.0), rel=1e-15)
    assert res.gap == res.primal - res.dual
    for key in ("primal", "dual", "gap", "grad_norm", "w_norm", "seconds"):
        assert len(res.history[key]) == 7
    t = res.history["best_iteration"]
    assert res.primal == min(res.history["primal"]) == res.history["primal"][t - 1]
    assert res.primal == pytest.approx(primal_objective(res.w, X, y, 1.0))
    assert projected_gradient(X, y, 1.0, n_iter=3, record_history=False, tol=0.5).history == {}


def test_converges_to_cvxpy_optimum(rng):
    X = rng.standard_normal((40, 4))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(40) > 0, 1.0, -1.0)
    sign = np.array([1.0, -1.0, 0.0, 1.0])
    lam = 0.1
    ref = solve_primal_cvxpy(X, y, lam, sign)
    res = projected_gradient(X, y, lam, sign, n_iter=20000)
    assert np.all(sign * res.w >= 0)
    assert res.primal - ref.value <= bounds.theorem41_corrected_bound(X, lam, 20000) + 1e-9
    assert res.primal - ref.value <= 1e-4


@settings(max_examples=30, deadline=None)
@given(problems())
def test_theorem41_corrected_bound_and_gradient_bound(prob):
    """Every T: min_{t<=T} P(w_t) - P* <= G^2 (1 + ln T)/(2 lam T); every ||g_t|| <= G; w_t in B cap S."""
    X, y, lam, sign = prob
    T = 200
    res = projected_gradient(X, y, lam, sign, n_iter=T)
    ref = solve_primal_cvxpy(X, y, lam, sign)
    best = np.minimum.accumulate(res.history["primal"]) - ref.value
    bound = bounds.theorem41_corrected_bound(X, lam, np.arange(1, T + 1))
    assert np.all(best <= bound + 1e-7)
    G = bounds.gradient_norm_bound(X, lam)
    assert max(res.history["grad_norm"]) <= G * (1 + 1e-12)
    assert max(res.history["w_norm"]) <= ball_radius(lam) * (1 + 1e-12)
    assert np.linalg.norm(ref.w) * np.sqrt(lam) <= 1 + 1e-4     # Pegasos' radius holds with signs


def test_custom_radius_is_respected():
    X = np.array([[1.0], [2.0]])
    y = np.array([1.0, 1.0])
    res = projected_gradient(X, y, 1e-3, n_iter=50, radius=0.1)
    assert max(res.history["w_norm"]) <= 0.1 * (1 + 1e-12)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, name", [
    (dict(lam=0.0), "lam"), (dict(lam=-1.0), "lam"), (dict(lam=np.nan), "lam"),
    (dict(n_iter=0), "n_iter"), (dict(n_iter=2.5), "n_iter"), (dict(n_iter=True), "n_iter"),
    (dict(sign=[2.0, 0.0]), "sign"), (dict(sign=[0.0]), "sign"), (dict(radius=0.0), "radius"),
    (dict(X=[[np.nan, 1.0], [0.0, 1.0]]), "X"), (dict(y=[1.0, 0.0]), "y"), (dict(y=[1.0]), "y"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = dict(X=[[1.0, 0.0], [0.0, 1.0]], y=[1.0, -1.0], lam=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        projected_gradient(**args)


@pytest.mark.parametrize("call, name", [
    (lambda: project_ball([1.0, 2.0], 0.0), "radius"),
    (lambda: project_ball([[1.0]], 1.0), "w"),
    (lambda: project_ball([np.inf], 1.0), "w"),
    (lambda: project_ball_sign([1.0, 2.0], [1.0, 3.0], 1.0), "sign"),
    (lambda: project_ball_sign([1.0, 2.0], None, -1.0), "radius"),
    (lambda: ball_radius(0.0), "lam"),
    (lambda: primal_subgradient([1.0], [[1.0, 2.0]], [1.0], 1.0), "w"),
])
def test_projection_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
