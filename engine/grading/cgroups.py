"""Control groups for sandbox slots: memory that counts everything, processes, a core, CPU.

A :class:`SlotGroup` is one cgroup per slot, created beside the kit's own, in which every
run of the slot is started (its first process writes its pid into ``join_files``, see
:mod:`engine.grading.sandbox`). The kernel then

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

Only cgroup v1 hierarchies are used (memory, pids, cpuacct, cpuset; freezer when present
for an atomic kill, cpu when present for the weight), and only where the kit may create
groups (usually as root). :func:`available` says whether that is the case; every failure
to set one up makes the fence unavailable, never an error. cgroup v2 (a single hierarchy
whose controllers need a delegated subtree) is not used yet: there the sandbox falls back
to /proc sampling.
"""

import os
import time

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


def _mounts():
    """{controller: (mount point, mount root)} of the cgroup v1 hierarchies."""
    found = {}
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


def _own_paths():
    """{controller: the path of our cgroup in its v1 hierarchy}."""
    found = {}
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


def _parent_folders():
    """{controller: the folder of our own cgroup} for the controllers we use (the
    optional ones too when mounted in hierarchies of their own), or None when one of
    CONTROLLERS is missing."""
    mounts, own = _mounts(), _own_paths()
    folders = {}
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


def _write(path, value):
    with open(path, "w") as handle:
        handle.write(str(value))


def _read(path):
    with open(path) as handle:
        return handle.read()


_AVAILABLE = []


def available():
    """True when slot groups can be created here (tried once, with a throw-away group,
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

    def __init__(self, cpu, user, peak_memory, oom_killed):
        self.cpu, self.user = cpu, user
        self.peak_memory, self.oom_killed = peak_memory, oom_killed


class SlotGroup:
    """One cgroup in each hierarchy (see the module docstring), named
    ``grade-<kit pid>-<name>``. Raises OSError when it cannot be set up."""

    def __init__(self, name, cpu, memory_bytes, processes):
        parents = _parent_folders()
        if parents is None:
            raise OSError("no cgroup v1 hierarchy for " + ", ".join(CONTROLLERS))
        self.name = f"{GROUP_PREFIX}{os.getpid()}-{name}"
        self.folders = {}
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
        self.join_files = [os.path.join(folder, "cgroup.procs")
                           for folder in sorted(set(self.folders.values()))]

    def _set_memory_limit(self, limit):
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

    def memory_in_use(self):
        """Bytes charged to the group now."""
        try:
            return int(_read(os.path.join(self.folders["memory"], "memory.usage_in_bytes")))
        except (OSError, ValueError):
            return 0

    def drain(self, patience=DRAIN_SECONDS):
        """Wait until what earlier runs held is released (their processes are dead, but
        the kernel frees a dead IPC namespace's objects, and uncharges pages, a moment
        later): reclaim what can be reclaimed (``memory.force_empty``), and wait up to
        ``patience`` seconds for the usage to fall to DRAIN_BYTES. Returns the bytes
        still charged (files an earlier run left in a tmpfs folder, say)."""
        deadline = time.monotonic() + patience
        forced = False
        delay = 0.001
        while True:
            used = self.memory_in_use()
            if used <= DRAIN_BYTES:
                return used
            if not forced:
                forced = True
                try:
                    _write(os.path.join(self.folders["memory"], "memory.force_empty"), 0)
                except OSError:
                    pass
                continue
            if time.monotonic() > deadline:
                return used
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def start(self):
        """Make the group ready for the next run and reset its counters; return the state
        :meth:`usage` needs. Memory that earlier runs left charged (see :meth:`drain`)
        is added to the limit, so the next run always has its whole limit to itself."""
        memory = self.folders["memory"]
        leftover = self.drain()
        self._set_memory_limit(self.memory_bytes + (leftover if leftover > DRAIN_BYTES
                                                    else 0))
        for name in ("memory.max_usage_in_bytes", "memory.failcnt"):
            try:
                _write(os.path.join(memory, name), 0)
            except OSError:
                pass
        return (self._cpu_ns(), self._oom_kills(), self._cpu_ns("cpuacct.usage_user"),
                leftover)

    def usage(self, started):
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

    def cpu_seconds(self, started):
        """CPU seconds used since :meth:`start` (cheap enough to poll)."""
        return (self._cpu_ns() - started[0]) / 1e9

    def _cpu_ns(self, counter="cpuacct.usage"):
        try:
            return int(_read(os.path.join(self.folders["cpuacct"], counter)))
        except (OSError, ValueError):
            return 0

    def _oom_kills(self):
        try:
            for line in _read(os.path.join(self.folders["memory"],
                                           "memory.oom_control")).splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def tasks(self):
        """Thread ids in the group now (every thread of every process)."""
        try:
            return [int(tid) for tid in _read(
                os.path.join(self.folders["cpuacct"], "tasks")).split()]
        except (OSError, ValueError):
            return []

    def processes(self):
        """Pids in the group now (zombies not reaped yet may still be listed)."""
        try:
            return [int(pid) for pid in _read(
                os.path.join(self.folders["pids"], "cgroup.procs")).split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, patience=10.0):
        """Kill every process of the group and wait until none is left; True when the
        group is empty. With the freezer, the group is frozen first, so that nothing
        forks between the listing and the kill."""
        import signal
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
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                if frozen:
                    # Killed tasks die only once thawed.
                    _write(os.path.join(freezer, "freezer.state"), "THAWED")
                    frozen = False
                if time.monotonic() > deadline:
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.02)
        finally:
            if frozen:
                try:
                    _write(os.path.join(freezer, "freezer.state"), "THAWED")
                except OSError:
                    pass

    @staticmethod
    def _live(pids):
        from .processes import is_running
        return [pid for pid in pids if is_running(pid)]

    def remove(self):
        """Kill what is left and remove the group (best effort)."""
        if getattr(self, "join_files", None):
            self.kill_all(patience=2.0)
        for folder in list(self.folders.values()):
            for _attempt in range(50):
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.folders = {}


def remove_stale_groups():
    """Remove the slot groups of kits that are gone (killed before they could); returns
    how many were removed."""
    parents = _parent_folders()
    if parents is None:
        return 0
    removed = 0
    for parent in parents.values():
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
                    for pid in _read(os.path.join(folder, "cgroup.procs")).split():
                        try:
                            os.kill(int(pid), 9)
                        except OSError:
                            pass
                    os.rmdir(folder)
                    removed += 1
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)     # killed processes take a moment to leave
    return removed
