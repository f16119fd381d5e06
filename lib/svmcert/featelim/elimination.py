"""Recursive feature elimination with the criteria of Aksu (MFE-LO, hBMFE-LO, QP1:lnm3-ER).

At every step a linear SVM is trained on the remaining features, giving ``w`` and ``b``. For each
candidate feature ``m`` the direction ``w^{-m}`` is kept. The projections are
``g^{-m} = X w - x_m w_m`` and ``W^{-m} = ||w||^2 - w_m^2``. The candidate with the smallest
score is removed:

- ``"mfe-lo"``: the post-LO squared weight norm ``a^2 W^{-m}`` (eq. 5; [1] of the paper);
- ``"hbmfe-lo-sphere"`` / ``"hbmfe-lo-er"``: ``(R^2)^{-m} a^2 W^{-m}`` (eqs. 10-11), with ``R^2``
  from the enclosing sphere (eq. 9, "tR") or the squared diameter ("ER");
- ``"qp1-lnm3-er"``: ``min_j ((R^2_ER)^{-m} + 1/C_j)(a_j^2 W^{-m} + 2 C_j sum_n xi_{n,j})``
  (eq. 15 with bound 14, Delta = 1), QP1 solved for every ``C_j`` of a grid;
- ``"rfe"``: ``w_m^2`` (Guyon et al.'s SVM-RFE), the fallback when LO is infeasible for every
  candidate.

LO is infeasible when ``g^{-m}`` does not separate the classes. Such a candidate scores ``inf``.
If every candidate is infeasible, the step falls back to ``"rfe"`` and says so in its record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_positive, check_X_y
from .lo import lo_gaps
from .qp1 import solve_qp1
from .radius import radius_squared_without_each_feature

__all__ = ["CRITERIA", "EliminationStep", "EliminationResult", "candidate_projections", "lo_scores",
           "candidate_scores", "eliminate_features", "fit_linear_svm"]

CRITERIA = ("mfe-lo", "hbmfe-lo-sphere", "hbmfe-lo-er", "qp1-lnm3-er", "rfe")


@dataclass
class EliminationStep:
    """One elimination step.

    Attributes
    ----------
    n_features : int
        Features present before the step.
    removed : int
        Original index of the removed feature.
    score : float
        Its score under the criterion (or under the fallback).
    fallback : bool
        True when LO was infeasible for every candidate and ``"rfe"`` decided.
    n_infeasible : int
        Candidates for which LO was infeasible (LO-based criteria; 0 otherwise).
    best_C : float or None
        The ``C_j`` attaining the minimum for the removed feature (``"qp1-lnm3-er"``).
    seconds : float
        Wall time of the step (SVM fit plus scoring).
    svm : object
        The SVM fitted on the features present before the step.
    """

    n_features: int
    removed: int
    score: float
    fallback: bool
    n_infeasible: int
    best_C: float | None
    seconds: float
    svm: object = field(repr=False, default=None)


@dataclass
class EliminationResult:
    """The order in which features were removed and every step's record."""

    criterion: str
    order: list
    remaining: list
    steps: list


def fit_linear_svm(X, y, C):
    """The per-step SVM: scikit-learn's ``SVC(kernel="linear", C)`` (LIBSVM, as in the paper)."""
    from sklearn.svm import SVC

    return SVC(kernel="linear", C=C, max_iter=10 ** 7).fit(X, y)


def candidate_projections(X, w):
    """``G[:, m] = X w - X[:, m] w_m`` and ``W[m] = ||w||^2 - w_m^2`` for every feature ``m``."""
    G = (X @ w)[:, None] - X * w[None, :]
    W = float(w @ w) - w * w
    return G, W


def lo_scores(G, y, W):
    """Post-LO squared norms ``a^2 W`` for every column of ``G`` (``inf`` where LO is infeasible).

    The closed form of :func:`svmcert.featelim.solve_lo` on every column at once (both use
    ``lo_gaps``): the best gap between the classes, in either orientation, gives ``|a| = 2 / gap``.
    """
    if not (y > 0).any() or not (y < 0).any():
        return np.zeros(G.shape[1])
    gap = np.maximum(*lo_gaps(G, y))
    with np.errstate(divide="ignore"):
        out = np.where(gap > 0, 4.0 * W / np.where(gap > 0, gap, 1.0) ** 2, np.inf)
    return out


def _qp1_scores(G, y, W, r2_er, C_grid):
    d = G.shape[1]
    scores = np.full(d, np.inf)
    best_C = np.full(d, np.nan)
    for m in range(d):
        if W[m] <= 0:
            continue
        start = None
        for C in sorted(C_grid, reverse=True):   # from the trained (hard-margin) scale down: short warm-started paths
            res = solve_qp1(G[:, m], y, C, W[m], start=start, record=False)
            start = (res.a, res.b)           # warm start along the grid
            val = (r2_er[m] + 1.0 / C) * (res.a ** 2 * W[m] + 2.0 * C * float(res.xi.sum()))
            if val < scores[m]:
                scores[m], best_C[m] = val, C
    return scores, best_C


def candidate_scores(X, y, w, criterion: str, *, C_grid=(0.01, 0.1, 1.0, 10.0, 100.0)):
    """Scores of every candidate feature under ``criterion`` (smaller is removed first).

    Returns
    -------
    scores : ndarray (d,)
    info : dict
        ``n_infeasible`` (LO-based criteria) and ``best_C`` (``"qp1-lnm3-er"``).
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    G, W = candidate_projections(X, w)
    info = {"n_infeasible": 0, "best_C": None}
    if criterion == "rfe":
        return w * w, info
    if criterion == "qp1-lnm3-er":
        r2 = radius_squared_without_each_feature(X, method="diameter")
        scores, best_C = _qp1_scores(G, y, W, r2, C_grid)
        info["best_C"] = best_C
        return scores, info
    lo = lo_scores(G, y, W)
    info["n_infeasible"] = int(np.isinf(lo).sum())
    if criterion == "mfe-lo":
        return lo, info
    method = "sphere" if criterion == "hbmfe-lo-sphere" else "diameter"
    r2 = radius_squared_without_each_feature(X, method=method)
    return r2 * lo, info


def _stable_argmin(scores, tie_rtol: float) -> int:
    """Index of the smallest score; among scores within ``tie_rtol`` of it, the first (the
    candidates are in the order of their original indices)."""
    best = float(np.min(scores))
    if not np.isfinite(best):
        return int(np.argmin(scores))
    tied = np.flatnonzero(scores <= best + tie_rtol * max(abs(best), 1.0))
    return int(tied[0])


def eliminate_features(X, y, criterion: str = "mfe-lo", *, n_keep: int = 1, C: float = 1e4,
                       C_grid=(0.01, 0.1, 1.0, 10.0, 100.0), fit=None, keep_svms: bool = False,
                       tie_rtol: float = 1e-9) -> EliminationResult:
    """Remove features one by one until ``n_keep`` remain.

    Parameters
    ----------
    X : array_like (N, d)
    y : array_like (N,)
        Labels in {-1, +1}, both classes present.
    criterion : {"mfe-lo", "hbmfe-lo-sphere", "hbmfe-lo-er", "qp1-lnm3-er", "rfe"}
    n_keep : int
        Features left at the end (>= 1).
    C : float
        ``C`` of the per-step linear SVM (large: hard margin in effect, as LO assumes).
    C_grid : sequence of float
        The ``C_j`` of QP1:lnm3-ER.
    fit : callable ``(X, y, C) -> model with coef_ and intercept_``, optional
        The per-step SVM; default :func:`fit_linear_svm`.
    keep_svms : bool
        Keep each step's fitted SVM in its record (for held-out evaluation).
    tie_rtol : float, default 1e-9
        Scores within ``tie_rtol`` (relative, at least ``tie_rtol`` absolute) of the smallest are
        ties, and the tie goes to the candidate with the smallest original index. Scores are
        products of floating-point sums, so an exact tie (two equal features, a zero feature) comes
        out in either order depending on rounding; this keeps the order the same on every machine.

    Returns
    -------
    EliminationResult
        The features in the order they were removed, those that remain, and one
        :class:`EliminationStep` per removal.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.featelim import eliminate_features
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 4)); y = np.where(X[:, 2] + 0.1 * X[:, 0] > 0, 1.0, -1.0)
    >>> res = eliminate_features(X, y, criterion="mfe-lo", n_keep=1)
    >>> res.order, res.remaining                  # feature 2 carries the labels
    ([3, 1, 0], [2])
    """
    X, y = check_X_y(X, y)
    if not ((y > 0).any() and (y < 0).any()):
        raise ValueError("y: expected both classes -1 and +1, found one class")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    d = X.shape[1]
    if not isinstance(n_keep, (int, np.integer)) or not 1 <= n_keep <= d:
        raise ValueError(f"n_keep: expected an integer in [1, {d}], got {n_keep!r}")
    C = check_positive(C, "C")
    C_grid = [check_positive(c, "C_grid") for c in C_grid]
    if not C_grid:
        raise ValueError("C_grid: expected at least one value")
    fit = fit_linear_svm if fit is None else fit
    remaining = list(range(d))
    order, steps = [], []
    while len(remaining) > n_keep:
        t0 = time.perf_counter()
        Xr = X[:, remaining]
        svm = fit(Xr, y, C)
        w = np.asarray(svm.coef_, dtype=float).ravel()
        scores, info = candidate_scores(Xr, y, w, criterion, C_grid=C_grid)
        fallback = not np.isfinite(scores).any()
        if fallback:
            scores = w * w
        j = _stable_argmin(scores, tie_rtol)
        best_C = None if info["best_C"] is None else float(info["best_C"][j])
        removed = remaining.pop(j)
        order.append(removed)
        steps.append(EliminationStep(len(remaining) + 1, removed, float(scores[j]), bool(fallback),
                                     info["n_infeasible"], best_C, time.perf_counter() - t0,
                                     svm if keep_svms else None))
    return EliminationResult(criterion, order, remaining, steps)
