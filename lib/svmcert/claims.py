"""The claims ledger: one record per check a chapter makes (DESIGN.md, "Claims ledger").

A chapter opens with :func:`svmcert.book.start_chapter`, then records checks with
:func:`record` or the helpers :func:`close`, :func:`at_most` and :func:`at_least`. Each call
rewrites ``claims/<chapter>.json`` atomically in the chapter's output directory, so a chapter
that stops half-way never leaves a half-written file. A record states whether the comparison
held (``passed``) and whether it was expected to (``expect``): ``"fails"`` marks an erratum,
a statement of the paper that the numbers refute on purpose.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "Claim",
    "COMPARISONS",
    "record",
    "close",
    "at_most",
    "at_least",
    "load_claims",
    "unexpected",
    "ledger_table",
    "errata_table",
]

PAPERS = ("tajima", "hanada", "aksu")
COMPARISONS = ("<=", ">=", "abs", "rel", "==")
EXPECTATIONS = ("holds", "fails")


@dataclass
class Claim:
    """One verdict of the ledger. Field meanings follow DESIGN.md."""

    id: str
    paper: str
    source: str
    statement: str
    observed: float
    reference: float
    reference_source: str
    comparison: str
    tolerance: float
    instances: int
    passed: bool
    expect: str = "holds"
    chapter: str = ""
    counterexample: dict | None = field(default=None)
    timing: bool = False

    def _repr_markdown_(self) -> str:
        """One line in the rendered chapter: the verdict, the claim and the numbers compared."""
        if self.expect == "fails":
            mark = "erratum reproduced" if not self.passed else "ERRATUM NOT REPRODUCED"
        else:
            mark = "holds" if self.passed else "FAILS"
        return (f"**{mark}** `{self.id}` ({self.source}): observed {self.observed:.4g} "
                f"{self.comparison} {self.reference:.4g} (tolerance {self.tolerance:g}, {self.instances} instances)")

    @property
    def as_expected(self) -> bool:
        """True when the verdict is the expected one (holds and passed, or erratum and failed)."""
        return self.passed == (self.expect == "holds")


def _to_float(value, name: str) -> float:
    if isinstance(value, (np.generic, np.ndarray)):
        value = np.asarray(value).item()
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected a real number, got {value!r}") from exc
    if math.isnan(out):
        raise ValueError(f"{name}: expected a number, got NaN")
    return out


def compare(observed: float, reference: float, comparison: str, tolerance: float) -> bool:
    """Evaluate one comparison of the ledger.

    ``<=``: observed <= reference + tolerance; ``>=``: observed >= reference - tolerance;
    ``abs``: |observed - reference| <= tolerance; ``rel``: |observed - reference| <=
    tolerance * |reference|; ``==``: observed == reference exactly.
    """
    if comparison == "<=":
        return observed <= reference + tolerance
    if comparison == ">=":
        return observed >= reference - tolerance
    if comparison == "abs":
        return abs(observed - reference) <= tolerance
    if comparison == "rel":
        return abs(observed - reference) <= tolerance * abs(reference)
    if comparison == "==":
        return observed == reference
    raise ValueError(f"comparison: expected one of {COMPARISONS}, got {comparison!r}")


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
) -> Claim:
    """Evaluate a comparison, add it to the current chapter's ledger and write the ledger.

    Parameters
    ----------
    id : stable dotted identifier, e.g. ``"signsvm.lp_step.optimal"``.
    paper : ``"tajima"``, ``"hanada"`` or ``"aksu"``.
    source : where in the paper, e.g. ``"eq. (14)"``.
    statement : the claim in one sentence, in our words.
    observed : the measured number (worst case over all instances).
    reference : the number or bound it is compared with; ``reference_source`` says what produced it.
    comparison, tolerance : see :func:`compare`.
    instances : how many instances the observed number is the worst case of.
    expect : ``"holds"`` or ``"fails"`` (an erratum shown on the errata page).
    counterexample : for errata, the smallest instance that shows it (JSON-serialisable).
    timing : the observed number is a wall-clock measurement (e.g. a fitted exponent); the drift
        check then compares only the verdict, since such numbers move between runs.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper: expected one of {PAPERS}, got {paper!r}")
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison: expected one of {COMPARISONS}, got {comparison!r}")
    if expect not in EXPECTATIONS:
        raise ValueError(f"expect: expected one of {EXPECTATIONS}, got {expect!r}")
    observed = _to_float(observed, "observed")
    reference = _to_float(reference, "reference")
    tolerance = _to_float(tolerance, "tolerance")
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
        timing=bool(timing),
    )
    chapter.add_claim(claim)
    return claim


def close(id: str, observed, reference, *, rtol: float | None = None, atol: float | None = None, **kw) -> Claim:
    """Record |observed - reference| <= atol (``abs``) or <= rtol |reference| (``rel``)."""
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


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def ledger_table(claims=None):
    """All records as a table: chapter, claim, source, observed, reference, tolerance, verdict."""
    import pandas as pd

    claims = load_claims() if claims is None else claims
    rows = []
    for c in claims:
        verdict = "holds" if c.passed else "fails"
        if c.expect == "fails":
            verdict = "erratum (refuted as expected)" if not c.passed else "erratum NOT reproduced"
        elif not c.passed:
            verdict = "FAILS"
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
                "verdict": verdict,
            }
        )
    columns = ["chapter", "claim", "paper", "source", "statement", "observed", "comparison",
               "reference", "reference from", "tolerance", "instances", "verdict"]
    return pd.DataFrame(rows, columns=columns)


def errata_table(claims=None):
    """The records marked ``expect="fails"`` with their counterexamples."""
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
        if c.expect == "fails"
    ]
    return pd.DataFrame(rows, columns=["chapter", "claim", "source", "statement (as printed)",
                                       "observed", "reference", "reproduced", "smallest instance"])
