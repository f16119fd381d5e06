"""The time model of one interior-point iteration on a sparse X, split into what grows with n and
what does not.

A sparse X (CSR) with d <= n forms its d x d normal matrix row by row
(``_normal_equations.sparse_weighted_gram``). One iteration costs about

    IPM_SPARSE_SEC[0] sum_i nnz_i^2 / 2 + IPM_SPARSE_SEC[2] nnz + IPM_SPARSE_SEC[3] n     (the rows)
  + IPM_SPARSE_SEC[1] d^3 + IPM_SPARSE_SEC[4]                                         (the factor)

seconds on one core: the pairs of entries of each row that the normal matrix sums (taken as
nnz^2 / (2 n), rows of equal length), the products with X, the per-sample vector work, then the
Cholesky factor of the d x d matrix and the fixed Python cost. The constants were fitted to the
sparse Gaussian family of the floor benchmarks (d = 1000, 1% nonzeros; one thread), whose
iterations took 17 ms at n = 10^4, 48 ms at 10^5 and 0.35 s at 10^6 (3.3 ns a pair of entries;
MNIST-5k as CSR, with rows of 151 entries, 1.6 ns).

The split matters where the method finishes on a working set (:mod:`.working_set`): a subset's
iteration sums fewer rows but factors the d x d matrix in full, so ``auto``'s plan (:mod:`.plan`)
counts the two parts' iterations apart there.

A CSR X dense enough to enter the normal matrix by dense row blocks
(``_normal_equations.SPARSE_GRAM_DENSE_FROM``: sum_i nnz_i^2 at least 0.08 n d^2) costs less than
this model says (1.5 to 47 times less for the rows' part on ``benchmarks/sparse_gram.py``'s
matrices); none of the sparse problems the plan's constants were measured on is.
"""

from __future__ import annotations

__all__ = ["IPM_SPARSE_SEC", "sparse_iteration_seconds"]

IPM_SPARSE_SEC = (3.3e-9, 1.25e-11, 9e-9, 6e-8, 1.8e-4)


def sparse_iteration_seconds(n: int, d: int, nnz: int) -> tuple[float, float]:
    """The model's seconds of one interior-point iteration on an (n, d) CSR X with ``nnz``
    nonzeros and d <= n: (rows, factor), the part that grows with the samples and the part that
    does not (the d x d Cholesky factor and the fixed cost).

    Examples
    --------
    >>> from svmcert.signsvm.sparse_ipm_cost import sparse_iteration_seconds
    >>> rows, factor = sparse_iteration_seconds(100_000, 1000, 10**6)    # 10 nonzeros a row
    >>> round(rows * 1e3, 1), round(factor * 1e3, 1)                     # milliseconds
    (31.5, 12.7)
    """
    pairs = 0.5 * float(nnz) ** 2 / n
    rows = IPM_SPARSE_SEC[0] * pairs + IPM_SPARSE_SEC[2] * float(nnz) + IPM_SPARSE_SEC[3] * float(n)
    factor = IPM_SPARSE_SEC[1] * float(d) ** 3 + IPM_SPARSE_SEC[4]
    return rows, factor
