"""``signsvm.solve`` against liblinear (free signs) and ReHLine (sign constraints), accuracy
matched on the objective.

Both peers minimise a multiple of Tajima et al.'s objective P(w) = lam/2 ||w||^2 + (1/n) sum_i
max(0, 1 - y_i <x_i, w>): liblinear (``LinearSVC(loss="hinge", dual=True, fit_intercept=False)``)
and ReHLine (``plq_Ridge_Classifier(loss={"name": "svm"}, fit_intercept=False)``) minimise
1/2 ||w||^2 + C sum_i max(0, 1 - y_i <x_i, w>) = P(w) / lam with C = 1 / (lam n) (ReHLine
multiplies its ReLU coefficients U = -y, V = 1 by C; :func:`rehline_scaling_check` verifies the
mapping on a small problem by comparing ReHLine's own objective value with P(w) / lam).

Accuracy: P* is the smallest primal value of our certified solves (one at ``ref_tol``, untimed,
and the timed one at ``tol``); D* the largest dual value, so P* - D* bounds how far P* can be
from the optimum (reported as ``p_star_uncertainty``, relative). A side *reached* the accuracy if
its (feasible) point has P(w) <= P* (1 + ``rtol``). A peer's tolerance is searched downwards
(``LIBLINEAR_TOLS`` / ``REHLINE_TOLS``) until it reaches it; that setting is then timed. Our
side is ``solve(..., tol)`` as a user calls it, checked against the same criterion.

ReHLine's point can violate the sign constraints slightly; it is projected on the sign set
before P is evaluated (``peer_violation`` reports the largest violation before the projection).
"""

from __future__ import annotations

import numpy as np

from .common import quiet, rel_excess, timed

__all__ = ["LIBLINEAR_TOLS", "REHLINE_TOLS", "ours_reference", "liblinear_fit", "rehline_fit",
           "rehline_scaling_check", "peer_at_accuracy", "compare", "breakdown"]

LIBLINEAR_TOLS = tuple(10.0 ** -k for k in range(1, 11))
REHLINE_TOLS = tuple(10.0 ** -k for k in range(2, 11))


def ours_reference(X, y, lam, sign, ref_tol=1e-9):
    """Our tightest certified solve (untimed): (primal, dual, result)."""
    from svmcert import signsvm

    res = quiet(signsvm.solve, X, y, lam, sign, tol=ref_tol)
    return res.primal, res.dual, res


def liblinear_fit(X, y, lam, tol, max_iter=20000, random_state=0):
    """``LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1/(lam n))``: (w, iterations,
    capped)."""
    from sklearn.svm import LinearSVC

    m = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1.0 / (lam * len(y)), tol=tol,
                  max_iter=max_iter, random_state=random_state)
    quiet(m.fit, X, y)
    it = int(np.max(m.n_iter_))
    return m.coef_.ravel().copy(), it, it >= max_iter


def _rehline_constraint(sign):
    sign = np.asarray(sign, float)
    if np.all(sign == 1.0):
        return [{"name": "nonnegative"}]
    rows = np.flatnonzero(sign)
    if rows.size == 0:
        return None
    A = np.zeros((rows.size, sign.size))
    A[np.arange(rows.size), rows] = sign[rows]           # sign_h w_h >= 0  <=>  A w + b >= 0, b = 0
    return [{"name": "custom", "A": A, "b": np.zeros(rows.size)}]


def rehline_fit(X, y, lam, sign, tol, max_iter=20000, model=False):
    """``plq_Ridge_Classifier(loss={"name": "svm"}, constraint=..., C=1/(lam n), fit_intercept=False)``
    with ``{"name": "nonnegative"}`` when every sign is +1, otherwise the custom constraint
    A w >= 0 with one row sign_h e_h per constrained feature: (w, iterations, capped[, model])."""
    from rehline import plq_Ridge_Classifier

    m = plq_Ridge_Classifier(loss={"name": "svm"}, constraint=_rehline_constraint(sign), C=1.0 / (lam * len(y)),
                             fit_intercept=False, tol=tol, max_iter=max_iter)
    quiet(m.fit, X, y)
    it = int(m.n_iter_) if np.ndim(getattr(m, "n_iter_", 0)) == 0 else int(np.max(m.n_iter_))
    out = (np.asarray(m.coef_, float).ravel().copy(), it, it >= max_iter)
    return out + (m,) if model else out


def rehline_scaling_check(n=200, d=8, lam_n=1.0, seed=0):
    """Does ReHLine minimise P(w) / lam with C = 1/(lam n)? On a small random problem with mixed
    signs, returns rows comparing ReHLine's own reported objective with P(w_rehline) / lam, and
    P(w_rehline) with our certified optimum (both solved tightly)."""
    from svmcert import signsvm

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    rows = []
    for pattern, sign in (("nonneg", np.ones(d)), ("mixed", np.r_[1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.0][:d])):
        lam = lam_n / n
        res = quiet(signsvm.solve, X, y, lam, sign, tol=1e-10)
        w, it, _, m = rehline_fit(X, y, lam, sign, 1e-10, 100000, model=True)
        p_reh = signsvm.primal_objective(signsvm.project_sign(w, sign), X, y, lam)
        reported = getattr(m, "objective_", np.nan)
        if hasattr(m, "estimators_") or reported is None:
            reported = np.nan
        rows.append({"pattern": pattern, "n": n, "d": d, "lam_n": lam_n, "rehline_reported_objective": float(reported),
                     "P_over_lam_at_rehline_w": p_reh / lam,
                     "reported_minus_P_over_lam_rel": rel_excess(float(reported), p_reh / lam),
                     "P_rehline_minus_P_ours_rel": rel_excess(p_reh, res.primal),
                     "ours_rel_gap": res.gap / res.primal,
                     "max_violation": float(np.max(np.maximum(0.0, -sign * w))), "rehline_iterations": it})
    return rows


def peer_at_accuracy(peer, X, y, lam, sign, target, *, max_iter=20000, max_seconds=None, repeat=3, budget=10.0,
                     p_star=None):
    """Time ``peer`` ("liblinear" or "rehline") at the loosest tolerance of ``LIBLINEAR_TOLS`` /
    ``REHLINE_TOLS`` whose point has P(w) <= ``target`` (its point projected on the sign set), the
    tolerances tried from the loosest down. The search stops early when the iteration cap stops a
    fit (a tighter tolerance cannot help then); if no tolerance reaches the target, the last one
    tried is timed. The cap is ``max_iter``, lowered (if ``max_seconds`` is given) so that one fit
    takes about ``max_seconds`` at the rate of a 50-iteration probe. Returns a dict: ``tol`` (the
    timed setting), ``cap``, ``tried`` (one "tol:excess" entry per fit, excess relative to
    ``p_star``, default ``target``), ``timing`` (a :class:`common.Timing` whose result is
    (w, iterations, capped)) and ``primal`` (P of the timed point, projected on the sign set)."""
    from svmcert import signsvm

    sign = np.asarray(sign, float)
    p_star = target if p_star is None else p_star

    def value(w):
        return signsvm.primal_objective(signsvm.project_sign(w, sign), X, y, lam)

    def peer_fit_capped(t, cap):
        if peer == "liblinear":
            return liblinear_fit(X, y, lam, t, cap)
        return rehline_fit(X, y, lam, sign, t, cap)

    if max_seconds is not None:
        probe = timed(lambda: peer_fit_capped(1e-15, 50), 1, 0.0)
        per_iter = probe.cpu / max(probe.result[1], 1)
        max_iter = int(min(max_iter, max(1000, max_seconds / max(per_iter, 1e-9))))

    tols = LIBLINEAR_TOLS if peer == "liblinear" else REHLINE_TOLS
    chosen, tried = None, []
    for t in tols:
        w, it, capped = peer_fit_capped(t, max_iter)
        p = value(w)
        tried.append(f"{t:g}:{rel_excess(p, p_star):.2g}{'(cap)' if capped else ''}")
        if p <= target or capped:
            chosen = t
            break
    if chosen is None:
        chosen = tols[-1]
    timing = timed(lambda: peer_fit_capped(chosen, max_iter), repeat, budget)
    return {"tol": chosen, "cap": max_iter, "tried": " ".join(tried), "timing": timing,
            "primal": value(timing.result[0])}


def compare(peer, X, y, lam_n, sign, *, data="", pattern="", tol=1e-6, rtol=1e-6, ref_tol=1e-9, max_iter=20000,
            max_seconds=None, repeat=3, budget=10.0):
    """One row: ours vs ``peer`` ("liblinear" or "rehline") at lam = lam_n / n with accuracy matched
    as the module docstring says. ``ratio_cpu`` = peer CPU time / ours (> 1: ours faster);
    ``comparable`` is True when both reached the accuracy. The peer's iteration cap is
    ``max_iter``, lowered (if ``max_seconds`` is given) so that one fit takes about
    ``max_seconds`` at the rate of a 50-iteration probe fit; ``peer_cap`` reports the cap."""
    from svmcert import signsvm

    n, d = X.shape
    lam = lam_n / n
    sign = np.asarray(sign, float)
    if peer == "liblinear" and np.any(sign != 0):
        raise ValueError("liblinear solves the unconstrained problem only (sign all 0)")
    p_ref, d_ref, ref = ours_reference(X, y, lam, sign, ref_tol)
    ours_t = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol), repeat, budget)
    res = ours_t.result
    p_star, d_star = min(p_ref, res.primal), max(d_ref, res.dual)
    target = p_star * (1.0 + rtol)

    found = peer_at_accuracy(peer, X, y, lam, sign, target, max_iter=max_iter, max_seconds=max_seconds,
                             repeat=repeat, budget=budget, p_star=p_star)
    chosen, max_iter, tried, peer_t, p_peer = (found[k] for k in ("tol", "cap", "tried", "timing", "primal"))
    w, it, capped = peer_t.result
    reached = bool(p_peer <= target)
    ours_reached = bool(res.converged and res.primal <= target)
    ratio_cpu = peer_t.cpu / ours_t.cpu
    return {"data": data, "n": n, "d": d, "lam_n": lam_n, "pattern": pattern, "peer": peer,
            "ours_cpu": ours_t.cpu, "ours_wall": ours_t.wall, "ours_calls": ours_t.calls,
            "ours_method": "+".join(res.history.get("method", [])), "ours_iters": res.n_iter,
            "ours_rel_gap": res.gap / res.primal, "ours_excess": rel_excess(res.primal, p_star),
            "ours_reached": ours_reached,
            "peer_tol": chosen, "peer_cap": max_iter, "peer_cpu": peer_t.cpu, "peer_wall": peer_t.wall, "peer_calls": peer_t.calls,
            "peer_iters": it, "peer_capped": capped, "peer_excess": rel_excess(p_peer, p_star),
            "peer_reached": reached,
            "peer_violation": float(np.max(np.maximum(0.0, -sign * w), initial=0.0)),
            "tols_tried": tried,
            "p_star": p_star, "p_star_uncertainty": rel_excess(p_star, d_star),
            "ratio_cpu": ratio_cpu, "ratio_wall": peer_t.wall / ours_t.wall,
            "comparable": bool(reached and ours_reached)}


def breakdown(X, y, lam_n, sign, *, target=None, tol=1e-6, repeat=3, budget=5.0):
    """Where ``solve(auto)`` spends its time on one cell: the plan ``auto_plan`` makes (coordinate
    ascent's budget of work, nonzeros visited plus a fixed cost per row), the time of coordinate
    ascent under that budget and its give-up rule (what ``auto`` runs first), of coordinate ascent
    alone until it certifies ``tol``, and of the interior-point method alone; and, if ``target``
    (a primal value) is given, the first certificate of coordinate ascent's run whose primal value
    is <= target (its seconds and the passes made so far are not recorded per round, so only
    seconds)."""
    from svmcert import signsvm
    from svmcert.signsvm.solve import auto_plan, auto_work_options, row_norm_scale

    n, d = X.shape
    lam = lam_n / n
    plan, work = auto_plan(n, d, int(np.count_nonzero(X)), lam, row_norm=row_norm_scale(X),
                           constrained=bool(np.any(np.asarray(sign) != 0)))
    auto = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol), repeat, budget)
    dca = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol, solver="dual-coordinate", max_epochs=100000),
                repeat, budget)
    ipm = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol, solver="interior-point"), repeat, budget)
    row = {"n": n, "d": d, "lam_n": lam_n, "plan": plan, "dca_budget_work": work,
           "auto_cpu": auto.cpu, "auto_methods": "+".join(auto.result.history.get("method", [])),
           "dca_cpu": dca.cpu, "dca_passes": dca.result.n_iter, "dca_converged": bool(dca.result.converged),
           "dca_work": float(dca.result.history.get("work", [np.nan])[-1]),
           "ipm_cpu": ipm.cpu, "ipm_iters": ipm.result.n_iter, "ipm_converged": bool(ipm.result.converged)}
    if plan == "dual-coordinate":
        budget_run = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol, solver="dual-coordinate",
                                                 **auto_work_options(n, d, lam)),
                           repeat, budget)
        row["dca_budget_cpu"] = budget_run.cpu
        row["dca_budget_passes"] = budget_run.result.n_iter
        row["dca_budget_rel_gap"] = budget_run.result.gap / budget_run.result.primal
        row["dca_budget_gave_up"] = bool(budget_run.result.history.get("gave_up", False))
    if target is not None:
        h = dca.result.history
        hit = [s for p, s in zip(h.get("primal", []), h.get("seconds", [])) if p <= target]
        row["dca_seconds_to_target_wall"] = hit[0] if hit else np.nan
    return row
