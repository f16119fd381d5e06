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
    group_by : sequence of column names, optional
        Show the rows in groups, one per distinct value of these columns, each under a heading row
        (the values joined by " · "), which then names them instead of a column of their own.
        Display only: the rows are
        reordered on the page (groups in ``group_order``, then in order of first appearance; rows in
        their order within a group), never in the data. Sorting and searching act within groups.
    group_order : dict, optional
        ``{column: [values in the order wanted]}``; values not listed come after, in order of first
        appearance.
    group_labels : dict, optional
        ``{column: {value: label}}``: how a group's heading names a value.
    """

    def __init__(self, df, name: str = "", caption: str | None = None, csv_href: str | None = None,
                 interactive: bool | None = None, group_by=None, group_order: dict | None = None,
                 group_labels: dict | None = None):
        self.df, self.name, self.caption, self.csv_href = df, name, caption, csv_href
        self.interactive = len(df) > INTERACTIVE_ROWS if interactive is None else bool(interactive)
        self.group_by = [group_by] if isinstance(group_by, str) else list(group_by or [])
        missing = [c for c in self.group_by if c not in df.columns]
        if missing:
            raise ValueError(f"group_by: columns {missing} are not in the table (columns: {list(df.columns)})")
        self.group_order, self.group_labels = dict(group_order or {}), dict(group_labels or {})

    def _groups(self):
        """``[(heading, [row positions])]`` in display order; one unnamed group without ``group_by``."""
        if not self.group_by:
            return [(None, list(range(len(self.df))))]
        keys = [tuple(rec) for rec in self.df[self.group_by].itertuples(index=False, name=None)]
        groups: dict = {}
        for pos, key in enumerate(keys):
            groups.setdefault(key, []).append(pos)

        def rank(key):
            out = []
            for col, value in zip(self.group_by, key):
                order = list(self.group_order.get(col, []))
                out.append(order.index(value) if value in order else len(order))
            return out

        first = {key: rows[0] for key, rows in groups.items()}
        ordered = sorted(groups, key=lambda k: (rank(k), first[k]))
        labels = [" · ".join(str(self.group_labels.get(c, {}).get(v, v)) for c, v in zip(self.group_by, key))
                  for key in ordered]
        return [(label, groups[key]) for label, key in zip(labels, ordered)]

    def __repr__(self) -> str:
        text = self.df.to_string(index=False, max_rows=None, max_cols=None)
        return f"{self.caption}\n{text}" if self.caption else text

    def _repr_html_(self) -> str:
        esc = html.escape
        df = self.df
        numeric = {c: all(_is_number(v) or v is None for v in df[c].tolist()) and len(df) > 0 for c in df.columns}
        long_text = {c: not numeric[c] and df[c].astype(str).str.len().mean() > 40 for c in df.columns}
        shown = [c for c in df.columns if c not in self.group_by]
        head = "".join(f"<th>{esc(str(c))}</th>" for c in shown)
        records = list(df[shown].itertuples(index=False, name=None))
        bodies = []
        for label, positions in self._groups():
            rows = [] if label is None else [
                f'<tr class="svmcert-group-row"><th colspan="{len(shown)}">{esc(label)}</th></tr>']
            rows += [self._row_html(records[k], numeric, long_text) for k in positions]
            bodies.append(f'<tbody>{"".join(rows)}</tbody>')
        kind = "svmcert-table svmcert-interactive" if self.interactive else "svmcert-table"
        if self.group_by:
            kind += " svmcert-grouped"
        box = "svmcert-table-box svmcert-long" if self.interactive else "svmcert-table-box"
        parts = [f'<div class="svmcert-table-wrap" data-name="{esc(self.name)}" data-rows="{len(df)}" '
                 f'data-columns="{len(df.columns)}">']
        if self.caption:
            parts.append(f'<div class="svmcert-table-caption">{esc(self.caption)}</div>')
        parts.append(f'<div class="{box}"><table class="{kind}"><thead><tr>{head}</tr></thead>'
                     f'{"".join(bodies)}</table></div>')
        if self.csv_href:
            parts.append(f'<div class="svmcert-table-csv"><a href="{esc(self.csv_href)}">the table as CSV</a> '
                         f'({len(df)} rows, {len(df.columns)} columns)</div>')
        parts.append("</div>")
        return "".join(parts)

    def _row_html(self, rec, numeric, long_text) -> str:
        esc = html.escape
        cells = []
        for col, value in zip([c for c in self.df.columns if c not in self.group_by], rec):
            shown = esc(format_value(value))
            if numeric[col]:
                raw = "" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))
                cells.append(f'<td class="num" data-sort="{raw}">{shown}</td>')
            else:
                cells.append(f'<td class="{"long-text" if long_text[col] else "text"}">{shown}</td>')
        return "<tr>" + "".join(cells) + "</tr>"
