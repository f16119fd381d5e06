"""Frank-Wolfe on the dual of the sign-constrained SVM (Tajima et al., Algorithm 1, Sec. 6).

Each iteration costs O(nd): one product for the margins z = Y X w (used by the direction step,
eq. 14, and by the primal objective for the duality gap), one product for omega_q = X^T(y q)/(lam n),
and an O(d log d) exact line search (Lemma 1). The duality gap P(w(alpha)) - D(alpha) bounds the
primal error (eq. 10) and is the stopping rule.

With per-sample weights s (``svmcert.signsvm.problem``) the feasible set is the box [0, s] and the direction
finding of eq. (14) puts u_i = s_i where z_i < 1; the line search is unchanged. X may be sparse
(CSR): only products with X and X^T are taken.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .._validation import check_iterations, check_positive, check_vector
from .line_search import maximize_pieces, pieces_sweep
from ._signed_rows import SignedRows
from .problem import SignSVMProblem, check_time_limit, make_problem
from .._budget import Deadline
from ..exceptions import ConvergenceWarning
from .result import History, SolverResult, certificate

__all__ = ["run_frank_wolfe", "SolverResult", "ConvergenceWarning", "frank_wolfe"]


def frank_wolfe(X, y, lam, sign=None, tol: float = 1e-6, max_iter: int = 10_000, alpha0=None,
                record_history: bool = True, time_limit: float | None = None, *,
                sample_weight=None) -> SolverResult:
    """Maximise the dual (eq. 9) by Frank-Wolfe with exact line search until the relative gap <= tol.

    Parameters
    ----------
    X : array of shape (n, d)
        Samples as rows.
    y : array of shape (n,)
        Labels +-1.
    lam : float > 0
        The regularisation parameter lambda.
    sign : array of shape (d,), optional
        Entries in {-1, 0, +1} (+1: w_h >= 0, -1: w_h <= 0, 0: free); default all free.
    tol : float, default 1e-6
        Stop when the relative duality gap (P(w(alpha)) - D(alpha)) / P(w(alpha)) <= tol.
    max_iter : int, default 10000
        Iteration limit; reaching it without the gap emits :class:`ConvergenceWarning` and sets
        ``converged=False``.
    alpha0 : array of shape (n,), optional
        Starting point (default 0); entries outside [0, 1] are clipped.
    record_history : bool, default True
        Keep the primal, dual, gap and time of every iteration in ``history``.
    time_limit : float, optional
        Seconds; the run stops before an iteration that would end after it (estimated from the
        slowest iteration so far), warns and returns its last certified point.
    sample_weight : array of shape (n,), optional
        Weights s_i >= 0: the weighted problem (alpha in [0, s]).

    Returns
    -------
    SolverResult

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import frank_wolfe
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3)); y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(100))
    >>> res = frank_wolfe(X, y, lam=1.0, sign=[1, 0, -1], tol=1e-4)
    >>> bool(res.converged and res.gap <= 1e-4 * res.primal)
    True
    """
    p = make_problem(X, y, lam, sign, sample_weight=sample_weight)
    alpha0 = None if alpha0 is None else check_vector(alpha0, "alpha0", p.n)
    return run_frank_wolfe(p, check_positive(tol, "tol"), check_iterations(max_iter, "max_iter"), alpha0, bool(record_history),
                check_time_limit(time_limit))


def run_frank_wolfe(p: SignSVMProblem, tol: float, max_iter: int, alpha0, record_history: bool, time_limit) -> SolverResult:
    """:func:`frank_wolfe` on a validated problem and options."""
    X, y, lam, sign, n, weights = p.X, p.y, p.lam, p.sign, p.n, p.weights
    Z = SignedRows(X, y) if p.sparse else y[:, None] * X
    upper = p.upper
    alpha = np.zeros(n) if alpha0 is None else np.clip(alpha0, 0.0, upper)
    omega = Z.T @ alpha / (lam * n)
    start = time.perf_counter()
    hist = History(start)
    deadline = Deadline(time_limit, start)
    converged = False
    it, t_iter = 0, 0.0
    while True:
        cert = certificate(omega, alpha, Z, lam, sign, weights)
        if record_history:
            hist.add(cert, time.perf_counter())
        if cert.relative_gap_below(tol):
            converged = True
            break
        if it >= max_iter or not deadline.allows(t_iter):
            break
        t0 = time.perf_counter()
        u = (cert.z < 1.0).astype(float)                 # eq. (14)
        q = (u if weights is None else weights * u) - alpha
        omega_q = Z.T @ q / (lam * n)
        theta, a, b, _ = pieces_sweep(omega, omega_q, sign, lam, float(q.sum()) / n, float(alpha.sum()) / n)
        eta = maximize_pieces(theta, a, b)
        alpha = np.clip(alpha + eta * q, 0.0, upper)
        it += 1
        # Incremental update of omega, recomputed from alpha now and then so rounding cannot drift.
        omega = Z.T @ alpha / (lam * n) if it % 100 == 0 else omega + eta * omega_q
        t_iter = max(t_iter, time.perf_counter() - t0)
    if not converged:
        reason = f"max_iter={max_iter}" if it >= max_iter else f"time_limit={time_limit:g} s"
        warnings.warn(f"frank_wolfe: stopped at {reason} with relative duality gap "
                      f"{cert.gap / max(cert.primal, np.finfo(float).tiny):.3g} > tol={tol:g}",
                      ConvergenceWarning, stacklevel=3)
    return SolverResult(w=cert.w, alpha=alpha, primal=cert.primal, dual=cert.dual, gap=cert.gap, n_iter=it,
                        converged=converged, history=hist if record_history else {})
