"""The claims ledger: one record per check a chapter makes (DESIGN.md, "Claims ledger").

A chapter opens with :func:`svmcert.book.start_chapter`, then records checks with
:func:`record` or the helpers :func:`close`, :func:`at_most` and :func:`at_least`. Each call
rewrites ``claims/<chapter>.json`` atomically in the chapter's output directory, so a chapter
that stops half-way never leaves a half-written file. A record states whether the comparison
held (``passed``) and whether it was expected to (``expect``): ``"fails"`` marks an erratum,
a statement of the paper that the numbers refute on purpose.

Every record has a *kind* and a *quantity*:

``kind``
    ``"check"`` — a statement of a paper (theorem, lemma, equation) checked against an
    independent reference: verdict *holds*, or *erratum* when refuted on purpose;
    ``"reproduction"`` — a number the paper prints (a table cell, a figure's value) recomputed:
    verdict *reproduced*, or *not reproduced* with its ``cause`` (``"other data"``,
    ``"other setup"``, ``"disagrees"``, then a sentence); ``"not checked"`` — a result the book
    does not check, with the reason in ``cause`` (:func:`not_checked`).
``quantity``
    what ``observed`` is, which decides how ``svmcert book check`` compares a rerun with the
    committed record: ``"exact"`` (counts and parameters the mathematics fixes: must be equal),
    ``"value"`` (a computed number: may move by ``drift_atol + drift_rtol * max(1, |old|)``,
    tolerances derived from solver accuracy and conditioning and stated where they are set),
    ``"path"`` (iterations, convergence flags, near-tie decisions, and rounding errors measured
    as such, which every machine makes differently: only the verdict is compared) or ``"timing"`` (CPU or wall clock: not compared, nor is its verdict, which
    belongs to the machine that measured it).
"""

from __future__ import annotations

import json
from pathlib import Path


from .claim_record import (CAUSES, COMPARISONS, DEFAULT_DRIFT_RTOL, EXPECTATIONS, KINDS, PAPERS,  # noqa: F401
                           PROJECT, QUANTITIES, Claim, as_float, compare)

__all__ = [
    "Claim",
    "PROJECT",
    "COMPARISONS",
    "record",
    "close",
    "at_most",
    "at_least",
    "not_checked",
    "reproduced",
    "load_claims",
    "unexpected",
    "ledger_table",
    "errata_table",
]

def _current():
    from .book import current_chapter

    return current_chapter()


def record(
    id: str,
    *,
    paper: str,
    source: str,
    statement: str,
    observed,
    reference,
    comparison: str,
    tolerance: float = 0.0,
    instances: int = 1,
    reference_source: str = "",
    expect: str = "holds",
    counterexample: dict | None = None,
    timing: bool = False,
    kind: str = "check",
    quantity: str | None = None,
    cause: str = "",
    drift_rtol: float = DEFAULT_DRIFT_RTOL,
    drift_atol: float = 0.0,
    note: str = "",
) -> Claim:
    """Evaluate a comparison, add it to the current chapter's ledger and write the ledger.

    Parameters
    ----------
    id : str
        Stable dotted identifier, e.g. ``"signsvm.lp_step.optimal"``.
    paper : {"tajima", "hanada", "aksu", "svmcert"}
        The paper; :data:`PROJECT` (``"svmcert"``) for a claim about the library itself (a speed
        goal against a reference tool), which no paper makes.
    source : str
        Where in the paper, e.g. ``"eq. (14)"``.
    statement : str
        The claim in one sentence, in our words.
    observed : float
        The measured number (worst case over all instances).
    reference : float
        The number or bound it is compared with; ``reference_source`` says what produced it.
    comparison : {"<=", ">=", "abs", "rel", "=="}
        See :func:`compare`.
    tolerance : float >= 0
        See :func:`compare`.
    instances : int
        How many instances the observed number is the worst case of.
    reference_source : str
        What produced ``reference`` (``"cvxpy/Clarabel"``, ``"bound"``, ...).
    expect : {"holds", "fails"}
        ``"fails"`` marks an erratum, shown on the errata page.
    counterexample : dict, optional
        For errata, the smallest instance that shows it (JSON-serialisable).
    timing : bool
        The observed number is a wall-clock measurement (e.g. a fitted exponent); the same as
        ``quantity="timing"``.
    kind : {"check", "reproduction"}
        ``"reproduction"``: a number the paper prints, recomputed. ``"not checked"`` records are
        made by :func:`not_checked`.
    quantity : {"exact", "value", "path", "timing"}, optional
        How ``svmcert book check`` compares a rerun with the committed record. Default:
        ``"timing"`` with ``timing=True``, ``"exact"`` for the ``==`` comparison, else ``"value"``.
    cause : str
        For a reproduction expected to fail (``expect="fails"``): why it is not reproduced,
        starting with one of :data:`CAUSES`.
    drift_rtol, drift_atol : float
        For value claims, how far ``observed`` and ``reference`` may move between runs and
        machines (``drift_atol + drift_rtol * max(1, |old|)``; never less than the claim's own
        tolerance). Derive them from the accuracy of what produced the numbers.
    note : str
        A qualifier shown in the ledger, e.g. that a true bound is loose by orders of magnitude,
        or that the tested effect is absent on some instances.

    Returns
    -------
    Claim
    """
    if paper not in PAPERS:
        raise ValueError(f"paper: expected one of {PAPERS}, got {paper!r}")
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison: expected one of {COMPARISONS}, got {comparison!r}")
    if expect not in EXPECTATIONS:
        raise ValueError(f"expect: expected one of {EXPECTATIONS}, got {expect!r}")
    if kind not in ("check", "reproduction"):
        raise ValueError(f"kind: expected 'check' or 'reproduction' (use not_checked() for the rest), got {kind!r}")
    if quantity is None:
        quantity = "timing" if timing else ("exact" if comparison == "==" else "value")
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity: expected one of {QUANTITIES}, got {quantity!r}")
    if timing and quantity != "timing":
        raise ValueError(f"quantity: timing=True needs quantity='timing', got {quantity!r}")
    if kind == "reproduction" and expect == "fails" and not cause.startswith(CAUSES):
        raise ValueError(f"cause: a reproduction expected to fail must say why, starting with one of {CAUSES}; got {cause!r}")
    drift_rtol, drift_atol = as_float(drift_rtol, "drift_rtol"), as_float(drift_atol, "drift_atol")
    if drift_rtol < 0 or drift_atol < 0:
        raise ValueError(f"drift_rtol, drift_atol: expected numbers >= 0, got {drift_rtol}, {drift_atol}")
    observed = as_float(observed, "observed")
    reference = as_float(reference, "reference")
    tolerance = as_float(tolerance, "tolerance")
    if tolerance < 0:
        raise ValueError(f"tolerance: expected a number >= 0, got {tolerance}")
    if int(instances) < 1:
        raise ValueError(f"instances: expected at least 1, got {instances}")
    chapter = _current()
    claim = Claim(
        id=id,
        paper=paper,
        source=source,
        statement=statement,
        observed=observed,
        reference=reference,
        reference_source=reference_source,
        comparison=comparison,
        tolerance=tolerance,
        instances=int(instances),
        passed=bool(compare(observed, reference, comparison, tolerance)),
        expect=expect,
        chapter=chapter.name,
        counterexample=counterexample,
        timing=quantity == "timing",
        kind=kind,
        quantity=quantity,
        cause=str(cause),
        drift_rtol=drift_rtol,
        drift_atol=drift_atol,
        note=str(note),
    )
    chapter.add_claim(claim)
    return claim


def reproduced(id: str, observed, printed, *, atol: float | None = None, rtol: float | None = None,
               cause: str = "", **kw) -> Claim:
    """Record a number the paper prints, recomputed (``kind="reproduction"``).

    ``atol``/``rtol`` as in :func:`close` — choose them from the printed precision (half a unit
    of the last printed digit) and from the accuracy of our computation. With ``cause`` the
    number is expected *not* to be reproduced, for the stated reason.
    """
    kw.setdefault("expect", "fails" if cause else "holds")
    return close(id, observed, printed, atol=atol, rtol=rtol, kind="reproduction", cause=cause, **kw)


def not_checked(id: str, *, paper: str, source: str, statement: str, reason: str) -> Claim:
    """Record a result of a paper that the book does not check, and why (verdict "not checked")."""
    if paper not in PAPERS:
        raise ValueError(f"paper: expected one of {PAPERS}, got {paper!r}")
    if not reason or not str(reason).strip():
        raise ValueError("reason: say why the result is not checked")
    chapter = _current()
    claim = Claim(id=id, paper=paper, source=source, statement=statement, observed=None, reference=None,
                  reference_source="", comparison="", tolerance=0.0, instances=0, passed=None, expect="holds",
                  chapter=chapter.name, kind="not checked", quantity="exact", cause=str(reason))
    chapter.add_claim(claim)
    return claim


def close(id: str, observed, reference, *, rtol: float | None = None, atol: float | None = None, **kw) -> Claim:
    """Record abs(observed - reference) <= atol (``abs``) or <= rtol abs(reference) (``rel``).

    Exactly one of ``rtol`` and ``atol``; the other keywords are those of :func:`record`.
    """
    if (rtol is None) == (atol is None):
        raise ValueError("close: give exactly one of rtol (relative) or atol (absolute)")
    if rtol is not None:
        return record(id, observed=observed, reference=reference, comparison="rel", tolerance=rtol, **kw)
    return record(id, observed=observed, reference=reference, comparison="abs", tolerance=atol, **kw)


def at_most(id: str, observed, bound, *, tolerance: float = 0.0, **kw) -> Claim:
    """Record observed <= bound + tolerance."""
    return record(id, observed=observed, reference=bound, comparison="<=", tolerance=tolerance, **kw)


def at_least(id: str, observed, bound, *, tolerance: float = 0.0, **kw) -> Claim:
    """Record observed >= bound - tolerance."""
    return record(id, observed=observed, reference=bound, comparison=">=", tolerance=tolerance, **kw)


# --------------------------------------------------------------------------- reading the ledger


def read_claims_file(path: Path) -> list[dict]:
    """The records of one ``claims/<chapter>.json`` file."""
    payload = json.loads(Path(path).read_text())
    return list(payload["claims"] if isinstance(payload, dict) else payload)


def load_claims(directory=None, chapters=None) -> list[Claim]:
    """Every record in ``<directory>/*.json`` (default: the project's ``data/claims``).

    ``chapters``: keep only these chapter names (e.g. the chapters listed in ``_toc.yml``, so that
    the ledger page shows exactly the book's claims).
    """
    if directory is None:
        from .book import data_dir

        directory = data_dir() / "claims"
    out = []
    for path in sorted(Path(directory).glob("*.json")):
        if chapters is not None and path.stem not in set(chapters):
            continue
        for rec in read_claims_file(path):
            out.append(Claim(**rec))
    return out


def unexpected(claims) -> list[Claim]:
    """Records whose verdict differs from the expected one."""
    return [c for c in claims if not c.as_expected]


def ledger_table(claims=None):
    """All records as a table: chapter, claim, source, observed, reference, tolerance, verdict."""
    import pandas as pd

    claims = load_claims() if claims is None else claims
    rows = []
    for c in claims:
        verdict = c.verdict
        rows.append(
            {
                "chapter": c.chapter,
                "claim": c.id,
                "paper": c.paper,
                "source": c.source,
                "statement": c.statement,
                "observed": c.observed,
                "comparison": c.comparison,
                "reference": c.reference,
                "reference from": c.reference_source,
                "tolerance": c.tolerance,
                "instances": c.instances,
                "kind": c.kind,
                "quantity": c.quantity,
                "verdict": verdict,
                "cause or note": "; ".join(t for t in (c.cause, c.note) if t),
            }
        )
    columns = ["chapter", "claim", "paper", "source", "statement", "observed", "comparison",
               "reference", "reference from", "tolerance", "instances", "kind", "quantity", "verdict",
               "cause or note"]
    return pd.DataFrame(rows, columns=columns)


def errata_table(claims=None):
    """The errata: checks marked ``expect="fails"`` (statements refuted on purpose) with their
    counterexamples. Printed numbers that are not reproduced are not errata; the ledger and the
    Reproduction page list them with their causes."""
    import pandas as pd

    claims = load_claims() if claims is None else claims
    rows = [
        {
            "chapter": c.chapter,
            "claim": c.id,
            "source": c.source,
            "statement (as printed)": c.statement,
            "observed": c.observed,
            "reference": c.reference,
            "reproduced": not c.passed,
            "smallest instance": json.dumps(c.counterexample, sort_keys=True) if c.counterexample else "",
        }
        for c in claims
        if c.expect == "fails" and c.kind == "check"
    ]
    return pd.DataFrame(rows, columns=["chapter", "claim", "source", "statement (as printed)",
                                       "observed", "reference", "reproduced", "smallest instance"])
