"""Every chapter of the book runs with its quick parameters (outputs under _build/quick only)."""

import pytest

from svmcert import claims
from svmcert.book import project_root, runner


@pytest.mark.notebooks
def test_every_chapter_runs_quick_and_its_claims_are_as_expected(capsys):
    root = project_root()
    jobs = runner.toc_notebooks(root)
    assert any(j.name == "lp-step" for j in jobs)
    status = runner.run_chapters(jobs, quick=True, jobs_in_parallel=2, keep_going=True)
    out = capsys.readouterr().out
    assert status == 0, out
    records = claims.load_claims(root / "_build" / "quick" / "data" / "claims")
    chapters = {c.chapter for c in records}
    assert "lp-step" in chapters
    bad = [c.id for c in claims.unexpected(records)]
    assert not bad, f"quick run: unexpected verdicts {bad}"
