"""Drivers behind the checks added for the Reproduction page: each check must be able to fail."""

import numpy as np
import pytest

from svmcert.experiments.safe_screening import weighted_erm_conjugates as cj
from svmcert.experiments.sign_constrained import duality, line_search_lemma3 as lemma3, line_search, lp_step
from svmcert.experiments.safe_screening import gap_safe_ball as gap_safe
from svmcert.experiments.feature_elimination import qp1_active_set as qp1
from svmcert.featelim import check_working_set


def test_table1_pnorm_and_smoothness_as_printed_are_refuted():
    assert cj.printed_pnorm([-1.0], 1) == -1.0 and cj.printed_pnorm([3.0, 4.0], 2) == pytest.approx(5.0)
    ce = cj.printed_smoothness_counterexample()
    assert ce["difference"] == pytest.approx(4.5) and ce["difference"] > ce["mu_times_distance"]


def test_biconjugate_holds_for_convex_and_fails_for_the_foil():
    bic = cj.biconjugate_checks(h=2.0 ** -5).set_index("function")
    assert bic.loc["hinge", "max_abs_error"] < 1e-12
    assert bic.loc["double well (not convex)", "largest_gap_below_f"] == pytest.approx(1.0)


def test_midpoint_modulus_separates_convex_from_concave_H():
    u, v = np.array([[1.0]]), np.array([[4.0]])
    quad = cj.midpoint_modulus(lambda B: 0.5 * np.sum(B ** 2, axis=1), u, v)
    root = cj.midpoint_modulus(lambda B: 0.5 * np.sum(B ** 2, axis=1) + np.sqrt(np.abs(B[:, 0])), u, v)
    assert quad == pytest.approx(1.0) and root < 1.0


def test_conjugate_growth_flags_the_l1_norm_only():
    g = cj.conjugate_growth(h=2.0 ** -4).set_index("regulariser")
    assert g.loc["L2 regulariser (lam = 2)", "infinite_at"] == 0
    assert g.loc["L1 norm (lam' = 0.5, not strongly convex)", "infinite_at"] > 0


def test_lemma2_widening_and_a_wrong_widening():
    M = np.array([[1.0, 2.0], [2.0, 4.0]])                # rank 1, null space spanned by (2, -1)
    Z = np.array([[2.0], [-1.0]]) / np.sqrt(5.0)
    wide = np.zeros((2, 4))
    wide[:, [0, 2]] = M
    Zw = qp1.widen_null_space(Z, 4, [1, 3])
    assert Zw.shape == (4, 3) and np.abs(wide @ Zw).max() < 1e-15
    assert np.linalg.matrix_rank(Zw) == 3
    assert np.abs(wide @ qp1.widen_null_space(Z, 4, [0, 1])).max() > 0.1   # the zeros in the wrong place
    assert qp1.lemma2_widening(0, trials=30)["ok"].all()


def test_lemma1_rows_stay_independent_when_r1_fails():
    g, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, -1.0, 1.0])
    all_rows = np.ones(3, dtype=bool)                      # three doubly-active samples: R1 fails (Lemma 3)
    assert not check_working_set(all_rows, all_rows, g, y, 1.0).r1
    assert qp1.lemma1_independent(all_rows, all_rows, g, y)


def test_lp_optimal_face():
    assert lp_step.optimal_face_dimension([1.0]) == 0
    assert lp_step.optimal_face_dimension([1.0, 0.0, -2.0]) == 1


def test_sec3_reduction_printed_and_corrected():
    X, y = np.array([[1.0], [-1.0]]), np.array([1.0, -1.0])
    assert duality.sec3_reduction(X, y, 1.0, set(), {0}, as_printed=True)[0] == pytest.approx(1.0, abs=1e-8)
    assert duality.sec3_reduction(X, y, 1.0, set(), {0}, as_printed=False)[0] <= 1e-12


def test_intercept_ball_and_lemma_a5_counterexample():
    assert gap_safe.intercept_ball()["distance_over_radius"] > 1.0
    assert gap_safe.intercept_ball(regularise=True)["distance_over_radius"] < 1.0
    ce = gap_safe.lemma_a5_proof_counterexample()
    assert ce["norm_v_minus_c"] == ce["S"] and ce["a_dot_v_minus_c"] != ce["S_times_norm_a"]


def test_lemma3_affine_error_is_rounding_sized():
    inst = line_search.make_instances(0, {name: 1 for name in line_search.FAMILIES})
    assert max(lemma3.affine_error(i, fractions=(0.0, 0.5, 1.0)) for i in inst) < 1.0
