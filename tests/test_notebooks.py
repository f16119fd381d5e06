"""The whole book runs and renders, with quick parameters, from a copy of the repository alone.

The copy has no shared folder beside it (no decoded papers, no data mirror next door) and imports the
library from its own ``lib/``: the LIBSVM files come only through ``$SVMCERT_DATA``, as for a reader
who cloned the repository. Every chapter runs (outputs under the copy's ``_build/quick``), every
claim has its expected verdict, and Jupyter Book renders the result.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from svmcert import claims
from svmcert import datasets as ds
from svmcert.book import project_root

ROOT = project_root()


def _mirror() -> Path:
    for d in ds.mirror_dirs():
        if (d / "heart").is_file():
            return d
    if os.environ.get("CI"):
        pytest.fail("no LIBSVM mirror: set SVMCERT_DATA or put the shared folder beside the project")
    pytest.skip("no LIBSVM mirror available")


def _repository_files(root: Path) -> list[str]:
    """Tracked files plus new files git does not ignore: what a clone of this work tree would hold."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f and (root / f).is_file()]


def _claims_only_in_full_run() -> set[str]:
    """Chapters whose parameters turn claims off in a quick run (``record_claims = None``: the benchmarks'
    goals are stated at sizes the quick run does not reach)."""
    import json
    out = set()
    for nb in (ROOT / "book").rglob("*.ipynb"):
        cells = json.loads(nb.read_text())["cells"]
        params = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        if params and re.search(r"^record_claims\s*=\s*None", "".join(params[0]["source"]), re.M):
            out.add(nb.stem)
    return out


@pytest.mark.notebooks
def test_the_book_runs_and_builds_from_the_repository_alone(tmp_path):
    mirror = _mirror()
    clone = tmp_path / "reader" / "svmcert"              # nothing named "shared" anywhere near it
    for rel in _repository_files(ROOT):
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, clone / rel)
    assert not (clone.parent / "shared").exists() and not (clone / "data" / "tables").samefile(ROOT / "data" / "tables")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVMCERT_")}
    env.update(SVMCERT_DATA=str(mirror), PYTHONPATH=str(clone / "lib"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    where = subprocess.run([sys.executable, "-c", "import svmcert; print(svmcert.__file__)"], cwd=clone, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(clone / "lib"), where     # the kernels will import the copy's library
    cmd = [sys.executable, "-m", "svmcert", "book"]
    run = subprocess.run(cmd + ["run", "--quick", "-j", "2", "--keep-going"], cwd=clone, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    records = claims.load_claims(clone / "_build" / "quick" / "data" / "claims")
    with_claims = {p.stem for p in (ROOT / "data" / "claims").glob("*.json")} - _claims_only_in_full_run()
    assert with_claims <= {c.chapter for c in records}
    bad = [c.id for c in claims.unexpected(records)]
    assert not bad, f"quick run: unexpected verdicts {bad}"
    build = subprocess.run(cmd + ["build", "--quick"], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    assert (clone / "_build" / "html" / "index.html").is_file()
    assert not (tmp_path / "cache" / "svmcert").exists(), "a data set was downloaded instead of read from SVMCERT_DATA"
