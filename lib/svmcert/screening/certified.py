"""DRSSS at the exact optimum, with every decision certified (our addition to Theorem 3.5).

The paper fits the SVM once at w~ and screens with that fit. At the *exact* optimum alpha* of
that fit the gap of eq. (11), as a function of w, has no linear part: its gradient at w~ is the
vector of Fenchel-Young residuals l(m_i) + l*(-alpha_i) + alpha_i m_i, all zero at the optimum.
So

    G(w) = (w - w~)^T M (w - w~) / (2 lam),   M = diag(alpha*) Q diag(alpha*),  Q = diag(y) K diag(y),

and over the ball ||w - w~|| <= S its maximum is S^2 lambda_max(M) / (2 lam): the DRSSS radius is
R = S sqrt(lambda_max(M)) / lam, and per-weight screening (ISSS) at w uses
r(w) = sqrt((w - w~)^T M (w - w~)) / lam. One eigenvalue serves every S. Sample i is removed when
m*_i - sqrt(K_ii) R > 1.

A computed fit alpha_hat only approximates alpha*. :func:`optimum_screening` turns its certified
duality gap into intervals that contain the exact optimum's margins and sqrt(lambda_max(M)), so
each decision is either certain (the same at every point of the intervals) or reported as
undecided. Counts with no undecided sample are exact: another machine, solver or floating-point
kernel that certifies its own fit must find the same ones.

How the intervals are obtained (hinge loss):

1. Lemma 3.1: ||beta_hat - beta*|| <= r0 = sqrt(2 gap / lam), so m*_i lies within sqrt(K_ii) r0
   of m_hat_i (plus the rounding of m_hat). Samples whose interval lies above 1 have alpha*_i = 0,
   below 1 alpha*_i = 1 (link 7): the set C with alpha*_C known exactly.
2. On the rest, F, alpha*_F maximises the dual with alpha_C fixed: a box-constrained concave
   quadratic with Hessian -D Q_FF D / lam (D = diag(w~_F)), curvature between mu and L. One
   projected-gradient step x+ = clip(alpha_hat_F + grad / L, 0, 1) contracts the distance to
   alpha*_F by 1 - mu/L, hence ||alpha_hat_F - alpha*_F|| <= L ||alpha_hat_F - x+|| / mu =: B_F.
   (mu = 0 -- more uncertain samples than the rank of Q_FF -- leaves B_F infinite.)
3. alpha*_i > 0 wherever alpha_hat_i > B_F: such a sample has m*_i <= 1 and is never removed. The
   margins are also bounded by |m*_i - m~_i| <= ||Q_iF D|| B_F / lam, m~ the margins with alpha_C
   set to its known values.
4. sqrt(lambda_max) is the spectral norm of diag(alpha) L_Q (Q = L_Q L_Q^T), so it moves by at most
   ||diag(alpha_hat - alpha*) L_Q|| <= sqrt(sum_C delta_i^2 K_ii + B_F^2 max_F K_ii) =: E.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_labels, check_matrix, check_positive, check_vector

__all__ = ["Decisions", "OptimumScreening", "optimum_screening", "duplicate_groups"]

EPS = np.finfo(float).eps


@dataclass
class Decisions:
    """Screening decisions at the exact optimum: ``certain`` (removed for every point of the
    intervals), ``possible`` (removed for some point), ``point`` (at the fit itself)."""

    certain: np.ndarray
    possible: np.ndarray
    point: np.ndarray

    @property
    def undecided(self) -> int:
        """Samples whose decision the certificate cannot fix (0: the count is exact)."""
        return int(np.count_nonzero(self.possible & ~self.certain))

    @property
    def removed(self) -> int:
        """Samples certainly removed (the exact count when :attr:`undecided` is 0)."""
        return int(np.count_nonzero(self.certain))


@dataclass
class OptimumScreening:
    """Certified intervals around the exact optimum of a fit at w~ (:func:`optimum_screening`).

    Attributes
    ----------
    lam : float
        lambda.
    spread : ndarray of shape (n,)
        sqrt(K_ii).
    margins : ndarray of shape (n,)
        The fit's margins.
    margin_lo, margin_hi : ndarray of shape (n,)
        Bounds on the exact optimum's margins.
    inside : ndarray of bool, shape (n,)
        alpha*_i > 0 is certain (m*_i <= 1: never removable).
    root, root_lo, root_hi : float
        sqrt(lambda_max(M)) at the fit, and bounds at the optimum.
    r0 : float
        The fit's gap-safe radius.
    free_bound : float
        B_F (bound on ||alpha_hat_F - alpha*_F||).
    uncertain : int
        Samples in F (not fixed by the gap alone).
    alpha : ndarray of shape (n,)
        The dual point used (the fit's, split evenly between copies).
    copies : int
        Samples that repeat an earlier one (same features and label).
    root_error : float
        The bound E on abs(sqrt(lambda_max) at the fit - at the optimum) (any weight set whose
        largest eigenvalue is taken over fewer directions obeys it too).
    slack : float
        Relative allowance for the rounding of computed eigenvalues.
    isss_error : float
        Bound on abs(sqrt(d^T M_hat d) - sqrt(d^T M* d)) per unit of ||d|| summed over copies.
    """

    lam: float
    spread: np.ndarray
    margins: np.ndarray
    margin_lo: np.ndarray
    margin_hi: np.ndarray
    inside: np.ndarray
    root: float
    root_lo: float
    root_hi: float
    r0: float
    free_bound: float
    uncertain: int
    alpha: np.ndarray
    copies: int = 0
    root_error: float = 0.0
    isss_error: float = 0.0
    slack: float = 0.0
    _quad: object = None

    def radius(self, S) -> float:
        """R = S sqrt(lambda_max(M)) / lam at the fit (the paper's radius at the optimum)."""
        return float(S) * self.root / self.lam

    def _decide(self, reach_point, reach_lo, reach_hi) -> Decisions:
        s = self.spread
        certain = self.margin_lo - s * reach_hi > 1.0
        possible = (self.margin_hi - s * reach_lo > 1.0) & ~self.inside
        point = self.margins - s * reach_point > 1.0
        return Decisions(certain, possible | certain, point)

    def drsss(self, S, root=None) -> Decisions:
        """Rule (8) for the ball ||w - w~|| <= S at the exact optimum (S = 0: plain screening).

        ``root``: sqrt of the largest value of d^T M d over the allowed unit directions d, computed
        at the fit, when the weight set is not the full ball (e.g. only some weights may move);
        its error obeys the same bound E. Default: sqrt(lambda_max(M)).
        """
        S = float(S)
        if S < 0:
            raise ValueError(f"S: expected a number >= 0, got {S}")
        if root is None:
            root, lo, hi = self.root, self.root_lo, self.root_hi
        else:
            root = float(root)
            lo = max(root * np.sqrt(max(1 - self.slack, 0.0)) - self.root_error, 0.0)
            hi = root * np.sqrt(1 + self.slack) + self.root_error
        lam = self.lam
        reach_hi = S * hi / lam if S > 0 else 0.0       # (0 * inf when the bound is infinite)
        return self._decide(S * root / lam, S * lo / lam, reach_hi)

    def isss(self, directions, subset=None, chunk: int = 512) -> dict:
        """Per-weight screening (Lemma 3.2 with the gap G(w) at the optimum) for the weights
        w = w~ + d, one row d of ``directions`` each.

        Returns a dict of arrays over the weights: ``removed`` (certain), ``possible`` and
        ``point`` counts, and ``radius`` r(w) at the fit; with a mask ``subset`` (e.g. the samples
        DRSSS certainly removes), ``not_subset``: the number of weights at which some sample of
        the mask is not certainly removed.
        """
        D = np.atleast_2d(np.asarray(directions, float))
        lam, s = self.lam, self.spread
        out = {k: np.zeros(D.shape[0], int) for k in ("removed", "possible", "point")}
        radius = np.zeros(D.shape[0])
        not_subset = 0
        for start in range(0, D.shape[0], chunk):
            part = D[start:start + chunk]
            q2, norm_g, norm = self._quad(part)
            q = np.sqrt(np.maximum(q2, 0.0))                           # sqrt(d^T M_hat d)
            e = np.minimum(np.where(norm_g > 0, self.isss_error * norm_g, 0.0),
                           np.where(norm > 0, self.root_error * norm, 0.0))
            hi = (q * (1 + 1e-12) + e) / lam
            lo = np.maximum(q * (1 - 1e-12) - e, 0.0) / lam
            certain = self.margin_lo[None, :] - s[None, :] * hi[:, None] > 1.0
            possible = ((self.margin_hi[None, :] - s[None, :] * lo[:, None] > 1.0) & ~self.inside[None, :]) | certain
            point = self.margins[None, :] - s[None, :] * (q / lam)[:, None] > 1.0
            sl = slice(start, start + part.shape[0])
            if subset is not None:
                not_subset += int(np.sum(np.any(subset[None, :] & ~certain, axis=1)))
            out["removed"][sl], out["possible"][sl], out["point"][sl] = certain.sum(1), possible.sum(1), point.sum(1)
            radius[sl] = q / lam
        out["radius"] = radius
        if subset is not None:
            out["not_subset"] = not_subset
        return out


class _Gram:
    """Q = diag(y) K diag(y) from K itself or from features X (K = X X^T), never both."""

    def __init__(self, y, K=None, features=None):
        self.y, self.K, self.X = y, K, features
        self.diag = np.einsum("ij,ij->i", features, features) if K is None else np.diag(K).copy()

    def K_cols(self, idx):
        return self.K[:, idx] if self.X is None else self.X @ self.X[idx].T

    def Kv(self, v):
        return self.K @ v if self.X is None else self.X @ (self.X.T @ v)

    def absKv(self, v):
        if self.X is None:
            return np.abs(self.K) @ np.abs(v)
        A = np.abs(self.X)
        return A @ (A.T @ np.abs(v))

    def sqrt_lambda_max(self, alpha):
        """sqrt(lambda_max(diag(alpha) Q diag(alpha)))."""
        if self.X is not None:
            B = self.X * alpha[:, None]
            return float(np.sqrt(max(np.linalg.eigvalsh(B.T @ B)[-1], 0.0)))
        S = np.flatnonzero(alpha != 0)
        if S.size == 0:
            return 0.0
        ya = (self.y * alpha)[S]
        M = ya[:, None] * self.K[np.ix_(S, S)] * ya[None, :]
        if S.size <= 400:
            top = np.linalg.eigvalsh(M)[-1]
        else:
            from scipy.sparse.linalg import eigsh

            top = eigsh(M, k=1, which="LA", tol=0, return_eigenvectors=False)[0]
        return float(np.sqrt(max(top, 0.0)))

    def quad(self, alpha):
        """d -> d^T diag(alpha) Q diag(alpha) d for the rows d of a matrix."""
        ya = self.y * alpha
        if self.X is not None:
            return lambda D: np.sum(((D * ya[None, :]) @ self.X) ** 2, axis=1)
        S = np.flatnonzero(alpha != 0)
        KS = self.K[np.ix_(S, S)]
        return lambda D: np.einsum("ij,ij->i", (D[:, S] * ya[S]) @ KS, D[:, S] * ya[S])


def duplicate_groups(features, y) -> np.ndarray:
    """Group label per sample: equal labels for samples with identical feature rows and label.

    Copies of a sample share one dual variable at the optimum only through their sum, so
    alpha* is not unique when copies sit on the margin; :func:`optimum_screening` then uses the
    optimum that splits the sum evenly (the one an interior-point solver converges to: the
    centre of the optimal face is symmetric in the copies).
    """
    X = np.ascontiguousarray(np.column_stack([check_matrix(features, "features"), check_labels(y)]))
    _, inverse = np.unique(X, axis=0, return_inverse=True)
    return np.asarray(inverse).reshape(-1)


def optimum_screening(y, lam, alpha, margins, gap, *, K=None, features=None, w_tilde=None,
                      groups=None) -> OptimumScreening:
    """Certified intervals for DRSSS at the exact optimum of a hinge-loss fit at ``w_tilde``.

    Parameters
    ----------
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
    alpha : array of shape (n,)
        The fit's dual point in [0, 1].
    margins : array of shape (n,)
        Its margins y_i <phi(x_i), beta(alpha)>.
    gap : float
        Its certified duality gap P - D >= 0 (Lemma 3.1).
    K : array of shape (n, n), optional
        The Gram matrix; give it or ``features``, not both.
    features : array of shape (n, d), optional
        Features X with K = X X^T.
    w_tilde : array of shape (n,), optional
        The weights of the fit (default ones; equal within each group).
    groups : array of shape (n,), optional
        Labels of copies (identical phi(x_i) and y_i, e.g. from
        ``svmcert.screening.certified.duplicate_groups``); default: every sample on its own.
        Within a group the optimum with equal alpha is used.

    Returns
    -------
    OptimumScreening
        Call :meth:`~OptimumScreening.drsss` (per radius S) and :meth:`~OptimumScreening.isss`
        (per weight) for decisions.
    """
    y = check_labels(y)
    n = y.size
    lam = check_positive(lam, "lam")
    alpha = check_vector(alpha, "alpha", n)
    m = check_vector(margins, "margins", n)
    gap = max(float(gap), 0.0)
    if (K is None) == (features is None):
        raise ValueError("K, features: give exactly one of the Gram matrix and the features")
    if K is not None:
        K = check_matrix(K, "K")
        if K.shape != (n, n):
            raise ValueError(f"K: expected shape ({n}, {n}), got {K.shape}")
    else:
        features = check_matrix(features, "features")
        if features.shape[0] != n:
            raise ValueError(f"features: expected {n} rows, got {features.shape[0]}")
    w = np.ones(n) if w_tilde is None else check_vector(w_tilde, "w_tilde", n)
    g = np.arange(n) if groups is None else np.asarray(groups).reshape(-1)
    if g.shape != (n,):
        raise ValueError(f"groups: expected {n} labels, got shape {g.shape}")
    _, rep, g = np.unique(g, return_index=True, return_inverse=True)
    g = g.reshape(-1)
    k = np.bincount(g).astype(float)                             # copies per group
    if np.any(np.abs(w - w[rep][g]) > 0) or np.any(y != y[rep][g]):
        raise ValueError("groups: copies must have equal labels and equal weights w_tilde")
    a_g = np.bincount(g, weights=alpha) / k                       # the even split (same beta, same gap)
    yg, mg, wg = y[rep], m[rep], w[rep] * k
    Kg = None if K is None else K[np.ix_(rep, rep)]
    Xg = None if features is None else features[rep]
    G = _Gram(yg, Kg, Xg)
    s = np.sqrt(np.maximum(G.diag, 0.0))
    r0 = float(np.sqrt(2.0 * gap / lam))
    gamma = 4.0 * (n + (0 if features is None else features.shape[1])) * EPS
    eps_m = gamma * G.absKv(yg * wg * a_g) / lam               # rounding of the computed margins
    zero = mg - s * r0 - eps_m > 1.0                             # alpha*_i = 0 (link 7)
    one = mg + s * r0 + eps_m < 1.0                              # alpha*_i = 1
    known = np.where(one, 1.0, 0.0)
    delta_C = np.where(zero | one, a_g - known, 0.0)
    m_tilde = mg - yg * G.Kv(yg * wg * delta_C) / lam if np.any(delta_C) else mg
    F = np.flatnonzero(~(zero | one))
    inside = np.zeros(yg.size, bool)
    m_lo, m_hi = mg - s * r0 - eps_m, mg + s * r0 + eps_m
    bound = 0.0
    if F.size:
        KF = G.K_cols(F)                                        # (groups, |F|)
        H = (wg[F] * yg[F])[:, None] * KF[F] * (wg[F] * yg[F])[None, :]
        ev = np.linalg.eigvalsh((H + H.T) / 2)
        L = ev[-1] * (1 + 1e-10) / lam + np.finfo(float).tiny
        mu = (ev[0] - 10 * F.size * EPS * ev[-1]) / lam
        if mu > 0:
            grad = wg[F] * (1.0 - m_tilde[F])
            step = np.clip(a_g[F] + grad / L, 0.0, 1.0) - a_g[F]
            bound = float((L * np.linalg.norm(step) + np.linalg.norm(wg[F] * eps_m[F])) / mu)
            inside[F] = a_g[F] > bound
            t = np.linalg.norm(KF * wg[F][None, :], axis=1) * bound / lam
            m_lo = np.maximum(m_lo, m_tilde - t - eps_m)
            m_hi = np.minimum(m_hi, m_tilde + t + eps_m)
        else:
            bound = float("inf")
    # M = sum_i alpha_i^2 phi_i phi_i^T = sum_g k_g alpha_g^2 phi_g phi_g^T
    root = G.sqrt_lambda_max(a_g * np.sqrt(k))
    if np.isfinite(bound):
        fmax = G.diag[F].max() if F.size else 0.0
        E_k = float(np.sqrt(np.sum(k * delta_C ** 2 * G.diag) + k[F].max(initial=0.0) * bound ** 2 * fmax))
        E_1 = float(np.sqrt(np.sum(delta_C ** 2 * G.diag) + bound ** 2 * fmax))
    else:
        E_k = E_1 = float("inf")
    slack = 10 * n * EPS                                        # eigenvalue rounding, relative
    root_lo = max(root * np.sqrt(max(1 - slack, 0.0)) - E_k, 0.0)
    root_hi = root * np.sqrt(1 + slack) + E_k
    quad_g = G.quad(a_g)
    from scipy.sparse import csr_matrix

    summing = csr_matrix((np.ones(n), (np.arange(n), g)), shape=(n, yg.size))

    def quad(D):                                                # d^T M d, copies' directions summed
        Dg = np.asarray((summing.T @ D.T).T) if yg.size < n else D[:, rep]
        return quad_g(Dg), np.linalg.norm(Dg, axis=1), np.linalg.norm(D, axis=1)

    return OptimumScreening(lam=lam, spread=s[g], margins=m, margin_lo=m_lo[g], margin_hi=m_hi[g],
                            inside=inside[g], root=root, root_lo=root_lo, root_hi=root_hi, r0=r0,
                            free_bound=bound, uncertain=int(k[F].sum()), alpha=a_g[g], copies=int(n - yg.size),
                            root_error=E_k, isss_error=E_1, slack=slack, _quad=quad)
