"""Run the benchmarks of issue 6 and print one table (plain script; the book's Benchmarks
appendix calls the same functions of ``svmcert.experiments.benchmarks``).

    .venv/bin/python benchmarks/run.py            # the appendix's full sizes (about two minutes)
    .venv/bin/python benchmarks/run.py --quick    # small sizes, seconds
    .venv/bin/python benchmarks/run.py --only qp1 ball --csv out.csv
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd
from threadpoolctl import threadpool_limits

from svmcert.experiments import benchmarks as bm

FULL = dict(mnist_rows=None, lam_ns=[1.0, 1e2, 1e-2], max_epochs=20000, fo_iterations=300,
            ls_sizes=[1000, 3000, 10000], ball_sizes=[30, 100, 300], sdp_sizes=[20, 30, 50, 100],
            qp1_sizes=[1000, 10000], qp1_C=[0.01, 1.0, 100.0], wsvm_sizes=[200, 400, 800])
QUICK = dict(mnist_rows=500, lam_ns=[1.0, 1e2, 1e-2], max_epochs=2000, fo_iterations=30,
             ls_sizes=[1000, 3000], ball_sizes=[30, 100], sdp_sizes=[10, 20],
             qp1_sizes=[1000], qp1_C=[0.01, 1.0, 100.0], wsvm_sizes=[200])
GROUPS = ("sign", "unconstrained", "line-search", "ball", "qp1", "wsvm")


def run(p, only=GROUPS, seed=0, threads=1):
    rows, first = [], []
    with threadpool_limits(limits=threads, user_api="blas"):
        bm.warm_up()
        if "sign" in only or "unconstrained" in only:
            X, y, sign = bm.mnist_problem(p["mnist_rows"], seed)
        if "sign" in only:
            sc, duals = bm.sign_constrained(X, y, sign, p["lam_ns"], max_epochs=p["max_epochs"])
            rows += sc
            first = bm.first_order(X, y, sign, p["lam_ns"], p["fo_iterations"], duals, sc)
        if "unconstrained" in only:
            rows += bm.unconstrained(X, y, p["lam_ns"], max_epochs=p["max_epochs"])
        if "line-search" in only:
            rows += bm.line_search(seed, p["ls_sizes"])
        if "ball" in only:
            rows += bm.quadratic_on_ball(seed, p["ball_sizes"], p["sdp_sizes"], hard_sizes=p["ball_sizes"])
        if "qp1" in only:
            rows += bm.qp1(seed, p["qp1_sizes"], p["qp1_C"])
        if "wsvm" in only:
            rows += bm.weighted_svm(p["wsvm_sizes"], seed=seed)
    return pd.DataFrame(rows, columns=bm.COLUMNS), pd.DataFrame(first)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    ap.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS))
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    ap.add_argument("--csv", help="also write the table to this CSV file")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    df, first = run(QUICK if args.quick else FULL, args.only, threads=args.threads)
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 60):
        print(df.drop(columns=["accuracy"]).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
        if len(first):
            print("\nFixed iteration budget (sign-constrained, MNIST):")
            print(first.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.csv:
        df.to_csv(args.csv, index=False)
    print(f"\n{time.perf_counter() - t0:.1f} s in all; BLAS threads: {args.threads}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
