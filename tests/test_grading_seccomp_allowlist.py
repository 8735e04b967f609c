"""The seccomp allowlist of CPython, PyPy and native runs, chosen per command: under
bwrap the filter bwrap installs, under Landlock and rlimits the slot's allowlist launcher
thread's (as root and not); the denylist kept for the JVM, shells and builds: our own
programs still give their golden outputs under it, a call off the list fails with EPERM,
and the numbers of the list are the kernel headers' where the headers are here."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from golden import REPO

from engine.sandbox import (IsolationError, Limits, Sandbox, syscall_filter_name,
                            syscall_filters)
from engine.sandbox import _seccomp as seccomp
from engine.sandbox._bubblewrap import bwrap_works
from engine.sandbox._landlock import landlock_works
from engine.sandbox._seccomp import syscall_filter
from engine.sandbox.untrusted_files import open_folder
from thoroughness import THOROUGH

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
    # The exec chain's calls (setpriv's), allowed where the launcher holds the chain.
    assert list(seccomp._CHAIN_NUMBERS[machine]) == [numbers[name]
                                                     for name in seccomp.CHAIN]
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
# Calls personality(0xffffffff): a harmless query the denylist lets through and the
# allowlist does not; prints what it answered.
PERSONALITY_PY = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                  "print(libc.personality(0xffffffff), os.strerror(ctypes.get_errno()))\n")
EPERM_LINE = b"-1 Operation not permitted\n"


def _isolation_or_skip(isolation):
    if not seccomp.allowlist_supported():
        pytest.skip(f"no allowlist for {os.uname().machine}")
    if isolation == "bwrap" and not bwrap_works():
        pytest.skip("bwrap cannot run here")
    if isolation == "landlock" and not landlock_works():
        pytest.skip("no Landlock in this kernel")


@pytest.fixture
def sandbox():
    _isolation_or_skip("bwrap")
    box = Sandbox(Limits(timeout=30, memory_mb=1024), 0, "bwrap")
    yield box
    box.close()


@pytest.fixture(params=["bwrap", "landlock", "rlimits"])
def any_sandbox(request):
    """A sandbox under each file fence (or none), its filter chosen per command."""
    _isolation_or_skip(request.param)
    box = Sandbox(Limits(timeout=30, memory_mb=1024), 0, request.param)
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


def test_a_native_call_off_the_list_gets_eperm(any_sandbox):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    result = _run(any_sandbox, {"hostile.c": HOSTILE_C}, ["./hostile"],
                  build=["gcc", "-O2", "-o", "hostile", "hostile.c"])
    assert result.syscalls == "allowlist" and "seccomp" in result.fences
    assert result.ended == "exited" and result.exit == 0, result.stderr
    assert result.stdout == b"personality Operation not permitted\ngetpid answered\n"


def test_python_calls_off_the_list_get_eperm(any_sandbox):
    for interpreter in ("python3", "pypy3"):
        if shutil.which(interpreter) is None:
            continue
        result = _run(any_sandbox, {"p.py": PERSONALITY_PY}, [interpreter, "p.py"])
        assert result.syscalls == "allowlist", interpreter
        assert "seccomp" in result.fences
        assert result.ended == "exited" and result.exit == 0, (interpreter, result)
        assert result.stdout == EPERM_LINE, (interpreter, result)
    # The same call from a shell's child: the denylist, which lets it through.
    shell = _run(any_sandbox, {"p.py": PERSONALITY_PY}, ["sh", "-c", "python3 p.py"])
    assert shell.syscalls == "denylist"
    assert shell.stdout == b"0 Success\n", shell


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root (to become nobody) and setpriv")
@pytest.mark.parametrize("isolation", ["landlock", "rlimits"])
def test_without_root_python_calls_off_the_list_get_eperm(isolation, tmp_path):
    # The kit run by an ordinary user: no uid per run, no cgroup, no setpriv in the
    # chain; the allowlist launcher thread still holds the python run.
    _isolation_or_skip(isolation)
    for folder in [REPO] + list(REPO.parents):
        if folder.stat().st_uid != 65534 and not folder.stat().st_mode & 0o001:
            pytest.skip(f"user nobody cannot reach {REPO}")
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 65534, 65534)
    tmp_path.chmod(0o755)
    script = (
        "import json, os, sys\n"
        "from engine.sandbox import Limits, Sandbox\n"
        f"box = Sandbox(Limits(timeout=10), 0, {isolation!r})\n"
        "try:\n"
        "    box.clear()\n"
        f"    open(os.path.join(box.folder, 'p.py'), 'w').write({PERSONALITY_PY!r})\n"
        "    runs = [box.run(argv) for argv in (['python3', 'p.py'],\n"
        "                                       ['sh', '-c', 'python3 p.py'])]\n"
        "    print(json.dumps([box.isolation] + [[run.syscalls, run.exit,\n"
        "                      run.stdout.decode()] for run in runs]))\n"
        "finally:\n"
        "    box.close()\n")
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
         sys.executable, "-c", script], cwd=str(home), capture_output=True, text=True,
        timeout=120, env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home),
                          "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stderr
    isolation_word, allowed, denied = json.loads(done.stdout)
    assert "uid" not in isolation_word and "seccomp" in isolation_word
    assert allowed == ["allowlist", 0, EPERM_LINE.decode()]
    assert denied == ["denylist", 0, "0 Success\n"]


def test_a_compiled_c_program_runs_under_the_allowlist(any_sandbox):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    result = _run(any_sandbox, {"sum.c": SUM_C}, ["./sum", "40", "2"],
                  build=["gcc", "-O2", "-o", "sum", "sum.c"])
    assert result.syscalls == "allowlist"
    assert (result.ended, result.exit, result.stdout) == ("exited", 0, b"42\n"), result


@pytest.mark.parametrize("interpreter", ["python3", "pypy3"])
def test_tictactoe_gives_its_golden_outputs_under_the_allowlist(any_sandbox, interpreter):
    if shutil.which(interpreter) is None:
        pytest.skip(f"no {interpreter}")
    for case in ("case001", "case003", "case005"):
        folder = REPO / "fixtures" / "tictactoe" / case
        args = (folder / "cmd").read_text().split()[1:]
        result = _run(any_sandbox, {"tictactoe.py": REPO / "tictactoe.py"},
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
    # Each case builds the launcher again (4 s): the second under make test-all only.
    for case in ((1, 3) if THOROUGH else (1,)):
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


# Tries a TCP socket (the denylist and the allowlist refuse it: EAFNOSUPPORT) and
# personality (only the allowlist refuses it).
PROBE_PY = ("import ctypes, os, socket\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "try:\n    socket.socket()\n    print('socket made')\n"
            "except OSError as error:\n    print('socket', os.strerror(error.errno))\n"
            "print(libc.personality(0xffffffff), os.strerror(ctypes.get_errno()))\n")


@pytest.mark.parametrize("isolation", ["bwrap", "landlock", "rlimits"])
def test_without_the_allowlists_numbers_every_run_gets_the_denylist(monkeypatch,
                                                                    isolation):
    # An architecture with the denylist's numbers but not the allowlist's: python falls
    # back to the denylist (never to no filter), under every file fence.
    _isolation_or_skip(isolation)
    monkeypatch.delitem(seccomp._ALLOWED_NUMBERS, os.uname().machine)
    assert seccomp.supported() and not seccomp.allowlist_supported()
    box = Sandbox(Limits(timeout=30), 0, isolation)
    try:
        result = _run(box, {"p.py": PROBE_PY}, ["python3", "p.py"])
    finally:
        box.close()
    assert "seccomp" in result.fences and result.syscalls == "denylist"
    assert result.stdout == (b"socket Address family not supported by protocol\n"
                             b"0 Success\n"), result


@pytest.mark.parametrize("isolation", ["bwrap", "landlock", "rlimits"])
def test_an_unknown_architecture_runs_without_a_filter_and_says_so(monkeypatch,
                                                                    isolation):
    _isolation_or_skip(isolation)
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    assert not seccomp.supported()
    box = Sandbox(Limits(timeout=30), 0, isolation)
    try:
        result = _run(box, {"p.py": PROBE_PY}, ["python3", "p.py"])
    finally:
        box.close()
    assert "seccomp" not in result.fences and result.syscalls is None
    assert syscall_filters([syscall_filter_name(result.syscalls)]) == \
        "no seccomp filter (1 run)"
    assert result.exit == 0 and result.stdout.endswith(b"\n0 Success\n"), result
    with pytest.raises(IsolationError, match="no seccomp filter for this machine"):
        Sandbox(Limits(timeout=30), 0, isolation + "+seccomp")


def test_an_unknown_architecture_has_no_allowlist(monkeypatch):
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    assert not seccomp.allowlist_supported()
    assert syscall_filter(["python3", "a.py"], None) == "denylist"


def test_without_bwrap_a_shell_keeps_the_launchers_denylist():
    box = Sandbox(Limits(timeout=10), 0, "rlimits")
    try:
        box.clear()
        box.give()
        shell = box.run(["sh", "-c", "echo 1"])
        python = box.run(["python3", "-c", "print(1)"])
    finally:
        box.close()
    assert shell.syscalls == ("denylist" if seccomp.supported() else None)
    assert python.syscalls == ("allowlist" if seccomp.allowlist_supported() else
                               shell.syscalls)
    assert shell.stdout == python.stdout == b"1\n"
