"""The random orders of coordinate ascent's passes, drawn from a generator the run owns.

Each pass of :func:`._dca_kernel.run_shrinking` visits the rows still in play in a fresh random
order (a Fisher-Yates shuffle of that prefix of its index). The draws come from a state array the
caller makes from the solver's ``seed`` (:func:`shuffle_state`) and hands to the kernel, so a run
depends on its own seed only: no global generator (numba's ``np.random`` is one per thread) that
another caller could have moved.

The generator is xorshift64* (Vigna, 2016), seeded by SplitMix64, and a draw below a bound is
Lemire's multiply-shift with rejection (Lemire, 2019): every index of the prefix is equally likely,
exactly. It costs about 1.6 ns a row of the shuffle, against about 12 ns for numba's
``np.random.randint`` (one thread, AMD EPYC), which was the largest single cost of a pass over
short rows (a free row of svmguide1, 4 nonzeros, takes about 12 ns to step).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["shuffle_state", "shuffle_prefix", "seed_zero_state"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_STAR = np.uint64(0x2545F4914F6CDD1D)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


def shuffle_state(seed: int) -> np.ndarray:
    """A generator state for :func:`shuffle_prefix` from an integer ``seed``: one nonzero uint64,
    the SplitMix64 hash of the seed (modulo 2**64), read and written by the passes.

    Examples
    --------
    >>> from svmcert.signsvm._shuffle import shuffle_state
    >>> a, b = shuffle_state(0), shuffle_state(1)
    >>> a.dtype.name, a.shape, bool(a[0] != b[0]), bool((shuffle_state(0) == a).all())
    ('uint64', (1,), True, True)
    """
    z = (int(seed) + _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return np.array([z or _GOLDEN], dtype=np.uint64)     # xorshift's state must not be 0


_SEED_ZERO = np.uint64(shuffle_state(0)[0])


@njit(cache=True, nogil=True)
def seed_zero_state():
    """:func:`shuffle_state` of seed 0, made inside compiled code (the kernels' default)."""
    state = np.empty(1, np.uint64)
    state[0] = _SEED_ZERO
    return state


@njit(cache=True, nogil=True, inline="always")
def _next32(state):
    """The next 32 random bits (as a uint64) of xorshift64*; advances ``state[0]``."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * _STAR) >> np.uint64(32)


@njit(cache=True, nogil=True, inline="always")
def _below(bound, state):
    """A uniform integer in [0, bound) for 0 < bound <= 2**32 (Lemire's method: the high word of a
    32 x 32-bit product, the few low words that would bias it rejected)."""
    b = np.uint64(bound)
    m = _next32(state) * b
    low = m & _LOW32
    if low < b:
        threshold = (_TWO32 - b) % b
        while low < threshold:
            m = _next32(state) * b
            low = m & _LOW32
    return np.int64(m >> np.uint64(32))


@njit(cache=True, nogil=True)
def shuffle_prefix(index, active, state):
    """Shuffle ``index[:active]`` in place (Fisher-Yates), uniformly over its permutations, drawing
    from ``state`` (:func:`shuffle_state`); the rest of ``index`` is left as it is.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm._shuffle import shuffle_prefix, shuffle_state
    >>> index = np.arange(8)
    >>> shuffle_prefix(index, 5, shuffle_state(3))
    >>> sorted(index[:5].tolist()), index[5:].tolist()
    ([0, 1, 2, 3, 4], [5, 6, 7])
    """
    for s in range(active - 1):
        j = s + _below(active - s, state)
        index[s], index[j] = index[j], index[s]
