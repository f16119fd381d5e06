"""What a chapter shows before its science: how to rerun it, and how to cite it.

:func:`notebook_parameters` reads the names assigned in a notebook's cell tagged ``parameters``, so
that :func:`svmcert.book.start_chapter` records their values as provenance without the chapter
retyping them. :func:`rerun_command` is the exact ``svmcert book run`` command that regenerates
the chapter's tables with the parameters it ran with. :class:`ChapterHeader` shows both, with the
BibTeX of the companion and of the paper the chapter verifies (from ``references.bib``).
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import shlex
from pathlib import Path

__all__ = ["PAPER_KEYS", "COMPANION_KEY", "notebook_parameters", "rerun_command", "injected_parameters",
           "bibtex_entries", "ChapterHeader"]

#: The BibTeX key of each paper in ``references.bib``, and the companion's own.
PAPER_KEYS = {"tajima": "tajima2021signsvm", "hanada": "hanada2024drsss", "aksu": "aksu2012featelim"}
COMPANION_KEY = "svmcert2026"


def notebook_parameters(notebook: Path) -> list[str]:
    """Names assigned in the notebook's cell tagged ``parameters`` (in order of assignment)."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", []) if "parameters" in (c.get("metadata", {}).get("tags") or [])]
    if len(cells) != 1:
        raise ValueError(f"notebook: expected one cell tagged 'parameters' in {notebook}, found {len(cells)}")
    tree = ast.parse("".join(cells[0]["source"]))
    names: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name) and leaf.id not in names:
                    names.append(leaf.id)
    return names


def _yaml_value(value) -> str:
    """A parameter value as `svmcert book run -p NAME VALUE` parses it (YAML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value)


def rerun_command(chapter: str, injected: dict | None = None) -> str:
    """``svmcert book run <chapter>`` with ``--quick`` and one ``-p NAME VALUE`` per parameter the
    runner injected (the values that differ from the notebook's own)."""
    injected = dict(injected or {})
    parts = ["svmcert", "book", "run", chapter]
    if injected.pop("quick", False):
        parts.append("--quick")
    for key, value in injected.items():
        parts += ["-p", key, _yaml_value(value)]
    return " ".join(shlex.quote(p) for p in parts)


def injected_parameters() -> dict:
    """The parameters ``svmcert book run`` injected into this kernel (``$SVMCERT_PARAMETERS``)."""
    try:
        return dict(json.loads(os.environ.get("SVMCERT_PARAMETERS") or "{}"))
    except (ValueError, TypeError):
        return {}


def bibtex_entries(bib: Path, keys) -> list[str]:
    """The entries of ``bib`` with the given keys, as written there (in the order of ``keys``)."""
    text = Path(bib).read_text(encoding="utf-8") if Path(bib).is_file() else ""
    found = {}
    for match in re.finditer(r"@\w+\{([^,\s]+),", text):
        start, depth, i = match.start(), 0, match.end() - 1
        for i in range(text.index("{", start), len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
        found[match.group(1)] = text[start:i + 1]
    return [found[k] for k in keys if k in found]


class ChapterHeader:
    """Shown by ``start_chapter``: the rerun command, and a collapsed "How to cite" box."""

    def __init__(self, chapter: str, paper: str | None, command: str, bibtex: list[str]):
        self.chapter, self.paper, self.command, self.bibtex = chapter, paper, command, bibtex

    def __repr__(self) -> str:
        return f"Rerun this chapter: {self.command}"

    def _repr_html_(self) -> str:
        esc = html.escape
        cite = ""
        if self.bibtex:
            what = "the paper this chapter verifies and this companion" if self.paper else "this companion"
            cite = (f'<details class="svmcert-cite"><summary>How to cite: {what}</summary>'
                    f'<pre class="svmcert-bibtex">{esc(chr(10).join(self.bibtex))}</pre></details>')
        return (f'<div class="svmcert-chapter-header tex2jax_ignore mathjax_ignore" data-chapter="{esc(self.chapter)}">'
                f'<div class="svmcert-rerun">Every table and number on this page is computed. To regenerate them: '
                f'<code>{esc(self.command)}</code></div>{cite}</div>')
