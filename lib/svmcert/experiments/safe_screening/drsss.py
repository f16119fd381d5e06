"""Chapter "DRSSS on the LIBSVM data sets" (Hanada et al., Sec. 5.1, 5.3, 5.4; Figs. 2, 5; Tables 3-4).

Every count of removed samples here is taken at the exact optimum of a certified fit
(:mod:`svmcert.screening.certified`): it is reported with the number of samples whose decision
the certificate cannot fix, and it is exact when that number is 0. Safety statements are checked
against fits at the weights in question: a sample is *certainly* inactive at w when its margin in
a certified fit at w, less the fit's own gap-safe spread, exceeds 1, and two fits are *certainly*
the same model when their distance is within the sum of their gap-safe radii.

The setup (preprocessing, intercept, weight set, ...) is a :class:`~.drsss_setup.Setup`;
:data:`~.drsss_setup.PAPER` is the reading that reproduces the paper's numbers.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from ...kernels import linear_kernel, rbf_kernel
from ...screening import weighted_svm as ws
from ...screening.drsss import drsss
from ...screening.weighted_linear import fit_weighted_linear
from ...exceptions import ConvergenceWarning
from . import drsss_setup as st
from ...datasets import load_scaled

__all__ = ["DATASETS", "CaseFit", "case_fit", "removed_at", "rates_table", "table3_row", "isss_seconds", "table4_shifts",
           "closed_form_check", "rates_for_gram", "safety_on_gram", "design", "gram", "one_thread"]

DATASETS = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice", "svmguide1")
one_thread = st.one_thread


@dataclass
class CaseFit:
    """One (data set, kernel, lambda, setup): its design, certified fit and certified screening."""

    design: st.Design
    lam: float
    fit: st.Fit
    screen: object


@lru_cache(maxsize=8)
def _design(name, kernel, setup):
    return st.design(name, kernel, setup)


_FITS: dict = {}


def case_fit(name: str, kernel: str, lam: float, setup: st.Setup = st.PAPER, max_epochs: int = 1_000_000,
             warm=None) -> CaseFit:
    """The certified fit at w~ = 1 for a printed lambda (converted by the setup's loss form),
    cached: the rates, Table 3, Sec. 5.1 and the readings share their fits. ``warm``: a dual point
    to start from (e.g. the fit at the neighbouring lambda); it changes where the solver starts,
    not what is certified."""
    key = (name, kernel, float(lam), setup.but(ball="full"), int(max_epochs))
    if key not in _FITS:
        d = _design(name, kernel, setup.but(ball="full"))
        lam_eff = st.lam_sum(lam, d.n, setup)
        fit = st.fit_at_ones(d, lam_eff, max_epochs=max_epochs, alpha0=warm)
        _FITS[key] = CaseFit(d, lam_eff, fit, st.screening(d, fit, lam_eff))
    return _FITS[key]


def _S(d, a):
    return float(np.sqrt(d.n_pos) * abs(a - 1.0))


def removed_at(c: CaseFit, a: float, ball: str = "full"):
    """Certified DRSSS decisions of a case for the weight change a (a = 1: plain screening)."""
    S = _S(c.design, a)
    if ball == "full":
        return c.screen.drsss(S)
    root = st.ball_root(c.design, c.screen.alpha, ball)
    return c.screen.drsss(S, root=root)


def rates_table(names, kernels, ks, a_values, setup: st.Setup = st.PAPER, progress: bool = False):
    """Fig. 2 / App. E.4: share removed by DRSSS for every data set, kernel, lam = n 10^(-k/2) and a.

    Columns: data, kernel, k, lam, a, S, removed (share), removed_count, undecided (samples the
    certificate cannot decide: the count is exact when 0), support, fit_rel_gap, fit_seconds.
    """
    import pandas as pd

    jobs = [(nm, kn, k) for nm in names for kn in kernels for k in ks]
    if progress:
        from tqdm.auto import tqdm

        jobs = tqdm(jobs, desc="rates", leave=False)
    rows, warm = [], {}
    for name, kernel, k in jobs:
        n = _design(name, kernel, setup).n
        lam = n * 10 ** (-k / 2)
        c = case_fit(name, kernel, lam, setup, warm=warm.get((name, kernel)) if kernel != "linear" else None)
        warm[(name, kernel)] = c.fit.alpha
        for a in a_values:
            dec = removed_at(c, a, setup.ball)
            rows.append({"data": name, "kernel": kernel, "k": k, "lam": lam, "a": float(a), "S": _S(c.design, a),
                         "removed": dec.removed / n, "removed_count": dec.removed, "undecided": dec.undecided,
                         "support": int(np.count_nonzero(c.fit.alpha)), "fit_rel_gap": c.fit.gap / c.fit.primal,
                         "fit_seconds": c.fit.seconds})
    return pd.DataFrame(rows)


@njit(cache=True, nogil=True)
def _isss_loop(M, m, s, lam, D):
    """Per-weight screening in kernel form, one weight after the other: the gap d^T M d / (2 lam),
    the radius and the margin test (the count of removed samples, so nothing is optimised away)."""
    n = M.shape[0]
    total = 0
    for t in range(D.shape[0]):
        q = 0.0
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += M[i, j] * D[t, j]
            q += D[t, i] * acc
        r = np.sqrt(max(q, 0.0)) / lam
        for i in range(n):
            if m[i] - s[i] * r > 1.0:
                total += 1
    return total


def isss_seconds(c: CaseFit, keep, directions, repeat: int = 3) -> float:
    """Time of per-weight screening (Lemma 3.2 with the gap G(w) of eq. 11) in kernel form on
    the samples ``keep``, one weight at a time, as a user would run it: for each weight the gap
    (w - 1)^T M (w - 1) / (2 lam) from the kept samples' n_keep x n_keep matrix M, the radius and
    the margin test (compiled, so no interpreter overhead hides the cost). Its cost grows like
    n_keep^2 per weight (Sec. 5.3). CPU seconds of this process, best of ``repeat`` runs."""
    d = c.design
    keep = np.asarray(keep)
    K = d.gram()[np.ix_(keep, keep)]
    ya = (d.y * c.screen.alpha)[keep]
    M = ya[:, None] * K * ya[None, :]
    m, s, lam = c.fit.margins[keep], np.sqrt(np.diag(K)), c.lam
    Dk = np.ascontiguousarray(np.asarray(directions)[:, keep])
    _isss_loop(M[:1, :1].copy(), m[:1], s[:1], lam, Dk[:1, :1].copy())      # compiled before timing
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()        # CPU time of this process: other jobs on the machine do not count
        _isss_loop(M, m, s, lam, Dk)
        best = min(best, time.process_time() - t0)
    return best


def table3_row(name: str, lam: float, a: float, count: int, seed: int, timing_count: int = 0):
    """Table 3 for one data set (linear kernel, the paper's lambda): DRSSS once, then per-weight
    screening (ISSS) at ``count`` random weights on the sphere ||w - 1|| = S (App. E.3).

    Returns a dict: remained shares after DRSSS and (averaged over the weights) after ISSS, with the
    ISSS standard error over weights and the undecided decisions of both; ``not_subset``: weights
    at which a sample DRSSS removed was kept by ISSS (0 by Theorem 3.5); with ``timing_count``
    weights, the seconds of ISSS on all samples, of DRSSS, and of ISSS on the samples DRSSS kept.
    """
    c = case_fit(name, "linear", lam)
    d, n = c.design, c.design.n
    k = int(round(-2 * np.log10(lam / n)))
    S = _S(d, a)
    dec = c.screen.drsss(S)
    rng = st.instance_rng(seed, "table3-weights", name, "linear", k, float(a))
    D = st.sphere_directions(rng, n, S, count)
    isss = c.screen.isss(D, subset=dec.certain)
    kept = n - isss["removed"].astype(np.int64)              # integers: the mean and its error are exact
    total, squares = int(kept.sum()), int((kept * kept).sum())
    var = (squares - total * total / count) / (count - 1) if count > 1 else 0.0
    row = {"data": name, "n": n, "n_pos": d.n_pos, "lam": lam, "a": float(a), "S": S,
           "remained_drsss": 1.0 - dec.removed / n, "undecided_drsss": dec.undecided,
           "remained_isss": total / (n * count), "isss_se": float(np.sqrt(max(var, 0.0) / count)) / n,
           "undecided_isss": int(np.sum(isss["possible"] - isss["removed"])), "weights": int(count),
           "not_subset": int(isss["not_subset"])}
    if timing_count:
        Dt = D[:timing_count]
        keep = np.flatnonzero(~dec.certain)
        t_drsss = _drsss_seconds(c, S)
        row.update({"timing_weights": int(Dt.shape[0]), "isss_seconds": isss_seconds(c, np.arange(n), Dt),
                    "drsss_seconds": t_drsss, "isss_after_drsss_seconds": isss_seconds(c, keep, Dt)})
        row["speedup"] = row["isss_seconds"] / (row["drsss_seconds"] + row["isss_after_drsss_seconds"])
    return row


def _drsss_seconds(c: CaseFit, S: float) -> float:
    """CPU seconds of DRSSS itself from the fit: lambda_max of M (one eigenvalue) and the rule."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        root = st.ball_root(c.design, c.screen.alpha, "full")
        _ = c.fit.margins - c.screen.spread * S * root / c.lam > 1.0
        best = min(best, time.process_time() - t0)
    return best


def _fit_w(X, y, lam, w, alpha0, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit_weighted_linear(X, y, lam, w, tol=tol, alpha0=alpha0, max_epochs=200_000)


def table4_shifts(name: str, a: float, count: int, removals: int, seed: int, tol: float = 1e-13):
    """Table 4 for one data set (linear kernel, lambda = n): remove samples, refit at ``count``
    random weights on the sphere, measure ||beta*(w) - beta_reduced(w)||.

    Strategies: DRSSS; Random (``removals`` random subsets of DRSSS's size, drawn once and used at
    every weight; a weight's shift is their mean); NaiveSS (plain screening at w~ = 1: the samples
    with margin > 1 at the optimum). Returns (summary dict, per-weight DataFrame). Each shift has
    the certified bound r_full + r_reduced: a shift within it cannot be told from 0.
    """
    import pandas as pd

    n_lam = st.features(name)[1].size
    c = case_fit(name, "linear", float(n_lam))
    d, n, lam = c.design, c.design.n, c.lam
    S = _S(d, a)
    dec, naive = c.screen.drsss(S), c.screen.drsss(0.0)
    drs = dec.certain
    sets = {"drsss": [drs], "naive": [naive.certain], "random": []}
    for j in range(removals):
        mask = np.zeros(n, bool)
        mask[st.instance_rng(seed, "table4-random", name, "linear", j).choice(n, size=int(drs.sum()), replace=False)] = True
        sets["random"].append(mask)
    spread = np.sqrt(np.einsum("ij,ij->i", d.X, d.X))
    rows = []
    for i in range(count):
        dw = st.sphere_directions(st.instance_rng(seed, "table4-weights", name, "linear", i), n, S, 1)[0]
        w = 1.0 + dw
        full = _fit_w(d.X, d.y, lam, w, c.fit.alpha, tol)
        r_full = full.radius
        certain = full.margins - spread * r_full > 1.0
        row = {"data": name, "weight": i, "drsss_not_inactive": int(np.sum(drs & ~certain)), "r_full": r_full}
        for label, masks in sets.items():
            shifts, bounds = [], []
            for mask in masks:
                w_red = np.where(mask, 0.0, w)
                start = c.fit.alpha if label == "drsss" else full.alpha    # DRSSS's refit starts from w~'s fit
                red = _fit_w(d.X, d.y, lam, w_red, np.where(mask, 0.0, start), tol)
                shifts.append(float(np.linalg.norm(full.beta - red.beta)))
                bounds.append(r_full + red.radius)
            row[f"shift_{label}"] = float(np.mean(shifts))
            row[f"bound_{label}"] = float(np.max(bounds))
            row[f"beyond_{label}"] = int(np.sum(np.array(shifts) > np.array(bounds)))
            if label == "random":
                row["random_set_sd"] = float(np.std(shifts, ddof=1)) if len(shifts) > 1 else 0.0
        rows.append(row)
    per = pd.DataFrame(rows)
    sc = c.screen
    summary = {"data": name, "n": n, "lam": lam, "a": float(a), "S": S, "weights": count, "removals": removals,
               "remained_drsss": 1.0 - dec.removed / n, "undecided_drsss": dec.undecided,
               "remained_naive": 1.0 - naive.removed / n, "undecided_naive": naive.undecided,
               # samples certainly with 0 < alpha* < 1, hence on the margin m* = 1 (link 7)
               "on_margin": int(np.sum(sc.inside & (sc.alpha < 1.0 - sc.free_bound)))}
    for label in ("drsss", "random", "naive"):
        summary[f"shift_{label}_mean"] = float(per[f"shift_{label}"].mean())
        summary[f"shift_{label}_sd"] = float(per[f"shift_{label}"].std(ddof=1))
        summary[f"bound_{label}_max"] = float(per[f"bound_{label}"].max())
        summary[f"beyond_{label}"] = int(per[f"beyond_{label}"].sum())
    summary["random_set_sd"] = float(per["random_set_sd"].mean())
    summary["drsss_not_inactive"] = int(per["drsss_not_inactive"].sum())
    return summary, per


def closed_form_check(name: str, kernel: str, lam: float, a: float, full: bool = False) -> dict:
    """Theorem 4.1 on the fitted alpha_hat (copies' share split evenly, as everywhere here; the
    library's :func:`~svmcert.screening.drsss.drsss`,
    the gap's linear term included) against the closed form S^2 lambda_max(M) / (2 lam) at the
    optimum: the two maxima differ by at most gap (1 + S) (the linear term, a vector of
    Fenchel-Young residuals summing to the gap), and the library's mask lies between the
    certified lower and upper masks. With ``full``, also the maximisation over all n weights instead
    of the support of alpha plus one coordinate (``max_gap_full``)."""
    c = case_fit(name, kernel, lam)
    d = c.design
    S = _S(d, a)
    alpha = c.screen.alpha                          # the fit's dual point, copies' share split evenly (same gap)
    res = drsss(d.gram(), d.y, c.lam, np.ones(d.n), S, alpha_hat=alpha, check_psd=False)
    closed = S ** 2 * c.screen.root ** 2 / (2 * c.lam)
    dec = c.screen.drsss(S)
    out = {"data": name, "kernel": kernel, "lam": lam, "a": float(a), "max_gap_theorem41": res.max_gap,
           "max_gap_closed_form": closed, "difference": abs(res.max_gap - closed),
           "allowed": c.fit.gap * (1 + S) + 1e-9 * closed,
           "outside_bounds": int(np.sum(res.removable & ~dec.possible) + np.sum(dec.certain & ~res.removable))}
    if full:
        out["max_gap_full"] = drsss(d.gram(), d.y, c.lam, np.ones(d.n), S, alpha_hat=alpha, reduce=False,
                                    check_psd=False).max_gap
    return out


# ----------------------------------------------------------------------------- kernels given as Gram matrices
def rates_for_gram(name, kernel, K, y, lams, a_values, groups=None):
    """:func:`rates_table` for a given Gram matrix (e.g. the NTK; no intercept is added)."""
    import pandas as pd

    n = len(y)
    d = st.Design(name, kernel, np.asarray(y, float), None, np.ascontiguousarray(K),
                  np.arange(n) if groups is None else np.asarray(groups))
    rows = []
    for k, lam in enumerate(lams):
        fit = st.fit_at_ones(d, lam)
        sc = st.screening(d, fit, lam)
        for a in a_values:
            dec = sc.drsss(_S(d, a))
            rows.append({"data": name, "kernel": kernel, "n": n, "k": k, "lam": lam, "a": float(a), "S": _S(d, a),
                         "removed": dec.removed / n, "removed_count": dec.removed, "undecided": dec.undecided,
                         "support": int(np.count_nonzero(fit.alpha)), "fit_rel_gap": fit.gap / fit.primal,
                         "fit_seconds": fit.seconds})
    return pd.DataFrame(rows)


def safety_on_gram(K, y, lam, a, seed, count, key=(), groups=None):
    """DRSSS at w~ = 1 (certified), then certified fits at ``count`` random weights on the sphere
    (each drawn from its own keyed generator): how many samples were removed, and how many removed
    samples are not certainly inactive at some weight (must be 0)."""
    n = len(y)
    d = st.Design("gram", "gram", np.asarray(y, float), None, np.ascontiguousarray(K),
                  np.arange(n) if groups is None else np.asarray(groups))
    fit = st.fit_at_ones(d, lam)
    S = _S(d, a)
    removed = st.screening(d, fit, lam).drsss(S).certain
    spread = np.sqrt(np.diag(K))
    violations = 0
    for i in range(count):
        w = 1.0 + st.sphere_directions(st.instance_rng(seed, "safety-weights", *key, i), n, S, 1)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            f = ws.fit_weighted_svm(d.K, d.y, lam, w, tol=1e-13, alpha0=fit.alpha, max_epochs=300_000, check_psd=False)
        certain = f.margins - spread * np.sqrt(2 * max(f.gap, 0.0) / lam) > 1.0
        violations += int(np.sum(removed & ~certain))
    return int(removed.sum()), violations


# ----------------------------------------------------------------------------- the book's former setup
def design(name: str):
    """The book's former setup: features divided by their largest absolute value, labels +-1
    (:func:`~svmcert.experiments.sign_constrained.duality.load_scaled`). The Benchmarks page still times the
    weighted SVM on it; the drsss chapter shows it as one reading of the paper."""
    return load_scaled(name)


def gram(X, kernel: str) -> np.ndarray:
    """Gram matrix of the former setup: the intercept as a regularised constant feature, K + 1."""
    return ws.regularised_intercept(linear_kernel(X) if kernel == "linear" else rbf_kernel(X))
