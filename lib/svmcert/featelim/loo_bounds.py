"""Bounds that combine the data radius with the weight norm (Aksu Sec. 3-4; notes "Radius and bounds").

- :func:`radius_margin_bound`: ``4 R^2 ||w||^2``, the leave-one-out radius-margin bound for the
  hard-margin SVM ([std]; Chung et al., cited as [5] by the paper).
- :func:`l1svm_bound`: ``(R^2 + Delta / C)(||w||^2 + 2 C sum xi)``, the third heuristic bound of
  [5] for the L1-SVM (eq. 14, reconstructed from memory in the notes; Delta = 1), which QP1:lnm3
  minimises.
- :func:`loo_errors`: leave-one-out errors of a linear SVM, counted exactly. Removing a sample
  whose dual variable is zero leaves the optimum unchanged, since the remaining KKT conditions
  still hold. So only the support vectors need a refit.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive, check_X_y

__all__ = ["radius_margin_bound", "l1svm_bound", "loo_errors"]


def radius_margin_bound(r2, wnorm2) -> float:
    """``4 R^2 ||w||^2``: an upper bound on the number of leave-one-out errors (hard margin)."""
    r2 = float(r2)
    if not np.isfinite(r2) or r2 < 0:
        raise ValueError(f"r2: expected a finite number >= 0, got {r2!r}")
    wnorm2 = float(wnorm2)
    if not np.isfinite(wnorm2) or wnorm2 < 0:
        raise ValueError(f"wnorm2: expected a finite number >= 0, got {wnorm2!r}")
    return 4.0 * r2 * wnorm2


def l1svm_bound(r2, wnorm2, xi_sum, C, delta: float = 1.0) -> float:
    """``(R^2 + delta / C)(||w||^2 + 2 C sum xi)`` (eq. 14 with ``Delta = delta``)."""
    C = check_positive(C, "C")
    delta = check_positive(delta, "delta")
    xi_sum = float(xi_sum)
    if not np.isfinite(xi_sum) or xi_sum < 0:
        raise ValueError(f"xi_sum: expected a finite number >= 0, got {xi_sum!r}")
    return (float(r2) + delta / C) * (float(wnorm2) + 2.0 * C * xi_sum)


def loo_errors(X, y, C, fit=None) -> tuple[int, int]:
    """Leave-one-out errors of a linear SVM ``fit(X, y, C)`` (default: LIBSVM through scikit-learn).

    Returns
    -------
    errors : int
        Samples misclassified (decision value <= 0 times the label) by the model trained without them.
    refits : int
        Models trained: one per support vector (the others cannot change the optimum).
    """
    from .elimination import fit_linear_svm

    X, y = check_X_y(X, y)
    C = check_positive(C, "C")
    fit = fit_linear_svm if fit is None else fit
    full = fit(X, y, C)
    sv = np.asarray(full.support_, dtype=int)
    errors = 0
    keep = np.ones(len(y), dtype=bool)
    for i in sv:
        keep[i] = False
        model = fit(X[keep], y[keep], C)
        errors += int(y[i] * float(model.decision_function(X[i:i + 1])[0]) <= 0)
        keep[i] = True
    # a non-support vector is classified by the full model, with margin >= 1 > 0
    return errors, len(sv)
