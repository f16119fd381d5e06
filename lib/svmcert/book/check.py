"""``svmcert book check``: did the regenerated tables and claims drift from the committed ones?

Compares every ``data/tables/**.csv`` and ``data/claims/*.json`` in the working tree with the
version committed at HEAD. Numeric table cells may move by the tolerance the table declares in
its ``.meta.json`` (|new - old| <= atol + rtol |old|); timing columns are skipped; text must
match exactly. A claim drifts when its verdict changes or its observed value moves by more than
its own tolerance (for relative comparisons: tolerance times |reference|), or by more than
1e-9 times max(1, |old value|) when that is larger; wall-clock claims are compared by verdict only.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import numpy as np

from .paths import project_root

__all__ = ["check_drift", "compare_tables", "compare_claims"]


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


def _committed_files(root: Path) -> set[str]:
    out = _git(root, "ls-tree", "-r", "--name-only", "HEAD", "--", "data/tables", "data/claims")
    if out.returncode != 0:
        raise RuntimeError(f"git ls-tree HEAD failed (is this a git checkout with a commit?): {out.stderr.strip()}")
    return {line for line in out.stdout.splitlines() if line.endswith((".csv", ".json")) and not line.endswith(".meta.json")}


def _head_text(root: Path, rel: str) -> str:
    out = _git(root, "show", f"HEAD:{rel}")
    if out.returncode != 0:
        raise RuntimeError(f"git show HEAD:{rel} failed: {out.stderr.strip()}")
    return out.stdout


def compare_tables(new_csv: str, old_csv: str, meta: dict) -> list[str]:
    """Differences between two CSV texts under the table's declared tolerance."""
    import pandas as pd

    new, old = pd.read_csv(io.StringIO(new_csv)), pd.read_csv(io.StringIO(old_csv))
    problems = []
    if list(new.columns) != list(old.columns):
        return [f"columns changed: {list(old.columns)} -> {list(new.columns)}"]
    if len(new) != len(old):
        return [f"row count changed: {len(old)} -> {len(new)}"]
    rtol, atol = float(meta.get("rtol", 0.0)), float(meta.get("atol", 0.0))
    skip = set(meta.get("timing_columns", []))
    for col in new.columns:
        if col in skip:
            continue
        a, b = new[col], old[col]
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            av, bv = a.to_numpy(float), b.to_numpy(float)
            same_nan = np.isnan(av) & np.isnan(bv)
            bad = ~same_nan & ~(np.abs(av - bv) <= atol + rtol * np.abs(bv))
            for i in np.flatnonzero(bad)[:5]:
                problems.append(f"column {col!r} row {i}: {bv[i]:.6g} -> {av[i]:.6g} (allowed atol={atol:g}, rtol={rtol:g})")
        else:
            # pandas' string dtype keeps missing cells as NaN, and NaN != NaN: compare them as equal
            both_missing = (a.isna() & b.isna()).to_numpy()
            diff = (a.astype(str).to_numpy() != b.astype(str).to_numpy()) & ~both_missing
            for i in np.flatnonzero(diff)[:5]:
                problems.append(f"column {col!r} row {i}: {b.iloc[i]!r} -> {a.iloc[i]!r}")
    return problems


def _claim_allowance(claim: dict) -> float:
    tol = float(claim.get("tolerance", 0.0))
    if claim.get("comparison") == "rel":
        tol *= abs(float(claim.get("reference", 0.0)))
    return tol


def compare_claims(new_text: str, old_text: str) -> list[str]:
    """Differences between two claims files: verdicts, ids, observed values beyond tolerance."""
    def by_id(text):
        payload = json.loads(text)
        recs = payload["claims"] if isinstance(payload, dict) else payload
        return {r["id"]: r for r in recs}

    new, old = by_id(new_text), by_id(old_text)
    problems = [f"claim {cid!r} is gone" for cid in sorted(set(old) - set(new))]
    problems += [f"claim {cid!r} is new (not committed)" for cid in sorted(set(new) - set(old))]
    for cid in sorted(set(new) & set(old)):
        a, b = new[cid], old[cid]
        if a["passed"] != b["passed"] or a.get("expect") != b.get("expect"):
            problems.append(f"claim {cid!r}: verdict {b['passed']}/{b.get('expect')} -> {a['passed']}/{a.get('expect')}")
        if a.get("timing") or b.get("timing"):
            continue  # wall-clock measurements: only the verdict must hold still
        # a claim's own tolerance, but never less than float noise on the old value (a bound
        # checked with tolerance 0 must not drift on the last digits across machines)
        allowed = max(_claim_allowance(a), _claim_allowance(b), 1e-9 * max(1.0, abs(float(b["observed"]))))
        if abs(float(a["observed"]) - float(b["observed"])) > allowed:
            problems.append(f"claim {cid!r}: observed {b['observed']:.6g} -> {a['observed']:.6g} (allowed {allowed:g})")
    return problems


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
        new_text = (root / rel).read_text()
        old_text = _head_text(root, rel)
        if new_text == old_text:
            continue
        if rel.endswith(".csv"):
            meta_path = (root / rel).with_suffix(".meta.json")
            meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
            problems = compare_tables(new_text, old_text, meta)
        else:
            problems = compare_claims(new_text, old_text)
        if problems:
            drift[rel] = problems
    return drift
