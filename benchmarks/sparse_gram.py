"""The interior-point method's normal matrix X^T diag(delta) X from a CSR X: the compiled loop over
each row's pairs of nonzeros (``_normal_equations.sparse_weighted_gram``) against dense row blocks
and dsyrk (``weighted_gram``, each block made dense in turn) -- the measurement behind
``_normal_equations.SPARSE_GRAM_DENSE_FROM``.

Random CSR matrices (``scipy.sparse.random``, keyed by shape and density) of shapes ``--shapes``
at densities ``--densities``, and MNIST-5k (the book's sparse set). Each side is timed as the best
of ``--repeat`` calls after a warm-up call, BLAS on one thread; the two matrices are compared
(largest difference of the upper triangles over the largest entry, rounding only). Columns:

    data, n, d, density, pairs_share (sum_i nnz_i^2 / (n d^2), the quantity the rule compares),
    loop_seconds, blocks_seconds, ratio (loop / blocks: above 1 the blocks are faster),
    blocks_chosen (whether the rule takes the blocks), max_rel_diff

Run: ``python benchmarks/sparse_gram.py --csv benchmarks/results/sparse_gram.csv`` (about a minute).

``--woodbury`` times the n x n Woodbury matrix X diag(1/b) X^T of a CSR X with fewer rows than
columns instead (shapes WOODBURY_SHAPES): scipy's sparse product, which the interior-point method
used for every such X (``loop_seconds``), against dense blocks of X's columns and dsyrk
(``weighted_gram`` on X^T, ``blocks_seconds``); ``pairs_share`` is then that of the columns,
sum_h nnz_h^2 / (d n^2), and ``blocks_chosen`` the rule ``gram_from_dense_blocks(X, columns=True)``
(``results/sparse_gram_woodbury.csv``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers.common import write_csv  # noqa: E402

SHAPES = ((5000, 500), (20000, 200), (2000, 1500))
WOODBURY_SHAPES = ((500, 5000), (200, 20000), (1500, 2000))
DENSITIES = (0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0)


def best(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return min(times)


def measure(name, X, repeat) -> dict:
    from svmcert.instance_streams import instance_rng
    from svmcert.signsvm._normal_equations import gram_from_dense_blocks, sparse_weighted_gram, weighted_gram

    X = sp.csr_matrix(X)
    X.sort_indices()
    n, d = X.shape
    delta = instance_rng(0, "sparse-gram-delta", name, n, d).uniform(0.1, 2.0, n)
    per_row = np.diff(X.indptr).astype(float)
    loop = np.triu(sparse_weighted_gram(X.indptr, X.indices, X.data, delta, d))
    blocks = np.triu(weighted_gram(X, delta))
    t_loop = best(lambda: sparse_weighted_gram(X.indptr, X.indices, X.data, delta, d), repeat)
    t_blocks = best(lambda: weighted_gram(X, delta), repeat)
    return dict(data=name, n=n, d=d, density=X.nnz / (n * d), pairs_share=float(per_row @ per_row) / (n * d * d),
                loop_seconds=t_loop, blocks_seconds=t_blocks, ratio=t_loop / t_blocks,
                blocks_chosen=gram_from_dense_blocks(X),
                max_rel_diff=float(np.abs(loop - blocks).max() / np.abs(blocks).max()))


def measure_woodbury(name, X, repeat) -> dict:
    """:func:`measure` for the Woodbury matrix X diag(1/b) X^T (``--woodbury``)."""
    from svmcert.instance_streams import instance_rng
    from svmcert.signsvm._normal_equations import gram_from_dense_blocks, weighted_gram
    from svmcert.signsvm._signed_rows import dense_block

    X = sp.csr_matrix(X)
    X.sort_indices()
    n, d = X.shape
    b = instance_rng(0, "sparse-gram-b", name, n, d).uniform(0.1, 2.0, d)
    XT = X.T

    def product():
        return dense_block(X.multiply(1.0 / b[None, :]).tocsr() @ XT)

    def blocks():
        return weighted_gram(X.T.tocsr(), 1.0 / b)

    per_column = np.bincount(X.indices, minlength=d).astype(float)
    full, upper = np.triu(product()), np.triu(blocks())
    t_product, t_blocks = best(product, repeat), best(blocks, repeat)
    return dict(data=name, n=n, d=d, density=X.nnz / (n * d), pairs_share=float(per_column @ per_column) / (d * n * n),
                loop_seconds=t_product, blocks_seconds=t_blocks, ratio=t_product / t_blocks,
                blocks_chosen=gram_from_dense_blocks(X, columns=True),
                max_rel_diff=float(np.abs(full - upper).max() / np.abs(upper).max()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=None, help="default: SHAPES, or WOODBURY_SHAPES with --woodbury")
    ap.add_argument("--woodbury", action="store_true", help="the n x n Woodbury matrix of a wide X (measure_woodbury)")
    ap.add_argument("--densities", nargs="+", type=float, default=list(DENSITIES))
    ap.add_argument("--no-mnist", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csv")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    from svmcert.instance_streams import instance_rng

    rows = []
    with threadpool_limits(1):
        shapes = args.shapes or [f"{n}x{d}" for n, d in (WOODBURY_SHAPES if args.woodbury else SHAPES)]
        for shape in shapes:
            n, d = (int(v) for v in shape.split("x"))
            for density in args.densities:
                seed = int(instance_rng(0, "sparse-gram", n, d, density).integers(2**31))
                X = sp.random(n, d, density=density, format="csr", random_state=seed)
                rows.append((measure_woodbury if args.woodbury else measure)(f"random-{shape}", X, args.repeat))
                print(rows[-1], flush=True)
        if not args.no_mnist and not args.woodbury:
            from svmcert import datasets

            X, _ = datasets.load_scaled("mnist5k")
            rows.append(measure("mnist5k", X, args.repeat))
            print(rows[-1], flush=True)
    if args.csv:
        write_csv(rows, args.csv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
