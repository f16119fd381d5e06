"""Problem (4) of Tajima et al., validated once: what every private solver takes.

The public solvers (:func:`~svmcert.signsvm.solve`, :func:`~svmcert.signsvm.dual_coordinate_ascent`,
:func:`~svmcert.signsvm.interior_point`, :func:`~svmcert.signsvm.frank_wolfe`) and the estimator
check their inputs at the door and build a :class:`SignSVMProblem`; the code behind the door
(``_run`` in each solver module) takes the problem unchecked, as scikit-learn's ``check_input=False``
paths and QuantEcon's model tuples do. Lambda travels only as ``lam``; ``lam_n`` is derived.

The problem may carry per-sample weights s_i >= 0 (scikit-learn's ``sample_weight`` times its
``class_weight``): each sample's hinge loss is multiplied by s_i,

    P(w) = lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>),

and in the dual (eq. 9) the box [0, 1]^n becomes [0, s_1] x ... x [0, s_n], with the same
D(alpha) = -lam/2 ||Pi_S(Z^T alpha / (lam n))||^2 + (1/n) sum_i alpha_i (Z has rows y_i x_i).
``weights=None`` is the paper's problem (all s_i = 1) and runs the paper's arithmetic unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import (check_labels, check_positive, check_sign, check_squares, check_two_classes, check_weights,
                           check_X_y)

__all__ = ["SignSVMProblem", "make_problem", "check_data", "check_time_limit", "is_sparse", "canonical_csr", "INDEX_DTYPE"]

INDEX_DTYPE = np.int32
"""The column-index type of the rows coordinate ascent's compiled passes read
(:mod:`._dca_rows`): a pass reads 12 bytes a nonzero instead of 16 (a full pass over MNIST-5k's
rows, free signs, at a fitted point, one thread: 1.20 ms against 1.66 ms with 64-bit indices; the
arithmetic is the same, so the trajectory is the same bit for bit). A sparse X therefore has at
most 2^31 columns, which :func:`make_problem` checks."""


def is_sparse(X) -> bool:
    """Whether X is a scipy.sparse matrix or array (then, behind the door, canonical CSR)."""
    return hasattr(X, "tocsr") and hasattr(X, "nnz")


def canonical_csr(X):
    """X (any scipy.sparse format, float64) as CSR with sorted column indices, no duplicate entries
    and no stored zeros: the layout the solvers read row by row. X itself is never modified (a copy
    is made only when a change is needed), and never densified."""
    X = X.tocsr()
    needs_copy = not X.has_canonical_format or (X.data.size and not np.all(X.data))
    if needs_copy:
        X = X.copy()
        X.sum_duplicates()
        X.eliminate_zeros()
    return X


class SignSVMProblem(NamedTuple):
    """min_w lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>) subject to sign_h w_h >= 0.

    Attributes
    ----------
    X : ndarray (n, d), float64, finite; or canonical CSR (:func:`canonical_csr`), float64, finite
        (the dual coordinate ascent, Frank-Wolfe and the interior-point method read it without
        densifying)
    y : ndarray (n,), entries +-1
    lam : float > 0
    sign : ndarray (d,), entries in {-1, 0, +1}
    weights : ndarray (n,) of s_i >= 0 (not all zero), or None for all ones (the paper's problem)
    """

    X: np.ndarray
    y: np.ndarray
    lam: float
    sign: np.ndarray
    weights: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def lam_n(self) -> float:
        """lam * n: the scale of omega = Z^T alpha / (lam n) in the dual (eq. 9)."""
        return self.lam * self.X.shape[0]

    @property
    def upper(self) -> np.ndarray:
        """The dual box's upper bounds: s_i, or ones without weights."""
        return np.ones(self.X.shape[0]) if self.weights is None else self.weights

    @property
    def sparse(self) -> bool:
        return is_sparse(self.X)

    @property
    def nnz(self) -> int:
        return int(self.X.nnz) if is_sparse(self.X) else int(np.count_nonzero(self.X))


def make_problem(X, y, lam, sign=None, *, sample_weight=None, two_classes: bool = False,
                 accept_sparse: bool = False) -> SignSVMProblem:
    """Validate the data of problem (4) once and return it as a :class:`SignSVMProblem`.

    With ``accept_sparse``, X may also be a scipy.sparse matrix or array of any format: it is
    held as canonical CSR (:func:`canonical_csr`, float64), never densified.

    Raises
    ------
    ValueError
        Naming the argument: X not a finite (n, d) array (or sparse matrix, with
        ``accept_sparse``), y not +-1 of length n (or one class only, with ``two_classes``), lam
        not a finite number > 0, sign not in {-1, 0, 1}^d, sample_weight not finite, nonnegative
        and of length n with one entry positive.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.problem import make_problem
    >>> p = make_problem(np.eye(3), [1, -1, 1], 0.5, sign=[1, 0, -1])
    >>> p.n, p.d, p.lam_n
    (3, 3, 1.5)
    >>> make_problem(np.eye(3), [1, -1, 1], 0.5, sample_weight=[2, 0, 1]).upper.tolist()
    [2.0, 0.0, 1.0]
    """
    X, y = check_data(X, y, accept_sparse)
    if two_classes:
        check_two_classes(y)
    w = None if sample_weight is None else check_weights(sample_weight, X.shape[0], "sample_weight")
    return SignSVMProblem(X, y, check_positive(lam, "lam"), check_sign(sign, X.shape[1]), w)


def check_data(X, y, accept_sparse: bool = True):
    """X as a finite float64 (n, d) array, or with ``accept_sparse`` a scipy.sparse matrix of any
    format held as canonical CSR (never densified), and y as +-1 of length n."""
    if accept_sparse and is_sparse(X):
        return _check_sparse_X(X), check_labels(y, X.shape[0], "y")
    return check_X_y(X, y)


def _check_sparse_X(X):
    """A sparse X as canonical float64 CSR, with the checks :func:`check_X_y` makes of a dense one."""
    if len(X.shape) != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X: expected a 2-D matrix with at least one row and one column, got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X: expected real numbers, got dtype {X.dtype}")
    if X.shape[1] - 1 > np.iinfo(INDEX_DTYPE).max:
        raise ValueError(f"X: expected at most {np.iinfo(INDEX_DTYPE).max + 1} columns (32-bit column indices), "
                         f"got {X.shape[1]}")
    X = canonical_csr(X.astype(np.float64, copy=False))
    if not np.all(np.isfinite(X.data)):
        raise ValueError("X: expected finite values, found NaN or inf")
    return check_squares(X)


def check_time_limit(time_limit) -> float | None:
    """None, or a time limit in seconds > 0."""
    return None if time_limit is None else check_positive(time_limit, "time_limit")
