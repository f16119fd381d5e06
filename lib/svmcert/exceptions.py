"""The library's own exceptions and warnings, at the floor every subpackage stands on.

:class:`ConvergenceWarning` subclasses scikit-learn's, so the filters practitioners already write
(``warnings.filterwarnings("ignore", category=sklearn.exceptions.ConvergenceWarning)``) silence the
library's solvers too.
"""

from __future__ import annotations

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["ConvergenceWarning", "Float64RangeError"]


class ConvergenceWarning(_SklearnConvergenceWarning):
    """A solver stopped at its iteration or time limit before reaching the requested tolerance.

    Examples
    --------
    >>> import sklearn.exceptions
    >>> from svmcert.exceptions import ConvergenceWarning
    >>> issubclass(ConvergenceWarning, sklearn.exceptions.ConvergenceWarning)
    True
    """


class Float64RangeError(ValueError):
    """A result of valid input lies beyond the float64 range (a ValueError naming the arguments):
    callers that can do without the number, such as a screening rule that then refuses, catch it.

    Examples
    --------
    >>> from svmcert.exceptions import Float64RangeError
    >>> issubclass(Float64RangeError, ValueError)
    True
    """
