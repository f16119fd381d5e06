"""Chapter "SVM-pairwise with sign constraints" (Tajima et al., Sec. 7.2 and 10.2, Tables 1-2).

Smith-Waterman scores of the splice DNA sequences, SVM-pairwise features (scores to the training
sequences), the sign vector that asks for w >= 0 on similarities to positive and w <= 0 on
similarities to negative training sequences, certified fits along the lambda grid, cross-validated
choice of lambda, ROC AUC (with a certified interval) and the paired tests across splits.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from tqdm.auto import tqdm

from ... import signsvm
from ..instances import instance_rng

__all__ = ["SCORING", "LAMBDA_N_GRID", "make_aligner", "smith_waterman_matrix", "normalize_scores",
           "pairwise_features", "sign_vector", "half_splits", "get_solver", "compare_solvers", "Fit", "certify",
           "fit_path", "auc_with_bounds", "run_split", "run_splits", "paired_tests", "t_interval", "per_split_table",
           "differences", "lambda_table"]

#: EMBOSS ``water``'s defaults for DNA: EDNAFULL's +5 / -4 on A, C, G, T, gap open 10, extend 0.5.
#: Biopython, like EMBOSS, charges a gap of length k as open + (k - 1) * extend.
SCORING = {"match_score": 5.0, "mismatch_score": -4.0, "open_gap_score": -10.0, "extend_gap_score": -0.5}

#: Table 2's grid, as lambda * n (n = number of training sequences = number of features).
LAMBDA_N_GRID = (1e-6, 1e-4, 1e-2, 1.0, 1e2)


# ----------------------------------------------------------------------------- alignment scores

def make_aligner(scoring: dict | None = None):
    """A Biopython ``PairwiseAligner`` in local (Smith-Waterman) mode with ``scoring`` (default :data:`SCORING`)."""
    from Bio.Align import PairwiseAligner

    return PairwiseAligner(mode="local", **(SCORING if scoring is None else scoring))


def _cache_key(seqs, scoring: dict) -> str:
    import Bio

    h = hashlib.sha256()
    h.update("\n".join(seqs).encode())
    h.update(json.dumps({"scoring": scoring, "biopython": Bio.__version__}, sort_keys=True).encode())
    return h.hexdigest()[:16]


def smith_waterman_matrix(seqs, scoring: dict | None = None, cache_dir=None, progress: bool = True) -> np.ndarray:
    """Symmetric matrix of local-alignment scores S[i, j] = SW(seqs[i], seqs[j]), i <= j computed once.

    Parameters
    ----------
    seqs : list of str (letters ACGT).
    scoring : keyword arguments of ``PairwiseAligner`` (default :data:`SCORING`).
    cache_dir : folder for a ``sw-<hash>.npy`` cache keyed by the sequences, the scoring and the
        Biopython version (``None``: no cache). A cached matrix is reused only if its shape fits.
    progress : show a tqdm bar (one step per row).

    Returns
    -------
    ndarray of shape (n, n)
    """
    seqs = [str(s) for s in seqs]
    if not seqs or any(not s for s in seqs):
        raise ValueError("seqs: expected a non-empty list of non-empty sequences")
    scoring, n, path = dict(SCORING if scoring is None else scoring), len(seqs), None
    if cache_dir is not None:
        path = Path(cache_dir) / f"sw-{_cache_key(seqs, scoring)}.npy"
        if path.is_file():
            S = np.load(path)
            if S.shape == (n, n):
                return S
    aligner = make_aligner(scoring)
    S = np.empty((n, n))
    for i in tqdm(range(n), desc="Smith-Waterman rows", leave=False, disable=not progress):
        a = seqs[i]
        for j in range(i, n):
            S[i, j] = S[j, i] = aligner.score(a, seqs[j])
    if path is not None:                                      # write then rename: never a half-written cache
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path.with_suffix(".tmp.npy"), S)
        os.replace(path.with_suffix(".tmp.npy"), path)
    return S


def normalize_scores(S) -> np.ndarray:
    """S[i, j] / sqrt(S[i, i] S[j, j]): 1 for identical sequences, independent of the scoring's unit."""
    S = np.asarray(S, float)
    d = np.diag(S)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or np.any(d <= 0):
        raise ValueError("S: expected a square score matrix with positive self-scores on the diagonal")
    return S / np.sqrt(np.outer(d, d))


def pairwise_features(S, rows, train) -> np.ndarray:
    """SVM-pairwise feature vectors: row r holds the scores of sequence ``rows[r]`` to every training sequence."""
    return np.asarray(S)[np.ix_(np.asarray(rows), np.asarray(train))]


def sign_vector(y_train) -> np.ndarray:
    """+1 (w >= 0) on similarities to positive training sequences, -1 (w <= 0) on negatives."""
    y = np.asarray(y_train, float)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y_train: expected labels in {-1, +1}")
    return y.copy()


def half_splits(n: int, n_splits: int, seed: int, purpose: str = "splits") -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random halves (train, test) of range(n), as in the paper (train gets floor(n/2));
    split k from the stream keyed ``("svm-pairwise", purpose, n, k)``."""
    perms = [instance_rng(seed, "svm-pairwise", purpose, n, k).permutation(n) for k in range(n_splits)]
    return [(np.sort(p[: n // 2]), np.sort(p[n // 2:])) for p in perms]


# ----------------------------------------------------------------------------- solvers and certificates

def _solve_cvxpy(X, y, lam, sign, tol):
    """Primal QP with Clarabel; the multipliers of the margin constraints give alpha (times 1/n)."""
    import cvxpy as cp

    n, d = X.shape
    w, xi = cp.Variable(d), cp.Variable(n)
    margin = xi >= 1 - cp.multiply(y, X @ w)
    cons = [xi >= 0, margin] + ([cp.multiply(sign, w) >= 0] if np.any(sign != 0) else [])
    prob = cp.Problem(cp.Minimize(lam / 2 * cp.sum_squares(w) + cp.sum(xi) / n), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500)
    if w.value is None:                                      # any returned point is certified by the caller
        raise RuntimeError(f"cvxpy/Clarabel returned no point: status {prob.status}")
    w = np.where(sign * w.value < 0, 0.0, w.value)           # feasibility residue of the interior point
    return w, np.clip(n * np.asarray(margin.dual_value, float), 0.0, 1.0)


def _solve_library(X, y, lam, sign, tol):
    res = signsvm.solve(X, y, lam, sign, tol=tol)     # tol: relative duality gap
    return res.w, res.alpha


def get_solver(name: str = "cvxpy"):
    """The solver used for every fit, chosen in this one place.

    ``"cvxpy"``: Clarabel on the primal QP, the multipliers of the margin constraints giving alpha.
    ``"solve"``: :func:`svmcert.signsvm.solve` (its automatic choice of method). Returns (name, fn) with
    ``fn(X, y, lam, sign, tol) -> (w, alpha)``; every fit is certified afterwards by :func:`certify`,
    whichever solver produced it.
    """
    if name == "solve":
        return name, _solve_library
    if name == "cvxpy":
        return name, _solve_cvxpy
    raise ValueError(f"solver: expected 'cvxpy' or 'solve', got {name!r}")


def compare_solvers(X, y, sign, lam_n_list, fw_iter: int = 1000, dca_epochs: int = 200, tol: float = 1e-13,
                    solve_tol: float | None = None):
    """Seconds and certified relative gap of Clarabel, Frank-Wolfe (``fw_iter`` iterations) and the
    library's dual coordinate ascent (``dca_epochs`` epochs) on one SVM-pairwise training matrix;
    with ``solve_tol``, also ``signsvm.solve`` run until it certifies that relative gap (row
    "signsvm.solve to tolerance")."""
    rows = []
    for lam_n in lam_n_list:
        lam = lam_n / X.shape[0]
        runs = {"cvxpy/Clarabel": lambda: _solve_cvxpy(X, y, lam, sign, tol),
                "Frank-Wolfe": lambda: signsvm.frank_wolfe(X, y, lam, sign, tol=1e-300, max_iter=fw_iter,
                                                           record_history=False),
                "dual coordinate ascent": lambda: signsvm.solve(X, y, lam, sign, tol=1e-300, max_epochs=dca_epochs)}
        if solve_tol is not None:
            runs["signsvm.solve to tolerance"] = lambda: signsvm.solve(X, y, lam, sign, tol=solve_tol,
                                                                      max_epochs=100_000)
        for name, run in runs.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                out = run()
            seconds, (w, alpha) = time.perf_counter() - t0, out if isinstance(out, tuple) else (out.w, out.alpha)
            primal, _, gap = certify(w, alpha, X, y, lam, sign)
            rows.append({"lam_n": lam_n, "solver": name, "seconds": seconds, "rel_gap": gap / primal})
    return pd.DataFrame(rows)


@dataclass
class Fit:
    """A certified fit: weights, dual point, P(w), D(alpha), gap, and how it was obtained."""

    lam: float
    w: np.ndarray
    alpha: np.ndarray
    primal: float
    dual: float
    gap: float
    reused: bool          # taken over from a larger lambda (hard-margin regime), not solved again
    seconds: float

    @property
    def rel_gap(self) -> float:
        """(P - D) / P: the relative suboptimality bound of P(w)."""
        return self.gap / self.primal if self.primal > 0 else float(self.gap > 0)

    @property
    def weight_radius(self) -> float:
        """sqrt(2 gap / lam) >= ||w - w*|| (P is lam-strongly convex on S, w* its minimiser)."""
        return float(np.sqrt(2.0 * max(self.gap, 0.0) / self.lam))


def certify(w, alpha, X, y, lam, sign) -> tuple[float, float, float]:
    """(P(w), D(alpha), P(w) - D(alpha)) with the library's objectives (eqs. 5 and 9); w must be feasible."""
    if np.any(sign * w < 0):
        raise ValueError("w: violates the sign constraints, so P(w) certifies nothing")
    primal = signsvm.primal_objective(w, X, y, lam)
    dual = signsvm.dual_objective(np.clip(alpha, 0.0, 1.0), X, y, lam, sign)
    return primal, dual, primal - dual


def fit_path(X, y, lam_n_grid, sign, solver, tol: float = 1e-13, rtol: float = 1e-8) -> dict[float, Fit]:
    """Certified fits for every lambda * n in ``lam_n_grid``, from the largest lambda down.

    Hard-margin shortcut: if the fit at lambda separates the training set (every margin > 0),
    then w / min(1, min margin) with alpha * lambda'/lambda is a candidate at lambda' < lambda. If
    the data are in the hard-margin regime it is the exact optimum there too; either way it is
    kept only if its own duality gap, recomputed at lambda', has (P - D) / P <= rtol. Otherwise
    the solver runs. ``tol`` is the solver's own stopping tolerance; ``rtol`` is the relative gap
    a reused fit must reach (solved fits are certified too, and the chapter checks all of them).
    """
    name, fn = solver if isinstance(solver, tuple) else get_solver(solver)
    n = X.shape[0]
    out, prev = {}, None
    for lam_n in sorted(lam_n_grid, reverse=True):
        lam = lam_n / n
        t0 = time.perf_counter()
        fit = None
        if prev is not None:
            m = float(np.min(y * (X @ prev.w)))
            if m > 0:
                w = prev.w / min(1.0, m)
                alpha = prev.alpha * (lam / prev.lam)
                cand = Fit(lam, w, alpha, *certify(w, alpha, X, y, lam, sign), True, 0.0)
                fit = cand if cand.rel_gap <= rtol else None
        if fit is None:
            w, alpha = fn(X, y, lam, sign, tol)
            fit = Fit(lam, w, alpha, *certify(w, alpha, X, y, lam, sign), False, 0.0)
        fit.seconds = time.perf_counter() - t0
        out[lam_n] = prev = fit
    return out


# ----------------------------------------------------------------------------- evaluation

def auc_with_bounds(scores, y, radius: float = 0.0, norms=None) -> tuple[float, float, float]:
    """ROC AUC by pair counting (ties count 1/2), and a certified interval for the optimum's AUC.

    If ||w - w*|| <= radius, each score moves by at most radius * ||x_t||. A (positive, negative)
    pair whose score difference exceeds the sum of the two bounds is ordered the same way under w*,
    so AUC(w*) lies in [certainly correct pairs, 1 - certainly wrong pairs] / (n+ n-).
    """
    s, y = np.asarray(scores, float), np.asarray(y, float)
    pos, neg = y > 0, y < 0
    if not pos.any() or not neg.any():
        raise ValueError("y: need both classes to compute an AUC")
    diff = s[pos][:, None] - s[neg][None, :]
    total = diff.size
    auc = (np.count_nonzero(diff > 0) + 0.5 * np.count_nonzero(diff == 0)) / total
    b = np.zeros_like(s) if norms is None else radius * np.asarray(norms, float)   # per-score error bound
    slack = b[pos][:, None] + b[neg][None, :]
    low, high = np.count_nonzero(diff > slack) / total, (total - np.count_nonzero(diff < -slack)) / total
    return float(auc), float(low), float(high)


def _choose(cv_auc: dict[float, float], tie_tol: float) -> float:
    # Largest lambda among those within tie_tol of the best mean CV AUC (ties are equal classifiers).
    best = max(cv_auc.values())
    return max(k for k, v in cv_auc.items() if v >= best - tie_tol)


def run_split(S, y, train, test, lam_n_grid, n_folds: int, seed: int, solver="cvxpy",
              tol: float = 1e-13, rtol: float = 1e-8, tie_tol: float = 1e-6, split: int = 0) -> tuple[list, list]:
    """One train/test split: CV over ``lam_n_grid`` inside ``train``, then fits on all of ``train``.

    In every CV fold the features are the scores to that fold's training sequences, so no
    validation sequence leaks into the features. Returns (rows, fits): one row per method and
    lambda (CV mean AUC, test AUC with certified interval, whether CV chose it, fraction of weights
    certainly of the wrong sign) and one record per fit (gap, relative gap, reused, seconds). ``tie_tol``: mean CV
    AUCs this close to the best count as ties, broken towards the larger lambda (an AUC step on a
    validation fold is at least 1/(n+ n-) >> 1e-6, so only equal classifiers tie).
    """
    from sklearn.model_selection import StratifiedKFold

    solver = solver if isinstance(solver, tuple) else get_solver(solver)
    y = np.asarray(y, float)
    fold_seed = int(instance_rng(seed, "svm-pairwise", "folds", split).integers(2**31))
    folds = list(StratifiedKFold(n_folds, shuffle=True, random_state=fold_seed)
                 .split(np.zeros(len(train)), y[train]))
    rows, fits = [], []
    for method in ("conventional", "sign-constrained"):
        cv = {k: [] for k in lam_n_grid}
        for f, (a, b) in enumerate(folds):
            tr, va = train[a], train[b]
            sign = sign_vector(y[tr]) if method == "sign-constrained" else np.zeros(len(tr))
            path = fit_path(pairwise_features(S, tr, tr), y[tr], lam_n_grid, sign, solver, tol, rtol)
            for k, fit in path.items():
                cv[k].append(auc_with_bounds(pairwise_features(S, va, tr) @ fit.w, y[va])[0])
                fits.append(dict(split=split, method=method, stage=f"cv fold {f}", lam_n=k, gap=fit.gap, rel_gap=fit.rel_gap,
                                 reused=fit.reused, seconds=fit.seconds))
        cv_mean = {k: float(np.mean(v)) for k, v in cv.items()}
        chosen = _choose(cv_mean, tie_tol)
        sign = sign_vector(y[train]) if method == "sign-constrained" else np.zeros(len(train))
        path = fit_path(pairwise_features(S, train, train), y[train], lam_n_grid, sign, solver, tol, rtol)
        Xte = pairwise_features(S, test, train)
        for k, fit in path.items():
            auc, low, high = auc_with_bounds(Xte @ fit.w, y[test], fit.weight_radius, np.linalg.norm(Xte, axis=1))
            # weights certainly of the "wrong" sign at the exact optimum: beyond the radius ||w - w*||
            wrong = float(np.mean(sign_vector(y[train]) * fit.w < -fit.weight_radius))
            rows.append(dict(split=split, method=method, lam_n=k, cv_auc=cv_mean[k], chosen=k == chosen, test_auc=auc,
                             auc_low=low, auc_high=high, wrong_sign_fraction=wrong))
            fits.append(dict(split=split, method=method, stage="final", lam_n=k, gap=fit.gap, rel_gap=fit.rel_gap,
                             reused=fit.reused, seconds=fit.seconds))
    return rows, fits


def run_splits(S, y, splits, lam_n_grid, n_folds: int, seed: int, solver="cvxpy",
               progress: bool = True, **kw) -> tuple[list, list]:
    """:func:`run_split` on every (train, test) pair of ``splits``, with a tqdm bar over splits."""
    solver = solver if isinstance(solver, tuple) else get_solver(solver)
    it = tqdm(enumerate(splits), total=len(splits), desc="splits", leave=False, disable=not progress)
    rows, fits = [], []
    for k, (train, test) in it:
        r, f = run_split(S, y, train, test, lam_n_grid, n_folds, seed, solver, split=k, **kw)
        rows, fits = rows + r, fits + f
    return rows, fits


def paired_tests(a, b) -> dict:
    """Paired comparison of per-split AUCs ``a`` (sign-constrained) and ``b`` (conventional).

    Returns mean and sd of a - b, the number of splits where a > b, the two-sided paired t-test
    p-value (``scipy.stats.ttest_rel``, the paper's one-sample t-test on the differences) and the
    Wilcoxon signed-rank p-value (exact for small samples without ties; NaN if all differences are 0).
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    out = {"mean_diff": float(d.mean()), "sd_diff": float(d.std(ddof=1)) if d.size > 1 else float("nan"),
           "wins": int(np.sum(d > 0)), "losses": int(np.sum(d < 0)), "splits": int(d.size)}
    out["t_pvalue"] = float(stats.ttest_rel(a, b).pvalue) if d.size > 1 and np.any(d != d[0]) else float("nan")
    out["wilcoxon_pvalue"] = float(stats.wilcoxon(a, b).pvalue) if np.any(d != 0) else float("nan")
    return out


def t_interval(d, level: float = 0.95, err: float = 0.0) -> tuple[float, float]:
    """Student-t confidence interval for the mean of the paired differences ``d``. If every d_k may
    be off by up to ``err`` (certified solver error), the interval is widened to cover every such
    perturbation: the mean moves by at most err and the sd by at most err * sqrt(n / (n - 1))."""
    d = np.asarray(d, float)
    if d.size < 2:
        return float("-inf"), float("inf")
    c = stats.t.ppf(0.5 + level / 2, d.size - 1)
    half = c * d.std(ddof=1) / np.sqrt(d.size) + err * (1 + c / np.sqrt(d.size - 1))
    return float(d.mean() - half), float(d.mean() + half)


def per_split_table(rows):
    """One row per split at the CV-chosen lambda of each method: both test AUCs, their difference
    (sign-constrained - conventional) and the certified interval of that difference."""
    df = pd.DataFrame(rows)
    ch = df[df["chosen"]].set_index(["split", "method"]).sort_index()
    c, s = ch.xs("conventional", level="method"), ch.xs("sign-constrained", level="method")
    return pd.DataFrame({
        "split": c.index, "lam_n_conventional": c["lam_n"].values, "lam_n_sign": s["lam_n"].values,
        "auc_conventional": c["test_auc"].values, "auc_sign": s["test_auc"].values,
        "difference": s["test_auc"].values - c["test_auc"].values,
        "difference_low": s["auc_low"].values - c["auc_high"].values,
        "difference_high": s["auc_high"].values - c["auc_low"].values,
        "wrong_sign_conventional": c["wrong_sign_fraction"].values})


def differences(rows, lam_n: float) -> tuple[np.ndarray, np.ndarray]:
    """Test AUCs at a fixed lambda * n, ordered by split: (sign-constrained, conventional)."""
    df = pd.DataFrame(rows)
    g = df[df["lam_n"] == lam_n].sort_values("split")
    return (g[g["method"] == "sign-constrained"]["test_auc"].to_numpy(), g[g["method"] == "conventional"]["test_auc"].to_numpy())


def lambda_table(rows, level: float = 0.95):
    """Table 2 in spirit: per lambda * n, mean (sd) test AUC of both methods over the splits, how
    often CV chose it, the share of certainly wrong-signed conventional weights, and the paired
    comparison at that fixed lambda (:func:`paired_tests`, :func:`t_interval` at ``level``)."""
    df = pd.DataFrame(rows)
    out = []
    for lam_n, g in df.groupby("lam_n", sort=True):
        c, s = g[g["method"] == "conventional"], g[g["method"] == "sign-constrained"]
        a, b = differences(rows, lam_n)
        ci = dict(zip(("ci_low", "ci_high"), t_interval(a - b, level)))
        out.append({"lam_n": lam_n, "conventional_mean": c["test_auc"].mean(), "conventional_sd": c["test_auc"].std(ddof=1),
                    "sign_mean": s["test_auc"].mean(), "sign_sd": s["test_auc"].std(ddof=1),
                    "chosen_conventional": int(c["chosen"].sum()), "chosen_sign": int(s["chosen"].sum()),
                    "wrong_sign_conventional": c["wrong_sign_fraction"].mean(), **paired_tests(a, b), **ci})
    return pd.DataFrame(out)
