"""Cost against the floor: how many products X v a certified solve costs, and how its time grows with n.

The floor of any solver that reads X is one pass over it. ``passes`` = our solve time / the time
of one product X v (v of length d), the product timed in two forms: dense (numpy/BLAS ``X @ v``)
and CSR (``scipy.sparse.csr_matrix(X) @ v``). The LIBSVM sets and the dense family are solved as
dense arrays, the sparse family as a CSR matrix (``signsvm.solve`` reads its rows, never
densifying it), whose floor is the CSR product (its dense product is not timed: the dense array
would take n d 8 bytes).

Synthetic families (keyed streams, so every run sees the same data):

- dense: two classes N(+u, I) and N(-u, I), ||u|| = 1 (u = e_1), d = 100;
- sparse: the same with every entry kept with probability ``density`` (1%), d = 1000, and the
  shift u scaled to u_j = 1 / sqrt(d density) on every coordinate, so that its part on a row's
  nonzeros has norm about 1 (the sparse analogue of ||u|| = 1).
"""

from __future__ import annotations

import numpy as np

from .common import timed

__all__ = ["gaussian_dense", "gaussian_sparse", "product_times", "passes_row", "scaling", "slopes"]


def gaussian_dense(n, d=100, seed=0):
    from svmcert.experiments.instances import instance_rng

    rng = instance_rng(seed, "benchmarks", "floor", "dense", int(n), int(d))
    y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
    X = rng.standard_normal((n, d))
    X[:, 0] += y
    return X, y


def gaussian_sparse(n, d=1000, density=0.01, seed=0):
    """CSR matrix with about ``density`` of its entries nonzero (see the module docstring)."""
    from scipy import sparse

    from svmcert.experiments.instances import instance_rng

    rng = instance_rng(seed, "benchmarks", "floor", "sparse", int(n), int(d), float(density))
    y = np.repeat([1.0, -1.0], [n - n // 2, n // 2])
    S = sparse.random(n, d, density=density, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    S.data += np.repeat(y, np.diff(S.indptr)) / np.sqrt(d * density)
    return S, y


def product_times(X, repeat=7):
    """Best CPU seconds of one X v, dense and CSR (the CSR matrix built outside the timing); for a
    sparse X only the CSR product (the dense one is NaN). A product of a small matrix takes
    microseconds, below what ``time.process_time`` resolves in one call, so each timing covers a
    batch of products (about 10^5 entries in all) and is divided by the batch."""
    from scipy import sparse

    v = np.random.default_rng(0).standard_normal(X.shape[1])
    S = sparse.csr_matrix(X)
    batch = max(1, 100_000 // max(S.nnz, 1))

    def per_product(fn):
        t = timed(lambda: [fn() for _ in range(batch)], repeat, budget=5.0, min_seconds=0.2, max_calls=2000).cpu
        return t / batch

    csr = per_product(lambda: S @ v)
    if sparse.issparse(X):
        return float("nan"), csr, S.nnz
    return per_product(lambda: X @ v), csr, S.nnz


def passes_row(X, y, lam_n, *, data="", sign=None, tol=1e-6, repeat=3, budget=10.0, products=None,
               liblinear=False, peer_max_iter=100_000):
    """Our ``solve`` at lam n against one product X v: one row. With ``liblinear`` (free signs
    only), liblinear on the same problem too, timed at the loosest tolerance whose point is within
    1e-6 of P* (``linear.peer_at_accuracy``; P* the smaller primal value of our timed solve and an
    untimed one at tol 1e-9), and its time in products X v: the passes the tool a practitioner
    would pick makes to the same accuracy."""
    from svmcert import signsvm

    n, d = X.shape
    lam = lam_n / n
    sign = np.zeros(d) if sign is None else sign
    if liblinear and np.any(np.asarray(sign) != 0):
        raise ValueError("sign: liblinear solves the unconstrained problem only (sign all 0)")
    t = timed(lambda: signsvm.solve(X, y, lam, sign, tol=tol), repeat, budget)
    res = t.result
    t_dense, t_csr, nnz = products or product_times(X)
    row = {"data": data, "n": n, "d": d, "density": nnz / (n * d), "lam_n": lam_n, "ours_cpu": t.cpu,
           "ours_wall": t.wall, "ours_calls": t.calls, "method": "+".join(res.history.get("method", [])),
           "iterations": res.n_iter, "rel_gap": res.gap / res.primal, "converged": bool(res.converged),
           "xv_dense_cpu": t_dense, "xv_csr_cpu": t_csr, "passes_dense": t.cpu / t_dense,
           "passes_csr": t.cpu / t_csr}
    if liblinear:
        row.update(_liblinear_columns(X, y, lam, sign, res, t_dense, t_csr, max_iter=peer_max_iter,
                                      repeat=repeat, budget=budget))
    return row


def _liblinear_columns(X, y, lam, sign, res, t_dense, t_csr, *, rtol=1e-6, max_iter=100_000, repeat=3, budget=10.0):
    """liblinear's columns of :func:`passes_row` (free signs, checked there): its tolerance, CPU
    seconds, iterations, whether the cap stopped it, its excess over P* and whether it reached
    P* (1 + rtol), and its time in products X v (dense and CSR)."""
    from .common import rel_excess
    from .linear import ours_reference, peer_at_accuracy

    p_ref, _, _ = ours_reference(X, y, lam, sign)
    p_star = min(p_ref, res.primal)
    target = p_star * (1.0 + rtol)
    found = peer_at_accuracy("liblinear", X, y, lam, sign, target, max_iter=max_iter, repeat=repeat, budget=budget,
                             p_star=p_star)
    _, it, capped = found["timing"].result
    cpu = found["timing"].cpu
    return {"liblinear_tol": found["tol"], "liblinear_cpu": cpu, "liblinear_iters": it,
            "liblinear_capped": bool(capped), "liblinear_excess": rel_excess(found["primal"], p_star),
            "liblinear_reached": bool(found["primal"] <= target),
            "liblinear_passes_dense": cpu / t_dense, "liblinear_passes_csr": cpu / t_csr,
            "liblinear_tols_tried": found["tried"]}


def scaling(family, sizes, lam_ns, *, d=None, density=0.01, repeat=3, budget=10.0, log=print, liblinear_max_n=0):
    """Rows of :func:`passes_row` for the synthetic ``family`` ("dense" or "sparse") at each n, with
    liblinear's columns where n <= ``liblinear_max_n``."""
    rows = []
    for n in sizes:
        if family == "dense":
            X, y = gaussian_dense(int(n), d or 100)
        else:
            X, y = gaussian_sparse(int(n), d or 1000, density)
        prod = product_times(X)
        for lam_n in lam_ns:
            row = passes_row(X, y, lam_n, data=f"gaussian-{family}", repeat=repeat, budget=budget, products=prod,
                             liblinear=n <= liblinear_max_n)
            rows.append(row)
            log(row)
        del X
    return rows


def _slope(n, seconds):
    from svmcert.experiments.timing import loglog_slope

    return loglog_slope(n, seconds) if np.all(np.isfinite(seconds)) else float("nan")


def slopes(rows):
    """Fitted log-log slope of our CPU time against n, per (data, lam n): list of dicts."""
    from svmcert.experiments.timing import loglog_slope

    out = []
    keys = sorted({(r["data"], r["lam_n"]) for r in rows})
    for data, lam_n in keys:
        sel = sorted((r for r in rows if r["data"] == data and r["lam_n"] == lam_n), key=lambda r: r["n"])
        if len(sel) < 2:
            continue
        n = [r["n"] for r in sel]
        out.append({"data": data, "lam_n": lam_n, "n_min": min(n), "n_max": max(n), "sizes": len(n),
                    "slope_cpu": loglog_slope(n, [r["ours_cpu"] for r in sel]),
                    "slope_wall": loglog_slope(n, [r["ours_wall"] for r in sel]),
                    "slope_xv_dense": _slope(n, [r["xv_dense_cpu"] for r in sel]),
                    "slope_xv_csr": _slope(n, [r["xv_csr_cpu"] for r in sel]),
                    "max_passes_dense": max(r["passes_dense"] for r in sel),
                    "max_passes_csr": max(r["passes_csr"] for r in sel),
                    "all_converged": all(r["converged"] for r in sel)})
    return out

