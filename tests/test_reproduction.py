"""The inventory of the papers' results (data/papers/results.csv) and the Reproduction page's join.

The rule (svmcert.book.reproduction): every claim id a result names exists in the committed ledger,
and every committed claim filed under a paper is named by some result, unless it is a project claim
(the library's speed) or an implementation claim (its source says "(library)", "(implementation)"
or "(our setup)").
"""

import csv
from pathlib import Path

import pandas as pd
import pytest

from svmcert import book, claims, papers
from svmcert.book import reproduction as rp
from svmcert.book.paths import project_root

ROOT = project_root()
#: Results whose verdicts the DRSSS chapters will record (their chapters are being rewritten).
PENDING: set = set()   # results waiting for a chapter to check them: none


@pytest.fixture(scope="module")
def committed():
    return claims.load_claims(ROOT / "data" / "claims")


def test_inventory_format():
    with open(ROOT / "data" / "papers" / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and list(rows[0]) == list(papers.RESULT_COLUMNS)
    table = papers.results()
    assert len(table) == len(rows)
    assert set(table["paper"]) == {"tajima", "hanada", "aksu"}
    for r in table.itertuples():
        ids = papers.claim_ids(r.claim_ids)
        assert len(ids) == len(set(ids)), f"{r.paper} {r.kind} {r.number} names a claim twice"


def test_every_named_claim_exists(committed):
    """After a full run, every id in the inventory is a claim of data/claims."""
    known = {c.id for c in committed}
    missing = [(r.paper, r.kind, r.number, i) for r in papers.results().itertuples()
               for i in papers.claim_ids(r.claim_ids) if i not in known]
    assert not missing, "inventory names claims the ledger does not have:\n" + "\n".join(map(str, missing))


def test_every_committed_claim_maps_to_a_result(committed):
    unmapped = [f"{c.chapter}: {c.id} ({c.source})" for c in rp.unmapped_claims(records=committed)]
    assert not unmapped, "claims that no result of data/papers/results.csv names:\n" + "\n".join(unmapped)


def test_every_result_has_a_verdict_or_is_pending():
    empty = {(r.paper, r.kind, r.number) for r in papers.results().itertuples() if not papers.claim_ids(r.claim_ids)}
    assert empty <= PENDING, f"results without any claim: {sorted(empty - PENDING)}"


def test_missing_claims_are_flagged(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMCERT_OUTPUT_DIR", str(tmp_path / "out"))
    book.start_chapter("demo", paper="tajima")
    held = claims.at_most("demo.kept", 0.5, 1.0, paper="tajima", source="Lemma 1", statement="s")
    gone = claims.not_checked("demo.why", paper="tajima", source="Figure 9", statement="s", reason="other data: none")
    results = pd.DataFrame([
        {"paper": "tajima", "kind": "lemma", "number": "1", "title": "t", "section": "1", "claim_ids": "demo.kept demo.lost"},
        {"paper": "tajima", "kind": "figure", "number": "9", "title": "t", "section": "1", "claim_ids": "demo.why demo.kept"},
        {"paper": "tajima", "kind": "table", "number": "9", "title": "t", "section": "1", "claim_ids": ""}])
    table = rp.results_table(results, [held, gone])
    flagged = rp.flagged(table)
    assert list(flagged["result"]) == ["Lemma 1"] and flagged["missing"][0] == "demo.lost"
    assert table["verdicts"][1] == "holds (1); not checked (1)" and table["why"][1] == "other data: none"
    assert table["verdicts"][2] == "no claim" and table["result"][2] == "Table 9"
    counts = rp.verdict_counts(table, [held, gone]).set_index("verdict")
    assert counts.loc["holds", "results"] == 2 and counts.loc["holds", "claims"] == 1
    assert counts.loc["no claim", "results"] == 1 and counts.loc["all", "results"] == 3
    extra = claims.at_most("demo.orphan", 0.5, 1.0, paper="tajima", source="eq. (99)", statement="s")
    lib = claims.at_most("demo.lib", 0.5, 1.0, paper="tajima", source="(library)", statement="s")
    speed = claims.at_least("demo.speed", 20.0, 10.0, paper=claims.PROJECT, source="speed", statement="s", timing=True)
    assert [c.id for c in rp.unmapped_claims(results, [held, gone, extra, lib, speed])] == ["demo.orphan"]


def test_result_labels():
    assert rp.result_label("equation", "(14)") == "eq. (14)"
    assert rp.result_label("equation", "18-19") == "eq. (18-19)"
    assert rp.result_label("text", "Sec. 6.1 (cost)") == "Sec. 6.1 (cost)"
    assert rp.result_label("corollary", "A.3") == "Corollary A.3"


def test_reproduction_page_is_in_the_appendix():
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/appendix/reproduction" in toc
    assert toc.index("book/appendix/errata") < toc.index("book/appendix/reproduction")
    assert Path(ROOT / "book" / "appendix" / "reproduction.ipynb").is_file()


def test_a_timing_claims_verdict_is_shown_apart_and_not_counted(tmp_path, monkeypatch):
    """A timing claim's verdict belongs to the machine that measured it: the verdict columns and
    the counts must read the same whether it held or failed there."""
    monkeypatch.setenv("SVMCERT_OUTPUT_DIR", str(tmp_path / "out"))
    book.start_chapter("demo", paper="aksu")
    value = claims.at_most("demo.value", 0.5, 1.0, paper="aksu", source="Lemma 1", statement="s")
    results = pd.DataFrame([{"paper": "aksu", "kind": "text", "number": "Sec. 6.2", "title": "t", "section": "6.2",
                             "claim_ids": "demo.value demo.cost"}])
    seen = {}
    for observed in (0.1, 0.9):            # the same measurement, inside and outside its bound
        cost = claims.at_most("demo.cost", observed, 0.25, paper="aksu", source="Sec. 6.2", statement="s", timing=True)
        table = rp.results_table(results, [value, cost])
        counts = rp.verdict_counts(table, [value, cost])
        seen[cost.passed] = (table, counts)
    (held, held_counts), (failed, failed_counts) = seen[True], seen[False]
    assert held["verdicts"][0] == failed["verdicts"][0] == "holds (1); timed (1)"
    assert held["timed"][0] == "holds (1)" and failed["timed"][0] != held["timed"][0]
    pd.testing.assert_frame_equal(held_counts, failed_counts)
    assert held_counts.set_index("verdict").loc["timed", "claims"] == 1
