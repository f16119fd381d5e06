"""Time measurement for the chapters and benchmarks, and log-log slope fits.

Every measurement that a claim or a speed comparison rests on uses :func:`clock`, the CPU time of
this process (``time.process_time``: user + system time of all its threads), not the wall clock.
On a machine shared with other jobs — two chapters of the book run side by side, and CI machines
are shared — the wall time of a computation grows with the load while its CPU time does not, so
ratios and fitted exponents stay what the code makes them. What the CPU time cannot hide (caches
and memory bandwidth shared with a neighbour) is why every comparison keeps a wide margin.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["clock", "best_time", "best_cpu_time", "per_call", "loglog_slope"]

#: The clock every measurement uses: CPU seconds of this process.
clock = time.process_time


def best_time(fn, *, repeat: int = 5, min_seconds: float = 0.0) -> float:
    """Smallest CPU time (:data:`clock`) of ``repeat`` calls of ``fn()`` (seconds); keeps calling
    until ``min_seconds`` of total time has passed so that very fast calls are timed more than once."""
    best, spent, calls = np.inf, 0.0, 0
    while calls < repeat or spent < min_seconds:
        t0 = clock()
        fn()
        dt = clock() - t0
        best, spent, calls = min(best, dt), spent + dt, calls + 1
        if calls >= 1000:
            break
    return float(best)


def per_call(fn, calls: int) -> float:
    """CPU seconds per call of ``fn()`` over ``calls`` consecutive calls."""
    t0 = clock()
    for _ in range(int(calls)):
        fn()
    return (clock() - t0) / int(calls)


def best_cpu_time(fn, *, repeat: int = 3) -> float:
    """:func:`best_time` with ``repeat`` calls and no minimum total time (every clock here is CPU time)."""
    return best_time(fn, repeat=repeat)


def loglog_slope(sizes, seconds) -> float:
    """Least-squares slope of log(seconds) against log(sizes): the measured exponent."""
    x, t = np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float))
    if x.size < 2:
        raise ValueError(f"sizes: need at least two sizes to fit a slope, got {x.size}")
    return float(np.polyfit(x, t, 1)[0])
