"""The evidence behind ``signsvm.shrinking_rounds.SHRINKING_EPS_PER_TOL``: the first projected-gradient
spread at which coordinate ascent's shrinking loop stops to certify is min(SHRINKING_EPS0,
SHRINKING_EPS_PER_TOL * tol). Each candidate value is timed on the same cells, interleaved cell by
cell (every candidate's calls of one cell run back to back), through ``solve`` with ``auto`` (what a
user gets) and with coordinate ascent alone: the eight data sets of the peer benchmarks (the seven
LIBSVM sets with features divided by max |x| and MNIST-5k), free, nonnegative and mixed signs,
lam n in {1, 10, 100, 1000}, tol 1e-6. BLAS on one thread:

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/shrinking_eps.py

Writes ``results/shrinking_eps.csv``: one row per (cell, solver, candidate) with the best CPU and
wall seconds of repeated calls (``peers.common.timed``), the passes, the relative gap reached, the
methods ``auto`` ran, the ratio to the library's value measured in the same cell, and the run's
provenance; prints, for each solver and candidate, the geometric mean of that ratio, its extremes
and the cells more than 20% faster or slower. The library's constant is set for each call and put
back afterwards; nothing here changes the library.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import common  # noqa: E402

LAM_NS = (1.0, 10.0, 100.0, 1000.0)
PATTERNS = ("free", "nonneg", "mixed")
SOLVERS = ("auto", "dual-coordinate")
CANDIDATES = (1e5, 1e4, 1e3, 1e2)
"""1e5 starts at SHRINKING_EPS0 = 0.1 (liblinear's tolerance) for tol = 1e-6; 1e4 at 1e-2; 1e3 at
1e-3; 1e2 at 1e-4."""


def timed_solve(X, y, lam, sign, solver: str, eps_per_tol: float, repeat: int, budget: float):
    """``solve(X, y, lam, sign, solver, tol=1e-6)`` timed with SHRINKING_EPS_PER_TOL = ``eps_per_tol``
    (:func:`peers.common.timed_with_constant`: restored afterwards): (timing, result)."""
    from svmcert import signsvm
    from svmcert.signsvm import shrinking_rounds

    t = common.timed_with_constant(shrinking_rounds, "SHRINKING_EPS_PER_TOL", eps_per_tol,
                                   lambda: signsvm.solve(X, y, lam, sign, solver=solver, tol=1e-6),
                                   repeat=repeat, budget=budget)
    return t, t.result


def cell_rows(data, pattern, lam_n, X, y, sign, candidates, solvers=SOLVERS, repeat=3, budget=5.0):
    """The rows of one cell: every solver and candidate, with ``ratio`` = CPU seconds over those of
    the library's own value (``current``) for the same solver."""
    from svmcert.signsvm import shrinking_rounds

    current = shrinking_rounds.SHRINKING_EPS_PER_TOL
    n, d = X.shape
    lam = lam_n / n
    rows = []
    for solver in solvers:
        found = {}
        for eps_per_tol in dict.fromkeys([current, *candidates]):
            t, res = timed_solve(X, y, lam, sign, solver, eps_per_tol, repeat, budget)
            found[eps_per_tol] = dict(
                data=data, n=n, d=d, pattern=pattern, lam_n=lam_n, solver=solver, eps_per_tol=eps_per_tol,
                current=eps_per_tol == current, cpu=t.cpu, wall=t.wall, calls=t.calls, passes=res.n_iter,
                rel_gap=res.gap / max(res.primal, np.finfo(float).tiny), converged=bool(res.converged),
                methods="+".join(res.history.get("method", [])))
        for row in found.values():
            row["ratio"] = row["cpu"] / found[current]["cpu"]
            rows.append(row)
    return rows


def summary(rows) -> list[str]:
    """Per solver and candidate: cells, geometric mean, min and max of ``ratio``, the cells more
    than 20% faster and slower, the CPU seconds in all (against the library's value)."""
    lines = []
    for solver in dict.fromkeys(r["solver"] for r in rows):
        for eps in dict.fromkeys(r["eps_per_tol"] for r in rows if r["solver"] == solver):
            sel = [r for r in rows if r["solver"] == solver and r["eps_per_tol"] == eps]
            cur = [r for r in rows if r["solver"] == solver and r["current"]]
            ratios = [r["ratio"] for r in sel]
            geo = math.exp(sum(math.log(q) for q in ratios) / len(ratios))
            lines.append(f"{solver:15s} eps_per_tol={eps:<8g} cells={len(sel)} geo={geo:.3f} "
                         f"min={min(ratios):.2f} max={max(ratios):.2f} "
                         f"faster>20%={sum(q < 1 / 1.2 for q in ratios)} slower>20%={sum(q > 1.2 for q in ratios)} "
                         f"total={sum(r['cpu'] for r in sel):.3f}s (library's value {sum(r['cpu'] for r in cur):.3f}s) "
                         f"not certified={sum(not r['converged'] for r in sel)}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(common.DATA))
    ap.add_argument("--lam-n", nargs="+", type=float, default=list(LAM_NS))
    ap.add_argument("--patterns", nargs="+", default=list(PATTERNS))
    ap.add_argument("--candidates", nargs="+", type=float, default=list(CANDIDATES))
    ap.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=SOLVERS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csv", default=str(common.RESULTS / "shrinking_eps.csv"))
    args = ap.parse_args(argv)
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        for data in args.data:
            X, y = common.problem(data)
            for pattern in args.patterns:
                sign = common.sign_pattern(pattern, data, X.shape[1])
                for lam_n in args.lam_n:
                    new = cell_rows(data, pattern, lam_n, X, y, sign, args.candidates, args.solvers, args.repeat)
                    rows += new
                    print(f"{data:13s} {pattern:6s} lam_n={lam_n:<6g} "
                          + " ".join(f"{r['solver'][:4]}:{r['eps_per_tol']:g}={r['cpu'] * 1e3:.2f}ms/{r['passes']}"
                                     for r in new), flush=True)
    common.write_csv(rows, args.csv)
    for line in summary(rows):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
