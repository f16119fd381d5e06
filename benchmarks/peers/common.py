"""Shared pieces of the peer benchmarks: timing, provenance, problems, CSV output."""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import os
import platform
import subprocess
import time
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

__all__ = ["RESULTS", "Timing", "timed", "provenance", "write_csv", "problem", "sign_pattern", "DATA",
           "LAM_NS", "warm_up", "quiet", "rel_excess"]

RESULTS = Path(__file__).resolve().parents[1] / "results"
DATA = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice", "svmguide1", "mnist5k")
LAM_NS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)
PACKAGES = ("svmcert", "numpy", "scipy", "scikit-learn", "numba", "rehline", "cvxpy", "clarabel", "benchopt",
            "threadpoolctl")


@dataclass
class Timing:
    """Best CPU seconds (``time.process_time``) and best wall seconds over ``calls`` calls, and the
    result of the last call."""

    cpu: float
    wall: float
    calls: int
    result: object


def timed(fn, repeat: int = 3, budget: float = 10.0, min_seconds: float = 0.05, max_calls: int = 50) -> Timing:
    """Call ``fn()`` ``repeat`` times (fewer once the calls have used ``budget`` CPU seconds, more,
    up to ``max_calls``, until ``min_seconds`` were spent, so that millisecond calls are timed many
    times) and keep the best CPU and the best wall time. Warnings inside ``fn`` are silenced."""
    best_cpu = best_wall = np.inf
    spent, calls, out = 0.0, 0, None
    while True:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            c1, w1 = time.process_time(), time.perf_counter()
        best_cpu, best_wall = min(best_cpu, c1 - c0), min(best_wall, w1 - w0)
        spent, calls = spent + (c1 - c0), calls + 1
        if calls >= max_calls or (spent >= min_seconds and (calls >= repeat or spent >= budget)):
            return Timing(float(best_cpu), float(best_wall), calls, out)


@contextlib.contextmanager
def constant_set_to(module, name: str, value):
    """The library constant ``module.<name>`` set to ``value`` inside the ``with`` block and
    restored afterwards, also on an error (the rule scripts' ablations: the constant is read when
    a call runs)."""
    kept = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, kept)


def timed_with_constant(module, name: str, value, fn, **timed_options) -> Timing:
    """:func:`timed` of ``fn`` with ``module.<name>`` set to ``value`` (:func:`constant_set_to`)."""
    with constant_set_to(module, name, value):
        return timed(fn, **timed_options)


def quiet(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with warnings silenced (solvers warn when they stop at a cap; the
    benchmarks check convergence themselves)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str:
    """HEAD's short hash, with "+dirty" when the library or the benchmark code differs from it
    (uncommitted changes under ``lib/`` or ``benchmarks/``, the results themselves excepted): the
    measured code is then not the commit's."""
    here = Path(__file__).parent

    def git(*args):
        return subprocess.run(["git", *args], cwd=here, text=True, capture_output=True, check=True).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        top = git("rev-parse", "--show-toplevel")
        changed = git("-C", top, "status", "--porcelain", "--untracked-files=no", "--", "lib", "benchmarks",
                      ":(exclude)benchmarks/results")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if changed else "")


def provenance() -> dict:
    """Machine, versions (``importlib.metadata``), date and BLAS threads of this run: the columns
    every result row carries."""
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=absent")
    try:
        from threadpoolctl import threadpool_info

        blas = ";".join(f"{i.get('internal_api')}:{i.get('num_threads')}:{i.get('architecture', '')}"
                        for i in threadpool_info() if i.get("user_api") == "blas")
    except Exception:  # pragma: no cover
        blas = "unknown"
    return {"date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": f"{platform.machine()} {_cpu_model()}, {os.cpu_count()} cores, "
                       f"Python {platform.python_version()}",
            "versions": " ".join(versions), "blas": blas, "commit": _git_commit()}


def write_csv(rows, path, columns=None) -> Path:
    """Write ``rows`` (dicts) with the provenance columns appended; returns the path. The columns
    are ``columns``, or every key of the rows in the order first seen (rows may differ: a cell
    without a budget has no budget columns). The file is written to a temporary name and renamed,
    so a failed run leaves the previous file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prov = provenance()
    columns = list(columns or dict.fromkeys(k for row in rows for k in row))
    columns += [k for k in prov if k not in columns]
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        out.writeheader()
        for row in rows:
            out.writerow({**prov, **{k: _fmt(v) for k, v in row.items()}})
    tmp.replace(path)
    return path


def _fmt(v):
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def problem(name: str):
    """(X, y) as Part I prepares them: ``svmcert.datasets.load_scaled`` (features divided by
    their largest |x|; MNIST-5k odd/even with unit rows)."""
    from svmcert import datasets

    return datasets.load_scaled(name)


def sign_pattern(pattern: str, data: str, d: int) -> np.ndarray:
    """``free`` (all 0), ``nonneg`` (all +1) or ``mixed`` (random entries in {-1, 0, +1} from the
    keyed stream ``instance_rng(0, "sign", data, "mixed")``, the pattern of
    ``benchmarks/convergence_grid.py``)."""
    from svmcert.experiments.instances import instance_rng

    if pattern == "free":
        return np.zeros(d)
    if pattern == "nonneg":
        return np.ones(d)
    if pattern == "mixed":
        return instance_rng(0, "sign", data, "mixed").choice([-1.0, 0.0, 1.0], size=d)
    raise ValueError(f"pattern: expected 'free', 'nonneg' or 'mixed', got {pattern!r}")


def rel_excess(value: float, reference: float) -> float:
    """(value - reference) / |reference|."""
    return (value - reference) / max(abs(reference), np.finfo(float).tiny)


def warm_up():
    """Compile the numba kernels (coordinate ascent with and without signs, the interior-point
    path, the weighted kernel SVM) outside every timed call."""
    from svmcert import signsvm
    from svmcert.screening import fit_weighted_svm

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 5)), np.tile([1.0, -1.0], 20)
    for sign in (np.zeros(5), np.array([1.0, -1, 0, 0, 1])):
        for solver in ("dual-coordinate", "interior-point", "auto"):
            quiet(signsvm.solve, X, y, 0.1, sign, solver=solver)
    quiet(fit_weighted_svm, X @ X.T + 1, y, 1.0, np.ones(40) / 40)


def sweep_cells(shapes, ratios, patterns, measure, repeat: int, path, describe) -> list:
    """The cells of a rule's out-of-sample test, one process, BLAS on one thread: ``measure(n, d,
    density, ratio, pattern, repeat)`` for every shape (n, d, density), ratio and sign pattern, each
    row printed by ``describe(row)`` and the file at ``path`` rewritten after it (a long run keeps
    what it measured). A cell whose ``measure`` returns None is reported and left out."""
    from threadpoolctl import threadpool_limits

    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        warm_up()
        for n, d, density in shapes:
            for ratio in ratios:
                for pattern in patterns:
                    row = measure(n, d, density, ratio, pattern, repeat)
                    if row is None:
                        print(f"{n} x {d} at {density:g}, {pattern}, ratio {ratio:g}: skipped", flush=True)
                        continue
                    rows.append(row)
                    print(describe(row), flush=True)
                    write_csv(rows, path)
    return rows


def sweep_main(argv, description: str, csv_name: str, cells, measure, describe, report) -> int:
    """The command line of a rule's out-of-sample test: ``--repeat`` (timings per run, 2) and
    ``--csv`` (``results/<csv_name>``), then :func:`sweep_cells` over ``cells`` = (shapes,
    ratios, patterns) and ``report(rows)`` on what it measured."""
    import argparse

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--csv", default=str(RESULTS / csv_name))
    args = ap.parse_args(argv)
    report(sweep_cells(*cells, measure, args.repeat, args.csv, describe))
    return 0


def choice_summary(chosen, if_chosen, otherwise) -> dict:
    """A rule that picks, cell by cell, one of two timed plans: its time (``if_chosen`` where
    ``chosen``, else ``otherwise``) over the faster of the two, as a geometric mean over the cells
    and at worst, the total seconds of the picks and the cells picked.

    Examples
    --------
    >>> s = choice_summary([True, False], [1.0, 4.0], [2.0, 2.0])
    >>> s["cells"], s["chosen"], s["gm"], s["max"], s["seconds"]
    (2, 1, 1.0, 1.0, 3.0)
    """
    chosen = np.asarray(chosen, dtype=bool)
    a, b = np.asarray(if_chosen, dtype=float), np.asarray(otherwise, dtype=float)
    t = np.where(chosen, a, b)
    ratio = t / np.minimum(a, b)
    return {"cells": len(t), "chosen": int(chosen.sum()), "gm": float(np.exp(np.log(ratio).mean())),
            "max": float(ratio.max()), "seconds": float(t.sum())}
