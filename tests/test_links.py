"""Link check of the built book (``_build/html``; skipped when it has not been built).

Every internal ``href``/``src`` of every page resolves: the file exists under ``_build/html`` and a
``#fragment`` names an ``id`` (or ``name``) in the target page. No cross-reference was left
unresolved by Sphinx (an unresolved ``{doc}``/``{ref}``/markdown link renders as a ``xref`` span
outside any ``<a>``). Every external link of the rendered
book is listed on the Reproducibility page, which lists the links the sources use.

Run after ``make book`` (``make browser-test`` runs this module with the browser tests).
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
REPRO = "book/appendix/reproducibility.html"

if not (HTML / "index.html").is_file():
    if os.environ.get("SVMCERT_BROWSER_TEST_REQUIRED") == "1":   # set by `make browser-test`
        raise RuntimeError("link check required but _build/html is absent: run `make book` first")
    pytestmark = pytest.mark.skip(reason="_build/html is absent: run `make book` (or `svmcert book build`) first")


class _Page(HTMLParser):
    """Collects the ids of a page and its links: (attribute, value, inside <article>)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, bool]] = []
        self.unresolved: list[str] = []
        self._article = 0
        self._anchor = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article":
            self._article += 1
        if tag == "a":
            self._anchor += 1
        classes = (attrs.get("class") or "").split()
        if "xref" in classes and not self._anchor:
            self.unresolved.append(f"<{tag} class={attrs.get('class')!r}>")
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh" and "url=" in (attrs.get("content") or ""):
            self.links.append(("meta", attrs["content"].split("url=", 1)[1].strip(), False))
        for key in ("id", "name"):
            if attrs.get(key) and (key == "id" or tag == "a"):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append((tag, attrs[key], self._article > 0))

    def handle_endtag(self, tag):
        if tag == "article":
            self._article = max(0, self._article - 1)
        if tag == "a":
            self._anchor = max(0, self._anchor - 1)


def _pages() -> dict[Path, _Page]:
    pages = {}
    for path in sorted(HTML.rglob("*.html")):
        rel = path.relative_to(HTML)
        if rel.parts[0] in ("_static", "_sources", "_images"):
            continue
        parser = _Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path] = parser
    return pages


@pytest.fixture(scope="module")
def pages():
    return _pages()


def _is_external(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https")


def _skip(url: str) -> bool:
    scheme = urlsplit(url).scheme
    return scheme in ("mailto", "javascript", "data", "tel") or url.startswith("//")


def _ids_of(path: Path, pages, cache) -> set[str]:
    if path in pages:
        return pages[path].ids
    if path not in cache:
        parser = _Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = parser.ids
    return cache[path]


def test_the_book_has_its_pages(pages):
    names = {p.relative_to(HTML).as_posix() for p in pages}
    for page in ("index.html", "book/appendix/claims-ledger.html", "book/appendix/errata.html", REPRO,
                 "book/appendix/references.html"):
        assert page in names, f"{page} missing from {HTML}"


def test_every_internal_link_resolves(pages):
    broken, cache = [], {}
    checked = 0
    for path, page in pages.items():
        for tag, url, _ in page.links:
            if not url or _is_external(url) or _skip(url):
                continue
            target, fragment = urldefrag(url)
            target = unquote(urlsplit(target).path)
            dest = path if not target else (path.parent / target).resolve()
            if dest.is_dir():
                dest = dest / "index.html"
            checked += 1
            where = f"{path.relative_to(HTML)}: <{tag}> {url}"
            if not dest.is_file():
                broken.append(f"{where} -> missing file")
            elif fragment and dest.suffix == ".html" and unquote(fragment) not in _ids_of(dest, pages, cache):
                broken.append(f"{where} -> no id {fragment!r} in {dest.relative_to(HTML) if HTML in dest.parents else dest}")
    assert checked > 100, f"only {checked} internal links found: is {HTML} a full build?"
    assert not broken, f"{len(broken)} broken internal link(s):\n" + "\n".join(broken[:40])


def test_no_cross_reference_is_unresolved(pages):
    bad = [f"{p.relative_to(HTML)}: {x}" for p, page in pages.items() for x in page.unresolved]
    assert not bad, "unresolved cross-references (see the Sphinx warnings of the build):\n" + "\n".join(bad[:20])


def test_every_external_link_is_listed_on_the_reproducibility_page(pages):
    repro = HTML / REPRO
    listed = {url for tag, url, in_article in pages[repro].links if in_article and _is_external(url)}
    used = {}
    for path, page in pages.items():
        if path == repro:
            continue
        for tag, url, in_article in page.links:
            if in_article and tag == "a" and _is_external(url):
                used.setdefault(url, path.relative_to(HTML).as_posix())
    missing = {url: where for url, where in used.items() if url not in listed}
    assert not missing, f"external links not listed on {REPRO}: {missing}"
    assert "https://arxiv.org/abs/2101.01473" in listed  # the bibliography's links are there


def test_no_page_loads_anything_from_another_host(pages):
    """Scripts, stylesheets, images and fonts come from the build itself: the book reads offline."""
    remote = [f"{p.relative_to(HTML)}: <{tag}> {url}" for p, page in pages.items()
              for tag, url, _ in page.links if tag in ("script", "link", "img", "iframe", "source") and _is_external(url)]
    assert not remote, "\n".join(remote[:20])
