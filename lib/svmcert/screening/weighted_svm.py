"""Weighted regularised ERM and its dual in kernel form (Hanada et al., Definition 2.1, eqs. 1-7).

The primal (eq. 2) with the L2 regulariser rho(beta) = lam/2 ||beta||^2 of Section 4.1 is

    P_w(beta) = sum_i w_i l(y_i <phi(x_i), beta>) + lam/2 ||beta||^2,

and its Fenchel dual (eq. 4; Lemma B.2 with the minus sign of eq. 4, see the errata) is

    D_w(alpha) = -sum_i w_i l*(-alpha_i) - 1/(2 lam) ||sum_i w_i alpha_i y_i phi(x_i)||^2.

Link (6) gives beta(alpha) = sum_i alpha_i w_i y_i phi(x_i) / lam, so everything is computed from
the Gram matrix K_ij = <phi(x_i), phi(x_j)> alone: with u = w * alpha and the margins
m_i = y_i <phi(x_i), beta(alpha)> = y_i (K (y * u))_i / lam we have lam ||beta||^2 = <u, m>. The
losses are the first two rows of Table 5 (hinge, squared hinge), with conjugates

    hinge:          l*(s) = s on [-1, 0],            so -l*(-alpha) = alpha,            alpha in [0, 1];
    squared hinge:  l*(s) = (s^2 + 4 s)/4 on s <= 0, so -l*(-alpha) = alpha - alpha^2/4, alpha >= 0.

The duality gap is evaluated as sum_i w_i [l(m_i) + l*(-alpha_i) + alpha_i m_i], which equals
P_w(beta(alpha)) - D_w(alpha) exactly and is a sum of Fenchel-Young residuals, each >= 0 and zero
iff link (7), -alpha_i in dl(m_i), holds. A sample with w_i = 0 leaves both problems unchanged; its
alpha_i is not determined by the dual, and :func:`fit_weighted_svm` reports the value that (7)
assigns it at the final margins.

An intercept is a regularised constant feature (Remark 3.3): use :func:`regularised_intercept`.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_iterations, check_labels, check_matrix, check_positive, check_vector
from ..signsvm.result import ConvergenceWarning, Deadline
from ._weighted_dca import (epoch_compiled, epoch_factor_compiled, epoch_factor_numpy, epoch_numpy, matvec_compiled,
                            pivoted_cholesky)
from ._weighted_newton import active_set_newton, free_count, step_flops
from .gram import check_gram

__all__ = ["LOSSES", "WeightedSVM", "fit_weighted_svm", "loss_value", "loss_conjugate", "dual_domain",
           "fenchel_young_residuals", "regularised_intercept", "check_gram", "pivoted_cholesky", "margins",
           "primal_objective", "dual_objective", "duality_gap", "linear_primal_objective", "linear_dual_objective",
           "weights_from_dual"]

LOSSES = ("hinge", "squared_hinge")


def _check_loss(loss) -> str:
    if loss not in LOSSES:
        raise ValueError(f"loss: expected one of {LOSSES}, got {loss!r}")
    return loss


def dual_domain(loss: str = "hinge") -> tuple[float, float]:
    """The interval where l*(-alpha) < +inf (Table 5, fifth column): [0, 1] or [0, inf)."""
    return (0.0, 1.0) if _check_loss(loss) == "hinge" else (0.0, np.inf)


def loss_value(t, loss: str = "hinge") -> np.ndarray:
    """l(t) = max(0, 1 - t) (hinge) or max(0, 1 - t)^2 (squared hinge), Table 5."""
    h = np.maximum(0.0, 1.0 - np.asarray(t, dtype=float))
    return h if _check_loss(loss) == "hinge" else h * h


def loss_conjugate(s, loss: str = "hinge") -> np.ndarray:
    """Convex conjugate l*(s) = sup_t (s t - l(t)) in closed form (Table 5, fourth column).

    hinge: s on [-1, 0], +inf elsewhere; squared hinge: (s^2 + 4 s)/4 for s <= 0, +inf for s > 0.
    """
    s = np.asarray(s, dtype=float)
    if _check_loss(loss) == "hinge":
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


def _check_problem(K, y, lam, weights, loss, psd=True, weights_name="weights"):
    y = check_labels(y)
    K = check_gram(K, y.shape[0], psd=psd)
    lam = check_positive(lam, "lam")
    w = check_vector(weights, weights_name, y.shape[0])
    if w.min() < 0:
        raise ValueError(f"{weights_name}: expected nonnegative entries (Definition 2.1), found {w.min():g}")
    return K, y, lam, w, _check_loss(loss)


def _check_dual_point(alpha, n, loss, name="alpha"):
    alpha = check_vector(alpha, name, n)
    lo, hi = dual_domain(loss)
    if alpha.size and (alpha.min() < lo or alpha.max() > hi):
        raise ValueError(f"{name}: expected every entry in the dual domain [{lo:g}, {hi:g}] of the {loss} loss "
                         f"(Table 5), found range [{alpha.min():g}, {alpha.max():g}]")
    return alpha


def _margins(alpha, K, y, lam, w):
    v = y * w * alpha
    Kv = matvec_compiled(K, v) if K.flags.c_contiguous and K.dtype == np.float64 else K @ v
    return y * Kv / lam


def _parts(alpha, K, y, lam, w, loss):
    """Margins m, sum w l(m), sum w (-l*(-alpha)), lam ||beta||^2 and the Fenchel-Young gap."""
    return _parts_from_margins(_margins(alpha, K, y, lam, w), alpha, y, w, loss)


def fenchel_young_residuals(m, alpha, loss: str = "hinge") -> np.ndarray:
    """l(m_i) + l*(-alpha_i) + alpha_i m_i >= 0 per sample (zero iff link (7) holds), in the
    rounding-safe forms max(0, 1 - m) - alpha (1 - m) (hinge) and (1 - m - alpha/2)^2 for m < 1,
    alpha (m - 1) + alpha^2/4 otherwise (squared hinge). ``alpha`` must lie in the dual domain."""
    m = np.asarray(m, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if _check_loss(loss) == "hinge":
        return np.maximum(0.0, 1.0 - m) - alpha * (1.0 - m)
    return np.where(m < 1.0, (1.0 - m - 0.5 * alpha) ** 2, alpha * (m - 1.0) + 0.25 * alpha * alpha)


def _parts_from_margins(m, alpha, y, w, loss):
    risk = float(w @ loss_value(m, loss))
    neg_conj = alpha if loss == "hinge" else alpha - 0.25 * alpha * alpha
    dual_lin = float(w @ neg_conj)
    quad = float((w * alpha) @ m)                 # lam ||beta||^2 = <u, m>
    return m, risk, dual_lin, quad, float(w @ fenchel_young_residuals(m, alpha, loss))


def margins(alpha, K, y, lam, weights) -> np.ndarray:
    """m_i = y_i <phi(x_i), beta(alpha)> with beta(alpha) = sum_j alpha_j w_j y_j phi(x_j) / lam (eq. 6)."""
    K, y, lam, w, _ = _check_problem(K, y, lam, weights, "hinge", psd=False)
    return _margins(check_vector(alpha, "alpha", y.shape[0]), K, y, lam, w)


def primal_objective(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """P_w(beta(alpha)) of eq. (2), with beta(alpha) from link (6), in kernel form."""
    K, y, lam, w, loss = _check_problem(K, y, lam, weights, loss, psd=False)
    _, risk, _, quad, _ = _parts(check_vector(alpha, "alpha", y.shape[0]), K, y, lam, w, loss)
    return risk + 0.5 * quad


def dual_objective(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """D_w(alpha) of eq. (4) in kernel form; ``alpha`` must lie in the dual domain (Table 5)."""
    K, y, lam, w, loss = _check_problem(K, y, lam, weights, loss, psd=False)
    _, _, dual_lin, quad, _ = _parts(_check_dual_point(alpha, y.shape[0], loss), K, y, lam, w, loss)
    return dual_lin - 0.5 * quad


def duality_gap(alpha, K, y, lam, weights, loss: str = "hinge") -> float:
    """P_w(beta(alpha)) - D_w(alpha) (eq. 10), as the sum of Fenchel-Young residuals (each >= 0)."""
    K, y, lam, w, loss = _check_problem(K, y, lam, weights, loss, psd=False)
    return _parts(_check_dual_point(alpha, y.shape[0], loss), K, y, lam, w, loss)[4]


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
    alpha = _check_dual_point(alpha, X.shape[0], _check_loss(loss))
    v = X.T @ (y * w * alpha)
    return float(-(w @ loss_conjugate(-alpha, loss))) - float(v @ v) / (2.0 * lam)


def weights_from_dual(alpha, X, y, lam, weights) -> np.ndarray:
    """Link (6) for rho = lam/2 ||.||^2: beta = grad rho*((w X_check)^T alpha) = X^T (y w alpha) / lam."""
    X = check_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    alpha = check_vector(alpha, "alpha", X.shape[0])
    w = check_vector(weights, "weights", X.shape[0])
    return X.T @ (y * w * alpha) / check_positive(lam, "lam")


@dataclass
class WeightedSVM:
    """Result of :func:`fit_weighted_svm`.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual point in the domain of Table 5 (entries with w_i = 0 set by link (7)).
    primal, dual : float
        P_w(beta(alpha)) and D_w(alpha) (eqs. 2, 4).
    gap : float
        P_w(beta(alpha)) - D_w(alpha) >= 0, a certificate: P_w(beta) - P* <= gap and
        ||beta(alpha) - beta*|| <= sqrt(2 gap / lam) (Lemma 3.1).
    n_iter : int
        Epochs performed.
    converged : bool
        Whether gap <= tol * primal was reached.
    margins : ndarray of shape (n,)
        y_i <phi(x_i), beta(alpha)>.
    dual_coef : ndarray of shape (n,)
        y * w * alpha / lam, so that beta = sum_i dual_coef_i phi(x_i) and
        f(x) = sum_i dual_coef_i k(x_i, x).
    history : dict of lists
        Per epoch: primal, dual, gap, seconds (when recorded).
    """

    alpha: np.ndarray
    primal: float
    dual: float
    gap: float
    n_iter: int = 0
    converged: bool = True
    loss: str = "hinge"
    margins: np.ndarray | None = None
    dual_coef: np.ndarray | None = None
    history: dict = field(default_factory=dict)


NEWTON_WORK_RATIO = 3.0
"""Active-set Newton steps (:mod:`._weighted_newton`) may spend at most this multiple of the flops
of the coordinate-ascent epochs so far (n per moved alpha_i, plus n per epoch, on K); an attempt
is made after an epoch when one step fits what is left. The steps' flops are BLAS-3 and Cholesky
work, several times faster per flop than the epochs' scalar loops, so in time the steps cost
about as much as the epochs at most. Measured on svmguide1 and australian (RBF, lam n = 0.01 to
1, ``benchmarks/weighted_svm_vs_libsvm.py``): ratios 2 to 4 take 1.5 to 3 times fewer epochs
than 1."""
NEWTON_STEP_EPOCHS = 4.0
"""... and only once one step costs at most this many epochs like the last one (while many samples
are free a step is dear, O(|F|^3), and the epochs shrink the free set faster) ..."""
NEWTON_SETTLED = 0
"""... or once an epoch has moved no sample onto or off a bound (the sets have settled)."""
NEWTON_MAX_STEPS = 200
"""Most active-set Newton steps per attempt (each one reaches a face's maximum, frees one sample or
puts one on a bound)."""
FACTOR_COST_RATIO = 4.0
"""The low-rank factor is sought up to rank sqrt(FACTOR_COST_RATIO n) (at most min(n/4, 256)): its
O(n r^2) cost then stays below FACTOR_COST_RATIO passes over K, what a few epochs cost."""


def _factor_rank_cap(n: int, low_rank) -> int:
    if low_rank is True:
        return n - 1
    return int(min(n // 4, 256, np.sqrt(FACTOR_COST_RATIO * n)))


def fit_weighted_svm(K, y, lam, weights, loss: str = "hinge", *, tol: float = 1e-9, max_epochs: int = 10000,
                     seed: int = 0, alpha0=None, engine: str = "numba", low_rank="auto",
                     record_history: bool = False, check_psd="auto", newton: bool = True,
                     time_limit: float | None = None) -> WeightedSVM:
    """Solve the weighted problems (2)/(4) with rho = lam/2 ||beta||^2 by exact dual coordinate ascent
    and Newton steps on the free set.

    Each epoch visits the samples with w_i > 0 in random order and maximises D_w exactly along
    each alpha_i (``svmcert.screening._weighted_dca``), so D_w never decreases. Between epochs,
    once its cost is covered by the epochs' work (NEWTON_WORK_RATIO), active-set Newton steps
    (``svmcert.screening._weighted_newton``) finish what the epochs converge to slowly when lam
    is small. If K has low rank (a linear kernel: K = G G^T,
    found by pivoted Cholesky) the epochs first run on the factor at O(n r) per epoch; the answer
    is then certified with K itself and, if the factor's rounding leaves the gap above ``tol``,
    refined by epochs on K.

    Parameters
    ----------
    K : array of shape (n, n)
        Positive semidefinite Gram matrix <phi(x_i), phi(x_j)>.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda (rho = lam/2 ||beta||^2).
    weights : array of shape (n,)
        Sample weights w_i >= 0 (zeros allowed).
    loss : {"hinge", "squared_hinge"}
        The loss (Table 5).
    tol : float, default 1e-9
        Stop when the certified gap P_w - D_w <= tol * P_w. On K, the test after each epoch
        uses incrementally updated margins (O(n)); a stop is only accepted after the margins are
        recomputed from K (O(n^2)), which also happens every 16 epochs. The returned numbers
        always come from margins recomputed from K.
    max_epochs : int
        Limit (both phases together); reaching it warns
        (:class:`~svmcert.signsvm.result.ConvergenceWarning`) and sets ``converged=False``; the
        returned gap is still a valid certificate.
    seed : int
        Order of the coordinates.
    alpha0 : array of shape (n,), optional
        Start (clipped to the domain).
    engine : {"numba", "numpy"}
        Compiled epochs, or the tested reference loops.
    low_rank : {"auto", True, False}
        ``"auto"``: use a factor of rank <= min(n/4, 256, sqrt(FACTOR_COST_RATIO n)) if
        one exists: the search stops once it would cost more than a few epochs), True (any rank
        < n) or False (always work on K).
    check_psd : {"auto", True, False}
        ``"auto"`` (default): a Cholesky proof for n <= 1000 and tests that can only refute
        positive semidefiniteness above (``svmcert.screening.gram``); True: always the
        Cholesky proof (O(n^3 / 3)); False: none. Whatever the setting, a certificate whose
        quadratic term lam ||beta||^2 = u^T Q u / lam comes out negative beyond rounding proves K
        indefinite and raises ValueError.
    newton : bool
        Take active-set Newton steps (False: epochs only, the previous behaviour).
    time_limit : float, optional
        Seconds: the run stops before an epoch or Newton attempt that would
        end after it (estimated from the slowest epoch so far), warns and returns its certificate.

    Returns
    -------
    WeightedSVM

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.kernels import rbf_kernel
    >>> from svmcert.screening import fit_weighted_svm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3)); y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(200))
    >>> res = fit_weighted_svm(rbf_kernel(X), y, lam=1e-4, weights=np.full(200, 1 / 200))
    >>> bool(res.converged and res.gap <= 1e-9 * res.primal)
    True
    """
    if check_psd not in (True, False, "auto"):
        raise ValueError(f"check_psd: expected True, False or 'auto', got {check_psd!r}")
    K, y, lam, w, loss = _check_problem(K, y, lam, weights, loss, psd=check_psd)
    tol = check_positive(tol, "tol")
    max_epochs = check_iterations(max_epochs, "max_epochs")
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    if low_rank not in ("auto", True, False):
        raise ValueError(f"low_rank: expected 'auto', True or False, got {low_rank!r}")
    if not isinstance(newton, (bool, np.bool_)):
        raise ValueError(f"newton: expected True or False, got {newton!r}")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    n = y.shape[0]
    lo, hi = dual_domain(loss)
    alpha = np.zeros(n) if alpha0 is None else np.clip(check_vector(alpha0, "alpha0", n), lo, hi)
    active = np.flatnonzero(w > 0)
    squared = loss == "squared_hinge"
    K = np.ascontiguousarray(K)
    rng = np.random.default_rng(seed)
    hist = {"primal": [], "dual": [], "gap": [], "seconds": [], "newton": []}
    start = time.perf_counter()
    deadline = Deadline(time_limit, start)
    quad_floor = -100.0 * n * np.finfo(float).eps * max(float(np.max(np.diag(K))), 0.0) / lam

    def note(m, alpha_now, exact=True):
        _, risk, dual_lin, quad, gap = _parts_from_margins(m, alpha_now, y, w, loss)
        if quad < quad_floor * float(w @ alpha_now) ** 2:
            if not exact:      # incrementally updated margins drift: certify nothing, recompute them
                return np.inf, -np.inf, np.inf, False
            raise ValueError(f"K: expected a positive semidefinite matrix, found u^T K u < 0 at the dual point "
                             f"u = y * w * alpha (lam ||beta||^2 = {quad:.3g})")
        P, D = risk + 0.5 * quad, dual_lin - 0.5 * quad
        if record_history:
            for key, val in zip(("primal", "dual", "gap", "seconds"), (P, D, gap, time.perf_counter() - start)):
                hist[key].append(val)
        return P, D, gap, gap <= tol * max(P, np.finfo(float).tiny)

    epoch, t_epoch = 0, 0.0
    G = None
    if low_rank is not False and active.size:
        G = pivoted_cholesky(K, _factor_rank_cap(n, low_rank))
    if G is not None:                              # phase 1: epochs on the factor, O(n r) each
        fstep = epoch_factor_compiled if engine == "numba" else epoch_factor_numpy
        G = np.ascontiguousarray(G)
        v = G.T @ (y * w * alpha) / lam
        while not note(y * (G @ v), alpha)[3] and epoch < max_epochs and deadline.allows(8 * t_epoch):
            # epochs are cheap here: after the first 16, run 8 per call (one random order repeated)
            # and test the gap after each call
            chunk = min(1 if epoch < 16 else 8, max_epochs - epoch)
            t0 = time.perf_counter()
            fstep(np.tile(rng.permutation(active), chunk), G, y, w, alpha, v, lam, squared)
            t_epoch = max(t_epoch, (time.perf_counter() - t0) / chunk)
            epoch += chunk
            v = G.T @ (y * w * alpha) / lam        # O(n r): no drift of the incremental updates
    m = _margins(alpha, K, y, lam, w)              # phase 2: epochs on K, certified from K
    step = epoch_compiled if engine == "numba" else epoch_numpy
    fresh, work, newton_work, t_epoch = True, 0.0, 0.0, 0.0
    while True:
        P, D, gap, done = note(m, alpha, exact=fresh)
        stop = done or epoch >= max_epochs or not deadline.allows(t_epoch)
        if stop and not fresh:
            m = _margins(alpha, K, y, lam, w)      # never certify from incrementally updated margins
            P, D, gap, done = note(m, alpha)
            fresh = True
            # the fresh margins may withdraw a "done" seen on the incremental ones: then go on
            stop = done or epoch >= max_epochs or not deadline.allows(t_epoch)
        if stop:
            break
        t0 = time.perf_counter()
        at_bounds = (alpha <= lo) | (alpha >= hi)
        moved = step(rng.permutation(active), K, y, w, alpha, m, lam, squared)
        settled = int(np.count_nonzero(at_bounds != ((alpha <= lo) | (alpha >= hi)))) <= NEWTON_SETTLED
        t_epoch = max(t_epoch, time.perf_counter() - t0)
        epoch += 1
        work += n * (moved + 1.0)
        fresh = epoch % 16 == 0
        if fresh:
            m = _margins(alpha, K, y, lam, w)
        if newton:
            n_free = free_count(alpha, w, squared)
            allowance = NEWTON_WORK_RATIO * work - newton_work
            step_cost = step_flops(n, n_free) if n_free else np.inf
            cheap = step_cost <= NEWTON_STEP_EPOCHS * n * (moved + 1.0)
            if step_cost <= allowance and (cheap or settled) and deadline.allows(2 * t_epoch):
                steps, flops, outcome = active_set_newton(K, y, w, alpha, m, lam, squared, NEWTON_MAX_STEPS,
                                                          allowance)
                hist["newton"].append(dict(epoch=epoch, free=n_free, steps=steps, flops=flops, budget=allowance,
                                           outcome=outcome))
                newton_work += flops
                fresh = False
    if not done:
        reason = f"max_epochs={max_epochs}" if epoch >= max_epochs else f"time_limit={time_limit} s"
        warnings.warn(f"fit_weighted_svm: stopped at {reason} with relative gap "
                      f"{gap / max(P, np.finfo(float).tiny):.3g} > tol={tol:g}", ConvergenceWarning, stacklevel=2)
    idle = w <= 0                                  # alpha_i free in the dual: report the value of link (7)
    if idle.any():
        alpha[idle] = (m[idle] < 1.0).astype(float) if not squared else 2.0 * np.maximum(0.0, 1.0 - m[idle])
    return WeightedSVM(alpha=alpha, primal=P, dual=D, gap=gap, n_iter=epoch, converged=bool(done),
                       loss=loss, margins=m, dual_coef=y * w * alpha / lam, history=hist if record_history else {})
