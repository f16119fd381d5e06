"""What a chapter notebook calls: start the chapter, save tables and figures, glue numbers.

Tables go to ``tables/<chapter>/<name>.csv`` with a sidecar ``<name>.meta.json`` that declares the
tolerance ``svmcert book check`` uses for the table, its timing columns (excluded from the
check) and its provenance (notebook, parameters, git commit, library version, data checksums).
Figures go to ``_build/figures/<chapter>/<name>.png`` with the same kind of sidecar. A collapsed
provenance note (:class:`svmcert.book.provenance.ProvenanceNote`) is shown under every table and
figure the helpers display.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .paths import atomic_write_bytes, atomic_write_text, data_dir, output_dir, project_root
from .provenance import ProvenanceNote, git_state, relative_to_root

__all__ = ["Chapter", "start_chapter", "current_chapter", "save_table", "save_figure", "glue"]

_CURRENT: "Chapter | None" = None


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
        self.commit, self.dirty = git_state(self.root)

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

    def static_href(self, kind: str, filename: str) -> str | None:
        """Link from this chapter's page to a file the build publishes under
        ``_static/<kind>/<chapter>/`` (the tables as CSV); None when the page is unknown."""
        notebook = self.parameters.get("notebook") or ""
        if not notebook:
            return None
        up = "../" * len(Path(notebook).parent.parts)
        return f"{up}_static/{kind}/{self.name}/{filename}"

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
        from .reproducibility import lock_sha256

        if not hasattr(self, "_lock_sha256"):
            self._lock_sha256 = lock_sha256(self.root)
        return {
            "chapter": self.name,
            "notebook": self.parameters.get("notebook", ""),
            "parameters": self.parameters,
            "git_commit": self.commit,
            "git_dirty": self.dirty,
            "svmcert_version": __version__,
            "lock_sha256": self._lock_sha256,
            "data_sha256": dict(self.data_checksums),
        }


#: Matplotlib settings of every chapter: figures at most the page's width, text legible at that width.
FIGURE_STYLE = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
                "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.titlesize": 11, "figure.dpi": 100,
                "figure.figsize": (6.4, 4.0)}


def start_chapter(name: str, paper: str | None = None, *, header: bool = True, **parameters) -> Chapter:
    """Open a chapter: later :func:`save_table` and :mod:`svmcert.claims` calls write to it.

    The chapter's parameters are recorded as provenance. Without explicit ``parameters``, they are
    the names assigned in the notebook's cell tagged ``parameters``, with the values they have
    now (after any ``quick`` adjustments): the notebook is ``notebook=`` or the one the runner is
    executing (``$SVMCERT_NOTEBOOK``). With ``header``, the chapter shows the exact command that
    regenerates it and a "How to cite" box (``svmcert.book.front_matter.ChapterHeader``).
    Figures get the book's matplotlib style (``svmcert.book.chapter.FIGURE_STYLE``).
    """
    import inspect
    import os

    from .front_matter import COMPANION_KEY, PAPER_KEYS, ChapterHeader, bibtex_entries, injected_parameters
    from .front_matter import notebook_parameters, rerun_command

    global _CURRENT
    notebook = parameters.pop("notebook", None) or os.environ.get("SVMCERT_NOTEBOOK") or ""
    root = project_root()
    if not parameters and notebook and (root / notebook).is_file():
        caller = inspect.currentframe().f_back.f_globals
        parameters = {k: caller[k] for k in notebook_parameters(root / notebook) if k in caller}
    _CURRENT = Chapter(name, paper, {"notebook": notebook, **parameters})
    try:
        import matplotlib

        matplotlib.rcParams.update(FIGURE_STYLE)
    except ImportError:  # pragma: no cover - matplotlib is in the [book] extra
        pass
    if header:
        from IPython import get_ipython

        if get_ipython() is not None:
            from IPython.display import display as show

            keys = ([PAPER_KEYS[paper]] if paper in PAPER_KEYS else []) + [COMPANION_KEY]
            show(ChapterHeader(name, paper, rerun_command(name, injected_parameters()),
                               bibtex_entries(root / "references.bib", keys)))
    return _CURRENT


def current_chapter() -> Chapter:
    """The chapter opened by :func:`start_chapter`; error if none is open."""
    if _CURRENT is None:
        raise RuntimeError("no chapter is open: call svmcert.book.start_chapter(name, ...) first")
    return _CURRENT


def save_table(table, name: str, *, rtol: float, atol: float, timing=(), path=(), exact=(), path_reason: str = "",
               tolerances: dict | None = None, caption: str | None = None, display: bool = True,
               group_by=None, group_order: dict | None = None, group_labels: dict | None = None):
    """Write a table as CSV (atomically) and display it with its provenance note underneath.

    Parameters
    ----------
    table : DataFrame or list of dicts
    name : str
        File stem, e.g. ``"optimality_gap"``.
    rtol, atol : float
        The tolerance ``svmcert book check`` allows between a regenerated table and the committed
        one, per numeric cell: ``|new - old| <= atol + rtol * |old|``. Choose them from what
        legitimately moves between runs and machines (solver accuracy, floating point).
    timing : list of str
        Names of columns that hold wall-clock measurements (or ratios of them); they are shown but
        excluded from the drift check.
    path : list of str
        Names of columns that hold path quantities — iteration and epoch counts, convergence
        flags, decisions taken at near-ties — which move with floating-point kernels; shown but not
        compared. ``path_reason`` says why (recorded in the sidecar).
    path_reason : str
        Why the ``path`` columns move (recorded in the sidecar).
    exact : list of str
        Names of numeric columns that must be reproduced exactly (instance parameters, sizes,
        counts the mathematics fixes). Text columns are always exact; the other numeric columns
        are values, compared with ``rtol`` and ``atol``.
    tolerances : dict, optional
        ``{column: (rtol, atol)}`` for value columns whose accuracy differs from the table's: e.g.
        a residual at the level of a solver's tolerance, which can move by that much.
    caption : str, optional
        A sentence shown above the table.
    display : bool
        Show the table (and its provenance note). The sidecar records the choice
        (``"displayed"``), so tests of the rendered book know which tables a page must show.
    group_by, group_order, group_labels : how the page groups the rows (see
        ``svmcert.book.tables.TableView``); display only: the CSV and its sidecar do not change.

    Returns
    -------
    None
        The table is displayed here (when ``display``); returning it as well would make Jupyter
        show it a second time when the call ends a cell.
    """
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    classes = {}
    for label, cols in (("timing", timing), ("path", path), ("exact", exact)):
        if isinstance(cols, str):
            raise ValueError(f"{label}: expected a list of column names, got the string {cols!r}")
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ValueError(f"{label}: columns {missing} are not in the table (columns: {list(df.columns)})")
        twice = [c for c in cols if c in classes]
        if twice:
            raise ValueError(f"{label}: columns {twice} are already declared {classes[twice[0]]!r}")
        classes.update({c: label for c in cols})
    if path and not path_reason:
        raise ValueError("path_reason: say why the path columns move between machines")
    for col in df.columns:
        if col not in classes:
            classes[col] = "value" if pd.api.types.is_numeric_dtype(df[col]) and not pd.api.types.is_bool_dtype(df[col]) else "exact"
    if rtol < 0 or atol < 0:
        raise ValueError(f"rtol, atol: expected numbers >= 0, got {rtol}, {atol}")
    per_column = {}
    for col, pair in (tolerances or {}).items():
        if col not in df.columns or classes.get(col) != "value":
            raise ValueError(f"tolerances: {col!r} is not a value column of the table")
        r, a = (float(x) for x in pair)
        if r < 0 or a < 0:
            raise ValueError(f"tolerances: expected (rtol, atol) >= 0 for {col!r}, got {pair!r}")
        per_column[str(col)] = [r, a]
    chapter = current_chapter()
    path = chapter.tables_dir / f"{name}.csv"
    atomic_write_text(path, df.to_csv(index=False, float_format="%.10g"))
    provenance = chapter.provenance()
    meta = {"kind": "table", "rtol": rtol, "atol": atol, "columns": {str(c): classes[c] for c in df.columns},
            "column_tolerances": per_column,
            "timing_columns": list(timing), "path_reason": path_reason, "caption": caption or "",
            "displayed": bool(display), "provenance": provenance}
    atomic_write_text(path.with_suffix(".meta.json"), json.dumps(_plain(meta), indent=1) + "\n")
    if display:
        from IPython.display import display as show

        from .tables import TableView

        show(TableView(df, name, caption, chapter.static_href("tables", f"{name}.csv"), group_by=group_by,
                       group_order=group_order, group_labels=group_labels))
        final = data_dir() / "tables" / chapter.name / f"{name}.csv"   # where the runner commits it
        show(ProvenanceNote("table", name, provenance, relative_to_root(final, chapter.root)))


_PENDING_FIGURE_NOTES: list = []


def _show_pending_figure_notes(*_args) -> None:
    """``post_run_cell`` hook: show the notes of the figures saved in the cell that just ran.

    It runs after the inline backend has drawn the cell's figures (``post_execute``), so each note
    lands under its figure, in the same cell's output.
    """
    from IPython import get_ipython
    from IPython.display import display as show

    notes = list(_PENDING_FIGURE_NOTES)
    _PENDING_FIGURE_NOTES.clear()
    shell = get_ipython()
    if shell is not None:
        try:
            shell.events.unregister("post_run_cell", _show_pending_figure_notes)
        except ValueError:
            pass
    for note in notes:
        show(note)


def save_figure(fig, name: str, display: bool = False, caption: str | None = None,
                alt: str | None = None) -> Path:
    """Save a matplotlib figure under ``_build/figures/<chapter>/<name>.png`` (regenerated, not committed).

    A sidecar ``<name>.meta.json`` records its provenance, like a table's, with the ``caption``
    (what is plotted and what to see; the rendered book numbers the figure through it) and the
    ``alt`` text (a description of the image for readers who cannot see it; the rendered image's
    alt attribute, the caption when omitted). With ``display`` the
    figure is shown here, with its provenance note under it. Without (the usual pattern is
    ``save_figure(fig, name)`` followed by ``plt.show()``) the note is shown at the end of the
    cell, after the figure; outside IPython there is nothing to show.
    """
    chapter = current_chapter()
    path = chapter.figures_dir / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())
    provenance = chapter.provenance()
    meta = {"kind": "figure", "caption": caption or "", "alt": alt or "", "file": path.name,
            "provenance": provenance}
    atomic_write_text(path.with_suffix(".meta.json"), json.dumps(_plain(meta), indent=1) + "\n")
    note = ProvenanceNote("figure", name, provenance, relative_to_root(path, chapter.root))
    from IPython import get_ipython

    if display:
        from IPython.display import display as show

        show(fig)
        show(note)
        import matplotlib.pyplot as plt

        plt.close(fig)  # shown once: the inline backend would draw an open figure again at the cell's end
    elif get_ipython() is not None:
        shell = get_ipython()
        if not _PENDING_FIGURE_NOTES:
            shell.events.register("post_run_cell", _show_pending_figure_notes)
        _PENDING_FIGURE_NOTES.append(note)
    return path


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` with numpy scalars turned into plain Python numbers first."""
    from myst_nb import glue as _glue

    value = _plain(value)
    _glue(name, value, display=display)
    return value
