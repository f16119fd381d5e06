"""``svmcert book check``: did the regenerated tables and claims drift from the committed ones?

Compares every ``data/tables/**.csv`` and ``data/claims/*.json`` in the working tree with the
version committed at HEAD, under the tolerances committed at HEAD (a rerun cannot loosen its own
check by writing a new ``.meta.json``).

Tables: each column has a class in the table's ``.meta.json`` (``columns``): ``exact`` cells
(text, counts, instance parameters) must be equal; ``value`` cells may move by
``atol + rtol * |old|`` with the table's ``rtol`` and ``atol`` (or the column's own, from
``column_tolerances``); ``path`` and ``timing`` cells
(iterations, wall clock) are not compared. Tables written before columns had classes declare
their ``timing_columns`` only: their other numeric columns are values, text is exact.

Claims: every field of a record must be equal — id, statement, source, comparison, tolerance (to
1e-9 relative; a value claim's tolerance computed from the data may move by the claim's drift
allowance), the drift allowances themselves (a ``drift_atol`` or ``drift_rtol`` derived from the
machine's rounding, such as a float32 kernel's error, may move within a factor of
DRIFT_ALLOWANCE_FACTOR; the committed allowance is the one applied), expectation, kind, quantity, instances (except for path and timing claims, whose
count of events is itself a path quantity), cause — and so must the verdict (but see timing claims
below). ``observed`` and
``reference`` are compared by the record's quantity (HEAD's): ``exact`` equal, ``value`` within
``drift_atol + drift_rtol * max(1, |old|)`` (or the claim's own tolerance, if that is larger),
``path`` and ``timing`` not at all. The verdict of a timing claim (a speed goal, a measured
complexity) belongs to the machine that ran it: it is shown, but a change is not drift. A number
that is not finite is always drift. A file that
cannot be read (malformed JSON, an empty CSV, bytes that are not UTF-8) is reported as drift of
that file, with the reason.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
from pathlib import Path

import numpy as np

from .paths import project_root

__all__ = ["check_drift", "compare_tables", "compare_claims", "column_classes"]

#: Claim fields that must not change at all between the committed record and a rerun.
_FIXED_FIELDS = ("paper", "source", "statement", "reference_source", "comparison", "tolerance", "instances",
                 "expect", "chapter", "kind", "quantity", "cause", "note", "drift_rtol", "drift_atol", "timing")
#: Fields that are numbers: equal up to 1e-9 relative counts as unchanged (a tolerance computed from
#: the data moves in its last digits), anything more is a change.
_FLOAT_FIELDS = ("tolerance", "drift_rtol", "drift_atol")
#: A drift allowance derived from the machine's rounding (the NTK chapter's, from float32 kernels)
#: moves with the machine: within this factor of the committed one it is not drift. The committed
#: allowance is what the rerun's values are compared under, so a rerun cannot widen its own check.
DRIFT_ALLOWANCE_FACTOR = 2.0
_CLAIM_DEFAULTS = {"timing": False, "kind": "check", "quantity": None, "cause": "", "note": "",
                   "drift_rtol": 1e-9, "drift_atol": 0.0, "expect": "holds", "chapter": "", "reference_source": ""}


class _Unreadable(Exception):
    """A committed or regenerated file that cannot be parsed; the message says why."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True)


def _committed_files(root: Path) -> set[str]:
    out = _git(root, "ls-tree", "-r", "--name-only", "HEAD", "--", "data/tables", "data/claims")
    if out.returncode != 0:
        raise RuntimeError("git ls-tree HEAD failed (is this a git checkout with a commit?): "
                           f"{out.stderr.decode(errors='replace').strip()}")
    names = out.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    return {n for n in names if n.endswith((".csv", ".json")) and not n.endswith(".meta.json")}


def _head_bytes(root: Path, rel: str) -> bytes | None:
    out = _git(root, "show", f"HEAD:{rel}")
    return out.stdout if out.returncode == 0 else None


def _decode(payload: bytes, what: str) -> str:
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"{what} is not UTF-8 text (byte {exc.start}: {payload[exc.start:exc.start + 1]!r})") from None


# --------------------------------------------------------------------------- tables
def column_classes(meta: dict, columns, numeric) -> dict[str, str]:
    """Class of every column: the meta's ``columns`` entry, else timing if listed as a timing
    column, else ``value`` for numeric columns and ``exact`` for text."""
    declared = dict(meta.get("columns") or {})
    timing = set(meta.get("timing_columns") or [])
    out = {}
    for col in columns:
        if col in declared:
            out[col] = declared[col]
        elif col in timing:
            out[col] = "timing"
        else:
            out[col] = "value" if numeric(col) else "exact"
    return out


def _read_csv(text: str, what: str):
    import pandas as pd

    try:
        return pd.read_csv(io.StringIO(text))
    except pd.errors.EmptyDataError:
        raise _Unreadable(f"{what} is empty (no header row)") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise _Unreadable(f"{what} is not a readable CSV: {exc}") from None


def compare_tables(new_csv: str, old_csv: str, meta: dict) -> list[str]:
    """Differences between two CSV texts under the table's declared column classes and tolerance
    (``meta`` is the committed ``.meta.json``)."""
    import pandas as pd

    try:
        new, old = _read_csv(new_csv, "the regenerated CSV"), _read_csv(old_csv, "the committed CSV")
    except _Unreadable as exc:
        return [str(exc)]
    if list(new.columns) != list(old.columns):
        return [f"columns changed: {list(old.columns)} -> {list(new.columns)}"]
    if len(new) != len(old):
        return [f"row count changed: {len(old)} -> {len(new)}"]
    per_column = meta.get("column_tolerances") or {}
    is_num = lambda c: pd.api.types.is_numeric_dtype(new[c]) and pd.api.types.is_numeric_dtype(old[c])  # noqa: E731
    classes = column_classes(meta, new.columns, is_num)
    problems = []
    for col in new.columns:
        kind = classes[col]
        if kind in ("path", "timing"):
            continue
        a, b = new[col], old[col]
        rtol, atol = (float(x) for x in per_column.get(col, (meta.get("rtol", 0.0), meta.get("atol", 0.0))))
        if is_num(col):
            av, bv = a.to_numpy(float), b.to_numpy(float)
            same = (np.isnan(av) & np.isnan(bv)) | (av == bv)
            if kind == "exact":
                bad = ~same
            else:
                bad = ~same & ~(np.abs(av - bv) <= atol + rtol * np.abs(bv))
            for i in np.flatnonzero(bad)[:5]:
                allowed = "exact" if kind == "exact" else f"atol={atol:g}, rtol={rtol:g}"
                problems.append(f"column {col!r} row {i}: {bv[i]:.10g} -> {av[i]:.10g} (allowed {allowed})")
        else:
            # pandas keeps missing text cells as NaN, and NaN != NaN: missing on both sides is equal
            both_missing = (a.isna() & b.isna()).to_numpy()
            diff = (a.astype(str).to_numpy() != b.astype(str).to_numpy()) & ~both_missing
            for i in np.flatnonzero(diff)[:5]:
                problems.append(f"column {col!r} row {i}: {b.iloc[i]!r} -> {a.iloc[i]!r}")
    return problems


# --------------------------------------------------------------------------- claims
def _claims_by_id(text: str, what: str) -> dict:
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"{what} is not valid JSON: {exc}") from None
    recs = payload.get("claims") if isinstance(payload, dict) else payload
    if not isinstance(recs, list) or not all(isinstance(r, dict) and "id" in r for r in recs):
        raise _Unreadable(f"{what} has no list of claim records with ids")
    out = {}
    for r in recs:
        if r["id"] in out:
            raise _Unreadable(f"{what} has two records with the id {r['id']!r}")
        out[r["id"]] = r
    return out


def _quantity(claim: dict) -> str:
    q = claim.get("quantity")
    if q:
        return q
    if claim.get("timing"):
        return "timing"
    return "exact" if claim.get("comparison") == "==" else "value"


def _field(claim: dict, name: str):
    if name == "quantity":
        return _quantity(claim)
    return claim.get(name, _CLAIM_DEFAULTS.get(name))


def _number(value) -> float | None:
    """The value as a finite float, or None when it is missing or not a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _own_allowance(claim: dict) -> float:
    tol = _number(claim.get("tolerance")) or 0.0
    if claim.get("comparison") == "rel":
        tol *= abs(_number(claim.get("reference")) or 0.0)
    return tol


def _within_factor(x: float, y: float, factor: float) -> bool:
    """Both positive and finite, and neither more than ``factor`` times the other."""
    return 0.0 < x < math.inf and 0.0 < y < math.inf and max(x, y) <= factor * min(x, y)


def _drift_allowance(claim: dict, old: float) -> float:
    """How far a value claim's numbers may move: ``drift_atol + drift_rtol * max(1, |old|)``."""
    return float(_field(claim, "drift_atol")) + float(_field(claim, "drift_rtol")) * max(1.0, abs(old))


def _compare_number(cid: str, what: str, new, old, quantity: str, old_claim: dict) -> list[str]:
    if quantity in ("path", "timing"):
        return []
    if old is None and new is None:
        return []
    a, b = _number(new), _number(old)
    if a is None or b is None:
        return [f"claim {cid!r}: {what} is not a finite number: {old!r} -> {new!r}"]
    if quantity == "exact":
        return [] if a == b else [f"claim {cid!r}: {what} {b!r} -> {a!r} (exact quantity: must be equal)"]
    allowed = max(_drift_allowance(old_claim, b), _own_allowance(old_claim))
    if abs(a - b) > allowed:
        return [f"claim {cid!r}: {what} {b:.10g} -> {a:.10g} (allowed {allowed:g})"]
    return []


def _compare_json(cid: str, path: str, new, old, quantity: str, old_claim: dict) -> list[str]:
    """Counterexamples: same structure, numbers compared like ``observed``."""
    if isinstance(old, dict) and isinstance(new, dict):
        if set(old) != set(new):
            return [f"claim {cid!r}: {path} keys changed: {sorted(old)} -> {sorted(new)}"]
        return [p for k in sorted(old) for p in _compare_json(cid, f"{path}.{k}", new[k], old[k], quantity, old_claim)]
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"claim {cid!r}: {path} length changed: {len(old)} -> {len(new)}"]
        return [p for i, (x, y) in enumerate(zip(new, old)) for p in _compare_json(cid, f"{path}[{i}]", x, y, quantity, old_claim)]
    numeric = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
    if numeric(old) and numeric(new):   # a counterexample's numbers are of the claim's own quantity
        return _compare_number(cid, path, new, old, quantity, old_claim)
    return [] if new == old else [f"claim {cid!r}: {path} changed: {old!r} -> {new!r}"]


def compare_claims(new_text: str, old_text: str) -> list[str]:
    """Differences between a regenerated claims file and the committed one (module docstring)."""
    try:
        new, old = _claims_by_id(new_text, "the regenerated file"), _claims_by_id(old_text, "the committed file")
    except _Unreadable as exc:
        return [str(exc)]
    problems = [f"claim {cid!r} is gone" for cid in sorted(set(old) - set(new))]
    problems += [f"claim {cid!r} is new (not committed)" for cid in sorted(set(new) - set(old))]
    for cid in sorted(set(new) & set(old)):
        a, b = new[cid], old[cid]
        quantity = _quantity(b)
        if a.get("passed") != b.get("passed") and quantity != "timing":
            problems.append(f"claim {cid!r}: verdict passed={b.get('passed')} -> passed={a.get('passed')}")
        for name in _FIXED_FIELDS:
            x, y = _field(a, name), _field(b, name)
            if name == "instances" and quantity in ("path", "timing"):
                continue   # how many events a path produced is itself a path quantity
            if name in _FLOAT_FIELDS and _number(x) is not None and _number(y) is not None:
                if abs(float(x) - float(y)) <= 1e-9 * max(abs(float(x)), abs(float(y))):
                    continue   # a tolerance derived from the data, equal up to rounding
                if name == "tolerance" and quantity == "value" and abs(float(x) - float(y)) <= _drift_allowance(b, float(y)):
                    continue   # a tolerance computed from the data moves as the claim's values may
                if name in ("drift_atol", "drift_rtol") and _within_factor(float(x), float(y), DRIFT_ALLOWANCE_FACTOR):
                    continue   # an allowance derived from the machine's rounding moves with the machine
            if x != y:
                problems.append(f"claim {cid!r}: {name} changed: {y!r} -> {x!r}")
        if b.get("kind") == "not checked":
            continue
        problems += _compare_number(cid, "observed", a.get("observed"), b.get("observed"), quantity, b)
        problems += _compare_number(cid, "reference", a.get("reference"), b.get("reference"), quantity, b)
        problems += _compare_json(cid, "counterexample", a.get("counterexample"), b.get("counterexample"), quantity, b)
    return problems


# --------------------------------------------------------------------------- the whole tree
def _compare_file(root: Path, rel: str) -> list[str]:
    new_bytes = (root / rel).read_bytes()
    old_bytes = _head_bytes(root, rel)
    if old_bytes is None:
        return ["cannot read the committed version (git show failed)"]
    if new_bytes == old_bytes:
        return []
    try:
        new_text, old_text = _decode(new_bytes, "the regenerated file"), _decode(old_bytes, "the committed file")
    except _Unreadable as exc:
        return [str(exc)]
    if rel.endswith(".csv"):
        meta_rel = rel[: -len(".csv")] + ".meta.json"
        meta_bytes = _head_bytes(root, meta_rel)
        if meta_bytes is None:
            return [f"no committed {meta_rel}: the table's tolerance is unknown"]
        try:
            meta = json.loads(_decode(meta_bytes, f"the committed {meta_rel}"))
        except (json.JSONDecodeError, _Unreadable) as exc:
            return [f"the committed {meta_rel} cannot be read: {exc}"]
        return compare_tables(new_text, old_text, meta)
    return compare_claims(new_text, old_text)


def check_drift(root: Path | None = None) -> dict[str, list[str]]:
    """Map each drifting file (relative path) to its list of differences; empty when all agree."""
    root = project_root() if root is None else Path(root)
    committed = _committed_files(root)
    current = {
        p.relative_to(root).as_posix()
        for sub in ("data/tables", "data/claims")
        for p in (root / sub).rglob("*")
        if p.is_file() and p.suffix in (".csv", ".json") and not p.name.endswith(".meta.json")
    } if (root / "data").is_dir() else set()
    drift: dict[str, list[str]] = {}
    for rel in sorted(committed - current):
        drift[rel] = ["committed at HEAD but no longer written by any chapter"]
    for rel in sorted(current - committed):
        drift[rel] = ["written by a chapter but not committed"]
    for rel in sorted(current & committed):
        try:
            problems = _compare_file(root, rel)
        except OSError as exc:
            problems = [f"cannot read the regenerated file: {exc}"]
        if problems:
            drift[rel] = problems
    return drift
