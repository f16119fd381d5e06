"""``screening.fit_weighted_svm`` against libsvm on the weighted kernel SVM of Hanada et al.

Problem (``svmcert.screening.weighted_svm``): P_w(beta) = sum_i w_i max(0, 1 - y_i <phi(x_i), beta>)
+ lam/2 ||beta||^2 on the Gram matrix K + 1 (RBF, ``svmcert.kernels.rbf_kernel`` with its default
gamma, plus the constant feature 1: the intercept is regularised with beta, as in the screening
chapters), weights U(0.5, 1.5) / n from ``instance_rng(0, "benchmarks", "weights", n)``.

libsvm (``sklearn.svm.SVC(kernel="precomputed")``) minimises 1/2 ||beta||^2 + sum_i C s_i xi_i
with an *unregularised* intercept b that cannot be switched off. With C = 1/lam and sample weights
s_i its objective is P_w / lam when b = 0. Given K + 1 as is, libsvm would solve a different
problem (its free b on top of the regularised constant feature, optimum <= P*); that direct fit
is timed too (``libsvm_direct_*``: what a practitioner would run, shown for scale, not compared
on accuracy). For the comparison libsvm's b is removed by mirroring: the 2n points
phi(x_i), -phi(x_i) (Gram [[K, -K], [-K, K]]), labels [y, -y], weights w/2. The mirrored loss
of sample i is (w_i/2) [h(y_i f_i + y_i b) + h(y_i f_i - y_i b)] >= w_i h(y_i f_i) by convexity of
the hinge h, with equality at b = 0: the mirrored problem's minimum is P_w's, attained at the same
beta with b = 0. libsvm's beta is read back from ``dual_coef_`` (beta = sum_j c_j phi(x_j),
c = coef[:n] - coef[n:]), and P_w is evaluated there with the intercept dropped. The mirrored
Gram is built once outside the timings (its cost is reported as ``mirror_cpu``), as the Gram K
itself is for our side: both solvers are timed on their prepared input.

Accuracy: as in :mod:`.linear`: P* is the smallest primal value of our certified solves (one at
``ref_tol``, untimed, and the timed one at ``tol``); libsvm's ``tol`` is searched downwards until
P_w(beta_libsvm) <= P* (1 + rtol), and that setting is timed. libsvm's accuracy is also read
off against our certified dual bound D*: ``libsvm_rel_accuracy`` = (P_w(beta_libsvm) - D*) / P_w
bounds its relative error from above.
"""

from __future__ import annotations

import numpy as np

from .common import quiet, rel_excess, timed

__all__ = ["LIBSVM_TOLS", "weighted_problem", "mirror", "libsvm_fit", "libsvm_direct_fit", "libsvm_primal", "compare"]

LIBSVM_TOLS = tuple(10.0 ** -k for k in range(1, 10))


def weighted_problem(name="svmguide1", max_rows=None):
    """(K, y, w): ``datasets.load_scaled(name)``, the RBF Gram with the library's default gamma
    plus 1 (regularised intercept), weights U(0.5, 1.5)/n keyed by ("benchmarks", "weights", n)."""
    from svmcert import datasets
    from svmcert.experiments.instances import instance_rng
    from svmcert.kernels import rbf_kernel

    X, y = datasets.load_scaled(name, max_rows)
    n = len(y)
    w = instance_rng(0, "benchmarks", "weights", n).uniform(0.5, 1.5, n) / n
    return rbf_kernel(X) + 1.0, y, w


def libsvm_primal(K, y, lam, w, c):
    """P_w at beta = sum_j c_j phi(x_j)."""
    Kc = K @ c
    return float(w @ np.maximum(0.0, 1.0 - y * Kc)) + 0.5 * lam * float(c @ Kc)


def mirror(K):
    """The Gram matrix [[K, -K], [-K, K]] of the 2n points phi(x_i), -phi(x_i)."""
    return np.block([[K, -K], [-K, K]])


def libsvm_fit(K2, y, lam, w, tol, cache_size=2000):
    """SVC on the mirrored problem (``K2 = mirror(K)``): (c, intercept, iterations)."""
    from sklearn.svm import SVC

    n = len(y)
    svc = SVC(kernel="precomputed", C=1.0 / lam, tol=tol, cache_size=cache_size, max_iter=-1, shrinking=True)
    quiet(svc.fit, K2, np.r_[y, -y], sample_weight=np.r_[w, w] / 2)
    coef = np.zeros(2 * n)
    coef[svc.support_] = svc.dual_coef_[0]
    return coef[:n] - coef[n:], float(svc.intercept_[0]), int(np.max(svc.n_iter_))


def libsvm_direct_fit(K, y, lam, w, tol, cache_size=2000):
    """SVC on K as given (its own unregularised intercept on top): (c, intercept, iterations)."""
    from sklearn.svm import SVC

    n = len(y)
    svc = SVC(kernel="precomputed", C=1.0 / lam, tol=tol, cache_size=cache_size, max_iter=-1, shrinking=True)
    quiet(svc.fit, K, y, sample_weight=w)
    coef = np.zeros(n)
    coef[svc.support_] = svc.dual_coef_[0]
    return coef, float(svc.intercept_[0]), int(np.max(svc.n_iter_))


def compare(K, y, w, lam_n, *, data="", tol=1e-6, rtol=1e-6, ref_tol=1e-10, repeat=3, budget=20.0,
            selection="greedy"):
    """One row: ours (``fit_weighted_svm(..., tol, selection=selection)``, the greedy coordinate
    choice by default) vs libsvm at lam = lam_n / n, accuracy matched on P_w. ``ratio_cpu`` =
    libsvm CPU time / ours. The other selection is timed too (``other_cpu``, ``other_selection``)
    and the whole default call's validation of K (``check_psd="auto"``) is in every timing; the
    time with ``check_psd=False`` is ``ours_unchecked_cpu``."""
    from svmcert.screening import fit_weighted_svm

    n = len(y)
    lam = lam_n / n
    other = "cyclic" if selection == "greedy" else "greedy"
    ref = quiet(fit_weighted_svm, K, y, lam, w, tol=ref_tol, max_epochs=100000, selection=selection)
    ours_t = timed(lambda: fit_weighted_svm(K, y, lam, w, tol=tol, selection=selection), repeat, budget)
    other_t = timed(lambda: fit_weighted_svm(K, y, lam, w, tol=tol, selection=other), repeat, budget)
    unchecked_t = timed(lambda: fit_weighted_svm(K, y, lam, w, tol=tol, selection=selection, check_psd=False),
                        repeat, budget)
    res = ours_t.result
    if not (other_t.result.converged and unchecked_t.result.converged):
        raise RuntimeError(f"{data} lam_n={lam_n}: a timed variant did not certify tol={tol}")
    p_star, d_star = min(ref.primal, res.primal), max(ref.dual, res.dual)
    target = p_star * (1.0 + rtol)
    mirror_t = timed(lambda: mirror(K), 1, 0.0)
    K2 = mirror_t.result
    chosen, tried = LIBSVM_TOLS[-1], []
    for t in LIBSVM_TOLS:
        c, b, it = libsvm_fit(K2, y, lam, w, t)
        p = libsvm_primal(K, y, lam, w, c)
        tried.append(f"{t:g}:{rel_excess(p, p_star):.2g}")
        if p <= target:
            chosen = t
            break
    lib_t = timed(lambda: libsvm_fit(K2, y, lam, w, chosen), repeat, budget)
    del K2
    c, b, it = lib_t.result
    p_lib = libsvm_primal(K, y, lam, w, c)
    ours_reached = bool(res.converged and res.primal <= target)
    lib_reached = bool(p_lib <= target)
    direct_t = timed(lambda: libsvm_direct_fit(K, y, lam, w, chosen), repeat, budget)
    cd, bd, itd = direct_t.result
    Kcd = K @ cd
    p_direct = float(w @ np.maximum(0.0, 1.0 - y * (Kcd + bd))) + 0.5 * lam * float(cd @ Kcd)
    return {"data": data, "n": n, "lam_n": lam_n, "ours_selection": selection, "ours_cpu": ours_t.cpu,
            "ours_wall": ours_t.wall, "other_selection": other, "other_cpu": other_t.cpu,
            "ours_unchecked_cpu": unchecked_t.cpu,
            "ours_calls": ours_t.calls, "ours_epochs": res.n_iter, "ours_rel_gap": res.gap / res.primal,
            "ours_excess": rel_excess(res.primal, p_star), "ours_reached": ours_reached,
            "libsvm_tol": chosen, "libsvm_cpu": lib_t.cpu, "libsvm_wall": lib_t.wall, "libsvm_calls": lib_t.calls,
            "libsvm_iters": it, "libsvm_intercept": b, "libsvm_excess": rel_excess(p_lib, p_star),
            "libsvm_reached": lib_reached, "libsvm_rel_accuracy": (p_lib - d_star) / p_lib,
            "mirror_cpu": mirror_t.cpu, "libsvm_direct_cpu": direct_t.cpu, "libsvm_direct_iters": itd, "libsvm_direct_intercept": bd,
            "libsvm_direct_objective_rel": rel_excess(p_direct, p_star), "tols_tried": " ".join(tried), "p_star": p_star,
            "p_star_uncertainty": rel_excess(p_star, d_star), "ratio_cpu": lib_t.cpu / ours_t.cpu,
            "ratio_wall": lib_t.wall / ours_t.wall, "comparable": bool(ours_reached and lib_reached)}
