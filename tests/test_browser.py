"""The rendered book in a real browser: headless Chromium on ``_build/html`` served on localhost.

For the intro, one chapter of each part, the first page of the API reference, the claims
ledger, the errata, the reproducibility and the references pages, Chromium loads the page from a
local ``http.server``, lets it run (virtual time budget) and dumps the DOM after JavaScript; a
second run saves a screenshot under ``_build/screenshots``. Asserted:

* math is typeset by the MathJax copy served from the build (``_static/mathjax``), not a CDN:
  every ``.math`` element holds an ``mjx-container``, no ``mjx-merror``, no raw ``$$``/``\\(``/``\\[``
  left in the rendered text, and no script, stylesheet or image comes from another host;
* every table and figure the chapter saved is on the page: at least as many non-empty ``<table>`` as
  displayed tables in ``<data>/tables/<chapter>/*.meta.json`` (``<data>``: ``data`` for a full build,
  ``_build/quick/data`` for a quick one, as ``_build/html/svmcert-build.json`` says), at least as many loaded ``<img>`` as
  figures in ``_build/figures/<chapter>``, and the provenance note of each of them next to it;
* no execution error: no traceback, no ``...Error:`` output, no error or stderr output block;
* the screenshot is a real picture (PNG of the window's size, not blank).

On every page of ``_toc.yml`` (the built HTML; the DOM after JavaScript where Chromium loaded the
page), with the detectors of ``tests/book_checks.py`` (unit-tested in ``test_book_checks.py``):

* no table that pandas cut short ("..." rows or columns);
* every image is a numbered figure ("Fig. N" caption) whose alt text describes it (not a path);
* no "issue N" and no "target" for a speed goal: reader pages speak of the papers and the library;
* the claims ledger lists every claim of the run's claims files (``<data>/claims``) with its
  verdict;
* the API reference documents every name of the library contract (``tests/api_contract.py``).

A failure names the page and the offending element.

Skipped (with the reason) when ``_build/html`` or Chromium is missing, unless
``SVMCERT_BROWSER_TEST_REQUIRED=1`` (set by ``make browser-test``), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

import book_checks
from api_contract import API_PAGES, CONTRACT

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
WINDOW = (1280, 1600)
PREFERRED = {"duality", "drsss"}   # the chapter shown for a part, when the part has it
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--virtual-time-budget=10000"]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def _missing() -> str | None:
    if not (HTML / "index.html").is_file():
        return "_build/html is absent: run `make book` first"
    if _chromium() is None:
        return "Chromium is not installed (Debian: apt-get install chromium)"
    return None


if _missing():
    if os.environ.get("SVMCERT_BROWSER_TEST_REQUIRED") == "1":
        raise RuntimeError(f"browser test required but cannot run: {_missing()}")
    pytestmark = pytest.mark.skip(reason=_missing())


def _pages() -> list[str]:
    """Pages to test (paths under _build/html without .html): intro, a chapter per part, appendix pages."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        files = [c["file"] for c in part.get("chapters", []) if "file" in c]
        if not files:
            continue
        if any("/appendix/" in f for f in files):
            pages += [f for f in files if Path(f).name in ("claims-ledger", "errata", "reproducibility", "references")]
        elif all("/api/" in f for f in files):
            pages.append(files[0])
        else:
            preferred = [f for f in files if Path(f).name in PREFERRED]
            pages.append((preferred or files)[0])
    return pages


PAGES = _pages()


def _toc_files(node) -> list[str]:
    if isinstance(node, list):
        return [f for child in node for f in _toc_files(child)]
    if not isinstance(node, dict):
        return []
    files = [node[k] for k in ("root", "file") if k in node]
    return files + [f for k in ("parts", "chapters", "sections") for f in _toc_files(node.get(k) or [])]


#: every reader page: the files of _toc.yml
ALL_PAGES = _toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text()))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _run_chromium(*args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="svmcert-chromium-") as profile:
        return subprocess.run([_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=180)


_RENDERED: dict[str, dict] = {}


@pytest.fixture
def rendered(server):
    """The page after JavaScript (DOM dump) and its screenshot, computed once per page."""
    def render(page: str) -> dict:
        if page not in _RENDERED:
            url = urljoin(server, f"{page}.html")
            dom = _run_chromium("--dump-dom", url)
            assert dom.returncode == 0 and "<html" in dom.stdout, f"chromium --dump-dom {url} failed:\n{dom.stderr[-2000:]}"
            SHOTS.mkdir(parents=True, exist_ok=True)
            shot = SHOTS / f"{page.replace('/', '_')}.png"
            shot.unlink(missing_ok=True)
            out = _run_chromium(f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}", url)
            assert out.returncode == 0 and shot.is_file(), f"chromium --screenshot {url} failed:\n{out.stderr[-2000:]}"
            _RENDERED[page] = {"url": url, "dom": dom.stdout, "shot": shot}
        return _RENDERED[page]
    return render


def _soup(text: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(text, "html.parser")


def _article(soup):
    article = soup.find("article")
    assert article is not None, "no <article> in the page (is this a 404?)"
    return article


def _visible_text(node) -> str:
    node = _soup(str(node))
    for tag in node.find_all(["script", "style", "pre", "code", "mjx-container", "mjx-assistive-mml", "noscript"]):
        tag.decompose()
    return node.get_text(" ")


# ----------------------------------------------------------------------------------------- tests
def test_pages_cover_every_part():
    chapters = [p for p in PAGES if "/appendix/" not in p and "/api/" not in p and p != "book/intro"]
    parts = [p for p in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]
             if p.get("chapters") and not any("/appendix/" in c.get("file", "") or "/api/" in c.get("file", "")
                                              for c in p["chapters"])]
    assert len(chapters) == len(parts) >= 2
    assert {"book/appendix/claims-ledger", "book/appendix/errata"} <= set(PAGES)
    assert any("/api/" in p for p in PAGES), "no page of the API reference part"
    assert set(API_PAGES.values()) <= set(ALL_PAGES), "an API page of tests/api_contract.py is not in _toc.yml"


@pytest.mark.parametrize("page", PAGES)
def test_screenshot_is_a_real_picture(page, rendered):
    import matplotlib.image as mpimg

    shot = rendered(page)["shot"]
    pixels = mpimg.imread(shot)
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0]), pixels.shape
    gray = pixels[..., :3].mean(axis=2)
    assert gray.std() > 0.02, f"{shot} is (almost) blank"
    assert (gray < 0.5).mean() > 0.002, f"{shot} has (almost) no dark pixels: no text was drawn"


@pytest.mark.parametrize("page", PAGES)
def test_math_is_typeset_by_the_local_mathjax(page, rendered):
    result = rendered(page)
    soup = _soup(result["dom"])
    host = urlsplit(result["url"]).netloc
    remote = [el.get("src") or el.get("href") for el in soup.find_all(["script", "link", "img", "iframe"])
              if urlsplit(el.get("src") or el.get("href") or "").netloc not in ("", host)
              and (el.name != "link" or "stylesheet" in (el.get("rel") or []) or el.get("as"))]
    assert not remote, f"resources from another host: {remote}"
    static = _soup((HTML / f"{page}.html").read_text())
    n_math = len(_article(static).select(".math"))
    mathjax = [s["src"] for s in soup.find_all("script", src=True) if "mathjax" in s["src"].lower()]
    assert all("_static/mathjax/tex-chtml.js" in s for s in mathjax), mathjax
    if n_math:  # Sphinx loads MathJax only on pages with mathematics
        assert mathjax, "the page has math but loads no MathJax"
        assert (HTML / "_static" / "mathjax" / "tex-chtml.js").is_file()
    article = _article(soup)
    maths = article.select(".math")
    assert len(maths) == n_math
    untypeset = [m.get_text()[:80] for m in maths if m.find("mjx-container") is None]
    assert not untypeset, f"{len(untypeset)} of {n_math} math elements not typeset, e.g. {untypeset[:3]}"
    assert not article.find("mjx-merror"), f"MathJax error: {article.find('mjx-merror').get_text()[:200]}"
    text = _visible_text(article)
    leftovers = re.findall(r"\$\$|\\\(|\\\[|\\begin\{|\$[^$\n]{0,80}[\\^_{][^$\n]{0,80}\$", text)
    assert not leftovers, f"raw TeX left in the rendered text: {leftovers[:5]}"
    if page.endswith(("duality", "drsss")):
        assert n_math > 10, f"{page}: expected a page full of mathematics, found {n_math} math elements"


def _sidecars(folder: Path) -> dict[str, dict]:
    return {p.name[: -len(".meta.json")]: json.loads(p.read_text()) for p in sorted(folder.glob("*.meta.json"))} \
        if folder.is_dir() else {}


def _earlier_outputs(note) -> list:
    """The outputs of the note's cell that come before the note, nearest first."""
    output = note
    while output.parent is not None and "cell_output" not in (output.parent.get("class") or []):
        output = output.parent
    assert output.parent is not None, "provenance note outside a notebook cell's output"
    return [sib for sib in output.find_previous_siblings() if getattr(sib, "name", None)]


def _previous_cell_outputs(note) -> list:
    """The outputs of the cell just before the note's cell, last first: where the build puts a figure
    it splits off into a cell of its own (svmcert.book.build), with the figure's other outputs after."""
    cell = note
    while cell.parent is not None and "cell" not in (cell.get("class") or []):
        cell = cell.parent
    previous = cell.find_previous_sibling(lambda tag: "cell" in (tag.get("class") or []))
    if previous is None:
        return []
    return list(reversed(previous.select(".cell_output > *")))


def _run_data() -> Path:
    """The data of the run the build shows: ``data`` (full) or ``_build/quick/data`` (quick), as
    ``svmcert book build`` recorded in ``_build/html/svmcert-build.json``."""
    record = HTML / "svmcert-build.json"
    return ROOT / (json.loads(record.read_text())["data"] if record.is_file() else "data")


def _shows(output, tag: str) -> bool:
    return output.name == tag or output.find(tag) is not None


@pytest.mark.parametrize("page", PAGES)
def test_every_table_and_figure_is_on_the_page(page, rendered):
    chapter = Path(page).name
    article = _article(_soup(rendered(page)["dom"]))
    tables = [t for t in article.find_all("table") if not t.find_parent(class_="svmcert-provenance")]
    empty = [i for i, t in enumerate(tables) if not t.find("td")]
    assert not empty, f"empty tables at positions {empty}"

    saved = _sidecars(_run_data() / "tables" / chapter)
    shown = {name: meta for name, meta in saved.items() if meta.get("displayed", True)}
    assert len(tables) >= len(shown), f"{len(tables)} <table> on the page, the chapter saved {len(shown)}: {sorted(shown)}"
    notes = {(n.get("data-kind"), n.get("data-name")): n for n in article.select("details.svmcert-provenance")}
    for name, meta in shown.items():
        if "displayed" not in meta:
            continue  # sidecar from before provenance notes existed: rerun `make book`
        note = notes.get(("table", name))
        assert note is not None, f"table {name!r}: no provenance note on the page"
        before = _earlier_outputs(note)
        assert before and _shows(before[0], "table"), f"table {name!r}: its note does not follow the table"
        summary = note.find("summary").get_text()
        assert meta["provenance"]["notebook"] in summary and meta["provenance"]["git_commit"][:7] in summary

    figures = sorted((ROOT / "_build" / "figures" / chapter).glob("*.png"))
    images = article.find_all("img")
    assert len(images) >= len(figures), f"{len(images)} <img> on the page, the chapter saved {len(figures)} figures"
    for img in images:
        src = urlsplit(img["src"]).path
        target = (HTML / page).parent / src
        assert src.startswith("data:") or (target.is_file() and target.stat().st_size > 0), f"image {img['src']} missing"
    for name in _sidecars(ROOT / "_build" / "figures" / chapter):
        note = notes.get(("figure", name))
        assert note is not None, f"figure {name!r}: no provenance note on the page"
        assert any(_shows(out, "img") for out in _earlier_outputs(note) or _previous_cell_outputs(note)), \
            f"figure {name!r}: its note does not follow an image (in its cell, or in the image cell the build split off before it)"


@pytest.mark.parametrize("page", PAGES)
def test_no_execution_error_or_traceback(page, rendered):
    article = _article(_soup(rendered(page)["dom"]))
    text = article.get_text(" ")
    for marker in ("Traceback (most recent call last)", "ModuleNotFoundError", "ImportError",
                   "PapermillExecutionError", "CellExecutionError"):
        assert marker not in text, f"{page}: {marker!r} on the page"
    bad = article.select(".output.traceback, .output.error, .output.stderr, .cell_output .traceback")
    assert not bad, f"{page}: error output: {bad[0].get_text()[:300]}"
    for output in article.select(".cell_output"):
        out = _soup(str(output))
        for table in out.find_all("table"):
            table.decompose()   # tables may quote exception names as data (the estimator checks)
        found = re.search(r"\b\w*(Error|Exception): ", out.get_text(" "))
        assert not found, f"{page}: cell output looks like an error: {out.get_text(' ')[:300]!r}"


# ------------------------------------------------------------- what readers see, on every page
def _html(page: str, request) -> str:
    """The page as the reader gets it: the DOM after JavaScript for the pages Chromium loads,
    the built HTML for the others."""
    if page in PAGES:
        return request.getfixturevalue("rendered")(page)["dom"]
    path = HTML / f"{page}.html"
    assert path.is_file(), f"{page}: {path} is missing from the build"
    return path.read_text(encoding="utf-8")


def _report(page: str, problems: list[str], what: str) -> str:
    return f"{page}: {len(problems)} {what}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_no_table_is_cut_short(page, request):
    problems = book_checks.truncated_tables(_html(page, request))
    assert not problems, _report(page, problems, "table(s) cut short by pandas (show the whole table or save it)")


@pytest.mark.parametrize("page", ALL_PAGES)
def test_every_image_is_a_numbered_figure_with_a_description(page, request):
    problems = book_checks.figure_problems(_html(page, request))
    assert not problems, _report(page, problems, "problem(s) with figures (save_figure(..., caption=...), alt text)")


@pytest.mark.parametrize("page", ALL_PAGES)
def test_no_work_log_wording(page, request):
    problems = book_checks.wording_problems(_html(page, request))
    assert not problems, _report(page, problems, "phrase(s) of the work log, not of the papers or the library")




def _verdicts(folder: Path) -> dict[str, str]:
    import dataclasses

    from svmcert.claims import Claim

    fields = {f.name for f in dataclasses.fields(Claim)}
    verdicts = {}
    for path in sorted(folder.glob("*.json")):
        for rec in json.loads(path.read_text())["claims"]:
            verdicts[rec["id"]] = Claim(**{k: v for k, v in rec.items() if k in fields}).verdict
    return verdicts


def test_the_ledger_lists_every_claim_with_its_verdict(rendered):
    folder = _run_data() / "claims"
    verdicts = _verdicts(folder)
    assert verdicts, f"no claims in {folder}"
    page = "book/appendix/claims-ledger"
    problems = book_checks.ledger_problems(rendered(page)["dom"], verdicts)
    assert not problems, _report(page, problems, f"difference(s) from {folder.relative_to(ROOT)}")


@pytest.mark.parametrize("module", sorted(CONTRACT))
def test_the_api_reference_documents_every_contract_name(module, request):
    page = API_PAGES[module]
    names = [f"{module}.{name}" for name in CONTRACT[module]]
    missing = book_checks.missing_api_entries(_html(page, request), names)
    assert not missing, _report(page, missing, "name(s) of the library contract without an entry")
