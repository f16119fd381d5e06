"""The work count that ``solve(auto)`` budgets coordinate ascent in, the give-up rule, and the
compiled pieces of the interior-point method against the numpy expressions they replace.

Work is a count, so these checks are exact: no clock is read."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from svmcert import signsvm
from svmcert.signsvm._normal_equations import weighted_gram
from svmcert.signsvm._dca_kernel import CONSTRAINED_ROW_WORK, ROW_WORK, row_layout, run_shrinking, scaled_csr
from svmcert.signsvm.coordinate_ascent import dca_options
from svmcert.signsvm.shrinking_rounds import GIVE_UP_FROM_SHARE, extended_limit, predicted_work
from svmcert.signsvm.solve import DCA_SEC_PER_WORK, auto_plan, ipm_seconds

ipm_module = importlib.import_module("svmcert.signsvm.interior_point")   # the module, not the function
plan_module = importlib.import_module("svmcert.signsvm.plan")            # the rules of auto, patched below


def _problem(seed, n, d, density=0.7):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y, rng.choice([-1.0, 0.0, 1.0], size=d)


@pytest.mark.parametrize("seed", range(4))
def test_one_unshrunk_pass_counts_every_row_and_nonzero(seed):
    # the first pass of a call shrinks nothing (its thresholds start at +-inf), so it visits every
    # row with a nonzero x_i and a positive bound: its work is known in closed form
    X, y, sign = _problem(seed, 60, 9)
    X[3] = 0.0                                     # an empty row is not visited
    csr = scaled_csr(X, y / 2.0)
    cptr, cpos, sq = row_layout(*csr, sign)
    nnz_row = np.diff(csr[0])
    constrained = np.diff(cptr)
    visited = nnz_row > 0
    expected = (nnz_row + ROW_WORK + np.where(constrained > 0, CONSTRAINED_ROW_WORK + constrained, 0))[visited].sum()
    carry = np.array([np.inf, -np.inf, 0.0])
    passes, _ = run_shrinking(*csr, cptr, cpos, sq, np.zeros(60), np.zeros(9), sign, 2.0, 0.0, 1, np.ones(60), carry)
    assert passes == 1 and carry[2] == expected


@pytest.mark.parametrize("seed", range(6))
def test_a_run_cut_by_work_goes_on_as_one_uncut_call(seed):
    # the shrunken set handed on (index, carry[3]) makes the rounds checkpoints: passes cut at a
    # work budget and resumed visit the same coordinates in the same order as one call, so alpha,
    # omega, the passes and the work agree bit for bit (the same random stream, seeded alike)
    from svmcert.signsvm._shuffle import shuffle_state

    X, y, sign = _problem(seed, 150, 10)
    lam_n = 3.0
    csr = scaled_csr(X, y / lam_n)
    layout = row_layout(*csr, sign)
    n, d = X.shape

    def run(cuts):
        rng = shuffle_state(seed)
        alpha, omega = np.zeros(n), np.zeros(d)
        carry, index = np.array([np.inf, -np.inf, 0.0, -1.0]), np.arange(n)
        passes, met, calls = 0, False, 0
        for limit in cuts + [np.inf]:
            p, met = run_shrinking(*csr, *layout, alpha, omega, sign, lam_n, 1e-9, 10_000, np.ones(n), carry,
                                   limit, index, 0, rng)
            passes, calls = passes + p, calls + 1
            if met:
                break
        return alpha, omega, passes, carry[2], met, calls

    one = run([])
    total = one[3]
    cut = run([0.1 * total, 0.3 * total, 0.6 * total])
    assert one[4] and cut[4] and cut[5] > 1                 # both met eps; the cut run was cut
    assert np.array_equal(one[0], cut[0]) and np.array_equal(one[1], cut[1])
    assert one[2] == cut[2] and one[3] == cut[3]


def test_max_work_stops_after_the_pass_that_reaches_it():
    X, y, sign = _problem(5, 200, 12)
    lam = 1.0 / 200
    full = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=1e-10, max_epochs=100_000)
    budget = 0.05 * full.history["work"][-1]     # far too little for 1e-10, whatever the round schedule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        cut = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=1e-10, max_work=budget)
    assert not cut.converged
    work = cut.history["work"]
    per_pass = X.shape[0] * (X.shape[1] + ROW_WORK + CONSTRAINED_ROW_WORK + X.shape[1])   # at most
    assert budget <= work[-1] <= budget + per_pass
    assert all(b >= a for a, b in zip(work, work[1:]))
    with pytest.warns(signsvm.ConvergenceWarning, match="max_work"):
        signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=1e-10, max_work=budget)


def test_the_budget_options_are_validated():
    for name in ("max_work", "give_up_work", "extra_work"):
        with pytest.raises(ValueError, match=f"^{name}: expected a finite number > 0"):
            dca_options(**{name: -1.0, "max_work": 1.0} if name == "extra_work" else {name: -1.0})
    with pytest.raises(ValueError, match="^extra_work: only with max_work"):
        dca_options(extra_work=1.0)


def _cut_short(seed=3, lam_n=10.0):
    # an instance (found by search over seeds; the checks below re-establish each premise) whose
    # run, cut at 0.8 of the work it needs for 1e-6, stops uncertified a little short of it
    X, y, sign = _problem(seed, 200, 12)
    lam = lam_n / 200
    need = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=1e-6).history["work"][-1]
    return X, y, sign, lam, need


def test_extra_work_lets_a_run_the_budget_cuts_short_finish():
    X, y, sign, lam, need = _cut_short()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        cut = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", max_work=0.8 * need)
    assert not cut.converged                                    # the premise
    ext = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", max_work=0.8 * need, extra_work=need)
    assert ext.converged and ext.gap <= 1e-6 * ext.primal and ext.history["extended"] >= 1
    per_pass = X.shape[0] * (2 * X.shape[1] + ROW_WORK + CONSTRAINED_ROW_WORK)   # at most
    assert 0.8 * need <= ext.history["work"][-1] <= 1.8 * need + per_pass
    # up to the budget's end the two runs are the same run: the extension only adds rounds
    assert ext.history["work"][:len(cut.history["work"])] == cut.history["work"]


def test_extra_work_stops_where_the_rate_does_not_promise_tol():
    # tol = 1e-15 is below what the gap of float64 sums can show: the rate never puts it within
    # reach, so the run stops at max_work as it would without extra_work, and says why
    X, y, sign, lam, need = _cut_short()
    with pytest.warns(signsvm.ConvergenceWarning, match="max_work"):
        res = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=1e-15, max_work=0.5 * need,
                            extra_work=0.5 * need)
    per_pass = X.shape[0] * (2 * X.shape[1] + ROW_WORK + CONSTRAINED_ROW_WORK)
    assert not res.converged and res.history["work"][-1] <= need + per_pass


def test_extra_work_changes_nothing_when_the_budget_suffices():
    X, y, sign, lam, need = _cut_short()
    plain = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", max_work=2.0 * need)
    ext = signsvm.solve(X, y, lam, sign, solver="dual-coordinate", max_work=2.0 * need, extra_work=need)
    assert plain.converged and "extended" not in ext.history
    assert np.array_equal(plain.alpha, ext.alpha) and plain.history["work"] == ext.history["work"]


_round = st.tuples(st.floats(1.0, 1e6), st.floats(1e-12, 1.0))


@settings(max_examples=300, deadline=None)
@given(st.lists(_round, min_size=1, max_size=6), st.floats(1e-10, 1e-2), st.floats(1.0, 1e6),
       st.floats(0.0, 2.0), st.floats(1e-3, 1e6))
def test_extended_limit_goes_on_only_where_the_prediction_fits(rounds, tol, max_work, over, extra):
    rounds = sorted(rounds)
    done = max_work * (1.0 + over)
    limit = extended_limit(rounds, tol, done, max_work, extra)
    need = predicted_work(rounds, tol)
    if limit is None:
        assert need <= 0.0 or done + need > max_work + extra
    else:
        assert need > 0.0 and done + need <= max_work + extra
        assert done < limit <= max_work + extra and limit >= min(done + need, max_work + extra)
    assert extended_limit(rounds, tol, done, max_work, None) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(_round, min_size=2, max_size=6), st.floats(1e-10, 1e-2), st.floats(1.0, 1e6),
       st.floats(0.01, 2.0), st.floats(1e-3, 1e6), st.floats(0.0, 1.0))
def test_an_extension_goes_on_only_where_its_own_rate_fits_too(rounds, tol, max_work, over, extra, at):
    # with EXTENSION_KEEPS_ITS_OWN_RATE (off by default: measured and rejected) and since = where
    # the last extension began (work between max_work and done, its best gap then): a further
    # extension needs the rate over the later half and the extension's own rate to put tol
    # within the limit; a gap that did not fall over the extension stops the run
    import svmcert.signsvm.shrinking_rounds as rounds_module

    kept = rounds_module.EXTENSION_KEEPS_ITS_OWN_RATE
    rounds_module.EXTENSION_KEEPS_ITS_OWN_RATE = True
    try:
        _check_extension_with_own_rate(rounds, tol, max_work, over, extra, at)
    finally:
        rounds_module.EXTENSION_KEEPS_ITS_OWN_RATE = kept


def _check_extension_with_own_rate(rounds, tol, max_work, over, extra, at):
    rounds = sorted(rounds)
    done = max_work * (1.0 + over)
    w0 = max_work + at * (done - max_work)
    g_now = min(r[1] for r in rounds)
    g0 = min(r[1] for r in rounds[:-1])
    limit = extended_limit(rounds, tol, done, max_work, extra, since=(w0, g0))
    plain = extended_limit(rounds, tol, done, max_work, extra)
    if limit is not None:
        assert plain is not None and limit >= plain and g_now < g0 and done > w0
        own = np.log(g_now / tol) / (np.log(g0 / g_now) / (done - w0))
        assert done + own <= max_work + extra * (1 + 1e-12)
    elif plain is not None:
        own = np.inf if not (g_now < g0 and done > w0) else np.log(g_now / tol) / (np.log(g0 / g_now) / (done - w0))
        assert done + own > max_work + extra
    assert extended_limit(rounds, tol, done, max_work, extra, since=None) == plain


def test_a_stalled_extension_is_extended_again_only_without_the_rule(monkeypatch):
    # the later half's rate promises tol within the limit, the extension's own rate does not: the
    # default (the rule off) goes on; with the rule on the run stops
    import svmcert.signsvm.shrinking_rounds as rounds_module

    rounds = [(100.0, 1e-3), (200.0, 1e-5), (300.0, 5e-6)]
    assert not rounds_module.EXTENSION_KEEPS_ITS_OWN_RATE
    assert extended_limit(rounds, 1e-6, 300.0, 200.0, 200.0, since=(200.0, 1e-5)) == 400.0
    monkeypatch.setattr(rounds_module, "EXTENSION_KEEPS_ITS_OWN_RATE", True)
    assert extended_limit(rounds, 1e-6, 300.0, 200.0, 200.0, since=(200.0, 1e-5)) is None


def test_give_up_fires_on_a_slow_run_and_auto_still_certifies(monkeypatch):
    # two overlapping Gaussian classes at lam n = 1: coordinate ascent needs thousands of passes.
    # The rows' norms (||x||^2 ~ 100 against lam n = 1) would send auto straight to the
    # interior-point method; the rule is switched off to test the budget behind it
    monkeypatch.setattr(plan_module, "AUTO_IPM_ABOVE_SCALED_NORM", np.inf)
    rng = np.random.default_rng(0)
    n, d = 500, 100
    y = np.repeat([1.0, -1.0], n // 2)
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    lam = 1.0 / n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        res = signsvm.solve(X, y, lam, solver="dual-coordinate", give_up_work=1e5)
    assert res.history.get("gave_up") and not res.converged
    auto = signsvm.solve(X, y, lam)
    assert auto.converged and auto.gap <= 1e-6 * auto.primal
    assert auto.history["method"] == ["dual-coordinate", "interior-point"]
    _, work = auto_plan(n, d, 0, lam)
    assert 0 < auto.history["dca_work"] <= work + n * (d + ROW_WORK)


@pytest.mark.parametrize("share", [GIVE_UP_FROM_SHARE, 0.0])
def test_under_a_budget_the_run_gives_up_only_from_half_of_it(monkeypatch, share):
    # the slow problem above, a budget of W and a give-up threshold every prediction exceeds: the
    # run gives up at its first certificate past share * W (1/16 of W and more apart, so the first
    # certificate at or past W / 2 is before W), and not before
    import svmcert.signsvm.shrinking_rounds as rounds_module

    monkeypatch.setattr(rounds_module, "GIVE_UP_FROM_SHARE", share)
    rng = np.random.default_rng(0)
    n, d = 500, 100
    y = np.repeat([1.0, -1.0], n // 2)
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    W = 40 * n * (d + ROW_WORK)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        res = signsvm.solve(X, y, 1.0 / n, solver="dual-coordinate", max_work=W, give_up_work=1.0)
    assert res.history.get("gave_up") and not res.converged
    done = res.history["work"][-1]
    if share > 0.0:
        assert 0.5 * W <= done < W
    else:
        assert done < 0.5 * W                      # the rule as it was: it bites before half


def test_predicted_work_uses_the_later_half_of_the_run():
    # gaps 1e-2 at work 100, 1e-4 at 300 (best of the earlier half: 1e-2): rate ln(100) / 200
    rounds = [(100.0, 1e-2), (300.0, 1e-4)]
    assert predicted_work(rounds, 1e-6) == pytest.approx(np.log(1e-4 / 1e-6) / (np.log(100.0) / 200.0))
    assert predicted_work(rounds[:1], 1e-6) == 0.0                 # one round: no prediction
    assert predicted_work([(100.0, 1e-3), (300.0, 2e-3)], 1e-6) == 0.0    # no improvement yet
    # a worse last round does not hide the best one
    noisy = [(100.0, 1e-2), (300.0, 1e-4), (400.0, 3e-4)]
    assert predicted_work(noisy, 1e-6) == pytest.approx(predicted_work(rounds, 1e-6))


def test_the_auto_budget_is_the_interior_point_estimate_in_work():
    plan, work = auto_plan(1000, 50, 0, 1.0 / 1000)
    assert plan == "dual-coordinate" and work == int(ipm_seconds(1000, 50) / DCA_SEC_PER_WORK)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_compiled_newton_pieces_equal_the_numpy_expressions(n, seed):
    rng = np.random.default_rng(seed)
    pos = [rng.random(n) + 0.1 for _ in range(6)]          # s, alpha, xi, beta, delta, g-ish
    r_p, r_b, r_xi, r_s, z_dw = (rng.standard_normal(n) for _ in range(5))
    s, alpha, xi, beta, delta, _ = pos
    g, gd = ipm_module._newton_rhs(r_p, r_b, xi, r_xi, beta, r_s, alpha, delta)
    g_ref = -r_p + (r_b + xi * r_xi) / beta - r_s / alpha
    np.testing.assert_array_equal(g, g_ref)
    np.testing.assert_array_equal(gd, g_ref * delta)
    da, db, ds, dxi, step = ipm_module._newton_directions(g, z_dw, delta, r_xi, r_s, s, alpha, r_b, xi, beta)
    da_ref = (g_ref - z_dw) * delta
    db_ref = r_xi - da_ref
    ds_ref = (-r_s - s * da_ref) / alpha
    dxi_ref = (-r_b - xi * db_ref) / beta
    for got, ref in ((da, da_ref), (db, db_ref), (ds, ds_ref), (dxi, dxi_ref)):
        np.testing.assert_array_equal(got, ref)

    def max_step(v, dv):                                    # the numpy form it replaced
        neg = dv < 0.0
        return 1.0 if not neg.any() else float(min(1.0, np.min(-v[neg] / dv[neg])))

    assert step == min(max_step(s, ds_ref), max_step(xi, dxi_ref), max_step(alpha, da_ref), max_step(beta, db_ref))
    assert ipm_module._max_step(s, ds_ref) == max_step(s, ds_ref)
    u, du, v, dv = (rng.standard_normal(n) for _ in range(4))
    assert ipm_module._shifted_dot(u, du, v, dv, 0.3) == pytest.approx((u + 0.3 * du) @ (v + 0.3 * dv),
                                                                       rel=1e-12, abs=1e-12 * n)


@pytest.mark.parametrize("n, d", [(50, 7), (3000, 120), (700, 1)])
def test_the_blocked_normal_matrix_equals_the_one_shot_product(n, d):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, d))
    delta = rng.random(n) + 1e-3
    M = weighted_gram(X, delta)
    ref = X.T @ (delta[:, None] * X)
    # upper triangle only (dsyrk's), to the rounding of n-term sums of products
    np.testing.assert_allclose(np.triu(M), np.triu(ref), rtol=0, atol=1e-13 * n * np.abs(ref).max())
    assert not np.tril(M, -1).any()


@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 12), st.floats(0.05, 1.0))
@settings(max_examples=40, deadline=None)
def test_dense_rows_is_scaled_csr_and_row_layout_bit_for_bit(seed, n, d, density):
    # the fused build of the passes' rows must be the two-step build exactly: the solver's
    # trajectory, and so every committed table, depends on these arrays to the last bit
    from svmcert.signsvm._dca_kernel import dense_rows

    X, y, sign = _problem(seed, n, d, density)     # its zeros are +0.0 and -0.0 (negative entries times 0)
    X[seed % n] = 0.0                              # an empty row
    scale = y / (1.0 + seed % 7)
    two_step = scaled_csr(X, scale) + row_layout(*scaled_csr(X, scale), sign)
    from svmcert.signsvm._dca_rows import _dense_rows_one_scan, _dense_rows_two_scans

    from svmcert.signsvm._signed_rows import csr_rmatvec

    upper = np.random.default_rng(seed).uniform(0.0, 2.0, n)
    omega_u = csr_rmatvec(*two_step[:3], upper, d)        # the product the scan folds in
    bits = X.view(np.uint64)                       # the private builds take X's bit patterns too
    for build in (dense_rows, lambda *a: _dense_rows_one_scan(X, bits, *a[1:]),
                  lambda *a: _dense_rows_two_scans(X, bits, *a[1:])):     # both paths of dense_rows
        fused = build(X, scale, sign, upper)
        assert len(fused) == 7
        for a, b in zip(two_step + (omega_u,), fused):
            assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.array_equal(dense_rows(X, scale, sign)[6], csr_rmatvec(*two_step[:3], np.ones(n), d))


@pytest.mark.parametrize("seed", range(4))
def test_compiled_csr_products_equal_scipy_bit_for_bit(seed):
    from scipy.sparse import csr_matrix

    from svmcert.signsvm._signed_rows import csr_matvec, csr_rmatvec

    X, y, _ = _problem(seed, 80, 15, density=0.3)
    indptr, indices, values = scaled_csr(X, y / 3.0)
    A = csr_matrix((values, indices, indptr), shape=X.shape)
    rng = np.random.default_rng(seed)
    w, a = rng.standard_normal(15), rng.random(80)
    assert np.array_equal(csr_matvec(indptr, indices, values, w), A @ w)
    assert np.array_equal(csr_rmatvec(indptr, indices, values, a, 15), A.T @ a)


def test_the_sparse_time_model_counts_pairs_of_entries_not_n_d_squared():
    # a sparse X's normal matrix costs sum_i nnz_i^2 / 2 (taken as nnz^2 / (2 n)), not n d^2: the
    # estimate, and auto's budget with it, grows with the nonzeros and stays far below the dense
    # model's at 1% density; without nnz (or for a dense X) the old models stand
    # (where the method tries its working set, at least 30 samples a column, the rows' part and the
    # factor's part count IPM_WORKING_SET_ITERATIONS apart; elsewhere IPM_ITERATIONS of both)
    from svmcert.signsvm.plan import IPM_WORKING_SET_ITERATIONS
    from svmcert.signsvm.solve import IPM_ITERATIONS, IPM_SPARSE_SEC

    def parts(n, d, nnz):
        rows = IPM_SPARSE_SEC[0] * nnz ** 2 / (2 * n) + IPM_SPARSE_SEC[2] * nnz + IPM_SPARSE_SEC[3] * n
        return rows, IPM_SPARSE_SEC[1] * d ** 3 + IPM_SPARSE_SEC[4]

    rows, factor = parts(10_000, 1000, 100_000)                 # 10 samples a column: full iterations
    assert ipm_seconds(10_000, 1000, True, 100_000) == pytest.approx(IPM_ITERATIONS * (rows + factor), rel=1e-12)
    n, d, nnz = 100_000, 1000, 1_000_000
    est = ipm_seconds(n, d, True, nnz)
    rows, factor = parts(n, d, nnz)
    assert est == pytest.approx(IPM_WORKING_SET_ITERATIONS[0] * rows + IPM_WORKING_SET_ITERATIONS[1] * factor,
                                rel=1e-12)
    assert ipm_seconds(n, d, True, 2 * nnz) > est and est < ipm_seconds(n, d, True) / 10
    assert ipm_seconds(n, d, False, nnz) == ipm_seconds(n, d, False)
    budget = auto_plan(n, d, nnz, 1.0 / n, True)[1]
    assert budget == int(est / DCA_SEC_PER_WORK) < int(ipm_seconds(n, d, True) / DCA_SEC_PER_WORK)


def test_dense_rows_falls_back_to_two_scans_when_the_buffers_are_refused(monkeypatch):
    # a system that will not grant the one scan's room for every entry (MemoryError) gets the
    # two-scan build, the same arrays
    from svmcert.signsvm import _dca_rows

    X, y, sign = _problem(3, 40, 7, 0.4)
    expected = _dca_rows.dense_rows(X, y, sign)

    def refuse(*args):
        raise MemoryError

    monkeypatch.setattr(_dca_rows, "_dense_rows_one_scan", refuse)
    got = _dca_rows.dense_rows(X, y, sign)
    for a, b in zip(expected, got):
        assert a.dtype == b.dtype and np.array_equal(a, b)
