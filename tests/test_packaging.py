"""pyproject.toml, the lock and environment.yml agree; the installed environment is the lock;
notebooks carry no outputs."""

import json
import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: The platform the lock is made for (Makefile: `make lock`).
LOCK_ENV = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.7",
            "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64"}


def _lock_pins() -> dict[str, tuple[str, list[str]]]:
    """{canonical name: (version, [sha256, ...])} of every package in the lock."""
    pins, current = {}, None
    for line in LOCK.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s\\;]+)", line)
        if m:
            current = canonicalize_name(m.group(1))
            assert current not in pins, f"{current} is pinned twice"
            pins[current] = (m.group(2), [])
        for h in re.findall(r"--hash=sha256:([0-9a-f]{64})", line):
            pins[current][1].append(h)
    return pins


def _requirements(extra: str | None = None) -> list[Requirement]:
    """The core requirements, or an extra's, with svmcert[...] self-references expanded."""
    raw = PYPROJECT["dependencies"] if extra is None else PYPROJECT["optional-dependencies"][extra]
    out = []
    for text in raw:
        req = Requirement(text)
        if canonicalize_name(req.name) == "svmcert":
            for sub in sorted(req.extras):
                out += _requirements(sub)
        else:
            out.append(req)
    return out


def test_lock_is_exact_and_hashed():
    pins = _lock_pins()
    assert len(pins) > 50
    for name, (ver, hashes) in pins.items():
        assert hashes, f"{name}=={ver} has no sha256 in the lock"
        assert not re.search(r"[<>~*]", ver), f"{name}: not an exact version: {ver}"


@pytest.mark.parametrize("extra", [None, *PYPROJECT["optional-dependencies"]])
def test_lock_satisfies_pyproject(extra):
    pins = _lock_pins()
    for req in _requirements(extra):
        if req.marker is not None and not req.marker.evaluate(LOCK_ENV):
            continue
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} (extra {extra}) is not in the lock: run `make lock`"
        assert req.specifier.contains(pins[name][0], prereleases=True), \
            f"the lock pins {name}=={pins[name][0]}, outside pyproject's {req} (run `make lock`)"


def test_core_is_light_and_the_pins_that_matter_are_kept():
    core = {canonicalize_name(r.name) for r in _requirements()}
    assert core == {"numpy", "scipy", "scikit-learn", "numba"}
    assert PYPROJECT["requires-python"] == ">=3.11"
    pins = _lock_pins()
    for name, ver in {"jupyter-book": "1.0.4.post1", "jax": "0.4.30", "jaxlib": "0.4.30", "tf2jax": "0.3.6",
                      "neural-tangents": "0.6.5"}.items():
        assert pins[name][0] == ver, name


def test_environment_yml_installs_the_lock():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert pip == ["--require-hashes", "-r requirements/lock.txt"]


def test_installed_environment_is_the_lock():
    """What `make install` put into the running environment is exactly the lock."""
    wrong = []
    for name, (ver, _) in _lock_pins().items():
        try:
            found = version(name)
        except PackageNotFoundError:
            wrong.append(f"{name}: not installed (lock: {ver})")
            continue
        if canonicalize_name(found) != canonicalize_name(ver) and found != ver:
            wrong.append(f"{name}: installed {found}, lock {ver}")
    assert not wrong, "the environment differs from requirements/lock.txt (run `make install`):\n" + "\n".join(wrong)


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


def test_import_svmcert_loads_subpackages_only_on_first_use():
    """``import svmcert`` and the book's command line leave numba and scikit-learn unloaded; attribute
    access still reaches every subpackage, and an unknown name is an AttributeError."""
    import subprocess
    import sys
    code = ("import sys, svmcert, svmcert.book.cli\n"
            "heavy = sorted(m for m in ('numba', 'sklearn', 'scipy.stats', 'svmcert.signsvm') if m in sys.modules)\n"
            "assert not heavy, heavy\n"
            "assert callable(svmcert.signsvm.solve) and 'sklearn' in sys.modules\n"
            "assert {'signsvm', 'claims', 'screening'} <= set(dir(svmcert))\n"
            "try:\n    svmcert.no_such_part\nexcept AttributeError as e:\n    print('ok', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("ok") and "no_such_part" in out.stdout, out.stderr
