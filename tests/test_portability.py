"""engine/ and the programs need no more than Python 3.8 and only the standard library."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden import REPO

SCRIPTS = ["tictactoe.py", "tmmorris.py", "TakeStones", "homework.py"]
# APIs newer than 3.8 that the 3.8 grammar cannot catch (attribute or name).
NEWER_ATTRIBUTES = {"bit_count", "removeprefix", "removesuffix", "lcm", "is_relative_to",
                    "with_stem", "pairwise", "batched", "to_thread", "BooleanOptionalAction",
                    "randbytes", "TopologicalSorter"}
NEWER_MODULES = {"zoneinfo", "graphlib", "tomllib"}
# The ladder's optional extra (pyproject's [ladder]): only these modules may import it;
# the ladder's worker, uploads, scheduler and command line stay standard-library only.
LADDER_EXTRA = {"sqlalchemy", "alembic", "starlette", "uvicorn", "jinja2"}
LADDER_EXTRA_MODULES = ("engine/ladder/store/", "engine/ladder/web/",
                        "engine/ladder/migrations/", "engine/ladder/pages.py")


def sources():
    files = sorted((REPO / "engine").rglob("*.py"))
    files += [REPO / name for name in SCRIPTS if (REPO / name).exists()]
    return files


def imported_modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_parses_as_python_3_8_and_imports_only_the_standard_library(path):
    text = path.read_text()
    tree = ast.parse(text, filename=str(path), feature_version=(3, 8))
    allowed = set(sys.stdlib_module_names) - NEWER_MODULES | {"engine", "__future__"}
    if str(path.relative_to(REPO)).startswith(LADDER_EXTRA_MODULES):
        allowed |= LADDER_EXTRA
    foreign = sorted(set(imported_modules(tree)) - allowed)
    assert not foreign, f"{path.name} imports {foreign}"
    newer = sorted({node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
                   & NEWER_ATTRIBUTES)
    assert not newer, f"{path.name} uses APIs newer than Python 3.8: {newer}"
    for node in ast.walk(tree):
        # `list[int]` / `dict[str, int]` outside annotations fail at run time on 3.8.
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            assert node.value.id not in {"list", "dict", "tuple", "set", "frozenset", "type"} \
                or _in_annotation(tree, node), f"{path.name}:{node.lineno} builtin generic"


def _in_annotation(tree, target):
    for node in ast.walk(tree):
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.args + node.args.kwonlyargs
            annotations = [a.annotation for a in arguments] + [node.returns]
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        for annotation in annotations:
            if annotation is not None and any(n is target for n in ast.walk(annotation)):
                return True
    return False


def python38():
    """A working CPython 3.8 (pyenv shims may exist without the version), or None."""
    candidates = [str(p) for p in sorted(Path("/root/.pyenv/versions").glob("3.8*/bin/python3.8"))]
    candidates.append(shutil.which("python3.8"))
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 8)":
            return candidate
    return None


def test_every_module_imports_under_python_3_8():
    interpreter = python38()
    if interpreter is None:
        pytest.skip("no python3.8 on this machine (the static 3.8 grammar check still ran)")
    modules = sorted(".".join(p.relative_to(REPO).with_suffix("").parts)
                     for p in (REPO / "engine").rglob("*.py") if p.name != "__main__.py"
                     and not str(p.relative_to(REPO)).startswith(LADDER_EXTRA_MODULES))
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    completed = subprocess.run([interpreter, "-c", code] + modules, cwd=REPO,
                               capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr[-2000:]
