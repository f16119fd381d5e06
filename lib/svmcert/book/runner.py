"""``svmcert book run``: execute chapters with papermill and move their outputs into place.

Each chapter runs in a fresh kernel with ``SVMCERT_OUTPUT_DIR`` pointing at a staging folder.
Only when the whole notebook succeeded are its tables and claims moved (file by file, with
``os.replace``) into ``data/`` — or ``_build/quick/data`` for ``--quick`` runs, which never touch
the committed tables. A failure, an exception or Ctrl-C leaves the committed files as they were.
Executed copies go to ``_build/executed/<path>.ipynb`` (a failed one stays in ``_build/failed``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import yaml

from .paths import project_root

__all__ = ["ChapterJob", "ChapterOutcome", "toc_notebooks", "select_chapters", "run_chapters"]


@dataclass(frozen=True)
class ChapterJob:
    name: str           # notebook stem, e.g. "lp-step"
    notebook: Path      # relative to the project root, e.g. book/sign-constrained/lp-step.ipynb
    aggregate: bool     # appendix notebooks read other chapters' outputs: they run last


@dataclass
class ChapterOutcome:
    job: ChapterJob
    ok: bool
    seconds: float
    message: str = ""
    files: list = field(default_factory=list)


def _toc_files(node) -> list[str]:
    files = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(node["file"])
        if "root" in node:
            files.append(node["root"])
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key, []) or []:
                files.extend(_toc_files(child))
    elif isinstance(node, list):
        for child in node:
            files.extend(_toc_files(child))
    return files


def toc_notebooks(root: Path | None = None) -> list[ChapterJob]:
    """The notebooks listed in ``_toc.yml``, in book order, appendix notebooks last."""
    root = project_root() if root is None else Path(root)
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    jobs, seen = [], {}
    for entry in _toc_files(toc):
        nb = Path(entry if entry.endswith(".ipynb") else f"{entry}.ipynb")
        if not (root / nb).is_file():
            continue
        name = nb.stem
        if name in seen:
            raise ValueError(f"_toc.yml: two notebooks share the chapter name {name!r}: {seen[name]} and {nb}")
        seen[name] = nb
        jobs.append(ChapterJob(name, nb, aggregate="appendix" in nb.parts))
    return [j for j in jobs if not j.aggregate] + [j for j in jobs if j.aggregate]


def select_chapters(jobs: list[ChapterJob], wanted: list[str]) -> list[ChapterJob]:
    """Chapters named by stem or path; all of them when ``wanted`` is empty."""
    if not wanted:
        return jobs
    chosen = []
    for w in wanted:
        key = Path(w).with_suffix("").as_posix()
        match = [j for j in jobs if key in (j.name, j.notebook.with_suffix("").as_posix())]
        if not match:
            raise ValueError(f"chapter {w!r} is not in _toc.yml; known: {', '.join(j.name for j in jobs)}")
        chosen.extend(m for m in match if m not in chosen)
    return chosen


def _commit_staging(staging: Path, target: Path, chapter: str) -> list[str]:
    """Move a successful chapter's files into ``target`` and drop its tables it no longer writes."""
    moved = []
    src_tables, dst_tables = staging / "tables" / chapter, target / "tables" / chapter
    if src_tables.is_dir():
        dst_tables.mkdir(parents=True, exist_ok=True)
        fresh = {p.name for p in src_tables.iterdir() if p.is_file()}
        for name in sorted(fresh):
            os.replace(src_tables / name, dst_tables / name)
            moved.append(str(dst_tables / name))
        for old in dst_tables.iterdir():
            if old.is_file() and old.name not in fresh:
                old.unlink()
    src_claims = staging / "claims" / f"{chapter}.json"
    if src_claims.is_file():
        (target / "claims").mkdir(parents=True, exist_ok=True)
        os.replace(src_claims, target / "claims" / f"{chapter}.json")
        moved.append(str(target / "claims" / f"{chapter}.json"))
    return moved


@contextlib.contextmanager
def _sigint_deferred():
    """Hold SIGINT (Ctrl-C) back while a chapter's files are moved into place.

    A chapter's outputs then land all together or not at all; an interrupt that arrives meanwhile
    is delivered (as ``KeyboardInterrupt``) as soon as the move is done.
    """
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no POSIX signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _describe_failure(exc: BaseException, notebook: Path) -> str:
    cell = getattr(exc, "cell_index", None)
    count = getattr(exc, "exec_count", None)
    ename, evalue = getattr(exc, "ename", type(exc).__name__), getattr(exc, "evalue", str(exc))
    where = f"cell {cell}" if cell is not None else "before any cell ran"
    if count is not None:
        where += f" (In [{count}])"
    return f"{notebook}: {where}: {ename}: {evalue}"


def execute_chapter(job: ChapterJob, root: Path, quick: bool, parameters: dict) -> ChapterOutcome:
    """Run one chapter in a fresh kernel; move its outputs into place only if it succeeded."""
    import papermill as pm

    build = root / "_build"
    target = build / "quick" / "data" if quick else root / "data"
    staging = build / ("quick-staging" if quick else "staging") / job.name
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    executed = build / ("quick-executed" if quick else "executed") / job.notebook
    running = build / "failed" / job.notebook
    running.parent.mkdir(parents=True, exist_ok=True)
    env_keys = {"SVMCERT_ROOT": str(root), "SVMCERT_OUTPUT_DIR": str(staging), "SVMCERT_DATA_DIR": str(target),
                # figures must go inline into the executed notebook (an Agg backend would drop them)
                "MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    saved = {k: os.environ.get(k) for k in env_keys}
    os.environ.update(env_keys)
    params = dict(parameters)
    if quick:
        params["quick"] = True
    start = time.perf_counter()
    try:
        pm.execute_notebook(str(root / job.notebook), str(running), parameters=params, cwd=str(root),
                            kernel_name="python3", progress_bar=False, log_output=False)
    except Exception as exc:  # papermill raises PapermillExecutionError for a failing cell
        return ChapterOutcome(job, False, time.perf_counter() - start,
                              _describe_failure(exc, job.notebook) + f"\n  executed copy: {running}")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    with _sigint_deferred():
        files = _commit_staging(staging, target, job.name)
        executed.parent.mkdir(parents=True, exist_ok=True)
        os.replace(running, executed)
    shutil.rmtree(staging, ignore_errors=True)
    return ChapterOutcome(job, True, time.perf_counter() - start, files=files)


def _report(outcome: ChapterOutcome, index: int, total: int, stream) -> None:
    status = "ok" if outcome.ok else "FAILED"
    line = f"[{index}/{total}] {outcome.job.name:<28} {status:<6} {outcome.seconds:7.1f} s"
    if outcome.ok:
        line += f"  ({len(outcome.files)} files)"
    print(line, file=stream, flush=True)
    if not outcome.ok:
        print(f"  {outcome.message}", file=stream, flush=True)


def _interrupt_workers(pool: ProcessPoolExecutor, futures) -> None:
    """Ctrl-C in the parent: drop queued chapters and pass the interrupt on to running ones.

    A terminal's Ctrl-C reaches the workers anyway (same process group); a SIGINT sent to the
    parent alone would otherwise leave it waiting for every running chapter to finish. A worker
    interrupted mid-chapter commits nothing (its staging folder is discarded); one that is
    moving its files into place finishes the move first (:func:`_sigint_deferred`).
    """
    for fut in futures:
        fut.cancel()
    for proc in list(getattr(pool, "_processes", {}).values()):
        if proc.is_alive():
            try:
                os.kill(proc.pid, signal.SIGINT)
            except OSError:
                pass


def run_chapters(jobs: list[ChapterJob], *, quick: bool = False, jobs_in_parallel: int = 1,
                 keep_going: bool = False, parameters: dict | None = None, stream=None) -> int:
    """Run chapters (aggregating appendix notebooks after the others); return the exit status."""
    root = project_root()
    stream = sys.stdout if stream is None else stream
    parameters = dict(parameters or {})
    phases = [[j for j in jobs if not j.aggregate], [j for j in jobs if j.aggregate]]
    total, done, failed = len(jobs), 0, []
    for phase in phases:
        if not phase or (failed and not keep_going):
            continue
        if jobs_in_parallel <= 1 or len(phase) == 1:
            for job in phase:
                outcome = execute_chapter(job, root, quick, parameters)
                done += 1
                _report(outcome, done, total, stream)
                if not outcome.ok:
                    failed.append(outcome)
                    if not keep_going:
                        break
        else:
            with ProcessPoolExecutor(max_workers=jobs_in_parallel, mp_context=get_context("spawn")) as pool:
                futures = {pool.submit(execute_chapter, job, root, quick, parameters): job for job in phase}
                try:
                    for fut in as_completed(futures):
                        outcome = fut.result()
                        done += 1
                        _report(outcome, done, total, stream)
                        if not outcome.ok:
                            failed.append(outcome)
                            if not keep_going:
                                for other in futures:
                                    other.cancel()
                except KeyboardInterrupt:
                    _interrupt_workers(pool, futures)
                    raise
    if failed:
        names = ", ".join(str(o.job.notebook) for o in failed)
        print(f"{len(failed)} chapter(s) failed: {names}; committed tables left untouched.", file=stream)
        return 1
    print(f"{done} chapter(s) ran{' (quick)' if quick else ''}.", file=stream)
    return 0
