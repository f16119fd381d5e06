"""Theorem 1 and Lemmas 3-4 of Aksu (Sec. 6.2): what a QP1 working set must look like.

For a working set given as ``W1`` (samples whose margin row is in ``W``) and ``W2`` (samples
whose ``xi >= 0`` row is in ``W``), :func:`check_working_set` evaluates, from the dense rows of
``A^W`` and an SVD, independently of any solver:

- R1 / C1: the rows of ``A^W`` are linearly independent;
- R2: ``Z^T G Z`` is positive definite, ``Z`` an orthonormal null-space basis of ``A^W``
  (vacuous when the null space is trivial);
- C2: every sample has a row in ``W``;
- the size ``|W|`` and the number of doubly-active samples ``|W1 n W2|``.

Theorem 1 says R1 and R2 force ``|W|`` in {N+1, N+2}, C1 and C2; Lemma 3 says R1 forces at most
two doubly-active samples; Lemma 4 says R2 forces C2.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .qp1_problem import check_qp1_input

__all__ = ["WorkingSetCheck", "working_set_rows", "check_working_set", "enumerate_working_sets"]


@dataclass(frozen=True)
class WorkingSetCheck:
    """Properties of one working set (see module docstring)."""

    n_samples: int
    size: int
    n_doubly_active: int
    r1: bool
    r2: bool
    c2: bool
    null_dim: int
    min_reduced_eig: float

    @property
    def theorem1_conditions(self) -> bool:
        """``|W|`` in {N+1, N+2}, C1 (= R1) and C2: Theorem 1's necessary conditions."""
        return self.r1 and self.c2 and self.size in (self.n_samples + 1, self.n_samples + 2)


def working_set_rows(W1, W2, g, y) -> np.ndarray:
    """Rows of ``A^W`` (margin rows of ``W1`` then slack rows of ``W2``), shape ``(|W|, N+2)``."""
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    N = g.shape[0]
    W1 = np.flatnonzero(np.asarray(W1, dtype=bool)) if np.asarray(W1).dtype == bool else np.asarray(W1, dtype=int)
    W2 = np.flatnonzero(np.asarray(W2, dtype=bool)) if np.asarray(W2).dtype == bool else np.asarray(W2, dtype=int)
    rows = np.zeros((len(W1) + len(W2), N + 2))
    for r, n in enumerate(W1):
        rows[r, 0] = y[n] * g[n]
        rows[r, 1] = y[n]
        rows[r, 2 + n] = 1.0
    for r, n in enumerate(W2, start=len(W1)):
        rows[r, 2 + n] = 1.0
    return rows


def check_working_set(W1, W2, g, y, wnorm2, *, rtol: float = 1e-10) -> WorkingSetCheck:
    """Evaluate R1, R2, C2, the size and the doubly-active count of a QP1 working set.

    Parameters
    ----------
    W1, W2 : sequence of int or boolean mask (N,)
    g, y, wnorm2 : QP1 data (eq. 6)
    rtol : float
        Relative threshold on singular values (rank) and on the smallest eigenvalue of
        ``Z^T G Z`` relative to ``W``; the data here are O(1) per row, so 1e-10 separates
        rounding (~1e-15) from genuine rank loss by orders of magnitude.
    """
    g, y, _, wnorm2 = check_qp1_input(g, y, 1.0, wnorm2)
    N = g.shape[0]
    AW = working_set_rows(W1, W2, g, y)
    s1 = set(np.flatnonzero(W1).tolist() if np.asarray(W1).dtype == bool else list(W1))
    s2 = set(np.flatnonzero(W2).tolist() if np.asarray(W2).dtype == bool else list(W2))
    size = len(s1) + len(s2)
    n_da = len(s1 & s2)
    c2 = len(s1 | s2) == N
    if size == 0:
        r1, Z = True, np.eye(N + 2)
    else:
        # one full SVD gives the rank (R1) and an orthonormal null-space basis (for R2)
        _, sv, Vt = np.linalg.svd(AW, full_matrices=True)
        rank = int(np.sum(sv > rtol * max(sv[0], 1.0)))
        r1 = rank == size
        Z = Vt[rank:].T
    if Z.shape[1] == 0:
        return WorkingSetCheck(N, size, n_da, r1, True, c2, 0, float("inf"))
    z1 = Z[0]
    H = wnorm2 * np.outer(z1, z1)
    emin = float(np.linalg.eigvalsh(H).min())
    return WorkingSetCheck(N, size, n_da, r1, emin > rtol * wnorm2, c2, Z.shape[1], emin)


def enumerate_working_sets(N: int):
    """Every working set of an ``N``-sample QP1: ``4^N`` pairs ``(W1, W2)`` of boolean masks."""
    if N < 1 or N > 7:
        raise ValueError(f"N: expected 1 <= N <= 7 (4^N working sets), got {N}")
    for code in itertools.product(range(4), repeat=N):
        c = np.array(code)
        yield (c & 1).astype(bool), (c & 2).astype(bool)
