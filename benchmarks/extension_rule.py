"""The evidence behind ``signsvm.shrinking_rounds.EXTENSION_KEEPS_ITS_OWN_RATE``: ``solve(auto)``
where a run extended past coordinate ascent's budget is extended again only if the gap's rate over
the extension itself also promises ``tol`` within ``AUTO_DCA_EXTRA``, against the rule before it
(the rate over the later half of the run alone), on every cell where ``auto`` runs coordinate
ascent first (those of ``give_up_rule.py``: the seven LIBSVM sets, free, nonnegative and mixed
signs, lam n in {0.1, ..., 1000}), each over several seeds of the passes' order. BLAS on one
thread:

    OPENBLAS_NUM_THREADS=1 SVMCERT_DATA=... PYTHONPATH=lib .venv/bin/python benchmarks/extension_rule.py

Writes ``results/extension_rule.csv``: one row per (cell, seed) with both rules' CPU seconds (best
of repeated calls), the methods each ran, whether each certified and coordinate ascent's work, and
the run's provenance; prints the summary of ``give_up_rule.summary`` and the cells whose work
differs. Nothing here changes the library.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from give_up_rule import arguments, cells, summary, timed_auto  # noqa: E402
from peers import common  # noqa: E402

CONSTANT = "EXTENSION_KEEPS_ITS_OWN_RATE"


def main(argv=None) -> int:
    args = arguments(argv, __doc__, "extension_rule.csv")
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        for data, pattern, lam_n, X, y, sign in cells(args.data):
            for seed in range(args.seeds):
                rule = timed_auto(X, y, lam_n / X.shape[0], sign, seed, True, CONSTANT)
                before = timed_auto(X, y, lam_n / X.shape[0], sign, seed, False, CONSTANT)
                rows.append(dict(data=data, pattern=pattern, lam_n=lam_n, seed=seed,
                                 rule_cpu=rule[0], rule_methods=rule[1], rule_converged=rule[2], rule_dca_work=rule[3],
                                 before_cpu=before[0], before_methods=before[1], before_converged=before[2],
                                 before_dca_work=before[3]))
            common.write_csv(rows, args.csv)
    print(summary(rows))
    moved = [r for r in rows if r["rule_dca_work"] != r["before_dca_work"]]
    print(f"{len(moved)} of {len(rows)} runs did other work:")
    for r in moved:
        print(f"  {r['data']} {r['pattern']} lam n = {r['lam_n']:g} seed {r['seed']}: "
              f"{r['rule_methods']} {1e3 * r['rule_cpu']:.3f} ms against {r['before_methods']} "
              f"{1e3 * r['before_cpu']:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
