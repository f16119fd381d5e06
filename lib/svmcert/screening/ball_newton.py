"""Maximising w'Aw + 2b'w over a ball without an eigendecomposition: the easy case by Newton's
method on Cholesky factorisations (Hanada et al., Theorem 4.1; Appendix D.2, eq. 18; More and
Sorensen, "Computing a trust region step", SIAM J. Sci. Stat. Comput. 4(3), 1983).

With d = w - c and g = A c + b, problem (12) is max f(c) + d'Ad + 2g'd over ||d|| <= S. Its
maximiser has the multiplier nu* = max(phi_max, 0, largest root of T) (module
:mod:`.quadratic_ball`); in the easy case nu* > phi_max, M(nu) = nu I - A is positive definite
there, and d(nu) = M(nu)^{-1} g is the maximiser when ||d(nu)|| = S. In eigen-coordinates
||d(nu)||^2 is eq. (18)'s T(nu) = sum_i xi_i^2 / (nu - phi_i)^2; here it is evaluated through a
Cholesky factorisation M = U'U (O(n^3 / 3) instead of eigh's far larger constant), and the root is
found by the Newton iteration of More and Sorensen on psi(nu) = 1/||d(nu)|| - 1/S, which is
concave and increasing for nu > phi_max, so that Newton's method started left of the root climbs
monotonically to it with every iterate positive definite.

What makes few factorisations enough:

* The start. k steps of Lanczos on A from g give a tridiagonal T_k whose Gauss quadrature
  underestimates T(nu) for every nu > phi_max (the integrand (nu - x)^{-2} has positive
  derivatives of every even order), so the root nu_k of the k-node model satisfies
  nu_k <= nu*: a lower bound that is already accurate to about (spread / (nu* - phi))^{2k}
  (k = LANCZOS_STEPS, more while the model's top pole is uncertain). Each step costs one product
  with A, O(n^2).
* Right of the root (after a trial that overshot), Newton on psi can land below phi_max. There the
  same Gauss model is built for the shift-invert operator M(nu)^{-1} with the factor at hand (two
  triangular solves per step): with s = 1/(nu - phi), T is g'h(M^{-1})g for h(s) = s^2 /
  (1 - delta s)^2, whose derivatives are all positive for the steps delta < 0 that matter, so
  this model's root is again a lower bound on nu*, and its top Ritz value a lower bound on
  phi_max.
* The last step. Once the Newton correction delta is small against the distance of nu to the
  spectrum, d(nu + delta) is obtained from the factor already at hand by the stationary iteration
  x <- M(nu)^{-1} (g - delta x), which contracts by delta ||M(nu)^{-1}|| per sweep (delta > 0,
  so M(nu + delta) is positive definite too).

On the benchmark's instances (A = GG'/n, b, c ~ N(0, 1), S = 1) this is one factorisation and one
refinement for every n tried (30 to 1000).

The answer is checked before it is returned: d is scaled onto the sphere, and the value reported,
the dual value V(nu) = f(c) + nu S^2 + g'd (the formula of :func:`.quadratic_ball._rightmost`;
for any nu >= 0 with nu I - A positive definite it is max_d of the Lagrangian, an upper bound on
the maximum), must agree with the primal value f(c + d) of that feasible point (a lower bound) to
rounding. Both are stationary at the solution, so they agree to second order in the residual of
the secular equation; a disagreement means the factorisations were too ill-conditioned (near the
hard case) and the caller falls back to the eigendecomposition.

:func:`maximize_on_ball_newton` returns ``None`` whenever this path does not apply or does not
certify its answer: g = 0; the hard case, and easy cases so close to it that the Krylov models
cannot separate nu* from phi_max (g almost orthogonal to the top eigenvector, or nu* - phi_max at
the rounding level of nu); the interior maximiser of a negative definite A (nu* = 0); or no
convergence within MAX_FACTORIZATIONS factorisations / MAX_FAILURES breakdowns.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import get_blas_funcs, get_lapack_funcs

from .ball_problem import BallMaximum, check_ball_problem

__all__ = ["maximize_on_ball_newton", "MAX_FACTORIZATIONS", "MAX_FAILURES", "NEWTON_RTOL", "STAGNATION_RTOL",
           "CERTIFICATE_RTOL", "LANCZOS_STEPS", "LANCZOS_MAX_STEPS", "REFINE_RATE"]

_EPS = float(np.finfo(float).eps)
_POTRF, _TRTRS = get_lapack_funcs(("potrf", "trtrs"), dtype=np.float64)
_NRM2 = get_blas_funcs("nrm2", dtype=np.float64)

NEWTON_RTOL = 16 * _EPS
"""Stop when | ||d|| - S | <= NEWTON_RTOL * (1 + nu / rho) * S, rho = ||d||^2 / d'M^{-1}d (a
weighted mean of the distances nu - phi_i, so nu / rho is the condition number that matters).
Why this is what floating point allows: nu is known to one ulp, eps nu, which moves ||d|| by the
relative amount eps nu ||d'M^{-1}d|| / ||d||^2 = eps nu / rho; and a backward-stable solve
gives ||d|| to a few eps times the same factor (typically sqrt(n) eps, not the worst case
n eps). 16 eps (3.6e-15) leaves room for both on well-conditioned problems (nu / rho ~ 1, the
tolerance is then ~7e-15, "1e-14 S"); when rounding noise is larger than this the iteration stops
on stagnation instead, and the certificate decides."""

STAGNATION_RTOL = math.sqrt(_EPS)
"""When the residual stops shrinking (by 4x per step) it is rounding noise (near the hard case nu
itself is too coarse: one ulp of nu is a large relative change of nu - phi_max); the iteration then
stops if the residual is below sqrt(eps) (1.5e-8) and leaves the verdict to the certificate, which
the value passes as long as its second-order error g'd * res^2 stays at rounding level."""

CERTIFICATE_RTOL = 4.0
"""The dual value nu S^2 + g'd and the primal value d'Ad + 2g'd of the point scaled onto the
sphere must agree within CERTIFICATE_RTOL * n * eps * (nu S^2 + ||g|| S): both sums have terms
bounded by that scale and are computed with relative errors of at most n eps (inner products of
length n), and at the exact solution they are equal. Their difference is of second order in the
residual of the secular equation, so on a converged well-conditioned problem it is pure rounding."""

MAX_FACTORIZATIONS = 8
"""Cholesky factorisations allowed before giving up (the easy case needs one to three; more means
a near-hard case, which the eigendecomposition handles better)."""

MAX_FAILURES = 2
"""Cholesky breakdowns (trial nu <= phi_max) allowed: a first one happens when the start's model has
not yet found phi_max; a second one means the root hides within rounding of a poorly resolved
phi_max -- the hard case or next to it -- and the eigendecomposition is the better tool."""

LANCZOS_STEPS = 4
"""Lanczos steps for a Gauss model of T (one O(n^2) product with A, or two triangular solves, each);
with 4 nodes the model root is within about (spread / distance)^8 of nu*."""

LANCZOS_MAX_STEPS = 12
"""More steps, up to this many, while the top pole of the model is not yet pinned down (near the
hard case the root is closer to phi_max than the top Ritz value is)."""

REFINE_RATE = 1e-2
"""Finish a Newton step by the stationary iteration on the factor at hand (instead of a new
factorisation) when its predicted contraction delta ||M^{-1}d|| / ||d|| is below this; at 1e-2 that
is at most 8 sweeps (two triangular solves each) to rounding."""

_REFINE_SWEEPS = 10


def maximize_on_ball_newton(A, b, center, radius, trace: dict | None = None) -> BallMaximum | None:
    """Global maximum of w'Aw + 2b'w over ||w - center|| <= radius in the easy case, or ``None``.

    Solves the secular equation ||(nu I - A)^{-1} g|| = S (Hanada et al., Appendix D.2, eq. 18,
    with g = A center + b) for its root right of the largest eigenvalue of A by the safeguarded
    Newton iteration of More and Sorensen (1983) on 1/||d(nu)|| - 1/S, evaluating d(nu) through
    Cholesky factorisations of nu I - A, started from a Lanczos (Gauss quadrature) lower bound on
    the root; see the module docstring. The maximiser is w = center + d(nu*) (Theorem 4.1).

    Parameters
    ----------
    A : array of shape (n, n)
        Symmetric (checked as in :func:`.quadratic_ball.maximize_quadratic_on_ball`). Any symmetric
        A is accepted; the path is meant for positive semidefinite A, and returns ``None`` for
        the cases it does not handle.
    b, center : arrays of shape (n,)
    radius : float > 0
    trace : dict, optional
        If given, filled with diagnostics: ``factorizations``, ``failures`` (Cholesky breakdowns,
        i.e. trials nu <= phi_max), ``refinements`` (Newton steps finished on the previous
        factor), ``models`` (shift-invert models built right of the root), ``lanczos`` (steps of
        the starting model), ``start`` (its root) and ``reason`` (why the iteration stopped).

    Returns
    -------
    BallMaximum or None
        ``BallMaximum(value, w, nu)`` with value = f(center) + nu S^2 + g'd (the formula of the
        eigen path), w on the sphere, nu > max(phi_max, 0) (up to rounding). ``None`` when
        g = 0, in or near the hard case (see the module docstring), when nu* = 0 (interior
        maximiser of a negative definite A), when the dual and primal values of the final point
        disagree beyond rounding (CERTIFICATE_RTOL), or when MAX_FACTORIZATIONS factorisations do
        not converge. The caller then uses the eigendecomposition
        (``maximize_quadratic_on_ball(..., method="rightmost")``).
    """
    A, b, center, radius = check_ball_problem(A, b, center, radius)
    return newton_on_checked(A, b, center, radius, trace)


def newton_on_checked(A, b, center, radius, trace=None):
    """:func:`maximize_on_ball_newton` for arguments already validated (:func:`.ball_problem.check_ball_problem`)."""
    g = A @ center + b                      # as in quadratic_ball.secular_data
    return _easy_case(A, center, radius, g, float(center @ (g + b)), trace)


# ----------------------------------------------------------------------------- the iteration


def _easy_case(A, center, S, g, f_center, trace=None):
    """Core of :func:`maximize_on_ball_newton` for validated, exactly symmetric A; g = A c + b and
    f_center = f(c) computed by the caller as in :func:`.quadratic_ball.secular_data`."""
    tr = {} if trace is None else trace
    tr.update(factorizations=0, failures=0, refinements=0, models=0, lanczos=0, start=float("nan"), reason="")
    n = A.shape[0]
    gnorm = float(_NRM2(g))
    if not (gnorm > 0.0 and math.isfinite(gnorm)):
        tr["reason"] = "g = 0: the center is stationary (hard case)"
        return None
    diag = A.diagonal()
    M = np.empty((n, n))                                   # the one n x n work array (fresh pages are costly)
    rows = np.abs(A, out=M).sum(axis=1)
    up = float(np.max(diag + (rows - np.abs(diag))))        # Gershgorin: phi_max <= up
    hi = max(up, 0.0) + gnorm / S                          # ||d(nu)|| <= ||g|| / (nu - phi_max) <= S there
    # the start: root of the Gauss model from Lanczos on A (<= nu*); its top Ritz value is <= phi_max
    nu, theta, tr["lanczos"] = _krylov_model(lambda v: A @ v, g / gnorm, gnorm, S)
    tr["start"] = nu
    start_settled = tr["lanczos"] < min(LANCZOS_MAX_STEPS, n)   # stopped early: its top pole looked resolved
    phi_lo = max(float(diag.max()), theta)                 # lower bounds on phi_max
    lo = max(0.0, phi_lo)                                  # nu* >= max(phi_max, 0), > phi_max in the easy case
    if not (lo < hi and math.isfinite(hi)):
        tr["reason"] = "no usable bracket"
        return None

    diag_view = M.ravel()[:: n + 1]
    prev_res = math.inf
    while tr["factorizations"] < MAX_FACTORIZATIONS:
        if nu > hi:                                        # nu* is in (lo, hi]
            nu = hi
        elif not nu > lo:
            nu = _safeguard(lo, hi)
        np.negative(A, out=M)
        diag_view += nu
        U, info = _POTRF(M.T, lower=0, clean=0, overwrite_a=1)   # M symmetric: M.T is M in Fortran order
        tr["factorizations"] += 1
        if info != 0:                                      # nu I - A not positive definite: nu <= phi_max
            tr["failures"] += 1
            if tr["factorizations"] == 1 and start_settled:
                # the start's model had resolved its top pole, yet an eigenvalue lies above its root:
                # the Krylov space of g (nearly) misses that eigenvector -- the hard case or next to it
                tr["reason"] = "hard case (g nearly orthogonal to an eigenvector above the model's root)"
                return None
            phi_lo = max(phi_lo, nu, _rayleigh_bound(A, U, info) if info > 0 else -math.inf)
            lo = max(lo, phi_lo)
            if tr["failures"] >= MAX_FAILURES or not lo < hi * (1.0 - 4 * _EPS):
                tr["reason"] = "near the hard case (repeated trials at or below phi_max)"
                return None
            nu = _safeguard(lo, hi)
            continue
        y, _ = _TRTRS(U, g, lower=0, trans=1)             # U'y = g
        d, _ = _TRTRS(U, y, lower=0, trans=0)             # U d = y: d = M^{-1} g
        q, _ = _TRTRS(U, d, lower=0, trans=1)             # ||q||^2 = d'M^{-1}d
        dn, qn = float(_NRM2(d)), float(_NRM2(q))
        if not (dn > 0.0 and qn > 0.0 and math.isfinite(dn) and math.isfinite(qn)):
            tr["reason"] = "non-finite solve"
            return None
        rho = (dn / qn) ** 2                               # a weighted mean of the nu - phi_i
        tol = NEWTON_RTOL * (1.0 + nu / rho)
        res = dn / S - 1.0
        step = rho * res                                   # More-Sorensen: (||d|| / ||q||)^2 (||d|| - S) / S
        if abs(res) <= tol or (abs(res) <= STAGNATION_RTOL and abs(res) > 0.25 * prev_res) \
                or abs(step) <= 4 * _EPS * nu:             # converged, or at the rounding floor
            tr["reason"] = "converged"
            return _finish(A, center, S, g, f_center, gnorm, nu, d, dn, tr)
        prev_res = abs(res)
        if res > 0.0:                                      # left of the root: Newton climbs monotonically
            lo = nu
            target = nu + step
            z, _ = _TRTRS(U, q, lower=0, trans=0)         # z = M^{-1} d
            if step * float(_NRM2(z)) / dn <= REFINE_RATE:
                d2 = _refine(U, g, d, z, step, dn)
                if d2 is not None:
                    tr["refinements"] += 1
                    dn2 = float(_NRM2(d2))
                    res2 = abs(dn2 / S - 1.0)
                    if res2 <= tol or (res2 <= STAGNATION_RTOL and res2 > 0.25 * abs(res)):
                        tr["reason"] = "converged (last step on the previous factor)"
                        return _finish(A, center, S, g, f_center, gnorm, target, d2, dn2, tr)
            nu = target
        else:                                              # right of the root: Newton may land below phi_max;
            hi = nu                                        # the shift-invert Gauss model does not (much)
            tr["models"] += 1
            root, pole, _ = _krylov_model(lambda v: _TRTRS(U, _TRTRS(U, v, lower=0, trans=1)[0], lower=0)[0],
                                          g / gnorm, gnorm, S, shift=nu)
            phi_lo = max(phi_lo, pole)
            lo = max(lo, phi_lo)
            nu = max(nu + step, root)                     # both are <= nu*
            if not (nu > lo and root - pole > 8 * n * _EPS * abs(pole)):
                tr["reason"] = ("near the hard case (the model sees no root above the known part of the "
                                "spectrum, or puts it on its top pole)")
                return None
        if hi - lo <= 4 * _EPS * hi:
            tr["reason"] = "bracket collapsed (hard case or near it)"
            return None
    tr["reason"] = "factorisation budget exhausted"
    return None


def _safeguard(lo, hi):
    """More-Sorensen's trial multiplier inside the bracket (lo, hi)."""
    return max(math.sqrt(lo * hi), lo + 0.01 * (hi - lo)) if lo > 0.0 else lo + 0.01 * (hi - lo)


def _rayleigh_bound(A, U, k):
    """A lower bound on phi_max after dpotrf stopped at pivot k (1-based): the Rayleigh quotient of
    v = (-U11^{-1} u, 1, 0, ...), with U11 the factored leading block and u the column above the
    failed pivot, the vector of More and Sorensen's lemma (v'(nu I - A)v <= 0)."""
    n = A.shape[0]
    v = np.zeros(n)
    v[k - 1] = 1.0
    if k > 1:
        head, info = _TRTRS(U[: k - 1, : k - 1], -U[: k - 1, k - 1], lower=0, trans=0)
        if info != 0 or not np.all(np.isfinite(head)):
            return -math.inf
        v[: k - 1] = head
    return float(v @ (A @ v)) / float(v @ v)


def _refine(U, g, d, z, step, dn):
    """d(nu + step) from the factor of M(nu) by x <- M^{-1}(g - step x), started at d(nu); ``None``
    if the sweeps do not contract to rounding within _REFINE_SWEEPS."""
    x = d - step * z                                       # first sweep: M^{-1}(g - step d) = d - step M^{-1}d
    inc = step * float(_NRM2(z))
    for _ in range(_REFINE_SWEEPS):
        if inc <= 2 * _EPS * dn:
            return x
        xn, _ = _TRTRS(U, _TRTRS(U, g - step * x, lower=0, trans=1)[0], lower=0, trans=0)
        new_inc = float(_NRM2(xn - x))
        if new_inc > 0.5 * inc:                            # not contracting (or at the rounding floor)
            return xn if new_inc <= 64 * _EPS * dn else None
        x, inc = xn, new_inc
    return x if inc <= 64 * _EPS * dn else None


def _finish(A, center, S, g, f_center, gnorm, nu, d, dn, tr):
    """Scale d onto the sphere, certify dual = primal to rounding, build the result."""
    ds = d * (S / dn)
    dual = nu * S * S + float(g @ d)
    primal = float(ds @ (A @ ds)) + 2.0 * float(g @ ds)
    n = A.shape[0]
    if not abs(dual - primal) <= CERTIFICATE_RTOL * n * _EPS * (abs(nu) * S * S + gnorm * S):
        tr["reason"] += "; certificate failed (dual and primal values disagree beyond rounding)"
        return None
    if not nu > 0.0:
        tr["reason"] += "; nu <= 0 (interior maximiser): left to the eigen path"
        return None
    return BallMaximum(float(f_center + dual), center + ds, float(nu))


# ----------------------------------------------------------------------------- Gauss models of T


def _krylov_model(apply, q, gnorm, S, shift=None):
    """Gauss model of T(nu) = g'(nu I - A)^{-2} g from Lanczos on a symmetric operator, and its root.

    ``apply`` is v -> A v (``shift`` None: the nodes are Ritz values of A, i.e. the poles) or
    v -> (shift I - A)^{-1} v (the nodes s are Ritz values of the inverse, poles shift - 1/s). Runs
    LANCZOS_STEPS steps, then continues (up to LANCZOS_MAX_STEPS) while the top pole is uncertain
    against the root's distance to it (residual bound of the top Ritz pair; the root right of a
    misplaced top pole would land left of phi_max). Full reorthogonalisation (k is small).
    Returns (root, top pole, steps); the root is -inf if the model has none.
    """
    n = q.size
    k_max = min(LANCZOS_MAX_STEPS, n)
    Q = np.empty((k_max, n))
    alpha, beta = [], []
    root, top, scale = -math.inf, -math.inf, 0.0
    for j in range(k_max):
        Q[j] = q
        w = apply(q)
        a = float(q @ w)
        alpha.append(a)
        scale = max(scale, abs(a))
        Qj = Q[: j + 1]
        w -= Qj.T @ (Qj @ w)
        w -= Qj.T @ (Qj @ w)
        bn = float(_NRM2(w))
        exact = not bn > 8 * n * _EPS * scale               # invariant subspace: the model is exact
        if exact or j + 1 >= min(LANCZOS_STEPS, k_max):
            m = len(alpha)
            T = np.zeros((m, m))
            T.flat[:: m + 1] = alpha
            T.flat[1:: m + 1] = beta
            nodes, Z = np.linalg.eigh(T, UPLO="U")
            weights = (gnorm * Z[0]) ** 2
            resid = 0.0 if exact else bn * abs(float(Z[-1, -1]))
            if shift is None:
                poles, unc = nodes, resid
            else:
                keep = nodes > 0.0                         # Ritz values of a positive definite inverse
                if not keep[-1]:
                    break
                poles, weights = shift - 1.0 / nodes[keep], weights[keep]
                s_top = float(nodes[-1])
                unc = resid / (s_top * (s_top + resid))
            top = float(poles[-1])
            root = _model_root(poles, weights, S)
            if exact or root - top >= 4.0 * unc:
                break
        if exact:
            break
        beta.append(bn)
        q = w / bn
    return root, top, len(alpha)


def _model_root(poles, weights, S):
    """The root right of the largest weighted pole of sum_j w_j / (nu - p_j)^2 = S^2 (the Gauss model
    of eq. 18), by Newton's method on the concave 1/sqrt(model) from a lower bound, so monotone.
    When the model underestimates T on (phi_max, ...) (Gauss quadrature of a function whose
    even derivatives are positive), the root is <= nu*."""
    keep = weights > 0.0
    if not keep.any():
        return -math.inf
    p, w = poles[keep].tolist(), weights[keep].tolist()
    top, W = max(p), sum(w)
    # a weighted mean of the poles is at most the top one; rounded, it can land an ulp above it, and
    # when sqrt(W) / S is below that ulp the Jensen bound below then starts Newton right of the
    # root, from where it stepped onto t = 0 (b = 1e-46 against A = 0.1 divided by zero)
    mean = min(sum(wi * pi for wi, pi in zip(w, p)) / W, top)
    t_top = sum(wi for wi, pi in zip(w, p) if pi == top)
    # lower bounds on the offset t = nu - top: the top term alone, and Jensen (one node at the mean)
    t = max(math.sqrt(t_top) / S, mean + math.sqrt(W) / S - top)
    if not t > 0.0:
        return -math.inf
    terms = [(wi, top - pi) for wi, pi in zip(w, p)]
    for _ in range(60):
        T2 = T3 = 0.0
        for wi, gp in terms:
            inv = 1.0 / (t + gp)
            T2 += wi * inv * inv
            T3 += wi * inv * inv * inv
        psi = 1.0 / math.sqrt(T2)
        dt = (1.0 / S - psi) / (T3 * psi ** 3)
        t += dt
        if not abs(dt) > 4 * _EPS * t:
            break
    return top + t
