"""Chapter "The closed-form direction-finding step" (Tajima et al., eqs. 13-14, 30).

Instance families, the comparison of :func:`svmcert.signsvm.lp_step` with general-purpose LP
solvers, the finite-difference check of the dual gradient, and the timing sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import signsvm
from ...reference import dual_gradient_reference, solve_box_lp_cvxpy, solve_box_lp_linprog
from ..patterns import sign_vector
from ..timing import best_time

__all__ = [
    "optimal_face_dimension",
    "unique_lp_solutions",
    "LPInstance",
    "random_instances",
    "tie_instances",
    "data_instances",
    "compare_with_lp_solvers",
    "gradient_fd_check",
    "time_direction_finding",
]

SIGN_PATTERNS = ("free", "all >= 0", "all <= 0", "mixed")
ALPHA_KINDS = ("zero", "ones", "vertex", "interior", "sparse")


@dataclass
class LPInstance:
    """One direction-finding problem: data, lambda, sign vector, the point alpha, and a label."""

    family: str
    X: np.ndarray
    y: np.ndarray
    lam: float
    sign: np.ndarray
    alpha: np.ndarray
    sign_pattern: str
    alpha_kind: str

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


def _alpha(rng, n: int, kind: str) -> np.ndarray:
    if kind == "zero":
        return np.zeros(n)
    if kind == "ones":
        return np.ones(n)
    if kind == "vertex":
        return rng.integers(0, 2, size=n).astype(float)
    if kind == "sparse":
        a = np.zeros(n)
        k = max(1, n // 10)
        a[rng.choice(n, size=k, replace=False)] = rng.uniform(0, 1, size=k)
        return a
    return rng.uniform(0.0, 1.0, size=n)


def random_instances(seed: int, count: int, purpose: str = "random") -> list[LPInstance]:
    """Gaussian data over sizes n in [1, 80], d in [1, 60], feature scales 1e-3..1e3,
    lambda in [1e-4, 1e2], every sign pattern and alpha kind (cycled so each appears); instance k
    from the stream keyed ``("lp-step", purpose, k)``."""
    from ..instances import instance_rng

    out = []
    for k in range(count):
        rng = instance_rng(seed, "lp-step", purpose, k)
        n, d = int(rng.integers(1, 81)), int(rng.integers(1, 61))
        scale = float(10.0 ** rng.choice([-3, -1, 0, 1, 3]))
        X = scale * rng.standard_normal((n, d))
        if k % 7 == 3:  # zero-variance features and duplicated rows
            X[:, rng.integers(0, d)] = 0.0
            X[-1] = X[0]
        y = rng.choice([-1.0, 1.0], size=n)
        if k % 11 == 5:  # one class only
            y[:] = 1.0
        lam = float(10.0 ** rng.uniform(-4, 2))
        pattern = SIGN_PATTERNS[k % len(SIGN_PATTERNS)]
        kind = ALPHA_KINDS[(k // len(SIGN_PATTERNS)) % len(ALPHA_KINDS)]
        out.append(LPInstance("random", X, y, lam, sign_vector(pattern, X, y, rng), _alpha(rng, n, kind), pattern, kind))
    return out


def tie_instances(seed: int, count: int) -> list[LPInstance]:
    """Integer data in {-1, 0, 1}, n a power of two and lambda = 1/n, alpha a cube vertex: then
    w(alpha) and every margin z_i are integers computed exactly, so z_i = 1 happens exactly.
    Instance k from the stream keyed ``("lp-step", "ties", k)``."""
    from ..instances import instance_rng

    out = []
    for k in range(count):
        rng = instance_rng(seed, "lp-step", "ties", k)
        n = int(2 ** rng.integers(0, 7))
        d = int(rng.integers(1, 9))
        X = rng.integers(-1, 2, size=(n, d)).astype(float)
        y = rng.choice([-1.0, 1.0], size=n)
        pattern = SIGN_PATTERNS[k % len(SIGN_PATTERNS)]
        out.append(LPInstance("exact ties", X, y, 1.0 / n, sign_vector(pattern, X, y, rng),
                              rng.integers(0, 2, size=n).astype(float), pattern, "vertex"))
    return out


def data_instances(seed: int, name: str, X, y, lams, count_per_lam: int) -> list[LPInstance]:
    """Real data with several lambdas, sign patterns and alpha kinds; instance (lam, k) from the
    stream keyed ``("lp-step", "data", name, lam, k)``."""
    from ..instances import instance_rng

    X, y = np.asarray(X, float), np.asarray(y, float)
    out = []
    for lam in lams:
        for k in range(count_per_lam):
            rng = instance_rng(seed, "lp-step", "data", name, float(lam), k)
            pattern = SIGN_PATTERNS[k % len(SIGN_PATTERNS)]
            kind = ALPHA_KINDS[k % len(ALPHA_KINDS)]
            out.append(LPInstance(name, X, y, float(lam), sign_vector(pattern, X, y, rng),
                                  _alpha(rng, X.shape[0], kind), pattern, kind))
    return out


def compare_with_lp_solvers(instances, solvers=("linprog", "cvxpy"), progress: bool = False):
    """For each instance: the closed form's LP value against HiGHS and Clarabel.

    The LP's objective vector is the gradient computed by :func:`dual_gradient_reference`
    (independent code). Reported per solver: ``gap_<solver>`` = (solver value - closed-form value)
    / ||g||_1, positive when the solver found a better point than the closed form.
    """
    import pandas as pd

    rows = []
    iterator = instances
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(instances, desc="LP instances", leave=False)
    for inst in iterator:
        u = signsvm.lp_step(inst.alpha, inst.X, inst.y, inst.lam, inst.sign)
        g = dual_gradient_reference(inst.alpha, inst.X, inst.y, inst.lam, inst.sign)
        z = inst.y * (inst.X @ signsvm.weights_from_dual(inst.alpha, inst.X, inst.y, inst.lam, inst.sign))
        scale = max(float(np.abs(g).sum()), np.finfo(float).tiny)
        row = {
            "family": inst.family, "n": inst.n, "d": inst.d, "lam": inst.lam,
            "sign_pattern": inst.sign_pattern, "alpha_kind": inst.alpha_kind,
            "ties": int(np.count_nonzero(z == 1.0)),
            "binary": bool(np.all((u == 0.0) | (u == 1.0))),
            "value_closed_form": float(g @ u),
        }
        for solver in solvers:
            sol = solve_box_lp_linprog(g) if solver == "linprog" else solve_box_lp_cvxpy(g)
            row[f"value_{solver}"] = sol.value
            row[f"gap_{solver}"] = (sol.value - row["value_closed_form"]) / scale
        rows.append(row)
    return pd.DataFrame(rows)


def gradient_fd_check(instances, h: float = 1e-6):
    """Eq. (30) against central differences of D at interior points of the cube.

    D has a Lipschitz gradient with constant L = ||X||_2^2 / (lam n^2) (the projection onto S is
    1-Lipschitz), so the central difference differs from the gradient by at most L h / 2; float
    rounding adds at most about 4 eps max|D| / h. Returns per instance the largest error divided by
    that bound: a value <= 1 means eq. (30) is consistent with D.
    """
    import pandas as pd

    rows = []
    eps = np.finfo(float).eps
    for inst in instances:
        a = np.clip(inst.alpha, 2 * h, 1 - 2 * h)
        g = signsvm.dual_gradient(a, inst.X, inst.y, inst.lam, inst.sign)
        n = inst.n
        L = float(np.linalg.norm(inst.X, 2) ** 2) / (inst.lam * n * n)
        errs, scale = [], 0.0
        for i in range(n):
            e = np.zeros(n)
            e[i] = h
            fp = signsvm.dual_objective(a + e, inst.X, inst.y, inst.lam, inst.sign)
            fm = signsvm.dual_objective(a - e, inst.X, inst.y, inst.lam, inst.sign)
            scale = max(scale, abs(fp), abs(fm))
            errs.append(abs((fp - fm) / (2 * h) - g[i]))
        bound = L * h / 2 + 4 * eps * max(scale, 1.0) / h
        rows.append({"family": inst.family, "n": n, "d": inst.d, "max_error": max(errs), "bound": bound,
                     "error_over_bound": max(errs) / bound})
    return pd.DataFrame(rows)


def time_direction_finding(seed: int, sizes, d: int, repeat: int = 3):
    """Seconds per direction-finding step as n grows: closed form vs general-purpose LP solvers.

    Every method starts from the data (X, y, alpha); the LP solvers also need the gradient, whose
    O(nd) cost is included in their time.
    """
    import pandas as pd

    from ..instances import instance_rng

    rows = []
    for n in sizes:
        rng = instance_rng(seed, "lp-step", "timing", n, d)
        X = rng.standard_normal((n, d)) / np.sqrt(d)
        y = rng.choice([-1.0, 1.0], size=n)
        alpha = rng.uniform(0, 1, size=n)
        sign = rng.choice([-1.0, 0.0, 1.0], size=d)
        lam = 1.0 / n

        def grad():
            return dual_gradient_reference(alpha, X, y, lam, sign)

        row = {"n": n, "d": d}
        row["closed_form_s"] = best_time(lambda: signsvm.lp_step(alpha, X, y, lam, sign), repeat=repeat, min_seconds=0.05)
        row["highs_simplex_s"] = best_time(lambda: solve_box_lp_linprog(grad()), repeat=repeat)
        row["highs_ipm_no_presolve_s"] = best_time(
            lambda: solve_box_lp_linprog(grad(), method="highs-ipm", presolve=False), repeat=repeat)
        row["cvxpy_clarabel_s"] = best_time(lambda: solve_box_lp_cvxpy(grad()), repeat=repeat)
        rows.append(row)
    df = pd.DataFrame(rows)
    for col in ("highs_simplex_s", "highs_ipm_no_presolve_s", "cvxpy_clarabel_s"):
        df[col[:-2] + "_ratio"] = df[col] / df["closed_form_s"]
    return df


def printed_errata() -> list[dict]:
    """Three statements of the paper as printed, each evaluated on its smallest instance.

    Returns records (for :func:`svmcert.claims.record` with ``expect="fails"``): the observed
    shortfall, the reference value 0 it should equal, and the instance.
    """
    # n = d = 1, x = 1, y = +1, lam = 1, alpha = 0: w(alpha) = 0, z = 0 < 1, gradient g = 1.
    X, y, lam, alpha = np.array([[1.0]]), np.array([1.0]), 1.0, np.array([0.0])
    g = dual_gradient_reference(alpha, X, y, lam)
    best = solve_box_lp_linprog(g).value                       # max <g, u> over the cube
    u14 = signsvm.lp_step(alpha, X, y, lam)
    worst = -solve_box_lp_linprog(-g).value                    # min <g, u>, as (13) is printed
    z = y * (X @ signsvm.weights_from_dual(alpha, X, y, lam))
    u_list = (1.0 <= z).astype(float)                          # the cost summary's rule
    instance = {"X": [[1.0]], "y": [1.0], "lam": 1.0, "alpha": [0.0], "sign": [0.0]}
    out = [
        {"id": "signsvm.eq13.min_as_printed", "source": "eq. (13)",
         "statement": "The closed form (14) solves subproblem (13) as printed, i.e. it minimises <grad D, u> over the cube.",
         "observed": float(g @ u14 - worst), "reference": 0.0, "reference_source": "scipy linprog/HiGHS (minimisation)",
         "counterexample": instance},
        {"id": "signsvm.cost_summary.indicator_as_printed", "source": "Sec. 6.1, cost summary",
         "statement": "The rule u_i = 1(1 <= z_i) of the cost summary maximises <grad D, u> over the cube.",
         "observed": float(best - g @ u_list), "reference": 0.0, "reference_source": "scipy linprog/HiGHS",
         "counterexample": instance},
    ]
    # n = d = 1, x = 1, y = -1, lam = 1, alpha = 1/2: eq. (30) read with the raw input x_i.
    X, y, lam, alpha = np.array([[1.0]]), np.array([-1.0]), 1.0, np.array([0.5])
    w = signsvm.weights_from_dual(alpha, X, y, lam)
    literal = (1.0 - X @ w) / X.shape[0]
    h = 1e-6
    fd = (signsvm.dual_objective(alpha + h, X, y, lam) - signsvm.dual_objective(alpha - h, X, y, lam)) / (2 * h)
    out.append({"id": "signsvm.eq30.raw_input", "source": "eq. (30)",
                "statement": "The dual gradient is (1 - <w(alpha), x_i>)/n with x_i the i-th input (label not folded in).",
                "observed": float(abs(literal[0] - fd)), "reference": 0.0,
                "reference_source": "central difference of D (h = 1e-6)",
                "counterexample": {"X": [[1.0]], "y": [-1.0], "lam": 1.0, "alpha": [0.5], "sign": [0.0]}})
    return out


def tie_gradients(instances) -> tuple[float, int]:
    """Largest |g_i| (reference gradient) over coordinates where the library finds z_i = 1,
    and how many such coordinates there were."""
    worst, count = 0.0, 0
    for inst in instances:
        w = signsvm.weights_from_dual(inst.alpha, inst.X, inst.y, inst.lam, inst.sign)
        ties = inst.y * (inst.X @ w) == 1.0
        if ties.any():
            g = dual_gradient_reference(inst.alpha, inst.X, inst.y, inst.lam, inst.sign)
            worst = max(worst, float(np.abs(g[ties]).max()))
            count += int(ties.sum())
    return worst, count


def optimal_face_dimension(g, tol: float = 1e-9) -> int:
    """How many coordinates are free on the set of optimal solutions of max <g, u> over the cube:
    the optimum by HiGHS, then for each i the smallest and largest u_i with <g, u> >= optimum - tol,
    again by HiGHS. 0 means the optimal solution is unique."""
    from scipy.optimize import linprog

    g = np.asarray(g, dtype=float)
    n = g.size
    best = solve_box_lp_linprog(g).value
    free = 0
    for i in range(n):
        ends = []
        for sense in (1.0, -1.0):
            c = np.zeros(n)
            c[i] = sense
            out = linprog(c, A_ub=-g[None, :], b_ub=[-(best - tol)], bounds=[(0.0, 1.0)] * n, method="highs")
            ends.append(sense * out.fun)
        free += int(ends[1] - ends[0] > 1e-7)
    return free


def unique_lp_solutions(instances) -> tuple[int, int]:
    """(instances whose direction-finding LP has a unique solution, instances): unique exactly when
    no coefficient g_i of the reference gradient is zero."""
    unique = 0
    for inst in instances:
        g = dual_gradient_reference(inst.alpha, inst.X, inst.y, inst.lam, inst.sign)
        unique += int(np.all(g != 0.0))
    return unique, len(instances)
