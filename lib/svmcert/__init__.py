"""svmcert: certified solvers and executable checks for three SVM-optimization papers.

Subpackages: :mod:`svmcert.signsvm` (Tajima et al.), :mod:`svmcert.screening` (Hanada et al.),
:mod:`svmcert.featelim` (Aksu); :mod:`svmcert.reference` holds the cvxpy/scipy ground truth.

``import svmcert`` imports none of them: each loads on first use (``svmcert.signsvm.solve(...)``
or ``from svmcert import signsvm``), so the book's command line and a chapter that only records
claims do not pay for numba, scikit-learn and scipy.stats (about two seconds per process).
"""

import importlib
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("svmcert")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["__version__", "claims", "signsvm"]

# the subpackages and modules ``svmcert.<name>`` reaches without an import statement of its own
_LAZY = frozenset({"book", "claims", "datasets", "exceptions", "experiments", "featelim", "kernels", "reference",
                   "screening", "signsvm"})


def __getattr__(name: str):
    """Import ``svmcert.<name>`` on first access (PEP 562); afterwards it is an ordinary attribute."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY)
