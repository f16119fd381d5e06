"""QP1 (Aksu, eq. 6), the problem: its matrices, objectives, result types and starting point, shared by
both active-set methods (:mod:`.drd_active_set`, :mod:`.nocedal_wright`) and the front door
(:func:`svmcert.featelim.solve_qp1`).

QP1 rescales a fixed direction and re-fits the bias in the soft-margin sense.

After features ``M`` are removed, the direction ``w^{-M}`` is kept and only a scale ``a``, the
bias ``b`` and the slacks ``xi`` are re-optimised. With ``g_n = (w^{-M})^T x_n^{-M}`` and
``W = ||w^{-M}||^2`` the problem is

    min_{a, b, xi}  1/2 W a^2 + C sum_n xi_n
    s.t.            y_n (a g_n + b) >= 1 - xi_n,   xi_n >= 0,      n = 1..N.

In the paper's matrix form (eq. 6): ``q = (a, b, xi_1..xi_N)``, ``G = diag(W, 0, ..., 0)``,
``d = (0, 0, C 1_N)``, ``A = [[V, I], [0, I]]`` with rows ``v_n = (y_n g_n, y_n)`` and
``t = (1_N, 0_N)``; constraints ``A q >= t``. There is no constraint ``a >= 0``.

Eliminating ``xi`` gives ``P(a, b) = W a^2 / 2 + C sum_n max(0, 1 - y_n (a g_n + b))``, a
one-dimensional soft-margin SVM. Its dual is

    max_alpha  sum_n alpha_n - (sum_n alpha_n y_n g_n)^2 / (2 W)
    s.t.       0 <= alpha_n <= C,   sum_n alpha_n y_n = 0,

and the margin-row multipliers of an active-set solution are such an ``alpha``; every result
carries the duality gap ``P - D`` as a certificate.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_labels, check_positive, check_vector
from ..exceptions import ConvergenceWarning

__all__ = ["QP1Iteration", "QP1Result", "qp1_matrices", "qp1_objective", "qp1_dual_objective",
           "qp1_slacks", "check_qp1_input", "best_bias", "initial_margin_setter", "initial_working_set",
           "finish_result"]


@dataclass(frozen=True)
class QP1Iteration:
    """One iteration of an active-set method on QP1.

    Attributes
    ----------
    k : int
        Iteration number (0 is the first).
    kind : str
        What the iteration did: ``"step"`` (full step of the equality-constrained subproblem),
        ``"blocked"`` (partial step, a blocking constraint joined the working set), ``"drop"``
        (``p = 0`` and a constraint with a negative multiplier left), ``"pivot"`` (the specialised
        method's exchange, see :func:`svmcert.featelim.drd_active_set`), ``"ray"`` (the literal
        method's step along a zero-curvature direction when the subproblem is unbounded) or
        ``"optimal"``.
    W1, W2 : tuple of int
        The working set at the start of the iteration, as sample indices whose margin row
        (``W1``) or ``xi >= 0`` row (``W2``) is in it. ``W = W1 u (W2 + N)`` in absolute rows.
    step : float
        Step length ``delta`` along the subproblem solution (1 for a full step, ``inf`` never).
    direction_norm : float
        Euclidean norm of the direction ``p`` of the subproblem (0 when ``p = 0``).
    blocking : int or None
        Absolute row index (0..2N-1) of the constraint added, if any.
    dropped : int or None
        Absolute row index of the constraint removed, if any.
    multipliers : dict or None
        Lagrange multipliers of the working-set rows (absolute row -> value), when computed.
    objective : float
        QP1 objective at the start of the iteration.
    reduced_hessian_pd : bool or None
        Whether ``Z^T G Z`` was positive definite (``None`` when the null space is trivial).
    """

    k: int
    kind: str
    W1: tuple
    W2: tuple
    step: float
    direction_norm: float
    blocking: int | None
    dropped: int | None
    multipliers: dict | None
    objective: float
    reduced_hessian_pd: bool | None = None


@dataclass
class QP1Result:
    """Solution of QP1 with its certificate.

    Attributes
    ----------
    a, b : float
        Scale of the kept direction and bias.
    xi : ndarray of shape (N,)
        Slacks ``max(0, 1 - y_n (a g_n + b))``.
    objective : float
        Primal objective ``W a^2 / 2 + C sum xi``.
    iterations : list of QP1Iteration
        One record per iteration (empty records' sets when ``record=False``).
    alpha : ndarray of shape (N,)
        Dual point (margin-row multipliers), feasible for the dual above.
    dual_objective : float
        Dual objective at ``alpha``; ``objective - dual_objective`` is the duality gap.
    converged : bool
        False when the method stopped at ``max_iter`` (a
        :class:`~svmcert.signsvm.ConvergenceWarning` was issued).
    method : str
        ``"active-set"`` or ``"nocedal-wright"``.
    W1, W2 : ndarray of bool
        Final working set.
    max_iter : int or None
        The iteration cap the run had (``converged`` is False when it was reached first).
    """

    a: float
    b: float
    xi: np.ndarray
    objective: float
    iterations: list = field(default_factory=list)
    alpha: np.ndarray | None = None
    dual_objective: float = float("nan")
    converged: bool = True
    method: str = "active-set"
    W1: np.ndarray | None = None
    W2: np.ndarray | None = None
    n_iterations: int | None = None
    max_iter: int | None = None

    @property
    def n_iter(self) -> int:
        """Number of iterations (the compiled engine counts them without records)."""
        return len(self.iterations) if self.n_iterations is None else self.n_iterations

    @property
    def gap(self) -> float:
        """Duality gap ``objective - dual_objective`` (>= 0 up to rounding)."""
        return self.objective - self.dual_objective


def check_qp1_input(g, y, C, wnorm2):
    """Validate QP1's data: finite ``g``, labels in {-1, +1} of the same length, ``C > 0``, ``W > 0``."""
    g = check_vector(g, "g")
    if g.shape[0] < 1:
        raise ValueError("g: expected at least one sample, got length 0")
    y = check_labels(y, g.shape[0], "y")
    C = check_positive(C, "C")
    wnorm2 = check_positive(wnorm2, "wnorm2")
    return g, y, C, wnorm2


def qp1_matrices(g, y, C, wnorm2):
    """The matrices of eq. (6): ``G``, ``d``, ``A``, ``t`` with constraints ``A q >= t``.

    Returns
    -------
    G : ndarray (N+2, N+2)
        ``diag(W, 0, ..., 0)``.
    d : ndarray (N+2,)
        ``(0, 0, C, ..., C)``.
    A : ndarray (2N, N+2)
        Rows ``0..N-1``: ``(y_n g_n, y_n, e_n)`` (margin rows); rows ``N..2N-1``: ``(0, 0, e_n)``.
    t : ndarray (2N,)
        ``(1, ..., 1, 0, ..., 0)``.
    """
    g, y, C, wnorm2 = check_qp1_input(g, y, C, wnorm2)
    N = g.shape[0]
    G = np.zeros((N + 2, N + 2))
    G[0, 0] = wnorm2
    d = np.concatenate([[0.0, 0.0], np.full(N, C)])
    A = np.zeros((2 * N, N + 2))
    A[:N, 0] = y * g
    A[:N, 1] = y
    A[:N, 2:] = np.eye(N)
    A[N:, 2:] = np.eye(N)
    t = np.concatenate([np.ones(N), np.zeros(N)])
    return G, d, A, t


def qp1_slacks(a, b, g, y):
    """Optimal slacks for given ``(a, b)``: ``max(0, 1 - y_n (a g_n + b))``."""
    return np.maximum(0.0, 1.0 - y * (a * g + b))


def qp1_objective(a, b, g, y, C, wnorm2) -> float:
    """``P(a, b) = W a^2 / 2 + C sum_n max(0, 1 - y_n (a g_n + b))`` (eq. 6 with xi eliminated)."""
    return 0.5 * wnorm2 * a * a + C * float(np.sum(qp1_slacks(a, b, g, y)))


def qp1_dual_objective(alpha, g, y, wnorm2) -> float:
    """``D(alpha) = sum alpha - (sum alpha_n y_n g_n)^2 / (2 W)``; a lower bound on QP1's optimum
    when ``0 <= alpha <= C`` and ``sum alpha y = 0``."""
    s = float(np.dot(alpha * y, g))
    return float(np.sum(alpha)) - s * s / (2.0 * wnorm2)


def best_bias(a, g, y):
    """Bias minimising ``sum_n max(0, 1 - y_n (a g_n + b))`` for fixed ``a``, at a kink.

    The function is convex and piecewise linear in ``b`` with kinks ``b_n = y_n - a g_n``; its
    slope left of every kink is ``-P`` (``P`` positives) and grows by one at each kink, so the
    ``P``-th smallest kink is a minimiser (the smallest one when there are no positives).

    Returns
    -------
    b : float
    s : int
        The sample whose kink it is: ``y_s (a g_s + b) = 1``.
    """
    kinks = y - a * g
    P = int(np.count_nonzero(y > 0))
    k = max(P - 1, 0)
    order = np.argpartition(kinks, k)
    s = int(order[k])
    return float(kinks[s]), s


def initial_margin_setter(a, g, y, b0=None):
    """Starting bias and margin-setter: the best bias for ``a`` (``b0 is None``) or the kink
    ``y_s - a g_s`` nearest to ``b0``."""
    if b0 is None:
        return best_bias(a, g, y)
    kinks = y - a * g
    s = int(np.argmin(np.abs(kinks - b0)))
    return float(kinks[s]), s


def initial_working_set(a, b, s, g, y):
    """``W1``: samples with margin below 1 and ``s``; ``W2``: the rest and ``s`` (Theorem 1 holds)."""
    m = y * (a * g + b)
    in1 = m < 1.0
    in1[s] = True
    in2 = ~in1
    in2[s] = True
    return in1, in2


def finish_result(method, a, b, g, y, C, wnorm2, alpha, iterations, converged, W1, W2, max_iter, n_iterations=None):
    """The :class:`QP1Result` of a method's final point, with its slacks, objective and dual value;
    warns (:class:`svmcert.exceptions.ConvergenceWarning`) when the method stopped at ``max_iter``."""
    xi = qp1_slacks(a, b, g, y)
    if not converged:
        warnings.warn(f"solve_qp1 ({method}) stopped at max_iter={max_iter} before reaching optimality",
                      ConvergenceWarning, stacklevel=3)
    return QP1Result(a=float(a), b=float(b), xi=xi, objective=qp1_objective(a, b, g, y, C, wnorm2),
                     iterations=iterations, alpha=alpha, dual_objective=qp1_dual_objective(alpha, g, y, wnorm2),
                     converged=converged, method=method, W1=W1, W2=W2, n_iterations=n_iterations,
                     max_iter=int(max_iter))
