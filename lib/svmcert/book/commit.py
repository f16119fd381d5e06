"""Moving a finished chapter's outputs into ``data/``: only complete chapters, all files or none.

A chapter is *complete* when papermill returned and every code cell of the executed notebook ran
to completion (:func:`incomplete_cells`): a cell that calls ``sys.exit(0)`` makes papermill stop
without raising, and the cells after it never run, so papermill's return alone proves nothing.

:func:`commit_staging` first checks that every destination can be written, then moves the files
one by one, keeping the files it replaces in a backup folder; if a move fails anyway, everything
moved so far is put back. So the committed tables and claims of a chapter are either all the new
ones or all the old ones.

:func:`chapter_lock` keeps two ``svmcert book run`` processes from running the same chapter at
the same time (they would share a chapter's tables and delete each other's files).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from pathlib import Path

__all__ = ["CommitError", "ChapterBusy", "incomplete_cells", "last_started_cell", "describe_cell", "commit_staging",
           "chapter_lock"]


class CommitError(OSError):
    """The chapter's files could not be moved into place; the committed files were restored."""


class ChapterBusy(RuntimeError):
    """Another process holds the chapter's lock."""


def _cells(path: Path) -> list[dict]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return []


def describe_cell(index: int, cell: dict) -> str:
    """``cell 3 (In [3])`` — the cell's index in the executed notebook and its prompt number."""
    where = f"cell {index}"
    if cell.get("execution_count") is not None:
        where += f" (In [{cell['execution_count']}])"
    return where


def incomplete_cells(executed: Path) -> list[tuple[int, str]]:
    """Code cells of an executed notebook that did not run to completion, with the reason.

    A cell is complete when papermill marked it ``completed`` and it has no error output. Returns
    ``[(index, reason), ...]`` in notebook order; empty when the whole notebook ran.
    """
    out = []
    for i, cell in enumerate(_cells(executed)):
        if cell.get("cell_type") != "code":
            continue
        status = (cell.get("metadata", {}).get("papermill") or {}).get("status")
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            err = errors[0]
            out.append((i, f"{describe_cell(i, cell)} raised {err.get('ename', '?')}: {err.get('evalue', '')}".rstrip()))
        elif status == "running":
            out.append((i, f"{describe_cell(i, cell)} was running when the kernel stopped"))
        elif status not in (None, "completed") or cell.get("execution_count") is None:
            out.append((i, f"{describe_cell(i, cell)} did not run"))
    return out


def last_started_cell(executed: Path) -> str | None:
    """The last code cell papermill began to run (it records a ``start_time``; the prompt number
    may be missing when the kernel died before announcing it), described as by
    :func:`describe_cell`; None if no cell began. When a kernel dies, that is the cell it died in."""
    found = None
    for i, cell in enumerate(_cells(executed)):
        meta = cell.get("metadata", {}).get("papermill") or {}
        if cell.get("cell_type") == "code" and (meta.get("start_time") or cell.get("execution_count") is not None):
            found = describe_cell(i, cell)
    return found


def _writable(directory: Path) -> str | None:
    """Why files cannot be created, replaced or deleted in ``directory`` (or where it would be
    created); None when they can."""
    probe = directory
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    return None


def commit_staging(staging: Path, target: Path, chapter: str, backup: Path) -> list[str]:
    """Move a complete chapter's files from ``staging`` into ``target``; drop its tables it no
    longer writes. All or nothing: raises :class:`CommitError` (with the committed files restored)
    when a destination cannot be written."""
    src_tables, dst_tables = staging / "tables" / chapter, target / "tables" / chapter
    src_claims, dst_claims = staging / "claims" / f"{chapter}.json", target / "claims" / f"{chapter}.json"
    fresh = sorted(p.name for p in src_tables.iterdir() if p.is_file()) if src_tables.is_dir() else []
    moves = [(src_tables / name, dst_tables / name) for name in fresh]
    if src_claims.is_file():
        moves.append((src_claims, dst_claims))
    stale = [p for p in dst_tables.iterdir() if p.is_file() and p.name not in set(fresh)] if (src_tables.is_dir() and dst_tables.is_dir()) else []
    for folder in {dst.parent for _, dst in moves} | {p.parent for p in stale}:
        why = _writable(folder)
        if why:
            raise CommitError(errno.EACCES, f"cannot commit chapter {chapter!r}: {why}; nothing was changed")
    shutil.rmtree(backup, ignore_errors=True)
    backup.mkdir(parents=True)
    done: list[tuple[Path, Path | None]] = []     # (destination, its backup or None if it was new)
    try:
        for k, (src, dst) in enumerate(moves + [(None, p) for p in stale]):
            saved = None
            if dst.exists():
                saved = backup / f"{k}-{dst.name}"
                os.replace(dst, saved)
            done.append((dst, saved))
            if src is not None:
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
    except OSError as exc:
        for dst, saved in reversed(done):
            with contextlib.suppress(OSError):
                if saved is not None:
                    os.replace(saved, dst)
                else:
                    dst.unlink(missing_ok=True)
        raise CommitError(exc.errno or errno.EIO, f"cannot commit chapter {chapter!r}: {exc}; "
                          "the committed files were restored") from exc
    shutil.rmtree(backup, ignore_errors=True)
    return [str(dst) for _, dst in moves]


@contextlib.contextmanager
def chapter_lock(lock_dir: Path, chapter: str):
    """Hold an exclusive lock on ``lock_dir/<chapter>.lock`` (``fcntl.flock``, released when the
    process ends, however it ends); :class:`ChapterBusy` if another process holds it."""
    import fcntl

    lock_dir.mkdir(parents=True, exist_ok=True)
    path = lock_dir / f"{chapter}.lock"
    fh = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise ChapterBusy(f"chapter {chapter!r} is being run by {holder} (lock {path}); "
                              "nothing was run or changed: try again when it has finished") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"svmcert book run, pid {os.getpid()}")
        fh.flush()
        yield path
    finally:
        fh.close()
