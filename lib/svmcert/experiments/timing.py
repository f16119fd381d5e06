"""Wall-clock measurement helpers and log-log slope fits (used by chapters and benchmarks)."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["best_time", "best_cpu_time", "loglog_slope"]


def best_time(fn, *, repeat: int = 5, min_seconds: float = 0.0, clock=time.perf_counter) -> float:
    """Smallest time of ``repeat`` calls of ``fn()`` (seconds); keeps calling until ``min_seconds``
    of total time has passed so that very fast calls are timed more than once. ``clock``: wall time
    by default; ``time.process_time`` for CPU time (see :func:`best_cpu_time`)."""
    best, spent, calls = np.inf, 0.0, 0
    while calls < repeat or spent < min_seconds:
        t0 = clock()
        fn()
        dt = clock() - t0
        best, spent, calls = min(best, dt), spent + dt, calls + 1
        if calls >= 1000:
            break
    return float(best)


def best_cpu_time(fn, *, repeat: int = 3) -> float:
    """Smallest CPU time (``time.process_time``, seconds) of ``repeat`` calls of ``fn()``.

    CPU time counts only the time this process ran, so other jobs on a shared machine inflate it far
    less than wall time; with BLAS held to one thread it is the right clock for fitted exponents.
    """
    best = np.inf
    for _ in range(int(repeat)):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return float(best)


def loglog_slope(sizes, seconds) -> float:
    """Least-squares slope of log(seconds) against log(sizes): the measured exponent."""
    x, t = np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float))
    if x.size < 2:
        raise ValueError(f"sizes: need at least two sizes to fit a slope, got {x.size}")
    return float(np.polyfit(x, t, 1)[0])
