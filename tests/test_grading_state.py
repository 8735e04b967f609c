"""Nothing of a run outlives it, and no run reaches a Unix socket by path or by name:
attacks run under every file fence this machine offers (with cgroups and a uid per run
as root, and without cgroups), each checked against the run that follows in the slot."""

import json
import os
import platform
import signal
import socket
import stat
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from grading_helpers import ISOLATIONS
from test_grading_unprivileged import NOBODY, as_nobody, place  # noqa: F401 - a fixture

from engine.sandbox import _seccomp as seccomp
from engine.sandbox import Limits, Sandbox

LIMITS = Limits(timeout=10.0, memory_mb=256, output_mb=2)
SEGMENT_MB = 160

# Leaves everything it can behind: a System V segment (touched, so its pages are charged
# to the slot), a semaphore set, a message queue holding a message, a POSIX message queue
# and files in the machine's shared temporary folders. Says what it managed.
LEAVER = f"""\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
libc.shmat.restype = ctypes.c_void_p
KEY, SIZE = {{key}}, {SEGMENT_MB} << 20
said = []
shm = libc.shmget(KEY, SIZE, 0o1666)
if shm >= 0:
    address = libc.shmat(shm, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(address, 1, SIZE)
        said.append("shm")
if libc.semget(KEY, 1, 0o1666) >= 0:
    said.append("sem")
queue = libc.msgget(KEY, 0o1666)
if queue >= 0:
    message = ctypes.create_string_buffer(b"\\x01\\0\\0\\0\\0\\0\\0\\0count=1", 16)
    if libc.msgsnd(queue, message, 8, 0) == 0:
        said.append("msg")
rt.mq_open.restype = ctypes.c_int
if rt.mq_open(b"/{{name}}", os.O_CREAT | os.O_RDWR, 0o666, None) >= 0:
    said.append("mq")
else:
    said.append("mq refused: " + os.strerror(ctypes.get_errno()))
for folder in ("/run/lock", "/tmp", "/var/tmp", "/dev/shm"):
    try:
        with open(folder + "/{{name}}", "w") as handle:
            handle.write("count=1")
        said.append(folder)
    except OSError:
        pass
print(" ".join(said))
"""

# Looks for all of it, then allocates most of its memory limit (an honest student).
FINDER = f"""\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
KEY = {{key}}
found = []
if libc.shmget(KEY, 0, 0) >= 0:
    found.append("shm")
if libc.semget(KEY, 0, 0) >= 0:
    found.append("sem")
if libc.msgget(KEY, 0) >= 0:
    found.append("msg")
if rt.mq_open(b"/{{name}}", os.O_RDONLY) >= 0:
    found.append("mq")
for folder in ("/run/lock", "/tmp", "/var/tmp", "/dev/shm"):
    if os.path.lexists(folder + "/{{name}}"):
        found.append(folder)
print("FOUND " + " ".join(found))
block = bytearray({LIMITS.memory_mb - SEGMENT_MB // 2 - 60} << 20)
for index in range(0, len(block), 4096):
    block[index] = 1
print("allocated")
"""


def run_in(sandbox, name, text):
    """Run the Python program ``text`` as the kit runs a case: a cleared folder, a fresh
    uid, the files given to it."""
    sandbox.clear()
    Path(sandbox.folder, name).write_text(text)
    sandbox.renew()
    sandbox.give([name])
    return sandbox.run(["python3", name])


def _settings():
    return ([(isolation, None) for isolation in ISOLATIONS]
            + [(isolation, False) for isolation in ISOLATIONS])


def _ids():
    return [f"{isolation}-{'cgroup' if wanted is None else 'no-cgroup'}"
            for isolation, wanted in _settings()]


@pytest.mark.parametrize("isolation, cgroups_wanted", _settings(), ids=_ids())
def test_nothing_a_run_leaves_reaches_the_next_run_in_its_slot(isolation, cgroups_wanted):
    key = 0x5EED0000 + (os.getpid() & 0xFFFF)
    name = f"leftover-{uuid.uuid4().hex[:8]}"
    sandbox = Sandbox(LIMITS, 0, isolation, cgroups_wanted=cgroups_wanted)
    try:
        first = run_in(sandbox, "leaver.py", LEAVER.format(key=key, name=name))
        assert first.exit == 0, first.stderr
        left = first.stdout.decode().split()
        for _ in range(3):
            second = run_in(sandbox, "finder.py", FINDER.format(key=key, name=name))
            assert second.stdout.decode().split("\n")[0].strip() == "FOUND", (
                left, second.stdout)
            # The next, honest student has its whole memory limit.
            assert second.ended == "exited" and second.exit == 0, (
                left, second.ended, second.stderr[-300:])
    finally:
        sandbox.close()
        for folder in ("/run/lock", "/tmp", "/var/tmp", "/dev/shm"):
            if os.path.lexists(f"{folder}/{name}"):
                os.unlink(f"{folder}/{name}")


# Tries every way to a Unix socket listening outside the run; says which calls failed how.
KNOCKER = """\
import socket, sys
PATH, NAME = sys.argv[1], sys.argv[2]
said = []
def attempt(label, action):
    try:
        action()
        said.append(label + ":sent")
    except OSError as error:
        said.append(label + ":" + (error.strerror or str(error)).replace(" ", "_"))
def stream(address):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(address)
        s.sendall(b"knock")
def datagram(address):
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.sendto(b"knock", address)
def pair_datagram(address):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b"knock", address)
def pair_connect(address):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    a.connect(address)
    a.sendall(b"knock")
for label, address in (("path", PATH + ".s"), ("abstract", "\\0" + NAME + ".s")):
    attempt(label + "-stream", lambda: stream(address))
    attempt(label + "-pair-connect", lambda: pair_connect(address))
for label, address in (("path", PATH + ".d"), ("abstract", "\\0" + NAME + ".d")):
    attempt(label + "-dgram", lambda: datagram(address))
    attempt(label + "-pair-dgram", lambda: pair_datagram(address))
a, b = socket.socketpair()
a.sendall(b"x")
said.append("pair:" + b.recv(1).decode())
print(" ".join(said))
"""


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_no_run_reaches_a_unix_socket_by_path_or_by_name(isolation, tmp_path):
    folder = tempfile.mkdtemp(prefix="listeners-", dir="/tmp")
    os.chmod(folder, 0o777)
    name = f"listener-{uuid.uuid4().hex[:8]}"
    path = os.path.join(folder, name)
    listeners = []
    try:
        for address in (path + ".s", "\0" + name + ".s"):
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(address)
            listener.listen(8)
            listener.setblocking(False)
            listeners.append(listener)
        for address in (path + ".d", "\0" + name + ".d"):
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            listener.bind(address)
            listener.setblocking(False)
            listeners.append(listener)
        for suffix in (".s", ".d"):
            os.chmod(path + suffix, 0o777)
        sandbox = Sandbox(LIMITS, 0, isolation)
        try:
            sandbox.clear()
            Path(sandbox.folder, "knocker.py").write_text(KNOCKER)
            sandbox.renew()
            sandbox.give(["knocker.py"])
            result = sandbox.run(["python3", "knocker.py", path, name])
        finally:
            sandbox.close()
        said = result.stdout.decode().split()
        assert "pair:x" in said, (said, result.stderr)       # socketpair stays allowed
        assert not [word for word in said if word.endswith(":sent")], said
        # Every isolation carries the filter where it exists, bwrap too (bwrap installs
        # it after its own setup): the refusals below are seccomp's, not a namespace's.
        assert ("seccomp" in result.fences) == seccomp.supported(), result.fences
        if "seccomp" in result.fences:
            # Refused by the filter: the program is told, nothing is killed.
            assert all(word.endswith(("Operation_not_permitted",))
                       for word in said if not word.startswith("pair:")), said
        received = []
        for listener in listeners:
            try:
                if listener.type == socket.SOCK_STREAM:
                    received.append(listener.accept())
                else:
                    received.append(listener.recv(64))
            except BlockingIOError:
                pass
        assert received == [], (said, received)
    finally:
        for listener in listeners:
            listener.close()
        for suffix in (".s", ".d"):
            if os.path.lexists(path + suffix):
                os.unlink(path + suffix)
        os.rmdir(folder)


def _thread_runs():
    import threading
    ran = []
    thread = threading.Thread(target=lambda: ran.append(True))
    thread.start()
    thread.join()
    return bool(ran)


def test_the_filter_refuses_unix_sockets_and_ipc_and_allows_pairs():
    """The filter's decisions, one call at a time, in a thread of our own."""
    if not seccomp.supported():
        pytest.skip("no seccomp filter for this machine")
    import threading
    outcome = {}

    def probe():
        seccomp.restrict_thread(deny_ipc=True)
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for label, family, kind in (("unix", socket.AF_UNIX, socket.SOCK_STREAM),
                                    ("inet", socket.AF_INET, socket.SOCK_STREAM)):
            try:
                socket.socket(family, kind).close()
                outcome[label] = "made"
            except OSError as error:
                outcome[label] = error.errno
        a, b = socket.socketpair()
        outcome["pair"] = "made"
        a.close()
        b.close()
        outcome["shmget"] = (libc.shmget(0, 4096, 0o1600), ctypes.get_errno())
        libc.syscall.restype = ctypes.c_long
        numbers = seccomp._ARCHES[platform.machine()][1]
        outcome["clone3"] = (libc.syscall(ctypes.c_long(numbers["clone3"]), None,
                                          ctypes.c_size_t(0)), ctypes.get_errno())
        # clone(CLONE_NEWUSER | SIGCHLD) as fork would: a child that leaves at once.
        child = libc.syscall(ctypes.c_long(numbers["clone"]),
                             ctypes.c_ulong(0x10000000 | signal.SIGCHLD), None, None, None,
                             None)
        if child == 0:
            os._exit(0)
        outcome["clone-newuser"] = (child, ctypes.get_errno())
        if child > 0:
            os.waitpid(child, 0)
        pid = os.fork()                      # a plain fork (clone) still works
        if pid == 0:
            os._exit(7)
        outcome["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        outcome["thread"] = _thread_runs()
    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    import errno
    assert outcome == {"unix": errno.EPERM, "inet": errno.EAFNOSUPPORT, "pair": "made",
                       "shmget": (-1, errno.EPERM), "clone3": (-1, errno.ENOSYS),
                       "clone-newuser": (-1, errno.EPERM), "fork": 7, "thread": True}
    assert stat.S_ISDIR(os.stat("/").st_mode)        # this thread is untouched


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")
def test_memory_an_earlier_run_left_charged_is_not_held_against_the_next(tmp_path):
    # A world-writable folder on a tmpfs that some user left open: without a file fence a
    # run can park 150 MB there, out of the kit's sweeps, still charged to the slot.
    from engine.sandbox import _cgroups as cgroups
    if not cgroups.available():
        pytest.skip("no cgroups here")
    folder = tempfile.mkdtemp(prefix="open-", dir="/dev/shm")
    os.chmod(folder, 0o777)
    parker = (f"for part in range(3):\n"
              f"    open({folder + '/parked'!r} + str(part), 'wb').write(b'x' * (55 << 20))\n"
              "print('parked')\n")
    sandbox = Sandbox(LIMITS, 0, "rlimits")
    try:
        first = run_in(sandbox, "parker.py", parker)
        assert first.stdout == b"parked\n", first.stderr
        second = run_in(sandbox, "finder.py", FINDER.format(key=1, name="none"))
        assert second.ended == "exited" and second.exit == 0, second.stderr[-300:]
        assert second.memory < (LIMITS.memory_mb << 20)
    finally:
        sandbox.close()
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)


# The same attacks with the kit run by user nobody (no uid per run, no cgroup): the run
# shares the kit's uid, so only the namespaces (bwrap) or seccomp (with Landlock) stand.
DRIVER = """\
import json, os, socket, sys
from pathlib import Path
from engine.sandbox import Limits, Sandbox
isolation, key, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
programs = {p.stem: p.read_text() for p in Path("programs").iterdir()}
report = {}
sandbox = Sandbox(Limits(timeout=10.0, memory_mb=256, output_mb=2), 0, isolation)
def run(label, text, *arguments):
    sandbox.clear()
    Path(sandbox.folder, label + ".py").write_text(text)
    sandbox.renew()
    sandbox.give([label + ".py"])
    return sandbox.run(["python3", label + ".py"] + list(arguments))
try:
    report["fences"] = list(sandbox.fences)
    report["left"] = run("leaver", programs["leaver"]).stdout.decode()
    finder = run("finder", programs["finder"])
    report["found"] = finder.stdout.decode().split("\\n")[0].strip()
    report["finder"] = [finder.ended, finder.exit]
    path = os.path.abspath(name)
    listeners = []
    for address, kind in ((path + ".s", socket.SOCK_STREAM),
                          ("\\0" + name + ".s", socket.SOCK_STREAM),
                          (path + ".d", socket.SOCK_DGRAM),
                          ("\\0" + name + ".d", socket.SOCK_DGRAM)):
        listener = socket.socket(socket.AF_UNIX, kind)
        listener.bind(address)
        if kind == socket.SOCK_STREAM:
            listener.listen(8)
        listener.setblocking(False)
        listeners.append(listener)
    report["said"] = run("knocker", programs["knocker"], path, name).stdout.decode().split()
    received = 0
    for listener in listeners:
        try:
            listener.accept() if listener.type == socket.SOCK_STREAM else listener.recv(64)
            received += 1
        except BlockingIOError:
            pass
    report["received"] = received
finally:
    sandbox.close()
print(json.dumps(report))
"""


@pytest.mark.parametrize("isolation", [name for name in ISOLATIONS if name != "rlimits"])
def test_an_ordinary_users_kit_keeps_runs_apart_too(place, isolation):  # noqa: F811
    key = 0x5EED1000 + (os.getpid() & 0xFFF)
    name = f"nobody-{uuid.uuid4().hex[:8]}"
    programs = place / "programs"
    programs.mkdir()
    (programs / "leaver.py").write_text(LEAVER.format(key=key, name=name))
    (programs / "finder.py").write_text(FINDER.format(key=key, name=name))
    (programs / "knocker.py").write_text(KNOCKER)
    (place / "driver.py").write_text(DRIVER)
    for path in place.rglob("*"):
        os.chown(path, NOBODY, NOBODY)
    try:
        completed, _ = as_nobody(["driver.py", isolation, str(key), name], place)
        assert completed.returncode == 0, completed.stderr
        report = json.loads(completed.stdout)
        assert isolation in report["fences"] and "uid" not in report["fences"]
        assert report["found"] == "FOUND", report
        assert report["finder"] == ["exited", 0], report
        assert "pair:x" in report["said"], report
        assert not [word for word in report["said"] if word.endswith(":sent")], report
        assert report["received"] == 0, report
        # Under bwrap too, without root: bwrap installs the filter after its setup.
        assert ("seccomp" in report["fences"]) == seccomp.supported(), report
        if seccomp.supported():
            assert all(word.endswith("Operation_not_permitted")
                       for word in report["said"] if not word.startswith("pair:")), report
    finally:
        for folder in ("/run/lock", "/tmp", "/var/tmp", "/dev/shm"):
            if os.path.lexists(f"{folder}/{name}"):
                os.unlink(f"{folder}/{name}")
        for flag in ("-M", "-S", "-Q"):
            subprocess.run(["ipcrm", flag, str(key)], capture_output=True)
