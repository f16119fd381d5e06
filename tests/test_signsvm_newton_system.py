"""The interior-point method's Newton system (``signsvm._normal_equations``): the Woodbury form's
residual check, its refinement on the augmented system and its fallback on the d x d form; the
crossover's least budget; and the stall rule, which must not stop a run whose iterate still
converges.

The runs here come from the odd problems of ``benchmarks/odd_problems.py`` (repeated rows with
opposite labels, sign constraints, weights, n < d): with the Woodbury solves unchecked the
interior-point method stalls on them, and every answer below is checked through its own
certificate, recomputed with the public objectives, and against Clarabel."""

import importlib
import warnings

import numpy as np
import pytest

from svmcert import signsvm
from svmcert.reference import solve_primal_cvxpy
from svmcert.signsvm._normal_equations import NormalEquations, falls_back, woodbury_residual, WOODBURY_REFINEMENTS

normal_equations = importlib.import_module("svmcert.signsvm._normal_equations")
crossover_module = importlib.import_module("svmcert.signsvm.crossover")


def _tiny_conflict(seed, n=6, d=24):
    """n < d Gaussian rows, the first two equal with opposite labels; signs in {-1, 0, +1} and
    weights U(0.1, 5): the shape on which unchecked Woodbury solves stall at lam n = 1e-6."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[1] = X[0]
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1], y[2], y[-1] = 1.0, -1.0, 1.0, -1.0
    return X, y, rng.choice([-1.0, 0.0, 1.0], d), rng.uniform(0.1, 5.0, n)


def _weighted_certificate(res, X, y, lam, sign, s):
    """P(w) and D(alpha) of the weighted problem, written out here (not the solver's numbers)."""
    n = X.shape[0]
    assert np.all(sign * res.w >= 0) and np.all(res.alpha >= 0) and np.all(res.alpha <= s)
    P = 0.5 * lam * res.w @ res.w + s @ np.maximum(0.0, 1.0 - y * (X @ res.w)) / n
    v = X.T @ (y * res.alpha) / (lam * n)
    v = np.where(sign * v < 0.0, 0.0, v)
    D = res.alpha.sum() / n - 0.5 * lam * v @ v
    return P, D


@pytest.mark.parametrize("seed", range(4))
def test_checked_woodbury_solves_certify_where_unchecked_ones_stall(seed, monkeypatch):
    X, y, sign, s = _tiny_conflict(seed)
    n = X.shape[0]
    lam = 1e-6 / n
    monkeypatch.setattr(normal_equations, "WOODBURY_RESIDUAL_LIMIT", np.inf)   # unchecked, as before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        before = signsvm.solve(X, y, lam, sign, solver="interior-point", sample_weight=s)
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error", signsvm.ConvergenceWarning)         # certified: no warning
        res = signsvm.solve(X, y, lam, sign, solver="interior-point", sample_weight=s)
    # unchecked, the run stalls (8 iterations without progress) and needs the crossover, if it
    # certifies at all; checked, Woodbury solves fail their check and are refined (or, where the
    # refinement does not pass it, the d x d form finishes)
    assert "woodbury_until" not in before.history and "woodbury_refined" not in before.history
    assert before.n_iter >= 12
    assert before.history.get("crossover", {}).get("outcome") == "certified" or not before.converged
    assert res.converged and "crossover" not in res.history
    assert res.history.get("woodbury_refined", 0) > 0 or res.history["woodbury_until"] <= res.n_iter
    assert res.n_iter < before.n_iter
    P, D = _weighted_certificate(res, X, y, lam, sign, s)
    assert P == pytest.approx(res.primal, rel=1e-12) and P - D <= 1e-6 * P
    ref = solve_primal_cvxpy(X, y, lam, sign, weights=s)      # Clarabel at 1e-10 tolerances
    assert D <= ref.value * (1 + 1e-8) and P - ref.value <= (P - D) + 1e-8 * ref.value


def test_the_crossover_budget_has_a_floor_for_tiny_problems(monkeypatch):
    # unchecked Woodbury solves stall on these; the crossover's iterations cost more than
    # CROSSOVER_FLOPS n d min(n, d) = 3456 flops by the cost model, and without the floor it gives
    # up on the budget: the run is then not certified
    monkeypatch.setattr(normal_equations, "WOODBURY_RESIDUAL_LIMIT", np.inf)
    X, y, sign, s = _tiny_conflict(3)
    n, d = X.shape
    lam = 1e-6 / n
    res = signsvm.solve(X, y, lam, sign, solver="interior-point", sample_weight=s)
    assert res.converged and res.history["crossover"]["outcome"] == "certified"
    assert res.history["crossover"]["flops"] > crossover_module.CROSSOVER_FLOPS * n * d * min(n, d)
    P, D = _weighted_certificate(res, X, y, lam, sign, s)
    assert P - D <= 1e-6 * P
    monkeypatch.setattr(crossover_module, "CROSSOVER_MIN_FLOPS", 0.0)
    with pytest.warns(signsvm.ConvergenceWarning, match="stall"):
        short = signsvm.solve(X, y, lam, sign, solver="interior-point", sample_weight=s)
    assert not short.converged and "crossover" not in short.history


def test_a_passing_woodbury_solve_is_returned_unchanged_and_a_failing_one_refined_or_repeated(monkeypatch):
    rng = np.random.default_rng(0)
    n, d = 15, 40
    X = rng.standard_normal((n, d))
    b = rng.uniform(0.5, 2.0, d)
    delta = rng.uniform(0.5, 2.0, n)
    r = rng.standard_normal(d)
    neq = NormalEquations(X, X.T, b, delta)
    x = neq.solve(r)
    rb = r / b                                   # the Woodbury formula, written out
    W = (X / b) @ X.T + np.diag(1.0 / delta)
    assert not neq.primal_form and np.allclose(x, rb - X.T @ np.linalg.solve(W, X @ rb) / b, rtol=1e-12, atol=0)
    M = np.diag(b) + X.T @ (delta[:, None] * X)
    assert np.allclose(M @ x, r, rtol=0, atol=1e-12 * np.abs(r).max())
    assert woodbury_residual(X, X.T, b, delta, x, r) <= 1e-14
    assert woodbury_residual(X, X.T, b, delta, x * (1 + 1e-3), r) > 1e-5        # the check can fail
    monkeypatch.setattr(normal_equations, "WOODBURY_RESIDUAL_LIMIT", -1.0)    # every solve fails it
    refined = NormalEquations(X, X.T, b, delta)
    x_r = refined.solve(r)                       # ... but already meets the refinement's target
    assert not refined.primal_form and refined.refined == 0 and np.array_equal(x_r, x)
    monkeypatch.setattr(normal_equations, "WOODBURY_REFINED_LIMIT", -1.0)     # no refinement reaches it
    failing = NormalEquations(X, X.T, b, delta)
    x_d = failing.solve(r)
    assert failing.primal_form and failing.refined == WOODBURY_REFINEMENTS
    assert np.array_equal(x_d, NormalEquations(X, X.T, b, delta, primal_form=True).solve(r))
    assert np.allclose(M @ x_d, r, rtol=0, atol=1e-12 * np.abs(r).max())


def _wide_scaled(seed, n=40, d=1200):
    """n << d Gaussian columns scaled by 10^U(-4, 4), random labels: beyond the shapes where the
    d x d form is affordable (falls_back is False), and where at lam n = 1e-6 unrefined Woodbury
    solves lose every digit."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-4, 4, d)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, y, rng


def test_one_refinement_step_recovers_a_woodbury_solve_that_lost_every_digit():
    X, _, rng = _wide_scaled(0)
    n, d = X.shape
    b = np.full(d, 1e-6)                           # lam n I, free signs
    delta = 10.0 ** rng.uniform(-6, 6, n)          # margins from far inside to far outside
    r = rng.standard_normal(d)
    M = np.diag(b) + X.T @ (delta[:, None] * X)
    x_ref = np.linalg.solve(M, r)                  # LU of the d x d matrix, independent of the forms
    res_ref = woodbury_residual(X, X.T, b, delta, x_ref, r)
    rb = r / b
    W = (X / b) @ X.T + np.diag(1.0 / delta)
    x_w = rb - X.T @ np.linalg.solve(W, X @ rb) / b      # the Woodbury formula, written out
    assert woodbury_residual(X, X.T, b, delta, x_w, r) > 1e-2       # it lost every digit
    neq = NormalEquations(X, X.T, b, delta)
    x = neq.solve(r)
    assert not neq.primal_form and 1 <= neq.refined <= WOODBURY_REFINEMENTS
    # the refined solve is as accurate as LU on the d x d matrix: its residual at most 100 times
    # that one's (a backward-stable solve leaves a small multiple of the machine epsilon)
    assert woodbury_residual(X, X.T, b, delta, x, r) <= max(100 * res_ref, 1e-12)


@pytest.mark.parametrize("seed, pattern", [(5, "free"), (9, "mixed")])
def test_refined_woodbury_solves_certify_wide_problems_beyond_the_d_by_d_form(seed, pattern, monkeypatch):
    X, y, rng = _wide_scaled(seed)
    n, d = X.shape
    assert not falls_back(n, d)
    sign = np.zeros(d) if pattern == "free" else rng.choice([-1.0, 0.0, 1.0], d)
    lam = 1e-6 / n
    failed, residual = [], normal_equations.woodbury_residual

    def spy(*args):
        value = residual(*args)
        failed.append(value > normal_equations.WOODBURY_RESIDUAL_LIMIT)
        return value

    # unrefined, Woodbury solves of this run lose every digit (whether the run still certifies
    # then depends on rounding, so on the BLAS: on one thread here these two did not)
    monkeypatch.setattr(normal_equations, "WOODBURY_REFINEMENTS", 0)
    monkeypatch.setattr(normal_equations, "woodbury_residual", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        before = signsvm.solve(X, y, lam, sign, solver="interior-point")
    assert any(failed) and "woodbury_refined" not in before.history and "woodbury_until" not in before.history
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error", signsvm.ConvergenceWarning)
        res = signsvm.solve(X, y, lam, sign, solver="interior-point")
    assert res.converged and res.history["woodbury_refined"] > 0 and "woodbury_until" not in res.history
    assert "crossover" not in res.history
    s = np.ones(n)
    P, D = _weighted_certificate(res, X, y, lam, sign, s)
    assert P == pytest.approx(res.primal, rel=1e-9) and P - D <= 1e-6 * P
    ref = solve_primal_cvxpy(X, y, lam, sign)                # Clarabel at 1e-10 tolerances
    assert D <= ref.value * (1 + 1e-8) + 1e-12 and P - ref.value <= (P - D) + 1e-8 * abs(ref.value) + 1e-12


def test_the_fallback_is_limited_to_affordable_shapes():
    assert falls_back(100, 1000) and falls_back(1500, 3000)
    assert not falls_back(100, 1001) and not falls_back(1500, 3001) and not falls_back(3000, 4001)


@pytest.mark.parametrize("seed", [3, 14])
def test_a_lucky_early_certificate_does_not_stop_a_run_that_still_converges(seed, monkeypatch):
    # random labels, d = 4, lam n = 5e-6: the first iteration's certificate is far better than the
    # next ones', which then fall steadily; judged by the best gap alone (STALL_FALL = 0) the run
    # is declared stalled after 9 iterations, short of tol; with the iterate's own fall counted it
    # certifies, and agrees with Clarabel
    interior_point = importlib.import_module("svmcert.signsvm.interior_point")
    rng = np.random.default_rng(seed)
    n = 1000
    X = rng.standard_normal((n, 4))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    sign = np.array([1.0, -1.0, -1.0, 1.0])
    lam = 5e-6 / n
    res = signsvm.solve(X, y, lam, sign, solver="interior-point")
    assert res.converged and res.gap <= 1e-6 * res.primal and "crossover" not in res.history
    gaps = np.array(res.history["gap"]) / np.array(res.history["primal"])
    assert gaps[1] < gaps[2:9].min()                 # the lucky early certificate: better than the next 7
    ref = solve_primal_cvxpy(X, y, lam, sign)
    assert res.dual <= ref.value * (1 + 1e-8) and res.primal - ref.value <= res.gap + 1e-8 * ref.value
    monkeypatch.setattr(interior_point, "STALL_FALL", 0.0)
    with pytest.warns(signsvm.ConvergenceWarning, match="stall"):
        before = signsvm.solve(X, y, lam, sign, solver="interior-point")
    assert not before.converged and before.n_iter < res.n_iter


def test_a_dense_enough_wide_csr_forms_its_woodbury_matrix_from_column_blocks(monkeypatch):
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    n, d = 30, 700
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    Xs = sp.csr_matrix(X)
    b = rng.uniform(0.5, 2.0, d)
    delta = rng.uniform(0.5, 2.0, n)
    r = rng.standard_normal(d)
    assert normal_equations.gram_from_dense_blocks(Xs, columns=True)
    assert not normal_equations.gram_from_dense_blocks(sp.csr_matrix(X * (rng.random((n, d)) < 0.03)), columns=True)
    used, real = [], normal_equations.weighted_gram
    monkeypatch.setattr(normal_equations, "weighted_gram", lambda A, w: used.append(A.shape) or real(A, w))
    x_sparse = NormalEquations(Xs, Xs.T, b, delta).solve(r)
    assert used == [(d, n)]                              # X^T's row blocks: X's columns
    M = np.diag(b) + X.T @ (delta[:, None] * X)         # the d x d matrix, written out
    x_ref = np.linalg.solve(M, r)
    assert np.allclose(x_sparse, x_ref, rtol=0, atol=1e-11 * np.abs(x_ref).max())
