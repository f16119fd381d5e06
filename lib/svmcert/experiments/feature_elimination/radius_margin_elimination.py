"""Experiments of the elimination chapter: paths with held-out error, consistency of LO with
separability, the criteria recomputed with independent references, and the radius-margin bound."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...featelim import (candidate_projections, candidate_scores, eliminate_features, fit_linear_svm,
                        linearly_separable)
from ...reference.qp1 import solve_lo_linprog, solve_qp1_cvxpy
from ...reference.radius import sphere_dual_cvxpy, squared_diameter_bruteforce

__all__ = ["split", "elimination_path", "lo_separability_violations", "reference_scores", "first_step_check"]


def split(X, y, seed: int, test_size: float = 1 / 3):
    """A stratified train/test split (scikit-learn), seeded."""
    from sklearn.model_selection import train_test_split
    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)


def elimination_path(Xtr, ytr, Xte, yte, criterion, C, C_grid, n_keep=1):
    """Eliminate down to ``n_keep`` features; one row per number of features with the held-out
    error of the SVM trained on exactly those features."""
    res = eliminate_features(Xtr, ytr, criterion, n_keep=n_keep, C=C, C_grid=C_grid, keep_svms=True)
    d = Xtr.shape[1]
    rows, present = [], list(range(d))
    for step in res.steps:
        err = float(np.mean(step.svm.predict(Xte[:, present]) != yte))
        rows.append(dict(criterion=criterion, n_features=step.n_features, test_error=err, removed=step.removed,
                         fallback=step.fallback, n_infeasible=step.n_infeasible, best_C=step.best_C,
                         seconds=step.seconds))
        present.remove(step.removed)
    last = fit_linear_svm(Xtr[:, present], ytr, C)
    rows.append(dict(criterion=criterion, n_features=len(present), test_error=float(np.mean(last.predict(Xte[:, present]) != yte)),
                     removed=-1, fallback=False, n_infeasible=0, best_C=None, seconds=0.0))
    return res, pd.DataFrame(rows)


def lo_separability_violations(res, Xtr, ytr) -> tuple[int, int]:
    """Steps where LO was feasible for the removed feature while the data without it are not
    linearly separable (must be 0: a feasible LO exhibits a separating direction).

    Returns ``(violations, steps checked)``.
    """
    present = list(range(Xtr.shape[1]))
    bad = checked = 0
    for step in res.steps:
        present.remove(step.removed)
        if not step.fallback and step.n_infeasible < step.n_features and res.criterion != "qp1-lnm3-er":
            checked += 1
            bad += not linearly_separable(Xtr[:, present], ytr)
    return bad, checked


def reference_scores(X, y, w, criterion, C_grid):
    """The criterion recomputed per candidate with independent references: LO by linprog, R^2 by
    cvxpy's sphere dual or brute-force diameters, QP1 by cvxpy."""
    G, W = candidate_projections(X, w)
    d = X.shape[1]
    out = np.full(d, np.inf)
    for m in range(d):
        keep = np.arange(d) != m
        Xm = X[:, keep]
        if criterion in ("mfe-lo", "hbmfe-lo-sphere", "hbmfe-lo-er"):
            feas, a, _ = solve_lo_linprog(G[:, m], y)
            if not feas:
                continue
            val = a * a * W[m]
            if criterion == "hbmfe-lo-sphere":
                val *= sphere_dual_cvxpy(X=Xm).value
            elif criterion == "hbmfe-lo-er":
                val *= squared_diameter_bruteforce(Xm)
            out[m] = val
        elif criterion == "qp1-lnm3-er":
            r2 = squared_diameter_bruteforce(Xm)
            best = np.inf
            for C in C_grid:
                ref = solve_qp1_cvxpy(G[:, m], y, C, W[m])
                xi = np.maximum(0.0, 1.0 - y * (ref.a * G[:, m] + ref.b))
                best = min(best, (r2 + 1.0 / C) * (ref.a ** 2 * W[m] + 2 * C * xi.sum()))
            out[m] = best
    return out


def first_step_check(X, y, C, criterion, C_grid) -> dict:
    """Library scores at the first step against :func:`reference_scores` (relative error; the
    feasible sets must coincide) and whether both pick the same feature."""
    w = np.asarray(fit_linear_svm(X, y, C).coef_, dtype=float).ravel()
    lib, _ = candidate_scores(X, y, w, criterion, C_grid=C_grid)
    ref = reference_scores(X, y, w, criterion, C_grid)
    fin = np.isfinite(lib) & np.isfinite(ref)
    rel = float(np.max(np.abs(lib[fin] - ref[fin]) / np.abs(ref[fin]))) if fin.any() else 0.0
    return dict(criterion=criterion, candidates=X.shape[1], finite=int(fin.sum()),
                feasibility_mismatch=int((np.isfinite(lib) != np.isfinite(ref)).sum()),
                max_rel_error=rel, same_choice=bool(np.argmin(lib) == np.argmin(ref)) if fin.any() else True,
                min_ratio_gap=float(np.sort(ref[fin])[1] / np.sort(ref[fin])[0] - 1) if fin.sum() > 1 else np.nan)
