"""How the book shows a table: grouping is display only, every row stays in the page."""

import pandas as pd
import pytest

from svmcert.book.tables import TableView


def _df():
    return pd.DataFrame({"paper": ["hanada", "tajima", "hanada", "tajima", "aksu"],
                         "chapter": ["drsss", "lp-step", "ntk", "duality", "data-radius"],
                         "observed": [1.0, 2.0, 3.0, 4.0, 5.0]})


def test_ungrouped_table_has_one_body_and_no_group_rows():
    html = TableView(_df(), "t")._repr_html_()
    assert html.count("<tbody>") == 1 and "svmcert-group-row" not in html and 'data-rows="5"' in html


def test_grouped_table_orders_groups_and_keeps_every_row():
    df = _df()
    view = TableView(df, "t", group_by=["paper", "chapter"],
                     group_order={"paper": ["tajima", "hanada", "aksu"], "chapter": ["duality", "lp-step", "drsss", "ntk"]},
                     group_labels={"paper": {"tajima": "Tajima et al.", "hanada": "Hanada et al."}})
    html = view._repr_html_()
    heads = [part.split("</th>")[0] for part in html.split('<tr class="svmcert-group-row"><th colspan="1">')[1:]]
    assert heads == ["Tajima et al. · duality", "Tajima et al. · lp-step", "Hanada et al. · drsss",
                     "Hanada et al. · ntk", "aksu · data-radius"]
    assert html.count("<tbody>") == 5 and html.count('<td class="num"') == 5 and "svmcert-grouped" in html
    assert "<th>paper</th>" not in html and "<th>observed</th>" in html   # the headings name the groups
    assert df["observed"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]     # the data are not reordered


def test_group_by_names_existing_columns():
    with pytest.raises(ValueError, match="group_by"):
        TableView(_df(), "t", group_by=["nope"])
