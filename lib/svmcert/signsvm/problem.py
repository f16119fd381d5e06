"""Problem (4) of Tajima et al., validated once: what every private solver takes.

The public solvers (:func:`~svmcert.signsvm.solve`, :func:`~svmcert.signsvm.dual_coordinate_ascent`,
:func:`~svmcert.signsvm.interior_point`, :func:`~svmcert.signsvm.frank_wolfe`) and the estimator
check their inputs at the door and build a :class:`SignSVMProblem`; the code behind the door
(``_run`` in each solver module) takes the problem unchecked, as scikit-learn's ``check_input=False``
paths and QuantEcon's model tuples do. Lambda travels only as ``lam``; ``lam_n`` is derived.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_positive, check_sign, check_two_classes, check_X_y

__all__ = ["SignSVMProblem", "make_problem", "check_time_limit"]


class SignSVMProblem(NamedTuple):
    """min_w lam/2 ||w||^2 + (1/n) sum_i max(0, 1 - y_i <x_i, w>) subject to sign_h w_h >= 0.

    Attributes
    ----------
    X : ndarray (n, d), float64, finite
    y : ndarray (n,), entries +-1
    lam : float > 0
    sign : ndarray (d,), entries in {-1, 0, +1}
    """

    X: np.ndarray
    y: np.ndarray
    lam: float
    sign: np.ndarray

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


def make_problem(X, y, lam, sign=None, *, two_classes: bool = False) -> SignSVMProblem:
    """Validate the data of problem (4) once and return it as a :class:`SignSVMProblem`.

    Raises
    ------
    ValueError
        Naming the argument: X not a finite (n, d) array, y not +-1 of length n (or one class
        only, with ``two_classes``), lam not a finite number > 0, sign not in {-1, 0, 1}^d.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm.problem import make_problem
    >>> p = make_problem(np.eye(3), [1, -1, 1], 0.5, sign=[1, 0, -1])
    >>> p.n, p.d, p.lam_n
    (3, 3, 1.5)
    """
    X, y = check_X_y(X, y)
    if two_classes:
        check_two_classes(y)
    return SignSVMProblem(X, y, check_positive(lam, "lam"), check_sign(sign, X.shape[1]))


def check_time_limit(time_limit) -> float | None:
    """None, or a time limit in seconds > 0."""
    return None if time_limit is None else check_positive(time_limit, "time_limit")
