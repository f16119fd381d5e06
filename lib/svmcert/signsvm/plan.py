"""What ``solve(solver="auto")`` runs, and the time models behind it. ``auto`` chooses from the
problem's shape, lambda and the typical squared norm of its rows (deterministically, never from
measured times):

- lam n < AUTO_IPM_BELOW_LAM_N: the interior-point method
  (:func:`~svmcert.signsvm.interior_point`). There dual coordinate ascent needs thousands of passes
  or stalls (on the seven LIBSVM sets of the grid of ``benchmarks/convergence_grid.py``, 28 cells
  per lam n, it certified 1 cell at lam n = 1e-3 and 10 at 1e-2 within 10 000 passes, 20 at 0.1, 26
  at 1), while the interior-point method's cost does not depend on lambda.
- where the interior-point method is cheap (:func:`ipm_is_cheap`: it runs its compiled iteration, a
  small dense problem, or with d <= n it costs at most AUTO_IPM_MAX_PASSES passes of coordinate
  ascent by the time models, AUTO_IPM_MAX_PASSES_SPARSE for a sparse X) and the mean squared norm
  of the rows over lam n is at least AUTO_IPM_ABOVE_SCALED_NORM (AUTO_IPM_ABOVE_SCALED_NORM_SPARSE
  for a sparse X on which the method costs more than AUTO_IPM_MAX_PASSES passes): the
  interior-point method too; on a sparse X on which that method is not cheap but can run and costs
  at most AUTO_IPM_MAX_PASSES_SPARSE_COSTLY passes, from AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
  on. That ratio, liblinear's C ||x||^2, is the curvature of a coordinate's dual step against its
  box: where it is large many alphas are free and coupled, and coordinate ascent slows down
  (:func:`row_norm_scale`).
- otherwise dual coordinate ascent (:func:`~svmcert.signsvm.dual_coordinate_ascent`, shrinking and
  polishing) first, within a budget of work (nonzeros visited, ``_dca_kernel.ROW_WORK`` per row
  besides; a count, never a clock, so the same call does the same thing on every machine) worth
  AUTO_DCA_SHARE of the interior-point method's estimated time (:func:`auto_plan`). Coordinate
  ascent also gives up early (once half the budget is spent), at a certificate from which the rate
  of its gap over the later half of the run predicts more work to ``tol`` than the whole
  interior-point method would cost, and goes on past the budget, up to AUTO_DCA_EXTRA more, only
  while that rate predicts ``tol`` within it. A run not certified by then is followed by the
  interior-point method. It is several times faster where it converges in a few dozen passes (large
  lambda); the budget bounds what it can waste where it does not, so ``auto`` costs at most about
  (1 + AUTO_DCA_SHARE + AUTO_DCA_EXTRA) times the interior-point method (plus the time models'
  error), and (1 + AUTO_DCA_SHARE) times where the rate does not promise convergence past the
  budget (``auto_work_options``). ``benchmarks/auto_plan.py`` measures the plan against each method
  alone.

For a sparse X (scipy.sparse, held as CSR) ``auto`` never lets the interior-point method form a
normal matrix larger than SPARSE_IPM_MAX_DIM squared: beyond it, coordinate ascent runs alone,
up to DCA_MAX_EPOCHS passes.
"""

from __future__ import annotations

import math

from ._dca_kernel import ROW_WORK
from .interior_point import uses_compiled_iteration
from .sparse_ipm_cost import IPM_SPARSE_SEC, sparse_iteration_seconds
from .working_set import tries_working_set

__all__ = ["auto_plan", "auto_work_options", "ipm_seconds", "ipm_is_cheap", "ipm_passes", "row_norm_scale",
           "rows_threshold",
           "AUTO_IPM_BELOW_LAM_N", "AUTO_IPM_ABOVE_SCALED_NORM", "AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED",
           "AUTO_IPM_ABOVE_SCALED_NORM_SPARSE", "AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY",
           "AUTO_IPM_MAX_PASSES_SPARSE_COSTLY",
           "AUTO_IPM_MAX_PASSES", "AUTO_IPM_MAX_PASSES_SPARSE", "AUTO_DCA_SHARE", "AUTO_DCA_EXTRA",
           "SPARSE_IPM_MAX_DIM", "DCA_MAX_EPOCHS", "IPM_SEC", "IPM_ITERATIONS", "IPM_WORKING_SET_ITERATIONS", "DCA_SEC_PER_WORK",
           "IPM_FUSED_SEC", "IPM_SPARSE_SEC"]

AUTO_IPM_BELOW_LAM_N = 0.1
"""Below this lam n, ``auto`` goes straight to the interior-point method."""
AUTO_IPM_ABOVE_SCALED_NORM = 1.25
"""From this mean ||x_i||^2 / (lam n) on (:func:`row_norm_scale`), ``auto`` goes straight to the
interior-point method where that method is cheap (:func:`ipm_is_cheap`). It was 2 until
``benchmarks/auto_plan.py --row-ratios`` (``results/auto_plan_ratios.csv``) timed each method
alone where the ratio is 1.1, 1.4, 1.7 and 2 on the eight data sets (96 cells, three sign
patterns); it is now the threshold of sign-constrained problems
(AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED). In the 15 free cells between 1.25 and 2, on the seven
LIBSVM sets, the interior-point method alone was faster than coordinate ascent alone in 12, and
coordinate ascent alone took 2.02 times its time in geometric mean (svmguide1 at 1.4: 0.51). The
change moved 14 cells, each at 0.32-1.14 of its time before (median 0.65), and ``auto`` /
oracle over the 96 cells went from 1.29 to 1.22 in geometric mean (the rest is the cells at 1.1,
below both thresholds, where coordinate ascent's budget comes first, and the sub-millisecond
cells' noise). The threshold of 2 came from the run of
``benchmarks/auto_plan.py`` before the rule (seven LIBSVM sets, free, nonnegative and mixed signs,
lam n from 0.1 to 1000, BLAS on one thread), coordinate ascent alone was slower than the
interior-point method alone in 35 of the 39 cells at or above 2 (in the other four, heart and
sonar with nonnegative signs at lam n = 1, sonar and svmguide1 nonnegative at 0.1, it took 0.61
to 0.79 of the interior-point time), and the plan with the budget spent 0.24-2.5 ms of coordinate
ascent there before switching; below 2 coordinate ascent was the faster in 53 of 66 cells. Run
before and after in one session: those 39 cells took 1.18-2.74 times less time, the 105
small-set cells 119 ms in all instead of 148 (the faster method alone in every cell: 105 ms), and
auto / oracle over the 120 cells with MNIST-5k went from 1.29 to 1.15 in geometric mean (at most
2.51 instead of 3.04)."""
AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED = 1.25
"""AUTO_IPM_ABOVE_SCALED_NORM for a problem with sign constraints (any sign_h != 0), whose rows cost
coordinate ascent 1.5-2.5 times a free row's pass (``_dca_kernel.CONSTRAINED_ROW_WORK``) and take
more passes. In ``benchmarks/results/auto_plan.csv`` (nonnegative and mixed signs) the
interior-point method alone was the faster method, or within 2% of it, in all four cells with
mean ||x_i||^2 / (lam n) between 1.25 and 2 (ionosphere at lam n = 10: 1.35, breast-cancer at
lam n = 1: 1.65), where the plan with the budget spent coordinate ascent's budget first and took
1.54-1.71 times as long (timed side by side in one session); at 1.18 (sonar at lam n = 10)
coordinate ascent alone was the faster (0.43 and 0.92 of the interior-point time), so the
threshold sits between the two. The free pattern kept 2 until the run of
AUTO_IPM_ABOVE_SCALED_NORM's docstring."""
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE = 3.0
"""The threshold of the rule on the rows' norm for a sparse X on which the interior-point method's
estimate is above AUTO_IPM_MAX_PASSES passes (up to AUTO_IPM_MAX_PASSES_SPARSE; at or below it the
thresholds of a dense X apply). There the method is cheap only by the sparse rule's wider limit,
and coordinate ascent, whose passes over short rows are cheap, was the faster plan in most cells
with q = mean ||x_i||^2 / (lam n) under 3. Chosen on the two sparse files of
``benchmarks/auto_plan.py`` (``results/auto_plan_sparse.csv``, ``auto_plan_sparse_heldout.csv``,
in their run of 2026-12-06, before the rule), replaying the plan on their times: ``auto`` /
oracle 1.010 -> 0.993 and 1.098 -> 1.037 in geometric mean. The threshold alone (at any number
of passes) replayed at 1.007 and 1.010 but lost where the method is cheapest: at n = 1e6 (d =
1000, 1%, q = 2, model 23 passes) coordinate ascent alone took 1.8 times the interior-point
method. Both candidates were
then timed on eight shapes no constant of the plan had been chosen on
(``benchmarks/sparse_rows_rule.py``, ``results/sparse_rows_rule.csv``: n from 4e4 to 6e5, d from
400 to 1500, densities 0.4-2%, q in {1.5, 2.5, 3.5}, free and mixed signs; 48 cells, another
machine): ``auto`` over the faster of its two plans was 1.170 in geometric mean without the rule
(at most 2.60; 37.8 s in all), 1.173 with the threshold at any number of passes (39.9 s) and 1.048
with this rule (at most 1.51; 34.0 s). Both sparse files, rerun with it and the rule for long rows
in place (2026-12-07 at ac70a5c) beside ``auto`` without it (``auto_sparse_norm_before``): the grid
moved 4 of 84 cells (0.47-1.27 times; auto / oracle 0.989 against 0.985, within the timing noise)
and the held-out shapes 6 of 84, each faster (0.31-0.65 times; 0.954 against 1.011)."""
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY = 15.0
"""The threshold of the rule on the rows' norm for a sparse X on which the interior-point method is
not cheap (its estimate above AUTO_IPM_MAX_PASSES_SPARSE passes, up to
AUTO_IPM_MAX_PASSES_SPARSE_COSTLY) but can run (d <= n, d <= SPARSE_IPM_MAX_DIM):
from mean ||x_i||^2 = 15 lam n on, ``auto`` runs it alone there too. With rows that long, coordinate
ascent's free alphas are so coupled that it seldom certifies within its budget, and the plan then
paid that budget before the method ran anyway. Chosen on the two sparse files of
``benchmarks/auto_plan.py`` (in their run of 2026-12-07), replaying the plan on their times: any
threshold between 11.05 and 20.3 moves the same cells (2 of the grid's 84, q = 31; 12 of the
held-out 84, q = 20-61), each faster, and gives ``auto`` / oracle 0.996 and 0.959 against 1.004
and 1.044 in geometric mean (at 8-10 six more grid cells move, three of them slower); 15 sits
between. ``benchmarks/long_rows_rule.py`` (``results/long_rows_rule.csv``, 2026-12-07) then timed it
on six shapes it was not chosen on (n from 8e3 to 7e4, d from 800 to 2500, 10-48 nonzeros a row,
model 145-990 passes; q in {10, 20, 40}; free and mixed signs; 36 cells): over the faster of
``auto`` without the rule and the method alone, the plan without the rule took 1.351 in geometric
mean (80.9 s in all), the threshold at any number of passes 1.122 (at most 3.06; 59.5 s), the
threshold up to AUTO_IPM_MAX_PASSES_SPARSE_COSTLY passes 1.092 (at most 1.92; 62.9 s), and a
threshold of 10 1.413. At 990 passes (15000 x 2500, 25 nonzeros a row) coordinate ascent first was
the faster plan in 3 of the 4 cells from q = 20 (up to 2.8 times), so the rule stops at that limit.
Both sparse files, rerun with the rule in place (2026-12-07 at ac70a5c) beside ``auto`` without it
(``auto_long_rows_before``): the grid moved its 2 cells (0.66-0.73 times; 0.989 against 0.980,
within the timing noise), the held-out shapes their 12 (0.32-1.15 times, one slower; 69.0 s in all
against 129.7 s; 0.954 against 1.030), where the misses fell from 10 to 0."""
AUTO_IPM_MAX_PASSES_SPARSE_COSTLY = 400.0
"""The most passes (the model's estimate, :func:`ipm_passes`) at which
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY applies: the two sparse files it was chosen on reach 353,
and beyond, at 990 passes, coordinate ascent first was the faster plan in most long-row cells of
``benchmarks/long_rows_rule.py``."""
AUTO_IPM_MAX_PASSES = 30.0
"""Beyond the compiled shapes, the rules on the rows' norm also apply to a dense X with d <= n on
which the interior-point method's estimate is at most this many passes of coordinate ascent over
its n d entries (:func:`ipm_is_cheap`): there it costs as little as where the rules were measured
(12-24 passes on the seven LIBSVM sets, 40 on 200 x 5). Gaussian classes with d = 100 cost 14.5
at n >= 3e4; MNIST-5k 54, whose coordinate ascent certified rows 10 lam n long in 0.11 s against
0.89 s. ``benchmarks/auto_plan.py --gaussian`` (n = 3e4, 1e5; lam n 1-100; free, mixed) times the
plan beside the plan without it: 16 of 20 cells move to the interior-point method alone, auto /
oracle 1.36 -> 1.23 when introduced, 1.31 -> 1.11 in the rerun the file holds (GIVE_UP_FROM_SHARE)."""
AUTO_IPM_MAX_PASSES_SPARSE = 128.0
"""AUTO_IPM_MAX_PASSES for a sparse X (CSR, d <= SPARSE_IPM_MAX_DIM), in passes over its nonzeros
(``ROW_WORK`` per row besides) by the sparse time model (IPM_SPARSE_SEC). With short rows that
model's cost per pass falls as n grows: on the sparse family of the floor benchmarks (d = 1000,
10 nonzeros a row) it is 226 passes at n = 1e4, 144 at 3e4, 60 at 1e5, 36 at 3e5 and 27 at 1e6
(from 3e4 on, where the method tries its working set, by IPM_WORKING_SET_ITERATIONS).
``benchmarks/auto_plan.py --sparse`` (``results/auto_plan_sparse.csv``: n from 1e4 to 1e6,
densities 0.5-3%, lam n 1-10, free and mixed signs; 84 cells) times the plan against each method
alone, beside the plan without the rule (which keeps the rule for long rows) and with its limit at
64 passes, where it stood until the model priced the working set. The limit of 128 was read off an
earlier run's times (there 10 misses fell to 3 and auto / oracle 1.075 to 1.018 when replayed at
any limit from 106 to 144); when it was set (2026-12-07 at 2351998) 128 against 64 moved 14 grid
cells (14.5 s in all against 18.7 s; auto / oracle 1.004 against 1.02) and 14 held-out ones (19.6
s against 30.9 s; 1.04 against 1.07). In the run the files hold (2026-12-07 at ac70a5c, with both
rules on the rows' norm; all 168 cells certified), on the grid the sparse rule moves 32 cells
(n >= 3e4, model 23-106 passes) at 0.47-1.87 times their time without it (median 0.68; 7 slower,
all at q = 3.1-3.7 and lam n >= 3), and ``auto`` / oracle is 0.989 in geometric mean (at
most 2.36) against 1.088 without it and 0.988 at 64 passes; 128 against 64 moves 10 cells (model
71-106), 10.1 s in all against 11.0 s, 4 slower (all at lam n = 10). On the held-out shapes (3e4
and 1e5 x 300, 2e4 x 500, 5e4 x 1000, 3e4, 1e5 and 2e5 x 2000) ``auto`` / oracle is 0.954 against
1.005 without the rule and 0.957 at 64 passes, where 10 cells move (10.1 s against 12.0 s, 4
slower). Misses (the interior-point method alone at least 1.5 times faster than the plan): 2 on
the grid (30000 x 1000 at 1%, lam n = 1, model 144 passes, q = 11: 1.7-2.1 times) against 4 at
64 passes and 16 without the rule; none held out, against 3 and 9."""
AUTO_DCA_SHARE = 1.0
"""Coordinate ascent's budget in ``auto``, as a fraction of the interior-point method's estimated time
(``benchmarks/auto_plan.py`` measures the choice against each method alone)."""
AUTO_DCA_EXTRA = 1.0
"""How far beyond its budget coordinate ascent may go in ``auto``, as a fraction of the
interior-point method's estimated time, when the rate of its gap predicts ``tol`` within it
(``shrinking_rounds.extended_limit``): a run a little short of ``tol`` at the budget's end
(splice at lam n = 100, free or mixed signs, stood at a relative gap of 1.4e-6 to 3.9e-6 there
and certified 1e-6 alone after 1.3 budgets) then finishes instead of throwing its work away for
the interior-point method."""
SPARSE_IPM_MAX_DIM = 4000
"""Largest min(n, d) for which ``auto`` runs the interior-point method on a sparse X (its dense
min(n, d)^2 normal matrix then takes at most 128 MB)."""
DCA_MAX_EPOCHS = 10_000
"""Default cap on coordinate ascent's passes when it runs alone (``auto`` on a large sparse X)."""

# Time models (CPU seconds, one core), fitted to the runs of benchmarks/auto_plan.py on the eight
# data sets of the peer benchmarks: an interior-point iteration ~ IPM_SEC[0] n m^2 + IPM_SEC[1] n d
# + IPM_SEC[2] n + IPM_SEC[3] (m = min(n, d): the Gram product, the products with X, the
# per-sample vector work, Python overhead; measured 0.21-0.50 ms on the LIBSVM sets and 100-111 ms
# on MNIST-5k), IPM_ITERATIONS of them (8-16 measured); a unit of coordinate ascent's work
# ~ DCA_SEC_PER_WORK (2.2-25 ns measured, certificates included; the median 7 ns).
# Both have since grown faster than these models say: on benchmarks/results/auto_plan.csv the
# compiled interior-point iteration takes 0.8 of IPM_FUSED_SEC's estimate (geometric mean over the
# seven LIBSVM sets) and a unit of coordinate ascent's work 2.5 ns (median of the 85 certified runs
# of more than 1e5 units). Refitted to those measurements (DCA_SEC_PER_WORK = 2.5e-9, IPM_FUSED_SEC
# = (6.8e-11, 3.8e-8, 2.9e-5)), ``auto`` gives coordinate ascent 1.5-2.4 times the budget (the eight
# data sets of the peer benchmarks). Measured twice on the 120 cells, the geometric mean of auto /
# oracle did not move (1.143 -> 1.149; after the checkpoint rounds of .shrinking_rounds, 1.162 ->
# 1.160) while the worst cell went from 2.1 to 3.6 and from 2.5 to 3.7 times the oracle (australian,
# nonnegative, lam n = 10: the gap of coordinate ascent stalls near 1e-5 and rises again, and the
# longer budget pays for it before the interior-point method runs), and the second run's time over
# the 105 small-set cells rose from 106 to 112 ms. The constants are kept: their factor of about 2
# in favour of the interior-point method is a margin against such stalls.
IPM_SEC = (2.9e-11, 4e-9, 6e-8, 1.8e-4)
IPM_ITERATIONS = 12
DCA_SEC_PER_WORK = 6e-9
# The compiled iteration of a small dense problem (``_ipm_kernel.dense_iteration`` and its
# certificate; ``interior_point.uses_compiled_iteration``) has its own model, ~ IPM_FUSED_SEC[0]
# n m^2 + IPM_FUSED_SEC[1] n + IPM_FUSED_SEC[2]: fitted to the seven LIBSVM sets (free, nonneg and
# mixed signs, lam n from 1e-3 to 10; one thread), where an iteration took 45 us (heart) to 380 us
# (splice), against 150-570 us for the numpy iteration.
IPM_FUSED_SEC = (8.3e-11, 7e-8, 2.2e-5)
# A sparse X (CSR) with d <= n has the model of :mod:`.sparse_ipm_cost` (IPM_SPARSE_SEC), whose
# iteration is its rows' part plus its factor's part: IPM_ITERATIONS of both, or, where the method
# tries its working set (:func:`.working_set.tries_working_set`), IPM_WORKING_SET_ITERATIONS.
IPM_WORKING_SET_ITERATIONS = (6.3, 24.0)
"""How many iterations' worth of the rows' part and of the factor's part the interior-point method
costs on a sparse X where it tries the working set: four or five full iterations and the rounds'
products, then 11-16 subset iterations that sum about a fifth of the rows but factor the d x d
matrix each time. Fitted (least squares on the relative error, both counts nonnegative) to 96 such
runs: the 30 cells with n >= 30 d of an earlier run of ``benchmarks/working_set.py --shapes`` (d
from 100 to 2000) and the 66 with n >= 3e4 of the run of ``auto_plan.py --sparse`` before this
model (d = 1000). Measured over modelled, they lie within 0.72-1.79, against 0.44-2.47 with
IPM_ITERATIONS of both parts, which overcharged rows of 30 nonzeros or more (0.44-0.65 at 3%
density) and undercharged short ones; the same fit on the run ``results/working_set_shapes.csv``
holds gives 6.36 and 23.8. ``auto_plan.py --sparse`` times ``auto`` beside the plan with (12, 12)
(``auto_model_before``)."""


def ipm_seconds(n: int, d: int, sparse: bool = False, nnz: int | None = None) -> float:
    """The time model's estimate of the interior-point method on an (n, d) problem (IPM_SEC, or
    IPM_FUSED_SEC where the method runs its compiled iteration: a dense X with d <= n, n d at most
    ``_ipm_kernel.FUSED_MAX_ENTRIES`` and d at most ``FUSED_MAX_D``, or IPM_SPARSE_SEC for a sparse
    X with d <= n whose ``nnz`` is given; IPM_ITERATIONS of them, or IPM_WORKING_SET_ITERATIONS of
    a sparse iteration's two parts where the method tries its working set)."""
    m = min(n, d)
    if sparse and nnz is not None and d <= n:
        rows, factor = sparse_iteration_seconds(n, d, nnz)
        if tries_working_set(n, d, True):
            return IPM_WORKING_SET_ITERATIONS[0] * rows + IPM_WORKING_SET_ITERATIONS[1] * factor
        return IPM_ITERATIONS * (rows + factor)
    if uses_compiled_iteration(n, d, sparse):
        return IPM_ITERATIONS * (IPM_FUSED_SEC[0] * n * m * m + IPM_FUSED_SEC[1] * n + IPM_FUSED_SEC[2])
    return IPM_ITERATIONS * (IPM_SEC[0] * n * m * m + IPM_SEC[1] * n * d + IPM_SEC[2] * n + IPM_SEC[3])


def ipm_is_cheap(n: int, d: int, sparse: bool = False, nnz: int | None = None) -> bool:
    """Whether ``auto``'s rules on the rows' norm apply: the interior-point method runs its compiled
    iteration (``interior_point.uses_compiled_iteration``), or d <= n and the method's
    estimate (:func:`ipm_seconds`) is at most AUTO_IPM_MAX_PASSES passes of coordinate ascent: over
    n d entries for a dense X, over the ``nnz`` nonzeros of a sparse one (which must then be given,
    with d at most SPARSE_IPM_MAX_DIM).

    Examples
    --------
    >>> from svmcert.signsvm.plan import ipm_is_cheap
    >>> [ipm_is_cheap(n, d) for n, d in ((690, 14), (100_000, 100), (5000, 784), (100, 1000))]
    [True, True, False, False]
    >>> [ipm_is_cheap(n, 1000, sparse=True, nnz=10 * n) for n in (10_000, 100_000, 1_000_000)]   # 10 a row
    [False, True, True]
    """
    if uses_compiled_iteration(n, d, sparse):
        return True
    if d > n:
        return False
    if sparse and (nnz is None or d > SPARSE_IPM_MAX_DIM):
        return False
    limit = AUTO_IPM_MAX_PASSES_SPARSE if sparse else AUTO_IPM_MAX_PASSES
    return ipm_seconds(n, d, sparse, nnz if sparse else None) <= limit * _pass_seconds(n, d, sparse, nnz)


def _pass_seconds(n: int, d: int, sparse: bool, nnz: int | None) -> float:
    """The time model's pass of coordinate ascent: over X's nonzeros (``nnz``) if sparse, over its
    n d entries if dense, ``ROW_WORK`` per row besides."""
    entries = float(nnz) if sparse else float(n) * d
    return (entries + ROW_WORK * float(n)) * DCA_SEC_PER_WORK


def ipm_passes(n: int, d: int, sparse: bool = False, nnz: int | None = None) -> float:
    """The interior-point method's estimate (:func:`ipm_seconds`) in passes of coordinate ascent by
    the time models: the quantity :func:`ipm_is_cheap` compares with AUTO_IPM_MAX_PASSES (and
    AUTO_IPM_MAX_PASSES_SPARSE for a sparse X, whose ``nnz`` must be given).

    Examples
    --------
    >>> from svmcert.signsvm.plan import ipm_passes
    >>> round(ipm_passes(1_000_000, 1000, sparse=True, nnz=10**7))     # 10 nonzeros a row
    27
    """
    return ipm_seconds(n, d, sparse, nnz if sparse else None) / _pass_seconds(n, d, sparse, nnz)


def auto_plan(n: int, d: int, nnz: int, lam: float, sparse: bool = False,
              row_norm: float | None = None, constrained: bool = False) -> tuple[str, int]:
    """What ``solve(solver="auto")`` does for an (n, d) problem with nnz nonzeros at lambda.

    ``row_norm``: the rows' typical squared norm (:func:`row_norm_scale`); None leaves the rule
    on it out (the plan of shape and lambda alone). ``constrained``: the problem has sign
    constraints, which sets that rule's threshold to AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED; a
    sparse X on which the method's estimate is above AUTO_IPM_MAX_PASSES passes has
    AUTO_IPM_ABOVE_SCALED_NORM_SPARSE, and one on which it is not cheap
    AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY (:func:`rows_threshold`). ``nnz`` enters the interior-point method's
    time model, and with it the budget, only for a sparse X (:func:`ipm_seconds`).

    Returns
    -------
    (plan, work) : ``("interior-point", 0)``, or ``("dual-coordinate", work)``: coordinate
        ascent for at most ``work`` units of work (nonzeros visited plus ``ROW_WORK`` per row),
        then (if not certified) the interior-point method. For a dense X ``nnz`` does not enter
        the budget (it is in the unit of work); for a sparse one it shapes the interior-point
        method's estimate, which the budget is worth.

    Examples
    --------
    >>> from svmcert.signsvm.plan import auto_plan
    >>> auto_plan(5000, 784, 760000, 1e-3 / 5000)
    ('interior-point', 0)
    >>> plan, work = auto_plan(5000, 784, 760000, 1.0 / 5000)
    >>> plan, work > 100 * 760000
    ('dual-coordinate', True)
    >>> auto_plan(1000, 60, 60000, 1.0 / 1000, row_norm=30.0)     # splice at lam n = 1
    ('interior-point', 0)
    >>> auto_plan(351, 34, 11000, 10.0 / 351, row_norm=13.5)[0]                 # 1.35 lam n
    'interior-point'
    >>> auto_plan(351, 34, 11000, 10.0 / 351, row_norm=11.0, constrained=True)[0]   # 1.1 lam n
    'dual-coordinate'
    >>> auto_plan(100_000, 100, 10**7, 1.0 / 100_000, row_norm=100.0)[0]    # Gaussian, d = 100
    'interior-point'
    >>> [auto_plan(n, 1000, 10 * n, 5.0 / n, sparse=True, row_norm=11.0)[0]     # q = 2.2, 10 a row
    ...  for n in (100_000, 1_000_000)]                                          # model 60, 27 passes
    ['dual-coordinate', 'interior-point']
    >>> [auto_plan(10_000, 1000, 10**5, 1.0 / 10_000, sparse=True, row_norm=r)[0]     # model 226 passes
    ...  for r in (11.0, 16.0)]                                                      # q = 11, 16
    ['dual-coordinate', 'interior-point']
    """
    if lam * n < AUTO_IPM_BELOW_LAM_N * (1.0 - 1e-9):     # lam = 0.1 / n rounds to just below 0.1 / n
        return "interior-point", 0
    if row_norm is not None and row_norm >= rows_threshold(n, d, nnz, sparse, constrained) * lam * n:
        return "interior-point", 0
    return "dual-coordinate", max(1, int(AUTO_DCA_SHARE * ipm_seconds(n, d, sparse, nnz if sparse else None)
                                         / DCA_SEC_PER_WORK))


def rows_threshold(n: int, d: int, nnz: int, sparse: bool = False, constrained: bool = False) -> float:
    """The threshold of :func:`auto_plan`'s rule on the rows' norm: ``auto`` runs the interior-point
    method alone once the rows' mean squared norm is at least this many times lam n. Where the
    method is cheap (:func:`ipm_is_cheap`): AUTO_IPM_ABOVE_SCALED_NORM, or
    AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED with sign constraints; for a sparse X on which the
    method's estimate is above AUTO_IPM_MAX_PASSES passes, at least AUTO_IPM_ABOVE_SCALED_NORM_SPARSE.
    Where it is not cheap: AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY for a sparse X on which it can
    run (``nnz`` given, d <= n and d <= SPARSE_IPM_MAX_DIM) and costs at most
    AUTO_IPM_MAX_PASSES_SPARSE_COSTLY passes, else infinity (the rule does not apply).

    Examples
    --------
    >>> from svmcert.signsvm.plan import rows_threshold
    >>> [rows_threshold(n, 1000, 10 * n, sparse=True) for n in (10_000, 100_000, 1_000_000)]  # 226, 60, 27 passes
    [15.0, 3.0, 1.25]
    >>> rows_threshold(5000, 784, 760_000), rows_threshold(10_000, 5000, 10**5, sparse=True)
    (inf, inf)
    >>> rows_threshold(15_000, 2500, 375_000, sparse=True)      # 990 passes
    inf
    """
    if not ipm_is_cheap(n, d, sparse, nnz):
        if (sparse and nnz is not None and d <= min(n, SPARSE_IPM_MAX_DIM)
                and ipm_passes(n, d, True, nnz) <= AUTO_IPM_MAX_PASSES_SPARSE_COSTLY):
            return AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY
        return math.inf
    threshold = AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED if constrained else AUTO_IPM_ABOVE_SCALED_NORM
    if sparse and ipm_passes(n, d, True, nnz) > AUTO_IPM_MAX_PASSES:
        threshold = max(threshold, AUTO_IPM_ABOVE_SCALED_NORM_SPARSE)
    return threshold


def row_norm_scale(X) -> float:
    """The mean squared norm of the rows, ||X||_F^2 / n: the statistic of ``auto``'s rule
    AUTO_IPM_ABOVE_SCALED_NORM (one product of X's entries with themselves, a few microseconds on
    the problems the rule concerns).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.plan import row_norm_scale
    >>> row_norm_scale(np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]]))
    10.0
    """
    if hasattr(X, "multiply"):
        data = X.data
    else:
        data = X.ravel(order="K")
    return float(data @ data) / X.shape[0]


def auto_work_options(n: int, d: int, lam: float, sparse: bool = False, nnz: int | None = None) -> dict:
    """The work options of :func:`.coordinate_ascent.dca_options` that ``auto`` gives coordinate
    ascent where :func:`auto_plan` runs it first: its budget (``max_work``), the predicted need at
    which it gives up (``give_up_work``: the interior-point method's estimated time, in units of
    work) and how far past the budget it may go (``extra_work``: AUTO_DCA_EXTRA of that estimate).
    ``nnz``: X's nonzeros, which the estimate uses for a sparse X (:func:`ipm_seconds`; None: the
    dense model).

    Examples
    --------
    >>> from svmcert.signsvm.plan import auto_plan, auto_work_options
    >>> opts = auto_work_options(690, 14, 1.0 / 690)
    >>> opts["max_work"] == auto_plan(690, 14, 0, 1.0 / 690)[1], opts["extra_work"] == opts["give_up_work"]
    (True, True)
    """
    ipm_work = ipm_seconds(n, d, sparse, nnz if sparse else None) / DCA_SEC_PER_WORK
    return {"max_work": auto_plan(n, d, nnz, lam, sparse)[1], "give_up_work": ipm_work,
            "extra_work": AUTO_DCA_EXTRA * ipm_work}
