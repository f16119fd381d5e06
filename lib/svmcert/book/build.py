"""``svmcert book build``: render the executed chapters with Jupyter Book 1.

The committed notebooks carry no outputs and ``_config.yml`` says ``execute_notebooks: off``, so
the build works on a mirror of the sources in ``_build/src`` in which every notebook is replaced by
its executed copy from ``_build/executed`` (written by ``svmcert book run``). HTML lands in
``_build/html``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .paths import project_root
from .runner import toc_notebooks

__all__ = ["assemble_sources", "build_book", "vendor_mathjax"]

_TOP_FILES = ("_config.yml", "_toc.yml", "references.bib", "logo.png")


def assemble_sources(root: Path, executed: Path, dest: Path) -> Path:
    """Copy the book's sources to ``dest`` with executed notebooks in place of the committed ones."""
    missing = [str(j.notebook) for j in toc_notebooks(root) if not (executed / j.notebook).is_file()]
    if missing:
        raise FileNotFoundError(
            f"no executed copy of {', '.join(missing)} under {executed}: run `svmcert book run` first"
        )
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in _TOP_FILES:
        if (root / name).is_file():
            shutil.copy2(root / name, dest / name)
    for src in (root / "book").rglob("*"):
        if src.is_dir() or ".ipynb_checkpoints" in src.parts:
            continue
        rel = src.relative_to(root)
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".ipynb":
            shutil.copy2(executed / rel, out)
        else:
            shutil.copy2(src, out)
    return dest


def vendor_mathjax(static_dir: Path) -> Path:
    """Copy MathJax 3 (es5 build, from the ``django-static-mathjax`` wheel) into ``static_dir``.

    The book then typesets its mathematics without reaching a CDN, so it reads correctly offline.
    ``build_book`` passes ``<src>/_vendor``: ``_config.yml`` lists that folder in
    ``html_static_path`` (Sphinx publishes it as ``_static``) and points ``mathjax_path`` at
    ``mathjax/tex-chtml.js``. The folder must not be called ``_static`` in the sources: Jupyter
    Book 1 adds every ``.js`` file under a source ``_static`` folder to every page.
    """
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("MathJax is not installed: pip install django-static-mathjax (see pyproject.toml)")
    source = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    if not (source / "tex-chtml.js").is_file():
        raise FileNotFoundError(f"no tex-chtml.js under {source}")
    target = static_dir / "mathjax"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    return target


def build_book(root: Path | None = None, quick: bool = False) -> int:
    """Assemble the sources and run ``jupyter-book build``; return its exit status."""
    root = project_root() if root is None else Path(root)
    build = root / "_build"
    executed = build / ("quick-executed" if quick else "executed")
    src = assemble_sources(root, executed, build / "src")
    vendor_mathjax(src / "_vendor")
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(src), "--path-output", str(root),
           "--builder", "html", "--keep-going"]
    proc = subprocess.run(cmd, cwd=root)
    index = build / "html" / "index.html"
    if proc.returncode == 0 and not index.is_file():
        print(f"jupyter-book finished but {index} is missing", file=sys.stderr)
        return 1
    if proc.returncode == 0:
        print(f"book: {index}")
    return proc.returncode
