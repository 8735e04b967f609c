"""Pages, styles and scripts are files (engine/**/assets/), and every file of engine/ ships.

* No string constant of engine/ is over 40 lines, docstrings and f-strings included: a
  page's markup lives in an asset, a long explanation in docs/.
* Every file of engine/ that is not a module of a package (assets, templates, the Java
  listing) is named by pyproject.toml's package-data (else ``pip install .`` would leave
  it out), is in the zip application ``make dist`` builds, and reads the same there, on
  the Python that runs the tests and on CPython 3.8 when the machine has it.
"""

import ast
import fnmatch
import os
import re
import subprocess
import sys
import zipfile
from pathlib import PurePosixPath

import pytest

from golden import REPO
from test_portability import python38

ENGINE = REPO / "engine"
MAX_LINES = 40
FIGURE_5_2 = "A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))"


# --- no long string ----------------------------------------------------------------------

def long_strings(root):
    """["path:line (N lines)"] of every str constant or f-string under ``root`` spanning
    more than MAX_LINES lines of source or of text."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                lines = max(node.value.count("\n") + 1, node.end_lineno - node.lineno + 1)
            elif isinstance(node, ast.JoinedStr):
                lines = node.end_lineno - node.lineno + 1
            else:
                continue
            # (an f-string's literal parts are constants of their own: one entry a string)
            where = f"{path.relative_to(root.parent)}:{node.lineno}"
            if lines > max(MAX_LINES, found.get(where, 0)):
                found[where] = lines
    return [f"{where} ({lines} lines)" for where, lines in found.items()]


def test_no_string_constant_of_engine_is_over_40_lines():
    assert long_strings(ENGINE) == []


def test_the_check_sees_docstrings_f_strings_and_joined_literals(tmp_path):
    package = tmp_path / "engine"
    package.mkdir()
    lines = "\n".join(f"line {n}" for n in range(MAX_LINES))          # 40 lines: allowed
    (package / "ok.py").write_text(f'"""{lines}"""\n')
    (package / "doc.py").write_text(f'"""{lines}\nmore"""\n')
    (package / "fstring.py").write_text(f'x = 1\nPAGE = f"""{lines}\n{{x}}"""\n')
    joined = "\n".join(f'    "<p>{n}</p>"' for n in range(MAX_LINES + 1))
    (package / "joined.py").write_text(f"PAGE = (\n{joined})\n")
    assert long_strings(package) == ["engine/doc.py:1 (41 lines)",
                                     "engine/fstring.py:2 (41 lines)",
                                     "engine/joined.py:2 (41 lines)"]


# --- every data file ships ---------------------------------------------------------------

def package_of(path):
    """The dotted name of the package whose folder holds ``path`` (nearest __init__.py)."""
    folder = path.parent
    while not (folder / "__init__.py").exists():
        folder = folder.parent
    return ".".join(folder.relative_to(REPO).parts), folder


def data_files():
    """Every file under engine/ that is not a module of a package (nor a cache)."""
    found = []
    for path in sorted(ENGINE.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.suffix == ".py" and (path.parent / "__init__.py").exists():
            continue
        found.append(path)
    return found


def package_data():
    """{package: [patterns]} of pyproject.toml's [tool.setuptools.package-data]."""
    text = (REPO / "pyproject.toml").read_text()
    table = re.search(r"^\[tool\.setuptools\.package-data\]\n(.*?)(?=^\[|\Z)", text,
                      re.S | re.M).group(1)
    table = re.sub(r"#[^\n]*", "", table)
    return {name: re.findall(r'"([^"]+)"', patterns)
            for name, patterns in re.findall(r'^"([^"]+)" = \[(.*?)\]', table, re.S | re.M)}


def matches(relative, pattern):
    """Whether setuptools' glob ``pattern`` names ``relative`` (``*`` stops at a /)."""
    parts, wanted = PurePosixPath(relative).parts, PurePosixPath(pattern).parts
    return len(parts) == len(wanted) and all(
        fnmatch.fnmatchcase(part, glob) for part, glob in zip(parts, wanted))


def test_every_data_file_of_engine_is_named_in_package_data():
    listed = package_data()
    assets = [path for path in data_files() if "assets" in path.parts]
    assert len(assets) >= 14          # the pages' files are found at all
    for path in data_files():
        package, folder = package_of(path)
        relative = path.relative_to(folder).as_posix()
        assert any(matches(relative, pattern) for pattern in listed.get(package, ())), \
            f"{path.relative_to(REPO)} is not in {package}'s package-data"


def test_the_package_data_check_sees_a_missing_file():
    assert matches("assets/report.css", "assets/*.css")
    assert not matches("assets/report.js", "assets/*.css")
    assert not matches("assets/deep/report.css", "assets/*.css")
    assert not matches("assets/report.css", "*.css")


@pytest.fixture(scope="module")
def single_file(tmp_path_factory):
    """make dist's zip application of tictactoe.py, built here."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from build_zipapp import build
    finally:
        sys.path.pop(0)
    target = tmp_path_factory.mktemp("dist") / "tictactoe.pyz"
    build("tictactoe.py", target)
    return target


def test_every_data_file_is_in_the_zip_application(single_file):
    with zipfile.ZipFile(single_file) as archive:
        names = set(archive.namelist())
        for path in data_files():
            name = path.relative_to(REPO).as_posix()
            assert name in names, name
            assert archive.read(name) == path.read_bytes(), name


def _page_from(python, where, folder):
    """``tree --html`` of figure 5.2 written by ``python`` with the engine of ``where``
    (the repository, or the zip application): the page's bytes."""
    folder.mkdir()
    environment = dict(os.environ, PYTHONPATH=str(where))
    done = subprocess.run([python, "-m", "engine", "tree", "-", "--html", "page.html"],
                          cwd=folder, env=environment, input=FIGURE_5_2.encode(),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return (folder / "page.html").read_bytes()


@pytest.mark.parametrize("which", ["this Python", "CPython 3.8"])
def test_a_page_from_the_zip_application_is_the_one_from_the_source(which, single_file,
                                                                   tmp_path):
    python = sys.executable if which == "this Python" else python38()
    if python is None:
        pytest.skip("no python3.8 on this machine")
    source = _page_from(python, REPO, tmp_path / "source")
    assert source == _page_from(sys.executable, REPO, tmp_path / "here")
    assert _page_from(python, single_file, tmp_path / "zip") == source
    assert (REPO / "engine" / "pictures" / "assets" / "stepper.js").read_bytes() in source


@pytest.mark.slow
def test_pip_install_ships_every_data_file(installed_project, tmp_path):
    """``pip install .`` of a copy of the project (into a new venv) installs every data
    file beside its package, and the installed command writes the same page."""
    environment = installed_project
    (site,) = (environment / "lib").glob("python3*/site-packages")
    for path in data_files():
        copy = site / path.relative_to(REPO)
        assert copy.is_file() and copy.read_bytes() == path.read_bytes(), path
    bare = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    (tmp_path / "run").mkdir()
    done = subprocess.run([str(environment / "bin" / "game-search"), "tree", "-", "--html",
                           "page.html"], cwd=tmp_path / "run", env=bare,
                          input=FIGURE_5_2.encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run" / "page.html").read_bytes() == _page_from(
        sys.executable, REPO, tmp_path / "source")
