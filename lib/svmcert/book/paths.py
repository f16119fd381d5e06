"""Where the project, its committed data and a chapter's outputs live; atomic file writes.

Environment variables set by the runner (``svmcert book run``) for the kernel it starts:

``SVMCERT_ROOT``        the project root (folder holding ``_toc.yml``);
``SVMCERT_OUTPUT_DIR``  where the running chapter writes ``tables/`` and ``claims/``: a staging
                        folder that the runner moves into place only after the chapter succeeded;
``SVMCERT_DATA_DIR``    the committed data a chapter reads (the claims ledger does): ``data/``
                        for a full run, ``_build/quick/data`` for a quick one.

Run by hand (no runner), a chapter writes straight into ``data/`` — still one atomic file at a time.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["project_root", "data_dir", "output_dir", "atomic_write_text", "atomic_write_bytes"]


def _looks_like_root(path: Path) -> bool:
    return (path / "_toc.yml").is_file() and (path / "lib" / "svmcert").is_dir()


def project_root() -> Path:
    """The project root: ``$SVMCERT_ROOT``, else the nearest folder above the working directory
    that holds ``_toc.yml`` and ``lib/svmcert``, else the checkout this package was installed from."""
    env = os.environ.get("SVMCERT_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if _looks_like_root(candidate):
            return candidate
    installed = Path(__file__).resolve().parents[3]
    if _looks_like_root(installed):
        return installed
    raise FileNotFoundError(
        "cannot find the svmcert project root (a folder with _toc.yml and lib/svmcert); "
        "run from inside the checkout or set SVMCERT_ROOT"
    )


def data_dir() -> Path:
    """The committed data folder chapters read from (``$SVMCERT_DATA_DIR`` or ``<root>/data``)."""
    env = os.environ.get("SVMCERT_DATA_DIR")
    return Path(env).resolve() if env else project_root() / "data"


def output_dir() -> Path:
    """Where the running chapter writes (``$SVMCERT_OUTPUT_DIR`` or ``<root>/data``)."""
    env = os.environ.get("SVMCERT_OUTPUT_DIR")
    return Path(env).resolve() if env else project_root() / "data"


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write ``payload`` to a temporary file beside ``path`` and rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Text version of :func:`atomic_write_bytes` (UTF-8)."""
    atomic_write_bytes(path, text.encode("utf-8"))
