"""The numbers printed in Tajima et al.'s Tables 1 and 2, read from the decoded paper text.

Reading them from ``shared/seeds/sign-constrained-svm.txt`` (beside the project) instead of
typing them in keeps transcription errors out of the comparison.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

__all__ = ["paper_path", "read_tables", "table1_vs_table2"]

_ROW = re.compile(r"^(\d+)\t(.+)$")
_CELL = re.compile(r"([0-9.]+) \(([0-9.]+)\)")


def paper_path() -> Path:
    """``../shared/seeds/sign-constrained-svm.txt`` relative to the project root."""
    from ..book.paths import project_root

    path = project_root().parent / "shared" / "seeds" / "sign-constrained-svm.txt"
    if not path.is_file():
        raise FileNotFoundError(f"the decoded paper is not at {path}: the shared folder must sit beside the project")
    return path


def _rows(lines, start, count):
    out = {}
    for line in lines[start:]:
        m = _ROW.match(line.strip("\n"))
        if m:
            out[int(m.group(1))] = [float(mean) for mean, _ in _CELL.findall(m.group(2))]
            if len(out) == count:
                break
        elif out:
            break
    return out


def read_tables(path=None) -> dict:
    """Table 1 (per class: conventional, sign-constrained) and Table 2 (per class: five lambdas,
    upper block conventional, lower block sign-constrained), mean ROC scores only."""
    lines = Path(path or paper_path()).read_text().splitlines()
    t1 = next(i for i, l in enumerate(lines) if l.startswith("Table 1: ROC scores"))
    t2 = next(i for i, l in enumerate(lines) if l.startswith("Table 2: Details on ROC scores"))
    upper = next(i for i in range(t2, len(lines)) if lines[i].strip() == "Conventional SVM-pairwise")
    lower = next(i for i in range(upper, len(lines)) if lines[i].strip() == "Sign Constrained SVM-pairwise")
    return {"table1": _rows(lines, t1, 12), "table2_conventional": _rows(lines, upper, 12),
            "table2_sign": _rows(lines, lower, 12)}


def table1_vs_table2(tables: dict):
    """Sec. 10.2 says Table 1 shows the best entries of Table 2: compare them class by class."""
    import pandas as pd

    rows = []
    for cls, (conv, sign) in sorted(tables["table1"].items()):
        best_conv = max(tables["table2_conventional"][cls])
        best_sign = max(tables["table2_sign"][cls])
        rows.append({"class": cls, "table1_conventional": conv, "table2_best_conventional": best_conv,
                     "table1_sign": sign, "table2_best_sign": best_sign,
                     "mismatch": float(max(abs(conv - best_conv), abs(sign - best_sign)))})
    return pd.DataFrame(rows)
