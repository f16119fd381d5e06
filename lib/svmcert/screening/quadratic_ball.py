"""Maximising a quadratic over a ball (Hanada et al., Theorem 4.1; Appendix D.2, Theorem D.2,
Lemmas D.3-D.4).

Problem (12): maximise f(w) = w'Aw + 2b'w over ||w - c|| <= S. With A = V diag(phi) V'
(eigenvectors in the columns of V; the paper's Q is V'), g = Ac + b and xi = -V'g (the paper's
xi = -Phi Q c - Q b), a point w = c + V tau on the sphere is stationary (Lemma D.3, eq. 19) iff
(phi_i - nu) tau_i = xi_i for all i (eq. 22). When nu is no eigenvalue this means
tau_i = xi_i / (phi_i - nu) and ||tau|| = S, i.e. T(nu) = sum_i (xi_i / (nu - phi_i))^2 = S^2
(eq. 18); when nu is an eigenvalue, the xi_i of its eigenspace must vanish (the hard case).

Every stationary point has the value f(c) + nu S^2 + sum_i xi_i^2 / (nu - phi_i) (eq. 21 in
eigen-coordinates; terms with xi_i = 0 omitted), and two stationary points satisfy
f(w1) - f(w2) = (nu1 - nu2) ||w1 - w2||^2 / 2, so the maximiser is the stationary point with the
largest multiplier. That multiplier is nu* = max(phi_max, 0, largest root of T): the unique root
right of phi_max, or nu = phi_max itself in the hard case (the proof is in the book chapter
"quadratic-on-ball"). :func:`maximize_quadratic_on_ball` uses this. By default it finds nu* without
an eigendecomposition, by the safeguarded Newton iteration of More and Sorensen on Cholesky
factors of nu I - A (:mod:`.ball_newton`, usually one factorisation), and falls back to one
bracketed root after an O(n^3) eigendecomposition (``method="rightmost"``) in the hard case or
near it; ``method="enumerate"`` runs the paper's procedure (every root of Lemma D.4 plus the
hard-case candidates of Theorem D.2) and is kept as a tested reference path.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._gram import spectrum_tolerance
from ..exceptions import Float64RangeError
from .ball_newton import newton_on_checked
from .ball_problem import SYMMETRY_RTOL, BallMaximum, check_ball_problem  # noqa: F401  (re-exported)
from .secular import (CLUSTER_TOL, NEGLIGIBLE_EXPONENT, SAFE_EXPONENT, binary_exponent, offset_root,  # noqa: F401
                      pole_groups, root_offsets, secular_data, secular_function, secular_roots,
                      secular_roots_unchecked, stable_norm)

__all__ = [
    "BallMaximum",
    "StationaryPoint",
    "maximize_quadratic_on_ball",
    "secular_roots",
    "secular_function",
    "secular_data",
    "stationary_points",
]

_EPS = np.finfo(float).eps


class StationaryPoint(NamedTuple):
    """A stationary point of (12) on the sphere: multiplier, point, value, and how it was found
    (``"root"``: a root of T(nu) = S^2; ``"hard"``: nu an eigenvalue whose xi vanish, Theorem D.2)."""

    nu: float
    w: np.ndarray
    value: float
    kind: str


def _rightmost(phi, V, xi, f_center, center, radius):
    """The maximiser: nu* = max(phi_max, 0, largest root of T(nu) = S^2) (see module docstring).

    Works in the offset t = nu - phi_max >= 0, so that nu - phi_i = t + gap_i stays accurate
    near the pole. Cases: xi != 0 on the top eigenspace (a root t > 0); xi = 0 there and
    T(max(phi_max, 0)) <= S^2 (hard case: nu = phi_max, the top eigenspace fills the sphere;
    or, if phi_max < 0, the interior maximiser with nu = 0); otherwise a root right of that.
    """
    S = radius
    gap = phi[-1] - phi                      # >= 0, exactly 0 on the top eigenvalue
    nz = xi != 0
    x, gz = xi[nz], gap[nz]
    t0 = max(0.0, -phi[-1])                  # nu >= 0 as well (binds only if A is negative definite)
    on_top = nz & (gap == 0)
    pad = 0.0
    if t0 == 0.0 and on_top.any():           # T has a pole at phi_max: the root is right of it
        t = offset_root(x, gz, S, stable_norm(xi[on_top]) / S)
    else:                                    # every nu - phi_i = t + gap_i > 0 already at t0
        r0 = stable_norm(x / (gz + t0))
        if r0 <= S:
            t = t0
            if t0 == 0.0:                    # hard case: fill the top eigenspace up to the sphere
                pad = float(np.sqrt(max(S * S - r0 * r0, 0.0)))
        else:
            t = offset_root(x, gz, S, t0)
    denom = t + gz
    nu = float(phi[-1] + t)                  # exactly 0 in the interior case
    tau = np.zeros_like(xi)
    tau[nz] = -x / denom
    tau[-1] += pad                           # eigenvector of phi_max; xi vanishes there
    value = f_center + nu * S * S + float(np.sum(x * (x / denom)))
    return BallMaximum(float(value), center + V @ tau, nu)


def _resolve(phi, xi, center, b):
    """Eigenvalues and xi as far as floating point determines them: eigenvalues closer than
    CLUSTER_TOL * n * eps * max|phi| become one (their mean), and a cluster whose xi has norm
    at most CLUSTER_TOL * n * eps * (max|phi| ||c|| + ||b||) gets xi = 0 exactly (hard case)."""
    n = phi.size
    big = float(np.abs(phi).max(initial=0.0))
    tol_phi = CLUSTER_TOL * n * _EPS * big
    tol_xi = CLUSTER_TOL * n * _EPS * (big * stable_norm(center) + stable_norm(b))
    phi, xi = phi.copy(), xi.copy()
    starts = np.flatnonzero(np.r_[True, np.diff(phi) > tol_phi])
    for lo, hi in zip(starts, np.r_[starts[1:], n]):
        phi[lo:hi] = phi[lo:hi].mean()
        if stable_norm(xi[lo:hi]) <= tol_xi:
            xi[lo:hi] = 0.0
    return phi, xi


def _enumerate(phi, V, xi, f_center, center, radius):
    S, n = radius, phi.size
    p, w = pole_groups(phi, xi)
    nz = xi != 0
    pts = []
    for k, off in root_offsets(p, w, radius):
        d = off + (p[k] - phi[nz])               # nu - phi_i, accurate near the pole
        tau = np.zeros(n)
        tau[nz] = -xi[nz] / d
        nu = float(p[k] + off)
        pts.append(StationaryPoint(nu, center + V @ tau, f_center + nu * S * S + float(np.sum(xi[nz] ** 2 / d)),
                                   "root"))
    for mu in np.unique(phi):                    # hard-case candidates: xi vanishes on the eigenspace
        U = phi == mu
        if np.any(xi[U] != 0):
            continue
        F = nz & ~U
        tau = np.zeros(n)
        tau[F] = xi[F] / (phi[F] - mu)
        rest = S * S - stable_norm(tau) ** 2
        if rest < 0:                             # no point of the sphere: not a stationary point
            continue
        tau[np.flatnonzero(U)[0]] = np.sqrt(rest)
        pts.append(StationaryPoint(float(mu), center + V @ tau,
                                   f_center + float(mu) * S * S + float(np.sum(xi[F] ** 2 / (mu - phi[F]))), "hard"))
    return sorted(pts, key=lambda s: s.nu)


def _require_psd(phi, what):
    scale = float(np.abs(phi).max())
    tau = spectrum_tolerance(phi.size, scale)      # the library's one PSD tolerance (svmcert._gram)
    if phi[0] < -tau:
        raise ValueError(f"A: expected a positive semidefinite matrix ({what}), found eigenvalue "
                         f"{phi[0]:.3g} < -{tau:.3g} (100 n eps max|eigenvalue|)")


def stationary_points(A, b, center, radius):
    """Every stationary point of (12) on the sphere, by the paper's procedure (Theorem D.2).

    One point per root of T(nu) = S^2 (Lemma D.4), plus, for every eigenvalue mu whose
    eigenspace carries xi = 0, the candidate nu = mu when the fixed coordinates leave room on
    the sphere (sum over other i of (xi_i / (phi_i - mu))^2 <= S^2; the paper omits this
    condition). Requires A positive semidefinite (Lemma D.3: then the maximum lies on the sphere).

    Eigenvalues and xi are taken as floating point determines them: eigenvalues within
    CLUSTER_TOL * n * eps * max|phi| count as one, and xi blocks below
    CLUSTER_TOL * n * eps * (max|phi| ||c|| + ||b||) as zero, so that a repeated eigenvalue and
    the hard case are recognised after rounding (a perturbation of A, b within eigh's backward
    error; values move by O(n eps sigma)).

    Returns
    -------
    list of StationaryPoint, sorted by nu.
    """
    A, b, center, radius = check_ball_problem(A, b, center, radius)
    phi, V, xi, fc = secular_data(A, b, center)
    _require_psd(phi, "the paper's enumeration needs the maximum on the sphere, Lemma D.3")
    phi_r, xi_r = _resolve(phi, xi, center, b)
    return _enumerate(phi_r, V, xi_r, fc, center, radius)


def maximize_quadratic_on_ball(A, b, center, radius, method: str = "auto") -> BallMaximum:
    """Global maximum of w'Aw + 2b'w over ||w - center|| <= radius (Theorem 4.1 / D.2).

    Parameters
    ----------
    A : array of shape (n, n)
        Symmetric (up to SYMMETRY_RTOL * max|A|). The paper assumes A positive semidefinite and
        nonzero; ``"auto"`` and ``"rightmost"`` need neither (A = 0 and indefinite A are fine),
        ``method="enumerate"`` needs PSD.
    b, center : arrays of shape (n,)
    radius : float > 0
    method : {"auto", "cholesky", "rightmost", "enumerate"}
        ``"auto"`` (default): ``"cholesky"`` when it applies and certifies its answer, otherwise
        ``"rightmost"``; the two agree to rounding where both apply.
        ``"cholesky"``: the easy case without an eigendecomposition
        (``svmcert.screening.ball_newton.maximize_on_ball_newton``): safeguarded Newton iteration of More and
        Sorensen on the secular equation (eq. 18) with Cholesky factorisations of nu I - A, started
        from a Lanczos (Gauss quadrature) lower bound on the root; usually one factorisation,
        O(n^3 / 3). Raises RuntimeError where it does not apply (g = A center + b = 0, the hard
        case or within rounding of it, nu* = 0).
        ``"rightmost"``: one eigendecomposition, then the single multiplier
        nu* = max(phi_max, 0, largest root of T) by a bracketed root search in the offset from
        phi_max; the hard case (xi = 0 on the top eigenspace and T(phi_max) <= S^2) takes
        nu = phi_max and fills the top eigenspace. O(n^3).
        ``"enumerate"``: the paper's procedure, every stationary point (``stationary_points``)
        and the best of them. O(n^3) as well, with O(n^2) root work.

    Returns
    -------
    BallMaximum
        ``value``, the maximiser ``w`` and its multiplier ``nu``.

    Notes
    -----
    When radius, max|A| or ||A center + b|| lies outside 2^-100 .. 2^100 (SAFE_EXPONENT), the
    squares the methods form could over- or underflow (radius = 1e-300 divided by zero), so the
    problem is first written in the offset from the centre and scaled by powers of 2 (exact) to
    radius in [0.5, 1) and data of magnitude about 1, solved, and scaled back. Other inputs are
    solved as given.

    Raises
    ------
    ValueError
        If A is not square, symmetric and finite, b or center have the wrong length or are not
        finite, radius is not a finite number > 0, method is unknown, or (``"enumerate"``) A is
        not PSD; naming ``A, b, center, radius`` when the maximum, its multiplier or its point
        (or A center + b) exceeds the float64 range.
    RuntimeError
        ``method="cholesky"`` only: the Newton path does not apply (see above).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.screening import maximize_quadratic_on_ball
    >>> A = np.diag([2.0, 1.0]); b = np.array([1.0, 0.0])
    >>> res = maximize_quadratic_on_ball(A, b, center=np.zeros(2), radius=1.0)
    >>> round(res.value, 9), round(res.nu, 9), bool(np.allclose(res.w, [1.0, 0.0]))  # A w + b = 3 w
    (4.0, 3.0, True)
    """
    if method not in ("auto", "cholesky", "rightmost", "enumerate"):
        raise ValueError(f"method: expected 'auto', 'cholesky', 'rightmost' or 'enumerate', got {method!r}")
    A, b, center, radius = check_ball_problem(A, b, center, radius)
    with np.errstate(over="ignore", invalid="ignore"):
        g = A @ center + b
    if not np.all(np.isfinite(g)):                  # products overflowed: scale A and center first
        eA, ec = math.frexp(float(np.abs(A).max()))[1], math.frexp(float(np.abs(center).max()))[1]
        with np.errstate(over="ignore", invalid="ignore"):
            g = np.ldexp(np.ldexp(A, -eA) @ np.ldexp(center, -ec), eA + ec) + b
        if not np.all(np.isfinite(g)):
            raise Float64RangeError("A, b, center: the gradient A center + b at the centre exceeds the float64 range")
    e_S, e_A, e_g = binary_exponent(radius), binary_exponent(float(np.abs(A).max())), binary_exponent(stable_norm(g))
    if all(e is None or abs(e) <= SAFE_EXPONENT for e in (e_S, e_A, e_g)):
        return _maximize_checked(A, b, center, radius, method)
    return _maximize_scaled(A, b, g, center, radius, method, e_S, e_A, e_g)


def _maximize_checked(A, b, center, radius, method):
    """:func:`maximize_quadratic_on_ball` for validated arguments of moderate magnitude."""
    if method in ("auto", "cholesky"):
        trace = {}
        res = newton_on_checked(A, b, center, radius, trace)
        if res is not None:
            return res
        if method == "cholesky":
            raise RuntimeError(f"method='cholesky' does not apply here ({trace['reason']}); use method='auto'")
    phi, V, xi, fc = secular_data(A, b, center)
    if method in ("auto", "rightmost"):
        return _rightmost(phi, V, xi, fc, center, radius)
    _require_psd(phi, "method='enumerate' relies on the maximum lying on the sphere, Lemma D.3")
    phi_r, xi_r = _resolve(phi, xi, center, b)
    best = max(_enumerate(phi_r, V, xi_r, fc, center, radius), key=lambda s: s.value)
    return BallMaximum(best.value, best.w, best.nu)


def _maximize_scaled(A, b, g, center, radius, method, e_S, e_A, e_g):
    """Problem (12) with extreme magnitudes, solved in the offset d = w - center, where it reads
    max d'Ad + 2g'd over ||d|| <= S (g = A center + b). With d = 2^eS u and the value in units of
    2^eq (eq the exponent of the larger of S^2 max|A| and S ||g||) this is max u'A'u + 2g''u over
    ||u|| <= S 2^-eS, a radius in [0.5, 1), with A' = A 2^(2 eS - eq) and g'' = g 2^(eS - eq)
    both of magnitude at most about 1: exact scalings, and entries that underflow in them lie
    below eps of the value's scale. Then value = f(center) + 2^eq value', w = center + 2^eS u and
    nu = 2^(eq - 2 eS) nu' (from A d + g = nu d)."""
    n = A.shape[0]
    e_quad = None if e_A is None else 2 * e_S + e_A
    e_lin = None if e_g is None else e_S + e_g
    e_q = max((e for e in (e_quad, e_lin) if e is not None), default=0)
    A_s, g_s = np.ldexp(A, 2 * e_S - e_q), np.ldexp(g, e_S - e_q)
    if method == "enumerate":                    # PSD is scale-free: test it before any term is dropped
        _require_psd(np.linalg.eigvalsh(A_s), "method='enumerate' relies on the maximum lying on the sphere, "
                                              "Lemma D.3")
    # A term below 2^-NEGLIGIBLE_EXPONENT of the other changes the value by far less than one
    # rounding; kept, its squares and cubes (pole gaps, weights) would underflow in the root search.
    if e_quad is not None and e_quad < e_q - NEGLIGIBLE_EXPONENT:
        A_s = np.zeros_like(A_s)
    if e_lin is not None and e_lin < e_q - NEGLIGIBLE_EXPONENT:
        g_s = np.zeros_like(g_s)
    res = _maximize_checked(A_s, g_s, np.zeros(n), math.ldexp(radius, -e_S), method)
    with np.errstate(over="ignore", invalid="ignore"):
        f_center = float(center @ (g + b))              # c'Ac + 2b'c, as in secular_data
        value = f_center + float(np.ldexp(res.value, e_q))
        w = center + np.ldexp(res.w, e_S)
        nu = float(np.ldexp(res.nu, e_q - 2 * e_S))
    if not (math.isfinite(value) and math.isfinite(nu) and np.all(np.isfinite(w))):
        raise Float64RangeError(f"A, b, center, radius: the maximum (about 2^{e_q} above f(center) = {f_center:.3g}), "
                         f"its multiplier or its point exceeds the float64 range (radius = {radius:.3g})")
    return BallMaximum(float(value), w, float(nu))
