"""Bounded work in ``signsvm``: the interior-point method against cvxpy, ``solve``'s automatic
choice, time limits, and the budgets of polishing and of the bounded least-squares fit.

No test measures time: budgets are checked through the work the solvers report (passes, Newton
iterations, polishing flops, least-squares solves) and time limits only through what a run
returns (``converged=False``, the warning, a certificate that still holds)."""

import importlib
import warnings

import numpy as np
import pytest
from scipy.optimize import lsq_linear

from svmcert import signsvm
from svmcert.reference import solve_primal_cvxpy
from svmcert.signsvm.active_set import iteration_flops, polish_active_set
from svmcert.signsvm.bounded_lsq import bvls
from svmcert.signsvm.coordinate_ascent import dca_options, run_coordinate_ascent
from svmcert.signsvm.problem import make_problem
from svmcert.signsvm.shrinking_rounds import (POLISH_AFTER_EPOCHS, POLISH_ATTEMPT_WORK, POLISH_FLOPS_PER_ENTRY,
                                              POLISH_FLOPS_PER_WORK)
from svmcert.signsvm.solve import (AUTO_IPM_ABOVE_SCALED_NORM, AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED, AUTO_IPM_BELOW_LAM_N,
                                   auto_plan, row_norm_scale)

from svmcert.signsvm.plan import (AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY, AUTO_IPM_MAX_PASSES_SPARSE_COSTLY,
                                  rows_threshold)

plan_module = importlib.import_module("svmcert.signsvm.plan")    # the rules of auto (patched where a test turns one off)
normal_equations = importlib.import_module("svmcert.signsvm._normal_equations")  # its fallback, likewise


def _gaussian_classes(n, d, seed=0):
    """Two classes N(+u, I), N(-u, I), ||u|| = 1: the case of the 24-minute BVLS call (n = 5000,
    d = 1000, lam n = 1), at the sizes given."""
    rng = np.random.default_rng(seed)
    y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    return X, y


def _problem(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.8)
    y = np.sign(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n))
    y[y == 0] = 1.0
    return X, y, rng.choice([-1.0, 0.0, 1.0], size=d)


def _check_certificate(res, X, y, lam, sign):
    """The certificate recomputed from (w, alpha) with the public objectives (eq. 10)."""
    assert np.all(sign * res.w >= 0) and np.all((res.alpha >= 0) & (res.alpha <= 1))
    P = signsvm.primal_objective(res.w, X, y, lam)
    D = signsvm.dual_objective(res.alpha, X, y, lam, sign)
    assert P == pytest.approx(res.primal, rel=1e-12) and D == pytest.approx(res.dual, rel=1e-10, abs=1e-15)
    return P, D


@pytest.mark.parametrize("seed, n, d, lam_n", [(0, 80, 6, 1e-3), (1, 80, 6, 10.0), (2, 60, 90, 1e-2),
                                               (3, 40, 200, 1.0), (4, 150, 12, 1e-6)])
def test_interior_point_certifies_and_matches_cvxpy(seed, n, d, lam_n):
    # n < d takes the Woodbury (n x n) form of the Newton system, n > d the d x d form
    X, y, sign = _problem(seed, n, d)
    lam = lam_n / n
    res = signsvm.interior_point(X, y, lam, sign, tol=1e-9)
    assert res.converged and res.gap <= 1e-9 * res.primal
    P, D = _check_certificate(res, X, y, lam, sign)
    ref = solve_primal_cvxpy(X, y, lam, sign)
    # Clarabel at 1e-10 tolerances: its value is within ~1e-9 P* of P*, so P* in [D, P] means
    assert D <= ref.value * (1 + 1e-8) and P - ref.value <= res.gap + 1e-8 * ref.value


def test_interior_point_reaches_rounding_level_gaps():
    X, y, sign = _problem(5, 120, 8)
    res = signsvm.interior_point(X, y, 1e-4, sign, tol=1e-13)
    assert res.converged and res.n_iter <= 60


def test_solve_auto_picks_by_shape_and_lambda():
    n, d = 400, 6
    X, y, sign = _problem(6, n, d)
    small, large = 0.1 * AUTO_IPM_BELOW_LAM_N / n, 10.0 / n
    assert auto_plan(n, d, np.count_nonzero(X), small) == ("interior-point", 0)
    plan, passes = auto_plan(n, d, np.count_nonzero(X), large)
    assert plan == "dual-coordinate" and passes >= 1
    for lam in (small, large):
        res = signsvm.solve(X, y, lam, sign)
        assert res.converged and res.gap <= 1e-6 * res.primal
        _check_certificate(res, X, y, lam, sign)
    assert signsvm.solve(X, y, small, sign).history["method"] == ["interior-point"]
    assert signsvm.solve(X, y, large, sign).history["method"][0] == "dual-coordinate"


def test_auto_goes_straight_to_the_interior_point_method_where_rows_are_long_against_lam_n():
    # the rule on mean ||x||^2 / (lam n): the scaled-down Gaussian case (||x||^2 ~ 100) at lam n
    # = 1 runs the interior-point method alone; the same rows divided by 10 (||x||^2 ~ 1) start
    # with coordinate ascent; as a sparse X (no compiled interior-point iteration, and the method
    # beyond the sparse limit in passes) the rows need AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY lam n.
    # That X keeps a fifth of the entries of d = 200 Gaussian classes: a CSR X much denser is
    # summed by dense blocks and planned as the dense array (_normal_equations.SPARSE_GRAM_DENSE_FROM)
    from scipy import sparse

    X, y = _gaussian_classes(500, 100)
    lam = 1.0 / 500
    assert row_norm_scale(X) >= AUTO_IPM_ABOVE_SCALED_NORM * lam * 500
    res = signsvm.solve(X, y, lam)
    assert res.history["method"] == ["interior-point"] and res.converged
    _check_certificate(res, X, y, lam, np.zeros(100))
    short = signsvm.solve(X / 10.0, y, lam)
    assert short.history["method"][0] == "dual-coordinate" and short.converged
    X2, y2 = _gaussian_classes(500, 200, seed=1)
    Xs = sparse.csr_matrix(X2 * (np.random.default_rng(1).random(X2.shape) < 0.2))
    assert rows_threshold(500, 200, Xs.nnz, True) == AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
    q = row_norm_scale(Xs) / (lam * 500)
    assert q >= AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
    costly = signsvm.solve(Xs, y2, lam)
    assert costly.history["method"] == ["interior-point"] and costly.converged
    below = Xs * np.sqrt(0.5 * AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY / q)      # rows 7.5 lam n long
    assert signsvm.solve(below, y2, lam).history["method"][0] == "dual-coordinate"
    # the threshold itself: the plan flips where row_norm crosses AUTO_IPM_ABOVE_SCALED_NORM lam n
    edge = AUTO_IPM_ABOVE_SCALED_NORM * lam * 500
    assert auto_plan(500, 100, X.size, lam, row_norm=edge)[0] == "interior-point"
    assert auto_plan(500, 100, X.size, lam, row_norm=np.nextafter(edge, 0))[0] == "dual-coordinate"
    assert auto_plan(500, 100, X.size, lam)[0] == "dual-coordinate"          # statistic not given


def test_the_rows_rule_reaches_large_dense_problems_where_the_interior_point_method_is_cheap():
    # 12000 x 100 is beyond the compiled iteration (n d > 2^20), but the interior-point method
    # costs about 15 passes of coordinate ascent there (ipm_is_cheap): the Gaussian rows (||x||^2
    # ~ 100 at lam n = 1) go to it alone and it certifies; the same shape as CSR (the sparse model:
    # about 177 passes, not cheap) needs rows AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY lam n long, and
    # d > n or a wide dense shape whose method costs many passes (MNIST-5k's, 54) keep coordinate
    # ascent first
    from svmcert.signsvm.interior_point import uses_compiled_iteration
    from svmcert.signsvm.solve import AUTO_IPM_MAX_PASSES, DCA_SEC_PER_WORK, ipm_is_cheap, ipm_seconds

    n, d = 12000, 100
    assert not uses_compiled_iteration(n, d, False) and ipm_is_cheap(n, d)
    X, y = _gaussian_classes(n, d)
    lam = 1.0 / n
    res = signsvm.solve(X, y, lam)
    assert res.history["method"] == ["interior-point"] and res.converged
    _check_certificate(res, X, y, lam, np.zeros(d))
    assert auto_plan(n, d, X.size, lam, row_norm=row_norm_scale(X))[0] == "interior-point"
    assert auto_plan(n, d, X.size, lam, sparse=True, row_norm=row_norm_scale(X))[0] == "interior-point"
    assert auto_plan(n, d, X.size, lam, sparse=True, row_norm=10.0)[0] == "dual-coordinate"      # 10 lam n
    assert not ipm_is_cheap(n, d, sparse=True) and not ipm_is_cheap(100, 1000)
    # the threshold in passes, from the time models: MNIST-5k's shape is beyond it
    cost = ipm_seconds(5000, 784) / ((5000 * 784 + 4 * 5000) * DCA_SEC_PER_WORK)
    assert cost > AUTO_IPM_MAX_PASSES and not ipm_is_cheap(5000, 784)
    assert auto_plan(5000, 784, 5000 * 784, 0.1 / 5000, row_norm=1.0)[0] == "dual-coordinate"


def test_the_rows_rule_reaches_large_sparse_problems_where_the_interior_point_method_is_cheap():
    # a CSR X with short rows (5 nonzeros of d = 100) and n = 20000: the interior-point method's
    # sparse time model costs about 35 passes of coordinate ascent over its nonzeros, within
    # AUTO_IPM_MAX_PASSES_SPARSE, so rows ||x||^2 >= 2 lam n go to it alone and it certifies; with
    # nnz unknown, d beyond SPARSE_IPM_MAX_DIM, or rows short against lam n, the plan is unchanged
    from scipy import sparse

    from svmcert.signsvm.solve import (AUTO_IPM_MAX_PASSES_SPARSE, DCA_SEC_PER_WORK, SPARSE_IPM_MAX_DIM, ipm_is_cheap,
                                       ipm_seconds)

    n, d = 20000, 100
    rng = np.random.default_rng(3)
    y = np.repeat([1.0, -1.0], n // 2)
    X = sparse.random(n, d, density=0.05, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    X.data += np.repeat(y, np.diff(X.indptr)) / np.sqrt(5.0)
    cost = ipm_seconds(n, d, True, X.nnz) / ((X.nnz + 4 * n) * DCA_SEC_PER_WORK)
    assert cost <= AUTO_IPM_MAX_PASSES_SPARSE and ipm_is_cheap(n, d, True, X.nnz)
    assert not ipm_is_cheap(n, d, True) and not ipm_is_cheap(10 * n, SPARSE_IPM_MAX_DIM + 1, True, 10 * X.nnz)
    assert not ipm_is_cheap(n, d, True, 20 * X.nnz)                  # long rows: a costly normal matrix
    lam = 1.0 / n
    assert row_norm_scale(X) >= AUTO_IPM_ABOVE_SCALED_NORM * lam * n
    res = signsvm.solve(X, y, lam)
    assert res.history["method"] == ["interior-point"] and res.converged
    _check_certificate(res, X.toarray(), y, lam, np.zeros(d))
    lam_big = row_norm_scale(X) / (0.5 * AUTO_IPM_ABOVE_SCALED_NORM * n)      # rows short against lam n
    assert auto_plan(n, d, X.nnz, lam_big, True, row_norm=row_norm_scale(X))[0] == "dual-coordinate"
    assert signsvm.solve(X, y, lam_big).history["method"][0] == "dual-coordinate"


def test_the_rows_threshold_with_and_without_sign_constraints():
    # rows with mean ||x||^2 = 1.6 lam n: above both thresholds (1.25, free and constrained), so
    # both problems run the interior-point method alone and certify; at 1.1 lam n, below both,
    # both start with coordinate ascent; each plan flips exactly at its own threshold
    assert max(AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED, AUTO_IPM_ABOVE_SCALED_NORM) < 1.6
    assert 1.1 < min(AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED, AUTO_IPM_ABOVE_SCALED_NORM)
    X, y = _gaussian_classes(500, 100)
    lam = 1.0 / 500
    sign = np.where(np.arange(100) % 2 == 0, 1.0, 0.0)
    for q, method in ((1.6, "interior-point"), (1.1, "dual-coordinate")):
        Xq = X * np.sqrt(q * lam * 500 / row_norm_scale(X))
        assert row_norm_scale(Xq) == pytest.approx(q * lam * 500)
        for s in (sign, np.zeros(100)):
            res = signsvm.solve(Xq, y, lam, s)
            assert res.history["method"][0] == method and res.converged
            _check_certificate(res, Xq, y, lam, s)
    for constrained, threshold in ((True, AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED), (False, AUTO_IPM_ABOVE_SCALED_NORM)):
        edge = threshold * lam * 500
        assert auto_plan(500, 100, X.size, lam, row_norm=edge, constrained=constrained)[0] == "interior-point"
        assert auto_plan(500, 100, X.size, lam, row_norm=np.nextafter(edge, 0),
                         constrained=constrained)[0] == "dual-coordinate"


@pytest.mark.parametrize("constrained", [False, True])
def test_a_sparse_x_beyond_the_dense_limit_in_passes_needs_rows_as_long_as_the_sparse_threshold(constrained):
    # d = 1000, 10 nonzeros a row: the model puts the interior-point method at 60 passes at
    # n = 1e5 (between AUTO_IPM_MAX_PASSES and the sparse limit) and 27 at 1e6 (within the dense
    # limit). The plan flips at AUTO_IPM_ABOVE_SCALED_NORM_SPARSE lam n at 1e5 and at the dense
    # threshold at 1e6; a dense X of either shape keeps the dense threshold
    from svmcert.signsvm.plan import AUTO_IPM_ABOVE_SCALED_NORM_SPARSE, AUTO_IPM_MAX_PASSES, ipm_passes, rows_threshold
    from svmcert.signsvm.solve import AUTO_IPM_MAX_PASSES_SPARSE

    dense = AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED if constrained else AUTO_IPM_ABOVE_SCALED_NORM
    assert dense < AUTO_IPM_ABOVE_SCALED_NORM_SPARSE
    for n, threshold in ((100_000, AUTO_IPM_ABOVE_SCALED_NORM_SPARSE), (1_000_000, dense)):
        passes = ipm_passes(n, 1000, True, 10 * n)
        assert (passes > AUTO_IPM_MAX_PASSES) == (threshold == AUTO_IPM_ABOVE_SCALED_NORM_SPARSE)
        assert rows_threshold(n, 1000, 10 * n, True, constrained) == threshold
        assert passes <= AUTO_IPM_MAX_PASSES_SPARSE
        lam = 5.0 / n
        edge = threshold * lam * n
        plan = [auto_plan(n, 1000, 10 * n, lam, True, row_norm=r, constrained=constrained)[0]
                for r in (edge, np.nextafter(edge, 0))]
        assert plan == ["interior-point", "dual-coordinate"]
    lam = 5.0 / 100_000                     # between the thresholds, dense: the dense rule (model 20 passes)
    q = 0.5 * (dense + AUTO_IPM_ABOVE_SCALED_NORM_SPARSE)
    assert auto_plan(100_000, 100, 10**7, lam, row_norm=q * 5.0, constrained=constrained)[0] == "interior-point"
    assert rows_threshold(100_000, 100, 10**7, False, constrained) == dense


@pytest.mark.parametrize("constrained", [False, True])
def test_a_sparse_x_beyond_the_sparse_limit_in_passes_needs_rows_as_long_as_the_costly_threshold(constrained):
    # 1e4 x 1000 CSR, 10 nonzeros a row: the model puts the interior-point method at about 226
    # passes, beyond AUTO_IPM_MAX_PASSES_SPARSE (not cheap), yet it can run (d <= n, d <=
    # SPARSE_IPM_MAX_DIM). Rows at least AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY lam n long go to it
    # alone and it certifies; just below, coordinate ascent comes first. Beyond SPARSE_IPM_MAX_DIM or
    # AUTO_IPM_MAX_PASSES_SPARSE_COSTLY passes, with d > n, or for a dense X of that cost the rule does
    # not apply (an infinite threshold)
    from scipy import sparse

    from svmcert.signsvm.plan import AUTO_IPM_MAX_PASSES_SPARSE, SPARSE_IPM_MAX_DIM, ipm_is_cheap, ipm_passes

    n, d = 10_000, 1000
    rng = np.random.default_rng(11)
    y = np.repeat([1.0, -1.0], n // 2)
    X = sparse.random(n, d, density=0.01, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    X.data += np.repeat(y, np.diff(X.indptr)) / np.sqrt(10.0)
    assert ipm_passes(n, d, True, X.nnz) > AUTO_IPM_MAX_PASSES_SPARSE and not ipm_is_cheap(n, d, True, X.nnz)
    threshold = AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
    assert rows_threshold(n, d, X.nnz, True, constrained) == threshold
    sign = np.where(np.arange(d) % 2 == 0, 1.0, 0.0) if constrained else np.zeros(d)
    lam = row_norm_scale(X) / (1.2 * threshold * n)
    res = signsvm.solve(X, y, lam, sign)
    assert res.history["method"] == ["interior-point"] and res.converged
    P, D = _check_certificate(res, X, y, lam, sign)
    assert P - D <= 1e-6 * P
    edge = threshold * lam * n
    assert [auto_plan(n, d, X.nnz, lam, True, row_norm=r, constrained=constrained)[0]
            for r in (edge, np.nextafter(edge, 0))] == ["interior-point", "dual-coordinate"]
    assert rows_threshold(n, SPARSE_IPM_MAX_DIM + 1, X.nnz, True, constrained) == np.inf
    assert ipm_passes(15_000, 2500, True, 375_000) > AUTO_IPM_MAX_PASSES_SPARSE_COSTLY      # many passes
    assert rows_threshold(15_000, 2500, 375_000, True, constrained) == np.inf
    assert rows_threshold(500, 1000, X.nnz, True, constrained) == np.inf            # d > n
    assert not ipm_is_cheap(5000, 784) and rows_threshold(5000, 784, 5000 * 784, False, constrained) == np.inf
    assert auto_plan(5000, 784, 5000 * 784, 1.0 / 5000, row_norm=100.0, constrained=constrained)[0] == "dual-coordinate"


def test_sparse_rows_between_the_thresholds_start_with_coordinate_ascent_and_certify():
    # 3e4 x 800 CSR, 1.5% nonzeros (model about 100 passes) at q = 2: coordinate ascent first
    # (under the dense threshold's rule it would be the interior-point method alone), certified
    from scipy import sparse

    from svmcert.signsvm.plan import AUTO_IPM_MAX_PASSES, ipm_passes

    n, d = 30000, 800
    rng = np.random.default_rng(5)
    y = np.repeat([1.0, -1.0], n // 2)
    X = sparse.random(n, d, density=0.015, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    X.data += np.repeat(y, np.diff(X.indptr)) / np.sqrt(12.0)
    assert ipm_passes(n, d, True, X.nnz) > AUTO_IPM_MAX_PASSES
    lam = row_norm_scale(X) / (2.0 * n)
    res = signsvm.solve(X, y, lam)
    assert res.history["method"][0] == "dual-coordinate" and res.converged
    P, D = _check_certificate(res, X, y, lam, np.zeros(d))         # the public objectives take CSR
    assert P - D <= 1e-6 * P


def test_row_norm_scale_is_the_mean_squared_row_norm_in_any_layout():
    from scipy import sparse

    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 7)) * np.arange(1, 301)[:, None]
    expected = np.mean((X ** 2).sum(axis=1))
    for layout in (X, np.asfortranarray(X), sparse.csr_matrix(X)):
        assert row_norm_scale(layout) == pytest.approx(expected, rel=1e-13)


def test_auto_falls_back_to_the_interior_point_method_when_the_budget_ends(monkeypatch):
    # the scaled-down Gaussian case: coordinate ascent needs thousands of passes, more than the
    # budget auto gives it; the interior-point method then certifies. (Its rows, ||x||^2 ~ 100 at
    # lam n = 1, would send auto straight to the interior-point method: that rule is switched off
    # here to test the fallback behind it.)
    monkeypatch.setattr(plan_module, "AUTO_IPM_ABOVE_SCALED_NORM", np.inf)
    X, y = _gaussian_classes(500, 100)
    lam = 1.0 / 500
    plan, passes = auto_plan(500, 100, X.size, lam)
    res = signsvm.solve(X, y, lam)
    assert res.history["method"] == ["dual-coordinate", "interior-point"]
    assert res.converged and res.gap <= 1e-6 * res.primal
    P, D = _check_certificate(res, X, y, lam, np.zeros(100))
    ref = solve_primal_cvxpy(X, y, lam)
    assert D <= ref.value * (1 + 1e-8) and P - ref.value <= res.gap + 1e-8 * ref.value


def test_coordinate_ascent_on_the_scaled_down_gaussian_case_stays_within_its_budget():
    # n = 5000, d = 1000 spent 24 minutes in one BVLS call of the polishing; at n = 500, d = 100
    # the same structure (more samples strictly inside (0, 1) than coordinates) appears, and the
    # run must end at max_epochs with every polishing attempt inside its flop budget
    X, y = _gaussian_classes(500, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        res = signsvm.dual_coordinate_ascent(X, y, 1.0 / 500, max_epochs=1200)
    assert res.n_iter <= 1200
    attempts = res.history["polish"]
    assert attempts and any(a["free"] > a["coords"] for a in attempts)
    for a in attempts:
        assert a["flops"] <= a["budget"] and a["iterations"] <= 20
    _check_certificate(res, X, y, 1.0 / 500, np.zeros(100))


def test_a_polishing_budget_follows_the_work_of_the_round_not_its_passes():
    # shrinking makes a round's passes far cheaper than passes x nnz; the attempt's flop budget is
    # POLISH_FLOPS_PER_ENTRY per unit of the work the round did (a budget of passes x nnz gave a
    # sparse round of 4.5e6 units 2.2e9 flops and ended auto's coordinate ascent)
    X, y = _gaussian_classes(500, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        res = signsvm.dual_coordinate_ascent(X, y, 1.0 / 500, max_epochs=1200)
    attempts = res.history["polish"]
    assert attempts
    for a in attempts:
        assert 0.0 < a["round_work"] < POLISH_AFTER_EPOCHS * X.size          # the passes were shrunken
        assert a["budget"] <= POLISH_FLOPS_PER_ENTRY * a["round_work"] * (1 + 1e-12)
        assert a["flops"] <= a["budget"]


def test_a_polishing_attempt_gets_no_more_than_the_work_budget_has_left():
    X, y = _gaussian_classes(500, 100)
    p = make_problem(X, y, 1.0 / 500)
    max_work = 8e6                  # an attempt at 6.7e6 units, after a round of 3.2e6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        res = run_coordinate_ascent(p, dca_options(tol=1e-6, max_epochs=5000, max_work=max_work), None)
    attempts = res.history["polish"]
    assert attempts
    left = [(max_work - a["work"] - POLISH_ATTEMPT_WORK) * POLISH_FLOPS_PER_WORK for a in attempts]
    assert all(a["budget"] <= cap * (1 + 1e-12) and a["flops"] <= a["budget"] for a, cap in zip(attempts, left))
    assert any(cap < POLISH_FLOPS_PER_ENTRY * a["round_work"] for a, cap in zip(attempts, left))   # the cap bit


def test_polishing_declines_an_iteration_beyond_its_budget():
    X, y = _gaussian_classes(300, 40)
    lam = 1.0 / 300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        rough = signsvm.dual_coordinate_ascent(X, y, lam, max_epochs=50, polish=False)
    Z = y[:, None] * X
    omega = Z.T @ rough.alpha / (lam * 300)
    nf = int(((rough.alpha > 0) & (rough.alpha < 1)).sum())
    stats = {}
    assert polish_active_set(Z, lam, np.zeros(40), rough.alpha, omega, tol=1e-12,
                             max_flops=iteration_flops(nf, 40) * (1 - 1e-9), stats=stats) is None
    assert stats == {"iterations": 0, "flops": 0.0, "outcome": "budget"}


def test_bvls_matches_scipy_and_stops_at_its_caps():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(50):
        m, k = rng.integers(1, 15, 2)
        A, b = rng.standard_normal((m, k)), 3 * rng.standard_normal(m)
        x = bvls(A, b, max_solves=10 * k + 10)
        ref = lsq_linear(A, b, bounds=(0.0, 1.0), method="bvls", tol=1e-14).x
        assert x is not None and np.all((x >= 0) & (x <= 1))
        f = lambda v: float(np.sum((A @ v - b) ** 2))          # noqa: E731
        worst = max(worst, (f(x) - f(ref)) / (1 + f(ref)))
    assert worst <= 1e-12                                      # both optimal: equal residuals up to rounding
    A, b = rng.standard_normal((30, 120)), 5 * rng.standard_normal(30)
    stats = {}
    assert bvls(A, b, max_solves=3, stats=stats) is None
    assert stats["solves"] == 3 and stats["status"] == "max_solves"
    assert bvls(A, b, max_flops=1.0, stats=stats) is None and stats["status"] == "max_flops"


@pytest.mark.parametrize("solver", ["dual-coordinate", "interior-point", "frank-wolfe", "auto"])
def test_a_time_limit_ends_the_run_with_a_valid_certificate(solver):
    X, y = _gaussian_classes(400, 30)
    lam = 1e-2 / 400
    opts = {"dual-coordinate": dict(max_epochs=10**8), "frank-wolfe": dict(max_iter=10**8),
            "interior-point": {}, "auto": {}}[solver]
    limit = 1e-4 if solver in ("interior-point", "auto") else 0.2   # the IPM needs ~0.05 s here
    with pytest.warns(signsvm.ConvergenceWarning, match="time_limit"):
        res = signsvm.solve(X, y, lam, solver=solver, tol=1e-15, time_limit=limit, **opts)
    assert not res.converged
    P, D = _check_certificate(res, X, y, lam, np.zeros(30))
    assert P - D == pytest.approx(res.gap, rel=1e-9, abs=1e-15) and res.gap >= -1e-15


def test_estimator_accepts_the_interior_point_method():
    X, y, sign = _problem(7, 200, 5)
    a = signsvm.SignConstrainedSVC(sign_constraints=sign, lam=1e-5, solver="interior-point", tol=1e-9).fit(X, y)
    b = signsvm.SignConstrainedSVC(sign_constraints=sign, lam=1e-5, tol=1e-9).fit(X, y)
    assert a.result_.converged and b.result_.converged
    assert abs(a.result_.primal - b.result_.primal) <= a.result_.gap + b.result_.gap


@pytest.mark.parametrize("lam_n, max_iter", [(0.01, 12), (1.0, 8), (0.01, 3)])
def test_an_interior_point_run_stopped_short_is_finished_by_crossover(lam_n, max_iter):
    # the iteration cap stops the interior-point method short of 1e-10 (after 3 iterations at
    # lam n = 0.01 far short: the first active-set iterations move many samples and coordinates);
    # the exact solve on the sets its margins identify must then certify 1e-10, and the answer
    # must agree with cvxpy's optimum within that certificate
    rng = np.random.default_rng(5)
    n, d = 120, 300
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    sign = np.where(np.arange(d) % 3 == 0, 1.0, 0.0)
    lam = lam_n / n
    with warnings.catch_warnings():
        warnings.simplefilter("error", signsvm.ConvergenceWarning)     # certified: no warning
        res = signsvm.interior_point(X, y, lam, sign, tol=1e-10, max_iter=max_iter)
    assert res.converged and res.n_iter == max_iter and res.gap <= 1e-10 * res.primal
    assert res.history["crossover"]["outcome"] == "certified"
    P, D = _check_certificate(res, X, y, lam, sign)
    ref = solve_primal_cvxpy(X, y, lam, sign)
    assert D <= ref.value * (1 + 1e-8) and P - ref.value <= res.gap + 1e-8 * ref.value


def test_a_crossover_from_a_poor_iterate_is_refused_and_the_run_says_so():
    # after one iteration (relative gap about 50) the margins do not identify the sets: the
    # active-set iterations find no certificate within their budget, and the run keeps its
    # interior-point certificate, uncertified, with a warning
    rng = np.random.default_rng(5)
    n, d = 120, 300
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    sign = np.where(np.arange(d) % 3 == 0, 1.0, 0.0)
    with pytest.warns(signsvm.ConvergenceWarning, match="max_iter=1"):
        res = signsvm.interior_point(X, y, 0.01 / n, sign, tol=1e-10, max_iter=1)
    assert not res.converged and "crossover" not in res.history
    _check_certificate(res, X, y, 0.01 / n, sign)


def _repeated_rows(seed):
    """100 rows, every one twice (30% of the copies relabelled), d = 1000, weights U(0.1, 5) and
    random signs in {-1, 0, +1}: the shape of convergence_grid.py's duplicates family, weighted."""
    rng = np.random.default_rng(seed)
    half = rng.standard_normal((50, 1000))
    X = np.vstack([half, half])
    y = np.sign(X @ rng.standard_normal(1000) + 0.5 * rng.standard_normal(100))
    y[y == 0] = 1.0
    y[50:] = np.where(rng.random(50) < 0.3, -y[:50], y[:50])
    return X, y, rng.uniform(0.1, 5.0, 100), rng.choice([-1.0, 0.0, 1.0], 1000)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("lam_n", [1e-4, 1e-2])
def test_crossover_certifies_a_stalled_weighted_run_on_repeated_rows(seed, lam_n, monkeypatch):
    # with the Woodbury solves left unchecked (as beyond the d x d form's limits), the
    # interior-point method stalls at relative gaps of 5e-6 to 7e-4 here (its Newton directions
    # lose every digit late in the run); the crossover's first iteration moves most coordinates
    # between their sets, and it must go on to a certificate that the reference optimum of the
    # same weighted problem does not contradict (within its accuracy of about 1e-9, as in the
    # crossover test above). tests/test_signsvm_newton_system.py runs the same problems checked.
    monkeypatch.setattr(normal_equations, "WOODBURY_RESIDUAL_LIMIT", np.inf)
    X, y, s, sign = _repeated_rows(seed)
    lam = lam_n / 100
    with warnings.catch_warnings():
        warnings.simplefilter("error", signsvm.ConvergenceWarning)
        res = signsvm.solve(X, y, lam, sign, solver="interior-point", sample_weight=s)
    assert res.converged and res.gap <= 1e-6 * res.primal
    assert res.history["crossover"]["outcome"] == "certified"
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= s) and np.all(sign * res.w >= 0)
    hinge = s @ np.maximum(0.0, 1.0 - y * (X @ res.w)) / 100
    assert 0.5 * lam * res.w @ res.w + hinge == pytest.approx(res.primal, rel=1e-12)
    ref = solve_primal_cvxpy(X, y, lam, sign, weights=s)       # Clarabel at 1e-10 tolerances
    assert res.dual <= ref.value * (1 + 1e-8) and res.primal - ref.value <= res.gap + 1e-8 * ref.value
