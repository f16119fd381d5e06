"""The experimental setup of Hanada et al., Sec. 5 and App. E, and the other ways to read it.

The paper does not say how it preprocesses the LIBSVM files, whether the SVM of its experiments
has an intercept, or which of several weight sets it maximises over. A :class:`Setup` fixes one
answer to every such question; :data:`PAPER` is the reading that reproduces the printed numbers
(the drsss chapter shows the others and what they give):

* every feature z-scored (mean 0, population standard deviation 1; a constant feature becomes 0),
  breast-cancer's first LIBSVM feature (the UCI sample id) kept;
* no intercept (K = Z Z^T), loss summed with lam/2 ||beta||^2 and lam as printed;
* W the full ball ||w - 1|| <= sqrt(n+) |a - 1|, weights not normalised;
* RBF exp(-gamma ||z - z'||^2) with gamma = 1 / (d' Var(Z)) (Var over all entries), no intercept.

Every fit here is at w~ = 1 and is certified; :func:`screening` turns it into the certified
intervals of :mod:`svmcert.screening.certified`. Random draws come from :func:`instance_rng`,
one generator per instance, keyed by what the instance is.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ... import datasets
from ...kernels import rbf_kernel
from ...screening.certified import duplicate_groups, optimum_screening
from ...screening.weighted_svm import fenchel_young_residuals, fit_weighted_svm
from ...exceptions import ConvergenceWarning

__all__ = ["Setup", "PAPER", "FORMER", "SCALINGS", "BALLS", "instance_key", "instance_rng", "features",
           "Design", "design", "lam_sum", "lam_grid", "Fit", "fit_at_ones", "screening", "ball_root",
           "sphere_directions", "one_thread"]

SCALINGS = ("zscore", "zscore-ddof1", "maxabs", "minmax-pm1", "minmax-01", "none")
BALLS = ("full", "positive", "segment", "normalised")
LOSSES = ("sum", "mean", "C")


@dataclass(frozen=True)
class Setup:
    """One reading of the experimental setup.

    scaling : ``"zscore"`` (population sd), ``"zscore-ddof1"`` (sample sd), ``"maxabs"`` (x / max|x|),
        ``"minmax-pm1"`` (LIBSVM's svm-scale to [-1, 1]), ``"minmax-01"`` or ``"none"`` (the file).
    intercept : a regularised constant feature 1 (Remark 3.3): K + 1.
    loss : ``"sum"`` (sum_i w_i l_i + lam/2 ||beta||^2, lam as printed), ``"mean"`` (the losses
        averaged: lam_sum = n lam) or ``"C"`` (C sum_i l_i + 1/2 ||beta||^2 with C = lam: lam_sum = 1/lam).
    ball : ``"full"`` (||w - 1|| <= S), ``"positive"`` (only the positive samples' weights move),
        ``"segment"`` (the weights between 1 and the change itself: positives at a) or
        ``"normalised"`` (the ball within sum_i w_i = n).
    rbf_distance : ``"squared"`` (scikit-learn) or ``"plain"`` (exp(-||z - z'|| / zeta), Sec. 5.1 as printed).
    rbf_gamma : ``"scale"`` (1 / (d' Var Z), App. E.2), ``"auto"`` (1 / d') or ``"var"`` (1 / Var Z).
    id_column : keep breast-cancer's first feature (the UCI sample id).
    """

    scaling: str = "zscore"
    intercept: bool = False
    loss: str = "sum"
    ball: str = "full"
    rbf_distance: str = "squared"
    rbf_gamma: str = "scale"
    id_column: bool = True

    def __post_init__(self):
        for name, value, allowed in (("scaling", self.scaling, SCALINGS), ("loss", self.loss, LOSSES),
                                     ("ball", self.ball, BALLS), ("rbf_distance", self.rbf_distance, ("squared", "plain")),
                                     ("rbf_gamma", self.rbf_gamma, ("scale", "auto", "var"))):
            if value not in allowed:
                raise ValueError(f"{name}: expected one of {allowed}, got {value!r}")

    def but(self, **changes) -> "Setup":
        """This reading with some answers changed."""
        return replace(self, **changes)


PAPER = Setup()
#: The book's earlier setup: features scaled to [-1, 1] by their largest absolute value, K + 1.
FORMER = Setup(scaling="maxabs", intercept=True)


def instance_key(*parts) -> int:
    """A stable 63-bit integer for an instance (data set, kernel, lambda index, draw index, ...):
    SHA-256 of the parts' text, so equal keys give equal integers in every process."""
    text = "|".join(p if isinstance(p, str) else repr(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def instance_rng(seed: int, *parts) -> np.random.Generator:
    """``default_rng(SeedSequence([seed, instance_key(*parts)]))``: the generator of one instance.
    Nothing else draws from it, so no loop or solver elsewhere can change what it gives."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected a whole number >= 0, got {seed!r}")
    return np.random.default_rng(np.random.SeedSequence([int(seed), instance_key(*parts)]))


def one_thread():
    """Context manager limiting BLAS to one thread (the machine's cores are shared)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _scale(X, scaling):
    if scaling == "none":
        return X.copy()
    if scaling in ("zscore", "zscore-ddof1"):
        sd = X.std(axis=0, ddof=0 if scaling == "zscore" else 1)
        return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    if scaling == "maxabs":
        top = np.abs(X).max(axis=0)
        return X / np.where(top > 0, top, 1.0)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    unit = (X - lo) / span
    return 2.0 * unit - 1.0 if scaling == "minmax-pm1" else unit


@lru_cache(maxsize=64)
def _features(name, scaling, id_column):
    X, y = datasets.load(name)
    if name == "breast-cancer" and not id_column:
        X = X[:, 1:]
    Z = _scale(X, scaling)
    Z.setflags(write=False)
    y.setflags(write=False)
    return Z, y


def features(name: str, setup: Setup = PAPER):
    """(Z, y): the data set's features after the setup's preprocessing (before any intercept)."""
    return _features(name, setup.scaling, setup.id_column)


@dataclass
class Design:
    """What a fit needs: labels, either features (linear kernel: K = X X^T) or a Gram matrix, and
    the groups of identical samples."""

    name: str
    kernel: str
    y: np.ndarray
    X: np.ndarray | None
    K: np.ndarray | None
    groups: np.ndarray

    @property
    def n(self) -> int:
        return int(self.y.size)

    @property
    def n_pos(self) -> int:
        return int(np.sum(self.y > 0))

    def gram(self) -> np.ndarray:
        return self.K if self.K is not None else self.X @ self.X.T


def _rbf(Z, setup):
    var = float(Z.var())
    d = Z.shape[1]
    gamma = {"scale": 1.0 / (d * var) if var > 0 else 1.0, "auto": 1.0 / d,
             "var": 1.0 / var if var > 0 else 1.0}[setup.rbf_gamma]
    if setup.rbf_distance == "squared":
        return rbf_kernel(Z, gamma=gamma)
    sq_direct = np.einsum("ij,ij->i", Z, Z)[:, None] + np.einsum("ij,ij->i", Z, Z)[None, :] - 2 * Z @ Z.T
    dist = np.sqrt(np.maximum((sq_direct + sq_direct.T) / 2, 0.0))
    np.fill_diagonal(dist, 0.0)
    return np.exp(-gamma * dist)


def design(name: str, kernel: str, setup: Setup = PAPER) -> Design:
    """The design of one data set and kernel (``"linear"`` or ``"rbf"``) under a setup."""
    Z, y = features(name, setup)
    groups = duplicate_groups(Z, y)
    if kernel == "linear":
        X = np.hstack([Z, np.ones((Z.shape[0], 1))]) if setup.intercept else np.ascontiguousarray(Z)
        return Design(name, kernel, np.asarray(y), X, None, groups)
    if kernel != "rbf":
        raise ValueError(f"kernel: expected 'linear' or 'rbf', got {kernel!r}")
    K = _rbf(Z, setup)
    if setup.intercept:
        K = K + 1.0
    return Design(name, kernel, np.asarray(y), None, np.ascontiguousarray(K), groups)


def lam_sum(lam: float, n: int, setup: Setup = PAPER) -> float:
    """The lambda of our objective sum_i w_i l_i + lam/2 ||beta||^2 for a printed lambda."""
    return {"sum": float(lam), "mean": float(n) * lam, "C": 1.0 / float(lam)}[setup.loss]


def lam_grid(n: int, count: int = 7, base: float | None = None) -> list[float]:
    """App. E.2: lam = n 10^(-k/2), k = 0, ..., count - 1 (``base`` instead of n, e.g. 1000 for the NTK)."""
    b = float(n if base is None else base)
    return [b * 10 ** (-k / 2) for k in range(count)]


@dataclass
class Fit:
    """A certified fit at w~ = 1: dual point, margins, gap (sum of Fenchel-Young residuals)."""

    alpha: np.ndarray
    margins: np.ndarray
    gap: float
    primal: float
    seconds: float


def fit_at_ones(d: Design, lam: float, tol: float = 1e-13, max_epochs: int = 1_000_000, alpha0=None) -> Fit:
    """The SVM at unit weights, certified. Linear kernel: :func:`svmcert.signsvm.solve` on the
    features (its objective is ours divided by n, with lam / n; coordinate ascent with active-set
    polishing); otherwise :func:`~svmcert.screening.weighted_svm.fit_weighted_svm` on K. The margins
    and the gap are recomputed here from alpha. A fit stopped by ``max_epochs`` is still certified,
    only by a larger gap (its screening decisions then come out undecided)."""
    t0 = time.perf_counter()
    n = d.n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if d.X is not None:
            from ... import signsvm

            alpha = signsvm.solve(d.X, d.y, lam / n, tol=tol, max_epochs=max_epochs, alpha0=alpha0).alpha
            beta = d.X.T @ (d.y * alpha) / lam
            m = d.y * (d.X @ beta)
            quad = lam * float(beta @ beta)
        else:
            res = fit_weighted_svm(d.K, d.y, lam, np.ones(n), tol=tol, max_epochs=min(max_epochs, 300_000),
                                   alpha0=alpha0, check_psd=False)
            alpha, m = res.alpha, res.margins
            quad = float(alpha @ m)
    gap = float(np.sum(fenchel_young_residuals(m, alpha)))
    primal = float(np.sum(np.maximum(0.0, 1.0 - m))) + 0.5 * quad
    return Fit(alpha, m, gap, primal, time.perf_counter() - t0)


def screening(d: Design, fit: Fit, lam: float):
    """:func:`~svmcert.screening.certified.optimum_screening` of a fit at unit weights."""
    kw = {"features": d.X} if d.X is not None else {"K": d.K}
    return optimum_screening(d.y, lam, fit.alpha, fit.margins, fit.gap, groups=d.groups, **kw)


def ball_root(d: Design, alpha, ball: str) -> float:
    """sqrt of the largest value of (w - 1)^T M (w - 1) / S^2 over the directions a weight reading
    allows, M = diag(alpha) Q diag(alpha): ``"full"`` lambda_max(M); ``"positive"`` lambda_max of
    M's block of positive samples; ``"segment"`` 1+^T M 1+ / n+ (the single direction of the
    weight change); ``"normalised"`` lambda_max(P M P), P the projection onto sum_i d_i = 0."""
    y = d.y
    ya = y * np.asarray(alpha, float)
    pos = y > 0
    if d.X is not None:
        B = d.X * ya[:, None]                       # M = B B^T
        if ball == "full":
            C = B.T @ B
        elif ball == "positive":
            C = B[pos].T @ B[pos]
        elif ball == "segment":
            v = B[pos].sum(axis=0)
            return float(np.sqrt(v @ v / pos.sum()))
        else:
            Bc = B - B.mean(axis=0, keepdims=True)
            C = Bc.T @ Bc
        return float(np.sqrt(max(np.linalg.eigvalsh(C)[-1], 0.0)))
    M = ya[:, None] * d.K * ya[None, :]
    if ball == "full":
        pass
    elif ball == "positive":
        M = M[np.ix_(pos, pos)]
    elif ball == "segment":
        return float(np.sqrt(max(M[np.ix_(pos, pos)].sum(), 0.0) / pos.sum()))
    else:
        Mc = M - M.mean(axis=0, keepdims=True)
        M = Mc - Mc.mean(axis=1, keepdims=True)
    return float(np.sqrt(max(np.linalg.eigvalsh((M + M.T) / 2)[-1], 0.0)))


def sphere_directions(rng, n: int, S: float, count: int) -> np.ndarray:
    """App. E.3: rows d = S v / ||v||, v standard normal, so w = 1 + d lies on ||w - 1|| = S."""
    v = rng.standard_normal((int(count), int(n)))
    return S * v / np.linalg.norm(v, axis=1, keepdims=True)
