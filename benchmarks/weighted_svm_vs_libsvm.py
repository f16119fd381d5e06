"""``screening.fit_weighted_svm`` against libsvm on the weighted kernel SVM of Hanada et al.

Problem (``svmcert.screening.weighted_svm``): P_w(beta) = sum_i w_i max(0, 1 - y_i <phi(x_i), beta>)
+ lam/2 ||beta||^2, no intercept. Data: svmguide1 and australian scaled to [-1, 1] per feature
(``load_scaled``), RBF kernel ``svmcert.kernels.rbf_kernel`` (gamma = 1 / (d Var X)), weights
U(0.5, 1.5) / n from a keyed stream, lam = lam_n / n.

libsvm (``sklearn.svm.SVC``) solves min 1/2 ||beta||^2 + sum_i C_i xi_i with an intercept;
dividing P_w by lam gives C_i = w_i / lam (``C = 1/lam``, ``sample_weight = w``). The intercept is
removed by mirroring: the 2n points phi(x_i), -phi(x_i) (Gram [[K, -K], [-K, K]]) with labels
[y, -y] and weights w/2; by convexity of the hinge the mirrored objective is at least the original
one at every (beta, b), with equality at b = 0, so both problems have the same beta*. libsvm's beta
is read back from ``dual_coef_`` (beta = sum_i c_i phi(x_i), c = coef[:n] - coef[n:]) and its
primal value P_w(beta) (intercept dropped) is compared with our certified dual bound: its
relative accuracy (P_w(beta_libsvm) - D_w(alpha_ours)) / P_w bounds its error from above.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/weighted_svm_vs_libsvm.py
    .venv/bin/python benchmarks/weighted_svm_vs_libsvm.py --data australian --lam-n 0.01 --tol 1e-6 1e-9

Columns: data, n, lam_n, tol, ours_seconds, ours_rel_gap, ours_converged, ours_epochs,
libsvm_tol, libsvm_seconds, libsvm_rel_accuracy (CPU seconds; libsvm's time includes building the
mirrored Gram; both times are the best of ``--repeat`` calls). ``peers_libsvm.py`` is the newer
comparison (libsvm's tolerance searched until its objective matches ours, the regularised
intercept K + 1, the mirror built outside the timing); both use ``peers.kernel`` for libsvm.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from svmcert.experiments.sign_constrained.duality import load_scaled
from svmcert.experiments.instances import instance_rng
from svmcert.kernels import rbf_kernel
from svmcert.screening import weighted_svm as ws

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import kernel  # noqa: E402  (libsvm on the mirrored problem, shared with peers_libsvm.py)

COLUMNS = ("data", "n", "lam_n", "tol", "ours_seconds", "ours_rel_gap", "ours_converged", "ours_epochs",
           "libsvm_tol", "libsvm_seconds", "libsvm_rel_accuracy")


def problem(name):
    X, y = load_scaled(name)
    n = len(y)
    w = instance_rng(0, "weights", name).uniform(0.5, 1.5, n) / n
    return rbf_kernel(X), y, w


def libsvm(K, y, lam, w, tol):
    """SVC on the mirrored problem (``peers.kernel``); returns (CPU seconds including building the
    mirror, primal value of its beta without intercept)."""
    t = time.process_time()
    c, _, _ = kernel.libsvm_fit(kernel.mirror(K), y, lam, w, tol)
    seconds = time.process_time() - t
    return seconds, kernel.libsvm_primal(K, y, lam, w, c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["svmguide1", "australian"])
    ap.add_argument("--lam-n", nargs="+", type=float, default=[0.01, 1.0, 100.0])
    ap.add_argument("--tol", nargs="+", type=float, default=[1e-6, 1e-9], help="our relative-gap tolerances")
    ap.add_argument("--libsvm-tol", nargs="+", type=float, default=[1e-3, 1e-5])
    ap.add_argument("--options", default="", help="extra fit_weighted_svm keywords, e.g. \"check_psd=True\"")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many calls (the machine is shared)")
    args = ap.parse_args(argv)
    extra = eval(f"dict({args.options})")                       # a benchmark script's own command line
    print(",".join(COLUMNS), flush=True)
    with threadpool_limits(limits=1, user_api="blas"):
        Kw, yw, ww = problem("heart")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ws.fit_weighted_svm(Kw, yw, 1.0 / len(yw), ww, max_epochs=2)       # compile outside the timings
        for name in args.data:
            K, y, w = problem(name)
            n = len(y)
            for lam_n in args.lam_n:
                lam = lam_n / n
                lib = {}
                for t in args.libsvm_tol:
                    runs = [libsvm(K, y, lam, w, t) for _ in range(args.repeat)]
                    lib[t] = (min(r[0] for r in runs), runs[0][1])
                for tol in args.tol:
                    ours = np.inf
                    for _ in range(args.repeat):
                        t0 = time.process_time()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", ws.ConvergenceWarning)
                            res = ws.fit_weighted_svm(K, y, lam, w, tol=tol, **extra)
                        ours = min(ours, time.process_time() - t0)
                    for lt, (ls, lp) in lib.items():
                        vals = (name, n, lam_n, tol, ours, res.gap / res.primal, res.converged, res.n_iter, lt, ls,
                                (lp - res.dual) / lp)
                        print(",".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in vals), flush=True)


if __name__ == "__main__":
    main()
