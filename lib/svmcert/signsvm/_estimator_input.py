"""The checks :class:`~svmcert.signsvm.SignConstrainedSVC` makes at its door, once per fit.

Each returns validated numbers or raises a ValueError whose message names the argument and says
what was expected (DESIGN.md, bad input); behind the door the solvers take the problems unchecked.
"""

from __future__ import annotations

import contextlib
import numbers
import re

import numpy as np

from .._validation import check_iterations, check_positive, check_real, check_weights
from .._validation import check_seed as check_seed_value

__all__ = ["check_label_kind", "naming_the_argument", "sample_weights", "class_weights", "problem_weights",
           "regularisation", "check_flag", "check_max_iter", "check_seed"]


def check_label_kind(y) -> None:
    """Reject complex labels and labels mixing strings with numbers, naming ``y``.

    scikit-learn's combined X, y validation reports a complex y without naming it (it would be
    blamed on X here), and a mix of kinds fails in sorting with a TypeError.
    """
    try:
        arr = np.asarray(y)
    except Exception:            # ragged or exotic input: left to scikit-learn's checks
        return
    if np.iscomplexobj(arr):
        # scikit-learn's wording (check_estimator matches on it), prefixed with the argument
        raise ValueError(f"y: Complex data not supported (complex labels, dtype {arr.dtype})")
    if arr.dtype == object and arr.size:
        kinds = {"string" if isinstance(v, str) else "number" if isinstance(v, numbers.Number) else
                 type(v).__name__ for v in arr.ravel()}
        if len(kinds) > 1:
            raise ValueError(f"y: expected labels of one kind, got a mix of {sorted(kinds)}")
        if "number" in kinds and any(isinstance(v, complex) for v in arr.ravel()):
            raise ValueError("y: Complex data not supported (complex labels)")


@contextlib.contextmanager
def naming_the_argument(default: str = "X"):
    """Make scikit-learn's input-validation errors name the argument (DESIGN.md, bad input).

    Messages that already name X or y pass unchanged; the others get a ``default:`` prefix
    (``y:`` for a length mismatch). The text after the prefix is scikit-learn's, so anything that
    matches on it (``check_estimator``) still matches.
    """
    try:
        yield
    except ValueError as exc:
        msg = str(exc)
        if re.search(r"(^|\W)[Xy](\W|$)", msg):
            raise
        name = "y" if "inconsistent numbers of samples" in msg else default
        raise ValueError(f"{name}: {msg}") from exc


def check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, got {value!r}")
    return bool(value)


def check_seed(value) -> int:
    """The seed of the coordinate order: an integer >= 0 (numpy integers accepted)."""
    return check_seed_value(value, "random_state")


def check_max_iter(value) -> int | None:
    """None (each solver's own default budget) or an integer >= 1."""
    return None if value is None else check_iterations(value, "max_iter")


def sample_weights(sample_weight, n: int) -> np.ndarray | None:
    """None, or the weights as a float vector of length n: finite, >= 0, one of them > 0.

    A single number stands for that weight on every sample (as in scikit-learn)."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, (bool, np.bool_)):
        sample_weight = np.full(n, float(sample_weight))
    return check_weights(sample_weight, n, "sample_weight")


def class_weights(class_weight, classes: np.ndarray, y: np.ndarray, sw: np.ndarray | None) -> np.ndarray | None:
    """One weight per class of ``classes`` (in its order), or None for ``class_weight=None``.

    ``"balanced"``: n_samples / (n_classes * count of the class), with the counts weighted by
    ``sw`` when given (scikit-learn's :func:`~sklearn.utils.class_weight.compute_class_weight`).
    A dict maps classes to weights >= 0; classes it leaves out weigh 1; a key that is no class
    of ``y`` is an error (a typo would otherwise be ignored silently).
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight: expected None, 'balanced' or a dict {{class: weight}}, "
                             f"got {class_weight!r}")
        weighted = np.ones(y.shape[0]) if sw is None else sw
        counts = np.array([weighted[y == c].sum() for c in classes])
        if np.any(counts <= 0):
            empty = classes[counts <= 0].tolist()
            raise ValueError(f"class_weight='balanced': classes {empty} have zero total sample_weight")
        return counts.sum() / (classes.size * counts)
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight: expected None, 'balanced' or a dict {{class: weight}}, "
                         f"got {type(class_weight).__name__}")
    index = {c: k for k, c in enumerate(classes.tolist())}
    unknown = [key for key in class_weight if key not in index]
    if unknown:
        raise ValueError(f"class_weight: keys {unknown!r} are not classes of y (classes: {classes.tolist()!r})")
    weights = np.ones(classes.size)
    for key, value in class_weight.items():
        v = check_real(value, f"class_weight[{key!r}]")
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"class_weight[{key!r}]: expected a finite weight >= 0, got {value!r}")
        weights[index[key]] = v
    return weights


def problem_weights(codes: np.ndarray, k: int | None, sw: np.ndarray | None, cw: np.ndarray | None):
    """Per-sample weights s_i of one binary problem, or None when every s_i is 1.

    ``codes`` gives each sample's class index. Binary (``k=None``): s_i = sw_i cw[class of i].
    One-vs-rest for class k: s_i = sw_i cw[k] for the samples of class k and sw_i for the rest,
    LIBLINEAR's rule, which ``LinearSVC`` follows (the rest are one class, whose weight is 1).
    """
    if cw is None:
        return sw
    if k is None:
        scale = cw[codes]
    else:
        scale = np.where(codes == k, cw[k], 1.0)
    return scale if sw is None else sw * scale


def regularisation(lam, C, n: int) -> float:
    """The paper's lambda: ``lam`` if given, else 1 / (C n) (scikit-learn's C)."""
    if lam is not None:
        return check_positive(lam, "lam")
    with np.errstate(over="ignore", divide="ignore"):
        lam = 1.0 / (check_positive(C, "C") * n)
    if not (np.isfinite(lam) and lam > 0.0):
        raise ValueError(f"C: expected a value whose lambda = 1 / (C n) is a finite positive float64 (n = {n}), got "
                         f"C = {C!r} (lambda = {lam!r})")
    return lam
