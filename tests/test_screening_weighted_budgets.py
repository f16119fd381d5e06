"""The weighted kernel SVM's fixed costs and budgets: the PSD test's three levels, the compiled
scan against its numpy twin, active-set Newton steps against cvxpy, the Newton budget, the time
limit and the runtime PSD safeguard. No test measures time (benchmarks/weighted_svm_vs_libsvm.py
does)."""

import warnings

import numpy as np
import pytest

from svmcert.kernels import rbf_kernel
from svmcert.reference.weighted_svm import solve_weighted_dual_cvxpy
from svmcert.screening import weighted_svm as ws
from svmcert.screening._weighted_newton import active_set_newton, free_count, step_flops
from svmcert._gram import PSD_CHOLESKY_MAX_N, scan_compiled, scan_numpy
from svmcert._validation import check_gram
from svmcert.signsvm.result import ConvergenceWarning


def _rbf_problem(seed, n, d=3, noise=0.4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.where(X @ rng.standard_normal(d) + noise * rng.standard_normal(n) > 0, 1.0, -1.0)
    return rbf_kernel(X), y, rng.uniform(0.5, 1.5, n) / n


@pytest.mark.parametrize("seed", range(4))
def test_compiled_scan_equals_its_numpy_twin(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 150))
    A = rng.standard_normal((n, n))
    K = A @ A.T + rng.choice([0.0, 1e-9], size=(n, n))          # slightly asymmetric too
    root = np.sqrt(np.maximum(np.diag(K), 0.0))
    a, b = scan_compiled(K, root), scan_numpy(K, root)
    assert a[3:] == b[3:]                                         # the same (i, j)
    assert a[:3] == b[:3]                                         # max and abs are exact operations


def _spread_indefinite(n, low=-2.0, high=4.0, seed=1):
    """A symmetric matrix with eigenvalues half low, half high in random directions: diagonal
    near (low + high) / 2 > 0 and small off-diagonal entries, so every 2 x 2 minor is positive."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return (Q * np.where(np.arange(n) % 2 == 0, low, high)) @ Q.T


def test_compiled_epoch_counts_its_moves_like_the_numpy_twin():
    from svmcert.screening._weighted_dca import epoch_compiled, epoch_numpy

    K, y, w = _rbf_problem(5, 60)
    for squared in (False, True):
        a1, a2 = np.zeros(60), np.zeros(60)
        m1, m2 = np.zeros(60), np.zeros(60)
        order = np.random.default_rng(0).permutation(60)
        for _ in range(3):
            assert epoch_compiled(order, K, y, w, a1, m1, 1e-3, squared) == epoch_numpy(order, K, y, w, a2, m2, 1e-3, squared)
        np.testing.assert_allclose(a1, a2, atol=1e-12)


def test_auto_psd_check_proves_small_and_refutes_large_matrices():
    n = PSD_CHOLESKY_MAX_N + 100
    K, _, _ = _rbf_problem(0, n)
    assert check_gram(K, psd="auto") is not None                  # a PSD kernel passes
    bad = K.copy()
    bad[3, 7] = bad[7, 3] = 1.5                                    # |K_ij| > sqrt(K_ii K_jj) = 1
    with pytest.raises(ValueError, match=r"K: .*principal minor \(3, 7\)"):
        check_gram(bad, psd="auto")
    M = _spread_indefinite(n)
    root = np.sqrt(np.diag(M))
    assert np.all(np.abs(M) <= np.outer(root, root) + 1e-12)      # no minor gives it away ...
    with pytest.raises(ValueError, match=r"K: .*found v with v\^T K v = -"):
        check_gram(M, psd="auto")                                  # ... the power iteration does
    small = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])   # minors fine, eigenvalue -0.8
    assert np.linalg.eigvalsh(small)[0] < -0.5
    with pytest.raises(ValueError, match="Cholesky"):             # n <= 1000: the Cholesky proof
        check_gram(small, psd="auto")
    with pytest.raises(ValueError, match="check_psd"):
        ws.fit_weighted_svm(np.eye(2), np.array([1.0, -1.0]), 1.0, np.ones(2), check_psd="maybe")


def test_an_indefinite_gram_matrix_is_caught_by_the_certificate():
    # K = I/2 - c y y^T is indefinite (eigenvalue 1/2 - c n along y); with check_psd=False nothing
    # looks at K beforehand, and Q = diag(y) K diag(y) = I/2 - c 11^T gives u^T Q u < 0 at every
    # spread-out u >= 0: the first certificate after an epoch proves it
    n, c = 200, 0.01
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    K = 0.5 * np.eye(n) - c * np.outer(y, y)
    with pytest.raises(ValueError, match="K: expected a positive semidefinite matrix, found u\\^T K u < 0"):
        ws.fit_weighted_svm(K, y, 1e-3, np.full(n, 1.0 / n), low_rank=False, check_psd=False)


@pytest.mark.parametrize("loss", ws.LOSSES)
def test_newton_steps_reach_the_cvxpy_optimum_within_their_budget(loss):
    K, y, w = _rbf_problem(2, 150)
    lam = 1e-2 / 150                                              # small lam: an ill-conditioned dual
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rough = ws.fit_weighted_svm(K, y, lam, w, loss, max_epochs=30, newton=False, low_rank=False)
    alpha, m = rough.alpha.copy(), ws.margins(rough.alpha, K, y, lam, w)
    steps, flops, outcome = active_set_newton(np.ascontiguousarray(K), y, w, alpha, m, lam, loss == "squared_hinge",
                                              max_steps=500, max_flops=1e12)
    assert outcome == "optimal" and steps <= 500 and flops <= 1e12
    gap = ws.duality_gap(alpha, K, y, lam, w, loss)
    P = ws.primal_objective(alpha, K, y, lam, w, loss)
    ref = solve_weighted_dual_cvxpy(K, y, lam, w, loss)
    # Clarabel at 1e-10 tolerances: its dual value is within ~1e-9 P of the optimum
    assert gap <= 1e-10 * P and abs(P - ref.value) <= 1e-8 * P
    # with a budget below one step's cost, no step is taken and alpha is left alone
    before = rough.alpha.copy()
    mm = ws.margins(before, K, y, lam, w)
    cost = step_flops(150, free_count(before, w, loss == "squared_hinge"))
    assert active_set_newton(np.ascontiguousarray(K), y, w, before, mm, lam, loss == "squared_hinge", 500,
                             cost * (1 - 1e-9)) == (0, 0.0, "budget")
    np.testing.assert_array_equal(before, rough.alpha)


def test_newton_work_stays_within_its_share_of_the_epochs():
    K, y, w = _rbf_problem(3, 300)
    res = ws.fit_weighted_svm(K, y, 1e-2 / 300, w, tol=1e-10, record_history=True)
    assert res.converged and res.gap <= 1e-10 * res.primal
    attempts = res.history["newton"]
    assert attempts and all(a["flops"] <= a["budget"] and a["steps"] <= ws.NEWTON_MAX_STEPS for a in attempts)
    plain = ws.fit_weighted_svm(K, y, 1e-2 / 300, w, tol=1e-10, newton=False, max_epochs=200000)
    assert plain.converged and abs(plain.primal - res.primal) <= plain.gap + res.gap
    assert res.n_iter < plain.n_iter                              # the point of the Newton steps


def test_a_time_limit_ends_the_fit_with_a_valid_certificate():
    K, y, w = _rbf_problem(4, 400)
    lam = 1e-3 / 400
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        res = ws.fit_weighted_svm(K, y, lam, w, tol=1e-15, max_epochs=10**8, time_limit=0.05, newton=False)
    assert not res.converged and res.n_iter < 10**8
    assert res.gap == pytest.approx(ws.duality_gap(res.alpha, K, y, lam, w), rel=1e-9, abs=1e-15)
    with pytest.raises(ValueError, match="time_limit"):
        ws.fit_weighted_svm(K, y, lam, w, time_limit=0.0)


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (7, 5), (8, 8), (9, 13), (17, 0), (31, 40)])
def test_compiled_matvec_sums_each_row_left_to_right(shape):
    """Eight rows summed side by side must not change any row's sum: each equals the plain
    left-to-right sum bit for bit, whatever n mod 8 (the rows past the last block of eight too)."""
    from svmcert._compiled import matvec_compiled

    rng = np.random.default_rng(sum(shape))
    K = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, size=shape)   # rounding that order shows
    v = rng.standard_normal(shape[1])
    expected = np.zeros(shape[0])
    for i in range(shape[0]):
        acc = 0.0
        for j in range(shape[1]):
            acc += K[i, j] * v[j]
        expected[i] = acc
    assert np.array_equal(matvec_compiled(K, v), expected)


def test_margins_at_the_zero_dual_point_are_exact_zeros_without_a_product():
    from svmcert.screening.weighted_problem import margins_from_dual

    K, y, w = _rbf_problem(2, 30)
    m = margins_from_dual(np.zeros(30), K, y, 1e-2, w)
    assert np.array_equal(m, y * np.zeros(30) / 1e-2)             # the same signed zeros as y * (K @ 0) / lam
    assert np.array_equal(np.signbit(m), np.signbit(y * (K @ np.zeros(30)) / 1e-2))


def test_a_plateau_on_the_low_rank_factor_hands_over_to_k_and_certifies():
    """Cyclic epochs on the factor of a linear kernel can plateau far above tol (here near 1e-5
    relative gap from about epoch 900 on); the run must then go on on K, whose Newton steps
    certify, instead of spending max_epochs on the factor and stopping uncertified."""
    from svmcert.screening.weighted_svm import FACTOR_STALL_EPOCHS

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(60) > 0, 1.0, -1.0)
    w = rng.uniform(0.5, 1.5, 60) / 60
    res = ws.fit_weighted_svm(X @ X.T, y, 1e-3, w, tol=1e-8)
    assert res.converged and res.gap <= 1e-8 * res.primal
    assert res.n_iter < 10000 - FACTOR_STALL_EPOCHS                  # it left the factor well before the cap
    on_k = ws.fit_weighted_svm(X @ X.T, y, 1e-3, w, tol=1e-8, low_rank=False)
    assert abs(res.primal - on_k.primal) <= 1e-8 * on_k.primal + (on_k.primal - on_k.dual)
