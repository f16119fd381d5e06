"""Part III: SVM feature elimination (Aksu, arXiv 1210.4460).

- :func:`solve_qp1` (eq. 6) by the specialised DRD active-set method or the literal Nocedal-Wright
  Algorithm 16.1, with the working set of every iteration recorded;
- :func:`check_working_set`: Theorem 1's conditions and Lemmas 3-4 for any working set;
- :func:`solve_lo`: LO (eq. 5), the hard-margin re-fit of MFE-LO, in closed form;
- :func:`radius_squared`: the data radius, from the enclosing-sphere dual (eq. 9) or the squared
  diameter ("ER"), and :func:`radius_squared_without_each_feature` for elimination sweeps;
- :func:`eliminate_features`: recursive elimination by MFE-LO, hBMFE-LO (sphere or ER) or
  QP1:lnm3-ER.
"""

from .drd_active_set import drd_active_set, drd_direction
from .elimination import (CRITERIA, EliminationResult, EliminationStep, candidate_projections, candidate_scores,
                          eliminate_features, fit_linear_svm, lo_scores)
from .lo import LOResult, linearly_separable, solve_lo
from .loo_bounds import l1svm_bound, loo_errors, radius_margin_bound
from .nocedal_wright import ICQPIteration, active_set_qp, qp1_nocedal_wright
from .qp1 import solve_qp1
from .qp1_problem import QP1Iteration, QP1Result, best_bias, qp1_dual_objective, qp1_matrices, qp1_objective, qp1_slacks
from .radius import (SphereResult, enclosing_sphere, jung_interval, radius_squared,
                     radius_squared_without_each_feature, squared_diameter)
from .working_set import WorkingSetCheck, check_working_set, enumerate_working_sets, working_set_rows

__all__ = ["solve_qp1", "QP1Result", "QP1Iteration", "qp1_matrices", "qp1_objective", "qp1_dual_objective",
           "qp1_slacks", "best_bias", "drd_active_set", "drd_direction", "active_set_qp", "qp1_nocedal_wright",
           "ICQPIteration", "check_working_set", "WorkingSetCheck", "working_set_rows", "enumerate_working_sets",
           "solve_lo", "LOResult", "linearly_separable", "radius_squared", "enclosing_sphere", "SphereResult", "squared_diameter",
           "radius_squared_without_each_feature", "jung_interval", "eliminate_features", "candidate_scores",
           "candidate_projections", "lo_scores", "fit_linear_svm", "EliminationResult", "EliminationStep", "CRITERIA",
           "radius_margin_bound", "l1svm_bound", "loo_errors"]
