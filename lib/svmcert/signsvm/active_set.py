"""Active-set polishing of a dual point of the sign-constrained SVM (not in the paper).

At the optimum of the dual (eq. 9) the samples split into three sets: F (0 < alpha_i < 1, on the
margin: y_i <x_i, w> = 1), U (alpha_i = 1) and L (alpha_i = 0), and the coordinates of w into J
(free, or constrained with the sign they ask for: w_J = omega_J) and its complement (w_h = 0).
Once these sets are known the optimum solves a linear system: with w_J = Z_J^T alpha / (lam n),
the margin conditions Z_FJ w_J = 1 read

    Z_FJ Z_FJ^T alpha_F = lam n 1 - Z_FJ Z_UJ^T 1,                       (*)

an |F| x |F| positive semidefinite system. Coordinate ascent identifies the sets long before it
converges when lam is small (each coordinate step is exact, but the free alphas are coupled
through an ill-conditioned Gram matrix); solving (*) then jumps to the optimum.

:func:`polish_active_set` runs a primal-dual active-set iteration (Hintermueller, Ito & Kunisch,
2003) from the sets of a given point: solve (*), move samples between F, U and L by the sign of
alpha_F - 0, alpha_F - 1 and of the gradient y_i <x_i, w> - 1, move coordinates between J and its
complement by the sign of omega, and repeat. It is only a heuristic: every iterate is certified
by its duality gap (eq. 10) after clipping alpha to [0, 1], and it stops as soon as the gap is
below ``tol``; it gives up when the sets stop changing or come back to sets already tried (the
iteration can cycle), when one iteration moves many of them (far from the optimum it wanders)
or after ``max_iter`` solves, and the caller goes
back to coordinate ascent. When |F| > |J| (a degenerate optimum, e.g. repeated rows: (*) is
singular) the multipliers come from a bounded least-squares fit instead
(:func:`_fit_box_multipliers`, a counted BVLS).

Every iteration's cost is estimated before it runs (:func:`iteration_flops`) and charged to a
budget ``max_flops`` that the caller sets; the iteration that would exceed it is not started, so
a call never costs more than its budget (plus one certificate, O(nd)). Coordinate ascent sets the
budget from the work of the passes it has just done, so polishing at most doubles a run's work.

With per-sample weights s (the dual box [0, s], ``svmcert.signsvm.problem``) U is the set alpha_i = s_i, the
right-hand side of (*) reads lam n 1 - Z_FJ Z_UJ^T s_U, and samples with s_i = 0 stay at 0.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .bounded_lsq import bvls, lstsq_flops
from .result import Certificate, certificate

__all__ = ["polish_active_set", "iteration_flops", "MAX_FREE", "BVLS_MAX_SOLVES"]

MAX_FREE = 3000
"""Largest |F| for which (*) is formed: its cost is O(|F|^2 |J| + |F|^3), its memory 8 |F|^2 bytes."""

BVLS_MAX_SOLVES = 50
"""Most least-squares solves of one degenerate fit (:func:`_fit_box_multipliers`); each solve of
the |J| x |F| system costs O(|F| |J|^2). The repeated-row tests need at most a dozen."""


REFINEMENT_STEPS = 5
"""Steps of iterative refinement after the Cholesky solve of (*). Forming Z_FJ Z_FJ^T squares the
condition number of nearly collinear rows; each step recomputes the margin residual
lam n 1 - Z_FJ (Z_FJ^T alpha_F + Z_UJ^T 1) from the rows themselves and corrects alpha_F with
the same factor, which recovers digits lost in forming the product. Measured on an SVM-pairwise
training matrix at lam n = 1e-6 (BLAS on one thread): certified relative gap 7e-8 without
refinement, 1.1e-8 after 2 steps, 6e-9 after 5 (Clarabel at 1e-13 tolerances: 5e-9)."""


def _upper_sum(Z, U, J, upper):
    """Z_UJ^T s_U: the samples at their upper bound, summed with their bounds as weights."""
    ZU = Z[np.ix_(U, J)]
    return ZU.sum(axis=0) if upper is None else upper[U] @ ZU


def _solve_margin_system(Z, F, U, J, lam_n, upper=None):
    """alpha_F solving (*), least squares when Z_FJ Z_FJ^T is singular."""
    ZF = Z[np.ix_(F, J)]
    c = _upper_sum(Z, U, J, upper)
    rhs = lam_n - ZF @ c
    K = ZF @ ZF.T
    try:
        factor = sla.cho_factor(K, check_finite=False)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(K, rhs, rcond=None)[0]
    alpha_F = sla.cho_solve(factor, rhs, check_finite=False)
    for _ in range(REFINEMENT_STEPS):
        residual = lam_n - ZF @ (ZF.T @ alpha_F + c)
        alpha_F = alpha_F + sla.cho_solve(factor, residual, check_finite=False)
    return alpha_F


def _fit_box_multipliers(Z, F, U, J, lam_n, max_flops=np.inf, stats=None, upper=None):
    """alpha_F in [0, 1] for a degenerate optimum (|F| > |J|: more samples on the margin than free
    coordinates, as with repeated rows). Then (*) is singular, but w_J is fixed by the margin
    conditions Z_FJ w_J = 1 (least squares; consistent when the sets are right), and any alpha_F
    in the box with Z_FJ^T alpha_F = lam n w_J - Z_UJ^T 1 is optimal. The minimum-norm solution of
    that system is tried first (one more least-squares solve); if it leaves the box, a bounded
    least-squares fit (:func:`~.bounded_lsq.bvls`, at most BVLS_MAX_SOLVES solves and
    ``max_flops``), whose residual is zero exactly when such an alpha_F exists; if that budget ends
    first, the minimum-norm solution is returned unclipped and the caller's set update moves the
    samples outside [0, 1] out of F (while F holds samples that are not on the margin at the
    optimum, no box solution exists anyway). With weights, the box [0, s_F] is the unit box in the
    scaled unknowns alpha_F / s_F (every s_F > 0: F never holds a pinned sample)."""
    ZF = Z[np.ix_(F, J)]
    w_J = np.linalg.lstsq(ZF, np.ones(F.size), rcond=None)[0]
    target = lam_n * w_J - _upper_sum(Z, U, J, upper)
    a = np.linalg.lstsq(ZF.T, target, rcond=None)[0]
    s_F = 1.0 if upper is None else upper[F]
    if a.min() >= 0.0 and np.all(a <= s_F):
        return a
    A = ZF.T if upper is None else ZF.T * s_F
    fit = bvls(A, target, 0.0, 1.0, max_solves=BVLS_MAX_SOLVES,
               max_flops=max(max_flops - 2.0 * lstsq_flops(F.size, J.size), 0.0), stats=stats)
    return a if fit is None else fit * s_F


def iteration_flops(n_free: int, n_coords: int) -> float:
    """Cost model of one polishing iteration with |F| = n_free, |J| = n_coords: forming and
    factorising (*) and REFINEMENT_STEPS refinements, |F|^2 |J| + |F|^3 / 3 + 2 (R + 1) |F| |J|;
    for |F| > |J| the least-squares fits of w_J and of the minimum-norm alpha_F and the BVLS
    solves, (2 + BVLS_MAX_SOLVES) |F| |J|^2 at most."""
    f, j = float(n_free), float(n_coords)
    if f <= j:
        return f * f * j + f ** 3 / 3.0 + 2.0 * (REFINEMENT_STEPS + 1) * f * j
    return (2.0 + BVLS_MAX_SOLVES) * lstsq_flops(n_free, n_coords)


def _sets_key(*masks) -> bytes:
    return b"".join(np.packbits(m).tobytes() for m in masks)


def polish_active_set(Z, lam, sign, alpha, omega, tol: float, max_iter: int = 20,
                      change_fraction: float = 0.1, max_flops: float = np.inf,
                      stats: dict | None = None, upper=None) -> tuple[np.ndarray, Certificate] | None:
    """Primal-dual active-set iterations on the dual of problem (4), started from the sets of
    ``alpha`` (and of ``omega`` = Z^T alpha / (lam n) for the sign pattern).

    Parameters
    ----------
    Z : (n, d) array with rows y_i x_i.
    lam : lambda > 0.   sign : (d,) entries in {-1, 0, +1}.
    alpha : (n,) current dual point in [0, 1]^n (bounds held exactly, as coordinate ascent does).
    omega : (d,) Z^T alpha / (lam n).
    tol : relative duality gap at which an iterate is accepted.
    max_iter : most linear solves.
    change_fraction : give up when an iteration moves more than this fraction of all samples and
        coordinates between sets (the start was far from the optimum, and the sets wander).
    max_flops : work budget (:func:`iteration_flops` per iteration, plus the degenerate fits'
        counted solves); an iteration whose estimate exceeds what is left is not started.
    stats : optional dict; receives ``iterations``, ``flops`` (estimated work spent) and
        ``outcome`` (why the call ended).
    upper : (n,) per-sample weights s_i >= 0 (the box [0, s]; the certificate is the weighted
        one), or None for the unit box.

    Returns
    -------
    (alpha, certificate) of the first iterate whose relative gap is <= ``tol``, or None.
    """
    n, d = Z.shape
    lam_n = lam * n
    box = 1.0 if upper is None else upper
    live = True if upper is None else upper > 0.0        # samples with s_i = 0 stay at 0
    F = (alpha > 0.0) & (alpha < box)
    U = (alpha == box) & live
    J = (sign == 0) | (sign * omega > 0.0)
    seen = {_sets_key(F, U, J)}
    work = {"iterations": 0, "flops": 0.0, "outcome": "max_iter"}

    def end(outcome, value=None):
        work["outcome"] = outcome
        if stats is not None:
            stats.update(work)
        return value

    for _ in range(max_iter):
        nf, nj = int(F.sum()), int(J.sum())
        cost = iteration_flops(nf, nj) if nf and nj else 0.0
        if nf > MAX_FREE:                      # (*) would not fit
            return end("too many free samples")
        if work["flops"] + cost > max_flops:
            return end("budget")
        work["iterations"] += 1
        Fi, Ji, Ui = np.flatnonzero(F), np.flatnonzero(J), np.flatnonzero(U)
        b = U.astype(float) if upper is None else np.where(U, upper, 0.0)
        if Fi.size and Ji.size:
            if Fi.size <= Ji.size:
                b[Fi] = _solve_margin_system(Z, Fi, Ui, Ji, lam_n, upper)
                work["flops"] += cost
            else:
                fit_stats = {}
                b[Fi] = _fit_box_multipliers(Z, Fi, Ui, Ji, lam_n, max_flops - work["flops"], fit_stats, upper)
                work["flops"] += 2.0 * lstsq_flops(nf, nj) + fit_stats.get("flops", 0.0)
        omega_b = Z.T @ b / lam_n
        clipped = np.clip(b, 0.0, box)
        omega_c = omega_b if np.array_equal(clipped, b) else Z.T @ clipped / lam_n
        cert = certificate(omega_c, clipped, Z, lam, sign, upper)
        if cert.relative_gap_below(tol):
            return end("certified", (clipped, cert))
        G = Z @ np.where(J, omega_b, 0.0) - 1.0   # y_i <x_i, w> - 1 with w_J = omega_J
        F_new = ((F & (b > 0.0) & (b < box)) | (~F & ~U & (G < 0.0)) | (U & (G > 0.0))) & live
        U_new = ((F & (b >= box)) | (U & (G <= 0.0))) & live
        J_new = (sign == 0) | (sign * omega_b > 0.0)
        changes = int((F_new != F).sum() + (U_new != U).sum() + (J_new != J).sum())
        if changes == 0:
            return end("sets unchanged")
        if changes > change_fraction * (n + d):
            return end("sets wander")
        key = _sets_key(F_new, U_new, J_new)
        if key in seen:                        # the iteration cycles (e.g. one degenerate sample toggling)
            return end("sets cycle")
        seen.add(key)
        F, U, J = F_new, U_new, J_new
    return end("max_iter")
