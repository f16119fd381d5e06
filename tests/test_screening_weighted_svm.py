"""Weighted regularised ERM in kernel form (Hanada et al., eqs. 2-7, Table 5): conjugates, the
objectives, the certified coordinate-ascent solver (numba and numpy engines) against cvxpy."""

import warnings

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.reference.weighted_svm import (kernel_factor, solve_weighted_dual_cvxpy,
                                            solve_weighted_primal_cvxpy)
from svmcert.screening import _weighted_dca as dca
from svmcert.screening import weighted_svm as ws
from svmcert.signsvm.result import ConvergenceWarning


def _problem(seed, n=40, d=4, zero=0.15):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.uniform(-1, 1, (n, d)), np.ones((n, 1))])      # intercept as a feature
    y = np.where(X[:, :d] @ rng.standard_normal(d) + 0.4 * rng.standard_normal(n) > 0, 1.0, -1.0)
    w = rng.uniform(0, 2, n)
    w[rng.random(n) < zero] = 0.0
    lam = float(n * 10 ** rng.uniform(-2.5, 0))
    return X, y, w, lam


def _random_alpha(rng, n, loss):
    return rng.uniform(0, 1, n) if loss == "hinge" else rng.uniform(0, 3, n)


@settings(max_examples=100, deadline=None)
@given(st.floats(-3, 3), st.sampled_from(ws.LOSSES))
def test_conjugate_matches_brute_force_supremum(s, loss):
    # sup_t (s t - l(t)) on a grid through the kink t = 1: exact for the hinge, within h^2/4 for the
    # squared hinge (curvature 2 at the maximiser); outside the domain the sup grows with the range.
    h = 2.0 ** -12
    t = np.arange(-8, 8 + h / 2, h)
    t2 = np.arange(-16, 16 + h / 2, h)
    sup1 = np.max(s * t - ws.loss_value(t, loss))
    sup2 = np.max(s * t2 - ws.loss_value(t2, loss))
    closed = float(ws.loss_conjugate(s, loss))
    lo, hi = ws.dual_domain(loss)
    if lo <= -s <= hi:
        assert sup1 <= closed + 1e-12 and closed - sup1 <= h * h / 4 + 1e-12
        assert sup2 == pytest.approx(sup1, abs=1e-12)
    else:
        assert np.isinf(closed)
        assert sup2 - sup1 >= 8 * max(lo + s, -s - hi) - 1e-9


@settings(max_examples=200, deadline=None)
@given(st.floats(-5, 5), st.floats(0, 1), st.sampled_from(ws.LOSSES))
def test_fenchel_young_residual_is_nonnegative_and_zero_exactly_on_link_7(m, a, loss):
    if loss == "squared_hinge":
        a = 3 * a
    fy = float(ws.fenchel_young_residuals(m, a, loss))
    naive = float(ws.loss_value(m, loss) + ws.loss_conjugate(-a, loss) + a * m)
    assert fy >= 0.0 and fy == pytest.approx(naive, abs=1e-12 * (1 + abs(m)) ** 2)
    # -a in dl(m): hinge a = 1 (m < 1), a = 0 (m > 1), any a (m = 1); squared hinge a = 2 max(0, 1 - m)
    M, A = Fraction(m), Fraction(a)
    if loss == "hinge":
        exact = max(Fraction(0), 1 - M) - A * (1 - M)
        on_link = M == 1 or A == (1 if M < 1 else 0)
    else:
        exact = max(Fraction(0), 1 - M) ** 2 + A * A / 4 - A + A * M
        on_link = A == 2 * max(Fraction(0), 1 - M)
    assert (exact == 0) == on_link                 # the residual vanishes exactly on link (7), nowhere else
    assert fy == pytest.approx(float(exact), rel=1e-12, abs=1e-12 * (1 + abs(m)) ** 2)
    if exact == 0:
        assert fy == 0.0                           # on the link the rounding-safe forms give exactly 0
    elif exact > Fraction(1e-12) * (1 + abs(M)) ** 2:  # off the link by more than rounding: positive
        assert fy > 0.0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(ws.LOSSES))
def test_kernel_objectives_equal_explicit_ones_and_weak_duality(seed, loss):
    X, y, w, lam = _problem(seed % 1000, n=25)
    rng = np.random.default_rng(seed)
    K = X @ X.T
    alpha = _random_alpha(rng, len(y), loss)
    beta = ws.weights_from_dual(alpha, X, y, lam, w)
    P, D = ws.primal_objective(alpha, K, y, lam, w, loss), ws.dual_objective(alpha, K, y, lam, w, loss)
    assert P == pytest.approx(ws.linear_primal_objective(beta, X, y, lam, w, loss), rel=1e-12, abs=1e-12)
    assert D == pytest.approx(ws.linear_dual_objective(alpha, X, y, lam, w, loss), rel=1e-12, abs=1e-12)
    gap = ws.duality_gap(alpha, K, y, lam, w, loss)
    assert gap == pytest.approx(P - D, rel=1e-9, abs=1e-9 * (abs(P) + abs(D) + 1))
    assert gap >= 0.0                                   # eq. (10): weak duality at every point
    np.testing.assert_allclose(ws.margins(alpha, K, y, lam, w), y * (X @ beta), atol=1e-10)


@pytest.mark.parametrize("loss", ws.LOSSES)
@pytest.mark.parametrize("seed", [0, 1])
def test_fit_is_certified_against_cvxpy_primal_and_dual(seed, loss):
    X, y, w, lam = _problem(seed)
    K = X @ X.T
    res = ws.fit_weighted_svm(K, y, lam, w, loss, tol=1e-10)
    prim = solve_weighted_primal_cvxpy(X, y, lam, w, loss)
    dual = solve_weighted_dual_cvxpy(K, y, lam, w, loss)
    assert res.converged and 0 <= res.gap <= 1e-10 * res.primal
    # weak duality across solvers (rounding only): D_lib <= P_ref, D_ref <= P_lib
    assert res.dual <= prim.value * (1 + 1e-12) and dual.value <= res.primal * (1 + 1e-12)
    # P_lib - P* <= gap and P_ref >= P*
    assert res.primal - prim.value <= res.gap + 1e-12 * res.primal
    # eq. (5): cvxpy's independent primal and dual agree (Clarabel at 1e-10)
    assert prim.value - dual.value <= 1e-8 * prim.value
    # eq. (6): beta from the library's alpha is within the certified radii of cvxpy's beta
    beta = ws.weights_from_dual(res.alpha, X, y, lam, w)
    assert np.linalg.norm(beta - prim.beta) <= np.sqrt(2 * res.gap / lam) + np.sqrt(2 * (prim.value - dual.value + 1e-12 * prim.value) / lam)
    assert res.primal == pytest.approx(ws.primal_objective(res.alpha, K, y, lam, w, loss), rel=1e-12)
    assert res.dual == pytest.approx(ws.dual_objective(res.alpha, K, y, lam, w, loss), rel=1e-12)


@pytest.mark.parametrize("low_rank", [True, False])
@pytest.mark.parametrize("loss", ws.LOSSES)
def test_numba_engine_equals_numpy_reference(loss, low_rank):
    X, y, w, lam = _problem(5, n=60)
    K = X @ X.T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = ws.fit_weighted_svm(K, y, lam, w, loss, max_epochs=20, tol=1e-15, engine="numpy", low_rank=low_rank)
        b = ws.fit_weighted_svm(K, y, lam, w, loss, max_epochs=20, tol=1e-15, engine="numba", low_rank=low_rank)
    np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-12)
    assert a.gap == pytest.approx(b.gap, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("loss", ws.LOSSES)
def test_low_rank_phase_reaches_the_same_certified_optimum(loss):
    # K = X X^T has rank 5: the factor phase (pivoted Cholesky) and the Gram phase agree
    X, y, w, lam = _problem(9, n=80)
    K = X @ X.T
    G = ws.pivoted_cholesky(K, 40)
    assert G is not None and G.shape[1] == 5 and np.abs(G @ G.T - K).max() <= 1e-12 * np.abs(K).max()
    assert ws.pivoted_cholesky(np.eye(10), 5) is None
    a = ws.fit_weighted_svm(K, y, lam, w, loss, tol=1e-12, low_rank=True)
    b = ws.fit_weighted_svm(K, y, lam, w, loss, tol=1e-12, low_rank=False)
    assert a.converged and b.converged
    assert abs(a.primal - b.primal) <= 1e-12 * a.primal + a.gap + b.gap
    np.testing.assert_allclose(a.margins, b.margins, atol=2 * np.sqrt(2 * (a.gap + b.gap) / lam) * np.sqrt(np.diag(K).max()) + 1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(ws.LOSSES))
def test_one_epoch_step_maximises_along_its_coordinate(seed, loss):
    # the closed-form coordinate step is the exact maximiser of D_w along alpha_i (grid comparison)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    X = rng.standard_normal((n, 3)) * rng.choice([0.0, 1.0], size=(n, 3), p=[0.2, 0.8])
    y = rng.choice([-1.0, 1.0], n)
    w = rng.uniform(0.05, 2, n)
    lam = float(10 ** rng.uniform(-1, 1))
    K = X @ X.T
    alpha = _random_alpha(rng, n, loss)
    i = int(rng.integers(n))
    m = y * (K @ (y * w * alpha)) / lam
    stepped = alpha.copy()
    dca.epoch_numpy(np.array([i]), K, y, w, stepped, m.copy(), lam, loss == "squared_hinge")
    on_factor = alpha.copy()                         # the same step computed from K = X X^T's factor X
    dca.epoch_factor_numpy(np.array([i]), X, y, w, on_factor, X.T @ (y * w * alpha) / lam, lam, loss == "squared_hinge")
    np.testing.assert_allclose(on_factor, stepped, rtol=1e-12, atol=1e-12)
    lo, hi = ws.dual_domain(loss)
    grid = np.linspace(lo, hi if np.isfinite(hi) else 6.0, 601)
    A = np.tile(alpha, (grid.size, 1))
    A[:, i] = grid

    def dual(A):  # eq. (4) written out with explicit features, one row of A per point
        neg_conj = A if loss == "hinge" else A - A * A / 4
        V = (A * (y * w)) @ X
        return neg_conj @ w - np.sum(V * V, axis=1) / (2 * lam)

    best = dual(A).max()
    assert dual(stepped[None, :])[0] >= best - 1e-12 * (1 + abs(best))


def test_zero_weights_get_the_alpha_of_link_7():
    X, y, w, lam = _problem(3, zero=0.4)
    res = ws.fit_weighted_svm(X @ X.T, y, lam, w, "hinge", tol=1e-12)
    idle = w == 0
    m = res.margins
    assert np.all(res.alpha[idle & (m < 1)] == 1.0) and np.all(res.alpha[idle & (m > 1)] == 0.0)
    sq = ws.fit_weighted_svm(X @ X.T, y, lam, w, "squared_hinge", tol=1e-12)
    np.testing.assert_allclose(sq.alpha[idle], 2 * np.maximum(0, 1 - sq.margins[idle]))
    none = ws.fit_weighted_svm(X @ X.T, y, lam, np.zeros_like(w))
    assert none.converged and none.primal == 0.0 and none.gap == 0.0 and np.all(none.alpha == 1.0)


def test_stopping_early_warns_and_the_gap_still_certifies():
    X, y, w, lam = _problem(4)
    K = X @ X.T
    with pytest.warns(ConvergenceWarning, match="max_epochs=1"):
        res = ws.fit_weighted_svm(K, y, lam / 100, w, tol=1e-14, max_epochs=1)
    assert not res.converged and res.n_iter == 1
    best = ws.fit_weighted_svm(K, y, lam / 100, w, tol=1e-12)
    assert res.primal - best.dual <= res.gap + 1e-9 and best.primal >= res.dual


def test_regularised_intercept_is_a_constant_feature():
    X, y, w, lam = _problem(6)
    K0 = X[:, :-1] @ X[:, :-1].T
    np.testing.assert_allclose(ws.regularised_intercept(K0, 2.0), np.hstack([X[:, :-1], 2 * X[:, -1:]]) @ np.hstack([X[:, :-1], 2 * X[:, -1:]]).T)


def test_float32_inputs_give_the_float64_answer():
    X, y, w, lam = _problem(7)
    K = X @ X.T
    a = ws.fit_weighted_svm(K.astype(np.float32), y.astype(np.float32), np.float32(lam), w.astype(np.float32),
                            tol=1e-10, check_psd=True)
    # the same numbers in float64 (rounded to float32 first, so K is indefinite at the 1e-7 level:
    # the float64 PSD test would rightly reject it)
    b = ws.fit_weighted_svm(K.astype(np.float32).astype(float), y, float(np.float32(lam)),
                            w.astype(np.float32).astype(float), tol=1e-10, check_psd=False)
    assert a.alpha.dtype == np.float64 and a.primal == pytest.approx(b.primal, rel=1e-12)


def test_kernel_factor_reproduces_the_gram_matrix():
    X, *_ = _problem(8)
    F = kernel_factor(X @ X.T)
    np.testing.assert_allclose(F @ F.T, X @ X.T, atol=1e-10)


@pytest.mark.parametrize("change, word", [
    (dict(K=np.ones((3, 4))), "K"), (dict(K="nonsym"), "symmetric"), (dict(K="indef"), "positive semidefinite"),
    (dict(y=np.array([1.0, 2.0, -1.0])), "y"), (dict(lam=0.0), "lam"), (dict(lam=np.nan), "lam"),
    (dict(weights=np.array([1.0, -1.0, 1.0])), "weights"), (dict(weights=np.ones(2)), "weights"),
    (dict(loss="logistic"), "loss"), (dict(tol=-1.0), "tol"), (dict(max_epochs=0), "max_epochs"),
    (dict(engine="cuda"), "engine"), (dict(K="nan"), "K"), (dict(low_rank="yes"), "low_rank")])
def test_fit_rejects_bad_input_naming_the_argument(change, word):
    args = dict(K=np.eye(3), y=np.array([1.0, -1.0, 1.0]), lam=1.0, weights=np.ones(3))
    special = {"nonsym": np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
               "indef": np.diag([1.0, -1.0, 1.0]), "nan": np.diag([1.0, np.nan, 1.0])}
    kw = {}
    for key, val in change.items():
        if key == "K" and isinstance(val, str):
            val = special[val]
        (args if key in args else kw)[key] = val
    with pytest.raises(ValueError, match=word):
        ws.fit_weighted_svm(args["K"], args["y"], args["lam"], args["weights"], **kw)


def test_dual_objective_rejects_alpha_outside_the_domain():
    with pytest.raises(ValueError, match="alpha"):
        ws.dual_objective(np.array([0.5, 1.5]), np.eye(2), np.array([1.0, -1.0]), 1.0, np.ones(2), "hinge")
    with pytest.raises(ValueError, match="alpha"):
        ws.duality_gap(np.array([0.5, -0.1]), np.eye(2), np.array([1.0, -1.0]), 1.0, np.ones(2), "squared_hinge")
    # the squared hinge's domain is unbounded above
    assert np.isfinite(ws.dual_objective(np.array([5.0, 7.0]), np.eye(2), np.array([1.0, -1.0]), 1.0, np.ones(2),
                                         "squared_hinge"))


def test_a_claimed_convergence_holds_in_exact_arithmetic():
    """The gap is computed from margins rounded in float64, each wrong by up to about
    sqrt(n) eps (|K| |w alpha|)_i / lam. At lam = 1e-11 (n = 20, a linear kernel) the computed gap
    met tol = 1e-9 while the exact one was about 280 times tol P, and the fit claimed convergence.
    A fit now certifies only with that rounding added to its gap; here it warns instead. Whatever
    it claims is checked in exact rational arithmetic (fractions) from alpha alone."""
    from fractions import Fraction as F

    from svmcert.kernels import linear_kernel

    rng = np.random.default_rng(5)
    X = rng.standard_normal((20, 1))
    y = np.where(rng.random(20) < 0.5, 1.0, -1.0)
    w, lam, tol = np.full(20, 0.05), 1e-11, 1e-9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = ws.fit_weighted_svm(linear_kernel(X), y, lam, w, tol=tol)
    u = [F(a) * F(b) * F(c) for a, b, c in zip(y, w, fit.alpha)]
    beta = sum(u[i] * F(X[i, 0]) for i in range(20)) / F(lam)
    half = F(lam) / 2 * beta * beta
    P = sum(F(w[i]) * max(F(0), 1 - F(y[i]) * F(X[i, 0]) * beta) for i in range(20)) + half
    D = sum(F(w[i]) * F(fit.alpha[i]) for i in range(20)) - half
    if fit.converged:
        assert P - D <= F(tol) * P
    else:
        messages = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
        assert len(messages) == 1 and "rounding" in messages[0]
    assert not fit.converged                    # measured: the exact gap is about 280 tol P
