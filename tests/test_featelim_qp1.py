"""QP1 (Aksu eq. 6): both active-set methods against cvxpy, Theorem 1 at every iteration,
LO in closed form against linprog, and degenerate instances."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcert.featelim import (check_working_set, drd_direction, enumerate_working_sets, qp1_matrices,
                              qp1_objective, solve_lo, solve_qp1, working_set_rows)
from svmcert.reference.qp1 import solve_lo_linprog, solve_qp1_cvxpy, solve_qp1_svc
from svmcert.signsvm import ConvergenceWarning

METHODS = ("active-set", "nocedal-wright")
# Both methods are exact up to rounding and certify themselves by a duality gap; Clarabel at
# tolerance 1e-10 is the looser side, so agreement is asked to 1e-8 relative (x max(1, P)).
REF_RTOL = 1e-8


def _instance(rng, N, *, ties=False):
    g = rng.normal(size=N) * rng.uniform(0.1, 5)
    if ties:
        g = np.round(g, 1)
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    return g, y, 10 ** rng.uniform(-3, 3), 10 ** rng.uniform(-2, 2)


def _assert_optimal(res, g, y, C, W, ref_obj):
    assert res.converged
    scale = max(1.0, abs(ref_obj))
    assert res.objective <= ref_obj + REF_RTOL * scale
    assert res.objective >= ref_obj - REF_RTOL * scale
    assert res.gap <= 1e-9 * scale                        # certificate from the method's own multipliers
    assert res.gap >= -1e-9 * scale
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= C)
    np.testing.assert_allclose(res.objective, qp1_objective(res.a, res.b, g, y, C, W), rtol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_matches_cvxpy_on_random_instances(method):
    rng = np.random.default_rng(0)
    for trial in range(25):
        g, y, C, W = _instance(rng, int(rng.integers(2, 25)), ties=trial % 5 == 0)
        ref = solve_qp1_cvxpy(g, y, C, W)
        res = solve_qp1(g, y, C, W, method=method, start=(rng.normal() * 3, rng.normal() * 3))
        _assert_optimal(res, g, y, C, W, ref.objective)
        # strong convexity in a: |a - a*|^2 <= 2 (P(a_ref, b_ref) - P*) / W, with D <= P* and an
        # allowance of 10 N eps |P| for rounding in the two sums of N terms
        excess = max(ref.objective - res.dual_objective, 0) + 10 * len(g) * np.finfo(float).eps * max(1, ref.objective)
        assert abs(res.a - ref.a) <= np.sqrt(2 * excess / W)


def test_matches_one_dimensional_svc():
    rng = np.random.default_rng(1)
    for _ in range(10):
        g, y, _, W = _instance(rng, 30)
        C = 10 ** rng.uniform(-2, 1)
        ref = solve_qp1_svc(g, y, C, W)
        res = solve_qp1(g, y, C, W)
        assert res.objective <= ref.objective + 1e-9 * max(1.0, ref.objective)
        # LIBSVM's point is not exactly optimal (its intercept especially), so compare the scale
        # through strong convexity in a: |a - a*| <= sqrt(2 (P(a_svc, b_svc) - D(alpha)) / W).
        excess = ref.objective - res.dual_objective + 10 * len(g) * np.finfo(float).eps * max(1, ref.objective)
        assert abs(res.a - ref.a) <= np.sqrt(2 * excess / W)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), N=st.integers(1, 12), logC=st.floats(-4, 4), logW=st.floats(-3, 3),
       a0=st.floats(-5, 5), b0=st.floats(-5, 5), round_to=st.sampled_from([None, 0, 1]))
def test_theorem1_holds_at_every_iteration_of_the_specialised_method(seed, N, logC, logW, a0, b0, round_to):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=N)
    if round_to is not None:
        g = np.round(g, round_to)
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    C, W = 10 ** logC, 10 ** logW
    res = solve_qp1(g, y, C, W, start=(a0, b0))
    assert res.converged
    for it in res.iterations:
        chk = check_working_set(it.W1, it.W2, g, y, W)
        assert chk.r1 and chk.r2 and chk.c2, it
        assert chk.size in (N + 1, N + 2) and chk.n_doubly_active in (1, 2)
        if it.multipliers is not None:   # only margin-setters carry non-C multipliers, pairs sum to C
            for row, lam in it.multipliers.items():
                other = row + N if row < N else row - N
                assert lam + it.multipliers[other] == pytest.approx(C, rel=1e-9, abs=1e-9 * C)
    lit = solve_qp1(g, y, C, W, method="nocedal-wright", start=(a0, b0))
    assert lit.converged
    assert lit.objective == pytest.approx(res.objective, rel=1e-9, abs=1e-12 * C * N)  # rounding of C sum xi


def test_theorem1_and_lemmas_exhaustively_for_small_N():
    rng = np.random.default_rng(2)
    for N in (1, 2, 3, 4):
        for g in (rng.normal(size=N), np.zeros(N), np.ones(N)):
            y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
            for W1, W2 in enumerate_working_sets(N):
                c = check_working_set(W1, W2, g, y, 2.0)
                assert (c.r1 and c.r2) == c.theorem1_conditions        # Theorem 1 and its converse
                if c.r1:
                    assert c.n_doubly_active <= 2                       # Lemma 3
                if c.r2:
                    assert c.c2                                        # Lemma 4


def test_literal_algorithm_can_reach_N_rows_where_R2_fails():
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(200):
        g, y, C, W = _instance(rng, int(rng.integers(2, 6)))
        start = (rng.normal() * 3, rng.normal() * 3)
        lit = solve_qp1(g, y, C, W, method="nocedal-wright", start=start)
        spec = solve_qp1(g, y, C, W, start=start)
        assert lit.objective == pytest.approx(spec.objective, rel=1e-9, abs=1e-12 * C * len(g))  # rounding of C sum xi
        for it in lit.iterations:
            chk = check_working_set(it.W1, it.W2, g, y, W)
            if chk.size == len(g):
                assert not chk.r2 and it.reduced_hessian_pd is False
                seen += 1
    assert seen > 0


def test_drd_direction_spans_null_space():
    rng = np.random.default_rng(4)
    g, y, _, W = _instance(rng, 7)
    W1 = np.array([1, 1, 0, 1, 0, 0, 1], bool)
    W2 = ~W1
    W2[3] = True                                   # sample 3 doubly active
    z = drd_direction(3, W1 & ~W2 | (np.arange(7) == 3), g, y)
    AW = working_set_rows(W1, W2, g, y)
    np.testing.assert_allclose(AW @ z, 0, atol=1e-12)
    G, *_ = qp1_matrices(g, y, 1.0, W)
    assert z @ G @ z == pytest.approx(W)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", ["one-class", "one-class-but-two", "duplicates", "opposite-duplicates",
                                  "constant-g", "C-tiny", "C-huge", "single-sample"])
def test_degenerate_instances(method, case):
    rng = np.random.default_rng(5)
    N = 12
    g = rng.normal(size=N)
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    C, W = 1.0, 1.5
    if case == "one-class":
        y = np.ones(N)
    elif case == "one-class-but-two":
        y = np.ones(N)
        y[[2, 7]] = -1
    elif case == "duplicates":
        g[6:] = g[:6]
        y[6:] = y[:6]
    elif case == "opposite-duplicates":
        g[6:] = g[:6]
        y[6:] = -y[:6]
    elif case == "constant-g":
        g[:] = 0.7
    elif case == "C-tiny":
        C = 1e-6
    elif case == "C-huge":
        C = 1e6
    elif case == "single-sample":
        g, y = g[:1], y[:1]
    ref = solve_qp1_cvxpy(g, y, C, W)
    res = solve_qp1(g, y, C, W, method=method)
    # Clarabel's absolute accuracy is what limits the comparison at C = 1e6 (objective ~1e6).
    _assert_optimal(res, g, y, C, W, ref.objective)
    if case == "constant-g":
        assert res.a == pytest.approx(0.0, abs=1e-12)


def test_large_C_is_LO_when_separable():
    rng = np.random.default_rng(6)
    for _ in range(20):
        N = int(rng.integers(3, 30))
        y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
        y[:2] = [1, -1]
        g = y * rng.uniform(0.1, 2, N) + rng.normal() * 0.5
        W = 10 ** rng.uniform(-1, 1)
        lo = solve_lo(g, y, W)
        assert lo.feasible
        res = solve_qp1(g, y, 1e8, W)
        assert res.a == pytest.approx(lo.a, rel=1e-9)
        assert res.xi.max() <= 1e-9
        assert lo.wnorm2_after == pytest.approx(res.a ** 2 * W, rel=1e-9)


def test_lo_against_linprog_and_infeasible_and_negative_scale():
    rng = np.random.default_rng(7)
    for _ in range(30):
        N = int(rng.integers(2, 20))
        g = rng.normal(size=N)
        y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
        y[:2] = [1, -1]
        if rng.random() < 0.5:
            g = np.where(y > 0, 1, -1) * (np.abs(g) + 0.1) * rng.choice([-1, 1])
        lo = solve_lo(g, y, 1.0)
        feasible, a_ref, _ = solve_lo_linprog(g, y)
        assert lo.feasible == feasible
        if feasible:
            assert lo.a == pytest.approx(a_ref, rel=1e-7)
            assert np.all(y * (lo.a * g + lo.b) >= 1 - 1e-12)
        else:
            assert lo.wnorm2_after == np.inf and np.isnan(lo.a)
    one = solve_lo([1.0, 2.0], [1.0, 1.0], 1.0)
    assert one.feasible and one.a == 0.0


@pytest.mark.parametrize("bad, match", [
    (dict(g=[1.0, np.nan]), "g"), (dict(g=[[1.0, 2.0]]), "g"), (dict(y=[1.0, 0.0]), "y"), (dict(y=[1.0]), "y"),
    (dict(C=0.0), "C"), (dict(C=-1.0), "C"), (dict(wnorm2=0.0), "wnorm2"), (dict(method="simplex"), "method"),
    (dict(start=(1.0,)), "start"), (dict(max_iter=0), "max_iter"), (dict(g=[]), "g"),
])
def test_bad_input(bad, match):
    args = dict(g=[1.0, -1.0], y=[1.0, -1.0], C=1.0, wnorm2=1.0)
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        solve_qp1(**args)


def test_max_iter_warns_and_flags():
    rng = np.random.default_rng(8)
    g, y, C, W = _instance(rng, 40)
    for method in METHODS:
        with pytest.warns(ConvergenceWarning):
            res = solve_qp1(g, y, C, W, method=method, max_iter=1, start=(5.0, 3.0))
        assert not res.converged and res.max_iter == 1 and res.n_iter <= 1
        for engine in (("numpy", "numba") if method == "active-set" else ("auto",)):
            full = solve_qp1(g, y, C, W, method=method, record=False, engine=engine)
            assert full.converged and full.max_iter == 20 * 40 + 100 and full.n_iter <= full.max_iter


def test_float32_input():
    rng = np.random.default_rng(9)
    g, y, C, W = _instance(rng, 20)
    r64 = solve_qp1(g, y, C, W)
    r32 = solve_qp1(g.astype(np.float32), y.astype(np.float32), np.float32(C), np.float32(W))
    assert r32.objective == pytest.approx(r64.objective, rel=1e-6)


def test_record_false_keeps_counts():
    rng = np.random.default_rng(10)
    g, y, C, W = _instance(rng, 15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = solve_qp1(g, y, C, W, record=False, engine="numpy")
    b = solve_qp1(g, y, C, W)
    assert a.n_iter == b.n_iter and a.objective == b.objective
    assert a.iterations[0].W1 == ()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), N=st.integers(1, 40), logC=st.floats(-4, 4), logW=st.floats(-2, 2),
       start=st.one_of(st.none(), st.tuples(st.floats(-5, 5), st.floats(-5, 5))), round_to=st.sampled_from([None, 0]))
def test_compiled_engine_matches_numpy_reference(seed, N, logC, logW, start, round_to):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    g = rng.normal(size=N) + rng.normal() * y
    if round_to is not None:
        g = np.round(g, round_to)
    C, W = 10 ** logC, 10 ** logW
    ref = solve_qp1(g, y, C, W, start=start, record=False, engine="numpy")
    fast = solve_qp1(g, y, C, W, start=start, record=False, engine="numba")
    assert fast.converged and fast.n_iter >= 1 and fast.iterations == []
    # same optimum; iteration counts may differ only through ties broken by rounding
    scale = max(1.0, ref.objective)
    assert fast.objective == pytest.approx(ref.objective, rel=1e-12, abs=1e-12 * C * N)
    assert abs(fast.gap) <= 1e-11 * scale + 1e-12 * C * N
    assert np.all(fast.alpha >= 0) and np.all(fast.alpha <= C)


def test_engine_validation():
    with pytest.raises(ValueError, match="engine"):
        solve_qp1([1.0, -1.0], [1.0, -1.0], 1.0, 1.0, engine="cuda")
    with pytest.raises(ValueError, match="engine"):
        solve_qp1([1.0, -1.0], [1.0, -1.0], 1.0, 1.0, engine="numba", record=True)


def test_integral_float_max_iter_is_the_integer():
    # check_iterations accepts 50.0 as 50 (the library convention); fractions are rejected
    # (tests/test_faults.py)
    g, y = np.array([0.5, -1.0, 2.0, -0.3]), np.array([1.0, -1.0, 1.0, -1.0])
    a = solve_qp1(g, y, 1.0, 1.0, max_iter=50.0)
    b = solve_qp1(g, y, 1.0, 1.0, max_iter=50)
    assert (a.a, a.b, a.n_iter) == (b.a, b.b, b.n_iter)
