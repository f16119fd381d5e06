"""The Cholesky/Newton path for max w'Aw + 2b'w over ||w - c|| <= S (svmcert.screening.ball_newton;
Hanada et al., Theorem 4.1 / Appendix D.2 eq. 18; More and Sorensen 1983) against the eigen path
("rightmost"), closed forms and scipy's trust-region subproblem solver.

Tolerances. Both paths return the exact maximum of a problem perturbed within their backward error:
the factorisation (Cholesky or eigh) perturbs A by a few n eps ||A||, which moves the maximum by at
most that times r^2 (r = ||c|| + S bounds ||w||), and forming g = A c + b and f(c) costs a few
n eps (||A|| r + ||b||) r. Each path is therefore within about 4 n eps sigma of the truth, with
sigma = ||A||_2 r^2 + 2 ||b|| r, and the two differ by at most VALUE_C * n * eps * sigma with
VALUE_C = 8 (two such bounds; the largest ratio seen on thousands of random instances is ~1.2).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.reference.ball import ball_max_trust_region, quadratic_value
from svmcert.screening.ball_newton import maximize_on_ball_newton
from svmcert.screening.drsss import GapQuadratic, max_gap_on_ball
from svmcert.screening.quadratic_ball import BallMaximum, maximize_quadratic_on_ball

EPS = np.finfo(float).eps
VALUE_C = 8.0


def sigma(A, b, c, S):
    r = np.linalg.norm(c) + S
    return np.linalg.norm(A, 2) * r * r + 2 * np.linalg.norm(b) * r or 1.0


def value_tol(A, b, c, S):
    return VALUE_C * A.shape[0] * EPS * sigma(A, b, c, S)


def feasible(res, c, S):
    """||w - c|| <= S (1 + 1e-12), plus the rounding of storing w = c + d (eps |w_i| per entry)."""
    return np.linalg.norm(res.w - c) <= S * (1 + 1e-12) + 2 * EPS * np.linalg.norm(c)


def certify(res, A, b, c, S, tol=1e-11):
    """KKT conditions: value attained, A w + b = nu (w - c), nu >= max(phi_max, 0), on the sphere
    when nu > 0 (tol relative to sigma, as in test_screening_quadratic_ball)."""
    sig = sigma(A, b, c, S)
    d = res.w - c
    assert feasible(res, c, S)
    assert abs(quadratic_value(A, b, res.w) - res.value) <= tol * sig
    assert np.linalg.norm(A @ res.w + b - res.nu * d) * S <= tol * sig
    assert res.nu * S * S >= max(np.linalg.eigvalsh(A)[-1], 0.0) * S * S - tol * sig
    assert res.nu * abs(S - np.linalg.norm(d)) * S <= tol * sig


def orthogonal(rng, n):
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    return Q * np.sign(np.diag(R))


# ----------------------------------------------------------------------------- property test


@st.composite
def psd_problems(draw):
    """PSD A of size 1..40: Gram matrices of any rank (low rank likely) or spectra with repeats,
    scaled by 1e-8..1e8; b, c of varied size; radius 1e-8..1e8."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if draw(st.booleans()):
        k = draw(st.integers(1, n))
        G = rng.standard_normal((n, k))
        A = G @ G.T
    else:
        phi = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)
        V = orthogonal(rng, n)
        A = (V * phi) @ V.T
    A = 0.5 * (A + A.T) * 10.0 ** draw(st.floats(-8, 8))
    b = rng.standard_normal(n) * 10.0 ** draw(st.floats(-3, 3))
    c = rng.standard_normal(n) * draw(st.sampled_from([0.0, 1.0, 10.0]))
    S = 10.0 ** draw(st.floats(-8, 8))
    return A, b, c, S


@settings(max_examples=250, deadline=None)
@given(psd_problems())
def test_auto_and_newton_equal_rightmost_to_rounding(prob):
    A, b, c, S = prob
    ref = maximize_quadratic_on_ball(A, b, c, S, method="rightmost")
    auto = maximize_quadratic_on_ball(A, b, c, S)
    tol = value_tol(A, b, c, S)
    assert abs(auto.value - ref.value) <= tol
    assert feasible(auto, c, S)
    trace = {}
    newton = maximize_on_ball_newton(A, b, c, S, trace=trace)
    if newton is None:                          # fallback: auto is then the eigen path itself
        assert auto.value == ref.value and np.array_equal(auto.w, ref.w)
    else:
        assert isinstance(newton, BallMaximum) and newton.value == auto.value
        assert abs(newton.value - ref.value) <= tol
        assert feasible(newton, c, S)
        certify(newton, A, b, c, S)


def test_newton_is_used_on_ordinary_instances():
    """The benchmark's family (A = GG'/n, b, c ~ N(0, 1)) and the same with radii 0.1..10: the Newton
    path answers every time, with one or two factorisations."""
    rng = np.random.default_rng(2024)
    for n in (1, 2, 5, 30, 100, 150):
        for S in (0.1, 1.0, 10.0):
            G = rng.standard_normal((n, n))
            A, b, c = G @ G.T / n, rng.standard_normal(n), rng.standard_normal(n)
            trace = {}
            res = maximize_on_ball_newton(A, b, c, S, trace=trace)
            assert res is not None, trace
            assert trace["factorizations"] <= 2 and trace["failures"] == 0, trace
            ref = maximize_quadratic_on_ball(A, b, c, S, method="rightmost")
            assert abs(res.value - ref.value) <= value_tol(A, b, c, S)
            assert abs(res.nu - ref.nu) <= 1e-12 * ref.nu
            certify(res, A, b, c, S)


# ----------------------------------------------------------------------------- special cases


@pytest.mark.parametrize("factor", [1.001, 2.0, 100.0])
def test_hard_case_falls_back_and_is_correct(factor):
    # top eigenvalue 3 twice, b chosen so that g = A c + b has no component on its eigenspace; the
    # radius is `factor` times the critical one, so nu* = phi_max = 3 (Theorem D.2's hard case)
    rng = np.random.default_rng(5)
    n = 12
    V = orthogonal(rng, n)
    phi = np.r_[rng.uniform(0.0, 2.0, n - 2), 3.0, 3.0]
    A = (V * phi) @ V.T
    A = 0.5 * (A + A.T)
    xi = np.r_[rng.standard_normal(n - 2), 0.0, 0.0]
    c = rng.standard_normal(n)
    b = -A @ c - V @ xi
    S = factor * np.linalg.norm(xi[:-2] / (3.0 - phi[:-2]))
    trace = {}
    assert maximize_on_ball_newton(A, b, c, S, trace=trace) is None
    assert "hard case" in trace["reason"] and trace["factorizations"] <= 3
    with pytest.raises(RuntimeError, match="hard case"):
        maximize_quadratic_on_ball(A, b, c, S, method="cholesky")
    auto = maximize_quadratic_on_ball(A, b, c, S)
    ref = maximize_quadratic_on_ball(A, b, c, S, method="rightmost")
    assert auto.value == ref.value and auto.nu == pytest.approx(3.0, abs=1e-12)
    certify(auto, A, b, c, S)
    assert abs(ball_max_trust_region(A, b, c, S).value - auto.value) <= 1e-9 * sigma(A, b, c, S)


@pytest.mark.parametrize("eps_top", [1e-2, 1e-6, 1e-10, 1e-14])
def test_near_hard_case(eps_top):
    # as above but with a small component eps_top on the top eigenvector: the easy case, with nu*
    # closer and closer to phi_max; whichever path answers, the value is the eigen path's
    rng = np.random.default_rng(8)
    n = 10
    V = orthogonal(rng, n)
    phi = np.r_[rng.uniform(0.0, 2.0, n - 1), 3.0]
    A = 0.5 * ((V * phi) @ V.T + ((V * phi) @ V.T).T)
    xi = np.r_[rng.standard_normal(n - 1), eps_top]
    c = rng.standard_normal(n)
    b = -A @ c - V @ xi
    S = 2.0 * np.linalg.norm(xi[:-1] / (3.0 - phi[:-1]))
    ref = maximize_quadratic_on_ball(A, b, c, S, method="rightmost")
    auto = maximize_quadratic_on_ball(A, b, c, S)
    assert abs(auto.value - ref.value) <= value_tol(A, b, c, S)
    certify(auto, A, b, c, S)
    newton = maximize_on_ball_newton(A, b, c, S)
    if eps_top >= 1e-2:                         # nu* - phi_max = 3e-3: well within reach of Newton
        assert newton is not None
    if newton is not None:
        assert abs(newton.value - ref.value) <= value_tol(A, b, c, S)


def test_zero_matrix_closed_form():
    # A = 0: maximise 2b'w on the ball, w = c + S b / ||b||, nu = ||b|| / S (a root, not phi_max)
    b, c, S = np.array([3.0, -4.0, 0.0]), np.array([1.0, 1.0, 2.0]), 2.0
    res = maximize_quadratic_on_ball(np.zeros((3, 3)), b, c, S, method="cholesky")
    assert res.value == pytest.approx(2 * b @ c + 2 * S * 5.0, rel=4 * EPS)
    np.testing.assert_allclose(res.w, c + S * b / 5.0, rtol=4 * EPS, atol=4 * EPS)
    assert res.nu == pytest.approx(5.0 / S, rel=4 * EPS)


def test_one_dimensional():
    for a, b, c, S in [(2.0, -1.0, 0.3, 0.5), (0.0, 1.0, -2.0, 1.0), (5.0, 7.0, 1.0, 1e-3), (1e8, 1.0, 0.0, 1e4)]:
        res = maximize_quadratic_on_ball([[a]], [b], [c], S, method="cholesky")
        best = max(a * w * w + 2 * b * w for w in (c - S, c + S))
        assert res.value == pytest.approx(best, rel=8 * EPS, abs=8 * EPS * abs(a) * (abs(c) + S) ** 2)


def test_stationary_center_falls_back():
    # g = A c + b = 0: every direction is stationary at c; nu* = phi_max, w along the top eigenvector
    A = np.diag([1.0, 4.0, 2.0])
    c = np.array([0.5, -1.0, 2.0])
    b = -A @ c
    trace = {}
    assert maximize_on_ball_newton(A, b, c, 0.7, trace=trace) is None and "g = 0" in trace["reason"]
    res = maximize_quadratic_on_ball(A, b, c, 0.7)
    assert res.nu == 4.0 and res.value == pytest.approx(quadratic_value(A, b, c) + 4.0 * 0.49, rel=8 * EPS)
    certify(res, A, b, c, 0.7)


def test_indefinite_and_negative_definite():
    rng = np.random.default_rng(3)
    V = orthogonal(rng, 6)
    for phi, S in [(np.array([-3.0, -1.0, 0.5, 1.0, 2.0, 2.5]), 1.0),     # indefinite: easy case
                   (-np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 100.0)]:     # interior maximiser, nu* = 0
        A = (V * phi) @ V.T
        A = 0.5 * (A + A.T)
        b, c = rng.standard_normal(6), rng.standard_normal(6)
        ref = maximize_quadratic_on_ball(A, b, c, S, method="rightmost")
        auto = maximize_quadratic_on_ball(A, b, c, S)
        assert abs(auto.value - ref.value) <= value_tol(A, b, c, S)
        if ref.nu == 0.0:
            assert maximize_on_ball_newton(A, b, c, S) is None and auto.nu == 0.0


def test_reduced_drsss_problem_rank_deficient():
    # the gap quadratic of DRSSS (eq. 11): A = diag(y alpha) K diag(y alpha) / (2 lam), rank-deficient
    # (linear kernel, d < n) and zero outside the support of alpha; the reduced problem adds a
    # zero row and column for the linear term outside the support. Newton answers both, and the
    # reduced and full maxima agree.
    rng = np.random.default_rng(11)
    n, d, lam = 60, 5, 0.3
    X = rng.standard_normal((n, d))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    alpha = np.where(rng.uniform(size=n) < 0.4, rng.uniform(0.0, 1.0, n), 0.0)
    ya = y * alpha
    A = (ya[:, None] * (X @ X.T) * ya[None, :]) / (2 * lam)
    A = 0.5 * (A + A.T)
    c_loss = rng.uniform(0.0, 2.0, n)
    w_tilde = np.ones(n)
    q = GapQuadratic(A, 0.5 * c_loss, float(w_tilde @ A @ w_tilde), np.zeros(n))
    for S in (0.05, 1.0, 20.0):
        full = max_gap_on_ball(q, w_tilde, S, alpha, reduce=False)
        reduced = max_gap_on_ball(q, w_tilde, S, alpha, reduce=True)
        assert abs(full - reduced) <= 2 * value_tol(A, q.b, w_tilde, S)
        trace = {}
        res = maximize_on_ball_newton(A, q.b, w_tilde, S, trace=trace)
        assert res is not None, trace
        ref = maximize_quadratic_on_ball(A, q.b, w_tilde, S, method="rightmost")
        assert abs(res.value - ref.value) <= value_tol(A, q.b, w_tilde, S)
        certify(res, A, q.b, w_tilde, S)


def test_agrees_with_scipy_trust_region():
    rng = np.random.default_rng(17)
    for n, S in [(3, 0.5), (8, 1.0), (20, 3.0), (40, 0.2)]:
        G = rng.standard_normal((n, n))
        A, b, c = G @ G.T / n, rng.standard_normal(n), rng.standard_normal(n)
        res = maximize_quadratic_on_ball(A, b, c, S, method="cholesky")
        ref = ball_max_trust_region(A, b, c, S)
        sig = sigma(A, b, c, S)
        assert ref.converged
        assert ref.value <= res.value + value_tol(A, b, c, S)      # scipy's point is feasible
        assert res.value - ref.value <= 1e-11 * sig                  # its stopping rule: k_easy = 1e-12


def test_method_names():
    A, b, c = np.eye(2), np.ones(2), np.zeros(2)
    with pytest.raises(ValueError, match="method: expected 'auto', 'cholesky', 'rightmost' or 'enumerate'"):
        maximize_quadratic_on_ball(A, b, c, 1.0, method="eigen")
    values = {m: maximize_quadratic_on_ball(A, b, c, 1.0, method=m).value for m in
              ("auto", "cholesky", "rightmost", "enumerate")}
    assert max(values.values()) - min(values.values()) <= 8 * EPS * 4
    with pytest.raises(ValueError, match="A"):
        maximize_on_ball_newton(np.ones((2, 3)), b, c, 1.0)
