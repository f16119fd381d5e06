"""The detectors of tests/book_checks.py on small synthetic pages (no browser, no build).

tests/test_browser.py runs the same detectors on the rendered book; here each one must find the
problem it is for, name the offending element, and stay quiet on a page without it.
"""

import pandas as pd
import pytest

import book_checks as bc


def page(body: str) -> str:
    return f"<html><body><nav><img src='logo.png'></nav><article>{body}</article></body></html>"


GOOD_FIGURE = ('<figure class="align-default" id="fig-x"><img alt="Relative error of both solvers against '
               'iterations" src="../../_images/abc.png" /><figcaption><p><span class="caption-number">Fig. 2 '
               '</span><span class="caption-text">Relative error</span></p></figcaption></figure>')


# ------------------------------------------------------------------------------ truncated tables
def test_a_table_that_pandas_cut_short_is_found():
    html = pd.DataFrame({"a": range(100), "b": range(100)}).to_html(max_rows=6)
    problems = bc.truncated_tables(page(html))
    assert len(problems) == 1 and "row" in problems[0] and "'...'" in problems[0]
    assert "table 1 (columns a, b)" in problems[0]


def test_a_table_with_columns_left_out_is_found():
    html = pd.DataFrame({f"c{i}": [1, 2] for i in range(30)}).to_html(max_cols=6)
    problems = bc.truncated_tables(page(html))
    assert any("column headed '...'" in p for p in problems), problems


def test_whole_tables_and_ellipses_inside_text_pass():
    full = pd.DataFrame({"a": range(5), "note": ["1, 2, ...", "...", "x", "y", "z"]}).to_html()
    assert bc.truncated_tables(page(full)) == []
    assert bc.truncated_tables(page("<p>and so on ...</p>")) == []


def test_the_second_table_is_named_by_its_position():
    bad = pd.DataFrame({"x": range(50)}).to_html(max_rows=4)
    problems = bc.truncated_tables(page("<table><tr><th>k</th></tr><tr><td>1</td></tr></table>" + bad))
    assert problems and problems[0].startswith("table 2 (columns x)")


# ----------------------------------------------------------------------------------- figures
def test_a_numbered_figure_with_a_description_passes():
    assert bc.figure_problems(page(GOOD_FIGURE)) == []


def test_an_image_outside_a_figure_with_a_path_as_alt_text_is_found():
    problems = bc.figure_problems(page('<div class="cell_output"><img alt="../../_images/abc.png" '
                                       'src="../../_images/abc.png"></div>'))
    assert len(problems) == 2
    assert problems[0] == "image 1 (abc.png): not a figure with a caption"
    assert "alt text is a file path ('../../_images/abc.png')" in problems[1]


def test_a_caption_without_its_number_and_a_missing_alt_text_are_found():
    html = '<figure><img src="a/b/plot.png"><figcaption><p>Relative error</p></figcaption></figure>'
    problems = bc.figure_problems(page(GOOD_FIGURE + html))
    assert problems == ["image 2 (plot.png): caption 'Relative error' is not numbered 'Fig. N'",
                        "image 2 (plot.png): no alt text"]


def test_only_the_article_counts():
    assert bc.figure_problems(page("")) == []          # the logo in <nav> is not a figure


@pytest.mark.parametrize("alt,is_path", [
    ("../../_images/abc.png", True), ("abc.png", True), ("_build/figures/x/plot.PNG", True), ("figs\\a.jpg", True),
    ("a/b", True), ("Relative error against iterations", False), ("Figure 4 of the paper, redrawn", False),
    ("error vs. n (log-log)", False), ("", False)])
def test_file_paths_are_told_from_descriptions(alt, is_path):
    assert bc.is_file_path(alt) is is_path


# ----------------------------------------------------------------------------------- wording
@pytest.mark.parametrize("text", ["See issue 12 for the details.", "Issue 6, last step: the budgets.",
                                  "fixed in issue #31", "Issues 4 and 5 asked for it."])
def test_issue_numbers_are_found(text):
    problems = bc.wording_problems(page(f"<p>{text}</p>"))
    assert len(problems) == 1 and "ssue" in problems[0] and text[:20] in problems[0]


@pytest.mark.parametrize("text", ["The target is 10 times faster than cvxpy.",
                                  "Speed targets: make book within its budget.",
                                  "# Unmet speed targets are recorded too"])
def test_target_for_a_speed_goal_is_found(text):
    problems = bc.wording_problems(page(f"<pre>{text}</pre>"))
    assert problems and problems[0].startswith("'target' for a speed goal in:")


@pytest.mark.parametrize("text", ["The instances (relative gap target 1e-13).", "Goal: 10 times faster than cvxpy.",
                                  "The tissue 5 samples.", "Each goal is met in 3 seconds.",
                                  "This issue of the paper is settled."])
def test_other_uses_pass(text):
    assert bc.wording_problems(page(f"<p>{text}</p>")) == []


def test_a_caption_does_not_run_into_the_table_header():
    html = ('<div class="svmcert-table-caption">Reference solutions (relative gap target 1e-13)</div>'
            '<table><tr><th>reference_seconds</th></tr><tr><td>0.5</td></tr></table>')
    assert bc.wording_problems(page(html)) == []


# ------------------------------------------------------------------------------------ ledger
LEDGER = ("<table><thead><tr><th>chapter</th><th>claim</th><th>verdict</th></tr></thead><tbody>"
          "<tr><td>duality</td><td>signsvm.duality.bracket</td><td>holds</td></tr>"
          "<tr><td>lp-step</td><td>signsvm.lp_step.eq13</td><td>erratum</td></tr></tbody></table>")


def test_a_complete_ledger_passes():
    assert bc.ledger_problems(page(LEDGER), {"signsvm.duality.bracket": "holds",
                                             "signsvm.lp_step.eq13": "erratum"}) == []


def test_a_missing_claim_and_a_wrong_verdict_are_found():
    problems = bc.ledger_problems(page(LEDGER), {"signsvm.duality.bracket": "FAILS", "signsvm.lp_step.eq13": "erratum",
                                                 "featelim.qp1.theorem1": "holds"})
    assert problems == ["1 claim(s) missing from the ledger: featelim.qp1.theorem1",
                        "claim signsvm.duality.bracket: the ledger shows verdict ['holds'], the claims file says 'FAILS'"]


def test_a_page_without_the_ledger_table_is_found():
    assert bc.ledger_problems(page("<p>no table</p>"), {"a": "holds"}) == [
        "no table with the columns 'claim' and 'verdict' on the ledger page"]


# ------------------------------------------------------------------------------- API entries
def test_missing_api_entries_are_named():
    html = page('<dl class="py function"><dt class="sig" id="svmcert.signsvm.lp_step">lp_step</dt></dl>'
                '<p id="other">svmcert.signsvm.solve is mentioned but not documented</p>')
    assert bc.missing_api_entries(html, ["svmcert.signsvm.lp_step", "svmcert.signsvm.solve"]) == ["svmcert.signsvm.solve"]
