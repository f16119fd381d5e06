"""The secular equation of problem (12) (Hanada et al., Appendix D.2, eq. 18; Lemma D.4): the
eigen-coordinates of the problem (:func:`secular_data`), T(nu) = sum_i (xi_i / (nu - phi_i))^2
(:func:`secular_function`) and every real root of T(nu) = S^2 (:func:`secular_roots`), with the
overflow-safe norm and the root bracketing that :mod:`.quadratic_ball` builds its maximiser on.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .._validation import check_positive, check_vector
from .ball_problem import check_ball_problem

__all__ = ["secular_data", "secular_function", "secular_roots", "secular_roots_unchecked", "stable_norm",
           "offset_root", "pole_groups", "root_offsets", "binary_exponent", "SAFE_EXPONENT", "NEGLIGIBLE_EXPONENT",
           "CLUSTER_TOL"]

CLUSTER_TOL = 16
"""Eigenvalues of A are known to about n eps ||A|| and xi to about n eps (||A|| ||c|| + ||b||);
the enumeration treats differences below CLUSTER_TOL times these as zero (:func:`svmcert.screening.quadratic_ball.stationary_points`)."""

_EPS = np.finfo(float).eps


def secular_data(A, b, center):
    """Eigenvalues phi (ascending), eigenvectors V (columns) of A, and xi = -V'(A center + b).

    In the paper's notation (Theorem D.2) A = Q' Phi Q with Q = V', and xi = -Phi Q c - Q b.
    Also returns f(center) = c'Ac + 2b'c.
    """
    A, b, center, _ = check_ball_problem(A, b, center)
    phi, V = np.linalg.eigh(A)
    g = A @ center + b
    xi = -(V.T @ g)
    f_center = float(center @ (g + b))
    return phi, V, xi, f_center


def stable_norm(x):
    """Euclidean norm without overflow or underflow."""
    m = float(np.abs(x).max(initial=0.0))
    return 0.0 if m == 0.0 else m * float(np.sqrt(np.sum((x / m) ** 2)))


# ----------------------------------------------------------------------------- the fast path


def offset_root(x, gz, S, lo):
    """The t >= lo with ||x / (t + gz)|| = S, given ||x / (lo + gz)|| >= S (by construction)."""
    hi = max(lo, stable_norm(x) / S)               # ||x / (t + gz)|| <= ||x|| / t, so h(hi) >= 0 >= h(lo)

    def h(t):                                # increasing in t, nearly linear (More-Sorensen)
        return 1.0 / stable_norm(x / (t + gz)) - 1.0 / S

    if h(lo) >= 0.0:
        return lo
    if h(hi) <= 0.0:
        return hi
    return brentq(h, lo, hi, xtol=1e-300, rtol=4 * _EPS, maxiter=200)


# ----------------------------------------------------------------------------- Lemma D.4


def pole_groups(phi, xi):
    """Distinct poles p_1 < ... < p_N of T (eigenvalues carrying xi != 0, exact ties merged) and
    their weights sum xi_i^2."""
    nz = xi != 0
    p, inv = np.unique(phi[nz], return_inverse=True)
    w = np.zeros(p.size)
    np.add.at(w, inv, xi[nz] ** 2)
    return p, w


def root_offsets(p, w, radius):
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
        return 2.0 * (np.log(stable_norm(sw / dist(k, off))) - np.log(S))

    def root(k, sign, lo, hi):              # the root with offset sign*s, s in [lo, hi]
        f = lambda s: excess(k, sign * s)    # noqa: E731  decreasing in s on the bracket
        if f(lo) <= 0.0:
            return lo
        if f(hi) >= 0.0:
            return hi
        return brentq(f, lo, hi, xtol=1e-300, rtol=4 * _EPS, maxiter=200)

    total = stable_norm(sw)
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
    e_phi, e_xi = binary_exponent(float(np.abs(phi).max(initial=0.0))), binary_exponent(stable_norm(xi))
    e_S = binary_exponent(radius)
    if all(e is None or abs(e) <= SAFE_EXPONENT for e in (e_phi, e_xi, e_S)):
        return secular_roots_unchecked(phi, xi, radius)
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
        roots = np.ldexp(secular_roots_unchecked(phi_s, xi_s, math.ldexp(radius, -kc)), ka)
    if not np.all(np.isfinite(roots)):
        raise ValueError("phi, xi, radius: some roots of T(nu) = radius^2 exceed the float64 range")
    return roots


def secular_roots_unchecked(phi, xi, radius):
    p, w = pole_groups(phi, xi)
    return np.array(sorted(p[k] + off for k, off in root_offsets(p, w, radius)), dtype=float)


SAFE_EXPONENT = 100
"""Inputs whose magnitudes (radius, max|phi| or max|A|, ||xi|| or ||A center + b||) lie within
2^-100 .. 2^100 are solved as given: every square and product of two of them the algorithms form
then stays inside float64. Others are first scaled by powers of 2 (exact), solved, and scaled
back; results beyond float64 raise ValueError."""


NEGLIGIBLE_EXPONENT = 200
"""In the scaled problem, a quadratic or linear term smaller than 2^-200 times the other (both
measured by their largest possible contribution) is dropped: it cannot change the value by a
rounding (2^-52), and its squares and cubes, which the root searches form, would underflow."""


def binary_exponent(x: float) -> int | None:
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
