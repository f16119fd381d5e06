"""The rounds of dual coordinate ascent with shrinking (:func:`~.coordinate_ascent.dual_coordinate_ascent`).

Between certificates the compiled passes (:func:`._dca_kernel.run_shrinking`) run in rounds; each
round ends when the projected gradients meet a spread eps, after as many passes as all rounds
before it, or under a work budget (``max_work``, the unit of :mod:`.solve`'s ``auto``) after as
much work as all rounds before it. A round cut short by the work budget hands its shrunken set to
the next, so the passes go on as if uninterrupted (those rounds are checkpoints, not restarts); a
round that ran all its passes without meeting eps puts every coordinate back for the next, as
liblinear's shrinking does when its shrunken problem meets eps. That periodic unshrinking is what
lets a slow run reach the sets polishing needs: handing the shrunken set on across such rounds
left scikit-learn's breast-cancer set (standardised, intercept, C = 100) at a relative gap of 0.67
after 10000 passes, against 1.5e-13 after 4800 with the restarts.

After a round the run is certified by the duality gap (eq. 10), may give up when the gap's rate
predicts more work than ``give_up_work`` (under a budget, only once half of it is spent:
GIVE_UP_FROM_SHARE), and may try active-set polishing
(:func:`.active_set.polish_active_set`). A run that reaches ``max_work`` uncertified may go on
into ``extra_work`` (:func:`extended_limit`).
"""

from __future__ import annotations

import time
import warnings
from typing import NamedTuple

import numpy as np

from .._budget import Deadline
from ..exceptions import ConvergenceWarning
from ._signed_rows import SignedRows
from .active_set import polish_active_set
from .problem import SignSVMProblem
from .result import History, SolverResult, certificate

__all__ = ["DCAState", "shrinking_loop", "finish", "predicted_work", "extended_limit", "GIVE_UP_FROM_SHARE",
           "EXTENSION_KEEPS_ITS_OWN_RATE",
           "SHRINKING_EPS0", "SHRINKING_EPS_PER_TOL",
           "SHRINKING_EPS_FACTOR", "POLISH_AFTER_EPOCHS", "POLISH_FLOPS_PER_ENTRY", "POLISH_ATTEMPT_WORK",
           "POLISH_FLOPS_PER_WORK", "POLISH_FLOP_RATE"]


class DCAState(NamedTuple):
    """What a run carries from pass to pass besides alpha and omega."""

    Z: SignedRows
    csr: tuple
    layout: tuple | None
    hist: History
    deadline: Deadline


def predicted_work(rounds, tol) -> float:
    """Work still needed to bring the relative gap to ``tol``, extrapolated linearly in log(gap)
    from the best gap so far (at work W) and the best gap among the rounds that ended by W / 2:
    the rate over the later half of the run. The gap of w(alpha) is not monotone from round to
    round, hence best gaps; the zero start is not a round. 0 (no prediction) until there are two
    such gaps, the later smaller."""
    w_best, g_best = min(rounds, key=lambda r: r[1])
    earlier = [r for r in rounds if r[0] <= 0.5 * w_best]
    if not earlier:
        return 0.0
    w0, g0 = min(earlier, key=lambda r: r[1])
    if not (g_best < g0 and w_best > w0 and g_best > 0.0):
        return 0.0
    return float(np.log(g_best / tol) / (np.log(g0 / g_best) / (w_best - w0)))


EXTENSION_KEEPS_ITS_OWN_RATE = False
"""Whether a run extended past its budget (:func:`extended_limit`) is extended again only where
the gap's rate over the extension itself also promises ``tol`` within the limit. Off: measured and
rejected. The rate over the later half of the run counts the steep fall before a stall: on
australian (free signs, lam n = 10) ``auto``'s coordinate ascent reached a relative gap of 1.1e-5
at its budget (163k units), was promised 1e-6 within 36k more, reached 4.4e-6 in 82k, and was
extended again to its hard limit before the interior-point method ran. ``benchmarks/extension_rule.py``
(``results/extension_rule.csv``: the 60 cells where ``auto`` runs coordinate ascent first on the
seven LIBSVM sets, six seeds, one thread) timed ``auto`` with and without the check: australian
free at lam n = 10 took 0.90 of its time, but in 5 runs of other cells (sonar mixed and
breast-cancer nonnegative at lam n = 10, splice at lam n = 100) a second extension that would have
certified was refused and the interior-point method ran after it, at 1.6-2.5 times the time; over
the 60 cells the rule took 1.011 of the time in geometric mean (38.6 against 37.6 ms in all)."""
GIVE_UP_FROM_SHARE = 0.5
"""Under a work budget (``max_work``) a run gives up (``give_up_work``) only once it has done this
share of the budget. Before, the rate was judged from the second round on (3/16 of the budget, or
the first three passes on the small sets), where the first pass's fall of the gap still weighs
in, and runs that would have certified within the budget were handed to the interior-point
method. ``benchmarks/give_up_rule.py`` (``results/give_up_rule.csv``: the 62 cells where ``auto``
runs coordinate ascent first on the seven LIBSVM sets, seeds 0-5, one thread) measured both rules
side by side: the earlier one handed over svmguide1 mixed at lam n = 1 in 4 seeds of 6 and
ionosphere nonnegative at lam n = 100 in 3, this one in none; ``auto`` took 0.978 of the earlier
rule's time in geometric mean over the cells' seed-averaged times (29.9 against 30.4 ms in all),
from 0.55 (svmguide1 mixed, lam n = 1) to 1.49 (australian free, lam n = 10, where coordinate
ascent does not certify and the handover now comes later). Waiting longer costs at most the
budget itself, which ``auto``'s bound already counts."""


def extended_limit(rounds, tol, done, max_work, extra_work, since=None) -> float | None:
    """Where a run that has done ``done`` units of work, at least its ``max_work``, without
    certifying ``tol`` should stop next, or None to stop now.

    It goes on only when :func:`predicted_work` (the rate of the gap over the later half of the run)
    puts ``tol`` within ``max_work + extra_work`` in all: a run that is nearly there costs less to
    finish than the interior-point method that ``auto`` would start afresh, while a stalled or slow
    one (no prediction, or one beyond the limit) stops as before. The next limit is twice the
    predicted need past ``done`` (at least a sixteenth of ``max_work``, so that a round is worth its
    certificate), never beyond ``max_work + extra_work``.

    ``since``: (work, best relative gap) where the last extension began, if the run has been
    extended. Where EXTENSION_KEEPS_ITS_OWN_RATE is set (it is not: measured and rejected), the
    extension's own rate must then promise ``tol`` within the limit too.

    Examples
    --------
    >>> from svmcert.signsvm.shrinking_rounds import extended_limit
    >>> rounds = [(100.0, 1e-3), (200.0, 1e-5)]       # two decades over the last 100 units
    >>> extended_limit(rounds, 1e-6, 200.0, 200.0, 200.0)     # one more decade: 50 units, limit 300
    300.0
    >>> extended_limit(rounds, 1e-12, 200.0, 200.0, 200.0) is None   # 350 more units: beyond 400
    True
    >>> later = rounds + [(300.0, 5e-6)]        # the extension to 300 fell 0.3 decade, not the 1 promised
    >>> extended_limit(later, 1e-6, 300.0, 200.0, 200.0, since=(200.0, 1e-5))   # later half: 61 more
    400.0
    """
    if extra_work is None or not rounds:
        return None
    need = predicted_work(rounds, tol)
    if need > 0.0 and since is not None and EXTENSION_KEEPS_ITS_OWN_RATE:
        need = max(need, _extension_need(rounds, tol, done, since))
    hard = max_work + extra_work
    if not (need > 0.0 and done + need <= hard):
        return None
    return min(hard, done + max(2.0 * need, max_work / 16.0))


def _extension_need(rounds, tol, done, since) -> float:
    """Work to ``tol`` at the rate the best gap fell over the last extension (from ``since``, its
    start's work and best gap, to ``done``); infinite if it did not fall."""
    w0, g0 = since
    g = min(r[1] for r in rounds)
    if not (g < g0 and done > w0):
        return np.inf
    return float(np.log(g / tol) / (np.log(g0 / g) / (done - w0)))


def finish(cert, alpha, epochs, converged, max_epochs, tol, hist, deadline=None, reason=None) -> SolverResult:
    """The result of a run that ended at ``cert``; warns (ConvergenceWarning, naming ``reason`` or
    the limit reached) when it has not converged."""
    if not converged:
        if reason is None:
            reason = (f"time_limit={deadline.time_limit:g} s" if deadline is not None and deadline.limited
                      and epochs < max_epochs else f"max_epochs={max_epochs}")
        warnings.warn(f"dual_coordinate_ascent: stopped at {reason} with relative gap "
                      f"{cert.gap / max(cert.primal, np.finfo(float).tiny):.3g} > tol={tol:g}",
                      ConvergenceWarning, stacklevel=3)
    return SolverResult(w=cert.w, alpha=alpha, primal=cert.primal, dual=cert.dual, gap=cert.gap, n_iter=epochs,
                        converged=converged, history={} if hist is None else hist)


SHRINKING_EPS0 = 0.1
"""Largest first projected-gradient spread at which the shrinking loop certifies (liblinear's
default tolerance for this dual); each failed certificate divides it by SHRINKING_EPS_FACTOR."""
SHRINKING_EPS_PER_TOL = 1e3
"""The first spread is min(SHRINKING_EPS0, SHRINKING_EPS_PER_TOL * tol): a relative gap of 1e-6
took a spread of 1e-3 to 1e-5 on the eight data sets of the peer benchmarks, and every round costs
a full pass and a certificate. ``benchmarks/shrinking_eps.py`` times 1e5 (a start at
SHRINKING_EPS0), 1e4, 1e3 and 1e2 on the peers' 96 cells through ``auto`` and through coordinate
ascent alone; ``benchmarks/README.md`` records its runs: larger values were slower, and 1e2 no
faster than the run's noise."""
SHRINKING_EPS_FACTOR = 10.0
POLISH_AFTER_EPOCHS = 300
"""Active-set polishing is tried only once a run has taken this many passes: each of its
iterations costs a few O(nd) products and an O(|F|^2 |J|) solve, which pays off only where
coordinate ascent is slow (small lambda; on MNIST-5k lam n = 1 needs about 200 passes in all)."""
POLISH_FLOPS_PER_ENTRY = 20.0
"""Work budget of one polishing attempt, in floating-point operations of its dense linear algebra
(:func:`~.active_set.iteration_flops`) per unit of work the round before it did (nonzeros
visited, ``_dca_kernel.ROW_WORK`` per row besides: the passes over the shrunken set, not over all
of X). ``benchmarks/polish_cost.py`` measured one visit of a nonzero in a compiled pass at 4-110
ns and the dense products at 1.6-22 Gflop/s (one thread, shared machine): a visit buys 10 to 2500
flops. With 20, an attempt costs at most about twice the round's passes in time, usually far less.
Under a work budget (``max_work``) an attempt also gets no more than the budget has left.

The budget used to be counted as passes times X's nonzeros. Shrinking makes a round's passes far
cheaper than that: on the sparse Gaussian family of the floor benchmarks (n = 1e5, d = 1000, 1%
nonzeros, lam n = 10, free signs) a round of about 110 passes visited 4.5e6 units, and its
attempt (986 free samples) got 2.2e9 flops instead of 9e7. It spent them, failed, and was charged
2.2e8 units against a budget of 8.8e7, which ended ``auto``'s coordinate ascent (alone it needed
3.5e7) and handed the problem to the interior-point method. On the 120 cells of
``benchmarks/auto_plan.py`` (eight data sets, three sign patterns, lam n 0.1-1000) the change
moved no iteration count and no polishing attempt."""
POLISH_ATTEMPT_WORK = 1e6
"""What a polishing attempt costs in the work units of the passes (nonzeros visited), charged to
the work count after each attempt: its set updates and bounded least squares run in Python, about
1.5-6 ms an attempt on the small LIBSVM sets (one thread), and a unit of work costs about 6 ns. An
attempt is not made under a work budget (``max_work``) with less than this left."""
POLISH_FLOPS_PER_WORK = 10.0
"""The attempt's dense linear algebra, in flops per unit of work (one thread: 1-4 Gflop/s
against about 6 ns a unit of work), also charged."""
POLISH_FLOP_RATE = 1e9
"""Flops per second assumed when a time limit decides whether a polishing attempt still fits
(a conservative rate for one core; BLAS-3 products run faster)."""


def shrinking_loop(p: SignSVMProblem, opts, alpha, omega, state: DCAState):
    """Passes with shrinking (:func:`._dca_kernel.run_shrinking`) between certificates, and
    active-set polishing (:func:`.active_set.polish_active_set`) after each round; ``opts`` are the
    validated :class:`~.coordinate_ascent.DCAOptions`."""
    from ._dca_kernel import run_shrinking
    from ._prefetch import PREFETCH_DISTANCE
    from ._shuffle import shuffle_state

    Z, csr, layout, hist, deadline = state
    lam, lam_n, sign, tol, max_epochs = p.lam, p.lam_n, p.sign, opts.tol, opts.max_epochs
    upper, weights = p.upper, p.weights
    seed, record, polish = opts.seed, opts.record_history, opts.polish
    rng = shuffle_state(seed)                   # the passes' own stream of shuffles
    eps, epochs = min(SHRINKING_EPS0, SHRINKING_EPS_PER_TOL * tol), 0
    carry = np.array([np.inf, -np.inf, 0.0, -1.0])  # shrinking thresholds, work, the shrunken
    index = np.arange(p.n)                          # set's size (-1: afresh) and the set itself
    max_work = np.inf if opts.max_work is None else opts.max_work
    give_up_from = 0.0 if opts.max_work is None else GIVE_UP_FROM_SHARE * max_work
    limit = max_work                            # max_work, or beyond it into extra_work
    t_pass = None                               # seconds of the slowest pass so far
    cert = certificate(omega, alpha, Z, lam, sign, weights)
    hist["work"] = [0.0]
    if record:
        hist.add(cert, time.perf_counter())
    rounds = []                                 # (work, relative gap) after each round
    since = None                                # (work, best gap) where the last extension began
    while not cert.relative_gap_below(tol) and epochs < max_epochs:
        if carry[2] >= limit:                   # at max_work (or an extension's end): go on?
            further = extended_limit(rounds, tol, float(carry[2]), max_work, opts.extra_work, since)
            if further is None:
                break
            limit, since = further, (float(carry[2]), min(r[1] for r in rounds))
            hist["extended"] = hist.get("extended", 0) + 1
        # a round ends when the projected gradients meet eps, or after as many passes as all rounds
        # before it (at least POLISH_AFTER_EPOCHS), so that a slow run is certified and polished
        # at geometrically spaced points; under a work budget also once it has done as much work
        # as all rounds before it (at least a sixteenth of the budget: certificates at 1/16, 3/16,
        # 7/16 and 15/16 of it, the give-up rule judging from GIVE_UP_FROM_SHARE on)
        budget = min(max_epochs - epochs, max(POLISH_AFTER_EPOCHS, epochs))
        if deadline.limited:                   # as many passes as fit, one to measure the first
            budget = min(budget, 1 if t_pass is None else int(deadline.remaining() / t_pass))
            if budget < 1:
                break
        round_work = min(limit, 2.0 * carry[2] + max_work / 16.0)
        t0, work0 = time.perf_counter(), float(carry[2])
        passes, met = run_shrinking(*csr, *layout, alpha, omega, sign, lam_n, eps, budget, upper, carry, round_work,
                                    index, PREFETCH_DISTANCE, rng)
        t_pass = max(t_pass or 0.0, (time.perf_counter() - t0) / max(passes, 1))
        if passes >= budget:                # all its passes without meeting eps: the next round
            carry[3] = -1.0                 # starts afresh, every coordinate back in the passes
        epochs += passes
        omega = Z.T @ alpha / lam_n        # recomputed so that incremental rounding cannot drift
        cert = certificate(omega, alpha, Z, lam, sign, weights)
        hist["work"].append(float(carry[2]))
        if record:
            hist.add(cert, time.perf_counter())
        if cert.relative_gap_below(tol):
            continue
        rounds.append((float(carry[2]), cert.gap / max(cert.primal, np.finfo(float).tiny)))
        if (opts.give_up_work is not None and carry[2] >= give_up_from
                and predicted_work(rounds, tol) > opts.give_up_work):
            hist["gave_up"] = True
            break
        if met:
            eps /= SHRINKING_EPS_FACTOR
        if not (polish and epochs >= POLISH_AFTER_EPOCHS) or limit - carry[2] < POLISH_ATTEMPT_WORK:
            continue
        work_before, round_work_done = float(carry[2]), float(carry[2] - work0)
        max_flops = min(POLISH_FLOPS_PER_ENTRY * round_work_done, deadline.remaining() * POLISH_FLOP_RATE,
                        (limit - carry[2] - POLISH_ATTEMPT_WORK) * POLISH_FLOPS_PER_WORK)
        stats = {}
        polished = polish_active_set(Z, lam, sign, alpha, omega, tol, max_flops=max_flops, stats=stats,
                                     upper=weights)
        carry[2] += POLISH_ATTEMPT_WORK + stats.get("flops", 0.0) / POLISH_FLOPS_PER_WORK
        F = (alpha > 0.0) & (alpha < upper)
        hist["polish"].append(dict(epoch=epochs, work=work_before, round_work=round_work_done, free=int(F.sum()),
                                   coords=int(((sign == 0) | (sign * omega > 0.0)).sum()), budget=max_flops,
                                   **stats))
        if polished is not None:
            alpha, cert = polished
            carry[3] = -1.0                     # a new alpha: the next round starts afresh
            hist["work"].append(float(carry[2]))
            if record:
                hist.add(cert, time.perf_counter())
    converged = cert.relative_gap_below(tol)
    reason = None
    if not converged and (hist.get("gave_up") or carry[2] >= limit):
        reason = ("a predicted need of more than give_up_work" if hist.get("gave_up")
                  else f"max_work={max_work:g}" + (f" and extra_work={opts.extra_work:g}" if hist.get("extended") else ""))
    return finish(cert, alpha, epochs, converged, max_epochs, tol, hist if record else None, deadline, reason)
