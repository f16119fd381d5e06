"""``svmcert book run``: execute chapters with papermill and move their outputs into place.

Each chapter runs in a fresh kernel with ``SVMCERT_OUTPUT_DIR`` pointing at a staging folder.
Only when the whole notebook succeeded are its tables and claims moved (file by file, with
``os.replace``) into ``data/`` — or ``_build/quick/data`` for ``--quick`` runs, which never touch
the committed tables. A failure, an exception or Ctrl-C leaves the committed files as they were.
Executed copies go to ``_build/executed/<path>.ipynb`` (a failed one stays in ``_build/failed``).

Every chapter runs in a worker process of its own (one chapter per process, also with ``-j 1``;
``-j N`` keeps N of them running): when papermill returns, the worker's
``getrusage(RUSAGE_CHILDREN)`` is that of the kernel it has just shut down, so each chapter's peak
memory is its kernel's alone (:func:`_chapter_in_worker` has the details). The wall time of each
chapter and of each phase, and these peaks, go to ``_build/timings/chapters.json``
(``_build/quick/timings`` for ``--quick``); :mod:`svmcert.book.timings` describes the format.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.connection import wait as mp_wait
from pathlib import Path


from .commit import ChapterBusy, CommitError, chapter_lock, commit_staging, incomplete_cells, last_started_cell
from .lifecycle import Terminated, die_with_parent, kill_children, signals_held, terminate_on_sigterm
from .paths import project_root
from .toc import ChapterJob, chapter_counts, select_chapters, toc_files, toc_notebooks  # noqa: F401  (re-exported)

__all__ = ["ChapterJob", "ChapterOutcome", "toc_notebooks", "select_chapters", "run_chapters"]


@dataclass
class ChapterOutcome:
    job: ChapterJob
    ok: bool
    seconds: float
    message: str = ""
    files: list = field(default_factory=list)
    peak_rss_mb: float | None = None    # peak resident memory of the chapter's kernel
    peak_rss_source: str = ""           # "rusage" (exact), "sampled" (VmHWM) or "at most"
    cpu_seconds: float | None = None    # the kernel's user + system CPU time

    def timing_entry(self) -> dict:
        """The chapter's entry in ``_build/timings/chapters.json``."""
        return {"name": self.job.name, "notebook": self.job.notebook.as_posix(), "ok": self.ok,
                "seconds": round(self.seconds, 3),
                "cpu_seconds": None if self.cpu_seconds is None else round(self.cpu_seconds, 3),
                "peak_rss_mb": None if self.peak_rss_mb is None else round(self.peak_rss_mb, 1),
                "peak_rss_source": self.peak_rss_source}


def _describe_failure(exc: BaseException, notebook: Path, executed: Path) -> str:
    """Name the notebook and the cell that failed: papermill's exception says which cell raised;
    for a kernel that died (no cell in the exception) the executed copy shows which cell was running."""
    cell = getattr(exc, "cell_index", None)
    count = getattr(exc, "exec_count", None)
    ename, evalue = getattr(exc, "ename", type(exc).__name__), getattr(exc, "evalue", str(exc))
    if cell is not None:
        where = f"cell {cell}" + (f" (In [{count}])" if count is not None else "")
        return f"{notebook}: {where}: {ename}: {evalue}"
    started = last_started_cell(executed)
    if started is not None:   # the kernel died in the last cell it began to run
        return f"{notebook}: {started} stopped (the kernel died or was killed while it ran): {ename}: {evalue}"
    return f"{notebook}: before any cell ran: {ename}: {evalue}"


def execute_chapter(job: ChapterJob, root: Path, quick: bool, parameters: dict, run_id: str = "") -> ChapterOutcome:
    """Run one chapter in a fresh kernel; move its outputs into place only if every cell ran.

    The chapter's lock (:func:`~svmcert.book.commit.chapter_lock`) is held from the start to the
    end of the commit, and the staging folder belongs to this run alone, so two runs of one
    chapter can never mix or delete each other's files.
    """
    build = root / "_build"
    target = build / "quick" / "data" if quick else root / "data"
    tag = "quick" if quick else "full"
    start = time.perf_counter()
    try:
        with chapter_lock(build / "locks" / tag, job.name):
            return _execute_locked(job, root, quick, parameters, run_id, build, target, start)
    except ChapterBusy as exc:
        return ChapterOutcome(job, False, time.perf_counter() - start, f"{job.notebook}: {exc}")


def _execute_locked(job, root, quick, parameters, run_id, build, target, start) -> ChapterOutcome:
    import papermill as pm

    unique = f"{job.name}-{run_id or os.getpid()}"
    staging = build / ("quick-staging" if quick else "staging") / unique
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    executed = build / ("quick-executed" if quick else "executed") / job.notebook
    running = build / "failed" / job.notebook
    running.parent.mkdir(parents=True, exist_ok=True)
    env_keys = {"SVMCERT_ROOT": str(root), "SVMCERT_OUTPUT_DIR": str(staging), "SVMCERT_DATA_DIR": str(target),
                # figures must go inline into the executed notebook (an Agg backend would drop them)
                "MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
                # which run the kernel belongs to (the Run-times page tells this run's records from older ones)
                "SVMCERT_RUN_ID": run_id}
    params = dict(parameters)
    if quick:
        params["quick"] = True
    # the chapter shows the command that reran it, and reads its own parameters cell
    env_keys.update(SVMCERT_NOTEBOOK=job.notebook.as_posix(), SVMCERT_PARAMETERS=json.dumps(params, default=str))
    saved = {k: os.environ.get(k) for k in env_keys}
    os.environ.update(env_keys)
    failed = lambda msg: ChapterOutcome(job, False, time.perf_counter() - start,  # noqa: E731
                                        f"{msg}\n  executed copy: {running}")
    try:
        try:
            pm.execute_notebook(str(root / job.notebook), str(running), parameters=params, cwd=str(root),
                                kernel_name="python3", progress_bar=False, log_output=False)
        except Exception as exc:  # papermill raises PapermillExecutionError for a failing cell
            return failed(_describe_failure(exc, job.notebook, running))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        unfinished = incomplete_cells(running)
        if unfinished:   # e.g. sys.exit(0): papermill stops without raising, later cells never ran
            rest = len(unfinished) - 1
            more = f" ({rest} more cell{'s' if rest != 1 else ''} did not complete)" if rest else ""
            return failed(f"{job.notebook}: {unfinished[0][1]}{more}; a chapter counts only when every cell ran")
        with signals_held():
            try:
                files = commit_staging(staging, target, job.name, build / "commit-backup" / unique)
            except CommitError as exc:
                return failed(f"{job.notebook}: {exc}")
            executed.parent.mkdir(parents=True, exist_ok=True)
            os.replace(running, executed)
        return ChapterOutcome(job, True, time.perf_counter() - start, files=files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _chapter_in_worker(job: ChapterJob, root: Path, quick: bool, parameters: dict, run_id: str) -> ChapterOutcome:
    """:func:`execute_chapter` in a worker process that runs this chapter only; add the kernel's peak
    memory and CPU time.

    Once papermill has returned, it has shut the kernel down and reaped it, so the worker's
    ``RUSAGE_CHILDREN`` holds the kernel's CPU time and its ``ru_maxrss`` (the largest over the
    worker's finished children; the kernel is its only one). In a process that ran several
    chapters it would be the largest over all of them: hence one chapter per worker. Linux counts
    in a child's ``ru_maxrss`` the memory it had before exec, i.e. the worker's own peak, so that
    figure is the kernel's own peak only when it exceeds the worker's; otherwise the kernel used
    less, and its ``VmHWM`` (its own peak RSS), read every 0.2 s while it ran, is taken instead.
    """
    from .timed import ChildrenHwmSampler, maxrss_mb

    with ChildrenHwmSampler(os.getpid(), interval=0.2) as sampled:
        outcome = execute_chapter(job, root, quick, parameters, run_id)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_peak = maxrss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    outcome.cpu_seconds = children.ru_utime + children.ru_stime
    if children.ru_maxrss and maxrss_mb(children.ru_maxrss) > own_peak:
        outcome.peak_rss_mb, outcome.peak_rss_source = maxrss_mb(children.ru_maxrss), "rusage"
    elif sampled.peak_mb is not None:
        outcome.peak_rss_mb, outcome.peak_rss_source = sampled.peak_mb, "sampled"
    elif children.ru_maxrss:  # not Linux: an upper bound
        outcome.peak_rss_mb, outcome.peak_rss_source = maxrss_mb(children.ru_maxrss), "at most"
    return outcome


def _report(outcome: ChapterOutcome, index: int, total: int, stream) -> None:
    status = "ok" if outcome.ok else "FAILED"
    line = f"[{index}/{total}] {outcome.job.name:<28} {status:<6} {outcome.seconds:7.1f} s"
    if outcome.peak_rss_mb is not None:
        line += f" {outcome.peak_rss_mb:7.0f} MB"
    if outcome.ok:
        line += f"  ({len(outcome.files)} files)"
    print(line, file=stream, flush=True)
    if not outcome.ok:
        print(f"  {outcome.message}", file=stream, flush=True)


def _worker_main(conn, job: ChapterJob, root: Path, quick: bool, parameters: dict, run_id: str,
                 environ: dict, cwd: str) -> None:
    """Body of a chapter's worker process: run the chapter, send back ``(kind, payload)``.

    A forkserver's worker inherits the environment and directory the server started with, not the
    runner's current ones: the runner's are passed along and restored first.
    """
    die_with_parent()            # the runner was killed: stop too, commit nothing
    terminate_on_sigterm()
    try:
        os.environ.clear()
        os.environ.update(environ)
        os.chdir(cwd)
        conn.send(("done", _chapter_in_worker(job, root, quick, parameters, run_id)))
    except KeyboardInterrupt:    # Ctrl-C or SIGTERM (Terminated): nothing was committed
        kill_children()
        with contextlib.suppress(OSError):
            conn.send(("interrupted", None))
    except BaseException as exc:  # noqa: BLE001 - reported as the chapter's failure
        with contextlib.suppress(OSError):
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _worker_context():
    """Where chapter workers come from: a forkserver that has already imported papermill and this
    module (a spawned worker would spend a second or two importing them for every chapter); a
    forked worker starts with fresh resource-usage counters, like a spawned one. Spawn where there
    is no forkserver."""
    try:
        ctx = get_context("forkserver")
    except ValueError:  # pragma: no cover - no forkserver on this platform
        return get_context("spawn")
    ctx.set_forkserver_preload(["svmcert.book._forkserver_guard", "svmcert.book.runner", "papermill"])
    return ctx


@dataclass
class _Worker:
    job: ChapterJob
    process: object
    conn: object
    started: float


def _start_worker(ctx, job: ChapterJob, root: Path, quick: bool, parameters: dict, run_id: str) -> _Worker:
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker_main, name=f"svmcert-chapter-{job.name}",
                       args=(send, job, root, quick, parameters, run_id, dict(os.environ), os.getcwd()))
    proc.start()
    send.close()  # the parent keeps only the reading end: it reports EOF if the worker dies
    return _Worker(job, proc, receive, time.perf_counter())


def _finish_worker(worker: _Worker) -> ChapterOutcome:
    """Read a worker's answer (it is ready) and reap the process."""
    try:
        kind, payload = worker.conn.recv()
    except (EOFError, OSError):
        kind, payload = "error", None
    worker.conn.close()
    worker.process.join()
    if kind == "done":
        return payload
    if kind == "interrupted":
        raise KeyboardInterrupt
    detail = payload or f"worker process ended without an answer (exit code {worker.process.exitcode})"
    return ChapterOutcome(worker.job, False, time.perf_counter() - worker.started,
                          f"{worker.job.notebook}: worker process failed: {detail}")


def _interrupt_workers(workers) -> None:
    """Ctrl-C or SIGTERM in the parent: stop the running chapters and wait for them.

    Each worker gets SIGTERM (:mod:`svmcert.book.lifecycle`): it kills its kernel and commits
    nothing (its staging folder is discarded); one that is moving its files into place finishes
    the move first (:func:`~svmcert.book.lifecycle.signals_held`). No further chapter is started.
    A runner killed outright (SIGKILL) cannot do this; its workers then stop by themselves
    (``die_with_parent``).
    """
    for worker in workers:
        if worker.process.is_alive():
            try:
                os.kill(worker.process.pid, signal.SIGTERM)
            except OSError:
                pass
    for worker in workers:
        worker.process.join()
        worker.conn.close()


def _run_phase(phase: list[ChapterJob], root: Path, quick: bool, parameters: dict, run_id: str, workers: int,
               on_outcome) -> None:
    """Run a phase's chapters, at most ``workers`` at a time, each in a fresh process.

    A chapter starts only when a slot is free, so after ``on_outcome`` returns False (a failure
    without --keep-going) no further chapter starts; the running ones finish and are reported.
    """
    ctx = _worker_context()
    pending, running, stop = list(phase), [], False
    try:
        while running or (pending and not stop):
            while pending and not stop and len(running) < max(1, workers):
                running.append(_start_worker(ctx, pending.pop(0), root, quick, parameters, run_id))
            ready = mp_wait([w.conn for w in running])
            for worker in [w for w in running if w.conn in ready]:
                running.remove(worker)
                outcome = _finish_worker(worker)   # KeyboardInterrupt if the worker was interrupted
                if not on_outcome(outcome):
                    stop = True
    except KeyboardInterrupt:
        _interrupt_workers(running)
        raise


def run_chapters(jobs: list[ChapterJob], *, quick: bool = False, jobs_in_parallel: int = 1,
                 keep_going: bool = False, parameters: dict | None = None, stream=None) -> int:
    """Run chapters (aggregating appendix notebooks after the others); return the exit status.

    After each phase, its wall time and each chapter's time and peak memory are written to
    ``_build/timings/chapters.json`` (:func:`svmcert.book.timings.record_phase`); an interrupted
    phase writes nothing. SIGTERM stops the run like Ctrl-C (:class:`~svmcert.book.lifecycle.Terminated`,
    a ``KeyboardInterrupt``): the running chapters are stopped and commit nothing.
    """
    from . import timings
    from .provenance import git_state
    from .timed import TreeRssSampler, now_iso

    root = project_root()
    stream = sys.stdout if stream is None else stream
    parameters = dict(parameters or {})
    phases = [("chapters", [j for j in jobs if not j.aggregate]), ("aggregate", [j for j in jobs if j.aggregate])]
    total, done, failed = len(jobs), 0, []
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    commit, dirty = git_state(root)
    in_toc = chapter_counts(root)
    outcomes: dict[ChapterJob, ChapterOutcome] = {}

    def on_outcome(outcome: ChapterOutcome) -> bool:
        nonlocal done
        done += 1
        outcomes[outcome.job] = outcome
        _report(outcome, done, total, stream)
        if not outcome.ok:
            failed.append(outcome)
        return outcome.ok or keep_going

    def on_sigterm(signum, frame):  # noqa: ARG001 - the runner itself is told to stop
        raise Terminated(f"stopped by signal {signum}")

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        for name, phase in phases:
            if not phase or (failed and not keep_going):
                continue
            date, start = now_iso(), time.perf_counter()
            with TreeRssSampler(os.getpid(), interval=1.0) as sampler:
                _run_phase(phase, root, quick, parameters, run_id, jobs_in_parallel, on_outcome)
            seconds = time.perf_counter() - start
            try:
                timings.record_phase(name, [outcomes[j].timing_entry() for j in phase if j in outcomes], seconds,
                                     quick=quick, jobs=jobs_in_parallel, date=date, commit=commit, dirty=dirty,
                                     notebooks_in_toc=in_toc.get(name), peak_tree_rss_mb=sampler.peak_mb,
                                     run_id=run_id, root=root)
            except OSError as exc:  # the chapters' outputs matter more than their timings
                print(f"could not record the timings of the {name} phase: {exc}", file=stream)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if failed:
        names = ", ".join(str(o.job.notebook) for o in failed)
        print(f"{len(failed)} chapter(s) failed: {names}; the committed tables of the failed chapters were "
              "left untouched.", file=stream)
        return 1
    print(f"{done} chapter(s) ran{' (quick)' if quick else ''}.", file=stream)
    return 0
