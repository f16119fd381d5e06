"""The crossover: an interior-point run that stopped short of ``tol`` finished by an exact solve on
the sets its iterate identifies (:func:`crossover`), certified by its own duality gap."""

from __future__ import annotations

import numpy as np

__all__ = ["crossover", "CROSSOVER_FLOPS", "CROSSOVER_MIN_FLOPS"]

CROSSOVER_FLOPS = 4.0
"""Work budget of :func:`crossover`'s active-set iterations, in units of n d min(n, d) (about what
forming one interior-point normal matrix costs), and at least CROSSOVER_MIN_FLOPS."""
CROSSOVER_MIN_FLOPS = 1e7
"""Least work budget of :func:`crossover`, whatever the problem's size (a hundredth of a second of
arithmetic at most). On tiny problems n d min(n, d) says nothing about what an iteration costs:
with the interior-point method's Woodbury solves left unchecked, 12 weighted problems with n = 6,
d = 24 and a repeated row with opposite labels (``tests/test_signsvm_newton_system.py``) stalled,
and their crossovers needed 2.7e3 to 6.5e3 flops by the cost model against a budget of
CROSSOVER_FLOPS n d min(n, d) = 3456: 7 of the 12 gave up on the budget, none with the floor."""


def crossover(Z, lam, sign, alpha, w, cert, tol, weights, unit_flops):
    """Finish an interior-point run that stopped short of ``tol`` (a stall, a failed factorisation
    or the iteration cap) by one exact solve on the sets its iterate identifies.

    An interior-point iterate keeps every alpha_i strictly inside its box, so its own sets say
    nothing; its margins do. Each sample with margin z_i = y_i <x_i, w> above 1 + delta gets
    alpha_i = 0, below 1 - delta the upper bound, and the rest keep their value (delta =
    sqrt(relative gap), kept in [1e-8, 1e-3]); primal-dual active-set iterations
    (:func:`.active_set.polish_active_set`) then solve the problem on those sets exactly, and the
    answer is accepted only through its own duality-gap certificate. Unlike coordinate ascent's
    polishing it sets no limit on how much one iteration may move (``change_fraction``): the
    iterate does not identify the coordinates the signs hold at zero, so the first iteration moves
    many, and this last attempt is bounded by its budget and the check against cycles instead.
    (With the limit, weighted sign-constrained runs on repeated rows with d > n gave up after one
    iteration; without it they certify in 4 or 5, see the tests.) On 400 rows of MNIST-5k
    (d = 784) at lam n = 0.01 and tol = 1e-9, where the interior-point method stalled at relative
    gaps of 1.1e-9 to 3.6e-8, one iteration certified 3e-15 to 7e-14 (for any delta from 1e-7 to
    1e-3). Returns (alpha, certificate, stats) or None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert import signsvm
    >>> rng = np.random.default_rng(5)
    >>> X = rng.standard_normal((120, 300)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> res = signsvm.interior_point(X, y, 1.0 / 120, tol=1e-10, max_iter=8)   # capped short of 1e-10
    >>> bool(res.converged and res.gap <= 1e-10 * res.primal), res.history["crossover"]["outcome"]
    (True, 'certified')
    """
    from .active_set import polish_active_set

    n = Z.shape[0]
    rel = cert.gap / max(cert.primal, np.finfo(float).tiny)
    delta = min(1e-3, max(1e-8, float(np.sqrt(max(rel, 0.0)))))
    box = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    z = Z @ w
    a = np.array(alpha, dtype=float)
    a[z > 1.0 + delta] = 0.0
    a[z < 1.0 - delta] = box[z < 1.0 - delta]
    stats = {"delta": delta}
    out = polish_active_set(Z, lam, sign, a, Z.T @ a / (lam * n), tol, max_flops=max(CROSSOVER_FLOPS * unit_flops, CROSSOVER_MIN_FLOPS),
                            stats=stats, upper=weights, change_fraction=1.0)
    if out is None or not out[1].relative_gap_below(tol):
        return None
    return out[0], out[1], stats
