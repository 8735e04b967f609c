"""Control groups for sandbox slots: memory that counts everything, processes, a core, CPU.

A :class:`SlotGroup` is one cgroup per slot, created beside the kit's own, in which every
run of the slot is started (its first process writes 0, itself, into ``join_files``, see
:mod:`engine.sandbox`). The kernel then

* counts every page the run holds (anonymous memory, shared mappings, files it writes into
  a tmpfs such as /dev/shm or the workspace) against ``memory.limit_in_bytes``, and kills
  it when it goes over (the OOM killer of the group only);
* limits its processes and threads (``pids.max``);
* keeps it on one core (``cpuset.cpus``), so a neighbour cannot take that core;
* adds up the CPU time of every process that ran in it, killed ones included
  (``cpuacct.usage``);
* where the cpu controller is mounted, gives it a CPU weight above the machine's other
  work (``cpu.shares`` = :data:`CPU_SHARES`): on a busy machine a run waits less for its
  core, so the case takes less wall time (verdicts do not depend on it: time is charged
  as CPU time, and time spent waiting is not held against the wall-clock cap).

Both versions are used, chosen at run time (:func:`slot_group`): the cgroup v1
hierarchies (memory, pids, cpuacct, cpuset; freezer when present for an atomic kill, cpu
when present for the weight) where they hold the controllers, else the v2 hierarchy
(:class:`SlotGroupV2`: the same fences from its own files), and only where the kit may
create groups (usually as root). :func:`available` says whether that is the case; every
failure to set one up makes the fence unavailable, never an error. Under v2 the kit's own
group must offer memory, pids and cpu to its children: the root group does, and so does
a delegated group the kit was started in (``systemd-run --scope -p Delegate=yes``) as
long as no process sits in it beside the slot groups.
"""

import functools
import os
import signal
import time
from typing import Callable, Dict, Iterable, List, Optional, Tuple, Union

from ._processes import is_running, signal_confirmed

# A group counts as empty below this many bytes (the kernel's own bookkeeping pages);
# how long the start of a run waits for an earlier run's memory to be released.
DRAIN_BYTES = 1 << 20
DRAIN_SECONDS = 2.0
CONTROLLERS = ("memory", "pids", "cpuacct", "cpuset")
OPTIONAL_CONTROLLERS = ("freezer", "cpu")
# The weight of a slot's group against every other task and group beside it (each
# ordinary process weighs 1024): eight busy processes' worth, so that a run keeps most of
# its core beside a few busy neighbours without starving the machine.
CPU_SHARES = 8 * 1024
GROUP_PREFIX = "grade-"


def _mounts() -> Dict[str, Tuple[str, str]]:
    """{controller: (mount point, mount root)} of the cgroup v1 hierarchies."""
    found: Dict[str, Tuple[str, str]] = {}
    try:
        with open("/proc/self/mountinfo") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in lines:
        head, _, tail = line.partition(" - ")
        fields, kinds = head.split(), tail.split()
        if len(fields) < 5 or len(kinds) < 3 or kinds[0] != "cgroup":
            continue
        for option in kinds[2].split(","):
            found.setdefault(option, (fields[4], fields[3]))
    return found


def _own_paths() -> Dict[str, str]:
    """{controller: the path of our cgroup in its v1 hierarchy}."""
    found: Dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[1]:
            for controller in parts[1].split(","):
                found[controller] = parts[2]
    return found


def _parent_folders() -> Optional[Dict[str, str]]:
    """{controller: the folder of our own cgroup} for the controllers we use (the
    optional ones too when mounted in hierarchies of their own), or None when one of
    CONTROLLERS is missing."""
    mounts, own = _mounts(), _own_paths()
    folders: Dict[str, str] = {}
    for controller in CONTROLLERS + OPTIONAL_CONTROLLERS:
        if controller not in mounts or controller not in own:
            if controller in OPTIONAL_CONTROLLERS:
                continue
            return None
        point, root = mounts[controller]
        relative = own[controller]
        if root != "/" and relative.startswith(root):
            relative = relative[len(root):]
        folders[controller] = os.path.join(point, relative.lstrip("/"))
    return folders


def _write(path: str, value: Union[str, int]) -> None:
    with open(path, "w") as handle:
        handle.write(str(value))


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def _listed_pids(path: str) -> List[int]:
    """The pids a group's ``cgroup.procs`` at ``path`` lists ([] once it is gone)."""
    try:
        return [int(pid) for pid in _read(path).split()]
    except (OSError, ValueError):
        return []


_AVAILABLE: List[bool] = []


def _stat_value(path: str, key: str) -> int:
    """The value of ``key`` in a flat keyed file (memory.stat), 0 when missing."""
    try:
        for line in _read(path).splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _drain(usage: Callable[[], int], shmem: Callable[[], int], patience: float,
           floor: int = 0) -> Tuple[int, int]:
    """Wait up to ``patience`` seconds while the group's ``usage()`` keeps falling (the
    kernel frees a dead IPC namespace's objects, and uncharges pages, a moment after the
    last process is gone), stopping once it is under DRAIN_BYTES above ``floor`` or has
    not fallen for a few milliseconds; return ``(leftover, settled)``: ``shmem()``, the
    bytes that stay charged that no run can reclaim (tmpfs files, shared memory: there
    is no swap), or 0 under DRAIN_BYTES; and the usage the wait ended at.

    ``floor`` is where the previous drain settled: what stays charged from run to run
    (a build's byte code on a tmpfs, written in this group) is not waited for again,
    which would cost every case of a class about 14 ms of sleep.

    Page cache is left alone: a run's own memory pressure reclaims it, and dropping it
    (force_empty) would make every run read its files from disk again."""
    deadline = time.monotonic() + patience
    last = usage()
    delay = 0.002
    while last > floor + DRAIN_BYTES and time.monotonic() < deadline:
        time.sleep(delay)
        now = usage()
        if now >= last and delay >= 0.008:
            break
        if now >= last:
            delay *= 2
        last = now
    if last <= DRAIN_BYTES:
        return 0, last
    left = shmem()
    return (left if left > DRAIN_BYTES else 0), last


def available() -> bool:
    """True when slot groups can be created here, in either version (see
    :func:`slot_group`)."""
    return v1_available() or v2_available()


def v1_available() -> bool:
    """True when v1 slot groups can be created here (tried once, with a throw-away group,
    after removing the groups of kits that died without removing theirs)."""
    if not _AVAILABLE:
        remove_stale_groups()
        try:
            group = SlotGroup(f"probe-{os.getpid()}", cpu=None, memory_bytes=64 << 20,
                              processes=4)
            group.remove()
            _AVAILABLE.append(True)
        except OSError:
            _AVAILABLE.append(False)
    return _AVAILABLE[0]


class Usage:
    """What a run used, from the group's counters: CPU seconds (``user`` of them in user
    mode), peak memory bytes, and whether the group's OOM killer struck."""

    __slots__ = ("cpu", "user", "peak_memory", "oom_killed")

    def __init__(self, cpu: float, user: float, peak_memory: int, oom_killed: bool) -> None:
        self.cpu, self.user = cpu, user
        self.peak_memory, self.oom_killed = peak_memory, oom_killed


class SlotGroup:
    """One cgroup in each hierarchy (see the module docstring), named
    ``grade-<kit pid>-<name>``. Raises OSError when it cannot be set up."""

    version = 1
    # The usage the last drain settled at (see _drain's floor).
    _settled = 0

    def __init__(self, name: str, cpu: Optional[int], memory_bytes: int,
                 processes: int) -> None:
        parents = _parent_folders()
        if parents is None:
            raise OSError("no cgroup v1 hierarchy for " + ", ".join(CONTROLLERS))
        self.name = f"{GROUP_PREFIX}{os.getpid()}-{name}"
        self.folders: Dict[str, str] = {}
        try:
            for controller, parent in parents.items():
                folder = os.path.join(parent, self.name)
                # Controllers mounted together (cpu,cpuacct) share one folder.
                if folder not in self.folders.values():
                    os.mkdir(folder)
                self.folders[controller] = folder
            cpuset = self.folders["cpuset"]
            parent_cpus = _read(os.path.join(parents["cpuset"], "cpuset.effective_cpus"))
            _write(os.path.join(cpuset, "cpuset.cpus"),
                   parent_cpus.strip() if cpu is None else cpu)
            _write(os.path.join(cpuset, "cpuset.mems"),
                   _read(os.path.join(parents["cpuset"], "cpuset.effective_mems")).strip())
            self.memory_bytes = memory_bytes
            self._limit = 0
            self._set_memory_limit(memory_bytes)
            # +1: the first process (a shell that joins the group) counts while it runs.
            _write(os.path.join(self.folders["pids"], "pids.max"), processes + 1)
            if "cpu" in self.folders:
                _write(os.path.join(self.folders["cpu"], "cpu.shares"), CPU_SHARES)
        except OSError:
            self.remove()
            raise
        self.cpu = cpu
        self.counts_user = os.path.exists(
            os.path.join(self.folders["cpuacct"], "cpuacct.usage_user"))
        # The joining shell writes 0 (itself) into each hierarchy's ``tasks``: moving one
        # thread is done under cgroup_mutex alone, where writing a pid into cgroup.procs
        # takes the kernel's global threadgroup lock, whose write side waits for an RCU
        # grace period (Linux 6.1+; measured: 7.9 ms a run, up to 16 ms, against 0.1 ms
        # for the thread). The shell has one thread, so the whole run is in the group.
        self.join_files = [os.path.join(folder, "tasks")
                           for folder in sorted(set(self.folders.values()))]

    def _set_memory_limit(self, limit: int) -> None:
        """Memory and memory+swap limits both ``limit`` (no swap), in the order the kernel
        accepts (memory+swap is never below memory)."""
        if limit == self._limit:
            return
        memory = self.folders["memory"]
        swap = os.path.join(memory, "memory.memsw.limit_in_bytes")
        order = ["memory.limit_in_bytes"]
        if os.path.exists(swap):
            # A new group's limits are "unlimited": lowering, memory goes first.
            current = int(_read(os.path.join(memory, "memory.limit_in_bytes")))
            order = (["memory.memsw.limit_in_bytes"] + order if limit > current
                     else order + ["memory.memsw.limit_in_bytes"])
        for name in order:
            _write(os.path.join(memory, name), limit)
        self._limit = limit

    def memory_in_use(self) -> int:
        """Bytes charged to the group now."""
        try:
            return int(_read(os.path.join(self.folders["memory"], "memory.usage_in_bytes")))
        except (OSError, ValueError):
            return 0

    def drain(self, patience: float = DRAIN_SECONDS) -> int:
        """Wait for what earlier runs held to be released; return the bytes that stay
        charged and no run can reclaim (see :func:`_drain`)."""
        leftover, self._settled = _drain(
            self.memory_in_use,
            lambda: _stat_value(os.path.join(self.folders["memory"], "memory.stat"), "shmem"),
            patience, self._settled)
        return leftover

    def start(self) -> Tuple[int, ...]:
        """Make the group ready for the next run and reset its counters; return the state
        :meth:`usage` needs. Memory that earlier runs left charged and no run can reclaim
        (see :meth:`drain`) is added to the limit, so the next run always has its whole
        limit to itself."""
        memory = self.folders["memory"]
        leftover = self.drain()
        self._set_memory_limit(self.memory_bytes + leftover)
        for name in ("memory.max_usage_in_bytes", "memory.failcnt"):
            try:
                _write(os.path.join(memory, name), 0)
            except OSError:
                pass
        return (self._cpu_ns(), self._oom_kills(), self._cpu_ns("cpuacct.usage_user"),
                leftover)

    def usage(self, started: Tuple[int, ...]) -> Usage:
        """The :class:`Usage` of the run since :meth:`start` returned ``started``."""
        cpu_ns, ooms, user_ns, leftover = started
        try:
            peak = max(0, int(_read(os.path.join(self.folders["memory"],
                                                 "memory.max_usage_in_bytes"))) - leftover)
        except (OSError, ValueError):
            peak = 0
        cpu = (self._cpu_ns() - cpu_ns) / 1e9
        # Kernels without cpuacct.usage_user (before 4.11): all of it counts as user time.
        user = ((self._cpu_ns("cpuacct.usage_user") - user_ns) / 1e9
                if self.counts_user else cpu)
        return Usage(cpu, user, peak, self._oom_kills() > ooms)

    def cpu_seconds(self, started: Tuple[int, ...]) -> float:
        """CPU seconds used since :meth:`start` (cheap enough to poll)."""
        return (self._cpu_ns() - started[0]) / 1e9

    def _cpu_ns(self, counter: str = "cpuacct.usage") -> int:
        try:
            return int(_read(os.path.join(self.folders["cpuacct"], counter)))
        except (OSError, ValueError):
            return 0

    def _oom_kills(self) -> int:
        try:
            for line in _read(os.path.join(self.folders["memory"],
                                           "memory.oom_control")).splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def tasks(self) -> List[int]:
        """Thread ids in the group now (every thread of every process)."""
        try:
            return [int(tid) for tid in _read(
                os.path.join(self.folders["cpuacct"], "tasks")).split()]
        except (OSError, ValueError):
            return []

    def processes(self) -> List[int]:
        """Pids in the group now (zombies not reaped yet may still be listed)."""
        try:
            return [int(pid) for pid in _read(
                os.path.join(self.folders["pids"], "cgroup.procs")).split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, patience: float = 10.0) -> bool:
        """Kill every process of the group and wait until none is left; True when the
        group is empty. With the freezer, the group is frozen first, so that nothing
        forks between the listing and the kill."""
        freezer = self.folders.get("freezer")
        deadline = time.monotonic() + patience
        frozen = False
        if freezer and self.processes():
            try:
                _write(os.path.join(freezer, "freezer.state"), "FROZEN")
                frozen = True
                while (_read(os.path.join(freezer, "freezer.state")).strip() != "FROZEN"
                       and time.monotonic() < deadline):
                    time.sleep(0.001)
            except OSError:
                pass
        delay = 0.0005
        try:
            while True:
                pids = self._live(self.processes())
                if not pids:
                    return True
                signal_confirmed(pids, signal.SIGKILL, self.processes)
                if frozen:
                    # Killed tasks die only once thawed (frozen: there is a freezer).
                    _write(os.path.join(freezer, "freezer.state"),  # type: ignore[arg-type]
                           "THAWED")
                    frozen = False
                if time.monotonic() > deadline:
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.02)
        finally:
            if frozen:
                try:
                    _write(os.path.join(freezer, "freezer.state"),  # type: ignore[arg-type]
                           "THAWED")
                except OSError:
                    pass

    @staticmethod
    def _live(pids: Iterable[int]) -> List[int]:
        return [pid for pid in pids if is_running(pid)]

    def remove(self) -> None:
        """Kill what is left and remove the group (best effort)."""
        if getattr(self, "join_files", None):
            self.kill_all(patience=2.0)
        for folder in list(self.folders.values()):
            _remove_group_folder(folder)
        self.folders = {}


def _remove_group_folder(folder: str, attempts: int = 50) -> None:
    """Remove the (emptied) group folder ``folder``, trying again for up to half a second:
    the kernel refuses while a killed process is still leaving it. Best effort: a folder
    gone already is fine, one still busy after the attempts is left in place."""
    for _attempt in range(attempts):
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def remove_stale_groups() -> int:
    """Remove the slot groups of kits that are gone (killed before they could); returns
    how many were removed."""
    parents = list((_parent_folders() or {}).values())
    if v2_parent() is not None:
        parents.append(v2_parent())  # type: ignore[arg-type]  # not None: just asked
    removed = 0
    for parent in parents:
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            if not name.startswith(GROUP_PREFIX):
                continue
            pid_text = name[len(GROUP_PREFIX):].split("-", 1)[0]
            if not pid_text.isdigit() or os.path.exists(f"/proc/{pid_text}"):
                continue
            folder = os.path.join(parent, name)
            for _attempt in range(100):
                try:
                    listed = functools.partial(_listed_pids, os.path.join(folder, "cgroup.procs"))
                    signal_confirmed(listed(), signal.SIGKILL, listed)
                    os.rmdir(folder)
                    removed += 1
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)     # killed processes take a moment to leave
    return removed


# --- cgroup v2 -----------------------------------------------------------------------

# Controllers a v2 slot group needs (cpuset is used when the parent offers it).
V2_CONTROLLERS = ("memory", "pids", "cpu")


def v2_parent() -> Optional[str]:
    """The folder of our own cgroup in the cgroup v2 hierarchy, or None when there is
    none mounted (or we are not in it)."""
    mount = None
    try:
        with open("/proc/self/mountinfo") as handle:
            for line in handle:
                head, _, tail = line.partition(" - ")
                fields, kinds = head.split(), tail.split()
                if len(fields) >= 5 and kinds and kinds[0] == "cgroup2":
                    mount = (fields[4], fields[3])
                    break
        with open("/proc/self/cgroup") as handle:
            own = [line.split(":", 2)[2].strip() for line in handle
                   if line.startswith("0::")]
    except (OSError, IndexError):
        return None
    if mount is None or not own:
        return None
    point, root = mount
    relative = own[0]
    if root != "/" and relative.startswith(root):
        relative = relative[len(root):]
    return os.path.join(point, relative.lstrip("/"))


def shares_to_weight(shares: int) -> int:
    """cgroup v1 ``cpu.shares`` as a v2 ``cpu.weight``, as systemd maps them: 1024 (an
    ordinary process's v1 share) onto 100 (an ordinary group's v2 weight), in proportion,
    within 1..10000."""
    return max(1, min(10000, shares * 100 // 1024))


class SlotGroupV2:
    """One slot group in the cgroup v2 hierarchy, with the same contract as
    :class:`SlotGroup`: ``memory.max`` with ``memory.swap.max`` = 0 (no swap), ``pids.max``,
    ``cpu.weight`` (:data:`CPU_SHARES` mapped), ``cpuset.cpus`` when the parent offers
    cpuset, exact CPU time from ``cpu.stat`` (``usage_usec``, ``user_usec``), the peak from
    ``memory.peak`` (reset per run where the kernel allows, else the run's own rise above
    the start), OOM kills from ``memory.events``, and an atomic kill by ``cgroup.kill``
    (else freeze, kill each, thaw).

    ``parent`` is the folder to create the group in (default: :func:`v2_parent`), and
    ``required`` the controllers it must offer (delegated to its children by
    ``cgroup.subtree_control``). Raises OSError when it cannot be set up."""

    version = 2
    _settled = 0

    def __init__(self, name: str, cpu: Optional[int], memory_bytes: int, processes: int,
                 parent: Optional[str] = None, required: Iterable[str] = V2_CONTROLLERS
                 ) -> None:
        parent = parent or v2_parent()
        if parent is None:
            raise OSError("no cgroup v2 hierarchy")
        self.name = f"{GROUP_PREFIX}{os.getpid()}-{name}"
        self.folder = os.path.join(parent, self.name)
        self.folders: Dict[str, str] = {}
        offered = set(_read(os.path.join(parent, "cgroup.controllers")).split())
        missing = [controller for controller in required if controller not in offered]
        if missing:
            raise OSError("cgroup v2: the kit's group offers no " + ", ".join(missing))
        wanted = [c for c in V2_CONTROLLERS + ("cpuset",) if c in offered]
        enabled = set(_read(os.path.join(parent, "cgroup.subtree_control")).split())
        if set(wanted) - enabled:
            # Fails (EBUSY) where the parent holds processes itself and is not the root:
            # the kit must then run in a delegated group of its own (systemd-run).
            _write(os.path.join(parent, "cgroup.subtree_control"),
                   " ".join("+" + c for c in wanted if c not in enabled))
        os.mkdir(self.folder)
        self.folders = {"v2": self.folder}
        self.controllers = set(wanted)
        try:
            self.memory_bytes = memory_bytes
            if "memory" in self.controllers:
                self._file("memory.max", memory_bytes)
                try:
                    self._file("memory.swap.max", 0)
                except OSError:
                    # Missing where the kernel keeps no swap accounting (no swap then).
                    if os.path.exists(self._path("memory.swap.max")):
                        raise
            if "pids" in self.controllers:
                # +1: the first process (a shell that joins the group) counts while it runs.
                self._file("pids.max", processes + 1)
            if "cpu" in self.controllers:
                self._file("cpu.weight", shares_to_weight(CPU_SHARES))
            if "cpuset" in self.controllers and cpu is not None:
                self._file("cpuset.cpus", cpu)
        except OSError:
            self.remove()
            raise
        self.cpu = cpu
        self.counts_user = True
        self.join_files = [self._path("cgroup.procs")]
        self._limit = memory_bytes

    def _path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def _file(self, name: str, value: Union[str, int]) -> None:
        _write(self._path(name), value)

    def _keyed(self, name: str) -> Dict[str, int]:
        """{key: int} of a flat keyed file (cpu.stat, memory.events)."""
        found: Dict[str, int] = {}
        try:
            for line in _read(self._path(name)).splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1].lstrip("-").isdigit():
                    found[parts[0]] = int(parts[1])
        except OSError:
            pass
        return found

    def _number(self, name: str) -> int:
        try:
            return int(_read(self._path(name)).split()[0])
        except (OSError, ValueError, IndexError):
            return 0

    def memory_in_use(self) -> int:
        """Bytes charged to the group now (``memory.current``)."""
        return self._number("memory.current")

    def drain(self, patience: float = DRAIN_SECONDS) -> int:
        """As :meth:`SlotGroup.drain`."""
        leftover, self._settled = _drain(
            self.memory_in_use, lambda: _stat_value(self._path("memory.stat"), "shmem"),
            patience, self._settled)
        return leftover

    def start(self) -> Tuple[int, ...]:
        """As :meth:`SlotGroup.start`."""
        leftover = self.drain() if "memory" in self.controllers else 0
        limit = self.memory_bytes + leftover
        if "memory" in self.controllers and limit != self._limit:
            self._file("memory.max", limit)
            self._limit = limit
        try:
            self._file("memory.peak", "reset")     # Linux 6.12+: a peak per run
            base = 0
        except OSError:
            base = self.memory_in_use()
        stat = self._keyed("cpu.stat")
        return (stat.get("usage_usec", 0), self._oom_kills(), stat.get("user_usec", 0),
                leftover, base)

    def usage(self, started: Tuple[int, ...]) -> Usage:
        """As :meth:`SlotGroup.usage`."""
        usage_usec, ooms, user_usec, leftover, base = started
        peak = self._number("memory.peak") if os.path.exists(self._path("memory.peak")) \
            else self.memory_in_use()
        peak = max(0, peak - max(leftover, base))
        stat = self._keyed("cpu.stat")
        return Usage((stat.get("usage_usec", 0) - usage_usec) / 1e6,
                     (stat.get("user_usec", 0) - user_usec) / 1e6, peak,
                     self._oom_kills() > ooms)

    def cpu_seconds(self, started: Tuple[int, ...]) -> float:
        return (self._keyed("cpu.stat").get("usage_usec", 0) - started[0]) / 1e6

    def _oom_kills(self) -> int:
        return self._keyed("memory.events").get("oom_kill", 0)

    def tasks(self) -> List[int]:
        """Thread ids in the group now (``cgroup.threads``)."""
        try:
            return [int(tid) for tid in _read(self._path("cgroup.threads")).split()]
        except (OSError, ValueError):
            return []

    def processes(self) -> List[int]:
        try:
            return [int(pid) for pid in _read(self._path("cgroup.procs")).split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, patience: float = 10.0) -> bool:
        """Kill every process of the group (``cgroup.kill``: atomic, forks included) and
        wait until none is left; True when the group is empty."""
        deadline = time.monotonic() + patience
        try:
            self._file("cgroup.kill", 1)
            atomic = True
        except OSError:
            atomic = False              # before Linux 5.14
        delay = 0.0005
        while True:
            pids = SlotGroup._live(self.processes())
            if not pids:
                return True
            if not atomic:
                frozen = False
                try:
                    self._file("cgroup.freeze", 1)
                    frozen = True
                except OSError:
                    pass
                signal_confirmed(pids, signal.SIGKILL, self.processes)
                if frozen:
                    self._file("cgroup.freeze", 0)
            if time.monotonic() > deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.02)

    def remove(self) -> None:
        """Kill what is left and remove the group (best effort)."""
        if getattr(self, "join_files", None):
            self.kill_all(patience=2.0)
        _remove_group_folder(self.folder)
        self.folders = {}


def v2_available() -> bool:
    """True when v2 slot groups can be created here (tried once)."""
    if not _AVAILABLE_V2:
        try:
            group = SlotGroupV2(f"probe2-{os.getpid()}", cpu=None, memory_bytes=64 << 20,
                                processes=4)
            group.remove()
            _AVAILABLE_V2.append(True)
        except OSError:
            _AVAILABLE_V2.append(False)
    return _AVAILABLE_V2[0]


_AVAILABLE_V2: List[bool] = []


def slot_group(name: str, cpu: Optional[int], memory_bytes: int, processes: int
               ) -> Union[SlotGroup, SlotGroupV2]:
    """A slot group in whichever hierarchy holds the controllers here: cgroup v1 when its
    hierarchies do (hybrid machines bind them to v1), else v2. Raises OSError."""
    if v1_available():
        return SlotGroup(name, cpu, memory_bytes, processes)
    return SlotGroupV2(name, cpu, memory_bytes, processes)
