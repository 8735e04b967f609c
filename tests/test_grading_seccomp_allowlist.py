"""The seccomp allowlist of CPython, PyPy and native runs under bwrap (the filter bwrap
installs, chosen per command), and the denylist kept for the JVM and builds: our own
programs still give their golden outputs under it, a call off the list fails with EPERM,
and the numbers of the list are the kernel headers' where the headers are here."""

import os
import re
import shutil
import sys

import pytest

from golden import REPO

from engine.grading import seccomp
from engine.grading.fences import bwrap_works
from engine.grading.sandbox import Limits, Sandbox, syscall_filter
from engine.grading.untrusted_files import open_folder

SAMPLES = REPO / "fixtures" / "take_stones"
HEADERS = {"x86_64": "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
           "aarch64": "/usr/include/asm-generic/unistd.h"}

# Calls personality(0xffffffff) (a query, harmless, and not on the list) and getpid (on
# it); says what each answered.
HOSTILE_C = r"""
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    long r = syscall(SYS_personality, 0xffffffffL);
    printf("personality %s\n", r < 0 ? strerror(errno) : "answered");
    printf("getpid %s\n", syscall(SYS_getpid) > 0 ? "answered" : strerror(errno));
    return 0;
}
"""
# Adds its two arguments, writes the sum to a file and prints it back from the file.
SUM_C = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc != 3) return 2;
    FILE *out = fopen("sum.txt", "w");
    fprintf(out, "%ld\n", atol(argv[1]) + atol(argv[2]));
    fclose(out);
    char line[64];
    FILE *in = fopen("sum.txt", "r");
    if (!fgets(line, sizeof line, in)) return 3;
    fputs(line, stdout);
    return 0;
}
"""


def _numbers(machine):
    """{name: number} from this machine's kernel headers for ``machine``."""
    text = open(HEADERS[machine]).read()
    found = {name: int(number) for name, number in
             re.findall(r"#define __NR_(\w+) (\d+)", text)}
    for name, number in re.findall(r"#define __NR3264_(\w+) (\d+)", text):
        found.setdefault(name, int(number))
    if machine == "aarch64":
        found["newfstatat"] = found["fstatat"]
    return found


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_the_lists_numbers_are_the_kernel_headers(machine):
    if not os.path.exists(HEADERS[machine]):
        pytest.skip(f"no {HEADERS[machine]} here")
    numbers = _numbers(machine)
    expected = sorted(numbers[name] for name in seccomp.ALLOWED if name in numbers)
    assert sorted(seccomp._ALLOWED_NUMBERS[machine]) == expected
    # Nothing the denylist refuses outright is on the allowlist.
    refused = set(seccomp._ARCHES[machine][1]["never"]) | set(
        seccomp._ARCHES[machine][1]["ipc"])
    assert not refused & set(expected)


def test_the_filter_is_chosen_by_the_command(tmp_path):
    (tmp_path / "agent").write_bytes(b"\x7fELF" + b"\0" * 60)
    (tmp_path / "script").write_text("#!/bin/sh\nexec java Agent\n")
    os.symlink("/bin/true", tmp_path / "linked")
    folder_fd = open_folder(str(tmp_path))
    try:
        chosen = {" ".join(argv): syscall_filter(argv, folder_fd) for argv in (
            ["python3", "a.py"], ["python3.11", "a.py"], ["pypy3", "a.py"],
            ["/usr/bin/python3", "a.py"], ["./agent"], ["./script"], ["./linked"],
            ["./missing"], ["java", "Agent"], ["make", "run"], ["sh", "-c", "x"],
            ["g++", "a.cpp"], ["python3x"], [])}
    finally:
        os.close(folder_fd)
    allowed = {"python3 a.py", "python3.11 a.py", "pypy3 a.py", "/usr/bin/python3 a.py",
               "./agent"}
    if not seccomp.allowlist_supported():
        allowed = set()
    assert {argv for argv, name in chosen.items() if name == "allowlist"} == allowed


needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bwrap cannot run here")


@pytest.fixture
def sandbox():
    if not seccomp.allowlist_supported():
        pytest.skip(f"no allowlist for {os.uname().machine}")
    box = Sandbox(Limits(timeout=30, memory_mb=1024), 0, "bwrap")
    yield box
    box.close()


def _run(box, files, argv, folders=(), build=None):
    """Run ``argv`` in a fresh run folder holding ``files`` ({name: source path or
    text}) and ``folders`` (copied); ``build`` runs first in the same folder."""
    box.clear()
    for name, what in files.items():
        target = os.path.join(box.folder, name)
        if isinstance(what, str):
            with open(target, "w") as handle:
                handle.write(what)
        else:
            shutil.copy(what, target)
    for folder in folders:
        shutil.copytree(folder, os.path.join(box.folder, os.path.basename(folder)))
    box.renew()
    box.give(os.listdir(box.folder))
    if build is not None:
        built = box.run(build)
        assert built.ended == "exited" and built.exit == 0, built.stderr[-500:]
        assert built.syscalls == "denylist"
    return box.run(argv)


@needs_bwrap
def test_a_native_call_off_the_list_gets_eperm(sandbox):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    result = _run(sandbox, {"hostile.c": HOSTILE_C}, ["./hostile"],
                  build=["gcc", "-O2", "-o", "hostile", "hostile.c"])
    assert result.syscalls == "allowlist" and "seccomp" in result.fences
    assert result.ended == "exited" and result.exit == 0, result.stderr
    assert result.stdout == b"personality Operation not permitted\ngetpid answered\n"


@needs_bwrap
def test_python_calls_off_the_list_get_eperm(sandbox):
    program = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
               "print(libc.personality(0xffffffff), os.strerror(ctypes.get_errno()))\n")
    for interpreter in ("python3", "pypy3"):
        if shutil.which(interpreter) is None:
            continue
        result = _run(sandbox, {"p.py": program}, [interpreter, "p.py"])
        assert result.syscalls == "allowlist", interpreter
        assert result.stdout == b"-1 Operation not permitted\n", (interpreter, result)


@needs_bwrap
def test_a_compiled_c_program_runs_under_the_allowlist(sandbox):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    result = _run(sandbox, {"sum.c": SUM_C}, ["./sum", "40", "2"],
                  build=["gcc", "-O2", "-o", "sum", "sum.c"])
    assert result.syscalls == "allowlist"
    assert (result.ended, result.exit, result.stdout) == ("exited", 0, b"42\n"), result


@needs_bwrap
@pytest.mark.parametrize("interpreter", ["python3", "pypy3"])
def test_tictactoe_gives_its_golden_outputs_under_the_allowlist(sandbox, interpreter):
    if shutil.which(interpreter) is None:
        pytest.skip(f"no {interpreter}")
    for case in ("case001", "case003", "case005"):
        folder = REPO / "fixtures" / "tictactoe" / case
        args = (folder / "cmd").read_text().split()[1:]
        result = _run(sandbox, {"tictactoe.py": REPO / "tictactoe.py"},
                      [interpreter, "tictactoe.py"] + args, folders=[str(REPO / "engine")])
        assert result.syscalls == "allowlist"
        assert result.ended == "exited" and result.exit == 0, result.stderr[-500:]
        assert result.stdout == (folder / "stdout").read_bytes(), (case, result.stderr)


@needs_bwrap
@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK")
def test_java_take_stones_runs_under_the_denylist(sandbox):
    # The Java launcher, built in the sandbox, runs the Python program beside it: the
    # JVM (and so its child) keeps the denylist; python3 TakeStones gets the allowlist.
    source = REPO / "engine" / "programs" / "take_stones" / "TakeStones.java"
    for case in (1, 3):
        folder = SAMPLES / f"official_case{case}"
        args = (folder / "cmd").read_text().split()[1:]
        expected = (folder / "stdout").read_bytes()
        through_java = _run(sandbox, {"TakeStones.java": source,
                                      "TakeStones": REPO / "TakeStones"},
                            ["java", "TakeStones"] + args, folders=[str(REPO / "engine")],
                            build=["javac", "TakeStones.java"])
        assert through_java.syscalls == "denylist"
        assert through_java.exit == 0 and through_java.stdout == expected, \
            through_java.stderr[-500:]
        direct = _run(sandbox, {"TakeStones": REPO / "TakeStones"},
                      ["python3", "TakeStones"] + args, folders=[str(REPO / "engine")])
        assert direct.syscalls == "allowlist"
        assert direct.exit == 0 and direct.stdout == expected, direct.stderr[-500:]


def test_an_unknown_architecture_has_no_allowlist(monkeypatch):
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    assert not seccomp.allowlist_supported()
    assert syscall_filter(["python3", "a.py"], None) == "denylist"


def test_a_run_without_bwrap_keeps_the_launchers_denylist():
    box = Sandbox(Limits(timeout=10), 0, "rlimits")
    try:
        box.clear()
        box.give()
        result = box.run([sys.executable, "-c", "print(1)"])
    finally:
        box.close()
    assert result.syscalls == ("denylist" if seccomp.supported() else None)
