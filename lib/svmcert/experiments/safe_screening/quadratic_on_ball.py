"""Chapter "Maximising a convex quadratic over a ball" (Hanada et al., Theorem 4.1, Appendix D.2).

Instance families (random, repeated eigenvalues, hard case, degenerate, indefinite), the
comparison of :func:`svmcert.screening.quadratic_ball.maximize_quadratic_on_ball` with the three
references of :mod:`svmcert.reference.ball`, the checks of the stationary points (Lemma D.3,
Theorem D.2), of the root counts (Lemma D.4) against polynomial roots, the Figure 4 example,
the printed errata and the timing sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...reference.ball import (ball_max_sampled, ball_max_sdp, ball_max_trust_region, quadratic_value,
                              secular_roots_polynomial)
from ...screening.quadratic_ball import (maximize_quadratic_on_ball, secular_data, secular_function,
                                        secular_roots, stationary_points)
from ..families import from_spectrum, hard_ball_case
from ..instances import instance_rng
from ..timing import best_time

__all__ = [
    "BallInstance", "problem_scale", "make_instances", "compare_with_references", "stationary_checks",
    "root_count_checks", "figure4_instance", "printed_errata", "time_solvers", "summarise_comparison", "plot_figure4",
]


@dataclass
class BallInstance:
    """max w'Aw + 2b'w over ||w - center|| <= radius, with the family it comes from."""

    family: str
    A: np.ndarray
    b: np.ndarray
    center: np.ndarray
    radius: float
    note: str = ""
    psd: bool = True

    @property
    def n(self) -> int:
        return self.A.shape[0]


def problem_scale(A, b, center, radius) -> float:
    """sigma = ||A|| (||c|| + S)^2 + 2 ||b|| (||c|| + S): a bound on |f| over the ball, the unit in
    which value differences are reported (rounding in evaluating f is a few eps * sigma)."""
    r = np.linalg.norm(center) + radius
    return float(np.linalg.norm(A, 2) * r * r + 2 * np.linalg.norm(b) * r) or 1.0


def make_instances(seed: int, count: int, n_max: int, n_max_small: int = 8) -> list[BallInstance]:
    """``count`` instances of each family, sizes n <= n_max (exact diagonal hard cases n <=
    n_max_small), a third as many indefinite ones, and a fixed list of degenerate problems: A = 0,
    b = 0, A c + b = 0 (xi = 0), rank one, radii 1e-6 and 1e6, n = 1. Instance k of a family comes
    from the stream keyed ``("quadratic-on-ball", family, k)``."""
    out = []
    for k in range(count):                                      # random PSD, often rank-deficient
        rng = instance_rng(seed, "quadratic-on-ball", "random PSD", k)
        n = int(rng.integers(1, n_max + 1))
        G = rng.standard_normal((n, int(rng.integers(1, n + 1))))
        A = (10.0 ** rng.uniform(-2, 2)) * (G @ G.T)
        out.append(BallInstance("random PSD", A, rng.standard_normal(n), rng.standard_normal(n),
                                float(10.0 ** rng.uniform(-2, 2)), f"rank {G.shape[1]}"))
    for k in range(count):                                      # eigenvalues from {0, 1, 3}
        rng = instance_rng(seed, "quadratic-on-ball", "repeated eigenvalues", k)
        n = int(rng.integers(2, n_max + 1))
        phi = np.sort(rng.choice([0.0, 1.0, 3.0], size=n))
        c = rng.standard_normal(n)
        A, b = from_spectrum(rng, phi, rng.standard_normal(n), c)
        out.append(BallInstance("repeated eigenvalues", A, b, c, float(10.0 ** rng.uniform(-1, 1)),
                                f"multiplicities {[int(np.sum(phi == v)) for v in (0.0, 1.0, 3.0)]}"))
    for k in range(count):                                      # hard case, rotated and exact
        rng = instance_rng(seed, "quadratic-on-ball", "hard case", k)
        diagonal = k % 2 == 1
        n = int(rng.integers(2, (n_max_small if diagonal else n_max) + 1))
        mult = int(rng.integers(1, min(3, n - 1) + 1))
        genuine = k % 4 < 2
        factor = float(rng.uniform(1.1, 3.0) if genuine else rng.uniform(0.3, 0.9))
        A, b, c, S = hard_ball_case(rng, n, mult, factor, diagonal)
        fam = "hard case" if genuine else "hard-case structure, root right of phi_max"
        out.append(BallInstance(fam, A, b, c, S, ("diagonal" if diagonal else "rotated") + f", top multiplicity {mult}"))
    for k in range(count):                                      # the circle: sampled densely in the chapter
        rng = instance_rng(seed, "quadratic-on-ball", "circle", k)
        G = rng.standard_normal((2, 2))
        out.append(BallInstance("circle (n = 2)", G @ G.T, rng.standard_normal(2), rng.standard_normal(2),
                                float(10.0 ** rng.uniform(-1, 1))))
    for k in range(count):                                      # shaped like the duality gap (11) in w
        rng = instance_rng(seed, "quadratic-on-ball", "duality-gap shaped", k)
        n = int(rng.integers(2, n_max + 1))
        d = int(rng.integers(1, n))
        X, alpha, lam = rng.standard_normal((n, d)), rng.uniform(0, 1, size=n), 0.1
        M = alpha[:, None] * X                                  # rows alpha_i x_i
        out.append(BallInstance("duality-gap shaped (eq. 11)", M @ M.T / (2 * lam), 0.5 * rng.uniform(0, 2, size=n),
                                np.ones(n), float(0.3 * np.sqrt(n)), f"d = {d} features"))
    for k in range(max(2, count // 3)):                         # indefinite (beyond the paper)
        rng = instance_rng(seed, "quadratic-on-ball", "indefinite", k)
        n = int(rng.integers(1, n_max + 1))
        G = rng.standard_normal((n, n))
        A = 0.5 * (G + G.T)
        if k % 2 == 1:
            A = -(G @ G.T) - 0.1 * np.eye(n)                    # negative definite: interior maximiser possible
        out.append(BallInstance("indefinite (beyond the paper)", A, 0.3 * rng.standard_normal(n),
                                rng.standard_normal(n), float(10.0 ** rng.uniform(-1, 1)), psd=False))
    rng = instance_rng(seed, "quadratic-on-ball", "degenerate")
    n, G = 5, rng.standard_normal((5, 2))                     # degenerate: a fixed list
    A, u, c = G @ G.T, rng.standard_normal(n), rng.standard_normal(n)
    for A_, b_, c_, S_, note in [
        (np.zeros((n, n)), rng.standard_normal(n), c, 1.5, "A = 0 (linear)"),
        (np.zeros((n, n)), np.zeros(n), c, 1.5, "A = 0, b = 0 (constant)"),
        (A, np.zeros(n), np.zeros(n), 2.0, "b = 0, center 0: S^2 phi_max"),
        (A, -A @ c, c, 0.7, "A c + b = 0 (xi = 0)"),
        (np.outer(u, u), rng.standard_normal(n), c, 1.0, "rank one"),
        (A, rng.standard_normal(n), c, 1e-6, "radius 1e-6"),
        (A, rng.standard_normal(n), c, 1e6, "radius 1e6"),
        (np.array([[2.0]]), np.array([-1.0]), np.array([0.3]), 0.5, "n = 1"),
        (np.array([[2.0]]), np.array([-0.6]), np.array([0.3]), 0.5, "n = 1, xi = 0"),
    ]:
        out.append(BallInstance("degenerate", A_, b_, c_, S_, note))
    return out


def compare_with_references(instances, *, sdp_n_max: int = 30, sample_points: int = 20000,
                            seed: int = 0, progress: bool = False):
    """One row per instance: our value against the enumeration path (PSD only), the SDP
    relaxation (n <= sdp_n_max), scipy's trust-region solver and sphere sampling.

    Differences are (reference - ours) / sigma with sigma = :func:`problem_scale`; a reference
    that did not meet its own stopping rule gives NaN (``scipy_lower`` keeps scipy's value anyway:
    its point is feasible, so it is a lower bound). The sphere samples of instance k come from the
    stream keyed ``("quadratic-on-ball", "samples", k)``.
    ``lipschitz_ratio`` (n = 2): (ours - sampled) / (L pi S / m), L = 2 (||A|| (||c|| + S) + ||b||)
    the Lipschitz constant of f on the ball; it must not exceed 1.
    """
    import pandas as pd

    from tqdm.auto import tqdm

    rows = []
    for k, inst in enumerate(tqdm(instances, desc="ball instances", leave=False, disable=not progress)):
        rng = instance_rng(seed, "quadratic-on-ball", "samples", k)
        A, b, c, S = inst.A, inst.b, inst.center, inst.radius
        sig = problem_scale(A, b, c, S)
        res = maximize_quadratic_on_ball(A, b, c, S)
        phi_max = float(np.linalg.eigvalsh(A)[-1])
        row = {"family": inst.family, "note": inst.note, "n": inst.n, "radius": S,
               "value": res.value, "nu_minus_phimax": (res.nu - phi_max) * S * S / sig,
               "nu_negative": min(res.nu, 0.0) * S * S / sig,
               "feasibility": (np.linalg.norm(res.w - c) - S) / (np.linalg.norm(c) + S),
               "point_vs_value": abs(quadratic_value(A, b, res.w) - res.value) / sig}
        row["enumerate"] = ((maximize_quadratic_on_ball(A, b, c, S, method="enumerate").value - res.value) / sig
                            if inst.psd else np.nan)
        sdp = ball_max_sdp(A, b, c, S) if inst.n <= sdp_n_max else None
        row["sdp"] = (sdp.value - res.value) / sig if sdp is not None and sdp.converged else np.nan
        row["sdp_status"] = sdp.status if sdp is not None else "skipped"
        tr = ball_max_trust_region(A, b, c, S)
        row.update(scipy=(tr.value - res.value) / sig if tr.converged else np.nan, scipy_status=tr.status,
                   scipy_lower=(tr.value - res.value) / sig, scipy_converged=tr.converged)  # feasible: lower bound
        m = sample_points
        smp = ball_max_sampled(A, b, c, S, m, rng)
        row["sampled"] = (smp.value - res.value) / sig
        if inst.n == 2:
            L = 2 * (np.linalg.norm(A, 2) * (np.linalg.norm(c) + S) + np.linalg.norm(b))
            row["lipschitz_ratio"] = (res.value - smp.value) / (L * np.pi * S / m)
        else:
            row["lipschitz_ratio"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def paper_value(nu, A, b, center, radius, w) -> float:
    """Eq. (21) as printed: nu S^2 + (nu c + b)'(w - c) + b'c."""
    return float(nu * radius ** 2 + (nu * center + b) @ (w - center) + b @ center)


def _terms21(p, b, c, S, sig):
    """Size of the terms of eq. (21) at a stationary point, including the rounding of w - c:
    |nu| S^2 + ||nu c + b|| (S + ||w||) + |b'c| + sigma. Its rounding error is a few eps times this."""
    return abs(p.nu) * S * S + np.linalg.norm(p.nu * c + b) * (S + np.linalg.norm(p.w)) + abs(b @ c) + sig


def stationary_checks(instances):
    """For each PSD instance, every stationary point of Theorem D.2 and three checks.

    * ``identity``: max over pairs |f_i - f_j - (nu_i - nu_j) ||w_i - w_j||^2 / 2| / sigma;
    * ``best_not_largest_nu``: 1 if the best value is not at the largest nu (beyond a tie of
      1e-12 sigma), else 0;
    * ``printed_value``: max |eq. (21) - f(w)| / (size of the terms of (21), see :func:`_terms21`);
      ``stationarity``: max ||A w + b - nu (w - c)|| / (sigma / S).
    """
    import pandas as pd

    rows = []
    for inst in instances:
        if not inst.psd:
            continue
        A, b, c, S = inst.A, inst.b, inst.center, inst.radius
        sig = problem_scale(A, b, c, S)
        pts = stationary_points(A, b, c, S)
        nus = np.array([p.nu for p in pts])
        vals = np.array([quadratic_value(A, b, p.w) for p in pts])
        W = np.array([p.w for p in pts])
        D2 = np.sum((W[:, None, :] - W[None, :, :]) ** 2, axis=-1)
        ident = np.abs(vals[:, None] - vals[None, :] - 0.5 * (nus[:, None] - nus[None, :]) * D2).max() / sig
        i_best, i_nu = int(np.argmax(vals)), int(np.argmax(nus))
        rows.append({
            "family": inst.family, "n": inst.n, "stationary_points": len(pts),
            "hard_candidates": int(sum(p.kind == "hard" for p in pts)),
            "best_kind": pts[i_best].kind, "identity": ident,
            "best_not_largest_nu": int(i_best != i_nu and vals[i_nu] < vals[i_best] - 1e-12 * sig),
            "printed_value": max(abs(paper_value(p.nu, A, b, c, S, p.w) - v) / _terms21(p, b, c, S, sig)
                                 for p, v in zip(pts, vals)),
            "stationarity": max(np.linalg.norm(A @ p.w + b - p.nu * (p.w - c)) for p in pts) * S / sig,
        })
    return pd.DataFrame(rows)


def root_count_checks(seed: int, count: int, n_max: int = 6):
    """Lemma D.4 on random (phi, xi, S) with repeated phi and zero xi.

    Per instance: poles N, roots, roots left/right of all poles, most in one gap, agreement with
    the polynomial reference (count; largest |difference| / (1 + |root|)), the largest
    |T(root)/S^2 - 1| / (eps (1 + |nu| / distance to the nearest pole)), and grid
    points where T is not convex between poles. ``ambiguous``: the polynomial has a complex pair
    within 1e-3 but not 1e-6 of the real axis (near-tangency, ill-conditioned for numpy.roots).
    """
    import pandas as pd

    rows = []
    for k in range(count):
        rng = instance_rng(seed, "quadratic-on-ball", "roots", k)
        n = int(rng.integers(1, n_max + 1))
        phi = rng.choice(np.round(rng.uniform(-3, 3, size=n), 1), size=n)      # repeats likely
        xi = rng.standard_normal(n) * (rng.uniform(size=n) > 0.2)             # some zeros
        S = float(10.0 ** rng.uniform(-0.5, 0.5))
        roots = secular_roots(phi, xi, S)
        nz = xi != 0
        p = np.unique(phi[nz])
        w = np.array([np.sum(xi[nz][phi[nz] == v] ** 2) for v in p])
        row = {"n": n, "poles": len(p), "roots": len(roots)}
        if len(p):
            poly, allr = secular_roots_polynomial(p, np.sqrt(w), S)
            near = np.abs(allr.imag) <= 1e-3 * (1 + np.abs(allr.real))
            inner = [int(np.sum((roots > p[k]) & (roots < p[k + 1]))) for k in range(len(p) - 1)]
            T = np.array([np.sum(w / (r - p) ** 2) for r in roots])
            kappa = np.array([1 + abs(r) / np.min(np.abs(r - p)) for r in roots])
            same = len(poly) == len(roots)
            row.update(ambiguous=bool(np.any(near & (np.abs(allr.imag) > 1e-6 * (1 + np.abs(allr.real))))),
                       left=int(np.sum(roots < p[0])), right=int(np.sum(roots > p[-1])), max_inner=max(inner, default=0),
                       count_matches_polynomial=same, root_vs_polynomial=float(np.max(
                           np.abs(poly - roots) / (1 + np.abs(roots)))) if same and len(roots) else np.nan,
                       residual_over_bound=float(np.max(np.abs(T / S ** 2 - 1) / (np.finfo(float).eps * kappa))),
                       concavity_points=_nonconvex_points(p, w))
        else:
            row.update(ambiguous=False, left=0, right=0, max_inner=0, count_matches_polynomial=len(roots) == 0,
                       root_vs_polynomial=np.nan, residual_over_bound=0.0, concavity_points=0)
        rows.append(row)
    return pd.DataFrame(rows)


def _nonconvex_points(p, w, m: int = 101) -> int:
    """Grid points strictly inside each gap (p_k, p_k+1) where the second difference of T is
    negative beyond rounding (8 eps times the three values): the caption of Figure 4 says none."""
    bad = 0
    for k in range(len(p) - 1):
        L = p[k + 1] - p[k]
        nu = p[k] + L * np.linspace(0.01, 0.99, m)
        T = np.sum(w / (nu[:, None] - p) ** 2, axis=1)
        d2 = T[:-2] - 2 * T[1:-1] + T[2:]
        bad += int(np.sum(d2 < -8 * np.finfo(float).eps * (T[:-2] + 2 * T[1:-1] + T[2:])))
    return bad


def figure4_instance(rng):
    """A small problem whose T has every kind of interval: two roots, none, one each outside."""
    phi = np.array([0.4, 1.3, 2.1, 2.1, 3.5])
    xi = np.array([0.5, 0.35, 0.0, 0.25, 0.6])
    c = np.zeros(5)
    A, b = from_spectrum(rng, phi, xi, c)
    return BallInstance("figure 4", A, b, c, 1.2, "xi = 0 on one copy of the repeated eigenvalue 2.1"), phi, xi


def printed_errata() -> list[dict]:
    """Statements of Appendix D.2 as printed, each evaluated on its smallest instance (records for
    :func:`svmcert.claims.record` with ``expect="fails"``)."""
    pre = "screening.quadratic_ball.erratum."
    # Theorem D.2, hard-case bullet: nu = 1 meets the printed condition (xi = 0 on its eigenspace),
    # but the fixed coordinate already has tau_1^2 = 4 > S^2 = 1: no point of the sphere is left.
    A, b, c, S = np.diag([0.0, 1.0]), np.array([2.0, 0.0]), np.zeros(2), 1.0
    phi, _, xi, fc = secular_data(A, b, c)
    F = phi != 1.0
    room = S * S - float(np.sum((xi[F] / (phi[F] - 1.0)) ** 2))
    literal = 1.0 * S * S + float(np.sum(xi[F] ** 2 / (1.0 - phi[F]))) + fc      # tau_U constraint ignored
    hard = {"id": pre + "theorem_d2.hard_case_condition", "source": "Theorem D.2 (second bullet); proof, case 2",
            "statement": "Every eigenvalue nu whose eigenspace carries xi = 0 (the printed condition) yields a candidate: "
                         "sum_U tau_i^2 = S^2 - sum_F tau_i^2 can be met, i.e. its right-hand side is >= 0.",
            "observed": room, "reference": 0.0, "comparison": ">=", "reference_source": "direct evaluation",
            "counterexample": {"A": A.tolist(), "b": b.tolist(), "center": c.tolist(), "radius": S, "nu": 1.0,
                               "S2_minus_fixed": room, "value_if_constraint_ignored": literal,
                               "maximum": round(ball_max_trust_region(A, b, c, S).value, 12)}}
    # Eq. (24) reads S^2 = ||tau||_2 (square missing); n = 1, S = 2: both stationary points have ||tau|| = 2.
    A, b, c, S = np.array([[1.0]]), np.array([1.0]), np.zeros(1), 2.0
    pts = stationary_points(A, b, c, S)
    norms = [float(np.linalg.norm(p.w - c)) for p in pts]
    eq24 = {"id": pre + "eq24.norm_not_squared", "source": "eq. (24), proof of Theorem D.2",
            "statement": "At a stationary point S^2 = ||tau||_2 (as printed; the squared norm is meant).",
            "observed": max(abs(S * S - v) for v in norms), "reference": 0.0, "comparison": "abs",
            "reference_source": "stationary points of the instance",
            "counterexample": {"A": A.tolist(), "b": b.tolist(), "center": c.tolist(), "radius": S,
                               "nus": [p.nu for p in pts], "norm_tau": norms}}
    # Proof of Theorem D.2, case 2: "(Phi - nu I) is nonsingular, that is, when nu equals one of phi_i".
    case2 = {"id": pre + "proof_d2.case2_nonsingular", "source": "proof of Theorem D.2, case 2",
             "statement": "When nu equals an eigenvalue, Phi - nu I is nonsingular (as printed; singular is meant): its rank is n.",
             "observed": float(np.linalg.matrix_rank(np.zeros((1, 1)))), "reference": 1.0, "comparison": "==",
             "reference_source": "numpy.linalg.matrix_rank", "counterexample": {"phi": [1.0], "nu": 1.0}}
    return [hard, eq24, case2]


def time_solvers(seed: int, sizes, *, sdp_n_max: int = 30, enumerate_n_max: int = 400, repeat: int = 3):
    """Seconds per solve at each n (random PSD A = G G'/n, b, c Gaussian, S = 1): ours, the
    paper's enumeration, scipy's trust-region solver (tight), and the SDP (n <= sdp_n_max).
    BLAS runs on one thread: threaded BLAS stalls when the cores are shared, and Clarabel is
    single-threaded anyway."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        ball_max_sdp(np.eye(3), np.ones(3), np.zeros(3), 1.0)       # warm up cvxpy (first call compiles)
        for n in sizes:
            rng = instance_rng(seed, "quadratic-on-ball", "timing", n)
            G = rng.standard_normal((n, n))
            A, b, c, S = G @ G.T / n, rng.standard_normal(n), rng.standard_normal(n), 1.0
            rows.append({
                "n": n,
                "rightmost_s": best_time(lambda: maximize_quadratic_on_ball(A, b, c, S, method="rightmost"), repeat=repeat, min_seconds=0.02),
                "enumerate_s": best_time(lambda: maximize_quadratic_on_ball(A, b, c, S, method="enumerate"), repeat=1)
                if n <= enumerate_n_max else np.nan,
                "scipy_s": best_time(lambda: ball_max_trust_region(A, b, c, S), repeat=repeat, min_seconds=0.02),
                "sdp_s": best_time(lambda: ball_max_sdp(A, b, c, S), repeat=1) if n <= sdp_n_max else np.nan})
    df = pd.DataFrame(rows)
    for col in ("enumerate_s", "scipy_s", "sdp_s"):
        df[col[:-2] + "_ratio"] = df[col] / df["rightmost_s"]
    return df


def summarise_comparison(df):
    """Per family: instances, sizes, and the worst difference to every reference (in sigma)."""
    return df.groupby("family", sort=False).agg(
        instances=("n", "size"), n_min=("n", "min"), n_max=("n", "max"),
        worst_vs_enumeration=("enumerate", lambda s: s.abs().max()), worst_vs_sdp=("sdp", lambda s: s.abs().max()),
        sdp_solved=("sdp", "count"), worst_vs_scipy=("scipy", lambda s: s.abs().max()),
        scipy_not_converged=("scipy_converged", lambda s: int((~s).sum())), worst_sampled_excess=("sampled", "max"),
        mean_sampled_shortfall=("sampled", lambda s: -s.mean()), min_nu_minus_phimax=("nu_minus_phimax", "min"),
    ).reset_index()


def plot_figure4(inst, phi, xi, ax_t, ax_v, ylim_factor: float = 4.0):
    """Figure 4 redrawn for the spectrum (phi, xi) the instance was built from: T(nu) (black),
    its terms (dashed, one colour per distinct pole), S^2, the roots (circles) and the maximiser
    found by the library from (A, b, center) (star); on ``ax_v``, every stationary value
    (Theorem D.2, from the library's enumeration) against its multiplier nu."""
    S = inst.radius
    nz = xi != 0
    poles = np.unique(phi[nz])
    lo, hi = poles[0] - 1.2, poles[-1] + 1.2
    nu = np.linspace(lo, hi, 4000)
    near = np.min(np.abs(nu[:, None] - poles[None, :]), axis=1) < 1e-3
    T = np.where(near, np.nan, secular_function(nu, phi, xi))
    for k, p in enumerate(poles):
        term = np.sum(xi[nz][phi[nz] == p] ** 2) / (nu - p) ** 2
        ax_t.plot(nu, np.where(near, np.nan, term), "--", lw=1, color=f"C{k}", label=f"term, pole {p:g}")
        ax_t.axvline(p, color=f"C{k}", lw=0.5, alpha=0.5)
    ax_t.plot(nu, T, "k-", lw=1.8, label="T(nu)")
    ax_t.axhline(S * S, color="grey", lw=1, ls=":", label="S^2")
    roots = secular_roots(phi, xi, S)
    best = maximize_quadratic_on_ball(inst.A, inst.b, inst.center, S)
    ax_t.plot(roots, np.full(roots.shape, S * S), "o", color="k", mfc="white", label="roots of T = S^2")
    ax_t.plot([best.nu], [S * S], "*", color="crimson", ms=14, label="maximiser")
    ax_t.set(ylim=(0, ylim_factor * S * S), xlim=(lo, hi), xlabel="nu", ylabel="T(nu)")
    ax_t.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4)
    pts = stationary_points(inst.A, inst.b, inst.center, S)
    ax_v.plot([p.nu for p in pts], [p.value for p in pts], "o-", color="k", mfc="white")
    ax_v.plot([best.nu], [best.value], "*", color="crimson", ms=14)
    for p in poles:
        ax_v.axvline(p, color="grey", lw=0.5, alpha=0.5)
    ax_v.set(xlabel="nu (multiplier of the stationary point)", ylabel="f at the stationary point", xlim=(lo, hi))
    return roots, pts, best
