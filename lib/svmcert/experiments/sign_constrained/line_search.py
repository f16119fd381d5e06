"""Chapter "Lemma 1 and the exact line search" (Tajima et al., Sec. 6.2, eqs. 15-23; Sec. 9.2).

Instance families, zeta(eta) = D(alpha + eta q) from the data, eqs. (18) and (21)-(23) as printed,
the checks (in units of a rounding bound m eps x sum of magnitudes; <= 1 passes), timings, errata.
"""

from __future__ import annotations



import numpy as np

from ... import signsvm
from ...reference import dual_gradient_reference
from ..families import LineInstance, crossing_template, two_point  # noqa: F401  (LineInstance re-exported)
from ..instances import instance_rng
from ..timing import best_time

__all__ = ["LineInstance", "FAMILIES", "make_instances", "frank_wolfe_instances", "omegas", "zeta_direct",
           "pieces_as_printed", "pieces_downdating", "eta_eq18", "check_instance", "time_constructions",
           "printed_errata", "rounding_units", "piece_active_sets"]

EPS = np.finfo(float).eps


def rounding_units(n: int, d: int) -> int:
    """m in the bound m eps scale on |piece - direct|: the pieces (products of length n, squared;
    sums of <= d terms; 5 flops) need about 2n + d + 12, the direct evaluation 2n + d + 10."""
    return 4 * n + 4 * d + 32


# ----------------------------------------------------------------------------- instance families

def _gauss(rng, n_max=60, d_max=60, scales=(-3, -1, 0, 1, 3), lam_range=(-4, 2)):
    n, d = int(rng.integers(1, n_max + 1)), int(rng.integers(1, d_max + 1))
    X = float(10.0 ** rng.choice(scales)) * rng.standard_normal((n, d))
    return X, rng.choice([-1.0, 1.0], size=n), float(10.0 ** rng.uniform(*lam_range))


def _alpha_u(rng, X, y, lam, sign):
    """alpha interior, a vertex or sparse; u from eq. (14) or a random vertex; u != alpha."""
    n, kind = X.shape[0], rng.integers(0, 3)
    alpha = (rng.uniform(0, 1, n) if kind == 0 else rng.integers(0, 2, n).astype(float) if kind == 1
             else rng.uniform(0, 1, n) * (rng.random(n) < 0.3))
    u = signsvm.lp_step(alpha, X, y, lam, sign) if rng.random() < 0.5 else rng.integers(0, 2, n).astype(float)
    return alpha, (1.0 - np.round(alpha) if np.array_equal(u, alpha) else u)


def _generic(name, signs, **gauss):
    def make(rng):
        X, y, lam = _gauss(rng, **gauss)
        sign = rng.choice(signs, size=X.shape[1])
        return LineInstance(name, X, y, lam, sign, *_alpha_u(rng, X, y, lam, sign))
    return make


def _partly_zero_q(rng):
    """u_i = alpha_i on a random part (at least one i when n > 1), and one i surely moves."""
    inst = _generic("q partly zero", [-1.0, 0.0, 1.0])(rng)
    i, j = rng.permutation(inst.n)[:2] if inst.n > 1 else (None, 0)
    keep = (rng.random(inst.n) < 0.5) | (np.arange(inst.n) == i)
    inst.u = np.where(keep, inst.alpha, inst.u)
    inst.u[j] = 1.0 - np.round(inst.alpha[j])
    return inst


def _repeated(rng):
    """Columns c, 2c, c/2 and -c (with the opposite constraint) cross at bit-identical eta; 3c and
    c/10 within an ulp or two (this exercises the merging of near-equal breakpoints)."""
    X, y, lam = _gauss(rng, d_max=6)
    base, f = rng.choice([-1.0, 1.0], size=X.shape[1]), [1.0, 2.0, 0.5, -1.0, 3.0, 0.1]
    X, sign = np.hstack([v * X for v in f]), np.concatenate([np.sign(v) * base for v in f])
    return LineInstance("repeated breakpoints", X, y, lam, sign, *_alpha_u(rng, X, y, lam, sign))


def _optimum_at_zero(rng):
    X, y, lam = _gauss(rng)
    sign, alpha = rng.choice([-1.0, 0.0, 1.0], size=X.shape[1]), rng.uniform(0, 1, X.shape[0])
    u = (dual_gradient_reference(alpha, X, y, lam, sign) < 0).astype(float)   # zeta'(0) <= 0
    return LineInstance("optimum at 0", X, y, lam, sign, alpha, u)


def _optimum_at_one(rng):
    while True:
        X, y, lam = _gauss(rng)
        sign, u = rng.choice([-1.0, 0.0, 1.0], size=X.shape[1]), rng.integers(0, 2, X.shape[0]).astype(float)
        g, step = dual_gradient_reference(u, X, y, lam, sign), rng.uniform(0.05, 1.0, X.shape[0])
        q = np.where((u == 1) & (g > 0), step, np.where((u == 0) & (g < 0), -step, 0.0))  # zeta'(1) >= 0
        if np.any(q != 0):
            return LineInstance("optimum at 1", X, y, lam, sign, u - q, u)


def _zero_variance(rng):
    inst = _generic("zero-variance features", [-1.0, 1.0])(rng)
    cols = (rng.random(inst.d) < 0.4) | (np.arange(inst.d) == rng.integers(0, inst.d))
    inst.X[:, cols] = np.where(rng.random(inst.d) < 0.5, 0.0, rng.standard_normal(inst.d))[cols]
    return inst


def _exact_endpoints(rng):
    """Small integers, lam n = 1, alpha in {0, 1/2, 1}^n, u a vertex: omega_0 and omega_q are exact,
    so crossings land exactly on 0 (omega_0h = 0) and on 1 (omega_0h = -omega_qh), often repeatedly."""
    n, d = int(2 ** rng.integers(0, 4)), int(rng.integers(1, 9))
    alpha, u = rng.integers(0, 3, n) / 2.0, rng.integers(0, 2, n).astype(float)
    u = 1.0 - np.round(alpha) if np.array_equal(u, alpha) else u
    return LineInstance("exact crossings at 0 and 1", rng.integers(-2, 3, size=(n, d)).astype(float),
                        rng.choice([-1.0, 1.0], size=n), 1.0 / n, rng.choice([-1.0, 1.0, 1.0, 0.0], size=d), alpha, u)


def _flat_piece(rng):
    """Coordinates that leave before 0.45, others that enter after 0.55, free ones with omega_q = 0,
    and <1, q> = 0: zeta is exactly flat in between (a_k = b_k = 0: the fourth case of eq. 18)."""
    k = rng.integers(1, 4, size=3)
    s_o, s_i = rng.choice([-1.0, 1.0], size=k[0]), rng.choice([-1.0, 1.0], size=k[1])
    t_o, t_i = rng.uniform(0.05, 0.45, k[0]), rng.uniform(0.55, 0.95, k[1])
    m_o, m_i = rng.uniform(0.5, 2, k[0]), rng.uniform(0.5, 2, k[1])
    return two_point("flat piece", np.concatenate([s_o * m_o, -s_i * m_i, rng.standard_normal(k[2])]),
                      np.concatenate([-s_o * m_o / t_o, s_i * m_i / t_i, np.zeros(k[2])]),
                      np.concatenate([s_o, s_i, np.zeros(k[2])]))


def _wide_scales(rng):
    """Feature scales spread over 10^-6 .. 10^6 and a small lambda, so that the quadratic terms of
    a few features dwarf the others: one that leaves must not wash out those that stay."""
    X, y, lam = _gauss(rng, n_max=40, d_max=20, scales=(0,), lam_range=(-4, -1))
    X *= 10.0 ** rng.uniform(-6, 6, size=X.shape[1])
    sign = rng.choice([-1.0, 1.0], size=X.shape[1])
    return LineInstance("wide feature scales", X, y, lam, sign, *_alpha_u(rng, X, y, lam, sign))


FAMILIES = {
    "random (mixed signs)": _generic("random (mixed signs)", [-1.0, 0.0, 1.0]),
    "every feature constrained": _generic("every feature constrained", [-1.0, 1.0]),
    "no feature constrained": _generic("no feature constrained", [0.0]),
    "q partly zero": _partly_zero_q,
    "repeated breakpoints": _repeated,
    "optimum at 0": _optimum_at_zero,
    "optimum at 1": _optimum_at_one,
    "zero-variance features": _zero_variance,
    "exact crossings at 0 and 1": _exact_endpoints,
    "flat piece": _flat_piece,
    "all crossings inside (d_t = d + 1)": lambda rng: crossing_template(rng, int(rng.integers(1, 41))),
    "wide feature scales": _wide_scales,
}


def make_instances(seed: int, counts: dict) -> list[LineInstance]:
    """``counts[family]`` instances of each family named in :data:`FAMILIES`; instance k of a
    family from the stream keyed ``("line-search", family, k)``."""
    return [FAMILIES[name](instance_rng(seed, "line-search", name, k)) for name, count in counts.items()
            for k in range(int(count))]


def frank_wolfe_instances(X, y, lam, sign, iterations: int, family: str) -> list[LineInstance]:
    """The line searches met by an actual Frank-Wolfe run from alpha = 0 (eq. 14, then Lemma 1)."""
    X, y, sign = np.asarray(X, float), np.asarray(y, float), np.asarray(sign, float)
    alpha, out = np.zeros(X.shape[0]), []
    for _ in range(iterations):
        u = signsvm.lp_step(alpha, X, y, lam, sign)
        if np.array_equal(u, alpha):
            break
        out.append(LineInstance(family, X, y, lam, sign, alpha.copy(), u))
        alpha = np.clip(alpha + signsvm.line_search(alpha, u, X, y, lam, sign).eta * (u - alpha), 0, 1)
    return out


# ----------------------------------------------------------------------------- evaluations

def omegas(inst: LineInstance):
    """omega_0, omega_q of eq. (20) (X with samples as rows), <1, q>/n and <1, alpha>/n."""
    s = inst.lam * inst.n
    return (inst.X.T @ (inst.y * inst.alpha) / s, inst.X.T @ (inst.y * inst.q) / s,
            float(inst.q.sum()) / inst.n, float(inst.alpha.sum()) / inst.n)


def zeta_direct(inst: LineInstance, etas):
    """zeta(eta) from the data (no pieces, no omega_0 + eta omega_q), and its rounding scale sigma =
    lam/2 sum_{h maybe active} bar-omega_h^2 + (<1,alpha> + eta|q|_1)/n, bar-omega = |X|^T(alpha + eta|q|)/(lam n)."""
    etas = np.atleast_1d(np.asarray(etas, float))
    V, s = inst.alpha[None, :] + etas[:, None] * inst.q[None, :], inst.lam * inst.n
    om = (V * inst.y) @ inst.X / s
    w = np.where(inst.sign * om < 0, 0.0, om)
    vals = -0.5 * inst.lam * np.sum(w * w, axis=1) + V.sum(axis=1) / inst.n
    bar = (inst.alpha[None, :] + etas[:, None] * np.abs(inst.q)[None, :]) @ np.abs(inst.X) / s
    maybe = (inst.sign == 0) | (inst.sign * om + 2 * (inst.n + 4) * EPS * bar > 0)
    scale = 0.5 * inst.lam * np.sum(np.where(maybe, bar * bar, 0.0), axis=1) \
        + (inst.alpha.sum() + etas * np.abs(inst.q).sum()) / inst.n
    return vals, scale


def piece_active_sets(w0, wq, sign, theta):
    """H_k of eq. (23) for every piece (rows): free, or positive in its sign at the midpoint."""
    mids = 0.5 * (theta[:-1] + theta[1:])
    return (sign == 0)[None, :] | (sign * (w0[None, :] + mids[:, None] * wq[None, :]) > 0)


def pieces_as_printed(w0, wq, sign, lam, sum_q, sum_a):
    """Eqs. (21)-(23) literally: Theta = the *set* of crossings -omega_0h/omega_qh in [0, 1] of the
    constrained h with omega_qh != 0, joined with {0, 1}; H_k by the midpoint rule; (22)."""
    cons = (sign != 0) & (wq != 0)
    theta = np.array(sorted({float(t) for t in -w0[cons] / wq[cons] if 0.0 <= t <= 1.0} | {0.0, 1.0}))
    H = piece_active_sets(w0, wq, sign, theta)
    return (theta, -0.5 * lam * np.array([np.sum(wq[h] ** 2) for h in H]),
            sum_q - lam * np.array([np.sum(w0[h] * wq[h]) for h in H]),
            sum_a - 0.5 * lam * np.array([np.sum(w0[h] ** 2) for h in H]))


def pieces_downdating(w0, wq, sign, lam, sum_q, sum_a, theta):
    """A foil: the sums of (22) carried from piece to piece by adding entering and *subtracting*
    leaving terms (the library's first version); a large term that leaves erases small ones."""
    H = piece_active_sets(w0, wq, sign, theta)
    sa, sb, sc = np.sum(wq[H[0]] ** 2), np.sum(w0[H[0]] * wq[H[0]]), np.sum(w0[H[0]] ** 2)
    a, b, c = [], [], []
    for k in range(H.shape[0]):
        for h in (np.flatnonzero(H[k] != H[k - 1]) if k else ()):
            s = 1.0 if H[k, h] else -1.0
            sa, sb, sc = sa + s * wq[h] ** 2, sb + s * w0[h] * wq[h], sc + s * w0[h] ** 2
        a, b, c = a + [-0.5 * lam * sa], b + [sum_q - lam * sb], c + [sum_a - 0.5 * lam * sc]
    return theta, np.array(a), np.array(b), np.array(c)


def eta_eq18(theta, a, b):
    """Every answer of eq. (18) as printed, except that the last piece is d_t (not d_t + 1):
    a list of (case, eta), one per admissible k_* of eq. (19) in cases 3-4; [] if none exists."""
    out = ([(1, 0.0)] if b[0] <= 0 else []) + ([(2, 1.0)] if 2 * a[-1] + b[-1] >= 0 else [])
    for k in range(len(a)) if not out else ():
        if 2 * a[k] * theta[k] + b[k] >= 0 and 2 * a[k] * theta[k + 1] + b[k] <= 0:
            out.append((3, float(-b[k] / (2 * a[k]))) if a[k] < 0 else (4, float(theta[k])))
    return out


def _ratio(num, den):  # num / den, 0 where num = 0, huge where only den = 0
    return np.where(num > 0, num / np.where(den > 0, den, np.finfo(float).tiny), 0.0)


def _repro(inst, pieces, grid, per_piece):
    """Worst |piece - direct| / sigma on a grid and on every closed piece: (in rounding units, plain)."""
    theta, a, b, c = pieces
    uni = np.linspace(0, 1, grid)
    pts = np.concatenate([uni] + [np.linspace(theta[k], theta[k + 1], per_piece) for k in range(len(a))])
    ks = np.concatenate([np.clip(np.searchsorted(theta, uni, side="right") - 1, 0, len(a) - 1),
                         np.repeat(np.arange(len(a)), per_piece)])
    vals, scale = zeta_direct(inst, pts)
    rel = float(np.max(_ratio(np.abs(a[ks] * pts ** 2 + b[ks] * pts + c[ks] - vals), scale)))
    return rel / (rounding_units(inst.n, inst.d) * EPS), rel


def _jumps(inst, ls, H, w0, wq, sum_q):
    """Largest derivative jump / (lam sum_{H_k u H_k+1}(wq^2 + |w0 wq|) + |<1,q>|/n): (in (2d+20) eps, plain)."""
    t = ls.theta[1:-1]
    J = np.abs((2 * ls.a[:-1] * t + ls.b[:-1]) - (2 * ls.a[1:] * t + ls.b[1:]))
    worst = float(np.max(_ratio(J, inst.lam * ((H[:-1] | H[1:]) @ (wq ** 2 + np.abs(w0 * wq))) + abs(sum_q)),
                         initial=0.0))
    return worst / ((2 * inst.d + 20) * EPS), worst


def _agreement(inst, ls, lq, H, w0, wq, sum_q, sum_a):
    """Sweep vs O(d^2): worst value/slope gap at the ends and middle of every piece (in m eps sigma
    and (2d+20) eps x slope scale); pieces whose coefficients differ by > (2d+8) eps, widest one."""
    if not np.array_equal(ls.theta, lq.theta):
        return np.inf, -1, np.inf
    th, lam, d = ls.theta, inst.lam, inst.d
    da, db, dc = (x - z for x, z in zip(ls[2:], lq[2:]))
    pts = np.stack([th[:-1], 0.5 * (th[:-1] + th[1:]), th[1:]])
    near = H.copy()
    near[1:] |= H[:-1]
    near[:-1] |= H[1:]
    sig = lam * (near @ (wq ** 2 + np.abs(w0 * wq))) + abs(sum_q)
    scale = zeta_direct(inst, pts.ravel())[1].reshape(pts.shape)
    worst = max(float(np.max(_ratio(np.abs(da * pts ** 2 + db * pts + dc), rounding_units(inst.n, d) * EPS * scale))),
                float(np.max(_ratio(np.abs(2 * da * pts + db), (2 * d + 20) * EPS * sig))))
    mags = (0.5 * lam * (H @ wq ** 2), lam * (H @ np.abs(w0 * wq)) + abs(sum_q), 0.5 * lam * (H @ w0 ** 2) + abs(sum_a))
    bad = np.any([_ratio(np.abs(x - z), (2 * d + 8) * EPS * mg) > 1 for x, z, mg in zip(ls[2:], lq[2:], mags)], axis=0)
    return worst, int(bad.sum()), float(np.max(np.diff(th)[bad], initial=0.0))


def check_instance(inst: LineInstance, grid: int = 513, per_piece: int = 9, xatol: float = 1e-12) -> dict:
    """Every check of the chapter on one instance (ratios in units of their rounding bounds)."""
    from scipy.optimize import minimize_scalar

    args = (inst.alpha, inst.u, inst.X, inst.y, inst.lam, inst.sign)
    ls, lq = signsvm.line_search(*args), signsvm.line_search_pieces_quadratic(*args)
    w0, wq, sum_q, sum_a = omegas(inst)
    printed = pieces_as_printed(w0, wq, inst.sign, inst.lam, sum_q, sum_a)
    H, m = piece_active_sets(w0, wq, inst.sign, ls.theta), rounding_units(inst.n, inst.d) * EPS
    row = {"family": inst.family, "n": inst.n, "d": inst.d, "constrained": int(np.sum(inst.sign != 0)),
           "d_t": len(ls.a), "q_zeros": int(np.sum(inst.q == 0))}
    row["repro_sweep"], row["rel_err_sweep"] = _repro(inst, ls[1:], grid, per_piece)
    row["repro_printed"], row["rel_err_printed"] = _repro(inst, printed, grid, per_piece)
    foil = pieces_downdating(w0, wq, inst.sign, inst.lam, sum_q, sum_a, ls.theta)
    row["repro_downdating"] = _repro(inst, foil, grid, per_piece)[0]
    uni = np.linspace(0, 1, grid)
    vals, scale = zeta_direct(inst, uni)
    second = vals[:-2] - 2 * vals[1:-1] + vals[2:]                 # <= 0 for a concave function
    row["concavity"] = float(np.max(second / (4 * m * np.maximum.reduce([scale[:-2], scale[1:-1], scale[2:]]))))
    row["a_max"] = float(max(ls.a.max(), lq.a.max(), printed[1].max()))
    row["jump"], row["jump_rel"] = _jumps(inst, ls, H, w0, wq, sum_q)
    row["same_theta"] = bool(np.array_equal(ls.theta, lq.theta))
    row["agree"], row["coef_mismatch"], row["mismatch_width"] = _agreement(inst, ls, lq, H, w0, wq, sum_q, sum_a)
    res = minimize_scalar(lambda e: -zeta_direct(inst, e)[0][0], bounds=(0.0, 1.0), method="bounded",
                          options={"xatol": xatol})                # independent: bounded Brent + the grid
    cand = np.concatenate([[res.x], uni])
    cv, cs = zeta_direct(inst, cand)
    j = int(np.argmax(cv))

    def deficit(eta):  # (zeta_ref - zeta(eta)) in units of the rounding of both evaluations
        z, s = zeta_direct(inst, [eta])
        return float((cv[j] - z[0]) / (2 * m * max(cs[j], s[0])))

    answers = eta_eq18(ls.theta, ls.a, ls.b)
    row.update(eta=ls.eta, eta_ref=float(cand[j]), eta_deficit=deficit(ls.eta),
               eq18_cases="".join(str(c) for c, _ in answers) or "none",
               eq18_deficit=max((deficit(e) for _, e in answers), default=np.nan))
    row["eta_at"] = ("0" if ls.eta == 0 else "1" if ls.eta == 1 else
                     "breakpoint" if np.any(ls.theta[1:-1] == ls.eta) else "inside a piece")
    cross = -w0[(inst.sign != 0) & (wq != 0)] / wq[(inst.sign != 0) & (wq != 0)]
    inside = cross[(cross > 0) & (cross < 1)]
    row.update(cross_at_0=int(np.sum(cross == 0)), cross_at_1=int(np.sum(cross == 1)),
               repeated=int(inside.size - np.unique(inside).size), printed_strict=bool(np.all(np.diff(printed[0]) > 0)))
    return row


# ----------------------------------------------------------------------------- timing, errata, figure

def time_constructions(seed: int, sizes, repeat: int = 3, min_seconds: float = 0.3):
    """CPU seconds of :func:`line_search` and :func:`line_search_pieces_quadratic` on the worst case
    d_t = d + 1, with n = 2 so the O(nd) products cost O(d) and building the pieces dominates; each
    is the best of >= ``repeat`` calls, repeated until ``min_seconds`` were spent (load noise). CPU
    time (``time.process_time``) is what other jobs on the machine inflate least."""
    import pandas as pd
    rows = []
    for d in sizes:
        inst = crossing_template(instance_rng(seed, "line-search", "timing", int(d)), int(d))
        args = (inst.alpha, inst.u, inst.X, inst.y, inst.lam, inst.sign)
        rows.append({"d": int(d), "d_t": len(signsvm.line_search(*args).a),
                     "sweep_s": best_time(lambda: signsvm.line_search(*args), repeat=repeat, min_seconds=min_seconds),
                     "quadratic_s": best_time(lambda: signsvm.line_search_pieces_quadratic(*args),
                                              repeat=repeat, min_seconds=min_seconds)})
    df = pd.DataFrame(rows)
    df["ratio"] = df["quadratic_s"] / df["sweep_s"]
    return df


def _erratum(id, source, comparison, statement, observed, reference, reference_source, inst):
    ce = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(inst).items() if k != "family"}
    return dict(id=id, source=source, comparison=comparison, statement=statement, observed=observed,
                reference=reference, reference_source=reference_source, counterexample=ce)


def printed_errata() -> list[dict]:
    """Printed statements of Sec. 6.2 / 9.2 on their smallest instances (for claims, expect="fails")."""
    one = LineInstance("", np.ones((1, 1)), np.ones(1), 1.0, np.zeros(1), np.zeros(1), np.ones(1))
    d_t = len(signsvm.line_search(one.alpha, one.u, one.X, one.y, one.lam, one.sign).a)
    cr = two_point("", [1.0], [-2.0], [1.0])         # n = 2, d = 1: omega_0 = 1, omega_q = -2, crossing 1/2
    (w0, wq, _, _), t = omegas(cr), 0.5
    zero = LineInstance("", np.zeros((1, 1)), np.ones(1), 1.0, np.ones(1), np.zeros(1), np.ones(1))  # x = 0
    z0, zq, _, _ = omegas(zero)
    return [
        _erratum("signsvm.eq18.last_piece_index", "eq. (18)", "<=",
                 "Eq. (18) tests the last piece through a_{d_t+1}, b_{d_t+1}, coefficients that Lemma 1 and eq. (22) define.",
                 d_t + 1, d_t, "index used by (18) vs the largest index k in [d_t] of eq. (22)", one),
        _erratum("signsvm.lemma1.theta_count", "Lemma 1", "==",
                 "Lemma 1's list theta_0, ..., theta_{d_t+1} is the list of endpoints of the d_t pieces.",
                 d_t + 2, d_t + 1, "d_t + 1 endpoints theta_1 < ... < theta_{d_t+1} (eq. 16)", one),
        _erratum("signsvm.lemma3.linear_function", "Sec. 9.2, proof of Lemma 3", "abs",
                 "The linear function eta -> omega_{h,q} + eta omega_{h,q} of the proof vanishes where coordinate h changes sign.",
                 float(wq[0] + t * wq[0]), float(w0[0] + t * wq[0]),
                 "omega_{h,0} + theta omega_{h,q} at the crossing theta = 1/2", cr),
        _erratum("signsvm.eq33_34.strict_sign", "Sec. 9.2, eqs. (33)-(34)", "==",
                 "Inside a piece every constrained coordinate of omega(alpha + eta q) is nonzero, and negative when outside H_k.",
                 int(np.sum((zero.sign != 0) & (z0 + 0.5 * zq == 0))), 0,
                 "count of constrained h with omega_h = 0 at the midpoint of the only piece", zero),
    ]
