"""Dual coordinate ascent with exact coordinate steps for the sign-constrained SVM.

Not in the paper: it maximises the same dual (eq. 9) one alpha_i at a time. Along coordinate i,
omega moves on the line omega + t v with v = y_i x_i / (lam n), and

    d/dt D(alpha + t e_i) = (1 - y_i <x_i, Pi_S(omega + t v)>) / n

is continuous, piecewise linear and decreasing in t (the same structure as Lemma 1, in one
dimension of alpha). Its breakpoints are where a constrained coordinate of omega + t v crosses zero.
:func:`coordinate_step` finds the root exactly: sort the breakpoints inside the feasible
interval t in [-alpha_i, 1 - alpha_i], evaluate the derivative at each by cumulative sums, and
solve the linear piece where it changes sign; only the nonzero entries of x_i take part.
With no sign constraints this is the classical closed-form step of dual coordinate descent
(Hsieh et al., 2008). The duality gap P(w(alpha)) - D(alpha) certifies the result (eq. 10).

With per-sample weights s_i (``svmcert.signsvm.problem``) the interval is [-alpha_i, s_i - alpha_i] and
nothing else changes; X may be a sparse CSR matrix, whose rows the passes read directly.
"""

from __future__ import annotations

import time

import numpy as np

from typing import NamedTuple

from .._validation import check_iterations, check_positive, check_seed, check_vector
from ._signed_rows import CSR_PRODUCTS_MAX_DENSITY, CSRSignedRows, SignedRows, csr_rmatvec
from .bound_start import all_at_bound
from .problem import SignSVMProblem, check_time_limit, make_problem
from .._budget import Deadline
from .result import History, SolverResult, certificate
from .shrinking_rounds import DCAState as _State, finish as _result, shrinking_loop as _shrinking_loop

__all__ = ["run_coordinate_ascent", "coordinate_step", "dual_coordinate_ascent", "DCAOptions", "dca_options"]


class DCAOptions(NamedTuple):
    """The validated options of :func:`dual_coordinate_ascent` (see its parameters)."""

    tol: float = 1e-6
    max_epochs: int = 10000
    seed: int = 0
    record_history: bool = True
    engine: str = "numba"
    shrinking: bool = True
    polish: bool = True
    time_limit: float | None = None
    max_work: float | None = None
    give_up_work: float | None = None
    extra_work: float | None = None


def dca_options(tol=1e-6, max_epochs=10000, seed=0, record_history=True, engine="numba", shrinking=True,
                polish=True, time_limit=None, max_work=None, give_up_work=None, extra_work=None) -> DCAOptions:
    """Check the options of :func:`dual_coordinate_ascent` once; a ValueError names the bad one.

    ``max_work`` and ``give_up_work`` (the budget ``svmcert.signsvm.solve``'s ``auto`` gives
    coordinate ascent, in the work units of :func:`._dca_kernel.run_shrinking`: nonzeros visited
    plus ROW_WORK per row; shrinking runs only): stop once the work done reaches ``max_work``, or
    at a certificate from which the gap's rate over the later half of the run predicts more than
    ``give_up_work`` further work to reach ``tol`` (with ``max_work``, only once half of it is
    done: ``shrinking_rounds.GIVE_UP_FROM_SHARE``). ``extra_work`` (with ``max_work``): a run
    that reaches ``max_work`` uncertified goes on, by rounds sized from the same prediction, as
    long as the prediction puts ``tol`` within ``max_work + extra_work`` in all."""
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine: expected 'numba' or 'numpy', got {engine!r}")
    for name, flag in (("shrinking", shrinking), ("polish", polish)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name}: expected True or False, got {flag!r}")
    work = [None if v is None else check_positive(v, name) for name, v in (("max_work", max_work),
                                                                          ("give_up_work", give_up_work),
                                                                          ("extra_work", extra_work))]
    if work[2] is not None and work[0] is None:
        raise ValueError("extra_work: only with max_work (work beyond it), got max_work=None")
    return DCAOptions(check_positive(tol, "tol"), check_iterations(max_epochs, "max_epochs"), check_seed(seed),
                      bool(record_history), engine, bool(shrinking), bool(polish), check_time_limit(time_limit),
                      *work)


def coordinate_step(omega_s, v, sign_s, lam_n, lo, hi) -> float:
    """Exact maximiser t in [lo, hi] of D along one coordinate.

    Parameters
    ----------
    omega_s, v, sign_s : arrays over the support of x_i: current omega, direction
        y_i x_i / (lam n), and sign constraints.
    lam_n : lam * n.
    lo, hi : the feasible step interval [-alpha_i, 1 - alpha_i].

    Returns
    -------
    t : float, the step (alpha_i += t).
    """
    if lo >= hi:
        return 0.0
    constrained = sign_s != 0
    s_v = sign_s * v
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = -omega_s / v
    moving = constrained & (v != 0)
    inside = moving & (cross > lo) & (cross < hi)
    # Status on the interval just after lo, decided from the crossing alone (never from the
    # rounded sign of omega + lo v): a moving coordinate is active after its crossing iff it moves
    # towards its sign; free coordinates are always active; resting ones keep their sign test.
    active = np.where(moving, np.where(cross <= lo, s_v > 0, s_v < 0), ~constrained | (sign_s * omega_s > 0))
    A = float(v[active] @ v[active])          # sum of v_h^2 over the active set
    B = float(v[active] @ omega_s[active])    # sum of v_h omega_h over the active set
    target = 1.0 / lam_n                      # the derivative is 0 where B + t A = 1/(lam n)
    if B + lo * A >= target:                  # derivative <= 0 already at lo
        return float(lo)
    left = lo
    if inside.any():
        idx = np.flatnonzero(inside)
        order = idx[np.argsort(cross[idx], kind="stable")]
        t_k = cross[order]
        sgn = np.where(s_v[order] > 0, 1.0, -1.0)  # enters if it moves towards its sign
        dA = sgn * v[order] ** 2
        dB = sgn * v[order] * omega_s[order]
        A_before = A + np.concatenate(([0.0], np.cumsum(dA)[:-1]))
        B_before = B + np.concatenate(([0.0], np.cumsum(dB)[:-1]))
        below = B_before + t_k * A_before > target    # derivative < 0 at breakpoint k
        if below.any():
            k = int(np.argmax(below))
            left = lo if k == 0 else t_k[k - 1]
            return _root(A_before[k], B_before[k], target, left, t_k[k])
        A, B = A + dA.sum(), B + dB.sum()
        left = t_k[-1]
    if B + hi * A <= target:                  # derivative >= 0 up to hi
        return float(hi)
    return _root(A, B, target, left, hi)


def _root(A, B, target, left, right) -> float:
    """Zero of the linear derivative piece B + t A = target, kept inside [left, right]."""
    if A <= 0:
        return float(left)
    return float(min(max((target - B) / A, left), right))


def dual_coordinate_ascent(X, y, lam, sign=None, tol: float = 1e-6, max_epochs: int = 10000, seed: int = 0,
                           alpha0=None, record_history: bool = True, engine: str = "numba",
                           shrinking: bool = True, polish: bool = True,
                           time_limit: float | None = None, *, sample_weight=None) -> SolverResult:
    """Maximise the dual (eq. 9) by exact coordinate steps until the relative duality gap
    (P(w) - D(alpha)) / P(w) <= tol.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1}; default all free.
    tol : float
        Relative duality gap at which to stop.
    max_epochs : int
        Limit on the passes; reaching it emits :class:`ConvergenceWarning` and sets
        ``converged=False``.
    seed : int >= 0
        Seeds the order of coordinates (the passes' own generator: a run depends on nothing else).
    alpha0 : array of shape (n,), optional
        A dual point to start from (clipped to the box). Default: every alpha_i at its upper
        bound when that point is optimal, which happens exactly when lam n is at least
        lam_max n = max_i y_i <x_i, Pi_S(Z^T u)> (``svmcert.signsvm.bound_start``; the run then
        certifies it without a pass), and alpha = 0 otherwise.
    engine : {"numba", "numpy"}
        ``"numba"``: compiled passes (``svmcert.signsvm._dca_kernel``); ``"numpy"``:
        ``coordinate_step`` in a Python loop, the tested reference, much slower, plain passes only.
    shrinking : bool
        With the numba engine, drop samples that sit at a bound with the gradient pointing
        outwards from the passes (liblinear's heuristic, ``_dca_kernel.run_shrinking``).
        The run then goes in rounds: a round ends when the projected gradients over all samples
        spread by at most eps (eps = min(0.1, 1000 tol), then divided by 10 each time it is met) or after as many
        passes as all rounds before it (at least POLISH_AFTER_EPOCHS), and is followed by a
        certificate. Epochs count passes over the remaining samples. ``False`` (or
        ``engine="numpy"``) runs full random passes with a certificate after each, the same
        trajectory in both engines up to rounding.
    polish : bool
        With shrinking, after each round whose certificate is still above ``tol`` (once the
        run has taken POLISH_AFTER_EPOCHS passes), try active-set iterations
        (``svmcert.signsvm.active_set.polish_active_set``: the linear system of the margin conditions on the
        sets the round identified) and return their point if its certificate is below ``tol``;
        otherwise coordinate ascent goes on from where it was. Each attempt has a work budget of
        POLISH_FLOPS_PER_ENTRY floating-point operations per unit of work of the round just
        done (nonzeros visited by its passes over the shrunken set), so polishing at most about
        doubles the work of the passes; an attempt whose linear algebra would cost more (many
        samples on the margin) is not made.
    time_limit : float, optional
        Seconds. The run stops before a group of passes or a polishing attempt
        that would end after it (their time is estimated from the passes already made), warns and
        returns its last certified point with ``converged=False``.
    sample_weight : (n,) weights s_i >= 0, optional: the weighted problem of ``svmcert.signsvm.problem``
        (alpha_i in [0, s_i]; a zero weight removes the sample).

    Notes
    -----
    Whatever the engine, the result is certified by the duality gap of the full problem (eq. 10);
    shrinking and polishing only change where the solver looks. ``history`` also holds
    ``polish``: one dict per polishing attempt (epoch, the run's work before it and the work of
    the round before it, ``|F|``, ``|J|``, iterations, estimated flops, outcome).

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import dual_coordinate_ascent
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(300))
    >>> res = dual_coordinate_ascent(X, y, lam=0.1, sign=[1, 0, 0, -1])
    >>> bool(res.converged and res.gap <= 1e-6 * res.primal)
    True
    """
    p = make_problem(X, y, lam, sign, sample_weight=sample_weight)
    opts = dca_options(tol, max_epochs, seed, record_history, engine, shrinking, polish, time_limit)
    alpha0 = None if alpha0 is None else check_vector(alpha0, "alpha0", p.n)
    return run_coordinate_ascent(p, opts, alpha0)


def run_coordinate_ascent(p: SignSVMProblem, opts: DCAOptions, alpha0=None) -> SolverResult:
    """:func:`dual_coordinate_ascent` on a validated problem and options (``alpha0`` a float vector
    of length n or None; clipped to the box)."""
    n, lam_n, sign, tol, max_epochs = p.n, p.lam_n, p.sign, opts.tol, opts.max_epochs
    upper, weights = p.upper, p.weights
    start = time.perf_counter()
    hist = History(start)
    hist["polish"] = []
    deadline = Deadline(opts.time_limit, start)
    record_history, engine = opts.record_history, opts.engine
    layout, omega_u = None, None
    if p.sparse:
        indptr, indices, values = _csr_sparse(p.X, p.y / lam_n)
    elif engine == "numpy":
        indptr, indices, values = _csr_numpy(p.X, p.y / lam_n)
    if engine == "numba":
        from ._dca_kernel import dense_rows, epoch as compiled_epoch, row_layout
        from ._prefetch import PREFETCH_DISTANCE

        if p.sparse:
            layout = row_layout(indptr, indices, values, sign)
        else:                                   # rows of Z / (lam n) and their layout, in one call
            indptr, indices, values, *layout, omega_u = dense_rows(np.ascontiguousarray(p.X), p.y / lam_n, sign,
                                                                   upper)
            layout = tuple(layout)
    Z = _rows(p, None if engine == "numpy" else (indptr, indices, values))
    if alpha0 is None:                      # every sample at its bound where that is optimal, else 0
        u = np.ascontiguousarray(upper, dtype=np.float64)
        if omega_u is None:
            omega_u = csr_rmatvec(indptr, indices, values, u, p.d)
        if all_at_bound(indptr, indices, values, u, lam_n, sign, omega_u):
            alpha, omega = u.copy(), omega_u
        else:
            alpha, omega = np.zeros(n), np.zeros(p.d)
    else:
        alpha = np.clip(alpha0, 0.0, upper)
        omega = Z.T @ alpha / lam_n
    if engine == "numba":
        if opts.shrinking:
            return _shrinking_loop(p, opts, alpha, omega, _State(Z, (indptr, indices, values), layout, hist, deadline))
    rng = np.random.default_rng(opts.seed)
    converged, epoch, t_epoch = False, 0, 0.0
    while True:
        cert = certificate(omega, alpha, Z, p.lam, sign, weights)
        if record_history:
            hist.add(cert, time.perf_counter())
        if cert.relative_gap_below(tol):
            converged = True
            break
        if epoch >= max_epochs or not deadline.allows(t_epoch):
            break
        t0 = time.perf_counter()
        order = rng.permutation(n)
        if engine == "numba":
            cptr, cpos, sq_norm = layout
            compiled_epoch(order, indptr, indices, values, cptr, cpos, sq_norm, alpha, omega, sign, lam_n, upper,
                           PREFETCH_DISTANCE)
        for i in order if engine == "numpy" else ():
            s, v = indices[indptr[i]:indptr[i + 1]], values[indptr[i]:indptr[i + 1]]
            if s.size == 0:
                alpha[i] = upper[i]  # x_i = 0: D grows with alpha_i at rate 1/n
                continue
            om = omega[s]
            t = coordinate_step(om, v, sign[s], lam_n, -alpha[i], upper[i] - alpha[i])
            if t != 0.0:
                alpha[i] = min(max(alpha[i] + t, 0.0), upper[i])
                omega[s] = om + t * v
        epoch += 1
        if epoch % 20 == 0:  # recompute omega from alpha so incremental rounding cannot drift
            omega = Z.T @ alpha / lam_n
        t_epoch = max(t_epoch, time.perf_counter() - t0)
    return _result(cert, alpha, epoch, converged, max_epochs, tol, hist if record_history else None, deadline)


def _rows(p: SignSVMProblem, csr) -> SignedRows:
    """Z for the certificates and the polishing: its products from the passes' CSR ``csr`` when X
    is dense with at most CSR_PRODUCTS_MAX_DENSITY nonzeros (``_signed_rows.CSRSignedRows``), from X
    itself otherwise."""
    if csr is not None and not p.sparse and csr[0][-1] <= CSR_PRODUCTS_MAX_DENSITY * p.n * p.d:
        return CSRSignedRows(p.X, p.y, csr, p.lam_n)
    return SignedRows(p.X, p.y)


def _csr_sparse(X, scale):
    """(indptr, indices, values) of diag(scale) X for a canonical CSR X, read from its own arrays
    (indices as the compiled passes' 32-bit type, :func:`._dca_rows.csr_indices`: scipy's own
    array, not a copy); X is not densified."""
    from ._dca_rows import csr_indices

    indptr = np.asarray(X.indptr, dtype=np.int64)
    return indptr, csr_indices(X.indices), X.data * np.repeat(scale, np.diff(indptr))


def _csr_numpy(X, scale):
    """CSR form (indptr, indices, values) of diag(scale) X, nonzeros only (the reference path's
    numpy twin of :func:`._dca_kernel.scaled_csr`)."""
    rows, cols = np.nonzero(X)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=X.shape[0]))))
    return indptr, cols, X[rows, cols] * scale[rows]
