"""LO (Aksu eq. 5, from MFE-LO): re-fit scale and bias of a fixed direction in the hard-margin sense.

    min_{a, b}  a^2 W   s.t.  y_n (a g_n + b) >= 1,   n = 1..N,

with ``g_n = (w^{-m})^T x_n^{-m}`` and ``W = ||w^{-m}||^2``. It is a one-dimensional hard-margin
SVM, solved in closed form: with ``a > 0`` every positive ``g`` must lie at least ``2 / a`` above
every negative one, so the smallest ``|a|`` is ``2 / gap`` with
``gap = min_{y=+1} g - max_{y=-1} g`` (and symmetrically for ``a < 0``). When neither gap is
positive the data are not separable along the direction and LO is infeasible; with a single class
``a = 0`` is optimal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_labels, check_positive, check_vector

__all__ = ["LOResult", "solve_lo", "lo_gaps", "linearly_separable"]


@dataclass(frozen=True)
class LOResult:
    """Solution of LO.

    Attributes
    ----------
    feasible : bool
        False when no ``(a, b)`` satisfies every constraint (classes overlap along ``g``).
    a, b : float
        Optimal scale and bias (``nan`` when infeasible).
    gap : float
        ``min_{y=+1} g - max_{y=-1} g`` (positive: separable with ``a > 0``).
    wnorm2_after : float
        Post-LO squared weight norm ``a^2 W`` (``inf`` when infeasible), the MFE-LO criterion.
    """

    feasible: bool
    a: float
    b: float
    gap: float
    wnorm2_after: float


def lo_gaps(G, y):
    """Class gaps of every column of ``G`` (both classes present): ``up = min_{y=+1} G - max_{y=-1} G``
    (separable with ``a > 0`` when positive) and ``down = min_{y=-1} G - max_{y=+1} G`` (``a < 0``)."""
    pos, neg = y > 0, y < 0
    up = G[pos].min(axis=0) - G[neg].max(axis=0)
    down = G[neg].min(axis=0) - G[pos].max(axis=0)
    return up, down


def solve_lo(g, y, wnorm2) -> LOResult:
    """Solve LO (eq. 5) in closed form; infeasibility is reported, not raised.

    Parameters
    ----------
    g : array_like (N,)
        Projections on the kept direction.
    y : array_like (N,)
        Labels in {-1, +1}.
    wnorm2 : float > 0
        ``||w^{-m}||^2``.
    """
    g = check_vector(g, "g")
    if g.shape[0] < 1:
        raise ValueError("g: expected at least one sample, got length 0")
    y = check_labels(y, g.shape[0], "y")
    wnorm2 = check_positive(wnorm2, "wnorm2")
    if not (y > 0).any() or not (y < 0).any():
        b = 1.0 if (y > 0).all() else -1.0
        return LOResult(True, 0.0, b, np.inf, 0.0)
    up, down = (float(v[0]) for v in lo_gaps(g[:, None], y))
    if up > 0:
        a = 2.0 / up
        b = 1.0 - a * float(g[y > 0].min())
    elif down > 0:
        a = -2.0 / down
        b = 1.0 - a * float(g[y > 0].max())
    else:
        return LOResult(False, float("nan"), float("nan"), up, float("inf"))
    return LOResult(True, a, b, up, a * a * wnorm2)


def linearly_separable(X, y) -> bool:
    """Whether some ``(w, b)`` has ``y_n (w^T x_n + b) >= 1`` for every sample (an LP, HiGHS).

    Hard-margin SVMs and LO need it; a feasibility LP decides it exactly (up to HiGHS's
    feasibility tolerance of 1e-7).
    """
    from scipy.optimize import linprog

    from .._validation import check_X_y

    X, y = check_X_y(X, y)
    n, d = X.shape
    A = -(y[:, None] * np.column_stack([X, np.ones(n)]))
    res = linprog(np.zeros(d + 1), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1), method="highs")
    return res.status == 0
