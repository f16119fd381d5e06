"""Greedy coordinate selection of ``fit_weighted_svm`` (``selection="greedy"``,
``svmcert.screening._weighted_dca.greedy_compiled``): the compiled loop against its numpy twin,
every step raising the dual, and the certified answer against the cyclic one and a brute-force
recomputation of the objectives."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.kernels import rbf_kernel
from svmcert.screening import fit_weighted_svm
from svmcert.screening.weighted_svm import dual_objective, primal_objective
from svmcert.screening._weighted_dca import gain_coefficients, greedy_compiled, greedy_numpy, step_gains


def _problem(seed, n, zero_weights=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    y = np.where(X @ rng.standard_normal(3) + 0.4 * rng.standard_normal(n) > 0, 1.0, -1.0)
    w = rng.uniform(0.5, 1.5, n) / n
    w[rng.permutation(n)[:zero_weights]] = 0.0
    return rbf_kernel(X) + 1.0, y, w


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_compiled_greedy_takes_the_steps_of_its_numpy_twin(seed, squared):
    K, y, w = _problem(seed, 70, zero_weights=5)
    lam = 1e-2
    s, h = gain_coefficients(np.diag(K).copy(), w, lam, squared)
    a1, a2, m1, m2 = np.zeros(70), np.zeros(70), np.zeros(70), np.zeros(70)
    for _ in range(4):
        assert greedy_compiled(K, y, w, a1, m1, lam, squared, s, h, 25) == greedy_numpy(K, y, w, a2, m2, lam, squared, s, h, 25)
        # the same coordinates in the same order: the arithmetic is the same, so the iterates agree
        # to the last bit except where the margins' sums are grouped differently (none here)
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(m1, m2)
    assert np.all(a1[w == 0] == 0.0)                          # a zero-weight sample is never stepped


@pytest.mark.parametrize("squared", [False, True])
def test_step_gains_are_the_dual_increase_of_each_exact_step(squared):
    # the gain formula against the dual objective evaluated before and after each single step
    loss = "squared_hinge" if squared else "hinge"
    K, y, w = _problem(7, 40)
    lam = 3e-2
    alpha = np.random.default_rng(1).uniform(0, 1, 40)
    s, h = gain_coefficients(np.diag(K).copy(), w, lam, squared)
    m = y * (K @ (y * w * alpha)) / lam
    gains = step_gains(alpha, m, w, s, h, squared)
    base = dual_objective(alpha, K, y, lam, w, loss)
    for i in range(40):
        u = 1.0 - m[i] - (0.5 * alpha[i] if squared else 0.0)
        t = alpha[i] + s[i] * u
        moved = alpha.copy()
        moved[i] = max(t, 0.0) if squared else min(max(t, 0.0), 1.0)
        # D_w is a quadratic in alpha_i: the difference is exact up to rounding of D_w (~1e-16 of
        # its terms, which are O(1) here)
        assert dual_objective(moved, K, y, lam, w, loss) - base == pytest.approx(gains[i], abs=1e-12)
        assert gains[i] >= -1e-15


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), log_lam=st.floats(-4, 1), squared=st.booleans())
def test_every_greedy_step_raises_the_dual(seed, n, log_lam, squared):
    loss = "squared_hinge" if squared else "hinge"
    K, y, w = _problem(seed, n)
    lam = 10.0 ** log_lam
    s, h = gain_coefficients(np.diag(K).copy(), w, lam, squared)
    alpha, m = np.zeros(n), np.zeros(n)
    prev = dual_objective(alpha, K, y, lam, w, loss)
    for _ in range(3 * n):
        if greedy_compiled(K, y, w, alpha, m, lam, squared, s, h, 1) == 0:
            break
        now = dual_objective(alpha, K, y, lam, w, loss)
        assert now >= prev - 1e-13 * max(1.0, abs(prev))
        prev = now
    np.testing.assert_allclose(m, y * (K @ (y * w * alpha)) / lam, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1.0])
def test_greedy_and_cyclic_certify_the_same_optimum(loss, lam):
    K, y, w = _problem(3, 150, zero_weights=4)
    tol = 1e-9
    g = fit_weighted_svm(K, y, lam, w, loss, tol=tol, selection="greedy")
    c = fit_weighted_svm(K, y, lam, w, loss, tol=tol, selection="cyclic")
    assert g.converged and c.converged
    # the reported numbers recomputed by the public objectives from alpha alone
    P = primal_objective(g.alpha, K, y, lam, w, loss)
    D = dual_objective(g.alpha, K, y, lam, w, loss)
    assert P == pytest.approx(g.primal, rel=1e-12) and D == pytest.approx(g.dual, rel=1e-12)
    assert P - D <= tol * P * (1 + 1e-9)
    # both are certified within tol * P of the optimum, so their primal values differ by at most
    # the larger of the two gaps (plus rounding)
    assert abs(g.primal - c.primal) <= max(g.gap, c.gap) + 1e-13 * P


def test_selection_is_validated():
    K, y, w = _problem(0, 20)
    with pytest.raises(ValueError, match="selection: expected one of"):
        fit_weighted_svm(K, y, 0.1, w, selection="random")


def test_the_default_selection_is_greedy_and_the_gap_safe_path_stays_cyclic():
    import warnings

    from svmcert.exceptions import ConvergenceWarning
    from svmcert.experiments.safe_screening.gap_safe_ball import solve_path

    K, y, w = _problem(7, 60)
    lam = 1e-2
    default = fit_weighted_svm(K, y, lam, w, tol=1e-10)
    greedy = fit_weighted_svm(K, y, lam, w, tol=1e-10, selection="greedy")
    np.testing.assert_array_equal(default.alpha, greedy.alpha)
    assert default.n_iter == greedy.n_iter
    # the chapter's dual points after k random-order epochs are defined by that order: the path
    # must be the run of explicit cyclic epochs, whatever the default is
    (k, alpha, _), = solve_path(K, y, lam, w, "hinge", [3], seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cyclic = fit_weighted_svm(K, y, lam, w, "hinge", tol=1e-15, max_epochs=3, seed=3, check_psd=False,
                                  selection="cyclic")
    assert k == 3
    np.testing.assert_array_equal(alpha, cyclic.alpha)


@pytest.mark.parametrize("selection", ["greedy", "cyclic"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_a_tolerance_below_rounding_stops_at_a_stall_not_at_max_epochs(selection, loss):
    import warnings

    from svmcert.exceptions import ConvergenceWarning
    from svmcert.screening.weighted_svm import STALL_CERTIFICATES, STALL_GAP_ULPS

    # tol = 1e-17 is below what the margins resolve (relative gaps of about 2e-16 here): the run
    # must say it stalled, and stop long before max_epochs (it ran all 10000 epochs before)
    K, y, w = _problem(5, 120)
    lam = 1e-2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fit_weighted_svm(K, y, lam, w, loss, tol=1e-17, selection=selection, max_epochs=10000)
    messages = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
    assert res.n_iter < 1000
    if res.converged:            # a gap that rounds to (nearly) zero does meet 1e-17: no warning then
        assert res.gap <= 1e-17 * res.primal and not messages
    else:
        assert len(messages) == 1 and "stall" in messages[0]
    if loss == "hinge":          # measured: both orders stall here (they ran to max_epochs before)
        assert not res.converged
    # what it returns is still a certified pair: the gap recomputed from alpha alone, and at the
    # rounding level the rule requires
    P = primal_objective(res.alpha, K, y, lam, w, loss)
    D = dual_objective(res.alpha, K, y, lam, w, loss)
    assert P == pytest.approx(res.primal, rel=1e-12) and D == pytest.approx(res.dual, rel=1e-12)
    assert 0.0 <= P - D <= 1e-12 * P
    assert STALL_CERTIFICATES >= 2 and STALL_GAP_ULPS * np.finfo(float).eps < 1e-15
    # with the hinge loss a tolerance above the computed gap's floor but below the margins'
    # rounding (each free sample's residual moves by up to about sqrt(n) eps (|K| |w alpha|)_i / lam,
    # about 1e-14 of P here) is not certified either: the run says so and stops long before
    # max_epochs. The squared hinge's residuals move only to second order at its optimum (slope
    # 2 |1 - m - alpha / 2| + 2 mu there), so 1e-15 stays reachable. Above the bound both converge.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tight = fit_weighted_svm(K, y, lam, w, loss, tol=1e-15, selection=selection)
    messages = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
    if loss == "hinge":
        assert not tight.converged and tight.n_iter < 1000 and len(messages) == 1
        assert "rounding" in messages[0]
    else:
        assert tight.converged and tight.gap <= 1e-15 * tight.primal and not messages
    ok = fit_weighted_svm(K, y, lam, w, loss, tol=1e-11, selection=selection)
    assert ok.converged and ok.gap <= 1e-11 * ok.primal
