"""Cost against the floor. Passes over X to certify (our solve's CPU time / one product X v, dense
and CSR) on the eight data sets at lam n in {1e-2, 1, 100}, and scaling in n for the synthetic
dense family (d = 100, lam n = 1, n = 1e4, 1e5, 1e6) with fitted log-log slopes
(``benchmarks/peers/floor.py``). Goals: <= 30 passes (dense product) at lam n >= 1, slope <= 1.1.
For scale, liblinear (free signs, as ours here) is timed on the same problems to the same accuracy
and its time counted in the same products (synthetic families up to ``--liblinear-max-n``).
One process at a time, BLAS on one thread:

    .venv/bin/python benchmarks/peers_floor.py --part passes
    .venv/bin/python benchmarks/peers_floor.py --part scaling
    .venv/bin/python benchmarks/peers_floor.py --part scaling --sparse-sizes 1e4 1e5

The sparse family (d = 1000, 1% nonzeros; off by default) is solved as a CSR matrix, against the
CSR product's floor.

Writes ``benchmarks/results/peers_passes.csv``, ``peers_scaling.csv`` and ``peers_slopes.csv``.
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

from peers import common, floor  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", nargs="+", choices=["passes", "scaling"], default=["passes", "scaling"])
    ap.add_argument("--data", nargs="+", default=list(common.DATA))
    ap.add_argument("--lam-n", nargs="+", type=float, default=[1e-2, 1.0, 100.0])
    ap.add_argument("--scaling-lam-n", nargs="+", type=float, default=[1.0])
    ap.add_argument("--dense-sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    ap.add_argument("--sparse-sizes", nargs="*", type=float, default=[],
                    help="off by default; the family is solved as a CSR matrix (see the module docstring)")
    ap.add_argument("--no-liblinear", dest="liblinear", action="store_false",
                    help="skip liblinear's passes to the same accuracy (on by default)")
    ap.add_argument("--liblinear-max-n", type=float, default=1e5,
                    help="largest n of the synthetic families at which liblinear is also run (default 1e5: at "
                         "n = 1e5 its search of tolerances took about a minute)")
    ap.add_argument("--out", default=str(common.RESULTS))
    args = ap.parse_args(argv)
    out = Path(args.out)
    t0 = time.perf_counter()

    def log(row):
        print(f"{row['data']:13s} n={row['n']:<8d} lam_n={row['lam_n']:<6g} {row['ours_cpu']:.4f}s "
              f"({row['method']}, {row['iterations']}, gap {row['rel_gap']:.1e}) passes dense {row['passes_dense']:.1f} "
              f"csr {row['passes_csr']:.1f}{peer(row)} [{time.perf_counter() - t0:.0f}s]", flush=True)

    def peer(row):
        if "liblinear_cpu" not in row:
            return ""
        return (f"; liblinear {row['liblinear_cpu']:.4f}s tol {row['liblinear_tol']:g} passes dense "
                f"{row['liblinear_passes_dense']:.1f}{'' if row['liblinear_reached'] else ' (not reached)'}")

    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        if "passes" in args.part:
            rows = []
            for name in args.data:
                X, y = common.problem(name)
                prod = floor.product_times(X)
                for lam_n in args.lam_n:
                    row = floor.passes_row(X, y, lam_n, data=name, products=prod, liblinear=args.liblinear)
                    row["goal"] = "passes_dense <= 30" if lam_n >= 1 else ""
                    row["met"] = bool(row["converged"] and row["passes_dense"] <= 30) if lam_n >= 1 else ""
                    rows.append(row)
                    log(row)
                    common.write_csv(rows, out / "peers_passes.csv")
        if "scaling" in args.part:
            rows = []
            for family, sizes in (("dense", args.dense_sizes), ("sparse", args.sparse_sizes)):
                for n in sizes:
                    rows += floor.scaling(family, [int(n)], args.scaling_lam_n, log=log,
                                          liblinear_max_n=args.liblinear_max_n if args.liblinear else 0)
                    common.write_csv(rows, out / "peers_scaling.csv")
            slopes = floor.slopes(rows)
            for s in slopes:
                s["goal"] = "slope_cpu <= 1.1"
                s["met"] = bool(s["all_converged"] and s["slope_cpu"] <= 1.1)
                print(s, flush=True)
            common.write_csv(slopes, out / "peers_slopes.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
