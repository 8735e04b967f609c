"""`java TakeStones ...`: the Java launcher built by `make TakeStones.class`.

Skipped with a reason when no JDK is installed. The launcher must run the Python program
beside its class file with the same arguments, stream the same stdout and return the same
exit code.
"""

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The official samples, as copied into the golden fixtures (shared/ may not be beside us).
SAMPLES = REPO / "fixtures" / "take_stones"

pytestmark = pytest.mark.skipif(
    shutil.which("javac") is None or shutil.which("java") is None,
    reason="no JDK (javac/java) installed: the Java launcher cannot be built or run")


@pytest.fixture(scope="module")
def launcher():
    """Build TakeStones.class in the repository with the make target users run. Under
    pytest-xdist each worker asks for it: a lock on the Java source makes the first
    build it and the others wait, then find it up to date (never a half-written class)."""
    with open(REPO / "engine" / "programs" / "take_stones" / "TakeStones.java", "rb") as source:
        fcntl.flock(source, fcntl.LOCK_EX)
        completed = subprocess.run(["make", "-s", "TakeStones.class"], cwd=REPO,
                                   capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert (REPO / "TakeStones.class").is_file()
    return REPO / "TakeStones.class"


def java(args, cwd=REPO, env=None):
    """Run the graders' literal command ``java TakeStones ARGS`` in ``cwd``."""
    environment = dict(os.environ, TAKESTONES_PYTHON=sys.executable)
    environment.update(env or {})
    return subprocess.run(["java", "TakeStones"] + args, cwd=cwd, capture_output=True,
                          env=environment, timeout=120)


@pytest.mark.parametrize("case", range(1, 6))
def test_official_samples_through_java(launcher, case):
    args = (SAMPLES / f"official_case{case}" / "cmd").read_text().split()[1:]
    completed = java(args)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == (SAMPLES / f"official_case{case}" / "stdout").read_bytes()


def test_same_stdout_stderr_and_exit_as_the_python_program(launcher):
    for args in (["7", "x", "0"], ["7", "3", "1", "2", "4", "0"], ["12", "0", "4"]):
        through_java = java(args)
        direct = subprocess.run([sys.executable, str(REPO / "TakeStones")] + args,
                                cwd=REPO, capture_output=True)
        assert (through_java.returncode, through_java.stdout, through_java.stderr) == \
            (direct.returncode, direct.stdout, direct.stderr)


def test_exit_code_is_passed_through(launcher, tmp_path):
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho \"args: $*\"\nexit 3\n")
    fake.chmod(0o755)
    completed = java(["5", "0", "0"], env={"TAKESTONES_PYTHON": str(fake)})
    assert completed.returncode == 3
    assert completed.stdout == f"args: {REPO / 'TakeStones'} 5 0 0\n".encode()


def test_class_path_from_another_folder(launcher, tmp_path):
    completed = subprocess.run(["java", "-cp", str(REPO), "TakeStones", "7", "0", "3"],
                               cwd=tmp_path, capture_output=True,
                               env=dict(os.environ, TAKESTONES_PYTHON=sys.executable))
    assert completed.returncode == 0
    assert completed.stdout == (SAMPLES / "official_case2" / "stdout").read_bytes()


def test_missing_python_program_is_one_clear_error(launcher, tmp_path):
    shutil.copy(launcher, tmp_path / "TakeStones.class")
    completed = java(["7", "0", "3"], cwd=tmp_path)
    assert completed.returncode == 2 and completed.stdout == b""
    assert b"is missing" in completed.stderr and completed.stderr.count(b"\n") == 1


def test_missing_interpreter_is_one_clear_error(launcher):
    completed = java(["7", "0", "3"], env={"TAKESTONES_PYTHON": "/nonexistent/python"})
    assert completed.returncode == 2 and completed.stdout == b""
    assert completed.stderr.startswith(b"TakeStones: cannot run /nonexistent/python")
