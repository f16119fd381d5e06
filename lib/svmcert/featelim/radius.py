"""The data radius of Aksu's feature-elimination paper: eq. (9) ("tR") and the squared diameter ("ER").

eq. (9) (the standard dual of the smallest enclosing sphere, reconstructed [std]) is

    R^2 = max_beta  sum_i beta_i K_ii - beta^T K beta   s.t.  beta >= 0,  sum_i beta_i = 1,

the squared radius of the smallest ball containing every phi(x_i); its centre is sum_i beta_i phi(x_i).
Its objective f is concave with gradient g = diag(K) - 2 K beta, so for any feasible beta the
Frank-Wolfe gap max_i g_i - beta^T g bounds R^2 - f(beta) from above: f(beta) <= R^2 <= f + gap.

The paper's cheaper alternative "ER" sets R^2 := max_{i,j} ||x_i - x_j||^2, the squared diameter
(no factor 1/4). Jung's theorem relates the two: D^2/4 <= R^2 <= D^2 m / (2 (m + 1)), m the dimension
of the affine hull (at most min(d, n - 1)).

:func:`enclosing_sphere` maximises eq. (9) by pairwise (SMO) steps with exact line search on the
simplex; :func:`radius_squared_without_each_feature` gives (R^2)^{-m} for every feature m, the
quantity the hBMFE-LO criterion (10)-(11) evaluates at each elimination step.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._validation import check_gram, check_iterations, check_matrix, check_positive, check_vector
from ..exceptions import ConvergenceWarning
from .._compiled import matvec_compiled
from ._sphere_smo import smo_compiled, smo_numpy

__all__ = ["SphereResult", "enclosing_sphere", "squared_diameter", "radius_squared",
           "radius_squared_without_each_feature", "jung_interval", "METHODS"]

METHODS = ("sphere", "diameter")
_TINY = np.finfo(float).tiny
_EPS = np.finfo(float).eps


@dataclass
class SphereResult:
    """Outcome of :func:`enclosing_sphere`.

    Attributes
    ----------
    r2 : f(beta), the objective of eq. (9) at the returned beta: a lower bound on R^2.
    beta : dual weights on the simplex, shape (n,); the centre is sum_i beta_i phi(x_i).
    center_weights : the same array as ``beta``.
    upper : r2 + gap, a certified upper bound on R^2 (up to rounding of order eps max_i K_ii).
    gap : the Frank-Wolfe gap max_i g_i - beta^T g, g = diag(K) - 2 K beta.
    iterations : pairwise steps taken.
    converged : whether gap <= tol * max(r2, tiny) (or the gap is at rounding level).
    max_iter : the cap on pairwise steps the run had (``converged`` is False when it was reached).
    """

    r2: float
    beta: np.ndarray
    center_weights: np.ndarray
    upper: float
    gap: float
    iterations: int
    converged: bool
    max_iter: int | None = None


# --------------------------------------------------------------------------- validation

def _check_gram(K, name: str = "K", psd: bool = True) -> np.ndarray:
    """Square, finite, symmetric and (with ``psd``) positive semidefinite up to rounding
    (:func:`svmcert._validation.check_gram`, a Cholesky factorisation, O(n^3 / 3)); returned as
    float64 and exactly symmetric. An indefinite K is no Gram matrix: eq. (9) and the diameter
    would then measure nothing (K = [[1, 2], [2, 1]] gives R^2 = 0)."""
    K = check_gram(K, name=name, psd=bool(psd))
    diag = np.diag(K)
    if diag.min() < 0:
        raise ValueError(f"{name}: expected a positive semidefinite Gram matrix, found a negative diagonal "
                         f"entry {diag.min():.3g}")
    return K if np.array_equal(K, K.T) else 0.5 * (K + K.T)


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    return method


def _center_gram(K: np.ndarray) -> np.ndarray:
    """H K H with H = I - 11^T/n: the Gram matrix of the data moved to their mean. Eq. (9)'s objective
    on the simplex, and its Frank-Wolfe gap, are unchanged; the cancellation in f is removed."""
    row = K.mean(axis=1)
    return K - row[:, None] - row[None, :] + row.mean()


# --------------------------------------------------------------------------- the pairwise solver

def _cold_start(K, v):
    """Half the mass on each end of an approximate diameter: the point farthest from the mean (K is
    centred), and the point farthest from it."""
    n = K.shape[0]
    beta = np.zeros(n)
    d = np.diag(K) - v * v
    a = int(np.argmax(d))
    b = int(np.argmax(d + d[a] - 2.0 * (K[a] - v[a] * v)))
    beta[a] += 0.5
    beta[b] += 0.5
    return beta


def _project_simplex_start(beta0, n):
    beta = np.maximum(check_vector(beta0, "beta0", n), 0.0)
    total = float(beta.sum())
    if total <= 0:
        raise ValueError("beta0: expected non-negative weights with a positive sum")
    return beta / total


def _solve(K, v, beta, tol, max_iter, floor, engine="numba"):
    """Run the solver to convergence, recomputing u = (K - vv^T) beta from scratch before accepting
    (incremental updates drift by rounding). Returns (f, gap, iterations, converged)."""
    run = smo_compiled if engine == "numba" else smo_numpy
    matvec = matvec_compiled if engine == "numba" else np.dot
    total = 0
    while True:
        u = matvec(K, beta) - v * float(v @ beta)
        f, gap, it = run(K, v, beta, u, tol, floor, max_iter - total)
        total += it
        u = matvec(K, beta) - v * float(v @ beta)
        d = np.diag(K) - v * v
        g = d - 2.0 * u
        f = float(beta @ (d - u))
        gap = max(float(g.max() - beta @ g), 0.0)
        converged = gap <= max(tol * max(f, _TINY), floor)
        if converged or total >= max_iter or it == 0:
            return f, gap, total, converged


def enclosing_sphere(K, *, tol: float = 1e-10, max_iter: int = 100000, beta0=None,
                     engine: str = "numba", check_psd: bool = True) -> SphereResult:
    """Squared radius of the smallest sphere enclosing the data, eq. (9) of Aksu.

    Maximises f(beta) = sum_i beta_i K_ii - beta^T K beta over the simplex by pairwise steps with
    exact line search (maximal-violating pair with a second-order choice of the partner), keeping
    K beta up to date in O(n) per step. For any feasible beta, the Frank-Wolfe gap
    max_i g_i - beta^T g (g = diag K - 2 K beta) bounds R^2 - f(beta), so ``upper = r2 + gap`` is a
    certified upper bound.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Gram matrix (symmetric, positive semidefinite; float32 is accepted and promoted).
    tol : float, default 1e-10
        Stop when gap <= tol * max(r2, tiny). Gaps at rounding level (16 eps max_i K_ii) also stop.
    max_iter : int, default 100000
        Pairwise steps allowed; reaching it without ``tol`` warns
        :class:`~svmcert.signsvm.ConvergenceWarning`.
    beta0 : array_like of shape (n,), optional
        Warm start; negative entries are set to 0 and the rest renormalised to sum 1.
    engine : {"numba", "numpy"}
        Compiled loop, or the numpy reference with the same arithmetic.
    check_psd : bool, default True
        Verify that K is positive semidefinite up to rounding (a Cholesky factorisation, O(n^3 / 3));
        pass False only for a K known to be a Gram matrix (e.g. ``X @ X.T``).

    Returns
    -------
    SphereResult
        ``converged`` is a Python bool.

    Raises
    ------
    ValueError
        K not a finite symmetric square matrix with non-negative diagonal, or (``check_psd``) not
        positive semidefinite; bad tol, max_iter or beta0.
    """
    K = _check_gram(K, psd=bool(check_psd))
    tol = check_positive(tol, "tol")
    max_iter = check_iterations(max_iter, "max_iter")
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    n = K.shape[0]
    floor = 16.0 * _EPS * max(float(np.diag(K).max()), 0.0)
    Kc = np.ascontiguousarray(_center_gram(K))
    v = np.zeros(n)
    beta = _cold_start(Kc, v) if beta0 is None else _project_simplex_start(beta0, n)
    f, gap, it, converged = _solve(Kc, v, beta, tol, max_iter, floor, engine)
    if not converged:
        warnings.warn(f"enclosing_sphere: max_iter={max_iter} reached with gap {gap:.3g} > tol * r2 = "
                      f"{tol * max(f, _TINY):.3g}", ConvergenceWarning, stacklevel=2)
    # floats and a Python bool: the floor is a numpy scalar, so the comparisons can give np.bool_
    return SphereResult(r2=float(f), beta=beta, center_weights=beta, upper=float(f + gap), gap=float(gap),
                        iterations=int(it), converged=bool(converged), max_iter=max_iter)


# --------------------------------------------------------------------------- the diameter ("ER")

def squared_diameter(K, *, check_psd: bool = True) -> float:
    """The paper's "ER" radius: R^2 := max_{i,j} ||phi(x_i) - phi(x_j)||^2 = max_{i,j} K_ii + K_jj - 2 K_ij.

    An alternative to eq. (9) in Aksu; note there is no factor 1/4, so it is about four times the
    sphere's R^2 (between 2 (m + 1) / m and 4 times, by Jung's theorem).

    Parameters
    ----------
    K : array_like of shape (n, n)
        Gram matrix (symmetric, positive semidefinite).
    check_psd : bool, default True
        Verify positive semidefiniteness (Cholesky, O(n^3 / 3)), as in :func:`enclosing_sphere`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        K not a finite symmetric square matrix with non-negative diagonal, or not PSD.
    """
    K = _check_gram(K, psd=bool(check_psd))
    d = np.diag(K)
    return max(float((d[:, None] + d[None, :] - 2.0 * K).max()), 0.0)


def radius_squared(K, method: str = "sphere", **kw) -> float:
    """The data radius R^2 of Aksu, by either of the paper's two definitions.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Gram matrix.
    method : {"sphere", "diameter"}
        ``"sphere"``: eq. (9), the squared radius of the smallest enclosing sphere ("tR"; computed by
        :func:`enclosing_sphere`, to which ``kw`` is passed). ``"diameter"``: the squared diameter
        max_ij ||x_i - x_j||^2 ("ER"; :func:`squared_diameter`, whose only option is ``check_psd``).

    Returns
    -------
    float
        For the sphere, f(beta) at the solver's final point (within ``tol`` relative of R^2, below it).

    Raises
    ------
    ValueError
        ``K`` not a symmetric positive semidefinite matrix (an indefinite K is no Gram matrix, and
        its "radius" would be meaningless), or bad options.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.featelim import radius_squared
    >>> from svmcert.kernels import linear_kernel
    >>> K = linear_kernel(np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]))
    >>> round(radius_squared(K), 9), radius_squared(K, method="diameter")   # a square of side 2
    (2.0, 8.0)
    """
    if _check_method(method) == "sphere":
        return enclosing_sphere(K, **kw).r2
    extra = sorted(set(kw) - {"check_psd"})
    if extra:
        raise ValueError(f"method: 'diameter' takes no options but check_psd, got {extra}")
    return squared_diameter(K, **kw)


def jung_interval(diameter2, m):
    """Jung's theorem: the interval that contains R^2 of eq. (9) given the squared diameter.

    Parameters
    ----------
    diameter2 : float or array_like
        D^2 = max_ij ||x_i - x_j||^2 (the paper's "ER").
    m : int or array_like
        An upper bound on the dimension of the points' affine hull, e.g. min(d, n - 1).

    Returns
    -------
    (low, high) : D^2 / 4 (any ball holding two points at distance D has radius >= D / 2) and
        D^2 m / (2 (m + 1)) (Jung; attained by the regular simplex). For m = 0 both are 0.
    """
    diameter2 = np.asarray(diameter2, dtype=float)
    m = np.asarray(m, dtype=float)
    return diameter2 / 4.0, diameter2 * m / (2.0 * (m + 1.0))


# --------------------------------------------------------------------------- leave-one-feature-out

@njit(cache=True, nogil=True)
def _diameters_compiled(X, a, b):
    """(D^2)^{-m} for every m by one pass over the pairs, from direct differences. The maxima start
    from the pair (a, b); a pair updates them only if its full squared distance exceeds the smallest
    of them (deleting a feature never lengthens a distance)."""
    n, d = X.shape
    out, diff = np.zeros(d), np.empty(d)
    low = np.inf
    for k in range(d):
        out[k] = np.sum((X[a] - X[b]) ** 2) - (X[a, k] - X[b, k]) ** 2
        low = min(low, out[k])
    for i in range(n):
        for j in range(i + 1, n):
            full = 0.0
            for k in range(d):
                diff[k] = X[i, k] - X[j, k]
                full += diff[k] * diff[k]
            if full > low:
                low = np.inf
                for k in range(d):
                    out[k] = max(out[k], full - diff[k] * diff[k])
                    low = min(low, out[k])
    return out


def _diameters_numpy(Xc):
    """Reference: max_ij D2_ij - (X_im - X_jm)^2 over the full matrix of pairs, one feature at a time."""
    D2 = sum((x[:, None] - x[None, :]) ** 2 for x in Xc.T)
    return np.array([max(float((D2 - (x[:, None] - x[None, :]) ** 2).max()), 0.0) for x in Xc.T])


def radius_squared_without_each_feature(X, method: str = "sphere", *, tol: float = 1e-10,
                                        max_iter: int = 100000, beta0=None, engine: str = "numba",
                                        return_upper: bool = False):
    """(R^2)^{-m} for every feature m: the radius after deleting column m of X (linear kernel).

    This is the factor the hBMFE-LO criterion (10)-(11) of Aksu multiplies with the retrained
    a^2 ||w^{-m}||^2 at each elimination step. The data are first moved to their mean (R^2 and the
    diameter are translation invariant), so K^{-m} = K - x_m x_m^T with x_m the centred m-th column.

    - ``"sphere"`` (eq. (9)): the full-data problem is solved once (warm-started from ``beta0``),
      then each K^{-m} is solved from the full-data beta, with the rank-one correction applied inside
      the solver (K^{-m} is never formed).
    - ``"diameter"`` ("ER"): D2^{-m}_ij = D2_ij - (X_im - X_jm)^2, maximised exactly over the pairs
      that can still be the farthest after some deletion.

    Parameters
    ----------
    X : array_like of shape (n, d)
    method : {"sphere", "diameter"}
    tol, max_iter, beta0, engine : as in :func:`enclosing_sphere` (sphere only).
    return_upper : bool, default False
        Also return the certified upper bounds (sphere; for the diameter they equal the values).

    Returns
    -------
    ndarray of shape (d,), or (values, upper) with ``return_upper``.
    """
    X = check_matrix(X, "X")
    method = _check_method(method)
    Xc = np.ascontiguousarray(X - X.mean(axis=0))
    n, d = Xc.shape
    if method == "diameter":
        if engine not in ("numba", "numpy"):
            raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
        if engine == "numba":
            a = int(np.argmax(np.einsum("ij,ij->i", Xc, Xc)))         # a far pair: the point farthest from
            b = int(np.argmax(np.sum((Xc - Xc[a]) ** 2, axis=1)))    # the mean and the one farthest from it
            vals = _diameters_compiled(Xc, a, b)
        else:
            vals = _diameters_numpy(Xc)
        return (vals, vals.copy()) if return_upper else vals
    tol = check_positive(tol, "tol")
    max_iter = check_iterations(max_iter, "max_iter")
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    K = Xc @ Xc.T
    floor = 16.0 * _EPS * max(float(np.diag(K).max()), 0.0)
    zero = np.zeros(n)
    beta_full = _cold_start(K, zero) if beta0 is None else _project_simplex_start(beta0, n)
    _, _, _, ok = _solve(K, zero, beta_full, tol, max_iter, floor, engine)
    vals, upper, failed = np.empty(d), np.empty(d), [] if ok else ["all features"]
    for m in range(d):
        beta = beta_full.copy()
        f, gap, _, ok = _solve(K, np.ascontiguousarray(Xc[:, m]), beta, tol, max_iter, floor, engine)
        vals[m], upper[m] = f, f + gap
        if not ok:
            failed.append(m)
    if failed:
        warnings.warn(f"radius_squared_without_each_feature: max_iter={max_iter} reached before tol for "
                      f"{failed[:5]}{'...' if len(failed) > 5 else ''}", ConvergenceWarning, stacklevel=2)
    return (vals, upper) if return_upper else vals
