"""The compiled interior-point iteration (``signsvm._ipm_kernel``) against the numpy iteration it
replaces on small dense problems, and its pieces against numpy and LAPACK."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from svmcert.signsvm import _ipm_kernel as kernel
from svmcert.signsvm.problem import make_problem
from svmcert.signsvm._signed_rows import SignedRows

ipm_module = importlib.import_module("svmcert.signsvm.interior_point")


def _instance(seed, n, d, weighted=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    weights = rng.uniform(0.5, 1.5, n) if weighted else None
    return X, y, sign, weights


def _run(X, y, lam, sign, weights, compiled, monkeypatch, **kw):
    monkeypatch.setattr(ipm_module, "uses_compiled_iteration", lambda n, d, sparse: compiled)
    p = make_problem(X, y, lam, sign, sample_weight=weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ipm_module.run_interior_point(p, kw.get("tol", 1e-9), kw.get("max_iter", 200), None, True)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 120), st.integers(1, 12), st.floats(-4, 1), st.booleans())
def test_the_compiled_iteration_follows_the_numpy_iteration(seed, n, d, log_lam_n, weighted):
    # the same Newton steps in another arithmetic (BLAS-3 normal matrix, LAPACK Cholesky, loop
    # solves, reciprocals): the certified values of the first iterations agree to rounding, which
    # the Newton matrix's conditioning amplifies at most mildly this early (1e-8 relative)
    X, y, sign, weights = _instance(seed, n, d, weighted)
    lam = 10.0 ** log_lam_n / n
    with pytest.MonkeyPatch.context() as mp:
        fused = _run(X, y, lam, sign, weights, True, mp, max_iter=4, tol=1e-15)
        plain = _run(X, y, lam, sign, weights, False, mp, max_iter=4, tol=1e-15)
    for key in ("primal", "dual"):
        a, b = np.asarray(fused.history[key]), np.asarray(plain.history[key])
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_both_iterations_certify_the_same_optimum(seed, weighted, monkeypatch):
    X, y, sign, weights = _instance(seed, 300, 8, weighted)
    lam = 1e-2 / 300
    fused = _run(X, y, lam, sign, weights, True, monkeypatch)
    plain = _run(X, y, lam, sign, weights, False, monkeypatch)
    assert fused.converged and plain.converged
    assert np.all(sign * fused.w >= 0.0)
    # each pair is certified within its gap of the optimum, so their primal values differ by at
    # most the larger gap; the Newton path is the same, so the counts agree within one iteration
    assert abs(fused.primal - plain.primal) <= max(fused.gap, plain.gap) + 1e-14 * plain.primal
    assert abs(fused.n_iter - plain.n_iter) <= 1
    # the reported certificate recomputed by the public objectives
    from svmcert.signsvm import dual_objective, primal_objective

    if weights is None:
        assert primal_objective(fused.w, X, y, lam) == pytest.approx(fused.primal, rel=1e-12)
        assert dual_objective(fused.alpha, X, y, lam, sign) == pytest.approx(fused.dual, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 60), st.integers(1, 10), st.booleans())
def test_the_compiled_certificate_is_the_numpy_certificate(seed, n, d, weighted):
    X, y, sign, weights = _instance(seed, n, d, weighted)
    rng = np.random.default_rng(seed + 1)
    lam = 0.3 / n
    c = lam * n
    box = np.ones(n) if weights is None else weights
    alpha = rng.uniform(-0.2, 1.2, n) * box                  # clipping is part of the certificate
    w = rng.standard_normal(d)
    Z = SignedRows(X, y)
    ref, w_ref, (zt_alpha, z_w) = ipm_module._certify(Z, w, alpha, lam, sign, c, weights)
    # the products handed on to the Newton step are the ones it would take, and only where the
    # certificate took them at the iterate itself (alpha inside its box, w inside S)
    inside_box, inside_s = np.all((alpha >= 0) & (alpha <= box)), np.all(sign * w >= 0)
    assert (zt_alpha is not None) == inside_box and (z_w is not None) == inside_s
    if inside_box:
        assert np.array_equal(zt_alpha, Z.T @ alpha)
    if inside_s:
        assert np.array_equal(z_w, Z @ w)
    p, dual, w_got, a = kernel.dense_certificate(X, y, w, alpha, lam, sign, c, box, weights is not None)
    scale = max(abs(ref.primal), abs(ref.dual), 1.0)
    assert p == pytest.approx(ref.primal, abs=1e-13 * scale)
    assert dual == pytest.approx(ref.dual, abs=1e-13 * scale)
    np.testing.assert_allclose(w_got, w_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(a, np.clip(alpha, 0.0, box))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 30))
def test_the_shifted_cholesky_and_its_solve(seed, d):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((d, d + 2))
    M = B @ B.T + 1e-3 * np.eye(d)
    L, ok = kernel._cholesky_shifted(M)
    assert ok
    np.testing.assert_allclose(L @ L.T, M, rtol=0, atol=1e-12 * np.abs(M).max())
    r = rng.standard_normal(d)
    x = kernel._cho_solve_lower(L, r)
    np.testing.assert_allclose(M @ x, r, rtol=0, atol=1e-9 * (np.abs(M).max() * np.abs(x).max() + 1.0))
    # a matrix no shift of at most 1e-8 max|M_hh| makes positive definite: reported, not raised
    _, ok = kernel._cholesky_shifted(-M)
    assert not ok


def test_the_compiled_iteration_is_used_only_on_small_dense_problems():
    uses = ipm_module.uses_compiled_iteration
    assert uses(1000, 60, False)
    assert not uses(1000, 60, True)                       # sparse X: the numpy iteration
    assert not uses(50, 60, False)                        # n < d: the Woodbury form
    assert not uses(5000, 784, False)                     # n d beyond FUSED_MAX_ENTRIES
    assert not uses(10 ** 5, kernel.FUSED_MAX_D + 1, False)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_certificate_hands_on_its_products_at_an_interior_iterate(weighted):
    # the numpy iteration reuses the certificate's Z^T alpha and Z w: at an iterate inside the box
    # and inside S (as the iteration keeps it) they must be the step's own products bit for bit
    X, y, sign, weights = _instance(7, 50, 6, weighted)
    rng = np.random.default_rng(8)
    box = np.ones(50) if weights is None else weights
    alpha = rng.uniform(0.1, 0.9, 50) * box
    w = np.abs(rng.standard_normal(6)) * np.where(sign == 0, rng.choice([-1.0, 1.0], 6), sign)
    Z = SignedRows(X, y)
    _, _, (zt_alpha, z_w) = ipm_module._certify(Z, w, alpha, 0.01, sign, 0.5, weights)
    assert np.array_equal(zt_alpha, Z.T @ alpha) and np.array_equal(z_w, Z @ w)
