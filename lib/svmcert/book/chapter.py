"""What a chapter notebook calls: start the chapter, save tables and figures, glue numbers.

Tables go to ``tables/<chapter>/<name>.csv`` with a sidecar ``<name>.meta.json`` that declares the
tolerance ``svmcert book check`` uses for the table, its timing columns (excluded from the
check) and its provenance (notebook, parameters, git commit, library version, data checksums).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .paths import atomic_write_bytes, atomic_write_text, output_dir, project_root

__all__ = ["Chapter", "start_chapter", "current_chapter", "save_table", "save_figure", "glue"]

_CURRENT: "Chapter | None" = None


def _git_commit(root: Path) -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _plain(value):
    """Numpy scalars and arrays to plain Python (JSON, glue)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Chapter:
    """A running chapter: its name, paper, parameters and the claims recorded so far."""

    def __init__(self, name: str, paper: str | None = None, parameters: dict | None = None):
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"name: expected a chapter slug such as 'lp-step', got {name!r}")
        self.name = name
        self.paper = paper
        self.parameters = _plain(dict(parameters or {}))
        self.claims: list = []
        self.data_checksums: dict[str, str] = {}
        self.root = project_root()
        self.out = output_dir()
        self.commit = _git_commit(self.root)

    # ---------------------------------------------------------------- paths
    @property
    def tables_dir(self) -> Path:
        return self.out / "tables" / self.name

    @property
    def claims_path(self) -> Path:
        return self.out / "claims" / f"{self.name}.json"

    @property
    def figures_dir(self) -> Path:
        return self.root / "_build" / "figures" / self.name

    # ---------------------------------------------------------------- claims
    def add_claim(self, claim) -> None:
        """Add or replace (same id) a claim and rewrite the chapter's claims file."""
        self.claims = [c for c in self.claims if c.id != claim.id] + [claim]
        payload = {"chapter": self.name, "paper": self.paper, "claims": [asdict(c) for c in self.claims]}
        atomic_write_text(self.claims_path, json.dumps(_plain(payload), indent=1, sort_keys=False) + "\n")

    def note_dataset(self, name: str) -> str:
        """Remember the sha256 of a data set the chapter used (provenance of its tables)."""
        from .. import datasets

        self.data_checksums[name] = datasets.checksum(name)
        return self.data_checksums[name]

    def provenance(self) -> dict:
        from .. import __version__

        return {
            "chapter": self.name,
            "notebook": self.parameters.get("notebook", ""),
            "parameters": self.parameters,
            "git_commit": self.commit,
            "svmcert_version": __version__,
            "data_sha256": dict(self.data_checksums),
        }


def start_chapter(name: str, paper: str | None = None, **parameters) -> Chapter:
    """Open a chapter: later :func:`save_table` and :mod:`svmcert.claims` calls write to it.

    Pass the notebook's parameters (seed, quick, sizes) so they are recorded as provenance.
    """
    global _CURRENT
    _CURRENT = Chapter(name, paper, parameters)
    return _CURRENT


def current_chapter() -> Chapter:
    """The chapter opened by :func:`start_chapter`; error if none is open."""
    if _CURRENT is None:
        raise RuntimeError("no chapter is open: call svmcert.book.start_chapter(name, ...) first")
    return _CURRENT


def save_table(table, name: str, *, rtol: float, atol: float, timing=(), caption: str | None = None,
               display: bool = True):
    """Write a table as CSV (atomically) and display it.

    Parameters
    ----------
    table : DataFrame or list of dicts.
    name : file stem, e.g. ``"optimality_gap"``.
    rtol, atol : the tolerance ``svmcert book check`` allows between a regenerated table and the
        committed one, per numeric cell: |new - old| <= atol + rtol * |old|. Choose them from what
        legitimately moves between runs and machines (solver accuracy, floating point).
    timing : names of columns that hold wall-clock measurements (or ratios of them); they are
        shown but excluded from the drift check.
    caption : optional sentence shown above the table.

    Returns
    -------
    None
        The table is displayed here (when ``display``); returning it as well would make Jupyter
        show it a second time when the call ends a cell.
    """
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    missing = [c for c in timing if c not in df.columns]
    if missing:
        raise ValueError(f"timing: columns {missing} are not in the table (columns: {list(df.columns)})")
    if rtol < 0 or atol < 0:
        raise ValueError(f"rtol, atol: expected numbers >= 0, got {rtol}, {atol}")
    chapter = current_chapter()
    path = chapter.tables_dir / f"{name}.csv"
    atomic_write_text(path, df.to_csv(index=False, float_format="%.10g"))
    meta = {"rtol": rtol, "atol": atol, "timing_columns": list(timing), "caption": caption or "",
            "provenance": chapter.provenance()}
    atomic_write_text(path.with_suffix(".meta.json"), json.dumps(_plain(meta), indent=1) + "\n")
    if display:
        from IPython.display import Markdown
        from IPython.display import display as show

        if caption:
            show(Markdown(f"**{caption}**"))
        show(df)


def save_figure(fig, name: str, display: bool = False) -> Path:
    """Save a matplotlib figure under ``_build/figures/<chapter>/<name>.png`` (regenerated, not committed)."""
    chapter = current_chapter()
    path = chapter.figures_dir / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())
    if display:
        from IPython.display import display as show

        show(fig)
    return path


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` with numpy scalars turned into plain Python numbers first."""
    from myst_nb import glue as _glue

    value = _plain(value)
    _glue(name, value, display=display)
    return value
