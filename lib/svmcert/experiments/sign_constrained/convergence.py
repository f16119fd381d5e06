"""Chapter "Convergence: projected gradient vs Frank-Wolfe" (Tajima et al., Sec. 7.1, Figs. 3-4).

Objective errors are measured against a high-accuracy cvxpy optimum, never against the method
itself. Iteration cost is timed as n and d double.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import signsvm
from ...reference import solve_primal_cvxpy
from ...signsvm.projected_gradient import projected_gradient
from ..timing import clock, loglog_slope

__all__ = ["log_grid", "traces", "iteration_cost", "PAPER_LAM_N", "figures34"]

#: The values of lam n of the paper's convergence experiments (Sec. 7.1, Figures 3-4).
PAPER_LAM_N = (1e-6, 1e-4, 1e-2)


def log_grid(T: int, points: int = 30, dense_to: int = 100) -> np.ndarray:
    """Distinct iteration counts 1..T spaced evenly on a log scale, plus every count up to
    ``dense_to`` (the paper's figures span 100 iterations)."""
    grid = np.round(np.logspace(0, np.log10(T), points)).astype(int)
    return np.unique(np.concatenate([grid, np.arange(1, min(T, dense_to) + 1)]))


def traces(name, X, y, lam_n, sign, T):
    """Run Frank-Wolfe and projected gradient for T iterations and measure them against cvxpy.

    Returns a DataFrame on a log grid of iterations with, relative to P* (cvxpy):
    ``fw_primal_err`` = (P(w(alpha_t)) - P*)/P*, ``fw_dual_err`` = (P* - D(alpha_t))/P*,
    ``fw_gap`` = (P - D)/P*, ``pg_err`` = (min_{s<=t} P(w_s) - P*)/P*, and the bound of eq. (24)
    with Lemma 2, ``fw_bound`` = 2 R^2 / (lam (t + 2)) / P*, for the dual error.
    """
    import pandas as pd

    n = X.shape[0]
    lam = lam_n / n
    ref = solve_primal_cvxpy(X, y, lam, sign)
    p_star = ref.value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        fw = signsvm.frank_wolfe(X, y, lam, sign, tol=1e-15, max_iter=T)
    with warnings.catch_warnings():     # a fixed budget compared with P*: the verdict is not the point
        warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
        pg = projected_gradient(X, y, lam, sign, n_iter=T)
    fw_p, fw_d = np.array(fw.history["primal"]), np.array(fw.history["dual"])   # index t = iterate after t steps
    pg_best = np.minimum.accumulate(np.array(pg.history["primal"]))             # index t-1 = best of w_1..w_t
    R = float(np.max(np.linalg.norm(X, axis=1)))
    rows = []
    for t in log_grid(T):
        rows.append({
            "data": name, "lam_n": lam_n, "iteration": int(t),
            "fw_primal_err": (fw_p[t] - p_star) / p_star, "fw_dual_err": (p_star - fw_d[t]) / p_star,
            "fw_gap": (fw_p[t] - fw_d[t]) / p_star, "pg_err": (pg_best[t - 1] - p_star) / p_star,
            "fw_bound": 2 * R * R / (lam * (t + 2)) / p_star,
            "fw_seconds": fw.history["seconds"][t], "pg_seconds": pg.history["seconds"][t - 1],
        })
    return pd.DataFrame(rows), p_star


def figures34(tr, lam_n=PAPER_LAM_N, first: int = 15, last: int = 100, data="MNIST"):
    """What Figures 3-4 show, measured on the traces of :func:`traces` at the paper's lam n.

    Returns ``(faster, gaps)``: ``faster`` has one row per lam n of ``data`` with the share of the
    iterations ``first..last`` at which Frank-Wolfe's best primal error so far is below projected
    gradient's (the paper: Frank-Wolfe is ahead from about 15 iterations on); ``gaps`` has, per data
    set and lam n, Frank-Wolfe's relative duality gap at iteration ``last`` and its smallest value up
    to there (the paper: the gaps converge to zero).
    """
    import pandas as pd

    part = tr[tr["lam_n"].isin(lam_n)]
    faster, gaps = [], []
    for (name, lam), g in part.groupby(["data", "lam_n"]):
        g = g.sort_values("iteration")
        fw_best = np.minimum.accumulate(g["fw_primal_err"].to_numpy())
        window = ((g["iteration"] >= first) & (g["iteration"] <= last)).to_numpy()
        if name.startswith(data):
            ahead = fw_best[window] < g["pg_err"].to_numpy()[window]
            faster.append({"data": name, "lam_n": lam, "iterations": int(window.sum()), "fw_ahead": float(ahead.mean()),
                           "fw_best_err_at_last": float(fw_best[window][-1]), "pg_err_at_last": float(g["pg_err"].to_numpy()[window][-1])})
        upto = (g["iteration"] <= last).to_numpy()
        gaps.append({"data": name, "lam_n": lam, "gap_at_1": float(g["fw_gap"].iloc[0]),
                     "gap_at_last": float(g["fw_gap"].to_numpy()[upto][-1]), "smallest_gap": float(g["fw_gap"].to_numpy()[upto].min())})
    return pd.DataFrame(faster), pd.DataFrame(gaps)


def _per_iteration(fn, iters):
    fn(2)  # warm-up (compilation, caches)
    t0 = clock()
    fn(iters)
    return (clock() - t0) / iters


def iteration_cost(seed, ns, ds, n_fixed, d_fixed, iters=20, repeat=5):
    """CPU seconds per iteration of Frank-Wolfe and projected gradient as n doubles (d fixed) and as
    d doubles (n fixed), best of ``repeat``, and the fitted log-log slopes. Each size's data come
    from a stream keyed by the axis and the size. BLAS runs on one thread and the clock is
    ``time.process_time``, so other jobs on the machine inflate the times far less than wall time.

    Beside the seconds, ``products_s`` is the time of the pair of products an iteration is built on
    (X w and X^T v, best of the runs of ``iters`` pairs) and ``fw_products`` / ``pg_products`` the
    iteration's time in those pairs (the median over the repeats of its time against the products
    timed just before and after it): its cost in units of O(nd) work measured on the same matrix
    and machine, so that what the memory hierarchy does to streaming X (a matrix that fits in the
    last-level cache is read several times faster than one that does not) cancels. The slopes are
    fitted for the seconds and for the ratios (``*_products_slope``)."""
    from threadpoolctl import threadpool_limits

    from ..instances import instance_rng

    with threadpool_limits(limits=1, user_api="blas"):
        return _iteration_cost(instance_rng, seed, ns, ds, n_fixed, d_fixed, iters, repeat)


def _iteration_cost(instance_rng, seed, ns, ds, n_fixed, d_fixed, iters, repeat):
    import pandas as pd

    rows = []
    for axis, sizes in (("n", ns), ("d", ds)):
        for size in sizes:
            n, d = (size, d_fixed) if axis == "n" else (n_fixed, size)
            rng = instance_rng(seed, "convergence", "iteration-cost", axis, size)
            X = rng.standard_normal((n, d)) / np.sqrt(d)
            y = np.sign(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n))
            y[y == 0] = 1.0
            sign = rng.choice([-1.0, 0.0, 1.0], size=d)
            lam = 1e-2 / n

            def fw(k):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                    signsvm.frank_wolfe(X, y, lam, sign, tol=1e-15, max_iter=k, record_history=False)

            def pg(k):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", signsvm.ConvergenceWarning)
                    projected_gradient(X, y, lam, sign, n_iter=k, record_history=False)

            w, v = rng.standard_normal(d), rng.standard_normal(n)

            def products(k):
                for _ in range(k):
                    X @ w
                    X.T @ v

            # products, Frank-Wolfe, products, projected gradient, products, in every repeat: each
            # method's ratio is taken to the mean of the products timed just before and just after
            # it, so that whatever else the machine does to the cache at that moment (another
            # chapter running beside this one) touches both; the ratio reported is the median
            fw_t, pg_t, prod_t, fw_r, pg_r = [], [], [], [], []
            for _ in range(repeat):
                p0 = _per_iteration(products, iters)
                f = _per_iteration(fw, iters)
                p1 = _per_iteration(products, iters)
                g = _per_iteration(pg, iters)
                p2 = _per_iteration(products, iters)
                fw_t.append(f)
                pg_t.append(g)
                prod_t += [p0, p1, p2]
                fw_r.append(f / (0.5 * (p0 + p1)))
                pg_r.append(g / (0.5 * (p1 + p2)))
            rows.append({"axis": axis, "n": n, "d": d, "fw_s": min(fw_t), "pg_s": min(pg_t),
                         "products_s": min(prod_t), "fw_products": float(np.median(fw_r)),
                         "pg_products": float(np.median(pg_r))})
    df = pd.DataFrame(rows)
    slopes = []
    for axis in ("n", "d"):
        part = df[df["axis"] == axis]
        slopes.append({"axis": axis, "fw_slope": loglog_slope(part[axis], part["fw_s"]),
                       "pg_slope": loglog_slope(part[axis], part["pg_s"]),
                       "products_slope": loglog_slope(part[axis], part["products_s"]),
                       "fw_products_slope": loglog_slope(part[axis], part["fw_products"]),
                       "pg_products_slope": loglog_slope(part[axis], part["pg_products"])})
    return df, pd.DataFrame(slopes)
