"""Box-constrained least squares with a stated budget (Stark and Parker's BVLS, counted).

scipy's ``lsq_linear(method="bvls")`` caps only its main loop: its initialisation and its inner
loop each run up to one least-squares solve per variable, and each solve costs
O(m k min(m, k)) for an m x k matrix, so with a thousand variables one call can take tens of
minutes. :func:`bvls` is the same algorithm (Stark and Parker, "Bounded-variable least-squares:
an algorithm and applications", Computational Statistics 10, 1995) with every least-squares solve
counted against ``max_solves`` and against a floating-point budget ``max_flops``; it returns None
when either would be exceeded, so its cost is known before it starts.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bvls", "lstsq_flops"]


def lstsq_flops(m: int, k: int) -> float:
    """Cost model of one dense least-squares solve with an m x k matrix: m k min(m, k)."""
    return float(m) * float(k) * float(min(m, k))


def bvls(A, b, lower=0.0, upper=1.0, *, max_solves: int = 100, max_flops: float = np.inf,
         tol: float = 1e-12, stats: dict | None = None):
    """min ||A x - b|| subject to lower <= x <= upper, or None when the budget ends first.

    Parameters
    ----------
    A : (m, k) array; b : (m,) array; lower, upper : scalar bounds.
    max_solves : most least-squares solves (each on the columns of the free variables).
    max_flops : most floating-point work, counted by :func:`lstsq_flops` per solve.
    tol : optimality tolerance on the projected gradient A^T (b - A x), relative to
        ||A^T b|| (plus the smallest normal number).
    stats : optional dict; receives ``solves`` and ``flops`` spent and ``status``
        ("optimal", "max_solves" or "max_flops").

    Returns
    -------
    x : (k,) array in the box satisfying the KKT conditions of the problem to ``tol``, or None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.bounded_lsq import bvls
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0]]); b = np.array([2.0, 0.5])
    >>> bvls(A, b).tolist()
    [1.0, 0.5]
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    m, k = A.shape
    work = {"solves": 0, "flops": 0.0, "status": "optimal"}
    if stats is not None:
        stats.update(work)
    x = np.full(k, float(lower))
    state = np.full(k, -1)                 # -1: at lower, +1: at upper, 0: free
    scale = float(np.linalg.norm(A.T @ b)) + np.finfo(float).tiny

    def solve(free):
        cost = lstsq_flops(m, int(free.sum()))
        if work["solves"] >= max_solves or work["flops"] + cost > max_flops:
            work["status"] = "max_solves" if work["solves"] >= max_solves else "max_flops"
            return None
        work["solves"] += 1
        work["flops"] += cost
        rhs = b - A[:, ~free] @ x[~free]
        return np.linalg.lstsq(A[:, free], rhs, rcond=None)[0]

    result = None
    while True:
        g = A.T @ (b - A @ x)              # minus the gradient of ||A x - b||^2 / 2
        push = np.where(state < 0, g, np.where(state > 0, -g, -np.inf))
        j = int(np.argmax(push))
        if push[j] <= tol * scale:         # no bound variable wants to move inward: optimal
            result = x
            break
        state[j] = 0
        done = False
        while not done:                    # Stark and Parker's loop B
            free = state == 0
            z = solve(free)
            if z is None:
                break
            xf = x[free]
            low, high = z < lower, z > upper
            if not (low.any() or high.any()):
                x[free] = z
                done = True
                continue
            # move from xf towards z until the first variable meets a bound, fix it there
            bad = low | high
            target = np.where(low, lower, upper)[bad]
            ratios = (target - xf[bad]) / (z[bad] - xf[bad])
            i = int(np.argmin(ratios))
            t = float(np.clip(ratios[i], 0.0, 1.0))
            x[free] = xf + t * (z - xf)
            idx = np.flatnonzero(free)[np.flatnonzero(bad)[i]]
            x[idx] = lower if low[np.flatnonzero(bad)[i]] else upper
            state[idx] = -1 if x[idx] == lower else 1
            x[free] = np.clip(x[free], lower, upper)
        if not done:
            break
    if stats is not None:
        stats.update(work)
    return None if result is None else np.clip(result, lower, upper)
