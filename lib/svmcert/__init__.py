"""svmcert: certified solvers and executable checks for three SVM-optimization papers.

Subpackages: :mod:`svmcert.signsvm` (Tajima et al.), :mod:`svmcert.screening` (Hanada et al.),
:mod:`svmcert.featelim` (Aksu); :mod:`svmcert.reference` holds the cvxpy/scipy ground truth.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("svmcert")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

from . import claims, signsvm  # noqa: E402

__all__ = ["__version__", "claims", "signsvm"]
