"""The Reproduction appendix: every result of the three papers with the verdicts the ledger gives it.

The inventory ``data/papers/results.csv`` (:func:`svmcert.papers.results`) lists each result with
the ids of the claims that check it. This module joins it with the claims the chapters recorded.

**How claims map to results.** A result's verdicts are those of the claims its ``claim_ids`` name;
a result may name several claims and a claim may serve several results (Theorem 4.1 and its
eq. (8), say). Every claim that a chapter files under a paper must be named by at least one
result, with two exceptions, which are not statements of a paper:

- *project claims*, filed under :data:`svmcert.claims.PROJECT`: the library's speed against the
  reference tools;
- *implementation claims*, filed under a paper but checking how the library implements it: their
  ``source`` starts with ``"(library)"`` or ends with ``"(implementation)"`` or ``"(our setup)"``
  (:data:`IMPLEMENTATION_MARKERS`).

**Timing claims.** A claim about running time (a measured complexity, a speed-up) gets its verdict
from the machine that measured it, under that machine's load. The ``verdicts`` column and the
counts therefore list such a claim as ``timed``, whatever it gave, and the column ``timed`` shows the
verdicts this run's machine gave (a timing column: ``svmcert book check`` does not compare it).

A result whose ids name no recorded claim is *flagged*: either its chapter has not run (quick runs
skip some claims) or the inventory is out of date. ``tests/test_reproduction.py`` holds the
committed ledger to both rules.
"""

from __future__ import annotations

from collections import Counter

from .. import claims as claims_mod
from .. import papers

__all__ = ["IMPLEMENTATION_MARKERS", "VERDICT_ORDER", "is_implementation_claim", "result_label", "results_table",
           "verdict_counts", "flagged", "unmapped_claims"]

#: Markers of a claim's ``source`` that make it an implementation claim (prefix, suffix, suffix).
IMPLEMENTATION_MARKERS = ("(library)", "(implementation)", "(our setup)")
#: Verdicts in the order the page lists them; "no claim" marks a result that names none.
#: "timed" stands for a timing claim, whatever its verdict on the measuring machine.
VERDICT_ORDER = ("holds", "erratum", "reproduced", "not reproduced", "not checked", "timed", "no claim")

_KIND_WORDS = {"theorem": "Theorem", "lemma": "Lemma", "corollary": "Corollary", "proposition": "Proposition",
               "remark": "Remark", "definition": "Definition", "algorithm": "Algorithm", "table": "Table",
               "figure": "Figure"}


def is_implementation_claim(claim) -> bool:
    """True for claims that are not statements of a paper (see the module docstring)."""
    if claim.paper == claims_mod.PROJECT:
        return True
    source = claim.source.strip()
    return source.startswith(IMPLEMENTATION_MARKERS[0]) or source.endswith(IMPLEMENTATION_MARKERS[1:])


def result_label(kind: str, number: str) -> str:
    """How the page names a result: ``Theorem 4.1``, ``eq. (14)``, ``Sec. 6.1 (cost)``."""
    if kind == "equation":
        return f"eq. {number}" if number.startswith("(") else f"eq. ({number})"
    if kind == "text":
        return number
    return f"{_KIND_WORDS[kind]} {number}"


def _stable_verdict(claim) -> str:
    """The claim's verdict, or ``"timed"`` for a timing claim (its verdict belongs to the machine)."""
    return "timed" if claim.quantity == "timing" else claim.verdict


def _tally(verdicts) -> str:
    counts = Counter(verdicts)
    return "; ".join(f"{v} ({counts[v]})" for v in sorted(counts, key=_verdict_key))


def _verdict_key(verdict: str) -> tuple:
    v = verdict.lower()
    return (VERDICT_ORDER.index(v) if v in VERDICT_ORDER else len(VERDICT_ORDER), verdict)


def results_table(results=None, records=None):
    """One row per result: where it is, which chapters check it, its verdicts and claim ids.

    Parameters
    ----------
    results : DataFrame, optional
        The inventory (default :func:`svmcert.papers.results`).
    records : list of Claim, optional
        The ledger (default :func:`svmcert.claims.load_claims`).

    Returns
    -------
    DataFrame with the columns ``paper, result, kind, title, section, chapters, verdicts, timed,
    claims, why, missing``. ``verdicts`` lists each distinct verdict with the number of claims that
    give it (``"holds (3); erratum (1)"``; a timing claim counts as ``timed``), ``"no claim"`` when
    the result names none; ``timed`` lists the verdicts of the timing claims on the machine that ran
    them (empty when there are none); ``why`` joins the
    causes of "not reproduced" and "not checked" verdicts; ``missing`` names the ids that no
    recorded claim has (the row is then flagged).
    """
    import pandas as pd

    results = papers.results() if results is None else results
    records = claims_mod.load_claims() if records is None else records
    by_id = {c.id: c for c in records}
    rows = []
    for r in results.itertuples(index=False):
        ids = papers.claim_ids(r.claim_ids)
        found = [by_id[i] for i in ids if i in by_id]
        missing = [i for i in ids if i not in by_id]
        verdicts = _tally(_stable_verdict(c) for c in found) if ids else "no claim"
        timed = _tally(c.verdict for c in found if c.quantity == "timing")
        why = "; ".join(dict.fromkeys(c.cause for c in found if c.verdict in ("not reproduced", "not checked") and c.cause))
        rows.append({"paper": r.paper, "result": result_label(r.kind, r.number), "kind": r.kind, "title": r.title,
                     "section": r.section, "chapters": ", ".join(dict.fromkeys(c.chapter for c in found)),
                     "verdicts": verdicts, "timed": timed, "claims": " ".join(ids), "why": why,
                     "missing": " ".join(missing)})
    columns = ["paper", "result", "kind", "title", "section", "chapters", "verdicts", "timed", "claims", "why", "missing"]
    return pd.DataFrame(rows, columns=columns)


def verdict_counts(table, records=None):
    """Per paper and verdict: how many results carry it and how many claims give it.

    A result with several verdicts counts once under each; timing claims count as ``timed``
    (module docstring). ``table`` is :func:`results_table`'s
    output; ``records`` (default: the ledger) supplies the claims, counted only if a result names
    them. Rows come in paper order, then :data:`VERDICT_ORDER`; a last row per paper counts its
    results.
    """
    import pandas as pd

    records = claims_mod.load_claims() if records is None else records
    by_id = {c.id: c for c in records}
    rows = []
    for paper in [p for p in claims_mod.PAPERS if p in set(table["paper"])]:
        part = table[table["paper"] == paper]
        n_results, n_claims = Counter(), Counter()
        named = set()
        for r in part.itertuples(index=False):
            ids = r.claims.split()
            if not ids:
                n_results["no claim"] += 1
                continue
            found = [by_id[i] for i in ids if i in by_id]
            for v in {_stable_verdict(c) for c in found}:
                n_results[v] += 1
            named.update(c.id for c in found)
        for cid in named:
            n_claims[_stable_verdict(by_id[cid])] += 1
        for v in sorted(set(n_results) | set(n_claims), key=_verdict_key):
            rows.append({"paper": paper, "verdict": v, "results": n_results[v], "claims": n_claims[v]})
        rows.append({"paper": paper, "verdict": "all", "results": len(part), "claims": len(named)})
    return pd.DataFrame(rows, columns=["paper", "verdict", "results", "claims"])


def flagged(table):
    """The rows whose claim ids name a claim that is not in the ledger."""
    return table[table["missing"] != ""].reset_index(drop=True)


def unmapped_claims(results=None, records=None) -> list:
    """Claims of the papers that no result names and that are not implementation or project claims."""
    results = papers.results() if results is None else results
    records = claims_mod.load_claims() if records is None else records
    named = {i for cell in results["claim_ids"] for i in papers.claim_ids(cell)}
    return [c for c in records if c.id not in named and not is_implementation_claim(c)]
