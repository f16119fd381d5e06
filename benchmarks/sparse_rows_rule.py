"""Out-of-sample evidence for a rule on the rows' norm of a sparse X: ``solve(auto)`` as it is
(the interior-point method alone where mean ||x_i||^2 / (lam n) = q is at least
AUTO_IPM_ABOVE_SCALED_NORM and the method is cheap, ``plan.ipm_is_cheap``) against ``auto`` with
that rule off (coordinate ascent first, within its budget, then the interior-point method), on
sparse shapes that no constant of the plan was chosen on.

The candidate rules were fixed from ``results/auto_plan_sparse.csv`` and
``results/auto_plan_sparse_heldout.csv`` before this script ran (replayed on those files' times
in their run of 2026-12-06 at eedd2ac; both were rerun with the adopted rule the next day):

- R0, the plan as it is: the interior-point method alone from q = 1.25 (grid 1.010, held-out
  1.098 times the faster method alone, geometric mean);
- R1: for a sparse X, from q = 3 (replayed: 1.007 and 1.010; 3 s more on the grid, where at
  n = 1e6 coordinate ascent alone took 1.8 times the interior-point method at q = 2, and 5 s less
  on the held-out file);
- R2: from q = 3 where the time model puts the interior-point method above 30 passes, from 1.25
  at or below (replayed: 0.993 and 1.037).

Each cell is timed under both plans (R0: ``auto``; coordinate ascent first: ``auto`` with both
thresholds on the rows' norm set to infinity for the call), which gives every rule's time: R1
runs coordinate ascent first where q < 3, R2 where q < 3 and the model is above 30 passes. A
rule is worth adopting only if it beats R0 here, in geometric mean over the cells of its time
over the faster plan and in total. Shapes (n, d, density): the model's passes range from 18 to
103; q in {1.5, 2.5, 3.5} (lam n = mean ||x_i||^2 / q), free and mixed signs; tol 1e-6, BLAS on
one thread:

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/sparse_rows_rule.py

Writes ``results/sparse_rows_rule.csv`` (one row per cell: q, the model's passes, both plans'
CPU seconds, methods and certification, and the run's provenance) and prints each rule's summary.
Nothing here changes the library.
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

SHAPES = ((40_000, 400, 0.02), (150_000, 400, 0.02), (400_000, 400, 0.0125), (600_000, 800, 0.01),
          (80_000, 800, 0.008), (250_000, 1200, 0.007), (150_000, 1200, 0.005), (200_000, 1500, 0.004))
RATIOS = (1.5, 2.5, 3.5)
PATTERNS = ("free", "mixed")
RULES = {"R0": (1.25, 0.0), "R1": (3.0, 0.0), "R2": (3.0, 30.0)}
"""Each rule as (threshold on q, passes of the model at or below which the threshold is 1.25)."""
TOL = 1e-6


def dca_first(rule: str, q: float, passes: float) -> bool:
    """Whether ``rule`` runs coordinate ascent first on a cheap sparse cell with ratio q and the
    model's passes."""
    threshold, floor_passes = RULES[rule]
    return q < (RULES["R0"][0] if passes <= floor_passes else threshold)


def measure(n: int, d: int, density: float, ratio: float, pattern: str, repeat: int) -> dict | None:
    """One cell: both plans timed, or None where the interior-point method is not cheap (every
    rule then runs coordinate ascent first)."""
    from svmcert import signsvm

    plan = importlib.import_module("svmcert.signsvm.plan")
    X, y = floor.gaussian_sparse(n, d=d, density=density)
    nnz = int(X.nnz)
    if not plan.ipm_is_cheap(n, d, True, nnz):
        return None
    row_norm = plan.row_norm_scale(X)
    lam_n = row_norm / ratio
    sign = common.sign_pattern(pattern, "gaussian-sparse", d)
    lam = lam_n / n
    now = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
    kept = (plan.AUTO_IPM_ABOVE_SCALED_NORM, plan.AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED)
    plan.AUTO_IPM_ABOVE_SCALED_NORM = plan.AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED = np.inf
    try:
        first = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
    finally:
        plan.AUTO_IPM_ABOVE_SCALED_NORM, plan.AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED = kept
    return dict(n=n, d=d, density=density, nnz=nnz, pattern=pattern, lam_n=lam_n, q=row_norm / lam_n,
                ipm_passes_model=plan.ipm_passes(n, d, True, nnz),
                r0_cpu=now.cpu, r0_methods="+".join(now.result.history.get("method", [])),
                r0_converged=bool(now.result.converged),
                dca_first_cpu=first.cpu, dca_first_methods="+".join(first.result.history.get("method", [])),
                dca_first_converged=bool(first.result.converged),
                dca_first_work=float(first.result.history.get("dca_work", 0.0)))


def rule_summary(rows, rule: str) -> dict:
    """Geometric mean over the cells of the rule's time over the faster plan, its worst cell,
    the total seconds and the cells where it runs coordinate ascent first."""
    first = [dca_first(rule, r["q"], r["ipm_passes_model"]) for r in rows]
    s = common.choice_summary(first, [r["dca_first_cpu"] for r in rows], [r["r0_cpu"] for r in rows])
    return {"rule": rule, "dca_first": s.pop("chosen"), **s}


def describe(row) -> str:
    """One printed line per cell."""
    return (f"{row['n']:>7} x {row['d']:<5} {row['density']:<6g} {row['pattern']:5s} q {row['q']:.2f} model "
            f"{row['ipm_passes_model']:5.1f} passes: auto {1e3 * row['r0_cpu']:8.1f} ms "
            f"({row['r0_methods']}), coordinate ascent first {1e3 * row['dca_first_cpu']:8.1f} ms "
            f"({row['dca_first_methods']})")


def report(rows) -> None:
    """The candidates' summaries, one printed line each."""
    for rule in RULES:
        s = rule_summary(rows, rule)
        print(f"{rule}: coordinate ascent first in {s['dca_first']} of {s['cells']} cells; time over the faster "
              f"plan {s['gm']:.3f} in geometric mean (at most {s['max']:.2f}); {s['seconds']:.1f} s in all")


def main(argv=None) -> int:
    return common.sweep_main(argv, __doc__.splitlines()[0], "sparse_rows_rule.csv", (SHAPES, RATIOS, PATTERNS),
                             measure, describe, report)


if __name__ == "__main__":
    sys.exit(main())
