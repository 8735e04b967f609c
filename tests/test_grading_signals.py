"""The kit signals a run's process only once it is sure the pid is still the run's.

A pid read from a list (a cgroup's members, a uid's processes, a run's descendants) may
end and be given to another process before the signal leaves: beside a fork bomb pids
wrap around in seconds, and the new owner can be a thread of the kit itself or another
test worker. Each pid is pinned by a pidfd and signalled only if a second look still
lists it (engine.sandbox._processes.signal_confirmed). Here a "stale" list names a
stranger, which must survive, whichever way the kit kills: cgroup v1, cgroup v2 without
cgroup.kill, a stale group of a dead kit, or stop-and-kill by uid or descent.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from engine.sandbox import _cgroups as cgroups, _processes as processes
from engine.sandbox._processes import signal_confirmed, stop_and_kill


def _sleeper():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield process
    process.kill()
    process.wait()


# A process of no run (it merely got a pid a run's list held), and one of a run.
stranger = pytest.fixture(_sleeper, name="stranger")
member = pytest.fixture(_sleeper, name="member")


def ended(process, within=10.0):
    deadline = time.monotonic() + within
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return process.poll() is not None


def alive(process):
    time.sleep(0.05)
    return process.poll() is None and processes.is_running(process.pid)


@pytest.fixture(params=["pidfd", "kill"])
def way(request, monkeypatch):
    """With pidfds (the pid pinned), and without (kernels before 5.3, or Python 3.8
    where the system call is refused): both never signal a pid the second look lacks."""
    monkeypatch.setattr(processes, "_PIDFDS", [True] if request.param == "pidfd" else [False])
    return request.param


def test_a_pid_no_longer_listed_is_never_signalled(stranger, member, way):
    looks = iter([[member.pid]])
    sent = signal_confirmed([stranger.pid, member.pid], signal.SIGKILL,
                            lambda: next(looks))
    assert sent == [member.pid]
    assert ended(member) and alive(stranger)


def test_the_pinned_process_is_the_one_signalled(member):
    """The second look lists the pid; the signal goes through the pidfd taken before it."""
    looks = []
    def find():
        looks.append(processes._PIDFDS[:])
        return [member.pid]
    assert signal_confirmed([member.pid], signal.SIGTERM, find) == [member.pid]
    assert ended(member) and member.returncode == -signal.SIGTERM
    assert looks == [[True]]       # pidfds work on this machine (Linux 5.3+)


def test_stop_and_kill_spares_a_pid_that_changed_hands(stranger):
    """The first look lists a pid whose run process has ended; the stranger that holds
    the pid now is neither stopped nor killed."""
    looks = iter([[stranger.pid]])
    stop_and_kill(lambda: next(looks, []), patience=2.0)
    assert alive(stranger)
    with open(f"/proc/{stranger.pid}/stat", "rb") as handle:
        assert handle.read().rsplit(b")", 1)[1].split()[0] != b"T"   # not stopped


@pytest.mark.parametrize("version", [1, 2])
def test_a_group_kill_spares_a_pid_that_left_the_group(stranger, version, tmp_path,
                                                       monkeypatch):
    """cgroup v1 kill_all, and v2's where cgroup.kill is missing (before Linux 5.14)."""
    if version == 1:
        group = cgroups.SlotGroup.__new__(cgroups.SlotGroup)
        group.folders = {}                 # no freezer
    else:
        group = cgroups.SlotGroupV2.__new__(cgroups.SlotGroupV2)
        group.folder = str(tmp_path)       # no cgroup.kill file: the loop kills one by one
        monkeypatch.setattr(group, "_file", lambda name, value: (_ for _ in ()).throw(
            OSError(2, "no such file")))
    looks = iter([[stranger.pid]])
    monkeypatch.setattr(group, "processes", lambda: next(looks, []))
    assert group.kill_all(patience=2.0)
    assert alive(stranger)


def test_a_stale_group_of_a_dead_kit_spares_pids_that_left_it(stranger, monkeypatch,
                                                              tmp_path):
    """remove_stale_groups reads a dead kit's group and kills what is in it: a pid
    listed once but gone from the group when the signal would leave is spared."""
    parent = tmp_path / "memory"
    dead = 4_194_305                               # above any pid_max: never alive
    group = parent / f"{cgroups.GROUP_PREFIX}{dead}-s0"
    group.mkdir(parents=True)
    procs = group / "cgroup.procs"
    procs.write_text(f"{stranger.pid}\n")
    reads = []
    real = cgroups._listed_pids
    def listed(path):
        reads.append(path)
        found = real(path)
        procs.write_text("")                       # the run ended: its pid is gone
        return found
    monkeypatch.setattr(cgroups, "_listed_pids", listed)
    monkeypatch.setattr(cgroups, "_parent_folders", lambda: {"memory": str(parent)})
    monkeypatch.setattr(cgroups, "v2_parent", lambda: None)
    monkeypatch.setattr(os, "rmdir", lambda path: None)
    cgroups.remove_stale_groups()
    assert len(reads) >= 2 and alive(stranger)


def test_pidfds_work_through_the_system_calls_where_python_lacks_them(member, stranger,
                                                                       monkeypatch):
    """Python 3.8 has neither os.pidfd_open nor signal.pidfd_send_signal: the kit makes
    the two system calls itself."""
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    monkeypatch.delattr(signal, "pidfd_send_signal", raising=False)
    monkeypatch.setattr(processes, "_PIDFDS", [])
    opened = []
    real = processes._libc_call
    monkeypatch.setattr(processes, "_libc_call",
                        lambda number, *rest: opened.append(number) or real(number, *rest))
    looks = iter([[member.pid]])
    assert signal_confirmed([member.pid, stranger.pid], signal.SIGKILL,
                            lambda: next(looks)) == [member.pid]
    assert ended(member) and alive(stranger)
    assert sorted(set(opened)) == [processes._PIDFD_SEND_SIGNAL, processes._PIDFD_OPEN]
    assert processes._PIDFDS == [True]
