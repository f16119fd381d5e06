"""The Newton system of :mod:`.interior_point`'s numpy iteration: the d x d normal matrix
M = B + X^T diag(delta) X (B diagonal), or when n < d the n x n Woodbury matrix
diag(1/delta) + X B^-1 X^T, formed from X (dense, by row blocks; sparse, from products) and
factorised by LAPACK's Cholesky with small diagonal shifts when rounding makes it fail. A Woodbury
solve is checked by its residual and, where it fails, refined on the augmented system or, failing
that, repeated in the d x d form (:class:`NormalEquations`)."""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.linalg.blas import dsyrk
from scipy.linalg.lapack import dpotrf, dpotrs

from ._signed_rows import dense_block

__all__ = ["NormalEquations", "weighted_gram", "sparse_weighted_gram", "woodbury_residual", "GRAM_BLOCK_ENTRIES",
           "WOODBURY_RESIDUAL_LIMIT", "WOODBURY_REFINEMENTS", "WOODBURY_REFINED_LIMIT", "PRIMAL_FORM_MAX_D",
           "PRIMAL_FORM_CHEAP_D", "falls_back", "SPARSE_GRAM_DENSE_FROM", "WOODBURY_GRAM_DENSE_FROM",
           "gram_from_dense_blocks"]


class NormalEquations:
    """Factor of M = B + X^T diag(delta) X (B diagonal, d x d) or, when n < d, of the Woodbury
    matrix diag(1/delta) + X B^-1 X^T (n x n); ``solve(r)`` returns M^-1 r either way.

    The Woodbury solve gets M^-1 r as the difference of two vectors of the size of B^-1 r, and
    loses the digits they share. With sign constraints (B's diagonal then spans lam n to
    mu_h / |w_h|, which grows without bound on the coordinates held at zero), repeated rows,
    columns of very different scales, or a tiny lam, its result can be wrong in every digit while
    the d x d form's stays accurate, and the interior-point method stalls. So each Woodbury solve
    is checked by its residual (two products with X, :func:`woodbury_residual`). Above
    WOODBURY_RESIDUAL_LIMIT it is refined, down to WOODBURY_REFINED_LIMIT or for at most
    WOODBURY_REFINEMENTS steps, on the augmented system
    [[B, X^T], [X, -diag(1/delta)]] [x; z] = [r; 0], of which the Woodbury solve is the
    elimination of x (z = diag(delta) X x): each step solves for the residual of both block rows
    with the same factor, as interior-point codes refine their quasi-definite KKT systems.
    ``refined`` counts the steps taken. A solve still above the limit after them is, where the
    d x d form is affordable (:func:`falls_back`), repeated in that form, and ``primal_form`` set
    (the caller keeps that form for the rest of its run: ``primal_form=True``). A solve that
    passes the check returns the Woodbury result unchanged."""

    def __init__(self, X, XT, b_diag, delta, primal_form: bool | None = None):
        n, d = X.shape
        self.X, self.XT, self.b, self.delta = X, XT, b_diag, delta
        self.primal_form = d <= n if primal_form is None else bool(primal_form)
        self.refined = 0
        if self.primal_form:
            M = _primal_matrix(X, b_diag, delta)
        elif hasattr(X, "nnz"):                            # sparse X: the same matrix from its rows,
            if gram_from_dense_blocks(X, columns=True):     # or from dense blocks of its columns
                M = weighted_gram(X.T.tocsr(), 1.0 / b_diag)
            else:
                M = dense_block(X.multiply(1.0 / b_diag[None, :]).tocsr() @ XT)
            M[np.diag_indices(n)] += 1.0 / delta
        else:
            M = (X / b_diag[None, :]) @ XT
            M[np.diag_indices(n)] += 1.0 / delta
        self.factor = _cholesky(M)

    def solve(self, r):
        if self.primal_form:
            return _cho_solve(self.factor, r)
        X, XT, b, delta = self.X, self.XT, self.b, self.delta
        rb = r / b
        z = _cho_solve(self.factor, np.asarray(X @ rb))
        x = rb - np.asarray(XT @ z) / b
        residual = woodbury_residual(X, XT, b, delta, x, r)
        if residual <= WOODBURY_RESIDUAL_LIMIT:
            return x
        for _ in range(WOODBURY_REFINEMENTS):
            if residual <= WOODBURY_REFINED_LIMIT:
                return x
            r_x = r - b * x - np.asarray(XT @ z)          # the two block rows' residuals
            r_z = z / delta - np.asarray(X @ x)
            dz = _cho_solve(self.factor, np.asarray(X @ (r_x / b)) - r_z)
            x, z = x + (r_x - np.asarray(XT @ dz)) / b, z + dz
            residual = woodbury_residual(X, XT, b, delta, x, r)
            self.refined += 1
        if residual <= WOODBURY_RESIDUAL_LIMIT or not falls_back(*X.shape):
            return x
        self.factor = _cholesky(_primal_matrix(X, b, delta))
        self.primal_form = True
        return _cho_solve(self.factor, r)


WOODBURY_RESIDUAL_LIMIT = 1e-4
"""Largest relative residual (:func:`woodbury_residual`) a Woodbury solve may leave before
:class:`NormalEquations` repeats it in the d x d form. A backward-stable solve leaves a small
multiple of the machine epsilon; the Woodbury solves of free-sign Gaussian runs with n < d
(lam n 1e-4 to 100, runs that never stall) left up to 1e-5, those of the runs that stall 0.1 to 1.
``benchmarks/odd_problems.py --woodbury-limits`` (``results/woodbury_limit.csv``: 17 odd problems
on which the method stalled with the check off, and 96 Gaussian problems with n < d) counted 17
runs not certified with the check off and none at any limit from 1e-1 to 1e-8. The same 38 runs
switched at every limit from 1e-1 to 1e-4 (at 1e-4 earliest: 1344 Newton iterations in all,
against 1378 at 1e-3 and 1453 at 1e-1), 52 and 76 at 1e-6 and 1e-8, where runs that converge
anyway begin to pay for the d x d form."""
WOODBURY_REFINEMENTS = 3
"""Most refinement steps on the augmented system a Woodbury solve that failed its check takes
(:class:`NormalEquations`) before, still above WOODBURY_RESIDUAL_LIMIT, it falls back on the d x d
form. On the systems of stalled runs one step usually took a residual of 0.1 to 1 down to 1e-9 or
less, the d x d form's own level there (1e-15 to 1e-7). ``odd_problems.py --woodbury-limits 0 1e-4
--refinements 0 1 3 --refined-limits ...`` (``results/woodbury_refinements.csv``: the 113 runs
behind WOODBURY_RESIDUAL_LIMIT, 17 of them uncertified with the check off): with no step, the 38
runs that failed a check switched to the d x d form (1343 Newton iterations in all); with one,
none was uncertified but 3 still switched (1349 iterations); with three and a target of 1e-6 or
below, none switched (1345 iterations at 1e-8)."""
WOODBURY_REFINED_LIMIT = 1e-8
"""The residual a refined Woodbury solve is taken down to (or WOODBURY_REFINEMENTS steps). A
refined solve stopped as soon as it passed WOODBURY_RESIDUAL_LIMIT could be too coarse late in a
run: on the 113 runs of ``results/woodbury_refinements.csv`` (three steps), that target left one
run uncertified after it had switched to the d x d form (and one case of ``odd_problems.py``,
293); targets of 1e-6, 1e-8, 1e-10 and 1e-12 left none and switched none, in 228, 274, 394 and
507 refinement steps in all. The value is two decades below the loosest that certified all."""
PRIMAL_FORM_MAX_D = 4000
"""Largest d for which a failed Woodbury solve falls back on the d x d form (its matrix then takes
at most 128 MB, as ``plan.SPARSE_IPM_MAX_DIM`` allows for a sparse X)."""
PRIMAL_FORM_CHEAP_D = 1000
"""Up to this d the d x d form is cheap whatever n is (factorising it takes d^3 / 3 = 3.3e8 flops, a
few hundredths of a second, at most)."""


def falls_back(n: int, d: int) -> bool:
    """Whether a Woodbury solve (n < d) that its refinement leaves above the limit is repeated in
    the d x d form: d at most PRIMAL_FORM_MAX_D, and at most PRIMAL_FORM_CHEAP_D or 2 n (there an
    iteration in the d x d form, n d^2 + d^3 / 3 flops, costs at most about three times one in the
    Woodbury form, n^2 d + n^3 / 3). Beyond, the refined solve is kept, and a run that stalls is
    left to the crossover.

    Examples
    --------
    >>> from svmcert.signsvm._normal_equations import falls_back
    >>> [falls_back(n, d) for n, d in ((100, 1000), (100, 1200), (1500, 3000), (1500, 4500))]
    [True, False, True, False]
    """
    return d <= PRIMAL_FORM_MAX_D and (d <= PRIMAL_FORM_CHEAP_D or d <= 2 * n)


def woodbury_residual(X, XT, b_diag, delta, x, r) -> float:
    """max |r - M x| / (max |r| + max |B x| + max |X^T diag(delta) X x|): the residual of a solve of
    M x = r, relative to the size of the terms it sums (about 1e-16 for a backward-stable solve)."""
    bx = b_diag * x
    gx = np.asarray(XT @ (delta * np.asarray(X @ x)))
    scale = np.abs(r).max() + np.abs(bx).max() + np.abs(gx).max()
    return float(np.abs(r - bx - gx).max() / max(scale, np.finfo(float).tiny))


def _primal_matrix(X, b_diag, delta):
    """B + X^T diag(delta) X, upper triangle (dense X: by row blocks; sparse: from its rows)."""
    d = X.shape[1]
    if hasattr(X, "nnz") and not gram_from_dense_blocks(X):
        M = sparse_weighted_gram(X.indptr, X.indices, X.data, delta, d)
    else:
        M = weighted_gram(X, delta)
    M[np.diag_indices(d)] += b_diag
    return M


GRAM_BLOCK_ENTRIES = 1 << 18
"""Rows of X enter the normal matrix in blocks of about this many entries (2 MB): the scaled block
stays in cache, and no n x d temporary is formed. At n = 10^5 and 10^6, d = 100 (one thread) the
blocks took 0.06 and 0.49 s against 0.30 and 2.5 s for one scaled copy of X; a problem with fewer
rows than a block is one block, as before."""


SPARSE_GRAM_DENSE_FROM = 0.08
"""A sparse X whose rows' pairs of nonzeros number at least this share of a dense X's
(sum_i nnz_i^2 >= SPARSE_GRAM_DENSE_FROM n d^2, about 28% of the entries nonzero when they are
spread evenly) enters the normal matrix as :func:`weighted_gram` does, its row blocks made dense
one at a time (GRAM_BLOCK_ENTRIES entries each, so X is never densified whole), instead of through
:func:`sparse_weighted_gram`, whose scattered updates cost 1.5-3 ns each against a few hundredths
of a nanosecond per flop of dsyrk. ``benchmarks/sparse_gram.py`` (``results/sparse_gram.csv``)
times both on random CSR matrices of three shapes: at a share of 0.09 and above the blocks were
faster in every shape (1.5 to 47 times), at 0.04 the loop still won in one (20000 x 200: the
blocks took 1.4 times as long); the value sits between. MNIST-5k (share 0.040) stays on the loop,
where the blocks would be 1.4 times faster; that keeps its runs in the book as they were."""


WOODBURY_GRAM_DENSE_FROM = 0.01
"""SPARSE_GRAM_DENSE_FROM for the n x n Woodbury matrix of a CSR X with fewer rows than columns:
from this share of pairs of nonzeros in its columns (sum_h nnz_h^2 >= WOODBURY_GRAM_DENSE_FROM
d n^2, about 10% of the entries nonzero when spread evenly) the matrix is summed from dense
blocks of X's columns by dsyrk instead of scipy's sparse product X diag(1/b) X^T, which is slower
per pair than the compiled loop of the d x d form. ``benchmarks/sparse_gram.py --woodbury``
(``results/sparse_gram_woodbury.csv``, shapes 500 x 5000, 200 x 20000 and 1500 x 2000): at a
share of 0.01 the blocks were faster in every shape (1.17 to 2.1 times), at 0.0026 in one of three,
at 0.04 2.9 to 4.1 times, and a dense matrix in CSR 9.0 to 38 times."""


def weighted_gram(X, delta):
    """Upper triangle of X^T diag(delta) X (d x d, Fortran order), accumulated by dsyrk over row
    blocks of GRAM_BLOCK_ENTRIES entries (of a CSR X, each block made dense in turn)."""
    n, d = X.shape
    rows = max(64, GRAM_BLOCK_ENTRIES // max(d, 1))
    root = np.sqrt(delta)
    sparse = hasattr(X, "nnz")
    M = np.zeros((d, d), order="F")
    for start in range(0, n, rows):
        block = X[start:start + rows]
        A = (block.toarray() if sparse else block) * root[start:start + rows, None]
        M = dsyrk(1.0, A.T, beta=1.0, c=M, trans=0, lower=0, overwrite_c=1)
    return M


def gram_from_dense_blocks(X, columns: bool = False) -> bool:
    """Whether a CSR X enters the normal matrix X^T diag(delta) X by dense row blocks
    (SPARSE_GRAM_DENSE_FROM: its rows' pairs of nonzeros at least that share of a dense X's) or,
    with ``columns``, the Woodbury matrix X diag(1/b) X^T by dense blocks of its columns
    (WOODBURY_GRAM_DENSE_FROM: its columns' pairs of nonzeros against n^2 d), there in place of
    scipy's sparse product.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from svmcert.signsvm._normal_equations import gram_from_dense_blocks
    >>> [gram_from_dense_blocks(sp.random(400, 50, density=p, format="csr", random_state=0))
    ...  for p in (0.05, 0.5)]
    [False, True]
    >>> [gram_from_dense_blocks(sp.random(50, 400, density=p, format="csr", random_state=0), columns=True)
    ...  for p in (0.05, 0.5)]
    [False, True]
    """
    n, d = X.shape
    if columns:
        per_column = np.bincount(X.indices, minlength=d).astype(float)
        return float(per_column @ per_column) >= WOODBURY_GRAM_DENSE_FROM * d * float(n) * n
    per_row = np.diff(X.indptr).astype(float)
    return float(per_row @ per_row) >= SPARSE_GRAM_DENSE_FROM * n * float(d) * d


@njit(cache=True, nogil=True)
def sparse_weighted_gram(indptr, indices, values, delta, d):
    """Upper triangle of X^T diag(delta) X (d x d, Fortran order, the lower triangle zero) for a
    CSR X with sorted column indices: each row adds delta_i x_ik x_il at (h_k, h_l), k <= l, so
    the work is sum_i nnz_i^2 / 2, not n d^2.

    Built in place of scipy's sparse product A^T A (A = diag(sqrt(delta)) X) and its dense copy,
    which cost 0.11 s an iteration at n = 10^5, d = 1000, 1% nonzeros (one thread), against
    about 0.01 s here. The numpy twin (that product) is compared with it in the tests."""
    M = np.zeros((d, d))                   # C order: M[l, k] is entry (k, l) of the transpose
    for i in range(indptr.shape[0] - 1):
        di = delta[i]
        for a in range(indptr[i], indptr[i + 1]):
            va = di * values[a]
            ha = indices[a]
            for b in range(a, indptr[i + 1]):
                M[indices[b], ha] += va * values[b]
    return M.T


def _cho_factor(A):
    """``scipy.linalg.cho_factor(A, lower=False)`` without its wrapper's checks: the same LAPACK
    dpotrf call, whose Python overhead was a tenth of an iteration on small sets."""
    c, info = dpotrf(A, lower=0, clean=0, overwrite_a=0)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotrf: info = {info}")
    return c


def _cho_solve(c, r):
    """``scipy.linalg.cho_solve((c, False), r)``: the same LAPACK dpotrs call."""
    x, info = dpotrs(c, r, lower=0, overwrite_b=0)
    if info != 0:
        raise ValueError(f"dpotrs: illegal argument {-info}")
    return x


def _cholesky(M):
    """Cholesky factor of the upper triangle of M, with a diagonal shift of relative size
    1e-14, 1e-12, ... when rounding makes the (positive definite) matrix fail the factorisation."""
    scale = float(np.abs(np.diag(M)).max())
    for shift in (0.0, 1e-14, 1e-12, 1e-10, 1e-8):
        try:
            A = M if shift == 0.0 else M + shift * scale * np.eye(M.shape[0])
            return _cho_factor(A)
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("interior_point: the Newton matrix is not positive definite")
