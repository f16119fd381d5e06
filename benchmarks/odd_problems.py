"""Does ``signsvm.solve`` certify, or say that it did not, on small odd problems?

The grids of ``convergence_grid.py`` hold real data sets and synthetic families of a few fixed
shapes. This script draws many small problems (2 to 59 samples, 1 to 39 features) of ten kinds
(:data:`KINDS`: Gaussian rows, tiny shapes, binary and integer entries, feature scales over ten
decades, repeated rows, zero columns, zero rows, separable labels, and one repeated row with
opposite labels), each with random signs in {-1, 0, +1} (all free in about a third), lam n
log-uniform in [1e-6, 1e5], sample weights (none; U(0.1, 5); U(0, 3) with about 30% at zero;
log-uniform over eight decades) and a storage format (dense, CSR, float32, Fortran order). Case
i of kind k comes from its own keyed stream ``instance_rng(seed, "odd", k, i)``.

Every case runs ``solve(..., solver=s, tol=1e-6, sample_weight=...)`` for s in ``--solvers``
(``auto``, ``interior-point``, ``dual-coordinate``) and, independently, Clarabel at 1e-10
tolerances (``svmcert.reference.solve_primal_cvxpy``, its value recomputed at its w). The
certificate is recomputed here (:func:`convergence_grid.weighted_objectives`, written apart from
the library) from the returned (w, alpha). A row fails its check when w leaves the sign set or
alpha its box, when a run reports ``converged`` with a recomputed relative gap above tol (1e-9
slack for the recomputation's rounding), when its dual value D(alpha) exceeds Clarabel's value by
more than 1e-7 relatively (no dual point may exceed the optimum; the slack is Clarabel's
accuracy), or when a run neither converges nor warns. Columns:

    kind, case, fmt, n, d, lam_n, weights, free_signs, solver, converged, warned, rel_gap,
    clarabel_excess ((P - P_clarabel) / |P_clarabel|; negative where Clarabel's answer is worse),
    dual_excess ((D - P_clarabel) / |P_clarabel|), woodbury_refined, woodbury_until, crossover,
    seconds, clarabel_seconds (cvxpy's compilation included), check

``--woodbury-limits L ...`` instead solves the cases that stall without the interior-point
method's residual check (``--cases``, the kinds' failures of the run that found them) together
with Gaussian n < d problems (free, mixed and nonnegative signs; lam n 1e-4 ... 100; tol 1e-6 and
1e-9) with ``_normal_equations.WOODBURY_RESIDUAL_LIMIT`` set to each L (0: the check off), and
writes one row per limit (``results/woodbury_limit.csv``, before the refinement existed);
``--refinements K ...`` and ``--refined-limits T ...`` sweep ``WOODBURY_REFINEMENTS`` and
``WOODBURY_REFINED_LIMIT`` as well (``results/woodbury_refinements.csv``).

``--medium`` draws the cases at medium sizes instead (:func:`medium_problem`: n up to 3162, d up
to 630) and leaves Clarabel out (its columns NaN; the other checks stand); with ``--solvers auto``
it is the run ``results/odd_problems_medium.csv``. ``--wide`` draws them with more features than
samples (:func:`wide_problem`: n from 19 to 630, d from 2.5 n to 20 n, at most WIDE_MAX_D),
with Clarabel only on cases of at most WIDE_CLARABEL_MAX_ENTRIES entries; with ``--solvers auto
interior-point`` it is the run ``results/odd_problems_wide.csv``.

Run: ``python benchmarks/odd_problems.py --cases 1000`` (about half a minute on one core).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convergence_grid import weighted_objectives  # noqa: E402
from peers.common import constant_set_to, quiet, write_csv  # noqa: E402

KINDS = ("gauss", "tiny", "binary", "scaled", "dups", "zerocols", "zerorows", "integer", "separable", "conflict")
"""The kinds of odd problems, drawn in turn (case i is of kind KINDS[i % 10])."""
FORMATS = ("dense", "csr", "f32", "fortran")
SOLVERS = ("auto", "interior-point", "dual-coordinate")
WIDE_MAX_D = 6000
"""The most features of a ``--wide`` case: beyond the d x d form's limit (``PRIMAL_FORM_MAX_D``),
small enough that 1000 cases run in a few minutes."""
WIDE_CLARABEL_MAX_ENTRIES = 1e5
"""``--wide`` cases with at most this many entries (530 of seed 0's 1000) are also solved by
Clarabel; larger ones take it seconds to minutes each."""
TOL = 1e-6
STALLED = (134, 504, 604, 465, 689, 13, 23, 83, 283, 293, 533, 593, 613, 773, 923, 933, 993)
"""The 17 cases of seed 0 on which the interior-point method (and so ``auto``) did not certify
before its Woodbury solves were checked (``results/odd_problems_before.csv``): repeated rows,
zero columns and a repeated row with opposite labels (the first five), feature scales over ten
decades (the rest)."""


def odd_problem(seed: int, case: int):
    """(X as stored, y, sign, lam, weights or None, fmt, X in float64): case ``case``."""
    from svmcert.instance_streams import instance_rng

    kind = KINDS[case % len(KINDS)]
    rng = instance_rng(seed, "odd", kind, case)
    n, d = int(rng.integers(2, 60)), int(rng.integers(1, 40))
    if kind == "tiny":
        n, d = int(rng.integers(2, 6)), int(rng.integers(1, 5))
    return _draw(kind, rng, n, d)


def medium_problem(seed: int, case: int):
    """Case ``case`` of ``--medium``: n log-uniform in [50, 3162], d in [2, 630], then the kinds'
    entries, labels, signs, lam, weights and format drawn as :func:`odd_problem` draws them (the
    kind ``tiny`` is Gaussian at these sizes), from the stream ``instance_rng(seed, "odd-medium",
    kind, case)``."""
    from svmcert.instance_streams import instance_rng

    kind = KINDS[case % len(KINDS)]
    rng = instance_rng(seed, "odd-medium", kind, case)
    n, d = int(10 ** rng.uniform(1.7, 3.5)), int(10 ** rng.uniform(0.3, 2.8))
    return _draw(kind, rng, n, d)


def wide_problem(seed: int, case: int):
    """Case ``case`` of ``--wide``: more features than samples, n = int(10^U(1.3, 2.8)) (19 to
    630) and d = int(n 10^U(0.4, 1.3)) (2.5 n to 20 n, at most WIDE_MAX_D), then the kinds'
    entries, labels, signs, lam, weights and format drawn as :func:`odd_problem` draws them, from
    the stream ``instance_rng(seed, "odd-wide", kind, case)``."""
    from svmcert.instance_streams import instance_rng

    kind = KINDS[case % len(KINDS)]
    rng = instance_rng(seed, "odd-wide", kind, case)
    n = int(10 ** rng.uniform(1.3, 2.8))
    d = min(WIDE_MAX_D, int(n * 10 ** rng.uniform(0.4, 1.3)))
    return _draw(kind, rng, n, d)


def _draw(kind, rng, n, d):
    """The rest of a case after its shape, in a fixed order of draws from ``rng``."""
    X = rng.standard_normal((n, d))
    if kind == "binary":
        X = (rng.random((n, d)) < 0.3).astype(float)
    elif kind == "scaled":
        X *= 10.0 ** rng.uniform(-5, 5, size=d)
    elif kind == "dups":
        k = max(1, n // 3)
        X[:k] = X[n - k:]
    elif kind == "zerocols":
        X[:, rng.random(d) < 0.5] = 0.0
    elif kind == "zerorows":
        X[rng.random(n) < 0.3] = 0.0
    elif kind == "integer":
        X = rng.integers(-3, 4, size=(n, d)).astype(float)
    if kind == "separable":
        y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    else:
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if kind == "conflict" and n >= 4:
        X[1] = X[0]
        y[0], y[1] = 1.0, -1.0
    y[0], y[-1] = 1.0, -1.0
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    if rng.random() < 0.3:
        sign[:] = 0.0
    lam = 10.0 ** rng.uniform(-6, 5) / n
    u, s = rng.random(), None
    if u < 0.25:
        s = rng.uniform(0.1, 5.0, n)
    elif u < 0.4:
        s = rng.uniform(0.0, 3.0, n)
        s[rng.random(n) < 0.3] = 0.0
        s[0] = s[-1] = 1.0
    elif u < 0.5:
        s = 10.0 ** rng.uniform(-4, 4, n)
    fmt = FORMATS[int(rng.integers(len(FORMATS)))]
    stored = {"dense": X, "csr": sp.csr_matrix(X), "f32": X.astype(np.float32), "fortran": np.asfortranarray(X)}[fmt]
    exact = stored.astype(np.float64) if fmt == "f32" else X
    return stored, y, sign, lam, s, fmt, exact


def weights_kind(s) -> str:
    if s is None:
        return "none"
    if np.any(s == 0):
        return "with-zeros"
    return "wide" if s.max() / s.min() > 50 else "uniform"


def check_case(seed: int, case: int, solvers=SOLVERS, medium: bool = False, wide: bool = False) -> list[dict]:
    """The rows of one case: each solver's answer checked as the module docstring says (a
    ``medium`` case, or a ``wide`` one with more than WIDE_CLARABEL_MAX_ENTRIES entries, without
    Clarabel: its columns are then NaN and its check left out)."""
    from svmcert.exceptions import ConvergenceWarning
    from svmcert.reference import solve_primal_cvxpy
    from svmcert.signsvm import solve

    X, y, sign, lam, s, fmt, Xe = (wide_problem if wide else medium_problem if medium else odd_problem)(seed, case)
    n, d = Xe.shape
    with_clarabel = not medium and (not wide or n * d <= WIDE_CLARABEL_MAX_ENTRIES)
    box = np.ones(n) if s is None else s
    p_ref = clarabel_seconds = np.nan
    if with_clarabel:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                # Clarabel's "may be inaccurate"
            ref = solve_primal_cvxpy(Xe, y, lam, sign, weights=s)
        clarabel_seconds = time.perf_counter() - t
        p_ref = weighted_objectives(np.where(sign * ref.w < 0, 0.0, ref.w), np.zeros(n), Xe, y, lam, sign, box)[0]
    rows = []
    for solver in solvers:
        t = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = solve(X, y, lam, sign, solver=solver, tol=TOL, sample_weight=s)
        seconds = time.perf_counter() - t
        warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        P, D = weighted_objectives(res.w, res.alpha, Xe, y, lam, sign, box)
        rel = (P - D) / max(abs(P), np.finfo(float).tiny)
        scale = max(abs(p_ref), np.finfo(float).tiny)
        bad = []
        if not np.isfinite(P) or not np.isfinite(D):
            bad.append("infeasible")
        if res.converged and rel > TOL + 1e-9:
            bad.append("converged above tol")
        if with_clarabel and (D - p_ref) / scale > 1e-7:
            bad.append("dual above Clarabel")
        if not res.converged and not warned:
            bad.append("silent")
        rows.append(dict(kind=KINDS[case % len(KINDS)], case=case, fmt=fmt, n=n, d=d, lam_n=lam * n,
                         weights=weights_kind(s), free_signs=bool(not np.any(sign)), solver=solver,
                         converged=bool(res.converged), warned=warned, rel_gap=rel,
                         clarabel_excess=(P - p_ref) / scale, dual_excess=(D - p_ref) / scale,
                         woodbury_refined=res.history.get("woodbury_refined", ""),
                         woodbury_until=res.history.get("woodbury_until", ""),
                         crossover=(res.history.get("crossover") or {}).get("outcome", ""),
                         seconds=seconds, clarabel_seconds=clarabel_seconds, check="; ".join(bad) or "ok"))
    return rows


def summary(rows) -> str:
    """Per solver: cases, certified, not certified (each with a warning, or silent), failed checks;
    and per kind the interior-point method's and auto's uncertified cases."""
    lines = []
    for solver in dict.fromkeys(r["solver"] for r in rows):
        mine = [r for r in rows if r["solver"] == solver]
        cert = sum(r["converged"] for r in mine)
        lines.append(f"{solver:16s} {len(mine)} cases: certified {cert}, not certified {len(mine) - cert} "
                     f"(warned {sum(r['warned'] and not r['converged'] for r in mine)}), "
                     f"failed checks {sum(r['check'] != 'ok' for r in mine)}")
    for kind in KINDS:
        short = [f"{r['solver']}:{r['case']}" for r in rows
                 if r["kind"] == kind and r["solver"] != "dual-coordinate" and not r["converged"]]
        if short:
            lines.append(f"  {kind}: not certified {' '.join(short)}")
    return "\n".join(lines)


def woodbury_problems(seed: int, cases):
    """The stalled odd cases and the Gaussian n < d problems of ``--woodbury-limits``."""
    from svmcert.instance_streams import instance_rng

    out = []
    for case in cases:
        X, y, sign, lam, s, _, _ = odd_problem(seed, case)
        out.append((f"odd-{case}", X, y, lam, sign, s, TOL))
    for n, d in ((60, 90), (40, 200), (100, 1000), (300, 600)):
        rng = instance_rng(seed, "woodbury", n, d)
        X = rng.standard_normal((n, d))
        y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
        for pattern, sign in (("free", np.zeros(d)), ("mixed", rng.choice([-1.0, 0.0, 1.0], d)),
                              ("nonneg", np.ones(d))):
            for lam_n in (1e-4, 1e-2, 1.0, 100.0):
                for tol in (1e-6, 1e-9):
                    out.append((f"gaussian-{n}x{d}-{pattern}", X, y, lam_n / n, sign, None, tol))
    return out


def woodbury_sweep(seed: int, limits, cases, refinements=(None,), refined_limits=(None,)) -> list[dict]:
    """One row per residual limit, number of refinement steps and refinement target (None: the
    library's; with no steps the target is left out): runs not certified, Newton iterations,
    refinement steps and runs that switched to the d x d form, in all."""
    import importlib

    from svmcert.signsvm import solve

    ne = importlib.import_module("svmcert.signsvm._normal_equations")
    problems = woodbury_problems(seed, cases)
    configs = []
    for steps in refinements:
        steps = ne.WOODBURY_REFINEMENTS if steps is None else int(steps)
        for target in (refined_limits if steps else (None,)):
            target = ne.WOODBURY_REFINED_LIMIT if target is None else float(target)
            configs.extend((limit, steps, target) for limit in limits)
    rows = []
    for limit, steps, target in configs:
        short = iters = switched = crossed = refined = 0
        t = time.process_time()
        with constant_set_to(ne, "WOODBURY_RESIDUAL_LIMIT", limit if limit > 0 else np.inf), \
                constant_set_to(ne, "WOODBURY_REFINEMENTS", steps), \
                constant_set_to(ne, "WOODBURY_REFINED_LIMIT", target):
            for _, X, y, lam, sign, s, tol in problems:
                res = quiet(solve, X, y, lam, sign, solver="interior-point", tol=tol, sample_weight=s)
                short += not res.converged
                iters += res.n_iter
                switched += "woodbury_until" in res.history
                refined += res.history.get("woodbury_refined", 0)
                crossed += "crossover" in res.history
        rows.append(dict(limit=limit, refinements=steps, refined_limit=target, runs=len(problems),
                         not_certified=short, newton_iterations=iters, refined=refined, switched=switched,
                         crossover=crossed, cpu_seconds=time.process_time() - t))
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, nargs="+", default=[1000],
                    help="how many cases (one number), or the case numbers with --woodbury-limits")
    ap.add_argument("--solvers", nargs="+", default=list(SOLVERS))
    ap.add_argument("--woodbury-limits", type=float, nargs="*", default=None)
    ap.add_argument("--refinements", type=int, nargs="+", default=None,
                    help="with --woodbury-limits: the numbers of refinement steps to sweep (default: the library's)")
    ap.add_argument("--refined-limits", type=float, nargs="+", default=None,
                    help="with --woodbury-limits: the refinement targets to sweep (default: the library's)")
    ap.add_argument("--medium", action="store_true", help="medium sizes (medium_problem), without Clarabel")
    ap.add_argument("--wide", action="store_true", help="more features than samples (wide_problem), without Clarabel")
    ap.add_argument("--csv", help="write the rows to this CSV file")
    args = ap.parse_args(argv)
    if args.woodbury_limits is not None:
        cases = STALLED if args.cases == [1000] else args.cases
        rows = woodbury_sweep(args.seed, args.woodbury_limits or [0.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-8], cases,
                              args.refinements or (None,), args.refined_limits or (None,))
    else:
        rows = []
        for case in range(args.cases[0]):
            rows.extend(check_case(args.seed, case, args.solvers, args.medium, args.wide))
        print(summary(rows))
    if args.csv:
        write_csv(rows, args.csv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
