"""The weighted SVM of Definition 2.1 with explicit features (a linear kernel), no Gram matrix.

Same problem and certificate as :func:`~svmcert.screening.weighted_svm.fit_weighted_svm`,

    P_w(beta) = sum_i w_i l(y_i <x_i, beta>) + lam/2 ||beta||^2,
    D_w(alpha) = sum_i w_i alpha_i - ||X^T (y w alpha)||^2 / (2 lam)          (hinge),

but the epochs keep beta = X^T (y w alpha) / lam itself (d numbers) instead of n margins, so an
epoch costs O(n d) and no n x n matrix is ever formed (Hsieh et al., 2008). The steps are the
exact coordinate maximisers of :mod:`svmcert.screening._weighted_dca` (the low-rank phase of
``fit_weighted_svm`` with the features as the factor); the compiled loop certifies after every
epoch from beta recomputed from alpha. Every answer is certified the same way:
margins recomputed from X and beta, gap = sum_i w_i [l(m_i) + l*(-alpha_i) + alpha_i m_i], a sum of
non-negative Fenchel-Young residuals.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._validation import check_iterations, check_labels, check_matrix, check_positive, check_vector
from ..exceptions import ConvergenceWarning
from ._weighted_dca import coordinate_step_compiled, epoch_factor_numpy
from .weighted_problem import check_loss, dual_domain, fenchel_young_residuals, loss_value

__all__ = ["LinearWeightedSVM", "fit_weighted_linear", "certified_radius"]


@dataclass
class LinearWeightedSVM:
    """Result of :func:`fit_weighted_linear`.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual point in [0, 1]^n (hinge) or [0, inf) (squared hinge); entries with w_i = 0 are set
        by link (7) at the final margins.
    beta : ndarray of shape (d,)
        X^T (y w alpha) / lam, the primal point of link (6).
    margins : ndarray of shape (n,)
        y_i <x_i, beta>.
    primal, dual, gap : float
        P_w(beta), D_w(alpha) and the certified gap (sum of residuals).
    n_iter : int
        Epochs.
    converged : bool
        Whether gap <= tol * primal was reached.
    radius : float
        Certified bound on ||beta - beta*(w)||: sqrt(2 (gap + its rounding) / lam) plus the
        rounding of beta itself (Higham's bound gamma_k = k eps / (1 - k eps) on the dot products).
    """

    alpha: np.ndarray
    beta: np.ndarray
    margins: np.ndarray
    primal: float
    dual: float
    gap: float
    n_iter: int
    converged: bool
    loss: str = "hinge"
    radius: float = float("nan")


def _certify(X, y, w, alpha, lam, loss):
    beta = X.T @ (y * w * alpha) / lam
    m = y * (X @ beta)
    quad = lam * float(beta @ beta)
    primal = float(w @ loss_value(m, loss)) + 0.5 * quad
    neg_conj = alpha if loss == "hinge" else alpha - 0.25 * alpha * alpha
    dual = float(w @ neg_conj) - 0.5 * quad
    gap = float(w @ fenchel_young_residuals(m, alpha, loss))
    return beta, m, primal, dual, gap


ORDERS = 8
"""Random orders drawn per fit; epoch k visits the samples in order k mod ORDERS."""


@njit(cache=True, nogil=True)
def _run_compiled(X, y, w, alpha, lam, orders, tol, max_epochs, squared):
    """Epochs of exact coordinate steps on beta, each followed by a certificate computed from
    beta recomputed from alpha (O(n d)): stop when gap <= tol * P or after max_epochs."""
    n, d = X.shape
    v = np.zeros(d)
    epoch = 0
    while True:
        v[:] = 0.0
        for i in range(n):
            c = y[i] * w[i] * alpha[i] / lam
            if c != 0.0:
                for k in range(d):
                    v[k] += X[i, k] * c
        risk = 0.0
        gap = 0.0
        quad = 0.0
        for k in range(d):
            quad += v[k] * v[k]
        for i in range(n):
            mi = 0.0
            for k in range(d):
                mi += X[i, k] * v[k]
            mi *= y[i]
            h = max(0.0, 1.0 - mi)
            a = alpha[i]
            if squared:
                risk += w[i] * h * h
                gap += w[i] * ((1.0 - mi - 0.5 * a) ** 2 if mi < 1.0 else a * (mi - 1.0) + 0.25 * a * a)
            else:
                risk += w[i] * h
                gap += w[i] * (h - a * (1.0 - mi))
        P = risk + 0.5 * lam * quad
        if gap <= tol * max(P, 1e-300) or epoch >= max_epochs:
            return epoch
        order = orders[epoch % orders.shape[0]]
        for i in order:
            kii = 0.0
            mi = 0.0
            for k in range(d):
                kii += X[i, k] * X[i, k]
                mi += X[i, k] * v[k]
            mi *= y[i]
            a = alpha[i]
            new = coordinate_step_compiled(a, mi, w[i], kii, lam, squared)
            delta = new - a
            if delta != 0.0:
                alpha[i] = new
                c = y[i] * w[i] * delta / lam
                for k in range(d):
                    v[k] += X[i, k] * c
        epoch += 1


def certified_radius(X, y, w, alpha, beta, gap, lam) -> float:
    """sqrt(2 (gap + e_gap) / lam) + ||e_beta||: Lemma 3.1 with the rounding of the computed
    numbers. e_beta = gamma_n |X|^T |y w alpha| / lam bounds the error of beta; the margins' error
    e_m = gamma_d |X| |beta| + |X| e_beta moves each Fenchel-Young residual by at most w_i e_m,i
    (times max(1, alpha_i) for the hinge), which bounds the error of the computed gap."""
    n, d = X.shape
    eps = np.finfo(float).eps
    g_n, g_d = n * eps / (1 - n * eps), d * eps / (1 - d * eps)
    A = np.abs(X)
    e_beta = g_n * (A.T @ np.abs(y * w * alpha)) / lam
    e_m = g_d * (A @ np.abs(beta)) + A @ e_beta
    e_gap = float(np.sum(w * e_m * np.maximum(1.0, np.abs(alpha)))) + 4 * n * eps * abs(gap)
    return float(np.sqrt(2.0 * (max(gap, 0.0) + e_gap) / lam) + np.linalg.norm(e_beta))


def fit_weighted_linear(X, y, lam, weights, loss: str = "hinge", *, tol: float = 1e-12, max_epochs: int = 100000,
                        seed: int = 0, alpha0=None, engine: str = "numba") -> LinearWeightedSVM:
    """Solve problems (2)/(4) with rho = lam/2 ||beta||^2 for explicit features by exact dual
    coordinate ascent on beta (O(n d) per epoch).

    Parameters
    ----------
    X : array of shape (n, d)
        Features, rows are samples.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
    weights : array of shape (n,)
        w_i >= 0 (zeros allowed: the sample takes no part).
    loss : {"hinge", "squared_hinge"}
    tol : float
        Stop when the certified gap <= tol * P_w (tested after every epoch from beta recomputed
        from alpha, so incremental rounding cannot fake convergence).
    max_epochs : int
        Limit; reaching it warns (:class:`~svmcert.signsvm.ConvergenceWarning`); the gap is still
        a valid certificate.
    seed : int
        The coordinate orders (ORDERS random permutations from their own generator, cycled).
    alpha0 : array of shape (n,), optional
        Warm start (clipped to the dual domain), e.g. the solution at nearby weights.
    engine : {"numba", "numpy"}
        Compiled epochs, or the reference loop.

    Returns
    -------
    LinearWeightedSVM
    """
    X = np.ascontiguousarray(check_matrix(X, "X"))
    y = check_labels(y, X.shape[0])
    lam = check_positive(lam, "lam")
    w = check_vector(weights, "weights", X.shape[0])
    if w.min() < 0:
        raise ValueError(f"weights: expected nonnegative entries (Definition 2.1), found {w.min():g}")
    loss = check_loss(loss)
    tol = check_positive(tol, "tol")
    max_epochs = check_iterations(max_epochs, "max_epochs")
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    n = X.shape[0]
    lo, hi = dual_domain(loss)
    alpha = np.zeros(n) if alpha0 is None else np.clip(check_vector(alpha0, "alpha0", n), lo, hi)
    active = np.flatnonzero(w > 0)
    alpha[w <= 0] = 0.0
    squared = loss == "squared_hinge"
    rng = np.random.default_rng(seed)
    orders = np.array([rng.permutation(active) for _ in range(ORDERS)], dtype=np.int64).reshape(ORDERS, -1)
    if engine == "numba":
        epoch = int(_run_compiled(X, y, w, alpha, lam, orders, tol, max_epochs, squared))
        beta, m, P, D, gap = _certify(X, y, w, alpha, lam, loss)
        done = gap <= tol * max(P, np.finfo(float).tiny)
    else:
        epoch = 0
        while True:
            beta, m, P, D, gap = _certify(X, y, w, alpha, lam, loss)
            done = gap <= tol * max(P, np.finfo(float).tiny)
            if done or epoch >= max_epochs:
                break
            v = beta.copy()
            epoch_factor_numpy(orders[epoch % ORDERS], X, y, w, alpha, v, lam, squared)
            epoch += 1
    if not done:
        warnings.warn(f"fit_weighted_linear: stopped at max_epochs={max_epochs} with relative gap "
                      f"{gap / max(P, np.finfo(float).tiny):.3g} > tol={tol:g}", ConvergenceWarning, stacklevel=2)
    idle = w <= 0
    if idle.any():
        alpha[idle] = (m[idle] < 1.0).astype(float) if not squared else 2.0 * np.maximum(0.0, 1.0 - m[idle])
    radius = certified_radius(X, y, w, alpha, beta, gap, lam)
    return LinearWeightedSVM(alpha, beta, m, P, D, gap, epoch, bool(done), loss, radius)
