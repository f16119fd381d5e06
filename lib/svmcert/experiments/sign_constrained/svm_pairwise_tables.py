"""Tajima et al.'s Tables 1 and 2 (mean ROC scores per class), from ``data/papers/tajima.csv``.

The numbers are kept in the repository (:mod:`svmcert.papers`), transcribed once from the paper and
checked against its decoded text by ``tests/test_papers.py``.
"""

from __future__ import annotations

__all__ = ["LAMBDAS", "read_tables", "table1_vs_table2", "mean_gains"]

#: The five lambda columns of Table 2, as printed.
LAMBDAS = ("1e-6/n", "1e-4/n", "1e-2/n", "1e0/n", "1e2/n")


def _by_class(table, column: str) -> dict[int, float]:
    sub = table[table["column"] == column]
    return {int(r.split()[-1]): float(v) for r, v in zip(sub["row"], sub["value"])}


def read_tables() -> dict:
    """Table 1 (per class: conventional, sign-constrained) and Table 2 (per class: five lambdas,
    conventional block, sign-constrained block), mean ROC scores only."""
    from ...papers import printed

    t1, t2 = printed("tajima", "Table 1"), printed("tajima", "Table 2")
    conv, sign = _by_class(t1, "conventional"), _by_class(t1, "sign-constrained")
    blocks = {}
    for block in ("conventional", "sign-constrained"):
        cols = [_by_class(t2, f"{block}, lambda = {lam}") for lam in LAMBDAS]
        blocks[block] = {cls: [c[cls] for c in cols] for cls in sorted(cols[0])}
    return {"table1": {cls: [conv[cls], sign[cls]] for cls in sorted(conv)},
            "table2_conventional": blocks["conventional"], "table2_sign": blocks["sign-constrained"]}


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


def mean_gains(tables: dict) -> dict:
    """The printed gain of sign constraints, sign-constrained minus conventional mean ROC score,
    averaged over the 12 classes: ``{"table1": gain, "table2": [gain per lambda column of LAMBDAS]}``."""
    t1 = [s - c for c, s in tables["table1"].values()]
    cols = []
    for j in range(len(LAMBDAS)):
        cols.append(sum(tables["table2_sign"][k][j] - tables["table2_conventional"][k][j] for k in tables["table2_sign"])
                    / len(tables["table2_sign"]))
    return {"table1": sum(t1) / len(t1), "table2": cols}
