"""The interior-point method with and without its working-set finish (``signsvm.working_set``).

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/working_set.py
    ... benchmarks/working_set.py --dense-sizes 1e5 1e6      # adds the million-row dense cells
    ... benchmarks/working_set.py --sweep                    # the choice of gap and band

On the floor benchmark's Gaussian families (``peers.floor``: dense d = 100, and CSR d = 1000 with 1%
nonzeros), lam n in {0.01, 1, 100}, free and mixed signs, tol 1e-6, one row per cell with the CPU
seconds of ``solve(solver="interior-point")`` with the working set (``on``, the library's default)
and without it (``off``: WORKING_SET_MIN_ROWS set beyond n), the full iterations each took, the
working set's rounds, largest band and subset iterations, both relative gaps and the difference of
the two primal values, which must stay within the sum of the two gaps (both answers are certified).
Writes ``results/working_set.csv``.

``--sweep`` times instead the working-set runs for WORKING_SET_FROM_GAP in {1, 10, 100} and
WORKING_SET_BAND in {0.05, 0.1} at n = 1e5 (``results/working_set_sweep.csv``).

``--small`` measures the problems below WORKING_SET_MIN_ROWS, with the working set allowed from
1000 samples (``on``) and not at all (``off``): the dense Gaussian family at n = 5000, the LIBSVM
sets with at least 1000 samples (``load_scaled``: splice, svmguide1, MNIST-5k) and the unseen
shapes of ``convergence_grid.py`` at 2000 x 50, lam n in {0.01, 1, 100}, free and mixed signs
(``results/working_set_small.csv``). It is the evidence for the threshold.

``--shapes`` measures CSR Gaussian classes (``peers.floor.gaussian_sparse``) over SHAPES (n, d,
density; lam n = 1, free and mixed signs) with the working set tried whatever the shape (``on``:
WORKING_SET_MIN_ROWS_PER_COLUMN = 0) and not at all (``off``), beside whether the library's rule
tries it there (``rule_on``), the time of the run it picks (``rule_cpu``) and the sparse time
model's ratio of an iteration's rows' part to its factor's part (``rows_over_factor``, the
statistic of a rule tried first) (``results/working_set_shapes.csv``). It is the evidence for
WORKING_SET_MIN_ROWS_PER_COLUMN.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import common, floor  # noqa: E402

LAM_NS = (0.01, 1.0, 100.0)
PATTERNS = ("free", "mixed")
TOL = 1e-6
SMALL_FROM = 1000
"""WORKING_SET_MIN_ROWS of the ``on`` runs of ``--small``."""
SHAPES = tuple((n, d, rho) for n, d, densities in (
    (10_000, 100, (0.05,)), (20_000, 100, (0.05,)),
    (10_000, 300, (0.01, 0.03)), (10_000, 1000, (0.01, 0.03)), (10_000, 2000, (0.01,)),
    (30_000, 300, (0.01,)), (30_000, 1000, (0.005, 0.01, 0.03)), (30_000, 2000, (0.005, 0.01)),
    (100_000, 300, (0.01,)), (100_000, 1000, (0.005, 0.01)), (100_000, 2000, (0.0025, 0.005)),
    (300_000, 1000, (0.005,)), (300_000, 2000, (0.0025,))) for rho in densities)
"""(n, d, density) of ``--shapes``: around the rule's threshold, d from 100 to 2000."""


def family(kind: str, n: int):
    return floor.gaussian_dense(n, 100) if kind == "dense" else floor.gaussian_sparse(n, 1000, 0.01)


def run(X, y, lam_n, sign, **constants):
    """Timing of ``solve(solver="interior-point")`` with the working set's constants set as given."""
    from svmcert import signsvm
    from svmcert.signsvm import working_set

    saved = {k: getattr(working_set, k) for k in constants}
    try:
        for k, v in constants.items():
            setattr(working_set, k, v)
        return common.timed(lambda: signsvm.solve(X, y, lam_n / X.shape[0], sign, solver="interior-point", tol=TOL),
                            repeat=2, budget=20.0)
    finally:
        for k, v in saved.items():
            setattr(working_set, k, v)


def rel(res) -> float:
    return float(res.gap / res.primal)


def small_problems():
    """(name, X, y) of ``--small``."""
    import convergence_grid

    yield "gaussian-dense", *family("dense", 5000)
    for name in ("splice", "svmguide1", "mnist5k"):
        yield name, *common.problem(name)
    for fam in convergence_grid.FAMILIES:
        yield f"{fam}-2000x50", *convergence_grid.family_instance(fam, 2000, 50)


def compare(name, X, y, lam_n, pattern, on_from=None, **on_constants) -> dict:
    n = X.shape[0]
    sign = common.sign_pattern(pattern, name, X.shape[1])
    if on_from is not None:
        on_constants["WORKING_SET_MIN_ROWS"] = on_from
    on = run(X, y, lam_n, sign, **on_constants)
    off = run(X, y, lam_n, sign, WORKING_SET_MIN_ROWS=n + 1)
    ro, rf = on.result, off.result
    stats = ro.history.get("working_set", {})
    return dict(data=name, n=n, d=X.shape[1], lam_n=lam_n, pattern=pattern,
                on_cpu=on.cpu, off_cpu=off.cpu, ratio_cpu=off.cpu / on.cpu, on_iters=ro.n_iter, off_iters=rf.n_iter,
                outcome=stats.get("outcome", "not tried" if not stats else "dropped"),
                attempts=stats.get("attempts", 0), rounds=stats.get("rounds", 0), band_max=max(stats.get("band", [0])),
                subset_iterations=stats.get("subset_iterations", 0), on_rel_gap=rel(ro), off_rel_gap=rel(rf),
                converged=bool(ro.converged and rf.converged), primal_diff=float(ro.primal - rf.primal),
                within_gaps=bool(abs(ro.primal - rf.primal) <= ro.gap + rf.gap))


def shapes_row(n, d, density, pattern) -> dict:
    """One row of ``--shapes``."""
    from svmcert.signsvm.problem import make_problem
    from svmcert.signsvm.sparse_ipm_cost import sparse_iteration_seconds
    from svmcert.signsvm.working_set import WorkingSetFinish

    X, y = floor.gaussian_sparse(n, d, density)
    row = compare("gaussian-sparse", X, y, 1.0, pattern, WORKING_SET_MIN_ROWS_PER_COLUMN=0)
    rows_part, factor_part = sparse_iteration_seconds(n, d, X.nnz)
    rule_on = WorkingSetFinish.applies(make_problem(X, y, 1.0 / n, accept_sparse=True))
    return dict(row, density=density, nnz=int(X.nnz), rows_over_factor=rows_part / factor_part, rule_on=rule_on,
                rule_cpu=row["on_cpu"] if rule_on else row["off_cpu"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dense-sizes", nargs="+", type=float, default=[1e5])
    ap.add_argument("--sparse-sizes", nargs="+", type=float, default=[1e5])
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--shapes", action="store_true")
    ap.add_argument("--out", default=str(common.RESULTS))
    args = ap.parse_args(argv)
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        if args.sweep:
            for kind, lam_n, pattern in itertools.product(("dense", "sparse"), LAM_NS, PATTERNS):
                X, y = family(kind, 100_000)
                sign = common.sign_pattern(pattern, f"gaussian-{kind}", X.shape[1])
                for gap, band in itertools.product((1.0, 10.0, 100.0), (0.05, 0.1)):
                    t = run(X, y, lam_n, sign, WORKING_SET_FROM_GAP=gap, WORKING_SET_BAND=band)
                    stats = t.result.history.get("working_set", {})
                    rows.append(dict(data=f"gaussian-{kind}", n=X.shape[0], lam_n=lam_n, pattern=pattern, from_gap=gap,
                                     band=band, cpu=t.cpu, iters=t.result.n_iter, rounds=stats.get("rounds", 0),
                                     outcome=stats.get("outcome", "dropped"), converged=bool(t.result.converged)))
                    print(rows[-1], flush=True)
                    common.write_csv(rows, Path(args.out) / "working_set_sweep.csv")
            return
        if args.shapes:
            for (n, d, density), pattern in itertools.product(SHAPES, PATTERNS):
                rows.append(shapes_row(n, d, density, pattern))
                r = rows[-1]
                print(f"{n} x {d} at {density:g} {pattern}: on {r['on_cpu']:.3f}s ({r['rounds']} rounds, "
                      f"{r['subset_iterations']} subset it) off {r['off_cpu']:.3f}s ({r['off_iters']} it) "
                      f"off/on {r['ratio_cpu']:.2f} rows/factor {r['rows_over_factor']:.2f} rule {r['rule_on']}",
                      flush=True)
                common.write_csv(rows, Path(args.out) / "working_set_shapes.csv")
            return
        if args.small:
            problems, on_from, name = small_problems(), SMALL_FROM, "working_set_small.csv"
        else:
            problems = ((f"gaussian-{kind}", *family(kind, int(n))) for kind, sizes in
                        (("dense", args.dense_sizes), ("sparse", args.sparse_sizes)) for n in sizes)
            on_from, name = None, "working_set.csv"
        for data, X, y in problems:
            for lam_n, pattern in itertools.product(LAM_NS, PATTERNS):
                rows.append(compare(data, X, y, lam_n, pattern, on_from))
                r = rows[-1]
                print(f"{data} n={r['n']} lam_n={lam_n:g} {pattern}: on {r['on_cpu']:.4f}s ({r['on_iters']} it, "
                      f"{r['outcome']}, {r['rounds']} rounds, band {r['band_max']}) off {r['off_cpu']:.4f}s "
                      f"({r['off_iters']} it) ratio {r['ratio_cpu']:.2f} within gaps {r['within_gaps']}", flush=True)
                common.write_csv(rows, Path(args.out) / name)


if __name__ == "__main__":
    main()
