"""QP1 (Aksu, eq. 6), the front door: :func:`solve_qp1` validates its input once and runs one of the
two active-set methods on it. The problem itself (matrices, objectives, results) is in
:mod:`svmcert.featelim.qp1_problem`; its names are re-exported here.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_iterations, check_positive, check_vector
from .drd_active_set import drd_active_set
from .nocedal_wright import qp1_nocedal_wright
from .qp1_problem import (QP1Iteration, QP1Result, best_bias, check_qp1_input, initial_margin_setter,  # noqa: F401
                          initial_working_set, qp1_dual_objective, qp1_matrices, qp1_objective, qp1_slacks)

__all__ = ["solve_qp1", "QP1Iteration", "QP1Result", "qp1_matrices", "qp1_objective", "qp1_dual_objective",
           "qp1_slacks", "check_qp1_input", "best_bias", "initial_margin_setter", "initial_working_set"]


def solve_qp1(g, y, C, wnorm2, method: str = "active-set", *, start=None, tol: float = 1e-12,
              max_iter: int | None = None, record: bool = True, engine: str = "auto") -> QP1Result:
    """Solve QP1 (eq. 6) by an active-set method.

    Parameters
    ----------
    g : array_like (N,)
        Projections ``g_n = (w^{-M})^T x_n^{-M}``.
    y : array_like (N,)
        Labels in {-1, +1}.
    C : float > 0
        Soft-margin parameter.
    wnorm2 : float > 0
        ``W = ||w^{-M}||^2``.
    method : {"active-set", "nocedal-wright"}
        ``"active-set"``: the specialised method that keeps one margin-setter sample doubly
        active and moves along its direction of remaining doubly-active (DRD), switching sample
        at blocking constraints (:func:`svmcert.featelim.drd_active_set`). ``"nocedal-wright"``:
        the literal Algorithm 16.1 of Nocedal and Wright on the dense matrices of eq. (6)
        (:func:`svmcert.featelim.qp1_nocedal_wright`), from the same starting point.
    start : (float, float), optional
        Starting classifier ``(a, b)``. The bias is moved to the nearest kink
        ``y_s - a g_s``, which puts sample ``s`` on its margin as the first margin-setter (the
        paper's designation of an initial doubly-active sample, Sec. 6.2). Default: ``a = 1``
        (the direction as given) with the best bias for it (:func:`best_bias`).
    tol : float
        Relative tolerance of the optimality tests (slope along the DRD, negative multipliers).
    max_iter : int >= 1, optional
        Default ``20 N + 100``. Stopping there issues a :class:`~svmcert.signsvm.ConvergenceWarning`. Integers (and
        floats with an integral value, such as ``1e4``) are accepted; a fraction, bool or string
        raises ValueError rather than being truncated.
    record : bool
        Keep each iteration's working set in :attr:`QP1Result.iterations`.
    engine : {"auto", "numpy", "numba"}
        For ``method="active-set"``: the numpy implementation (the tested reference, which
        records iterations) or the compiled loop (no records). ``"auto"`` compiles when
        ``record=False``.

    Returns
    -------
    QP1Result

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.featelim import solve_qp1
    >>> g = np.array([2.0, 1.5, -1.0, -2.5, 0.2]); y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    >>> res = solve_qp1(g, y, C=1.0, wnorm2=1.0)
    >>> round(res.a, 9), round(res.b, 9), round(float(res.objective), 9), res.converged
    (1.3, -1.26, 1.155, True)
    >>> bool(abs(res.objective - res.dual_objective) < 1e-12)     # the duality gap certifies it
    True
    >>> round(float(solve_qp1(g, y, 1.0, 1.0, method="nocedal-wright").objective), 9)
    1.155
    """
    if method not in ("active-set", "nocedal-wright"):
        raise ValueError(f"method: expected 'active-set' or 'nocedal-wright', got {method!r}")
    if engine not in ("auto", "numpy", "numba"):
        raise ValueError(f"engine: expected 'auto', 'numpy' or 'numba', got {engine!r}")
    if engine == "numba" and record:
        raise ValueError("engine: the compiled engine keeps no iteration records; pass record=False")
    g, y, C, wnorm2 = check_qp1_input(g, y, C, wnorm2)
    if start is None:
        a0, b0 = 1.0, None
    else:
        a0, b0 = check_vector(np.asarray(start, dtype=float).ravel(), "start", 2)
    tol = check_positive(tol, "tol")
    max_iter = 20 * g.shape[0] + 100 if max_iter is None else check_iterations(max_iter, "max_iter")
    if method == "active-set":
        compiled = engine == "numba" or (engine == "auto" and not record)
        return drd_active_set(g, y, C, wnorm2, a0=a0, b0=b0, tol=tol, max_iter=int(max_iter), record=record,
                              compiled=compiled)
    return qp1_nocedal_wright(g, y, C, wnorm2, a0=a0, b0=b0, tol=tol, max_iter=int(max_iter), record=record)
