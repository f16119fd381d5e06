"""``signsvm.solve`` on scipy.sparse input: the same certified optimum as on the dense array, X
never densified, and bad sparse input named."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from svmcert import signsvm

SOLVERS = ("auto", "dual-coordinate", "interior-point")


def _problem(seed, n=300, d=40, density=0.2):
    rng = np.random.default_rng(seed)
    X = sparse.random(n, d, density=density, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    sign = rng.choice([-1.0, 0.0, 1.0], size=d)
    return X, y, sign


# coordinate ascent alone is not asked for 1e-9 at lam n = 0.05 (there it stalls, dense or sparse:
# that is why auto runs the interior-point method below lam n = 0.1)
CASES = [(s, lam_n) for s in SOLVERS for lam_n in (0.05, 1.0, 30.0) if (s, lam_n) != ("dual-coordinate", 0.05)]


@pytest.mark.parametrize(("solver", "lam_n"), CASES)
def test_sparse_and_dense_input_reach_the_same_certified_optimum(solver, lam_n):
    X, y, sign = _problem(1)
    n = X.shape[0]
    lam = lam_n / n
    tol = 1e-9
    sp = signsvm.solve(X, y, lam, sign, solver=solver, tol=tol)
    de = signsvm.solve(X.toarray(), y, lam, sign, solver=solver, tol=tol)
    assert sp.converged and de.converged
    # the certificates, recomputed from the returned points on the dense array (independent of the
    # sparse code path): both gaps are at most tol P, so both primals lie within tol P of P*
    Xd = X.toarray()
    for res in (sp, de):
        P = signsvm.primal_objective(res.w, Xd, y, lam)
        D = signsvm.dual_objective(res.alpha, Xd, y, lam, sign)
        assert P - D <= tol * P * (1 + 1e-6) + 1e-14
        assert np.all(sign * res.w >= 0)
    assert sp.primal == pytest.approx(de.primal, rel=2 * tol, abs=1e-14)


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil"])
def test_any_sparse_format_is_read_as_csr(fmt):
    X, y, sign = _problem(2, n=120, d=15)
    res = signsvm.solve(X.asformat(fmt), y, 1.0 / 120, sign)
    ref = signsvm.solve(X, y, 1.0 / 120, sign)
    assert res.converged and res.primal == pytest.approx(ref.primal, rel=2e-6)


def test_sparse_input_is_never_densified(monkeypatch):
    X, y, sign = _problem(3, n=2000, d=5000, density=0.002)

    def refuse(self, *args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sparse.csr_matrix, sparse.csr_array, sparse.csc_matrix, sparse.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    res = signsvm.solve(X, y, 1.0 / 2000, sign)
    assert res.converged and res.gap <= 1e-6 * res.primal


def test_bad_sparse_input_is_named():
    X, y, _ = _problem(4, n=20, d=5)
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match=r"^X: expected finite values"):
        signsvm.solve(bad, y, 0.1)
    with pytest.raises(ValueError, match=r"^y: expected length 20"):
        signsvm.solve(X, y[:-1], 0.1)
    with pytest.raises(ValueError, match=r"^X: expected real numbers"):
        signsvm.solve(X.astype(np.complex128), y, 0.1)


def test_passes_read_32_bit_column_indices_without_copying_scipys():
    # the passes' rows carry int32 column indices (12 bytes a nonzero instead of 16): from a dense X
    # they are built so, and a scipy CSR matrix's own int32 array is used as it is, not copied
    from svmcert.signsvm._dca_rows import INDEX_DTYPE, csr_indices, dense_rows
    from svmcert.signsvm.coordinate_ascent import _csr_sparse

    X, y, sign = _problem(3)
    assert X.indices.dtype == np.int32
    _, indices, _ = _csr_sparse(X, y)
    assert indices.dtype == INDEX_DTYPE and np.shares_memory(indices, X.indices)
    assert dense_rows(X.toarray(), y, sign)[1].dtype == INDEX_DTYPE
    wide = X.indices.astype(np.int64)
    assert csr_indices(wide).dtype == INDEX_DTYPE and np.array_equal(csr_indices(wide), X.indices)
    # a sparse X too wide for 32-bit column indices is refused at the door, naming X
    wide_X = sparse.csr_matrix((2, 2**31 + 1))
    with pytest.raises(ValueError, match=r"^X: expected at most 2147483648 columns"):
        signsvm.solve(wide_X, np.array([1.0, -1.0]), 0.1)


def test_the_sparse_normal_matrix_is_the_product_of_the_scaled_rows():
    # the interior-point method's d x d matrix from a CSR X, built row by row (sum nnz_i^2 work),
    # against its numpy twin: scipy's product A^T A with A = diag(sqrt(delta)) X; upper triangle
    # only (dpotrf's), to the rounding of sums of nnz_i products
    from svmcert.signsvm._normal_equations import sparse_weighted_gram
    from svmcert.signsvm._signed_rows import dense_block

    for seed in range(4):
        X, y, _ = _problem(seed, n=200, d=30, density=0.15)
        delta = np.random.default_rng(seed).random(200) + 0.01
        M = sparse_weighted_gram(X.indptr, X.indices, X.data, delta, 30)
        A = X.multiply(np.sqrt(delta)[:, None]).tocsr()
        ref = dense_block(A.T @ A)
        assert M.flags.f_contiguous and not np.tril(M, -1).any()
        np.testing.assert_allclose(np.triu(M), np.triu(ref), rtol=0, atol=1e-13 * np.abs(ref).max())


def test_a_dense_enough_csr_enters_the_normal_matrix_by_dense_blocks_with_the_same_result():
    # above SPARSE_GRAM_DENSE_FROM the CSR rows are made dense a block at a time and summed by
    # dsyrk: the same upper triangle as the numpy twin, to the rounding of sums of n products
    # (blocks of 873 rows here, so four), and the interior-point method on that X gives
    # the dense array's answer within both certificates
    from svmcert.signsvm._normal_equations import gram_from_dense_blocks, weighted_gram
    from svmcert.signsvm._signed_rows import dense_block

    X, y, sign = _problem(5, n=3000, d=300, density=0.5)
    assert gram_from_dense_blocks(X) and not gram_from_dense_blocks(_problem(5, n=300, d=30, density=0.1)[0])
    delta = np.random.default_rng(5).random(3000) + 0.01
    M = weighted_gram(X, delta)
    ref = dense_block(X.multiply(np.sqrt(delta)[:, None]).tocsr().T @ X.multiply(np.sqrt(delta)[:, None]).tocsr())
    np.testing.assert_allclose(np.triu(M), np.triu(ref), rtol=0, atol=1e-12 * np.abs(ref).max())
    lam = 1e-3 / 3000
    a = signsvm.solve(X, y, lam, sign, solver="interior-point", tol=1e-8)
    b = signsvm.solve(X.toarray(), y, lam, sign, solver="interior-point", tol=1e-8)
    assert a.converged and b.converged and abs(a.primal - b.primal) <= a.gap + b.gap


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_objectives_take_sparse_input_and_agree_with_the_dense_array(fmt):
    # The certificate a user recomputes from solve's answer on a sparse X: every objective
    # function on the sparse matrix against the same function on X.toarray() (BLAS sums in
    # another order: agreement to a few roundings of d- and n-term sums, rtol 1e-12)
    X, y, sign = _problem(2, n=120, d=30)
    Xs, Xd = X.asformat(fmt), X.toarray()
    lam = 0.5 / X.shape[0]
    res = signsvm.solve(X, y, lam, sign, tol=1e-8)
    alpha, w = res.alpha, res.w
    for f, args in ((signsvm.primal_objective, (w,)), (signsvm.dual_objective, (alpha,)),
                    (signsvm.weights_from_dual, (alpha,)), (signsvm.dual_gradient, (alpha,))):
        extra = (lam,) if f is signsvm.primal_objective else (lam, sign)
        np.testing.assert_allclose(f(*args, Xs, y, *extra), f(*args, Xd, y, *extra), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(signsvm.margins(w, Xs, y), signsvm.margins(w, Xd, y), rtol=1e-12, atol=1e-15)
    # and the certificate itself: solve's gap equals the one recomputed on the sparse matrix, to
    # the rounding of two 120-term sums (~ n eps P = 3e-14 P; 1e-12 P leaves a margin of 30)
    gap = signsvm.primal_objective(w, Xs, y, lam) - signsvm.dual_objective(alpha, Xs, y, lam, sign)
    assert abs(gap - (res.primal - res.dual)) <= 1e-12 * (1 + abs(res.primal))
    assert 0 <= gap <= 1e-8 * res.primal + 1e-12 * (1 + abs(res.primal))


def test_objectives_name_bad_sparse_input():
    X, y, _ = _problem(3, n=10, d=4)
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="^X: expected finite values"):
        signsvm.primal_objective(np.zeros(4), bad, y, 1.0)
    with pytest.raises(ValueError, match="^y: expected length 10"):
        signsvm.dual_objective(np.zeros(10), X, y[:-1], 1.0)


def test_auto_plans_a_dense_enough_csr_as_the_dense_array():
    # a dense Gaussian matrix handed over as CSR: auto takes the dense array's plan (here the
    # interior-point method alone, from the rule on the rows' norm) instead of the sparse time
    # model's, which charges its normal matrix by pairs of nonzeros; both answers certify and agree
    rng = np.random.default_rng(21)
    X = rng.standard_normal((600, 150))
    y = np.where(rng.random(600) < 0.5, -1.0, 1.0)
    sign = rng.choice([-1.0, 0.0, 1.0], size=150)
    lam = 70.0 / 600
    a = signsvm.solve(sparse.csr_matrix(X), y, lam, sign)
    b = signsvm.solve(X, y, lam, sign)
    assert a.history["method"] == b.history["method"] == ["interior-point"]
    assert a.converged and b.converged and abs(a.primal - b.primal) <= a.gap + b.gap
