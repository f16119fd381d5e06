"""The gap-safe ball and safe sample screening for one weight vector (Hanada et al., Lemmas 3.1-3.2).

Lemma 3.1: if P_w is kappa-strongly convex (kappa = lam for rho = lam/2 ||beta||^2), then for any
beta_hat and any alpha_hat,

    ||beta_hat - beta*(w)|| <= r = sqrt(2 (P_w(beta_hat) - D_w(alpha_hat)) / kappa).

Lemma 3.2: over that ball the margin y_i <phi(x_i), beta> ranges over
[m_i - ||phi(x_i)|| r, m_i + ||phi(x_i)|| r] (Lemma A.5), with ||phi(x_i)|| = sqrt(K_ii); if that
interval lies inside Z[l] = {t : dl(t) = {0}} then link (7) forces alpha*_i = 0 and sample i can be
removed. Z[l] = (1, inf) for the hinge loss and [1, inf) for the squared hinge (Table 5), and only
the lower end matters.

Here beta_hat = beta(alpha_hat) = sum_j alpha_hat_j w_j y_j phi(x_j) / lam (link 6), so the whole
rule needs only the Gram matrix.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validation import check_positive, check_real
from .weighted_problem import check_dual_point, check_weighted_problem, objective_parts

__all__ = ["gap_safe_radius", "MarginInterval", "margin_interval", "sss_screen"]


_TINY = float(np.finfo(float).tiny)


def gap_safe_radius(primal, dual, kappa) -> float:
    """r = sqrt(2 (P - D) / kappa), the radius of the gap-safe ball (Lemma 3.1).

    Parameters
    ----------
    primal : float
        P_w(beta_hat), finite.
    dual : float
        D_w(alpha_hat), finite or -inf (which gives r = inf). Both accept Python or numpy real
        numbers, or 0-d arrays; strings and booleans are rejected (they are not objective
        values, even where ``float()`` would convert them).
    kappa : float > 0
        Strong-convexity modulus of P_w (lam for rho = lam/2 ||beta||^2).

    Returns
    -------
    float
        r, with ||beta_hat - beta*(w)|| <= r.

    Raises
    ------
    ValueError
        Naming the argument: ``primal`` or ``dual`` not a real number (string, bool, array),
        ``primal`` not finite, ``dual`` NaN or +inf, ``kappa`` not a finite number > 0.
        If P < D beyond rounding (weak duality fails: the pair is not a primal value and a dual
        value of the same problem). Differences of P and D within 1e3 eps max(abs(P), abs(D), 1),
        the rounding of the sums that produce them, count as a zero gap.

    Examples
    --------
    >>> from svmcert.screening import gap_safe_radius
    >>> gap_safe_radius(1.5, 1.0, kappa=4.0)            # sqrt(2 * 0.5 / 4)
    0.5
    """
    kappa = check_positive(kappa, "kappa")
    P, D = check_real(primal, "primal"), check_real(dual, "dual")
    if not math.isfinite(P):
        raise ValueError(f"primal: expected a finite number, got {P!r}")
    if math.isnan(D) or D == math.inf:
        raise ValueError(f"dual: expected a finite number or -inf, got {D!r}")
    if D == -math.inf:
        return math.inf
    gap = P - D
    if gap < 0:
        if -gap > 1e3 * np.finfo(float).eps * max(abs(P), abs(D), 1.0):
            raise ValueError(f"primal, dual: weak duality requires primal >= dual, got P - D = {gap:.3g}")
        gap = 0.0
    # where 2 (P - D) / kappa, or P - D itself, over- or underflows, the same radius from square
    # roots, which stay in range wherever the radius does; ordinary input takes the first form
    if not math.isfinite(gap):
        return 2.0 * math.sqrt(0.5 * P - 0.5 * D) / math.sqrt(kappa)
    q = 2.0 * gap / kappa
    if gap == 0.0 or (math.isfinite(q) and q >= _TINY):
        return math.sqrt(q)
    return math.sqrt(2.0) * math.sqrt(gap) / math.sqrt(kappa)


class MarginInterval(NamedTuple):
    """Lemma 3.2's interval [lower, upper] for every margin y_i <phi(x_i), beta*(w)>, with the
    centre m (margins of beta(alpha_hat)), the radius r of Lemma 3.1 and the gap it came from."""

    lower: np.ndarray
    upper: np.ndarray
    margins: np.ndarray
    radius: float
    gap: float


def margin_interval(K, y, lam, weights, alpha_hat, loss: str = "hinge", check_psd: bool = True) -> MarginInterval:
    """The range of each margin over the gap-safe ball around beta(alpha_hat) (Lemmas 3.1, A.5).

    Parameters
    ----------
    K : array of shape (n, n)
        Positive semidefinite Gram matrix <phi(x_i), phi(x_j)>.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda (rho = lam/2 ||beta||^2).
    weights : array of shape (n,)
        Sample weights w_i >= 0.
    alpha_hat : array of shape (n,)
        A point of the dual domain of ``loss`` (Table 5).
    loss : {"hinge", "squared_hinge"}
    check_psd : bool
        Check that ``K`` is positive semidefinite.

    Returns
    -------
    MarginInterval
    """
    K, y, lam, w, loss = check_weighted_problem(K, y, lam, weights, loss, psd=check_psd)
    alpha = check_dual_point(alpha_hat, y.shape[0], loss, "alpha_hat")
    m, _, _, _, gap = objective_parts(alpha, K, y, lam, w, loss)
    # the Fenchel-Young sum is >= 0 term by term; max() only absorbs rounding of tiny negatives
    gap = max(gap, 0.0)
    r = math.sqrt(2.0 * gap / lam)
    spread = np.sqrt(np.maximum(np.diag(K), 0.0)) * r
    return MarginInterval(m - spread, m + spread, m, r, gap)


def sss_screen(K, y, lam, weights, alpha_hat, loss: str = "hinge", check_psd: bool = True) -> np.ndarray:
    """Safe sample screening for one weight vector (Lemma 3.2 with the ball of Lemma 3.1).

    Parameters
    ----------
    K : array of shape (n, n)
        Positive semidefinite Gram matrix <phi(x_i), phi(x_j)>.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda (rho = lam/2 ||beta||^2).
    weights : array of shape (n,)
        Sample weights w_i >= 0.
    alpha_hat : array of shape (n,)
        Any point of the dual domain of ``loss`` (Table 5), e.g. an approximate solution from
        :func:`fit_weighted_svm`; the closer to optimal, the more samples are screened.
    loss : {"hinge", "squared_hinge"}
    check_psd : bool
        Check that ``K`` is positive semidefinite.

    Returns
    -------
    ndarray of bool, shape (n,)
        True where alpha*_i(w) = 0 is guaranteed (sample i can be removed without changing
        beta*(w)): the lower end of :func:`margin_interval` is > 1 (hinge, Z = (1, inf)) or
        >= 1 (squared hinge, Z = [1, inf)).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.kernels import linear_kernel
    >>> from svmcert.screening import fit_weighted_svm, sss_screen
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> K, w = linear_kernel(X), np.full(100, 1 / 100)
    >>> fit = fit_weighted_svm(K, y, lam=1e-2, weights=w)
    >>> safe = sss_screen(K, y, 1e-2, w, fit.alpha)
    >>> int(safe.sum()), bool(np.all(fit.alpha[safe] == 0))     # 77 of 100 samples removable
    (77, True)
    """
    lower = margin_interval(K, y, lam, weights, alpha_hat, loss, check_psd).lower
    return lower > 1.0 if loss == "hinge" else lower >= 1.0
