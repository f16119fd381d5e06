"""SignConstrainedSVC as the estimator LinearSVC users expect: scikit-learn's estimator checks,
sample and class weights (against cvxpy, LinearSVC and repeated rows), sparse input without
densifying, one-vs-rest, warm starts, convergence warnings, pipelines and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.exceptions
from scipy import sparse
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmcert import signsvm
from svmcert.exceptions import ConvergenceWarning
from svmcert.reference import solve_primal_cvxpy
from svmcert.signsvm import SignConstrainedSVC
from svmcert.signsvm._estimator_input import class_weights, problem_weights
from svmcert.signsvm.coordinate_ascent import dca_options, run_coordinate_ascent
from svmcert.signsvm.problem import SignSVMProblem, canonical_csr


# --------------------------------------------------------------------------- scikit-learn's checks
# Every check runs and passes, on two instances: the paper's model (no intercept) and LinearSVC's
# (fit_intercept=True). Both use tol=1e-12, as scikit-learn's own suite runs LinearSVC for
# check_sample_weight_equivalence (tol=1e-12): that check compares decision values to 1e-7, and
# the default tol=1e-6 certifies the objective to 1e-6, which bounds the weights only to
# sqrt(2 gap / lam) (tests/test_signsvm_solvers.py runs the default instance and lists the two
# equivalence checks it fails for that reason). The one check that does not run,
# check_array_api_input, is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1 is set before
# scipy is imported. The only tag we set that loosens a check is poor_score, for
# fit_intercept=False alone (see SignConstrainedSVC.__sklearn_tags__: a boundary through the
# origin cannot reach check_class_weight_classifiers' score on off-centre blobs; LinearSVC
# without intercept does not either).
@parametrize_with_checks([SignConstrainedSVC(tol=1e-12), SignConstrainedSVC(fit_intercept=True, tol=1e-12)])
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_the_tags_say_what_the_model_is():
    assert SignConstrainedSVC().__sklearn_tags__().input_tags.sparse
    assert SignConstrainedSVC().__sklearn_tags__().classifier_tags.multi_class
    assert SignConstrainedSVC().__sklearn_tags__().classifier_tags.poor_score
    assert not SignConstrainedSVC(fit_intercept=True).__sklearn_tags__().classifier_tags.poor_score


# --------------------------------------------------------------------------- small problems
def _binary(seed, n=40, d=6, density=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], size=n)
    return X, y, sign, weights


@pytest.mark.parametrize("solver", ["auto", "dual-coordinate", "interior-point", "frank-wolfe"])
@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_fit_matches_cvxpy(solver, seed):
    X, y, sign, s = _binary(seed)
    fw = solver == "frank-wolfe"                  # Algorithm 1 converges slowly: a larger lambda, a looser tol
    lam = (5.0 if fw else 0.5) / X.shape[0]
    tol = 1e-3 if fw else 1e-9
    ref = solve_primal_cvxpy(X, y, lam, sign, weights=s)
    for data in (X, sparse.csr_matrix(X)):
        clf = SignConstrainedSVC(sign_constraints=sign, lam=lam, solver=solver, tol=tol).fit(data, y, sample_weight=s)
        res = clf.result_
        assert res.converged and res.gap <= tol * res.primal
        assert np.all(sign * clf.coef_[0] >= 0)
        # our primal is an upper bound on P* and our dual a lower bound: cvxpy's optimum between
        P_ours = signsvm.primal_objective(clf.coef_[0], X, y, lam) if s is None else \
            0.5 * lam * clf.coef_[0] @ clf.coef_[0] + np.mean(s * np.maximum(0, 1 - y * (X @ clf.coef_[0])))
        assert P_ours == pytest.approx(res.primal, rel=1e-12)
        assert res.dual <= ref.value * (1 + 1e-12)
        assert res.primal >= ref.value * (1 - 1e-8)        # cvxpy/Clarabel is accurate to ~1e-9
        assert (res.primal - ref.value) / ref.value <= tol + 1e-8
        assert np.all(res.alpha[s == 0] == 0.0) and np.all(res.alpha <= s) and np.all(res.alpha >= 0)


@pytest.mark.parametrize("shrinking", [False, True])
def test_both_engines_agree_on_a_weighted_problem(shrinking):
    X, y, sign, s = _binary(3, n=60, d=8, density=0.6)
    lam = 1.0 / X.shape[0]
    a = signsvm.dual_coordinate_ascent(X, y, lam, sign, tol=1e-10, shrinking=False, engine="numpy", sample_weight=s)
    b = signsvm.dual_coordinate_ascent(X, y, lam, sign, tol=1e-10, shrinking=shrinking, engine="numba",
                                       sample_weight=s)
    assert a.converged and b.converged
    if not shrinking:            # the same passes, in the same order: the same trajectory up to rounding
        assert a.n_iter == b.n_iter
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-9)
    bound = np.sqrt(2 * a.gap / lam) + np.sqrt(2 * b.gap / lam)     # strong convexity, both certificates
    assert np.linalg.norm(a.w - b.w) <= bound + 1e-12
    assert max(a.dual, b.dual) <= min(a.primal, b.primal)
    # CSR rows read directly, by both engines, give the dense engines' results (within the
    # certificates: products with a sparse X round differently, so the runs stop elsewhere)
    p = SignSVMProblem(canonical_csr(sparse.csr_matrix(X)), y, lam, sign, s)
    for engine, dense in (("numpy", a), ("numba", b)):
        opts = dca_options(tol=1e-10, engine=engine, shrinking=shrinking and engine == "numba")
        res = run_coordinate_ascent(p, opts)
        assert res.converged
        assert np.linalg.norm(res.w - dense.w) <= np.sqrt(2 * res.gap / lam) + np.sqrt(2 * dense.gap / lam) + 1e-12
        assert res.primal == pytest.approx(dense.primal, rel=2e-10)


def test_unit_weights_run_the_unweighted_arithmetic():
    X, y, sign, _ = _binary(4)
    lam = 1.0 / X.shape[0]
    plain = SignConstrainedSVC(sign_constraints=sign, lam=lam).fit(X, y)
    ones = SignConstrainedSVC(sign_constraints=sign, lam=lam).fit(X, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    assert plain.result_.gap == ones.result_.gap


# --------------------------------------------------------------------------- against LinearSVC
def _liblinear_objective(svc, k, X, y_codes, lam, s, fit_intercept):
    ypm = np.where(y_codes == (1 if svc.coef_.shape[0] == 1 else k), 1.0, -1.0)
    w = np.r_[svc.coef_[k], svc.intercept_[k]] if fit_intercept else svc.coef_[k]
    Xd = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    return 0.5 * lam * w @ w + np.mean(s * np.maximum(0.0, 1.0 - ypm * (Xd @ w)))


LINEARSVC_RTOL = 1e-8
"""LinearSVC's accuracy here: with tol=1e-10 liblinear's dual coordinate descent converges within
10^5 passes on these problems and lands within 3e-10 (relative) of our certified optimum. (With
tol=1e-12 it runs into its iteration cap on some of them and stops up to 6e-4 above the optimum,
which our certificate detects: its objective minus our dual value.)"""


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("class_weight", [None, {0: 3.0, 2: 0.5}, "balanced"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_unconstrained_weighted_fit_matches_linearsvc(n_classes, class_weight, fit_intercept):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    if n_classes == 2:
        X, y = X[y > 0], y[y > 0] - 1
        class_weight = {0: 3.0} if isinstance(class_weight, dict) else class_weight
    sw = np.random.default_rng(0).integers(0, 4, size=y.size).astype(float)
    C = 0.5
    ours = SignConstrainedSVC(C=C, class_weight=class_weight, fit_intercept=fit_intercept, tol=1e-10).fit(
        X, y, sample_weight=sw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sklearn.exceptions.ConvergenceWarning)
        svc = LinearSVC(loss="hinge", dual=True, C=C, class_weight=class_weight, fit_intercept=fit_intercept,
                        tol=1e-10, max_iter=100000, random_state=0).fit(X, y, sample_weight=sw)
    assert ours.coef_.shape == svc.coef_.shape and ours.intercept_.shape == (svc.coef_.shape[0],)
    # (LinearSVC's intercept_ is the float 0.0 without an intercept; ours stays an array of zeros)
    lam = 1.0 / (C * y.size)
    cw = class_weights(class_weight, np.unique(y), y, sw)
    for k, res in enumerate(ours.results_):
        s = problem_weights(y, None if n_classes == 2 else k, sw, cw)
        p_svc = _liblinear_objective(svc, k, X, y, lam, s, fit_intercept)
        assert res.converged
        assert p_svc >= res.dual * (1 - 1e-12)                  # our certificate: nobody goes below D
        assert abs(p_svc - res.primal) / res.primal <= LINEARSVC_RTOL
    assert np.mean(ours.predict(X) == svc.predict(X)) >= 0.95


# --------------------------------------------------------------------------- weights as rows
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_integer_sample_weights_equal_repeated_rows(n_classes, fit_intercept):
    rng = np.random.default_rng(5)
    n, d = 45, 4
    X = rng.standard_normal((n, d))
    y = rng.integers(0, n_classes, size=n)
    sw = rng.integers(0, 4, size=n)
    sw[:n_classes] = 1                                     # keep every class
    y[:n_classes] = np.arange(n_classes)
    sign = np.array([1.0, 0.0, -1.0, 0.0])
    params = dict(sign_constraints=sign, C=2.0, fit_intercept=fit_intercept, tol=1e-12)
    weighted = SignConstrainedSVC(**params).fit(X, y, sample_weight=sw)
    repeated = SignConstrainedSVC(**params).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    # the two objectives are the same up to the factor n / sum(sw) (lam = 1 / (C n))
    for a, b in zip(weighted.results_, repeated.results_):
        assert a.primal * n == pytest.approx(b.primal * sw.sum(), rel=1e-10)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-7, atol=1e-8)


# --------------------------------------------------------------------------- sparse input
@pytest.mark.parametrize("solver", ["auto", "dual-coordinate", "interior-point", "frank-wolfe"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_sparse_input_gives_the_dense_result(solver, fit_intercept):
    X, y, sign, s = _binary(6, n=80, d=10, density=0.3)
    fw = solver == "frank-wolfe"                  # Algorithm 1 converges slowly: a larger lambda, a looser tol
    tol, C = (1e-3, 0.2) if fw else (1e-8, 1.0)
    params = dict(sign_constraints=sign, C=C, solver=solver, tol=tol, fit_intercept=fit_intercept)
    dense = SignConstrainedSVC(**params).fit(X, y, sample_weight=s)
    lam = 1.0 / (C * X.shape[0])
    for fmt in ("csr", "csc", "coo", "lil"):
        Xs = sparse.csr_matrix(X).asformat(fmt)
        sp = SignConstrainedSVC(**params).fit(Xs, y, sample_weight=s)
        bound = np.sqrt(2 * dense.result_.gap / lam) + np.sqrt(2 * sp.result_.gap / lam)
        dist = np.linalg.norm(np.r_[sp.coef_[0] - dense.coef_[0], sp.intercept_ - dense.intercept_])
        assert dist <= bound + 1e-10
        assert sp.result_.primal == pytest.approx(dense.result_.primal, rel=2 * tol)
        np.testing.assert_allclose(sp.decision_function(Xs), sp.decision_function(X), rtol=1e-12, atol=1e-12)


def test_a_large_sparse_matrix_is_never_densified(monkeypatch):
    # 200 000 x 50 000 with 0.01% nonzeros: 1e6 stored entries, 80 GB if it were dense
    rng = np.random.default_rng(0)
    n, d, k = 200_000, 50_000, 5
    X = sparse.csr_matrix((rng.standard_normal(k * n), rng.integers(0, d, size=k * n), np.arange(0, k * n + 1, k)),
                          shape=(n, d))
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.1 * rng.standard_normal(n) > 0, "pos", "neg")

    def refuse(self, *args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sparse.csr_matrix, sparse.csr_array, sparse.csc_matrix, sparse.coo_matrix, sparse.coo_array):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    clf = SignConstrainedSVC(C=0.01, sign_constraints=np.sign(w) * (rng.random(d) < 0.5)).fit(X, y)
    assert clf.converged_ and clf.result_.gap <= 1e-6 * clf.result_.primal
    assert clf.predict(X[:5]).shape == (5,)


# --------------------------------------------------------------------------- one-vs-rest
def test_multiclass_follows_linearsvc_conventions():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = SignConstrainedSVC(fit_intercept=True, C=1.0).fit(X, labels)
    assert clf.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    assert clf.coef_.shape == (3, 4) and clf.intercept_.shape == (3,)
    scores = clf.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])
    assert len(clf.results_) == 3 and clf.n_iter_ == max(r.n_iter for r in clf.results_)
    assert clf.converged_ and clf.score(X, labels) > 0.9
    for k, res in enumerate(clf.results_):                 # problem k is class k against the rest
        np.testing.assert_array_equal(res.w[:-1], clf.coef_[k])
    svc = LinearSVC(loss="hinge", C=1.0, max_iter=100000, random_state=0).fit(X, labels)
    assert np.mean(clf.predict(X) == svc.predict(X)) > 0.95
    binary = SignConstrainedSVC().fit(X[50:], labels[50:])
    assert binary.coef_.shape == (1, 4) and binary.decision_function(X[50:]).shape == (100,)
    np.testing.assert_array_equal(binary.predict(X[50:]), binary.classes_[(binary.decision_function(X[50:]) > 0) * 1])


def test_sign_constraints_hold_in_every_one_vs_rest_problem():
    X, y = load_iris(return_X_y=True)
    sign = np.array([1.0, -1.0, 0.0, 1.0])
    clf = SignConstrainedSVC(sign_constraints=sign, fit_intercept=True).fit(X, y)
    assert np.all(sign * clf.coef_ >= 0)


# --------------------------------------------------------------------------- warm start, warnings
def test_warm_start_reuses_the_dual_point():
    X, y, sign, s = _binary(7, n=300, d=8)
    cold = SignConstrainedSVC(sign_constraints=sign, C=1.0, solver="dual-coordinate").fit(X, y, sample_weight=s)
    warm = SignConstrainedSVC(sign_constraints=sign, C=1.0, solver="dual-coordinate", warm_start=True)
    warm.fit(X, y, sample_weight=s)
    assert warm.n_iter_ == cold.n_iter_
    warm.fit(X, y, sample_weight=s)                       # from the optimum: certified at once
    assert warm.n_iter_ == 0 and warm.converged_
    warm.set_params(C=1.1).fit(X, y, sample_weight=s)     # a nearby problem: fewer passes
    fresh = SignConstrainedSVC(sign_constraints=sign, C=1.1, solver="dual-coordinate").fit(X, y, sample_weight=s)
    assert warm.converged_ and warm.n_iter_ < fresh.n_iter_
    assert warm.result_.primal == pytest.approx(fresh.result_.primal, rel=2e-6)
    warm.fit(X[:100], y[:100])                           # other shapes: a cold start, no error
    assert warm.converged_


def test_stopping_early_warns_with_the_library_warning_that_sklearn_filters_silence():
    X, y, sign, _ = _binary(8)
    clf = SignConstrainedSVC(sign_constraints=sign, lam=1e-4, tol=1e-14, max_iter=1, solver="dual-coordinate")
    with pytest.warns(ConvergenceWarning, match="max_iter") as record:
        clf.fit(X, y)
    assert len(record) == 1 and issubclass(record[0].category, sklearn.exceptions.ConvergenceWarning)
    assert clf.converged_ is False and clf.result_.converged is False and clf.n_iter_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=sklearn.exceptions.ConvergenceWarning)
        clf.fit(X, y)


@pytest.mark.parametrize("solver", ["auto", "dual-coordinate"])
def test_default_budget_certifies_a_c_grid_on_breast_cancer(solver):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        for C in (1e-2, 1.0, 100.0):
            clf = SignConstrainedSVC(C=C, solver=solver).fit(X, y)
            assert clf.converged_ and clf.result_.gap <= 1e-6 * clf.result_.primal


def test_pipeline_and_grid_search_with_sample_weight():
    X, y = load_breast_cancer(return_X_y=True)
    sign = np.zeros(X.shape[1])
    sign[:2] = -1.0                     # mean radius and texture: larger means benign (label 1)
    pipe = make_pipeline(StandardScaler(), SignConstrainedSVC(sign_constraints=sign, fit_intercept=True))
    grid = GridSearchCV(pipe, {"signconstrainedsvc__C": [0.1, 1.0]}, cv=3)
    weights = np.where(y == 0, 2.0, 1.0)
    grid.fit(X, y, signconstrainedsvc__sample_weight=weights)
    assert grid.best_score_ > 0.93
    best = grid.best_estimator_[-1]
    assert np.all(sign * best.coef_[0] >= 0) and best.converged_


# --------------------------------------------------------------------------- bad input
X0, Y0 = np.random.default_rng(9).standard_normal((6, 3)), np.array(["a", "b", "c", "a", "b", "c"])


@pytest.mark.parametrize("params, fit_kw, name", [
    (dict(class_weight={"a": 1.0, "z": 2.0}), {}, "class_weight"),
    (dict(class_weight="balance"), {}, "class_weight"),
    (dict(class_weight=[1.0, 2.0]), {}, "class_weight"),
    (dict(class_weight={"a": -1.0}), {}, "class_weight"),
    (dict(class_weight={"a": np.nan}), {}, "class_weight"),
    ({}, dict(sample_weight=-np.ones(6)), "sample_weight"),
    ({}, dict(sample_weight=np.ones(5)), "sample_weight"),
    ({}, dict(sample_weight=np.ones((6, 2))), "sample_weight"),
    ({}, dict(sample_weight=np.r_[np.nan, np.ones(5)]), "sample_weight"),
    ({}, dict(sample_weight=np.zeros(6)), "sample_weight"),
    ({}, dict(sample_weight=np.array([1.0, 0, 0, 1, 0, 0])), "sample_weight"),
    (dict(class_weight={"b": 0.0, "c": 0.0}), {}, "class_weight"),
    (dict(sign_constraints=[1, 0]), {}, "sign_constraints"),
    (dict(sign_constraints=[1, 0, 3]), {}, "sign_constraints"),
    (dict(warm_start="yes"), {}, "warm_start"),
    (dict(fit_intercept=1), {}, "fit_intercept"),
    (dict(max_iter=0), {}, "max_iter"),
    (dict(max_iter=2.5), {}, "max_iter"),
    (dict(C=-1.0), {}, "C"),
    (dict(lam=0.0), {}, "lam"),
    (dict(tol=0.0), {}, "tol"),
    (dict(solver="liblinear"), {}, "solver"),
    (dict(random_state=None), {}, "random_state"),
    (dict(fit_intercept=True, intercept_scaling=-1.0), {}, "intercept_scaling"),
])
def test_bad_input_names_the_argument(params, fit_kw, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        SignConstrainedSVC(**params).fit(X0, Y0, **fit_kw)


def test_zero_weights_drop_samples():
    X, y, sign, _ = _binary(10, n=50)
    s = np.ones(50)
    s[::3] = 0.0
    keep = s > 0
    # with lam = 1/(C n), the objective does not depend on n: zero weights are removed rows
    a = SignConstrainedSVC(sign_constraints=sign, C=1.0, tol=1e-12).fit(X, y, sample_weight=s)
    b = SignConstrainedSVC(sign_constraints=sign, C=1.0, tol=1e-12).fit(X[keep], y[keep])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    assert np.all(a.result_.alpha[~keep] == 0.0)
