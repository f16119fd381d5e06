"""The layout rules of docs/ARCHITECTURE.md, read from the code's own imports (ast, nothing is run):
no import circles inside the library (lazy imports in functions count), no private name imported
from another module, the experiment drivers mirror the book and never import one another, and
modules stay near the 400-line guide."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib"
PKG = LIB / "svmcert"
EXPERIMENTS = PKG / "experiments"
#: experiments modules every driver may use: keyed instance streams, sign patterns, timing, the
#: instance families two pages share
SHARED_EXPERIMENTS = {"instances", "patterns", "timing", "families"}
#: the book's part folders and the experiments packages that mirror them
PARTS = {"sign-constrained": "sign_constrained", "safe-screening": "safe_screening",
         "feature-elimination": "feature_elimination"}
MAX_LINES = 425   # "about 400": docstrings with their Examples sections count too


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(LIB).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str):
    """(imported module, imported names, line) for every import statement of a module, lazy ones included."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    package = name if _is_package(name) else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, [a.name for a in node.names], node.lineno


def _edges(name: str) -> set[str]:
    out = set()
    for mod, names, _ in _imports(name):
        if not mod.startswith("svmcert"):
            continue
        subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in MODULES]
        targets = subs if subs and len(subs) == len(names) else [mod] + subs
        out.update(t for t in targets if t in MODULES and t != name)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles_between_modules():
    # a package's __init__ re-exports its modules, and a module may import its own package's
    # public face; those edges are not circles between modules, so __init__ files are left out
    graph = {m: {t for t in _edges(m) if not _is_package(t)} for m in MODULES if not _is_package(m)}
    assert _cycles(graph) == []


def test_the_check_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_private_name_is_imported_from_another_module():
    found = []
    for name in MODULES:
        for mod, names, line in _imports(name):
            if not mod.startswith("svmcert") or mod == name:
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                found.append(f"{MODULES[name].relative_to(ROOT)}:{line} takes {private} from {mod}")
    assert not found, "\n".join(found)


def _chapters(part_folder: str) -> set[str]:
    return {p.stem.replace("-", "_") for p in (ROOT / "book" / part_folder).glob("*.ipynb")}


def _chapter_of(module: str, chapters: set[str]) -> str | None:
    short = module.rsplit(".", 1)[-1]
    hits = [c for c in chapters if short == c or short.startswith(c + "_")]
    return max(hits, key=len) if hits else None


def test_experiments_mirror_the_book_and_no_driver_imports_another():
    problems = []
    top = {p.stem for p in EXPERIMENTS.glob("*.py")} - {"__init__"}
    assert top == SHARED_EXPERIMENTS | {"benchmarks"}, "experiments/ holds the shared modules and the Benchmarks driver"
    assert {p.name for p in EXPERIMENTS.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(PARTS.values())
    for folder, package in PARTS.items():
        chapters = _chapters(folder)
        for path in (EXPERIMENTS / package).glob("*.py"):
            if path.stem == "__init__":
                continue
            module = _module_name(path)
            own = _chapter_of(module, chapters)
            if own is None:
                problems.append(f"{module}: named after no chapter of book/{folder}/ ({sorted(chapters)})")
                continue
            for mod, names, line in _imports(module):
                if not mod.startswith("svmcert.experiments"):
                    continue
                targets = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in MODULES] or [mod]
                for t in targets:
                    rest = t[len("svmcert.experiments."):]
                    if rest in SHARED_EXPERIMENTS:
                        continue
                    if t.startswith(f"svmcert.experiments.{package}.") and _chapter_of(t, chapters) == own:
                        continue
                    problems.append(f"{module}:{line} imports {t}, a driver of another page")
    for mod, names, line in _imports("svmcert.experiments.benchmarks"):
        if mod.startswith("svmcert.experiments") and mod.rsplit(".", 1)[-1] not in SHARED_EXPERIMENTS:
            problems.append(f"svmcert.experiments.benchmarks:{line} imports {mod}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_near_the_400_line_guide(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines"


def test_the_library_below_the_pipeline_imports_neither_the_book_nor_the_drivers():
    # the floors of docs/ARCHITECTURE.md: solvers and checks never import the drivers or the book
    # pipeline, and no solver imports the cvxpy references
    low = [m for m in MODULES if m.count(".") and m.split(".")[1] in ("signsvm", "screening", "featelim", "kernels", "datasets",
                                                       "dataset_registry", "splice", "instance_streams", "_compiled", "_validation", "_gram", "_budget", "exceptions")]
    bad = [(m, t) for m in low for t in _edges(m) if t.startswith(("svmcert.experiments", "svmcert.book"))]
    bad += [(m, t) for m in low for t in _edges(m) if t.startswith("svmcert.reference")
            and m.split(".")[1] in ("signsvm", "screening", "featelim")]
    assert not bad, bad


def test_the_book_pipeline_imports_no_solver_and_the_references_only_the_floor():
    solvers = ("svmcert.signsvm", "svmcert.screening", "svmcert.featelim", "svmcert.experiments")
    bad = [(m, t) for m in MODULES if m.startswith("svmcert.book") for t in _edges(m) if t.startswith(solvers)]
    bad += [(m, t) for m in MODULES if m.startswith("svmcert.reference") for t in _edges(m)
            if t.startswith(solvers + ("svmcert.book",))]
    assert not bad, bad
