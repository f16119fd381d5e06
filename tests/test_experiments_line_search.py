"""The experiment module of the chapter "Lemma 1 and the exact line search": its families build the
degeneracies they promise, its reference evaluation agrees with the library's dual objective, its
literal eqs. (18) and (21)-(23) behave as printed, and its checks pass on the library and fail on
a construction known to be wrong."""

import numpy as np
import pytest

from svmcert import claims, signsvm
from svmcert.experiments.families import two_point
from svmcert.experiments.sign_constrained import line_search as exp


def _args(inst):
    return inst.alpha, inst.u, inst.X, inst.y, inst.lam, inst.sign


@pytest.mark.parametrize("family", list(exp.FAMILIES))
def test_every_family_passes_every_check(family):
    rng = np.random.default_rng(7)
    for inst in exp.make_instances(0, {family: 3}):
        assert inst.family == family and np.any(inst.q != 0)
        assert np.all((inst.u >= 0) & (inst.u <= 1) & (inst.alpha >= 0) & (inst.alpha <= 1))
        row = exp.check_instance(inst, grid=65)
        for key in ("repro_sweep", "repro_printed", "concavity", "jump", "agree", "eta_deficit", "eq18_deficit"):
            assert row[key] <= 1.0, (family, key, row[key])
        assert row["a_max"] <= 0 and row["d_t"] <= min(row["d"], row["constrained"]) + 1
        assert row["same_theta"] and row["printed_strict"] and row["eq18_cases"] != "none"


def test_families_contain_the_degeneracies_they_promise():
    rng = np.random.default_rng(3)
    rows = {f: [exp.check_instance(i, grid=33) for i in exp.make_instances(0, {f: 8})]
            for f in ["exact crossings at 0 and 1", "flat piece", "optimum at 0", "optimum at 1",
                      "all crossings inside (d_t = d + 1)", "repeated breakpoints", "q partly zero"]}
    assert sum(r["cross_at_0"] + r["cross_at_1"] for r in rows["exact crossings at 0 and 1"]) > 0
    assert all("4" in r["eq18_cases"] for r in rows["flat piece"])
    assert all(r["eta_at"] == "0" for r in rows["optimum at 0"])
    assert all(r["eta_at"] == "1" for r in rows["optimum at 1"])
    assert all(r["d_t"] == r["d"] + 1 for r in rows["all crossings inside (d_t = d + 1)"])
    assert sum(r["repeated"] for r in rows["repeated breakpoints"]) > 0
    assert all(r["q_zeros"] > 0 for r in rows["q partly zero"] if r["n"] > 1)


def test_zeta_direct_matches_the_library_dual_objective(rng):
    inst = exp.FAMILIES["random (mixed signs)"](rng)
    etas = np.linspace(0, 1, 7)
    vals, scale = exp.zeta_direct(inst, etas)
    lib = [signsvm.dual_objective(inst.alpha + e * inst.q, inst.X, inst.y, inst.lam, inst.sign) for e in etas]
    np.testing.assert_allclose(vals, lib, rtol=0, atol=1e-12 * scale.max())
    assert np.all(scale >= np.abs(vals))


def test_two_point_template_places_crossings_exactly():
    inst = two_point("t", [1.0, -1.0, 0.0], [-4.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    w0, wq, sum_q, sum_a = exp.omegas(inst)
    assert np.array_equal(w0, [1.0, -1.0, 0.0]) and np.array_equal(wq, [-4.0, 2.0, 3.0])
    assert sum_q == 0.0 and sum_a == 0.5
    theta, a, b, c = exp.pieces_as_printed(w0, wq, inst.sign, inst.lam, sum_q, sum_a)
    assert np.array_equal(theta, [0.0, 0.25, 0.5, 1.0])        # the crossing at 0 merges with theta_1
    ls = signsvm.line_search(*_args(inst))
    np.testing.assert_array_equal(ls.theta, theta)
    np.testing.assert_allclose(np.c_[ls.a, ls.b, ls.c], np.c_[a, b, c], rtol=1e-15)


def test_eta_eq18_gives_the_four_cases():
    theta = np.array([0.0, 0.5, 1.0])
    assert exp.eta_eq18(theta, np.array([-1.0, -1.0]), np.array([-0.5, -0.5])) == [(1, 0.0)]
    assert exp.eta_eq18(theta, np.array([0.0, 0.0]), np.array([1.0, 1.0])) == [(2, 1.0)]
    assert exp.eta_eq18(theta, np.array([-1.0, -1.0]), np.array([0.5, 0.5])) == [(3, 0.25)]
    # rising, flat on [1/4, 1/2], falling: three admissible k*, the flat piece answers its left end
    assert exp.eta_eq18(np.array([0.0, 0.25, 0.5, 1.0]), np.array([-1.0, 0.0, -1.0]),
                        np.array([0.5, 0.0, 1.0])) == [(3, 0.25), (4, 0.25), (3, 0.5)]
    assert exp.eta_eq18(theta, np.array([-1.0, 0.0]), np.array([1.0, -1.0])) == [(3, 0.5)]


def test_reproduction_check_catches_downdating():
    # a huge coordinate leaves at 1/2, a small free one stays: subtracting the huge term loses it
    inst = two_point("foil", [1e8, 3.0], [-2e8, -4.0], [1.0, 0.0])
    w0, wq, sum_q, sum_a = exp.omegas(inst)
    ls = signsvm.line_search(*_args(inst))
    foil = exp.pieces_downdating(w0, wq, inst.sign, inst.lam, sum_q, sum_a, ls.theta)
    assert exp._repro(inst, foil, 65, 9)[0] > 1e6
    assert exp._repro(inst, ls[1:], 65, 9)[0] <= 1.0


def test_frank_wolfe_instances_follow_a_run(rng):
    X = rng.standard_normal((30, 5))
    y = np.sign(X[:, 0] + 0.1)
    out = exp.frank_wolfe_instances(X, y, 0.1, np.array([1.0, -1.0, 0, 0, 1.0]), 5, "fw")
    assert 1 <= len(out) <= 5 and out[0].alpha.sum() == 0
    assert all(np.all((i.u == 0) | (i.u == 1)) for i in out)


def test_printed_errata_are_refuted_and_serialisable():
    import json

    for e in exp.printed_errata():
        assert not claims.compare(float(e["observed"]), float(e["reference"]), e["comparison"], 0.0), e["id"]
        json.dumps(e["counterexample"])
        X = np.array(e["counterexample"]["X"])
        assert X.shape[0] <= 2 and X.shape[1] == 1


def test_time_constructions_reports_both_and_the_ratio():
    df = exp.time_constructions(0, [5, 20], repeat=1, min_seconds=0.0)
    assert list(df["d_t"]) == [6, 21]
    assert np.allclose(df["ratio"], df["quadratic_s"] / df["sweep_s"])


def test_merged_breakpoints_differ_in_coefficients_but_agree_as_functions():
    # crossings at 1/2, 1/2 + 6 eps (merged into the first) and 1/2 + 10 eps: the midpoint of the
    # 10-eps piece lies before the merged crossing, so the O(d^2) rule and the sweep disagree on one
    # coordinate there, yet values and slopes agree to rounding
    eps = np.finfo(float).eps
    inst = two_point("merged", 0.5 + eps * np.array([0.0, 6.0, 10.0]), -np.ones(3), np.ones(3))
    row = exp.check_instance(inst, grid=33)
    assert row["same_theta"] and row["d_t"] == 3
    assert row["coef_mismatch"] == 1 and row["mismatch_width"] <= 16 * eps
    assert row["agree"] <= 1.0 and row["repro_sweep"] <= 1.0
