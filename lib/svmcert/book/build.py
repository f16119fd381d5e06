"""``svmcert book build``: render the executed chapters with Jupyter Book 1.

The committed notebooks carry no outputs and ``_config.yml`` says ``execute_notebooks: off``, so
the build works on a mirror of the sources in ``_build/src`` in which every notebook is replaced by
its executed copy from ``_build/executed`` (written by ``svmcert book run``). HTML lands in
``_build/html``; with ``pdf=True`` the whole book goes through Jupyter Book's LaTeX builder
instead (XeLaTeX, configured in ``_config.yml``) to ``_build/latex/svmcert.pdf``.

The mirror also gets what the pages link to and need offline: MathJax, the book's table script and
style (``assets/``), and every table as CSV (``_static/tables/<chapter>/<name>.csv``). Every figure
saved by :func:`svmcert.book.save_figure` becomes a numbered figure with its caption and alt text
(:func:`annotate_figures`), and the footer of every page names the version and commit that made it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .latex import add_latex_tables
from .paths import project_root
from .runner import toc_notebooks

__all__ = ["BUILD_RECORD", "assemble_sources", "annotate_figures", "build_book", "pdf_path", "vendor_mathjax",
           "vendor_assets"]

_TOP_FILES = ("_config.yml", "_toc.yml", "references.bib", "logo.png")
#: Written into ``_build/html`` after a build: ``{"quick": bool, "data": "data" or "_build/quick/data"}``,
#: the run whose tables and claims the pages show.
BUILD_RECORD = "svmcert-build.json"


def assemble_sources(root: Path, executed: Path, dest: Path, pdf: bool = False) -> Path:
    """Copy the book's sources to ``dest`` with executed notebooks in place of the committed ones.

    With ``pdf``, every table output also gets its LaTeX form (:func:`~.latex.add_latex_tables`).
    """
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
            nb = json.loads((executed / rel).read_text(encoding="utf-8"))
            annotate_figures(nb, root / "_build" / "figures")
            if pdf:
                add_latex_tables(nb)
            for cell in nb.get("cells", []):   # papermill's injected parameters: the header shows them
                tags = cell.get("metadata", {}).get("tags", [])
                if "injected-parameters" in tags and "remove-cell" not in tags:
                    tags.append("remove-cell")
            out.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        else:
            shutil.copy2(src, out)
    return dest


_FIGURE_NOTE = re.compile(r'class="svmcert-provenance[^"]*" data-kind="figure" data-name="([^"]+)"')
_FIGURE_FILE = re.compile(r'_build/figures/([^/<"]+)/[^/<"]+\.png')


def annotate_figures(nb: dict, figures: Path) -> int:
    """Give every cell that shows one saved figure the figure's caption, name and alt text.

    A cell shows a saved figure when its output holds the figure's provenance note (written by
    :func:`svmcert.book.save_figure`); the caption and alt text come from the figure's sidecar
    ``<figures>/<chapter>/<name>.meta.json`` (the chapter is the one the note's file path names).
    myst-nb then renders the image as a numbered figure (``numfig``) with that caption. myst-nb
    wraps *every* output of a cell with figure metadata in a figure, so the image moves to a cell
    of its own (input removed) right after the cell that drew it, and the outputs that followed it
    (the provenance note) to one more such cell: the page shows the same outputs in the same
    order, with one numbered figure. Returns how many figures were annotated.
    """
    count = 0
    cells = []
    for cell in nb.get("cells", []):
        cells.append(cell)
        if cell.get("cell_type") != "code":
            continue
        outputs = cell.get("outputs", [])
        notes, chapters = [], []
        for out in outputs:
            text = out.get("data", {}).get("text/html", "")
            text = "".join(text) if isinstance(text, list) else text
            notes += _FIGURE_NOTE.findall(text)
            chapters += _FIGURE_FILE.findall(text)
        images = [k for k, o in enumerate(outputs) if "image/png" in o.get("data", {})]
        if len(notes) != 1 or len(images) != 1:
            continue
        # two chapters may name a figure alike: the note's file path says whose it is
        where = f"{chapters[0]}/" if len(chapters) == 1 else "*/"
        meta_files = list(figures.glob(f"{where}{notes[0]}.meta.json"))
        metas = [json.loads(p.read_text(encoding="utf-8")) for p in meta_files]
        metas = [m for m in metas if m.get("caption")]
        if len(metas) != 1:
            continue
        meta = metas[0]
        chapter = meta.get("provenance", {}).get("chapter", "")
        k = images[0]
        figure = {"cell_type": "code", "execution_count": None, "id": f"{cell.get('id', 'cell')}-figure",
                  "metadata": {"tags": ["remove-input"], "mystnb": {
                      "figure": {"caption": meta["caption"], "name": f"fig-{chapter}-{notes[0]}"},
                      "image": {"alt": meta.get("alt") or meta["caption"]}}},
                  "outputs": [outputs[k]], "source": "# the figure drawn by the cell above"}
        cells.append(figure)
        if outputs[k + 1:]:
            cells.append({"cell_type": "code", "execution_count": None, "id": f"{cell.get('id', 'cell')}-after",
                          "metadata": {"tags": ["remove-input"]}, "outputs": outputs[k + 1:],
                          "source": "# what the cell above showed after its figure"})
        cell["outputs"] = outputs[:k]
        count += 1
    if "cells" in nb:
        nb["cells"] = cells
    return count


def vendor_assets(static_dir: Path, root: Path, quick: bool = False) -> None:
    """The book's table script and style, and every table of the run as CSV, under ``static_dir``
    (published as ``_static``: ``_static/svmcert-tables.js``, ``_static/tables/<chapter>/<name>.csv``)."""
    static_dir.mkdir(parents=True, exist_ok=True)
    for asset in (Path(__file__).parent / "assets").iterdir():
        if asset.is_file():
            shutil.copy2(asset, static_dir / asset.name)
    tables = static_dir / "tables"
    shutil.rmtree(tables, ignore_errors=True)
    data = root / "_build" / "quick" / "data" / "tables" if quick else root / "data" / "tables"
    if data.is_dir():
        for csv in data.rglob("*.csv"):
            target = tables / csv.relative_to(data)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(csv, target)


def _pdf_config(config: Path) -> None:
    """The PDF build parses ``text/markdown`` outputs as MyST, so that the tables' ``{raw} latex``
    blocks (:mod:`svmcert.book.latex`) reach LaTeX."""
    import yaml

    cfg = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    cfg.setdefault("sphinx", {}).setdefault("config", {})["nb_render_markdown_format"] = "myst"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")


def _stamp_footer(config: Path, root: Path) -> None:
    """Name the library version, the commit and the repository in the footer of every page."""
    import yaml

    from .. import __version__
    from .provenance import git_state

    commit, dirty = git_state(root)
    cfg = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    url = (cfg.get("repository") or {}).get("url", "")
    where = f' · <a href="{url}">{url}</a>' if url else ""
    cfg.setdefault("html", {})["extra_footer"] = (
        f'<p class="svmcert-footer">svmcert {__version__} · commit <code>{commit[:12]}</code>'
        f'{" with local changes" if dirty else ""}{where}</p>')
    config.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")


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


def pdf_path(root: Path) -> Path:
    """Where the LaTeX build puts the whole-book PDF: ``_build/latex/<targetname>.pdf``, the
    target named in ``_config.yml`` (``latex: latex_documents: targetname``)."""
    import yaml

    cfg = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    target = ((cfg.get("latex") or {}).get("latex_documents") or {}).get("targetname", "book.tex")
    return root / "_build" / "latex" / (Path(target).stem + ".pdf")


def build_book(root: Path | None = None, quick: bool = False, pdf: bool = False) -> int:
    """Assemble the sources and run ``jupyter-book build``; return its exit status.

    ``pdf=False`` renders ``_build/html``; ``pdf=True`` runs the ``pdflatex`` builder (which
    compiles with the engine ``_config.yml`` names, XeLaTeX) and checks that the PDF exists.
    """
    root = project_root() if root is None else Path(root)
    build = root / "_build"
    executed = build / ("quick-executed" if quick else "executed")
    src = assemble_sources(root, executed, build / "src", pdf=pdf)
    vendor_mathjax(src / "_vendor")
    vendor_assets(src / "_vendor", root, quick)
    _stamp_footer(src / "_config.yml", root)
    if pdf:
        _pdf_config(src / "_config.yml")
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(src), "--path-output", str(root),
           "--builder", "pdflatex" if pdf else "html", "--keep-going"]
    if pdf:
        target = pdf_path(root)
        target.unlink(missing_ok=True)   # a PDF left from an earlier build must not pass for this one
        proc = subprocess.run(cmd, cwd=root)
        if proc.returncode == 0 and not target.is_file():
            print(f"jupyter-book finished but {target} is missing (see {target.parent}/*.log)", file=sys.stderr)
            return 1
        if proc.returncode == 0:
            print(f"book: {target}")
        return proc.returncode
    (build / "html" / BUILD_RECORD).unlink(missing_ok=True)
    proc = subprocess.run(cmd, cwd=root)
    index = build / "html" / "index.html"
    if proc.returncode == 0 and not index.is_file():
        print(f"jupyter-book finished but {index} is missing", file=sys.stderr)
        return 1
    if proc.returncode == 0:
        # which run the pages show: tests of the rendered book compare them with its data
        data = "_build/quick/data" if quick else "data"
        (build / "html" / BUILD_RECORD).write_text(json.dumps({"quick": quick, "data": data}) + "\n", encoding="utf-8")
        print(f"book: {index}")
    return proc.returncode
