"""Finding, measuring and killing the processes of one sandboxed run, through /proc.

A run's processes are identified in one of three ways, the first that applies:

* by cgroup (:mod:`engine.sandbox._cgroups`): exact, done there;
* by uid (:func:`by_uid`): as root every run has a uid of its own; a process counts when
  its real, effective, saved or filesystem uid is the run's, so a setuid program it
  started (``su``, which keeps the caller's real uid) is found too;
* by descent (:class:`Tree`): every process below the run's first process, plus the
  orphans reparented to us that it started (the kit is a "child subreaper",
  :func:`become_subreaper`), for an ordinary user without cgroups.

:func:`stop_and_kill` stops (SIGSTOP) every process found until no new one appears (a
stopped process cannot fork), samples their CPU time, kills them all (SIGKILL), and
waits until none is left running. Nothing here raises on a process that vanished
meanwhile: /proc is read as a snapshot that may go stale at any moment.

Every signal the kit sends to a run's processes goes through :func:`signal_confirmed`:
a listed pid may have ended and gone to another process (a thread of the kit, another
test worker) by the time the signal leaves, so each is first pinned by a pidfd (its
number cannot be given out again while we hold it) and signalled only if a fresh look
still finds it among the run's.
"""

import ctypes
import errno
import os
import signal
import time
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _pids() -> List[int]:
    try:
        return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def stat_fields(pid: int) -> Optional[List[bytes]]:
    """The fields of /proc/PID/stat after the command name (state is [0], ppid [1],
    utime [11], stime [12], cutime [13], cstime [14]), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def start_time(pid: int) -> Optional[int]:
    """When ``pid``'s process started, in clock ticks since boot (None when it is gone):
    with the pid, it names one process for good (a pid alone can be given out again)."""
    fields = stat_fields(pid)
    try:
        return int(fields[19]) if fields is not None else None
    except (IndexError, ValueError):
        return None


def is_running(pid: int) -> bool:
    """True when ``pid`` exists and is neither a zombie nor dead."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] not in (b"Z", b"X")


def _uids(pid: int) -> Set[int]:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Uid:"):
                    return {int(value) for value in line.split()[1:]}
    except (OSError, ValueError):
        pass
    return set()


def by_uid(uid: int, thorough: bool = True, zombies: bool = False) -> List[int]:
    """Pids of the live processes any of whose uids (real, effective, saved, fs) is
    ``uid``; with ``thorough`` False only the effective uid is looked at (cheaper: enough
    when the processes run with no_new_privs, so that no setuid program elevates). With
    ``zombies``, dead processes not reaped yet too (they still hold their CPU time)."""
    found: List[int] = []
    for pid in _pids():
        try:
            owner = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        # /proc/PID is owned by the effective uid (root for a non-dumpable one): a
        # setuid program keeps the caller's real uid, found in status.
        if owner == uid or (thorough and owner == 0 and uid in _uids(pid)):
            if zombies or is_running(pid):
                found.append(pid)
    return found


def _parents() -> Dict[int, int]:
    """{pid: ppid} of every process now."""
    table: Dict[int, int] = {}
    for pid in _pids():
        fields = stat_fields(pid)
        if fields is not None:
            try:
                table[pid] = int(fields[1])
            except (ValueError, IndexError):
                pass
    return table


class Tree:
    """The processes of one run found by descent (no cgroup, no uid of its own): every
    process below its first one, and the orphans reparented to us (the kit is their
    subreaper) that this run is known to have started.

    An orphan belongs to a run once it has been seen below that run's first process (at
    an earlier look, before its parent died). Other orphans of ours (not first processes
    of runs going on, ``live``) are ``strays``: nobody's CPU time, killed when any run
    ends. A process that leaves its run faster than two looks (a double fork) is such a
    stray: killed, never counted. ``spared`` are children the kit process had before the
    run started (a test's helper processes, when the kit runs inside a test process):
    never strays, since no run can have left them."""

    def __init__(self, first: int, spared: Iterable[int] = ()) -> None:
        self.first = first
        self.known = {first}
        self.spared = frozenset(spared)

    def find(self, live: Iterable[int] = (), zombies: bool = False, strays: bool = False
             ) -> List[int]:
        """Pids of the run's processes now (and of strays, with ``strays``)."""
        parents = _parents()
        children: Dict[int, List[int]] = {}
        for pid, parent in parents.items():
            children.setdefault(parent, []).append(pid)
        me = os.getpid()
        orphans = [pid for pid in children.get(me, ())
                   if pid != self.first and pid not in live and pid not in self.spared]
        starts = [self.first] + [pid for pid in orphans if strays or pid in self.known]
        found: List[int] = []
        pending, seen = list(starts), set()
        while pending:
            pid = pending.pop()
            if pid in seen or pid not in parents:
                continue
            seen.add(pid)
            if zombies or is_running(pid):
                found.append(pid)
            pending.extend(children.get(pid, ()))
        if not strays:
            self.known.update(found)
        return found


class CpuTime(NamedTuple):
    """CPU seconds: ``user`` and ``total`` (user + system)."""
    user: float
    total: float


def cpu_times(pids: Iterable[int]) -> CpuTime:
    """The :class:`CpuTime` of ``pids`` and of the children they have waited for."""
    user = system = 0
    for pid in pids:
        fields = stat_fields(pid)
        if fields is not None:
            try:
                user += int(fields[11]) + int(fields[13])
                system += int(fields[12]) + int(fields[14])
            except ValueError:
                pass
    return CpuTime(user / _CLOCK_TICKS, (user + system) / _CLOCK_TICKS)


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU seconds of ``pids`` and of the children they have waited for."""
    return cpu_times(pids).total


def memory_bytes(pids: Iterable[int]) -> int:
    """Resident anonymous and shared-memory bytes of ``pids`` (what a run's processes hold
    in RAM of their own, shared mappings and /dev/shm pages they touched included)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                for line in handle:
                    if line.startswith((b"RssAnon:", b"RssShmem:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
    return total


# pidfd_open and pidfd_send_signal: the same numbers on every architecture (Linux 5.1+
# numbers new calls alike everywhere); used through ctypes where Python lacks them (3.8).
_PIDFD_OPEN, _PIDFD_SEND_SIGNAL = 434, 424
_PIDFDS: List[bool] = []          # [True] once pidfds worked here, [False] when not


def _libc_call(number: int, *arguments: Any) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.syscall(number, *arguments)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


def _pin(pid: int) -> Optional[int]:
    """A pidfd of ``pid`` (None when it is gone); raises OSError(ENOSYS) where the
    kernel or Python has none."""
    try:
        if hasattr(os, "pidfd_open"):
            return os.pidfd_open(pid)
        return _libc_call(_PIDFD_OPEN, ctypes.c_int(pid), ctypes.c_uint(0))
    except OSError as error:
        if error.errno in (errno.ESRCH, errno.EINVAL):
            return None                  # gone (EINVAL: a thread id, never listed here)
        raise


def _send(pidfd: int, number: int) -> None:
    if hasattr(signal, "pidfd_send_signal"):
        signal.pidfd_send_signal(pidfd, number)
    else:
        _libc_call(_PIDFD_SEND_SIGNAL, ctypes.c_int(pidfd), ctypes.c_int(number), None,
                   ctypes.c_uint(0))


def signal_confirmed(pids: Iterable[int], number: int,
                     find: Callable[[], Iterable[int]]) -> List[int]:
    """Send signal ``number`` to those of ``pids`` that ``find()`` (the run's processes,
    looked at again) still lists once each is pinned by a pidfd; the pids signalled.

    Between the look that listed a pid and the signal, its process may end and the pid
    go to another process (pids wrap around quickly beside a fork bomb): a plain kill()
    would then hit a stranger, the kit itself or a neighbour among them. A pinned pid
    cannot change hands, so the second look decides for the very process signalled.
    Where the kernel (before 5.3) or Python offers no pidfd, the pids both looks list
    are signalled by kill(), which narrows the window without closing it."""
    wanted = sorted(set(pids))
    if not wanted:
        return []
    pinned: Dict[int, int] = {}
    try:
        if _PIDFDS != [False]:
            try:
                for pid in wanted:
                    pidfd = _pin(pid)
                    if pidfd is not None:
                        pinned[pid] = pidfd
                if not _PIDFDS:
                    _PIDFDS.append(True)
            except OSError as error:
                if error.errno not in (errno.ENOSYS, errno.EPERM) or _PIDFDS:
                    raise
                _PIDFDS.append(False)        # no pidfds here (or seccomp refuses them)
        still = set(find())
        sent = []
        for pid in wanted:
            if pid not in still:
                continue
            try:
                if _PIDFDS == [True]:
                    if pid not in pinned:
                        continue
                    _send(pinned[pid], number)
                else:
                    os.kill(pid, number)
                sent.append(pid)
            except OSError as error:
                if error.errno not in (errno.ESRCH, errno.EPERM):
                    raise
        return sent
    finally:
        for pidfd in pinned.values():
            os.close(pidfd)


def stop_and_kill(find: Callable[[], Iterable[int]], settle: float = 0.002,
                  patience: float = 10.0, uncounted: Iterable[int] = (),
                  count: Optional[Callable[[], Iterable[int]]] = None) -> CpuTime:
    """Kill every process ``find()`` returns, until it returns none; return the
    :class:`CpuTime` that the processes ``count()`` returns (default: those stopped) had
    used once all were stopped, ``uncounted`` pids left out.

    The processes are stopped first and found again until the set no longer grows, so a
    fork bomb cannot outrun the kill; then all are killed at once. Waits up to
    ``patience`` seconds for them to be gone (zombies count as gone: only their parent can
    reap them, and they hold nothing)."""
    stopped: Set[int] = set()
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        found = set(find())
        new = found - stopped
        if not new:
            break
        signal_confirmed(new, signal.SIGSTOP, find)
        stopped |= new
        time.sleep(settle)
    cpu = cpu_times((set(count()) if count is not None else stopped) - set(uncounted))
    delay = 0.001
    while True:
        left = find()
        if not left:
            return cpu
        signal_confirmed(left, signal.SIGKILL, find)
        if time.monotonic() > deadline:
            return cpu
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


_SUBREAPER: List[bool] = []


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux prctl
    PR_SET_CHILD_SUBREAPER), once; True when it is."""
    if not _SUBREAPER:
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            _SUBREAPER.append(libc.prctl(36, 1, 0, 0, 0) == 0)
        except (OSError, AttributeError):
            _SUBREAPER.append(False)
    return _SUBREAPER[0]


def children_of_self() -> List[int]:
    """Pids of this process's children (of any of its threads), from
    /proc/self/task/*/children where the kernel has it, else from a scan of /proc."""
    try:
        found: List[int] = []
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as handle:
                found.extend(int(pid) for pid in handle.read().split())
        return found
    except (OSError, ValueError):
        me = os.getpid()
        return [pid for pid, parent in _parents().items() if parent == me]


def reap_children(exclude: Iterable[int] = ()) -> None:
    """Reap every exited child of ours that is not in ``exclude`` (orphans of runs the
    kit adopted as subreaper); never blocks."""
    for pid in children_of_self():
        if pid in exclude:
            continue
        fields = stat_fields(pid)
        if fields is None or fields[0] not in (b"Z", b"X"):
            continue
        try:
            os.waitpid(pid, os.WNOHANG)
        except (OSError, ChildProcessError):
            pass


def threads(pids: Iterable[int]) -> List[int]:
    """Thread ids of the processes ``pids`` (those still there), from /proc/PID/task."""
    found: List[int] = []
    for pid in pids:
        try:
            found.extend(int(tid) for tid in os.listdir(f"/proc/{pid}/task"))
        except (OSError, ValueError):
            pass
    return found


def _schedstat(tid: int) -> Optional[Tuple[int, int]]:
    """(nanoseconds on a CPU, nanoseconds waiting for one) of thread ``tid``, or None."""
    try:
        with open(f"/proc/{tid}/schedstat", "rb") as handle:
            fields = handle.read().split()
        return int(fields[0]), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def run_delay_counted() -> bool:
    """True when the kernel counts the time each task waits for a CPU (/proc/PID/
    schedstat, CONFIG_SCHED_INFO): :class:`RunClock` can then leave it out."""
    return _schedstat(os.getpid()) is not None


class RunClock:
    """The wall time a run could run: its wall time minus the time its processes waited
    for a CPU that other work held.

    Each :meth:`sample` reads every thread's schedstat (time on a CPU, and the kernel's
    run delay: time runnable but waiting) and keeps each thread's last reading, so
    threads and processes that ended still count. The run is credited the summed run
    delay, but never more than the wall time in which it did not have its CPUs (wall
    time minus its CPU time over its ``cores``, counted between samples). The bound
    keeps a run from buying wall time cheaply: its own processes queueing behind each
    other on its cores add run delay while its CPU time grows as fast as the cores allow,
    so they earn nothing then. (The kernel adds a wait to the run delay when it ends,
    so the two sums are compared whole, not interval by interval; a run can thus turn
    time it slept into credit only by making its processes queue behind each other, which
    costs it CPU time: at most (processes - 1) times its CPU limit in all.)

    ``kit`` are thread ids of the kit's own that serve the run (the thread that starts
    it, the one that waits for it): when they wait for a CPU the run's start or the
    notice of its end waits too, so their run delay until the first sample (the start)
    and at the last sample (``ended``) counts as the run's. In between it does not:
    a sleeper's wall time is not stretched by the kit's own waits while it sleeps.

    Where the kernel has no such counter (:func:`run_delay_counted` False) nothing is
    credited: :meth:`could_run` is the plain wall time and :attr:`waited` None."""

    def __init__(self, start: float, cores: int = 1, counted: Optional[bool] = None,
                 kit: Iterable[Optional[int]] = ()) -> None:
        self.start = start
        self.cores = max(1, cores)
        self.counted = run_delay_counted() if counted is None else counted
        self.credit = 0.0
        self._last: Dict[int, Tuple[int, int]] = {}  # tid -> (run ns, delay ns) at its last reading
        self._gone = [0, 0]          # readings of threads whose tid was reused
        self._without_cpus = 0.0     # wall seconds in which the run had not its CPUs
        self._at: Tuple[float, int] = (start, 0)  # (time, run ns) of the last sample
        self.kit = [tid for tid in kit if tid is not None]
        self._samples = 0
        if self.counted:
            for tid in self.kit:
                reading = _schedstat(tid)
                if reading is not None:      # counted from now on only
                    self._last[tid] = reading
                    self._gone[0] -= reading[0]
                    self._gone[1] -= reading[1]

    def sample(self, tids: Iterable[int], now: float, ended: bool = False) -> None:
        """Read the threads ``tids`` (the run's, now) at time ``now`` (perf_counter);
        ``ended``: the run has ended (the last sample)."""
        if not self.counted:
            return
        kit = self.kit if ended or self._samples == 0 else []
        self._samples += 1
        last, gone = self._last, self._gone
        for tid in list(tids) + kit:
            reading = _schedstat(tid)
            if reading is None:
                continue
            before = last.get(tid)
            if before is not None and reading[0] < before[0]:
                gone[0] += before[0]   # a new thread with an old one's id
                gone[1] += before[1]
            last[tid] = reading
        run = gone[0] + sum(reading[0] for reading in last.values())
        delay = gone[1] + sum(reading[1] for reading in last.values())
        at, run_before = self._at
        if now > at:
            self._without_cpus += max(0.0, (now - at) - (run - run_before) / 1e9 / self.cores)
        self._at = (now, run)
        self.credit = max(self.credit, min(delay / 1e9, self._without_cpus))

    def could_run(self, now: float) -> float:
        """Seconds of wall time since the start in which the run could have run."""
        return now - self.start - self.credit

    @property
    def waited(self) -> Optional[float]:
        """Seconds credited as waiting for a CPU; None when the kernel does not count it."""
        return self.credit if self.counted else None


def process_count(uid: int) -> int:
    """How many processes run as ``uid`` now (the owner of their /proc entry: their
    effective uid)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat("/proc/" + entry).st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count
