"""A primal-dual interior-point method for the sign-constrained SVM (not in the paper).

Where dual coordinate ascent stalls (small lambda, nearly collinear rows: the free alphas are
coupled through an ill-conditioned Gram matrix), an interior-point method still converges in a few
dozen Newton steps whatever lambda is. Problem (4), multiplied by n and written as a quadratic
programme with slacks xi,

    min_{w, xi}  (lam n)/2 ||w||^2 + sum_i xi_i
    s.t.         Z w + xi - 1 = s >= 0   (multipliers alpha),   xi >= 0   (multipliers beta),
                 sign_h w_h >= 0 for every constrained h        (multipliers mu_h),

has the dual variables alpha of eq. (9): stationarity in xi gives alpha + beta = 1, so at the
solution alpha lies in [0, 1]^n, and stationarity in w gives w = (Z^T alpha + mu)/(lam n) =
Pi_S(Z^T alpha / (lam n)). This is the structure-exploiting interior-point method of Ferris and
Munson (2002), "Interior-point methods for massive support vector machines", with the sign
constraints added as bounds on w. Each iteration eliminates every per-sample variable, so the
Newton system is the d x d matrix

    M = lam n I + diag_C(mu / (sign w)) + X^T diag(1 / omega) X,   omega = xi / beta + s / alpha,

formed in O(n d^2) and factorised in O(d^3) by Cholesky; when n < d the same step goes through
the n x n matrix diag(omega) + X B^-1 X^T instead (Sherman-Morrison-Woodbury, B the diagonal
part), each solve checked by its residual and, where it fails, refined on the augmented system
(``history["woodbury_refined"]``) or, where that fails too and d allows, the run goes on in the
d x d form (:class:`._normal_equations.NormalEquations`; ``history["woodbury_until"]``).
Mehrotra's predictor-corrector takes two solves per factorisation (Nocedal and Wright, Numerical
Optimization, Sec. 16.6; Wright, Primal-Dual Interior-Point Methods, Ch. 10).

Every iteration is certified exactly as the dual solvers are: alpha clipped to [0, 1] is a dual
point, the iterate's w (kept strictly feasible, sign_h w_h > 0) and w(alpha) = Pi_S(Z^T alpha /
(lam n)) are primal points, and the smaller of P(w), P(w(alpha)) minus D(alpha) bounds the
primal error (eq. 10). The run stops when that relative gap is below ``tol``; nothing the
interior-point method believes about its own convergence is used. A run that stops short of
``tol`` (a stall, a failed factorisation, the iteration cap) is finished, where it can be, by a
crossover (:func:`crossover`): the samples' margins at the best iterate pick the sets, an exact
active-set solve on them gives a vertex of the dual, and that answer too is kept only if its
own certificate meets ``tol`` (``history["crossover"]`` then records it). On a large problem the
run may instead finish early on a working set of the samples near the margin
(:mod:`.working_set`; ``history["working_set"]``), again only through the whole problem's certificate.

With per-sample weights s (``svmcert.signsvm.problem``) the slacks cost sum_i s_i xi_i, stationarity in xi
gives alpha + beta = s and the box is [0, s]; samples with s_i = 0 are left out of the Newton
system (their alpha_i is 0; the objective is rescaled so the problem is the same). A sparse X
(CSR) enters only through products: the normal matrix is formed from them, never X densified
(it is min(n, d) x min(n, d), as for dense input).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from numba import njit

from .._validation import check_iterations, check_positive
from ._ipm_kernel import FUSED_MAX_D, FUSED_MAX_ENTRIES, dense_certificate, dense_iteration
from ._normal_equations import NormalEquations
from ._signed_rows import SignedRows
from .objectives import sign_projection
from .problem import SignSVMProblem, check_time_limit, make_problem
from .._budget import Deadline
from ..exceptions import ConvergenceWarning
from .result import Certificate, History, SolverResult, better_primal, certificate
from .working_set import WorkingSetFinish, without_pinned_samples
from .crossover import CROSSOVER_FLOPS, CROSSOVER_MIN_FLOPS, crossover

__all__ = ["run_interior_point", "interior_point", "uses_compiled_iteration", "crossover", "IPM_MAX_ITER", "CROSSOVER_FLOPS",
           "CROSSOVER_MIN_FLOPS"]

IPM_MAX_ITER = 200
"""Default cap on Newton iterations. Measured on the 224-cell grid of
``benchmarks/convergence_grid.py``: every cell certifies 1e-6 in far fewer (see that script's
output); the cap only bounds a run that stalls."""

STALL_ITERATIONS = 8
"""The run stops when over this many iterations neither the best certified gap has shrunk by 1%
nor the iterate's own gap has fallen to half its smallest over the STALL_WINDOW iterations before
(rounding in the Newton system has taken over: the run cannot reach ``tol``)."""
STALL_WINDOW = 3
"""The iterate's gap is not monotone along the path: an early iterate can certify far better than
the next ones (a dense Gaussian problem of 2699 x 4 with signs, lam n = 4.8e-6, certified 0.15
after one iteration, then 1.7e3 falling steadily to 0.44 by the ninth), and judged by the best gap
alone that run was stopped as stalled (``benchmarks/odd_problems.py --medium``, case 300; it now
certifies in 15). So the iterate's gap halving against its smallest over the last STALL_WINDOW
iterations counts as progress too. Halving rather than 1%: on the runs that do stall (the 17
stalled cases of ``odd_problems.py --woodbury-limits`` with the Woodbury check off, beside its 96
Gaussian problems) the stall was declared after 1658 Newton iterations in all with halving and
1767 with 1%, against 1574 by the best gap alone."""
STALL_FALL = 0.5
"""The fall of the iterate's gap that counts as progress (STALL_WINDOW); 0 turns that test off."""
_STEP_TO_BOUNDARY = 0.99


@njit(cache=True, nogil=True)
def _newton_rhs(r_p, r_b, xi, r_xi, beta, r_s, alpha, delta):
    """g = -r_p + (r_b + xi r_xi) / beta - r_s / alpha and g delta, per sample (the per-sample
    variables eliminated from the Newton system), in the arithmetic of the numpy expressions."""
    n = r_p.shape[0]
    g = np.empty(n)
    gd = np.empty(n)
    for i in range(n):
        g[i] = (-r_p[i] + (r_b[i] + xi[i] * r_xi[i]) / beta[i]) - r_s[i] / alpha[i]
        gd[i] = g[i] * delta[i]
    return g, gd


@njit(cache=True, nogil=True)
def _newton_directions(g, z_dw, delta, r_xi, r_s, s, alpha, r_b, xi, beta):
    """The per-sample directions recovered from dw (z_dw = Z dw): da = (g - z_dw) delta,
    db = r_xi - da, ds = (-r_s - s da) / alpha, dxi = (-r_b - xi db) / beta, and the largest step
    in (0, 1] that keeps s, xi, alpha and beta nonnegative (:func:`_max_step` of each)."""
    n = g.shape[0]
    da, db, ds, dxi = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    step = 1.0
    for i in range(n):
        da[i] = (g[i] - z_dw[i]) * delta[i]
        db[i] = r_xi[i] - da[i]
        ds[i] = (-r_s[i] - s[i] * da[i]) / alpha[i]
        dxi[i] = (-r_b[i] - xi[i] * db[i]) / beta[i]
        step = _step_bound(s[i], ds[i], step)
        step = _step_bound(xi[i], dxi[i], step)
        step = _step_bound(alpha[i], da[i], step)
        step = _step_bound(beta[i], db[i], step)
    return da, db, ds, dxi, step


@njit(cache=True, nogil=True, inline="always")
def _step_bound(v, dv, step):
    """min(step, -v / dv) when dv < 0 (the division made only when it can win: -v > step dv)."""
    if dv < 0.0 and -v > step * dv:
        return min(step, -v / dv)
    return step


@njit(cache=True, nogil=True)
def _shifted_dot(u, du, v, dv, a):
    """(u + a du) @ (v + a dv), summed in index order."""
    acc = 0.0
    for i in range(u.shape[0]):
        acc += (u[i] + a * du[i]) * (v[i] + a * dv[i])
    return acc


@njit(cache=True, nogil=True)
def _max_step(v, dv):
    """Largest a in (0, 1] with v + a dv >= 0 (v > 0): min(1, min over dv_i < 0 of -v_i / dv_i),
    compiled (six of these per iteration were a quarter of an iteration's time on small sets)."""
    a = 1.0
    for i in range(v.shape[0]):
        if dv[i] < 0.0:
            r = -v[i] / dv[i]
            if r < a:
                a = r
    return a


def interior_point(X, y, lam, sign=None, tol: float = 1e-6, max_iter: int = IPM_MAX_ITER,
                   time_limit: float | None = None, record_history: bool = True, *,
                   sample_weight=None) -> SolverResult:
    """Solve problem (4) by a primal-dual interior-point method until the relative duality gap of
    eq. (10) is below ``tol``.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.
    tol : float
        Relative duality gap (P(w) - D(alpha)) / P(w) at which to stop.
    max_iter : int
        Cap on Newton iterations (one factorisation and two solves each).
    time_limit : float, optional
        Seconds; the run stops before an iteration that would end after it (the time of an
        iteration is measured on the previous one).
    record_history : bool
        Keep the certificate of every iteration.
    sample_weight : array of shape (n,), optional
        Weights s_i >= 0: the weighted problem (alpha in [0, s]).

    Returns
    -------
    SolverResult
        The best certified pair met: ``alpha`` in [0, 1]^n, ``w`` sign-feasible (the iterate's w or
        w(alpha), whichever has the smaller primal value), ``gap`` = P(w) - D(alpha). Stopping at
        ``max_iter`` or ``time_limit`` first warns (:class:`ConvergenceWarning`) and sets
        ``converged=False``, unless (not at ``time_limit``) the crossover certifies ``tol``: then
        the crossover's pair is returned, ``converged=True`` and ``history["crossover"]`` holds
        its statistics. On 10000 samples or more the run may finish on the samples near the margin
        (``history["working_set"]``: attempts, rounds, band sizes); that answer too is certified.
        With n < d, ``history["woodbury_refined"]`` counts the refinement steps of Woodbury solves
        that failed their residual check, and ``history["woodbury_until"]`` is the iteration from
        which the run solved its Newton systems in the d x d form, after a refined solve failed it.

    Notes
    -----
    Cost per iteration O(n min(n, d)^2 + min(n, d)^3), independent of lambda; the number of
    iterations grows only slowly with n and the conditioning of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.interior_point import interior_point
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(200))
    >>> res = interior_point(X, y, 1e-4, sign=[1, 0, 0, -1, 0])
    >>> bool(res.converged and res.gap <= 1e-6 * res.primal)
    True
    """
    p = make_problem(X, y, lam, sign, sample_weight=sample_weight)
    return run_interior_point(p, check_positive(tol, "tol"), check_iterations(max_iter, "max_iter"), check_time_limit(time_limit),
                bool(record_history))


def uses_compiled_iteration(n: int, d: int, sparse: bool) -> bool:
    """Whether :func:`run_interior_point` takes its iterations and certificates from
    :mod:`._ipm_kernel` (a dense X with d <= n, n d <= FUSED_MAX_ENTRIES, d <= FUSED_MAX_D) rather
    than from the numpy iteration below."""
    return (not sparse) and d <= n and n * d <= FUSED_MAX_ENTRIES and d <= FUSED_MAX_D


def run_interior_point(p: SignSVMProblem, tol: float, max_iter: int, time_limit, record_history: bool, start=None,
                       working_set: bool = True) -> SolverResult:
    """:func:`interior_point` on a validated problem and options; ``working_set`` lets a large
    problem finish on a subset of its samples (:class:`.working_set.WorkingSetFinish`)."""
    if p.weights is not None and not np.all(p.weights > 0.0):
        return without_pinned_samples(p, run_interior_point, tol, max_iter, time_limit, record_history, start,
                                      working_set=working_set)
    X, y, lam, sign = p.X, p.y, p.lam, p.sign
    weights = p.weights
    box = 1.0 if weights is None else weights           # alpha + beta = box at every iterate
    start = time.perf_counter() if start is None else start
    deadline = Deadline(time_limit, start)
    n, d = X.shape
    c = lam * n
    Z = SignedRows(X, y)
    if not p.sparse:
        X = np.ascontiguousarray(X)
    XT = X.T
    C = np.flatnonzero(sign != 0)
    sg = sign[C]
    hist = History(start)

    # starting point: w = 0 except w_C = sign / max_i ||x_i|| (strictly feasible, margins at most 1),
    # xi = s = 1, alpha = beta = 1/2, and mu of the size of Z^T alpha on the constrained coordinates
    sq_rows = np.asarray(X.multiply(X).sum(axis=1)).ravel() if p.sparse else np.einsum("ij,ij->i", X, X)
    row_norm = float(np.sqrt(sq_rows.max()))
    w = np.zeros(d)
    w[C] = sg / max(row_norm, np.finfo(float).tiny)
    xi = np.ones(n)
    s = np.ones(n)
    alpha = np.full(n, 0.5) if weights is None else 0.5 * weights
    beta = alpha.copy()
    mu = np.maximum(np.abs(Z.T @ alpha)[C], 1.0)
    m_total = 2 * n + C.size
    fused = uses_compiled_iteration(n, d, p.sparse)
    if fused:                           # the compiled iteration updates these in place
        box_vec = np.full(n, 1.0) if weights is None else np.ascontiguousarray(weights, dtype=float)
        y_vec = np.ascontiguousarray(y, dtype=float)
        C_idx = C.astype(np.int64)
        sg = np.ascontiguousarray(sg, dtype=float)

    best, best_alpha, best_w, best_it, gaps = None, None, None, 0, []
    finish = WorkingSetFinish(p, Z, tol, deadline, run_interior_point) if working_set and WorkingSetFinish.applies(p) else None
    converged, it, t_iter, reason, primal_form, refined = False, 0, 0.0, None, None, 0
    products = None                     # (Z^T alpha, Z w) from the certificate, when its inputs are the iterate's
    while True:
        if fused:
            p_best, dual, w_cert, _ = dense_certificate(X, y_vec, w, alpha, lam, sign, c, box_vec,
                                                        weights is not None)
            cert = Certificate(w_cert, None, p_best, dual)
        else:
            cert, w_cert, products = _certify(Z, w, alpha, lam, sign, c, weights)
        if record_history:
            hist.add(cert, time.perf_counter())
        if gaps and cert.gap < STALL_FALL * min(gaps[-STALL_WINDOW:]):
            best_it = it                        # the iterate's own gap still falls
        gaps.append(cert.gap)
        if best is None or cert.gap < best.gap:
            if best is None or cert.gap < 0.99 * best.gap:
                best_it = it
            best, best_alpha, best_w = cert, np.clip(alpha, 0.0, box), w_cert
        if best.relative_gap_below(tol):
            converged = True
            break
        if finish is not None and it > 0 and (found := finish.attempt(best, best_w, best_alpha)) is not None:
            best_alpha, best, best_w = found[0], found[1], found[1].w
            if record_history:
                hist.add(best, time.perf_counter())
            converged = True
            break
        if it >= max_iter:
            reason = f"max_iter={max_iter}"
        elif not deadline.allows(t_iter):
            reason = f"time_limit={time_limit:g} s"
        elif it - best_it >= STALL_ITERATIONS:
            reason = f"a stall ({STALL_ITERATIONS} iterations without progress)"
        if reason is not None:
            break
        t0 = time.perf_counter()
        if fused:
            if not dense_iteration(X, y_vec, w, alpha, beta, s, xi, mu, C_idx, sg, c, box_vec, m_total):
                reason = "a failed factorisation"
                break
            it += 1
            t_iter = time.perf_counter() - t0
            continue
        q = sg * w[C]
        zt_alpha, zw = products                 # the products the certificate took at alpha and w
        zw = Z @ w if zw is None else zw
        r_w = c * w - (Z.T @ alpha if zt_alpha is None else zt_alpha)
        r_w[C] -= sg * mu
        r_xi = box - alpha - beta
        r_p = zw + xi - 1.0 - s
        tau = (alpha @ s + beta @ xi + mu @ q) / m_total
        omega = xi / beta + s / alpha
        delta = 1.0 / omega
        b_diag = np.full(d, c)
        b_diag[C] += mu / q
        try:
            neq = NormalEquations(X, XT, b_diag, delta, primal_form)
        except np.linalg.LinAlgError:
            reason = "a failed factorisation"
            break

        def newton(r_s, r_b, r_m):
            g, g_delta = _newton_rhs(r_p, r_b, xi, r_xi, beta, r_s, alpha, delta)
            rhs = -r_w + Z.T @ g_delta
            rhs[C] -= sg * r_m / q
            dw = neq.solve(rhs)
            da, db, ds, dxi, a_n = _newton_directions(g, Z @ dw, delta, r_xi, r_s, s, alpha, r_b, xi, beta)
            dq = sg * dw[C]
            dmu = (-r_m - mu * dq) / q
            return (dw, da, db, ds, dxi, dq, dmu), min(a_n, _max_step(q, dq), _max_step(mu, dmu))

        aff, a_aff = newton(alpha * s, beta * xi, mu * q)
        _, da, db, ds, dxi, dq, dmu = aff
        tau_aff = (_shifted_dot(alpha, da, s, ds, a_aff) + _shifted_dot(beta, db, xi, dxi, a_aff)
                   + (mu + a_aff * dmu) @ (q + a_aff * dq)) / m_total
        sigma = min(1.0, (tau_aff / tau) ** 3)
        cor, a_cor = newton(alpha * s + da * ds - sigma * tau, beta * xi + db * dxi - sigma * tau,
                            mu * q + dmu * dq - sigma * tau)
        a = min(1.0, _STEP_TO_BOUNDARY * a_cor)
        refined += neq.refined
        if neq.primal_form and primal_form is None and d > n:    # a Woodbury solve failed its check:
            primal_form, woodbury_until = True, it + 1              # the d x d form from now on
        dw, da, db, ds, dxi, dq, dmu = cor
        w = w + a * dw
        alpha, beta, s, xi = alpha + a * da, beta + a * db, s + a * ds, xi + a * dxi
        mu = mu + a * dmu
        w[C] = sg * np.maximum(sg * w[C], np.finfo(float).tiny)   # keep the iterate in S exactly
        it += 1
        t_iter = time.perf_counter() - t0
    out_hist = hist if record_history else {}
    if primal_form:
        out_hist["woodbury_until"] = woodbury_until
    if refined:
        out_hist["woodbury_refined"] = refined
    if finish is not None and finish.stats["attempts"]:
        out_hist["working_set"] = finish.stats
    if not converged and not reason.startswith("time_limit") and deadline.allows(t_iter):
        crossed = crossover(Z, lam, sign, best_alpha, best_w, best, tol, weights, n * d * min(n, d))
        if crossed is not None:
            alpha_x, cert_x, stats = crossed
            out_hist["crossover"] = stats
            if record_history:
                hist.add(cert_x, time.perf_counter())
            return SolverResult(w=cert_x.w, alpha=alpha_x, primal=cert_x.primal, dual=cert_x.dual, gap=cert_x.gap,
                                n_iter=it, converged=True, history=out_hist)
    if not converged:
        warnings.warn(f"interior_point: stopped at {reason} with relative gap "
                      f"{best.gap / max(best.primal, np.finfo(float).tiny):.3g} > tol={tol:g}",
                      ConvergenceWarning, stacklevel=3)
    return SolverResult(w=best_w, alpha=best_alpha, primal=best.primal, dual=best.dual, gap=best.gap,
                        n_iter=it, converged=converged, history=out_hist)


def _certify(Z, w, alpha, lam, sign, c, weights=None):
    """The certificate of the iterate: D(clip(alpha)) against the better of P(w), P(w(alpha)).

    Also returns the products the next Newton iteration needs, (Z^T alpha, Z w), where the
    certificate took them at the same arrays bit for bit (alpha inside its box, w inside S, as the
    iteration keeps them), else None in their place: two of the nine products with X an iteration
    of the numpy path makes."""
    a = np.clip(alpha, 0.0, 1.0 if weights is None else weights)
    zt_a = Z.T @ a
    cert = certificate(zt_a / c, a, Z, lam, sign, weights)
    w_feasible = sign_projection(w, sign)
    z_w = Z @ w_feasible
    products = (zt_a if _same_bits(a, alpha) else None, z_w if _same_bits(w_feasible, w) else None)
    cert = better_primal(cert, w_feasible, z_w, lam, weights)
    return cert, cert.w, products


def _same_bits(u, v) -> bool:
    """Whether two float arrays of one shape hold the same bits (so any product with them is the
    same; unlike ==, which takes -0.0 for 0.0)."""
    return u.shape == v.shape and bool(np.all(u.view(np.int64) == v.view(np.int64)))
