"""The grader scripts copied alone say what they need; make dist's single files run
them anywhere Python 3.8+ runs (here under CPython 3.8 when the machine has it)."""

import shutil
import subprocess
import sys

import pytest

from golden import REPO
from test_portability import python38

SCRIPTS = ("tictactoe.py", "tmmorris.py", "homework.py", "TakeStones")
# A small input of each program (argv, files).
RUNS = {"tictactoe.py": (["xxoo-----", "visited.txt", "prune", "2"], {}),
        "tmmorris.py": (["xx-oo----", "visited.txt", "2", "x"], {}),
        "homework.py": ([], {"input.txt": "2\nMINIMAX\nX\n2\n1 2\n3 4\n..\n..\n"}),
        "TakeStones": (["7", "2", "1", "3", "2"], {})}


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_copied_alone_says_it_needs_engine_in_one_line(script, tmp_path):
    shutil.copy(REPO / script, tmp_path / script)
    run = subprocess.run([sys.executable, script, *RUNS[script][0]], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "needs the engine/ folder" in run.stderr
    assert "Traceback" not in run.stderr


def _run(argv, folder, files):
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=120)
    written = {path.name: path.read_bytes() for path in sorted(folder.iterdir())}
    return done.returncode, done.stdout, written


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_single_file_runs_as_the_script(script, tmp_path):
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from build_zipapp import build
    finally:
        sys.path.pop(0)
    single = tmp_path / "dist" / (script.replace(".py", "") + ".pyz")
    build(script, single)
    interpreter = python38() or sys.executable
    args, files = RUNS[script]
    expected = _run([sys.executable, str(REPO / script), *args], tmp_path / "a", files)
    got = _run([interpreter, str(single), *args], tmp_path / "b", files)
    assert got == expected and expected[0] == 0
