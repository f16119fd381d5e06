"""Experiments of the QP1 chapter: random and degenerate instances, projections of real data,
Theorem 1 exhaustively and along every run, the literal algorithm's R2 failure, and timing."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg

from ...featelim import check_working_set, enumerate_working_sets, solve_lo, solve_qp1, working_set_rows
from ...reference.qp1 import solve_lo_linprog, solve_qp1_cvxpy, solve_qp1_svc
from ..instances import instance_rng
from ..timing import best_cpu_time, clock, loglog_slope

__all__ = ["Instance", "FAMILIES", "random_instance", "random_instances", "iteration_checks", "compare_instance",
           "standardise", "real_projections", "exhaustive_theorem1", "smallest_r2_failure", "trace_table",
           "lo_on_projections", "time_per_iteration", "cpu_time_per_iteration", "lemma1_independent", "widen_null_space",
           "lemma2_widening"]


@dataclass
class Instance:
    family: str
    g: np.ndarray
    y: np.ndarray
    C: float
    W: float
    start: tuple | None


def _labels(rng, N):
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    if N >= 2:
        y[:2] = [1.0, -1.0]
    return y


def random_instance(rng, family: str) -> Instance:
    """One instance of a family in :data:`FAMILIES` (sizes 2..30, C in [1e-3, 1e3], W in [1e-2, 1e2])."""
    N = int(rng.integers(2, 31))
    g = rng.normal(size=N) * 10 ** rng.uniform(-1, 1) + rng.normal()
    y = _labels(rng, N)
    C = 10 ** rng.uniform(-3, 3)
    W = 10 ** rng.uniform(-2, 2)
    start = (rng.normal() * 3, rng.normal() * 3)
    if family == "ties":
        g = np.round(g, 0)
    elif family == "duplicates":
        h = N // 2
        g[h:2 * h] = g[:h]
        y[h:2 * h] = y[:h]
    elif family == "opposite duplicates":
        h = N // 2
        g[h:2 * h] = g[:h]
        y[h:2 * h] = -y[:h]
    elif family == "one class but two":
        y[:] = 1.0
        y[rng.choice(N, size=min(2, N), replace=False)] = -1.0
    elif family == "one class":
        y[:] = 1.0
    elif family == "C tiny":
        C = 1e-6
    elif family == "C huge":
        C = 1e6
    elif family == "constant g":
        g[:] = rng.normal()
    elif family == "default start":
        start = None
    elif family != "generic":
        raise ValueError(f"family: expected one of {FAMILIES}, got {family!r}")
    return Instance(family, g, y, float(C), float(W), start)


FAMILIES = ("generic", "default start", "ties", "duplicates", "opposite duplicates", "one class but two",
            "one class", "C tiny", "C huge", "constant g")


def iteration_checks(res, g, y, W) -> dict:
    """Theorem 1's conditions, Lemma 3 and R2 at every iteration of one run (counts)."""
    N = len(g)
    out = dict(iterations=res.n_iter, c1_fail=0, c2_fail=0, size_not_N1_N2=0, more_than_two_doubly=0,
               r2_fail=0, size_N=0, r1r2_without_conditions=0, multiplier_pairs_not_C=0)
    for it in res.iterations:
        c = check_working_set(it.W1, it.W2, g, y, W)
        out["c1_fail"] += not c.r1
        out["c2_fail"] += not c.c2
        out["size_not_N1_N2"] += c.size not in (N + 1, N + 2)
        out["more_than_two_doubly"] += c.n_doubly_active > 2
        out["r2_fail"] += not c.r2
        out["size_N"] += c.size == N
        out["r1r2_without_conditions"] += (c.r1 and c.r2) and not c.theorem1_conditions
    return out


def _multiplier_pairs_ok(res, C, N) -> int:
    """Specialised method: count multiplier records whose two rows of a sample do not sum to C."""
    bad = 0
    for it in res.iterations:
        if it.multipliers is None:
            continue
        for row, lam in it.multipliers.items():
            other = row + N if row < N else row - N
            if other in it.multipliers and abs(lam + it.multipliers[other] - C) > 1e-9 * max(C, 1.0):
                bad += 1
    return bad


def compare_instance(inst: Instance, *, svc: bool = False, literal: bool = True, checks: bool = True) -> dict:
    """The specialised method (and the literal one from the same start) against cvxpy.

    Objectives are relative to ``max(1, |P_ref|)``. ``a_error_over_bound`` divides the error in
    ``a`` by ``sqrt(2 (P(a_ref, b_ref) - D(alpha)) / W)``, which bounds it by strong convexity in
    ``a`` (plus a rounding allowance of 10 N eps |P|); it must stay below 1.
    """
    g, y, C, W = inst.g, inst.y, inst.C, inst.W
    spec = solve_qp1(g, y, C, W, start=inst.start, record=checks)
    ref = solve_qp1_cvxpy(g, y, C, W)
    scale = max(1.0, abs(ref.objective))
    # rounding of P = W a^2/2 + C sum xi: N eps times the sum of the magnitudes that enter it
    rounding = len(g) * np.finfo(float).eps * (0.5 * W * spec.a ** 2 + C * float(np.sum(1 + np.abs(spec.a * g) + abs(spec.b))))
    allowance = max(rounding, 10 * len(g) * np.finfo(float).eps * scale)
    excess = max(ref.objective - spec.dual_objective, 0.0) + allowance
    row = dict(family=inst.family, N=len(g), C=C, W=W,
               spec_minus_ref=(spec.objective - ref.objective) / scale, spec_gap=spec.gap / scale,
               spec_excess_over_rounding=(spec.objective - ref.objective) / allowance,
               spec_gap_over_rounding=spec.gap / allowance,
               a_error_over_bound=abs(spec.a - ref.a) / np.sqrt(2 * excess / W),
               spec_iterations=spec.n_iter, converged=bool(spec.converged), ref_status=ref.status, a=spec.a)
    if literal:
        lit = solve_qp1(g, y, C, W, method="nocedal-wright", start=inst.start, record=checks)
        row.update(lit_minus_ref=(lit.objective - ref.objective) / scale, lit_gap=lit.gap / scale,
                   lit_excess_over_rounding=(lit.objective - ref.objective) / allowance,
                   lit_gap_over_rounding=lit.gap / allowance,
                   lit_iterations=lit.n_iter, converged=bool(spec.converged and lit.converged),
                   lit_rays=sum(it.kind == "ray" for it in lit.iterations))
    if svc:
        s = solve_qp1_svc(g, y, C, W)
        row["svc_minus_spec"] = (s.objective - spec.objective) / max(1.0, abs(s.objective))
        ex = max(s.objective - spec.dual_objective, 0.0) + allowance
        row["a_error_over_bound_svc"] = abs(spec.a - s.a) / np.sqrt(2 * ex / W)
        row["svc_status"] = s.status
    if checks:
        row.update({f"spec_{k}": v for k, v in iteration_checks(spec, g, y, W).items() if k != "iterations"})
        row["spec_multiplier_pairs_not_C"] = _multiplier_pairs_ok(spec, C, len(g))
        if literal:
            row.update({f"lit_{k}": v for k, v in iteration_checks(lit, g, y, W).items() if k != "iterations"})
    row["spec_pivots"] = sum(it.kind == "pivot" for it in spec.iterations)
    return row


def standardise(X):
    """Zero mean, unit variance per feature (constant features left at zero)."""
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def real_projections(X, y, C_svm: float = 1.0):
    """Train a linear SVM (scikit-learn SVC) and yield ``(m, g^{-m}, ||w^{-m}||^2, b)`` per feature."""
    from sklearn.svm import SVC
    clf = SVC(kernel="linear", C=C_svm).fit(X, y)
    w = clf.coef_[0]
    b = float(clf.intercept_[0])
    for m in range(X.shape[1]):
        keep = np.arange(X.shape[1]) != m
        W = float(w[keep] @ w[keep])
        if W > 0:
            yield m, X[:, keep] @ w[keep], W, b


def random_instances(seed: int, families, per_family: int) -> list[Instance]:
    """``per_family`` instances of each family; instance k of a family from the stream keyed
    ``("qp1-active-set", family, k)``."""
    return [random_instance(instance_rng(seed, "qp1-active-set", fam, k), fam) for fam in families
            for k in range(int(per_family))]


def exhaustive_theorem1(seed: int, Ns=(1, 2, 3, 4, 5)) -> pd.DataFrame:
    """Every working set (4^N) of instances with generic, tied, duplicated and zero ``g``; the
    random ``g`` and labels of size N from the stream keyed ``("qp1-active-set", "exhaustive", N)``."""
    rows = []
    for N in Ns:
        rng = instance_rng(seed, "qp1-active-set", "exhaustive", N)
        cases = {"generic": rng.normal(size=N), "zero g": np.zeros(N), "all g equal": np.full(N, 0.8),
                 "duplicated pair": np.concatenate([[0.5, 0.5], rng.normal(size=max(N - 2, 0))])[:N]}
        for case, g in cases.items():
            y = _labels(rng, N)
            cnt = dict(N=N, case=case, working_sets=0, r1_and_r2=0, theorem1_conditions=0, mismatch=0,
                       lemma1_violations=0, lemma3_violations=0, lemma4_violations=0)
            for W1, W2 in enumerate_working_sets(N):
                c = check_working_set(W1, W2, g, y, 1.7)
                cnt["working_sets"] += 1
                cnt["r1_and_r2"] += c.r1 and c.r2
                cnt["theorem1_conditions"] += c.theorem1_conditions
                cnt["mismatch"] += (c.r1 and c.r2) != c.theorem1_conditions
                cnt["lemma1_violations"] += not lemma1_independent(W1, W2, g, y)
                cnt["lemma3_violations"] += c.r1 and c.n_doubly_active > 2
                cnt["lemma4_violations"] += c.r2 and not c.c2
            rows.append(cnt)
    return pd.DataFrame(rows)


def lemma1_independent(W1, W2, g, y) -> bool:
    """Lemma 1 on one working set: the margin rows of the samples with only that row in W (W11), the
    slack rows of the samples with only that row (W22) and the slack rows of the doubly-active samples
    (the bottom half of B) are linearly independent (SVD rank of the stacked rows)."""
    W1, W2 = np.asarray(W1, dtype=bool), np.asarray(W2, dtype=bool)
    rows = working_set_rows(W1 & ~W2, W2, g, y)
    if rows.shape[0] == 0:
        return True
    sv = np.linalg.svd(rows, compute_uv=False)
    return int(np.sum(sv > 1e-10 * max(sv[0], 1.0))) == rows.shape[0]


def widen_null_space(Z, n_wide: int, zero_columns) -> np.ndarray:
    """Lemma 2's construction: from a null-space basis ``Z`` (n x r) of M, the basis of M widened to
    ``n_wide`` columns by zero columns at ``zero_columns``: the old vectors with 0 at those coordinates,
    then the unit vectors of those coordinates."""
    zero_columns = sorted(int(i) for i in zero_columns)
    keep = [j for j in range(n_wide) if j not in set(zero_columns)]
    Z = np.asarray(Z, dtype=float).reshape(len(keep), -1)
    grown = np.zeros((n_wide, Z.shape[1]))
    grown[keep] = Z
    units = np.eye(n_wide)[:, zero_columns]
    return np.hstack([grown, units])


def lemma2_widening(seed: int, trials: int = 200) -> pd.DataFrame:
    """Lemma 2 on random matrices (sizes up to 8 x 8, ranks from 0 to full, 1 to 4 zero columns
    inserted), each from the stream ``("qp1-active-set", "lemma 2", k)``. For each the widened basis
    must lie in the null space of the widened matrix, be linearly independent, and have as many
    vectors as that null space has dimensions (scipy.linalg.null_space of the widened matrix)."""
    rows = []
    for k in range(int(trials)):
        rng = instance_rng(seed, "qp1-active-set", "lemma 2", k)
        m, n = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        r = int(rng.integers(0, min(m, n) + 1))
        M = rng.standard_normal((m, r)) @ rng.standard_normal((r, n)) if r else np.zeros((m, n))
        kz = int(rng.integers(1, 5))
        wide_n = n + kz
        I = np.sort(rng.choice(wide_n, size=kz, replace=False))
        M_wide = np.zeros((m, wide_n))
        M_wide[:, [j for j in range(wide_n) if j not in set(I.tolist())]] = M
        Z_new = widen_null_space(scipy.linalg.null_space(M), wide_n, I)
        dim = scipy.linalg.null_space(M_wide).shape[1]
        scale = max(1.0, float(np.abs(M).max()))
        residual = float(np.abs(M_wide @ Z_new).max()) / scale if Z_new.size else 0.0
        sv = np.linalg.svd(Z_new, compute_uv=False) if Z_new.size else np.zeros(0)
        independent = bool(sv.size == 0 or sv.min() > 1e-10 * sv.max())
        rows.append(dict(trial=k, m=m, n=n, rank=r, zero_columns=kz, basis_vectors=Z_new.shape[1], null_dim=dim,
                         residual=residual, independent=independent,
                         ok=bool(residual <= 1e-12 and independent and Z_new.shape[1] == dim)))
    return pd.DataFrame(rows)


def smallest_r2_failure(seed: int = 0, max_N: int = 6, tries: int = 400):
    """Smallest seeded instance on which the literal Algorithm 16.1 reaches ``|W| = N`` (R2 fails).

    Searches N = 2, 3, ... with integer-valued ``g`` (readable) and returns the first instance
    found, as ``(Instance, literal result, specialised result)``.
    """
    rng = np.random.default_rng(seed)
    for N in range(2, max_N + 1):
        for _ in range(tries):
            g = rng.integers(-3, 4, size=N).astype(float)
            if np.unique(g).size < N:      # distinct projections: no tie helps the failure
                continue
            y = _labels(rng, N)
            C = float(rng.choice([0.5, 1.0, 2.0]))
            start = (float(rng.integers(-2, 3)), float(rng.integers(-2, 3)))
            lit = solve_qp1(g, y, C, 1.0, method="nocedal-wright", start=start)
            if any(len(it.W1) + len(it.W2) == N for it in lit.iterations):
                spec = solve_qp1(g, y, C, 1.0, start=start)
                return Instance("smallest", g, y, C, 1.0, start), lit, spec
    raise RuntimeError("no instance found")  # pragma: no cover


def trace_table(res, g, y, W) -> pd.DataFrame:
    """One row per iteration: kind, |W|, doubly-active samples, R1, R2, step, rows added/dropped."""
    N = len(g)

    def row_name(i):
        if i is None:
            return ""
        return f"margin {i}" if i < N else f"xi {i - N}"

    rows = []
    for it in res.iterations:
        c = check_working_set(it.W1, it.W2, g, y, W)
        rows.append(dict(k=it.k, kind=it.kind, size=c.size, doubly_active=",".join(map(str, sorted(set(it.W1) & set(it.W2)))),
                         R1=c.r1, R2=c.r2, null_dim=c.null_dim, step=it.step, added=row_name(it.blocking),
                         dropped=row_name(it.dropped), objective=it.objective))
    return pd.DataFrame(rows)


def lo_on_projections(name, X, y, W_and_g) -> list[dict]:
    """LO per removed feature: closed form vs linprog, feasibility, sign of a, QP1 at C = 1e8."""
    rows = []
    for m, g, W, _ in W_and_g:
        lo = solve_lo(g, y, W)
        feas, a_ref, _ = solve_lo_linprog(g, y)
        row = dict(data=name, feature=m, feasible=lo.feasible, linprog_feasible=feas,
                   a=lo.a, a_linprog=a_ref, a_rel_error=abs(lo.a - a_ref) / abs(a_ref) if feas and lo.feasible else np.nan)
        if lo.feasible:
            q = solve_qp1(g, y, 1e8, W, record=False)
            row["qp1_a_rel_error"] = abs(q.a - lo.a) / abs(lo.a)
            row["qp1_max_xi"] = float(q.xi.max())
        rows.append(row)
    return rows


def time_per_iteration(Ns, seed: int, repeats: int = 3) -> pd.DataFrame:
    """Wall time of the specialised method per iteration and in total, generic instances, cold start."""
    rows = []
    for N in Ns:
        rng = instance_rng(seed, "qp1-active-set", "timing", N)
        g = rng.normal(size=N)
        y = _labels(rng, N)
        g = g + 0.8 * y                      # overlapping classes: violators and margin samples
        best = np.inf
        for _ in range(repeats):
            t0 = clock()
            res = solve_qp1(g, y, 1.0, 1.0, record=False)
            best = min(best, clock() - t0)
        rows.append(dict(N=N, iterations=res.n_iter, seconds=best, seconds_per_iteration=best / res.n_iter))
    df = pd.DataFrame(rows)
    return df


def cpu_time_per_iteration(Ns, seed: int, iterations: int = 200, repeats: int = 3) -> pd.DataFrame:
    """CPU time of one iteration of the specialised method against N, measured by difference.

    Each size's instance (overlapping classes, cold start; stream ``("qp1-active-set", "cpu timing", N)``)
    is solved with ``max_iter = iterations`` and ``2 * iterations``; the difference of the two best
    CPU times (``time.process_time``) divided by ``iterations`` is the cost of an iteration, without the
    set-up (input checks, the starting bias) that both runs share.
    """
    rows = []
    for N in Ns:
        rng = instance_rng(seed, "qp1-active-set", "cpu timing", N)
        y = _labels(rng, N)
        g = rng.normal(size=N) + 0.8 * y
        k = int(iterations)

        def run(limit):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")          # the iteration limit is the point here
                return solve_qp1(g, y, 1.0, 1.0, record=False, max_iter=limit)

        run(5)                                            # compile the engine outside the timing
        done = run(2 * k).n_iter
        t1 = best_cpu_time(lambda: run(k), repeat=repeats)
        t2 = best_cpu_time(lambda: run(2 * k), repeat=repeats)
        rows.append(dict(N=int(N), iterations_timed=int(min(done, 2 * k) - min(done, k)), seconds_k=t1, seconds_2k=t2,
                         seconds_per_iteration=(t2 - t1) / max(min(done, 2 * k) - min(done, k), 1)))
    return pd.DataFrame(rows)


def fitted_slope(df, x, y, min_x=0):
    sub = df[df[x] >= min_x]
    return loglog_slope(sub[x].to_numpy(float), sub[y].to_numpy(float))
