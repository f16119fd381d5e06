"""The weighted problem of Hanada et al. (Definition 2.1, eqs. 2-7) in kernel form, without a solver:
its losses and conjugates (Table 5), the one validation of its data (:func:`check_weighted_problem`,
:func:`check_dual_point`), margins, objectives and the Fenchel-Young duality gap. The solvers
(:mod:`.weighted_svm`, :mod:`.weighted_linear`) and the screening rules (:mod:`.gap_safe`,
:mod:`.drsss`) share it. The functions named ``*_from_*`` and :func:`objective_parts` take
validated arguments; the others validate their own.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_gram, check_labels, check_matrix, check_positive, check_vector
from .._compiled import matvec_compiled

__all__ = ["LOSSES", "rounding_gamma", "probable_rounding_gamma", "margin_rounding", "residual_slopes", "check_loss",
           "check_weighted_problem", "check_dual_point", "dual_domain", "loss_value", "loss_conjugate",
           "regularised_intercept", "margins", "margins_from_dual", "objective_parts", "parts_from_margins",
           "fenchel_young_residuals", "primal_objective", "dual_objective", "duality_gap", "linear_primal_objective",
           "linear_dual_objective", "weights_from_dual"]


LOSSES = ("hinge", "squared_hinge")


def check_loss(loss) -> str:
    """``loss`` if it is one of :data:`LOSSES`, else a ValueError naming the choices."""
    if loss not in LOSSES:
        raise ValueError(f"loss: expected one of {LOSSES}, got {loss!r}")
    return loss


def dual_domain(loss: str = "hinge") -> tuple[float, float]:
    """The interval where l*(-alpha) < +inf (Table 5, fifth column): [0, 1] or [0, inf)."""
    return (0.0, 1.0) if check_loss(loss) == "hinge" else (0.0, np.inf)


def loss_value(t, loss: str = "hinge") -> np.ndarray:
    """l(t) = max(0, 1 - t) (hinge) or max(0, 1 - t)^2 (squared hinge), Table 5."""
    h = np.maximum(0.0, 1.0 - np.asarray(t, dtype=float))
    return h if check_loss(loss) == "hinge" else h * h


def loss_conjugate(s, loss: str = "hinge") -> np.ndarray:
    """Convex conjugate l*(s) = sup_t (s t - l(t)) in closed form (Table 5, fourth column).

    hinge: s on [-1, 0], +inf elsewhere; squared hinge: (s^2 + 4 s)/4 for s <= 0, +inf for s > 0.
    """
    s = np.asarray(s, dtype=float)
    if check_loss(loss) == "hinge":
        return np.where((s >= -1.0) & (s <= 0.0), s, np.inf)
    return np.where(s <= 0.0, (s * s + 4.0 * s) / 4.0, np.inf)


def regularised_intercept(K, scale: float = 1.0) -> np.ndarray:
    """K + scale^2: the Gram matrix after appending a constant feature ``scale`` to every phi(x_i).

    Remark 3.3: the intercept must be regularised (rho strongly convex). The model's intercept is
    then b = scale * beta_d = scale^2 * sum_i alpha_i w_i y_i / lam.
    """
    K = check_matrix(K, "K")
    scale = check_positive(scale, "scale")
    return K + scale * scale


def check_weighted_problem(K, y, lam, weights, loss, psd=True, weights_name="weights"):
    """Validate the data of the weighted problem (Definition 2.1) once, at a public door: labels in
    {-1, +1}, K an n x n Gram matrix (PSD per ``psd``, :func:`svmcert._validation.check_gram`),
    lam > 0, nonnegative weights of length n and a known loss. Returns (K, y, lam, w, loss).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.screening.weighted_problem import check_weighted_problem
    >>> K, y, lam, w, loss = check_weighted_problem(np.eye(2), [1, -1], 0.5, [1, 0], "hinge")
    >>> w, loss
    (array([1., 0.]), 'hinge')
    >>> check_weighted_problem(np.eye(2), [1, -1], 0.5, [1, -1], "hinge")
    Traceback (most recent call last):
    ...
    ValueError: weights: expected nonnegative entries (Definition 2.1), found -1
    """
    y = check_labels(y)
    K = check_gram(K, y.shape[0], psd=psd)
    lam = check_positive(lam, "lam")
    w = check_vector(weights, weights_name, y.shape[0])
    if w.min() < 0:
        raise ValueError(f"{weights_name}: expected nonnegative entries (Definition 2.1), found {w.min():g}")
    return K, y, lam, w, check_loss(loss)


def check_dual_point(alpha, n, loss, name="alpha"):
    """``alpha`` as a float vector of length n inside the loss's dual domain (Table 5), or a ValueError."""
    alpha = check_vector(alpha, name, n)
    lo, hi = dual_domain(loss)
    if alpha.size and (alpha.min() < lo or alpha.max() > hi):
        raise ValueError(f"{name}: expected every entry in the dual domain [{lo:g}, {hi:g}] of the {loss} loss "
                         f"(Table 5), found range [{alpha.min():g}, {alpha.max():g}]")
    return alpha


def margins_from_dual(alpha, K, y, lam, w):
    """:func:`margins` for arguments already validated (:func:`check_weighted_problem`): the compiled
    matrix-vector product when K is a C-contiguous float64 array; no product at all when
    y * w * alpha is zero (the usual start: K is finite, so K @ 0 is exactly 0)."""
    v = y * w * alpha
    if not v.any():
        Kv = np.zeros(K.shape[0])
    else:
        Kv = matvec_compiled(K, v) if K.flags.c_contiguous and K.dtype == np.float64 else K @ v
    return y * Kv / lam


def rounding_gamma(n: int) -> float:
    """Higham's bound gamma_{n+2} = (n + 2) eps / (1 - (n + 2) eps) on the relative rounding of a dot
    product of length n in any summation order, plus the roundings of w alpha and of the division."""
    eps = float(np.finfo(float).eps)
    return (n + 2) * eps / (1.0 - (n + 2) * eps)


def probable_rounding_gamma(n: int) -> float:
    """sqrt(n + 2) eps: the probabilistic counterpart of :func:`rounding_gamma` (Higham and Mary,
    2019: with rounding errors that are independent and of mean zero, a sum of n terms is wrong
    by a multiple of sqrt(n) eps with high probability; the worst case n eps takes errors that
    all fall one way)."""
    return float(np.sqrt(n + 2.0)) * float(np.finfo(float).eps)


def margin_rounding(K, lam, w, alpha, rows: int = 512, gamma: float | None = None) -> np.ndarray:
    """mu_i, a bound on the floating-point error of the margins m = y (K (y w alpha)) / lam
    (:func:`margins_from_dual`): gamma (|K| |w alpha|)_i / lam, gamma :func:`rounding_gamma` (the
    worst case) unless given, summed over blocks of ``rows`` rows so that |K| is never formed
    whole."""
    v = np.abs(w * alpha)
    out = np.empty(K.shape[0])
    gamma = rounding_gamma(K.shape[0]) if gamma is None else gamma
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(0, K.shape[0], rows):
            out[i:i + rows] = np.abs(K[i:i + rows]) @ v
        return gamma * out / lam


def residual_slopes(alpha, m, mu, loss: str = "hinge", sides: bool = False) -> np.ndarray:
    """L_i, how far sample i's Fenchel-Young residual (:func:`fenchel_young_residuals`) can move per
    unit move of its margin within mu_i of m_i: max(alpha_i, 1 - alpha_i) for the hinge loss,
    max(alpha_i, 2 (|1 - m_i - alpha_i / 2| + mu_i)) for the squared hinge. With ``sides`` the
    residual's slope on the side of 1 where the whole interval [m_i - mu_i, m_i + mu_i] lies, where
    it does: 1 - alpha_i below 1 and alpha_i above for the hinge (zero for a sample at the bound
    its margin asks for), 2 (|1 - m_i - alpha_i / 2| + mu_i) below and alpha_i above for the squared
    hinge; the maximum of the two where the interval straddles 1."""
    with np.errstate(over="ignore", invalid="ignore"):
        below = (1.0 - alpha) if loss == "hinge" else 2.0 * (np.abs(1.0 - m - 0.5 * alpha) + mu)
        both = np.maximum(alpha, below)
        if not sides:
            return both
        return np.where(m + mu < 1.0, below, np.where(m - mu > 1.0, alpha, both))


def objective_parts(alpha, K, y, lam, w, loss):
    """Margins m, sum w l(m), sum w (-l*(-alpha)), lam ||beta||^2 and the Fenchel-Young gap."""
    return parts_from_margins(margins_from_dual(alpha, K, y, lam, w), alpha, y, w, loss)


def fenchel_young_residuals(m, alpha, loss: str = "hinge") -> np.ndarray:
    """l(m_i) + l*(-alpha_i) + alpha_i m_i >= 0 per sample (zero iff link (7) holds), in the
    rounding-safe forms max(0, 1 - m) - alpha (1 - m) (hinge) and (1 - m - alpha/2)^2 for m < 1,
    alpha (m - 1) + alpha^2/4 otherwise (squared hinge). ``alpha`` must lie in the dual domain."""
    m = np.asarray(m, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if check_loss(loss) == "hinge":
        return np.maximum(0.0, 1.0 - m) - alpha * (1.0 - m)
    return np.where(m < 1.0, (1.0 - m - 0.5 * alpha) ** 2, alpha * (m - 1.0) + 0.25 * alpha * alpha)


def parts_from_margins(m, alpha, y, w, loss):
    """:func:`objective_parts` from margins already computed."""
    risk = float(w @ loss_value(m, loss))
    neg_conj = alpha if loss == "hinge" else alpha - 0.25 * alpha * alpha
    dual_lin = float(w @ neg_conj)
    quad = float((w * alpha) @ m)                 # lam ||beta||^2 = <u, m>
    return m, risk, dual_lin, quad, float(w @ fenchel_young_residuals(m, alpha, loss))


def margins(alpha, K, y, lam, weights) -> np.ndarray:
    """m_i = y_i <phi(x_i), beta(alpha)> with beta(alpha) = sum_j alpha_j w_j y_j phi(x_j) / lam (eq. 6)."""
    K, y, lam, w, _ = check_weighted_problem(K, y, lam, weights, "hinge", psd=False)
    return margins_from_dual(check_vector(alpha, "alpha", y.shape[0]), K, y, lam, w)


def primal_objective(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """P_w(beta(alpha)) of eq. (2), with beta(alpha) from link (6), in kernel form."""
    K, y, lam, w, loss = check_weighted_problem(K, y, lam, weights, loss, psd=False)
    _, risk, _, quad, _ = objective_parts(check_vector(alpha, "alpha", y.shape[0]), K, y, lam, w, loss)
    return risk + 0.5 * quad


def dual_objective(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """D_w(alpha) of eq. (4) in kernel form; ``alpha`` must lie in the dual domain (Table 5)."""
    K, y, lam, w, loss = check_weighted_problem(K, y, lam, weights, loss, psd=False)
    _, _, dual_lin, quad, _ = objective_parts(check_dual_point(alpha, y.shape[0], loss), K, y, lam, w, loss)
    return dual_lin - 0.5 * quad


def duality_gap(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """P_w(beta(alpha)) - D_w(alpha) (eq. 10), as the sum of Fenchel-Young residuals (each >= 0)."""
    K, y, lam, w, loss = check_weighted_problem(K, y, lam, weights, loss, psd=False)
    return objective_parts(check_dual_point(alpha, y.shape[0], loss), K, y, lam, w, loss)[4]


def linear_primal_objective(beta, X, y, lam, weights, loss: str = "hinge") -> float:
    """P_w(beta) of eq. (2) with explicit features: sum_i w_i l(y_i x_i^T beta) + lam/2 ||beta||^2."""
    X = check_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    beta = check_vector(beta, "beta", X.shape[1])
    lam = check_positive(lam, "lam")
    w = check_vector(weights, "weights", X.shape[0])
    return float(w @ loss_value(y * (X @ beta), loss)) + 0.5 * lam * float(beta @ beta)


def linear_dual_objective(alpha, X, y, lam, weights, loss: str = "hinge") -> float:
    """D_w(alpha) of eq. (4) with explicit features: -sum w_i l*(-alpha_i) - ||X^T (y w alpha)||^2 / (2 lam)."""
    X = check_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    lam = check_positive(lam, "lam")
    w = check_vector(weights, "weights", X.shape[0])
    alpha = check_dual_point(alpha, X.shape[0], check_loss(loss))
    v = X.T @ (y * w * alpha)
    return float(-(w @ loss_conjugate(-alpha, loss))) - float(v @ v) / (2.0 * lam)


def weights_from_dual(alpha, X, y, lam, weights) -> np.ndarray:
    """Link (6) for rho = lam/2 ||.||^2: beta = grad rho*((w X_check)^T alpha) = X^T (y w alpha) / lam."""
    X = check_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    alpha = check_vector(alpha, "alpha", X.shape[0])
    w = check_vector(weights, "weights", X.shape[0])
    return X.T @ (y * w * alpha) / check_positive(lam, "lam")
