"""The evidence behind ``signsvm.shrinking_rounds.GIVE_UP_FROM_SHARE``: ``solve(auto)`` with
coordinate ascent allowed to give up only once that share of its budget is spent, against the rule
before it (share 0: from the second certificate on), on every cell where ``auto`` runs coordinate
ascent first (the seven LIBSVM sets, free, nonnegative and mixed signs, lam n in {0.1, ..., 1000}),
each over several seeds of the passes' order (one seed decides a single near-tie of the rule; the
mean over seeds is the rule's expected cost). BLAS on one thread:

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/give_up_rule.py

Writes ``results/give_up_rule.csv``: one row per (cell, seed) with both rules' CPU seconds (best of
repeated calls), the methods each ran and whether each certified, and the run's provenance; prints
the geometric mean of the ratio (rule / before) over the cells' seed-averaged times, its range and
the totals. Nothing here changes the library.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import importlib  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auto_plan import LAM_NS, PATTERNS  # noqa: E402
from peers import common  # noqa: E402

rounds_module = importlib.import_module("svmcert.signsvm.shrinking_rounds")


def cells(data_sets):
    """(data, pattern, lam_n, X, y, sign) of every cell whose ``auto`` plan is coordinate ascent first."""
    from svmcert.signsvm.solve import auto_plan, row_norm_scale

    for data in data_sets:
        X, y = common.problem(data)
        n, d = X.shape
        for pattern in PATTERNS:
            sign = common.sign_pattern(pattern, data, d)
            for lam_n in LAM_NS:
                plan, _ = auto_plan(n, d, 0, lam_n / n, row_norm=row_norm_scale(X), constrained=bool(np.any(sign)))
                if plan == "dual-coordinate":
                    yield data, pattern, lam_n, X, y, sign


def timed_auto(X, y, lam, sign, seed, value, constant="GIVE_UP_FROM_SHARE"):
    """CPU seconds of ``solve(auto)`` (best of repeated calls) with ``shrinking_rounds.<constant>``
    set to ``value`` for the call, the methods it ran, whether it certified and its coordinate
    ascent's work."""
    from svmcert import signsvm

    t = common.timed_with_constant(rounds_module, constant, value, lambda: signsvm.solve(X, y, lam, sign, seed=seed),
                                   repeat=5, min_seconds=0.02)
    return (t.cpu, "+".join(t.result.history["method"]), bool(t.result.converged),
            float(t.result.history.get("dca_work", 0.0)))


def summary(rows) -> str:
    """The line printed after a run: :func:`peers.report.rule_ablation` of ``rows``."""
    import pandas as pd

    from peers import report

    s = report.rule_ablation(pd.DataFrame(rows))
    return (f"{s['cells']} cells x {s['seeds']} seeds: rule / before {s['gm']:.3f} in geometric mean, from "
            f"{s['ratio_min']:.2f} ({s['min_at']}) to {s['ratio_max']:.2f} ({s['max_at']}); totals (seed means) "
            f"{s['rule_ms']:.1f} against {s['before_ms']:.1f} ms; certified {s['certified']} and "
            f"{s['certified_before']} of {s['runs']}; methods differ in {s['changed']} runs, "
            f"{s['changed_slower']} of them slower under the rule")


def arguments(argv, doc: str, csv_name: str):
    """The options of the rule scripts (this one and ``extension_rule.py``): ``--data`` (default
    the seven LIBSVM sets), ``--seeds`` (6) and ``--csv`` (default ``results/<csv_name>``)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=[d for d in common.DATA if d != "mnist5k"])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--csv", default=str(common.RESULTS / csv_name))
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = arguments(argv, __doc__, "give_up_rule.csv")
    share = rounds_module.GIVE_UP_FROM_SHARE
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        for data, pattern, lam_n, X, y, sign in cells(args.data):
            for seed in range(args.seeds):
                rule = timed_auto(X, y, lam_n / X.shape[0], sign, seed, share)
                before = timed_auto(X, y, lam_n / X.shape[0], sign, seed, 0.0)
                rows.append(dict(data=data, pattern=pattern, lam_n=lam_n, seed=seed, share=share,
                                 rule_cpu=rule[0], rule_methods=rule[1], rule_converged=rule[2],
                                 before_cpu=before[0], before_methods=before[1], before_converged=before[2]))
            common.write_csv(rows, args.csv)
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
