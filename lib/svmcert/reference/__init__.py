"""Ground-truth formulations (cvxpy, scipy) used only to check the library; never by its solvers.

Each reference recomputes what it needs from the problem data with its own code, so that a bug
in :mod:`svmcert.signsvm` cannot leak into the reference it is compared with.
"""

from .lp import dual_gradient_reference, solve_box_lp_cvxpy, solve_box_lp_linprog
from .signsvm import PrimalReference, solve_primal_cvxpy

__all__ = ["dual_gradient_reference", "solve_box_lp_cvxpy", "solve_box_lp_linprog", "PrimalReference",
           "solve_primal_cvxpy"]
