"""pyproject.toml and environment.yml list the same pinned dependencies; notebooks carry no outputs."""

import json
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_agrees_with_pyproject():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    pip = [p for p in pip if not p.startswith("-e")]
    norm = lambda xs: sorted(x.replace(" ", "").lower() for x in xs)  # noqa: E731
    assert norm(pip) == norm(deps)
    assert "python=3.11" in env["dependencies"]
    for pin in ("jupyter-book==1.0.4.post1", "jax==0.4.30", "jaxlib==0.4.30", "tf2jax==0.3.6", "neural-tangents==0.6.5"):
        assert pin in deps


def test_committed_notebooks_have_no_outputs():
    notebooks = sorted((ROOT / "book").rglob("*.ipynb"))
    assert notebooks
    for nb_path in notebooks:
        nb = json.loads(nb_path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert not cell.get("outputs") and cell.get("execution_count") is None, nb_path


def test_every_notebook_has_a_parameters_cell():
    for nb_path in sorted((ROOT / "book").rglob("*.ipynb")):
        nb = json.loads(nb_path.read_text())
        tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1 and "quick" in "".join(tagged[0]["source"]), nb_path
