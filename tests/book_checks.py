"""Detectors for problems a reader sees on a rendered page, on plain HTML (BeautifulSoup).

``tests/test_browser.py`` runs them on the built book (every page of ``_toc.yml``, and the DOM
Chromium rendered for the pages it loads); ``tests/test_book_checks.py`` runs them on small
synthetic snippets, so that they are tested without a browser or a build. Each returns a list of
messages, empty when the page is fine; a message names the element it is about.
"""

from __future__ import annotations

import re

__all__ = ["article", "truncated_tables", "figure_problems", "wording_problems", "ledger_problems",
           "missing_api_entries", "is_file_path"]

ELLIPSES = {"...", "…"}
_ISSUE = re.compile(r"\b[Ii]ssues?\s*(?:#\s*)?\d+")
_TARGET = re.compile(r"\btargets?\b|\bTARGETS?\b|\bTargets?\b")
# words that make a sentence about speed (a "target" there is a speed goal)
_SPEED = re.compile(r"speed|faster|slower|quicker|\bseconds?\b|\bminutes?\b|\bms\b|wall[- ]?clock|wall time|"
                    r"run[- ]?times?|time budgets?|\bbudgets?\b|benchmark|throughput|\btimings?\b|"
                    r"\d\s*(?:x|×)\b|times (?:as )?(?:fast|slow)", re.IGNORECASE)
_FIG = re.compile(r"^Fig\.\s*\d+")
_IMAGE_FILE = re.compile(r"\.(?:png|jpe?g|gif|svg|pdf|webp|bmp|tiff?)$", re.IGNORECASE)


def _soup(html):
    from bs4 import BeautifulSoup

    return html if hasattr(html, "find_all") else BeautifulSoup(html, "html.parser")


def article(html):
    """The page's ``<article>`` (Jupyter Book's main content), or the whole document if none."""
    soup = _soup(html)
    return soup.find("article") or soup


def _cells(row) -> list[str]:
    return [" ".join(c.get_text(" ").split()) for c in row.find_all(["td", "th"])]


def _describe(table, index: int) -> str:
    header = table.find("tr")
    names = [c for c in _cells(header) if c] if header is not None else []
    caption = table.find("caption")
    what = f"caption {' '.join(caption.get_text(' ').split())[:60]!r}" if caption else \
        f"columns {', '.join(names[:5])}{', ...' if len(names) > 5 else ''}"
    return f"table {index + 1} ({what})"


def truncated_tables(html) -> list[str]:
    """Tables that pandas cut short: a row whose every cell is "..." (rows left out) or a column
    whose header is "..." (columns left out)."""
    problems = []
    for i, table in enumerate(article(html).find_all("table")):
        rows = table.find_all("tr")
        for r, row in enumerate(rows):
            cells = _cells(row)
            data = [c for c in cells if c]
            # pandas puts the index (or nothing) in the first cell and "..." in every other one
            if len(cells) >= 1 and data and all(c in ELLIPSES for c in data) and len(data) >= max(1, len(cells) - 1):
                problems.append(f"{_describe(table, i)}: row {r + 1} is '...' (pandas left rows out)")
                break
        head = table.find("thead") or (rows[0] if rows else None)
        if head is not None and any(c in ELLIPSES for c in _cells(head)):
            problems.append(f"{_describe(table, i)}: a column headed '...' (pandas left columns out)")
    return problems


def is_file_path(text: str) -> bool:
    """Whether an alt text is a file name or path rather than a description."""
    text = (text or "").strip()
    if not text:
        return False
    if _IMAGE_FILE.search(text) and " " not in text:
        return True
    return (" " not in text) and ("/" in text or "\\" in text)


def figure_problems(html) -> list[str]:
    """Images that are not numbered figures with a description: every ``<img>`` of the article
    must sit in a ``<figure>`` whose caption starts "Fig. N" and have an alt text that is not
    empty and not a file path."""
    problems = []
    for k, img in enumerate(article(html).find_all("img")):
        src = img.get("src", "")
        name = f"image {k + 1} ({src.rsplit('/', 1)[-1][:60] or 'no src'})"
        figure = img.find_parent("figure")
        caption = figure.find("figcaption") if figure is not None else None
        number = caption.find(class_="caption-number") if caption is not None else None
        label = " ".join((number or caption).get_text(" ").split()) if caption is not None else ""
        if caption is None:
            problems.append(f"{name}: not a figure with a caption")
        elif not _FIG.match(label):
            problems.append(f"{name}: caption {label[:60]!r} is not numbered 'Fig. N'")
        alt = img.get("alt")
        if alt is None or not alt.strip():
            problems.append(f"{name}: no alt text")
        elif is_file_path(alt):
            problems.append(f"{name}: alt text is a file path ({alt[:80]!r})")
    return problems


_BLOCKS = ["p", "div", "li", "td", "th", "tr", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "caption",
           "figcaption", "dt", "dd", "br", "table", "section", "summary", "details", "blockquote"]


def _sentences(node) -> list[str]:
    """The visible text cut into sentences; a block element (paragraph, cell, heading...) always
    ends one, so that a caption does not run on into the table's header."""
    node = _soup(str(node))
    for tag in node.find_all(["script", "style", "noscript"]):
        tag.decompose()
    for tag in node.find_all(_BLOCKS):
        tag.insert_before("\n")
        tag.append("\n")
    text = node.get_text()
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def wording_problems(html) -> list[str]:
    """Words that belong to the project's work log, not to a reader's page: "issue N" and
    "target" for a speed goal (speed goals are goals)."""
    problems = []
    for sentence in _sentences(article(html)):
        issue = _ISSUE.search(sentence)
        if issue:
            problems.append(f"{issue.group(0)!r} in: {sentence[:160]!r}")
        if _TARGET.search(sentence) and _SPEED.search(sentence):
            problems.append(f"'target' for a speed goal in: {sentence[:160]!r}")
    return problems


def ledger_problems(html, verdicts: dict[str, str]) -> list[str]:
    """Claims of ``verdicts`` (claim id -> verdict) that the ledger page does not list, or lists
    with another verdict. The ledger is the table with the columns "claim" and "verdict"."""
    shown: dict[str, list[str]] = {}
    found = False
    for table in article(html).find_all("table"):
        rows = table.find_all("tr")
        if not rows:
            continue
        header = [c.lower() for c in _cells(rows[0])]
        if "claim" not in header or "verdict" not in header:
            continue
        found = True
        ci, vi = header.index("claim"), header.index("verdict")
        for row in rows[1:]:
            cells = _cells(row)
            if len(cells) > max(ci, vi):
                shown.setdefault(cells[ci], []).append(cells[vi])
    if not found:
        return ["no table with the columns 'claim' and 'verdict' on the ledger page"]
    problems = []
    missing = sorted(c for c in verdicts if c not in shown)
    if missing:
        problems.append(f"{len(missing)} claim(s) missing from the ledger: {', '.join(missing[:20])}"
                        f"{', ...' if len(missing) > 20 else ''}")
    for claim, verdict in sorted(verdicts.items()):
        if claim in shown and verdict not in shown[claim]:
            problems.append(f"claim {claim}: the ledger shows verdict {shown[claim]}, the claims file says {verdict!r}")
    return problems


def missing_api_entries(html, names: list[str]) -> list[str]:
    """Fully qualified names (``svmcert.signsvm.lp_step``) that have no autodoc entry on the page
    (an element whose id is the name: Sphinx's ``<dt id="svmcert.signsvm.lp_step">``)."""
    soup = _soup(html)
    ids = {el.get("id") for el in soup.find_all(id=True)}
    return [name for name in names if name not in ids]
