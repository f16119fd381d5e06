"""Budgets of iterative routines: a wall-clock limit that every solver of the library honours."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["Deadline"]


class Deadline:
    """A wall-clock budget of ``time_limit`` seconds from ``start`` (None: no limit).

    ``remaining()`` is the time left (inf without a limit); ``allows(seconds)`` says whether a
    step expected to take ``seconds`` would end before the limit; ``passed()`` whether the limit
    is reached.
    """

    def __init__(self, time_limit, start: float):
        self.time_limit = time_limit
        self.end = None if time_limit is None else start + float(time_limit)

    @property
    def limited(self) -> bool:
        return self.end is not None

    def remaining(self) -> float:
        return np.inf if self.end is None else self.end - time.perf_counter()

    def allows(self, seconds: float) -> bool:
        return self.end is None or time.perf_counter() + seconds <= self.end

    def passed(self) -> bool:
        return self.end is not None and time.perf_counter() >= self.end
