"""Part III: SVM feature elimination (Aksu, arXiv 1210.4460).

- :func:`solve_qp1` (eq. 6) by the specialised DRD active-set method or the literal Nocedal-Wright
  Algorithm 16.1, with the working set of every iteration recorded;
- :func:`check_working_set`: Theorem 1's conditions and Lemmas 3-4 for any working set;
- :func:`solve_lo`: LO (eq. 5), the hard-margin re-fit of MFE-LO, in closed form.
"""

from .active_set import drd_active_set, drd_direction
from .lo import LOResult, solve_lo
from .nocedal_wright import ICQPIteration, active_set_qp, qp1_nocedal_wright
from .qp1 import (QP1Iteration, QP1Result, best_bias, qp1_dual_objective, qp1_matrices, qp1_objective,
                  qp1_slacks, solve_qp1)
from .working_set import WorkingSetCheck, check_working_set, enumerate_working_sets, working_set_rows

__all__ = ["solve_qp1", "QP1Result", "QP1Iteration", "qp1_matrices", "qp1_objective", "qp1_dual_objective",
           "qp1_slacks", "best_bias", "drd_active_set", "drd_direction", "active_set_qp", "qp1_nocedal_wright",
           "ICQPIteration", "check_working_set", "WorkingSetCheck", "working_set_rows", "enumerate_working_sets",
           "solve_lo", "LOResult"]
