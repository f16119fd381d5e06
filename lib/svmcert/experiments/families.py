"""Instance families that more than one page uses (a chapter and the Benchmarks page): built here,
from a generator the caller keys (:func:`.instances.instance_rng`), so every page draws the same
instance from the same key.

- :class:`SVMInstance`: a sign-constrained SVM problem with its label (Part I's chapters);
- :class:`LineInstance`, :func:`two_point`, :func:`crossing_template`: line-search problems whose
  crossings are placed at will (chapter "Lemma 1 and the exact line search");
- :func:`random_orthogonal`, :func:`from_spectrum`, :func:`hard_ball_case`: problem (12) of Hanada et
  al. with a prescribed spectrum, the hard case included (chapter "quadratic-on-ball");
- :func:`problem_features`, :func:`random_weights`: Part II's feature maps with a regularised
  intercept and its random sample weights (chapters "weighted-erm" and "gap-safe-ball").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SVMInstance", "LineInstance", "two_point", "crossing_template", "random_orthogonal", "from_spectrum",
           "hard_ball_case", "rbf_gram", "problem_features", "random_weights"]


@dataclass
class SVMInstance:
    """One sign-constrained SVM problem with a label for the tables."""

    data: str
    X: np.ndarray
    y: np.ndarray
    lam: float
    sign: np.ndarray
    pattern: str
    lam_rel: float = float("nan")    # lam / R^2 (the scale-free size of lambda)
    ref: object = field(default=None, repr=False)   # PrimalReference, filled by solve_references

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def label(self) -> dict:
        return {"data": self.data, "n": self.n, "d": self.d, "lam": self.lam, "lam_over_R2": self.lam_rel,
                "sign_pattern": self.pattern}


@dataclass
class LineInstance:
    """One line-search problem: data (X rows = samples), lambda, sign vector, alpha and u."""

    family: str
    X: np.ndarray
    y: np.ndarray
    lam: float
    sign: np.ndarray
    alpha: np.ndarray
    u: np.ndarray

    n, d, q = (property(lambda s: s.X.shape[0]), property(lambda s: s.X.shape[1]),
               property(lambda s: s.u - s.alpha))


def two_point(family, w0, wq, sign):
    """n = 2, y = (1, 1), alpha = (1, 0), u = (0, 1), lam = 1/2: then omega_0 = x_1 and
    omega_q = x_2 - x_1 exactly (lam n = 1), so the crossings can be placed at will."""
    w0, wq = np.asarray(w0, float), np.asarray(wq, float)
    return LineInstance(family, np.vstack([w0, w0 + wq]), np.ones(2), 0.5, np.asarray(sign, float),
                        np.array([1.0, 0.0]), np.array([0.0, 1.0]))


def crossing_template(rng, d, family="all crossings inside (d_t = d + 1)"):
    """Every coordinate constrained, crossing at its own uniform point of (0, 1): d_t = d + 1."""
    t, s = rng.uniform(0.01, 0.99, d), rng.choice([-1.0, 1.0], size=d)
    m, enter = rng.uniform(0.5, 2.0, d), rng.random(d) < 0.5
    return two_point(family, np.where(enter, -s * m, s * m), np.where(enter, s * m / t, -s * m / t), s)


def random_orthogonal(rng, n):
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    return Q * np.sign(np.diag(R))


def from_spectrum(rng, phi, xi, center):
    """A = V diag(phi) V' (V random orthogonal) and b with -V'(A center + b) = xi up to rounding."""
    V = random_orthogonal(rng, len(phi))
    A = (V * phi) @ V.T
    A = 0.5 * (A + A.T)
    return A, -A @ center - V @ xi


def hard_ball_case(rng, n, mult, factor, diagonal):
    """Top eigenvalue of multiplicity ``mult`` with xi = 0 on its eigenspace; the radius is
    ``factor`` times sqrt(T_F(phi_max)): factor > 1 is a genuine hard case (nu* = phi_max)."""
    top = float(rng.uniform(2, 4))
    low = np.sort(rng.uniform(0, 1.5, size=n - mult))
    phi = np.concatenate([low, np.full(mult, top)])
    xi = np.concatenate([rng.standard_normal(n - mult), np.zeros(mult)])
    center = rng.standard_normal(n)
    if diagonal:                              # exact: A diagonal, b = -A c - xi computed exactly
        A = np.diag(phi)
        b = -(phi * center) - xi
    else:
        A, b = from_spectrum(rng, phi, xi, center)
    tf = float(np.sqrt(np.sum((xi[: n - mult] / (top - low)) ** 2)))
    return A, b, center, max(factor * tf, 1e-3)


def rbf_gram(Z, gamma=None):
    """exp(-gamma ||z_i - z_j||^2), gamma = 1 / (d' Var(Z)) by default (scikit-learn's "scale",
    App. E.2): :func:`svmcert.kernels.rbf_kernel`."""
    from ..kernels import rbf_kernel

    return rbf_kernel(Z, gamma=gamma)


def problem_features(X, kernel):
    """Explicit features F and Gram matrix K = F F^T, both with a regularised intercept (Remark 3.3).

    ``"linear"``: F = [X, 1], so K = X X^T + 1. ``"rbf"``: F = [G, 1] with G G^T the RBF Gram
    matrix (eigendecomposition; eigenvalues below zero, pure rounding, dropped), so K = RBF + 1
    exactly as used by every solver. K is :func:`svmcert.kernels.linear_kernel` of F.
    """
    from threadpoolctl import threadpool_limits

    from ..kernels import linear_kernel
    from ..reference.weighted_svm import kernel_factor

    X = np.asarray(X, dtype=float)
    if kernel not in ("linear", "rbf"):
        raise ValueError(f"kernel: expected 'linear' or 'rbf', got {kernel!r}")
    with threadpool_limits(limits=1, user_api="blas"):  # threaded BLAS crawls when cores are shared
        G = X if kernel == "linear" else kernel_factor(rbf_gram(X))
        F = np.hstack([G, np.ones((X.shape[0], 1))])
        return F, linear_kernel(F)


def random_weights(n, rng, zero_fraction=0.1):
    """w_i ~ Uniform(0, 2), then a random ``zero_fraction`` of them set to exactly 0."""
    w = rng.uniform(0.0, 2.0, size=n)
    w[rng.choice(n, size=int(round(zero_fraction * n)), replace=False)] = 0.0
    return w
