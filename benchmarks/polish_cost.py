"""Calibrates POLISH_FLOPS_PER_ENTRY (``svmcert.signsvm.shrinking_rounds``): how many flops of
dense linear algebra (counted as the polishing's cost model counts them, one multiply-add = 1)
take as long as visiting one nonzero of X in a compiled coordinate-ascent pass.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/polish_cost.py

Prints nanoseconds per nonzero of a pass (free and all-constrained signs) on three data sets and
the rate of a Gram product Z_F Z_F^T and a Cholesky factorisation at three sizes; the ratio
(rate x seconds per nonzero) is the number of flops one nonzero's visit buys.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg as sla
from threadpoolctl import threadpool_limits

from svmcert.experiments.sign_constrained.duality import load_scaled
from svmcert.signsvm._dca_kernel import epoch, row_layout, scaled_csr


def seconds_per_nonzero(X, y, sign, lam_n=1.0, min_seconds=1.0):
    indptr, indices, values = scaled_csr(np.ascontiguousarray(X), y / lam_n)
    cptr, cpos, sq = row_layout(indptr, indices, values, sign)
    alpha, omega, upper = np.zeros(X.shape[0]), np.zeros(X.shape[1]), np.ones(X.shape[0])
    order = np.random.default_rng(0).permutation(X.shape[0])
    epoch(order, indptr, indices, values, cptr, cpos, sq, alpha, omega, sign, lam_n, upper)   # compile, warm
    t, k = time.perf_counter(), 0
    while time.perf_counter() - t < min_seconds:
        epoch(order, indptr, indices, values, cptr, cpos, sq, alpha, omega, sign, lam_n, upper)
        k += 1
    return (time.perf_counter() - t) / k / indptr[-1]


def main():
    with threadpool_limits(limits=1, user_api="blas"):
        per_nnz = []
        for name in ("mnist5k", "splice", "svmguide1"):
            X, y = load_scaled(name)
            for label, sign in (("free", np.zeros(X.shape[1])), ("constrained", np.ones(X.shape[1]))):
                s = seconds_per_nonzero(X, y, sign)
                per_nnz.append(s)
                print(f"{name:10s} {label:12s} {1e9 * s:6.1f} ns per nonzero")
        for m in (200, 500, 1000):
            A = np.random.default_rng(0).standard_normal((m, m))
            t = time.perf_counter()
            K = A @ A.T
            gram = m ** 3 / (time.perf_counter() - t)
            t = time.perf_counter()
            sla.cho_factor(K + m * np.eye(m))
            chol = m ** 3 / 3 / (time.perf_counter() - t)
            print(f"m = {m:5d}: Gram {gram / 1e9:5.1f} Gflop/s, Cholesky {chol / 1e9:5.1f} Gflop/s; "
                  f"one nonzero's visit = {min(gram, chol) * min(per_nnz):.0f} to "
                  f"{max(gram, chol) * max(per_nnz):.0f} flops")


if __name__ == "__main__":
    main()
