"""Reference answers for max w'Aw + 2b'w over ||w - center|| <= radius (Hanada et al., eq. 12).

Three formulations written independently of :mod:`svmcert.screening` (none of them uses an
eigendecomposition):

* :func:`ball_max_sdp` -- the Shor semidefinite relaxation, solved by cvxpy (Clarabel or SCS).
  One quadratic constraint makes it exact (S-lemma): its optimal value is the maximum.
* :func:`ball_max_trust_region` -- scipy's nearly exact trust-region subproblem solver
  (``scipy.optimize._trustregion_exact.IterativeSubproblem``, More-Sorensen) applied to the
  minimisation of -f, with stopping tolerances far tighter than its defaults.
* :func:`ball_max_sampled` -- f at many points of the sphere: a lower bound on the maximum
  (and, for n = 2, an evenly spaced circle, close to it within a Lipschitz bound).

:func:`secular_roots_polynomial` solves the secular equation T(nu) = S^2 (Lemma D.4) as the real
roots of an equivalent polynomial, a reference for :func:`svmcert.screening.secular_roots`.

All work in the shifted variable d = w - center: f(center + d) = f(center) + d'Ad + 2g'd with
g = A center + b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._optional import require

__all__ = ["BallReference", "ball_max_sdp", "ball_max_trust_region", "ball_max_sampled", "quadratic_value",
           "secular_roots_polynomial"]


@dataclass(frozen=True)
class BallReference:
    """A reference answer: the value, a point (None when the solver gives no usable point), a
    status string naming the method, and whether the method met its own stopping rule (a point
    from a method that did not is still feasible, so its value is still a lower bound)."""

    value: float
    w: np.ndarray | None
    status: str
    converged: bool = True


def quadratic_value(A, b, w) -> float:
    """f(w) = w'Aw + 2b'w evaluated directly."""
    A, b, w = (np.asarray(v, dtype=float) for v in (A, b, w))
    return float(w @ (A @ w) + 2.0 * (b @ w))


def _shifted(A, b, center):
    A, b, center = (np.asarray(v, dtype=float) for v in (A, b, center))
    A = 0.5 * (A + A.T)
    g = A @ center + b
    return A, g, center, quadratic_value(A, b, center)


def ball_max_sdp(A, b, center, radius, solver: str = "CLARABEL", tol: float = 1e-10) -> BallReference:
    """Shor relaxation: maximise <A, D> + 2 g'd over [[D, d], [d', 1]] PSD with trace(D) <= S^2.

    Variables are scaled (d = S u, objective divided by S^2 ||A|| + S ||g||) so the solver sees
    numbers of order one. By the S-lemma (one quadratic constraint, Slater point d = 0) the
    relaxation's value is the maximum; the returned w is the d-column of the solution, which is
    a maximiser when the solution has rank one (not in the hard case, where it may be a mixture).
    """
    cp = require("cvxpy", "reference")

    A, g, center, f_c = _shifted(A, b, center)
    n, S = A.shape[0], float(radius)
    scale = S * S * np.linalg.norm(A, 2) + S * np.linalg.norm(g)
    if scale == 0.0:
        return BallReference(f_c, center.copy(), "trivial (A = 0, g = 0)")
    As, gs = (S * S / scale) * A, (S / scale) * g
    Y = cp.Variable((n + 1, n + 1), PSD=True)
    U, u = Y[:n, :n], Y[:n, n]
    prob = cp.Problem(cp.Maximize(cp.trace(As @ U) + 2 * gs @ u), [cp.trace(U) <= 1, Y[n, n] == 1])
    opts = {}
    if solver == "CLARABEL":
        opts = dict(tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=400)
    elif solver == "SCS":
        opts = dict(eps_abs=tol, eps_rel=tol, max_iters=200000)
    prob.solve(solver=solver, **opts)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} did not solve the SDP relaxation: status {prob.status}")
    w = center + S * np.asarray(u.value, dtype=float)
    return BallReference(f_c + scale * float(prob.value), w, f"cvxpy/{solver}: {prob.status}",
                         prob.status == "optimal")


def ball_max_trust_region(A, b, center, radius, k_easy: float = 1e-12, k_hard: float = 1e-12,
                          maxiter: int = 500) -> BallReference:
    """scipy's exact trust-region subproblem solver on min -(d'Ad + 2g'd)/2 over ||d|| <= S.

    The model scipy minimises is m(p) = jac'p + p'Hp/2, so jac = -g and H = -A. ``k_easy`` stops
    when | ||p|| - S | <= k_easy S and ``k_hard`` bounds the relative error of the hard-case
    step (defaults 0.1 and 0.2 in scipy). A step that ends outside the ball is scaled back onto
    it, so the value returned is always attained by a feasible point. When scipy returns no step
    at all (it happens for g = 0 with -A never positive definite on its lambda path, e.g. A = 0 and
    b = 0), the value is NaN. Both failures set ``converged=False``; so does reaching ``maxiter``
    (with tolerances this tight scipy sometimes stalls inside the ball).
    """
    from scipy.optimize._trustregion_exact import IterativeSubproblem

    A, g, center, f_c = _shifted(A, b, center)
    n, S = A.shape[0], float(radius)
    sub = IterativeSubproblem(np.zeros(n), lambda x: 0.0, lambda x: -g, lambda x: -A,
                              k_easy=k_easy, k_hard=k_hard, maxiter=maxiter)
    try:
        p, _ = sub.solve(S)
    except UnboundLocalError:               # scipy ends without a step when g = 0 and -A + lam I never factorises
        return BallReference(float("nan"), None, "scipy IterativeSubproblem failed (no step returned)", False)
    norm = float(np.linalg.norm(p))
    if norm > S:
        p = p * (S / norm)
    w = center + p
    converged = sub.niter < maxiter
    return BallReference(f_c + float(p @ (A @ p) + 2.0 * (g @ p)), w,
                         f"scipy IterativeSubproblem ({sub.niter} iterations"
                         + ("" if converged else ", iteration limit reached") + ")", converged)


def ball_max_sampled(A, b, center, radius, m: int, rng=None, chunk: int = 4096) -> BallReference:
    """max of f over m points of the sphere ||w - center|| = radius: a lower bound on the maximum.

    n = 1: the two points. n = 2: m evenly spaced angles (every point of the circle is within
    pi S / m of one of them). n >= 3: m uniformly random directions (normalised Gaussians).
    """
    A, g, center, f_c = _shifted(A, b, center)
    n, S = A.shape[0], float(radius)
    rng = np.random.default_rng(0) if rng is None else rng
    best, arg = -np.inf, None
    done = 0
    while done < (2 if n == 1 else m):
        k = min(chunk, m - done) if n > 1 else 2
        if n == 1:
            D = np.array([[1.0], [-1.0]])
        elif n == 2:
            ang = 2 * np.pi * (done + np.arange(k)) / m
            D = np.column_stack([np.cos(ang), np.sin(ang)])
        else:
            D = rng.standard_normal((k, n))
            D /= np.linalg.norm(D, axis=1, keepdims=True)
        D *= S
        vals = np.einsum("ij,ij->i", D @ A, D) + 2.0 * (D @ g)
        i = int(np.argmax(vals))
        if vals[i] > best:
            best, arg = float(vals[i]), center + D[i]
        done += k
    return BallReference(f_c + best, arg, f"{done} points of the sphere")


def secular_roots_polynomial(poles, weights, radius, imag_tol: float = 1e-6):
    """Roots of sum_k (weights_k / (nu - poles_k))^2 = radius^2 for distinct poles, as the real
    roots of S^2 prod_k (nu - p_k)^2 - sum_k weights_k^2 prod_{j != k} (nu - p_j)^2 (degree 2N),
    found by ``numpy.roots`` (eigenvalues of the companion matrix). No pole is a root of the
    polynomial, so its real roots are exactly those of the secular equation.

    Returns the sorted real roots (imaginary part <= imag_tol (1 + abs(real part))) and all roots.
    """
    P = np.polynomial.polynomial
    sq = [P.polypow([-float(p), 1.0], 2) for p in poles]

    def prod(polys):
        out = np.array([1.0])
        for q in polys:
            out = P.polymul(out, q)
        return out

    poly = radius ** 2 * prod(sq)
    for k, wk in enumerate(weights):
        poly = P.polysub(poly, wk ** 2 * prod([q for j, q in enumerate(sq) if j != k]))
    r = np.roots(poly[::-1])
    real = np.abs(r.imag) <= imag_tol * (1 + np.abs(r.real))
    return np.sort(r[real].real), r
