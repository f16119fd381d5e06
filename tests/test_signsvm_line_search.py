"""Lemma 1 (piecewise-quadratic line search) and Frank-Wolfe, against independent evaluations:
D evaluated directly on a dense grid, the paper's O(d^2) piece construction, scipy's bounded
scalar maximiser, and a cvxpy solution of the primal."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmcert import signsvm


@st.composite
def line_problems(draw):
    n = draw(st.integers(1, 8))
    d = draw(st.integers(1, 8))
    X = draw(arrays(float, (n, d), elements=st.floats(-5, 5, allow_nan=False)))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    lam = draw(st.floats(1e-2, 10))
    sign = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=d, max_size=d)))
    alpha = draw(arrays(float, (n,), elements=st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1)))
    u = draw(arrays(float, (n,), elements=st.sampled_from([0.0, 1.0])))
    return X, y, lam, sign, alpha, u


def _zeta(eta, alpha, u, X, y, lam, sign):
    return signsvm.dual_objective(np.clip(alpha + eta * (u - alpha), 0, 1), X, y, lam, sign)


@settings(max_examples=100, deadline=None)
@given(line_problems())
def test_pieces_reproduce_dual_and_are_concave_and_c1(prob):
    X, y, lam, sign, alpha, u = prob
    ls = signsvm.line_search(alpha, u, X, y, lam, sign)
    assert ls.theta[0] == 0.0 and ls.theta[-1] == 1.0 and np.all(np.diff(ls.theta) > 0)
    assert len(ls.a) == len(ls.theta) - 1 <= X.shape[1] + 1
    assert np.all(ls.a <= 0)
    scale = 1 + np.abs(ls.a).max() + np.abs(ls.b).max() + np.abs(ls.c).max()
    for k in range(len(ls.a)):
        for eta in np.linspace(ls.theta[k], ls.theta[k + 1], 5):
            piece = ls.a[k] * eta ** 2 + ls.b[k] * eta + ls.c[k]
            assert piece == pytest.approx(_zeta(eta, alpha, u, X, y, lam, sign), abs=1e-9 * scale)
    for k in range(len(ls.a) - 1):
        t = ls.theta[k + 1]
        assert abs((2 * ls.a[k] * t + ls.b[k]) - (2 * ls.a[k + 1] * t + ls.b[k + 1])) <= 1e-9 * scale


@settings(max_examples=100, deadline=None)
@given(line_problems())
def test_eta_is_a_global_maximiser_and_matches_quadratic_construction(prob):
    X, y, lam, sign, alpha, u = prob
    ls = signsvm.line_search(alpha, u, X, y, lam, sign)
    ref = signsvm.line_search_pieces_quadratic(alpha, u, X, y, lam, sign)
    np.testing.assert_allclose(ls.theta, ref.theta)
    # Coefficients agree on every piece wider than 3 x the merge distance M = 8 eps: a merged
    # crossing lies within M of its piece's left end and a dropped one within M of 1, so the
    # midpoint is more than M/2 = 4 eps (relative) past or before it, more than the ~2 eps error of
    # evaluating omega_0 + mid omega_q; narrower pieces may differ (the merged-switch effect).
    wide = np.diff(ls.theta) > 3 * 8 * np.finfo(float).eps
    np.testing.assert_allclose(ls.a[wide], ref.a[wide], atol=1e-9 * (1 + np.abs(ref.a).max()))
    # On every piece, narrow ones included, the two agree as functions: a coordinate they count
    # differently lies within a few eps of its crossing there, so it changes the value by
    # lam/2 omega_h(eta)^2 and the slope by lam omega_qh omega_h(eta), both of order eps^2 and eps
    ends = np.stack([ls.theta[:-1], ls.theta[1:]])
    scale = 1 + np.abs(ref.a).max() + np.abs(ref.b).max() + np.abs(ref.c).max()
    np.testing.assert_allclose(ls.a * ends ** 2 + ls.b * ends + ls.c, ref.a * ends ** 2 + ref.b * ends + ref.c,
                               rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(2 * ls.a * ends + ls.b, 2 * ref.a * ends + ref.b, rtol=0, atol=1e-9 * scale)
    grid = np.linspace(0, 1, 201)
    vals = np.array([_zeta(e, alpha, u, X, y, lam, sign) for e in grid])
    best = _zeta(ls.eta, alpha, u, X, y, lam, sign)
    assert best >= vals.max() - 1e-10 * (1 + np.abs(vals).max())


def test_reference_keeps_the_sweeps_conventions_on_a_last_piece_a_few_ulps_wide():
    # The case the property above once found (on identical columns, where it hinged on how a BLAS
    # kernel rounded each column), rebuilt from dyadic numbers so that every product and sum in
    # X^T (y alpha) and X^T (y q) is exact on any machine: omega_0h = -(1 - m_h eps), omega_qh = 1,
    # crossings at exactly 1 - m_h eps. Four columns with m = 10 make a last piece 10 eps wide (more
    # than the merge distance 8 eps); one with m = 6 crosses within rounding distance of 1, so the
    # sweep counts it as not reached (active on every piece, as it moves against its sign). At the
    # last piece's midpoint 1 - 5 eps that coordinate has already crossed, so the midpoint rule
    # alone would drop it there, a difference of lam/2 omega_qh^2 = 1/4 in a_2.
    eps = np.finfo(float).eps
    m = np.array([10, 10, 10, 10, 6.0])
    X = np.vstack([m * eps, 2 - m * eps])        # x_1h = w0 + wq, x_2h = wq - w0 (exact)
    y, lam = np.array([1.0, -1.0]), 0.5          # lam n = 1
    alpha, u = np.array([0.5, 0.5]), np.array([1.0, 0.0])
    sign = -np.ones(5)
    ls = signsvm.line_search(alpha, u, X, y, lam, sign)
    ref = signsvm.line_search_pieces_quadratic(alpha, u, X, y, lam, sign)
    w0, wq = X.T @ (y * alpha), X.T @ (y * (u - alpha))
    np.testing.assert_array_equal(w0, -(1 - m * eps))          # the instance is exact here
    np.testing.assert_array_equal(wq, np.ones(5))
    mid = 1 - 5 * eps
    assert sign[4] * (w0[4] + mid * wq[4]) < 0                 # the midpoint rule would drop it
    np.testing.assert_array_equal(ls.theta, [0.0, 1 - 10 * eps, 1.0])
    np.testing.assert_array_equal(ls.theta, ref.theta)
    np.testing.assert_array_equal(ls.a, [-0.5 * lam * 5, -0.5 * lam * 1])  # all five, then the near-1 one
    for mine, theirs in zip(ls[2:], ref[2:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)   # a few roundings of 5-term sums


def test_line_search_rejects_points_outside_the_cube():
    X, y = np.eye(2), np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="^u:"):
        signsvm.line_search(np.zeros(2), np.array([2.0, 0.0]), X, y, 1.0)


def test_frank_wolfe_reaches_certified_gap_and_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(1)
    n, d = 40, 6
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n))
    sign = np.array([1, -1, 0, 1, 0, -1.0])
    lam = 0.1
    res = signsvm.frank_wolfe(X, y, lam, sign, tol=1e-6, max_iter=20000)
    assert res.converged and res.gap <= 1e-6 and np.all(sign * res.w >= 0)
    assert res.primal == pytest.approx(signsvm.primal_objective(res.w, X, y, lam), rel=1e-12)
    w = cp.Variable(d)
    obj = lam / 2 * cp.sum_squares(w) + cp.sum(cp.pos(1 - cp.multiply(y, X @ w))) / n
    cons = [cp.multiply(sign[sign != 0], w[sign != 0]) >= 0]
    p_star = cp.Problem(cp.Minimize(obj), cons).solve(solver="CLARABEL")
    # certificate: D(alpha) <= P* <= P(w), and P(w) - P* <= gap (solver accuracy 1e-7 allowed)
    assert res.dual <= p_star + 1e-7 and res.primal - p_star <= res.gap + 1e-7


def test_frank_wolfe_says_when_it_stops_early():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((30, 4)), rng.choice([-1.0, 1.0], 30)
    with pytest.warns(signsvm.ConvergenceWarning, match="max_iter=3"):
        res = signsvm.frank_wolfe(X, y, 1e-3, max_iter=3)
    assert not res.converged and res.n_iter == 3 and len(res.history["gap"]) == 4
