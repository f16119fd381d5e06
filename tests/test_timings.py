"""Run times and peak memory: the timing wrapper, the runner's records and the Run-times page."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from svmcert.book import runner, timed, timings

ROOT = Path(__file__).resolve().parents[1]


TIMED = str(ROOT / "lib" / "svmcert" / "book" / "timed.py")   # run by path, as the Makefile does


def _default_sigint():
    """In the child before exec: SIGINT back to its default. A pytest-xdist worker ignores SIGINT, and
    an ignored signal stays ignored across exec, so the runner would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _timed(tmp_path, name, code, *extra):
    """``python lib/svmcert/book/timed.py NAME -- python -c CODE`` in a fresh process (its
    RUSAGE_CHILDREN then covers only this child); returns (exit status, record)."""
    proc = subprocess.run([sys.executable, TIMED, name, "--dir", str(tmp_path), *extra,
                           "--", sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return proc.returncode, json.loads((tmp_path / f"{name}.json").read_text())


def test_wrapper_propagates_the_exit_status_and_writes_its_record(tmp_path):
    status, rec = _timed(tmp_path, "ok", "pass")
    assert status == 0 and rec["exit_status"] == 0 and rec["name"] == "ok"
    assert rec["seconds"] > 0 and rec["peak_rss_mb"] > 0 and rec["command"][-1] == "pass"
    assert rec["date"] and rec["commit"] and {"cpu_seconds", "peak_tree_rss_mb", "dirty", "cpu_count"} <= set(rec)
    status, rec = _timed(tmp_path, "fails", "import sys; sys.exit(3)")
    assert status == 3 and rec["exit_status"] == 3
    status, rec = _timed(tmp_path, "killed", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert status == 128 + 15 and rec["exit_status"] == 143   # as a shell reports a signal
    # in-process: a command that cannot start is exit status 127, still recorded
    assert timed.run_timed("missing", ["/nonexistent/command"], tmp_path) == 127
    assert json.loads((tmp_path / "missing.json").read_text())["exit_status"] == 127
    assert timed.main(["name-without-command"]) == 2 and timed.main(["x", "--"]) == 2


def test_make_test_still_fails_when_pytest_fails(tmp_path):
    """The Makefile's `test` target through the wrapper (here as ``python -m``): a failing test fails make."""
    (tmp_path / "test_fail.py").write_text("def test_fails():\n    assert False\n")
    proc = subprocess.run([sys.executable, "-m", "svmcert.book.timed", "test", "--dir", str(tmp_path), "--",
                           sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_fail.py")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout
    assert json.loads((tmp_path / "test.json").read_text())["exit_status"] == 1
    makefile = (ROOT / "Makefile").read_text()
    assert "TIMED  := $(BIN)/python lib/svmcert/book/timed.py" in makefile
    assert "\t$(TIMED) test -- $(BIN)/python -m pytest" in makefile and "\t$(TIMED) build -- $(BIN)/svmcert book build" in makefile


def test_peak_memory_grows_when_the_child_allocates(tmp_path):
    _, small = _timed(tmp_path, "small", "import time; time.sleep(1)", "--interval", "0.1")
    _, big = _timed(tmp_path, "big", "import time; b = b'x' * (200 << 20); time.sleep(1)", "--interval", "0.1")
    assert small["peak_rss_mb"] > 0
    assert big["peak_rss_mb"] >= 200 and big["peak_rss_mb"] - small["peak_rss_mb"] >= 180, (small, big)
    if big["peak_tree_rss_mb"] is not None:      # sampled (psutil): it saw the 200 MB while they were held
        assert big["peak_tree_rss_mb"] >= 180 and big["peak_tree_rss_mb"] - small["peak_tree_rss_mb"] >= 150


# ----------------------------------------------------------------------------- records and summary

def _entry(name, seconds, mb, ok=True):
    return {"name": name, "notebook": f"book/p/{name}.ipynb", "ok": ok, "seconds": seconds,
            "cpu_seconds": seconds * 0.9, "peak_rss_mb": mb}


def _command(seconds, mb, status=0):
    return {"format": 1, "name": "x", "seconds": seconds, "peak_rss_mb": mb, "peak_tree_rss_mb": mb * 1.5,
            "exit_status": status, "date": "2026-01-02T03:04:05+00:00", "commit": "abcdef1234567", "cpu_count": 2}


def _synthetic(root, chapter_seconds=300.0, *, test=True, build=True, aggregate=True, run_id="run-1"):
    (root / "_build" / "timings").mkdir(parents=True, exist_ok=True)
    common = dict(quick=False, jobs=2, date="2026-01-02T03:00:00+00:00", commit="abc", notebooks_in_toc=3, root=root)
    timings.record_phase("chapters", [_entry("a", 200.0, 300.0), _entry("b", 350.0, 1500.0), _entry("c", 50.0, 100.0)],
                         chapter_seconds, peak_tree_rss_mb=2000.0, run_id=run_id, **common)
    if aggregate:
        timings.record_phase("aggregate", [_entry("ledger", 20.0, 200.0)], 40.0, run_id="run-0",
                             **{**common, "notebooks_in_toc": 1})
    if test:
        (root / "_build" / "timings" / "test.json").write_text(json.dumps(_command(240.0, 900.0)))
    if build:
        (root / "_build" / "timings" / "build.json").write_text(json.dumps(_command(100.0, 700.0)))


def test_record_phase_keeps_the_other_phase_and_quick_runs_apart(tmp_path):
    _synthetic(tmp_path)
    path = tmp_path / "_build" / "timings" / "chapters.json"
    rec = json.loads(path.read_text())
    assert set(rec["phases"]) == {"chapters", "aggregate"} and rec["quick"] is False
    assert rec["phases"]["chapters"]["jobs"] == 2 and rec["phases"]["chapters"]["ran"] == 3
    # a run of the appendix alone replaces the aggregate phase only
    timings.record_phase("aggregate", [_entry("run-times", 5.0, 90.0)], 6.0, quick=False, jobs=1, date="d", root=tmp_path)
    rec = json.loads(path.read_text())
    assert rec["phases"]["chapters"]["seconds"] == 300.0 and rec["phases"]["aggregate"]["seconds"] == 6.0
    # quick runs go to _build/quick/timings and leave the full run's record alone
    timings.record_phase("chapters", [_entry("a", 1.0, 50.0)], 2.0, quick=True, jobs=2, date="d", root=tmp_path)
    assert json.loads(path.read_text())["phases"]["chapters"]["seconds"] == 300.0
    assert json.loads((tmp_path / "_build" / "quick" / "timings" / "chapters.json").read_text())["quick"] is True
    with pytest.raises(ValueError, match="phase"):
        timings.record_phase("build", [], 1.0, quick=False, jobs=1, date="d", root=tmp_path)


def test_summary_of_a_synthetic_timings_dir(tmp_path, monkeypatch):
    _synthetic(tmp_path)
    monkeypatch.setenv("SVMCERT_RUN_ID", "run-1")
    s = timings.summarise(timings.load(tmp_path))
    c = s["chapters"]
    assert c["seconds"] == 300.0 and c["sum_seconds"] == 600.0 and c["complete"] and c["this_run"]
    assert (c["peak_rss_mb"], c["peak_chapter"]) == (1500.0, "b") and c["slowest"][0] == (350.0, "b")
    assert not s["aggregate"]["this_run"]
    assert s["book"]["seconds"] == 300.0 + 40.0 + 100.0 and s["book"]["met"] is True and s["book"]["applies"]
    assert s["test"]["seconds"] == 240.0 and s["test_budget"]["met"] is True

    totals = timings.totals_table(s)
    assert len(totals) == 6 and set(timings.TOTALS_TIMING_COLUMNS) <= set(totals.columns)
    book_row = totals[totals["measurement"].str.startswith("make book")].iloc[0]
    assert book_row["seconds"] == 440.0 and book_row["budget_seconds"] == 900.0 and book_row["met"] == True  # noqa: E712
    assert book_row["peak_mb"] == 1500.0 and book_row["peak_total_mb"] == 2000.0
    assert totals.iloc[0]["recorded"] == "this run" and totals.iloc[2]["recorded"].startswith("recorded ")

    table = timings.chapter_table(timings.load(tmp_path))
    assert list(table["chapter"]) == ["a", "b", "c"]                       # book order: stable for book check
    assert list(table["rank"]) == [2, 1, 3]                                 # rank by time, 1 = slowest
    assert set(timings.CHAPTER_TIMING_COLUMNS) <= set(table.columns)

    text = timings.glue_values(s)
    assert text["rt_book_verdict"] == "met, 7.7 min (460 s) to spare" and text["rt_test_verdict"].startswith("met")
    assert "b (350 s)" in text["rt_slowest"] and "1.46 GB (b)" == text["rt_peak_chapter"]
    assert text["rt_book_estimate"] == "about 7.3 min (440 s)" and text["rt_book_budget"] == 15.0
    assert "in this run" in text["rt_chapter_scope"] and "3 of 3 chapters" in text["rt_chapter_scope"]


def test_budgets_over_and_undecided(tmp_path):
    _synthetic(tmp_path, chapter_seconds=1000.0, build=False, aggregate=False)
    s = timings.summarise(timings.load(tmp_path))
    assert s["book"]["seconds"] is None and s["book"]["at_least"] == 1000.0 and s["book"]["met"] is False
    assert timings.glue_values(s)["rt_book_verdict"] == "not met: the parts recorded are already 100 s over"

    other = tmp_path / "other"
    _synthetic(other, chapter_seconds=300.0, build=False)
    (other / "_build" / "timings" / "test.json").write_text(json.dumps(_command(400.0, 900.0, status=1)))
    s = timings.summarise(timings.load(other))
    assert s["book"]["met"] is None and s["book"]["missing"] == ["build"]     # 340 s so far: undecided
    assert s["test_budget"]["met"] is False
    text = timings.glue_values(s)
    assert text["rt_book_estimate"].startswith("at least") and "build not recorded" in text["rt_book_estimate"]
    assert "failed with exit status 1" in text["rt_test"] and text["rt_test_verdict"] == "not met, 100 s over"

    # a quick record never decides the book's budget
    timings.record_phase("chapters", [_entry("a", 1.0, 50.0)], 2.0, quick=True, jobs=2, date="d", notebooks_in_toc=1,
                         root=other)
    s = timings.summarise(timings.load(other, quick=True))
    assert s["quick"] and s["book"]["met"] is None and "quick" in timings.glue_values(s)["rt_book_estimate"]


def test_nothing_recorded_gives_phrases_not_errors(tmp_path):
    (tmp_path / "_build" / "timings").mkdir(parents=True)
    (tmp_path / "_build" / "timings" / "test.json").write_text("{half-written")   # unreadable counts as missing
    loaded = timings.load(tmp_path)
    assert loaded["chapters"] is None and loaded["test"] is None and loaded["build"] is None
    s = timings.summarise(loaded)
    text = timings.glue_values(s)
    assert text["rt_test"] == "not recorded in this run" and text["rt_chapter_phase"] == "not recorded in this run"
    assert all(isinstance(v, (str, float)) for v in text.values())
    totals = timings.totals_table(s)
    assert len(totals) == 6 and totals["seconds"].isna().all() and list(totals["budget_seconds"].dropna()) == [900.0, 300.0]
    assert len(timings.chapter_table(loaded)) == 0


# ----------------------------------------------------------------------------- the runner and the page

def _notebook(path: Path, body: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("quick = False", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _project(root: Path, chapters: dict[str, str], appendix=("run-times",)) -> Path:
    (root / "lib" / "svmcert").mkdir(parents=True)
    entries = "".join(f"      - file: book/p/{name}\n" for name in chapters)
    entries += "  - caption: A\n    chapters:\n" + "".join(f"      - file: book/appendix/{n}\n" for n in appendix)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n{entries}")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# intro\n")
    for name, body in chapters.items():
        _notebook(root / "book" / "p" / f"{name}.ipynb", body)
    for name in appendix:
        (root / "book" / "appendix").mkdir(exist_ok=True)
        shutil.copy(ROOT / "book" / "appendix" / f"{name}.ipynb", root / "book" / "appendix" / f"{name}.ipynb")
    return root


BIG = "b = b'x' * (300 << 20)\ndel b"
SMALL = "x = 1"
FAILS = "raise ValueError('boom')"


def test_serial_run_records_each_kernels_own_peak(tmp_path, monkeypatch):
    """-j 1: the big chapter first, then a small one. Were the peak read in one long-lived process,
    the small chapter would inherit the big one's 300 MB; here each chapter has its own."""
    root = _project(tmp_path / "proj", {"big": BIG, "small": SMALL, "fails": FAILS}, appendix=())
    monkeypatch.setenv("SVMCERT_ROOT", str(root))
    status = runner.run_chapters(runner.toc_notebooks(root), jobs_in_parallel=1, keep_going=True)
    assert status == 1                                        # the failing chapter still fails the run
    phase = json.loads((root / "_build" / "timings" / "chapters.json").read_text())["phases"]["chapters"]
    assert phase["jobs"] == 1 and phase["quick"] is False and phase["failed"] == 1 and phase["notebooks_in_toc"] == 3
    assert phase["seconds"] > 0 and phase["commit"] and phase["date"]
    got = {e["name"]: e for e in phase["chapters"]}
    assert [e["name"] for e in phase["chapters"]] == ["big", "small", "fails"] and not got["fails"]["ok"]
    assert got["big"]["peak_rss_mb"] >= 300 and got["big"]["peak_rss_source"] == "rusage", got
    assert got["small"]["peak_rss_mb"] > 0 and got["big"]["peak_rss_mb"] - got["small"]["peak_rss_mb"] >= 250, got
    assert all(e["seconds"] > 0 and e["cpu_seconds"] > 0 for e in got.values())
    assert phase["seconds"] >= max(e["seconds"] for e in got.values())


def test_run_times_page_with_and_without_records(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "proj", {"small": SMALL})
    monkeypatch.setenv("SVMCERT_ROOT", str(root))
    jobs = runner.toc_notebooks(root)
    # 1. the page alone, nothing recorded: it runs and says so
    assert runner.run_chapters(runner.select_chapters(jobs, ["run-times"])) == 0, capsys.readouterr().out
    executed = (root / "_build" / "executed" / "book" / "appendix" / "run-times.ipynb").read_text()
    assert "not recorded in this run" in executed
    totals = (root / "data" / "tables" / "run-times" / "totals.csv").read_text().splitlines()
    assert len(totals) == 7
    meta = json.loads((root / "data" / "tables" / "run-times" / "totals.meta.json").read_text())
    assert set(meta["timing_columns"]) == set(timings.TOTALS_TIMING_COLUMNS)
    assert not (root / "data" / "claims" / "run-times.json").exists()       # no claim: verdicts cannot drift

    # 2. the whole (tiny) book, two at a time: the page sees this run's chapter phase
    assert runner.run_chapters(jobs, jobs_in_parallel=2) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert " MB " in [line for line in out.splitlines() if line.startswith("[1/2] small")][0]   # progress line
    rec = json.loads((root / "_build" / "timings" / "chapters.json").read_text())
    assert rec["phases"]["chapters"]["jobs"] == 2 and [e["name"] for e in rec["phases"]["chapters"]["chapters"]] == ["small"]
    assert rec["phases"]["aggregate"]["chapters"][0]["name"] == "run-times"
    assert rec["phases"]["chapters"]["run_id"] == rec["phases"]["aggregate"]["run_id"]
    chapters = (root / "data" / "tables" / "run-times" / "chapters.csv").read_text().splitlines()
    assert chapters[0].startswith("chapter,ok,seconds") and chapters[1].startswith("small,True,")
    executed = (root / "_build" / "executed" / "book" / "appendix" / "run-times.ipynb").read_text()
    assert "1 of 1 chapters, in this run" in executed
    assert (root / "_build" / "figures" / "run-times" / "chapter_times.png").is_file()

    # 3. quick: its own record, under _build/quick; the full run's record is untouched
    before = (root / "_build" / "timings" / "chapters.json").read_text()
    assert runner.run_chapters(jobs, quick=True) == 0
    assert (root / "_build" / "timings" / "chapters.json").read_text() == before
    quick = json.loads((root / "_build" / "quick" / "timings" / "chapters.json").read_text())
    assert quick["quick"] is True and quick["phases"]["chapters"]["quick"] is True
    executed = (root / "_build" / "quick-executed" / "book" / "appendix" / "run-times.ipynb").read_text()
    assert "the chapter times are those of a quick run" in executed


SLOW = """import os, time
from pathlib import Path
from svmcert import book
book.start_chapter("slow", paper="tajima")
book.save_table([{"x": 2.0}], "t", rtol=0, atol=0, display=False)      # staged, never committed
Path(os.environ["SVMCERT_ROOT"], "started").write_text(str(os.getpid()))
time.sleep(120)"""


def test_serial_run_still_forwards_sigint(tmp_path):
    """-j 1 now runs the chapter in a worker process too: SIGINT to the runner alone stops it,
    commits nothing, leaves no kernel behind and records no timings for the interrupted phase."""
    root = _project(tmp_path / "proj", {"slow": SLOW}, appendix=())
    (root / "data" / "tables" / "slow").mkdir(parents=True)
    (root / "data" / "tables" / "slow" / "t.csv").write_text("x\n1.0\n")
    proc = subprocess.Popen([sys.executable, "-m", "svmcert", "book", "run", "-j", "1"], cwd=root,
                            env={**os.environ, "SVMCERT_ROOT": str(root)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    deadline = time.time() + 120
    while not (root / "started").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    assert (root / "started").exists(), proc.communicate(timeout=60)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 130 and "interrupted" in err, (out, err)
    assert (root / "data" / "tables" / "slow" / "t.csv").read_text() == "x\n1.0\n"
    assert not (root / "_build" / "timings" / "chapters.json").exists()
    kernel = int((root / "started").read_text())
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            os.kill(kernel, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the chapter's kernel outlived the interrupted run")
