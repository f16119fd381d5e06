"""Chapter "Curvature of the dual and the Frank-Wolfe iteration bound" (Tajima et al., Sec. 6.3).

Lower estimates of the curvature constant C_F of F = -D on [0, 1]^n (eq. 25) from sampled and
adversarial triples (x, u, gamma), exact values for the unconstrained case by enumeration,
Frank-Wolfe runs measured against Theorem 6.1, and the printed Taylor step of eq. (47).
"""

from __future__ import annotations

import itertools

import numpy as np

from ...reference.signsvm import solve_primal_cvxpy
from ...signsvm import bounds
from ...signsvm.frank_wolfe import frank_wolfe
from ...signsvm.objectives import dual_gradient, dual_objective, primal_objective, weights_from_dual
from ..instances import instance_rng
from ..families import SVMInstance as Instance
from ..patterns import SIGN_PATTERNS, sign_vector

__all__ = [
    "small_instances",
    "curvature_estimates",
    "estimates_table",
    "first_hit",
    "frank_wolfe_runs",
    "bregman_identity_check",
    "fw_gap_identity",
    "taylor_step_gap",
    "taylor_counterexample",
]

GAMMAS = (1.0, 0.5, 0.1, 1e-3)


def small_instances(seed: int, count: int, max_n: int = 8, max_d: int = 4) -> list[Instance]:
    """Tiny problems (n <= max_n so every vertex pair can be enumerated), lambda = 1; instance k
    drawn from the stream keyed ``("curvature", "tiny", k)``.

    Families cycle through: Gaussian, non-negative features (like pixels), nearly duplicated
    samples (all y_i x_i close to one vector, where Lemma 2 is nearly tight), and exactly
    duplicated samples (where it is attained). C_F scales as 1/lambda, so lambda = 1 loses nothing.
    """
    out = []
    families = ("gaussian", "non-negative", "near-duplicate", "duplicate")
    for k in range(count):
        fam = families[k % len(families)]
        rng = instance_rng(seed, "curvature", "tiny", k)
        n, d = int(rng.integers(2, max_n + 1)), int(rng.integers(1, max_d + 1))
        y = rng.choice([-1.0, 1.0], size=n)
        if fam == "gaussian":
            X = rng.standard_normal((n, d))
        elif fam == "non-negative":
            X = rng.uniform(0, 1, size=(n, d))
        else:
            v = rng.standard_normal(d)
            noise = 0.05 * rng.standard_normal((n, d)) if fam == "near-duplicate" else 0.0
            X = y[:, None] * (v + noise)
        p = SIGN_PATTERNS[(k // len(families)) % len(SIGN_PATTERNS)]
        out.append(Instance(fam, X, y, 1.0, sign_vector(p, X, y, rng), p, 1.0 / bounds.max_row_norm(X) ** 2))
    return out


def _vertex_pairs(n: int):
    V = np.array(list(itertools.product([0.0, 1.0], repeat=n)))
    i, j = np.meshgrid(np.arange(len(V)), np.arange(len(V)), indexing="ij")
    keep = i.ravel() != j.ravel()
    return V[i.ravel()[keep]], V[j.ravel()[keep]]


def _best(X, y, lam, sign, x, u, gammas=GAMMAS, chunk: int = 4096) -> float:
    best = 0.0
    for s in range(0, len(x), chunk):
        r = bounds.curvature_ratios_gammas(X, y, lam, sign, x[s:s + chunk], u[s:s + chunk], gammas)
        best = max(best, float(r.max()))
    return best


def curvature_estimates(inst: Instance, rng: np.random.Generator, n_random: int = 200, enumerate_max_n: int = 8,
                        exact_max_n: int = 16, eig=None) -> dict:
    """Lower estimates of C_F for one instance, by strategy, with the upper bounds.

    Strategies (each maximised over gamma in GAMMAS): uniform random pairs in the cube; random
    vertex pairs; x = 0, u = 1 and x = 1, u = 0; the vertex pair whose difference is the sign
    vector of the top eigenvector of Z Z^T, and the one after single-flip ascent from it (in both
    directions); every vertex pair when n <= enumerate_max_n. Upper side: the exact unconstrained
    C_F when n <= exact_max_n, the spectral bound ||X||_2^2/(lam n), and Lemma 2's R^2/lam.
    ``eig`` may pass :func:`svmcert.signsvm.bounds.top_eigenpair` (X) when it is already known.
    """
    X, y, lam, sign, n = inst.X, inst.y, inst.lam, inst.sign, inst.n
    est = {}
    est["random interior"] = _best(X, y, lam, sign, rng.uniform(0, 1, (n_random, n)), rng.uniform(0, 1, (n_random, n)))
    xv = rng.integers(0, 2, (n_random, n)).astype(float)
    uv = rng.integers(0, 2, (n_random, n)).astype(float)
    est["random vertices"] = _best(X, y, lam, sign, xv, uv)
    zero, one = np.zeros((1, n)), np.ones((1, n))
    est["x=0, u=1 and reverse"] = max(_best(X, y, lam, sign, zero, one), _best(X, y, lam, sign, one, zero))
    Z = y[:, None] * X
    top_val, top_vec = bounds.top_eigenpair(X) if eig is None else eig
    beta_eig = np.where(Z @ top_vec >= 0, 1.0, -1.0)
    _, beta_ls = bounds.unconstrained_curvature_local_search(Z, lam, beta_eig)
    for name, beta in (("top eigenvector", beta_eig), ("local search", beta_ls)):
        x = np.vstack([(1 - beta) / 2, (1 + beta) / 2])    # u - x = beta, and the reversed pair
        u = np.vstack([(1 + beta) / 2, (1 - beta) / 2])
        est[name] = _best(X, y, lam, sign, x, u)
    if n <= enumerate_max_n:
        xa, ua = _vertex_pairs(n)
        est["all vertex pairs"] = _best(X, y, lam, sign, xa, ua)
    out = {"estimates": est, "best_lower": max(est.values()),
           "spectral_bound": top_val / (lam * n), "lemma2_bound": bounds.curvature_bound(X, lam),
           "free_exact": np.nan}
    if n <= exact_max_n:
        out["free_exact"] = bounds.unconstrained_curvature_exact(X, lam, max_n=exact_max_n)[0]
    return out


def estimates_table(instances, seed: int, purpose: str = "estimates", progress: bool = False, **kw):
    """One row per instance: every strategy's estimate, the best, and the upper bounds (all times lam/R^2
    in the ``*_over_bound`` columns, so 1 means Lemma 2 is attained). The random pairs of instance
    k come from the stream keyed ``("curvature", purpose, k, label)``."""
    import pandas as pd

    rows, eigs = [], {}
    it = instances
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(instances, desc="curvature estimates", leave=False)
    for k, inst in enumerate(it):
        if id(inst.X) not in eigs:                 # one eigen-decomposition per data matrix
            eigs[id(inst.X)] = bounds.top_eigenpair(inst.X)
        rng = instance_rng(seed, "curvature", purpose, k, inst.data, inst.pattern, inst.lam)
        e = curvature_estimates(inst, rng, eig=eigs[id(inst.X)], **kw)
        b = e["lemma2_bound"]
        row = {**inst.label(), "lemma2_bound": b, "best_lower": e["best_lower"], "free_exact": e["free_exact"],
               "spectral_bound": e["spectral_bound"], "best_lower_over_bound": e["best_lower"] / b,
               "free_exact_over_bound": e["free_exact"] / b, "spectral_over_bound": e["spectral_bound"] / b}
        row.update({f"est: {k}": v for k, v in e["estimates"].items()})
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Frank-Wolfe vs Theorem 6.1


def first_hit(values, eps) -> int:
    """Smallest T >= 1 with values[T] <= eps (values[0] belongs to alpha^(0)); -1 if never."""
    v = np.asarray(values)[1:]
    idx = np.flatnonzero(v <= eps)
    return int(idx[0]) + 1 if idx.size else -1


def frank_wolfe_runs(instances, eps_grid, max_iter: int, progress: bool = False):
    """Frank-Wolfe (Algorithm 1) from alpha^(0) = 0 on each instance; D* = P* from cvxpy (strong duality).

    Each run stops when the relative gap is <= min(eps_grid)/10 (``frank_wolfe``'s rule); near the
    optimum P(w) is close to P* <= P(0) = 1, so the absolute gap is then below min(eps_grid) too.

    Returns
    -------
    per_eps : DataFrame, one row per (instance, eps): iterations until D* - D(alpha^(T)) <= eps
        and until the duality gap <= eps (-1: not within max_iter), Theorem 6.1's T, and
        ``T_spectral``, the T that eq. (24) gives when C_F is bounded by the spectral bound
        ||X||_2^2 / (lam n) instead of R^2 / lam.
    per_run : DataFrame, one row per instance: the worst ratio over T >= 1 of the dual error to
        2 R^2 / (lam (T + 2)) (eq. 24 with Lemma 2), the worst ratio of min_{k <= T} gap_k to
        Jaggi's 2 (27/8) C / (T + 2) (T >= 2; Jaggi 2013, Theorem 2, with C = R^2/lam), the
        smallest bound value compared, and the largest decrease of D between iterations (0 for
        an exact line search).
    curves : list of dicts (one per instance, same order) with arrays ``T``, ``dual_error`` and
        ``gap`` for T >= 1, for plotting.
    """
    import pandas as pd

    rows, runs, curves = [], [], []
    it = instances
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(instances, desc="Frank-Wolfe", leave=False)
    for inst in it:
        if inst.ref is None:
            inst.ref = solve_primal_cvxpy(inst.X, inst.y, inst.lam, inst.sign)
        res = frank_wolfe(inst.X, inst.y, inst.lam, inst.sign, tol=min(eps_grid) / 10, max_iter=max_iter)
        D = np.asarray(res.history["dual"])
        gap = np.asarray(res.history["gap"])
        err = inst.ref.value - D
        T = np.arange(1, len(D))
        C = bounds.curvature_bound(inst.X, inst.lam)
        Cs = bounds.curvature_spectral_bound(inst.X, inst.lam)
        b24 = 2 * C / (T + 2)
        min_gap = np.minimum.accumulate(gap[1:])              # iterates 1..T (Jaggi's k-hat >= 1)
        jaggi = 2 * 27 / 8 * C / (T + 2)
        k2 = T >= 2
        curves.append({"T": T, "dual_error": err[1:], "gap": gap[1:]})
        runs.append({**inst.label(), "iterations": res.n_iter, "final_gap": res.gap,
                     "worst_error_over_eq24": float(np.max(err[1:] / b24)) if T.size else 0.0,
                     "worst_min_gap_over_jaggi": float(np.max(min_gap[k2] / jaggi[k2])) if k2.any() else 0.0,
                     "smallest_bound": float(b24.min()) if T.size else float(2 * C / 3),
                     "converged_before_T1": bool(T.size == 0),
                     "max_dual_decrease": float(np.max(D[:-1] - D[1:], initial=0.0)),
                     "seconds": float(res.history["seconds"][-1])})
        for eps in eps_grid:
            t_bound = bounds.frank_wolfe_iteration_bound(inst.X, inst.lam, eps)
            rows.append({**inst.label(), "eps": eps,
                         "T_dual_error": first_hit(err, eps) if T.size else 1,
                         "T_gap": first_hit(gap, eps) if T.size else 1,
                         "T_theorem61": t_bound,
                         "T_spectral": max(1, int(np.ceil(2 * Cs / eps - 2)))})
    return pd.DataFrame(rows), pd.DataFrame(runs), curves


def bregman_identity_check(instances, seed: int, per_instance: int = 5) -> float:
    """Largest |stable - definition| of D_F(b; a) over random pairs of cube points, relative to
    1 + |F(a)| + |F(b)| + |<grad F(a), b - a>| (the size of the terms the definition subtracts)."""
    worst = 0.0
    for i, inst in enumerate(instances):
        rng = instance_rng(seed, "curvature", "bregman", i)
        for k in range(per_instance):
            a = rng.uniform(0, 1, inst.n) if k % 2 == 0 else rng.integers(0, 2, inst.n).astype(float)
            b = rng.uniform(0, 1, inst.n)
            fa = -dual_objective(a, inst.X, inst.y, inst.lam, inst.sign)
            fb = -dual_objective(b, inst.X, inst.y, inst.lam, inst.sign)
            lin = float(-dual_gradient(a, inst.X, inst.y, inst.lam, inst.sign) @ (b - a))
            st = bounds.dual_bregman(a, b, inst.X, inst.y, inst.lam, inst.sign, method="stable")
            de = bounds.dual_bregman(a, b, inst.X, inst.y, inst.lam, inst.sign, method="definition")
            worst = max(worst, abs(st - de) / (1 + abs(fa) + abs(fb) + abs(lin)))
    return worst


def fw_gap_identity(instances, seed: int, per_instance: int = 5) -> float:
    """Largest |(P(w(alpha)) - D(alpha)) - max_u <grad D(alpha), u - alpha>| over random alpha, relative
    to 1 + |P| + |D|: the Frank-Wolfe gap (the LP value over the cube) equals the duality gap."""
    worst = 0.0
    for i, inst in enumerate(instances):
        rng = instance_rng(seed, "curvature", "fw-gap", i)
        for k in range(per_instance):
            # interior points and cube vertices alternately
            a = rng.uniform(0, 1, inst.n) if k % 2 == 0 else rng.integers(0, 2, inst.n).astype(float)
            w = weights_from_dual(a, inst.X, inst.y, inst.lam, inst.sign)
            P = primal_objective(w, inst.X, inst.y, inst.lam)
            Dv = dual_objective(a, inst.X, inst.y, inst.lam, inst.sign)
            g = dual_gradient(a, inst.X, inst.y, inst.lam, inst.sign)
            fw = float(np.maximum(g, 0).sum() - g @ a)
            worst = max(worst, abs((P - Dv) - fw) / (1 + abs(P) + abs(Dv)))
    return worst


# ----------------------------------------------------------------------------- eq. (47), as printed


def taylor_step_gap(X, y, lam, sign, a, u, gamma: float = 1.0) -> dict:
    """Eq. (47), second line: D_F(y_gamma; a) = (1/2) <y_gamma - a, -grad^2 D(y_eta) (y_gamma - a)> for some eta in [0, gamma].

    The 'Hessian' is eq. (46), K_alpha / (lam n^2) with K_alpha built from the features h that are
    free or have omega_h(alpha) > 0. Along the segment it is piecewise constant, changing only
    where some omega_h crosses 0, so evaluating at every crossing, at every midpoint between
    crossings and at both ends covers every value it takes. Returns the Bregman divergence,
    those values, and the smallest distance between them (0 if the printed step holds).
    """
    X, y, a, u = (np.asarray(v, float) for v in (X, y, a, u))
    sign = np.asarray(sign, float)
    n = X.shape[0]
    Z = y[:, None] * X
    q = gamma * (u - a)
    yg = a + q
    breg = bounds.dual_bregman(a, yg, X, y, lam, sign)
    om_a, om_q = Z.T @ a / (lam * n), Z.T @ q / (lam * n)     # omega(a + s q) = om_a + s om_q, s in [0, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = -om_a / om_q
    pts = np.unique(np.concatenate([[0.0, 1.0], cross[np.isfinite(cross) & (cross > 0) & (cross < 1)]]))
    s_all = np.unique(np.concatenate([pts, (pts[:-1] + pts[1:]) / 2]))
    fq = Z.T @ q                                              # <f_h, q> for every feature h
    values = []
    for s in s_all:
        om = om_a + s * om_q
        H = (sign == 0) | (sign * om > 0)                     # eq. (44) with either sign convention
        values.append(0.5 * float(np.sum(fq[H] ** 2)) / (lam * n * n))
    values = np.array(values)
    return {"bregman": breg, "taylor_values": values, "eta": s_all * gamma,
            "mismatch": float(np.min(np.abs(values - breg)))}


def taylor_counterexample() -> dict:
    """Smallest instance where the printed equality of eq. (47) fails: n = 2, d = 1, a cube diagonal
    along which omega crosses 0 (so the Hessian of eq. 46 jumps from 0 to its full value)."""
    X, y, lam, sign = np.array([[1.0], [1.0]]), np.array([1.0, -1.0]), 1.0, np.array([1.0])
    a, u = np.array([0.0, 1.0]), np.array([1.0, 0.0])
    res = taylor_step_gap(X, y, lam, sign, a, u, 1.0)
    res["instance"] = {"X": [[1.0], [1.0]], "y": [1.0, -1.0], "lam": 1.0, "sign": [1.0], "alpha": [0.0, 1.0],
                       "u": [1.0, 0.0], "gamma": 1.0}
    return res
