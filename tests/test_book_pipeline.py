"""The papermill runner, the drift check and the CLI, on throw-away projects in tmp_path."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from svmcert.book import check, runner
from svmcert.book.cli import main
from svmcert.book.provenance import ProvenanceNote

GOOD = """from svmcert import book, claims
book.start_chapter("good", paper="tajima")
book.save_table([{"x": 1.0, "seconds": value}], "t", rtol=1e-6, atol=0.0, timing=["seconds"], display=False)
claims.at_most("demo.ok", 0.0, 1.0, paper="tajima", source="eq. (1)", statement="zero is at most one")"""
BAD = """from svmcert import book
book.start_chapter("bad", paper="tajima")
book.save_table([{"x": 2.0}], "t", rtol=0.0, atol=0.0, display=False)
raise ValueError("boom in the third line")"""


def _default_sigint():
    """In the child before exec: SIGINT back to its default. A pytest-xdist worker ignores SIGINT, and
    an ignored signal stays ignored across exec, so the runner would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
    claims = json.loads((project / "_build" / "quick" / "data" / "claims" / "good.json").read_text())
    assert claims["claims"][0]["passed"]


def _make_project(root: Path, chapters: dict[str, str], committed: dict[str, str] | None = None) -> Path:
    """A throw-away book: chapters ``book/p/<name>`` (in this order) and the aggregating ``agg``."""
    (root / "lib" / "svmcert").mkdir(parents=True)
    entries = "".join(f"      - file: book/p/{name}\n" for name in chapters)
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n"
                                   f"{entries}  - caption: A\n    chapters:\n      - file: book/appendix/agg\n")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# intro\n")
    for name, body in chapters.items():
        _notebook(root / "book" / "p" / f"{name}.ipynb", body)
    _notebook(root / "book" / "appendix" / "agg.ipynb", "import os\nopen(os.path.join(os.environ['SVMCERT_ROOT'], 'agg-ran'), 'w').close()")
    for name, csv in (committed or {}).items():
        (root / "data" / "tables" / name).mkdir(parents=True)
        (root / "data" / "tables" / name / "t.csv").write_text(csv)
    return root


# Each chapter announces itself, then waits (at most 60 s) until the other one has announced itself
# too: both finishing with met=True proves they ran at the same time, in different processes.
RENDEZVOUS = """import os, time
from pathlib import Path
from svmcert import book
me, other = "{me}", "{other}"
root = Path(os.environ["SVMCERT_ROOT"])
(root / f"arrived-{{me}}").write_text(str(os.getppid()))
deadline = time.time() + 60
while not (root / f"arrived-{{other}}").exists() and time.time() < deadline:
    time.sleep(0.05)
book.start_chapter(me, paper="tajima")
book.save_table([{{"met": (root / f"arrived-{{other}}").exists(), "worker": os.getppid()}}], "t", rtol=0, atol=0,
                timing=["worker"], display=False)"""


def test_parallel_keep_going_run_names_the_failure_and_keeps_committed_tables(tmp_path, monkeypatch, capsys):
    """`svmcert book run -j 2 --keep-going`: chapters run at the same time in two worker processes,
    one progress line each; the failing one is named with its cell, its committed table stays, the
    rest (the appendix included) still runs, and the exit status is non-zero."""
    root = _make_project(tmp_path / "proj", {"p1": RENDEZVOUS.format(me="p1", other="p2"),
                                             "p2": RENDEZVOUS.format(me="p2", other="p1"), "bad": BAD},
                         committed={"bad": "x\n1.0\n"})
    monkeypatch.setenv("SVMCERT_ROOT", str(root))
    assert main(["book", "run", "-j", "2", "--keep-going"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("[")]
    assert len(lines) == 4, out                                   # one progress line per chapter
    for name in ("p1", "p2", "bad", "agg"):
        assert sum(line.split()[1] == name for line in lines) == 1, out
    assert lines[-1].split()[1] == "agg" and (root / "agg-ran").is_file()   # appendix last, after the failure
    assert "book/p/bad.ipynb: cell 1" in out and "ValueError: boom in the third line" in out
    assert "1 chapter(s) failed: book/p/bad.ipynb" in out
    assert (root / "data" / "tables" / "bad" / "t.csv").read_text() == "x\n1.0\n"   # untouched
    assert (root / "_build" / "failed" / "book" / "p" / "bad.ipynb").is_file()
    rows = {name: (root / "data" / "tables" / name / "t.csv").read_text().splitlines()[1] for name in ("p1", "p2")}
    assert all(row.startswith("True,") for row in rows.values()), rows   # they met: they overlapped in time
    workers = {int(row.split(",")[1]) for row in rows.values()}
    assert len(workers) == 2 and os.getpid() not in workers            # two worker processes, not this one
    assert (root / "_build" / "executed" / "book" / "p" / "p1.ipynb").is_file()


SLOW = """import os, time
from pathlib import Path
from svmcert import book
book.start_chapter("{name}", paper="tajima")
book.save_table([{{"x": 2.0}}], "t", rtol=0, atol=0, display=False)      # staged, never committed
Path(os.environ["SVMCERT_ROOT"], "started-{name}").write_text(str(os.getpid()))
time.sleep(120)"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigint_leaves_committed_tables_intact_and_stops_the_kernels(tmp_path):
    """SIGINT to the runner alone (not its process group) with two chapters running in parallel.

    (A terminal's Ctrl-C also reaches the workers; in a serial run the interrupt lands in the
    runner's own papermill call: both are simpler cases of this one.)"""
    names, jobs = ["s1", "s2"], 2
    root = _make_project(tmp_path / "proj", {n: SLOW.format(name=n) for n in names},
                         committed={n: "x\n1.0\n" for n in names})
    env = {**os.environ, "SVMCERT_ROOT": str(root)}
    proc = subprocess.Popen([sys.executable, "-m", "svmcert", "book", "run", "-j", str(jobs)], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    started = [root / f"started-{n}" for n in names[:jobs]]
    deadline = time.time() + 120
    while not all(p.exists() for p in started) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    assert all(p.exists() for p in started), f"chapters did not start: {proc.communicate(timeout=60)}"
    proc.send_signal(signal.SIGINT)                       # to the runner only, not its process group
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 130, (out, err)
    assert "interrupted: the chapters that were running committed nothing" in err
    for n in names:
        assert (root / "data" / "tables" / n / "t.csv").read_text() == "x\n1.0\n"
        assert not (root / "_build" / "executed" / "book" / "p" / f"{n}.ipynb").exists()
    assert not (root / "agg-ran").exists()
    kernels = [int(p.read_text()) for p in started]
    deadline = time.time() + 30
    while any(_alive(k) for k in kernels) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(_alive(k) for k in kernels), "a chapter's kernel outlived the interrupted run"


PROVENANCE = """import matplotlib.pyplot as plt
from svmcert import book
book.start_chapter("prov", paper="tajima", notebook="book/p/prov.ipynb", seed=3, quick=quick)
book.save_table([{"x": 1.0}], "shown", rtol=0, atol=0, caption="A table")
book.save_table([{"x": 2.0}], "hidden", rtol=0, atol=0, display=False)
fig, ax = plt.subplots()
ax.plot([0, 1])
book.save_figure(fig, "line", caption="A rising line.", alt="A straight line from (0, 0) to (1, 1).")
plt.show()"""


def test_tables_and_figures_carry_provenance_sidecars_and_notes(tmp_path, monkeypatch):
    root = _make_project(tmp_path / "proj", {"prov": PROVENANCE})
    monkeypatch.setenv("SVMCERT_ROOT", str(root))
    assert runner.run_chapters(runner.select_chapters(runner.toc_notebooks(root), ["prov"])) == 0
    tables = root / "data" / "tables" / "prov"
    shown, hidden = (json.loads((tables / f"{n}.meta.json").read_text()) for n in ("shown", "hidden"))
    assert shown["kind"] == "table" and shown["displayed"] is True and hidden["displayed"] is False
    prov = shown["provenance"]
    assert prov["notebook"] == "book/p/prov.ipynb" and prov["parameters"]["seed"] == 3
    assert {"git_commit", "git_dirty", "svmcert_version", "data_sha256"} <= set(prov)
    fig_meta = json.loads((root / "_build" / "figures" / "prov" / "line.meta.json").read_text())
    assert fig_meta["kind"] == "figure" and fig_meta["file"] == "line.png" and fig_meta["provenance"] == prov
    assert fig_meta["caption"] == "A rising line." and fig_meta["alt"] == "A straight line from (0, 0) to (1, 1)."
    assert (root / "_build" / "figures" / "prov" / "line.png").stat().st_size > 1000

    nb = nbformat.read(root / "_build" / "executed" / "book" / "p" / "prov.ipynb", as_version=4)
    outputs = [o for o in nb.cells[-1].outputs if o.output_type in ("display_data", "execute_result")]
    kinds = []
    for o in outputs:
        html = o.data.get("text/html", "")
        if "svmcert-provenance" in html:
            kinds.append("note:" + html.split('data-name="')[1].split('"')[0])
            assert "book/p/prov.ipynb" in html and "seed=3" in html and "<table" not in html
        elif "<table" in html:
            kinds.append("table")
            assert 'class="svmcert-table-caption">A table<' in html and 'data-rows="1"' in html
        elif "image/png" in o.data:
            kinds.append("image")
        elif "text/markdown" in o.data:
            kinds.append("caption")
    # each note sits right under its table or figure; the undisplayed table has neither
    assert kinds == ["table", "note:shown", "image", "note:line"], kinds
    text = [o.data["text/plain"] for o in outputs if "svmcert-provenance" in o.data.get("text/html", "")]
    assert text[0].startswith("table shown: book/p/prov.ipynb, commit")


def test_provenance_note_is_compact_and_escaped():
    note = ProvenanceNote("table", "t<1>", {"notebook": "book/p/x.ipynb", "git_commit": "abcdef0123456789",
                                           "git_dirty": True, "svmcert_version": "0.1.0",
                                           "parameters": {"notebook": "book/p/x.ipynb", "seed": 0, "big": list(range(100))},
                                           "data_sha256": {"heart": "f" * 64}}, "data/tables/x/t.csv")
    html = note._repr_html_()
    assert 'data-name="t&lt;1&gt;"' in html and "abcdef0 + local changes" in html and "<table" not in html
    assert "heart " + "f" * 12 in html and "f" * 13 not in html          # checksums shortened
    assert "seed=0" in html and "…" in html and "notebook=" not in html   # long values cut
    assert repr(note).startswith("table t<1>: book/p/x.ipynb, commit abcdef0 + local changes, svmcert 0.1.0")


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
    # a text column with empty cells: missing on both sides is no drift, missing on one side is
    assert check.compare_tables("a,s,k\n1,1,\n1,1,x\n", "a,s,k\n1,1,\n1,1,x\n", meta) == []
    assert check.compare_tables("a,s,k\n1,1,\n1,1,x\n", "a,s,k\n1,1,y\n1,1,x\n", meta)
    old = {"claims": [{"id": "c", "passed": True, "expect": "holds", "observed": 1e-12, "tolerance": 1e-9,
                       "comparison": "<=", "reference": 0.0}]}
    new = json.loads(json.dumps(old)); new["claims"][0]["observed"] = 5e-10
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    new["claims"][0]["observed"] = 1.0
    assert "observed" in check.compare_claims(json.dumps(new), json.dumps(old))[0]
    # a value claim's verdict is compared
    new["claims"][0]["observed"], new["claims"][0]["passed"] = 1e-12, False
    assert "verdict" in check.compare_claims(json.dumps(new), json.dumps(old))[0]
    # wall-clock claims (committed as timing): neither the numbers nor the verdict, which belongs
    # to the machine that measured it (a speed goal met on one machine may be missed on another)
    for rec in (new, old):
        rec["claims"][0]["timing"] = True
    new["claims"][0]["observed"] = 1.0
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    # ... nor the seconds in its counterexample, while a value claim's counterexample is compared
    old["claims"][0]["counterexample"] = {"cpu_seconds": [0.2, 0.7]}
    new["claims"][0]["counterexample"] = {"cpu_seconds": [0.3, 0.9]}
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    for rec in (new, old):
        rec["claims"][0]["timing"] = False
    new["claims"][0]["observed"] = old["claims"][0]["observed"]
    assert any("counterexample" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))
    for rec in (new, old):
        rec["claims"][0]["timing"] = True
        rec["claims"][0].pop("counterexample")
    # a rerun cannot turn a value claim into a timing one to escape the comparison
    old["claims"][0]["timing"], new["claims"][0]["passed"] = False, True
    assert any("timing changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))


def test_a_tolerance_computed_from_the_data_moves_only_within_the_claims_drift_allowance():
    """A value claim's tolerance computed from the data (3 standard errors, say) may move as far as
    its values may (drift_atol + drift_rtol max(1, |old|), HEAD's); beyond that, or for a claim
    that declares no allowance, a changed tolerance is drift."""
    old = {"claims": [{"id": "c", "passed": True, "expect": "holds", "observed": -0.6, "reference": -0.5,
                       "comparison": "abs", "tolerance": 0.26, "quantity": "value", "drift_atol": 1e-4}]}
    new = json.loads(json.dumps(old)); new["claims"][0]["tolerance"] = 0.26 + 5e-5
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    new["claims"][0]["tolerance"] = 0.26 + 5e-4
    assert any("tolerance changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))
    old["claims"][0]["drift_atol"] = new["claims"][0]["drift_atol"] = 0.0     # the default allowance, 1e-9
    new["claims"][0]["tolerance"] = 0.26 + 1e-6
    assert any("tolerance changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))
    # a path claim's tolerance is fixed: only a value claim's may move with its values
    for rec in (new, old):
        rec["claims"][0].update(quantity="path", drift_atol=1e-4)
    new["claims"][0]["tolerance"] = 0.26 + 5e-5
    assert any("tolerance changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))

def test_a_drift_allowance_derived_from_rounding_moves_within_a_factor_and_is_applied_as_committed():
    """drift_atol derived from the machine's float32 rounding (the NTK chapter's) moves from
    machine to machine: within DRIFT_ALLOWANCE_FACTOR of HEAD's it is not drift, beyond it is, and
    the rerun's values are still compared under HEAD's allowance (a rerun cannot widen its check)."""
    old = {"claims": [{"id": "c", "passed": True, "expect": "holds", "observed": -0.40, "reference": 0.0,
                       "comparison": "at_most", "tolerance": 0.0, "quantity": "value", "drift_atol": 1.92e-5}]}
    new = json.loads(json.dumps(old)); new["claims"][0]["drift_atol"] = 1.88e-5
    assert check.compare_claims(json.dumps(new), json.dumps(old)) == []
    new["claims"][0]["drift_atol"] = 1.92e-5 * (check.DRIFT_ALLOWANCE_FACTOR * 1.01)
    assert any("drift_atol changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))
    new["claims"][0]["drift_atol"] = 0.0          # an allowance that vanishes is a change too
    assert any("drift_atol changed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))
    # a wider allowance in the rerun does not excuse a value that moved beyond HEAD's
    new["claims"][0].update(drift_atol=3.8e-5, observed=-0.40 + 3e-5)
    assert any("observed" in p for p in check.compare_claims(json.dumps(new), json.dumps(old)))


def test_cli_reports_unknown_chapter_and_bad_jobs(project, capsys):
    assert main(["book", "run", "missing-chapter"]) == 2
    assert "not in _toc.yml" in capsys.readouterr().err
    assert main(["book", "run", "-j", "0"]) == 2


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "svmcert", "book", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "run" in out.stdout and "check" in out.stdout


def _figure_cell(name, chapter=None):
    where = f"file: <code>_build/figures/{chapter}/{name}.png</code>" if chapter else ""
    note = f'<div class="svmcert-provenance" data-kind="figure" data-name="{name}">figure {name} {where}</div>'
    return {"cell_type": "code", "metadata": {}, "source": [], "outputs": [
        {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}},
        {"output_type": "display_data", "data": {"text/html": note, "text/plain": name}}]}


def _figures_of(nb):
    return [c["metadata"]["mystnb"] for c in nb["cells"] if "mystnb" in c.get("metadata", {})]


def test_annotate_figures_uses_the_alt_text_of_the_sidecar(tmp_path):
    from svmcert.book.build import annotate_figures

    figures = tmp_path / "figures" / "chap"
    figures.mkdir(parents=True)
    (figures / "a.meta.json").write_text(json.dumps({"kind": "figure", "caption": "Caption A.",
                                                     "alt": "Two curves that meet.", "provenance": {"chapter": "chap"}}))
    (figures / "b.meta.json").write_text(json.dumps({"kind": "figure", "caption": "Caption B.", "alt": "",
                                                     "provenance": {"chapter": "chap"}}))
    (figures / "c.meta.json").write_text(json.dumps({"kind": "figure", "caption": "", "alt": "no caption",
                                                     "provenance": {"chapter": "chap"}}))
    nb = {"cells": [_figure_cell("a"), _figure_cell("b"), _figure_cell("c")]}
    assert annotate_figures(nb, tmp_path / "figures") == 2
    a, b = _figures_of(nb)
    assert a == {"figure": {"caption": "Caption A.", "name": "fig-chap-a"}, "image": {"alt": "Two curves that meet."}}
    assert b["image"]["alt"] == "Caption B."          # no alt text: the caption describes the image
    # the image alone in a figure cell, the note after it; the uncaptioned figure is left as it was
    kinds = [[("image" if "image/png" in o["data"] else "note") for o in c["outputs"]] for c in nb["cells"]]
    assert kinds == [[], ["image"], ["note"], [], ["image"], ["note"], ["image", "note"]]
    assert all(c["metadata"]["tags"] == ["remove-input"] for c in nb["cells"] if "mystnb" in c["metadata"])
    other = tmp_path / "figures" / "other"             # a second chapter with a figure of the same name
    other.mkdir()
    (other / "a.meta.json").write_text(json.dumps({"kind": "figure", "caption": "Other A.", "alt": "",
                                                   "provenance": {"chapter": "other"}}))
    nb = {"cells": [_figure_cell("a", "chap"), _figure_cell("a", "other"), _figure_cell("a")]}
    assert annotate_figures(nb, tmp_path / "figures") == 2
    mine, theirs = _figures_of(nb)
    assert mine["figure"]["caption"] == "Caption A." and theirs["figure"]["caption"] == "Other A."
