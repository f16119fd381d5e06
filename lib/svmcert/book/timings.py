"""Run times and peak memory of the book's own commands: the records and the Run-times page.

Three kinds of record, all under ``_build`` (regenerated, never committed):

``_build/timings/chapters.json``
    written by ``svmcert book run`` (:func:`record_phase`), after each of its two phases: the
    chapter phase (every chapter, ``-j`` at a time) and the aggregate phase (the pages under
    ``book/appendix``, which read the others' outputs). A run replaces only the phases it ran, so
    ``svmcert book run run-times`` keeps the chapter phase of the run before. Quick runs write
    ``_build/quick/timings/chapters.json`` instead, as their tables go to ``_build/quick/data``
    (``make test`` runs every chapter quick; it must not overwrite ``make book``'s record).
``_build/timings/test.json``, ``_build/timings/build.json``
    written by :mod:`svmcert.book.timed` around ``pytest`` (``make test``) and
    ``svmcert book build`` (the last step of ``make book``); that module describes their format.

The format of ``chapters.json``::

    {"format": 1, "quick": false,
     "phases": {"chapters":  {"seconds": 474.2,          # wall time of the phase, in the runner
                              "date": "...", "finished": "...", "commit": "<sha>", "dirty": false,
                              "jobs": 2, "quick": false, "run_id": "...",
                              "notebooks_in_toc": 17, "ran": 17, "failed": 0,
                              "peak_tree_rss_mb": 2410.0,  # sampled sum over runner, workers, kernels
                              "chapters": [{"name": "lp-step", "notebook": "book/...ipynb", "ok": true,
                                            "seconds": 31.0, "cpu_seconds": 29.5, "peak_rss_mb": 512.3,
                                            "peak_rss_source": "rusage"}, ...]},   # book order
                "aggregate": {... the same ...}}}

A chapter's ``seconds`` run from papermill's start to its outputs being in place; ``peak_rss_mb`` is
the peak resident memory of its kernel: each chapter runs in a fresh worker process, which reads
``getrusage(RUSAGE_CHILDREN)`` once papermill has shut the kernel down (``"rusage"``), or, when that
figure is only the worker's own peak (Linux counts a process's memory from before exec in it), the
kernel's ``VmHWM`` read every 0.2 s while it ran (``"sampled"``); see
:func:`svmcert.book.runner._chapter_in_worker`. ``cpu_seconds`` is the kernel's user + system time.

The Run-times page (``book/appendix/run-times.ipynb``) runs in the aggregate phase of ``make book``:
it sees this run's chapter phase, but only the *previous* aggregate phase and the *previous*
``jupyter-book build`` (both end after it). :func:`summarise` says which is which.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .paths import atomic_write_text, project_root
from .timed import now_iso

__all__ = ["FORMAT", "BUDGETS", "CHAPTER_TIMING_COLUMNS", "TOTALS_TIMING_COLUMNS", "timings_dir", "record_phase",
           "load", "summarise", "chapter_table", "totals_table", "glue_values", "plot_chapters"]

FORMAT = 1
#: Issue 6's budgets on the 2-core machine, in seconds.
BUDGETS = {"book": 15 * 60.0, "test": 5 * 60.0}
#: Columns of :func:`chapter_table` that hold measurements (excluded from ``svmcert book check``).
CHAPTER_TIMING_COLUMNS = ["seconds", "cpu_seconds", "peak_mb", "rank"]
#: Columns of :func:`totals_table` that hold measurements or depend on what was recorded before the run.
TOTALS_TIMING_COLUMNS = ["seconds", "peak_mb", "peak_total_mb", "met", "recorded"]
#: Environment variable through which the runner tells a chapter's kernel which run it belongs to.
RUN_ID_VARIABLE = "SVMCERT_RUN_ID"


def timings_dir(root: Path | None = None, quick: bool = False) -> Path:
    """``_build/timings`` (``_build/quick/timings`` for the chapter records of quick runs)."""
    root = project_root() if root is None else Path(root)
    return root / "_build" / ("quick/timings" if quick else "timings")


def _read(path: Path) -> dict | None:
    """A record, or ``None`` when the file is missing or not a JSON object (half-written, foreign)."""
    try:
        payload = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return payload if isinstance(payload, dict) else None


def record_phase(phase: str, entries: list[dict], seconds: float, *, quick: bool, jobs: int, date: str,
                 commit: str = "unknown", dirty: bool = False, notebooks_in_toc: int | None = None,
                 peak_tree_rss_mb: float | None = None, run_id: str = "", root: Path | None = None) -> Path:
    """Write one phase of a ``svmcert book run`` into ``chapters.json``, keeping the other phase."""
    if phase not in ("chapters", "aggregate"):
        raise ValueError(f"phase: expected 'chapters' or 'aggregate', got {phase!r}")
    path = timings_dir(root, quick) / "chapters.json"
    payload = _read(path) or {}
    if payload.get("format") != FORMAT or payload.get("quick") != bool(quick):
        payload = {}
    phases = payload.get("phases") if isinstance(payload.get("phases"), dict) else {}
    phases[phase] = {
        "seconds": round(float(seconds), 3),
        "date": date,
        "finished": now_iso(),
        "commit": commit,
        "dirty": bool(dirty),
        "jobs": int(jobs),
        "quick": bool(quick),
        "run_id": run_id,
        "notebooks_in_toc": notebooks_in_toc,
        "ran": len(entries),
        "failed": sum(not e.get("ok", True) for e in entries),
        "peak_tree_rss_mb": None if peak_tree_rss_mb is None else round(float(peak_tree_rss_mb), 1),
        "chapters": list(entries),
    }
    payload = {"format": FORMAT, "quick": bool(quick), "phases": {k: phases[k] for k in ("chapters", "aggregate") if k in phases}}
    atomic_write_text(path, json.dumps(payload, indent=1) + "\n")
    return path


def load(root: Path | None = None, quick: bool = False) -> dict:
    """The records the page reads: ``{"chapters": ..., "test": ..., "build": ..., "quick": quick}``.

    A missing or unreadable file gives ``None``; ``run_id`` is the run this process belongs to (set
    by the runner in the kernel's environment; empty outside a run).
    """
    root = project_root() if root is None else Path(root)
    main = timings_dir(root, False)
    chapters = _read(timings_dir(root, quick) / "chapters.json")
    if chapters is not None and chapters.get("format") != FORMAT:
        chapters = None
    return {"chapters": chapters, "test": _read(main / "test.json"), "build": _read(main / "build.json"),
            "quick": bool(quick), "run_id": os.environ.get(RUN_ID_VARIABLE, "")}


def _num(value) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def _phase_summary(phase: dict | None, run_id: str) -> dict | None:
    if not phase or _num(phase.get("seconds")) is None:
        return None
    entries = [e for e in phase.get("chapters") or [] if isinstance(e, dict)]
    peaks = [(float(e["peak_rss_mb"]), e.get("name", "?")) for e in entries if _num(e.get("peak_rss_mb")) is not None]
    in_toc = phase.get("notebooks_in_toc")
    return {
        "seconds": float(phase["seconds"]),
        "sum_seconds": sum(float(e["seconds"]) for e in entries if _num(e.get("seconds")) is not None),
        "ran": len(entries),
        "failed": sum(not e.get("ok", True) for e in entries),
        "notebooks_in_toc": in_toc,
        "complete": in_toc is not None and len(entries) >= int(in_toc),
        "jobs": phase.get("jobs"),
        "quick": bool(phase.get("quick")),
        "date": phase.get("date", ""),
        "commit": phase.get("commit", ""),
        "this_run": bool(run_id) and phase.get("run_id") == run_id,
        "peak_rss_mb": max(peaks)[0] if peaks else None,
        "peak_chapter": max(peaks)[1] if peaks else None,
        "peak_tree_rss_mb": _num(phase.get("peak_tree_rss_mb")),
        "slowest": sorted(((float(e["seconds"]), e.get("name", "?")) for e in entries
                           if _num(e.get("seconds")) is not None), reverse=True),
    }


def _command_summary(record: dict | None) -> dict | None:
    if not record or _num(record.get("seconds")) is None:
        return None
    return {"seconds": float(record["seconds"]), "peak_rss_mb": _num(record.get("peak_rss_mb")),
            "peak_tree_rss_mb": _num(record.get("peak_tree_rss_mb")), "exit_status": record.get("exit_status"),
            "date": record.get("date", ""), "commit": record.get("commit", ""),
            "cpu_count": record.get("cpu_count")}


def summarise(loaded: dict) -> dict:
    """The numbers the page shows, from :func:`load`'s records; ``None`` where nothing was recorded.

    ``book``: ``make book`` = chapter phase + aggregate phase + build. While the page runs, only
    the chapter phase can be of the current run; the other two are the last ones recorded. With
    all three, ``seconds`` is their sum and ``met`` compares it with the budget. With some missing,
    ``seconds`` is ``None``, ``at_least`` the sum of what there is, and ``met`` is ``False`` only if
    that partial sum already exceeds the budget (else ``None``: undecided). A quick record never
    decides the book's budget (``applies`` is False).
    """
    run_id = loaded.get("run_id", "")
    phases = (loaded.get("chapters") or {}).get("phases") or {}
    chapters = _phase_summary(phases.get("chapters"), run_id)
    aggregate = _phase_summary(phases.get("aggregate"), run_id)
    test, build = _command_summary(loaded.get("test")), _command_summary(loaded.get("build"))
    parts = {"chapter phase": chapters, "aggregate phase": aggregate, "build": build}
    present = [p["seconds"] for p in parts.values() if p is not None]
    missing = [name for name, p in parts.items() if p is None]
    at_least = sum(present) if present else None
    quick = bool(loaded.get("quick")) or bool(chapters and chapters["quick"])
    applies = not quick and chapters is not None and chapters["complete"]
    if not applies:
        book_met = None
    elif not missing:
        book_met = at_least <= BUDGETS["book"]
    else:
        book_met = False if at_least > BUDGETS["book"] else None
    book = {"seconds": None if missing else at_least, "at_least": at_least, "missing": missing,
            "budget": BUDGETS["book"], "met": book_met, "applies": applies}
    test_met = None if test is None else test["seconds"] <= BUDGETS["test"]
    return {"quick": quick, "chapters": chapters, "aggregate": aggregate, "test": test, "build": build,
            "book": book, "test_budget": {"budget": BUDGETS["test"], "met": test_met}}


def chapter_table(loaded: dict):
    """One row per chapter of the chapter phase, in book order: seconds, kernel CPU time, peak MB and
    the rank by time (1 = slowest). The row order is the book's, so ``svmcert book check`` compares
    like with like; :func:`plot_chapters` shows them sorted."""
    import pandas as pd

    phase = (((loaded.get("chapters") or {}).get("phases") or {}).get("chapters")) or {}
    rows = [{"chapter": e.get("name", "?"), "ok": bool(e.get("ok", True)), "seconds": _num(e.get("seconds")),
             "cpu_seconds": _num(e.get("cpu_seconds")), "peak_mb": _num(e.get("peak_rss_mb"))}
            for e in phase.get("chapters") or [] if isinstance(e, dict)]
    df = pd.DataFrame(rows, columns=["chapter", "ok", "seconds", "cpu_seconds", "peak_mb"])
    df["rank"] = df["seconds"].rank(ascending=False, method="first").astype("Int64") if len(df) else pd.Series(dtype="Int64")
    return df


def _when(part: dict | None, *, this_run_label: str = "this run") -> str:
    if part is None:
        return "not recorded"
    if part.get("this_run"):
        return this_run_label
    date = str(part.get("date") or "?")[:16].replace("T", " ")
    return f"recorded {date}, commit {str(part.get('commit') or '?')[:7]}"


def totals_table(summary: dict):
    """The phases and commands with their wall time, peak memory and, for the two budgets, the verdict.

    The rows are always the same six (missing measurements are empty), so the table's shape does
    not depend on what was recorded before the run."""
    import pandas as pd

    c, a, t, b, book = summary["chapters"], summary["aggregate"], summary["test"], summary["build"], summary["book"]

    def row(name, seconds, peak=None, total=None, budget=None, met=None, recorded="not recorded"):
        return {"measurement": name, "seconds": seconds, "peak_mb": peak, "peak_total_mb": total,
                "budget_seconds": budget, "met": met, "recorded": recorded}

    def get(part, key):
        return None if part is None else part.get(key)

    peaks = [p for p in (get(c, "peak_rss_mb"), get(a, "peak_rss_mb"), get(b, "peak_rss_mb")) if p is not None]
    totals = [p for p in (get(c, "peak_tree_rss_mb"), get(a, "peak_tree_rss_mb"), get(b, "peak_tree_rss_mb")) if p is not None]
    rows = [
        row("chapter phase (wall time)", get(c, "seconds"), get(c, "peak_rss_mb"), get(c, "peak_tree_rss_mb"),
            recorded=_when(c)),
        row("sum of the chapters' own times", get(c, "sum_seconds"), recorded=_when(c)),
        row("aggregate (appendix) phase (wall time)", get(a, "seconds"), get(a, "peak_rss_mb"),
            get(a, "peak_tree_rss_mb"), recorded=_when(a)),
        row("jupyter-book build", get(b, "seconds"), get(b, "peak_rss_mb"), get(b, "peak_tree_rss_mb"),
            recorded=_when(b)),
        row("make book (chapter phase + aggregate phase + build)", book["seconds"],
            max(peaks) if peaks else None, max(totals) if totals else None, book["budget"],
            book["met"], "sum of the rows above" if book["seconds"] is not None else
            "incomplete: " + ", ".join(book["missing"]) + " not recorded"),
        row("make test (pytest)", get(t, "seconds"), get(t, "peak_rss_mb"), get(t, "peak_tree_rss_mb"),
            summary["test_budget"]["budget"], summary["test_budget"]["met"], _when(t)),
    ]
    df = pd.DataFrame(rows, columns=["measurement", "seconds", "peak_mb", "peak_total_mb", "budget_seconds", "met", "recorded"])
    for col in ("seconds", "peak_mb", "peak_total_mb", "budget_seconds"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


# ---------------------------------------------------------------- prose

def _dur(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def _mb(mb: float | None) -> str:
    if mb is None:
        return "?"
    return f"{mb / 1024:.2f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def _verdict(met, seconds, budget, undecided: str) -> str:
    if met is None:
        return undecided
    if met:
        return f"met, {_dur(budget - seconds)} to spare"
    return f"not met, {_dur(seconds - budget)} over" if seconds is not None else "not met"


NOT_RECORDED = "not recorded in this run"


def glue_values(summary: dict) -> dict:
    """Every number or phrase the page's prose shows, as ``{glue name: text or number}``.

    Missing records become phrases ("not recorded in this run"), never errors, so the page runs
    whatever was recorded before it.
    """
    c, a, t, b, book = summary["chapters"], summary["aggregate"], summary["test"], summary["build"], summary["book"]
    out = {"rt_book_budget": BUDGETS["book"] / 60, "rt_test_budget": BUDGETS["test"] / 60}
    cpus = (t or {}).get("cpu_count") or _cpu_count()
    out["rt_cpus"] = str(cpus)
    if c is None:
        out.update(rt_chapter_phase=NOT_RECORDED, rt_chapter_sum=NOT_RECORDED, rt_slowest=NOT_RECORDED,
                   rt_peak_chapter=NOT_RECORDED, rt_chapter_scope=NOT_RECORDED)
    else:
        jobs = c["jobs"]
        out["rt_chapter_phase"] = f"{_dur(c['seconds'])}, running {jobs} chapter{'' if jobs == 1 else 's'} at a time"
        gain = c["sum_seconds"] / c["seconds"] if c["seconds"] > 0 else float("nan")
        out["rt_chapter_sum"] = f"{_dur(c['sum_seconds'])}, {gain:.2f} times the phase's wall time"
        out["rt_slowest"] = ", ".join(f"{name} ({s:.0f} s)" for s, name in c["slowest"][:3]) or "none"
        out["rt_peak_chapter"] = (f"{_mb(c['peak_rss_mb'])} ({c['peak_chapter']})" if c["peak_rss_mb"] is not None
                                  else "not measured")
        scope = f"{c['ran']} of {c['notebooks_in_toc'] if c['notebooks_in_toc'] is not None else '?'} chapters"
        scope += ", " + _when(c, this_run_label="in this run")
        if c["failed"]:
            scope += f", {c['failed']} failed"
        if c["quick"]:
            scope += ", quick parameters"
        out["rt_chapter_scope"] = scope
    out["rt_aggregate"] = NOT_RECORDED if a is None else (
        f"{_dur(a['seconds'])} for {a['ran']} page{'' if a['ran'] == 1 else 's'}, {_when(a, this_run_label='this run')}")
    out["rt_build"] = NOT_RECORDED if b is None else (
        f"{_dur(b['seconds'])}, peak {_mb(b['peak_rss_mb'])}, {_when(b)}"
        + (f", failed with exit status {b['exit_status']}" if b["exit_status"] else ""))
    if not book["applies"]:
        out["rt_book_estimate"] = ("not estimated: the chapter times are those of a quick run" if summary["quick"]
                                   else "not estimated: the chapter phase of a whole `make book` is not recorded")
    elif book["seconds"] is not None:
        out["rt_book_estimate"] = f"about {_dur(book['seconds'])}"
    else:
        out["rt_book_estimate"] = (f"at least {_dur(book['at_least'])} "
                                   f"({' and '.join(book['missing'])} not recorded before this run)")
    if book["met"] is False and book["seconds"] is None:
        out["rt_book_verdict"] = f"not met: the parts recorded are already {_dur(book['at_least'] - book['budget'])} over"
    else:
        out["rt_book_verdict"] = _verdict(book["met"], book["seconds"], book["budget"], "not decided (see the estimate)")
    if t is None:
        out["rt_test"] = NOT_RECORDED
        out["rt_test_verdict"] = "not decided (no record)"
    else:
        peak = f"peak {_mb(t['peak_rss_mb'])} in its largest process"
        if t["peak_tree_rss_mb"] is not None:
            peak += f", {_mb(t['peak_tree_rss_mb'])} summed over all its processes (sampled)"
        status = "passed" if t["exit_status"] == 0 else f"failed with exit status {t['exit_status']}"
        out["rt_test"] = f"{_dur(t['seconds'])}, {peak}; it {status} ({_when(t)})"
        out["rt_test_verdict"] = _verdict(summary["test_budget"]["met"], t["seconds"], BUDGETS["test"], "")
    peaks = [p for p in ((c or {}).get("peak_tree_rss_mb"), (a or {}).get("peak_tree_rss_mb"),
                         (b or {}).get("peak_tree_rss_mb"), (b or {}).get("peak_rss_mb")) if p is not None]
    if summary["quick"]:
        out["rt_book_peak_total"] = "not measured here (the records are those of a quick run)"
    else:
        out["rt_book_peak_total"] = _mb(max(peaks)) if peaks else NOT_RECORDED
    return out


def _cpu_count() -> int:
    from .timed import cpu_count

    return cpu_count()


def plot_chapters(table, top: int | None = None):
    """Horizontal bars: each chapter's seconds, slowest on top, its kernel's peak memory at the bar's end."""
    import matplotlib.pyplot as plt

    df = table.dropna(subset=["seconds"]).sort_values("seconds", ascending=True)
    if top is not None:
        df = df.tail(top)
    fig, ax = plt.subplots(figsize=(7.2, 0.3 * len(df) + 1.2))
    bars = ax.barh(df["chapter"], df["seconds"], color="#4c72b0")
    for bar, mb in zip(bars, df["peak_mb"]):
        if mb == mb:  # not NaN
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f"  {_mb(float(mb))}", va="center", fontsize=9)
    ax.set_xlabel("seconds (label: peak memory of the chapter's kernel)")
    ax.set_xlim(0, float(df["seconds"].max()) * 1.25 if len(df) else 1)
    ax.tick_params(axis="y", labelsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
