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

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_gram, check_iterations, check_positive, check_vector
from .._budget import Deadline
from ..exceptions import ConvergenceWarning
from ._weighted_dca import (epoch_compiled, epoch_factor_compiled, epoch_factor_numpy, epoch_numpy, gain_coefficients,
                            greedy_compiled, greedy_numpy, pivoted_cholesky)
from ._weighted_newton import active_set_newton, free_count, step_flops
from .weighted_problem import (LOSSES, check_dual_point, check_loss, check_weighted_problem, dual_domain,  # noqa: F401
                               margin_rounding, probable_rounding_gamma, residual_slopes,
                               dual_objective, duality_gap, fenchel_young_residuals, linear_dual_objective,
                               linear_primal_objective, loss_conjugate, loss_value, margins, margins_from_dual,
                               objective_parts, parts_from_margins, primal_objective, regularised_intercept,
                               weights_from_dual)

__all__ = ["LOSSES", "WeightedSVM", "fit_weighted_svm", "loss_value", "loss_conjugate", "dual_domain",
           "fenchel_young_residuals", "regularised_intercept", "check_gram", "pivoted_cholesky", "margins",
           "primal_objective", "dual_objective", "duality_gap", "linear_primal_objective", "linear_dual_objective",
           "weights_from_dual"]

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


SELECTIONS = ("cyclic", "greedy")
"""Which coordinate each step of the epochs on K takes (:func:`fit_weighted_svm`'s ``selection``)."""
GREEDY_CHECKS_PER_EPOCH = 8
"""With ``selection="greedy"`` an epoch is as many steps as there are samples with w_i > 0, taken
in this many calls; the gap (O(n) from the margins) and the Newton attempt are considered after
each call, so a run stops at most an eighth of an epoch after the gap is reached."""
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
STALL_CERTIFICATES = 8
STALL_GAP_ULPS = 4.0
"""A run stops (not converged, saying so) once STALL_CERTIFICATES certificates on exactly computed
margins in a row have not brought the best such relative gap below 0.99 of itself while that gap
is at most STALL_GAP_ULPS machine epsilons (8.9e-16): then tol is below what the margins resolve,
and coordinate steps only trade rounding errors. With tol = 1e-17 on n = 300 the loop otherwise
ran to max_epochs, 12.6 s (greedy) and 1.8 s (cyclic), against 0.01 s to a relative gap of 2e-16.
A floor of n eps instead stopped a greedy run on 400 samples of svmguide1 (tol = 1e-15) at a
relative gap of 4.5e-13 that went on to reach 5e-16: between certificates the gap of converging
runs rises and falls far above the rounding of single terms. A tol of at least 8.9e-16 is never
affected (such a run is done before the rule can fire)."""
NEWTON_MAX_STEPS = 200
"""Most active-set Newton steps per attempt (each one reaches a face's maximum, frees one sample or
puts one on a bound)."""
FACTOR_STALL_EPOCHS = 256
"""The epochs on a low-rank factor end, and the run goes on on K (where the active-set Newton steps
finish it), once the factor's best relative gap has not halved for this many epochs: cyclic
coordinate ascent can plateau there. On a linear kernel of 60 Gaussian samples in 4 dimensions at
lam = 1e-3 it stood at 1e-5 from about epoch 900 to max_epochs = 10000 and stopped uncertified
at tol = 1e-8, where the run on K alone certified in 6 epochs."""
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
                     time_limit: float | None = None, selection: str = "greedy") -> WeightedSVM:
    """Solve the weighted problems (2)/(4) with rho = lam/2 ||beta||^2 by exact dual coordinate ascent
    and Newton steps on the free set.

    Each step maximises D_w exactly along one alpha_i with w_i > 0
    (``svmcert.screening._weighted_dca``), so D_w never decreases; by default the step goes to the
    sample whose step gains most (``selection``), and an epoch is as many steps as there are such
    samples. Between epochs,
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
        always come from margins recomputed from K. A tol below what those margins resolve
        (under about 9e-16) ends in a stall: the run stops once its gap has reached that level
        and stopped shrinking (``STALL_CERTIFICATES``), warns and sets ``converged=False``. A gap
        below tol certifies only with the error the margins' rounding may put in it added
        (``sum_i w_i L_i mu_i`` with ``mu_i = sqrt(n + 2) eps (abs(K) abs(w alpha))_i / lam`` and
        ``L_i`` the residual's slope: ``weighted_problem.margin_rounding`` and
        ``residual_slopes``); where that alone exceeds tol P_w (a tiny lam, or a K of huge
        entries) the run stops, warns and says so.
    max_epochs : int
        Limit (both phases together); reaching it warns
        (``svmcert.exceptions.ConvergenceWarning``) and sets ``converged=False``; the
        returned gap is still a valid certificate.
    seed : int
        Order of the coordinates in the factor phase and with ``selection="cyclic"`` (the greedy
        steps on K do not use it).
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
    selection : {"cyclic", "greedy"}
        How the epochs on K choose their coordinates. ``"cyclic"``: every sample once per epoch,
        in a random order (``seed``). ``"greedy"`` (default): each step is taken on the sample
        whose exact step raises D_w most (Gauss-Southwell with the exact gain,
        ``svmcert.screening._weighted_dca.greedy_compiled``). A step on K costs O(n) for the
        margins whatever sample it moves, and the gains are found in the same pass, so choosing
        costs no more than a random order while far fewer steps are taken (the two are timed
        against each other by ``benchmarks/peers_libsvm.py``, columns ``ours_cpu`` and
        ``other_cpu``). An epoch is then as many steps as there are samples
        with w_i > 0, and the gap is tested every 1/GREEDY_CHECKS_PER_EPOCH of one; ``seed``
        is not used. An experiment defined by a number of random-order epochs (the gap-safe
        chapter's dual points after k epochs) asks for ``"cyclic"``. The factor phase
        (``low_rank``) is cyclic either way.

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
    K, y, lam, w, loss = check_weighted_problem(K, y, lam, weights, loss, psd=check_psd)
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
    if selection not in SELECTIONS:
        raise ValueError(f"selection: expected one of {SELECTIONS}, got {selection!r}")
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

    rounding = {"on_K": False, "bound": 0.0}

    def note(m, alpha_now, exact=True):
        _, risk, dual_lin, quad, gap = parts_from_margins(m, alpha_now, y, w, loss)
        if quad < quad_floor * float(w @ alpha_now) ** 2:
            if not exact:      # incrementally updated margins drift: certify nothing, recompute them
                return np.inf, -np.inf, np.inf, False
            raise ValueError(f"K: expected a positive semidefinite matrix, found u^T K u < 0 at the dual point "
                             f"u = y * w * alpha (lam ||beta||^2 = {quad:.3g})")
        P, D = risk + 0.5 * quad, dual_lin - 0.5 * quad
        if record_history:
            for key, val in zip(("primal", "dual", "gap", "seconds"), (P, D, gap, time.perf_counter() - start)):
                hist[key].append(val)
        done = math.isfinite(P) and math.isfinite(D) and gap <= tol * max(P, np.finfo(float).tiny)
        if done and exact and rounding["on_K"]:
            # the gap was computed from rounded margins: it certifies only with their rounding
            # added (sum_i w_i L_i mu_i: each residual moves by at most L_i mu_i), estimated by the
            # probabilistic bound sqrt(n + 2) eps (|K| |w alpha|)_i / lam (the worst case, n + 2
            # times eps, would refuse the relative gaps of 1e-13 that the kernels resolve in practice)
            mu = margin_rounding(K, lam, w, alpha_now, gamma=probable_rounding_gamma(n))
            rounding["bound"] = float(w @ (residual_slopes(alpha_now, m, mu, loss, sides=True) * mu))
            done = gap + rounding["bound"] <= tol * max(P, np.finfo(float).tiny)
        return P, D, gap, done

    epoch, t_epoch = 0, 0.0
    G = None
    if low_rank is not False and active.size:
        G = pivoted_cholesky(K, _factor_rank_cap(n, low_rank))
    if G is not None:                              # phase 1: epochs on the factor, O(n r) each
        fstep = epoch_factor_compiled if engine == "numba" else epoch_factor_numpy
        G = np.ascontiguousarray(G)
        v = G.T @ (y * w * alpha) / lam
        best, best_epoch = np.inf, 0
        while True:
            P, _, gap, done = note(y * (G @ v), alpha)
            if done or epoch >= max_epochs or not deadline.allows(8 * t_epoch):
                break
            rel = gap / max(P, np.finfo(float).tiny)
            if rel <= 0.5 * best:
                best, best_epoch = rel, epoch
            elif epoch - best_epoch >= FACTOR_STALL_EPOCHS:     # a plateau: on to K and its Newton steps
                break
            # epochs are cheap here: after the first 16, run 8 per call (one random order repeated)
            # and test the gap after each call
            chunk = min(1 if epoch < 16 else 8, max_epochs - epoch)
            t0 = time.perf_counter()
            fstep(np.tile(rng.permutation(active), chunk), G, y, w, alpha, v, lam, squared)
            t_epoch = max(t_epoch, (time.perf_counter() - t0) / chunk)
            epoch += chunk
            v = G.T @ (y * w * alpha) / lam        # O(n r): no drift of the incremental updates
    m = margins_from_dual(alpha, K, y, lam, w)              # phase 2: epochs on K, certified from K
    rounding["on_K"] = True
    if selection == "greedy":
        greedy = greedy_compiled if engine == "numba" else greedy_numpy
        s_coef, h_coef = gain_coefficients(np.ascontiguousarray(np.diag(K)), w, lam, squared)
        chunk = max(1, -(-active.size // GREEDY_CHECKS_PER_EPOCH))

        def step(_order, *args):
            return greedy(*args, s_coef, h_coef, chunk)
        epoch_size = GREEDY_CHECKS_PER_EPOCH
    else:
        step = epoch_compiled if engine == "numba" else epoch_numpy
        epoch_size = 1
    calls, since_fresh = epoch * epoch_size, 0          # phase 1's epochs count towards max_epochs
    fresh, work, newton_work, t_epoch, stalled = True, 0.0, 0.0, 0.0, False
    floor, best_exact, since_best = STALL_GAP_ULPS * np.finfo(float).eps, np.inf, 0

    def at_rounding_floor(P, gap):
        # the stall rule of STALL_CERTIFICATES, fed with every certificate on exact margins
        nonlocal best_exact, since_best
        rel = gap / max(P, np.finfo(float).tiny)
        if rel < 0.99 * best_exact:
            best_exact, since_best = rel, 0
        else:
            since_best += 1
        return best_exact <= floor and since_best >= STALL_CERTIFICATES

    def beyond_rounding(P, gap):
        # the margins' rounding estimate alone exceeds tol * P (it was last taken where the gap met tol):
        # no step can certify tol then
        return gap <= tol * max(P, np.finfo(float).tiny) and rounding["bound"] > tol * max(P, np.finfo(float).tiny)

    while True:
        P, D, gap, done = note(m, alpha, exact=fresh)
        if fresh and not done and (at_rounding_floor(P, gap) or beyond_rounding(P, gap)):
            stalled = True
            break
        stop = done or epoch >= max_epochs or not deadline.allows(t_epoch)
        if stop and not fresh:
            m = margins_from_dual(alpha, K, y, lam, w)      # never certify from incrementally updated margins
            P, D, gap, done = note(m, alpha)
            fresh = True
            if not done and (at_rounding_floor(P, gap) or beyond_rounding(P, gap)):
                stalled = True
                break
            # the fresh margins may withdraw a "done" seen on the incremental ones: then go on
            stop = done or epoch >= max_epochs or not deadline.allows(t_epoch)
        if stop:
            break
        t0 = time.perf_counter()
        at_bounds = (alpha <= lo) | (alpha >= hi)
        order = rng.permutation(active) if selection == "cyclic" else active
        moved = step(order, K, y, w, alpha, m, lam, squared)
        if moved == 0:                      # no step changed alpha: the margins decide what that means
            if fresh:                       # coordinate-wise optimal at exact margins: the gap left is
                stalled = True              # rounding, and more calls would repeat this one
                break
            m, fresh, since_fresh = margins_from_dual(alpha, K, y, lam, w), True, 0
            continue
        settled = int(np.count_nonzero(at_bounds != ((alpha <= lo) | (alpha >= hi)))) <= NEWTON_SETTLED
        t_epoch = max(t_epoch, time.perf_counter() - t0)
        calls += 1
        epoch = calls // epoch_size if calls % epoch_size == 0 else calls // epoch_size + 1
        work += n * (moved + 1.0)
        since_fresh += moved + 1
        fresh = since_fresh >= 16 * active.size if selection == "greedy" else epoch % 16 == 0
        if fresh:
            since_fresh = 0
            m = margins_from_dual(alpha, K, y, lam, w)
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
        rel = gap / max(P, np.finfo(float).tiny)
        if stalled and rounding["bound"] > tol * max(P, np.finfo(float).tiny):
            share = rounding["bound"] / max(P, np.finfo(float).tiny)
            message = (f"stopped at the rounding of the margins: the relative gap {rel:.3g} is below tol={tol:g}, "
                       f"but the error their rounding may put in it ({share:.3g} of P) is not")
        else:
            reason = ("a stall at the rounding level of the margins (no step improves their gap)" if stalled
                      else f"max_epochs={max_epochs}" if epoch >= max_epochs else f"time_limit={time_limit} s")
            message = f"stopped at {reason} with relative gap {rel:.3g} > tol={tol:g}"
        warnings.warn(f"fit_weighted_svm: {message}", ConvergenceWarning, stacklevel=2)
    idle = w <= 0                                  # alpha_i free in the dual: report the value of link (7)
    if idle.any():
        alpha[idle] = (m[idle] < 1.0).astype(float) if not squared else 2.0 * np.maximum(0.0, 1.0 - m[idle])
    return WeightedSVM(alpha=alpha, primal=P, dual=D, gap=gap, n_iter=epoch, converged=bool(done),
                       loss=loss, margins=m, dual_coef=y * w * alpha / lam, history=hist if record_history else {})
