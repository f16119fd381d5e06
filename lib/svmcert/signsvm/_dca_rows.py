"""The compiled passes' row layout (numba): the scaled rows of Z / (lam n) in CSR form from a dense
X (:func:`scaled_csr`), each row's sign-constrained positions and squared norm
(:func:`row_layout`), and both in one call (:func:`dense_rows`). Used by
:mod:`svmcert.signsvm._dca_kernel`'s passes, which re-export these names.

Column indices are stored as INDEX_DTYPE (32-bit): a pass reads 12 bytes a nonzero instead of 16,
and a scipy CSR matrix's own int32 indices are used without a copy (:func:`csr_indices`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .problem import INDEX_DTYPE

__all__ = ["row_layout", "scaled_csr", "dense_rows", "csr_indices", "INDEX_DTYPE", "ONE_SCAN_MAX_BYTES", "ZERO_RUN"]

def csr_indices(indices) -> np.ndarray:
    """A validated CSR matrix's column indices as INDEX_DTYPE (:data:`.problem.INDEX_DTYPE`; the
    door checks that they fit): scipy's own array when it already is int32, as it is unless the
    matrix is too large for it."""
    return indices if indices.dtype == INDEX_DTYPE else indices.astype(INDEX_DTYPE)


@njit(cache=True, nogil=True)
def row_layout(indptr, indices, values, sign):
    """Per row: the positions of its sign-constrained entries (``cpos[cptr[i]:cptr[i + 1]]``) and
    the squared norm of its values (the step's slope when no entry is constrained)."""
    n = indptr.shape[0] - 1
    cptr = np.zeros(n + 1, np.int64)
    sq_norm = np.zeros(n)
    for i in range(n):
        c = 0
        for k in range(indptr[i], indptr[i + 1]):
            if sign[indices[k]] != 0.0:
                c += 1
            sq_norm[i] += values[k] * values[k]
        cptr[i + 1] = cptr[i] + c
    cpos = np.empty(cptr[n], np.int64)
    c = 0
    for k in range(indptr[n]):
        if sign[indices[k]] != 0.0:
            cpos[c] = k
            c += 1
    return cptr, cpos, sq_norm


@njit(cache=True, nogil=True)
def scaled_csr(X, scale):
    """CSR form (indptr, indices, values) of diag(scale) X, keeping the nonzeros of X."""
    n, d = X.shape
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        c = 0
        for h in range(d):
            if X[i, h] != 0.0:
                c += 1
        indptr[i + 1] = indptr[i] + c
    indices = np.empty(indptr[n], np.int32)
    values = np.empty(indptr[n])
    for i in range(n):
        k = indptr[i]
        si = scale[i]
        for h in range(d):
            x = X[i, h]
            if x != 0.0:
                indices[k] = h
                values[k] = si * x
                k += 1
    return indptr, indices, values


ONE_SCAN_MAX_BYTES = 48 * 2**20
"""Largest room, in bytes, that :func:`dense_rows` reserves to read X once: 12 n d for the values
and column indices of a fully nonzero X plus 8 n c for the positions of its c constrained columns
(only the pages it writes are touched). A larger X is read twice, counting first, into buffers of
the exact size. Below the limit one scan was 8-18% faster (d = 256, densities 0.2 and 1, up to
2^21 entries; MNIST-5k with free signs, 47 MB: 20.4 against 21.1 ms a solve at lam n = 10) and
neither build faulted a page. Above it glibc hands the freed room back to the system after each
call (beyond its default trim threshold of 64 MB), so the next call faults every page it writes
again: MNIST-5k with every column constrained (78 MB) faulted 2919 pages a call, and its one-scan
build took 11.0 ms against 5.4 ms and no faults for two scans (one thread, in a process that had
loaded the benchmark data sets)."""


def dense_rows(X, scale, sign, upper=None):
    """:func:`scaled_csr` of a dense X and its :func:`row_layout` in one call: (indptr, indices,
    values, cptr, cpos, sq_norm), equal to theirs bit for bit (the same sums in the same order),
    and omega_u = sum_i upper_i values_i (default upper: ones), summed as
    ``_signed_rows.csr_rmatvec`` sums it (``bound_start.all_at_bound`` tests that point; folded
    into the scan, it costs no pass of its own).

    Within ONE_SCAN_MAX_BYTES of room, one scan of X fills the rows, their squared norms and the
    constrained positions (:func:`_dense_rows_one_scan`); above, or where the system refuses the
    one scan's buffers (MemoryError), one scan counts each row's nonzeros and constrained
    nonzeros and one more fills them. Separately, :func:`row_layout` reads the CSR a third time:
    on MNIST-5k (19% nonzeros) that pass cost about a third as much as building the CSR."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    bits = X.view(np.uint64)                # the same memory: runs of +0.0 are skipped by it (ZERO_RUN)
    n, d = X.shape
    upper = np.ones(n) if upper is None else np.ascontiguousarray(upper, dtype=np.float64)
    if n * (12 * d + 8 * int(np.count_nonzero(sign))) <= ONE_SCAN_MAX_BYTES:
        try:
            return _dense_rows_one_scan(X, bits, scale, sign, upper)
        except MemoryError:         # room for every entry is more than the system grants
            pass
    return _dense_rows_two_scans(X, bits, scale, sign, upper)


@njit(cache=True, nogil=True)
def _dense_rows_two_scans(X, bits, scale, sign, upper):
    """:func:`dense_rows` in two scans of X: count, allocate exactly, fill."""
    n, d = X.shape
    indptr = np.zeros(n + 1, np.int64)
    cptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        c = 0
        cc = 0
        for h in range(d):
            nz = X[i, h] != 0.0
            c += nz
            cc += nz & (sign[h] != 0.0)
        indptr[i + 1] = indptr[i] + c
        cptr[i + 1] = cptr[i] + cc
    indices = np.empty(indptr[n], np.int32)
    values = np.empty(indptr[n])
    cpos = np.empty(cptr[n], np.int64)
    sq_norm = np.zeros(n)
    omega = np.zeros(d)
    for i in range(n):
        _fill_row(X, bits, i, scale[i], sign, indptr[i], cptr[i], indices, values, cpos, sq_norm, upper[i], omega)
    return indptr, indices, values, cptr, cpos, sq_norm, omega


ZERO_RUN = 4
"""The build tests X's entries ZERO_RUN at a time, as one OR of their bit patterns, and skips the
group where all are +0.0 (any other entry, -0.0 included, sends the group to the entry-by-entry
test, so the rows are the same bit for bit). Measured with :func:`dense_rows` at 1da251d against
0976fe0 (best of 30 calls, one thread, two runs each, an Intel Xeon): MNIST-5k, whose zeros come in
runs (the images' borders), 3.9-4.3 ms against 5.4-5.9 ms with free signs and 5.1-5.4 against
6.5-6.9 with half the columns constrained; 5000 x 784 Gaussian matrices with zeros at random,
3.6-3.8 against 3.1-3.3 ms at 2% nonzeros (the one loss) and within 0.9-1.1 times at 20, 50 and
100%. Groups of 8 and 16 skipped less of MNIST-5k; a branchless fill inside the groups was slower
than this one on every matrix (4 times the old build at 2% random nonzeros). The group's entries
are an inner loop of fixed length (with a variable length, or a guard for the last entries, the
build took up to 3.5 times as long where zeros fall at random)."""


@njit(cache=True, nogil=True, inline="always")
def _fill_row(X, bits, i, si, sign, k, c, indices, values, cpos, sq_norm, ui, omega):
    """Row i of diag(scale) X from position k of (indices, values) and c of cpos, its squared norm
    into sq_norm[i], and ui times the row added to omega; returns the next (k, c). ``bits``: X's
    entries as uint64, for skipping runs of +0.0 (ZERO_RUN; the last d % ZERO_RUN entries one by
    one)."""
    acc = 0.0
    d = X.shape[1]
    whole = d - d % ZERO_RUN
    for g in range(0, whole, ZERO_RUN):       # groups of fixed length (see ZERO_RUN)
        run = np.uint64(0)
        for h in range(g, g + ZERO_RUN):
            run |= bits[i, h]
        if run == 0:
            continue
        for h in range(g, g + ZERO_RUN):
            x = X[i, h]
            if x != 0.0:
                v = si * x
                indices[k] = h
                values[k] = v
                omega[h] += v * ui
                acc += v * v
                if sign[h] != 0.0:
                    cpos[c] = k
                    c += 1
                k += 1
    # The last d % ZERO_RUN entries, with the same body: folded into the loop above, by a guard on
    # h or by a variable-length group, the build took up to 3.5 times as long (5000 x 783 with 2%
    # nonzeros at random: 12.1 against 3.4 ms), presumably as the group is then no loop of fixed
    # length for the compiler to unroll.
    for h in range(whole, d):
        x = X[i, h]
        if x != 0.0:
            v = si * x
            indices[k] = h
            values[k] = v
            omega[h] += v * ui
            acc += v * v
            if sign[h] != 0.0:
                cpos[c] = k
                c += 1
            k += 1
    sq_norm[i] = acc
    return k, c


@njit(cache=True, nogil=True)
def _dense_rows_one_scan(X, bits, scale, sign, upper):
    """:func:`dense_rows` in one scan of X: the rows go into buffers with room for every entry
    (and every entry in a constrained column), returned as views of their filled part."""
    n, d = X.shape
    constrained = 0
    for h in range(d):
        if sign[h] != 0.0:
            constrained += 1
    indptr = np.zeros(n + 1, np.int64)
    cptr = np.zeros(n + 1, np.int64)
    indices = np.empty(n * d, np.int32)
    values = np.empty(n * d)
    cpos = np.empty(n * constrained, np.int64)
    sq_norm = np.zeros(n)
    omega = np.zeros(d)
    k = 0
    c = 0
    for i in range(n):
        k, c = _fill_row(X, bits, i, scale[i], sign, k, c, indices, values, cpos, sq_norm, upper[i], omega)
        indptr[i + 1] = k
        cptr[i + 1] = c
    return indptr, indices[:k], values[:k], cptr, cpos[:c], sq_norm, omega
