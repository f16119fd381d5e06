"""Problem (12) of Hanada et al. (Theorem 4.1), the object both of its solvers share: the maximum
:class:`BallMaximum` of w'Aw + 2b'w over the ball ||w - c|| <= S and the one validation of its data
(:func:`check_ball_problem`). The solvers are :func:`svmcert.screening.maximize_quadratic_on_ball`
(:mod:`.quadratic_ball`) and its Cholesky/Newton path (:mod:`.ball_newton`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_matrix, check_positive, check_vector

__all__ = ["BallMaximum", "check_ball_problem", "SYMMETRY_RTOL"]

SYMMETRY_RTOL = 1e-9
"""Largest |A - A'| accepted, relative to max|A|: far above rounding (~n eps), far below any
intended asymmetry. A is symmetrised after the check."""


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


def check_ball_problem(A, b, center, radius=None):
    """Validate problem (12), max w'Aw + 2b'w over ||w - center|| <= radius: A square, finite and
    symmetric up to SYMMETRY_RTOL, b and center finite vectors of A's size, radius > 0 when given.

    Returns
    -------
    A, b, center, radius
        A symmetrised, float arrays; ``radius`` None when not given.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.screening.ball_problem import check_ball_problem
    >>> A, b, c, S = check_ball_problem(np.eye(2), [0, 1], [0, 0], 1)
    >>> A.shape, S
    ((2, 2), 1.0)
    >>> check_ball_problem(np.eye(2), [0, 1, 2], [0, 0])
    Traceback (most recent call last):
    ...
    ValueError: b: expected length 2, got length 3
    """
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
