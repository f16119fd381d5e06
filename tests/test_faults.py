"""Regression tests for the fault-injection pass: the pipeline never loses, fakes or misjudges a
table, and the library never answers wrongly in silence.

Each test reproduces one finding and pins the behaviour that replaced it. The library part (items 6-9):
a certified verdict, a correct answer computed after scaling, or a ValueError naming the argument.
The pipeline part (items 1-5) builds throw-away projects in tmp_path and runs the real runner,
papermill and kernels on them: concurrent runs of one chapter, a runner killed with SIGTERM or
SIGKILL, a cell that calls ``sys.exit(0)``, a kernel that dies, an unwritable claims folder, and
``svmcert book check`` fed files that were tampered with or cannot be read. Every test here failed
on the code before the fix.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest

from svmcert.book import check
from svmcert.book.commit import CommitError, commit_staging

from svmcert import featelim, screening, signsvm
from svmcert.signsvm import ConvergenceWarning

# ============================================================================ item 9: validation


@pytest.mark.parametrize("bad", ["1.0", True, np.True_])
def test_gap_safe_radius_rejects_non_numbers_for_primal(bad):
    # float('1.0') and float(True) succeed, so a string or a flag passed as an objective value
    # used to give a radius
    with pytest.raises(ValueError, match=r"^primal:"):
        screening.gap_safe_radius(bad, 0.5, 1.0)


@pytest.mark.parametrize("bad", ["0.5", False])
def test_gap_safe_radius_rejects_non_numbers_for_dual(bad):
    with pytest.raises(ValueError, match=r"^dual:"):
        screening.gap_safe_radius(1.0, bad, 1.0)


@pytest.mark.parametrize("bad", [2.5, True, "10", np.nan])
def test_solve_qp1_rejects_non_integer_max_iter(bad):
    g, y = np.array([0.5, -1.0, 2.0, -0.3]), np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match=r"^max_iter:"):
        featelim.solve_qp1(g, y, 1.0, 1.0, max_iter=bad)


_rng9 = np.random.default_rng(9)
X9 = _rng9.standard_normal((10, 3))
Y9 = np.array([1.0, -1.0] * 5)


@pytest.mark.parametrize("y", [Y9 + 0j, list(Y9 + 0j), np.array([1 + 0j, -1.0] * 5, dtype=object)])
def test_estimator_blames_a_complex_y_on_y(y):
    # scikit-learn's joint validation reported it as a problem with X
    with pytest.raises(ValueError, match=r"^y: Complex data not supported"):
        signsvm.SignConstrainedSVC(lam=0.5).fit(X9, y)


def test_estimator_rejects_labels_of_mixed_kinds_naming_y():
    # strings and numbers together are no set of classes (np.unique failed with a TypeError)
    with pytest.raises(ValueError, match=r"^y: expected labels of one kind"):
        signsvm.SignConstrainedSVC(lam=0.5).fit(X9, np.array(["1", 2] * 5, dtype=object))


def test_sparse_input_gets_a_message_that_says_so():
    # (solve, the estimator and the objectives take sparse input: tests/test_signsvm_sparse.py,
    # test_estimator_api.py; the first-order solvers and the curvature bound do not)
    sparse = pytest.importorskip("scipy.sparse")
    Xs = sparse.csr_matrix(X9)
    message = r"^X: sparse input is not supported, convert with \.toarray\(\)"
    for call in (lambda: signsvm.frank_wolfe(Xs, Y9, 0.5),
                 lambda: signsvm.line_search(np.zeros(len(Y9)), np.ones(len(Y9)), Xs, Y9, 0.5),
                 lambda: signsvm.curvature_bound(Xs, 0.5)):
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(ValueError, match=r"^K: sparse input is not supported"):
        screening.fit_weighted_svm(sparse.csr_array(np.eye(4)), Y9[:4], 1.0, np.ones(4))


@pytest.mark.parametrize("K", [np.zeros((3, 3)), np.ones((1, 1))])
def test_enclosing_sphere_converged_is_a_bool(K):
    # where the rounding floor (a numpy scalar) decides convergence, the flag was np.bool_
    res = featelim.enclosing_sphere(K)
    assert type(res.converged) is bool and res.converged


# ============================================================================ item 8: PSD, scaling


def test_radius_squared_rejects_an_indefinite_matrix():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])          # eigenvalues 3 and -1: no Gram matrix
    for call in (lambda: featelim.radius_squared(K), lambda: featelim.radius_squared(K, "diameter"),
                 lambda: featelim.enclosing_sphere(K), lambda: featelim.squared_diameter(K)):
        with pytest.raises(ValueError, match=r"^K: expected a positive semidefinite matrix"):
            call()


# ============================================================================ item 6: projected gradient

_rng6 = np.random.default_rng(6)
X6 = _rng6.standard_normal((30, 4))
Y6 = np.where(X6[:, 0] + 0.5 * _rng6.standard_normal(30) > 0, 1.0, -1.0)
SIGN6 = np.array([1.0, -1.0, 0.0, 0.0])


def _reference(X, y, lam, sign):
    """A certified primal value P_ref >= P* from the front door (any feasible point would do)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return signsvm.solve(X, y, lam, sign, tol=1e-10, max_epochs=100000)


@pytest.mark.parametrize("X, lam", [(X6, 1e-12), (X6 * 1e8, 0.1)], ids=["lam=1e-12", "X*1e8"])
def test_projected_gradient_says_when_the_budget_did_not_reach_the_optimum(X, lam):
    # the step 1/(lam t) is far too long here: the best iterate stays at w = 0 (P = 1) while the
    # optimum is almost 0; the old code returned converged=True without a word
    ref = _reference(X, Y6, lam, SIGN6)
    with pytest.warns(ConvergenceWarning, match=r"projected_gradient: the budget n_iter=200"):
        res = signsvm.projected_gradient(X, Y6, lam, SIGN6, n_iter=200)
    assert res.primal - ref.primal > 1e-6 * res.primal      # independently: far from the optimum
    assert res.converged is False
    assert res.gap > 1e-6 * res.primal
    assert res.gap >= res.primal - ref.primal               # the certificate bounds the true error
    assert res.dual <= ref.primal                          # weak duality


def test_projected_gradient_certifies_a_run_that_reached_the_optimum():
    ref = _reference(X6, Y6, 0.1, SIGN6)
    assert ref.converged
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)   # reaching tol must not warn
        res = signsvm.projected_gradient(X6, Y6, 0.1, SIGN6, n_iter=20000, tol=1e-6)
    assert res.converged is True
    assert res.gap <= 1e-6 * res.primal
    # P(w) - P* <= gap: P* <= P_ref; 1e-13 absorbs the rounding of the two objective sums
    # (30 terms of size <= 1 each, relative error ~ 30 eps ~ 7e-15)
    assert res.gap >= res.primal - ref.primal - 1e-13
    assert np.all((res.alpha >= 0) & (res.alpha <= 1))
    assert res.dual == pytest.approx(signsvm.dual_objective(res.alpha, X6, Y6, 0.1, SIGN6), rel=1e-14)
    assert res.history["gap"][-1] == pytest.approx(res.gap, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("n_iter", [1, 2, 50, 3000])
def test_projected_gradient_verdict_is_the_certificate(n_iter):
    ref = _reference(X6, Y6, 0.05, SIGN6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = signsvm.projected_gradient(X6, Y6, 0.05, SIGN6, n_iter=n_iter, tol=1e-4)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert res.converged is bool(res.gap <= 1e-4 * res.primal)
    assert warned is not res.converged
    assert res.gap >= res.primal - ref.primal - 1e-13        # valid certificate (rounding as above)


# ============================================================================ item 8: bounds at extreme scales

_rng8 = np.random.default_rng(8)
X8 = _rng8.standard_normal((12, 5))
Y8 = _rng8.choice([-1.0, 1.0], 12)
SIGN8 = np.array([1.0, -1.0, 0.0, 1.0, -1.0])
BIG = 2.0 ** 515            # ~1.1e155: squares of the entries overflow; a power of 2, so scaling is exact


def test_max_row_norm_neither_overflows_nor_underflows():
    R = signsvm.bounds.max_row_norm(X8)
    # one rounding of the scaled sum against the direct one: a few ulps
    assert signsvm.bounds.max_row_norm(X8 * BIG) == pytest.approx(R * BIG, rel=1e-15)
    assert signsvm.bounds.max_row_norm(X8 / BIG) == pytest.approx(R / BIG, rel=1e-15)


def test_curvature_bound_is_computed_where_it_is_a_float_and_refused_where_not():
    C = signsvm.curvature_bound(X8, 1e20)
    # R^2 = 1e310 overflows, R^2 / lam = 1e290 does not: exact scaling by 4^515 of the plain bound
    assert signsvm.curvature_bound(X8 * BIG, 1e20) == pytest.approx(C * BIG * BIG, rel=1e-15)
    with pytest.raises(ValueError, match=r"^X, lam: the curvature bound .* exceeds the float64 range"):
        signsvm.curvature_bound(X8 * BIG, 0.5)          # ~1e311: no float64


def test_frank_wolfe_iteration_bound_is_exact_beyond_float64():
    from fractions import Fraction

    R = signsvm.bounds.max_row_norm(X8) * BIG        # exact (power of 2), checked above
    T = signsvm.frank_wolfe_iteration_bound(X8 * BIG, 0.5, 0.1)
    target = 2 * Fraction(R) ** 2 / (Fraction(0.5) * Fraction(0.1)) - 2
    assert isinstance(T, int) and T - 1 < target <= T    # the smallest integer >= the bound
    assert T > 10 ** 310


def _exact_eta(alpha, u, X, y, lam, sign):
    """argmax over [0, 1] of D(alpha + eta (u - alpha)) in exact rational arithmetic from the float
    inputs (independent of the library): zeta is concave and piecewise quadratic between the sign
    changes of omega_h(eta), so its maximum is at a breakpoint or at a piece's stationary point."""
    from fractions import Fraction as Fr

    n, d = X.shape
    A = [Fr(float(a)) for a in alpha]
    q = [Fr(float(ui)) - a for ui, a in zip(u, A)]
    lamf = Fr(float(lam))
    col = [[Fr(float(X[i, h])) * Fr(float(y[i])) for i in range(n)] for h in range(d)]
    w0 = [sum(c * a for c, a in zip(col[h], A)) / (lamf * n) for h in range(d)]
    wq = [sum(c * qi for c, qi in zip(col[h], q)) / (lamf * n) for h in range(d)]
    sq, sa = sum(q) / n, sum(A) / n
    pts = {Fr(0), Fr(1)} | {-w0[h] / wq[h] for h in range(d) if sign[h] != 0 and wq[h] != 0
                            and 0 < -w0[h] / wq[h] < 1}
    pts = sorted(pts)

    def active(eta):
        return [h for h in range(d) if sign[h] == 0 or sign[h] * (w0[h] + eta * wq[h]) > 0]

    def zeta(eta):
        return -lamf / 2 * sum((w0[h] + eta * wq[h]) ** 2 for h in active(eta)) + sa + eta * sq

    cands = list(pts)
    for lo, hi in zip(pts[:-1], pts[1:]):
        act = active((lo + hi) / 2)
        a = -lamf / 2 * sum(wq[h] ** 2 for h in act)
        b = -lamf * sum(w0[h] * wq[h] for h in act) + sq
        if a != 0 and lo < -b / (2 * a) < hi:
            cands.append(-b / (2 * a))
    return float(max(cands, key=zeta))


@pytest.mark.parametrize("scale, lam", [(1e151, 1e-4), (2e152, 1e-3)])
@pytest.mark.parametrize("seed", [2, 4, 9])       # points whose optimum lies inside (0, 1)
def test_line_search_where_omega_squared_overflows_but_the_pieces_do_not(scale, lam, seed):
    # |omega| ~ 1e155: omega^2 overflowed to inf and eta came out NaN; lam/2 omega^2 is a float
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0.0, 1.0, 12)
    u = (rng.uniform(size=12) < 0.5).astype(float)
    ls = signsvm.line_search(alpha, u, X8 * scale, Y8, lam, SIGN8)
    assert np.all(np.isfinite(ls.a)) and np.all(np.isfinite(ls.b)) and np.all(np.isfinite(ls.c))
    # eta is the vertex -b/(2a) of one piece: a few roundings in each sum, relative 1e-13 at most
    assert ls.eta == pytest.approx(_exact_eta(alpha, u, X8 * scale, Y8, lam, SIGN8), rel=1e-13, abs=1e-15)
    assert 0.0 < ls.eta < 1.0                        # an interior optimum: the test has teeth


def test_line_search_refuses_coefficients_beyond_float64():
    alpha, u = np.full(12, 0.5), np.ones(12)
    with pytest.raises(ValueError, match=r"^X, lam: the dual objective along this line is beyond"):
        signsvm.line_search(alpha, u, X8 * 1e100, Y8, 1e-110, SIGN8)   # lam/2 ||omega||^2 ~ 1e310
    # entries whose squares overflow (X8 * 1e155 was this test's case) are refused at the door
    with pytest.raises(ValueError, match=r"^X: expected entries whose squares sum to a finite"):
        signsvm.line_search(alpha, u, X8 * 1e155, Y8, 0.5, SIGN8)


# ============================================================================ item 8: the ball and the secular equation

A8 = np.diag([2.0, 1.0, 0.5])
B8 = np.array([0.3, -0.2, 0.1])


@pytest.mark.parametrize("method", ["auto", "cholesky"])      # the eigen paths already coped
@pytest.mark.parametrize("radius", [1e-300, 1e-200, 1e-160])
def test_maximize_quadratic_on_a_tiny_ball(method, radius):
    # radius 1e-300 divided by zero in the Newton path (1/sqrt(T) with T underflowed: the default
    # method); 1e-160 overflowed in its model root. At such radii the maximum is
    # 2 S ||g|| + S^2 u'Au with g = b (centre 0): the quadratic term is below 1e-160 of the first,
    # far below one rounding, so 2 S ||b|| is the reference to a few ulps, and the multiplier is
    # ||b|| / S (1 + O(S))
    res = screening.maximize_quadratic_on_ball(A8, B8, np.zeros(3), radius, method=method)
    nb = np.linalg.norm(B8)
    assert res.value == pytest.approx(2.0 * radius * nb, rel=1e-15)
    assert res.nu == pytest.approx(nb / radius, rel=1e-15)
    np.testing.assert_allclose(res.w / radius, B8 / nb, rtol=1e-15, atol=1e-15)


def test_maximize_quadratic_on_a_ball_beyond_float64_is_refused():
    # the maximum is ~2 radius^2 = 2e320: the old code returned inf
    with pytest.raises(ValueError, match=r"^A, b, center, radius: the maximum .* exceeds the float64 range"):
        screening.maximize_quadratic_on_ball(A8, B8, np.zeros(3), 1e160)


@pytest.mark.parametrize("scale", [2.0 ** 997, 2.0 ** -997], ids=["x1e300", "x1e-300"])
def test_secular_roots_of_scaled_data_are_the_scaled_roots(scale):
    # T(s nu; s phi, s xi) = T(nu; phi, xi): the roots scale with the data. brentq used to fail
    # with "the function value at x=inf is NaN", naming no argument.
    phi, xi = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.1, 0.1, 0.1, 0.1])
    base = screening.secular_roots(phi, xi, 1.0)
    assert base.size == 8                  # two roots in every gap between poles, one outside each end
    # the scaled problem is solved after an exact renormalisation: the same roots up to a few
    # roundings of the bracketed root search (relative 4 eps each, as in _root_offsets)
    np.testing.assert_allclose(screening.secular_roots(phi * scale, xi * scale, 1.0) / scale, base, rtol=1e-14)
    # and the radius with xi: T(nu; phi, s xi) = s^2 T(nu; phi, xi)
    np.testing.assert_allclose(screening.secular_roots(phi, xi * scale, scale), base, rtol=1e-14)


def test_secular_roots_refuse_data_that_span_more_than_float64():
    with pytest.raises(ValueError, match=r"^xi: entries span more than the float64 range"):
        screening.secular_roots(np.array([1.0, 2.0]), np.array([1e-300, 1e300]), 1.0)


# ============================================================================ item 7: DRSSS at extreme weights

def _separable(seed, n=8, d=5):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    y = np.where(Z @ rng.standard_normal(d) > 0, 1.0, -1.0)
    return Z @ Z.T, y


def _hard_margin_support(K, y):
    """Support vectors of the hard-margin SVM, from a well-conditioned soft-margin fit: with every
    alpha_i < 1 at C = w / lam = 1e3 the soft-margin optimum is the hard-margin one, and so it is
    for every larger C, in particular for weights 1e50 .. 1e200 at lam = 0.5 and every weight
    vector within S = 0.1 of them (the weights then do not matter at all)."""
    # tol 1e-10: the rounding the margins may put in the gap (sqrt(n) eps |K| |alpha| / lam) is above
    # 1e-11 of P at these tiny alphas, so a fit does not certify 1e-13 here; the support is the same
    fit = screening.fit_weighted_svm(K, y, 1e-3, np.ones(y.size), tol=1e-10, max_epochs=100000)
    assert fit.converged and fit.alpha.max() < 0.5
    return fit.alpha > 0


@pytest.mark.parametrize("seed", [0, 7, 10, 19])
def test_drsss_never_removes_a_support_vector_at_huge_weights(seed):
    # the gap of eq. (11) as written cancels sum_i w_i alpha_i ~ 1 down to the fit's gap ~ 1e-16, and
    # its maximum over W came out below G(w_tilde), even 0: R = 0 removed support vectors
    K, y = _separable(seed)
    sv = _hard_margin_support(K, y)
    assert 2 <= sv.sum() < y.size
    for scale in (1e50, 1e100, 1e200):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            removable = screening.drsss_screen(K, y, 0.5, scale * np.ones(y.size), 0.1)
        assert not np.any(removable & sv), (scale, removable.astype(int), sv.astype(int))


def test_drsss_maximal_gap_is_never_below_the_gap_at_the_centre():
    K, y = _separable(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for scale in (1.0, 1e10, 1e50, 1e200):
            w = scale * np.ones(y.size)
            res = screening.drsss(K, y, 0.5, w, 0.1)
            # G(w_tilde) is the fit's certified gap, a sum of non-negative Fenchel-Young residuals
            # (evaluating eq. (11) as written at w_tilde only gives cancellation noise here)
            assert res.max_gap >= res.fit_gap >= 0.0


from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), d=st.integers(2, 5), log_scale=st.floats(-100, 100),
       log_lam=st.floats(-2, 2), log_S=st.floats(-4, 0), absolute=st.booleans(), uniform=st.booleans(),
       separable=st.booleans())
@example(seed=19, d=5, log_scale=50.0, log_lam=float(np.log10(0.5)), log_S=-1.0, absolute=True, uniform=True,
         separable=True).via("the reported fault: weights 1e50 and S = 0.1")
def test_drsss_never_removes_a_sample_active_somewhere_in_the_ball(seed, d, log_scale, log_lam, log_S, absolute,
                                                                 uniform, separable):
    """Property (Theorem 3.5): a removable sample has alpha*_i(w) = 0 for every w in the ball.

    Oracle: fits at w_tilde and at four random points of the ball (clipped at 0, which keeps them in
    the ball since w_tilde >= 0), each to a relative gap of 1e-12. A sample is active at w when the
    fit gives it alpha_i > 0 (exact coordinate steps leave alpha_i = 0 exactly on clear non-support
    vectors) and its own gap-safe interval does not already prove alpha*_i = 0
    (m_i - sqrt(K_ii) r_w > 1). Fits that do not reach the tolerance (huge C = w / lam) decide
    nothing. Scales of the weights: 1e-100 .. 1e100; balls of radius 1e-4 .. 1, either absolute
    (as in the report: tiny next to huge weights) or relative to that scale.
    """
    rng = np.random.default_rng(seed)
    n = 8
    Z = rng.standard_normal((n, d))
    y = np.where(Z @ rng.standard_normal(d) > 0, 1.0, -1.0) if separable else rng.choice([-1.0, 1.0], n)
    if abs(y.sum()) == n:
        y[0] = -y[0]
    K = Z @ Z.T
    scale, lam = 10.0 ** log_scale, 10.0 ** log_lam
    w_tilde = scale * (np.ones(n) if uniform else rng.uniform(0.5, 1.5, n))
    S = 10.0 ** log_S * (1.0 if absolute else scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        removable = screening.drsss(K, y, lam, w_tilde, S).removable
        if not removable.any():
            return                                   # nothing claimed: nothing to check
        spread = np.sqrt(np.diag(K))
        for k in range(5):
            if k == 0:
                w = w_tilde
            else:
                v = rng.standard_normal(n)
                w = np.maximum(w_tilde + S * rng.uniform() * v / np.linalg.norm(v), 0.0)
            fit = screening.fit_weighted_svm(K, y, lam, w, tol=1e-12, max_epochs=20000)
            if not fit.converged:
                continue
            r = np.sqrt(2.0 * max(fit.gap, 0.0) / lam)
            active = (fit.alpha > 0) & ~(fit.margins - spread * r > 1.0)
            assert not np.any(removable & active), (k, removable.astype(int), fit.alpha)


# ============================================================================ items 1-5: the pipeline
LINUX_ONLY = pytest.mark.skipif(sys.platform != "linux", reason="process-group and /proc handling is Linux's")

SLOW = """import os, time
from pathlib import Path
from svmcert import book, claims
root = Path(os.environ["SVMCERT_ROOT"])
(root / "pids").write_text(f"{{os.getppid()}} {{os.getpid()}}")   # the worker, the kernel
(root / "started").touch()
deadline = time.time() + {seconds}
while not (root / "release").exists() and time.time() < deadline:   # the test says when to go on
    time.sleep(0.1)
book.start_chapter("slow", paper="tajima")
book.save_table([{{"x": 2.0}}], "t", rtol=0, atol=0, display=False)
claims.at_most("slow.a", 0.0, 1.0, paper="tajima", source="x", statement="s")"""


def _notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("quick = False", metadata={"tags": ["parameters"]})]
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _project(root: Path, chapters: dict[str, list[str]]) -> Path:
    """A book of the given chapters, with a committed table ``t.csv`` for each (x = 1)."""
    (root / "lib" / "svmcert").mkdir(parents=True)
    entries = "".join(f"      - file: book/p/{name}\n" for name in chapters)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n{entries}")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# intro\n")
    for name, cells in chapters.items():
        _notebook(root / "book" / "p" / f"{name}.ipynb", cells)
        (root / "data" / "tables" / name).mkdir(parents=True)
        (root / "data" / "tables" / name / "t.csv").write_text("x\n1\n")
        (root / "data" / "tables" / name / "old.csv").write_text("y\n5\n")
    return root


def _run(root: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "SVMCERT_ROOT": str(root)}
    return subprocess.Popen([sys.executable, "-m", "svmcert", "book", "run", *args], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        assert time.time() < deadline, f"{path} did not appear"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:   # a zombie is not alive
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _committed(root: Path, name: str) -> dict[str, str]:
    folder = root / "data" / "tables" / name
    return {p.name: p.read_text() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


# --------------------------------------------------------------------------- item 1: two runs at once
@LINUX_ONLY
def test_two_runs_of_one_chapter_cannot_delete_each_others_tables(tmp_path):
    root = _project(tmp_path / "proj", {"slow": [SLOW.format(seconds=120)]})
    first = _run(root, "slow")
    _wait_for(root / "started")
    second = _run(root, "slow")            # while the first is still inside its chapter
    out2, _ = second.communicate(timeout=120)
    (root / "release").touch()
    out1, _ = first.communicate(timeout=120)
    assert second.returncode == 1 and "is being run by" in out2 and "nothing was run or changed" in out2
    assert first.returncode == 0, out1
    tables = _committed(root, "slow")
    assert sorted(tables) == ["t.csv", "t.meta.json"] and "2" in tables["t.csv"]   # one complete commit
    assert json.loads((root / "data" / "claims" / "slow.json").read_text())["claims"][0]["id"] == "slow.a"


# --------------------------------------------------------------------------- item 2: the runner killed
@LINUX_ONLY
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_runner_takes_its_worker_and_kernel_with_it(tmp_path, sig):
    seconds = 3.0                  # the chapter goes on to commit this long after it started
    root = _project(tmp_path / "proj", {"slow": [SLOW.format(seconds=seconds)]})
    before = _committed(root, "slow")
    runner = _run(root, "slow")
    _wait_for(root / "started")
    started = time.time()          # within the 0.1 s of _wait_for's polling after the chapter's start
    worker, kernel = map(int, (root / "pids").read_text().split())
    runner.send_signal(sig)
    out, _ = runner.communicate(timeout=60)
    assert runner.returncode == (143 if sig == signal.SIGTERM else -signal.SIGKILL), out
    deadline = time.time() + 15
    while (_alive(worker) or _alive(kernel)) and time.time() < deadline:
        time.sleep(0.2)
    assert not _alive(worker) and not _alive(kernel)
    time.sleep(max(0.0, started + seconds + 2.0 - time.time()))   # past when it would have committed
    assert _committed(root, "slow") == before
    assert not (root / "data" / "claims" / "slow.json").exists()


# --------------------------------------------------------------------------- item 3: incomplete chapters
def test_sys_exit_in_a_cell_is_a_failure_and_commits_nothing(tmp_path):
    cells = ["from svmcert import book, claims\nbook.start_chapter('quitter', paper='tajima')\n"
             "claims.at_most('q.a', 0, 1, paper='tajima', source='x', statement='s')",
             "import sys\nsys.exit(0)",
             "book.save_table([{'x': 3}], 't', rtol=0, atol=0, display=False)\n"
             "claims.at_most('q.b', 0, 1, paper='tajima', source='x', statement='s')"]
    root = _project(tmp_path / "proj", {"quitter": cells})
    before = _committed(root, "quitter")
    proc = _run(root, "quitter")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert "cell 2 (In [" in out and "SystemExit: 0" in out and "every cell ran" in out
    assert _committed(root, "quitter") == before
    assert not (root / "data" / "claims" / "quitter.json").exists()


def test_dead_kernel_names_the_cell_it_died_in(tmp_path):
    cells = ["x = 1", "import os\nos._exit(3)", "print('never')"]
    root = _project(tmp_path / "proj", {"crash": cells})
    before = _committed(root, "crash")
    proc = _run(root, "crash")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "crash.ipynb: cell 2" in out and "stopped (the kernel died" in out and "DeadKernelError" in out
    assert "before any cell ran" not in out
    assert _committed(root, "crash") == before


# --------------------------------------------------------------------------- item 5: unwritable destinations
def test_unwritable_claims_folder_changes_nothing(tmp_path):
    cells = ["from svmcert import book, claims\nbook.start_chapter('c', paper='tajima')\n"
             "book.save_table([{'x': 3}], 't', rtol=0, atol=0, display=False)\n"
             "claims.at_most('c.a', 0, 1, paper='tajima', source='x', statement='s')"]
    root = _project(tmp_path / "proj", {"c": cells})
    (root / "data" / "claims").write_text("a file where the claims folder should be\n")  # even root cannot write into it
    before = _committed(root, "c")
    proc = _run(root, "c")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "cannot commit chapter 'c'" in out and "nothing was changed" in out
    assert _committed(root, "c") == before


def test_a_move_that_fails_midway_is_rolled_back(tmp_path, monkeypatch):
    staging, target = tmp_path / "staging", tmp_path / "data"
    (staging / "tables" / "c").mkdir(parents=True)
    (staging / "claims").mkdir()
    for name in ("a.csv", "b.csv"):
        (staging / "tables" / "c" / name).write_text("new\n")
    (staging / "claims" / "c.json").write_text("{}\n")
    (target / "tables" / "c").mkdir(parents=True)
    (target / "tables" / "c" / "a.csv").write_text("old\n")
    (target / "tables" / "c" / "gone.csv").write_text("old\n")
    real = os.replace

    def flaky(src, dst):
        if str(dst).endswith("c.json"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(CommitError, match="restored"):
        commit_staging(staging, target, "c", tmp_path / "backup")
    left = {p.name: p.read_text() for p in (target / "tables" / "c").iterdir()}
    assert left == {"a.csv": "old\n", "gone.csv": "old\n"} and not (target / "claims" / "c.json").exists()


def test_build_without_executed_chapters_says_what_to_do(tmp_path):
    root = _project(tmp_path / "proj", {"c": ["x = 1"]})
    env = {**os.environ, "SVMCERT_ROOT": str(root)}
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "build"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "run `svmcert book run` first" in out.stderr


# --------------------------------------------------------------------------- item 4: the drift check
def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


CLAIM = {"id": "c.1", "paper": "tajima", "source": "eq. (1)", "statement": "s", "observed": 0.5, "reference": 1.0,
         "reference_source": "bound", "comparison": "<=", "tolerance": 0.0, "instances": 3, "passed": True,
         "expect": "holds", "chapter": "c", "quantity": "value", "drift_rtol": 1e-9, "drift_atol": 0.0}


@pytest.fixture
def committed(tmp_path):
    """A git repository with one committed table (value column, rtol 1e-6) and one claims file."""
    root = tmp_path / "repo"
    (root / "data" / "tables" / "c").mkdir(parents=True)
    (root / "data" / "claims").mkdir(parents=True)
    (root / "data" / "tables" / "c" / "t.csv").write_text("x,name\n1.0,a\n")
    (root / "data" / "tables" / "c" / "t.meta.json").write_text(json.dumps({"rtol": 1e-6, "atol": 0.0, "columns": {"x": "value", "name": "exact"}}))
    (root / "data" / "claims" / "c.json").write_text(json.dumps({"chapter": "c", "claims": [CLAIM]}))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "x")
    return root


def _claims(root, **change):
    rec = {**CLAIM, **change}
    (root / "data" / "claims" / "c.json").write_text(json.dumps({"chapter": "c", "claims": [rec]}, allow_nan=True))


def test_check_uses_the_committed_tolerance_not_the_regenerated_one(committed):
    (committed / "data" / "tables" / "c" / "t.csv").write_text("x,name\n5.0,a\n")
    (committed / "data" / "tables" / "c" / "t.meta.json").write_text(json.dumps({"rtol": 10.0, "atol": 0.0}))
    assert "column 'x' row 0" in check.check_drift(committed)["data/tables/c/t.csv"][0]


@pytest.mark.parametrize("change, word", [
    ({"observed": float("nan")}, "not a finite number"), ({"observed": None}, "not a finite number"),
    ({"reference": 2.0}, "reference"), ({"tolerance": 0.5}, "tolerance changed"),
    ({"comparison": ">="}, "comparison changed"), ({"instances": 4}, "instances changed"),
    ({"statement": "t"}, "statement changed"), ({"quantity": "timing"}, "quantity changed"),
])
def test_check_compares_every_field_of_a_claim(committed, change, word):
    _claims(committed, **change)
    problems = check.check_drift(committed)["data/claims/c.json"]
    assert any(word in p for p in problems), problems


@pytest.mark.parametrize("rel, payload, word", [
    ("data/tables/c/t.csv", b"", "empty"),
    ("data/tables/c/t.csv", b"x,name\n\xff\xfe,a\n", "not UTF-8"),
    ("data/claims/c.json", b'{"claims": [', "not valid JSON"),
    ("data/claims/c.json", b'\xff{"claims": []}', "not UTF-8"),
])
def test_check_reports_unreadable_files_by_name(committed, rel, payload, word):
    (committed / rel).write_bytes(payload)
    drift = check.check_drift(committed)
    assert rel in drift and any(word in p for p in drift[rel]), drift


def test_check_cli_never_shows_a_traceback(committed):
    (committed / "data" / "claims" / "c.json").write_bytes(b"not json")
    env = {**os.environ, "SVMCERT_ROOT": str(committed)}
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "check"], cwd=committed, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr + out.stdout
    assert "DRIFT data/claims/c.json" in out.stdout and "not valid JSON" in out.stdout


@pytest.mark.parametrize("d", [1, 2, 3])
def test_maximize_quadratic_on_a_ball_with_a_vanishing_linear_term(d):
    # b = 1e-46 against A = 0.1 I: the poles' weighted mean rounded an ulp above the top pole, the
    # Newton start of the model root fell right of it and a step landed on t = 0 (ZeroDivisionError).
    # The maximum of w'Aw + 2 b'w over the unit ball is 0.1 + 2e-46 (w along b), which is 0.1 in
    # float64; the multiplier is 0.1 + 1e-46, and the eigen path ("rightmost") agrees
    A, b = 0.1 * np.eye(d), np.r_[1e-46, np.zeros(d - 1)]
    res = screening.maximize_quadratic_on_ball(A, b, np.zeros(d), 1.0)
    ref = screening.maximize_quadratic_on_ball(A, b, np.zeros(d), 1.0, method="rightmost")
    assert res.value == pytest.approx(0.1, rel=1e-15) and ref.value == pytest.approx(0.1, rel=1e-15)
    assert np.linalg.norm(res.w) == pytest.approx(1.0, rel=1e-12)


def test_drsss_refuses_a_ball_whose_maximum_overflows():
    # S = 1e200: the ball's maximum is beyond float64. The module promises a refusal (nothing
    # removable, a RuntimeWarning); the ball solver's ValueError, naming its own arguments, escaped
    with pytest.warns(RuntimeWarning, match="refusing to screen"):
        removable = screening.drsss_screen(np.eye(2), np.array([1.0, -1.0]), 1.0, np.ones(2), 1e200)
    assert not removable.any()


def test_linear_kernel_keeps_entries_near_the_float64_limit():
    # (K + K^T) / 2 overflowed for 1.2e154^2 = 1.44e308 < 1.8e308; halves first give the same bits elsewhere
    from svmcert import kernels

    assert kernels.linear_kernel(np.array([[1.2e154]]))[0, 0] == pytest.approx(1.44e308, rel=1e-15)
    X = np.random.default_rng(2).standard_normal((7, 3))
    G = X @ X.T
    np.testing.assert_array_equal(kernels.linear_kernel(X), (G + G.T) / 2)
