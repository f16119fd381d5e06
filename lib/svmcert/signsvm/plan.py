"""What ``solve(solver="auto")`` runs, and the time models behind it. ``auto`` chooses from the
problem's shape, lambda and the typical squared norm of its rows (deterministically, never from
measured times):

- lam n < AUTO_IPM_BELOW_LAM_N: the interior-point method
  (:func:`~svmcert.signsvm.interior_point`). There dual coordinate ascent needs thousands of passes
  or stalls (``benchmarks/convergence_grid.py`` counts the cells it certifies within 10 000 passes
  at each lam n), while the interior-point method's cost does not depend on lambda.
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

Each constant's docstring names the benchmark that measures it; ``benchmarks/README.md`` records
the runs that set each value, and the book's Benchmarks part shows the current measurements.
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
interior-point method where that method is cheap (:func:`ipm_is_cheap`): with rows that long
against lam n many alphas are free and coupled, and coordinate ascent slows down.
``benchmarks/auto_plan.py`` (with ``--row-ratios`` around the threshold) times each method alone
and the plan."""
AUTO_IPM_ABOVE_SCALED_NORM_CONSTRAINED = 1.25
"""AUTO_IPM_ABOVE_SCALED_NORM for a problem with sign constraints (any sign_h != 0), whose rows cost
coordinate ascent more per pass than a free row's (``_dca_kernel.CONSTRAINED_ROW_WORK``) and which
takes more passes. ``benchmarks/auto_plan.py`` (nonnegative and mixed signs) times each method
alone and the plan."""
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE = 3.0
"""The threshold of the rule on the rows' norm for a sparse X on which the interior-point method's
estimate is above AUTO_IPM_MAX_PASSES passes (up to AUTO_IPM_MAX_PASSES_SPARSE; at or below it the
thresholds of a dense X apply). There the method is cheap only by the sparse rule's wider limit,
and below this threshold coordinate ascent, whose passes over short rows are cheap, is the faster
plan. Chosen on the sparse files of ``benchmarks/auto_plan.py --sparse`` and tested on shapes it
was not chosen on by ``benchmarks/sparse_rows_rule.py``."""
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY = 15.0
"""The threshold of the rule on the rows' norm for a sparse X on which the interior-point method is
not cheap (its estimate above AUTO_IPM_MAX_PASSES_SPARSE passes, up to
AUTO_IPM_MAX_PASSES_SPARSE_COSTLY) but can run (d <= n, d <= SPARSE_IPM_MAX_DIM): from this mean
||x_i||^2 / (lam n) on, ``auto`` runs it alone there too. With rows that long, coordinate ascent's
free alphas are so coupled that it seldom certifies within its budget, which the plan would pay
before the method ran anyway. Chosen on the sparse files of ``benchmarks/auto_plan.py --sparse``
and tested on shapes it was not chosen on by ``benchmarks/long_rows_rule.py``."""
AUTO_IPM_MAX_PASSES_SPARSE_COSTLY = 400.0
"""The most passes (the model's estimate, :func:`ipm_passes`) at which
AUTO_IPM_ABOVE_SCALED_NORM_SPARSE_COSTLY applies: beyond it, coordinate ascent first was the
faster plan in most long-row cells of ``benchmarks/long_rows_rule.py``."""
AUTO_IPM_MAX_PASSES = 30.0
"""Beyond the compiled shapes, the rules on the rows' norm also apply to a dense X with d <= n on
which the interior-point method's estimate is at most this many passes of coordinate ascent over
its n d entries (:func:`ipm_is_cheap`): there the method costs about as little as on the sets
where the rules were measured. ``benchmarks/auto_plan.py --gaussian`` times the plan beside the
plan without it."""
AUTO_IPM_MAX_PASSES_SPARSE = 128.0
"""AUTO_IPM_MAX_PASSES for a sparse X (CSR, d <= SPARSE_IPM_MAX_DIM), in passes over its nonzeros
(``ROW_WORK`` per row besides) by the sparse time model (IPM_SPARSE_SEC). With short rows that
model's cost in passes falls as n grows (:func:`ipm_passes`), and from 3e4 samples on the method
tries its working set (IPM_WORKING_SET_ITERATIONS). ``benchmarks/auto_plan.py --sparse`` times the
plan against each method alone, beside the plan without the rule and with a limit of 64 passes."""
AUTO_DCA_SHARE = 1.0
"""Coordinate ascent's budget in ``auto``, as a fraction of the interior-point method's estimated time
(``benchmarks/auto_plan.py`` measures the choice against each method alone)."""
AUTO_DCA_EXTRA = 1.0
"""How far beyond its budget coordinate ascent may go in ``auto``, as a fraction of the
interior-point method's estimated time, when the rate of its gap predicts ``tol`` within it
(``shrinking_rounds.extended_limit``): a run a little short of ``tol`` at the budget's end then
finishes instead of throwing its work away for the interior-point method."""
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
