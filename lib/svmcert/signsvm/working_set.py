"""The interior-point method on a subset of the samples (not in the paper).

At the optimum of problem (4) only the samples near the margin decide w: a sample with margin
y_i <x_i, w> > 1 has alpha_i = 0 and drops out, and one with margin < 1 has alpha_i = s_i (its
weight, 1 without weights) and enters the objective through the linear term s_i (1 - y_i <x_i, w>)
alone. Once the samples are split into a band B near the margin, a set U taken to violate it and
the rest L taken to clear it, the problem restricted to B, with U summed into one row,

    z_0 = sum_U s_i y_i x_i / S_U  (label +1, weight S_U = sum_U s_i),

is the same problem wherever U and L are right: the summed row's margin is the s-weighted mean of
U's margins, below 1, so its hinge is linear and equals U's hinges summed (the subset's n' rows
carry their weights times n'/n, so that its mean over n' rows is the full problem's sum over n). Its solution, mapped
back (alpha_B from the subset's run, alpha_U = s_U times the summed row's share of its box,
alpha_L = 0), is then certified on the whole problem (eq. 10). Samples the answer shows on the
wrong side of the margin move into B and the subset is solved again; a split that does not
certify within WORKING_SET_ROUNDS rounds is dropped and the full run goes on.

:class:`WorkingSetFinish` is what :func:`~.interior_point.run_interior_point` tries on problems
of at least WORKING_SET_MIN_ROWS samples once its iterate's relative gap is at most
WORKING_SET_FROM_GAP: each full iteration costs O(n d^2), a subset run O(|B| d^2) an iteration plus
a few O(nd) products a round. Both pay the d x d factor of the normal matrix at every iteration,
so on a sparse X, whose rows can cost less than that factor, it is tried only with enough samples
per column that one round usually certifies (WORKING_SET_MIN_ROWS_PER_COLUMN). :func:`without_pinned_samples` is the other subset run: the
weighted problem without its zero-weight samples.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .objectives import sign_projection
from .problem import SignSVMProblem, canonical_csr
from .result import SolverResult, better_primal, certificate

__all__ = ["WorkingSetFinish", "tries_working_set", "without_pinned_samples", "WORKING_SET_MIN_ROWS", "WORKING_SET_MIN_ROWS_PER_COLUMN", "WORKING_SET_FROM_GAP",
           "WORKING_SET_BAND", "WORKING_SET_UNSETTLED", "WORKING_SET_ROUNDS", "WORKING_SET_MAX_SHARE", "WORKING_SET_RETRY_FALL"]

WORKING_SET_MIN_ROWS = 10_000
"""Fewest samples on which the interior-point method tries the working set. At and above it every
cell measured gained (``benchmarks/working_set.py``); below it the gain depends on the shape
(``--small``, ``results/working_set_small.csv``: the finish allowed from 1000 samples on 60 cells
of 2000-5000 samples): 1.36 times faster in geometric mean but slower in 11 cells, and 0.57 on the
2000 x 50 CSR family, where building the subset costs as much as a run of a few milliseconds."""
WORKING_SET_MIN_ROWS_PER_COLUMN = 30
"""For a sparse X, the fewest samples per column (n / d) at which the working set is tried. Both a
full iteration and a subset's pay the d x d factor of the normal matrix; on a sparse X that factor
can cost more than the rows, so the finish pays only if one round certifies, and it takes more
where the band (11-25% of the samples) holds few samples per column: the subset's answer then
misjudges the samples outside it. ``benchmarks/working_set.py --shapes``
(``results/working_set_shapes.csv``: CSR Gaussian classes, n from 1e4 to 3e5, d from 100 to 2000,
densities 0.25-5%, lam n = 1, free and mixed signs, 40 cells; one thread) timed both runs in every
cell: the finish won in 27, each after one round, and lost in 13, each after two to five. Tried
everywhere it took 40.5 s in all and up to 3.9 times the faster run (10 000 x 2000, five rounds);
never, 35.2 s. From 30 samples per column on it took 30.6 s, 1.03 times the faster run in
geometric mean, at most 1.60 times (30 000 x 1000 at 0.5%, two rounds). The rule tried first, the
working set where the sparse time model's rows cost at least half its factor
(:func:`.sparse_ipm_cost.sparse_iteration_seconds`), took 32.4 s. The threshold was chosen on an
earlier run of the same cells (30.9 s with it, 33.1 s with the rule on the model, 40.9 s always);
20 and 30 decide them alike, and 50 took 31.0 s in the run the file holds."""
WORKING_SET_FROM_GAP = 10.0
"""Relative gap of the full run's best iterate at or below which the split is first tried (the
interior-point method's gap falls by about a decade an iteration from there; see
WORKING_SET_BAND for the measurement)."""
WORKING_SET_BAND = 0.1
"""Half-width of the band B: the samples whose margin at the iterate lies within 1 +- this.
``benchmarks/working_set.py --sweep`` tried gaps 1, 10, 100 and bands 0.05, 0.1 on the Gaussian
families at n = 1e5 (dense d = 100 and CSR d = 1000, lam n in {0.01, 1, 100}, free and mixed
signs, one thread; ``results/working_set_sweep.csv``): 10 and 0.1 took 8.2 s over the 12 cells
against 7.6-8.9 s for the other five settings (100 and 0.05 the fastest), and all 72 runs
certified. An earlier run, on the rule before the unsettled samples joined the band and not kept,
had put 10 and 0.1 first (8.4 against 8.9-10.0 s); the differences are within this machine's
run-to-run noise, so that choice was kept."""
WORKING_SET_UNSETTLED = 0.1
"""A sample whose alpha_i / s_i at the iterate lies within (this, 1 - this) is not yet settled by
the interior-point method (its iterates keep every alpha_i inside the box) and joins the band; no
split is tried while more than WORKING_SET_MAX_SHARE of the samples are unsettled."""
WORKING_SET_ROUNDS = 4
"""Most subset runs of one attempt (each after moving the samples found on the wrong side into B)."""
WORKING_SET_MAX_SHARE = 0.25
"""An attempt is dropped once B holds more than this share of the samples."""
WORKING_SET_RETRY_FALL = 10.0
"""After a dropped attempt the next waits until the full run's gap has fallen by this factor."""


def without_pinned_samples(p: SignSVMProblem, run, tol, max_iter, time_limit, record_history, start,
                           **options) -> SolverResult:
    """The weighted problem with its zero-weight samples left out, solved by ``run``
    (:func:`~.interior_point.run_interior_point`): on the kept n' samples, with lam' = lam n / n',
    the objective is P(w) n / n' (and D(alpha) n / n'), the same problem; the result is reported on
    the scale of the original one, alpha_i = 0 for the samples left out. ``options`` go to ``run``."""
    keep = np.flatnonzero(p.weights > 0.0)
    scale = keep.size / p.n
    sub = SignSVMProblem(p.X[keep], p.y[keep], p.lam / scale, p.sign, p.weights[keep])
    res = run(sub, tol, max_iter, time_limit, record_history, start, **options)
    alpha = np.zeros(p.n)
    alpha[keep] = res.alpha
    hist = res.history
    for key in ("primal", "dual", "gap"):
        if key in hist:
            hist[key] = [v * scale for v in hist[key]]
    return SolverResult(w=res.w, alpha=alpha, primal=res.primal * scale, dual=res.dual * scale, gap=res.gap * scale,
                        n_iter=res.n_iter, converged=res.converged, history=hist)


def tries_working_set(n: int, d: int, sparse: bool = False) -> bool:
    """Whether the interior-point method tries the working set on an (n, d) problem: at least
    WORKING_SET_MIN_ROWS samples and, for a sparse X, at least WORKING_SET_MIN_ROWS_PER_COLUMN
    samples per column (:meth:`WorkingSetFinish.applies`, which ``auto``'s time model,
    :func:`.plan.ipm_seconds`, follows too).

    Examples
    --------
    >>> from svmcert.signsvm.working_set import tries_working_set
    >>> [tries_working_set(n, 1000, sparse=True) for n in (10_000, 30_000, 100_000)]
    [False, True, True]
    >>> tries_working_set(10_000, 1000), tries_working_set(5000, 100)        # dense; too few samples
    (True, False)
    """
    if n < WORKING_SET_MIN_ROWS:
        return False
    return not sparse or n >= WORKING_SET_MIN_ROWS_PER_COLUMN * d


class WorkingSetFinish:
    """The attempts of one interior-point run (:func:`~.interior_point.run_interior_point`) to finish
    on a subset of the samples; :meth:`attempt` is called with the run's best certificate after
    every iteration and returns (alpha, certificate) once one certifies ``tol``; ``stats`` records
    the attempts. ``run`` is that function, which solves the subsets (without a working set)."""

    def __init__(self, p: SignSVMProblem, Z, tol, deadline, run):
        self.p, self.Z, self.tol, self.deadline, self.run = p, Z, tol, deadline, run
        self.next_gap = WORKING_SET_FROM_GAP       # relative gap at which the next attempt is made
        self.stats = {"attempts": 0, "rounds": 0, "band": [], "subset_iterations": 0}

    @staticmethod
    def applies(p: SignSVMProblem) -> bool:
        """Whether a run on ``p`` tries the working set (:func:`tries_working_set`)."""
        return tries_working_set(p.n, p.d, p.sparse)

    def attempt(self, cert, w, alpha):
        rel = cert.gap / max(cert.primal, np.finfo(float).tiny)
        if rel > self.next_gap or not self.deadline.allows(0.0):
            return None
        too_many = WORKING_SET_MAX_SHARE * self.p.n
        share = alpha / np.where(self.p.upper > 0.0, self.p.upper, 1.0)
        B = (share > WORKING_SET_UNSETTLED) & (share < 1.0 - WORKING_SET_UNSETTLED)
        if B.sum() > too_many:                      # the iterate has not yet settled the samples
            return None
        z = self.Z @ w
        B |= np.abs(z - 1.0) <= WORKING_SET_BAND
        if B.sum() > too_many:
            return None
        self.next_gap = rel / WORKING_SET_RETRY_FALL
        self.stats["attempts"] += 1
        for _ in range(WORKING_SET_ROUNDS):
            U = (z < 1.0) & ~B
            out = self._solve_split(B, U)
            if out is None:
                break
            alpha, found, z = out
            if found.relative_gap_below(self.tol):
                self.stats["outcome"] = "certified"
                return alpha, found
            wrong = (~B & ~U & (z < 1.0)) | (U & (z > 1.0))
            B |= wrong
            if not wrong.any() or B.sum() > too_many:
                break
        return None

    def _solve_split(self, B, U):
        """The subset run on B with U summed into one row, its answer on the whole problem
        (alpha, certificate, margins at the certificate's w), or None when it does not certify."""
        p = self.p
        s = p.upper
        band = np.flatnonzero(B)
        s_u = float(s[U].sum())
        rows = p.X[band]
        if s_u > 0.0:
            z0 = np.asarray(self.Z.T @ np.where(U, s, 0.0)).ravel() / s_u   # one product, no copy of X[U]
            rows = canonical_csr(sp.vstack([rows, sp.csr_matrix(z0)], format="csr")) if p.sparse else np.vstack([rows, z0])
        n_sub = rows.shape[0]
        if n_sub == 0:                              # every sample clears the margin: nothing to solve
            return None
        weights = np.append(s[band], s_u)[:n_sub] * (n_sub / p.n)
        sub = SignSVMProblem(rows, np.append(p.y[band], 1.0)[:n_sub], p.lam, p.sign, weights)
        limit = self.deadline.remaining() if self.deadline.limited else None
        res = self.run(sub, 0.5 * self.tol, 50, limit, False, working_set=False)
        self.stats["rounds"] += 1
        self.stats["band"].append(int(band.size))
        self.stats["subset_iterations"] += res.n_iter
        if not res.converged:
            return None
        alpha = np.zeros(p.n)
        alpha[band] = res.alpha[:band.size] * (p.n / n_sub)
        if s_u > 0.0:
            alpha[U] = s[U] * min(1.0, res.alpha[-1] / weights[-1])
        alpha = np.clip(alpha, 0.0, s)
        found = certificate(self.Z.T @ alpha / p.lam_n, alpha, self.Z, p.lam, p.sign, p.weights)
        w = sign_projection(res.w, p.sign)          # the subset's own primal point, often the better
        found = better_primal(found, w, self.Z @ w, p.lam, p.weights)
        return alpha, found, found.z
