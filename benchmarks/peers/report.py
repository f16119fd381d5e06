"""Read the committed peer results (``benchmarks/results/*.csv``) back for the book's page: each
loader returns the table as it is shown and the numbers its prose quotes. Nothing here runs a
solver; the measurements are the runner scripts' (``benchmarks/peers_*.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .common import RESULTS

__all__ = ["PROVENANCE", "PATH_REASON", "classify", "load", "provenance_rows", "linear_table", "linear_summary", "libsvm_table",
           "passes_table", "scaling_table", "benchopt_table"]

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
            "passes_dense", "goal", "met"]
    return df[[c for c in cols if c in df.columns]].copy()


def scaling_table(df):
    cols = ["data", "n", "d", "density", "lam_n", "ours_cpu", "ours_calls", "method", "iterations", "rel_gap",
            "converged", "xv_dense_cpu", "passes_dense", "xv_csr_cpu", "passes_csr"]
    return df[[c for c in cols if c in df.columns]].copy()


def benchopt_table(df, level=1e-6):
    """Per (dataset, lam n, pattern, solver) of a benchopt curve table: first time at relative
    suboptimality <= ``level`` and the best suboptimality reached."""
    import pandas as pd

    from .curves import first_time_below

    out = pd.DataFrame(first_time_below(df, level))
    return out.sort_values(["dataset", "lam_n", "pattern", "seconds_to_level"]).reset_index(drop=True)


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
