"""Read the committed peer results (``benchmarks/results/*.csv``) back for the book's page: each
loader returns the table as it is shown and the numbers its prose quotes. Nothing here runs a
solver; the measurements are the runner scripts' (``benchmarks/peers_*.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .common import RESULTS

__all__ = ["PROVENANCE", "PATH_REASON", "classify", "load", "provenance_rows", "linear_table", "linear_summary", "libsvm_table",
           "passes_table", "scaling_table", "benchopt_table", "certify_summary", "plan_comparison", "missed",
           "rule_ablation"]

PROVENANCE = ["date", "commit", "machine", "blas", "versions"]


def load(name, results=RESULTS):
    """``results/<name>.csv`` as a DataFrame, or None if the file is absent."""
    import pandas as pd

    path = Path(results) / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None


def provenance_rows(tables: dict) -> list[dict]:
    """One row per result file: rows, date(s), commit(s), machine and BLAS it records."""
    rows = []
    for name, df in tables.items():
        if df is None:
            rows.append({"file": f"{name}.csv", "rows": 0, "date": "absent", "commit": "", "machine": "", "blas": ""})
            continue
        dates = sorted(df["date"].astype(str).unique())
        rows.append({"file": f"{name}.csv", "rows": len(df),
                     "date": dates[0] if len(dates) == 1 else f"{dates[0]} .. {dates[-1]}",
                     "commit": " ".join(sorted(df["commit"].astype(str).unique())),
                     "machine": " / ".join(sorted(df["machine"].astype(str).unique())),
                     "blas": " ".join(sorted(df["blas"].astype(str).unique()))})
    return rows


LINEAR_COLUMNS = ["data", "n", "d", "pattern", "lam_n", "ours_cpu", "ours_method", "peer_cpu", "peer_tol",
                  "peer_iters", "peer_capped", "ours_reached", "peer_reached", "ratio_cpu", "met"]


def linear_table(df):
    """The columns of a ``peers_linear.py`` result shown on the page."""
    return df[[c for c in LINEAR_COLUMNS if c in df.columns]].copy()


def linear_summary(df, goal):
    """Counts and extremes of one peer's result: cells, comparable cells (both reached the
    accuracy), cells meeting ``goal``, the smallest comparable ratio and where, the share of
    comparable cells meeting the goal per lam n, and the cells where only ours reached it."""
    comp = df[df["comparable"].astype(bool)]
    out = {"cells": len(df), "comparable": len(comp), "met": int((comp["ratio_cpu"] >= goal).sum()),
           "only_ours": int((df["ours_reached"].astype(bool) & ~df["peer_reached"].astype(bool)).sum()),
           "only_peer": int((~df["ours_reached"].astype(bool) & df["peer_reached"].astype(bool)).sum())}
    if len(comp):
        worst = comp.loc[comp["ratio_cpu"].idxmin()]
        out.update(min_ratio=float(worst["ratio_cpu"]),
                   min_ratio_at=f"{worst['data']}, {worst.get('pattern', 'free')}, lam n = {worst['lam_n']:g}",
                   median_ratio=float(comp["ratio_cpu"].median()))
    else:
        out.update(min_ratio=float("nan"), min_ratio_at="none", median_ratio=float("nan"))
    by_lam = []
    for lam_n, g in df.groupby("lam_n"):
        c = g[g["comparable"].astype(bool)]
        by_lam.append({"lam_n": float(lam_n), "cells": len(g), "comparable": len(c),
                       "met": int((c["ratio_cpu"] >= goal).sum()),
                       "median_ratio": float(c["ratio_cpu"].median()) if len(c) else float("nan"),
                       "min_ratio": float(c["ratio_cpu"].min()) if len(c) else float("nan")})
    out["by_lam"] = by_lam
    missed = comp[comp["ratio_cpu"] < goal]
    out["missed"] = len(missed)
    out["missed_switched"] = int(missed["ours_method"].astype(str).str.contains("+", regex=False).sum())
    out["missed_mnist"] = int((missed["data"] == "mnist5k").sum())
    return out


def libsvm_table(df):
    cols = ["data", "n", "lam_n", "ours_selection", "ours_cpu", "ours_epochs", "ours_rel_gap", "other_cpu",
            "ours_unchecked_cpu", "libsvm_tol", "libsvm_cpu",
            "libsvm_iters", "libsvm_rel_accuracy", "libsvm_intercept", "libsvm_direct_cpu", "ratio_cpu",
            "ours_reached", "libsvm_reached", "met"]
    return df[[c for c in cols if c in df.columns]].copy()


def passes_table(df):
    cols = ["data", "n", "d", "lam_n", "ours_cpu", "method", "iterations", "rel_gap", "converged", "xv_dense_cpu",
            "passes_dense", "liblinear_cpu", "liblinear_tol", "liblinear_reached", "liblinear_passes_dense", "goal",
            "met"]
    return df[[c for c in cols if c in df.columns]].copy()


def scaling_table(df):
    cols = ["data", "n", "d", "density", "lam_n", "ours_cpu", "ours_calls", "method", "iterations", "rel_gap",
            "converged", "xv_dense_cpu", "passes_dense", "xv_csr_cpu", "passes_csr", "liblinear_cpu", "liblinear_tol",
            "liblinear_reached", "liblinear_passes_dense", "liblinear_passes_csr"]
    return df[[c for c in cols if c in df.columns]].copy()


def benchopt_table(df, level=1e-6):
    """Per (dataset, lam n, pattern, solver) of a benchopt curve table: first time at relative
    suboptimality <= ``level`` and the best suboptimality reached."""
    import pandas as pd

    from .curves import first_time_below

    out = pd.DataFrame(first_time_below(df, level))
    return out.sort_values(["dataset", "lam_n", "pattern", "seconds_to_level"]).reset_index(drop=True)


def plan_comparison(df, before: str, first: dict, extra: dict | None = None):
    """A ``benchmarks/auto_plan.py`` result beside one of its ablations (``before``: the label of
    its ``<before>_cpu`` and ``<before>_methods`` columns, ``auto`` with one constant of the plan as
    it was).

    Returns (table, summary). The table has the columns ``first`` names (each a column of ``df`` or
    a Series), the rows' mean squared norm over lam n, the ``extra`` columns, then the methods and
    CPU seconds of ``auto`` now and before, of each method alone, and both over the oracle (the
    faster method alone that certified). The summary: ``cells``, ``moved`` (cells whose methods
    differ), ``speed_min``, ``speed_max`` and ``speed_median`` of the moved cells' time now over
    before (NaN if none moved), ``seconds`` and ``seconds_before`` (the moved cells' times summed),
    ``slower`` (moved cells slower now), ``twin_offset`` (over the cells not moved, where both runs
    follow one plan, the geometric mean of now over before, minus 1: the timing noise of the pair;
    NaN if every cell moved), ``gm`` and ``gm_before``, the geometric means of auto over the
    oracle now and before, and ``verdict``: "within the noise" where gm and gm_before differ by at
    most the twin offset (as a factor), else "gain" or "loss" (NaN offset: always one of these)."""
    import pandas as pd

    was = df[f"{before}_cpu"]
    cols = {k: df[v] if isinstance(v, str) else v for k, v in first.items()}
    cols["rows_over_lam_n"] = df["row_norm"] / df["lam_n"]
    cols.update(extra or {})
    cols.update({"method": df["auto_methods"], "method_before": df[f"{before}_methods"], "auto_cpu": df["auto_cpu"],
                 "before_cpu": was, "dca_alone_cpu": df["dca_cpu"], "dca_converged": df["dca_converged"],
                 "ipm_alone_cpu": df["ipm_cpu"], "auto_ratio_oracle": df["auto_over_oracle"],
                 "before_ratio_oracle": was / df["oracle_cpu"]})
    table = pd.DataFrame(cols)
    moved = table[table["method"] != table["method_before"]]
    same = table[table["method"] == table["method_before"]]
    speed = moved["auto_cpu"] / moved["before_cpu"]
    nan = float("nan")
    summary = {"cells": len(table), "moved": len(moved),
               "speed_min": float(speed.min()) if len(moved) else nan,
               "speed_max": float(speed.max()) if len(moved) else nan,
               "speed_median": float(speed.median()) if len(moved) else nan,
               "seconds": float(moved["auto_cpu"].sum()), "seconds_before": float(moved["before_cpu"].sum()),
               "slower": int((speed > 1).sum()),
               "twin_offset": float(np.exp(np.log(same["auto_cpu"] / same["before_cpu"]).mean()) - 1) if len(same)
               else nan,
               "gm": float(np.exp(np.log(table["auto_ratio_oracle"]).mean())),
               "gm_before": float(np.exp(np.log(table["before_ratio_oracle"]).mean()))}
    change = abs(np.log(summary["gm"] / summary["gm_before"]))
    summary["verdict"] = ("within the noise" if change <= abs(np.log1p(summary["twin_offset"]))
                          else "gain" if summary["gm"] < summary["gm_before"] else "loss")
    return table, summary


def missed(table, method: str = "method", cpu: str = "auto_cpu", factor: float = 1.5):
    """The rows of a :func:`plan_comparison` table where the plan's run (``method``, ``cpu``: the
    columns of ``auto`` now, or ``method_before``, ``before_cpu`` and the like) did not run the
    interior-point method alone, though that method alone was at least ``factor`` times faster."""
    return table[(table[method] != "interior-point") & (table["ipm_alone_cpu"] < table[cpu] / factor)]


def rule_ablation(df) -> dict:
    """A (cell, seed) file of ``benchmarks/give_up_rule.py`` or ``extension_rule.py``: ``auto``
    with a rule of coordinate ascent's rounds (``rule_*`` columns) and without it (``before_*``).

    Over the cells' seed-averaged times: ``cells``, ``seeds``, ``gm`` (geometric mean of rule over
    before), ``ratio_min`` and ``ratio_max`` with the cells where they occur (``min_at``,
    ``max_at``: "data pattern, λn = ..."), ``rule_ms`` and ``before_ms`` (totals); over the runs:
    ``runs``, ``certified`` and ``certified_before``, ``changed`` (runs whose methods differ),
    ``changed_slower`` (those of them slower under the rule) and the range of their time under the
    rule over before (``changed_min``, ``changed_max``; NaN if none changed)."""
    keys = ["data", "pattern", "lam_n"]
    means = df.groupby(keys, sort=False)[["rule_cpu", "before_cpu"]].mean()
    ratio = means["rule_cpu"] / means["before_cpu"]

    def at(key):
        return f"{key[0]} {key[1]}, λn = {key[2]:g}"

    changed = df[df["rule_methods"] != df["before_methods"]]
    speed = changed["rule_cpu"] / changed["before_cpu"]
    return {"cells": len(means), "seeds": int(df["seed"].nunique()), "gm": float(np.exp(np.log(ratio).mean())),
            "ratio_min": float(ratio.min()), "min_at": at(ratio.idxmin()),
            "ratio_max": float(ratio.max()), "max_at": at(ratio.idxmax()),
            "rule_ms": 1e3 * float(means["rule_cpu"].sum()), "before_ms": 1e3 * float(means["before_cpu"].sum()),
            "runs": len(df), "certified": int(df["rule_converged"].astype(bool).sum()),
            "certified_before": int(df["before_converged"].astype(bool).sum()),
            "changed": len(changed), "changed_slower": int((changed["rule_cpu"] > changed["before_cpu"]).sum()),
            "changed_min": float(speed.min()) if len(changed) else float("nan"),
            "changed_max": float(speed.max()) if len(changed) else float("nan")}


def finite(x):
    return x[np.isfinite(x)]


TIMING_WORDS = ("cpu", "wall", "ratio", "seconds", "calls", "passes", "slope", "met")
PATH_WORDS = ("tol", "iters", "iterations", "epochs", "capped", "reached", "comparable", "method", "excess", "gap",
              "accuracy", "violation", "intercept", "suboptimality", "converged", "points", "objective", "work",
              "gave")
EXACT = ("n", "d", "lam_n", "rows", "cells", "n_min", "n_max", "sizes")
PATH_REASON = ("where a solver stops inside its tolerance (its iterations, the tolerance the search picked, "
               "its accuracy and whether it reached the target) moves with floating-point kernels and machine "
               "load; timings and the goals decided by them are this machine's")


def classify(df) -> dict:
    """``save_table`` keywords for a results table: timing columns (CPU/wall seconds, ratios, passes,
    slopes, the goal verdicts they decide), path columns (tolerances, iterations, accuracies,
    reached flags, the method a run took) and exact identifying columns (sizes, lam n, counts)."""
    timing, path, exact = [], [], []
    for c in df.columns:
        words = str(c).lower().split("_")
        if c in EXACT:
            exact.append(c)
        elif any(w in words for w in TIMING_WORDS) or str(c).endswith("_cpu"):
            timing.append(c)
        elif any(w in words for w in PATH_WORDS):
            path.append(c)
    out = {"timing": timing, "exact": exact, "path": path}
    if path:
        out["path_reason"] = PATH_REASON
    return out


CERTIFY_TOL = 1e-6
"""The relative gap ``convergence_grid.py`` asks of ``solve`` (its ``--tol`` default)."""
CSV_REL = 1e-5
"""Relative rounding of a value written by ``write_csv`` (6 significant digits) is 5e-6; twice
that bounds the rounding of a comparison between two written values."""
SUM_REL = 1e-11
"""Rounding of a primal value, a sum of n <= 20000 terms (n eps ~ 2e-12 relative), for each of the
two values compared, with room to spare."""


def certify_summary(df, by="data", tol=CERTIFY_TOL):
    """Per group of a ``convergence_grid.py`` result (``by``: a column, or a function of a row's
    ``data`` name): cells, cells whose recomputed relative gap is within ``tol`` (the CSV's
    rounding allowed), the largest gap, our total and largest seconds, the methods ``auto`` ran,
    and, on the cells Clarabel ran, the median and smallest ratio of Clarabel's time (with
    cvxpy's compilation, and its own solve alone) to ours, and two checks of our certificates
    against Clarabel's value: ``clarabel_below_bound`` counts cells where Clarabel's primal value is
    below our dual bound (impossible if our certificate is right: P_clarabel >= P* >= D), and
    ``clarabel_worse`` cells where Clarabel's value is above ours by more than ``tol``.

    Returns (table, totals): the table one row per group plus ``all``; totals the same
    numbers over every cell, and where the slowest cell and the smallest ratio are."""
    import pandas as pd

    df = df.copy()
    df["group"] = df[by] if isinstance(by, str) else df["data"].map(by)
    df["certified"] = df["converged"].astype(bool) & (df["rel_gap"] <= tol * (1 + CSV_REL))
    has_ref = df["clarabel_seconds"].notna()
    df["ratio_total"] = df["clarabel_seconds"] / df["seconds"]
    df["ratio_solve"] = df["clarabel_solve_seconds"] / df["seconds"]
    # P - P_c <= P - D = gap P: relative to P_c, pmc <= rel_gap P / P_c <= rel_gap (1 + rel_gap)
    bound = df["rel_gap"].clip(lower=0) * (1 + df["rel_gap"].clip(lower=0)) * (1 + CSV_REL) + 2 * SUM_REL
    df["below_bound"] = has_ref & (df["primal_minus_clarabel"] > bound)
    df["worse"] = has_ref & (df["primal_minus_clarabel"] < -tol)

    def row(name, g):
        ref = g[g["clarabel_seconds"].notna()]
        ran = g["ran"].astype(str)
        return {"group": name, "cells": len(g), "certified": int(g["certified"].sum()),
                "max_rel_gap": float(g["rel_gap"].max()), "ours_seconds_total": float(g["seconds"].sum()),
                "ours_seconds_max": float(g["seconds"].max()),
                "ran_dca": int((ran == "dual-coordinate").sum()), "ran_ipm": int((ran == "interior-point").sum()),
                "ran_both": int(ran.str.contains("+", regex=False).sum()), "clarabel_cells": len(ref),
                "clarabel_seconds_total": float(ref["clarabel_seconds"].sum()) if len(ref) else float("nan"),
                "median_ratio_total": float(ref["ratio_total"].median()) if len(ref) else float("nan"),
                "min_ratio_total": float(ref["ratio_total"].min()) if len(ref) else float("nan"),
                "min_ratio_solve": float(ref["ratio_solve"].min()) if len(ref) else float("nan"),
                "clarabel_below_bound": int(g["below_bound"].sum()), "clarabel_worse": int(g["worse"].sum())}

    rows = [row(name, g) for name, g in df.groupby("group", sort=False)]
    totals = row("all", df)
    table = pd.DataFrame(rows + [totals])
    slow = df.loc[df["seconds"].idxmax()]
    totals["slowest_at"] = f"{slow['data']}, {slow['pattern']}, lam n = {slow['lam_n']:g}"
    ref = df[has_ref]
    if len(ref):
        worst = ref.loc[ref["ratio_solve"].idxmin()]
        totals["min_ratio_solve_at"] = f"{worst['data']}, {worst['pattern']}, lam n = {worst['lam_n']:g}"
        totals["slower_than_solve"] = int((ref["ratio_solve"] < 1).sum())
        totals["slower_than_total"] = int((ref["ratio_total"] < 1).sum())
        bad = df[df["worse"]]
        totals["worse_at"] = "; ".join(f"{r['data']}, {r['pattern']}, lam n = {r['lam_n']:g}" for _, r in bad.iterrows())
        totals["worse_max"] = float(-bad["primal_minus_clarabel"].min()) if len(bad) else 0.0
        totals["worse_wide"] = int((bad["d"] >= 0.8 * bad["n"]).sum())     # of them, d >= 0.8 n
    return table, totals


def odd_problems_table(after, before=None):
    """Per kind of ``odd_problems.py`` case (and ``all``): cases; per solver the cases it
    certified (converged, with the recomputed relative gap within CERTIFY_TOL up to the CSV's
    rounding), and for coordinate ascent also those it did not certify but warned about; and the
    rows of any solver that failed the script's checks (a contradicted certificate, a point
    outside its set, or a run that neither certified nor warned). ``before``: the same cases
    solved at an earlier commit; its certified counts of ``auto`` and the interior-point method
    come first, as ``*_certified_before``.

    Returns (table, totals): totals are the ``all`` row as a dict, with every solver's warned
    count."""
    import pandas as pd

    def counts(df):
        df = df.assign(certified=df["converged"].astype(bool) & (df["rel_gap"] <= CERTIFY_TOL * (1 + CSV_REL)))
        out = {}
        for kind, g in list(df.groupby("kind", sort=False)) + [("all", df)]:
            row = out[kind] = {"kind": kind, "cases": int(g["case"].nunique())}
            for solver, sv in g.groupby("solver", sort=False):
                key = solver.replace("-", "_")
                row[f"{key}_certified"] = int(sv["certified"].sum())
                row[f"{key}_warned"] = int((~sv["certified"] & sv["warned"].astype(bool)).sum())
            row["failed_checks"] = int((g["check"] != "ok").sum())
        return out

    rows = counts(after)
    earlier = counts(before) if before is not None else {}
    totals = dict(rows["all"])
    if earlier:
        totals.update({f"{key}_certified_before": earlier["all"].get(f"{key}_certified")
                       for key in ("auto", "interior_point")})
    shown = []
    for kind, row in rows.items():
        out = {"kind": kind, "cases": row["cases"]}
        for key in ("auto", "interior_point"):
            if kind in earlier:
                out[f"{key}_certified_before"] = earlier[kind].get(f"{key}_certified")
            out[f"{key}_certified"] = row.get(f"{key}_certified")
        for col in ("dual_coordinate_certified", "dual_coordinate_warned", "failed_checks"):
            if col in rows["all"]:                 # coordinate ascent's columns only where it ran
                out[col] = row.get(col)
        shown.append(out)
    return pd.DataFrame(shown), totals


def wide_problems_summary(after, before) -> dict:
    """The numbers the peers page states about ``odd_problems.py --wide``: ``after`` and ``before``
    its result files (solvers ``auto`` and ``interior-point``). Shapes; ``auto``'s uncertified
    cases before, by kind; the interior-point method's refined runs and steps, its switches to the
    d x d form and its crossovers, before and after; ``auto``'s seconds in all, on CSR input and
    for the slowest case; and on the cases Clarabel also solved, their count, both sides' seconds,
    the cases where Clarabel was faster, the largest relative excess of our dual value over
    Clarabel's optimum, and the rows whose check found it above Clarabel's accuracy.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(case=c, kind=k, n=10, d=40, fmt=f, solver=s, converged=ok, seconds=t,
    ...              woodbury_refined=ref, woodbury_until=None, crossover=None, clarabel_seconds=cl,
    ...              dual_excess=-1e-9, check="ok")
    ...         for c, k, f, ok, t, ref, cl in ((0, "scaled", "csr", True, 0.5, 2.0, 1.0),
    ...                                         (1, "dups", "dense", True, 0.25, None, None))
    ...         for s in ("auto", "interior-point")]
    >>> after = pd.DataFrame(rows)
    >>> before = after.assign(converged=[False, False, True, True], woodbury_refined=None)
    >>> s = wide_problems_summary(after, before)
    >>> s["short_before"], s["refined_runs"], s["refined_steps"], s["seconds"], s["csr_seconds"]
    ({'scaled': 1}, 1, 2, 0.75, 0.5)
    >>> s["clarabel_cases"], s["clarabel_slower"], s["dual_over"], s["ratio_max"]
    (1, 0, 0, 4.0)
    """
    def part(df, solver):
        return df[df["solver"] == solver]

    auto, auto_before = part(after, "auto"), part(before, "auto")
    ipm, ipm_before = part(after, "interior-point"), part(before, "interior-point")
    short = auto_before[~auto_before["converged"].astype(bool)]
    out = {"n_min": int(after["n"].min()), "n_max": int(after["n"].max()), "d_max": int(after["d"].max()),
           "ratio_max": float((after["d"] / after["n"]).max()),
           "short_before": {str(k): int(v) for k, v in short["kind"].value_counts(sort=False).items()},
           "refined_runs": int((ipm["woodbury_refined"].fillna(0) > 0).sum()),
           "refined_steps": int(ipm["woodbury_refined"].fillna(0).sum())}
    for key, ipm_df, auto_df in (("", ipm, auto), ("_before", ipm_before, auto_before)):
        out[f"switched{key}"] = int(ipm_df["woodbury_until"].notna().sum())
        out[f"crossover{key}"] = int(ipm_df["crossover"].notna().sum())
        out[f"seconds{key}"] = float(auto_df["seconds"].sum())
        out[f"slowest{key}"] = float(auto_df["seconds"].max())
        out[f"csr_seconds{key}"] = float(auto_df.loc[auto_df["fmt"] == "csr", "seconds"].sum())
    ref = auto[auto["clarabel_seconds"].notna()]
    out.update(clarabel_cases=len(ref), clarabel_ours_seconds=float(ref["seconds"].sum()),
               clarabel_seconds=float(ref["clarabel_seconds"].sum()),
               clarabel_slower=int((ref["clarabel_seconds"] < ref["seconds"]).sum()),
               dual_excess_max=float(ref["dual_excess"].max()) if len(ref) else float("nan"),
               dual_over=int(ref["check"].str.contains("dual above Clarabel").sum()))
    return out


def refinement_sweep_summary(sweep, steps: int, target: float, limit: float = 1e-4) -> dict:
    """Rows of ``odd_problems.py --woodbury-limits ... --refinements ... --refined-limits ...``
    (``results/woodbury_refinements.csv``) the peers page compares, each as a dict: ``off`` (the
    check off), ``fallback`` (checked at ``limit``, no refinement: the d x d form), ``coarse``
    (``steps`` refinement steps stopped at ``limit`` itself) and ``refined`` (``steps`` steps down
    to ``target``, the library's setting)."""
    checked = sweep[sweep["limit"] == limit]
    with_steps = checked[checked["refinements"] == steps]
    pick = {"off": sweep[sweep["limit"] == 0], "fallback": checked[checked["refinements"] == 0],
            "coarse": with_steps[np.isclose(with_steps["refined_limit"], limit)],
            "refined": with_steps[np.isclose(with_steps["refined_limit"], target)]}
    return {key: rows.iloc[0].to_dict() for key, rows in pick.items()}
