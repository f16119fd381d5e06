"""Provenance of a table or figure: what produced it, and the note shown under it in the book.

:func:`svmcert.book.save_table` and :func:`svmcert.book.save_figure` write a ``<name>.meta.json``
sidecar beside each CSV/PNG whose ``provenance`` entry records the notebook, its papermill
parameters, the git commit (and whether ``lib/`` or ``book/`` had uncommitted changes), the
library version and the sha256 of every data set the chapter used. :class:`ProvenanceNote` renders
the same record as one collapsed line under the table or figure (HTML in the book, plain text on a
console). The HTML carries ``class="svmcert-provenance"`` and ``data-kind``/``data-name``
attributes so tests of the rendered book can find the note of every table and figure.
"""

from __future__ import annotations

import html
from pathlib import Path

from .timed import git_state  # noqa: F401  (re-exported: the runner and the chapters call it from here)

__all__ = ["git_state", "ProvenanceNote", "short_parameters"]

_SHORT_SHA = 12


def short_parameters(parameters: dict, limit: int = 60) -> str:
    """``name=value`` pairs (``notebook`` left out: it is shown on its own), long values cut."""
    parts = []
    for key, value in parameters.items():
        if key == "notebook":
            continue
        text = repr(value)
        if len(text) > limit:
            text = text[: limit - 1] + "…"
        parts.append(f"{key}={text}")
    return ", ".join(parts)


class ProvenanceNote:
    """The note displayed under a table or figure (``_repr_html_`` in the book, ``repr`` on a console).

    Parameters
    ----------
    kind : ``"table"`` or ``"figure"``.
    name : the table's or figure's file stem.
    provenance : the ``provenance`` dict of the sidecar (see :meth:`svmcert.book.Chapter.provenance`).
    path : where the CSV/PNG was written, shown relative to the project root when possible.
    """

    def __init__(self, kind: str, name: str, provenance: dict, path: str = ""):
        self.kind, self.name, self.provenance, self.path = kind, name, provenance, path

    def _fields(self):
        p = self.provenance
        commit = str(p.get("git_commit", "unknown"))
        commit_short = commit[:7] + (" + local changes" if p.get("git_dirty") else "")
        data = ", ".join(f"{k} {str(v)[:_SHORT_SHA]}" for k, v in (p.get("data_sha256") or {}).items())
        return p.get("notebook") or p.get("chapter", ""), commit, commit_short, data

    def __repr__(self) -> str:
        notebook, _, commit_short, data = self._fields()
        line = (f"{self.kind} {self.name}: {notebook}, commit {commit_short}, "
                f"svmcert {self.provenance.get('svmcert_version', '?')}")
        params = short_parameters(self.provenance.get("parameters") or {})
        if params:
            line += f"; parameters {params}"
        if data:
            line += f"; data sha256 {data}"
        return line

    def _repr_html_(self) -> str:
        esc = html.escape
        notebook, commit, commit_short, data = self._fields()
        params = short_parameters(self.provenance.get("parameters") or {})
        version = esc(str(self.provenance.get("svmcert_version", "?")))
        rows = [f"parameters: <code>{esc(params) or '(defaults)'}</code>"]
        if data:
            rows.append(f"data sha256: <code>{esc(data)}</code>")
        rows.append(f"commit: <code>{esc(commit)}</code>")
        lock = self.provenance.get("lock_sha256")
        if lock:
            rows.append(f"environment lock sha256: <code>{esc(str(lock)[:_SHORT_SHA])}</code> (<code>requirements/lock.txt</code>)")
        if self.path:
            rows.append(f"file: <code>{esc(self.path)}</code> (sidecar <code>.meta.json</code>)")
        # tex2jax_ignore: MathJax leaves the note alone; the note holds no <table> (tests count tables)
        return (
            f'<details class="svmcert-provenance tex2jax_ignore mathjax_ignore" data-kind="{esc(self.kind)}" '
            f'data-name="{esc(self.name)}" style="font-size:0.78em;color:#666;margin:0.1em 0 1em 0">'
            f'<summary>Provenance of this {esc(self.kind)}: <code>{esc(notebook)}</code> · commit '
            f'<code>{esc(commit_short)}</code> · svmcert {version}</summary>'
            f'<div style="padding-left:1em">{"<br>".join(rows)}</div></details>'
        )


def relative_to_root(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)
