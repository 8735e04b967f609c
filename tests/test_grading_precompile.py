"""The build byte-compiles what a Python submission's program imports, found by reading
its import statements (engine.grading.precompile), and everything when it cannot know."""

import subprocess
import sys
from pathlib import Path

import pytest

from grading_helpers import submission

from engine.grading.detect import COMPILE_STEP, build, compile_step
from engine.grading.plan import Plan
from engine.grading.precompile import reachable
from engine.sandbox import Limits, Sandbox

TREE = {
    "main.py": ("import os, helper\nfrom pkg import sub\nfrom pkg.deep import thing\n"
                "import random\n\ndef later():\n    import lazy\n"),
    "helper.py": "X = 1\n",
    "lazy.py": "Y = 2\n",
    "random.py": "# shadows the standard library's, as Python's sys.path[0] would\n",
    "unused.py": "import also_unused\n",
    "also_unused.py": "",
    "pkg/__init__.py": "",
    "pkg/sub.py": "from . import sibling\nfrom .. import nothing_there\n",
    "pkg/sibling.py": "from .deep import thing\n",
    "pkg/deep/__init__.py": "thing = 3\n",
    "pkg/never.py": "",
    "broken.py": "def (:\n",
}


def names(folder, files):
    return sorted(str(Path(path).relative_to(folder)) for path in files)


def test_the_modules_a_program_imports_are_found_and_nothing_else(tmp_path):
    folder = submission(tmp_path / "s", TREE)
    files, dynamic = reachable(str(folder), "main.py")
    assert not dynamic
    assert names(folder, files) == ["helper.py", "lazy.py", "pkg/__init__.py",
                                    "pkg/deep/__init__.py", "pkg/sibling.py", "pkg/sub.py",
                                    "random.py"]


def test_modules_are_found_from_the_entrys_own_folder(tmp_path):
    folder = submission(tmp_path / "s", {"src/main.py": "import util\nimport broken\n",
                                         "src/util.py": "", "util.py": "",
                                         "src/broken.py": "def (:\n"})
    files, dynamic = reachable(str(folder), "src/main.py")
    assert names(folder, files) == ["src/broken.py", "src/util.py"] and not dynamic


def test_a_star_import_reaches_every_module_of_its_package(tmp_path):
    folder = submission(tmp_path / "s", {"main.py": "from pkg import *\n",
                                         "pkg/__init__.py": "", "pkg/a.py": "",
                                         "pkg/b.py": ""})
    files, _ = reachable(str(folder), "main.py")
    assert names(folder, files) == ["pkg/__init__.py", "pkg/a.py", "pkg/b.py"]


@pytest.mark.parametrize("code", ["import importlib\nimportlib.import_module(NAME)\n",
                                  "from importlib import import_module\n",
                                  "__import__(NAME)\n",
                                  "import sys\nsys.path.insert(0, 'lib')\n",
                                  "exec(TEXT)\n", "import runpy\n"])
def test_imports_the_statements_do_not_name_mean_everything(tmp_path, code):
    folder = submission(tmp_path / "s", {"main.py": "import helper\n", "helper.py": code})
    assert reachable(str(folder), "main.py")[1]


def built_caches(tmp_path, files, entry="main.py", kind="python"):
    """The byte-code files the kit's build leaves, for a submission of ``files``."""
    folder = submission(tmp_path / "student", files)
    sandbox = Sandbox(Limits(timeout=30))
    try:
        builds = Path(sandbox.workspace) / "builds"   # the sandbox's, beside its run folder
        builds.mkdir(exist_ok=True)
        built = build(Plan(kind, ("python3", entry)), str(folder), sandbox, str(builds))
        assert built.error is None, built.error
        return sorted(str(path.relative_to(built.folder)).split(".cpython")[0]
                      for path in built.folder.rglob("*.pyc"))
    finally:
        sandbox.close()


def test_the_build_compiles_what_the_program_imports(tmp_path):
    assert built_caches(tmp_path, TREE) == [
        "__pycache__/helper", "__pycache__/lazy", "__pycache__/random",
        "pkg/__pycache__/__init__", "pkg/__pycache__/sibling", "pkg/__pycache__/sub",
        "pkg/deep/__pycache__/__init__"]


def test_the_build_compiles_everything_when_imports_are_dynamic(tmp_path):
    files = dict(TREE, **{"helper.py": "import importlib\n"})
    caches = built_caches(tmp_path, files)
    assert "__pycache__/unused" in caches and "pkg/__pycache__/never" in caches
    assert "__pycache__/main" in caches          # compileall compiles the entry too


def test_a_command_plan_compiles_everything(tmp_path):
    assert compile_step(Plan("command", template="python3 main.py")) == list(COMPILE_STEP)


def test_the_compile_step_never_imports_the_submissions_modules(tmp_path):
    """``python3 -I -c``: the folder is not on sys.path, so modules planted under the
    standard library's names (those the step itself imports) never run."""
    planted = "open('planted-' + __name__, 'w')\n"
    folder = submission(tmp_path / "s", {name: planted for name in (
        "ast.py", "py_compile.py", "compileall.py", "os.py", "importlib.py")})
    (folder / "main.py").write_text("import helper\n")
    (folder / "helper.py").write_text("")
    step = compile_step(Plan("python", ("python3", "main.py")))
    subprocess.run([sys.executable] + step[1:], cwd=folder, check=True, capture_output=True)
    assert not list(folder.glob("planted-*"))
    assert list((folder / "__pycache__").glob("helper.*.pyc"))
    # What -I prevents: the same text run without it imports the planted ast.py.
    subprocess.run([sys.executable, "-c", step[3], "main.py"], cwd=folder,
                   capture_output=True)
    assert list(folder.glob("planted-*"))
