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
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validation import check_positive, check_vector
from .quadratic_ball import maximize_quadratic_on_ball
from .weighted_svm import _check_dual_point, _check_problem, _margins, fit_weighted_svm, loss_conjugate, loss_value

__all__ = ["GapQuadratic", "gap_quadratic", "reduced_ball_problem", "max_gap_on_ball", "DRSSSResult",
           "drsss", "drsss_screen"]


class GapQuadratic(NamedTuple):
    """G(w) = w^T A w + 2 b^T w + const (eq. 11 in the form of Theorem 4.1), and the margins."""

    A: np.ndarray
    b: np.ndarray
    const: float
    margins: np.ndarray

    def value(self, w) -> float:
        w = np.asarray(w, float)
        return float(w @ self.A @ w + 2 * self.b @ w + self.const)


def gap_quadratic(K, y, lam, w_tilde, alpha_hat, loss: str = "hinge", check_psd: bool = True) -> GapQuadratic:
    """The duality gap of problem w at (beta(alpha_hat, w_tilde), alpha_hat), as a quadratic in w.

    Parameters
    ----------
    K : (n, n) PSD Gram matrix; y : labels +-1; lam : lambda > 0.
    w_tilde : (n,) the weights the model was fitted with; alpha_hat : (n,) its dual point.
    """
    K, y, lam, w_tilde, loss = _check_problem(K, y, lam, w_tilde, loss, psd=check_psd, weights_name="w_tilde")
    alpha = _check_dual_point(alpha_hat, y.shape[0], loss, "alpha_hat")
    m = _margins(alpha, K, y, lam, w_tilde)
    c = loss_value(m, loss) + loss_conjugate(-alpha, loss)
    ya = y * alpha
    M = ya[:, None] * K * ya[None, :]
    A = M / (2.0 * lam)
    return GapQuadratic(A, 0.5 * c, float(w_tilde @ A @ w_tilde), m)


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
    """max over ||w - w_tilde|| <= S of G(w) (Theorem 4.1), optionally on the support of alpha."""
    S = check_positive(S, "S")
    w_tilde = np.asarray(w_tilde, float)
    if reduce and alpha is not None:
        support = np.flatnonzero(np.asarray(alpha) != 0)
        if support.size == 0:  # A = 0: a linear function on a ball
            return float(2 * q.b @ w_tilde + 2 * S * np.linalg.norm(q.b) + q.const)
        A2, b2, c2, const = reduced_ball_problem(q, w_tilde, support)
        return float(maximize_quadratic_on_ball(A2, b2, c2, S).value + const)
    return float(maximize_quadratic_on_ball(q.A, q.b, w_tilde, S).value + q.const)


class DRSSSResult(NamedTuple):
    """Outcome of :func:`drsss`: the mask of removable samples and what produced it."""

    removable: np.ndarray
    radius: float
    max_gap: float
    margins: np.ndarray
    alpha: np.ndarray
    fit_gap: float


def drsss(K, y, lam, w_tilde, S, loss: str = "hinge", alpha_hat=None, reduce: bool = True,
          tol: float = 1e-9, check_psd: bool = True) -> DRSSSResult:
    """DRSSS for W = {w : ||w - w_tilde|| <= S} (Theorem 3.5 with Theorem 4.1).

    Fits the weighted SVM at ``w_tilde`` (unless ``alpha_hat`` is given), maximises the gap over W,
    and applies rule (8): removable where m_i - sqrt(K_ii) R > 1 (hinge; >= 1 for squared hinge).
    The weights in W may be negative where the ball leaves the orthant; maximising over the whole
    ball only enlarges R, so the rule stays safe for the nonnegative weights in W.
    """
    K, y, lam, w_tilde, loss = _check_problem(K, y, lam, w_tilde, loss, psd=check_psd, weights_name="w_tilde")
    S = check_positive(S, "S")
    if alpha_hat is None:
        fit = fit_weighted_svm(K, y, lam, w_tilde, loss, tol=tol, check_psd=False)
        alpha, fit_gap = fit.alpha, fit.gap
    else:
        alpha = check_vector(alpha_hat, "alpha_hat", y.shape[0])
        fit_gap = float("nan")
    q = gap_quadratic(K, y, lam, w_tilde, alpha, loss, check_psd=False)
    g = max(max_gap_on_ball(q, w_tilde, S, alpha, reduce=reduce), 0.0)
    R = math.sqrt(2.0 * g / lam)
    lower = q.margins - np.sqrt(np.maximum(np.diag(K), 0.0)) * R
    removable = lower > 1.0 if loss == "hinge" else lower >= 1.0
    return DRSSSResult(removable, R, g, q.margins, alpha, fit_gap)


def drsss_screen(K, y, lam, w_tilde, S, loss: str = "hinge") -> np.ndarray:
    """Boolean mask, True = sample removable for every w with ||w - w_tilde|| <= S (Theorem 3.5)."""
    return drsss(K, y, lam, w_tilde, S, loss).removable
