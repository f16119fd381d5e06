"""The literal active-set method for convex QP (Nocedal and Wright, Algorithm 16.1 in the 1st
edition, 16.3 in the 2nd), on dense matrices, and its application to QP1.

``min 1/2 q^T G q + d^T q  s.t.  a_i^T q >= t_i``. At ``q_k`` with working set ``W_k`` solve the
equality-constrained subproblem (Aksu eq. 17) ``min_p 1/2 p^T G p + h^T p`` s.t.
``a_i^T p = 0`` (i in ``W_k``), ``h = G q_k + d``, by the null-space method: ``p = Z u`` with
``Z`` an orthonormal basis of the null space of ``A^W``, ``(Z^T G Z) u = -Z^T h``.

- ``p != 0``: step ``delta = min(1, min_{i not in W, a_i^T p < 0} (t_i - a_i^T q)/(a_i^T p))``;
  if a constraint blocks it joins ``W``.
- ``p = 0``: multipliers from ``sum_{i in W} a_i lam_i = h``; stop when all are >= 0, else drop
  the most negative.

The algorithm assumes ``Z^T G Z`` positive definite (R2) and says nothing when it is not. With
``G`` only positive semidefinite the subproblem can be unbounded below: here, when ``Z^T h`` has
a component in the null space of ``Z^T G Z``, we take the descent direction of zero curvature
``p = -Z P Z^T h`` (``P`` the projector on that null space) and step to the first blocking
constraint (kind ``"ray"``). That is the smallest completion that keeps the iteration defined,
and the record of each such iteration shows that R2 failed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .qp1_problem import QP1Iteration, finish_result, initial_margin_setter, initial_working_set, qp1_matrices

__all__ = ["ICQPIteration", "active_set_qp", "qp1_nocedal_wright"]


@dataclass(frozen=True)
class ICQPIteration:
    """One iteration of :func:`active_set_qp` (absolute constraint rows)."""

    k: int
    kind: str
    W: tuple
    step: float
    direction_norm: float
    blocking: int | None
    dropped: int | None
    multipliers: dict | None
    objective: float
    reduced_hessian_pd: bool | None


def active_set_qp(G, d, A, t, q0, W0, *, tol=1e-12, max_iter=1000):
    """Algorithm 16.1 for ``min 1/2 q^T G q + d^T q`` s.t. ``A q >= t`` from a feasible ``q0``.

    Parameters
    ----------
    G : ndarray (n, n), symmetric positive semidefinite
    d : ndarray (n,)
    A : ndarray (m, n)
    t : ndarray (m,)
    q0 : ndarray (n,)
        Feasible starting point.
    W0 : iterable of int
        Initial working set: rows active at ``q0`` with linearly independent ``a_i``.
    tol : float
        Relative tolerance for ``p = 0``, for negative multipliers and for zero curvature.
    max_iter : int

    Returns
    -------
    q : ndarray
    W : list of int
        Final working set.
    lam : dict
        Multipliers of the final working set.
    iterations : list of ICQPIteration
    converged : bool
    """
    q = np.array(q0, dtype=float)
    W = list(W0)
    n = q.shape[0]
    gscale = max(float(np.abs(G).max()), 1e-300)
    iterations = []
    lam = {}
    for k in range(max_iter):
        h = G @ q + d
        obj = 0.5 * float(q @ G @ q) + float(d @ q)
        AW = A[W] if W else np.zeros((0, n))
        Z = scipy.linalg.null_space(AW) if W else np.eye(n)
        pd = None
        ray = False
        reduced_gradient = 0.0
        if Z.shape[1] == 0:
            p = np.zeros(n)
        else:
            H = Z.T @ G @ Z
            evals, evecs = np.linalg.eigh(0.5 * (H + H.T))
            pos = evals > tol * 1e3 * gscale
            pd = bool(pos.all())
            gz = Z.T @ h
            reduced_gradient = float(np.linalg.norm(gz))
            if not pd:
                U = evecs[:, ~pos]
                proj = U @ (U.T @ gz)
                if np.linalg.norm(proj) > tol * 1e3 * (np.linalg.norm(h) + 1e-300):
                    p = -Z @ proj
                    ray = True
            if not ray:
                V = evecs[:, pos]
                p = -Z @ (V @ ((V.T @ gz) / evals[pos]))
        pnorm = float(np.linalg.norm(p))
        # p = 0 exactly when the reduced gradient Z^T h vanishes (h in the range of A_W^T); tested
        # relative to |h| so that the test does not depend on the scale of C and W
        if reduced_gradient <= tol * 1e3 * (float(np.linalg.norm(h)) + 1e-300):
            if W:
                sol, *_ = np.linalg.lstsq(AW.T, h, rcond=None)
                lam = {int(i): float(v) for i, v in zip(W, sol)}
            else:
                lam = {}
            scale = max(float(np.abs(h).max()), 1e-300)
            worst = min(lam, key=lambda i: (lam[i], i)) if lam else None
            if worst is None or lam[worst] >= -tol * 1e3 * scale:
                iterations.append(ICQPIteration(k, "optimal", tuple(W), 0.0, 0.0, None, None, lam, obj, pd))
                return q, W, lam, iterations, True
            W.remove(worst)
            iterations.append(ICQPIteration(k, "drop", tuple(sorted(W + [worst])), 0.0, 0.0, None, worst, lam, obj, pd))
            continue
        Ap = A @ p
        Aq = A @ q
        inW = np.zeros(A.shape[0], dtype=bool)
        inW[W] = True
        cand = (~inW) & (Ap < -tol * 1e3 * pnorm * np.linalg.norm(A, axis=1).max())
        ratios = np.full(A.shape[0], np.inf)
        ratios[cand] = np.maximum((t[cand] - Aq[cand]) / Ap[cand], 0.0)
        j = int(np.argmin(ratios))
        limit = np.inf if ray else 1.0
        if ratios[j] < limit:
            delta = float(ratios[j])
            q = q + delta * p
            iterations.append(ICQPIteration(k, "ray" if ray else "blocked", tuple(sorted(W)), delta, pnorm, j, None,
                                            None, obj, pd))
            W.append(j)
        elif ray:  # pragma: no cover - only for problems unbounded below
            raise RuntimeError("active_set_qp: the problem is unbounded below along a zero-curvature direction")
        else:
            q = q + p
            iterations.append(ICQPIteration(k, "step", tuple(sorted(W)), 1.0, pnorm, None, None, None, obj, pd))
    return q, W, lam, iterations, False


def qp1_nocedal_wright(g, y, C, wnorm2, *, a0=1.0, b0=None, tol=1e-12, max_iter=1000, record=True):
    """QP1 by the literal Algorithm 16.1 (inputs validated by :func:`solve_qp1`).

    Starts from the same point and working set as :func:`drd_active_set`, so that the two
    methods differ only in what they do at each iteration.
    """
    N = g.shape[0]
    G, d, A, t = qp1_matrices(g, y, C, wnorm2)
    a = float(a0)
    b, s0 = initial_margin_setter(a, g, y, b0)
    in1, in2 = initial_working_set(a, b, s0, g, y)
    xi = np.where(in1 & ~in2, 1.0 - y * (a * g + b), 0.0)
    q0 = np.concatenate([[a, b], xi])
    W0 = [int(i) for i in np.flatnonzero(in1)] + [N + int(i) for i in np.flatnonzero(in2)]
    q, Wf, lam, its, converged = active_set_qp(G, d, A, t, q0, W0, tol=tol, max_iter=max_iter)
    iterations = []
    for it in its:
        if record:
            W1 = tuple(i for i in it.W if i < N)
            W2 = tuple(i - N for i in it.W if i >= N)
        else:
            W1 = W2 = ()
        iterations.append(QP1Iteration(it.k, it.kind, W1, W2, it.step, it.direction_norm, it.blocking, it.dropped,
                                       it.multipliers, it.objective, it.reduced_hessian_pd))
    alpha = np.zeros(N)
    for i, v in lam.items():
        if i < N:
            alpha[i] = min(max(v, 0.0), C)
    W1f = np.zeros(N, dtype=bool)
    W2f = np.zeros(N, dtype=bool)
    for i in Wf:
        (W1f if i < N else W2f)[i % N] = True
    return finish_result("nocedal-wright", q[0], q[1], g, y, C, wnorm2, alpha, iterations, converged, W1f, W2f, max_iter)
