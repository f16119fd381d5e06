"""What the Reproducibility appendix shows: environment versions, the platform, the commit, the
data sets' checksums and every external link the book uses.

The page (``book/appendix/reproducibility.ipynb``) only calls these functions; the link test of the
built book (``tests/test_links.py``) checks that every external link in the rendered HTML is one that
:func:`external_links` found, so the page's list is complete.
"""

from __future__ import annotations

import json
import platform
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .paths import project_root
from .provenance import git_state

__all__ = ["DISTRIBUTIONS", "LOCK_FILE", "environment_versions", "platform_summary", "external_links",
           "links_markdown", "dataset_checksums", "lock_sha256", "locked_versions"]

#: The exact, hashed lock of the book's environment, relative to the project root (`make lock`).
LOCK_FILE = "requirements/lock.txt"

#: Distributions whose versions decide the book's numbers or its rendering.
DISTRIBUTIONS = (
    "svmcert", "numpy", "scipy", "pandas", "matplotlib", "cvxpy", "clarabel", "scs", "highspy",
    "scikit-learn", "numba", "jax", "jaxlib", "neural-tangents", "tf2jax", "tensorflow", "biopython",
    "mlxtend", "papermill", "ipykernel", "jupyter-book", "myst-nb", "sphinx", "sphinxcontrib-bibtex",
    "sphinx-book-theme", "django-static-mathjax",
)

_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`|\\]+")


def environment_versions(names=DISTRIBUTIONS) -> list[dict]:
    """``[{"package": name, "version": ...}]``; ``"not installed"`` for a missing distribution."""
    rows = []
    for name in names:
        try:
            rows.append({"package": name, "version": version(name)})
        except PackageNotFoundError:
            rows.append({"package": name, "version": "not installed"})
    return rows


def lock_sha256(root: Path | None = None) -> str:
    """sha256 of the lock file (``"no lock"`` when the project has none): recorded in the provenance
    of every table and figure, so a number can be traced to the exact environment that made it."""
    import hashlib

    root = project_root() if root is None else Path(root)
    path = root / LOCK_FILE
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "no lock"


def locked_versions(root: Path | None = None) -> list[dict]:
    """``[{"package", "locked", "installed"}]`` for every package of the lock, in the lock's order;
    ``installed`` is what the running environment has (``"not installed"`` if missing)."""
    from packaging.utils import canonicalize_name

    root = project_root() if root is None else Path(root)
    path = root / LOCK_FILE
    rows = []
    if not path.is_file():
        return rows
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s\\;]+)", line)
        if not m:
            continue
        name = str(canonicalize_name(m.group(1)))
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "not installed"
        rows.append({"package": name, "locked": m.group(2), "installed": installed})
    return rows


def platform_summary(root: Path | None = None) -> list[dict]:
    """Python, operating system, CPU, BLAS/OpenMP libraries and the git commit, as ``item``/``value`` rows."""
    root = project_root() if root is None else Path(root)
    commit, dirty = git_state(root)
    rows = [
        {"item": "python", "value": f"{platform.python_implementation()} {platform.python_version()}"},
        {"item": "platform", "value": platform.platform()},
        {"item": "machine", "value": platform.machine()},
        {"item": "cpu count", "value": str(_cpu_count())},
        {"item": "git commit", "value": commit + (" (with uncommitted changes in lib/ or book/)" if dirty else "")},
        {"item": "lock sha256", "value": lock_sha256(root)},
    ]
    try:
        from threadpoolctl import threadpool_info

        import numpy  # noqa: F401  (loads the BLAS threadpoolctl reports)

        for pool in threadpool_info():
            rows.append({"item": f"{pool.get('user_api', '?')} library",
                         "value": f"{pool.get('internal_api', '?')} {pool.get('version') or ''}"
                                  f" ({pool.get('num_threads', '?')} threads)".replace("  ", " ")})
    except Exception:  # pragma: no cover - threadpoolctl missing or failing: the rest still holds
        pass
    return rows


def _cpu_count() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def dataset_checksums() -> list[dict]:
    """The registry of the LIBSVM data sets: name, expected sha256 and source URL (as text)."""
    from .. import datasets

    return [{"dataset": s.name, "file": s.filename, "sha256": s.sha256, "source": s.url}
            for s in datasets.REGISTRY.values()]


def _clean(url: str) -> str:
    return url.rstrip(".,;:!?*_")


def _bib_links(text: str) -> list[str]:
    links = []
    for field, value in re.findall(r"(?im)^\s*(url|doi|eprint)\s*=\s*[{\"]([^}\"]+)[}\"]", text):
        field, value = field.lower(), value.strip()
        if field == "url":
            links.append(value)
        elif field == "doi":
            links.append(f"https://doi.org/{value}")
        else:
            links.append(f"https://arxiv.org/abs/{value}")
    return links


def _page_text(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        return "\n".join("".join(c.get("source", "")) for c in nb.get("cells", []) if c.get("cell_type") == "markdown")
    return path.read_text()


def external_links(root: Path | None = None) -> dict[str, list[str]]:
    """Every external (http/https) link the book's pages and bibliography use, mapped to where.

    Scans the markdown of every page listed in ``_toc.yml`` (``.md`` files and the markdown cells
    of notebooks) and the ``url``/``doi``/``eprint`` fields of ``references.bib`` (rendered on the
    References page). Returns ``{url: [page, ...]}`` sorted by URL.
    """
    from .runner import toc_files

    import yaml

    root = project_root() if root is None else Path(root)
    found: dict[str, set[str]] = {}
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    for entry in toc_files(toc):
        for suffix in ("", ".md", ".ipynb"):
            path = root / f"{entry}{suffix}"
            if path.is_file():
                for url in _URL.findall(_page_text(path)):
                    found.setdefault(_clean(url), set()).add(Path(entry).with_suffix("").as_posix())
                break
    config = yaml.safe_load((root / "_config.yml").read_text()) if (root / "_config.yml").is_file() else {}
    repo = ((config or {}).get("repository") or {}).get("url")
    if repo:
        found.setdefault(repo, set()).add("every page (repository button and footer)")
    bib = root / "references.bib"
    if bib.is_file():
        for url in _bib_links(bib.read_text()):
            found.setdefault(url, set()).add("references.bib (References page)")
    return {url: sorted(where) for url, where in sorted(found.items())}


def links_markdown(links: dict[str, list[str]]) -> str:
    """A markdown list: one external link per line with the pages that use it."""
    if not links:
        return "*The book uses no external links.*"
    return "\n".join(f"- <{url}> — {', '.join(where)}" for url, where in links.items())
