"""A claim's record: the :class:`Claim` type, the vocabularies of its fields (papers, comparisons,
kinds, quantities, causes) and the comparison that gives its verdict. :mod:`svmcert.claims` records,
loads and tabulates claims."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Claim", "PROJECT", "PAPERS", "COMPARISONS", "EXPECTATIONS", "KINDS", "QUANTITIES", "CAUSES",
           "DEFAULT_DRIFT_RTOL", "as_float", "compare"]

#: The papers a claim can be filed under, and ``PROJECT`` for claims about this library itself
#: (its speed against the reference tools): those are not statements of any paper.
PROJECT = "svmcert"
PAPERS = ("tajima", "hanada", "aksu", PROJECT)
COMPARISONS = ("<=", ">=", "abs", "rel", "==")
EXPECTATIONS = ("holds", "fails")
KINDS = ("check", "reproduction", "not checked")
QUANTITIES = ("exact", "value", "path", "timing")
#: The causes a "not reproduced" verdict names first (then a sentence of detail).
CAUSES = ("other data", "other setup", "disagrees")
#: Default drift allowance of a value claim: floating-point noise on a well-conditioned number.
DEFAULT_DRIFT_RTOL = 1e-9


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
    kind: str = "check"
    quantity: str = "value"
    cause: str = ""
    drift_rtol: float = DEFAULT_DRIFT_RTOL
    drift_atol: float = 0.0
    note: str = ""

    @property
    def verdict(self) -> str:
        """The ledger's word for this record: holds, erratum, reproduced, not reproduced, not
        checked — or, when the outcome is not the expected one, that word in capitals."""
        if self.kind == "not checked":
            return "not checked"
        if self.kind == "reproduction":
            if self.expect == "holds":
                return "reproduced" if self.passed else "NOT REPRODUCED"
            return "not reproduced" if not self.passed else "REPRODUCED (expected not to be)"
        if self.expect == "fails":
            return "erratum" if not self.passed else "ERRATUM NOT REPRODUCED"
        return "holds" if self.passed else "FAILS"

    def _repr_markdown_(self) -> str:
        """One line in the rendered chapter: the verdict, the claim and the numbers compared."""
        if self.kind == "not checked":
            return f"**not checked** `{self.id}` ({self.source}): {self.cause}"
        text = (f"**{self.verdict}** `{self.id}` ({self.source}): observed {self.observed:.4g} "
                f"{self.comparison} {self.reference:.4g} (tolerance {self.tolerance:g}, {self.instances} instances)")
        if self.cause:
            text += f"; {self.cause}"
        return text

    @property
    def as_expected(self) -> bool:
        """True when the verdict is the expected one (holds and passed, or erratum and failed);
        a result marked "not checked" has no outcome to expect."""
        if self.kind == "not checked":
            return True
        return self.passed == (self.expect == "holds")


def as_float(value, name: str) -> float:
    """A claim's number as a float; a ValueError naming the field otherwise."""
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
    ``abs``: abs(observed - reference) <= tolerance; ``rel``: abs(observed - reference) <=
    tolerance * abs(reference); ``==``: observed == reference exactly.
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
