"""Random instances that no solver can move: one generator per instance, keyed by what it is.

A chapter that draws every instance from one shared ``numpy.random.Generator`` ties the instances
to each other: when anything between two draws consumes the stream a data-dependent number of
times (a solver, a loop that stops at a tolerance, a retry), every later instance changes, and with
it every table, as soon as floating point behaves slightly differently on another machine.

Here each instance gets a generator of its own, seeded by the chapter's ``seed`` and the instance's
*key* — the data set, kernel, loss, index, and what the draw is for — through
:class:`numpy.random.SeedSequence`. The key is turned into integers by a hash that does not depend
on the Python process (``hashlib``, not ``hash()``), so an instance is the same in every run, on
every machine, however many draws other instances made.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["key_words", "instance_rng", "InstanceStreams"]


def key_words(*key) -> tuple[int, ...]:
    """The key as a tuple of 32-bit words: each part's text (``repr`` for non-strings) hashed
    with SHA-256, the first 4 bytes of each digest kept. Equal keys give equal words."""
    words = []
    for part in key:
        text = part if isinstance(part, str) else repr(part)
        words.append(int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little"))
    return tuple(words)


def instance_rng(seed: int, *key) -> np.random.Generator:
    """A generator for one instance: ``SeedSequence(seed, spawn_key=key_words(*key))``.

    Parameters
    ----------
    seed : int >= 0
        The chapter's seed (its ``parameters`` cell).
    *key : str or number
        What the instance is, e.g. ``("weights", "heart", "rbf", "hinge")``. Draws for different
        purposes of one instance take different keys, so adding a draw for one purpose cannot
        change another.

    Examples
    --------
    >>> from svmcert.experiments.instances import instance_rng
    >>> a = instance_rng(0, "lambda", "heart").uniform()
    >>> _ = instance_rng(0, "lambda", "sonar").uniform(size=1000)   # other instances draw freely
    >>> bool(instance_rng(0, "lambda", "heart").uniform() == a)
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected a whole number >= 0, got {seed!r}")
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key_words(*key)))


class InstanceStreams:
    """The chapter's ``seed`` bound once: ``streams("weights", name)`` is ``instance_rng(seed, "weights", name)``.

    Examples
    --------
    >>> from svmcert.experiments.instances import InstanceStreams
    >>> streams = InstanceStreams(0)
    >>> bool(streams("x", 1).integers(100) == streams("x", 1).integers(100))
    True
    """

    def __init__(self, seed: int):
        instance_rng(seed)  # validates
        self.seed = int(seed)

    def __call__(self, *key) -> np.random.Generator:
        return instance_rng(self.seed, *key)

    def __repr__(self) -> str:
        return f"InstanceStreams(seed={self.seed})"
