"""The specialised active-set method for QP1: move along a margin-setter's DRD (Aksu, Sec. 6.2).

The working set always holds one constraint of every sample (Lemma 4) and both constraints of
one or two *doubly-active* samples (Lemma 3), so it has ``N + 1`` or ``N + 2`` rows (Theorem 1):

- ``N + 1`` rows, margin-setter ``s``: the null space of ``A^W`` is spanned by the direction of
  remaining doubly-active ``z = (1, -g_s, zeta)`` with ``zeta_n = -y_n (g_n - g_s)`` for samples
  whose margin row is in ``W`` (their slack follows the margin) and 0 otherwise. Along ``z`` the
  margin of ``s`` stays 1 and ``z^T G z = W > 0``, so the subproblem (17) has the unique solution
  ``p = t* z`` with ``t* = -(W a + C sum zeta) / W``. A blocking constraint can only be the slack
  of a margin violator reaching 0 or the margin of a sample with zero slack reaching 1; either
  way that sample becomes doubly active and the working set grows to ``N + 2``.
- ``N + 2`` rows, doubly-active ``s, r``: ``A^W`` is square and non-singular (``g_s != g_r``), so
  ``p = 0``. The multipliers are ``C`` on the single rows and, for the two doubly-active samples,
  the solution of ``W a = sum_n lam_n y_n g_n``, ``0 = sum_n lam_n y_n`` with the ``xi``-row
  multiplier ``C - lam_n``. The most negative one leaves (as in Algorithm 16.1), which returns to
  ``N + 1`` rows with the other sample as margin-setter.
- ``N + 1`` rows with ``t* = 0``: the multipliers of the margin-setter are
  ``lam = -y_s C sum_{violators} y_n`` and ``C - lam``. If one is negative, Algorithm 16.1 would
  drop it and face ``N`` rows, a two-dimensional null space and a singular ``Z^T G Z`` (R2 fails;
  the subproblem is unbounded along ``b``). The specialised method instead *pivots*: it drops
  that row and, in the same iteration, moves the bias (the only descent direction, of zero
  curvature) to the first kink, whose sample becomes the new margin-setter. The working set
  never has fewer than ``N + 1`` rows.

Only a margin-setter can carry a negative multiplier, because every other row's multiplier is
``C`` (from the stationarity in ``xi_n``).
"""

from __future__ import annotations

import numpy as np

from .qp1_problem import QP1Iteration, finish_result, initial_margin_setter, initial_working_set

__all__ = ["drd_active_set", "drd_direction"]


def drd_direction(s: int, W1, g, y) -> np.ndarray:
    """The DRD of margin-setter ``s``: ``z = (1, -g_s, zeta)`` (notes, [ours]).

    ``zeta_n = -y_n (g_n - g_s)`` for ``n`` in ``W1`` (``zeta_s = 0``), 0 elsewhere. It spans the
    null space of ``A^W`` when ``W`` holds both rows of ``s`` and one row of every other sample.
    """
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    W1 = np.asarray(W1, dtype=bool)
    zeta = np.where(W1, -y * (g - g[s]), 0.0)
    return np.concatenate([[1.0, -g[s]], zeta])


def _first_block(only1, only2, xi, m, rate):
    """Ratio test along a move whose margins change at ``rate`` per unit step.

    A violator (margin row only) blocks when its slack ``xi = 1 - m`` reaches 0 (``rate > 0``); a
    zero-slack sample (slack row only) blocks when its margin falls to 1 (``rate < 0``). Returns the
    first blocking sample and the step to it (``inf`` if none; ties go to the lowest index).
    """
    tn = np.full(m.shape[0], np.inf)
    c1 = only1 & (rate > 0)
    tn[c1] = xi[c1] / rate[c1]
    c2 = only2 & (rate < 0)
    tn[c2] = (m[c2] - 1.0) / (-rate[c2])
    np.maximum(tn, 0.0, out=tn)
    r = int(np.argmin(tn))
    return r, float(tn[r])


def _add_missing_row(r, only1, in1, in2) -> int:
    """Make ``r`` doubly active by adding the row it lacks; returns that row's absolute index."""
    N = in1.shape[0]
    if only1[r]:
        in2[r] = True
        return N + r
    in1[r] = True
    return r


def _drd_compiled(g, y, C, W, a, b, in1, in2, s0, tol, max_iter):
    from ._drd_kernel import drd_kernel

    g = np.ascontiguousarray(g, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    a, b, D0, D1, lam0, lam1, k, converged, _ = drd_kernel(g, y, float(C), float(W), float(a), float(b),
                                                           in1, in2, int(s0), float(tol), int(max_iter))
    only1 = in1 & ~in2
    alpha = np.where(only1, C, 0.0)
    if converged:
        alpha[D0] = lam0
        if D1 >= 0:
            alpha[D1] = lam1
    elif D1 < 0 and only1.any():
        alpha[D0] = min(max(-y[D0] * C * float(y[only1].sum()), 0.0), C)
    return finish_result("active-set", a, b, g, y, C, W, alpha, [], bool(converged), in1.copy(), in2.copy(), max_iter,
                   n_iterations=int(k))


def _sets(in1, in2, record):
    if not record:
        return (), ()
    return tuple(np.flatnonzero(in1).tolist()), tuple(np.flatnonzero(in2).tolist())


def drd_active_set(g, y, C, wnorm2, *, a0=1.0, b0=None, tol=1e-12, max_iter=1000, record=True, compiled=False):
    """Solve QP1 by the specialised active-set method (inputs validated by :func:`solve_qp1`).

    Starts at ``a = a0`` with the best bias for it (:func:`best_bias`), whose kink sample is the
    first margin-setter; samples with margin below 1 start with their margin row in ``W``, the
    others with their slack row.
    """
    N = g.shape[0]
    W = wnorm2
    a = float(a0)
    b, s0 = initial_margin_setter(a, g, y, b0)
    in1, in2 = initial_working_set(a, b, s0, g, y)
    if compiled:
        return _drd_compiled(g, y, C, W, a, b, in1, in2, s0, tol, max_iter)
    D = [s0]
    tol_lam = tol * C * max(N, 1)
    iters: list[QP1Iteration] = []
    alpha = None
    converged = False
    for k in range(max_iter):
        m = y * (a * g + b)
        only1 = in1 & ~in2
        only2 = in2 & ~in1
        xi = np.where(only1, 1.0 - m, 0.0)
        obj = 0.5 * W * a * a + C * float(xi.sum())
        W1t, W2t = _sets(in1, in2, record)
        if len(D) == 1:
            s = D[0]
            dg = g - g[s]
            ydg = y * dg
            slope = W * a - C * float(ydg[only1].sum())
            scale = W * abs(a) + C * float(np.abs(dg[only1]).sum()) + 1e-300
            if abs(slope) <= tol * scale:
                lam1 = -y[s] * C * float(y[only1].sum())
                lam2 = C - lam1
                mult = {s: lam1, N + s: lam2}
                if min(lam1, lam2) >= -tol_lam:
                    alpha = np.where(only1, C, 0.0)
                    alpha[s] = min(max(lam1, 0.0), C)
                    iters.append(QP1Iteration(k, "optimal", W1t, W2t, 0.0, 0.0, None, None, mult, obj, True))
                    converged = True
                    break
                # Pivot: drop the negative row of s and move b (zero curvature) to the first kink.
                if lam1 <= lam2:
                    dropped, sigma = s, y[s]
                    in1[s] = False
                else:
                    dropped, sigma = N + s, -y[s]
                    in2[s] = False
                only1 = in1 & ~in2
                only2 = in2 & ~in1
                xi = np.where(only1, 1.0 - m, 0.0)
                r, step = _first_block(only1, only2, xi, m, y * sigma)
                if not np.isfinite(step):  # pragma: no cover - QP1 is bounded below
                    raise RuntimeError("QP1 active set: unbounded pivot (the problem is bounded; report this)")
                blocking = _add_missing_row(r, only1, in1, in2)
                b = y[r] - a * g[r]
                D = [r]
                iters.append(QP1Iteration(k, "pivot", W1t, W2t, step, step, blocking, dropped, mult, obj, True))
                continue
            t_star = -slope / W
            direction = 1.0 if t_star > 0 else -1.0
            r, t_block = _first_block(only1, only2, xi, m, ydg * direction)
            znorm = float(np.sqrt(1.0 + g[s] ** 2 + np.sum(dg[only1] ** 2)))
            if t_block < abs(t_star):
                blocking = _add_missing_row(r, only1, in1, in2)
                # Both s and r are on the margin now: pin (a, b) exactly to the two equations.
                a = (y[s] - y[r]) / (g[s] - g[r]) if g[s] != g[r] else a + direction * t_block
                b = y[s] - a * g[s]
                D = [s, r]
                iters.append(QP1Iteration(k, "blocked", W1t, W2t, t_block / abs(t_star),
                                          abs(t_star) * znorm, blocking, None, None, obj, True))
            else:
                a = a + t_star
                b = y[s] - a * g[s]
                iters.append(QP1Iteration(k, "step", W1t, W2t, 1.0, abs(t_star) * znorm, None, None, None, obj, True))
            continue
        # Two doubly-active samples: A^W is square, p = 0; multipliers decide.
        s, r = D
        ra = W * a - C * float(np.dot(y[only1], g[only1]))
        rb = -C * float(y[only1].sum())
        det = y[s] * y[r] * (g[s] - g[r])
        l1s = (ra * y[r] - rb * y[r] * g[r]) / det
        l1r = (rb * y[s] * g[s] - ra * y[s]) / det
        mult = {s: l1s, r: l1r, N + s: C - l1s, N + r: C - l1r}
        rows = sorted(mult)
        worst = min(rows, key=lambda i: (mult[i], i))
        if mult[worst] >= -tol_lam:
            alpha = np.where(only1, C, 0.0)
            alpha[s] = min(max(l1s, 0.0), C)
            alpha[r] = min(max(l1r, 0.0), C)
            iters.append(QP1Iteration(k, "optimal", W1t, W2t, 0.0, 0.0, None, None, mult, obj, None))
            converged = True
            break
        sample = worst % N
        if worst < N:
            in1[sample] = False
        else:
            in2[sample] = False
        D = [r] if sample == s else [s]
        iters.append(QP1Iteration(k, "drop", W1t, W2t, 0.0, 0.0, None, worst, mult, obj, None))
    if alpha is None:
        only1 = in1 & ~in2
        alpha = np.where(only1, C, 0.0)
        if len(D) == 1 and only1.any():  # a dual-feasible point: balance sum alpha y = 0 on s
            alpha[D[0]] = min(max(-y[D[0]] * C * float(y[only1].sum()), 0.0), C)
    return finish_result("active-set", a, b, g, y, C, W, alpha, iters, converged, in1.copy(), in2.copy(), max_iter)
