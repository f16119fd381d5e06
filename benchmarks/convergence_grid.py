"""Does ``signsvm.solve`` certify the requested gap everywhere?  The 224-cell grid and a synthetic family.

Grid: 8 data sets (the seven LIBSVM sets with every feature divided by its largest |x|, as
``svmcert.experiments.sign_constrained.duality.load_scaled`` does, and MNIST-5k odd/even with unit rows) x
lam n in {1e-3, ..., 1e3} (lam = lam n / n) x four sign patterns: ``free``; ``nonneg`` (all
w_h >= 0); ``half`` (a random half of the features >= 0, the rest free); ``mixed`` (random
entries in {-1, 0, +1}). The random patterns come from keyed streams
(``svmcert.experiments.instances.instance_rng(0, "sign", data, pattern)``), so every run sees the
same cells. Synthetic family: two classes N(+-u, I), ||u|| = 1, d = ``--synthetic-d`` (100),
lam n = 1, n in ``--synthetic`` (free signs).

Unseen shapes (``--families``): synthetic instances built to be awkward in ways the LIBSVM sets are
not (:data:`FAMILIES`: nearly collinear columns, feature scales over six decades, duplicated rows
with conflicting labels, a 1% sparse CSR matrix, separable classes, more features than samples),
each in the shapes ``--family-shapes`` (n x d), with the grid's sign patterns and
lam n in ``--family-lam-n`` (1e-4 ... 1e4). Every instance comes from its own keyed stream
(``instance_rng(0, "family", family, n, d)``). Clarabel runs on the cells with n d at most
``--clarabel-max-entries``.

Sample weights (``--weights``): each cell is solved with ``sample_weight`` s drawn from the keyed
stream ``instance_rng(0, "weights", data, kind)``: ``uniform`` (s_i ~ U(0.1, 5)) or ``with-zeros``
(the same with a tenth of the samples at 0, which removes them), or ``none`` (the paper's
problem, the default); on the unseen shapes the stream is keyed by the instance's name
(``family-nxd``). ``--patterns nonpos`` (all w_h <= 0) is a fifth pattern, outside the
default grid. A weighted cell's gap is recomputed with this script's own weighted objectives
(:func:`weighted_objectives`: P(w) = lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>) and
the dual over the box 0 <= alpha_i <= s_i, infinite where alpha leaves the box), and Clarabel
solves the same weighted QP.

Every cell runs ``signsvm.solve(X, y, lam, sign, solver=METHOD, tol=TOL)`` for each method named,
then (unless ``--no-clarabel``) cvxpy/Clarabel on the same primal QP (default Clarabel settings,
the time includes cvxpy's compilation; ``clarabel_solve_seconds`` is Clarabel's own solve time).
Calls shorter than 0.5 s are timed as the best of ``--repeat`` (3) calls, on both sides.
The relative gap is recomputed here from the returned (w, alpha) with the library's public
objective functions (eq. 10), not taken from the solver. Columns:

    data, n, d, lam_n, pattern, method, ran (the methods "auto" ran, in order), rel_gap, converged,
    seconds, n_iter, clarabel_seconds, clarabel_solve_seconds,
    primal_minus_clarabel ((P - P_clarabel) / P_clarabel; at most rel_gap P / P_clarabel, up to
    Clarabel's accuracy), weights (none, uniform or with-zeros)

Run one process at a time with BLAS on one thread (the default here; the machine is shared):

    .venv/bin/python benchmarks/convergence_grid.py --csv /tmp/grid.csv
    .venv/bin/python benchmarks/convergence_grid.py --data heart sonar --lam-n 1e-3 --methods auto dual-coordinate
    .venv/bin/python benchmarks/convergence_grid.py --data none --synthetic 50000 100000
    .venv/bin/python benchmarks/convergence_grid.py --data none --families all --csv results/convergence_families.csv
    .venv/bin/python benchmarks/convergence_grid.py --weights uniform with-zeros --patterns free nonneg mixed nonpos \
        --csv results/convergence_weighted.csv
    .venv/bin/python benchmarks/convergence_grid.py --data none --families all --weights uniform with-zeros \
        --family-patterns free mixed nonpos --csv results/convergence_families_weighted.csv

With ``--csv`` the rows are written at the end (to a temporary name, then renamed: an interrupted
run leaves the previous file) with the provenance columns of ``peers.common.write_csv`` (date,
machine, versions, BLAS, commit).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from svmcert import signsvm
from svmcert.experiments.sign_constrained.duality import load_scaled
from svmcert.experiments.instances import instance_rng

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers.common import write_csv  # noqa: E402

DATA = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice", "svmguide1", "mnist5k")
LAM_NS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)
PATTERNS = ("free", "nonneg", "half", "mixed")
ALL_PATTERNS = PATTERNS + ("nonpos",)
WEIGHTS = ("none", "uniform", "with-zeros")
COLUMNS = ("data", "n", "d", "lam_n", "pattern", "method", "ran", "rel_gap", "converged", "seconds", "n_iter",
           "clarabel_seconds", "clarabel_solve_seconds", "primal_minus_clarabel", "weights")


def sign_pattern(pattern: str, data: str, d: int) -> np.ndarray:
    """The grid's four sign patterns and ``nonpos``; the random ones drawn from the cell's own keyed
    stream."""
    if pattern == "free":
        return np.zeros(d)
    if pattern == "nonneg":
        return np.ones(d)
    if pattern == "nonpos":
        return -np.ones(d)
    rng = instance_rng(0, "sign", data, pattern)
    if pattern == "half":
        sign = np.zeros(d)
        sign[rng.permutation(d)[: d // 2]] = 1.0
        return sign
    if pattern == "mixed":
        return rng.choice([-1.0, 0.0, 1.0], size=d)
    raise ValueError(f"pattern: expected one of {ALL_PATTERNS}, got {pattern!r}")


def sample_weights(kind: str, data: str, n: int):
    """The cell's sample weights (None for ``none``), from the keyed stream ``instance_rng(0,
    "weights", data, kind)``: s_i ~ U(0.1, 5), and for ``with-zeros`` a tenth of them (drawn from the
    same stream) set to 0."""
    if kind == "none":
        return None
    if kind not in WEIGHTS:
        raise ValueError(f"weights: expected one of {WEIGHTS}, got {kind!r}")
    rng = instance_rng(0, "weights", data, kind)
    s = rng.uniform(0.1, 5.0, n)
    if kind == "with-zeros":
        s[rng.permutation(n)[: n // 10]] = 0.0
    return s


def weighted_primal(w, X, y, lam, sign, s) -> float:
    """P(w) = lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>) of the weighted problem,
    written here apart from the library; +inf for w outside the sign set."""
    w = np.asarray(w, dtype=float)
    if np.any(sign * w < 0):
        return np.inf
    margins = y * np.asarray(X @ w).ravel()
    return 0.5 * lam * (w @ w) + float(s @ np.maximum(0.0, 1.0 - margins)) / X.shape[0]


def weighted_objectives(w, alpha, X, y, lam, sign, s):
    """(P(w), D(alpha)) of the weighted problem, written here apart from the library:
    :func:`weighted_primal`, and D(alpha) = -lam/2 ||Pi_S(X^T (y alpha) / (lam n))||^2 +
    (1/n) sum_i alpha_i for 0 <= alpha_i <= s_i (-inf outside that box)."""
    n = X.shape[0]
    alpha = np.asarray(alpha, dtype=float)
    if np.any(alpha < 0) or np.any(alpha > s):
        D = -np.inf
    else:
        v = np.asarray(X.T @ (y * alpha)).ravel() / (lam * n)
        v = np.where(sign * v < 0, 0.0, v)
        D = -0.5 * lam * (v @ v) + alpha.sum() / n
    return weighted_primal(w, X, y, lam, sign, s), D


def gaussian_classes(n: int, d: int = 100, seed: int = 0):
    """Two classes N(+u, I) and N(-u, I) with ||u|| = 1 (u = e_1), n / 2 samples each."""
    rng = instance_rng(seed, "gaussian-classes", n, d)
    y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    return X, y


FAMILY_SHAPES = ((200, 5), (2000, 50), (20000, 20), (500, 400), (100, 1000))
FAMILY_LAM_NS = (1e-4, 1e-2, 1.0, 1e2, 1e4)


def _labels(score, rng, noise):
    y = np.sign(score + noise * rng.standard_normal(score.shape[0]))
    y[y == 0] = 1.0
    return y


def family_instance(family: str, n: int, d: int):
    """(X, y) of one unseen-shape instance from the keyed stream ``instance_rng(0, "family",
    family, n, d)``; see :data:`FAMILIES`."""
    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {tuple(FAMILIES)}, got {family!r}")
    rng = instance_rng(0, "family", family, n, d)
    w = rng.standard_normal(d)
    if family == "correlated":             # rank 3 plus noise 1e-3: nearly collinear columns and rows
        X = rng.standard_normal((n, 3)) @ rng.standard_normal((3, d)) + 1e-3 * rng.standard_normal((n, d))
        return X, _labels(X @ w, rng, 0.5)
    if family == "column-scales":          # feature scales 1e-3 ... 1e3, not rescaled
        scales = np.logspace(-3, 3, d)
        X = rng.standard_normal((n, d)) * scales
        return X, _labels(X @ (w / scales), rng, 0.5)
    if family == "duplicates":             # every row twice; 30% of the copies with the other label
        half = rng.standard_normal((n - n // 2, d))
        X = np.vstack([half, half[: n // 2]])
        y = _labels(X @ w, rng, 0.5)
        flip = rng.random(n // 2) < 0.3
        y[n - n // 2:] = np.where(flip, -y[: n // 2], y[: n // 2])
        return X, y
    if family == "sparse":                 # CSR, 1% nonzeros
        X = sp.random(n, d, density=0.01, format="csr", random_state=rng)
        return X, _labels(X @ w, rng, 0.1)
    if family == "separable":              # labels of a linear rule, no noise
        X = rng.standard_normal((n, d))
        return X, _labels(X @ w, rng, 0.0)
    X = rng.standard_normal((n, d))        # gaussian (any shape; d > n is the wide case)
    return X, _labels(X @ w, rng, 0.5)


FAMILIES = {"gaussian": "Gaussian rows, labels of a noisy linear rule",
            "correlated": "rank-3 rows plus noise 1e-3 (nearly collinear)",
            "column-scales": "feature scales from 1e-3 to 1e3, not rescaled",
            "duplicates": "every row twice, 30% of the copies with the other label",
            "sparse": "CSR with 1% nonzeros",
            "separable": "labels of a linear rule without noise"}
"""The unseen-shape families (``--families``) and what makes each awkward."""


def clarabel(X, y, lam, sign, weights=None):
    """cvxpy/Clarabel on the primal QP at default settings (the hinge terms weighted by ``weights``
    when given): (value at its w, total s, solve s)."""
    import cvxpy as cp

    n, d = X.shape
    w, xi = cp.Variable(d), cp.Variable(n)
    cons = [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)]
    if np.any(sign > 0):
        cons.append(w[np.flatnonzero(sign > 0)] >= 0)
    if np.any(sign < 0):
        cons.append(w[np.flatnonzero(sign < 0)] <= 0)
    loss = cp.sum(xi) if weights is None else weights @ xi
    prob = cp.Problem(cp.Minimize(lam / 2 * cp.sum_squares(w) + loss / n), cons)
    t = time.perf_counter()
    prob.solve(solver="CLARABEL")
    total = time.perf_counter() - t
    wv = np.asarray(w.value, dtype=float)
    wv = np.where(sign * wv < 0, 0.0, wv)
    X_check = X.toarray() if sp.issparse(X) else X
    value = (signsvm.primal_objective(wv, X_check, y, lam) if weights is None
             else weighted_primal(wv, X_check, y, lam, sign, weights))
    return value, total, float(prob.solver_stats.solve_time or np.nan)


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


def run_cell(X, y, lam_n, sign, methods, tol, with_clarabel, time_limit=None, repeat=3, weights=None):
    """The rows of one cell (one per method), each with its gap recomputed from the returned
    (w, alpha): by the library's public objectives, or with ``weights`` by
    :func:`weighted_objectives`; Clarabel's value and times beside them."""
    n = X.shape[0]
    lam = lam_n / n
    X_check = X.toarray() if sp.issparse(X) else X      # checked on the dense array: off the CSR code path
    rows = []
    for method in methods:
        opts = {} if time_limit is None else {"time_limit": time_limit}
        if weights is not None:
            opts["sample_weight"] = weights

        def call():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                return signsvm.solve(X, y, lam, sign, solver=method, tol=tol, **opts)

        seconds, res = best_of(call, repeat)
        if weights is None:
            P = signsvm.primal_objective(res.w, X_check, y, lam)
            D = signsvm.dual_objective(res.alpha, X_check, y, lam, sign)
        else:
            P, D = weighted_objectives(res.w, res.alpha, X_check, y, lam, sign, weights)
        ran = "+".join(res.history.get("method", [method]))       # what "auto" ran, in order
        rows.append(dict(method=method, ran=ran, rel_gap=(P - D) / P, converged=bool(res.converged), seconds=seconds,
                         n_iter=res.n_iter, primal=P))
    if with_clarabel:
        _, ref = best_of(lambda: clarabel(X, y, lam, sign, weights), repeat)
        runs = [ref] + [clarabel(X, y, lam, sign, weights) for _ in range(repeat - 1) if ref[1] < 0.5]
        ref = (ref[0], min(r[1] for r in runs), min(r[2] for r in runs))
    else:
        ref = (np.nan, np.nan, np.nan)
    for r in rows:
        r.update(clarabel_seconds=ref[1], clarabel_solve_seconds=ref[2],
                 primal_minus_clarabel=(r.pop("primal") - ref[0]) / ref[0])
    return rows


WARM_UP_SHAPES = ((200, 5), (300, 260), (60, 300))
"""Shapes whose solves compile the kernels before any timing: the interior-point method's compiled
iteration (d <= n, d <= 256), its numpy iteration (d > 256) and its n x n form (d > n); each is
solved dense and as CSR, with and without sample weights (the weighted calls compile their own
specialisations: a first weighted solve of a 500 x 400 instance took 1.3 s against 0.07 s after)."""


def warm_up(methods):
    """Solve the WARM_UP_SHAPES with every method named, so that no cell's timing includes
    numba's compilation."""
    for n, d in WARM_UP_SHAPES:
        X, y = gaussian_classes(n, d)
        sign = np.resize([1.0, 0.0, -1.0], d)
        for data in (X, sp.csr_matrix(X)):
            for weights in (None, np.linspace(0.0, 2.0, n)):
                for m in methods:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        signsvm.solve(data, y, 1e-3, sign, solver=m, sample_weight=weights)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(DATA), help="data sets (or 'none')")
    ap.add_argument("--lam-n", nargs="+", type=float, default=list(LAM_NS))
    ap.add_argument("--patterns", nargs="+", default=list(PATTERNS), choices=ALL_PATTERNS)
    ap.add_argument("--weights", nargs="+", default=["none"], choices=WEIGHTS,
                    help="sample weights of the data sets' and the families' cells (default none: the paper's problem)")
    ap.add_argument("--methods", nargs="+", default=["auto"], help=f"any of {signsvm.SOLVERS}")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--time-limit", type=float, default=None, help="passed to solve (seconds)")
    ap.add_argument("--synthetic", nargs="*", type=int, default=[], help="n of the Gaussian family")
    ap.add_argument("--synthetic-d", type=int, default=100, help="d of the Gaussian family (default 100)")
    ap.add_argument("--families", nargs="*", default=[], help=f"any of {tuple(FAMILIES)}, or 'all'")
    ap.add_argument("--family-shapes", nargs="+", default=[f"{n}x{d}" for n, d in FAMILY_SHAPES], help="n x d")
    ap.add_argument("--family-lam-n", nargs="+", type=float, default=list(FAMILY_LAM_NS))
    ap.add_argument("--family-patterns", nargs="+", default=["free", "nonneg", "mixed"], choices=ALL_PATTERNS)
    ap.add_argument("--clarabel-max-entries", type=float, default=2e5, help="families: Clarabel only where n d <= this")
    ap.add_argument("--no-clarabel", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many calls for calls under 0.5 s")
    ap.add_argument("--csv", help="also write the rows to this CSV file")
    args = ap.parse_args(argv)
    data = [] if args.data == ["none"] else args.data
    families = list(FAMILIES) if args.families == ["all"] else args.families
    for f in families:
        if f not in FAMILIES:
            ap.error(f"--families: expected names from {tuple(FAMILIES)} or 'all', got {f!r}")
    written = []
    print(",".join(COLUMNS), flush=True)

    def emit(name, X, lam_n, pattern, rows, weights="none"):
        for r in rows:
            vals = dict(data=name, n=X.shape[0], d=X.shape[1], lam_n=lam_n, pattern=pattern, **r, weights=weights)
            written.append(vals)
            print(",".join(f"{vals[c]:.3g}" if isinstance(vals[c], float) else str(vals[c]) for c in COLUMNS),
                  flush=True)

    with threadpool_limits(limits=args.threads, user_api="blas"):
        warm_up(args.methods)
        for name in data:
            X, y = load_scaled(name)
            for kind in args.weights:
                weights = sample_weights(kind, name, X.shape[0])
                for pattern in args.patterns:
                    sign = sign_pattern(pattern, name, X.shape[1])
                    for lam_n in args.lam_n:
                        emit(name, X, lam_n, pattern, run_cell(X, y, lam_n, sign, args.methods, args.tol,
                                                               not args.no_clarabel, args.time_limit, args.repeat,
                                                               weights), kind)
        for n in args.synthetic:
            X, y = gaussian_classes(n, args.synthetic_d)
            emit(f"two-gaussians-{n}x{args.synthetic_d}", X, 1.0, "free", run_cell(X, y, 1.0, np.zeros(X.shape[1]), args.methods,
                                                           args.tol, not args.no_clarabel, args.time_limit,
                                                           args.repeat))
        for family in families:
            for shape in args.family_shapes:
                n, d = (int(v) for v in shape.lower().split("x"))
                X, y = family_instance(family, n, d)
                name = f"{family}-{n}x{d}"
                for kind in args.weights:
                    weights = sample_weights(kind, name, n)
                    for pattern in args.family_patterns:
                        sign = sign_pattern(pattern, name, d)
                        for lam_n in args.family_lam_n:
                            emit(name, X, lam_n, pattern,
                                 run_cell(X, y, lam_n, sign, args.methods, args.tol,
                                          not args.no_clarabel and n * d <= args.clarabel_max_entries,
                                          args.time_limit, args.repeat, weights), kind)
    if args.csv:
        write_csv(written, args.csv, COLUMNS)


if __name__ == "__main__":
    sys.exit(main())
