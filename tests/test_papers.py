"""The printed numbers kept in data/papers/ agree with the decoded paper texts.

The texts sit in the shared folder beside the project when it is there (never needed to build the
book); without them the comparison is skipped, the format checks still run.
"""

import csv
import re
from pathlib import Path

import pytest

from svmcert import papers
from svmcert.experiments import paper_tables

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
