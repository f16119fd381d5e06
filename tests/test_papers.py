"""The printed numbers kept in data/papers/ agree with the decoded paper texts.

The texts sit in the shared folder beside the project when it is there (never needed to build the
book); without them the comparison is skipped, the format checks still run.
"""

import csv
import re
from pathlib import Path

import pytest

from svmcert import papers
from svmcert.experiments.sign_constrained import svm_pairwise_tables as paper_tables

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
TEXTS = {"tajima": "sign-constrained-svm.txt", "hanada": "drsss-covariate-shift.txt"}


def _text(paper):
    path = SEEDS / TEXTS[paper]
    if not path.is_file():
        pytest.skip(f"decoded paper text not available ({path})")
    return path.read_text()


@pytest.mark.parametrize("paper", [p for p in papers.PAPERS if (ROOT / "data" / "papers" / f"{p}.csv").is_file()])
def test_file_format(paper):
    with open(ROOT / "data" / "papers" / f"{paper}.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and list(rows[0]) == list(papers.COLUMNS)
    keys = [(r["source"], r["row"], r["column"]) for r in rows]
    assert len(keys) == len(set(keys)), "a printed number is listed twice"
    for r in rows:
        float(r["value"])
        assert r["where"], r
        if r["spread"]:
            float(r["spread"])


def _parse_block(lines, start, count):
    """Rows "class<TAB>mean (sd)<TAB>..." of a table in the decoded Tajima text."""
    out = {}
    for line in lines[start:]:
        m = re.match(r"^(\d+)\t(.+)$", line.strip("\n"))
        if m:
            out[int(m.group(1))] = re.findall(r"([0-9.]+) \(([0-9.]+)\)", m.group(2))
            if len(out) == count:
                break
        elif out:
            break
    return out


def test_tajima_tables_match_the_decoded_text():
    lines = _text("tajima").splitlines()
    t1 = next(i for i, l in enumerate(lines) if l.startswith("Table 1: ROC scores"))
    t2 = next(i for i, l in enumerate(lines) if l.startswith("Table 2: Details on ROC scores"))
    up = next(i for i in range(t2, len(lines)) if lines[i].strip() == "Conventional SVM-pairwise")
    lo = next(i for i in range(up, len(lines)) if lines[i].strip() == "Sign Constrained SVM-pairwise")
    kept = papers.printed("tajima")
    expected = {}
    for cls, cells in _parse_block(lines, t1, 12).items():
        for col, cell in zip(("conventional", "sign-constrained"), cells):
            expected[("Table 1", f"class {cls}", col)] = cell
    for block, start in (("conventional", up), ("sign-constrained", lo)):
        for cls, cells in _parse_block(lines, start, 12).items():
            for lam, cell in zip(paper_tables.LAMBDAS, cells):
                expected[("Table 2", f"class {cls}", f"{block}, lambda = {lam}")] = cell
    assert len(expected) == 12 * 2 + 12 * 10
    got = {(r.source, r.row, r.column): (r.value, r.spread) for r in kept.itertuples()}
    assert set(got) == set(expected)
    for key, (mean, sd) in expected.items():
        assert got[key] == (float(mean), float(sd)), key


def test_reader_validates_its_arguments():
    with pytest.raises(ValueError, match="paper"):
        papers.printed("nobody")
    with pytest.raises(ValueError, match="source"):
        papers.printed("tajima", "Table 99")
    with pytest.raises(ValueError, match="row, column"):
        papers.printed_value("tajima", "Table 1", "class 99", "conventional")


def test_paper_tables_read_from_the_repository():
    tables = paper_tables.read_tables()
    assert sorted(tables["table1"]) == list(range(1, 13))
    assert all(len(v) == 5 for v in tables["table2_sign"].values())


def _table_rows(lines, caption, count):
    """The tab-separated rows of a table in the decoded Hanada text: the ``count`` lines after
    ``caption`` whose first cell is a data set name (``"splice (train)"`` read as ``"splice"``)."""
    start = next(i for i, l in enumerate(lines) if l.startswith(caption))
    out = {}
    for line in lines[start + 1:]:
        cells = line.rstrip("\n").split("\t")
        name = cells[0].replace(" (train)", "")
        if re.fullmatch(r"[a-z][a-z0-9-]*", name) and len(cells) > 3 and re.match(r"\d", cells[1]):
            out[name] = cells[1:]
            if len(out) == count:
                break
    return out


def test_hanada_numbers_match_the_decoded_text():
    text = _text("hanada")
    lines = text.splitlines()
    expected = {}
    for name, cells in _table_rows(lines, "Table 2: Tabular datasets", 8).items():
        for col, cell in zip(("n", "n+", "d"), cells):
            expected[("Table 2", name, col)] = (float(cell), None)
    t3_cols = ("n", "lambda", "remained, only DRSSS", "remained, ISSS and DRSSS+ISSS", "time, ISSS (s)",
               "time, DRSSS+ISSS total (s)", "time, DRSSS (s)", "time, ISSS after DRSSS (s)")
    for name, cells in _table_rows(lines, "Table 3: Training sample reductions", 8).items():
        assert len(cells) == len(t3_cols), cells
        for col, cell in zip(t3_cols, cells):
            expected[("Table 3", name, col)] = (float(cell.rstrip("%")), None)
    t4_cols = ("n", "remained, DRSSS and Random", "remained, NaiveSS", "shift, DRSSS", "shift, Random", "shift, NaiveSS")
    for name, cells in _table_rows(lines, "Table 4: Model parameter shifts", 7).items():
        assert len(cells) == len(t4_cols), cells
        for col, cell in zip(t4_cols, cells):
            parts = [p.strip() for p in cell.rstrip("%").split("$\\pm$")]
            expected[("Table 4", name, col)] = (float(parts[0]), float(parts[1]) if len(parts) == 2 else None)
    m = re.search(r"with \$a=(0\.\d+)\$.*?rates are (0\.\d+) \(linear\) and (0\.\d+) \(RBF kernel\) for SVM with "
                  r"\$\\lambda=\\mathrm\{([\d.]+)\}\$", text)
    for col, val in zip(("a", "removed, linear", "removed, RBF", "lambda"), m.groups()):
        expected[("Sec. 5.1", "breast-cancer", col)] = (float(val), None)
    m = re.search(r"We vary \$a\$ within the range \$([\d.]+)\\leq a\\leq ([\d.]+)\$", text)
    expected[("Sec. 5", "weights", "a, smallest")] = (float(m.group(1)), None)
    expected[("Sec. 5", "weights", "a, largest")] = (float(m.group(2)), None)
    m = re.search(r"For the weight change \$S\$ at \$a=([\d.]+)\$, we generated .*? for ([\d,]+) times", text)
    expected[("Sec. 5.3", "weights", "a")] = (float(m.group(1)), None)
    expected[("Sec. 5.3", "weights", "count")] = (float(m.group(2).replace(",", "")), None)
    m = re.search(r"as the case of \$a=([\d.]+)\$, and \$\\lambda\$ as \$n\$.*? for (\d+) randomly generated weights", text)
    expected[("Sec. 5.4", "weights", "a")] = (float(m.group(1)), None)
    expected[("Sec. 5.4", "weights", "count")] = (float(m.group(2)), None)
    expected[("Sec. 5.4", "weights", "lambda / n")] = (1.0, None)
    m = re.search(r"we examined (\d+) cases of removals and took the average", text)
    expected[("Sec. 5.4", "Random", "removals averaged")] = (float(m.group(1)), None)
    m = re.search(r"We set \$\\lambda\$ as \$n\$, \$n\\times 10\^\{-([\d.]+)\}\$, .*?\$n\\times 10\^\{-([\d.]+)\}\$\. "
                  r"\(For DRSSS with DL, we set (\d+) instead of \$n\$\.\)", text)
    expected[("App. E.2", "lambda", "lambda / n, largest")] = (1.0, None)
    expected[("App. E.2", "lambda", "log10 step")] = (float(m.group(1)), None)
    expected[("App. E.2", "lambda", "lambda / n, smallest")] = (10 ** -float(m.group(2)), None)
    expected[("App. E.2", "lambda", "base for the NTK")] = (float(m.group(3)), None)
    assert len(expected) == 8 * 3 + 8 * 8 + 7 * 6 + 4 + 8 + 4
    kept = papers.printed("hanada")
    got = {(r.source, r.row, r.column): (r.value, None if r.spread != r.spread else r.spread) for r in kept.itertuples()}
    assert set(got) == set(expected)
    for key, (value, spread) in expected.items():
        assert got[key][0] == pytest.approx(value, rel=1e-12), key
        assert (got[key][1] is None) == (spread is None), key
        if spread is not None:
            assert got[key][1] == pytest.approx(spread, rel=1e-12), key
