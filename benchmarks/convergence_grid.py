"""Does ``signsvm.solve`` certify the requested gap everywhere?  The 224-cell grid and a synthetic family.

Grid: 8 data sets (the seven LIBSVM sets with every feature divided by its largest |x|, as
``svmcert.experiments.sign_constrained.duality.load_scaled`` does, and MNIST-5k odd/even with unit rows) x
lam n in {1e-3, ..., 1e3} (lam = lam n / n) x four sign patterns: ``free``; ``nonneg`` (all
w_h >= 0); ``half`` (a random half of the features >= 0, the rest free); ``mixed`` (random
entries in {-1, 0, +1}). The random patterns come from keyed streams
(``svmcert.experiments.instances.instance_rng(0, "sign", data, pattern)``), so every run sees the
same cells. Synthetic family: two classes N(+-u, I), ||u|| = 1, d = ``--synthetic-d`` (100),
lam n = 1, n in ``--synthetic`` (free signs).

Every cell runs ``signsvm.solve(X, y, lam, sign, solver=METHOD, tol=TOL)`` for each method named,
then (unless ``--no-clarabel``) cvxpy/Clarabel on the same primal QP (default Clarabel settings,
the time includes cvxpy's compilation; ``clarabel_solve_seconds`` is Clarabel's own solve time).
Calls shorter than 0.5 s are timed as the best of ``--repeat`` (3) calls, on both sides.
The relative gap is recomputed here from the returned (w, alpha) with the library's public
objective functions (eq. 10), not taken from the solver. Columns:

    data, n, d, lam_n, pattern, method, ran (the methods "auto" ran, in order), rel_gap, converged,
    seconds, n_iter, clarabel_seconds, clarabel_solve_seconds,
    primal_minus_clarabel ((P - P_clarabel) / P_clarabel; at most rel_gap P / P_clarabel, up to
    Clarabel's accuracy)

Run one process at a time with BLAS on one thread (the default here; the machine is shared):

    .venv/bin/python benchmarks/convergence_grid.py --csv /tmp/grid.csv
    .venv/bin/python benchmarks/convergence_grid.py --data heart sonar --lam-n 1e-3 --methods auto dual-coordinate
    .venv/bin/python benchmarks/convergence_grid.py --data none --synthetic 50000 100000
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from svmcert import signsvm
from svmcert.experiments.sign_constrained.duality import load_scaled
from svmcert.experiments.instances import instance_rng

DATA = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice", "svmguide1", "mnist5k")
LAM_NS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)
PATTERNS = ("free", "nonneg", "half", "mixed")
COLUMNS = ("data", "n", "d", "lam_n", "pattern", "method", "ran", "rel_gap", "converged", "seconds", "n_iter",
           "clarabel_seconds", "clarabel_solve_seconds", "primal_minus_clarabel")


def sign_pattern(pattern: str, data: str, d: int) -> np.ndarray:
    """The grid's four sign patterns; the random ones drawn from the cell's own keyed stream."""
    if pattern == "free":
        return np.zeros(d)
    if pattern == "nonneg":
        return np.ones(d)
    rng = instance_rng(0, "sign", data, pattern)
    if pattern == "half":
        sign = np.zeros(d)
        sign[rng.permutation(d)[: d // 2]] = 1.0
        return sign
    if pattern == "mixed":
        return rng.choice([-1.0, 0.0, 1.0], size=d)
    raise ValueError(f"pattern: expected one of {PATTERNS}, got {pattern!r}")


def gaussian_classes(n: int, d: int = 100, seed: int = 0):
    """Two classes N(+u, I) and N(-u, I) with ||u|| = 1 (u = e_1), n / 2 samples each."""
    rng = instance_rng(seed, "gaussian-classes", n, d)
    y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    return X, y


def clarabel(X, y, lam, sign):
    """cvxpy/Clarabel on the primal QP at default settings: (value at its w, total s, solve s)."""
    import cvxpy as cp

    n, d = X.shape
    w, xi = cp.Variable(d), cp.Variable(n)
    cons = [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)]
    if np.any(sign > 0):
        cons.append(w[np.flatnonzero(sign > 0)] >= 0)
    if np.any(sign < 0):
        cons.append(w[np.flatnonzero(sign < 0)] <= 0)
    prob = cp.Problem(cp.Minimize(lam / 2 * cp.sum_squares(w) + cp.sum(xi) / n), cons)
    t = time.perf_counter()
    prob.solve(solver="CLARABEL")
    total = time.perf_counter() - t
    wv = np.asarray(w.value, dtype=float)
    wv = np.where(sign * wv < 0, 0.0, wv)
    return signsvm.primal_objective(wv, X, y, lam), total, float(prob.solver_stats.solve_time or np.nan)


def best_of(call, repeat, short=0.5):
    """(best seconds, result of the first call): calls shorter than ``short`` seconds are repeated
    up to ``repeat`` times in all (millisecond timings on a shared machine are noisy)."""
    t = time.perf_counter()
    out = call()
    best = time.perf_counter() - t
    for _ in range(repeat - 1):
        if best >= short:
            break
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best, out


def run_cell(X, y, lam_n, sign, methods, tol, with_clarabel, time_limit=None, repeat=3):
    n = X.shape[0]
    lam = lam_n / n
    rows = []
    for method in methods:
        opts = {} if time_limit is None else {"time_limit": time_limit}

        def call():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                return signsvm.solve(X, y, lam, sign, solver=method, tol=tol, **opts)

        seconds, res = best_of(call, repeat)
        P = signsvm.primal_objective(res.w, X, y, lam)
        D = signsvm.dual_objective(res.alpha, X, y, lam, sign)
        ran = "+".join(res.history.get("method", [method]))       # what "auto" ran, in order
        rows.append(dict(method=method, ran=ran, rel_gap=(P - D) / P, converged=bool(res.converged), seconds=seconds,
                         n_iter=res.n_iter, primal=P))
    if with_clarabel:
        _, ref = best_of(lambda: clarabel(X, y, lam, sign), repeat)
        runs = [ref] + [clarabel(X, y, lam, sign) for _ in range(repeat - 1) if ref[1] < 0.5]
        ref = (ref[0], min(r[1] for r in runs), min(r[2] for r in runs))
    else:
        ref = (np.nan, np.nan, np.nan)
    for r in rows:
        r.update(clarabel_seconds=ref[1], clarabel_solve_seconds=ref[2],
                 primal_minus_clarabel=(r.pop("primal") - ref[0]) / ref[0])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(DATA), help="data sets (or 'none')")
    ap.add_argument("--lam-n", nargs="+", type=float, default=list(LAM_NS))
    ap.add_argument("--patterns", nargs="+", default=list(PATTERNS), choices=PATTERNS)
    ap.add_argument("--methods", nargs="+", default=["auto"], help=f"any of {signsvm.SOLVERS}")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--time-limit", type=float, default=None, help="passed to solve (seconds)")
    ap.add_argument("--synthetic", nargs="*", type=int, default=[], help="n of the Gaussian family")
    ap.add_argument("--synthetic-d", type=int, default=100, help="d of the Gaussian family (default 100)")
    ap.add_argument("--no-clarabel", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many calls for calls under 0.5 s")
    ap.add_argument("--csv", help="also write the rows to this CSV file")
    args = ap.parse_args(argv)
    data = [] if args.data == ["none"] else args.data
    out = open(args.csv, "w") if args.csv else None
    print(",".join(COLUMNS), flush=True)
    if out:
        print(",".join(COLUMNS), file=out, flush=True)

    def emit(name, X, lam_n, pattern, rows):
        for r in rows:
            vals = dict(data=name, n=X.shape[0], d=X.shape[1], lam_n=lam_n, pattern=pattern, **r)
            line = ",".join(f"{vals[c]:.3g}" if isinstance(vals[c], float) else str(vals[c]) for c in COLUMNS)
            print(line, flush=True)
            if out:
                print(line, file=out, flush=True)

    with threadpool_limits(limits=args.threads, user_api="blas"):
        Xw, yw = gaussian_classes(200, 5)   # compile the kernels outside the timings
        for m in args.methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                signsvm.solve(Xw, yw, 1e-3, np.r_[1.0, 0, -1, 0, 0], solver=m)
        for name in data:
            X, y = load_scaled(name)
            for pattern in args.patterns:
                sign = sign_pattern(pattern, name, X.shape[1])
                for lam_n in args.lam_n:
                    emit(name, X, lam_n, pattern, run_cell(X, y, lam_n, sign, args.methods, args.tol,
                                                           not args.no_clarabel, args.time_limit, args.repeat))
        for n in args.synthetic:
            X, y = gaussian_classes(n, args.synthetic_d)
            emit(f"gaussian-{n}x{args.synthetic_d}", X, 1.0, "free", run_cell(X, y, 1.0, np.zeros(X.shape[1]), args.methods,
                                                           args.tol, not args.no_clarabel, args.time_limit,
                                                           args.repeat))
    if out:
        out.close()


if __name__ == "__main__":
    sys.exit(main())
