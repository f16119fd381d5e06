"""The claims ledger: comparisons, records written per chapter, and the gate on committed claims."""

import json

import pytest

from svmcert import book, claims
from svmcert.book.paths import project_root


@pytest.fixture
def chapter(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMCERT_OUTPUT_DIR", str(tmp_path / "out"))
    monkeypatch.setenv("SVMCERT_DATA_DIR", str(tmp_path / "out"))
    return book.start_chapter("demo", paper="tajima", seed=1)


@pytest.mark.parametrize(
    "obs, ref, cmp, tol, expected",
    [
        (1.0, 1.0, "<=", 0.0, True), (1.1, 1.0, "<=", 0.05, False), (1.1, 1.0, "<=", 0.1, True),
        (0.9, 1.0, ">=", 0.0, False), (0.95, 1.0, ">=", 0.05, True),
        (1.05, 1.0, "abs", 0.01, False), (1.005, 1.0, "abs", 0.01, True),
        (110.0, 100.0, "rel", 0.05, False), (104.0, 100.0, "rel", 0.05, True),
        (0.0, 0.0, "==", 0.0, True), (1e-300, 0.0, "==", 0.0, False),
    ],
)
def test_compare(obs, ref, cmp, tol, expected):
    assert claims.compare(obs, ref, cmp, tol) is expected


def test_records_are_written_atomically_and_replace_same_id(chapter):
    claims.at_most("demo.a", 0.5, 1.0, paper="tajima", source="eq. (1)", statement="s", instances=3)
    claims.close("demo.b", 1.0, 1.0 + 1e-12, rtol=1e-9, paper="tajima", source="eq. (2)", statement="s")
    claims.at_most("demo.a", 2.0, 1.0, paper="tajima", source="eq. (1)", statement="s", instances=4)
    payload = json.loads(chapter.claims_path.read_text())
    ids = [c["id"] for c in payload["claims"]]
    assert ids == ["demo.b", "demo.a"]
    a = payload["claims"][1]
    assert a["passed"] is False and a["instances"] == 4 and a["chapter"] == "demo"
    assert not list(chapter.claims_path.parent.glob(".*.tmp"))


def test_erratum_semantics(chapter):
    c = claims.record("demo.err", paper="tajima", source="eq. (13)", statement="s", observed=1.0, reference=0.0,
                      comparison="abs", tolerance=1e-9, expect="fails", counterexample={"n": 1})
    assert not c.passed and c.as_expected
    loaded = claims.load_claims(chapter.claims_path.parent)
    assert claims.unexpected(loaded) == []
    table = claims.errata_table(loaded)
    assert list(table["claim"]) == ["demo.err"] and '"n": 1' in table["smallest instance"][0]
    assert claims.ledger_table(loaded)["verdict"][0].startswith("erratum")


@pytest.mark.parametrize(
    "kwargs, word",
    [(dict(paper="someone"), "paper"), (dict(comparison="<"), "comparison"), (dict(expect="maybe"), "expect"),
     (dict(tolerance=-1.0), "tolerance"), (dict(observed=float("nan")), "observed"), (dict(instances=0), "instances")],
)
def test_record_rejects_bad_input(chapter, kwargs, word):
    args = dict(paper="tajima", source="x", statement="s", observed=1.0, reference=1.0, comparison="<=")
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        claims.record("demo.bad", **args)


def test_close_needs_exactly_one_tolerance(chapter):
    with pytest.raises(ValueError, match="exactly one"):
        claims.close("demo.c", 1.0, 1.0, paper="tajima", source="x", statement="s")


def test_committed_claims_are_as_expected():
    """The gate: every committed verdict is the expected one (holds, or a reproduced erratum)."""
    directory = project_root() / "data" / "claims"
    records = claims.load_claims(directory)
    assert records, f"no claims committed under {directory}"
    bad = [f"{c.chapter}: {c.id} (passed={c.passed}, expect={c.expect})" for c in claims.unexpected(records)]
    assert not bad, "claims with unexpected verdicts:\n" + "\n".join(bad)
    for c in records:
        assert c.paper in claims.PAPERS and c.source and c.statement, c.id
        if c.kind == "not checked":
            assert c.cause.strip() and c.instances == 0, f"{c.id}: a result not checked says why"
            continue
        assert c.instances >= 1, c.id
        if c.kind == "reproduction" and c.expect == "fails":
            assert c.cause.startswith(claims.CAUSES), f"{c.id}: a number not reproduced names its cause"
        elif c.expect == "fails":
            assert c.counterexample, f"erratum {c.id} has no counterexample"
        if c.id.startswith("benchmarks."):
            # a speed-up asked of the library is the project's goal, not a statement of a paper
            assert c.paper == claims.PROJECT, f"{c.id}: a speed goal filed under {c.paper}"
        if c.paper != claims.PROJECT and (c.timing or c.quantity == "timing") and c.comparison == ">=":
            # a speed claim under a paper's name must be one the paper makes (its table or section)
            assert any(w in c.source for w in ("Table", "Sec.", "Theorem", "eq.")), f"{c.id}: {c.source}"


def test_reproductions_results_not_checked_and_project_claims(chapter):
    r = claims.reproduced("demo.r", 0.70, 0.75, atol=0.01, paper="tajima", source="Table 1", statement="s",
                          cause="other data: the yeast set")
    assert r.verdict == "not reproduced" and r.as_expected and r.kind == "reproduction"
    with pytest.raises(ValueError, match="cause"):
        claims.reproduced("demo.r2", 0.70, 0.75, atol=0.01, paper="tajima", source="Table 1", statement="s",
                          cause="it differs")
    n = claims.not_checked("demo.n", paper="tajima", source="Figure 1", statement="s", reason="an illustration")
    assert n.verdict == "not checked" and n.instances == 0 and n.as_expected
    p = claims.at_least("demo.p", 20.0, 10.0, paper=claims.PROJECT, source="speed", statement="s", timing=True)
    assert p.paper == "svmcert" and p.quantity == "timing"
    loaded = {c.id: c for c in claims.load_claims(chapter.claims_path.parent)}
    assert loaded["demo.n"].verdict == "not checked" and loaded["demo.r"].cause.startswith("other data")
