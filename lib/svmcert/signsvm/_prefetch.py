"""Software prefetch for the compiled passes (numba): asking the memory system for a row a few
steps before the pass reads it.

Coordinate ascent visits the rows in a fresh random order each pass, so on a matrix larger than
the caches every row starts with a wait for memory that the hardware's stream prefetcher cannot
hide (it follows addresses, not the order). :func:`prefetch_row` issues one prefetch per cache
line of a row's values and column indices; :mod:`._dca_kernel`'s passes call it for the row
PREFETCH_DISTANCE places ahead in their order when the rows take more than PREFETCH_MIN_BYTES.
A prefetch is a hint: it changes no value the pass computes (the passes return the same alpha
bit for bit with and without it, which the tests check), only when the bytes arrive.

Measured on one thread (AMD EPYC, a pass of exact steps over 1e5 Gaussian rows of 100 entries,
120 MB of CSR): 75 ms in random order against 12 ms in storage order; with the rows prefetched 2
to 4 places ahead, about 21 ms. On MNIST-5k (9 MB) a pass went from 1.7 to 1.35 ms; on a data set
within the caches the hint buys nothing and costs up to 60 ns a row (1e4 sparse rows of 10
entries: 0.41 against 1.06 ms a pass), hence the threshold.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_row", "PREFETCH_DISTANCE", "PREFETCH_MIN_BYTES"]

PREFETCH_DISTANCE = 4
"""How many rows ahead in a pass's order the rows are prefetched (2 to 8 measured alike on the
Gaussian rows above; 4 leaves room for rows shorter than 100 entries)."""
PREFETCH_MIN_BYTES = 4 * 2**20
"""Rows (values and column indices) taking fewer bytes than this are not prefetched: they stay in
the caches between passes."""

_LINE_DOUBLES = 8        # a 64-byte cache line holds 8 float64 values
_LINE_INT32 = 16         # or 16 int32 column indices


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that ``array[index]`` (a 1-D array) will be read soon (LLVM's ``llvm.prefetch``: read,
    keep in all cache levels, data). No bounds check: the address is only a hint and is never
    dereferenced by the instruction, so an index past the end faults nothing."""
    if not isinstance(array, types.Array) or array.ndim != 1 or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]], wraparound=False,
                                           boundscheck=False)
        pointer = builder.bitcast(pointer, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]), "llvm.prefetch.p0")
        builder.call(function, [pointer, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def prefetch_row(indptr, indices, values, i):
    """Prefetch every cache line of row i's values and column indices (CSR)."""
    start, end = indptr[i], indptr[i + 1]
    for k in range(start, end, _LINE_DOUBLES):
        prefetch(values, k)
    prefetch(values, end - 1)
    for k in range(start, end, _LINE_INT32):
        prefetch(indices, k)
    prefetch(indices, end - 1)
