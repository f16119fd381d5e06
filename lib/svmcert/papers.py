"""Numbers printed in the three papers, kept in the repository as data (``data/papers/<paper>.csv``).

A chapter that compares a result with a printed number reads that number here, never from the
paper's text at build time and never typed into a notebook. Each CSV has one printed number per
row with the columns

``source``  the table, figure or section that prints it (``"Table 3"``, ``"Sec. 5.1"``);
``row``     the printed row (``"sonar"``, ``"class 4"``);
``column``  the printed column (``"remained, only DRSSS"``);
``value``   the number exactly as printed (percentages stay percentages);
``spread``  a printed standard deviation or ± part, empty when there is none;
``where``   section and table of the paper, for the citation on the book's page;
``note``    what the number means, in our words (units, averaging).

``tests/test_papers.py`` compares every file with the decoded paper texts when those are at hand.

``data/papers/results.csv`` is the inventory of the papers' results (:func:`results`): one row per
numbered theorem, lemma, corollary, remark or definition with mathematical content, algorithm,
equation that a chapter checks, table and figure, and per statement of the running text that a
chapter checks (kind ``"text"``, e.g. a complexity claim of a section). Its columns are

``paper``      ``"tajima"``, ``"hanada"`` or ``"aksu"``;
``kind``       one of :data:`RESULT_KINDS`;
``number``     as the paper prints it (``"4.1"``, ``"(14)"``, ``"A.3"``; for ``text`` the place,
               ``"Sec. 6.1 (cost)"``);
``title``      what the result says, in our words;
``section``    the section or appendix that holds it;
``claim_ids``  space-separated ids of the ledger claims that give it its verdict(s).

The Reproduction appendix joins it with the ledger (:mod:`svmcert.book.reproduction`, which states
the rule that maps claims to results).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PAPERS", "COLUMNS", "RESULT_COLUMNS", "RESULT_KINDS", "papers_dir", "printed", "printed_value", "results", "claim_ids"]

#: The papers that have a file of printed numbers (the ledger's paper keys).
PAPERS = ("tajima", "hanada", "aksu")
COLUMNS = ("source", "row", "column", "value", "spread", "where", "note")
#: Columns of the inventory ``data/papers/results.csv``.
RESULT_COLUMNS = ("paper", "kind", "number", "title", "section", "claim_ids")
#: Kinds of result in the inventory, in the order the Reproduction page lists them.
RESULT_KINDS = ("theorem", "lemma", "corollary", "proposition", "remark", "definition", "algorithm", "equation",
                "text", "table", "figure")


def papers_dir() -> Path:
    """``data/papers`` of the project (the committed data folder, never the chapter's staging folder)."""
    from .book.paths import project_root

    return project_root() / "data" / "papers"


def printed(paper: str, source: str | None = None):
    """The printed numbers of one paper as a DataFrame with the columns of :data:`COLUMNS`.

    Parameters
    ----------
    paper : str
        ``"tajima"``, ``"hanada"`` or ``"aksu"``.
    source : str, optional
        Keep only the rows of this table, figure or section (``"Table 3"``).

    Returns
    -------
    pandas.DataFrame
        ``value`` and ``spread`` as floats (``spread`` NaN where nothing is printed), the other
        columns as text.

    Raises
    ------
    ValueError
        Unknown paper, or a source the paper's file does not have.
    FileNotFoundError
        The paper has no file of printed numbers.

    Examples
    --------
    >>> from svmcert import papers
    >>> t1 = papers.printed("tajima", "Table 1")
    >>> float(t1.query("row == 'class 1' and column == 'sign-constrained'")["value"].iloc[0])
    0.749
    """
    import pandas as pd

    if paper not in PAPERS:
        raise ValueError(f"paper: expected one of {PAPERS}, got {paper!r}")
    path = papers_dir() / f"{paper}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no printed numbers for paper {paper!r}: {path} is missing")
    table = pd.read_csv(path, dtype={c: str for c in COLUMNS if c not in ("value", "spread")},
                        keep_default_na=False, na_values={"value": [""], "spread": [""]})
    if list(table.columns) != list(COLUMNS):
        raise ValueError(f"{path}: expected the columns {list(COLUMNS)}, found {list(table.columns)}")
    if source is not None:
        if source not in set(table["source"]):
            raise ValueError(f"source: {paper} has no printed numbers from {source!r}; "
                             f"it has {sorted(set(table['source']))}")
        table = table[table["source"] == source].reset_index(drop=True)
    return table


def printed_value(paper: str, source: str, row: str, column: str) -> float:
    """One printed number, looked up by its source, row and column.

    Examples
    --------
    >>> from svmcert import papers
    >>> papers.printed_value("tajima", "Table 2", "class 12", "conventional, lambda = 1e2/n")
    0.764
    """
    table = printed(paper, source)
    hit = table[(table["row"] == row) & (table["column"] == column)]
    if len(hit) != 1:
        raise ValueError(f"row, column: expected exactly one printed number for {source} / {row!r} / "
                         f"{column!r} in {paper}, found {len(hit)}")
    return float(hit["value"].iloc[0])


def results(paper: str | None = None):
    """The inventory of the papers' results (``data/papers/results.csv``) as a DataFrame.

    Every column is text; ``claim_ids`` is split by :func:`claim_ids`.

    Raises
    ------
    ValueError
        A wrong header, an unknown paper or kind, an empty number or title, or a result listed twice.
    """
    import pandas as pd

    path = papers_dir() / "results.csv"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(table.columns) != list(RESULT_COLUMNS):
        raise ValueError(f"{path}: expected the columns {list(RESULT_COLUMNS)}, found {list(table.columns)}")
    bad_paper = sorted(set(table["paper"]) - set(PAPERS))
    bad_kind = sorted(set(table["kind"]) - set(RESULT_KINDS))
    if bad_paper or bad_kind:
        raise ValueError(f"{path}: unknown paper(s) {bad_paper} or kind(s) {bad_kind}; "
                         f"expected papers {PAPERS} and kinds {RESULT_KINDS}")
    empty = table[(table["number"].str.strip() == "") | (table["title"].str.strip() == "")]
    if len(empty):
        raise ValueError(f"{path}: rows {list(empty.index + 2)} have no number or no title")
    twice = table[table.duplicated(["paper", "kind", "number"], keep=False)]
    if len(twice):
        raise ValueError(f"{path}: results listed twice: {sorted(set(map(tuple, twice[['paper', 'kind', 'number']].values)))}")
    if paper is not None:
        if paper not in PAPERS:
            raise ValueError(f"paper: expected one of {PAPERS}, got {paper!r}")
        table = table[table["paper"] == paper].reset_index(drop=True)
    return table


def claim_ids(cell: str) -> list[str]:
    """The claim ids of one ``claim_ids`` cell (space-separated; empty when no claim checks the result)."""
    return [c for c in str(cell).split() if c]
