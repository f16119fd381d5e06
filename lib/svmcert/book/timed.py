"""``python lib/svmcert/book/timed.py NAME [--dir DIR] -- COMMAND [ARG ...]``: run a command, record its cost.

(``python -m svmcert.book.timed`` works as well, when the package imports.)

The Makefile runs ``pytest`` (``make test``) and ``svmcert book build`` (``make book``) through this
wrapper. It runs COMMAND in the foreground, then writes ``_build/timings/NAME.json`` (or
``DIR/NAME.json``) — whether the command succeeded or not — and exits with the command's exit status
(``128 + N`` when signal N ended it), so ``make`` fails exactly when it did before. The record::

    {"format": 1, "name": "test", "command": [...], "exit_status": 0,
     "seconds": 212.4,            # wall time of the command
     "cpu_seconds": 398.0,        # user + system time of every process of the tree that was waited for
     "peak_rss_mb": 1210.5,       # largest peak RSS of any single process of the tree (getrusage, exact)
     "peak_tree_rss_mb": 2301.0,  # largest sampled sum of RSS over the tree (psutil, every 0.5 s), or null
     "date": "...", "finished": "...", "commit": "<sha>", "dirty": false, "cpu_count": 2}

``peak_rss_mb`` comes from ``getrusage(RUSAGE_CHILDREN)``: the kernel keeps, for each process, the
largest peak RSS among its descendants that have ended and were waited for (a child's figure already
includes its own waited-for children). It is a maximum over processes, not a sum: two kernels that
ran at the same time count once each, not together; ``peak_tree_rss_mb`` (sampled) estimates the
sum, but can miss a spike shorter than the sampling interval and counts shared pages once per process.
Processes that outlive their parent (daemons re-parented to init) are in neither. Linux also
counts in a process's ``ru_maxrss`` the memory it had before exec, that is, for a program just
started, its parent's peak at that moment: a child's figure is never below its parent's; a maximum
over the tree, as here, is unaffected.

The module needs nothing but the standard library (and psutil, when present, for the sampled
figure): the Makefile runs it by path (``python lib/svmcert/book/timed.py``), so that ``make test``
still runs pytest, and shows its report, when the ``svmcert`` package itself does not import.

Signals: a terminal's Ctrl-C reaches the command directly (same process group), so the wrapper
ignores SIGINT itself and waits for the command to finish its own clean-up; SIGTERM and SIGHUP sent
to the wrapper are passed on to the command.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # run by path: this folder's modules (paths, check, ...) must not shadow others
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from pathlib import Path  # noqa: E402

__all__ = ["maxrss_mb", "now_iso", "vm_hwm_mb", "TreeRssSampler", "ChildrenHwmSampler", "run_timed", "main"]

FORMAT = 1


def maxrss_mb(ru_maxrss: int) -> float:
    """``ru_maxrss`` in MB (MiB): Linux reports KiB, macOS bytes."""
    return ru_maxrss / (1024.0 * 1024.0) if sys.platform == "darwin" else ru_maxrss / 1024.0


def now_iso() -> str:
    """The local time with its UTC offset, to the second (``2026-05-09T15:07:02+00:00``)."""
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class TreeRssSampler:
    """Sample the summed RSS of process ``pid`` and all its descendants in a background thread.

    ``peak_mb`` is the largest sum seen (``None`` when psutil is missing or nothing was sampled).
    Use as a context manager around the wait for the process tree.
    """

    def __init__(self, pid: int, interval: float = 0.5):
        self.pid, self.interval = int(pid), float(interval)
        self.peak_bytes: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def peak_mb(self) -> float | None:
        return None if self.peak_bytes is None else self.peak_bytes / (1024.0 * 1024.0)

    def sample(self) -> int | None:
        """One sample: the summed RSS (bytes) of the tree now, or ``None``."""
        try:
            import psutil
        except ImportError:  # pragma: no cover - psutil comes with ipykernel
            return None
        try:
            top = psutil.Process(self.pid)
            procs = [top, *top.children(recursive=True)]
        except (psutil.Error, OSError):
            return None
        total = 0
        for proc in procs:
            try:
                total += proc.memory_info().rss
            except (psutil.Error, OSError):
                pass  # ended between the listing and the reading
        if total and (self.peak_bytes is None or total > self.peak_bytes):
            self.peak_bytes = total
        return total

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> "TreeRssSampler":
        self._thread = threading.Thread(target=self._loop, name="tree-rss-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def vm_hwm_mb(pid: int) -> float | None:
    """The peak RSS of process ``pid`` since it last called exec (``VmHWM`` in ``/proc/<pid>/status``,
    Linux), in MB; ``None`` when it cannot be read (ended, not Linux).

    Unlike ``ru_maxrss``, which also keeps the peak of the memory the process had *before* exec (for
    a child just started, its parent's peak), this is the program's own peak.
    """
    try:
        with open(f"/proc/{int(pid)}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0   # kB
    except (OSError, ValueError, IndexError):
        return None
    return None


def _child_pids(pid: int) -> list[int]:
    try:
        import psutil

        return [c.pid for c in psutil.Process(pid).children()]
    except ImportError:  # pragma: no cover - psutil comes with ipykernel
        pids = []
        for path in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                pids += [int(x) for x in path.read_text().split()]
            except (OSError, ValueError):
                pass
        return pids
    except Exception:  # noqa: BLE001 - psutil.Error and races with ending processes
        return []


class ChildrenHwmSampler(TreeRssSampler):
    """Read the ``VmHWM`` (:func:`vm_hwm_mb`) of the direct children of ``pid`` every ``interval``
    seconds; ``peak_mb`` is the largest, read at the last sample before the child ended."""

    def sample(self) -> int | None:
        best = None
        for child in _child_pids(self.pid):
            mb = vm_hwm_mb(child)
            if mb is not None and (best is None or mb > best):
                best = mb
        if best is not None:
            value = int(best * 1024 * 1024)
            if self.peak_bytes is None or value > self.peak_bytes:
                self.peak_bytes = value
            return value
        return None


def _write_json(path: Path, payload: dict) -> None:
    """Atomic write (temporary file beside ``path``, then rename), like :mod:`svmcert.book.paths`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(payload, indent=1) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _project_root() -> Path | None:
    """``$SVMCERT_ROOT``, else the nearest folder above the working directory with ``_toc.yml`` and
    ``lib/svmcert`` (as :func:`svmcert.book.paths.project_root`), else ``None``."""
    env = os.environ.get("SVMCERT_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if (candidate / "_toc.yml").is_file() and (candidate / "lib" / "svmcert").is_dir():
            return candidate
    return None


def git_state(root: Path) -> tuple[str, bool]:
    """``(commit, dirty)`` of the checkout at ``root``: HEAD's sha, and whether tracked files under
    ``lib/`` or ``book/`` differ from it (the code that produced a table). ``("unknown", False)``
    outside a git checkout. (Here, in this standard-library-only module, so that the wrapper runs
    by path; :mod:`svmcert.book.provenance` uses it too.)"""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=20)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return "unknown", False
        status = git("status", "--porcelain", "--untracked-files=no", "--", "lib", "book")
        return head.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def run_timed(name: str, command: list[str], directory: Path | None = None, interval: float = 0.5) -> int:
    """Run ``command``, write ``<directory>/<name>.json`` and return the command's exit status."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name: expected a file stem such as 'test', got {name!r}")
    if not command:
        raise ValueError("command: nothing to run (put the command after `--`)")
    root = _project_root()
    if directory is None:
        directory = (root if root is not None else Path.cwd()) / "_build" / "timings"
    directory = Path(directory)
    date = now_iso()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    error = None
    try:
        proc = subprocess.Popen(command)
    except OSError as exc:
        proc, error = None, f"{type(exc).__name__}: {exc}"
        print(f"timed: cannot run {command[0]!r}: {exc}", file=sys.stderr)
    sampler = None
    if proc is not None:
        def forward(signum, _frame):
            try:
                proc.send_signal(signum)
            except OSError:
                pass

        # Python-level handlers (not SIG_IGN) are reset to the default in the child at exec
        handlers = {signal.SIGINT: lambda *_: None, signal.SIGTERM: forward, signal.SIGHUP: forward}
        old = {sig: signal.signal(sig, h) for sig, h in handlers.items()}
        try:
            with TreeRssSampler(proc.pid, interval) as sampler:
                proc.wait()
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc is None:
        status = 127
    else:
        status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    commit, dirty = git_state(root) if root is not None else ("unknown", False)
    record = {
        "format": FORMAT,
        "name": name,
        "command": list(command),
        "exit_status": status,
        "seconds": round(seconds, 3),
        "cpu_seconds": round((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), 3),
        "peak_rss_mb": round(maxrss_mb(after.ru_maxrss), 1) if proc is not None else None,
        "peak_tree_rss_mb": None if sampler is None or sampler.peak_mb is None else round(sampler.peak_mb, 1),
        "date": date,
        "finished": now_iso(),
        "commit": commit,
        "dirty": dirty,
        "cpu_count": cpu_count(),
        "host": platform.node(),
    }
    if error:
        record["error"] = error
    try:
        _write_json(directory / f"{name}.json", record)
    except OSError as exc:  # the command's status matters more than the record
        print(f"timed: could not write {directory / f'{name}.json'}: {exc}", file=sys.stderr)
    return status


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print("usage: python lib/svmcert/book/timed.py NAME [--dir DIR] -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="timed.py",
                                     description="Run a command; record its wall time and peak memory as JSON.")
    parser.add_argument("name", help="record name: writes DIR/NAME.json")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: <project>/_build/timings)")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between memory samples of the tree")
    args = parser.parse_args(argv[:cut])
    command = argv[cut + 1:]
    if not command:
        print("timed: no command after `--`", file=sys.stderr)
        return 2
    try:
        return run_timed(args.name, command, args.dir, args.interval)
    except ValueError as exc:
        print(f"timed: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
