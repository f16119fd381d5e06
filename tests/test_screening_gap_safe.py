"""The gap-safe ball (Lemma 3.1) and safe sample screening for one weight vector (Lemma 3.2) of
Hanada et al., checked against high-accuracy solutions; the kernelised gap of Section 4.2."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.experiments.safe_screening import gap_safe_ball as exp
from svmcert.screening import gap_safe as gs
from svmcert.screening import weighted_svm as ws
from svmcert.signsvm.result import ConvergenceWarning


def _problem(seed, n=40, d=3, zero=0.1):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.uniform(-1, 1, (n, d)), np.ones((n, 1))])
    y = np.where(X[:, :d] @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    w = rng.uniform(0, 2, n)
    w[rng.random(n) < zero] = 0.0
    return X, y, w, float(n * 10 ** rng.uniform(-2.5, -0.5)), rng


def _star(X, y, w, lam, loss):
    res = ws.fit_weighted_svm(X @ X.T, y, lam, w, loss, tol=1e-13, max_epochs=100000)
    return res, ws.weights_from_dual(res.alpha, X, y, lam, w), gs.gap_safe_radius(res.primal, res.dual, lam)


def test_gap_safe_radius_formula_and_edge_cases():
    assert gs.gap_safe_radius(3.0, 1.0, 4.0) == pytest.approx(1.0)
    assert gs.gap_safe_radius(1.0, 1.0, 2.0) == 0.0
    assert gs.gap_safe_radius(1.0, 1.0 + 1e-15, 2.0) == 0.0          # rounding counts as zero gap
    assert gs.gap_safe_radius(1.0, -math.inf, 1.0) == math.inf          # alpha_hat outside the domain
    assert gs.gap_safe_radius(np.float32(3.0), np.float32(1.0), np.float32(4.0)) == pytest.approx(1.0)
    for args, word in [((1.0, 0.0, 0.0), "kappa"), ((1.0, 0.0, -1.0), "kappa"), ((0.0, 1.0, 1.0), "weak duality"),
                       ((np.nan, 0.0, 1.0), "primal"), ((1.0, np.nan, 1.0), "dual"), (("a", 0.0, 1.0), "primal")]:
        with pytest.raises(ValueError, match=word):
            gs.gap_safe_radius(*args)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(ws.LOSSES), st.integers(0, 3))
def test_lemma_3_1_the_optimum_lies_in_the_ball(seed, loss, kind):
    X, y, w, lam, rng = _problem(seed % 500)
    res, beta_star, r_star = _star(X, y, w, lam, loss)
    lo, hi = ws.dual_domain(loss)
    n = len(y)
    if kind == 0:                                   # early-stopped dual point and its model
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            alpha = ws.fit_weighted_svm(X @ X.T, y, lam, w, loss, max_epochs=int(rng.integers(1, 6)), tol=1e-15).alpha
        beta = ws.weights_from_dual(alpha, X, y, lam, w)
    elif kind == 1:                                 # random dual point, unrelated random model
        alpha = rng.uniform(0, 1 if np.isfinite(hi) else 3, n)
        beta = beta_star + rng.standard_normal(X.shape[1]) * 10 ** rng.uniform(-4, 0)
    elif kind == 2:                                 # exact dual, perturbed model
        alpha = res.alpha
        beta = beta_star + rng.standard_normal(X.shape[1]) * 10 ** rng.uniform(-6, -1)
    else:                                           # perturbed dual, its own model
        alpha = np.clip(res.alpha + 10 ** rng.uniform(-6, 0) * rng.standard_normal(n), lo, hi)
        beta = ws.weights_from_dual(alpha, X, y, lam, w)
    P = ws.linear_primal_objective(beta, X, y, lam, w, loss)
    D = ws.linear_dual_objective(alpha, X, y, lam, w, loss)
    r = gs.gap_safe_radius(P, D, lam)
    assert np.linalg.norm(beta - beta_star) <= r + r_star + 1e-12


def test_lemma_3_1_kappa_lambda_cannot_be_improved():
    # beta* + t e with X e = 0: only the regulariser changes, P - P* = lam t^2 / 2, so r = t (+ r*)
    rng = np.random.default_rng(0)
    n, d = 12, 20
    X = rng.standard_normal((n, d))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    w, lam = np.ones(n), 0.5
    res, beta_star, r_star = _star(X, y, w, lam, "hinge")
    e = np.linalg.svd(X)[2][-1]
    t = 1e-2
    r = gs.gap_safe_radius(ws.linear_primal_objective(beta_star + t * e, X, y, lam, w), res.dual, lam)
    assert t / r == pytest.approx(1.0, abs=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(ws.LOSSES), st.integers(1, 40))
def test_lemma_3_2_never_screens_a_support_vector(seed, loss, epochs):
    X, y, w, lam, rng = _problem(seed % 500, n=60)
    res, beta_star, r_star = _star(X, y, w, lam, loss)
    K = X @ X.T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        alpha = ws.fit_weighted_svm(K, y, lam, w, loss, max_epochs=epochs, tol=1e-15, seed=seed).alpha
    mask = gs.sss_screen(K, y, lam, w, alpha, loss)
    assert mask.dtype == bool and mask.shape == y.shape
    assert not np.any(mask & (res.alpha != 0))
    m_star = y * (X @ beta_star)
    slack = np.linalg.norm(X, axis=1) * r_star
    assert np.all(m_star[mask] + slack[mask] >= 1.0)


def test_screening_at_the_optimum_finds_the_clear_non_support_vectors():
    X, y, w, lam, _ = _problem(3, n=80)
    res, beta_star, r_star = _star(X, y, w, lam, "hinge")
    box = gs.margin_interval(X @ X.T, y, lam, w, res.alpha)
    # the ball's radius comes from the Fenchel-Young form of the gap; P - D as a difference agrees
    # up to its rounding (1e3 eps P in the gap, i.e. about 1e-7 in the radius here)
    assert box.radius == pytest.approx(math.sqrt(2 * ws.duality_gap(res.alpha, X @ X.T, y, lam, w) / lam), rel=1e-12)
    assert abs(box.radius ** 2 - r_star ** 2) * lam / 2 <= 1e3 * np.finfo(float).eps * res.primal
    assert np.all(box.lower <= box.upper)
    clear = y * (X @ beta_star) > 1 + 1e-6
    mask = gs.sss_screen(X @ X.T, y, lam, w, res.alpha)
    assert np.array_equal(mask, clear)


def test_screening_accepts_float32_and_matches_float64():
    X, y, w, lam, _ = _problem(4)
    res, _, _ = _star(X, y, w, lam, "hinge")
    K = X @ X.T
    a = gs.sss_screen(K.astype(np.float32), y.astype(np.float32), np.float32(lam), w.astype(np.float32),
                      res.alpha.astype(np.float32))
    b = gs.sss_screen(K, y, lam, w, res.alpha)
    # float32 rounding moves the margins by ~1e-7; only samples that close to the threshold may differ
    lower = gs.margin_interval(K, y, lam, w, res.alpha).lower
    assert np.all((a == b) | (np.abs(lower - 1) < 1e-3))


@pytest.mark.parametrize("change, word", [
    (dict(alpha_hat=np.full(3, 1.5)), "alpha_hat"), (dict(alpha_hat=np.full(3, -0.1), loss="squared_hinge"), "alpha_hat"),
    (dict(alpha_hat=np.ones(2)), "alpha_hat"), (dict(loss="logistic"), "loss"), (dict(lam=-1.0), "lam"),
    (dict(K=np.diag([1.0, -1.0, 1.0])), "positive semidefinite"), (dict(weights=np.array([1.0, -2.0, 1.0])), "weights"),
    (dict(y=np.array([1.0, 0.0, 1.0])), "y")])
def test_sss_screen_rejects_bad_input_naming_the_argument(change, word):
    args = dict(K=np.eye(3), y=np.array([1.0, -1.0, 1.0]), lam=1.0, weights=np.ones(3), alpha_hat=np.full(3, 0.5))
    args.update(change)
    with pytest.raises(ValueError, match=word):
        gs.sss_screen(**args)


def test_section_4_2_kernel_gap_as_printed_and_corrected():
    X, y, w, lam, rng = _problem(5)
    res, *_ = _star(X, y, w, lam, "hinge")
    K = X @ X.T
    # corrected formula = the gap computed with explicit features, for w = w~ and for w != w~
    for w_new in (w, np.clip(w + 0.3 * rng.standard_normal(len(w)), 0, None)):
        true = exp.true_gap(X, y, lam, w_new, w, res.alpha)
        assert exp.corrected_kernel_gap(K, y, lam, w_new, w, res.alpha) == pytest.approx(true, rel=1e-9, abs=1e-9)
    # as printed it is negative at the optimum (the true gap is ~0): smallest instance n = 1
    one = np.ones(1)
    assert exp.printed_kernel_gap(np.eye(1), one, 1.0, one, one, one) == pytest.approx(-1.0)
    assert exp.true_gap(np.eye(1), one, 1.0, one, one, one) == pytest.approx(0.0)


def test_gap_safe_radius_takes_numpy_scalars_and_0d_arrays():
    # the check that rejects strings and booleans (tests/test_faults.py) keeps numpy numbers
    assert gs.gap_safe_radius(np.float32(1.5), np.array(0.5), 1.0) == pytest.approx(np.sqrt(2.0))
    assert gs.gap_safe_radius(np.int64(2), 1, 2.0) == pytest.approx(1.0)


@pytest.mark.parametrize("P, D, kappa", [(1.0, 0.0, 1e-310), (1e308, -1e308, 1e300), (5e-324, 0.0, 1e300),
                                         (1e-300, 0.0, 1e10)])
def test_gap_safe_radius_stays_in_range_where_the_radius_does(P, D, kappa):
    """2 (P - D) / kappa overflowed (radius inf for a finite true radius of 1.4e155 or 2e4) or
    underflowed to 0 (an unsafe zero radius for a positive gap). The reference is the radius in
    exact arithmetic, sqrt of a Fraction, to double precision."""
    from fractions import Fraction

    q = 2 * (Fraction(P) - Fraction(D)) / Fraction(kappa)
    # sqrt of a rational to double precision: scale by a power of four into the normal range
    k = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
    ref = math.sqrt(float(q / Fraction(4) ** k)) * 2.0 ** k
    r = gs.gap_safe_radius(P, D, kappa)
    assert r > 0.0 and math.isfinite(r)
    assert r == pytest.approx(ref, rel=1e-14)
