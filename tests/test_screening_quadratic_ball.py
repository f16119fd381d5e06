"""Maximising w'Aw + 2b'w over a ball (Hanada et al., Theorem 4.1 / D.2, Lemmas D.3-D.4), against
closed forms, scipy's trust-region subproblem solver, the SDP relaxation and sphere sampling."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.reference.ball import ball_max_sampled, ball_max_sdp, ball_max_trust_region, quadratic_value
from svmcert.screening.quadratic_ball import (
    BallMaximum,
    maximize_quadratic_on_ball,
    secular_function,
    secular_roots,
    stationary_points,
)

EPS = np.finfo(float).eps


def scale(A, b, c, S):
    r = np.linalg.norm(c) + S
    return np.linalg.norm(A, 2) * r * r + 2 * np.linalg.norm(b) * r or 1.0


def certify(res, A, b, c, S, tol=1e-11):
    """Optimality conditions: feasible, value attained, A w + b = nu (w - c), nu >= max(phi_max, 0),
    and nu (S - ||w - c||) = 0."""
    sig = scale(A, b, c, S)
    d = res.w - c
    assert np.linalg.norm(d) <= S * (1 + 1e-12) + 1e-14 * np.linalg.norm(c)
    assert abs(quadratic_value(A, b, res.w) - res.value) <= tol * sig
    assert np.linalg.norm(A @ res.w + b - res.nu * d) * S <= tol * sig
    assert res.nu * S * S >= (max(np.linalg.eigvalsh(A)[-1], 0.0)) * S * S - tol * sig
    assert res.nu * abs(S - np.linalg.norm(d)) * S <= tol * sig


def orthogonal(rng, n):
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    return Q * np.sign(np.diag(R))


# ----------------------------------------------------------------------------- closed forms


def test_one_dimensional_matches_endpoints():
    for a, b, c, S in [(2.0, -1.0, 0.3, 0.5), (0.0, 1.0, -2.0, 1.0), (1.0, 0.0, 0.0, 3.0), (5.0, 7.0, 1.0, 1e-3)]:
        res = maximize_quadratic_on_ball([[a]], [b], [c], S)
        ends = [a * w * w + 2 * b * w for w in (c - S, c + S)]
        assert res.value == pytest.approx(max(ends), rel=1e-13, abs=1e-14)
        assert isinstance(res, BallMaximum) and res.w.shape == (1,)


def test_linear_objective_a_zero():
    b, c, S = np.array([3.0, -4.0]), np.array([1.0, 1.0]), 2.0
    res = maximize_quadratic_on_ball(np.zeros((2, 2)), b, c, S)
    assert res.value == pytest.approx(2 * b @ c + 2 * S * 5.0, rel=1e-14)
    np.testing.assert_allclose(res.w, c + S * b / 5.0, rtol=1e-14)
    assert res.nu == pytest.approx(5.0 / S)


def test_constant_objective_and_pure_eigenvalue_problem():
    res = maximize_quadratic_on_ball(np.zeros((3, 3)), np.zeros(3), np.ones(3), 1.0)
    assert res.value == 0.0 and np.linalg.norm(res.w - 1.0) <= 1.0 + 1e-15
    A = np.diag([1.0, 4.0, 4.0])
    res = maximize_quadratic_on_ball(A, np.zeros(3), np.zeros(3), 2.0)      # xi = 0: hard case
    assert res.nu == 4.0 and res.value == pytest.approx(16.0, rel=1e-15)
    certify(res, A, np.zeros(3), np.zeros(3), 2.0)


def test_hard_case_by_hand():
    # A = diag(1, 3, 3), b = (-1/2, 0, 0), c = 0, S = 1: xi vanishes on the eigenvalue 3 and
    # T_F(3) = (1/2 / 2)^2 = 1/16 < 1, so nu = 3 and the value is 3 + (1/4) / 2 = 3.125.
    A, b, c = np.diag([1.0, 3.0, 3.0]), np.array([-0.5, 0.0, 0.0]), np.zeros(3)
    for method in ("rightmost", "enumerate"):
        res = maximize_quadratic_on_ball(A, b, c, 1.0, method=method)
        assert res.nu == pytest.approx(3.0, abs=1e-15) and res.value == pytest.approx(3.125, rel=1e-15)
        assert res.w[0] == pytest.approx(-0.25)
        certify(res, A, b, c, 1.0)
    # a smaller radius leaves the hard case: the root right of 3
    res = maximize_quadratic_on_ball(A, b, c, 0.2)
    assert res.nu > 3.0
    certify(res, A, b, c, 0.2)


def test_near_hard_case_is_continuous():
    rng = np.random.default_rng(3)
    V = orthogonal(rng, 4)
    phi = np.array([0.5, 1.0, 2.0, 2.0])
    A = (V * phi) @ V.T
    c = rng.standard_normal(4)
    vals = []
    for eps in (0.0, 1e-14, 1e-10, 1e-6):
        xi = np.array([0.3, -0.2, eps, 0.0])
        b = -A @ c - V @ xi
        vals.append(maximize_quadratic_on_ball(A, b, c, 1.0).value)
    assert max(vals) - min(vals) <= 1e-5
    assert abs(vals[1] - vals[0]) <= 1e-12


def test_negative_definite_interior_maximiser():
    A, b, c = -np.diag([1.0, 2.0]), np.array([0.1, 0.1]), np.zeros(2)
    res = maximize_quadratic_on_ball(A, b, c, 10.0)
    np.testing.assert_allclose(res.w, [0.1, 0.05], rtol=1e-14)         # -A^{-1} b
    assert res.nu == 0.0
    certify(res, A, b, c, 10.0)


@pytest.mark.parametrize("S", [1e-8, 1e-3, 1.0, 1e3, 1e8])
def test_tiny_and_huge_radius_against_scipy(S):
    rng = np.random.default_rng(7)
    G = rng.standard_normal((6, 3))
    A, b, c = G @ G.T, rng.standard_normal(6), rng.standard_normal(6)
    res = maximize_quadratic_on_ball(A, b, c, S)
    ref = ball_max_trust_region(A, b, c, S)
    sig = scale(A, b, c, S)
    assert ref.value <= res.value + 1e-12 * sig                  # scipy's point is feasible
    if ref.converged:                                            # (it stalls at S = 1e8 with tight tolerances)
        assert res.value - ref.value <= 1e-11 * sig
    assert res.value - ball_max_trust_region(A, b, c, S, k_easy=1e-8, k_hard=1e-8).value <= 1e-7 * sig
    certify(res, A, b, c, S)


def test_sdp_reference_agrees_on_small_instances():
    rng = np.random.default_rng(11)
    for n in (2, 5):
        G = rng.standard_normal((n, n))
        A, b, c, S = G @ G.T, rng.standard_normal(n), rng.standard_normal(n), 1.3
        res = maximize_quadratic_on_ball(A, b, c, S)
        assert abs(ball_max_sdp(A, b, c, S).value - res.value) <= 1e-8 * scale(A, b, c, S)


# ----------------------------------------------------------------------------- property tests


@st.composite
def problems(draw):
    """PSD A with eigenvalues from a small set (repeats likely), xi possibly zero on the top
    eigenspace (the hard case), radius over six decades."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    phi = np.sort(np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n))))
    xi = rng.standard_normal(n) * np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 1.0]), min_size=n, max_size=n)))
    if draw(st.booleans()):
        xi[phi == phi[-1]] = 0.0                         # hard-case structure
    diagonal = draw(st.booleans())
    V = np.eye(n) if diagonal else orthogonal(rng, n)
    A = (V * phi) @ V.T
    A = 0.5 * (A + A.T)
    c = rng.standard_normal(n) * draw(st.sampled_from([0.0, 1.0]))
    b = -A @ c - V @ xi
    S = 10.0 ** draw(st.floats(-3, 3))
    return A, b, c, S


@settings(max_examples=150, deadline=None)
@given(problems())
def test_rightmost_equals_enumeration_scipy_and_certificate(prob):
    A, b, c, S = prob
    sig = scale(A, b, c, S)
    res = maximize_quadratic_on_ball(A, b, c, S)
    certify(res, A, b, c, S)
    enum = maximize_quadratic_on_ball(A, b, c, S, method="enumerate")
    assert abs(enum.value - res.value) <= 1e-12 * sig
    ref = ball_max_trust_region(A, b, c, S)
    if np.isfinite(ref.value):
        assert ref.value <= res.value + 1e-12 * sig          # scipy's point is feasible: a lower bound
    if ref.converged:
        assert res.value - ref.value <= 1e-10 * sig
    assert ball_max_sampled(A, b, c, S, 500, np.random.default_rng(0)).value <= res.value + 1e-12 * sig


@settings(max_examples=100, deadline=None)
@given(problems())
def test_stationary_values_are_ordered_by_multiplier(prob):
    A, b, c, S = prob
    sig = scale(A, b, c, S)
    pts = stationary_points(A, b, c, S)
    assert pts, "a convex quadratic always has a stationary point on the sphere"
    for p in pts:
        assert abs(np.linalg.norm(p.w - c) - S) <= 1e-12 * (S + np.linalg.norm(c))
        assert abs(quadratic_value(A, b, p.w) - p.value) <= 1e-11 * sig
    for p in pts:
        for q in pts:
            gap = p.value - q.value - 0.5 * (p.nu - q.nu) * np.sum((p.w - q.w) ** 2)
            assert abs(gap) <= 1e-11 * sig
    best = max(pts, key=lambda p: p.value)
    assert best.value >= pts[-1].value - 1e-12 * sig          # the largest multiplier is a maximiser


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2 ** 32 - 1), st.floats(-2, 2))
def test_secular_roots_counts_and_residuals(n, seed, log_s):
    rng = np.random.default_rng(seed)
    phi = rng.choice(np.round(rng.uniform(-2, 2, size=n), 1), size=n)
    xi = rng.standard_normal(n) * (rng.uniform(size=n) > 0.25)
    S = 10.0 ** log_s
    roots = secular_roots(phi, xi, S)
    poles = np.unique(phi[xi != 0])
    assert len(roots) <= 2 * len(poles) <= 2 * n
    if len(poles):
        assert np.sum(roots < poles[0]) == 1 and np.sum(roots > poles[-1]) == 1
        for k in range(len(poles) - 1):
            assert np.sum((roots > poles[k]) & (roots < poles[k + 1])) <= 2
        T = secular_function(roots, phi, xi)
        dist = np.min(np.abs(roots[:, None] - poles[None, :]), axis=1)
        assert np.all(np.abs(T / S ** 2 - 1) <= 16 * EPS * (1 + np.abs(roots) / dist))
    else:
        assert roots.size == 0
    assert np.all(np.diff(roots) > 0)


def test_secular_roots_simple_cases():
    np.testing.assert_allclose(secular_roots([0.0], [1.0], 2.0), [-0.5, 0.5])
    np.testing.assert_allclose(secular_roots([1.0, 1.0], [3.0, 4.0], 5.0), [0.0, 2.0])   # one pole, weight 25
    assert secular_roots([1.0, 2.0], [0.0, 0.0], 1.0).size == 0
    # near a pole: offsets are found to relative accuracy
    r = secular_roots([1.0], [1e-12], 1.0)
    np.testing.assert_allclose(r - 1.0, [-1e-12, 1e-12], rtol=1e-3)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("args, name", [
    ((np.ones((2, 3)), np.ones(2), np.ones(2), 1.0), "A"),
    ((np.array([[1.0, 2.0], [0.0, 1.0]]), np.ones(2), np.ones(2), 1.0), "A"),
    ((np.array([[np.nan, 0.0], [0.0, 1.0]]), np.ones(2), np.ones(2), 1.0), "A"),
    ((np.eye(2), np.ones(3), np.ones(2), 1.0), "b"),
    ((np.eye(2), np.ones(2), np.array([1.0, np.inf]), 1.0), "center"),
    ((np.eye(2), np.ones(2), np.ones(2), 0.0), "radius"),
    ((np.eye(2), np.ones(2), np.ones(2), -1.0), "radius"),
    ((np.eye(2), np.ones(2), np.ones(2), float("nan")), "radius"),
    ((np.ones(3), np.ones(3), np.ones(3), 1.0), "A"),
])
def test_bad_input_names_the_argument(args, name):
    with pytest.raises(ValueError, match=name):
        maximize_quadratic_on_ball(*args)


def test_psd_required_only_where_needed():
    A = np.diag([1.0, -1.0])
    maximize_quadratic_on_ball(A, np.ones(2), np.zeros(2), 1.0)          # fine: any symmetric A
    with pytest.raises(ValueError, match="A: expected a positive semidefinite"):
        maximize_quadratic_on_ball(A, np.ones(2), np.zeros(2), 1.0, method="enumerate")
    with pytest.raises(ValueError, match="A: expected a positive semidefinite"):
        stationary_points(A, np.ones(2), np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="method"):
        maximize_quadratic_on_ball(np.eye(2), np.ones(2), np.zeros(2), 1.0, method="newton")
    # rounding-level asymmetry and negative eigenvalues are accepted
    G = np.random.default_rng(0).standard_normal((4, 2))
    A = G @ G.T
    A[0, 1] += 1e-15
    maximize_quadratic_on_ball(A, np.ones(4), np.zeros(4), 1.0, method="enumerate")


def test_secular_roots_bad_input():
    with pytest.raises(ValueError, match="xi"):
        secular_roots([1.0, 2.0], [1.0], 1.0)
    with pytest.raises(ValueError, match="radius"):
        secular_roots([1.0], [1.0], 0.0)
    with pytest.raises(ValueError, match="phi"):
        secular_roots([[1.0]], [1.0], 1.0)


@pytest.mark.parametrize("method", ["auto", "cholesky", "rightmost", "enumerate"])
@pytest.mark.parametrize("radius", [1e-300, 1e-40, 1e40])
def test_every_method_at_extreme_radii(method, radius):
    # radii outside 2^+-100 are solved after an exact power-of-2 rescaling (tests/test_faults.py has
    # the cases that failed before); f = w'Aw + 2b'w at the returned point is the value
    A, b = np.diag([2.0, 1.0, 0.5]), np.array([0.3, -0.2, 0.1])
    try:
        res = maximize_quadratic_on_ball(A, b, np.zeros(3), radius, method=method)
    except RuntimeError:              # cholesky does not apply where the linear term is negligible
        assert method == "cholesky" and radius > 1
        return
    assert np.linalg.norm(res.w) == pytest.approx(radius, rel=1e-14)
    f = float(res.w @ A @ res.w + 2 * b @ res.w)
    assert res.value == pytest.approx(f, rel=1e-14)
