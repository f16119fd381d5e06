"""Numba kernels for :func:`svmcert.signsvm.coordinate_ascent.dual_coordinate_ascent`.

The same exact coordinate step as :func:`~svmcert.signsvm.coordinate_ascent.coordinate_step`
(the pure-numpy reference, which the tests compare these kernels with), searched from t = 0
towards its root (:func:`_step_directed`) and compiled so that the loop over samples runs without
Python overhead: :func:`epoch` is one plain random pass, :func:`run_shrinking` passes with
liblinear's shrinking. Rows are given in CSR form (indptr, indices, values) with values already
divided by lam * n, plus the per-row layout of :func:`row_layout`; they come from a dense X
(:func:`scaled_csr`) or straight from a sparse CSR X (its indptr, indices and scaled data), so
the passes never touch a dense matrix. ``upper`` holds the dual box's upper bounds (s_i for
per-sample weights, ones for the paper's problem: alpha_i in [0, upper_i]). Where the rows a pass
visits exceed the caches' share, it prefetches each row a few places ahead of its random order
(:mod:`._prefetch`): the same steps, with less waiting for memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._dca_rows import dense_rows, row_layout, scaled_csr
from ._prefetch import PREFETCH_MIN_BYTES, prefetch, prefetch_row
from ._shuffle import seed_zero_state, shuffle_prefix

__all__ = ["epoch", "run_shrinking", "row_layout", "scaled_csr", "dense_rows", "ROW_WORK",
           "CONSTRAINED_ROW_WORK"]   # the row layout lives in ._dca_rows, re-exported here

ROW_WORK = 4
"""What visiting one row costs beyond its nonzeros, in nonzeros: measured on the compiled passes
when it was set, a row of svmguide1 (4 nonzeros) took about 28 ns and a nonzero of MNIST-5k's rows
about 3.5 ns, so a row's fixed cost was about that of 4 nonzeros. Since the row's slope is written
out in the passes, a free row of svmguide1 takes about 12 ns and a nonzero of MNIST-5k about
1.9 ns (a fixed cost of 2 to 3 nonzeros); the count is kept, because it is the unit in which
``signsvm.solve``'s budget and give-up rule were measured (``benchmarks/auto_plan.py``)."""
CONSTRAINED_ROW_WORK = 8
"""A row with sign-constrained entries costs CONSTRAINED_ROW_WORK more, plus one per constrained
entry: full passes at a fitted point (one thread) took 2.2x the time of the free pattern on
svmguide1 (4 nonzeros a row), 2.2x on australian (11), 1.9x on splice (60) and 1.25x on MNIST-5k
(151), which this count follows within a factor of about 2 (it overcounts MNIST-5k's rows). With
the free rows' slope written out, constrained rows cost 9x (svmguide1), 4.6x (australian), 3.3x
(splice) and 1.85x (MNIST-5k) the free pattern's pass; with the directed step's usual case
(:func:`_step_directed` up to its crossing search) written out too, a full pass at a fitted point
(all entries >= 0 / random signs) costs 1.5x / 1.5x the free pass on svmguide1 (18 ns a row,
117 before), 2.3x / 2.0x on australian, 1.0x / 2.5x on splice and 1.6x / 1.5x on MNIST-5k. The
count is kept as auto's unit, as ROW_WORK is."""


@njit(cache=True, nogil=True, inline="always")
def _scan(omega, sign, indices, values, start, end):
    """slope0 = sum_k v_k Pi_S(omega)_h over one row (so y_i <x_i, w> = lam n slope0), and
    A = sum v_k^2 over the coordinates active on both sides of t = 0 (free, or constrained with
    sign_h omega_h > 0); branch-free, so that a random sign pattern costs no mispredictions.
    Over the same coordinates B = sum v_k omega_k equals slope0."""
    slope0 = 0.0
    A = 0.0
    for k in range(start, end):
        h = indices[k]
        om, s, vk = omega[h], sign[h], values[k]
        act = 1.0 if (s == 0.0) | (s * om > 0.0) else 0.0
        slope0 += act * vk * om
        A += act * vk * vk
    return slope0, A


@njit(cache=True, nogil=True, inline="always")
def _direction(target, lo, hi, slope0):
    """(d, tmax): the sign of the derivative at t = 0 (that of target - slope0) and how far the
    step may go that way (hi, or -lo); tmax <= 0 means no step."""
    if slope0 == target:
        return 0.0, 0.0
    d = 1.0 if slope0 < target else -1.0
    return d, (hi if d > 0.0 else -lo)


@njit(cache=True, nogil=True)
def _step_directed(omega, sign, indices, values, cpos, cstart, cend, target, lo, hi, slope0, A, cross, which):
    """The exact coordinate step (the maximiser of D along alpha_i over [lo, hi]), searched from
    t = 0 towards the root only.

    The derivative at 0 has the sign of target - slope0; call its sign d and search
    tau = d t in [0, tmax] with tmax = hi (d = +1) or -lo (d = -1). In tau the derivative is
    d (target - sum_active u_k (omega_h + tau u_k)) with u = d v: linear between the tau > 0 where
    a constrained coordinate crosses zero (tau_k = -omega_h / u_k). ``cpos[cstart:cend]`` lists
    the row's constrained entries (positions in ``indices``/``values``). A, slope0 come from
    :func:`_scan`; a coordinate with omega_h = 0 is active after 0 iff it moves towards its sign
    (sign_h u_k > 0): the status taken from the crossing alone, as in
    :func:`svmcert.signsvm.coordinate_ascent.coordinate_step`. Usually no crossing lies before
    the root of the first piece (one multiplication test per constrained entry says so);
    otherwise the crossings in (0, tmax) are collected and visited in increasing tau while they
    lie before the root of the current piece. ``cross``, ``which``: workspaces.
    """
    d, tmax = _direction(target, lo, hi, slope0)
    if tmax <= 0.0:
        return 0.0
    tgt = d * target
    B = d * slope0                          # sum u_k omega_h over the active set; A is unchanged
    for c in range(cstart, cend):           # omega_h = 0: active after 0 iff moving towards its sign
        k = cpos[c]
        h = indices[k]
        if omega[h] == 0.0 and sign[h] * d * values[k] > 0.0:
            A += values[k] * values[k]
    r = min(max((tgt - B) / A, 0.0), tmax) if A > 0.0 else tmax
    ahead = False                           # any crossing tau in (0, r)?  -omega u in (0, r u^2)
    for c in range(cstart, cend):           # no early exit: the branch cost more than the products
        k = cpos[c]
        u = d * values[k]
        p = -omega[indices[k]] * u
        ahead |= (p > 0.0) & (p < r * u * u)
    if not ahead:
        return d * r
    return _search_crossings(omega, sign, indices, values, cpos, cstart, cend, tgt, d, tmax, B, A, cross, which)


@njit(cache=True, nogil=True)
def _search_crossings(omega, sign, indices, values, cpos, cstart, cend, tgt, d, tmax, B, A, cross, which):
    """The rest of :func:`_step_directed` when a crossing lies before the first piece's root: the
    crossings in (0, tmax) visited in increasing tau while they lie before the root of the current
    piece (tgt = d target; B, A of the first piece)."""
    nb = 0
    for c in range(cstart, cend):           # every crossing in (0, tmax)
        k = cpos[c]
        u = d * values[k]
        p = -omega[indices[k]] * u
        if (p > 0.0) & (p < tmax * u * u):
            cross[nb] = p / (u * u)
            which[nb] = k
            nb += 1
    left = 0.0
    while True:
        if A > 0.0:                         # root of the current piece, kept in [left, tmax]
            r = min(max((tgt - B) / A, left), tmax)
        else:
            r = tmax
        m = -1
        c_min = r
        for q in range(nb):
            if cross[q] < c_min:
                c_min = cross[q]
                m = q
        if m < 0:
            return d * r
        k = which[m]
        u = d * values[k]
        om = omega[indices[k]]
        if sign[indices[k]] * u > 0.0:      # enters: moves towards its sign
            A += u * u
            B += u * om
        else:                               # leaves
            A -= u * u
            B -= u * om
        left = c_min
        nb -= 1
        cross[m] = cross[nb]
        which[m] = which[nb]


@njit(cache=True, nogil=True, inline="always")
def _step_free(target, lo, hi, slope0, A):
    """:func:`_step_directed` for a row without constrained entries, in the same arithmetic (so
    the same step to the last bit): the root of one linear piece, clipped to the interval. A
    separate path because the compiled search loop, even when it has nothing to visit, made every
    free row several times slower than its dot products."""
    d, tmax = _direction(target, lo, hi, slope0)
    if tmax <= 0.0:
        return 0.0
    r = min(max((d * target - d * slope0) / A, 0.0), tmax) if A > 0.0 else tmax
    return d * r


@njit(cache=True, nogil=True, inline="always")
def _stepped_alpha(a, u, t):
    """alpha_i after the step t from a in [0, u], bounds kept exactly."""
    return 0.0 if t == -a else (u if t == u - a else min(max(a + t, 0.0), u))


@njit(cache=True, nogil=True)
def _workspace(cptr):
    width = 0
    for i in range(cptr.shape[0] - 1):
        width = max(width, cptr[i + 1] - cptr[i])
    return np.empty(width), np.empty(width, np.int64)


@njit(cache=True, nogil=True)
def epoch(order, indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, upper, lookahead=0):
    """One pass over ``order``: the exact step on each alpha_i in [0, upper_i], omega updated in
    place (:func:`_sweep` with nothing shrunk and every nonzero step taken; ``lookahead``: its
    prefetch distance, 0 for none, used only on rows beyond the caches' share)."""
    cross, which = _workspace(cptr)
    _sweep(order, order.shape[0], indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, upper,
           np.inf, -np.inf, -1.0, cross, which, lookahead)


@njit(cache=True, nogil=True)
def _sweep(index, active, indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, upper,
           pg_max_old, pg_min_old, min_pg, cross, which, lookahead):
    """One pass of exact steps over ``index[:active]``, the row body of :func:`epoch` and
    :func:`run_shrinking` (written once; the pass, not the row, is the call).

    A row at a bound whose gradient G_i points outwards beyond last pass's extreme projected
    gradient (G_i > ``pg_max_old`` at alpha_i = 0, G_i < ``pg_min_old`` at alpha_i = upper_i) is
    shrunk: swapped behind ``active``, which decreases; +-inf shrink nothing. The step is taken
    where |projected gradient| > ``min_pg`` (negative: always). Returns (active, pg_max, pg_min,
    work), work counted as in :func:`run_shrinking`. The row's slope and the directed step's usual case are written out:
    as a compiled helper, inlined or not, a constrained row of svmguide1 (4 nonzeros) took 117 ns
    against 18 ns here, a free one 77 against 10.

    ``lookahead`` > 0 prefetches the row that many places ahead in ``index`` and the per-row entries
    (indptr, cptr, alpha, upper, sq_norm) of the one twice as far (:mod:`._prefetch`), in a pass
    whose rows take at least PREFETCH_MIN_BYTES (a shrunken set may fit the caches, where the hint
    only costs); it changes when bytes arrive, never a value.
    """
    if active * 12.0 * indptr[-1] < PREFETCH_MIN_BYTES * max(alpha.shape[0], 1):   # 8 + 4 bytes a nonzero
        lookahead = 0
    target = 1.0 / lam_n
    pg_max, pg_min = -np.inf, np.inf
    work = 0
    s = 0
    while s < active:
        if lookahead > 0:
            _prefetch_ahead(index, s, active, lookahead, indptr, indices, values, cptr, cpos, sq_norm, alpha, upper)
        i = index[s]
        if indptr[i] == indptr[i + 1]:
            alpha[i] = upper[i]
            s += 1
            continue
        if upper[i] == 0.0:                 # pinned at both bounds: projected gradient 0, no step
            s += 1
            continue
        start, end = indptr[i], indptr[i + 1]
        if cptr[i] == cptr[i + 1]:          # no constrained entry: a dot product, A = ||v||^2
            slope0 = 0.0
            for k in range(start, end):
                slope0 += values[k] * omega[indices[k]]
            A = sq_norm[i]
        else:
            slope0, A = _scan(omega, sign, indices, values, start, end)
        work += end - start + ROW_WORK
        if cptr[i + 1] > cptr[i]:
            work += CONSTRAINED_ROW_WORK + cptr[i + 1] - cptr[i]
        G = lam_n * slope0 - 1.0
        a = alpha[i]
        pg = 0.0
        if a == 0.0:
            if G > pg_max_old:
                active -= 1
                index[s], index[active] = index[active], index[s]
                continue
            if G < 0.0:
                pg = G
        elif a == upper[i]:
            if G < pg_min_old:
                active -= 1
                index[s], index[active] = index[active], index[s]
                continue
            if G > 0.0:
                pg = G
        else:
            pg = G
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        if abs(pg) > min_pg:
            if cptr[i] == cptr[i + 1]:
                t = _step_free(target, -a, upper[i] - a, slope0, A)
            else:                           # _step_directed up to its crossing search
                t = 0.0
                d, tmax = _direction(target, -a, upper[i] - a, slope0)
                if tmax > 0.0:
                    tgt = d * target
                    B = d * slope0
                    for c in range(cptr[i], cptr[i + 1]):
                        k = cpos[c]
                        h = indices[k]
                        if omega[h] == 0.0 and sign[h] * d * values[k] > 0.0:
                            A += values[k] * values[k]
                    r = min(max((tgt - B) / A, 0.0), tmax) if A > 0.0 else tmax
                    ahead = False
                    for c in range(cptr[i], cptr[i + 1]):
                        k = cpos[c]
                        uk = d * values[k]
                        p = -omega[indices[k]] * uk
                        ahead |= (p > 0.0) & (p < r * uk * uk)
                    t = d * r if not ahead else _search_crossings(omega, sign, indices, values, cpos, cptr[i],
                                                                  cptr[i + 1], tgt, d, tmax, B, A, cross, which)
            if t != 0.0:
                alpha[i] = _stepped_alpha(a, upper[i], t)
                for k in range(start, end):
                    omega[indices[k]] += t * values[k]
        s += 1
    return active, pg_max, pg_min, work


@njit(cache=True, nogil=True)
def run_shrinking(indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, eps, max_passes, upper,
                  carry, max_work=np.inf, index=None, lookahead=0, rng=None):
    """Exact coordinate steps with liblinear's shrinking (Hsieh et al., 2008, Sec. 3.2; Fan et al.,
    2008, App. D), until the projected-gradient spread max PG - min PG over a full pass is <= eps.

    G_i = y_i <x_i, Pi_S(omega)> - 1 is -n times the derivative of the dual along alpha_i (D is
    differentiable, with gradient (1 - Z Pi_S(omega)) / n, also under sign constraints). A
    coordinate at a bound whose gradient points outwards by more than last pass's extreme
    projected gradient is dropped from the passes; when the shrunken problem meets eps, all
    coordinates are put back and checked once more. Returns (passes, met): met says the full
    problem met eps. Shrinking is a heuristic only: the caller certifies by the duality gap.
    ``cptr``, ``cpos``, ``sq_norm``: from :func:`row_layout`; ``upper``: the box's upper bounds (a
    sample whose bound is 0 never moves: it sits at both bounds, and counts as at the lower one).

    ``carry`` (3 or 4 floats, read and written) is what one call hands the next: the extreme projected
    gradients of the last pass (the shrinking thresholds; +-inf for none: no shrinking in the
    first pass) and the work done so far, counted as the nonzeros of the rows visited plus
    ROW_WORK per row (and CONSTRAINED_ROW_WORK plus one per constrained entry for a row with
    constrained entries; the unit of ``svmcert.signsvm.solve``'s budget for coordinate ascent:
    deterministic, unlike seconds). The call also returns after the first pass that brings that
    count to ``max_work``.

    ``index`` (optional, a permutation of 0..n-1, read and written) with ``carry[3]`` (read and
    written) hand the shrunken set itself to the next call: a call cut short by ``max_passes`` or
    ``max_work`` sets ``carry[3]`` to the number of coordinates still in the passes, the first
    entries of ``index``, and the next call goes on from them exactly as one uncut call would
    (same passes, same alpha bit for bit). A call that meets eps sets ``carry[3] = -1``, and a
    call that finds ``carry[3] < 0`` starts afresh, from all n in index order, as every call
    without ``index`` does.

    ``lookahead``: the passes' prefetch distance (:func:`_sweep`; 0 for none). It changes no value.
    ``rng``: the state of the passes' shuffles (:func:`._shuffle.shuffle_state`, read and written, so
    that consecutive calls continue one stream; None: a fresh state of seed 0).
    """
    n = alpha.shape[0]
    state = seed_zero_state() if rng is None else rng
    if index is None:
        index = np.arange(n)
        active = n
    elif carry[3] < 0.0:
        for i in range(n):
            index[i] = i
        active = n
    else:
        active = int(carry[3])
    cross, which = _workspace(cptr)
    pg_max_old, pg_min_old = carry[0], carry[1]
    passes = 0
    work = 0
    pg_max, pg_min = -np.inf, np.inf
    while passes < max_passes:
        shuffle_prefix(index, active, state)
        active, pg_max, pg_min, w = _sweep(index, active, indptr, indices, values, cptr, cpos, sq_norm, alpha, omega,
                                           sign, lam_n, upper, pg_max_old, pg_min_old, 1e-12, cross, which, lookahead)
        work += w
        passes += 1
        if pg_max - pg_min <= eps and active == n:
            _carry(carry, pg_max, pg_min, work, -1)
            return passes, True
        if pg_max - pg_min <= eps:
            active = n
            pg_max_old, pg_min_old = np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        if carry[2] + work >= max_work:
            break
    _carry(carry, pg_max, pg_min, work, active)
    return passes, False


@njit(cache=True, nogil=True, inline="always")
def _prefetch_ahead(index, s, active, ahead, indptr, indices, values, cptr, cpos, sq_norm, alpha, upper):
    """The prefetches of :func:`_sweep` at position s: row index[s + ahead] (its values, column
    indices and constrained positions), and the per-row entries of index[s + 2 ahead], which the
    next of these calls reads to find that row."""
    if s + 2 * ahead < active:
        j = index[s + 2 * ahead]
        prefetch(indptr, j)
        prefetch(cptr, j)
        prefetch(alpha, j)
        prefetch(upper, j)
        prefetch(sq_norm, j)
    if s + ahead < active:
        j = index[s + ahead]
        prefetch_row(indptr, indices, values, j)
        for c in range(cptr[j], cptr[j + 1], 8):
            prefetch(cpos, c)


@njit(cache=True, nogil=True)
def _carry(carry, pg_max, pg_min, work, active):
    carry[0] = pg_max if pg_max > 0.0 else np.inf
    carry[1] = pg_min if pg_min < 0.0 else -np.inf
    carry[2] += work
    if carry.shape[0] > 3:
        carry[3] = active
