"""Sign-constraint patterns shared by the experiments of Part I."""

from __future__ import annotations

import numpy as np

__all__ = ["SIGN_PATTERNS", "sign_vector"]

SIGN_PATTERNS = ("free", "all >= 0", "all <= 0", "correlation", "anti-correlation", "mixed")


def sign_vector(pattern: str, X, y, rng: np.random.Generator) -> np.ndarray:
    """Sign constraints for a pattern.

    ``correlation``: w_h must have the sign of the correlation of feature h with the label (the
    paper's use case); ``anti-correlation``: the opposite sign (constraints that fight the data);
    ``mixed`` (alias ``random``): random entries in {-1, 0, +1}. Features with zero correlation
    stay free.
    """
    d = X.shape[1]
    if pattern == "free":
        return np.zeros(d)
    if pattern == "all >= 0":
        return np.ones(d)
    if pattern == "all <= 0":
        return -np.ones(d)
    if pattern in ("correlation", "anti-correlation"):
        c = np.sign((X - X.mean(axis=0)).T @ (y - y.mean()))
        return c if pattern == "correlation" else -c
    if pattern in ("mixed", "random"):
        return rng.choice([-1.0, 0.0, 1.0], size=d)
    raise ValueError(f"pattern: expected one of {SIGN_PATTERNS}, got {pattern!r}")
