"""The book's tables in the whole-book PDF (svmcert.book.latex): parsed from the HTML the book
shows, written as a LaTeX longtable, attached to table outputs only; and the result compiles."""

import shutil
import subprocess

import pandas as pd
import pytest

from svmcert.book.latex import add_latex_tables, column_fractions, latex_escape, latex_table, parse_table_html
from svmcert.book.tables import TableView


def _html(df, caption="Worst errors (n = 100)"):
    return TableView(df, name="worst", caption=caption)._repr_html_()


DF = pd.DataFrame({"claim": ["signsvm.lp_step.eq13", "a & b"], "observed": [1.5e-12, 3.0],
                   "note": ["50% of $x_i$ {sic} ~ ^ # \\", "—"]})


def test_the_table_is_read_back_from_the_html_the_book_shows():
    caption, header, rows = parse_table_html(_html(DF))
    assert caption == "Worst errors (n = 100)"
    assert header == ["claim", "observed", "note"]
    assert len(rows) == 2 and rows[0][0] == "signsvm.lp_step.eq13" and rows[1][0] == "a & b"


def test_special_characters_are_escaped_and_names_may_wrap():
    assert latex_escape("50% of $x_i$ {sic} ~ ^ # \\") == (
        r"50\% of \$x\_\allowbreak{}i\$ \{sic\} \textasciitilde{} \textasciicircum{} \# \textbackslash{}")
    assert latex_escape("a.b/c") == r"a.\allowbreak{}b/\allowbreak{}c"


def test_a_longtable_with_its_header_repeated_on_every_page():
    tex = latex_table(_html(DF))
    assert tex.count(r"\begin{longtable}") == tex.count(r"\end{longtable}") == 1
    assert r"\endfirsthead" in tex and r"\endhead" in tex
    assert r"\textbf{claim} & \textbf{observed} & \textbf{note} \\" in tex
    assert r"a \& b" in tex and r"\textit{Worst errors (n = 100)}" in tex
    body = [line for line in tex.splitlines() if line.endswith(r"\\") and "textbf" not in line]
    assert len(body) == 2 and all(line.count(" & ") == 2 for line in body)


def test_columns_share_the_width_and_wide_tables_get_a_smaller_font():
    size, fractions = column_fractions(["a", "b"], [["1", "2"]])
    assert size == r"\small" and sum(fractions) < 0.2              # a narrow table stays narrow
    wide = [[f"cell {i} of a long row of text" for i in range(15)] for _ in range(3)]
    size, fractions = column_fractions([f"column{i}" for i in range(15)], wide)
    assert size == r"\tiny" and abs(sum(fractions) - 1) < 1e-9


def test_only_table_outputs_get_a_latex_version():
    table = {"output_type": "display_data", "data": {"text/html": _html(DF), "text/plain": "x"}, "metadata": {}}
    other = {"output_type": "display_data", "data": {"text/html": "<b>note</b>", "text/plain": "y"}, "metadata": {}}
    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [table, other]},
                    {"cell_type": "markdown", "source": "text"}]}
    assert add_latex_tables(nb) == 1
    assert table["data"]["text/markdown"].startswith("```{raw} latex\n\\begingroup")
    assert "text/markdown" not in other["data"]
    assert add_latex_tables(nb) == 0                                 # once only


@pytest.mark.skipif(shutil.which("xelatex") is None, reason="xelatex is not installed (Debian: texlive-xetex)")
def test_the_longtable_compiles_with_xelatex(tmp_path):
    big = pd.DataFrame({"claim": [f"signsvm.chapter.claim_{i}" for i in range(120)], "verdict": ["holds"] * 120,
                        "statement": ["The dual optimum equals the primal optimum; P - D <= 1e-9 (50%)."] * 120})
    doc = "\n".join([r"\documentclass{article}", r"\usepackage{longtable,array}", r"\begin{document}",
                     latex_table(_html(DF)), latex_table(_html(big, caption="All claims")), r"\end{document}"])
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    out = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and (tmp_path / "t.pdf").is_file(), out.stdout[-3000:]
