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

from .frank_wolfe import frank_wolfe  # noqa: E402
from ..exceptions import ConvergenceWarning  # noqa: E402
from .result import SolverResult  # noqa: E402
from .line_search import LineSearch, line_search, line_search_pieces_quadratic  # noqa: E402

__all__ += ["line_search", "line_search_pieces_quadratic", "LineSearch", "frank_wolfe", "SolverResult",
            "ConvergenceWarning"]
from .coordinate_ascent import dual_coordinate_ascent  # noqa: E402
from .estimator import SignConstrainedSVC  # noqa: E402
from .interior_point import interior_point  # noqa: E402
from .solve import SOLVERS, solve  # noqa: E402
from .bound_start import lambda_max  # noqa: E402

__all__ += ["dual_coordinate_ascent", "interior_point", "solve", "SOLVERS", "SignConstrainedSVC", "lambda_max"]
from .bounds import curvature_bound, frank_wolfe_iteration_bound  # noqa: E402
from .projected_gradient import project_ball, project_ball_sign, projected_gradient  # noqa: E402

__all__ += ["projected_gradient", "project_ball", "project_ball_sign", "curvature_bound",
            "frank_wolfe_iteration_bound"]
