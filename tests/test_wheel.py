"""The package a practitioner installs: sdist and wheel build and pass ``twine check``; the wheel,
installed without extras into a fresh virtual environment, runs the solvers with the core
dependencies alone and names the extra to install for everything else."""

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CORE_USE = textwrap.dedent('''
    import importlib.util, json, subprocess, sys
    import numpy as np
    import svmcert
    from svmcert import signsvm, screening, featelim, kernels, datasets

    X = np.random.default_rng(0).standard_normal((40, 5))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    res = signsvm.solve(X, y, 0.1, sign=np.array([1, 0, 0, -1, 0]), tol=1e-8)
    assert res.converged and res.gap <= 1e-8 * res.primal and res.w[0] >= 0 >= res.w[3]
    clf = signsvm.SignConstrainedSVC(sign_constraints=[1, 0, 0, -1, 0], C=1.0).fit(X, y)
    assert clf.score(X, y) > 0.8
    K = kernels.linear_kernel(X)
    fit = screening.fit_weighted_svm(K, y, 1.0, np.ones(40))
    mask = screening.sss_screen(K, y, 1.0, np.ones(40), fit.alpha)
    assert mask.dtype == bool and mask.shape == (40,)
    qp = featelim.solve_qp1(X[:, 0], y, 1.0, 1.0)
    assert np.isfinite(qp.objective)
    assert featelim.radius_squared(K) > 0
    missing = [m for m in ("cvxpy", "jax", "neural_tangents", "pandas", "matplotlib", "papermill", "pytest")
               if importlib.util.find_spec(m) is not None]
    messages = {}
    try:
        from svmcert.reference import solve_primal_cvxpy
        solve_primal_cvxpy(X, y, 0.1)
    except ImportError as exc:
        messages["reference"] = str(exc)
    try:
        kernels.ntk_kernel(X)
    except ImportError as exc:
        messages["ntk"] = str(exc)
    cli = subprocess.run([sys.executable, "-m", "svmcert", "book", "check"], capture_output=True, text=True)
    print(json.dumps({"installed_extras": missing, "messages": messages, "cli": [cli.returncode, cli.stderr],
                      "file": svmcert.__file__}))
''')


def _run(cmd, cwd, timeout=600):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{cmd}: {out.stdout[-3000:]}{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """sdist and wheel built from a copy of the repository (the build writes into its source tree)."""
    src = tmp_path_factory.mktemp("src") / "svmcert"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file() and not rel.startswith(("data/", "book/", "_build/")):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    dist = src / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)], src)
    return dist


def test_sdist_and_wheel_pass_twine_check(built):
    files = sorted(built.iterdir())
    assert sorted(p.suffix for p in files) == [".gz", ".whl"]
    out = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)], built)
    assert out.stdout.count("PASSED") == 2
    with zipfile.ZipFile(next(built.glob("*.whl"))) as whl:
        names = whl.namelist()
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "svmcert/signsvm/solve.py" in names and not any(n.startswith(("tests/", "book/", "data/")) for n in names)
    requires = [line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    core = [r for r in requires if "extra ==" not in r]
    assert sorted(r.split(">")[0].split("=")[0] for r in core) == ["numba", "numpy", "scikit-learn", "scipy"]
    assert "Requires-Python: >=3.11" in meta


def test_wheel_without_extras_runs_the_solvers_in_a_fresh_environment(built, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check",
          str(next(built.glob("*.whl")))],
         tmp_path, timeout=900)
    out = _run([str(py), "-c", CORE_USE], tmp_path)
    import json

    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["installed_extras"] == [], report        # the core pulled in none of the extras
    assert str(venv) in report["file"]
    assert "pip install 'svmcert[reference]'" in report["messages"]["reference"]
    assert "pip install 'svmcert[ntk]'" in report["messages"]["ntk"]
    code, err = report["cli"]
    assert code == 2 and "pip install 'svmcert[book]'" in err
