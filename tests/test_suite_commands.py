"""The test commands: what plain `pytest` selects, the browser marker, tools/under_load.py.

* pytest.ini's addopts leaves out the tests marked slow, browser and cluster (plain
  `pytest` and `make test` are the everyday set); the Makefile's test-all passes its own -m.
* Every test that drives a browser carries the ``browser`` marker, so that the everyday
  set never waits for Chromium.
* tools/under_load.py runs its command the number of times asked, stops at the first
  failure with that run's status, and leaves no spinning process behind.
"""

import ast
import configparser
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

REPO = Path(__file__).resolve().parent.parent
UNDER_LOAD = REPO / "tools" / "under_load.py"


def default_marker_expression():
    config = configparser.ConfigParser(interpolation=None)
    config.read(REPO / "pytest.ini")
    words = shlex.split(config["pytest"]["addopts"])
    return Expression.compile(words[words.index("-m") + 1])


@pytest.mark.parametrize("markers, selected", [
    ((), True), (("slow",), False), (("browser",), False), (("cluster",), False),
    (("slow", "browser"), False), (("parametrize",), True)])
def test_plain_pytest_leaves_out_the_heavy_markers(markers, selected):
    expression = default_marker_expression()
    assert expression.evaluate(lambda name, **kwargs: name in markers) is selected


def test_make_test_all_selects_every_marker_but_the_cluster_and_then_the_cluster():
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\ntest-all:", 1)[1].split("\n\n", 1)[0]
    assert '-m "not cluster"' in recipe and "test-cluster" in recipe
    assert "make test-all" in (REPO / ".ci" / "run").read_text()


def _marks(function):
    """The ``pytest.mark.NAME`` names decorating ``function`` (an ast.FunctionDef)."""
    names = set()
    for decorator in function.decorator_list:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def browser_tests_without_marker(source):
    """Test functions of ``source`` that take the ``browser`` fixture or start Playwright
    but are not marked ``browser``."""
    missing = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            starts = any(isinstance(inner, ast.Attribute) and inner.attr == "sync_playwright"
                         for inner in ast.walk(node))
            uses = "browser" in [arg.arg for arg in node.args.args] or starts
            if uses and "browser" not in _marks(node):
                missing.append(node.name)
    return missing


def test_every_browser_test_is_marked_browser():
    found = {path.name: browser_tests_without_marker(path.read_text())
             for path in sorted((REPO / "tests").glob("test_*.py"))}
    assert {name: tests for name, tests in found.items() if tests} == {}


def test_the_marker_check_sees_an_unmarked_browser_test():
    unmarked = "def test_a(browser):\n    pass\n"
    starts = "def test_b():\n    with sync_api.sync_playwright() as p:\n        pass\n"
    marked = "@pytest.mark.browser\ndef test_c(browser):\n    pass\n"
    assert browser_tests_without_marker(unmarked + starts + marked) == ["test_a", "test_b"]


# The command notes its run and the process ids of its parent's children (the spinners
# and itself), then exits with the status given.
RECORD = """import os, sys
with open(sys.argv[1], "a") as out:
    parent = os.getppid()
    children = open(f"/proc/{parent}/task/{parent}/children").read().split()
    out.write(" ".join(c for c in children if int(c) != os.getpid()) + "\\n")
sys.exit(int(sys.argv[2]))
"""


def run_under_load(tmp_path, status, runs):
    record = tmp_path / "runs.txt"
    done = subprocess.run([sys.executable, str(UNDER_LOAD), "--per-core", "1", "--runs",
                           str(runs), "--", sys.executable, "-c", RECORD, str(record),
                           str(status)], capture_output=True, text=True, timeout=60)
    return done, [line.split() for line in record.read_text().splitlines()]


def test_under_load_runs_the_command_beside_spinners_and_stops_them(tmp_path):
    done, runs = run_under_load(tmp_path, 0, 3)
    assert done.returncode == 0, done.stderr
    assert len(runs) == 3
    spinners = set(runs[0])
    assert len(spinners) == os.cpu_count()
    assert all(set(run) == spinners for run in runs)
    assert [pid for pid in spinners if Path(f"/proc/{pid}").exists()] == []


def test_under_load_stops_at_the_first_failing_run_with_its_status(tmp_path):
    done, runs = run_under_load(tmp_path, 3, 3)
    assert done.returncode == 3
    assert len(runs) == 1
    assert "exit 3" in done.stderr
    assert [pid for pid in runs[0] if Path(f"/proc/{pid}").exists()] == []


def test_under_load_refuses_a_missing_command():
    done = subprocess.run([sys.executable, str(UNDER_LOAD), "--runs", "2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
