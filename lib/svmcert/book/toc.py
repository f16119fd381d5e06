"""The book's table of contents as the runner sees it: the notebooks ``_toc.yml`` lists, in book order
(appendix pages, which aggregate the others, last), and the selection ``svmcert book run NAME``
makes of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from .paths import project_root

__all__ = ["ChapterJob", "toc_files", "toc_notebooks", "select_chapters", "chapter_counts"]


@dataclass(frozen=True)
class ChapterJob:
    name: str           # notebook stem, e.g. "lp-step"
    notebook: Path      # relative to the project root, e.g. book/sign-constrained/lp-step.ipynb
    aggregate: bool     # appendix notebooks read other chapters' outputs: they run last


def toc_files(node) -> list[str]:
    """Every ``file`` and ``root`` entry of a parsed ``_toc.yml``, in order."""
    files = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(node["file"])
        if "root" in node:
            files.append(node["root"])
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key, []) or []:
                files.extend(toc_files(child))
    elif isinstance(node, list):
        for child in node:
            files.extend(toc_files(child))
    return files


def toc_notebooks(root: Path | None = None) -> list[ChapterJob]:
    """The notebooks listed in ``_toc.yml``, in book order, appendix notebooks last."""
    root = project_root() if root is None else Path(root)
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    jobs, seen = [], {}
    for entry in toc_files(toc):
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


def chapter_counts(root: Path) -> dict[str, int]:
    """How many chapters and aggregate (appendix) pages ``_toc.yml`` lists; empty if it cannot be read."""
    try:
        jobs = toc_notebooks(root)
    except (OSError, ValueError, yaml.YAMLError):
        return {}
    return {"chapters": sum(not j.aggregate for j in jobs), "aggregate": sum(j.aggregate for j in jobs)}
