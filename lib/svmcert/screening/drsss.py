"""Distributionally robust safe sample screening (Hanada et al., Theorem 3.5, eqs. 8-11, Sec. 4).

Fit the model once at a reference weight vector w_tilde. For any other weight vector w the pair
(beta_hat, alpha_hat) = (beta(alpha_hat, w_tilde), alpha_hat) is still a primal point and a dual
point of problem w, so its duality gap gives a gap-safe ball for beta*(w) (Lemma 3.1). As a
function of w that gap is

    G(w) = sum_i w_i c_i + (1/(2 lam)) (w_tilde^T M w_tilde + w^T M w),        (eq. 11)

with c_i = l(m_i) + l*(-alpha_i) (m the margins of beta_hat) and M = diag(alpha) (y y^T * K)
diag(alpha), a convex quadratic. Its maximum over W = {||w - w_tilde|| <= S} (Theorem 4.1) gives
one radius R valid for every w in W, and sample i is removable for all of W when its margin
interval [m_i - sqrt(K_ii) R, m_i + sqrt(K_ii) R] lies in Z[l] (eq. 8).

M vanishes outside the support of alpha, so the maximisation reduces to that support plus one
coordinate carrying the linear term of all other samples (:func:`reduced_ball_problem`); the
factorisation (Cholesky, or the eigendecomposition in the hard case) then costs O(|supp|^3)
instead of O(n^3).

G is maximised in its centred form. Its gradient at w_tilde is the vector rho of Fenchel-Young
residuals rho_i = l(m_i) + l*(-alpha_i) + alpha_i m_i >= 0 (2 (A w_tilde)_i = alpha_i m_i), and
G(w_tilde) = w_tilde^T rho, the fit's own gap, so

    G(w_tilde + delta) = w_tilde^T rho + rho^T delta + delta^T A delta,

a sum of non-negative terms at delta = 0, computed without the cancellation of eq. (11) as
written, whose parts sum_i w_i c_i and w_tilde^T A w_tilde are each of size sum_i w_i alpha_i
and cancel down to the (often tiny) gap: with weights of 1e50 the computed maximum fell below
G(w_tilde), even to 0, and support vectors were marked removable. The rule then allows for the
rounding of the margins, which the gap multiplies by the weights (:func:`_rounding_allowance`;
with weights far above 1 / lam it leaves nothing provably removable). As a last defence, a
maximum that is not finite or lies below G(w_tilde) (impossible in exact arithmetic) makes
:func:`drsss` refuse to screen (nothing removable, with a warning).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np

from .._validation import check_positive, check_vector
from ..exceptions import Float64RangeError
from .quadratic_ball import maximize_quadratic_on_ball
from .weighted_problem import (check_dual_point, check_weighted_problem, fenchel_young_residuals, loss_conjugate,
                               loss_value, margin_rounding, margins_from_dual, residual_slopes, rounding_gamma)
from .weighted_svm import fit_weighted_svm

__all__ = ["GapQuadratic", "gap_quadratic", "reduced_ball_problem", "max_gap_on_ball", "DRSSSResult",
           "drsss", "drsss_screen"]


class GapQuadratic(NamedTuple):
    """G(w) = w^T A w + 2 b^T w + const (eq. 11 in the form of Theorem 4.1), and the margins.

    ``residuals`` (optional) are the Fenchel-Young residuals rho of the fitted pair, the gradient
    of G at w_tilde (see the module docstring); :func:`max_gap_on_ball` uses them for the centred,
    cancellation-free form of G.
    """

    A: np.ndarray
    b: np.ndarray
    const: float
    margins: np.ndarray
    residuals: np.ndarray | None = None

    def value(self, w) -> float:
        w = np.asarray(w, float)
        return float(w @ self.A @ w + 2 * self.b @ w + self.const)


def gap_quadratic(K, y, lam, w_tilde, alpha_hat, loss: str = "hinge", check_psd: bool = True) -> GapQuadratic:
    """The duality gap of problem w at (beta(alpha_hat, w_tilde), alpha_hat), as a quadratic in w.

    Parameters
    ----------
    K : array of shape (n, n)
        Positive semidefinite Gram matrix <phi(x_i), phi(x_j)>.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda (rho = lam/2 ||beta||^2).
    w_tilde : array of shape (n,)
        The weights the model was fitted with.
    alpha_hat : array of shape (n,)
        Its dual point.
    loss : {"hinge", "squared_hinge"}
    check_psd : bool
        Check that ``K`` is positive semidefinite.

    Returns
    -------
    GapQuadratic
        ``A``, ``b`` and ``const`` of the gap w^T A w + 2 b^T w + const, the margins and the
        Fenchel-Young residuals.
    """
    K, y, lam, w_tilde, loss = check_weighted_problem(K, y, lam, w_tilde, loss, psd=check_psd, weights_name="w_tilde")
    alpha = check_dual_point(alpha_hat, y.shape[0], loss, "alpha_hat")
    m = margins_from_dual(alpha, K, y, lam, w_tilde)
    c = loss_value(m, loss) + loss_conjugate(-alpha, loss)
    ya = y * alpha
    M = ya[:, None] * K * ya[None, :]
    A = M / (2.0 * lam)
    return GapQuadratic(A, 0.5 * c, float(w_tilde @ A @ w_tilde), m, fenchel_young_residuals(m, alpha, loss))


def reduced_ball_problem(q: GapQuadratic, center, support):
    """Restrict max_{||w - center|| <= S} w^T A w + 2 b^T w to the rows of A that can be nonzero.

    Outside ``support`` A is zero, so there the objective is linear: 2 b_N^T w_N. For any split of
    the radius, the best w_N moves along b_N; so w_N contributes 2 b_N^T center_N + 2 ||b_N|| t
    with t the length spent outside the support. Returns (A', b', center', const') of dimension
    |support| + 1 whose maximum over the same radius equals the original one.
    """
    S = np.asarray(support)
    N = np.setdiff1d(np.arange(q.A.shape[0]), S)
    k = S.size
    A2 = np.zeros((k + 1, k + 1))
    A2[:k, :k] = q.A[np.ix_(S, S)]
    bN = q.b[N]
    b2 = np.append(q.b[S], np.linalg.norm(bN))
    c2 = np.append(np.asarray(center, float)[S], 0.0)
    const = q.const + 2.0 * float(bN @ np.asarray(center, float)[N])
    return A2, b2, c2, const


def max_gap_on_ball(q: GapQuadratic, w_tilde, S, alpha=None, reduce: bool = True) -> float:
    """max over ||w - w_tilde|| <= S of G(w) (Theorem 4.1), optionally on the support of alpha.

    With ``q.residuals`` (as :func:`gap_quadratic` returns it) the maximum is taken in the centred
    form w_tilde^T rho + max_{||delta|| <= S} delta^T A delta + rho^T delta (module docstring),
    which is >= G(w_tilde) term by term; otherwise eq. (11) as written is maximised.
    """
    S = check_positive(S, "S")
    w_tilde = np.asarray(w_tilde, float)
    if q.residuals is not None:
        return _max_gap_centred(q, w_tilde, S, alpha, reduce)
    if reduce and alpha is not None:
        support = np.flatnonzero(np.asarray(alpha) != 0)
        if support.size == 0:  # A = 0: a linear function on a ball
            return float(2 * q.b @ w_tilde + 2 * S * np.linalg.norm(q.b) + q.const)
        A2, b2, c2, const = reduced_ball_problem(q, w_tilde, support)
        return float(maximize_quadratic_on_ball(A2, b2, c2, S).value + const)
    return float(maximize_quadratic_on_ball(q.A, q.b, w_tilde, S).value + q.const)


def _max_gap_centred(q: GapQuadratic, w_tilde, S, alpha, reduce) -> float:
    """w_tilde^T rho + max over ||delta|| <= S of delta^T A delta + 2 (rho / 2)^T delta."""
    rho = np.asarray(q.residuals, float)
    at_centre = float(w_tilde @ rho)                 # weights and residuals >= 0: no cancellation
    half = 0.5 * rho
    if reduce and alpha is not None:
        support = np.flatnonzero(np.asarray(alpha) != 0)
        if support.size == 0:                        # A = 0: a linear function on a ball
            return at_centre + 2.0 * S * float(np.linalg.norm(half))
        A2, b2, c2, const = reduced_ball_problem(q._replace(b=half, const=0.0), np.zeros(w_tilde.size), support)
        return at_centre + float(maximize_quadratic_on_ball(A2, b2, c2, S).value + const)
    return at_centre + float(maximize_quadratic_on_ball(q.A, half, np.zeros(w_tilde.size), S).value)


class DRSSSResult(NamedTuple):
    """Outcome of :func:`drsss`: the mask of removable samples and what produced it.

    ``radius`` = sqrt(2 max_gap / lam) and ``max_gap`` are the theorem's values from the computed
    gap; ``rounding`` is the allowance for floating-point error that the mask also respects (see
    :func:`drsss`). After a refusal, radius and max_gap are inf and nothing is removable.
    """

    removable: np.ndarray
    radius: float
    max_gap: float
    margins: np.ndarray
    alpha: np.ndarray
    fit_gap: float
    rounding: float = 0.0


_EPS = float(np.finfo(float).eps)


def _rounding_allowance(K, y, lam, w_tilde, alpha, S, loss, q, g):
    """Bounds on the floating-point error of the margins (mu, per sample) and of the maximal gap (E).

    The margins m = y (K (y w_tilde alpha)) / lam are dot products of length n: each is within
    mu_i = gamma (|K| |w_tilde alpha|)_i / lam of the exact margin of beta(alpha_hat), with
    gamma = (n + 2) eps / (1 - (n + 2) eps) (Higham's bound for any summation order, plus the
    roundings of w_tilde alpha and of the division). The residual rho_i moves by at most L_i mu_i
    when m_i does (L_i = max(alpha_i, 1 - alpha_i) for the hinge loss, max(alpha_i,
    2 (|1 - m_i - alpha_i / 2| + mu_i)) for the squared hinge), so over the ball the gap
    w^T rho + ... moves by at most sum_i w_tilde_i L_i mu_i + S ||L mu|| (Cauchy-Schwarz). Added:
    gamma S^2 ||A_supp||_F for the rounding of A = M / (2 lam), and 8 n eps G for the evaluation of
    G itself (sums of non-negative terms; the ball solver's certificate tolerance is 4 n eps).
    These terms are usually ~1e-5 of G; with weights far above 1 / lam (the hinge terms of a
    near-hard-margin problem, whose margins are known to ~1e-16 but are multiplied by the weights)
    they dominate, and then nothing can be proved removable."""
    n = y.shape[0]
    gamma = rounding_gamma(n)
    mu = margin_rounding(K, lam, w_tilde, alpha)
    L = residual_slopes(alpha, q.margins, mu, loss)
    with np.errstate(over="ignore", invalid="ignore"):
        Lmu = L * mu
        supp = np.flatnonzero(alpha != 0)
        E_A = gamma * S * S * float(np.linalg.norm(q.A[np.ix_(supp, supp)])) if supp.size else 0.0
        E = float(w_tilde @ Lmu) + S * float(np.linalg.norm(Lmu)) + E_A + 8.0 * n * _EPS * g
    return mu, E


def drsss(K, y, lam, w_tilde, S, loss: str = "hinge", alpha_hat=None, reduce: bool = True,
          tol: float = 1e-9, check_psd: bool = True) -> DRSSSResult:
    """DRSSS for W = {w : ||w - w_tilde|| <= S} (Theorem 3.5 with Theorem 4.1).

    Fits the weighted SVM at ``w_tilde`` (unless ``alpha_hat`` is given), maximises the gap over W,
    and applies rule (8): removable where m_i - sqrt(K_ii) R > 1 (hinge; >= 1 for squared hinge).
    The weights in W may be negative where the ball leaves the orthant; maximising over the whole
    ball only enlarges R, so the rule stays safe for the nonnegative weights in W.

    The rule is applied with its floating-point error accounted for: a sample is removable only if
    m_i - mu_i - sqrt(K_ii) R' clears the threshold, with mu_i a bound on the rounding error of
    m_i and R' = sqrt(2 (G + E) / lam), E a bound on the error of the maximal gap G
    (``_rounding_allowance``). On well-scaled problems this changes no decision except for
    samples within about 1e-5 R of the threshold (whose removal rounding could not prove); with
    weights far above 1 / lam (a near-hard-margin problem) E dominates and nothing is removable.
    If the computed maximum is not finite or lies below the gap at w_tilde (impossible in exact
    arithmetic), the rule refuses: nothing removable, a RuntimeWarning, radius and max_gap inf.

    Returns
    -------
    DRSSSResult
        ``removable`` (the mask), ``radius`` = sqrt(2 G / lam), ``max_gap`` = G, ``margins``,
        ``alpha``, ``fit_gap`` (NaN when ``alpha_hat`` is given) and ``rounding`` = E.
    """
    K, y, lam, w_tilde, loss = check_weighted_problem(K, y, lam, w_tilde, loss, psd=check_psd, weights_name="w_tilde")
    S = check_positive(S, "S")
    if alpha_hat is None:
        fit = fit_weighted_svm(K, y, lam, w_tilde, loss, tol=tol, check_psd=False)
        alpha, fit_gap = fit.alpha, fit.gap
    else:
        alpha = check_vector(alpha_hat, "alpha_hat", y.shape[0])
        fit_gap = float("nan")
    q = gap_quadratic(K, y, lam, w_tilde, alpha, loss, check_psd=False)
    try:
        g = max_gap_on_ball(q, w_tilde, S, alpha, reduce=reduce)
    except Float64RangeError:
        g = math.inf                # the ball's maximum overflows (a huge S): refuse below, as documented
    at_centre = float(w_tilde @ q.residuals)
    mu, E = _rounding_allowance(K, y, lam, w_tilde, alpha, S, loss, q, g) if math.isfinite(g) else (None, math.inf)
    if not (math.isfinite(g) and g >= at_centre and math.isfinite(E)):
        # impossible in exact arithmetic (the maximum over W includes w_tilde), or beyond float64:
        # the bound cannot be trusted, so nothing is proved removable
        warnings.warn(f"drsss: the maximal gap over W ({g:.6g}) is not a finite number at least the gap "
                      f"at w_tilde ({at_centre:.6g}); refusing to screen (nothing removable)",
                      RuntimeWarning, stacklevel=2)
        return DRSSSResult(np.zeros(y.shape[0], bool), math.inf, math.inf, q.margins, alpha, fit_gap, math.inf)
    R = math.sqrt(2.0 * g / lam)
    R_safe = math.sqrt(2.0 * (g + E) / lam)
    spread = np.sqrt(np.maximum(np.diag(K), 0.0))
    lower = q.margins - mu - spread * R_safe
    removable = lower > 1.0 if loss == "hinge" else lower >= 1.0
    return DRSSSResult(removable, R, g, q.margins, alpha, fit_gap, E)


def drsss_screen(K, y, lam, w_tilde, S, loss: str = "hinge") -> np.ndarray:
    """Boolean mask, True = sample removable for every w with ||w - w_tilde|| <= S (Theorem 3.5).

    See :func:`drsss` for the floating-point allowance and the refusal to screen.

    Parameters
    ----------
    K : array of shape (n, n)
        Positive semidefinite Gram matrix <phi(x_i), phi(x_j)>.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda (rho = lam/2 ||beta||^2).
    w_tilde : array of shape (n,)
        The training weights, the centre of W = {w : ||w - w_tilde|| <= S}.
    S : float > 0
        The radius of W.
    loss : {"hinge", "squared_hinge"}

    Returns
    -------
    ndarray of bool, shape (n,)
        True where sample i can be removed for every weight vector in W.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.kernels import linear_kernel
    >>> from svmcert.screening import drsss_screen
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> K, w = linear_kernel(X), np.full(100, 1 / 100)
    >>> int(drsss_screen(K, y, 1e-2, w, S=1e-3).sum())      # removable for every w in the ball
    63
    >>> int(drsss_screen(K, y, 1e-2, w, S=1e-2).sum())      # a ball as large as ||w||: none
    0
    """
    return drsss(K, y, lam, w_tilde, S, loss).removable
