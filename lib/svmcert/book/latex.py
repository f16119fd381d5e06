"""The book's tables in the whole-book PDF (``svmcert book build --pdf``).

In the HTML book a table is the HTML of :class:`svmcert.book.tables.TableView`. LaTeX cannot use
HTML, so without help Jupyter Book falls back to the plain-text rendering, one line per row: the
claims ledger's 15 columns make lines of 2000 characters, which LaTeX wraps into more boxes than
its memory holds ("TeX capacity exceeded"), and which no reader could follow anyway. For the PDF
build, :func:`add_latex_tables` gives every such output a ``text/markdown`` version holding a
``{raw} latex`` block with a ``longtable``: columns as wide as their contents need, text wrapped
inside the cells, rows continued across pages with the header repeated. ``text/markdown`` ranks
above ``text/plain`` for the LaTeX builder and below ``text/html`` for the HTML one, and the PDF
build parses it as MyST (``nb_render_markdown_format: myst``), so the HTML book is unchanged.
"""

from __future__ import annotations

from html.parser import HTMLParser

__all__ = ["latex_escape", "parse_table_html", "column_fractions", "latex_table", "add_latex_tables"]

_TABLE_MARK = 'class="svmcert-table-wrap"'
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_\allowbreak{}",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            ".": r".\allowbreak{}", "/": r"/\allowbreak{}", "\n": " "}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX source: special characters escaped, line breaks allowed after ``.``,
    ``_`` and ``/`` (long dotted names must wrap inside a narrow column)."""
    return "".join(_SPECIAL.get(ch, ch) for ch in text)


class _TableParser(HTMLParser):
    """Caption, header cells and body rows of the first table in a TableView's HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.caption: list[str] = []
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in_caption = self._in_head = self._done = False

    def handle_starttag(self, tag, attrs):
        if self._done:
            return
        if tag == "div" and "svmcert-table-caption" in (dict(attrs).get("class") or "").split():
            self._in_caption = True
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if self._done:
            return
        if tag == "div":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._in_head and not self.header:
                self.header = self._row
            else:
                self.rows.append(self._row)
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._done = True

    def handle_data(self, data):
        if self._in_caption:
            self.caption.append(data)
        elif self._cell is not None:
            self._cell.append(data)


def parse_table_html(html: str):
    """``(caption, header, rows)`` of a :class:`~svmcert.book.tables.TableView` rendering."""
    parser = _TableParser()
    parser.feed(html)
    return " ".join("".join(parser.caption).split()), parser.header, parser.rows


#: Font sizes, largest first, with about how many characters fit across the text width.
_SIZES = ((r"\small", 100), (r"\footnotesize", 115), (r"\scriptsize", 135), (r"\tiny", 185))


def column_fractions(header: list[str], rows: list[list[str]]) -> tuple[str, list[float]]:
    """A font size and each column's share of the text width.

    Every column gets at least its longest word (a word cannot wrap; bold headers count 10 %
    wider, words beyond 12 characters may overflow), then the width left is shared in proportion
    to how much more each column's typical text (between its median and its longest cell, at
    most 40 characters) would like. The font is the largest whose line holds the minimum widths.
    """
    n = len(header) if header else max((len(r) for r in rows), default=0)
    least, wish = [], []
    for j in range(n):
        cells = [r[j] for r in rows if j < len(r)]
        words = [len(w) for c in cells for w in c.split()] + [1]
        head = 1.1 * max([len(w) for w in header[j].split()] + [1]) if header else 0.0
        least.append(min(12.0, max(max(words), head)) + 1.0)
        lengths = sorted(len(c) for c in cells) or [0]
        wish.append(min(40.0, max(3.0, 0.5 * lengths[len(lengths) // 2] + 0.5 * lengths[-1])) + 1.0)
    wish = [max(w, m) for w, m in zip(wish, least)]
    size, capacity = next(((s, c) for s, c in _SIZES if sum(least) <= c), _SIZES[-1])
    if sum(wish) <= capacity:                       # a narrow table need not fill the line
        return size, [w / capacity for w in wish]
    if sum(least) >= capacity:
        return size, [m / sum(least) for m in least]
    more = [w - m for w, m in zip(wish, least)]
    spare = capacity - sum(least)
    return size, [(m + spare * x / sum(more)) / capacity for m, x in zip(least, more)]


def latex_table(html: str) -> str | None:
    """A ``longtable`` for the table in ``html``, or None if it holds no table."""
    caption, header, rows = parse_table_html(html)
    n = len(header) or max((len(r) for r in rows), default=0)
    if n == 0:
        return None
    rows = [r + [""] * (n - len(r)) for r in rows]
    size, fractions = column_fractions(header, rows)
    spec = "".join(rf">{{\raggedright\arraybackslash}}p{{\dimexpr {0.995 * f:.4f}\linewidth-2\tabcolsep\relax}}"
                   for f in fractions)
    lines = [r"\begingroup" + size + r"\setlength{\tabcolsep}{2.5pt}\renewcommand{\arraystretch}{1.1}"]
    if caption:
        lines.append(r"\par\noindent\textit{" + latex_escape(caption) + r"}\par\nobreak")
    lines.append(r"\begin{longtable}{@{}" + spec + r"@{}}")
    if header:
        head = " & ".join(r"\textbf{" + latex_escape(h) + "}" for h in header) + r" \\ \hline"
        lines += [r"\hline", head, r"\endfirsthead", r"\hline", head, r"\endhead", r"\hline \endfoot"]
    for r in rows:
        lines.append(" & ".join(latex_escape(c) for c in r) + r" \\")
    lines += [r"\hline", r"\end{longtable}", r"\endgroup"]
    return "\n".join(lines)


def add_latex_tables(nb: dict) -> int:
    """Give every table output of the notebook a ``text/markdown`` version with its LaTeX
    ``longtable`` (for the PDF build only); returns how many outputs got one."""
    count = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if _TABLE_MARK not in html or "text/markdown" in data:
                continue
            table = latex_table(html)
            if table is not None:
                data["text/markdown"] = "```{raw} latex\n" + table + "\n```\n"
                count += 1
    return count
