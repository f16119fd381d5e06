"""Where ``signsvm.solve`` spends its time in the cells where a peer is faster (evidence for the
library changes that the peer benchmarks' report recommends; nothing here changes the library).

Two tables:

- ``peers_breakdown.csv``: per (data set, lam n, pattern), the plan of ``solve(auto)``
  (``auto_plan``: coordinate ascent's budget of work), the CPU time of ``auto``, of coordinate
  ascent alone until it certifies 1e-6 (and its passes), of coordinate ascent under auto's budget
  alone (its passes, its gap, whether it gave up early), and of the interior-point method alone
  (``peers.linear.breakdown``).
- ``peers_overheads.csv``: per data set, the CPU time of the fixed O(nd) steps every call of
  ``solve`` makes before its first pass (input validation, ``np.count_nonzero``, which the plan
  used until its budget became one of work,
  the scaled CSR copy, the row layout, one certificate), of one product X v, of one of our passes
  (first pass from alpha = 0 at lam n = 10, free signs, the CSR built outside) and of one plain
  compiled Hsieh pass (``peers.dcd_reference``) from the same start.

    .venv/bin/python benchmarks/peers_diagnose.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from peers import common, dcd_reference, linear  # noqa: E402
from peers.common import timed  # noqa: E402

CELLS = [(name, lam_n, "free") for name in common.DATA for lam_n in (0.1, 1.0, 10.0, 100.0, 1000.0)]


def overheads(name):
    from svmcert._validation import check_X_y
    from svmcert.signsvm._dca_kernel import row_layout, run_shrinking, scaled_csr
    from svmcert.signsvm._signed_rows import SignedRows
    from svmcert.signsvm.result import certificate

    X, y = common.problem(name)
    n, d = X.shape
    sign = np.zeros(d)
    lam_n = 10.0

    def T(f):
        return timed(f, 5, 5.0, 0.2, 500).cpu

    csr = scaled_csr(np.ascontiguousarray(X), y / lam_n)
    lay = row_layout(*csr, sign)
    Z = SignedRows(X, y)
    a = np.full(n, 0.5)
    om = Z.T @ a / lam_n
    v = np.ones(d)

    def our_pass():
        alpha, omega = np.zeros(n), np.zeros(d)
        run_shrinking(*csr, *lay, alpha, omega, sign, lam_n, 0.0, 1, np.ones(n), np.array([np.inf, -np.inf, 0.0]))

    t_hsieh, _, _ = dcd_reference.pass_seconds(X, y, lam_n, passes=1)
    t_hsieh = min(t_hsieh, *(dcd_reference.pass_seconds(X, y, lam_n, passes=1)[0] for _ in range(4)))
    row = {"data": name, "n": n, "d": d, "nnz": int(np.count_nonzero(X)),
           "validate_cpu": T(lambda: check_X_y(X, y)), "count_nonzero_cpu": T(lambda: np.count_nonzero(X)),
           "scaled_csr_cpu": T(lambda: scaled_csr(np.ascontiguousarray(X), y / lam_n)),
           "row_layout_cpu": T(lambda: row_layout(*csr, sign)),
           "certificate_cpu": T(lambda: certificate(om, a, Z, lam_n / n, sign)),
           "xv_cpu": T(lambda: X @ v), "our_first_pass_cpu": T(our_pass), "hsieh_first_pass_cpu": t_hsieh}
    row["fixed_total_cpu"] = sum(row[k] for k in ("validate_cpu", "count_nonzero_cpu", "scaled_csr_cpu",
                                                   "row_layout_cpu", "certificate_cpu"))
    row["fixed_in_xv"] = row["fixed_total_cpu"] / row["xv_cpu"]
    row["our_pass_in_xv"] = row["our_first_pass_cpu"] / row["xv_cpu"]
    row["hsieh_pass_in_xv"] = row["hsieh_first_pass_cpu"] / row["xv_cpu"]
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(common.DATA))
    ap.add_argument("--lam-n", nargs="+", type=float, default=[0.1, 1.0, 10.0, 100.0, 1000.0])
    ap.add_argument("--patterns", nargs="+", default=["free", "nonneg", "mixed"])
    ap.add_argument("--skip-overheads", action="store_true")
    args = ap.parse_args(argv)
    with threadpool_limits(limits=1, user_api="blas"):
        common.warm_up()
        rows = []
        for name in [] if args.skip_overheads else args.data:
            r = overheads(name)
            print({k: (f"{v:.3g}" if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
            rows.append(r)
            common.write_csv(rows, common.RESULTS / "peers_overheads.csv")
        rows = []
        for name in args.data:
            X, y = common.problem(name)
            for pattern in args.patterns:
                sign = common.sign_pattern(pattern, name, X.shape[1])
                for lam_n in args.lam_n:
                    r = {"data": name, "pattern": pattern, **linear.breakdown(X, y, lam_n, sign)}
                    print({k: (f"{v:.3g}" if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
                    rows.append(r)
                    common.write_csv(rows, common.RESULTS / "peers_breakdown.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
