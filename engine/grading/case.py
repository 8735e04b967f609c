"""Cases: a command line, its inputs and the exact outputs expected of it.

A case on disk is a folder holding:

    cmd        one line: the program word, then its arguments, separated by single
               spaces (quote nothing). The program word is a top-level script of the
               repository (``tictactoe.py``, ``TakeStones``, ...) or ``engine`` for
               ``python3 -m engine``.
    stdin      optional: bytes fed to standard input (missing: empty input)
    files/     optional: files copied into the empty working folder before the run
    stdout     expected standard output, byte for byte (missing: must be empty)
    stderr     optional: expected standard error, byte for byte (missing: not checked)
    exit       optional: expected exit code (missing: 0)
    expected/  files that must exist after the run, byte for byte

After the run the working folder must hold exactly files/ plus expected/: a program that
leaves a stray or half-written file fails, and so does one that creates a file a case
says must not exist (e.g. the visited file after a terminal tic-tac-toe state).

:func:`load_case` / :func:`write_case` read and write that layout, :func:`run_reference`
runs one of the repository's own programs on a case, :func:`compare` lists every way an
:class:`Outcome` differs from the case, and :func:`replay` does all three.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, NamedTuple, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent.parent


class Case(NamedTuple):
    """One case. ``files`` and ``expected`` map relative paths to bytes."""
    name: str
    program: str
    args: Tuple[str, ...]
    stdin: bytes = b""
    files: Dict[str, bytes] = {}
    stdout: bytes = b""
    stderr: Optional[bytes] = None
    exit: int = 0
    expected: Dict[str, bytes] = {}


class Outcome(NamedTuple):
    """What a run did: its exit code (None when it was killed), its output streams, and
    every file of its working folder afterwards (relative path -> bytes)."""
    exit: Optional[int]
    stdout: bytes
    stderr: bytes
    files: Dict[str, bytes]


def snapshot(folder):
    """{relative path: bytes} of every file under ``folder`` (POSIX separators)."""
    folder = Path(folder)
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _optional_bytes(path):
    return path.read_bytes() if path.exists() else None


def load_case(folder):
    """The :class:`Case` stored in ``folder``. Raises ValueError on an empty ``cmd``."""
    folder = Path(folder)
    words = (folder / "cmd").read_text().split()
    if not words:
        raise ValueError(f"{folder}: empty cmd")
    exit_text = _optional_bytes(folder / "exit")
    return Case(
        name=folder.name, program=words[0], args=tuple(words[1:]),
        stdin=_optional_bytes(folder / "stdin") or b"",
        files=snapshot(folder / "files") if (folder / "files").is_dir() else {},
        stdout=_optional_bytes(folder / "stdout") or b"",
        stderr=_optional_bytes(folder / "stderr"),
        exit=int(exit_text) if exit_text is not None else 0,
        expected=snapshot(folder / "expected") if (folder / "expected").is_dir() else {})


def write_case(case, folder):
    """Store ``case`` in ``folder`` (created; files of the layout are overwritten).

    Only what differs from the defaults is written (no ``stdin`` file for empty input,
    no ``exit`` file for 0, ...), except ``stdout``, always written so that a reader sees
    that the expected output is empty.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cmd").write_text(" ".join((case.program,) + tuple(case.args)) + "\n")
    (folder / "stdout").write_bytes(case.stdout)
    if case.stdin:
        (folder / "stdin").write_bytes(case.stdin)
    if case.stderr is not None:
        (folder / "stderr").write_bytes(case.stderr)
    if case.exit != 0:
        (folder / "exit").write_text(f"{case.exit}\n")
    for subfolder, contents in (("files", case.files), ("expected", case.expected)):
        for name, data in contents.items():
            path = folder / subfolder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def prepare(case, workdir):
    """Copy the case's input files into the (empty) folder ``workdir``."""
    for name, data in case.files.items():
        path = Path(workdir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def reference_command(case, python=None, repo=REPO):
    """The argv that runs the case with the repository's own program under ``python``."""
    python = python or sys.executable
    if case.program == "engine":
        return [python, "-m", "engine"] + list(case.args)
    return [python, str(Path(repo) / case.program)] + list(case.args)


def run_reference(case, workdir, python=None, timeout=600, repo=REPO):
    """Run the repository's program on ``case`` in ``workdir``; return its Outcome.

    The working folder gets the case's input files first; PYTHONPATH points at ``repo``
    so that ``-m engine`` works from any folder, and hash randomisation stays on so that
    nothing may depend on set or dict order of strings.
    """
    prepare(case, workdir)
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONHASHSEED="random")
    completed = subprocess.run(reference_command(case, python, repo), cwd=workdir,
                               input=case.stdin, capture_output=True, timeout=timeout,
                               env=env)
    return Outcome(completed.returncode, completed.stdout, completed.stderr,
                   snapshot(workdir))


def compare(case, outcome):
    """Every way ``outcome`` differs from ``case``, as short sentences (empty: it passed)."""
    problems = []
    if outcome.exit != case.exit:
        problems.append(f"exit code {outcome.exit}, expected {case.exit}; "
                        f"stderr: {outcome.stderr[-500:]!r}")
    if outcome.stdout != case.stdout:
        problems.append(first_difference("stdout", outcome.stdout, case.stdout))
    if case.stderr is not None and outcome.stderr != case.stderr:
        problems.append(first_difference("stderr", outcome.stderr, case.stderr))
    wanted = dict(case.files, **case.expected)
    found = outcome.files
    for name in sorted(set(found) | set(wanted)):
        if name not in found:
            problems.append(f"file {name} missing")
        elif name not in wanted:
            problems.append(f"unexpected file {name} left behind")
        elif found[name] != wanted[name]:
            problems.append(first_difference(f"file {name}", found[name], wanted[name]))
    return problems


def replay(case, workdir, python=None, timeout=600):
    """Run ``case`` (a Case or a case folder) in the empty ``workdir``; list mismatches."""
    if not isinstance(case, Case):
        case = load_case(case)
    return compare(case, run_reference(case, workdir, python, timeout))


def first_difference(what, got, want):
    """A short description of where ``got`` first differs from ``want``."""
    got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
    for number, (line, expected) in enumerate(zip(got_lines, want_lines), 1):
        if line != expected:
            return f"{what}: line {number} is {line[:200]!r}, expected {expected[:200]!r}"
    return (f"{what}: {len(got_lines)} lines ({len(got)} bytes), "
            f"expected {len(want_lines)} lines ({len(want)} bytes)")
