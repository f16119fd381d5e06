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
from scipy.optimize import brentq

from .._validation import check_matrix, check_positive, check_vector

__all__ = [
    "BallMaximum",
    "StationaryPoint",
    "maximize_quadratic_on_ball",
    "secular_roots",
    "secular_function",
    "secular_data",
    "stationary_points",
]

SYMMETRY_RTOL = 1e-9
"""Largest |A - A'| accepted, relative to max|A|: far above rounding (~n eps), far below any
intended asymmetry. A is symmetrised after the check."""

PSD_RTOL = 1e-9
"""Smallest eigenvalue accepted as PSD: phi_min >= -PSD_RTOL * max|phi| (eigh's error is ~n eps ||A||)."""

CLUSTER_TOL = 16
"""Eigenvalues of A are known to about n eps ||A|| and xi to about n eps (||A|| ||c|| + ||b||);
the enumeration treats differences below CLUSTER_TOL times these as zero (:func:`stationary_points`)."""

_EPS = np.finfo(float).eps


class BallMaximum(NamedTuple):
    """Global maximum of w'Aw + 2b'w over the ball ||w - center|| <= radius.

    Attributes
    ----------
    value : float
        The maximum value.
    w : ndarray of shape (n,)
        A maximiser (on the sphere unless A is negative definite and the unconstrained maximiser
        lies inside the ball).
    nu : float
        Its Lagrange multiplier (eq. 19): A w + b = nu (w - center), nu >= max(phi_max, 0).
    """

    value: float
    w: np.ndarray
    nu: float


class StationaryPoint(NamedTuple):
    """A stationary point of (12) on the sphere: multiplier, point, value, and how it was found
    (``"root"``: a root of T(nu) = S^2; ``"hard"``: nu an eigenvalue whose xi vanish, Theorem D.2)."""

    nu: float
    w: np.ndarray
    value: float
    kind: str


# ----------------------------------------------------------------------------- validation


def _check_problem(A, b, center, radius=None):
    """Validate (A, b, center[, radius]); return A symmetrised and float arrays."""
    A = check_matrix(A, "A")
    n = A.shape[0]
    if A.shape[1] != n:
        raise ValueError(f"A: expected a square matrix, got shape {A.shape}")
    scale = float(np.abs(A).max())
    asym = float(np.abs(A - A.T).max())
    if asym > SYMMETRY_RTOL * scale:
        raise ValueError(f"A: expected a symmetric matrix, found max|A - A'| = {asym:.3g} "
                         f"(allowed {SYMMETRY_RTOL:g} * max|A| = {SYMMETRY_RTOL * scale:.3g})")
    A = 0.5 * (A + A.T)
    b = check_vector(b, "b", n)
    center = check_vector(center, "center", n)
    return A, b, center, (None if radius is None else check_positive(radius, "radius"))


def secular_data(A, b, center):
    """Eigenvalues phi (ascending), eigenvectors V (columns) of A, and xi = -V'(A center + b).

    In the paper's notation (Theorem D.2) A = Q' Phi Q with Q = V', and xi = -Phi Q c - Q b.
    Also returns f(center) = c'Ac + 2b'c.
    """
    A, b, center, _ = _check_problem(A, b, center)
    phi, V = np.linalg.eigh(A)
    g = A @ center + b
    xi = -(V.T @ g)
    f_center = float(center @ (g + b))
    return phi, V, xi, f_center


def _norm(x):
    """Euclidean norm without overflow or underflow."""
    m = float(np.abs(x).max(initial=0.0))
    return 0.0 if m == 0.0 else m * float(np.sqrt(np.sum((x / m) ** 2)))


# ----------------------------------------------------------------------------- the fast path


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
        t = _offset_root(x, gz, S, _norm(xi[on_top]) / S)
    else:                                    # every nu - phi_i = t + gap_i > 0 already at t0
        r0 = _norm(x / (gz + t0))
        if r0 <= S:
            t = t0
            if t0 == 0.0:                    # hard case: fill the top eigenspace up to the sphere
                pad = float(np.sqrt(max(S * S - r0 * r0, 0.0)))
        else:
            t = _offset_root(x, gz, S, t0)
    denom = t + gz
    nu = float(phi[-1] + t)                  # exactly 0 in the interior case
    tau = np.zeros_like(xi)
    tau[nz] = -x / denom
    tau[-1] += pad                           # eigenvector of phi_max; xi vanishes there
    value = f_center + nu * S * S + float(np.sum(x * (x / denom)))
    return BallMaximum(float(value), center + V @ tau, nu)


def _offset_root(x, gz, S, lo):
    """The t >= lo with ||x / (t + gz)|| = S, given ||x / (lo + gz)|| >= S (by construction)."""
    hi = max(lo, _norm(x) / S)               # ||x / (t + gz)|| <= ||x|| / t, so h(hi) >= 0 >= h(lo)

    def h(t):                                # increasing in t, nearly linear (More-Sorensen)
        return 1.0 / _norm(x / (t + gz)) - 1.0 / S

    if h(lo) >= 0.0:
        return lo
    if h(hi) <= 0.0:
        return hi
    return brentq(h, lo, hi, xtol=1e-300, rtol=4 * _EPS, maxiter=200)


# ----------------------------------------------------------------------------- Lemma D.4


def _group(phi, xi):
    """Distinct poles p_1 < ... < p_N of T (eigenvalues carrying xi != 0, exact ties merged) and
    their weights sum xi_i^2."""
    nz = xi != 0
    p, inv = np.unique(phi[nz], return_inverse=True)
    w = np.zeros(p.size)
    np.add.at(w, inv, xi[nz] ** 2)
    return p, w


def _root_offsets(p, w, radius):
    """Every root of T(nu) = S^2 as (k, offset) with nu = p[k] + offset (Lemma D.4).

    Offsets are solved for directly, so roots close to a pole keep their relative accuracy.
    """
    S, N = radius, p.size
    sw = np.sqrt(w)
    out = []
    if N == 0:
        return out

    def dist(k, off):                       # nu - p_j for nu = p[k] + off
        return off + (p[k] - p)

    def excess(k, off):                     # log T - log S^2: same roots, well scaled
        return 2.0 * (np.log(_norm(sw / dist(k, off))) - np.log(S))

    def root(k, sign, lo, hi):              # the root with offset sign*s, s in [lo, hi]
        f = lambda s: excess(k, sign * s)    # noqa: E731  decreasing in s on the bracket
        if f(lo) <= 0.0:
            return lo
        if f(hi) >= 0.0:
            return hi
        return brentq(f, lo, hi, xtol=1e-300, rtol=4 * _EPS, maxiter=200)

    total = _norm(sw)
    out.append((0, -root(0, -1.0, sw[0] / S, total / S)))           # left of p_1: exactly one
    for k in range(N - 1):                                            # inner intervals
        L = p[k + 1] - p[k]
        wl, wr = w[: k + 1].sum(), w[k + 1:].sum()
        rl, rr = (w[k] / wr) ** (1 / 3), (w[k + 1] / wl) ** (1 / 3)
        a, c = 0.5 * L * rl / (1 + rl), L - 0.5 * L * rr / (1 + rr)   # T' < 0 at a, > 0 at c

        def dT(s, k=k):
            return -np.sum(w / dist(k, s) ** 3)

        s_min = brentq(dT, a, c, xtol=1e-300, rtol=4 * _EPS, maxiter=200) if dT(a) < 0 < dT(c) else 0.5 * L
        e_min = excess(k, s_min)
        if e_min > 0.0:
            continue                                                  # T > S^2 on the whole interval
        if e_min == 0.0:
            out.append((k, s_min))                                    # tangency: a single root
            continue
        out.append((k, root(k, 1.0, min(sw[k] / S, s_min), s_min)))
        out.append((k + 1, -root(k + 1, -1.0, min(sw[k + 1] / S, L - s_min), L - s_min)))
    out.append((N - 1, root(N - 1, 1.0, sw[-1] / S, total / S)))      # right of p_N: exactly one
    return out


def secular_roots(phi, xi, radius):
    """Every real root of T(nu) = sum_i (xi_i / (nu - phi_i))^2 = radius^2 (eq. 18, Lemma D.4).

    Terms with xi_i = 0 are dropped (they are identically zero); equal phi_i are one pole. With
    N distinct poles there is exactly one root left of the smallest, exactly one right of the
    largest, and 0, 1 (tangency) or 2 in each gap between consecutive poles, so at most 2N <= 2n.

    Parameters
    ----------
    phi : array of shape (n,)
        Eigenvalues (any order).
    xi : array of shape (n,)
        Linear-term coordinates in the eigenbasis (Theorem D.2).
    radius : float > 0

    Returns
    -------
    ndarray
        The roots in increasing order (empty if every xi_i is 0).

    Notes
    -----
    Inputs with magnitudes outside 2^-100 .. 2^100 are scaled by powers of 2 first (the roots are
    homogeneous: see the code), so data scaled by 1e+-300 gives the scaled roots.

    Raises
    ------
    ValueError
        Naming the argument for bad input; ``phi`` or ``xi`` when their entries span more than
        the float64 range (some vanish after scaling, and their roots could not be resolved);
        ``phi, xi, radius`` when roots exceed the float64 range.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.screening import secular_roots
    >>> # two poles, 0 and 1; T = 8 at their midpoint, so radius^2 = 9 gives two roots between them
    >>> secular_roots(np.array([0.0, 1.0]), np.array([1.0, 1.0]), radius=3.0).round(6)
    array([-0.344083,  0.401273,  0.598727,  1.344083])
    """
    phi = check_vector(phi, "phi")
    xi = check_vector(xi, "xi", phi.shape[0])
    radius = check_positive(radius, "radius")
    e_phi, e_xi = _exponent(float(np.abs(phi).max(initial=0.0))), _exponent(_norm(xi))
    e_S = _exponent(radius)
    if all(e is None or abs(e) <= SAFE_EXPONENT for e in (e_phi, e_xi, e_S)):
        return _secular_roots(phi, xi, radius)
    # Extreme magnitudes (the squares in T would over- or underflow): with a = 2^ka and c = 2^kc,
    # T(nu; phi, xi) = S^2  iff  T(nu / a; phi / a, xi / (a c)) = (S / c)^2, so the roots are
    # a times those of a problem with |phi| <= 1, ||xi|| / S <= 2 and S in [0.5, 1) (exact scalings).
    kc = e_S
    ka = max(e for e in (e_phi, None if e_xi is None else e_xi - e_S + 1) if e is not None) if (
        e_phi is not None or e_xi is not None) else 0
    phi_s, xi_s = np.ldexp(phi, -ka), np.ldexp(xi, -ka - kc)
    for name, v, vs in (("phi", phi, phi_s), ("xi", xi, xi_s)):
        if np.any((v != 0) & (vs == 0)):
            raise ValueError(f"{name}: entries span more than the float64 range relative to the problem's "
                             f"scale (some vanish after scaling by 2^{-ka}); their roots cannot be resolved")
    with np.errstate(over="ignore"):
        roots = np.ldexp(_secular_roots(phi_s, xi_s, math.ldexp(radius, -kc)), ka)
    if not np.all(np.isfinite(roots)):
        raise ValueError("phi, xi, radius: some roots of T(nu) = radius^2 exceed the float64 range")
    return roots


def _secular_roots(phi, xi, radius):
    p, w = _group(phi, xi)
    return np.array(sorted(p[k] + off for k, off in _root_offsets(p, w, radius)), dtype=float)


SAFE_EXPONENT = 100
"""Inputs whose magnitudes (radius, max|phi| or max|A|, ||xi|| or ||A center + b||) lie within
2^-100 .. 2^100 are solved as given: every square and product of two of them the algorithms form
then stays inside float64. Others are first scaled by powers of 2 (exact), solved, and scaled
back; results beyond float64 raise ValueError."""


NEGLIGIBLE_EXPONENT = 200
"""In the scaled problem, a quadratic or linear term smaller than 2^-200 times the other (both
measured by their largest possible contribution) is dropped: it cannot change the value by a
rounding (2^-52), and its squares and cubes, which the root searches form, would underflow."""


def _exponent(x: float) -> int | None:
    """e with x = m 2^e, 0.5 <= m < 1 (None for 0)."""
    return None if x == 0.0 else math.frexp(x)[1]


def secular_function(nu, phi, xi):
    """T(nu) = sum over xi_i != 0 of (xi_i / (nu - phi_i))^2 (eq. 18), vectorised over ``nu``."""
    nu = np.asarray(nu, dtype=float)
    phi = check_vector(phi, "phi")
    xi = check_vector(xi, "xi", phi.shape[0])
    nz = xi != 0
    with np.errstate(divide="ignore"):
        return np.sum((xi[nz] / (nu[..., None] - phi[nz])) ** 2, axis=-1)


# ----------------------------------------------------------------------------- Theorem D.2


def _resolve(phi, xi, center, b):
    """Eigenvalues and xi as far as floating point determines them: eigenvalues closer than
    CLUSTER_TOL * n * eps * max|phi| become one (their mean), and a cluster whose xi has norm
    at most CLUSTER_TOL * n * eps * (max|phi| ||c|| + ||b||) gets xi = 0 exactly (hard case)."""
    n = phi.size
    big = float(np.abs(phi).max(initial=0.0))
    tol_phi = CLUSTER_TOL * n * _EPS * big
    tol_xi = CLUSTER_TOL * n * _EPS * (big * _norm(center) + _norm(b))
    phi, xi = phi.copy(), xi.copy()
    starts = np.flatnonzero(np.r_[True, np.diff(phi) > tol_phi])
    for lo, hi in zip(starts, np.r_[starts[1:], n]):
        phi[lo:hi] = phi[lo:hi].mean()
        if _norm(xi[lo:hi]) <= tol_xi:
            xi[lo:hi] = 0.0
    return phi, xi


def _enumerate(phi, V, xi, f_center, center, radius):
    S, n = radius, phi.size
    p, w = _group(phi, xi)
    nz = xi != 0
    pts = []
    for k, off in _root_offsets(p, w, radius):
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
        rest = S * S - _norm(tau) ** 2
        if rest < 0:                             # no point of the sphere: not a stationary point
            continue
        tau[np.flatnonzero(U)[0]] = np.sqrt(rest)
        pts.append(StationaryPoint(float(mu), center + V @ tau,
                                   f_center + float(mu) * S * S + float(np.sum(xi[F] ** 2 / (mu - phi[F]))), "hard"))
    return sorted(pts, key=lambda s: s.nu)


def _require_psd(phi, what):
    scale = float(np.abs(phi).max())
    if phi[0] < -PSD_RTOL * scale:
        raise ValueError(f"A: expected a positive semidefinite matrix ({what}), found eigenvalue "
                         f"{phi[0]:.3g} < -{PSD_RTOL:g} * max|eigenvalue|")


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
    A, b, center, radius = _check_problem(A, b, center, radius)
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
    A, b, center, radius = _check_problem(A, b, center, radius)
    with np.errstate(over="ignore", invalid="ignore"):
        g = A @ center + b
    if not np.all(np.isfinite(g)):                  # products overflowed: scale A and center first
        eA, ec = math.frexp(float(np.abs(A).max()))[1], math.frexp(float(np.abs(center).max()))[1]
        with np.errstate(over="ignore", invalid="ignore"):
            g = np.ldexp(np.ldexp(A, -eA) @ np.ldexp(center, -ec), eA + ec) + b
        if not np.all(np.isfinite(g)):
            raise ValueError("A, b, center: the gradient A center + b at the centre exceeds the float64 range")
    e_S, e_A, e_g = _exponent(radius), _exponent(float(np.abs(A).max())), _exponent(_norm(g))
    if all(e is None or abs(e) <= SAFE_EXPONENT for e in (e_S, e_A, e_g)):
        return _maximize_checked(A, b, center, radius, method)
    return _maximize_scaled(A, b, g, center, radius, method, e_S, e_A, e_g)


def _maximize_checked(A, b, center, radius, method):
    """:func:`maximize_quadratic_on_ball` for validated arguments of moderate magnitude."""
    if method in ("auto", "cholesky"):
        from .ball_newton import newton_on_checked    # imports this module: import here, not at the top

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
        raise ValueError(f"A, b, center, radius: the maximum (about 2^{e_q} above f(center) = {f_center:.3g}), "
                         f"its multiplier or its point exceeds the float64 range (radius = {radius:.3g})")
    return BallMaximum(float(value), w, float(nu))
