"""The papermill runner, the drift check and the CLI, on throw-away projects in tmp_path."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from svmcert.book import check, runner
from svmcert.book.cli import main

GOOD = """from svmcert import book, claims
book.start_chapter("good", paper="tajima")
book.save_table([{"x": 1.0, "seconds": value}], "t", rtol=1e-6, atol=0.0, timing=["seconds"], display=False)
claims.at_most("demo.ok", 0.0, 1.0, paper="tajima", source="eq. (1)", statement="zero is at most one")"""
BAD = """from svmcert import book
book.start_chapter("bad", paper="tajima")
book.save_table([{"x": 2.0}], "t", rtol=0.0, atol=0.0, display=False)
raise ValueError("boom in the third line")"""


def _notebook(path: Path, body: str, value: float = 0.5) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"quick = False\nvalue = {value}", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "lib" / "svmcert").mkdir(parents=True)
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n"
        "      - file: book/p/good\n      - file: book/p/bad\n  - caption: A\n    chapters:\n      - file: book/appendix/agg\n")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# intro\n")
    _notebook(root / "book" / "p" / "good.ipynb", GOOD)
    _notebook(root / "book" / "p" / "bad.ipynb", BAD)
    _notebook(root / "book" / "appendix" / "agg.ipynb",
              'from svmcert import claims\nassert claims.load_claims(), "no claims"')
    # committed state of the "bad" chapter's table
    (root / "data" / "tables" / "bad").mkdir(parents=True)
    (root / "data" / "tables" / "bad" / "t.csv").write_text("x\n1.0\n")
    monkeypatch.setenv("SVMCERT_ROOT", str(root))
    return root


def test_toc_order_puts_appendix_last_and_rejects_unknown(project):
    jobs = runner.toc_notebooks(project)
    assert [j.name for j in jobs] == ["good", "bad", "agg"] and jobs[-1].aggregate
    with pytest.raises(ValueError, match="not in _toc.yml"):
        runner.select_chapters(jobs, ["nope"])
    assert [j.name for j in runner.select_chapters(jobs, ["book/p/bad.ipynb"])] == ["bad"]


def test_failure_names_notebook_and_cell_and_keeps_committed_tables(project, capsys):
    jobs = runner.select_chapters(runner.toc_notebooks(project), ["good", "bad", "agg"])
    status = runner.run_chapters(jobs, keep_going=True)
    out = capsys.readouterr().out
    assert status == 1
    assert "book/p/bad.ipynb: cell 1" in out and "ValueError: boom in the third line" in out
    assert (project / "data" / "tables" / "bad" / "t.csv").read_text() == "x\n1.0\n"   # untouched
    assert (project / "data" / "tables" / "good" / "t.csv").is_file()                   # good one landed
    assert json.loads((project / "data" / "claims" / "good.json").read_text())["claims"][0]["passed"]
    assert "agg" in out and (project / "_build" / "executed" / "book" / "appendix" / "agg.ipynb").is_file()
    assert (project / "_build" / "failed" / "book" / "p" / "bad.ipynb").is_file()


def test_without_keep_going_stops_at_first_failure(project, capsys):
    jobs = runner.select_chapters(runner.toc_notebooks(project), ["bad", "good"])
    assert runner.run_chapters(jobs) == 1
    assert not (project / "data" / "tables" / "good").exists()


def test_quick_runs_never_touch_data_and_parameters_are_injected(project):
    jobs = runner.select_chapters(runner.toc_notebooks(project), ["good"])
    assert runner.run_chapters(jobs, quick=True, parameters={"value": 0.25}) == 0
    assert not (project / "data" / "tables" / "good").exists()
    table = (project / "_build" / "quick" / "data" / "tables" / "good" / "t.csv").read_text()
    assert "0.25" in table
    executed = nbformat.read(project / "_build" / "quick-executed" / "book" / "p" / "good.ipynb", as_version=4)
    assert "quick = True" in executed.cells[1].source  # papermill's injected-parameters cell


def test_parallel_run(project):
    jobs = runner.select_chapters(runner.toc_notebooks(project), ["good", "agg"])
    assert runner.run_chapters(jobs, jobs_in_parallel=2) == 0


def _git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_drift_check_against_head(project):
    jobs = runner.select_chapters(runner.toc_notebooks(project), ["good"])
    assert runner.run_chapters(jobs) == 0
    (project / "data" / "tables" / "bad" / "t.csv").unlink()
    _git(project, "init", "-q")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=t", "add", "-A")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "x")
    assert check.check_drift(project) == {}
    # timing column moves: no drift; numeric column moves beyond rtol: drift named
    assert runner.run_chapters(jobs, parameters={"value": 99.0}) == 0
    assert check.check_drift(project) == {}
    csv = project / "data" / "tables" / "good" / "t.csv"
    csv.write_text(csv.read_text().replace("1,", "1.01,"))
    drift = check.check_drift(project)
    assert list(drift) == ["data/tables/good/t.csv"] and "column 'x'" in drift["data/tables/good/t.csv"][0]
    csv.unlink()
    assert "no longer written" in check.check_drift(project)["data/tables/good/t.csv"][0]


def test_compare_tables_and_claims_rules():
    meta = {"rtol": 1e-3, "atol": 0.0, "timing_columns": ["s"]}
    assert check.compare_tables("a,s,k\n1.0005,9,x\n", "a,s,k\n1.0,1,x\n", meta) == []
    assert check.compare_tables("a,s,k\n1.01,1,x\n", "a,s,k\n1.0,1,x\n", meta)
    assert "row count" in check.compare_tables("a,s,k\n1,1,x\n1,1,x\n", "a,s,k\n1,1,x\n", meta)[0]
    assert check.compare_tables("a,s,k\n1,1,y\n", "a,s,k\n1,1,x\n", meta)
    old = {"claims": [{"id": "c", "passed": True, "expect": "holds", "observed": 1e-12, "tolerance": 1e-9,
                       "comparison": "<=", "reference": 0.0}]}
    new = json.loads(json.dumps(old)); new["claims"][0]["observed"] = 5e-10
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    new["claims"][0]["observed"] = 1.0
    assert "observed" in check.compare_claims(json.dumps(new), json.dumps(old))[0]
    new["claims"][0]["timing"] = True          # wall-clock claims: only the verdict is compared
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    new["claims"][0]["passed"] = False
    assert "verdict" in check.compare_claims(json.dumps(new), json.dumps(old))[0]


def test_cli_reports_unknown_chapter_and_bad_jobs(project, capsys):
    assert main(["book", "run", "missing-chapter"]) == 2
    assert "not in _toc.yml" in capsys.readouterr().err
    assert main(["book", "run", "-j", "0"]) == 2


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "run" in out.stdout and "check" in out.stdout
