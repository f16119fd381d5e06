"""Input validation shared by every public function (scikit-learn style: check at the boundary).

Every failure raises :class:`ValueError` whose message names the argument and says what was
expected and what was found.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "reject_sparse",
    "check_real",
    "check_matrix",
    "check_labels",
    "check_X_y",
    "check_positive",
    "check_sign",
    "check_alpha",
    "check_vector",
    "check_iterations",
    "check_two_classes",
    "check_gram",
    "check_weights",
    "squares_overflow",
    "check_squares",
    "sum_of_squares",
]


def _is_sparse(value) -> bool:
    # scipy.sparse matrices and arrays; the module test keeps scipy out of the common path
    if not (type(value).__module__ or "").startswith("scipy.sparse"):
        return False
    from scipy import sparse

    return sparse.issparse(value)


def reject_sparse(value, name: str) -> None:
    """Raise a ValueError naming ``name`` if ``value`` is a scipy.sparse matrix or array.

    For the functions that take dense input only (solve, the estimator and the sign-constrained
    SVM's objectives take sparse X): np.asarray would turn it into a 0-d array of dtype object,
    whose error message would not say what is wrong.
    """
    if _is_sparse(value):
        raise ValueError(f"{name}: sparse input is not supported, convert with .toarray() "
                         f"(got {type(value).__name__} of shape {value.shape})")


def check_real(value, name: str) -> float:
    """Return a real scalar as a Python float (finite or not: the caller decides).

    Python and numpy real numbers and 0-d numeric arrays are accepted; booleans, strings, complex
    numbers, None and arrays with more than one element are not (``float('1.0')`` and
    ``float(True)`` would silently succeed).
    """
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"{name}: expected a real number, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a real number, got {value!r}")
    return float(value)


def _as_float_array(value, name: str, squares: bool = False) -> np.ndarray:
    reject_sparse(value, name)
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise ValueError(f"{name}: expected an array of numbers, got {type(value).__name__}") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise ValueError(f"{name}: expected numeric values, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise ValueError(f"{name}: expected real numbers, got complex dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    # A finite sum proves every entry finite (NaN and inf propagate) without an n*d temporary;
    # only when the sum is not finite (bad entries, or overflow of huge finite ones) look closer.
    # With ``squares`` the sum is of the squared entries, which also proves that the products the
    # solvers form (row norms, Gram matrices) do not overflow at the outset.
    if not np.isfinite(sum_of_squares(arr) if squares else arr.sum()):
        if not np.all(np.isfinite(arr)):
            bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
            raise ValueError(f"{name}: expected finite values, found {bad} NaN or infinite entries")
        if squares:
            raise squares_overflow(name, float(np.abs(arr).max()))
    return arr


def squares_overflow(name: str, largest: float) -> ValueError:
    """The error for a design matrix whose squared entries sum beyond float64 (dense or sparse)."""
    return ValueError(f"{name}: expected entries whose squares sum to a finite float64 number; the largest |entry| "
                      f"is {largest:.3g} and the sum overflows (divide {name} by a constant c and lam by c**2: the "
                      f"same problem, with w multiplied by c)")


def check_squares(X, name: str = "X"):
    """``X`` (a finite dense array or scipy.sparse matrix) whose squared entries sum to a finite
    number, as the solvers' products need: the check a sparse X, and the design matrix the
    estimator builds, get at the door (a dense X gets it in :func:`check_X_y`)."""
    data = X.data if _is_sparse(X) else X
    if not np.isfinite(sum_of_squares(data)):
        raise squares_overflow(name, float(np.abs(data).max()))
    return X


def sum_of_squares(arr: np.ndarray) -> float:
    """sum of arr**2, by BLAS where the entries are contiguous (no temporary), else by einsum."""
    if arr.ndim == 2 and not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        return float(np.einsum("ij,ij->", arr, arr))
    flat = arr.ravel(order="K")
    return float(flat @ flat)


def check_matrix(X, name: str = "X", squares: bool = False) -> np.ndarray:
    """Return ``X`` as a finite float64 matrix of shape (n, d) with n, d >= 1 (with ``squares``,
    one whose squared entries also sum to a finite number: a design matrix the solvers square)."""
    arr = _as_float_array(X, name, squares)
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array of shape (n_samples, n_features), got {arr.ndim}-D")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name}: expected at least one row and one column, got shape {arr.shape}")
    return arr


def check_vector(v, name: str, length: int | None = None) -> np.ndarray:
    """Return ``v`` as a finite float64 vector, optionally of a given length."""
    arr = _as_float_array(v, name)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name}: expected length {length}, got length {arr.shape[0]}")
    return arr


def check_labels(y, n: int | None = None, name: str = "y") -> np.ndarray:
    """Return labels as float64 in {-1, +1}."""
    arr = check_vector(y, name, n)
    bad = np.abs(arr) != 1.0                   # NaN included; np.isin cost ~10 us a call
    if bad.any():
        found = np.unique(arr[bad])[:5]
        raise ValueError(f"{name}: expected labels in {{-1, +1}}, found {found.tolist()}")
    return arr


def check_X_y(X, y):
    """Validate a design matrix (n, d), whose squared entries sum to a finite number, and matching
    labels in {-1, +1}."""
    X = check_matrix(X, "X", squares=True)
    y = check_labels(y, X.shape[0], "y")
    return X, y


def check_positive(value, name: str) -> float:
    """Return ``value`` as a float, requiring a finite real number > 0."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a positive real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name}: expected a finite number > 0, got {value!r}")
    return value


def check_sign(sign, d: int, name: str = "sign") -> np.ndarray:
    """Return the sign-constraint vector as float64 of length d with entries in {-1, 0, +1}.

    ``None`` means no constraint (all zeros).
    """
    if sign is None:
        return np.zeros(d)
    arr = check_vector(sign, name, d)
    bad = (arr != 0.0) & (np.abs(arr) != 1.0)  # NaN included
    if bad.any():
        raise ValueError(
            f"{name}: expected entries in {{-1, 0, +1}} (+1: w_h >= 0, -1: w_h <= 0, 0: free), "
            f"found {np.unique(arr[bad])[:5].tolist()}"
        )
    return arr


def check_alpha(alpha, n: int, name: str = "alpha") -> np.ndarray:
    """Return dual variables as float64 of length n, each in the cube [0, 1]."""
    arr = check_vector(alpha, name, n)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(
            f"{name}: expected every entry in [0, 1], found range [{arr.min():g}, {arr.max():g}]"
        )
    return arr


def check_seed(value, name: str = "seed") -> int:
    """Return a seed as an int >= 0 (Python or numpy integers; not booleans, floats or None)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name}: expected an integer >= 0, got {value!r}")
    return int(value)


def check_iterations(value, name: str) -> int:
    """Return an iteration limit as an int >= 1.

    Integers (Python or numpy) are accepted, and floats with an integral value (``1e4``);
    booleans, fractions, NaN, inf, strings and None are not.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    ok = not isinstance(value, bool) and (
        isinstance(value, numbers.Integral)
        or (isinstance(value, numbers.Real) and np.isfinite(value) and float(value).is_integer())
    )
    if not ok or int(value) < 1:
        raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
    return int(value)


def check_two_classes(y, name: str = "y") -> np.ndarray:
    """Require validated labels in {-1, +1} to contain both classes (a classifier needs two)."""
    if y.size and (not np.any(y > 0) or not np.any(y < 0)):
        raise ValueError(f"{name}: expected both classes -1 and +1, found only {float(y[0]):+g} "
                         f"({y.size} samples)")
    return y


def check_weights(weights, n: int, name: str = "sample_weight") -> np.ndarray:
    """Return per-sample weights as a finite float64 vector of length n, every entry >= 0 and at
    least one > 0 (a weight of zero removes its sample from the objective).

    Examples
    --------
    >>> from svmcert._validation import check_weights
    >>> check_weights([1, 0, 2.5], 3).tolist()
    [1.0, 0.0, 2.5]
    """
    arr = check_vector(weights, name, n)
    if arr.size and arr.min() < 0.0:
        raise ValueError(f"{name}: expected nonnegative weights, found {int((arr < 0).sum())} negative "
                         f"(smallest {arr.min():g})")
    if not np.any(arr > 0.0):
        raise ValueError(f"{name}: expected at least one positive weight; all {arr.size} are zero "
                         f"(Sample weights must contain at least one non-zero number)")
    return arr


def check_gram(K, n: int | None = None, name: str = "K", psd=True) -> np.ndarray:
    """Validate a Gram matrix: finite, square (n x n), symmetric and, with ``psd``, positive
    semidefinite up to rounding — the library's one PSD test (:mod:`svmcert._gram`).

    ``psd``: ``True`` proves it (Cholesky of K + tau I, tau = 100 n eps max_i K_ii, eps the
    epsilon of K's own dtype); ``"auto"`` proves it up to n = 1000 and above runs tests that can
    only refute it; ``False`` skips it.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert._validation import check_gram
    >>> check_gram(np.eye(2), psd="auto").shape
    (2, 2)
    >>> check_gram(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: K: expected a positive semidefinite matrix (Cholesky of K + 4.4e-14 I failed)
    """
    from ._gram import dtype_eps, gram_checks

    eps = dtype_eps(K)
    return gram_checks(check_matrix(K, name), n, name, psd, eps)
