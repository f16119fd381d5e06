"""Chapter workers live and die with the runner that started them.

A worker (one per chapter, :mod:`svmcert.book.runner`) runs papermill, which starts a Jupyter kernel
in a session of its own. If the runner is killed (``SIGTERM``, ``SIGKILL``, a closed terminal),
neither would notice, and a worker that finished later would still move its chapter's files into
``data/`` — possibly under a rerun started meanwhile. So:

- :func:`die_with_parent` asks Linux to send the worker ``SIGTERM`` when its parent ends
  (``prctl(PR_SET_PDEATHSIG)``; the parent is the forkserver, which ends with the runner);
- :func:`terminate_on_sigterm` turns ``SIGTERM`` into :class:`Terminated`, an exception that unwinds
  papermill without committing anything, after killing the worker's kernel;
- :func:`kill_children` kills every child process group of the worker (the kernel is one).
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

__all__ = ["Terminated", "die_with_parent", "kill_children", "terminate_on_sigterm", "signals_held"]

_PR_SET_PDEATHSIG = 1


class Terminated(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM); like Ctrl-C, nothing is committed."""


def die_with_parent(sig: int = signal.SIGTERM) -> bool:
    """Have the kernel send ``sig`` to this process when its parent ends (Linux only); True if set."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False


def _children(pid: int) -> list[int]:
    pids = []
    for path in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError, ValueError):
            pids += [int(x) for x in path.read_text().split()]
    return pids


def kill_children(sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to every child of this process and to its process group (a Jupyter kernel
    leads a session of its own, with whatever it started)."""
    for child in _children(os.getpid()):
        with contextlib.suppress(OSError):
            os.killpg(os.getpgid(child), sig)
        with contextlib.suppress(OSError):
            os.kill(child, sig)


def _on_sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
    kill_children()
    raise Terminated(f"stopped by signal {signum}")


def terminate_on_sigterm() -> None:
    """Install the worker's SIGTERM handler (:class:`Terminated` after killing its kernel)."""
    signal.signal(signal.SIGTERM, _on_sigterm)


@contextlib.contextmanager
def signals_held(*signals: int):
    """Block ``signals`` (default SIGINT and SIGTERM) while a chapter's files are moved into place;
    one that arrives meanwhile is delivered as soon as the move is done."""
    held = set(signals or (signal.SIGINT, signal.SIGTERM))
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no POSIX signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
