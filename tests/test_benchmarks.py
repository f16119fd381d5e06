"""Smoke tests of the benchmark harness (svmcert.experiments.benchmarks, benchmarks/run.py) on tiny
sizes: the rows have the declared columns, accuracies are what they claim to be, and the verdict
logic is right. No assertion is made on any time."""

import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcert.experiments import benchmarks as bm

ROOT = Path(__file__).resolve().parents[1]


def _check_rows(rows, n):
    assert len(rows) == n
    for r in rows:
        assert list(r) == bm.COLUMNS
        assert r["ours_seconds"] > 0 and r["reference_seconds"] > 0
        assert r["ratio"] == pytest.approx(r["reference_seconds"] / r["ours_seconds"])
        assert r["ours_runs"] >= 1 and r["reference_runs"] >= 1
        assert np.isfinite(r["ours_accuracy"]) and np.isfinite(r["reference_accuracy"])
        assert (r["met"] is None) == (r["goal"] == "")
    assert set(bm.TIMING_COLUMNS) <= set(bm.COLUMNS)


def test_measure_repeats_within_budget_and_returns_the_result():
    calls = []
    best, out, k = bm.measure(lambda: calls.append(1) or len(calls), repeat=3, budget=10.0)
    assert k == 3 and out == 3 and best >= 0
    calls.clear()
    _, _, k = bm.measure(lambda: calls.append(1), repeat=3, budget=0.0)   # over budget after one call
    assert k == 1
    _, _, k = bm.measure(lambda: None, repeat=1, budget=0.0, min_seconds=0.001)
    assert 1 <= k <= 200


def test_row_verdicts():
    r = bm._row("b", "p", 1, (1.0, 1), (20.0, 1), 0.0, 0.0, "a", 10.0)
    assert r["ratio"] == 20.0 and r["met"] is True and r["goal"] == "ratio >= 10"
    assert bm._row("b", "p", 1, (1.0, 1), (20.0, 1), 0.0, 0.0, "a", 10.0, met_extra=False)["met"] is False
    assert bm._row("b", "p", 1, (1.0, 1), (5.0, 1), 0.0, 0.0, "a", 10.0)["met"] is False
    assert bm._row("b", "p", 1, (1.0, 1), (5.0, 1), 0.0, 0.0, "a")["met"] is None
    assert len(bm.goals([r, bm._row("b", "p", 1, (1.0, 1), (5.0, 1), 0.0, 0.0, "a")])) == 1


@pytest.fixture(scope="module")
def mnist_small():
    return bm.mnist_problem(rows=120, seed=0)


def test_mnist_problem_constrains_half_the_pixels(mnist_small):
    X, y, sign = mnist_small
    assert X.shape == (120, 784) and set(np.unique(y)) == {-1.0, 1.0}
    assert np.count_nonzero(sign) == 392 and set(np.unique(sign)) == {-1.0, 0.0, 1.0}
    norms = np.linalg.norm(X, axis=1)
    assert np.allclose(norms[norms > 0], 1.0)


def test_sign_constrained_first_order_and_unconstrained(mnist_small):
    X, y, sign = mnist_small
    rows, duals = bm.sign_constrained(X, y, sign, [1.0, 1e-2], max_epochs=50, budget=0.0)
    _check_rows(rows, 2)
    assert all(r["ours_accuracy"] >= 0 and r["reference_accuracy"] >= -1e-8 for r in rows)
    fo = pd.DataFrame(bm.first_order(X, y, sign, [1.0, 1e-2], 5, duals, rows))
    assert len(fo) == 6 and (fo["relative_gap"] >= -1e-12).all()
    uc = bm.unconstrained(X, y, [1.0], max_epochs=50, budget=0.0)
    _check_rows(uc, 1)
    assert "LinearSVC tol=" in uc[0]["note"]


def test_line_search_ball_qp1_weighted_svm():
    ls = bm.line_search(0, [50, 100], budget=0.0)
    _check_rows(ls, 2)
    assert all(r["ours_accuracy"] <= 1e-12 and r["reference_accuracy"] <= 1e-12 for r in ls)
    ball = bm.quadratic_on_ball(0, [5], [4, 5], hard_sizes=[5], budget=0.0)
    _check_rows(ball, 4)
    assert all(r["ours_accuracy"] <= 1e-9 and r["reference_accuracy"] <= 1e-6 for r in ball)
    assert sum("SDP" in r["benchmark"] for r in ball) == 2
    qp = bm.qp1(0, [50], [1.0], budget=0.0)
    _check_rows(qp, 1)
    assert abs(qp[0]["reference_accuracy"]) < 1e-6 and qp[0]["goal"] == ""
    ws = bm.weighted_svm([40, 60], budget=0.0)
    _check_rows(ws, 2)
    assert ws[-1]["goal"] == "ratio >= 10" and ws[0]["goal"] == ""
    assert all(r["ours_accuracy"] <= 1e-8 and r["reference_accuracy"] >= -1e-9 for r in ws)


def test_run_script_imports_and_has_both_size_sets():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert set(mod.FULL) == set(mod.QUICK)
    assert mod.FULL["ls_sizes"][-1] == 10_000 and 1000 in mod.FULL["qp1_sizes"]


def _benchmarks_on_path():
    import sys

    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))


def _load_script(name):
    _benchmarks_on_path()
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("family", ["gaussian", "correlated", "column-scales", "duplicates", "sparse", "separable"])
def test_unseen_shape_families_are_keyed_and_awkward_as_named(family):
    grid = _load_script("convergence_grid")
    X, y = grid.family_instance(family, 60, 8)
    X2, y2 = grid.family_instance(family, 60, 8)
    dense, dense2 = (A.toarray() if hasattr(A, "toarray") else A for A in (X, X2))
    assert dense.shape == (60, 8) and np.array_equal(dense, dense2) and np.array_equal(y, y2)  # own keyed stream
    assert set(np.unique(y)) == {-1.0, 1.0}
    if family == "duplicates":                       # row i + 30 repeats row i; some copies relabelled
        assert np.array_equal(dense[30:], dense[:30]) and np.any(y[30:] != y[:30])
    if family == "column-scales":
        spread = np.abs(dense).max(axis=0)
        assert spread.max() / spread.min() > 1e4
    if family == "correlated":                       # rank 3 up to noise 1e-3
        s = np.linalg.svd(dense, compute_uv=False)
        assert s[3] < 1e-2 * s[0]
    if family == "sparse":
        assert hasattr(X, "toarray") and X.nnz <= 0.05 * 60 * 8
    with pytest.raises(ValueError, match="family"):
        grid.family_instance("nonsense", 10, 2)


def test_certify_summary_counts_and_catches_a_contradicted_certificate():
    _benchmarks_on_path()
    from peers import report

    base = dict(n=10, d=2, pattern="free", method="auto", ran="interior-point", converged=True, seconds=0.01,
                n_iter=5, clarabel_seconds=0.1, clarabel_solve_seconds=0.02)
    rows = [dict(base, data="a", lam_n=1.0, rel_gap=5e-7, primal_minus_clarabel=4e-7),        # inside the bound
            dict(base, data="a", lam_n=10.0, rel_gap=1e-7, primal_minus_clarabel=3e-7),       # Clarabel below D
            dict(base, data="b", lam_n=1.0, rel_gap=2e-6, primal_minus_clarabel=-5e-6,       # not certified;
                 ran="dual-coordinate+interior-point", seconds=0.2)]                           # Clarabel worse
    table, totals = report.certify_summary(pd.DataFrame(rows))
    assert list(table["group"]) == ["a", "b", "all"]
    assert totals["cells"] == 3 and totals["certified"] == 2
    assert totals["clarabel_below_bound"] == 1 and totals["clarabel_worse"] == 1
    assert totals["ran_ipm"] == 2 and totals["ran_both"] == 1
    assert totals["slowest_at"] == "b, free, lam n = 1"
    assert totals["min_ratio_total"] == pytest.approx(0.1 / 0.2)
    assert totals["slower_than_solve"] == 1 and totals["worse_max"] == pytest.approx(5e-6)
    assert totals["worse_wide"] == 0                 # d = 2 < 0.8 n


def test_plan_comparison_counts_the_moved_cells_and_both_oracle_ratios():
    _benchmarks_on_path()
    from peers import report

    df = pd.DataFrame({"n": [10, 10, 20], "lam_n": [1.0, 2.0, 1.0], "row_norm": [3.0, 3.0, 0.5],
                       "auto_methods": ["interior-point", "dual-coordinate", "interior-point"],
                       "x_methods": ["dual-coordinate", "dual-coordinate", "dual-coordinate+interior-point"],
                       "auto_cpu": [1.0, 2.0, 3.0], "x_cpu": [2.0, 2.0, 4.0], "dca_cpu": [2.0, 2.0, 5.0],
                       "dca_converged": [True, True, False], "ipm_cpu": [1.0, 4.0, 3.0],
                       "auto_over_oracle": [1.0, 1.0, 1.0], "oracle_cpu": [1.0, 2.0, 3.0]})
    table, summary = report.plan_comparison(df, "x", {"n": "n", "lam_n": "lam_n"}, {"tag": pd.Series(list("abc"))})
    assert list(table.columns[:4]) == ["n", "lam_n", "rows_over_lam_n", "tag"]
    assert list(table["rows_over_lam_n"]) == [3.0, 1.5, 0.5]
    assert summary["cells"] == 3 and summary["moved"] == 2          # the second cell ran the same method
    assert (summary["speed_min"], summary["speed_max"], summary["speed_median"]) == (0.5, 0.75, 0.625)
    assert (summary["seconds"], summary["seconds_before"], summary["slower"]) == (4.0, 6.0, 0)
    assert summary["twin_offset"] == pytest.approx(0.0)             # the unmoved cell: 2.0 against 2.0
    assert summary["gm"] == 1.0
    assert summary["gm_before"] == pytest.approx((2.0 * 1.0 * 4.0 / 3.0) ** (1 / 3))
    assert summary["verdict"] == "gain"                              # 1.0 against 1.39, no noise in the twin
    noisy = df.assign(x_cpu=[2.0, 1.0, 4.0])                          # the twin ran twice as fast: 100% noise
    assert report.plan_comparison(noisy, "x", {"n": "n"})[1]["verdict"] == "within the noise"
    slow = df.assign(auto_over_oracle=[2.0, 2.0, 2.0])               # 2.0 against 1.39
    assert report.plan_comparison(slow, "x", {"n": "n"})[1]["verdict"] == "loss"


def test_missed_keeps_the_cells_left_to_coordinate_ascent_where_the_interior_point_method_was_faster():
    _benchmarks_on_path()
    from peers import report

    table = pd.DataFrame({"method": ["dual-coordinate", "dual-coordinate", "interior-point", "dual-coordinate"],
                          "method_before": ["interior-point"] * 4, "auto_cpu": [3.0, 1.4, 3.0, 3.0],
                          "before_cpu": [3.0] * 4, "ipm_alone_cpu": [1.0, 1.0, 1.0, 2.0]})
    assert list(report.missed(table).index) == [0]          # 1.4 < 1.5 times; IPM ran; 1.5 is not more than 1.5
    assert report.missed(table, "method_before", "before_cpu").empty
    assert list(report.missed(table, factor=1.2).index) == [0, 1, 3]


def test_rule_ablation_averages_seeds_before_the_ratio_and_counts_changed_runs():
    _benchmarks_on_path()
    from peers import report

    df = pd.DataFrame({"data": ["a", "a", "b", "b"], "pattern": ["free"] * 4, "lam_n": [1.0, 1.0, 10.0, 10.0],
                       "seed": [0, 1, 0, 1], "rule_cpu": [1.0, 3.0, 2.0, 2.0], "before_cpu": [2.0, 2.0, 1.0, 1.0],
                       "rule_methods": ["x", "x+y", "x", "x"], "before_methods": ["x", "x", "x", "x"],
                       "rule_converged": [True, True, True, False], "before_converged": [True] * 4})
    s = report.rule_ablation(df)
    assert (s["cells"], s["seeds"], s["runs"]) == (2, 2, 4)
    assert s["gm"] == pytest.approx(np.sqrt(1.0 * 2.0))       # seed means 2/2 and 2/1, not the runs' ratios
    assert (s["ratio_min"], s["min_at"], s["ratio_max"], s["max_at"]) == (1.0, "a free, λn = 1", 2.0, "b free, λn = 10")
    assert (s["rule_ms"], s["before_ms"]) == (pytest.approx(4000.0), pytest.approx(3000.0))
    assert (s["certified"], s["certified_before"], s["changed"], s["changed_slower"]) == (3, 4, 1, 1)
    assert s["changed_min"] == s["changed_max"] == 1.5


def test_liblinear_passes_reports_a_point_within_the_accuracy_it_claims():
    _benchmarks_on_path()
    from peers import floor, linear

    from svmcert import signsvm

    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 5))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(80) > 0, 1.0, -1.0)
    row = floor.passes_row(X, y, 1.0, data="toy", repeat=1, budget=0.0, products=(1e-6, 2e-6, X.size),
                           liblinear=True)
    lam = 1.0 / 80
    p_star = signsvm.solve(X, y, lam, np.zeros(5), tol=1e-10).primal
    w = linear.liblinear_fit(X, y, lam, row["liblinear_tol"], 100_000)[0]     # the setting it timed
    excess = (signsvm.primal_objective(w, X, y, lam) - p_star) / p_star
    assert row["liblinear_reached"] and excess <= 1e-6 + 1e-9       # P* of the helper vs a 1e-10 solve
    assert row["liblinear_excess"] == pytest.approx(excess, abs=1e-9)
    assert row["liblinear_passes_dense"] == pytest.approx(row["liblinear_cpu"] / 1e-6)
    assert row["liblinear_passes_csr"] == pytest.approx(row["liblinear_cpu"] / 2e-6)
    assert row["liblinear_tols_tried"].split()[-1].startswith(f"{row['liblinear_tol']:g}:")
    with pytest.raises(ValueError, match="sign"):
        floor.passes_row(X, y, 1.0, sign=np.ones(5), repeat=1, budget=0.0, products=(1e-6, 2e-6, X.size),
                         liblinear=True)


def test_auto_plan_append_keeps_the_rows_and_provenance_the_file_holds(tmp_path):
    auto_plan = _load_script("auto_plan")
    out = tmp_path / "sparse.csv"
    tiny = ["--sparse", "300", "--sparse-d", "20", "--density", "0.2", "--lam-n", "1", "--patterns", "free",
            "--repeat", "1", "--dca-passes", "200", "--csv", str(out)]
    assert auto_plan.main(tiny) == 0
    first = pd.read_csv(out)
    first.loc[:, "date"] = "an earlier run"                     # stands for another run's provenance
    first.to_csv(out, index=False)
    assert auto_plan.main(tiny[:3] + ["30"] + tiny[4:] + ["--append"]) == 0
    both = pd.read_csv(out)
    assert list(both["d"]) == [20, 30] and list(both.columns) == list(first.columns)
    assert both["date"].iloc[0] == "an earlier run" and both["date"].iloc[1] != "an earlier run"
    assert auto_plan.main(tiny) == 0                             # without --append the file is replaced
    assert list(pd.read_csv(out)["d"]) == [20]


def test_sweep_cells_measures_every_cell_writes_after_each_and_leaves_out_skipped_ones(tmp_path, capsys):
    _benchmarks_on_path()
    from peers import common

    seen = []

    def measure(n, d, density, ratio, pattern, repeat):
        seen.append((n, d, density, ratio, pattern, repeat))
        return None if (n, ratio) == (20, 2.0) else {"n": n, "ratio": ratio, "pattern": pattern}

    path = tmp_path / "cells.csv"
    rows = common.sweep_cells(((10, 3, 0.5), (20, 4, 0.25)), (1.0, 2.0), ("free", "mixed"), measure, 2, path,
                              lambda r: f"cell {r['n']} {r['ratio']:g} {r['pattern']}")
    assert len(seen) == 8 and all(c[-1] == 2 for c in seen)
    assert [(r["n"], r["ratio"], r["pattern"]) for r in rows] == [
        (10, 1.0, "free"), (10, 1.0, "mixed"), (10, 2.0, "free"), (10, 2.0, "mixed"), (20, 1.0, "free"),
        (20, 1.0, "mixed")]
    written = pd.read_csv(path)
    assert list(written["n"]) == [10, 10, 10, 10, 20, 20] and "commit" in written.columns
    out = capsys.readouterr().out
    assert out.count("skipped") == 2 and "cell 20 1 mixed" in out


def test_sweep_main_reads_repeat_and_csv_and_reports_the_rows(tmp_path, capsys):
    _benchmarks_on_path()
    from peers import common

    reported = []
    path = tmp_path / "rule.csv"
    rc = common.sweep_main(["--repeat", "3", "--csv", str(path)], "a rule", "unused.csv",
                           (((10, 3, 0.5),), (1.0,), ("free",)),
                           lambda n, d, density, ratio, pattern, repeat: {"n": n, "repeat": repeat},
                           lambda r: f"cell {r['n']}", reported.append)
    assert rc == 0 and reported == [[{"n": 10, "repeat": 3}]]
    assert list(pd.read_csv(path)["repeat"]) == [3] and "cell 10" in capsys.readouterr().out
    with pytest.raises(SystemExit):                              # an unknown option is refused by argparse
        common.sweep_main(["--repeats", "3"], "a rule", "unused.csv", ((), (), ()), None, None, None)


def test_long_rows_candidates_take_the_method_alone_only_where_they_apply():
    _benchmarks_on_path()
    import long_rows_rule as lrr

    rows = [{"q": 20.0, "ipm_passes_model": 300.0, "ipm_cpu": 1.0, "rule_off_cpu": 2.0},    # long rows, within 400
            {"q": 20.0, "ipm_passes_model": 900.0, "ipm_cpu": 3.0, "rule_off_cpu": 1.0},    # beyond 400 passes
            {"q": 10.0, "ipm_passes_model": 300.0, "ipm_cpu": 2.0, "rule_off_cpu": 1.0}]    # rows too short for 15
    c0, c1, c2, c3 = (lrr.candidate_summary(rows, c) for c in ("C0", "C1", "C2", "C3"))
    assert (c0["alone"], c1["alone"], c2["alone"], c3["alone"]) == (0, 2, 1, 3)
    assert c2["gm"] == pytest.approx(1.0) and c2["seconds"] == pytest.approx(3.0) and c2["max"] == 1.0
    assert c1["max"] == pytest.approx(3.0) and c1["seconds"] == pytest.approx(5.0)
    assert c0["gm"] == pytest.approx(2.0 ** (1 / 3)) and c3["gm"] == pytest.approx(6.0 ** (1 / 3))


def test_shrinking_eps_times_each_candidate_sets_the_constant_per_call_and_puts_it_back(tmp_path, capsys):
    _benchmarks_on_path()
    import shrinking_eps

    from svmcert.signsvm import shrinking_rounds

    kept = shrinking_rounds.SHRINKING_EPS_PER_TOL
    out = tmp_path / "eps.csv"
    assert shrinking_eps.main(["--data", "heart", "--lam-n", "10", "--patterns", "free", "--candidates", "1e2",
                               "--solvers", "dual-coordinate", "--repeat", "1", "--csv", str(out)]) == 0
    assert shrinking_rounds.SHRINKING_EPS_PER_TOL == kept
    rows = pd.read_csv(out)
    assert sorted(rows["eps_per_tol"]) == sorted({kept, 1e2})
    assert rows.loc[rows["current"], "ratio"].tolist() == [1.0] and rows["converged"].all()
    assert (rows["rel_gap"] <= 1e-6).all() and "commit" in rows.columns
    # a start of 1e-4 instead of 1e-3 takes a different path: the constant really reached the loop
    assert rows.set_index("eps_per_tol").loc[1e2, "passes"] != rows.set_index("eps_per_tol").loc[kept, "passes"]
    assert "geo=1.000" in capsys.readouterr().out


def test_weighted_grid_cells_are_checked_by_the_scripts_own_objectives_and_clarabel():
    grid = _load_script("convergence_grid")
    from svmcert import signsvm

    X, y = grid.family_instance("gaussian", 120, 6)
    s = grid.sample_weights("with-zeros", "gaussian-120x6", 120)
    assert np.array_equal(s, grid.sample_weights("with-zeros", "gaussian-120x6", 120))      # own keyed stream
    assert (s == 0).sum() == 12 and s[s > 0].min() >= 0.1 and s.max() <= 5.0
    assert grid.sample_weights("none", "gaussian-120x6", 120) is None
    # the script's weighted objectives are the library's public ones at unit weights
    sign, lam = grid.sign_pattern("nonpos", "gaussian-120x6", 6), 0.05
    res = signsvm.solve(X, y, lam, sign)
    P, D = grid.weighted_objectives(res.w, res.alpha, X, y, lam, sign, np.ones(120))
    assert P == pytest.approx(signsvm.primal_objective(res.w, X, y, lam), rel=1e-12)
    assert D == pytest.approx(signsvm.dual_objective(res.alpha, X, y, lam, sign), rel=1e-12)
    # a dual point outside the weighted box bounds nothing, a primal point outside the sign set neither
    assert grid.weighted_objectives(res.w, res.alpha, X, y, lam, sign, s)[1] == -np.inf
    assert grid.weighted_objectives(np.abs(res.w) + 1.0, res.alpha, X, y, lam, sign, s)[0] == np.inf
    rows = grid.run_cell(X, y, 1.0, sign, ["auto"], 1e-6, True, repeat=1, weights=s)
    (row,) = rows
    assert row["converged"] and 0.0 <= row["rel_gap"] <= 1e-6
    # Clarabel's value is no lower than our dual bound: (P - P_c) / P_c <= rel_gap, up to Clarabel's
    # accuracy (its default relative gap tolerance is 1e-8; 1e-7 leaves room for its feasibility tolerance)
    assert row["primal_minus_clarabel"] <= row["rel_gap"] * (1 + row["rel_gap"]) + 1e-7


def test_timed_with_constant_sets_the_value_for_the_calls_and_restores_it_even_on_an_error():
    _benchmarks_on_path()
    import types

    from peers import common

    module = types.SimpleNamespace(LIMIT=3)
    seen = []
    t = common.timed_with_constant(module, "LIMIT", 7, lambda: seen.append(module.LIMIT) or len(seen), repeat=2,
                                   min_seconds=0.0)
    assert set(seen) == {7} and t.calls == len(seen) >= 2 and module.LIMIT == 3

    def fails():
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        common.timed_with_constant(module, "LIMIT", 9, fails)
    assert module.LIMIT == 3


def test_odd_problems_are_keyed_and_checked_independently(monkeypatch):
    odd = _load_script("odd_problems")
    X, y, sign, lam, s, fmt, Xe = odd.odd_problem(0, 689)                  # a repeated row, opposite labels
    again = odd.odd_problem(0, 689)
    assert np.array_equal(Xe, again[6]) and lam == again[3] and fmt == again[5]
    assert np.array_equal(Xe[0], Xe[1]) and y[0] == -y[1]
    scales = np.abs(odd.odd_problem(0, 13)[6]).max(axis=0)                 # feature scales over ten decades
    assert scales.max() / scales.min() > 1e4
    rows = odd.check_case(0, 689, ("auto", "interior-point"))
    assert [r["solver"] for r in rows] == ["auto", "interior-point"]
    for r in rows:
        assert r["check"] == "ok" and r["converged"] and 0.0 <= r["rel_gap"] <= 1e-6
        assert r["dual_excess"] <= 1e-7                                     # it stalled before the check
        assert r["woodbury_refined"] != "" or r["woodbury_until"] != ""
    # with the check off the interior-point method stalls on both: the crossover finishes this one,
    # and the scaled case is not certified, which its row says without failing a check
    ne = importlib.import_module("svmcert.signsvm._normal_equations")
    monkeypatch.setattr(ne, "WOODBURY_RESIDUAL_LIMIT", np.inf)
    (crossed,) = odd.check_case(0, 689, ("interior-point",))
    assert crossed["converged"] and crossed["crossover"] == "certified" and crossed["check"] == "ok"
    (before,) = odd.check_case(0, 13, ("interior-point",))
    assert not before["converged"] and before["warned"] and before["check"] == "ok"
    assert "not certified interior-point:13" in odd.summary([before])


def test_wide_odd_problems_are_keyed_and_a_refined_run_certifies(monkeypatch):
    odd = _load_script("odd_problems")
    X, y, sign, lam, s, fmt, Xe = odd.wide_problem(0, 383)          # feature scales over ten decades
    again = odd.wide_problem(0, 383)
    n, d = Xe.shape
    assert np.array_equal(Xe, again[6]) and lam == again[3] and 2.5 * n <= d <= odd.WIDE_MAX_D
    (row,) = odd.check_case(0, 383, ("interior-point",), wide=True)
    assert row["check"] == "ok" and row["converged"] and 0.0 <= row["rel_gap"] <= 1e-6
    assert row["woodbury_refined"] != "" and np.isnan(row["clarabel_excess"])     # 230k entries: no Clarabel
    (small,) = odd.check_case(0, 103, ("auto",), wide=True)          # 30 x 88, scales over ten decades
    assert small["check"] == "ok" and small["converged"] and small["clarabel_seconds"] > 0
    assert small["dual_excess"] <= 1e-7 and np.isfinite(small["clarabel_excess"])
    # checked, not refined, as before: the run warned on one BLAS thread
    # (results/odd_problems_wide_before.csv); an unrefined run's fate depends on rounding, but
    # its row must pass the checks either way
    ne = importlib.import_module("svmcert.signsvm._normal_equations")
    monkeypatch.setattr(ne, "WOODBURY_REFINEMENTS", 0)
    (before,) = odd.check_case(0, 383, ("interior-point",), wide=True)
    assert before["check"] == "ok" and before["woodbury_refined"] == "" and (before["converged"] or before["warned"])


def test_odd_problems_table_counts_certified_warned_and_failed_rows():
    _benchmarks_on_path()
    from peers import report

    def rows(converged, rel_gaps, checks):
        out = []
        for case, (conv, gap, check) in enumerate(zip(converged, rel_gaps, checks)):
            for solver in ("auto", "interior-point", "dual-coordinate"):
                out.append({"kind": "scaled" if case % 2 else "dups", "case": case, "solver": solver,
                            "converged": conv if solver != "dual-coordinate" else False,
                            "warned": not conv or solver == "dual-coordinate", "rel_gap": gap, "check": check})
        return pd.DataFrame(out)

    after = rows([True, True, True], [5e-7, 1e-6 * (1 + 1e-6), 2e-6], ["ok", "ok", "converged above tol"])
    before = rows([True, False, True], [5e-7, 3e-3, 5e-7], ["ok", "ok", "ok"])
    table, totals = report.odd_problems_table(after, before)
    assert list(table["kind"]) == ["dups", "scaled", "all"]
    # case 2 says converged with a gap above tol: not certified, not "warned" (it did not warn), a failed check
    assert totals["cases"] == 3 and totals["auto_certified"] == 2 and totals["auto_warned"] == 0
    assert totals["failed_checks"] == 3 and totals["auto_certified_before"] == 2
    assert totals["dual_coordinate_certified"] == 0 and totals["dual_coordinate_warned"] == 3
    scaled = table.set_index("kind").loc["scaled"]
    assert scaled["interior_point_certified_before"] == 0 and scaled["interior_point_certified"] == 1


def test_refinement_sweep_summary_picks_the_compared_configurations():
    _benchmarks_on_path()
    from peers import report

    rows = [dict(limit=0.0, refinements=0, refined_limit=1e-8, not_certified=17),
            dict(limit=1e-4, refinements=0, refined_limit=1e-8, not_certified=0),
            dict(limit=1e-4, refinements=3, refined_limit=1e-4, not_certified=1),
            dict(limit=1e-4, refinements=3, refined_limit=1e-8, not_certified=0),
            dict(limit=1e-4, refinements=1, refined_limit=1e-8, not_certified=5)]
    s = report.refinement_sweep_summary(pd.DataFrame(rows), 3, 1e-8)
    assert [s[k]["not_certified"] for k in ("off", "fallback", "coarse", "refined")] == [17, 0, 1, 0]
    assert s["refined"]["refinements"] == 3 and s["coarse"]["refined_limit"] == 1e-4


def test_report_docstring_examples_run():
    # the benchmark scripts' report helpers sit outside the library's doctest list; their
    # Examples (choice_summary, wide_problems_summary, ...) are run here
    import doctest

    _benchmarks_on_path()
    from peers import common, report

    for module in (report, common):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and (module is common or result.attempted > 0)
