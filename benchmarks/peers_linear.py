"""Parts 1 and 2 of the peer benchmarks: ``signsvm.solve`` vs liblinear (free signs, goal: ours
not slower) and vs ReHLine (nonnegative and mixed signs, goal: ours >= 2x faster), on the seven
LIBSVM sets and MNIST-5k at lam n in {1e-3, ..., 1e3}, accuracy matched on the objective
(``benchmarks/peers/linear.py`` says how). One process at a time, BLAS on one thread:

    .venv/bin/python benchmarks/peers_linear.py --peer liblinear
    .venv/bin/python benchmarks/peers_linear.py --peer rehline --patterns nonneg mixed
    .venv/bin/python benchmarks/peers_linear.py --peer rehline --data heart --lam-n 1 --csv /tmp/x.csv
    .venv/bin/python benchmarks/peers_linear.py --scaling-check      # ReHLine's C and objective

Writes ``benchmarks/results/peers_<peer>.csv`` (one row per data set, lam n and pattern; the
columns are those of ``peers.linear.compare`` plus ``goal`` and ``met``, and the run's
provenance).
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

from peers import common, linear  # noqa: E402

GOALS = {"liblinear": 1.0, "rehline": 2.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", choices=sorted(GOALS), default="liblinear")
    ap.add_argument("--data", nargs="+", default=list(common.DATA))
    ap.add_argument("--lam-n", nargs="+", type=float, default=list(common.LAM_NS))
    ap.add_argument("--patterns", nargs="+", default=None, help="default: free for liblinear, nonneg mixed for ReHLine")
    ap.add_argument("--max-iter", type=int, default=20000, help="peer's iteration cap")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="lower the peer's iteration cap so that one fit takes about this many CPU seconds")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csv", help="default benchmarks/results/peers_<peer>.csv")
    ap.add_argument("--scaling-check", action="store_true", help="only check ReHLine's objective scaling")
    args = ap.parse_args(argv)
    with threadpool_limits(limits=1, user_api="blas"):
        if args.scaling_check:
            rows = linear.rehline_scaling_check()
            for r in rows:
                print(r, flush=True)
            common.write_csv(rows, args.csv or common.RESULTS / "rehline_scaling_check.csv")
            return 0
        patterns = args.patterns or (["free"] if args.peer == "liblinear" else ["nonneg", "mixed"])
        common.warm_up()
        rows, t0 = [], time.perf_counter()
        out = args.csv or common.RESULTS / f"peers_{args.peer}.csv"
        for name in args.data:
            X, y = common.problem(name)
            for pattern in patterns:
                sign = common.sign_pattern(pattern, name, X.shape[1])
                for lam_n in args.lam_n:
                    row = linear.compare(args.peer, X, y, lam_n, sign, data=name, pattern=pattern,
                                         max_iter=args.max_iter, max_seconds=args.max_seconds,
                                         repeat=args.repeat)
                    row["goal"] = f"ratio_cpu >= {GOALS[args.peer]:g}"
                    row["met"] = bool(row["comparable"] and row["ratio_cpu"] >= GOALS[args.peer])
                    rows.append(row)
                    print(f"{name:13s} {pattern:6s} lam_n={lam_n:<7g} ours {row['ours_cpu']:.4f}s "
                          f"({row['ours_method']}, {row['ours_iters']}) {args.peer} {row['peer_cpu']:.4f}s "
                          f"(tol {row['peer_tol']:g}, {row['peer_iters']} it{' CAP' if row['peer_capped'] else ''}) "
                          f"ratio {row['ratio_cpu']:.2f} reached {row['ours_reached']}/{row['peer_reached']} "
                          f"[{time.perf_counter() - t0:.0f}s]", flush=True)
                    common.write_csv(rows, out)        # after every row: a long run keeps what it measured
    return 0


if __name__ == "__main__":
    sys.exit(main())
