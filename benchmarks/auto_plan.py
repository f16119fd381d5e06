"""How well ``signsvm.solve(solver="auto")`` picks its method: auto against each method alone.

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/auto_plan.py

For every data set of the peer benchmarks (``peers.common.DATA``), sign pattern (free, nonneg,
mixed) and lam n in {0.1, 1, 10, 100, 1000} (below 0.1 ``auto`` runs the interior-point method
alone), one row with the CPU seconds (best of up to 3 calls, ``peers.common.timed``) of

- ``auto``: what a user gets (the plan of ``signsvm.solve.auto_plan``: the interior-point method
  alone where the rows' mean squared norm ``row_norm`` is at least AUTO_IPM_ABOVE_SCALED_NORM
  lam n, otherwise coordinate ascent within a budget of work, then the interior-point method if
  that budget ends first);
- ``dca``: coordinate ascent alone, up to 20000 passes;
- ``ipm``: the interior-point method alone,

all at tol = 1e-6, with the passes and iterations each took, whether each certified, the oracle
(the faster of the two methods that certified) and ``auto / oracle``. It also records what the time
models of ``signsvm/plan.py`` predict for one interior-point iteration (``ipm_seconds``, with the
compiled iteration's model where the method runs it) and one unit of coordinate ascent's work
(``ipm_iteration_model``, ``work_model``) next to what was measured
(``ipm_iteration``: the method's seconds over its iterations; ``dca_sec_per_work``: coordinate
ascent's seconds over the work it did, nonzeros visited plus ``ROW_WORK`` per row, certificates and
set-up included). Writes ``results/auto_plan.csv``.

``--gaussian N [N ...]`` measures instead two Gaussian classes N(+-e_1, I) with d = 100 at those n
(``peers.floor.gaussian_dense``, the floor benchmark's family; default lam n 1, 10, 25, 50, 100,
free and mixed signs), with one more column, ``auto_compiled_only_cpu``: auto with its rules on the
rows' norm confined to the problems the interior-point method runs compiled
(AUTO_IPM_MAX_PASSES = 0, the plan before that constant), and writes
``results/auto_plan_gaussian.csv``; ``--dca-passes`` caps coordinate ascent alone (there 3000:
past it the cell counts as not certified by that method).

``--sparse N [N ...]`` measures the sparse family instead (``peers.floor.gaussian_sparse``, CSR,
``--sparse-d`` columns, default 1000, at ``--density`` 0.01 or the densities given; lam n 1, 3,
10 by default), beside auto without the sparse rule (AUTO_IPM_MAX_PASSES_SPARSE = 0) and with the
sparse time model's cost in passes (``ipm_passes_model``), and beside auto with that model as it was
before it counted the working set's iterations apart (``auto_model_before``: IPM_WORKING_SET_ITERATIONS
= (12, 12)), with the sparse rule's limit as it was (``auto_passes_before``: 64 passes) and without
the sparse threshold on the rows' norm (``auto_sparse_norm_before``) and without the threshold
where the method is not cheap (``auto_long_rows_before``); writes
``results/auto_plan_sparse.csv``.
``--row-ratios Q [Q ...]`` runs the data sets at the lam n where mean ||x_i||^2 / (lam n) is each
Q (the statistic of the rule on the rows' norm; lam n below 0.1 skipped), beside auto with the free
threshold as it was (AUTO_IPM_ABOVE_SCALED_NORM = 2); writes ``results/auto_plan_ratios.csv``.

Nothing here changes the library: the file is the evidence for choosing a better plan.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import common, floor  # noqa: E402

LAM_NS = (0.1, 1.0, 10.0, 100.0, 1000.0)
GAUSSIAN_LAM_NS = (1.0, 10.0, 25.0, 50.0, 100.0)
GAUSSIAN_DCA_PASSES = 3000
SPARSE_LAM_NS = (1.0, 3.0, 10.0)
SPARSE_MAX_NNZ = 1.2e7
FREE_THRESHOLD_BEFORE = 2.0     # AUTO_IPM_ABOVE_SCALED_NORM until the --row-ratios run
MODEL_BEFORE = ("IPM_WORKING_SET_ITERATIONS", (12.0, 12.0), "auto_model_before")
"""--sparse's second ablation: the sparse time model as it was before it counted the working set's
iterations apart (IPM_ITERATIONS full iterations, whichever run the method makes)."""
SPARSE_PASSES_BEFORE = ("AUTO_IPM_MAX_PASSES_SPARSE", 64.0, "auto_passes_before")
"""--sparse's third ablation: the sparse rule's limit before it was raised to 128 passes."""
SPARSE_NORM_BEFORE = ("AUTO_IPM_ABOVE_SCALED_NORM_SPARSE", 1.25, "auto_sparse_norm_before")
"""--sparse's fourth ablation: no threshold of its own for a sparse X above AUTO_IPM_MAX_PASSES
passes (the dense thresholds, 1.25, everywhere), as before ``sparse_rows_rule.py``."""
SPARSE_COSTLY_BEFORE = ("AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY", float("inf"), "auto_long_rows_before")
"""--sparse's fifth ablation: no rule on the rows' norm where the interior-point method is not cheap
(coordinate ascent first there at any q), as before ``long_rows_rule.py``."""
PATTERNS = ("free", "nonneg", "mixed")
TOL = 1e-6
DCA_PASSES = 20_000


def measure(data: str, pattern: str, lam_n: float, repeat: int, gaussian_n: int | None = None,
            dca_passes: int = DCA_PASSES, sparse_density: float | None = None, sparse_d: int = 1000,
            before: tuple | None = None) -> dict:
    """One cell; ``before``: (constant's name, its value before, column label) of each ablation, timed
    as ``auto`` with that constant of ``signsvm.plan`` set back (default: the one of --gaussian or
    --sparse)."""
    import importlib

    from svmcert import signsvm

    plan_module = importlib.import_module("svmcert.signsvm.plan")     # the rules and time models of auto

    if sparse_density is not None:
        X, y = floor.gaussian_sparse(gaussian_n, d=sparse_d, density=sparse_density)
    else:
        X, y = common.problem(data) if gaussian_n is None else floor.gaussian_dense(gaussian_n)
    n, d = X.shape
    is_sparse = sparse_density is not None
    nnz = int(X.nnz) if is_sparse else int(np.count_nonzero(X))
    sign = common.sign_pattern(pattern, data, d)
    lam = lam_n / n
    row_norm = plan_module.row_norm_scale(X)
    plan, budget = plan_module.auto_plan(n, d, nnz, lam, is_sparse, row_norm=row_norm,
                                          constrained=bool(np.any(sign != 0)))
    auto = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
    dca = common.timed(lambda: signsvm.solve(X, y, lam, sign, solver="dual-coordinate", tol=TOL,
                                             max_epochs=dca_passes), repeat=repeat)
    ipm = common.timed(lambda: signsvm.solve(X, y, lam, sign, solver="interior-point", tol=TOL), repeat=repeat)
    ra, rc, ri = auto.result, dca.result, ipm.result
    certified = [t.cpu for t, r in ((dca, rc), (ipm, ri)) if r.converged]
    oracle = min(certified) if certified else np.nan
    dca_work = float(rc.history.get("work", [np.nan])[-1])
    extra = {}
    if gaussian_n is not None and before is None:   # the plan before AUTO_IPM_MAX_PASSES(_SPARSE)
        before = ((("AUTO_IPM_MAX_PASSES_SPARSE", 0.0, "auto_dense_only"), MODEL_BEFORE, SPARSE_PASSES_BEFORE,
                   SPARSE_NORM_BEFORE, SPARSE_COSTLY_BEFORE) if is_sparse
                  else (("AUTO_IPM_MAX_PASSES", 0.0, "auto_compiled_only"),))
    for name, value, label in before or ():      # auto with one constant of the plan as it was, side by side
        kept = getattr(plan_module, name)
        setattr(plan_module, name, value)
        try:
            earlier = common.timed(lambda: signsvm.solve(X, y, lam, sign, tol=TOL), repeat=repeat)
        finally:
            setattr(plan_module, name, kept)
        extra.update({f"{label}_cpu": earlier.cpu,
                      f"{label}_methods": "+".join(earlier.result.history.get("method", [])),
                      f"{label}_converged": bool(earlier.result.converged)})
    if is_sparse:
        extra["ipm_passes_model"] = plan_module.ipm_passes(n, d, True, nnz)
    return dict(
        data=data, n=n, d=d, nnz=nnz, pattern=pattern, lam_n=lam_n, row_norm=row_norm, plan=plan, budget_work=budget,
        auto_cpu=auto.cpu, auto_methods="+".join(ra.history.get("method", [])), auto_converged=bool(ra.converged),
        auto_dca_work=float(ra.history.get("dca_work", 0.0)),
        dca_cpu=dca.cpu, dca_passes=int(rc.n_iter), dca_work=dca_work, dca_converged=bool(rc.converged),
        ipm_cpu=ipm.cpu, ipm_iterations=int(ri.n_iter), ipm_converged=bool(ri.converged),
        oracle_cpu=oracle, auto_over_oracle=auto.cpu / oracle,
        ipm_iteration=ipm.cpu / max(int(ri.n_iter), 1),
        ipm_iteration_model=plan_module.ipm_seconds(n, d, is_sparse, nnz if is_sparse else None)
        / plan_module.IPM_ITERATIONS,
        dca_sec_per_work=dca.cpu / max(dca_work, 1.0), work_model=plan_module.DCA_SEC_PER_WORK, **extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(common.DATA))
    ap.add_argument("--patterns", nargs="+", help=f"default {' '.join(PATTERNS)} (free mixed with --gaussian)")
    ap.add_argument("--lam-n", nargs="+", type=float, help=f"default {' '.join(f'{v:g}' for v in LAM_NS)} "
                    f"({' '.join(f'{v:g}' for v in GAUSSIAN_LAM_NS)} with --gaussian)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gaussian", nargs="+", type=int, help="n of the Gaussian family (d = 100) instead of the data sets")
    ap.add_argument("--row-ratios", nargs="+", type=float,
                    help="instead of --lam-n, per data set the lam n at which mean ||x_i||^2 / (lam n) is each value")
    ap.add_argument("--sparse", nargs="+", type=int, help="n of the sparse Gaussian family (CSR, d = 1000) instead")
    ap.add_argument("--density", nargs="+", type=float, default=[0.01], help="densities of --sparse (default 0.01)")
    ap.add_argument("--sparse-d", nargs="+", type=int, default=[1000], help="d of --sparse (default 1000)")
    ap.add_argument("--max-nnz", type=float, default=SPARSE_MAX_NNZ,
                    help=f"skip --sparse shapes with more nonzeros (default {SPARSE_MAX_NNZ:g})")
    ap.add_argument("--dca-passes", type=int, help=f"cap of coordinate ascent alone (default {DCA_PASSES}; "
                    f"{GAUSSIAN_DCA_PASSES} with --gaussian)")
    ap.add_argument("--csv")
    ap.add_argument("--append", action="store_true",
                    help="keep the rows --csv already holds, with their own provenance, ahead of this run's "
                         "(a file of shapes that no single --sparse product covers)")
    args = ap.parse_args(argv)
    sparse = args.sparse is not None
    if sparse:
        args.gaussian = args.sparse
    gaussian = args.gaussian is not None
    args.lam_n = args.lam_n or list(GAUSSIAN_LAM_NS if gaussian else LAM_NS)
    args.patterns = args.patterns or (["free", "mixed"] if gaussian else list(PATTERNS))
    passes = args.dca_passes or (GAUSSIAN_DCA_PASSES if gaussian else DCA_PASSES)
    if sparse and args.lam_n == list(GAUSSIAN_LAM_NS):
        args.lam_n = list(SPARSE_LAM_NS)
    ratios = args.row_ratios is not None
    args.csv = args.csv or str(common.RESULTS / ("auto_plan_sparse.csv" if sparse else "auto_plan_gaussian.csv"
                                                 if gaussian else "auto_plan_ratios.csv" if ratios else "auto_plan.csv"))
    if sparse:
        cells = [(f"gaussian-sparse-{n}x{d}-{rho:g}", n, rho, d) for d in args.sparse_d for n in args.sparse
                 for rho in args.density if n * d * rho <= args.max_nnz]
    else:
        cells = [(f"gaussian-dense-{n}", n, None, 1000) for n in args.gaussian] if gaussian else [
            (data, None, None, 1000) for data in args.data]
    kept = []
    if args.append and Path(args.csv).exists():
        with open(args.csv, newline="") as fh:
            kept = list(csv.DictReader(fh))
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        for data, gaussian_n, density, sparse_d in cells:
            lam_ns = args.lam_n
            if ratios:                          # lam n = mean ||x_i||^2 / ratio, each at least 0.1
                from svmcert.signsvm.plan import row_norm_scale

                scale = row_norm_scale(common.problem(data)[0])
                lam_ns = [v for v in (scale / q for q in args.row_ratios) if v >= LAM_NS[0]]
            for pattern in args.patterns:
                for lam_n in lam_ns:
                    row = measure(data, pattern, lam_n, args.repeat, gaussian_n, passes, density, sparse_d,
                                  (("AUTO_IPM_ABOVE_SCALED_NORM", FREE_THRESHOLD_BEFORE, "auto_free_threshold_before"),)
                                  if ratios else None)
                    rows.append(row)
                    print(f"{data:14s} {pattern:6s} lam n {lam_n:<6g} auto {row['auto_cpu'] * 1e3:8.2f} ms "
                          f"({row['auto_methods']}), coordinate ascent {row['dca_cpu'] * 1e3:8.2f} ms "
                          f"({row['dca_passes']} passes), interior point {row['ipm_cpu'] * 1e3:8.2f} ms "
                          f"({row['ipm_iterations']} it.), auto/oracle {row['auto_over_oracle']:.2f}"
                          + (f", auto compiled-only {row['auto_compiled_only_cpu'] * 1e3:8.2f} ms "
                             f"({row['auto_compiled_only_methods']})" if gaussian and not sparse else "")
                          + (f", auto dense-only {row['auto_dense_only_cpu'] * 1e3:8.2f} ms "
                             f"({row['auto_dense_only_methods']}), auto model-before "
                             f"{row['auto_model_before_cpu'] * 1e3:8.2f} ms ({row['auto_model_before_methods']}), "
                             f"auto passes-before {row['auto_passes_before_cpu'] * 1e3:8.2f} ms "
                             f"({row['auto_passes_before_methods']}), "
                             f"model {row['ipm_passes_model']:.0f} passes" if sparse else "")
                          + (f", rows / lam n {row['row_norm'] / lam_n:.2f}, auto with the threshold before "
                             f"{row['auto_free_threshold_before_cpu'] * 1e3:8.2f} ms "
                             f"({row['auto_free_threshold_before_methods']})" if ratios else ""), flush=True)
                    common.write_csv(kept + rows, args.csv)
    ratio = np.array([r["auto_over_oracle"] for r in rows], float)
    ratio = ratio[np.isfinite(ratio)]
    print(f"auto / oracle over {ratio.size} cells: geometric mean {np.exp(np.log(ratio).mean()):.2f}, "
          f"max {ratio.max():.2f}; wrote {args.csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
