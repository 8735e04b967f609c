"""Running untrusted code: one command at a time in a slot's run folder, fenced in.

:class:`Sandbox` is one slot: a run folder of its own in the kit's workspace
(:mod:`engine.sandbox.workspace`) and the fences below. :meth:`Sandbox.run` runs a
command there and returns a :class:`RunResult` (exit code, output streams read up to a
cap, wall and CPU seconds, peak memory, how it ended). When it returns, EVERY process of
the run is dead, so what the run left in its folder can no longer change.

The fences (``Sandbox.fences`` names those that run; ``isolation`` can insist on them):

* ``bwrap`` (bubblewrap namespaces): no network, own pid/ipc/uts/mount namespaces, the
  system folders read-only with our own files (the reference, the cases) masked, private
  size-capped /tmp and /dev/shm, the run folder the only writable path.
* ``landlock`` (where bwrap cannot start, e.g. in most containers): the kernel lets the
  run read and execute the system folders (our own files carved out), write its run
  folder, and nothing else: no /tmp, /dev/shm, /proc, home folders, workspace or other
  runs; no TCP; no signals to or abstract sockets of processes outside the run.
* ``cgroup`` (root, cgroup v1) or ``cgroup2`` (root, cgroup v2; chosen at run time):
  memory counting everything the run holds (shared mappings and tmpfs pages included), a
  process limit, one core, exact CPU time of every process of the run (killed ones
  included); see :mod:`engine.sandbox._cgroups`.
* ``seccomp`` (x86-64, AArch64; :mod:`engine.sandbox._seccomp`): no sockets but stream
  pairs, no IPC that outlives the run, no new namespaces, no ptrace or bpf...; the
  allowlist for CPython, PyPy and native programs, the denylist for the rest (chosen per
  command: :func:`syscall_filter`; ``RunResult.syscalls`` names it); taken by one of
  the slot's two launcher threads, or under bwrap installed by bwrap after its own
  set-up.
* IPC (root, without bwrap, which has its own): each run starts in a System V IPC
  namespace of its own (:mod:`engine.sandbox._launcher`), gone with its last process;
  where the kernel refuses one, seccomp refuses IPC and the run uid's objects are
  removed after it.
* ``uid`` (root): each run gets a fresh unused uid: it can read or write nothing of ours
  (0600/0700 files, other runs), its process limit counts only its own processes, and
  every process of that uid is killed after the run.
* ``rlimits``, always: CPU seconds, data memory, file size, processes, no core files;
  and ``no_new_privs`` (setuid programs such as ``su`` do not elevate), its own session,
  stdin /dev/null, a scrubbed environment, the slot's core as CPU affinity.

Time is charged as CPU time (``Limits.timeout``), with a generous wall-clock cap
(``Limits.wall_clock``) for runs that sleep or wait; the cap counts only the wall time in
which the run could run: the time its processes waited for a CPU that other work held is
left out (:class:`engine.sandbox._processes.RunClock`), so a busy machine never makes a
run a sleeper. Without cgroups, CPU and memory of
every process of the run are sampled from /proc every 0.1 s
(:mod:`engine.sandbox._processes`).

Limits and the uid are applied by ``setpriv`` and ``prlimit`` (util-linux) in the exec
chain, so that Python starts every command with vfork from the slot's launcher thread
(:mod:`engine.sandbox._launcher`), which holds the thread-level fences. Which fences can
run here, and which files they hide: :mod:`engine.sandbox`.
"""

import errno
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from typing import (Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple,
                    Union)

from . import _bubblewrap, _isolation, _oom
from . import _cgroups as cgroups, _landlock as landlock
from . import _processes as processes, _seccomp as seccomp, uid_leases
from ._isolation import FENCE_ORDER, SAFE_PATH, SYSTEM_FOLDERS, IsolationError, parse_isolation
from ._launcher import Launcher, LauncherError
from .untrusted_files import (Entry, chmod_beneath, chown_beneath, new_folder, open_folder,
                              remove_contents, remove_owned_by, remove_tree)
from .workspace import new_workspace, slot_folder
from ..errors import EngineError

# A run's cgroup (engine.sandbox._cgroups), v1 or v2.
_Group = Union[cgroups.SlotGroup, cgroups.SlotGroupV2]

# Devices a program may need; everything else under /dev stays out of reach.
DEVICES = (("/dev/null", landlock.READ_FILE | landlock.WRITE_FILE),
           ("/dev/zero", landlock.READ_FILE), ("/dev/full", landlock.READ_FILE |
                                                landlock.WRITE_FILE),
           ("/dev/random", landlock.READ_FILE), ("/dev/urandom", landlock.READ_FILE))
# What the joining shell writes on its private channel once the run is in its cgroup
# (see Sandbox._command): the kit's news about itself never travels in the run's own
# streams or exit status, which the run controls.
JOINED = b"J"
# Shared folders a run without bwrap or Landlock may write into (/dev/mqueue: POSIX
# message queues, where mounted).
TEMPORARY_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
# The kernel's lists of System V IPC objects, with the call that removes one of each.
SYSV_IPC = (("/proc/sysvipc/shm", "shmctl"), ("/proc/sysvipc/sem", "semctl"),
            ("/proc/sysvipc/msg", "msgctl"))
IPC_RMID = 0
MB = 1024 * 1024
POLL_SECONDS = 0.1


def _next_uid() -> int:
    """A uid no other run uses, of a block of uids no other live kit holds (a lock:
    :mod:`engine.sandbox.uid_leases`); within it, never the same uid twice in a row of
    :data:`engine.sandbox.uid_leases.BLOCK` runs."""
    try:
        return uid_leases.next_uid()
    except OSError as error:
        raise IsolationError(f"no block of sandbox uids to lease: {error}") from None


# How a run ended. Only "exited" and "signal" (the program crashed by itself) are runs
# that ended by themselves; the others are limits the kit enforced.
ENDINGS = ("exited", "signal", "timeout", "cpu", "memory", "output", "file size",
           "aborted")

_MEMORY_MESSAGES = (b"MemoryError", b"std::bad_alloc", b"OutOfMemoryError",
                    b"Cannot allocate memory", b"out of memory")


class Limits(NamedTuple):
    """Limits of one run: CPU seconds (``timeout``, all processes together), MB of memory,
    MB of stdout+stderr, MB per written file, processes (threads count too), and the
    wall-clock cap (None: :meth:`wall_clock`)."""
    timeout: float = 10.0
    memory_mb: int = 1024
    output_mb: int = 16
    file_mb: int = 64
    processes: int = 64
    wall: Optional[float] = None

    def wall_clock(self, timeout: Optional[float] = None) -> float:
        """Wall-clock seconds a run may take: generous (twice the CPU limit plus 2 s),
        so that a run is judged by the CPU time it used, not by its neighbours."""
        timeout = self.timeout if timeout is None else timeout
        return self.wall if self.wall is not None else 2 * timeout + 2


class RunResult(NamedTuple):
    """What a sandboxed run did. ``exit`` is None when a signal ended it (``signal`` then
    names it); ``ended`` is one of ``ENDINGS``; ``cpu`` is user+system seconds of every
    process of the run, ``user`` the user-mode part of them (what ``time`` calls user
    time: a tournament's clock); ``memory`` the peak bytes seen (None: not measured);
    ``fences`` the fences that held it; ``waited`` the seconds of wall time in which it
    waited for a CPU that other work held, left out of its wall-clock cap (None: this
    kernel does not count them, and the cap was on plain wall time); ``syscalls`` the
    seccomp filter it ran under ("allowlist", "denylist", None: none)."""
    exit: Optional[int]
    stdout: bytes
    stderr: bytes
    wall: float
    cpu: float
    ended: str
    signal: Optional[int] = None
    memory: Optional[int] = None
    fences: Tuple[str, ...] = ()
    user: float = 0.0
    waited: Optional[float] = None
    syscalls: Optional[str] = None

    def describe(self, limits: Limits, timeout: Optional[float] = None,
                 wall: Optional[float] = None) -> str:
        """A one-line verdict reason for a run that did not end by itself (``timeout``
        and ``wall``: the run's own limits, when :meth:`Sandbox.run` was given them)."""
        timeout = limits.timeout if timeout is None else timeout
        if self.ended == "timeout":
            wall = limits.wall_clock(timeout) if wall is None else wall
            return slept_or_waited(self.wall, self.cpu, wall, self.waited)
        if self.ended == "cpu":
            return f"CPU time limit ({timeout:g} s) exceeded"
        if self.ended == "memory":
            return f"memory limit ({limits.memory_mb} MB) exceeded"
        if self.ended == "output":
            return f"output over {limits.output_mb} MB"
        if self.ended == "file size":
            return f"wrote a file over {limits.file_mb} MB"
        if self.ended == "signal":
            return f"killed by signal {_signal_name(self.signal)}"
        if self.ended == "aborted":
            return "killed by the kit: grading was stopped"
        return f"exit code {self.exit}"


def slept_or_waited(wall: float, cpu: float, cap: float, waited: Optional[float]) -> str:
    """The verdict of a run stopped at its wall-clock cap ``cap`` after ``wall`` seconds
    with ``cpu`` seconds of CPU, ``waited`` of them (None: not counted here) spent
    waiting for a CPU that other work held."""
    head = f"slept or waited: {wall:.1f} s of wall time with {cpu:.1f} s of CPU"
    if waited is None:
        return (f"{head} (cap {cap:g} s of wall time; this kernel does not count the time "
                f"a run waits for a CPU, so a busy machine can cause this verdict)")
    if waited < 0.05:
        return f"{head} (cap {cap:g} s of wall time)"
    return (f"{head} (cap {cap:g} s of wall time, not counting {waited:.1f} s spent "
            f"waiting for a CPU)")


def _signal_name(number: Optional[int]) -> str:
    try:
        return signal.Signals(number).name  # type: ignore[arg-type]  # None: ValueError
    except (ValueError, TypeError):
        return str(number)


class SandboxError(EngineError, RuntimeError):
    """The sandbox failed to start a run with its fences (the kit's trouble, not the
    submission's: the run did not happen as promised)."""


_LIVE: Set[int] = set()  # pids of the commands running now, in any slot
_LIVE_LOCK = threading.Lock()


class Sandbox:
    """One slot: runs commands in its run folder, one at a time (see the module docstring).

    ``isolation``: see :func:`parse_isolation`. ``workspace``: the kit's workspace (a new
    one, removed by :meth:`close`, when None). ``dedicated_uids`` and ``cgroups``: None
    means "when available". ``hidden``: more paths (e.g. the cases folder) a submission
    must not see, besides :func:`engine.sandbox._isolation.reference_paths`. ``shared``: a
    folder of builds the runs may read (as root, cases share their build instead of
    copying it). ``core``: the CPU the runs are pinned to (default: the slot's, counting
    round the cores this process may use).
    Raises IsolationError when a fence that was insisted on cannot run.
    """

    def __init__(self, limits: Limits = Limits(), slot: int = 0, isolation: str = "auto",
                 workspace: Optional[str] = None, dedicated_uids: Optional[bool] = None,
                 cgroups_wanted: Optional[bool] = None, hidden: Iterable[str] = (),
                 shared: Optional[str] = None, core: Optional[int] = None,
                 pin: bool = True) -> None:
        self.group: Optional[_Group] = None
        self.launcher: Optional[Launcher] = None
        self.allowlist_launcher: Optional[Launcher] = None
        self._own_workspace = workspace is None
        self.workspace = workspace
        try:
            self._setup(limits, slot, isolation, dedicated_uids, cgroups_wanted, hidden,
                        shared, core, pin)
        except BaseException:
            self.close()
            raise

    def _setup(self, limits: Limits, slot: int, isolation: str,
               dedicated_uids: Optional[bool], cgroups_wanted: Optional[bool],
               hidden: Iterable[str], shared: Optional[str], core: Optional[int],
               pin: bool) -> None:
        self.limits = limits
        self.slot = slot
        file_fence, required = parse_isolation(isolation)
        root = os.geteuid() == 0
        if "uid" in required and not root:
            raise IsolationError("a uid per run needs the kit to run as root")
        if dedicated_uids is None:
            dedicated_uids = root
        self.uid = _next_uid() if dedicated_uids else None
        if self.workspace is None:
            self.workspace = new_workspace()
        self.folder = slot_folder(self.workspace, slot)
        self.shared = shared
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.cpu = (cores[(slot if core is None else core) % len(cores)]
                    if cores and pin else None)
        want_group = cgroups_wanted if cgroups_wanted is not None else True
        insisted = {"cgroup", "cgroup2"} & required
        if insisted and (not want_group or not cgroups.available()):
            raise IsolationError("cgroups cannot be created here (cgroup v1 hierarchies "
                                 "for memory, pids, cpuacct and cpuset, or a cgroup v2 "
                                 "group offering memory, pids and cpu, writable by us)")
        if want_group and cgroups.available():
            try:
                self.group = cgroups.slot_group(
                    f"s{slot}", cpu=self.cpu, memory_bytes=limits.memory_mb * MB,
                    processes=limits.processes)
            except OSError:
                if insisted:
                    raise IsolationError("cgroups cannot be created here") from None
        if "cgroup2" in required and getattr(self.group, "version", 0) != 2:
            raise IsolationError("cgroup v2 cannot be used here (the controllers are in "
                                 "the v1 hierarchies, or not offered to our group)")
        self.use_bwrap = False
        self.use_landlock = False
        if file_fence in ("auto", "bwrap") and _bubblewrap.bwrap_works(self.uid):
            self.use_bwrap = True
        elif file_fence == "bwrap":
            raise IsolationError("bwrap is missing or cannot create namespaces here")
        elif file_fence in ("auto", "landlock") and landlock.landlock_works():
            self.use_landlock = True
        elif file_fence == "landlock":
            raise IsolationError("Landlock is not available in this kernel")
        if file_fence == "auto" and not (self.use_bwrap or self.use_landlock):
            raise IsolationError(_isolation.refusal(root))
        # Under bwrap the filter is bwrap's to install (--seccomp), after it has set up
        # its namespaces (through netlink sockets and clone flags the filter refuses);
        # elsewhere the launcher thread takes it.
        self.use_seccomp = seccomp.supported()
        if "seccomp" in required and not self.use_seccomp:
            raise IsolationError(f"no seccomp filter for this machine "
                                 f"({os.uname().machine})")
        self.hidden = [path for path in list(_isolation.reference_paths()) + list(hidden)
                       if os.path.exists(path)]
        # Typed as found: the checks below refuse to go on without prlimit, or without
        # setpriv where a run takes a uid, and use_bwrap means bwrap was found.
        self.prlimit: str = shutil.which("prlimit", path=SAFE_PATH)  # type: ignore[assignment]
        self.setpriv: str = shutil.which("setpriv", path=SAFE_PATH)  # type: ignore[assignment]
        self.bwrap: str = shutil.which("bwrap", path=SAFE_PATH)  # type: ignore[assignment]
        self.shell = shutil.which("sh", path=SAFE_PATH) or "/bin/sh"
        # Without a memory cgroup of its own, a run that exhausts the machine must be the
        # OOM killer's first choice and the kit its last (see fences). Under Landlock a
        # run may not write /proc (choom fails): its first process stops itself instead,
        # and the kit raises its score before it goes on.
        self.oom_target: List[str] = []
        self.oom_gate = False
        if self.group is None:
            _oom.protect_kit_from_oom()
            if self.use_landlock:
                self.oom_gate = True
            else:
                self.oom_target = _oom.oom_target_prefix()
        if not self.prlimit or (self.uid is not None and not self.setpriv):
            raise IsolationError("prlimit and setpriv (util-linux) are needed to set limits")
        try:
            # As root, each run gets an IPC namespace of its own (bwrap makes its own).
            self.launcher = Launcher(self._landlock_rules(), self.cpu, f"slot-{slot}",
                                     use_seccomp=self.use_seccomp and not self.use_bwrap,
                                     ipc_namespaces=root and not self.use_bwrap)
            # Without bwrap, a second launcher holds the allowlist: a run whose command
            # gets it (syscall_filter) starts from there, with no extra program start.
            if self.use_seccomp and not self.use_bwrap and seccomp.allowlist_supported():
                self.allowlist_launcher = Launcher(
                    self._landlock_rules(), self.cpu, f"slot-{slot}-allowlist",
                    use_seccomp=True, ipc_namespaces=self.launcher.ipc_namespaces,
                    allowlist=True)
        except LauncherError as error:
            if self.launcher is not None:
                self.launcher.close()
            raise IsolationError(f"cannot fence the launcher: {error}") from None
        self.reaps_orphans = processes.become_subreaper()
        if self.uid is None:
            self.nproc = _user_process_count(os.getuid()) + limits.processes + 32
        else:
            self.nproc = limits.processes
        self._running: Optional["subprocess.Popen[bytes]"] = None
        self._aborted = False

    # --- what runs -------------------------------------------------------------------

    @property
    def fences(self) -> Tuple[str, ...]:
        """The fences that hold every run of this sandbox, in FENCE_ORDER."""
        ran = {"bwrap": self.use_bwrap, "landlock": self.use_landlock,
               "seccomp": self.use_seccomp,
               "cgroup": getattr(self.group, "version", 0) == 1,
               "cgroup2": getattr(self.group, "version", 0) == 2,
               "uid": self.uid is not None, "rlimits": True}
        return tuple(name for name in FENCE_ORDER if ran[name])

    @property
    def isolation(self) -> str:
        """The fences as one word, e.g. ``bwrap+seccomp+cgroup+uid+rlimits``."""
        return "+".join(self.fences)

    def _landlock_rules(self) -> Optional[Dict[str, Any]]:
        if not self.use_landlock:
            return None
        read_only, listable = landlock.carve(SYSTEM_FOLDERS, self.hidden)
        if self.shared is not None:
            read_only.append(self.shared)
        files = list(DEVICES) + [(path, landlock.READ_DIR) for path in listable]
        if self.group is not None:
            # ">" in the joining shell opens with O_TRUNC: TRUNCATE is a right of its own.
            files += [(path, landlock.WRITE_FILE | landlock.TRUNCATE)
                      for path in self.group.join_files]
        return {"read_only": read_only, "writable": [self.folder], "files": files}

    # --- the run folder --------------------------------------------------------------

    def renew(self) -> None:
        """As root, take the slot's next uid for the next run (call before :meth:`give`).

        A fresh uid per run means a fresh process count: zombies of an earlier run (a
        fork bomb's, waiting for the machine's init to reap them) cannot make the next
        run fail its process limit."""
        if self.uid is not None:
            self.uid = _next_uid()

    def clear(self) -> None:
        """Empty the run folder (whatever the last run left, however deep; links are
        removed, never followed) and make it ours again."""
        try:
            descriptor = open_folder(self.folder)
        except OSError:
            # Replaced by a link or a file (possible only without bwrap and Landlock,
            # when the run shares our uid): start again with a new folder.
            remove_tree(self.folder)
            descriptor = new_folder(self.folder, 0o700)
        try:
            if self.uid is not None:
                os.fchown(descriptor, 0, 0)
            os.fchmod(descriptor, 0o700)
            remove_contents(descriptor)
        finally:
            os.close(descriptor)

    def give(self, paths: Iterable[str] = ()) -> None:
        """Make the run folder, and the ``paths`` in it (relative; never followed, nor a
        link on the way), the sandbox user's, so that the next run can write there."""
        if self.uid is None:
            return
        folder = open_folder(self.folder)
        try:
            os.fchown(folder, self.uid, self.uid)
            for relative in paths:
                chown_beneath(relative, folder, self.uid, self.uid)
        finally:
            os.close(folder)

    def take_back(self, folder: str, entries: Iterable[Entry]) -> Optional[int]:
        """Make the built ``folder`` (whose contents are ``entries``, from
        :func:`engine.sandbox.untrusted_files.walk`) ours again, for cases to share, and
        return the group id that may read it (None when not running as root).

        Everything inside becomes root's, readable by all and writable by none but us;
        ``folder`` itself is root's with mode 0750 and, as group, the build's own
        sandbox uid (never any other run's), which :meth:`run` gives the cases of this
        build (``groups``) and nobody else: other submissions cannot look in. Every
        entry is reached below the folder's descriptor, never through a link."""
        if self.uid is None:
            return None
        top = open_folder(folder)
        try:
            for entry in entries:
                chown_beneath(entry.path, top, 0, 0)
                if entry.kind in ("file", "folder"):
                    mode = entry.status.st_mode
                    readable = 0o555 if entry.kind == "folder" or mode & 0o111 else 0o444
                    chmod_beneath(entry.path, top, (mode | readable) & 0o755)
            os.fchown(top, 0, self.uid)
            os.fchmod(top, 0o750)
        finally:
            os.close(top)
        return self.uid

    @property
    def shares_builds(self) -> bool:
        """True when a case may share the build's files and folders instead of copying
        them: the commands run as another uid, which cannot write what we own."""
        return self.uid is not None

    def environment(self) -> Dict[str, str]:
        return {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "HOME": self.folder,
                "TMPDIR": self.folder, "PYTHONDONTWRITEBYTECODE": "1"}

    # --- one run ---------------------------------------------------------------------

    def _rlimits(self, timeout: float) -> Tuple[Tuple[str, int, int], ...]:
        # RLIMIT_CPU only backs up the kit's own check of the exact CPU time (every 0.1
        # s): the kernel enforces it on timer-tick samples, which on a busy machine
        # overcharge a process that shares its core (measured: SIGXCPU at 0.67 s of CPU
        # under a 1 s limit, beside four spinning processes on its core). Twice the
        # limit plus 1 s keeps a loaded machine from deciding the verdict.
        cpu = max(1, int(2 * timeout + 1 + 0.999))
        return (
            ("--cpu", cpu, cpu + 1),
            ("--data", self.limits.memory_mb * MB, self.limits.memory_mb * MB),
            ("--fsize", self.limits.file_mb * MB, self.limits.file_mb * MB),
            ("--nproc", self.nproc, self.nproc),
            ("--core", 0, 0),
        )

    def _command(self, argv: Sequence[str], timeout: float, read_only: Iterable[str],
                 groups: Sequence[int], seccomp_fd: Optional[int] = None) -> List[str]:
        """The exec chain: join the cgroup, take the uid, set the limits, enter bwrap
        (which installs the seccomp filter it reads from ``seccomp_fd``, when given)."""
        chain: List[str] = []
        if self.group is not None:
            # A run that cannot join its group must not run outside it. The shell's stdin
            # is the write end of the kit's join pipe (see run): once every join file is
            # written it says so there, then gives the command /dev/null as stdin, so
            # that no process of the run ever holds that pipe.
            joins = " && ".join(f"echo 0 > {path}" for path in self.group.join_files)
            chain += [self.shell, "-c", f'{joins} && printf {JOINED.decode()} >&0 && '
                      'exec "$@" </dev/null', "sh"]
        if self.uid is not None:
            chain += [self.setpriv, f"--reuid={self.uid}", f"--regid={self.uid}"]
            chain += ([f"--groups={','.join(map(str, groups))}"] if groups
                      else ["--clear-groups"]) + ["--no-new-privs", "--"]
        chain += self.oom_target     # the OOM killer's first choice (see fences)
        if self.oom_gate:
            chain = [self.shell, "-c", 'kill -STOP $$ && exec "$@"', "sh"] + chain
        chain += [self.prlimit] + [f"{option}={soft}:{hard}" for option, soft, hard
                                   in self._rlimits(timeout)] + ["--"]
        if self.use_bwrap:
            chain += _bubblewrap.bwrap_options(
                self.bwrap, self.hidden, self.limits.memory_mb * MB, self.folder, read_only,
                seccomp_fd)
        return chain + list(argv)

    def run(self, argv: Sequence[str], timeout: Optional[float] = None,
            read_only: Iterable[str] = (), groups: Sequence[int] = (),
            wall: Optional[float] = None) -> RunResult:
        """Run ``argv`` in the run folder (given to the sandbox user, see :meth:`give`)
        and return its :class:`RunResult`; every process of the run is dead when it
        returns. ``timeout`` overrides the limits' CPU seconds and ``wall`` their
        wall-clock cap (see :meth:`Limits.wall_clock`); ``read_only`` are
        absolute folders (outside the run folder) the command may read under bwrap too,
        and ``groups`` its supplementary groups: e.g. the build a case folder links to,
        and its group (see :meth:`take_back`)."""
        timeout = self.limits.timeout if timeout is None else timeout
        if self._aborted:
            return RunResult(None, b"", b"", 0.0, 0.0, "aborted", fences=self.fences)
        # The filter is chosen per command (see syscall_filter). Under bwrap it goes to
        # bwrap on a descriptor of its own for this run (the run has its own IPC
        # namespace there: IPC stays allowed); without bwrap the run starts from the
        # launcher thread that holds it.
        syscalls = "denylist" if self.use_seccomp else None
        seccomp_fd = None
        launcher = self.launcher
        if self.use_seccomp and (self.use_bwrap or self.allowlist_launcher is not None):
            folder_fd = open_folder(self.folder)
            try:
                syscalls = seccomp.syscall_filter(argv, folder_fd)
            finally:
                os.close(folder_fd)
            if self.use_bwrap:
                seccomp_fd = seccomp.program_fd(deny_ipc=False,
                                                allowlist=syscalls == "allowlist")
            elif syscalls == "allowlist":
                launcher = self.allowlist_launcher
        command = self._command(argv, timeout, read_only, groups, seccomp_fd)
        counters = self.group.start() if self.group is not None else None
        # Found by descent (no uid, no cgroup): the children we have now are not the
        # run's, whatever becomes of it (see processes.Tree).
        spared = (processes.children_of_self() if self.uid is None and self.group is None
                  else ())
        oom_kills = _oom.oom_kills() if self.group is None else None
        start = time.perf_counter()
        clock = processes.RunClock(start, self._cores(), kit=(
            threading.get_native_id(), getattr(launcher, "native_id", None)))
        # The joining shell's channel to us (None: no cgroup, nothing to confirm).
        joined_read, joined_write = os.pipe() if self.group is not None else (None, None)
        # Started and registered under the lock: another slot looking for orphans of
        # ours (see _run_processes) never takes this run's first process for one.
        with _LIVE_LOCK:
            try:
                process = launcher.popen(  # type: ignore[union-attr]  # made by _setup
                    args=command, cwd=self.folder, env=self.environment(),
                    stdin=subprocess.DEVNULL if joined_write is None else joined_write,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
                    pass_fds=() if seccomp_fd is None else (seccomp_fd,))
            except OSError as error:
                if joined_read is not None:
                    os.close(joined_read)
                return RunResult(127, b"",
                                 f"cannot run {argv[0]}: {error.strerror}\n".encode(),
                                 time.perf_counter() - start, 0.0, "exited",
                                 fences=self.fences)
            finally:
                if seccomp_fd is not None:
                    os.close(seccomp_fd)     # the run holds its own copy until bwrap reads it
                if joined_write is not None:
                    os.close(joined_write)   # the shell holds the only other copy
            _LIVE.add(process.pid)
        if self.oom_gate and not _oom.raise_stopped_run(process.pid):
            _kill_group(process.pid)
        self._running = process
        peak = [0]
        tree = processes.Tree(process.pid, spared)
        try:
            # abort() sets the flag before it looks for the running process, and this
            # run set the process before it looks at the flag: one of the two sees the
            # other, so a command started as abort() ran does not run to its timeout.
            if self._aborted:
                _kill_group(process.pid)
            wall_cap = self.limits.wall_clock(timeout) if wall is None else wall
            streams, killed_for = self._collect(process, tree, start, timeout, wall_cap,
                                                counters, peak, clock)
            if self._aborted:
                killed_for = "aborted"
            wall = time.perf_counter() - start
        finally:
            others = self._kill_everything(tree)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = 0  # reaped here; keep Popen from waiting again
            # Every process of the run is dead: the pipe holds all it will ever hold.
            joined = joined_read is None or _confirmed(joined_read)
            self._running = None
            with _LIVE_LOCK:
                _LIVE.discard(process.pid)
            for stream in (process.stdout, process.stderr):
                stream.close()  # type: ignore[union-attr]  # both are pipes
        memory = peak[0] or None
        if self.group is not None:
            used = self.group.usage(counters)  # type: ignore[arg-type]  # started above
            cpu, user, memory = used.cpu, used.user, used.peak_memory
            if used.oom_killed and killed_for is None:
                killed_for = "memory"
        else:
            cpu = usage.ru_utime + usage.ru_stime + others.total
            user = usage.ru_utime + others.user
        stdout, stderr = bytes(streams[0]), bytes(streams[1])
        if not joined and killed_for != "aborted":
            raise SandboxError("grading sandbox: the run could not join its cgroup")
        exit_code: Optional[int] = None
        signal_number: Optional[int] = None
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
            # bwrap reports a child killed by signal S as exit code 128 + S.
            if self.use_bwrap and 128 < exit_code <= 128 + 64 and killed_for is None:
                signal_number, exit_code = exit_code - 128, None
        elif os.WIFSIGNALED(status):
            signal_number = os.WTERMSIG(status)
        if (killed_for is None and oom_kills is not None and signal_number == signal.SIGKILL
                and (_oom.oom_kills() or 0) > oom_kills):
            # No cgroup, and the kernel's OOM killer struck while this run's first
            # process died of a SIGKILL the kit did not send: the machine (or the
            # container) ran out of memory, and the run is its first choice.
            killed_for = "memory"
        if killed_for is None and cpu > timeout + 0.05 and signal_number in (
                signal.SIGKILL, signal.SIGXCPU):
            killed_for = "cpu"
        ended = killed_for or self._ending(exit_code, signal_number, stderr)
        return RunResult(exit_code, stdout, stderr, wall, cpu, ended, signal_number,
                         memory, self.fences, user, clock.waited, syscalls)

    def _sweep_temporary(self) -> None:
        """Without bwrap or Landlock the run could write into the machine's shared
        temporary folders: remove what its uid left there (top-level entries it owns,
        through a descriptor of the folder, never following a link)."""
        for folder in TEMPORARY_FOLDERS:
            remove_owned_by(folder, self.uid)  # type: ignore[arg-type]  # called with a uid

    def _run_processes(self, tree: processes.Tree, zombies: bool = False,
                       thorough: bool = True, strays: bool = False) -> List[int]:
        """The live processes of the run (cgroup aside) whose :class:`processes.Tree` is
        ``tree``; with ``zombies``, also those dead but not reaped yet; with ``strays``,
        orphans nobody claims too (see :class:`processes.Tree`)."""
        if self.uid is not None:
            return processes.by_uid(self.uid, thorough, zombies)
        with _LIVE_LOCK:
            return tree.find(_LIVE, zombies, strays and self.reaps_orphans)

    def _kill_everything(self, tree: processes.Tree) -> processes.CpuTime:
        """Kill every process of the run and wait until none is left; the CPU seconds of
        those that were still running (a :class:`processes.CpuTime`), the first left out
        (its own CPU time comes from wait4)."""
        first = tree.first
        others = processes.CpuTime(0.0, 0.0)
        if self.group is not None:
            _kill_group(first)
            self.group.kill_all()
        else:
            # Stopped before they are killed, so that their CPU time can still be read.
            others = processes.stop_and_kill(
                lambda: self._run_processes(tree, strays=True), uncounted=(first,),
                count=lambda: self._run_processes(tree, zombies=True))
            _kill_group(first)
        if self.reaps_orphans:
            with _LIVE_LOCK:
                processes.reap_children(_LIVE)
        if self.uid is not None and not (self.use_bwrap or self.use_landlock):
            self._sweep_temporary()
        if self.uid is not None and not (
                self.use_bwrap or self.launcher.ipc_namespaces):  # type: ignore[union-attr]
            # The run shared our IPC namespace (seccomp refuses IPC there, where it runs).
            remove_ipc_objects(self.uid)
        return others

    def _collect(self, process: "subprocess.Popen[bytes]", tree: processes.Tree,
                 start: float, timeout: float, wall: float, counters: Any, peak: List[int],
                 clock: processes.RunClock) -> Tuple[List[bytearray], Optional[str]]:
        """Read both streams until the command exits, the wall clock or the CPU limit
        runs out, memory (sampled, without cgroups) goes over, or the output goes over its
        cap; return the bytes read and why we stopped it (None: it exited). ``clock`` (a
        :class:`processes.RunClock`) says how much of the wall time the run could run.

        The command's exit is noticed even while a left-behind child holds the pipes open
        (a pidfd where Python has one, else a poll every few milliseconds)."""
        buffers = [bytearray(), bytearray()]
        descriptors = {process.stdout.fileno(): 0,  # type: ignore[union-attr]  # pipes
                       process.stderr.fileno(): 1}  # type: ignore[union-attr]
        cap = self.limits.output_mb * MB
        memory_cap = self.limits.memory_mb * MB
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(process.pid)
            except OSError:
                pidfd = None
        total = 0
        poll_interval = 0.002
        next_check = start + POLL_SECONDS
        try:
            while True:
                now = time.perf_counter()
                # The wall-clock cap counts only time the run could run (RunClock).
                remaining = wall - clock.could_run(now)
                if remaining <= 0:
                    clock.sample(self._run_tasks(tree, fresh=True), now)
                    remaining = wall - clock.could_run(now)
                    if remaining <= 0:
                        return buffers, "timeout"
                if now >= next_check:
                    next_check = now + POLL_SECONDS
                    over = self._over_limits(tree, timeout, counters, memory_cap, peak)
                    if over:
                        return buffers, over
                    clock.sample(self._run_tasks(tree), now)
                watched = list(descriptors) + ([pidfd] if pidfd is not None else [])
                wait = min(remaining, max(0.0, next_check - now))
                if pidfd is None:
                    wait = min(wait, poll_interval)
                ready, _, _ = select.select(watched, [], [], wait)
                for descriptor in ready:
                    if descriptor == pidfd:
                        continue
                    chunk = os.read(descriptor, 1 << 16)
                    if not chunk:
                        del descriptors[descriptor]
                        continue
                    buffers[descriptors[descriptor]] += chunk
                    total += len(chunk)
                    if total > cap:
                        return buffers, "output"
                if pidfd is None:
                    poll_interval = min(poll_interval * 1.5, 0.005)
                if _exited(process.pid):
                    clock.sample(self._run_tasks(tree, fresh=True), time.perf_counter(),
                                 ended=True)
                    _drain(descriptors, buffers, cap - total)
                    return buffers, None
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def _over_limits(self, tree: processes.Tree, timeout: float, counters: Any,
                     memory_cap: int, peak: List[int]) -> Optional[str]:
        """"cpu" or "memory" when the run as a whole is over a limit now, else None."""
        if self.group is not None:
            return "cpu" if self.group.cpu_seconds(counters) > timeout else None
        pids = self._tasks_of = self._run_processes(tree, zombies=True, thorough=False)
        if processes.cpu_seconds(pids) > timeout:
            return "cpu"
        memory = processes.memory_bytes(pids)
        peak[0] = max(peak[0], memory)
        return "memory" if memory > memory_cap else None

    def _cores(self) -> int:
        """How many CPUs the runs may use: one when pinned to the slot's core."""
        if self.cpu is not None or not hasattr(os, "sched_getaffinity"):
            return 1
        return len(os.sched_getaffinity(0))

    def _run_tasks(self, tree: processes.Tree, fresh: bool = False) -> List[int]:
        """Thread ids of the run now, for its RunClock: from the cgroup, else of the
        processes the last look at the limits found (``fresh``: found again now)."""
        if self.group is not None:
            return self.group.tasks()
        pids = (self._run_processes(tree, zombies=True, thorough=False) if fresh
                else getattr(self, "_tasks_of", ()))
        return processes.threads(pids)

    def abort(self) -> None:
        """Kill the running command (from another thread, e.g. on Ctrl-C); its run
        returns with ``ended`` = "aborted" and no more runs start."""
        self._aborted = True
        process = self._running
        if process is not None:
            _kill_group(process.pid)

    def close(self) -> None:
        """Release the slot: its launcher thread, its cgroup and (when the sandbox made
        it) the workspace."""
        for name in ("launcher", "allowlist_launcher"):
            launcher = getattr(self, name, None)
            if launcher is not None:
                launcher.close()
                setattr(self, name, None)
        if self.group is not None:
            self.group.remove()
            self.group = None
        if self._own_workspace and self.workspace is not None:
            remove_tree(self.workspace)
            self.workspace = None

    @staticmethod
    def _ending(exit_code: Optional[int], signal_number: Optional[int], stderr: bytes) -> str:
        if signal_number == signal.SIGXCPU:
            return "cpu"
        if signal_number == signal.SIGXFSZ:
            return "file size"
        if exit_code != 0 and any(message in stderr[-4096:] for message in _MEMORY_MESSAGES):
            return "memory"
        if signal_number is not None:
            return "signal"
        return "exited"


def remove_ipc_objects(uid: int) -> int:
    """Remove every System V shared memory segment, semaphore set and message queue of
    ``uid`` (owner or creator) in our IPC namespace; how many were removed."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    removed = 0
    for listing, call in SYSV_IPC:
        try:
            with open(listing) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        header = _SYSV_COLUMNS[listing]
        for row in rows:
            fields = row.split()
            try:
                identifier = int(fields[1])
                owners = {int(fields[header[0]]), int(fields[header[1]])}
            except (ValueError, IndexError):
                continue
            if uid in owners:
                if call == "semctl":
                    done = libc.semctl(identifier, 0, IPC_RMID, None)
                else:
                    done = getattr(libc, call)(identifier, IPC_RMID, None)
                removed += done == 0
    return removed


# Columns (after splitting) of the owner's and the creator's uid in each listing.
_SYSV_COLUMNS = {"/proc/sysvipc/shm": (7, 9), "/proc/sysvipc/sem": (4, 6),
                 "/proc/sysvipc/msg": (7, 9)}


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError as error:
        if error.errno not in (errno.ESRCH, errno.EPERM):
            raise


def _exited(pid: int) -> bool:
    """True when ``pid`` has ended; it stays a zombie (WNOWAIT), so that its process
    group id cannot be reused before we kill the group."""
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, pid,
                             os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    # PyPy has no os.waitid: an exited, unreaped child is a zombie in /proc.
    return not processes.is_running(pid)


def _confirmed(channel: int) -> bool:
    """Whether the joining shell said, on the kit's pipe ``channel`` (whose writers are
    all gone), that the run is in its cgroup; closes ``channel``."""
    try:
        os.set_blocking(channel, False)
        try:
            return os.read(channel, 16) == JOINED
        except BlockingIOError:
            return False
    finally:
        os.close(channel)


def _drain(descriptors: Dict[int, int], buffers: List[bytearray], room: int) -> None:
    """Take what is already in the pipes without waiting for writers that live on."""
    while descriptors and room > 0:
        ready, _, _ = select.select(list(descriptors), [], [], 0)
        if not ready:
            return
        for descriptor in ready:
            chunk = os.read(descriptor, min(1 << 16, room))
            if not chunk:
                del descriptors[descriptor]
                continue
            buffers[descriptors[descriptor]] += chunk
            room -= len(chunk)


def _user_process_count(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat("/proc/" + entry).st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def usable_cores() -> int:
    """How many CPUs this process may run on (how many slots can each have a core)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def close_all(sandboxes: Iterable["Sandbox"]) -> None:
    """Close every sandbox of ``sandboxes`` (see :meth:`Sandbox.close`)."""
    for sandbox in sandboxes:
        sandbox.close()

