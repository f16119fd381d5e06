"""Part 3 of the peer benchmarks: ``screening.fit_weighted_svm`` vs libsvm (``SVC`` on the mirrored,
intercept-free problem; ``benchmarks/peers/kernel.py`` says why that is the same problem) on the
full svmguide1 (n = 3089), RBF kernel plus 1 (regularised intercept), weights U(0.5, 1.5)/n, lam n in {0.01, 1, 100}, accuracy
matched on P_w. Goal: ours not slower. One process at a time, BLAS on one thread:

    .venv/bin/python benchmarks/peers_libsvm.py
    .venv/bin/python benchmarks/peers_libsvm.py --data australian --lam-n 1 --csv /tmp/k.csv

Writes ``benchmarks/results/peers_libsvm.csv``. (``weighted_svm_vs_libsvm.py`` is the older
script: fixed libsvm tolerances, libsvm's accuracy read off against our dual bound.)
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from threadpoolctl import threadpool_limits  # noqa: E402

from peers import common, kernel  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["svmguide1"])
    ap.add_argument("--lam-n", nargs="+", type=float, default=[0.01, 1.0, 100.0])
    ap.add_argument("--max-rows", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csv", default=str(common.RESULTS / "peers_libsvm.csv"))
    args = ap.parse_args(argv)
    rows, t0 = [], time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        for name in args.data:
            K, y, w = kernel.weighted_problem(name, args.max_rows)
            for lam_n in args.lam_n:
                row = kernel.compare(K, y, w, lam_n, data=name, repeat=args.repeat)
                row["goal"] = "ratio_cpu >= 1"
                row["met"] = bool(row["comparable"] and row["ratio_cpu"] >= 1.0)
                rows.append(row)
                print(f"{name} n={row['n']} lam_n={lam_n:g}: ours {row['ours_cpu']:.3f}s ({row['ours_epochs']} epochs) "
                      f"libsvm {row['libsvm_cpu']:.3f}s (tol {row['libsvm_tol']:g}, b={row['libsvm_intercept']:.2g}) "
                      f"ratio {row['ratio_cpu']:.2f} reached {row['ours_reached']}/{row['libsvm_reached']} "
                      f"tried {row['tols_tried']} [{time.perf_counter() - t0:.0f}s]", flush=True)
                common.write_csv(rows, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
