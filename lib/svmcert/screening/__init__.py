"""Part II: distributionally robust safe sample screening (Hanada et al., arXiv 2406.05964).

- :mod:`.weighted_svm`: weighted regularised ERM in kernel form and its certified solver
  (Definition 2.1, eqs. 1-7, Lemma B.2, Table 5).
- :mod:`.gap_safe`: the gap-safe ball and per-weight screening (Lemmas 3.1-3.2).
- :mod:`.quadratic_ball`: maximising a convex quadratic over a ball (Theorem 4.1 / D.2, Lemma D.4).
- :mod:`.drsss`: screening for a whole ball of weights (Theorem 3.5, eqs. 8-11, Sec. 4.2).
- :mod:`.weighted_linear`: the weighted SVM on explicit features (a linear kernel), O(n d) epochs.
- :mod:`.certified`: DRSSS at the exact optimum (one eigenvalue, R = S sqrt(lambda_max(M)) / lam),
  every decision certified from the fit's gap.
"""

from .certified import OptimumScreening, optimum_screening
from .drsss import DRSSSResult, drsss, drsss_screen, gap_quadratic
from .gap_safe import MarginInterval, gap_safe_radius, margin_interval, sss_screen
from .quadratic_ball import BallMaximum, maximize_quadratic_on_ball, secular_roots
from .weighted_linear import LinearWeightedSVM, fit_weighted_linear
from .weighted_svm import WeightedSVM, fit_weighted_svm

__all__ = ["maximize_quadratic_on_ball", "BallMaximum", "secular_roots", "gap_safe_radius", "margin_interval",
           "MarginInterval", "sss_screen", "fit_weighted_svm", "WeightedSVM", "drsss", "drsss_screen",
           "DRSSSResult", "gap_quadratic", "fit_weighted_linear", "LinearWeightedSVM", "optimum_screening",
           "OptimumScreening"]
