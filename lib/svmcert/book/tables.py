"""How a saved table is shown in the book: every row, readable numbers, no index, its own scroll box.

:func:`format_value` writes numbers for reading (4 significant digits, scientific notation with a
real exponent — 1.2×10⁻⁵ — outside [10⁻³, 10⁵), whole numbers without a decimal point, "—" for a
missing value). :class:`TableView` renders a DataFrame as an HTML table inside a box that scrolls
sideways when the table is wider than the page; a long table (more than
:data:`INTERACTIVE_ROWS` rows) scrolls vertically too and becomes searchable and sortable through
the book's own script (``assets/svmcert-tables.js``, no CDN). Nothing is ever cut: every row is in
the page, and a link points to the full CSV. The wrapper carries ``data-name`` and ``data-rows`` so
tests of the rendered book can check that.
"""

from __future__ import annotations

import html
import math
import numbers

__all__ = ["INTERACTIVE_ROWS", "format_value", "superscript", "TableView"]

#: Tables longer than this are searchable, sortable and scroll inside a box of fixed height.
INTERACTIVE_ROWS = 15

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(exponent: int) -> str:
    """``-5`` as ``⁻⁵``."""
    return str(int(exponent)).translate(_SUPERSCRIPT)


def format_value(value, digits: int = 4) -> str:
    """A number (or text) as a reader should see it.

    Examples
    --------
    >>> from svmcert.book.tables import format_value
    >>> [format_value(v) for v in (690.0, 0.9999999, 1.5e-05, 2e5, -3.25e-7, float("nan"), True, 0.25)]
    ['690', '1', '1.5×10⁻⁵', '2×10⁵', '−3.25×10⁻⁷', '—', 'yes', '0.25']
    """
    if value is None:
        return "—"
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isnan(v):
            return "—"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == 0:
            return "0"
        if v.is_integer() and abs(v) < 1e5:
            return str(int(v))
        if 1e-3 <= abs(v) < 1e5:
            return f"{v:.{digits}g}"
        mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
        m, power = float(mantissa), f"10{superscript(int(exponent))}"
        if m in (1.0, -1.0):
            return power if m > 0 else f"−{power}"
        return f"{m:.{digits}g}".replace("-", "−") + "×" + power
    text = str(value)
    return "—" if text == "nan" else text


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and type(value).__name__ != "bool_"


class TableView:
    """A DataFrame shown as the book shows tables (HTML in the book, plain text on a console).

    Parameters
    ----------
    df : pandas.DataFrame
    name : str
        The table's file stem (``data-name`` of the wrapper).
    caption : str, optional
        Shown above the table.
    csv_href : str, optional
        Link to the full CSV, shown under the table.
    interactive : bool, optional
        Searchable and sortable; default: more than :data:`INTERACTIVE_ROWS` rows.
    """

    def __init__(self, df, name: str = "", caption: str | None = None, csv_href: str | None = None,
                 interactive: bool | None = None):
        self.df, self.name, self.caption, self.csv_href = df, name, caption, csv_href
        self.interactive = len(df) > INTERACTIVE_ROWS if interactive is None else bool(interactive)

    def __repr__(self) -> str:
        text = self.df.to_string(index=False, max_rows=None, max_cols=None)
        return f"{self.caption}\n{text}" if self.caption else text

    def _repr_html_(self) -> str:
        esc = html.escape
        df = self.df
        numeric = {c: all(_is_number(v) or v is None for v in df[c].tolist()) and len(df) > 0 for c in df.columns}
        long_text = {c: not numeric[c] and df[c].astype(str).str.len().mean() > 40 for c in df.columns}
        head = "".join(f"<th>{esc(str(c))}</th>" for c in df.columns)
        rows = []
        for rec in df.itertuples(index=False, name=None):
            cells = []
            for col, value in zip(df.columns, rec):
                shown = esc(format_value(value))
                if numeric[col]:
                    raw = "" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))
                    cells.append(f'<td class="num" data-sort="{raw}">{shown}</td>')
                else:
                    cells.append(f'<td class="{"long-text" if long_text[col] else "text"}">{shown}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
        kind = "svmcert-table svmcert-interactive" if self.interactive else "svmcert-table"
        box = "svmcert-table-box svmcert-long" if self.interactive else "svmcert-table-box"
        parts = [f'<div class="svmcert-table-wrap" data-name="{esc(self.name)}" data-rows="{len(df)}" '
                 f'data-columns="{len(df.columns)}">']
        if self.caption:
            parts.append(f'<div class="svmcert-table-caption">{esc(self.caption)}</div>')
        parts.append(f'<div class="{box}"><table class="{kind}"><thead><tr>{head}</tr></thead>'
                     f'<tbody>{"".join(rows)}</tbody></table></div>')
        if self.csv_href:
            parts.append(f'<div class="svmcert-table-csv"><a href="{esc(self.csv_href)}">the table as CSV</a> '
                         f'({len(df)} rows, {len(df.columns)} columns)</div>')
        parts.append("</div>")
        return "".join(parts)
