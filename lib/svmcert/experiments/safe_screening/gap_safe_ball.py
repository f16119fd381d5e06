"""Chapter "The gap-safe ball" (Hanada et al., Lemmas 3.1-3.2, Section 4.2).

For each weighted problem (explicit features F with K = F F^T, so distances between models are
computed in coordinates, never through K):

- :func:`reference_solution`: beta*(w) from a high-accuracy solve, with its own certified radius.
- :func:`solve_path`: dual points alpha_k after k = 1, 2, 4, ... epochs of coordinate ascent.
- :func:`ball_pairs`: (beta_hat, alpha_hat) pairs of five kinds (early-stopped, mixed, perturbed
  beta, perturbed alpha, random alpha), each with the radius of Lemma 3.1 and the true distance.
- :func:`screening_path`: :func:`svmcert.screening.gap_safe.sss_screen` at every alpha_k, against
  the reference solution (Lemma 3.2) and the screening rate.
- :func:`printed_kernel_gap`, :func:`corrected_kernel_gap`: the kernelised duality gap of
  Section 4.2 as printed and with the missing term restored.
- :func:`definition34_instance`: Definition 3.4 (the samples Lemma 3.2 removes for every weight
  vector of the ball) against Theorem 3.5's rule, with random weights of the sphere and the
  maximiser of the gap.
- :func:`lemma_a5_rows`: Lemma A.5 (a linear function over a ball) against cvxpy.
- :func:`intercept_ball`: Remark 3.3, the ball of Lemma 3.1 with an unregularised intercept.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...screening.gap_safe import gap_safe_radius, sss_screen
from ...exceptions import ConvergenceWarning
from ...screening.weighted_svm import (dual_domain, fenchel_young_residuals, fit_weighted_svm,
                                      linear_dual_objective, linear_primal_objective, loss_conjugate, loss_value)

__all__ = ["explicit_gap", "reference_solution", "solve_path", "ball_pairs", "null_direction", "screening_path",
           "kernel_gap_rows", "run_instance", "instance_parameters", "run_instances", "printed_kernel_gap",
           "corrected_kernel_gap", "true_gap", "alpha_typo_gap", "alpha_typo_instance", "LAMBDA_EXPONENTS", "LOSSES",
           "definition34_instance", "lemma_a5_rows", "intercept_ball", "lemma_a5_proof_counterexample"]

#: lam / n = 10^-e with e drawn from these for each instance.
LAMBDA_EXPONENTS = (0.5, 1.0, 1.5, 2.0, 2.5)
LOSSES = ("hinge", "squared_hinge")


def explicit_gap(beta, alpha, F, y, lam, w, loss):
    """P_w(beta) - D_w(alpha) with explicit features, as a sum of non-negative terms:
    sum_i w_i [l(m_i) + l*(-alpha_i) + alpha_i m_i] + ||lam beta - v||^2 / (2 lam), with
    m = y * (F beta) and v = F^T (y w alpha). Equal to the difference of eqs. (2) and (4), but
    without its cancellation, so tiny gaps (and radii) are computed to full relative accuracy."""
    m = y * (F @ beta)
    v = F.T @ (y * w * alpha)
    return float(w @ fenchel_young_residuals(m, alpha, loss)) + float(np.sum((lam * beta - v) ** 2)) / (2 * lam)


def _radius(gap, lam):
    # Lemma 3.1 from a gap computed as a sum of non-negative terms (P - D passed as (gap, 0))
    return gap_safe_radius(gap, 0.0, lam)


def reference_solution(F, y, lam, w, loss, tol=1e-13, max_epochs=200000):
    """High-accuracy solve: (alpha*, beta* = F^T (y w alpha*) / lam, certified radius r*, result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = fit_weighted_svm(F @ F.T, y, lam, w, loss, tol=tol, max_epochs=max_epochs)
    beta = F.T @ (y * w * res.alpha) / lam
    return res.alpha, beta, _radius(explicit_gap(beta, res.alpha, F, y, lam, w, loss), lam), res


def solve_path(K, y, lam, w, loss, checkpoints, seed=0):
    """Dual points after each number of epochs in ``checkpoints`` (increasing), one continued run
    of random-order epochs (``selection="cyclic"``: the points are defined by that order)."""
    out, alpha, done = [], None, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k in checkpoints:
            res = fit_weighted_svm(K, y, lam, w, loss, tol=1e-15, max_epochs=max(k - done, 1), seed=seed + k,
                                   alpha0=alpha, check_psd=False, selection="cyclic")
            alpha, done = res.alpha.copy(), k
            out.append((k, alpha, res))
    return out


def ball_pairs(F, y, lam, w, loss, path, alpha_star, beta_star, r_star, rng, n_perturb=6, null=None):
    """Pairs (beta_hat, alpha_hat) with P_w(beta_hat), D_w(alpha_hat) from explicit features (eqs. 2, 4).

    Returns rows with the pair's kind, the radius r of Lemma 3.1 (kappa = lam), the distance
    ||beta_hat - beta*|| and ``ratio`` = distance / (r + r*), which the lemma bounds by 1 (r* covers
    the reference's own error), plus ``tight`` = distance / r where r > 100 r* (the reference's
    error is then at most 1% of r; NaN otherwise). ``null``: a unit vector with F null = 0
    (:func:`null_direction`), used for one more kind of perturbation.
    """
    lo, hi = dual_domain(loss)
    rows = []

    def add(kind, beta_hat, alpha_hat):
        gap = explicit_gap(beta_hat, alpha_hat, F, y, lam, w, loss)
        r = _radius(gap, lam)
        dist = float(np.linalg.norm(beta_hat - beta_star))
        bound = r + r_star
        rows.append({"kind": kind, "gap": gap, "radius": r, "distance": dist,
                     "ratio": dist / bound if bound > 0 else (0.0 if dist == 0 else np.inf),
                     "tight": dist / r if r > 100 * r_star else np.nan})

    betas = [F.T @ (y * w * a) / lam for _, a, _ in path]
    for (_, a, _), b in zip(path, betas):
        add("early-stopped", b, a)
    for j, b in enumerate(betas):                       # the model of one checkpoint, the dual of another
        add("mixed", b, path[int(rng.integers(len(path)))][1])
    scale = max(float(np.linalg.norm(beta_star)), 1e-12)
    for t in np.logspace(-6, 0, n_perturb) * scale:
        g = rng.standard_normal(beta_star.shape)
        add("perturbed beta", beta_star + t * g / np.linalg.norm(g), alpha_star)
        if null is not None:                            # F e = 0: only the regulariser sees the step
            add("perturbed beta (null direction)", beta_star + t * null, alpha_star)
        top = 1.0 if np.isfinite(hi) else 2.0
        a = np.clip(alpha_star + (t / scale) * top * rng.standard_normal(alpha_star.shape), lo, hi)
        add("perturbed alpha", F.T @ (y * w * a) / lam, a)
    for _ in range(n_perturb):
        a = rng.uniform(0.0, 1.0 if np.isfinite(hi) else 2.0, size=y.shape[0])
        add("random alpha", F.T @ (y * w * a) / lam, a)
    return rows


def null_direction(F):
    """A unit vector e with F e = 0 when F has more columns than rows (then one always exists), else
    None: the last right singular vector. The choice depends on the shape alone, never on a
    numerical rank, so the same instances get one on every machine."""
    if F.shape[1] <= F.shape[0]:
        return None
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        _, _, vt = np.linalg.svd(F, full_matrices=True)
    return vt[-1]


def kernel_gap_rows(K, F, y, lam, w, loss, alphas, rng):
    """Section 4.2's kernelised gap, as printed and corrected, against eqs. (2) - (4) with explicit
    features, relative to P_w: at w = w~ (one weight vector) and at a random w >= 0 near w~."""
    rows = []
    for a in alphas:
        w_new = np.maximum(w + 0.2 * rng.standard_normal(w.shape), 0.0)
        scale = max(abs(linear_primal_objective(F.T @ (y * w * a) / lam, F, y, lam, w, loss)), 1e-300)
        true_same, true_new = true_gap(F, y, lam, w, w, a, loss), true_gap(F, y, lam, w_new, w, a, loss)
        rows.append({"true_gap": true_same / scale,
                     "printed_error": abs(printed_kernel_gap(K, y, lam, w, w, a, loss) - true_same) / scale,
                     "corrected_error": abs(corrected_kernel_gap(K, y, lam, w, w, a, loss) - true_same) / scale,
                     "corrected_error_other_w": abs(corrected_kernel_gap(K, y, lam, w_new, w, a, loss) - true_new) / scale})
    return rows


def run_instance(F, y, lam, w, loss, checkpoints, rng, null=None, n_perturb=6):
    """Reference solve, checkpoint path, Lemma 3.1 pairs and Lemma 3.2 screening for one problem.

    Returns (pairs, screening, kernel-gap rows) as lists of row dicts plus the
    :class:`~svmcert.screening.weighted_svm.WeightedSVM` of the reference solve.
    """
    K = F @ F.T
    alpha_star, beta_star, r_star, ref = reference_solution(F, y, lam, w, loss)
    path = solve_path(K, y, lam, w, loss, checkpoints)
    pairs = ball_pairs(F, y, lam, w, loss, path, alpha_star, beta_star, r_star, rng, n_perturb, null)
    screening = screening_path(K, F, y, lam, w, loss, path, alpha_star, beta_star, r_star)
    kgap = kernel_gap_rows(K, F, y, lam, w, loss, [alpha_star] + [a for _, a, _ in path[::3]], rng)
    return pairs, screening, kgap, ref


def instance_parameters(seed, name, kernel, loss, n):
    """lam and the weights of one instance, from its own keyed streams (never from a stream a
    solver or another instance draws from): lam = n 10^-e, e uniform over
    :data:`LAMBDA_EXPONENTS`; weights by :func:`svmcert.experiments.families.random_weights`."""
    from ..instances import instance_rng
    from ..families import random_weights

    key = (name, kernel, loss)
    lam = n * 10 ** -float(instance_rng(seed, "gap-safe-ball", "lambda", *key).choice(LAMBDA_EXPONENTS))
    return lam, random_weights(n, instance_rng(seed, "gap-safe-ball", "weights", *key))


def run_instances(datasets_used, kernels, checkpoints, seed, n_perturb=6, on_dataset=None, progress=False):
    """Every instance of the chapter: for each data set, kernel and loss, the reference solve, the
    checkpoint path, the Lemma 3.1 pairs, the Lemma 3.2 screening path and the Section 4.2 rows.

    Returns four DataFrames ``(pairs, screening, kernel_gaps, instances)``. Each instance's lam and
    weights come from :func:`instance_parameters` and its perturbations from a stream of its own,
    so the list of instances does not depend on how many iterations any solver takes.
    ``on_dataset(name)`` is called once per data set (the chapter records its checksum).
    """
    import pandas as pd

    from ...datasets import load_scaled
    from ..instances import instance_rng
    from ..families import problem_features

    jobs = [(name, kernel, loss) for name in datasets_used for kernel in kernels for loss in LOSSES]
    if progress:
        from tqdm import tqdm

        jobs = tqdm(jobs, desc="instances", leave=False)
    pairs, screening, kgaps, instances, cache = [], [], [], [], {}
    for name, kernel, loss in jobs:
        if (name, kernel) not in cache:
            X, y = load_scaled(name)
            if on_dataset is not None:
                on_dataset(name)
            F, _ = problem_features(X, kernel)
            cache[(name, kernel)] = (F, y, null_direction(F))
        F, y, null = cache[(name, kernel)]
        lam, w = instance_parameters(seed, name, kernel, loss, len(y))
        rng = instance_rng(seed, "gap-safe-ball", "pairs", name, kernel, loss)
        p, s, k, ref = run_instance(F, y, lam, w, loss, checkpoints, rng, null=null, n_perturb=n_perturb)
        tag = dict(data=name, kernel=kernel, loss=loss, n=len(y), lam=lam)
        pairs += [{**tag, **row} for row in p]
        screening += [{**tag, **row} for row in s]
        kgaps += [{**tag, **row} for row in k]
        instances.append({**tag, "weights_sum": float(w.sum()), "zero_weights": int(np.sum(w == 0)),
                          "reference_epochs": ref.n_iter, "reference_rel_gap": ref.gap / ref.primal,
                          "reference_converged": ref.converged})
    return tuple(map(pd.DataFrame, (pairs, screening, kgaps, instances)))


def screening_path(K, F, y, lam, w, loss, path, alpha_star, beta_star, r_star):
    """Lemma 3.2 at every checkpoint: screened samples, violations, rate, relative gap.

    ``violations_alpha``: screened samples with alpha*_i != 0. ``violations_margin``: screened
    samples whose reference margin is certifiably inside the loss's active region,
    m*_i + ||phi(x_i)|| r* <= 1 (hinge) or < 1 (squared hinge). ``ideal`` = fraction with alpha*_i = 0.
    """
    m_star = y * (F @ beta_star)
    slack = np.linalg.norm(F, axis=1) * r_star
    active = (m_star + slack <= 1.0) if loss == "hinge" else (m_star + slack < 1.0)
    rows = []
    for k, a, res in path:
        mask = sss_screen(K, y, lam, w, a, loss, check_psd=False)
        rows.append({"epochs": k, "rel_gap": res.gap / max(res.primal, np.finfo(float).tiny),
                     "radius": _radius(res.gap, lam), "screened": int(mask.sum()),
                     "rate": float(mask.mean()), "ideal": float(np.mean(alpha_star == 0)),
                     "violations_alpha": int(np.sum(mask & (alpha_star != 0))),
                     "violations_margin": int(np.sum(mask & active))})
    return rows


def true_gap(F, y, lam, w, w_tilde, alpha, loss="hinge"):
    """P_w(beta_hat) - D_w(alpha) with beta_hat = F^T (y w_tilde alpha) / lam: eqs. (2) and (4) evaluated
    with explicit features and subtracted."""
    beta = F.T @ (y * w_tilde * alpha) / lam
    return linear_primal_objective(beta, F, y, lam, w, loss) - linear_dual_objective(alpha, F, y, lam, w, loss)


def printed_kernel_gap(K, y, lam, w, w_tilde, alpha, loss="hinge"):
    """Section 4.2 as printed (with alpha^{*(w~)} inside l, the printed alpha^{*(w)} being a typo):
    sum_i w_i [l(m_i) + l*(-alpha_i)] + (w - w~)^T diag(alpha) K_check diag(alpha) (w - w~) / (2 lam),
    m = K_check (w~ alpha) / lam, K_check = diag(y) K diag(y)."""
    Kc = y[:, None] * K * y[None, :]
    m = Kc @ (w_tilde * alpha) / lam
    dw = (w - w_tilde) * alpha
    return float(w @ (loss_value(m, loss) + loss_conjugate(-alpha, loss))) + float(dw @ Kc @ dw) / (2 * lam)


def corrected_kernel_gap(K, y, lam, w, w_tilde, alpha, loss="hinge"):
    """The printed formula with the Fenchel-Young term alpha_i m_i restored inside the bracket:
    sum_i w_i [l(m_i) + l*(-alpha_i) + alpha_i m_i] + (w - w~)^T diag(alpha) K_check diag(alpha) (w - w~) / (2 lam)."""
    Kc = y[:, None] * K * y[None, :]
    m = Kc @ (w_tilde * alpha) / lam
    dw = (w - w_tilde) * alpha
    return float(w @ (loss_value(m, loss) + loss_conjugate(-alpha, loss) + alpha * m)) + float(dw @ Kc @ dw) / (2 * lam)


def alpha_typo_gap(K, y, lam, w, w_tilde, alpha, alpha_w, loss="hinge"):
    """The corrected formula of Section 4.2 with the loss argument as printed:
    l(K_check (w~ * alpha^{*(w)}) / lam), alpha^{*(w)} = ``alpha_w`` the optimum at w, everything
    else at alpha = alpha^{*(w~)}. Equal to the gap only if alpha^{*(w)} is read as alpha^{*(w~)}."""
    Kc = y[:, None] * K * y[None, :]
    m = Kc @ (w_tilde * alpha) / lam
    m_typo = Kc @ (w_tilde * alpha_w) / lam
    dw = (w - w_tilde) * alpha
    return (float(w @ (loss_value(m_typo, loss) + loss_conjugate(-alpha, loss) + alpha * m))
            + float(dw @ Kc @ dw) / (2 * lam))


def alpha_typo_instance(lam=0.5, w=2.0):
    """The smallest instance of the typo alpha^{*(w)} for alpha^{*(w~)} in Section 4.2: one sample,
    K = y = w~ = 1. Both optima are fitted; returns the two optima, the true gap at
    (beta^{*(w~)}, alpha^{*(w~)}) for problem w (eqs. 2 and 4 with the feature x = 1) and the
    formula with alpha^{*(w)} inside the loss."""
    K, y, one = np.eye(1), np.ones(1), np.ones(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a_t = fit_weighted_svm(K, y, lam, one, tol=1e-15).alpha
        a_w = fit_weighted_svm(K, y, lam, w * one, tol=1e-15).alpha
    truth = true_gap(np.ones((1, 1)), y, lam, w * one, one, a_t)
    typo = alpha_typo_gap(K, y, lam, w * one, one, a_t, a_w)
    return {"n": 1, "K": 1.0, "y": 1.0, "w_tilde": 1.0, "w": float(w), "lam": float(lam), "loss": "hinge",
            "alpha_w_tilde": float(a_t[0]), "alpha_w": float(a_w[0]), "true_gap": float(truth),
            "with_alpha_w": float(typo)}

def definition34_instance(F, y, lam, S, rng, n_weights=200, loss="hinge"):
    """Definition 3.4 on one problem (w_tilde = 1): the samples that Lemma 3.2, applied with
    (beta_hat, alpha_hat) = (beta*(w_tilde), alpha*(w_tilde)), removes for *every* w of
    W = {||w - w_tilde|| <= S}, against Theorem 3.5's rule (:func:`svmcert.screening.drsss.drsss`).

    The gap of each w is eqs. (2) and (4) with explicit features, subtracted (:func:`true_gap`). The
    weights are ``n_weights`` random points of the sphere (Appendix E.3's recipe) and the maximiser
    w* of the gap over the ball (Theorem 4.1). Since the gap is largest at w*, the samples removed for
    all these w must be exactly Theorem 3.5's; each random w on its own must remove at least those.
    """
    from ...screening.drsss import drsss, gap_quadratic
    from ...screening.quadratic_ball import maximize_quadratic_on_ball

    K, n = F @ F.T, len(y)
    w_tilde = np.ones(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = fit_weighted_svm(K, y, lam, w_tilde, loss, tol=1e-12, max_epochs=200000)
    alpha = fit.alpha
    rule = drsss(K, y, lam, w_tilde, S, loss, alpha_hat=alpha, check_psd=False).removable
    q = gap_quadratic(K, y, lam, w_tilde, alpha, loss, check_psd=False)
    w_star = maximize_quadratic_on_ball(q.A, q.b, w_tilde, S).w
    beta = F.T @ (y * w_tilde * alpha) / lam
    lower_centre, norms = y * (F @ beta), np.linalg.norm(F, axis=1)

    def removed(w):
        r = np.sqrt(2.0 * max(true_gap(F, y, lam, w, w_tilde, alpha, loss), 0.0) / lam)
        low = lower_centre - norms * r
        return low > 1.0 if loss == "hinge" else low >= 1.0

    V = rng.standard_normal((int(n_weights), n))
    W = w_tilde + S * V / np.linalg.norm(V, axis=1, keepdims=True)
    masks = np.array([removed(w) for w in W])
    sampled = masks.all(axis=0)
    at_star = removed(w_star)
    return {"n": n, "lam": lam, "S": S, "weights": int(n_weights) + 1, "min_weight": float(min(W.min(), w_star.min())),
            "theorem35_removed": int(rule.sum()), "removed_for_all_sampled": int(sampled.sum()),
            "removed_for_all_with_maximiser": int((sampled & at_star).sum()),
            "rule_not_within_a_w": int(sum(np.sum(rule & ~m) for m in masks) + np.sum(rule & ~at_star)),
            "mismatch": int(np.sum(rule != (sampled & at_star))), "fit_rel_gap": fit.gap / fit.primal}


def lemma_a5_rows(seed, count=60):
    """Lemma A.5: min and max of a^T v over ||v - c|| <= S equal a^T c -+ S ||a||; cvxpy/Clarabel
    solves both problems (tolerances 1e-10). Instances from the stream ``("gap-safe-ball", "lemma A.5", k)``;
    one in ten has a = 0."""
    import cvxpy as cp

    from ..instances import instance_rng

    rows = []
    for k in range(int(count)):
        rng = instance_rng(seed, "gap-safe-ball", "lemma A.5", k)
        n = int(rng.integers(1, 11))
        a = np.zeros(n) if k % 10 == 0 else rng.standard_normal(n) * 10 ** rng.uniform(-2, 2)
        c, S = rng.standard_normal(n) * 3, float(10 ** rng.uniform(-2, 2))
        v = cp.Variable(n)
        out = {}
        for sense in ("min", "max"):
            obj = cp.Minimize(a @ v) if sense == "min" else cp.Maximize(a @ v)
            cp.Problem(obj, [cp.norm(v - c, 2) <= S]).solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10,
                                                            tol_feas=1e-10)
            out[sense] = float(a @ v.value)
        scale = max(1.0, abs(a @ c) + S * np.linalg.norm(a))
        rows.append({"k": k, "n": n, "a_zero": bool(not a.any()), "S": S,
                     "min_error": abs(out["min"] - (a @ c - S * np.linalg.norm(a))) / scale,
                     "max_error": abs(out["max"] - (a @ c + S * np.linalg.norm(a))) / scale})
    import pandas as pd

    return pd.DataFrame(rows)


def intercept_ball(shift: float = 4.0, lam: float = 1.0, regularise: bool = False):
    """Remark 3.3 on the smallest symmetric problem: x = (1, -1), y = (1, -1), w = (1, 1), hinge loss,
    features [x, 1]. The optimum (cvxpy/Clarabel, with or without lam/2 b^2 on the intercept b) is moved
    by ``shift`` along the intercept; returns the distance over the radius sqrt(2 (P(moved) - P*) / lam)
    that Lemma 3.1 would give with kappa = lam (by strong duality D(alpha*) = P*)."""
    import cvxpy as cp

    x, yy = np.array([1.0, -1.0]), np.array([1.0, -1.0])
    beta, b = cp.Variable(), cp.Variable()
    reg = lam / 2 * (cp.square(beta) + (cp.square(b) if regularise else 0))
    P = cp.sum(cp.pos(1 - cp.multiply(yy, x * beta + b))) + reg
    prob = cp.Problem(cp.Minimize(P))
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    b0, be0, p_star = float(b.value), float(beta.value), float(prob.value)

    def P_at(be, bb):
        return float(np.sum(np.maximum(0.0, 1 - yy * (x * be + bb))) + lam / 2 * (be ** 2 + (bb ** 2 if regularise else 0)))

    gap = P_at(be0, b0 + shift) - p_star
    return {"regularised_intercept": regularise, "shift": shift, "lam": lam, "beta": be0, "b": b0, "p_star": p_star,
            "gap": gap, "radius": float(np.sqrt(2 * gap / lam)), "distance_over_radius": shift / float(np.sqrt(2 * gap / lam))}


def lemma_a5_proof_counterexample():
    """The proof of Lemma A.5 says -S||a|| <= a^T (v - c) <= S||a|| holds with equality if ||v - c|| = S.
    The smallest refutation: n = 2, a = (1, 0), c = 0, S = 1 and v = (0, 1) on the sphere, orthogonal to a."""
    a, c, v, S = np.array([1.0, 0.0]), np.zeros(2), np.array([0.0, 1.0]), 1.0
    return {"n": 2, "a": a.tolist(), "c": c.tolist(), "S": S, "v": v.tolist(), "norm_v_minus_c": float(np.linalg.norm(v - c)),
            "a_dot_v_minus_c": float(a @ (v - c)), "S_times_norm_a": float(S * np.linalg.norm(a))}
