"""The golden harness: replay fixture cases exactly the way a grader runs a program.

A case is a folder ``fixtures/<program>/<case>/`` holding:

    cmd        one line: the program word, then its arguments (split on whitespace;
               quote nothing). The program word is a top-level script (``tictactoe.py``,
               ``TakeStones``, ...) run as ``PYTHON <repo>/<script> ARGS``, or ``engine``
               for ``PYTHON -m engine ARGS``.
    stdin      optional: bytes fed to standard input (default: nothing, stdin closed)
    files/     optional: files copied into the empty working directory before the run
    stdout     expected standard output, byte for byte (missing = must be empty)
    stderr     optional: expected standard error, byte for byte (missing = not checked)
    exit       optional: expected exit code (missing = 0)
    expected/  files that must exist after the run, byte for byte

After the run the working directory must hold exactly files/ plus expected/: a program
that leaves a stray or half-written file fails.

PYTHON is ``sys.executable`` unless the environment variable GOLDEN_PYTHON names another
interpreter (``.ci/run`` sets it to pypy3 and python3.8 to replay under them).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


def interpreter():
    """The Python that runs the programs under test."""
    return os.environ.get("GOLDEN_PYTHON") or sys.executable


def all_cases():
    """Every case folder, sorted, as paths."""
    return sorted(path.parent for path in FIXTURES.glob("*/*/cmd"))


def case_id(case):
    return f"{case.parent.name}/{case.name}"


def command_line(case):
    """The argv list of ``case`` for the interpreter under test."""
    words = (case / "cmd").read_text().split()
    if not words:
        raise ValueError(f"{case}: empty cmd")
    program, arguments = words[0], words[1:]
    if program == "engine":
        return [interpreter(), "-m", "engine"] + arguments
    return [interpreter(), str(REPO / program)] + arguments


def snapshot(folder):
    """{relative path: bytes} of every file under ``folder``."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def replay(case, workdir, timeout=600):
    """Run ``case`` in the empty folder ``workdir``; return a list of mismatches."""
    inputs = case / "files"
    if inputs.is_dir():
        shutil.copytree(inputs, workdir, dirs_exist_ok=True)
    stdin = (case / "stdin").read_bytes() if (case / "stdin").exists() else b""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="random")
    completed = subprocess.run(command_line(case), cwd=workdir, input=stdin,
                               capture_output=True, timeout=timeout, env=env)
    problems = []
    want_exit = int((case / "exit").read_text()) if (case / "exit").exists() else 0
    if completed.returncode != want_exit:
        problems.append(f"exit code {completed.returncode}, expected {want_exit}; "
                        f"stderr: {completed.stderr[-500:]!r}")
    want_stdout = (case / "stdout").read_bytes() if (case / "stdout").exists() else b""
    if completed.stdout != want_stdout:
        problems.append(first_difference("stdout", completed.stdout, want_stdout))
    if (case / "stderr").exists() and completed.stderr != (case / "stderr").read_bytes():
        problems.append(first_difference("stderr", completed.stderr,
                                         (case / "stderr").read_bytes()))
    expected = snapshot(case / "expected") if (case / "expected").is_dir() else {}
    wanted = dict(snapshot(inputs) if inputs.is_dir() else {}, **expected)
    found = snapshot(workdir)
    for name in sorted(set(found) | set(wanted)):
        if name not in found:
            problems.append(f"file {name} missing")
        elif name not in wanted:
            problems.append(f"unexpected file {name} left behind")
        elif found[name] != wanted[name]:
            problems.append(first_difference(f"file {name}", found[name], wanted[name]))
    return problems


def first_difference(what, got, want):
    """A short description of where ``got`` first differs from ``want``."""
    got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
    for number, (line, expected) in enumerate(zip(got_lines, want_lines), 1):
        if line != expected:
            return f"{what}: line {number} is {line[:200]!r}, expected {expected[:200]!r}"
    return (f"{what}: {len(got_lines)} lines ({len(got)} bytes), "
            f"expected {len(want_lines)} lines ({len(want)} bytes)")
