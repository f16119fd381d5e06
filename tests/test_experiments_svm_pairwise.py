"""Tests of the SVM-pairwise chapter's driver (svmcert.experiments.sign_constrained.svm_pairwise).

References are independent of the code under test: a pure-Python Smith-Waterman (Gotoh's
affine-gap recursion), scikit-learn's roc_auc_score, scipy's tests, and the cvxpy reference of
the sign-constrained primal.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from svmcert import signsvm
from svmcert.experiments.sign_constrained import svm_pairwise as sp
from svmcert.reference import solve_primal_cvxpy


def smith_waterman_reference(a, b, match, mismatch, open_, extend):
    """Local alignment score with affine gaps: a gap of length k scores open_ + (k - 1) * extend."""
    neg = float("-inf")
    H = [[0.0] * (len(b) + 1) for _ in range(len(a) + 1)]
    E = [[neg] * (len(b) + 1) for _ in range(len(a) + 1)]   # gap in a (moving along b)
    F = [[neg] * (len(b) + 1) for _ in range(len(a) + 1)]   # gap in b (moving along a)
    best = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            E[i][j] = max(H[i][j - 1] + open_, E[i][j - 1] + extend)
            F[i][j] = max(H[i - 1][j] + open_, F[i - 1][j] + extend)
            diag = H[i - 1][j - 1] + (match if a[i - 1] == b[j - 1] else mismatch)
            H[i][j] = max(0.0, diag, E[i][j], F[i][j])
            best = max(best, H[i][j])
    return best


def random_dna(rng, n, lo=1, hi=14):
    return ["".join(rng.choice(list("ACGT"), size=int(rng.integers(lo, hi + 1)))) for _ in range(n)]


@pytest.mark.parametrize("scoring", [sp.SCORING,
                                     {"match_score": 2.0, "mismatch_score": -3.0, "open_gap_score": -3.0,
                                      "extend_gap_score": -1.0}])
def test_scores_agree_with_pure_python_smith_waterman(scoring, rng):
    seqs = random_dna(rng, 14)
    # related pairs so that gapped local alignments actually occur
    seqs += [seqs[0][:4] + "T" + seqs[0][4:], seqs[1] + "GG" + seqs[1]]
    S = sp.smith_waterman_matrix(seqs, scoring, progress=False)
    args = (scoring["match_score"], scoring["mismatch_score"], scoring["open_gap_score"], scoring["extend_gap_score"])
    ref = np.array([[smith_waterman_reference(a, b, *args) for b in seqs] for a in seqs])
    np.testing.assert_array_equal(S, ref)
    np.testing.assert_array_equal(S, S.T)


def test_cache_is_keyed_by_sequences_and_scoring(tmp_path, rng):
    seqs = random_dna(rng, 6)
    S = sp.smith_waterman_matrix(seqs, cache_dir=tmp_path, progress=False)
    files = list(tmp_path.glob("sw-*.npy"))
    assert len(files) == 1
    np.save(files[0], S + 1.0)                       # a changed cache file is what comes back ...
    np.testing.assert_array_equal(sp.smith_waterman_matrix(seqs, cache_dir=tmp_path, progress=False), S + 1.0)
    other = dict(sp.SCORING, match_score=4.0)        # ... but other scoring or sequences get their own file
    sp.smith_waterman_matrix(seqs, other, cache_dir=tmp_path, progress=False)
    sp.smith_waterman_matrix(seqs[:-1], cache_dir=tmp_path, progress=False)
    assert len(list(tmp_path.glob("sw-*.npy"))) == 3


def test_features_sign_and_normalisation():
    S = np.array([[4.0, 1.0, 2.0], [1.0, 9.0, 3.0], [2.0, 3.0, 16.0]])
    N = sp.normalize_scores(S)
    np.testing.assert_allclose(np.diag(N), 1.0)
    assert N[0, 1] == pytest.approx(1.0 / 6.0) and N[1, 2] == pytest.approx(3.0 / 12.0)
    with pytest.raises(ValueError, match="S"):
        sp.normalize_scores(np.array([[0.0, 1.0], [1.0, 1.0]]))
    X = sp.pairwise_features(S, [2, 0], [1, 2])
    np.testing.assert_array_equal(X, [[3.0, 16.0], [1.0, 2.0]])
    np.testing.assert_array_equal(sp.sign_vector([1, -1, 1]), [1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="y_train"):
        sp.sign_vector([1, 0])


def test_half_splits_partition():
    for train, test in sp.half_splits(11, 3, 0):
        assert len(train) == 5 and len(test) == 6
        np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(11))


def test_auc_bookkeeping_and_certified_interval(rng):
    y = rng.choice([-1.0, 1.0], size=60)
    s = np.round(rng.standard_normal(60), 1)        # rounding creates ties
    auc, low, high = sp.auc_with_bounds(s, y)
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-15)
    assert low <= auc <= high and high - low == pytest.approx(np.mean(s[y > 0][:, None] == s[y < 0][None, :]))
    # the interval contains the AUC of every weight vector within the radius
    X = rng.standard_normal((60, 5))
    w = rng.standard_normal(5)
    r, norms = 0.05, np.linalg.norm(X, axis=1)
    _, low, high = sp.auc_with_bounds(X @ w, y, r, norms)
    for _ in range(200):
        u = rng.standard_normal(5)
        w2 = w + r * rng.uniform() * u / np.linalg.norm(u)
        assert low - 1e-15 <= roc_auc_score(y, X @ w2) <= high + 1e-15
    assert sp.auc_with_bounds(X @ w, y, 1e6, norms)[1:] == (0.0, 1.0)
    with pytest.raises(ValueError, match="both classes"):
        sp.auc_with_bounds(s, np.ones(60))


@pytest.mark.parametrize("constrained", [False, True])
def test_fit_path_matches_reference_and_reuses_only_certified_fits(constrained, rng):
    seqs = random_dna(rng, 30, 8, 16)
    S = sp.normalize_scores(sp.smith_waterman_matrix(seqs, progress=False))
    y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)
    sign = sp.sign_vector(y) if constrained else np.zeros(30)
    path = sp.fit_path(S, y, (1e-6, 1e-2, 1.0), sign, "cvxpy")
    assert sorted(path) == [1e-6, 1e-2, 1.0]
    for lam_n, fit in path.items():
        ref = solve_primal_cvxpy(S, y, lam_n / 30, sign)
        assert fit.primal <= ref.value * (1 + 1e-6) + 1e-12
        assert fit.rel_gap <= 1e-8 and np.all(sign * fit.w >= 0)
        assert fit.primal == pytest.approx(signsvm.primal_objective(fit.w, S, y, lam_n / 30))
    # the training set is separable (diagonal 1), so the smallest lambda reuses the hard-margin fit
    assert path[1e-6].reused and not path[1.0].reused


def test_choose_breaks_ties_towards_larger_lambda():
    assert sp._choose({1e-4: 0.8, 1e-2: 0.8 - 1e-9, 1.0: 0.7}, 1e-6) == 1e-2
    assert sp._choose({1e-4: 0.81, 1e-2: 0.8, 1.0: 0.7}, 1e-6) == 1e-4


def test_paired_tests_and_interval(rng):
    a, b = rng.uniform(0.7, 0.8, 10), rng.uniform(0.7, 0.8, 10)
    out = sp.paired_tests(a, b)
    assert out["t_pvalue"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert out["wilcoxon_pvalue"] == pytest.approx(stats.wilcoxon(a, b).pvalue)
    assert out["wins"] + out["losses"] == 10 and out["mean_diff"] == pytest.approx(np.mean(a - b))
    lo, hi = sp.t_interval(a - b)
    assert lo < out["mean_diff"] < hi
    assert np.isnan(sp.paired_tests(a, a)["wilcoxon_pvalue"])


def test_run_split_end_to_end_and_tables(rng):
    seqs = random_dna(rng, 40, 10, 20)
    S = sp.normalize_scores(sp.smith_waterman_matrix(seqs, progress=False))
    y = np.where(np.array([s.count("A") for s in seqs]) >= np.median([s.count("A") for s in seqs]), 1.0, -1.0)
    splits = sp.half_splits(40, 2, 0)
    rows, fits = sp.run_splits(S, y, splits, (1e-2, 1.0), 2, 0, progress=False)
    df = pd.DataFrame(rows)
    assert len(df) == 2 * 2 * 2 and df.groupby(["split", "method"])["chosen"].sum().eq(1).all()
    assert (df[df["method"] == "sign-constrained"]["wrong_sign_fraction"] == 0).all()
    assert ((df["auc_low"] <= df["test_auc"]) & (df["test_auc"] <= df["auc_high"])).all()
    assert len(fits) == 2 * 2 * (2 + 1) * 2 and max(f["rel_gap"] for f in fits) <= 1e-8
    per = sp.per_split_table(rows)
    np.testing.assert_allclose(per["difference"], per["auc_sign"] - per["auc_conventional"])
    assert (per["difference_low"] <= per["difference"]).all() and (per["difference"] <= per["difference_high"]).all()
    lt = sp.lambda_table(rows)
    assert list(lt["lam_n"]) == [1e-2, 1.0] and (lt["chosen_conventional"].sum(), lt["chosen_sign"].sum()) == (2, 2)
