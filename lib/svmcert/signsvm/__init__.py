"""Part I: the sign-constrained SVM of Tajima et al. (arXiv 2101.01473)."""

from .lp_step import lp_step
from .objectives import (
    dual_gradient,
    dual_objective,
    margins,
    primal_objective,
    project_sign,
    weights_from_dual,
)

__all__ = [
    "project_sign",
    "primal_objective",
    "dual_objective",
    "dual_gradient",
    "weights_from_dual",
    "margins",
    "lp_step",
]
