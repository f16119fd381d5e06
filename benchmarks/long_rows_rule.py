"""Out-of-sample evidence for ``plan.AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY``: on a sparse X on
which the interior-point method is not cheap (its time model above AUTO_IPM_MAX_PASSES_SPARSE passes
of coordinate ascent) but can run, ``auto`` runs it alone once q = mean ||x_i||^2 / (lam n) is at
least that threshold. Timed against ``auto`` with that threshold set to infinity for the call
(coordinate ascent first, within its budget, then the interior-point method), on sparse shapes no
constant of the plan was chosen on.

The candidate rules were fixed from ``results/auto_plan_sparse.csv`` and
``results/auto_plan_sparse_heldout.csv`` (their run of 2026-12-07 at 2351998), replaying the plan
on their times, before this script ran:

- C0, the plan without the rule: coordinate ascent first wherever the method is not cheap
  (``auto`` / oracle 1.004 on the grid, 1.044 on the held-out shapes, geometric mean);
- C1, the rule as first committed: the method alone from q = 15 at any number of passes
  (replayed: 0.996 and 0.959; every threshold from 11.05 to 20.3 moves the same 14 cells, each
  faster);
- C2: from q = 15 only where the model is at most 400 passes (the files reach 353, so it replays
  as C1);
- C3: from q = 10 (the grid's cells at q = 10.4-11.1 split three and three between the plans).

Each cell times ``auto``, ``auto`` without the rule and the interior-point method alone, which
gives every candidate's time. Shapes (n, d, density):
the model's passes range from 145 to 990; q in {10, 20, 40} (lam n = mean ||x_i||^2 / q), free
and mixed signs; tol 1e-6, BLAS on one thread:

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/long_rows_rule.py

The run of 2026-12-07 (``results/long_rows_rule.csv``, an Intel Xeon, about 12 minutes; every
run certified) gave C0 1.351 in geometric mean over the faster plan (80.9 s in all), C1 1.122 (at
most 3.06; 59.5 s), C2 1.092 (at most 1.92; 62.9 s) and C3 1.413: C2 is the library's rule
(``plan.AUTO_IPM_MAX_PASSES_SPARSE_COSTLY``), the better in geometric mean and in its worst cell,
3.4 s behind C1 in all.

Writes ``results/long_rows_rule.csv`` (one row per cell: q, the model's passes, both plans' CPU
seconds, methods and certification, and the run's provenance) and prints each candidate's summary.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import importlib  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import common, floor  # noqa: E402

SHAPES = ((8_000, 800, 0.02), (12_000, 1200, 0.04), (20_000, 1500, 0.01), (70_000, 1800, 0.01),
          (50_000, 2500, 0.004), (15_000, 2500, 0.01))
RATIOS = (10.0, 20.0, 40.0)
PATTERNS = ("free", "mixed")
CANDIDATES = {"C0": (np.inf, np.inf), "C1": (15.0, np.inf), "C2": (15.0, 400.0), "C3": (10.0, np.inf)}
"""Each candidate as (threshold on q, most passes of the model at which it applies)."""
TOL = 1e-6


def method_alone(candidate: str, q: float, passes: float) -> bool:
    """Whether ``candidate`` runs the interior-point method alone on a cell with ratio q and the
    model's passes (all cells here are beyond the sparse limit in passes)."""
    threshold, most_passes = CANDIDATES[candidate]
    return q >= threshold and passes <= most_passes


def measure(n: int, d: int, density: float, ratio: float, pattern: str, repeat: int) -> dict:
    """One cell: ``auto`` as it is, ``auto`` without the rule and the interior-point method alone
    (what any candidate runs where it applies; where the rule applies ``auto`` runs the same, a
    twin timing that shows the noise)."""
    from svmcert import signsvm

    plan = importlib.import_module("svmcert.signsvm.plan")
    X, y = floor.gaussian_sparse(n, d=d, density=density)
    nnz = int(X.nnz)
    row_norm = plan.row_norm_scale(X)
    lam_n = row_norm / ratio
    sign = common.sign_pattern(pattern, "gaussian-sparse", d)
    lam = lam_n / n
    now = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
    kept = plan.AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
    plan.AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY = np.inf
    try:
        off = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
    finally:
        plan.AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY = kept
    ipm = common.timed(lambda: signsvm.solve(X, y, lam, sign, solver="interior-point", tol=TOL), repeat=repeat)
    return dict(n=n, d=d, density=density, nnz=nnz, pattern=pattern, lam_n=lam_n, q=row_norm / lam_n,
                ipm_passes_model=plan.ipm_passes(n, d, True, nnz), ipm_cheap=plan.ipm_is_cheap(n, d, True, nnz),
                auto_cpu=now.cpu, auto_methods="+".join(now.result.history.get("method", [])),
                auto_converged=bool(now.result.converged),
                rule_off_cpu=off.cpu, rule_off_methods="+".join(off.result.history.get("method", [])),
                rule_off_converged=bool(off.result.converged),
                rule_off_dca_work=float(off.result.history.get("dca_work", 0.0)),
                ipm_cpu=ipm.cpu, ipm_iterations=int(ipm.result.n_iter), ipm_converged=bool(ipm.result.converged))


def candidate_summary(rows, candidate: str) -> dict:
    """Geometric mean over the cells of the candidate's time (the interior-point method alone where
    it applies, else ``auto`` without the rule) over the faster of the two, its worst cell, the
    total seconds and the cells where it runs the method alone."""
    alone = [method_alone(candidate, r["q"], r["ipm_passes_model"]) for r in rows]
    s = common.choice_summary(alone, [r["ipm_cpu"] for r in rows], [r["rule_off_cpu"] for r in rows])
    return {"candidate": candidate, "alone": s.pop("chosen"), **s}


def describe(row) -> str:
    """One printed line per cell."""
    return (f"{row['n']:>7} x {row['d']:<5} {row['density']:<6g} {row['pattern']:5s} q {row['q']:5.1f} model "
            f"{row['ipm_passes_model']:5.0f} passes: auto {row['auto_cpu']:7.3f} s "
            f"({row['auto_methods']}), without the rule {row['rule_off_cpu']:7.3f} s "
            f"({row['rule_off_methods']}), the method alone {row['ipm_cpu']:7.3f} s")


def report(rows) -> None:
    """The candidates' summaries, one printed line each."""
    for candidate in CANDIDATES:
        s = candidate_summary(rows, candidate)
        print(f"{candidate}: the interior-point method alone in {s['alone']} of {s['cells']} cells; time over "
              f"the faster plan {s['gm']:.3f} in geometric mean (at most {s['max']:.2f}); {s['seconds']:.1f} s in all")


def main(argv=None) -> int:
    return common.sweep_main(argv, __doc__.splitlines()[0], "long_rows_rule.csv", (SHAPES, RATIOS, PATTERNS),
                             measure, describe, report)


if __name__ == "__main__":
    sys.exit(main())
