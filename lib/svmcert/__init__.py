"""svmcert: certified solvers and executable checks for three SVM-optimization papers.

Subpackages: :mod:`svmcert.signsvm` (Tajima et al.), :mod:`svmcert.screening` (Hanada et al.),
:mod:`svmcert.featelim` (Aksu); :mod:`svmcert.reference` holds the cvxpy/scipy ground truth.

``import svmcert`` imports none of them: each loads on first use (``svmcert.signsvm.solve(...)``
or ``from svmcert import signsvm``), so the book's command line and a chapter that only records
claims do not pay for numba, scikit-learn and scipy.stats (about two seconds per process).
"""

import importlib
import pkgutil
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("svmcert")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["__version__", "claims", "signsvm"]

# the public subpackages and modules (every name under svmcert/ without a leading underscore), which
# ``svmcert.<name>`` reaches without an import statement of its own; read from the folder, so a new one
# needs no entry here
_LAZY = frozenset(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def __getattr__(name: str):
    """Import ``svmcert.<name>`` on first access (PEP 562); afterwards it is an ordinary attribute."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """The module's own names and every subpackage it can load."""
    return sorted(set(globals()) | _LAZY)
