"""Convergence bounds of Tajima et al. (Theorem 4.1, Lemma 2, Theorem 6.1) and curvature estimates.

Notation: R = max_i ||x_i|| (eq. 49), G = sqrt(2 lam) + R (the gradient bound of Sec. 4),
F = -D on the cube [0, 1]^n (Sec. 6.3), Z the (n, d) matrix with rows y_i x_i.

The curvature constant (eq. 25) is C_F = sup (2 / gamma^2) D_F(x + gamma (u - x); x) over
x, u in the cube and gamma in (0, 1], with D_F(b; a) = F(b) - F(a) - <grad F(a), b - a> the
Bregman divergence. Every evaluated triple (x, u, gamma) gives a lower estimate of C_F;
:func:`curvature_bound` (Lemma 2) is an upper bound.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_alpha, check_matrix, check_positive, check_sign, check_vector, check_X_y
from .objectives import sign_projection

__all__ = [
    "max_row_norm",
    "curvature_bound",
    "curvature_spectral_bound",
    "gradient_norm_bound",
    "theorem41_bound",
    "theorem41_corrected_bound",
    "frank_wolfe_error_bound",
    "frank_wolfe_iteration_bound",
    "dual_bregman",
    "curvature_ratios",
    "curvature_ratios_gammas",
    "top_eigenpair",
    "unconstrained_curvature_exact",
    "unconstrained_curvature_local_search",
]


_SQ_LOW = 2.0 ** -900
"""Below this largest squared row norm, squares of its small entries may have underflowed
(lost to subnormals or zero), so the norm is recomputed after scaling."""


def _max_row_norm(X: np.ndarray) -> float:
    """R for a validated X: sqrt(max_i sum_j X_ij^2) directly when the squares are representable
    (every ordinary X: the result is unchanged), otherwise after scaling X by the power of 2
    nearest its largest magnitude (exact), so that R is right wherever R itself is a float."""
    m = float(np.max(np.einsum("ij,ij->i", X, X)))
    if math.isfinite(m) and m > _SQ_LOW:
        return float(np.sqrt(m))
    top = float(np.abs(X).max())
    if top == 0.0:
        return 0.0
    e = math.frexp(top)[1]
    Xs = np.ldexp(X, -e)                       # entries in (-1, 1), exact
    return math.ldexp(float(np.sqrt(np.max(np.einsum("ij,ij->i", Xs, Xs)))), e)


def max_row_norm(X) -> float:
    """R = max_i ||x_i||, the radius of the data used by Sec. 4 and Lemma 2.

    Computed without overflow or underflow of the squares (X scaled by a power of 2 first when
    they would leave the float64 range), so R is exact to rounding for any finite X.
    """
    X = check_matrix(X, "X")
    return _max_row_norm(X)


def _curvature(X: np.ndarray, lam: float) -> tuple[float, float]:
    """(R, R^2 / lam) for validated X and lam; the second may be inf (beyond float64)."""
    R = _max_row_norm(X)
    try:
        C = R ** 2 / lam                       # the formula of Lemma 2 as evaluated before
    except OverflowError:                      # Python floats raise where numpy gives inf
        C = math.inf
    if not math.isfinite(C) or (C == 0.0 and R > 0.0):
        # R^2 over- or underflows although R^2 / lam may not: one product, one quotient
        with np.errstate(over="ignore", under="ignore"):
            C = R * (R / lam) if R > lam else (R / lam) * R
    return R, float(C)


def _check_T(T):
    arr = np.asarray(T)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer) or np.any(arr < 1):
        raise ValueError(f"T: expected an integer (or integer array) >= 1, got {T!r}")
    return arr.astype(float)


def _as_output(value, T):
    return float(value) if np.ndim(T) == 0 else value


def curvature_bound(X, lam) -> float:
    """Lemma 2: the curvature of F = -D on [0, 1]^n satisfies C_F <= R^2 / lam.

    R itself is computed without overflow or underflow (``max_row_norm``), and R^2 / lam as
    one product and one quotient where R^2 alone would leave the float64 range, so the result is
    the rounded value of R^2 / lam whenever that is a finite float (a value below the smallest
    subnormal rounds to 0, as any float64 result does).

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows; R = max_i ||x_i||.
    lam : float > 0

    Returns
    -------
    float
        R^2 / lam.

    Raises
    ------
    ValueError
        Naming ``X`` and ``lam`` when R^2 / lam exceeds the float64 range (~1.8e308): an
        infinite "upper bound" would be useless in silence.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import curvature_bound
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> curvature_bound(X, lam=0.25)                   # R = 5
    100.0
    """
    X = check_matrix(X, "X")
    lam = check_positive(lam, "lam")
    R, C = _curvature(X, lam)
    if not math.isfinite(C):
        raise ValueError(f"X, lam: the curvature bound R^2 / lam with R = max_i ||x_i|| = {R:.6g} and "
                         f"lam = {lam:.6g} exceeds the float64 range; rescale X")
    return C


def curvature_spectral_bound(X, lam) -> float:
    """A sharper upper bound on C_F: ||X||_2^2 / (lam n).

    The proof of Lemma 2 reduces C_F to at most max_{beta in [-1,1]^n} ||Z^T beta||^2 / (lam n^2);
    bounding ||Z^T beta|| <= ||X||_2 ||beta|| <= ||X||_2 sqrt(n) instead of by n R gives this
    value, which is <= R^2 / lam because ||X||_2^2 <= ||X||_F^2 <= n R^2 (labels do not change
    the spectral norm).
    """
    X = check_matrix(X, "X")
    lam = check_positive(lam, "lam")
    return top_eigenpair(X)[0] / (lam * X.shape[0])


def top_eigenpair(X):
    """Largest eigenvalue of X^T X (= ||X||_2^2) and a unit eigenvector in R^d, from the smaller Gram matrix.

    ``X @ v`` is then a top eigenvector of X X^T (the direction used for adversarial curvature pairs).
    Labels do not matter: (diag(y) X)^T (diag(y) X) = X^T X.
    """
    from scipy.linalg import eigh

    X = check_matrix(X, "X")
    n, d = X.shape
    G = X.T @ X if d <= n else X @ X.T
    k = G.shape[0]
    vals, vecs = eigh(G, subset_by_index=[k - 1, k - 1])
    if d <= n:
        return float(vals[-1]), vecs[:, -1]
    v = X.T @ vecs[:, -1]
    nv = float(np.linalg.norm(v))
    return float(vals[-1]), (v / nv if nv > 0 else np.eye(d)[0])


def gradient_norm_bound(X, lam) -> float:
    """G = sqrt(2 lam) + R: ||grad P(w)|| <= G for every w with ||w|| <= sqrt(2/lam) (Sec. 4)."""
    lam = check_positive(lam, "lam")
    return math.sqrt(2.0 * lam) + max_row_norm(X)


def theorem41_bound(X, lam, T):
    """Right side of eq. (8) as printed: (sqrt(2 lam) + R)^2 log(T) / (lam T), natural log.

    ``T`` may be an integer >= 1 or an integer array. At T = 1 the printed bound is 0.
    """
    G = gradient_norm_bound(X, lam)
    Tf = _check_T(T)
    return _as_output(G ** 2 * np.log(Tf) / (lam * Tf), T)


def theorem41_corrected_bound(X, lam, T):
    """What the Pegasos argument proves for eq. (6): min_{t<=T} P(w_t) - P* <= G^2 (1 + ln T) / (2 lam T).

    The telescoping argument of Shalev-Shwartz et al. gives sum_{t<=T} (P(w_t) - P*) <=
    G^2 H_T / (2 lam) with H_T = sum_{t<=T} 1/t <= 1 + ln T, and the best iterate is no worse than
    the average. For T >= 3 this is at most the printed eq. (8); at T = 1 the printed bound is 0.
    """
    G = gradient_norm_bound(X, lam)
    Tf = _check_T(T)
    return _as_output(G ** 2 * (1.0 + np.log(Tf)) / (2.0 * lam * Tf), T)


def frank_wolfe_error_bound(X, lam, T):
    """Eq. (24) with Lemma 2: D* - D(alpha^(T)) <= 2 C_F / (T + 2) <= 2 R^2 / (lam (T + 2)), T >= 1."""
    C = curvature_bound(X, lam)
    Tf = _check_T(T)
    return _as_output(2.0 * C / (Tf + 2.0), T)


def frank_wolfe_iteration_bound(X, lam, eps) -> int:
    """Theorem 6.1: the smallest T in {1, 2, ...} with T >= 2 R^2 / (lam eps) - 2.

    For every such T the theorem states D(alpha*) - D(alpha^(T)) <= eps. Natural numbers start
    at 1 here (as in Theorem 4.1, whose log(T)/T needs T >= 1): when eps >= R^2 / lam the
    condition allows every T >= 1. A Python int, of any size: when 2 R^2 / (lam eps) exceeds
    the float64 range it is evaluated in exact rational arithmetic from R, lam and eps.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows; R = max_i ||x_i||.
    lam : float > 0
    eps : float > 0
        The dual accuracy asked for.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import frank_wolfe_iteration_bound
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> frank_wolfe_iteration_bound(X, lam=0.25, eps=0.5)   # 2 R^2 / (lam eps) - 2 with R = 5
    398
    """
    X = check_matrix(X, "X")
    lam = check_positive(lam, "lam")
    eps = check_positive(eps, "eps")
    R, C = _curvature(X, lam)
    with np.errstate(over="ignore"):
        bound = 2.0 * C / eps - 2.0
    if math.isfinite(bound):
        return max(1, int(math.ceil(bound)))
    # 2 R^2 / (lam eps) beyond float64 (e.g. X scaled by 1e155): T is still an integer, computed
    # exactly from the floats R, lam and eps (Python integers have no range)
    from fractions import Fraction

    exact = 2 * Fraction(R) ** 2 / (Fraction(lam) * Fraction(eps)) - 2
    return max(1, math.ceil(exact))


# ----------------------------------------------------------------------------- curvature estimates


def _dual_parts(A: np.ndarray, Z: np.ndarray, lam: float, sign: np.ndarray):
    """omega and w(alpha) for each row of A (shape (m, n)); Z has rows y_i x_i."""
    omega = A @ Z / (lam * Z.shape[0])
    return omega, sign_projection(omega, sign)


def _bregman_rows(A, B, Z, lam, sign):
    # D_F(b; a) = lam/2 ||w_b - w_a||^2 - lam <w_a, omega_b - w_b>, both terms >= 0 (see dual_bregman).
    _, wa = _dual_parts(A, Z, lam, sign)
    ob, wb = _dual_parts(B, Z, lam, sign)
    diff = wb - wa
    return 0.5 * lam * np.einsum("ij,ij->i", diff, diff) - lam * np.einsum("ij,ij->i", wa, ob - wb)


def dual_bregman(a, b, X, y, lam, sign=None, method: str = "stable") -> float:
    """Bregman divergence D_F(b; a) = F(b) - F(a) - <grad F(a), b - a> of F = -D (eq. 25).

    Parameters
    ----------
    a, b : points of the cube [0, 1]^n.
    method : ``"definition"`` evaluates F and grad F (eqs. 9, 30) literally; ``"stable"`` uses
        the identity D_F(b; a) = lam/2 ||w(b) - w(a)||^2 - lam <w(a), omega(b) - w(b)>, a sum of
        two non-negative terms (w(a) lies in S, omega(b) - w(b) in its polar cone), which avoids
        the cancellation of the definition when b is close to a.
    """
    X, y = check_X_y(X, y)
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    n = X.shape[0]
    a = check_alpha(a, n, "a")
    b = check_alpha(b, n, "b")
    Z = y[:, None] * X
    if method == "stable":
        return float(_bregman_rows(a[None, :], b[None, :], Z, lam, sign)[0])
    if method != "definition":
        raise ValueError(f"method: expected 'stable' or 'definition', got {method!r}")
    _, wa = _dual_parts(a[None, :], Z, lam, sign)
    _, wb = _dual_parts(b[None, :], Z, lam, sign)
    Fa = 0.5 * lam * float(wa[0] @ wa[0]) - a.sum() / n
    Fb = 0.5 * lam * float(wb[0] @ wb[0]) - b.sum() / n
    grad_a = (Z @ wa[0] - 1.0) / n
    return float(Fb - Fa - grad_a @ (b - a))


def curvature_ratios(X, y, lam, sign, x, u, gamma) -> np.ndarray:
    """(2 / gamma^2) D_F(x + gamma (u - x); x) for each triple: lower estimates of C_F (eq. 25).

    Parameters
    ----------
    x, u : arrays of shape (m, n) (or (n,)) with entries in [0, 1].
    gamma : scalar or array of shape (m,) with entries in (0, 1].

    Returns
    -------
    ndarray of shape (m,)
    """
    X, y = check_X_y(X, y)
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    x, u = _check_pairs(x, u, X.shape[0])
    gamma = np.broadcast_to(np.asarray(gamma, float), (x.shape[0],))
    if not np.all(np.isfinite(gamma)) or gamma.min() <= 0 or gamma.max() > 1:
        raise ValueError("gamma: expected values in (0, 1]")
    Z = y[:, None] * X
    yg = x + gamma[:, None] * (u - x)
    return 2.0 / gamma ** 2 * _bregman_rows(x, yg, Z, lam, sign)


def curvature_ratios_gammas(X, y, lam, sign, x, u, gammas) -> np.ndarray:
    """Like :func:`curvature_ratios` for every pair (x_j, u_j) and every gamma_k: shape (m, k).

    omega is linear in alpha, so omega(x + gamma (u - x)) = omega(x) + gamma (omega(u) - omega(x)):
    the two O(m n d) products are done once for all gammas.
    """
    X, y = check_X_y(X, y)
    lam = check_positive(lam, "lam")
    sign = check_sign(sign, X.shape[1])
    x, u = _check_pairs(x, u, X.shape[0])
    gammas = np.atleast_1d(np.asarray(gammas, float))
    if not np.all(np.isfinite(gammas)) or gammas.min() <= 0 or gammas.max() > 1:
        raise ValueError("gammas: expected values in (0, 1]")
    Z = y[:, None] * X
    om_x = x @ Z / (lam * Z.shape[0])
    om_d = u @ Z / (lam * Z.shape[0]) - om_x
    w_x = sign_projection(om_x, sign)
    out = np.empty((x.shape[0], gammas.size))
    for k, g in enumerate(gammas):
        om_y = om_x + g * om_d
        w_y = sign_projection(om_y, sign)
        diff = w_y - w_x
        breg = 0.5 * lam * np.einsum("ij,ij->i", diff, diff) - lam * np.einsum("ij,ij->i", w_x, om_y - w_y)
        out[:, k] = 2.0 / g ** 2 * breg
    return out


def _check_pairs(x, u, n):
    x = np.atleast_2d(np.asarray(x, float))
    u = np.atleast_2d(np.asarray(u, float))
    for name, arr in (("x", x), ("u", u)):
        if arr.ndim != 2 or arr.shape[1] != n or not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() > 1:
            raise ValueError(f"{name}: expected rows of length {n} with entries in [0, 1], got shape {arr.shape}")
    if x.shape != u.shape:
        raise ValueError(f"u: expected the shape of x {x.shape}, got {u.shape}")
    return x, u


def unconstrained_curvature_exact(X, lam, max_n: int = 22, chunk: int = 1 << 14):
    """Exact C_F without sign constraints, by enumerating the vertices of [-1, 1]^n.

    Without constraints F is the quadratic alpha^T H alpha / 2 - <1, alpha>/n with
    H = Z Z^T / (lam n^2), so (2/gamma^2) D_F = (u - x)^T H (u - x) for every gamma, and the
    supremum over the cube is max_{beta in {-1, +1}^n} ||X^T beta||^2 / (lam n^2) (a convex
    function is maximised at a vertex; the labels only permute the signs of beta). Cost
    O(2^n d); ``max_n`` guards against accidental huge enumerations.

    Returns
    -------
    (value, beta) : the exact C_F and a maximising sign vector.
    """
    X = check_matrix(X, "X")
    lam = check_positive(lam, "lam")
    n = X.shape[0]
    if n > max_n:
        raise ValueError(f"X: brute force needs n <= max_n = {max_n}, got n = {n}")
    best, best_beta = -1.0, None
    total = 1 << (n - 1)           # fix beta_n = +1: beta and -beta give the same value
    bits = np.arange(n - 1)
    for start in range(0, total, chunk):
        codes = np.arange(start, min(total, start + chunk))
        B = np.ones((codes.size, n))
        if n > 1:
            B[:, :-1] = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
        V = B @ X
        vals = np.einsum("ij,ij->i", V, V)
        k = int(np.argmax(vals))
        if vals[k] > best:
            best, best_beta = float(vals[k]), B[k].copy()
    return best / (lam * n * n), best_beta


def unconstrained_curvature_local_search(X, lam, beta0=None, max_flips: int | None = None):
    """Lower estimate of the unconstrained C_F: single-flip ascent on ||X^T beta||^2 over {-1, +1}^n.

    Starts from ``beta0`` (default: signs of the top eigenvector of X X^T, computed from the top
    right singular vector) and flips the coordinate with the largest gain until no flip helps.

    Returns
    -------
    (value, beta) : ||X^T beta||^2 / (lam n^2) at the local maximum, and beta.
    """
    X = check_matrix(X, "X")
    lam = check_positive(lam, "lam")
    n = X.shape[0]
    if beta0 is None:
        beta = np.where(X @ top_eigenpair(X)[1] >= 0, 1.0, -1.0)
    else:
        beta = np.where(check_vector(beta0, "beta0", n) >= 0, 1.0, -1.0)
    sq = np.einsum("ij,ij->i", X, X)
    v = X.T @ beta
    flips = 0
    limit = n if max_flips is None else int(max_flips)
    while flips < limit:
        # flipping beta_i changes ||v||^2 by -4 beta_i <x_i, v> + 4 ||x_i||^2
        gain = -4.0 * beta * (X @ v) + 4.0 * sq
        i = int(np.argmax(gain))
        if gain[i] <= 1e-12 * max(1.0, float(v @ v)):
            break
        v -= 2.0 * beta[i] * X[i]
        beta[i] = -beta[i]
        flips += 1
    return float(v @ v) / (lam * n * n), beta
