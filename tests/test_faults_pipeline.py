"""Faults injected into the book pipeline: it never loses, fakes or misjudges a table.

Each test builds a throw-away project in tmp_path (a chapter or two, a committed table) and runs the
real runner, papermill and kernels on it: concurrent runs of one chapter, a runner killed with
SIGTERM or SIGKILL, a cell that calls ``sys.exit(0)``, a kernel that dies, an unwritable claims
folder, and ``svmcert book check`` fed files that were tampered with or cannot be read.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from svmcert.book import check
from svmcert.book.commit import CommitError, commit_staging

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process-group and /proc handling is Linux's")

SLOW = """import os, time
from pathlib import Path
from svmcert import book, claims
root = Path(os.environ["SVMCERT_ROOT"])
(root / "pids").write_text(f"{{os.getppid()}} {{os.getpid()}}")   # the worker, the kernel
(root / "started").touch()
time.sleep({seconds})
book.start_chapter("slow", paper="tajima")
book.save_table([{{"x": 2.0}}], "t", rtol=0, atol=0, display=False)
claims.at_most("slow.a", 0.0, 1.0, paper="tajima", source="x", statement="s")"""


def _notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("quick = False", metadata={"tags": ["parameters"]})]
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _project(root: Path, chapters: dict[str, list[str]]) -> Path:
    """A book of the given chapters, with a committed table ``t.csv`` for each (x = 1)."""
    (root / "lib" / "svmcert").mkdir(parents=True)
    entries = "".join(f"      - file: book/p/{name}\n" for name in chapters)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n{entries}")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# intro\n")
    for name, cells in chapters.items():
        _notebook(root / "book" / "p" / f"{name}.ipynb", cells)
        (root / "data" / "tables" / name).mkdir(parents=True)
        (root / "data" / "tables" / name / "t.csv").write_text("x\n1\n")
        (root / "data" / "tables" / name / "old.csv").write_text("y\n5\n")
    return root


def _run(root: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "SVMCERT_ROOT": str(root)}
    return subprocess.Popen([sys.executable, "-m", "svmcert", "book", "run", *args], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        assert time.time() < deadline, f"{path} did not appear"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:   # a zombie is not alive
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _committed(root: Path, name: str) -> dict[str, str]:
    folder = root / "data" / "tables" / name
    return {p.name: p.read_text() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


# --------------------------------------------------------------------------- item 1: two runs at once
def test_two_runs_of_one_chapter_cannot_delete_each_others_tables(tmp_path):
    root = _project(tmp_path / "proj", {"slow": [SLOW.format(seconds=15)]})
    first = _run(root, "slow")
    _wait_for(root / "started")
    second = _run(root, "slow")
    out2, _ = second.communicate(timeout=120)
    out1, _ = first.communicate(timeout=120)
    assert second.returncode == 1 and "is being run by" in out2 and "nothing was run or changed" in out2
    assert first.returncode == 0, out1
    tables = _committed(root, "slow")
    assert sorted(tables) == ["t.csv", "t.meta.json"] and "2" in tables["t.csv"]   # one complete commit
    assert json.loads((root / "data" / "claims" / "slow.json").read_text())["claims"][0]["id"] == "slow.a"


# --------------------------------------------------------------------------- item 2: the runner killed
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_runner_takes_its_worker_and_kernel_with_it(tmp_path, sig):
    root = _project(tmp_path / "proj", {"slow": [SLOW.format(seconds=6)]})
    before = _committed(root, "slow")
    runner = _run(root, "slow")
    _wait_for(root / "started")
    worker, kernel = map(int, (root / "pids").read_text().split())
    runner.send_signal(sig)
    out, _ = runner.communicate(timeout=60)
    assert runner.returncode == (143 if sig == signal.SIGTERM else -signal.SIGKILL), out
    deadline = time.time() + 15
    while (_alive(worker) or _alive(kernel)) and time.time() < deadline:
        time.sleep(0.2)
    assert not _alive(worker) and not _alive(kernel)
    time.sleep(8)                  # past the moment the chapter would have finished and committed
    assert _committed(root, "slow") == before
    assert not (root / "data" / "claims" / "slow.json").exists()


# --------------------------------------------------------------------------- item 3: incomplete chapters
def test_sys_exit_in_a_cell_is_a_failure_and_commits_nothing(tmp_path):
    cells = ["from svmcert import book, claims\nbook.start_chapter('quitter', paper='tajima')\n"
             "claims.at_most('q.a', 0, 1, paper='tajima', source='x', statement='s')",
             "import sys\nsys.exit(0)",
             "book.save_table([{'x': 3}], 't', rtol=0, atol=0, display=False)\n"
             "claims.at_most('q.b', 0, 1, paper='tajima', source='x', statement='s')"]
    root = _project(tmp_path / "proj", {"quitter": cells})
    before = _committed(root, "quitter")
    proc = _run(root, "quitter")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert "cell 2 (In [" in out and "SystemExit: 0" in out and "every cell ran" in out
    assert _committed(root, "quitter") == before
    assert not (root / "data" / "claims" / "quitter.json").exists()


def test_dead_kernel_names_the_cell_it_died_in(tmp_path):
    cells = ["x = 1", "import os\nos._exit(3)", "print('never')"]
    root = _project(tmp_path / "proj", {"crash": cells})
    before = _committed(root, "crash")
    proc = _run(root, "crash")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "crash.ipynb: cell 2" in out and "stopped (the kernel died" in out and "DeadKernelError" in out
    assert "before any cell ran" not in out
    assert _committed(root, "crash") == before


# --------------------------------------------------------------------------- item 5: unwritable destinations
def test_unwritable_claims_folder_changes_nothing(tmp_path):
    cells = ["from svmcert import book, claims\nbook.start_chapter('c', paper='tajima')\n"
             "book.save_table([{'x': 3}], 't', rtol=0, atol=0, display=False)\n"
             "claims.at_most('c.a', 0, 1, paper='tajima', source='x', statement='s')"]
    root = _project(tmp_path / "proj", {"c": cells})
    (root / "data" / "claims").write_text("a file where the claims folder should be\n")  # even root cannot write into it
    before = _committed(root, "c")
    proc = _run(root, "c")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "cannot commit chapter 'c'" in out and "nothing was changed" in out
    assert _committed(root, "c") == before


def test_a_move_that_fails_midway_is_rolled_back(tmp_path, monkeypatch):
    staging, target = tmp_path / "staging", tmp_path / "data"
    (staging / "tables" / "c").mkdir(parents=True)
    (staging / "claims").mkdir()
    for name in ("a.csv", "b.csv"):
        (staging / "tables" / "c" / name).write_text("new\n")
    (staging / "claims" / "c.json").write_text("{}\n")
    (target / "tables" / "c").mkdir(parents=True)
    (target / "tables" / "c" / "a.csv").write_text("old\n")
    (target / "tables" / "c" / "gone.csv").write_text("old\n")
    real = os.replace

    def flaky(src, dst):
        if str(dst).endswith("c.json"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(CommitError, match="restored"):
        commit_staging(staging, target, "c", tmp_path / "backup")
    left = {p.name: p.read_text() for p in (target / "tables" / "c").iterdir()}
    assert left == {"a.csv": "old\n", "gone.csv": "old\n"} and not (target / "claims" / "c.json").exists()


def test_build_without_executed_chapters_says_what_to_do(tmp_path):
    root = _project(tmp_path / "proj", {"c": ["x = 1"]})
    env = {**os.environ, "SVMCERT_ROOT": str(root)}
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "build"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "run `svmcert book run` first" in out.stderr


# --------------------------------------------------------------------------- item 4: the drift check
def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


CLAIM = {"id": "c.1", "paper": "tajima", "source": "eq. (1)", "statement": "s", "observed": 0.5, "reference": 1.0,
         "reference_source": "bound", "comparison": "<=", "tolerance": 0.0, "instances": 3, "passed": True,
         "expect": "holds", "chapter": "c", "quantity": "value", "drift_rtol": 1e-9, "drift_atol": 0.0}


@pytest.fixture
def committed(tmp_path):
    """A git repository with one committed table (value column, rtol 1e-6) and one claims file."""
    root = tmp_path / "repo"
    (root / "data" / "tables" / "c").mkdir(parents=True)
    (root / "data" / "claims").mkdir(parents=True)
    (root / "data" / "tables" / "c" / "t.csv").write_text("x,name\n1.0,a\n")
    (root / "data" / "tables" / "c" / "t.meta.json").write_text(json.dumps({"rtol": 1e-6, "atol": 0.0, "columns": {"x": "value", "name": "exact"}}))
    (root / "data" / "claims" / "c.json").write_text(json.dumps({"chapter": "c", "claims": [CLAIM]}))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "x")
    return root


def _claims(root, **change):
    rec = {**CLAIM, **change}
    (root / "data" / "claims" / "c.json").write_text(json.dumps({"chapter": "c", "claims": [rec]}, allow_nan=True))


def test_check_uses_the_committed_tolerance_not_the_regenerated_one(committed):
    (committed / "data" / "tables" / "c" / "t.csv").write_text("x,name\n5.0,a\n")
    (committed / "data" / "tables" / "c" / "t.meta.json").write_text(json.dumps({"rtol": 10.0, "atol": 0.0}))
    assert "column 'x' row 0" in check.check_drift(committed)["data/tables/c/t.csv"][0]


@pytest.mark.parametrize("change, word", [
    ({"observed": float("nan")}, "not a finite number"), ({"observed": None}, "not a finite number"),
    ({"reference": 2.0}, "reference"), ({"tolerance": 0.5}, "tolerance changed"),
    ({"comparison": ">="}, "comparison changed"), ({"instances": 4}, "instances changed"),
    ({"statement": "t"}, "statement changed"), ({"quantity": "timing"}, "quantity changed"),
])
def test_check_compares_every_field_of_a_claim(committed, change, word):
    _claims(committed, **change)
    problems = check.check_drift(committed)["data/claims/c.json"]
    assert any(word in p for p in problems), problems


@pytest.mark.parametrize("rel, payload, word", [
    ("data/tables/c/t.csv", b"", "empty"),
    ("data/tables/c/t.csv", b"x,name\n\xff\xfe,a\n", "not UTF-8"),
    ("data/claims/c.json", b'{"claims": [', "not valid JSON"),
    ("data/claims/c.json", b'\xff{"claims": []}', "not UTF-8"),
])
def test_check_reports_unreadable_files_by_name(committed, rel, payload, word):
    (committed / rel).write_bytes(payload)
    drift = check.check_drift(committed)
    assert rel in drift and any(word in p for p in drift[rel]), drift


def test_check_cli_never_shows_a_traceback(committed):
    (committed / "data" / "claims" / "c.json").write_bytes(b"not json")
    env = {**os.environ, "SVMCERT_ROOT": str(committed)}
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "check"], cwd=committed, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr + out.stdout
    assert "DRIFT data/claims/c.json" in out.stdout and "not valid JSON" in out.stdout
