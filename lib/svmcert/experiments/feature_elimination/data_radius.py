"""Chapter "The data radius" (Aksu, eq. (9) "tR" and the squared diameter "ER").

- :func:`load_features`: a data set with every feature divided by its largest absolute value
  (breast-cancer without its sample-code column), optionally a random subset of rows.
- :func:`dataset_checks`: the library's R^2 (eq. (9)) against cvxpy's dual QP and primal SOCP, the
  squared diameter against brute force, and Jung's interval, for one data set.
- :func:`regular_simplex_rows`: Jung's upper bound is attained by the regular simplex.
- :func:`removal_path`: R^2, D^2 and Jung's interval after each step of a one-by-one feature removal.
- :func:`sweep_rows`: (R^2)^{-m} and (D^2)^{-m} for every feature m: timings, agreement with
  solving each reduced problem from scratch, and how similarly the two radii rank the features.
"""

from __future__ import annotations

import time

import numpy as np

from ... import datasets
from ...featelim.radius import enclosing_sphere, jung_interval, radius_squared_without_each_feature, squared_diameter
from ...reference.radius import sphere_dual_cvxpy, sphere_primal_cvxpy, squared_diameter_bruteforce
from ..instances import instance_rng
from ..timing import clock

__all__ = ["load_features", "warm_up", "dataset_checks", "regular_simplex_rows", "removal_path", "sweep_rows",
           "spearman", "same_first", "stable_order", "tied_ranks", "TIE_RTOL"]


def load_features(name: str, max_rows: int | None = None, seed: int = 0):
    """(X, y) with each feature scaled to [-1, 1] by its largest absolute value; breast-cancer loses
    column 0 (the sample code number, an identifier rather than a measurement). ``max_rows`` keeps a
    random subset of that many rows (seeded)."""
    X, y = datasets.load(name)
    if name == "breast-cancer":
        X = X[:, 1:]
    scale = np.abs(X).max(axis=0)
    X = X / np.where(scale > 0, scale, 1.0)
    if max_rows is not None and max_rows < len(y):
        keep = np.sort(np.random.default_rng(seed).choice(len(y), size=max_rows, replace=False))
        X, y = X[keep], y[keep]
    return X, y


def warm_up() -> None:
    """Load the compiled loops once (numba's cache), so that timings measure the work alone."""
    enclosing_sphere(np.eye(2))
    radius_squared_without_each_feature(np.eye(2), "sphere")
    radius_squared_without_each_feature(np.eye(2), "diameter")


def _rel(a, b):
    return abs(a - b) / max(abs(b), np.finfo(float).tiny)


def dataset_checks(name: str, X) -> dict:
    """One row: the library's eq. (9) against cvxpy (dual QP and primal SOCP), the diameter against
    brute force, Jung's interval and the ratio ER / R^2.

    ``violation`` = the largest of (cvxpy's rigorous lower bound - library upper) / R^2 and
    (library value - the upper bound at cvxpy's centre) / R^2: negative when the library's interval
    [r2, upper] and the independent bounds are consistent.
    """
    n, d = X.shape
    warm_up()
    t0 = time.perf_counter()
    res = enclosing_sphere(X @ X.T)
    seconds = time.perf_counter() - t0
    dual, primal = sphere_dual_cvxpy(X=X), sphere_primal_cvxpy(X)
    D2 = squared_diameter(X @ X.T)
    m = min(d, n - 1)
    lo, hi = jung_interval(D2, m)
    return {"data": name, "n": n, "d": d, "r2": res.r2, "gap": res.gap, "iterations": res.iterations,
            "support": int(np.count_nonzero(res.beta)), "seconds": seconds,
            "r2_cvxpy_dual": dual.value, "r2_cvxpy_socp": primal.value,
            "rel_dual": _rel(res.r2, dual.value), "rel_socp": _rel(res.r2, primal.value),
            "violation": max(dual.value - res.upper, res.r2 - primal.value) / res.r2,
            "status": f"{dual.status}/{primal.status}",
            "D2": D2, "rel_D2_brute": _rel(D2, squared_diameter_bruteforce(X)),
            "jung_low": float(lo), "jung_high": float(hi), "low_over_R2": float(lo) / res.upper,
            "R2_over_high": res.r2 / float(hi), "ER_over_R2": D2 / res.r2,
            "ER_over_R2_min": 2 * (m + 1) / m}


def regular_simplex_rows(dims, seed: int = 0) -> list[dict]:
    """R^2 of m + 1 equidistant points (a randomly rotated, shifted regular simplex of dimension m)
    against Jung's upper bound D^2 m / (2 (m + 1)), which it attains. Dimension m's rotation and
    shift come from the stream keyed ``("data-radius", "simplex", m)``."""
    rows = []
    for m in dims:
        rng = instance_rng(seed, "data-radius", "simplex", m)
        Q, _ = np.linalg.qr(rng.standard_normal((m + 1, m + 1)))
        X = (np.eye(m + 1) + rng.standard_normal(m + 1)) @ Q
        res = enclosing_sphere(X @ X.T)
        D2 = squared_diameter(X @ X.T)
        _, hi = jung_interval(D2, m)
        rows.append({"m": m, "r2": res.r2, "jung_high": float(hi), "R2_over_high": res.r2 / float(hi)})
    return rows


def removal_path(name: str, X, order) -> list[dict]:
    """Remove the features in ``order`` one at a time (until one is left); after each step R^2 from
    eq. (9) (warm-started from the previous step's beta), D^2 and Jung's interval with
    m = min(remaining, n - 1). The first row is the full data."""
    n, d = X.shape
    keep = list(range(d))
    beta, rows = None, []
    for step in range(d):
        Z = X[:, keep]
        K = Z @ Z.T
        res = enclosing_sphere(K, beta0=beta)
        beta = res.beta
        D2 = squared_diameter(K)
        m = min(len(keep), n - 1)
        lo, hi = jung_interval(D2, m)
        rows.append({"data": name, "removed": step, "remaining": len(keep), "r2": res.r2, "upper": res.upper,
                     "iterations": res.iterations, "D2": D2, "jung_low": float(lo), "jung_high": float(hi),
                     "low_over_R2": float(lo) / res.upper if res.upper > 0 else 0.0,
                     "R2_over_high": res.r2 / float(hi) if hi > 0 else 0.0})
        if step < d - 1:
            keep.remove(int(order[step]))
    return rows


#: Values this close (relative) are ties: the sphere's R^2 is certified to 1e-10, so differences
#: below 1e-8 can come out either way on another machine.
TIE_RTOL = 1e-8


def tied_ranks(x, rtol: float = TIE_RTOL) -> np.ndarray:
    """Average ranks (1 = smallest) in which values within ``rtol`` of their neighbour in sorted
    order (relative to the larger magnitude) share one rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    s = x[order]
    ranks = np.empty(x.size)
    start = 0
    for k in range(1, x.size + 1):
        if k == x.size or s[k] - s[k - 1] > rtol * max(abs(s[k]), abs(s[k - 1]), 1e-300):
            ranks[order[start:k]] = 0.5 * (start + k - 1) + 1.0
            start = k
    return ranks


def spearman(a, b, rtol: float = TIE_RTOL) -> float:
    """Spearman's rank correlation, values within ``rtol`` of each other counted as ties (average
    ranks, :func:`tied_ranks`); NaN when either input is constant up to that tolerance."""
    ra, rb = tied_ranks(a, rtol), tied_ranks(b, rtol)
    if ra.size < 2 or np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def stable_order(x, rtol: float = TIE_RTOL) -> np.ndarray:
    """Indices from the smallest value up, ties (:func:`tied_ranks`) in index order: the same on
    every machine however rounding orders values that are equal to within ``rtol``."""
    x = np.asarray(x, dtype=float)
    return np.lexsort((np.arange(x.size), tied_ranks(x, rtol)))


def same_first(a, b, rtol: float = TIE_RTOL) -> bool:
    """Does a feature that (within ``rtol``) minimises ``a`` also minimise ``b``?"""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    first_a = a <= a.min() + rtol * max(abs(a.min()), 1e-300)
    return bool(np.any(b[first_a] <= b.min() + rtol * max(abs(b.min()), 1e-300)))


def _distinct(values, digits: int = 10) -> int:
    """How many different values (equal to ``digits`` significant digits relative to the largest)."""
    values = np.asarray(values, dtype=float)
    top = float(np.abs(values).max()) if values.size else 0.0
    return int(np.unique(np.round(values / top, digits)).size) if top > 0 else int(values.size > 0)


def _best_time(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = clock()
        out = fn()
        best = min(best, clock() - t0)
    return best, out


def sweep_rows(name: str, X, repeats: int = 3, top: int = 5) -> tuple[dict, dict]:
    """(R^2)^{-m} (sphere) and (D^2)^{-m} (diameter) for every feature m of X.

    Returns ``(row, values)``: the row holds the best-of-``repeats`` wall time of each sweep and of
    the d cold solves it replaces, the largest relative difference between the warm-started sweep and
    cold solves of each reduced problem, the same for the diameter against brute force, how many
    distinct values each sweep takes (ties make a criterion unable to choose), Spearman's
    correlation between the two rankings of the features, whether the feature whose removal
    shrinks the sphere most also minimises (D^2)^{-m} (ties allowed) and the overlap of the ``top``
    features of both rankings; ``values`` holds the two arrays.
    """
    n, d = X.shape
    warm_up()
    t_sph, sph = _best_time(lambda: radius_squared_without_each_feature(X, "sphere"), repeats)
    t_dia, dia = _best_time(lambda: radius_squared_without_each_feature(X, "diameter"), repeats)

    def cold():
        out = np.empty(d)
        for m in range(d):
            Z = np.delete(X, m, axis=1)
            out[m] = enclosing_sphere(Z @ Z.T).r2
        return out

    t_cold, sph_cold = _best_time(cold, 1)
    dia_brute = np.array([squared_diameter_bruteforce(np.delete(X, m, axis=1)) for m in range(d)])
    k = min(top, d)
    row = {"data": name, "n": n, "d": d, "sphere_ms": 1e3 * t_sph, "diameter_ms": 1e3 * t_dia,
           "cold_sphere_ms": 1e3 * t_cold, "speedup": t_cold / t_sph,
           "rel_warm_vs_cold": float(np.max(np.abs(sph - sph_cold) / sph_cold)),
           "rel_diameter_vs_brute": float(np.max(np.abs(dia - dia_brute) / dia_brute)),
           "sphere_distinct": _distinct(sph), "diameter_distinct": _distinct(dia),
           "spearman": spearman(sph, dia), "same_first": same_first(sph, dia),
           "top_k": k, "top_overlap": len(set(stable_order(sph)[:k]) & set(stable_order(dia)[:k]))}
    return row, {"sphere": sph, "diameter": dia}
