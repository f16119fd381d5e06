"""Run the benchopt benchmark ``benchmarks/benchopt`` (offline:
data from the mirror through ``svmcert.datasets`` and synthetic) and turn its result file into
suboptimality-vs-time curves.

    .venv/bin/python benchmarks/peers_benchopt.py                 # run, then convert
    .venv/bin/python benchmarks/peers_benchopt.py --convert-only  # convert the kept parquet

The run is ``benchopt run benchmarks/benchopt`` with the selection below (``--dataset``,
``--objective``, ``--max-runs``, ``--timeout``); everything is kept under
``benchmarks/results/benchopt/``: benchopt's result file ``benchopt.parquet``, the curves as
``curves.csv`` (one row per point, columns of ``peers.curves.CURVE_COLUMNS``, plus the run's
provenance) and the first time each solver reaches a relative suboptimality of 1e-6 as
``time_to_1e-6.csv``. benchopt's times are wall-clock
seconds of ``Solver.run`` (its own measurement, not the CPU time of the other parts).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peers import common, curves  # noqa: E402

DATASETS = ["libsvm[data=[heart,svmguide1]]", "simulated"]
OBJECTIVE = "Sign-constrained hinge SVM[lam_n=[1.0],pattern=[free,mixed]]"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", nargs="+", default=DATASETS)
    ap.add_argument("--objective", default=OBJECTIVE)
    ap.add_argument("--solver", nargs="*", default=[])
    ap.add_argument("--max-runs", type=int, default=20)
    ap.add_argument("--timeout", type=int, default=8)
    ap.add_argument("--out", default=str(common.RESULTS / "benchopt"))
    ap.add_argument("--convert-only", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    parquet = out / "benchopt.parquet"
    if not args.convert_only:
        parquet.unlink(missing_ok=True)          # benchopt would write benchopt_1.parquet beside an existing file
        cmd = [str(Path(sys.executable).with_name("benchopt")), "run", str(HERE / "benchopt"), "-o", args.objective,
               "-n", str(args.max_runs), "--timeout", str(args.timeout), "--no-plot", "--no-html", "--no-cache",
               "--output", str(parquet)]
        for d in args.dataset:
            cmd += ["-d", d]
        for s in args.solver:
            cmd += ["-s", s]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    table = curves.curves(parquet)
    rows = table.to_dict("records")
    common.write_csv(rows, out / "curves.csv", curves.CURVE_COLUMNS)
    common.write_csv(curves.first_time_below(table, 1e-6), out / "time_to_1e-6.csv")
    print(f"{len(rows)} points written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
