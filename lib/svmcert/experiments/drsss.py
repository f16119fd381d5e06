"""Chapter "DRSSS on the LIBSVM data sets" (Hanada et al., Sec. 5.1, 5.3, 5.4; Figs. 2, 5; Tables 3-4).

Every fit here is certified by its duality gap, and every safety statement is checked against
fits at the weights in question: a sample is *certainly* inactive at w when its exact-fit margin
minus the fit's own gap-safe spread still exceeds 1, and two fits are *certainly* the same model
when their distance is within the sum of their gap-safe radii.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .. import datasets
from ..kernels import linear_kernel, rbf_kernel
from ..screening import weighted_svm as ws
from ..screening.drsss import drsss, gap_quadratic, max_gap_on_ball
from ..signsvm.result import ConvergenceWarning
from .duality import load_scaled

__all__ = ["DATASETS", "TABLE3_LOG10_LAMBDA", "design", "gram", "lambda_grid", "screening_rates", "rates_for_gram",
           "safety_on_gram",
           "random_weights", "multi_weight_table", "parameter_shift_table", "restricted_speedup", "one_thread"]

DATASETS = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice", "svmguide1")
#: log10(lam / n) of the paper's Table 3 for each data set (its lambda column divided by n).
TABLE3_LOG10_LAMBDA = {"sonar": -0.5, "heart": -1.0, "ionosphere": -0.5, "breast-cancer": -1.5,
                       "australian": -0.5, "splice": -0.5, "svmguide1": -1.5}


def one_thread():
    """Context manager limiting BLAS to one thread: the eigendecompositions here are a few hundred
    wide, where threads only add contention on a shared 2-core machine."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def design(name: str):
    """Features scaled to [-1, 1] (:func:`~svmcert.experiments.duality.load_scaled`), labels +-1."""
    return load_scaled(name)


def gram(X, kernel: str) -> np.ndarray:
    """Gram matrix with the intercept as a regularised constant feature (Remark 3.3): K + 1."""
    K = linear_kernel(X) if kernel == "linear" else rbf_kernel(X)
    return K + 1.0


def lambda_grid(n: int, count: int = 7) -> list[float]:
    """The paper's grid lam = n, n 10^-0.5, ..., n 10^-3 (App. E.2)."""
    return [n * 10 ** (-k / 2) for k in range(count)]


def _fit(K, y, lam, w, tol=1e-9, max_epochs=20000):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ws.fit_weighted_svm(K, y, lam, w, tol=tol, max_epochs=max_epochs, check_psd=False)


def screening_rates(name, kernel, lams, a_values):
    """Share of samples DRSSS removes for W = {||w - 1|| <= sqrt(n+) |a - 1|} (Sec. 5, Fig. 5)."""
    X, y = design(name)
    return rates_for_gram(name, kernel, gram(X, kernel), y, lams, a_values)


def rates_for_gram(name, kernel, K, y, lams, a_values):
    """:func:`screening_rates` for a given Gram matrix (already including any intercept term)."""
    import pandas as pd

    n, n_pos = len(y), int(np.sum(y > 0))
    rows = []
    for lam in lams:
        t0 = time.perf_counter()
        fit = _fit(K, y, lam, np.ones(n))
        t_fit = time.perf_counter() - t0
        for a in a_values:
            S = np.sqrt(n_pos) * abs(a - 1.0)
            if S == 0:
                continue
            res = drsss(K, y, lam, np.ones(n), S, alpha_hat=fit.alpha, check_psd=False)
            rows.append({"data": name, "kernel": kernel, "n": n, "lam": lam, "lam_over_n": lam / n, "a": a,
                         "S": S, "removed": float(res.removable.mean()), "radius": res.radius,
                         "support": int(np.count_nonzero(fit.alpha)), "fit_rel_gap": fit.gap / fit.primal,
                         "fit_seconds": t_fit})
    return pd.DataFrame(rows)


def safety_on_gram(K, y, lam, a, rng, count):
    """DRSSS at w_tilde = 1, then exact fits at ``count`` random weights on the sphere: how many
    samples were removed, and how many of them are not certainly inactive at some weight (must be 0)."""
    n = len(y)
    S = np.sqrt(np.sum(y > 0)) * abs(a - 1.0)
    removed = drsss(K, y, lam, np.ones(n), S, check_psd=False).removable
    violations = 0
    for w in random_weights(rng, n, S, count):
        fit = _fit(K, y, lam, w, tol=1e-12)
        r = np.sqrt(2 * max(fit.gap, 0) / lam)
        certain = fit.margins - np.sqrt(np.diag(K)) * r > 1.0
        violations += int(np.sum(removed & ~certain))
    return int(removed.sum()), violations


def random_weights(rng, n, S, count):
    """App. E.3: w = 1 + S v / ||v|| with v standard normal (on the sphere ||w - 1|| = S)."""
    v = rng.standard_normal((count, n))
    return 1.0 + S * v / np.linalg.norm(v, axis=1, keepdims=True)


def multi_weight_table(name, rng, count, a=0.95):
    """Table 3 in spirit (linear kernel, the paper's lambda): DRSSS once, then per-weight SSS (ISSS).

    ISSS at w uses the same fitted pair (beta_hat, alpha_hat): its gap G(w) (eq. 11) gives a ball
    for beta*(w) and Lemma 3.2 removes samples. ``drsss_subset`` counts weights at which a DRSSS
    removal was not also an ISSS removal (must be 0: R >= r(w) for every w in W).
    """
    X, y = design(name)
    K = gram(X, "linear")
    n = len(y)
    lam = n * 10 ** TABLE3_LOG10_LAMBDA[name]
    S = np.sqrt(np.sum(y > 0)) * abs(a - 1.0)
    fit = _fit(K, y, lam, np.ones(n))
    t0 = time.perf_counter()
    res = drsss(K, y, lam, np.ones(n), S, alpha_hat=fit.alpha, check_psd=False)
    t_drsss = time.perf_counter() - t0
    q = gap_quadratic(K, y, lam, np.ones(n), fit.alpha, check_psd=False)
    spread = np.sqrt(np.diag(K))
    W = random_weights(rng, n, S, count)

    def isss(keep):
        t = time.perf_counter()
        removed = []
        for w in W:
            r = np.sqrt(2.0 * max(q.value(w), 0.0) / lam)
            removed.append(q.margins[keep] - spread[keep] * r > 1.0)
        return removed, time.perf_counter() - t

    all_removed, t_isss = isss(np.arange(n))
    keep = np.flatnonzero(~res.removable)
    _, t_after = isss(keep)
    not_subset = sum(int(np.any(res.removable & ~rem)) for rem in all_removed)
    return {"data": name, "n": n, "lam": lam, "S": S, "weights": count,
            "remaining_drsss": 1.0 - res.removable.mean(),
            "remaining_drsss_isss": 1.0 - float(np.mean([r.mean() for r in all_removed])),
            "drsss_not_subset_of_isss": not_subset,
            "isss_seconds": t_isss, "drsss_seconds": t_drsss, "isss_after_drsss_seconds": t_after}


def _beta(alpha, X, y, lam, w):
    return ws.weights_from_dual(alpha, X, y, lam, w)


def parameter_shift_table(name, rng, count, a=0.99):
    """Table 4 in spirit (linear kernel, lam = n): refit after removing samples at random weights.

    Strategies: DRSSS; Random (as many samples as DRSSS, at random); NaiveSS (the non-robust
    gap-safe rule of the model at w_tilde, applied unchanged to the new weights). For each weight:
    the shift ||beta_full - beta_reduced|| and the certified bound sqrt(2 g_full/lam) +
    sqrt(2 g_red/lam) (a shift within it is solver noise), and for DRSSS, how many removed samples
    are not certainly inactive at w (must be 0).
    """
    X, y = design(name)
    Xb = np.hstack([X, np.ones((len(y), 1))])        # the linear model with its intercept feature
    K = Xb @ Xb.T
    n = len(y)
    lam = float(n)
    S = np.sqrt(np.sum(y > 0)) * abs(a - 1.0)
    fit0 = _fit(K, y, lam, np.ones(n), tol=1e-12)
    drs = drsss(K, y, lam, np.ones(n), S, alpha_hat=fit0.alpha, check_psd=False).removable
    naive = ws.margins(fit0.alpha, K, y, lam, np.ones(n)) - np.sqrt(np.diag(K)) * np.sqrt(2 * max(fit0.gap, 0) / lam) > 1.0
    rows = []
    for w in random_weights(rng, n, S, count):
        full = _fit(K, y, lam, w, tol=1e-12)
        beta_full = _beta(full.alpha, Xb, y, lam, w)
        r_full = np.sqrt(2 * max(full.gap, 0) / lam)
        certain = full.margins - np.sqrt(np.diag(K)) * r_full > 1.0
        rand = np.zeros(n, bool)
        rand[rng.choice(n, size=int(drs.sum()), replace=False)] = True
        row = {"data": name, "n": n, "remaining_drsss": 1 - drs.mean(), "remaining_naive": 1 - naive.mean(),
               "drsss_not_certainly_inactive": int(np.sum(drs & ~certain))}
        for label, removed in (("drsss", drs), ("random", rand), ("naive", naive)):
            w_red = np.where(removed, 0.0, w)
            red = _fit(K, y, lam, w_red, tol=1e-12)
            shift = float(np.linalg.norm(beta_full - _beta(red.alpha, Xb, y, lam, w_red)))
            row[f"shift_{label}"] = shift
            row[f"bound_{label}"] = r_full + np.sqrt(2 * max(red.gap, 0) / lam)
        rows.append(row)
    import pandas as pd

    return pd.DataFrame(rows)


def restricted_speedup(name, kernel, lam_over_n, a=0.95, repeat=3):
    """Seconds to maximise the gap over W on the full n x n problem vs on the support of alpha."""
    from .timing import best_time

    X, y = design(name)
    K = gram(X, kernel)
    n = len(y)
    lam = n * lam_over_n
    S = np.sqrt(np.sum(y > 0)) * abs(a - 1.0)
    fit = _fit(K, y, lam, np.ones(n))
    q = gap_quadratic(K, y, lam, np.ones(n), fit.alpha, check_psd=False)
    t_full = best_time(lambda: max_gap_on_ball(q, np.ones(n), S, fit.alpha, reduce=False), repeat=repeat)
    t_red = best_time(lambda: max_gap_on_ball(q, np.ones(n), S, fit.alpha, reduce=True), repeat=repeat)
    g_full = max_gap_on_ball(q, np.ones(n), S, fit.alpha, reduce=False)
    g_red = max_gap_on_ball(q, np.ones(n), S, fit.alpha, reduce=True)
    return {"data": name, "kernel": kernel, "n": n, "lam_over_n": lam_over_n,
            "support": int(np.count_nonzero(fit.alpha)), "max_gap_full": g_full, "max_gap_support": g_red,
            "full_seconds": t_full, "support_seconds": t_red, "speedup": t_full / t_red}
