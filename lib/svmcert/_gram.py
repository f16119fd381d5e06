"""The one Gram/PSD check of the library: square, finite, symmetric and positive semidefinite up to
rounding. Every function that takes a Gram or PSD matrix calls it through
:func:`svmcert._validation.check_gram` (or :func:`psd_tolerance` for a spectrum it already has).

The tolerance, everywhere: a negative eigenvalue above ``-tau``, tau = 100 n eps max_i K_ii (eps the
machine epsilon of K's dtype), is rounding; anything below it is indefiniteness. Rounding makes a
PSD matrix of low rank indefinite by about n eps max K_ii, far below tau.

Three levels of the PSD test (``psd`` of :func:`check_gram`):

- ``True``: a proof up to rounding, the Cholesky factorisation of K + tau I with
  tau = 100 n eps max_i K_ii, O(n^3 / 3) (0.5-1 s at n = 3089 on one core).
- ``"auto"``: the proof when it is cheap (n <= PSD_CHOLESKY_MAX_N); above that, tests that cost
  four passes over K and refute (never prove) positive semidefiniteness: a negative diagonal
  entry, a 2 x 2 principal minor K_ii K_jj - K_ij^2 < 0 (found through
  |K_ij| > sqrt(K_ii K_jj)), or a vector v with v^T K v < -tau ||v||^2 among the Ritz vectors of
  a small random block Krylov space (block Lanczos, which finds the extreme eigenvalues first). Every failure is shown by an explicit
  witness, so a matrix that fails is indefinite; one that passes may still have a negative
  eigenvalue that is small or hard to reach, which is why ``fit_weighted_svm`` also checks, at
  every certificate, that the quadratic term u^T Q u it computes is not negative (a negative value
  proves K indefinite).
- ``False``: no PSD test (symmetry and finiteness are still checked).
"""

from __future__ import annotations

import numpy as np
from numba import njit


__all__ = ["gram_checks", "PSD_MODES", "PSD_CHOLESKY_MAX_N", "PSD_SKETCH_COLUMNS", "PSD_POWER_STEPS", "psd_tolerance",
           "spectrum_tolerance", "dtype_eps",
           "scan_compiled", "scan_numpy"]

PSD_MODES = (True, False, "auto")
PSD_CHOLESKY_MAX_N = 1000
"""Largest n for which ``psd="auto"`` runs the Cholesky proof: n^3 / 3 <= 3.3e8 flops (about 30 ms)."""
PSD_SKETCH_COLUMNS = 4
"""Columns of the random block of ``psd="auto"``'s Krylov space; its generator is seeded 0."""
PSD_POWER_STEPS = 2
"""Products with K that build ``psd="auto"``'s Krylov space (each one pass over K, plus one for
Rayleigh-Ritz)."""


def psd_tolerance(K: np.ndarray, eps: float) -> float:
    """tau = 100 n eps max_i K_ii: the rounding level below which a negative eigenvalue is ignored."""
    return spectrum_tolerance(K.shape[0], float(np.max(np.diag(K))), eps)


def spectrum_tolerance(n: int, scale: float, eps: float = float(np.finfo(float).eps)) -> float:
    """tau = 100 n eps scale for an n x n matrix of size ``scale`` (max_i K_ii, or the largest
    eigenvalue's magnitude when the spectrum is at hand)."""
    return 100.0 * n * eps * max(float(scale), np.finfo(float).tiny)


def dtype_eps(K) -> float:
    """Machine epsilon of K's own floating dtype, and at least float64's."""
    dtype = getattr(K, "dtype", None)
    eps = np.finfo(dtype).eps if dtype is not None and np.issubdtype(dtype, np.floating) else np.finfo(float).eps
    return max(float(eps), float(np.finfo(float).eps))


_TILE = 8
"""Side of :func:`scan_compiled`'s square tiles. With 8 the mirror tile's copy reads one cache
line per row of K: a whole scan of svmguide1's 3089 x 3089 Gram took 14-16 ms against 20 ms with
tiles of 64, and 51 against 74-84 ms at n = 6000 (3.1 against 2.7 ms at n = 1200, where K fits
in the cache; one thread)."""


@njit(cache=True, nogil=True, fastmath={"nnan", "ninf", "nsz"})
def scan_compiled(K, root):
    """One tiled pass over a finite K: (max |K_ij|, max |K_ij - K_ji|, the largest
    max(|K_ij|, |K_ji|) - root_i root_j and its (i, j) with i <= j, the first one in the scan's
    order). Each tile of the upper triangle is read with its mirror tile, which is first copied
    transposed into a buffer, so both are read along rows (plain K - K.T makes a strided n^2
    temporary). The maxima are exact in any order; the compiler may reorder them because K is
    finite (the flags assume no NaN or inf), and the position of the largest excess is found by
    a second look at the row segment that holds it."""
    n = K.shape[0]
    T = np.empty((_TILE, _TILE))
    big, asym, excess, bi, bj = 0.0, 0.0, -np.inf, 0, 0
    for i0 in range(0, n, _TILE):
        i1 = min(i0 + _TILE, n)
        for j0 in range(i0, n, _TILE):
            j1 = min(j0 + _TILE, n)
            for j in range(j0, j1):
                for i in range(i0, i1):
                    T[i - i0, j - j0] = K[j, i]
            for i in range(i0, i1):
                ri, Ki, Ti = root[i], K[i], T[i - i0]      # row views: the loop below then vectorises
                start = max(j0, i)
                row = -np.inf
                for j in range(start, j1):
                    a, b = Ki[j], Ti[j - j0]
                    top = max(abs(a), abs(b))
                    big = max(big, top)
                    asym = max(asym, abs(a - b))
                    row = max(row, top - ri * root[j])
                if row > excess:
                    for j in range(start, j1):
                        if max(abs(Ki[j]), abs(Ti[j - j0])) - ri * root[j] == row:
                            excess, bi, bj = row, i, j
                            break
    return big, asym, excess, bi, bj


def scan_numpy(K, root):
    """Reference for :func:`scan_compiled` (same numbers, numpy temporaries)."""
    excess = np.maximum(np.abs(K), np.abs(K.T)) - np.outer(root, root)
    excess[np.tril_indices(K.shape[0], -1)] = -np.inf
    i, j = np.unravel_index(int(np.argmax(excess)), K.shape)
    return float(np.abs(K).max()), float(np.abs(K - K.T).max()), float(excess[i, j]), int(i), int(j)


def _cholesky_proof(K, tau, name):
    from threadpoolctl import threadpool_limits

    try:
        with threadpool_limits(limits=1, user_api="blas"):  # one thread: robust when cores are shared
            np.linalg.cholesky(K + tau * np.eye(K.shape[0]))
    except np.linalg.LinAlgError:
        raise ValueError(f"{name}: expected a positive semidefinite matrix (Cholesky of K + {tau:.1e} I failed)") from None


def _refutation_tests(K, tau, name, root, excess, i, j):
    """Tests that find explicit witnesses of indefiniteness (none proves K PSD): the largest
    excess |K_ij| - sqrt(K_ii K_jj) found by the scan, then Rayleigh-Ritz on the block Krylov space
    spanned by a random n x PSD_SKETCH_COLUMNS block V and K V, ..., K^PSD_POWER_STEPS V, whose
    extreme Ritz values approach K's extreme eigenvalues quickly (block Lanczos; Golub and Van
    Loan, Matrix Computations, Sec. 10.3)."""
    if excess > tau:            # v = e_i - sign(K_ij) e_j gives v^T K v = K_ii + K_jj - 2 |K_ij| < 0
        raise ValueError(f"{name}: expected a positive semidefinite matrix, but the 2 x 2 principal minor "
                         f"({i}, {j}) is negative (|K_ij| = {max(abs(K[i, j]), abs(K[j, i])):.3g} > "
                         f"sqrt(K_ii K_jj) = {root[i] * root[j]:.3g})")
    # The products are taken as (B^T K)^T = K^T B: a BLAS gemm reads K about twice as fast that way
    # round when B has a few columns. For the test it makes no difference whether K or K^T builds
    # the space (any subspace may hold a witness), and the Rayleigh quotient v^T K^T v is v^T K v.
    V, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((K.shape[0], PSD_SKETCH_COLUMNS)))
    blocks = [V]
    for _ in range(PSD_POWER_STEPS):                 # the block Krylov space V, K V, K^2 V
        blocks.append((blocks[-1].T @ K).T)
    V, _ = np.linalg.qr(np.hstack(blocks))
    KV = (np.ascontiguousarray(V.T) @ K).T
    vals, vecs = np.linalg.eigh(0.5 * (V.T @ KV + KV.T @ V))
    if vals[0] < -tau:
        v = V @ vecs[:, 0]
        raise ValueError(f"{name}: expected a positive semidefinite matrix, found v with v^T K v = "
                         f"{float(v @ (K @ v)):.3g} < 0 (||v|| = 1)")


def gram_checks(K: np.ndarray, n: int | None, name: str, psd, eps: float) -> np.ndarray:
    """Square (n x n), symmetric and, with ``psd``, positive semidefinite up to rounding (module
    docstring), for K already a finite float64 matrix; ``eps`` the epsilon of K's original dtype.
    :func:`svmcert._validation.check_gram` is the door that validates K first."""
    if psd not in PSD_MODES or isinstance(psd, (int, np.integer)) and not isinstance(psd, (bool, np.bool_)):
        raise ValueError(f"check_psd: expected True, False or 'auto', got {psd!r}")
    if K.shape[0] != K.shape[1] or (n is not None and K.shape[0] != n):
        want = f"({n}, {n})" if n is not None else "square"
        raise ValueError(f"{name}: expected a {want} Gram matrix, got shape {K.shape}")
    root = np.sqrt(np.maximum(np.diag(K), 0.0))
    scan = scan_compiled if K.flags.c_contiguous else scan_numpy
    big, asym, excess, i, j = scan(K, root)
    scale = max(big, np.finfo(float).tiny)
    if asym > 1e-10 * scale:
        raise ValueError(f"{name}: expected a symmetric matrix, max |K - K^T| = {asym:.3g}")
    if psd is False:
        return K
    diag = np.diag(K)
    if diag.min() < -1e-12 * scale:
        raise ValueError(f"{name}: expected a positive semidefinite matrix, found a negative diagonal entry {diag.min():.3g}")
    tau = psd_tolerance(K, eps)
    if psd is True or K.shape[0] <= PSD_CHOLESKY_MAX_N:
        _cholesky_proof(K, tau, name)
    else:
        _refutation_tests(K, tau, name, root, excess, i, j)
    return K
