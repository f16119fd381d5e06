"""Suboptimality-vs-time curves from a benchopt result file, as a plain table the book can plot."""

from __future__ import annotations

import numpy as np

__all__ = ["CURVE_COLUMNS", "curves", "first_time_below"]

CURVE_COLUMNS = ["dataset", "lam_n", "pattern", "solver", "stop_val", "seconds", "objective", "suboptimality",
                 "violation", "p_star", "p_star_gap"]


def curves(parquet_path):
    """One row per point of every benchopt curve: the dataset (with its parameters), lam n and sign
    pattern, the solver, benchopt's ``stop_val`` (iterations or tolerance), its wall-clock time,
    P(w) at the solver's point projected on the sign set, (P - P*)/P*, the sign violation before
    the projection, P* and its certified relative gap. Sorted by (dataset, pattern, solver, time)."""
    import pandas as pd

    df = pd.read_parquet(parquet_path)
    out = pd.DataFrame({
        "dataset": df["dataset_name"], "lam_n": df["p_obj_lam_n"], "pattern": df["p_obj_pattern"],
        "solver": df["solver_name"], "stop_val": df["stop_val"], "seconds": df["time"],
        "objective": df["objective_value"], "suboptimality": df["objective_suboptimality"],
        "violation": df["objective_violation"], "p_star": df["objective_p_star"],
        "p_star_gap": df["objective_p_star_gap"]})
    return out.sort_values(["dataset", "lam_n", "pattern", "solver", "seconds"]).reset_index(drop=True)


def first_time_below(curve_table, level=1e-6):
    """For every (dataset, lam n, pattern, solver): the first time at which the suboptimality is
    <= ``level`` (NaN if never), and the best suboptimality reached."""
    rows = []
    for key, g in curve_table.groupby(["dataset", "lam_n", "pattern", "solver"]):
        hit = g[g["suboptimality"] <= level]
        rows.append(dict(zip(["dataset", "lam_n", "pattern", "solver"], key),
                         seconds_to_level=float(hit["seconds"].min()) if len(hit) else np.nan,
                         best_suboptimality=float(g["suboptimality"].min()), points=len(g)))
    return rows
