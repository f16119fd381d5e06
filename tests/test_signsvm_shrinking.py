"""Dual coordinate ascent with shrinking and active-set polishing (the default path of
``signsvm.solve``): the compiled directed step against the numpy reference step, the certified
optimum against cvxpy and the unshrunk reference engine, and the polishing on its own."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert import signsvm
from svmcert.reference import solve_primal_cvxpy
from svmcert.signsvm._dca_kernel import _scan, _step_directed
from svmcert.signsvm.active_set import polish_active_set
from svmcert.signsvm.coordinate_ascent import coordinate_step, dual_coordinate_ascent


def _problem(seed, n=60, d=8, density=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = np.sign(X @ rng.standard_normal(d) + 0.7 * rng.standard_normal(n))
    y[y == 0] = 1.0
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    return X, y, sign


def _directed(omega_s, v, sign_s, lam_n, lo, hi):
    """The compiled step on one row given as dense arrays over its support."""
    m = v.size
    idx = np.arange(m, dtype=np.int64)
    cpos = np.flatnonzero(sign_s != 0).astype(np.int64)
    slope0, A = _scan(omega_s, sign_s, idx, v, 0, m)
    return _step_directed(omega_s, sign_s, idx, v, cpos, 0, cpos.size, 1.0 / lam_n, lo, hi, slope0, A,
                          np.empty(m), np.empty(m, np.int64))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6))
def test_directed_step_equals_reference_step(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 9))
    v = rng.standard_normal(m) * rng.choice([0.0, 1.0], size=m, p=[0.1, 0.9])
    omega = rng.standard_normal(m) * rng.choice([0.0, 1.0, 1e-3], size=m)   # exact zeros too
    sign = rng.choice([-1.0, 0.0, 1.0], size=m)
    lam_n = float(10 ** rng.uniform(-2, 2))
    a = float(rng.choice([0.0, 1.0, rng.uniform()]))
    ours = _directed(omega, v, sign, lam_n, -a, 1.0 - a)
    ref = coordinate_step(omega, v, sign, lam_n, -a, 1.0 - a)

    # Both are maximisers of the same concave piecewise quadratic in t; compare the values
    # (ties in t are possible where the derivative vanishes on a whole piece).
    def D(t):
        w = omega + t * v
        w = np.where(sign * w < 0, 0.0, w)
        return t / lam_n - 0.5 * float(w @ w)          # D(alpha + t e_i) / lam, up to a constant

    scale = 1.0 + abs(D(ref)) + abs(D(0.0))
    assert -a - 1e-15 <= ours <= 1.0 - a + 1e-15
    # rounding of a handful of products: 1e-12 relative is ~1e4 eps, far below any real difference
    assert D(ours) >= D(ref) - 1e-12 * scale
    assert D(ref) >= D(ours) - 1e-12 * scale


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [1e-3, 1e-1])
def test_shrinking_reaches_the_certified_optimum(seed, lam):
    X, y, sign = _problem(seed, density=0.7)
    res = dual_coordinate_ascent(X, y, lam, sign, tol=1e-8, max_epochs=50000)
    ref = solve_primal_cvxpy(X, y, lam, sign)
    assert res.converged and res.gap <= 1e-8 * res.primal
    assert np.all(sign * res.w >= 0)
    # independent recomputation of the certificate from (w, alpha)
    P = signsvm.primal_objective(res.w, X, y, lam)
    D = signsvm.dual_objective(res.alpha, X, y, lam, sign)
    assert P == pytest.approx(res.primal, rel=1e-12) and D == pytest.approx(res.dual, rel=1e-12, abs=1e-15)
    # cvxpy/Clarabel at 1e-10 tolerances: its value is within ~1e-9 of P*
    assert D <= ref.value + 1e-9 and P - ref.value <= res.gap + 1e-9


def test_shrinking_and_reference_engine_agree():
    X, y, sign = _problem(7)
    a = dual_coordinate_ascent(X, y, 0.01, sign, tol=1e-9, max_epochs=50000)
    b = dual_coordinate_ascent(X, y, 0.01, sign, tol=1e-9, max_epochs=50000, shrinking=False)
    assert a.converged and b.converged
    # both bracket P*: each primal is within its own gap of the other's dual bound
    assert a.primal - b.dual <= a.gap + b.gap and b.primal - a.dual <= a.gap + b.gap


def test_polishing_finishes_from_identified_sets():
    X, y, sign = _problem(3, n=200, d=10)
    lam = 1e-3
    rough = dual_coordinate_ascent(X, y, lam, sign, tol=1e-13, max_epochs=100000, polish=False)
    Z = y[:, None] * X
    omega = Z.T @ rough.alpha / (lam * len(y))
    out = polish_active_set(Z, lam, sign, rough.alpha, omega, tol=1e-12)
    assert out is not None
    alpha, cert = out
    assert np.all((alpha >= 0) & (alpha <= 1))
    P = signsvm.primal_objective(cert.w, X, y, lam)
    D = signsvm.dual_objective(alpha, X, y, lam, sign)
    assert P - D <= 1e-12 * P + 1e-15


def test_polishing_gives_up_far_from_the_optimum():
    X, y, sign = _problem(4, n=200, d=10)
    Z = y[:, None] * X
    alpha = np.full(len(y), 0.5)            # every sample "free": |F| > |J|, system singular
    omega = Z.T @ alpha / (1e-3 * len(y))
    assert polish_active_set(Z, 1e-3, sign, alpha, omega, tol=1e-9) is None


def test_polishing_does_not_change_the_answer():
    X, y, sign = _problem(5, n=300, d=12)
    lam = 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = dual_coordinate_ascent(X, y, lam, sign, tol=1e-9, max_epochs=100000)
        b = dual_coordinate_ascent(X, y, lam, sign, tol=1e-9, max_epochs=100000, polish=False)
    assert a.converged and b.converged
    assert abs(a.primal - b.primal) <= a.gap + b.gap


@pytest.mark.parametrize("kw", [dict(shrinking="yes"), dict(polish=1)])
def test_flags_must_be_booleans(kw):
    X, y, sign = _problem(0)
    with pytest.raises(ValueError, match=list(kw)[0]):
        dual_coordinate_ascent(X, y, 0.1, sign, **kw)


@pytest.mark.parametrize("seed", range(3))
def test_polishing_handles_a_degenerate_optimum(seed):
    # every row three times: more samples on the margin than free coordinates (|F| > |J|), so the
    # margin system is singular and the multipliers come from the bounded least-squares fit
    rng = np.random.default_rng(seed)
    X0 = rng.standard_normal((40, 5))
    y0 = np.sign(X0 @ rng.standard_normal(5) + 0.5 * rng.standard_normal(40))
    X, y = np.repeat(X0, 3, axis=0), np.repeat(y0, 3)
    sign, lam = rng.choice([-1.0, 0.0, 1.0], 5), 1e-3
    rough = dual_coordinate_ascent(X, y, lam, sign, tol=1e-4, max_epochs=3000, polish=False)
    Z = y[:, None] * X
    omega = Z.T @ rough.alpha / (lam * len(y))
    F = (rough.alpha > 0) & (rough.alpha < 1)
    J = (sign == 0) | (sign * omega > 0)
    assert F.sum() > J.sum()
    out = polish_active_set(Z, lam, sign, rough.alpha, omega, tol=1e-12)
    assert out is not None
    alpha, cert = out
    P = signsvm.primal_objective(cert.w, X, y, lam)
    D = signsvm.dual_objective(alpha, X, y, lam, sign)
    assert P - D <= 1e-12 * P


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_compiled_pass_takes_the_directed_step_bit_for_bit(seed):
    # epoch writes the directed step out (a call cost 6x a short row); it must take exactly the
    # step of _step_directed, the function compared with the numpy reference above
    from svmcert.signsvm._dca_kernel import epoch, scaled_csr, row_layout

    X, y, _ = _problem(seed, n=40, d=6, density=0.7)
    rng = np.random.default_rng(seed)
    sign = rng.choice([-1.0, 1.0], size=6)              # every nonempty row is constrained
    lam_n = float(10 ** rng.uniform(-1, 2))
    indptr, indices, values = scaled_csr(X, y / lam_n)
    cptr, cpos, sq = row_layout(indptr, indices, values, sign)
    alpha = rng.uniform(size=40) * (rng.random(40) < 0.7)
    omega = (X * y[:, None]).T @ alpha / lam_n * (rng.random(6) < 0.8)    # exact zeros too
    order = rng.permutation(40)
    a1, o1 = alpha.copy(), omega.copy()
    epoch(order, indptr, indices, values, cptr, cpos, sq, a1, o1, sign, lam_n, np.ones(40))
    a2, o2 = alpha.copy(), omega.copy()
    cross, which = np.empty(6), np.empty(6, np.int64)
    for i in order:
        s, e = indptr[i], indptr[i + 1]
        if s == e:
            a2[i] = 1.0
            continue
        slope0, A = _scan(o2, sign, indices, values, s, e)
        t = _step_directed(o2, sign, indices, values, cpos, cptr[i], cptr[i + 1], 1.0 / lam_n, -a2[i],
                           1.0 - a2[i], slope0, A, cross, which)
        if t != 0.0:
            a2[i] = 0.0 if t == -a2[i] else (1.0 if t == 1.0 - a2[i] else min(max(a2[i] + t, 0.0), 1.0))
            o2[indices[s:e]] += t * values[s:e]
    assert np.array_equal(a1, a2) and np.array_equal(o1, o2)
