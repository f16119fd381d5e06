"""Dual coordinate ascent with exact coordinate steps for the sign-constrained SVM.

Not in the paper: it maximises the same dual (eq. 9) one alpha_i at a time. Along coordinate i,
omega moves on the line omega + t v with v = y_i x_i / (lam n), and

    d/dt D(alpha + t e_i) = (1 - y_i <x_i, Pi_S(omega + t v)>) / n

is continuous, piecewise linear and decreasing in t (the same structure as Lemma 1, in one
dimension of alpha). Its breakpoints are where a constrained coordinate of omega + t v crosses zero.
:func:`coordinate_step` finds the root exactly: sort the breakpoints inside the feasible
interval t in [-alpha_i, 1 - alpha_i], evaluate the derivative at each by cumulative sums, and
solve the linear piece where it changes sign; only the nonzero entries of x_i take part.
With no sign constraints this is the classical closed-form step of dual coordinate descent
(Hsieh et al., 2008). The duality gap P(w(alpha)) - D(alpha) certifies the result (eq. 10).

With per-sample weights s_i (``svmcert.signsvm.problem``) the interval is [-alpha_i, s_i - alpha_i] and
nothing else changes; X may be a sparse CSR matrix, whose rows the passes read directly.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from typing import NamedTuple

from .._validation import check_iterations, check_positive, check_vector
from .active_set import polish_active_set
from ._signed_rows import CSR_PRODUCTS_MAX_DENSITY, CSRSignedRows, SignedRows
from .problem import SignSVMProblem, check_time_limit, make_problem
from .._budget import Deadline
from ..exceptions import ConvergenceWarning
from .result import History, SolverResult, certificate

__all__ = ["run_coordinate_ascent", "coordinate_step", "dual_coordinate_ascent", "DCAOptions", "dca_options"]


class DCAOptions(NamedTuple):
    """The validated options of :func:`dual_coordinate_ascent` (see its parameters)."""

    tol: float = 1e-6
    max_epochs: int = 10000
    seed: int = 0
    record_history: bool = True
    engine: str = "numba"
    shrinking: bool = True
    polish: bool = True
    time_limit: float | None = None
    max_work: float | None = None
    give_up_work: float | None = None


def dca_options(tol=1e-6, max_epochs=10000, seed=0, record_history=True, engine="numba", shrinking=True,
                polish=True, time_limit=None, max_work=None, give_up_work=None) -> DCAOptions:
    """Check the options of :func:`dual_coordinate_ascent` once; a ValueError names the bad one.

    ``max_work`` and ``give_up_work`` (the budget ``svmcert.signsvm.solve``'s ``auto`` gives
    coordinate ascent, in the work units of :func:`._dca_kernel.run_shrinking`: nonzeros visited
    plus ROW_WORK per row; shrinking runs only): stop once the work done reaches ``max_work``, or
    at a certificate from which the gap's rate over the last round predicts more than
    ``give_up_work`` further work to reach ``tol``."""
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    for name, flag in (("shrinking", shrinking), ("polish", polish)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name}: expected True or False, got {flag!r}")
    work = [None if v is None else check_positive(v, name) for name, v in (("max_work", max_work),
                                                                          ("give_up_work", give_up_work))]
    return DCAOptions(check_positive(tol, "tol"), check_iterations(max_epochs, "max_epochs"), seed,
                      bool(record_history), engine, bool(shrinking), bool(polish), check_time_limit(time_limit),
                      *work)


def coordinate_step(omega_s, v, sign_s, lam_n, lo, hi) -> float:
    """Exact maximiser t in [lo, hi] of D along one coordinate.

    Parameters
    ----------
    omega_s, v, sign_s : arrays over the support of x_i: current omega, direction
        y_i x_i / (lam n), and sign constraints.
    lam_n : lam * n.
    lo, hi : the feasible step interval [-alpha_i, 1 - alpha_i].

    Returns
    -------
    t : float, the step (alpha_i += t).
    """
    if lo >= hi:
        return 0.0
    constrained = sign_s != 0
    s_v = sign_s * v
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = -omega_s / v
    moving = constrained & (v != 0)
    inside = moving & (cross > lo) & (cross < hi)
    # Status on the interval just after lo, decided from the crossing alone (never from the
    # rounded sign of omega + lo v): a moving coordinate is active after its crossing iff it moves
    # towards its sign; free coordinates are always active; resting ones keep their sign test.
    active = np.where(moving, np.where(cross <= lo, s_v > 0, s_v < 0), ~constrained | (sign_s * omega_s > 0))
    A = float(v[active] @ v[active])          # sum of v_h^2 over the active set
    B = float(v[active] @ omega_s[active])    # sum of v_h omega_h over the active set
    target = 1.0 / lam_n                      # the derivative is 0 where B + t A = 1/(lam n)
    if B + lo * A >= target:                  # derivative <= 0 already at lo
        return float(lo)
    left = lo
    if inside.any():
        idx = np.flatnonzero(inside)
        order = idx[np.argsort(cross[idx], kind="stable")]
        t_k = cross[order]
        sgn = np.where(s_v[order] > 0, 1.0, -1.0)  # enters if it moves towards its sign
        dA = sgn * v[order] ** 2
        dB = sgn * v[order] * omega_s[order]
        A_before = A + np.concatenate(([0.0], np.cumsum(dA)[:-1]))
        B_before = B + np.concatenate(([0.0], np.cumsum(dB)[:-1]))
        below = B_before + t_k * A_before > target    # derivative < 0 at breakpoint k
        if below.any():
            k = int(np.argmax(below))
            left = lo if k == 0 else t_k[k - 1]
            return _root(A_before[k], B_before[k], target, left, t_k[k])
        A, B = A + dA.sum(), B + dB.sum()
        left = t_k[-1]
    if B + hi * A <= target:                  # derivative >= 0 up to hi
        return float(hi)
    return _root(A, B, target, left, hi)


def _root(A, B, target, left, right) -> float:
    """Zero of the linear derivative piece B + t A = target, kept inside [left, right]."""
    if A <= 0:
        return float(left)
    return float(min(max((target - B) / A, left), right))


def dual_coordinate_ascent(X, y, lam, sign=None, tol: float = 1e-6, max_epochs: int = 10000, seed: int = 0,
                           alpha0=None, record_history: bool = True, engine: str = "numba",
                           shrinking: bool = True, polish: bool = True,
                           time_limit: float | None = None, *, sample_weight=None) -> SolverResult:
    """Maximise the dual (eq. 9) by exact coordinate steps until the relative duality gap
    (P(w) - D(alpha)) / P(w) <= tol.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.
    tol : float
        Relative duality gap at which to stop.
    max_epochs : int
        Limit on the passes; reaching it emits :class:`ConvergenceWarning` and sets
        ``converged=False``.
    seed : int
        Seeds the order of coordinates.
    engine : {"numba", "numpy"}
        ``"numba"``: compiled passes (``svmcert.signsvm._dca_kernel``); ``"numpy"``:
        ``coordinate_step`` in a Python loop, the tested reference, much slower, plain passes only.
    shrinking : bool
        With the numba engine, drop samples that sit at a bound with the gradient pointing
        outwards from the passes (liblinear's heuristic, ``_dca_kernel.run_shrinking``).
        The run then goes in rounds: a round ends when the projected gradients over all samples
        spread by at most eps (eps = min(0.1, 1000 tol), then divided by 10 each time it is met) or after as many
        passes as all rounds before it (at least POLISH_AFTER_EPOCHS), and is followed by a
        certificate. Epochs count passes over the remaining samples. ``False`` (or
        ``engine="numpy"``) runs full random passes with a certificate after each, the same
        trajectory in both engines up to rounding.
    polish : bool
        With shrinking, after each round whose certificate is still above ``tol`` (once the
        run has taken POLISH_AFTER_EPOCHS passes), try active-set iterations
        (``svmcert.signsvm.active_set.polish_active_set``: the linear system of the margin conditions on the
        sets the round identified) and return their point if its certificate is below ``tol``;
        otherwise coordinate ascent goes on from where it was. Each attempt has a work budget of
        POLISH_FLOPS_PER_ENTRY floating-point operations per nonzero of X and pass of the round
        just done, so polishing at most about doubles the work of the passes; an attempt whose
        linear algebra would cost more (many samples on the margin) is not made.
    time_limit : float, optional
        Seconds. The run stops before a group of passes or a polishing attempt
        that would end after it (their time is estimated from the passes already made), warns and
        returns its last certified point with ``converged=False``.
    sample_weight : (n,) weights s_i >= 0, optional: the weighted problem of ``svmcert.signsvm.problem``
        (alpha_i in [0, s_i]; a zero weight removes the sample).

    Notes
    -----
    Whatever the engine, the result is certified by the duality gap of the full problem (eq. 10);
    shrinking and polishing only change where the solver looks. ``history`` also holds
    ``polish``: one dict per polishing attempt (epoch, ``|F|``, ``|J|``, iterations, estimated flops,
    outcome).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import dual_coordinate_ascent
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(300))
    >>> res = dual_coordinate_ascent(X, y, lam=0.1, sign=[1, 0, 0, -1])
    >>> bool(res.converged and res.gap <= 1e-6 * res.primal)
    True
    """
    p = make_problem(X, y, lam, sign, sample_weight=sample_weight)
    opts = dca_options(tol, max_epochs, seed, record_history, engine, shrinking, polish, time_limit)
    alpha0 = None if alpha0 is None else check_vector(alpha0, "alpha0", p.n)
    return run_coordinate_ascent(p, opts, alpha0)


class _State(NamedTuple):
    """What a run carries from pass to pass besides alpha and omega."""

    Z: SignedRows
    csr: tuple
    layout: tuple | None
    hist: History
    deadline: Deadline


def run_coordinate_ascent(p: SignSVMProblem, opts: DCAOptions, alpha0=None) -> SolverResult:
    """:func:`dual_coordinate_ascent` on a validated problem and options (``alpha0`` a float vector
    of length n or None; clipped to the box)."""
    n, lam_n, sign, tol, max_epochs = p.n, p.lam_n, p.sign, opts.tol, opts.max_epochs
    upper, weights = p.upper, p.weights
    start = time.perf_counter()
    hist = History(start)
    hist["polish"] = []
    deadline = Deadline(opts.time_limit, start)
    record_history, engine = opts.record_history, opts.engine
    layout = None
    if p.sparse:
        indptr, indices, values = _csr_sparse(p.X, p.y / lam_n)
    elif engine == "numpy":
        indptr, indices, values = _csr_numpy(p.X, p.y / lam_n)
    if engine == "numba":
        from ._dca_kernel import epoch as compiled_epoch, row_layout, scaled_csr

        if not p.sparse:
            indptr, indices, values = scaled_csr(np.ascontiguousarray(p.X), p.y / lam_n)   # rows of Z / (lam n)
        layout = row_layout(indptr, indices, values, sign)
    Z = _rows(p, None if engine == "numpy" else (indptr, indices, values))
    alpha = np.zeros(n) if alpha0 is None else np.clip(alpha0, 0.0, upper)
    omega = np.zeros(p.d) if alpha0 is None else Z.T @ alpha / lam_n
    if engine == "numba":
        if opts.shrinking:
            return _shrinking_loop(p, opts, alpha, omega, _State(Z, (indptr, indices, values), layout, hist, deadline))
    rng = np.random.default_rng(opts.seed)
    converged, epoch, t_epoch = False, 0, 0.0
    while True:
        cert = certificate(omega, alpha, Z, p.lam, sign, weights)
        if record_history:
            hist.add(cert, time.perf_counter())
        if cert.relative_gap_below(tol):
            converged = True
            break
        if epoch >= max_epochs or not deadline.allows(t_epoch):
            break
        t0 = time.perf_counter()
        order = rng.permutation(n)
        if engine == "numba":
            cptr, cpos, sq_norm = layout
            compiled_epoch(order, indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, upper)
        for i in order if engine == "numpy" else ():
            s, v = indices[indptr[i]:indptr[i + 1]], values[indptr[i]:indptr[i + 1]]
            if s.size == 0:
                alpha[i] = upper[i]  # x_i = 0: D grows with alpha_i at rate 1/n
                continue
            om = omega[s]
            t = coordinate_step(om, v, sign[s], lam_n, -alpha[i], upper[i] - alpha[i])
            if t != 0.0:
                alpha[i] = min(max(alpha[i] + t, 0.0), upper[i])
                omega[s] = om + t * v
        epoch += 1
        if epoch % 20 == 0:  # recompute omega from alpha so incremental rounding cannot drift
            omega = Z.T @ alpha / lam_n
        t_epoch = max(t_epoch, time.perf_counter() - t0)
    return _result(cert, alpha, epoch, converged, max_epochs, tol, hist if record_history else None, deadline)


def _rows(p: SignSVMProblem, csr) -> SignedRows:
    """Z for the certificates and the polishing: its products from the passes' CSR ``csr`` when X
    is dense with at most CSR_PRODUCTS_MAX_DENSITY nonzeros (``_signed_rows.CSRSignedRows``), from X
    itself otherwise."""
    if csr is not None and not p.sparse and csr[0][-1] <= CSR_PRODUCTS_MAX_DENSITY * p.n * p.d:
        return CSRSignedRows(p.X, p.y, csr, p.lam_n)
    return SignedRows(p.X, p.y)


def _csr_sparse(X, scale):
    """(indptr, indices, values) of diag(scale) X for a canonical CSR X, read from its own arrays
    (indices as int64, the compiled passes' type); X is not densified."""
    indptr = np.asarray(X.indptr, dtype=np.int64)
    return indptr, np.asarray(X.indices, dtype=np.int64), X.data * np.repeat(scale, np.diff(indptr))


def _csr_numpy(X, scale):
    """CSR form (indptr, indices, values) of diag(scale) X, nonzeros only (the reference path's
    numpy twin of :func:`._dca_kernel.scaled_csr`)."""
    rows, cols = np.nonzero(X)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=X.shape[0]))))
    return indptr, cols, X[rows, cols] * scale[rows]


def _predicted_work(rounds, tol) -> float:
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


def _result(cert, alpha, epochs, converged, max_epochs, tol, hist, deadline=None, reason=None) -> SolverResult:
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
a full pass and a certificate. Over 64 cells (free and nonnegative signs, lam n from 1 to 1000,
tol 1e-6) starting at 1e-3 took 0.84 of the time of starting at 0.1 in geometric mean (0.91 from
1e-2), though up to 2.1x longer on single cells (splice at lam n = 10)."""
SHRINKING_EPS_FACTOR = 10.0
POLISH_AFTER_EPOCHS = 300
"""Active-set polishing is tried only once a run has taken this many passes: each of its
iterations costs a few O(nd) products and an O(|F|^2 |J|) solve, which pays off only where
coordinate ascent is slow (small lambda; on MNIST-5k lam n = 1 needs about 200 passes in all)."""
POLISH_FLOPS_PER_ENTRY = 20.0
"""Work budget of one polishing attempt, in floating-point operations of its dense linear algebra
(:func:`~.active_set.iteration_flops`) per nonzero of X and pass of the round before it.
``benchmarks/polish_cost.py`` measured one visit of a nonzero in a compiled pass at 4-110 ns and
the dense products at 1.6-22 Gflop/s (one thread, shared machine): a visit buys 10 to 2500 flops.
With 20, an attempt costs at most about twice the round's passes in time, usually far less."""
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


def _shrinking_loop(p: SignSVMProblem, opts: DCAOptions, alpha, omega, state: _State):
    """Passes with shrinking (:func:`._dca_kernel.run_shrinking`) between certificates, and
    active-set polishing (:func:`.active_set.polish_active_set`) after each round."""
    from ._dca_kernel import run_shrinking, seed as seed_kernel

    Z, csr, layout, hist, deadline = state
    lam, lam_n, sign, tol, max_epochs = p.lam, p.lam_n, p.sign, opts.tol, opts.max_epochs
    upper, weights = p.upper, p.weights
    seed, record, polish = opts.seed, opts.record_history, opts.polish
    nnz = max(int(csr[0][-1]), 1)
    seed_kernel(int(seed) % 2**32)
    eps, epochs = min(SHRINKING_EPS0, SHRINKING_EPS_PER_TOL * tol), 0
    carry = np.array([np.inf, -np.inf, 0.0])    # shrinking thresholds and work, from round to round
    max_work = np.inf if opts.max_work is None else opts.max_work
    t_pass = None                               # seconds of the slowest pass so far
    cert = certificate(omega, alpha, Z, lam, sign, weights)
    hist["work"] = [0.0]
    if record:
        hist.add(cert, time.perf_counter())
    rounds = []                                 # (work, relative gap) after each round
    while not cert.relative_gap_below(tol) and epochs < max_epochs and carry[2] < max_work:
        # a round ends when the projected gradients meet eps, or after as many passes as all rounds
        # before it (at least POLISH_AFTER_EPOCHS), so that a slow run is certified and polished
        # at geometrically spaced points; under a work budget also once it has done as much work
        # as all rounds before it (at least a sixteenth of the budget: the give-up rule can judge
        # the rate from the second round on, after 3/16 of the budget)
        budget = min(max_epochs - epochs, max(POLISH_AFTER_EPOCHS, epochs))
        if deadline.limited:                   # as many passes as fit, one to measure the first
            budget = min(budget, 1 if t_pass is None else int(deadline.remaining() / t_pass))
            if budget < 1:
                break
        round_work = min(max_work, 2.0 * carry[2] + max_work / 16.0)
        t0 = time.perf_counter()
        passes, met = run_shrinking(*csr, *layout, alpha, omega, sign, lam_n, eps, budget, upper, carry, round_work)
        t_pass = max(t_pass or 0.0, (time.perf_counter() - t0) / max(passes, 1))
        epochs += passes
        omega = Z.T @ alpha / lam_n        # recomputed so that incremental rounding cannot drift
        cert = certificate(omega, alpha, Z, lam, sign, weights)
        hist["work"].append(float(carry[2]))
        if record:
            hist.add(cert, time.perf_counter())
        if cert.relative_gap_below(tol):
            continue
        rounds.append((float(carry[2]), cert.gap / max(cert.primal, np.finfo(float).tiny)))
        if opts.give_up_work is not None and _predicted_work(rounds, tol) > opts.give_up_work:
            hist["gave_up"] = True
            break
        if met:
            eps /= SHRINKING_EPS_FACTOR
        if not (polish and epochs >= POLISH_AFTER_EPOCHS) or max_work - carry[2] < POLISH_ATTEMPT_WORK:
            continue
        max_flops = min(POLISH_FLOPS_PER_ENTRY * passes * nnz, deadline.remaining() * POLISH_FLOP_RATE)
        stats = {}
        polished = polish_active_set(Z, lam, sign, alpha, omega, tol, max_flops=max_flops, stats=stats,
                                     upper=weights)
        carry[2] += POLISH_ATTEMPT_WORK + stats.get("flops", 0.0) / POLISH_FLOPS_PER_WORK
        F = (alpha > 0.0) & (alpha < upper)
        hist["polish"].append(dict(epoch=epochs, free=int(F.sum()),
                                   coords=int(((sign == 0) | (sign * omega > 0.0)).sum()), budget=max_flops,
                                   **stats))
        if polished is not None:
            alpha, cert = polished
            hist["work"].append(float(carry[2]))
            if record:
                hist.add(cert, time.perf_counter())
    converged = cert.relative_gap_below(tol)
    reason = None
    if not converged and (hist.get("gave_up") or carry[2] >= max_work):
        reason = ("a predicted need of more than give_up_work" if hist.get("gave_up")
                  else f"max_work={max_work:g}")
    return _result(cert, alpha, epochs, converged, max_epochs, tol, hist if record else None, deadline, reason)
