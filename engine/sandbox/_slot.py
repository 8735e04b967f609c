"""One slot of the sandbox: :class:`Sandbox` runs one command at a time in its folder.

A slot owns a run folder in the kit's workspace (:mod:`engine.sandbox.workspace`), the
fences that can hold here, chosen once when it is set up (``Sandbox.fences``: bwrap or
Landlock, seccomp, as root a cgroup and a uid per run, rlimits always), and launcher
threads that hold the thread-level fences (:mod:`engine.sandbox._launcher`).

:meth:`Sandbox.run` is a sequence of steps: choose the command's seccomp filter, build
the exec chain (join the cgroup, take the uid, raise the OOM score, set the rlimits,
enter bwrap), start it from a launcher thread, watch it until it exits or goes over a
limit (CPU, memory, output, the wall-clock cap), kill every process of it and wait until
none is left, then account for it in a :class:`RunResult`. When ``run`` returns, every
process of the run is dead, so what it left in its folder can no longer change. A run
that ends early never leaves the slot unusable: the next starts from the same state.

What each fence guarantees and what it does not, what a run costs, and why each step is
as it is: docs/sandbox.md.
"""

import errno
import os
import resource
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
from ._isolation import FENCE_ORDER, SAFE_PATH, IsolationError, parse_isolation
from ._launcher import Launcher, LauncherError
from ._leftovers import remove_ipc_objects, sweep_temporary
from ._pipes import JOINED, confirmed, drain, exited, pidfd_of, read_ready
from ._results import MB, Limits, RunResult, SandboxError, ending
from .untrusted_files import (Entry, chmod_beneath, chown_beneath, new_folder, open_folder,
                              remove_contents, remove_tree)
from .workspace import new_workspace, slot_folder

# A run's cgroup (engine.sandbox._cgroups), v1 or v2.
_Group = Union[cgroups.SlotGroup, cgroups.SlotGroupV2]
# How often a run's CPU time and memory are checked against its limits.
POLL_SECONDS = 0.1


def _next_uid() -> int:
    """A uid no other run uses, of a block of uids no other live kit holds (a lock:
    :mod:`engine.sandbox.uid_leases`); within it, never the same uid twice in a row of
    :data:`engine.sandbox.uid_leases.BLOCK` runs."""
    try:
        return uid_leases.next_uid()
    except OSError as error:
        raise IsolationError(f"no block of sandbox uids to lease: {error}") from None


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

    # --- setting up: each fence in turn, refusing one that was insisted on -------------

    def _setup(self, limits: Limits, slot: int, isolation: str,
               dedicated_uids: Optional[bool], cgroups_wanted: Optional[bool],
               hidden: Iterable[str], shared: Optional[str], core: Optional[int],
               pin: bool) -> None:
        """Put the fences up in the order each needs the last (see :meth:`__init__`);
        what was made before a refusal is released by :meth:`close`."""
        self.limits = limits
        self.slot = slot
        self.shared = shared
        file_fence, required = parse_isolation(isolation)
        root = os.geteuid() == 0
        self.uid = self._choose_uid(required, dedicated_uids, root)
        if self.workspace is None:
            self.workspace = new_workspace()
        self.folder = slot_folder(self.workspace, slot)
        self.cpu = _slot_core(slot if core is None else core) if pin else None
        self._make_group(required, cgroups_wanted)
        self.use_bwrap, self.use_landlock = self._choose_file_fence(file_fence, root)
        # Under bwrap the filter is bwrap's to install (--seccomp), after it has set up
        # its namespaces (through netlink sockets and clone flags the filter refuses);
        # elsewhere the launcher thread takes it.
        self.use_seccomp = seccomp.supported()
        if "seccomp" in required and not self.use_seccomp:
            raise IsolationError(f"no seccomp filter for this machine "
                                 f"({os.uname().machine})")
        self.hidden = [path for path in list(_isolation.reference_paths()) + list(hidden)
                       if os.path.exists(path)]
        self._find_tools()
        self._plan_for_oom()
        self._start_launchers(root)
        self.reaps_orphans = processes.become_subreaper()
        # Without a uid of its own, RLIMIT_NPROC counts the kit's own processes too.
        self.nproc = (limits.processes if self.uid is not None
                      else processes.process_count(os.getuid()) + limits.processes + 32)
        self._running: Optional["subprocess.Popen[bytes]"] = None
        self._aborted = False

    def _choose_uid(self, required: Set[str], dedicated: Optional[bool], root: bool
                    ) -> Optional[int]:
        """The first run's uid (None: the runs keep ours): leased as root unless
        ``dedicated`` is False; insisted on (``required``) only as root."""
        if "uid" in required and not root:
            raise IsolationError("a uid per run needs the kit to run as root")
        return _next_uid() if (root if dedicated is None else dedicated) else None

    def _make_group(self, required: Set[str], wanted: Optional[bool]) -> None:
        """The slot's cgroup, where cgroups can be made and are ``wanted`` (None: yes)."""
        want_group = wanted if wanted is not None else True
        insisted = {"cgroup", "cgroup2"} & required
        if insisted and (not want_group or not cgroups.available()):
            raise IsolationError("cgroups cannot be created here (cgroup v1 hierarchies "
                                 "for memory, pids, cpuacct and cpuset, or a cgroup v2 "
                                 "group offering memory, pids and cpu, writable by us)")
        if want_group and cgroups.available():
            try:
                self.group = cgroups.slot_group(
                    f"s{self.slot}", cpu=self.cpu,
                    memory_bytes=self.limits.memory_mb * MB,
                    processes=self.limits.processes)
            except OSError:
                if insisted:
                    raise IsolationError("cgroups cannot be created here") from None
        if "cgroup2" in required and getattr(self.group, "version", 0) != 2:
            raise IsolationError("cgroup v2 cannot be used here (the controllers are in "
                                 "the v1 hierarchies, or not offered to our group)")

    def _choose_file_fence(self, file_fence: str, root: bool) -> Tuple[bool, bool]:
        """(bwrap, Landlock): which file fence runs, as ``file_fence`` asks ("auto":
        bwrap, else Landlock, else a refusal; "none": neither)."""
        if file_fence in ("auto", "bwrap") and _bubblewrap.bwrap_works(self.uid):
            return True, False
        if file_fence == "bwrap":
            raise IsolationError("bwrap is missing or cannot create namespaces here")
        if file_fence in ("auto", "landlock") and landlock.landlock_works():
            return False, True
        if file_fence == "landlock":
            raise IsolationError("Landlock is not available in this kernel")
        if file_fence == "auto":
            raise IsolationError(_isolation.refusal(root))
        return False, False

    def _find_tools(self) -> None:
        """The programs of the exec chain, found on SAFE_PATH only; refuses to go on
        without prlimit, or without setpriv where a run takes a uid."""
        # Typed as found: the check below refuses to go on without prlimit, or without
        # setpriv where a run takes a uid, and use_bwrap means bwrap was found.
        self.prlimit: str = shutil.which("prlimit", path=SAFE_PATH)  # type: ignore[assignment]
        self.setpriv: str = shutil.which("setpriv", path=SAFE_PATH)  # type: ignore[assignment]
        self.bwrap: str = shutil.which("bwrap", path=SAFE_PATH)  # type: ignore[assignment]
        self.shell = shutil.which("sh", path=SAFE_PATH) or "/bin/sh"
        if not self.prlimit or (self.uid is not None and not self.setpriv):
            raise IsolationError("prlimit and setpriv (util-linux) are needed to set limits")

    def _plan_for_oom(self) -> None:
        """Without a memory cgroup of its own, a run that exhausts the machine must be
        the OOM killer's first choice and the kit its last (see :mod:`engine.sandbox._oom`).
        Under Landlock a run may not write /proc (choom fails): its first process stops
        itself instead (``oom_gate``), and the kit raises its score before it goes on."""
        self.oom_target: List[str] = []
        self.oom_gate = False
        if self.group is None:
            _oom.protect_kit_from_oom()
            if self.use_landlock:
                self.oom_gate = True
            else:
                self.oom_target = _oom.oom_target_prefix()

    def _start_launchers(self, root: bool) -> None:
        """The slot's launcher threads, which take the thread-level fences once (see
        :mod:`engine.sandbox._launcher`)."""
        rules = (landlock.slot_rules(self.hidden, self.shared, self.folder,
                                     self.group.join_files if self.group else ())
                 if self.use_landlock else None)
        try:
            # As root, each run gets an IPC namespace of its own (bwrap makes its own).
            self.launcher = Launcher(rules, self.cpu, f"slot-{self.slot}",
                                     use_seccomp=self.use_seccomp and not self.use_bwrap,
                                     ipc_namespaces=root and not self.use_bwrap)
            # Without bwrap, a second launcher holds the allowlist: a run whose command
            # gets it (syscall_filter) starts from there, with no extra program start.
            if self.use_seccomp and not self.use_bwrap and seccomp.allowlist_supported():
                self.allowlist_launcher = Launcher(
                    rules, self.cpu, f"slot-{self.slot}-allowlist",
                    use_seccomp=True, ipc_namespaces=self.launcher.ipc_namespaces,
                    allowlist=True)
        except LauncherError as error:
            if self.launcher is not None:
                self.launcher.close()
            raise IsolationError(f"cannot fence the launcher: {error}") from None

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
        and its group (see :meth:`take_back`). Raises SandboxError when the run could
        not be held as promised (it did not join its cgroup)."""
        timeout = self.limits.timeout if timeout is None else timeout
        if self._aborted:
            return RunResult(None, b"", b"", 0.0, 0.0, "aborted", fences=self.fences)
        syscalls, seccomp_fd, launcher = self._choose_filter(argv)
        command = self._command(argv, timeout, read_only, groups, seccomp_fd)
        run = self._begin(launcher, syscalls, seccomp_fd, timeout,
                          self.limits.wall_clock(timeout) if wall is None else wall)
        try:
            process = self._start(run, command)
        except OSError as error:
            return RunResult(127, b"", f"cannot run {argv[0]}: {error.strerror}\n".encode(),
                             time.perf_counter() - run.start, 0.0, "exited",
                             fences=self.fences)
        return self._result(run, self._supervise(run, process))

    def _choose_filter(self, argv: Sequence[str]
                       ) -> Tuple[Optional[str], Optional[int], Launcher]:
        """(the seccomp filter of ``argv``, the descriptor bwrap reads it from, the
        launcher that starts it). The filter is chosen per command (see
        :func:`engine.sandbox._seccomp.syscall_filter`). Under bwrap it goes to bwrap on
        a descriptor of its own for this run (the run has its own IPC namespace there:
        IPC stays allowed); without bwrap the run starts from the launcher thread that
        holds it."""
        syscalls = "denylist" if self.use_seccomp else None
        launcher: Launcher = self.launcher  # type: ignore[assignment]  # made by _setup
        if not self.use_seccomp or not (self.use_bwrap or self.allowlist_launcher):
            return syscalls, None, launcher
        folder_fd = open_folder(self.folder)
        try:
            syscalls = seccomp.syscall_filter(argv, folder_fd)
        finally:
            os.close(folder_fd)
        if self.use_bwrap:
            return syscalls, seccomp.program_fd(deny_ipc=False,
                                                allowlist=syscalls == "allowlist"), launcher
        if syscalls == "allowlist":
            launcher = self.allowlist_launcher  # type: ignore[assignment]  # checked above
        return syscalls, None, launcher

    def _begin(self, launcher: Launcher, syscalls: Optional[str], seccomp_fd: Optional[int],
               timeout: float, wall: float) -> "_Run":
        """The run's record, its counters started: the cgroup's, else what is needed to
        find its processes and the OOM killer's strikes; its clock starts now."""
        run = _Run(launcher, syscalls, seccomp_fd, timeout, wall)
        run.counters = self.group.start() if self.group is not None else None
        # Found by descent (no uid, no cgroup): the children we have now are not the
        # run's, whatever becomes of it (see processes.Tree).
        if self.uid is None and self.group is None:
            run.spared = processes.children_of_self()
        run.oom_kills = _oom.oom_kills() if self.group is None else None
        run.start = time.perf_counter()
        run.clock = processes.RunClock(run.start, self._cores(), kit=(
            threading.get_native_id(), launcher.native_id))
        if self.group is not None:
            # The joining shell's channel to us (without a cgroup nothing to confirm).
            run.joined_read, run.joined_write = os.pipe()
        return run

    def _start(self, run: "_Run", command: List[str]) -> "subprocess.Popen[bytes]":
        """Start ``command`` from the run's launcher thread; raises OSError when it
        cannot start (nothing of the run exists then)."""
        # Started and registered under the lock: another slot looking for orphans of
        # ours (see _run_processes) never takes this run's first process for one.
        with _LIVE_LOCK:
            try:
                process = run.launcher.popen(
                    args=command, cwd=self.folder, env=self.environment(),
                    stdin=(subprocess.DEVNULL if run.joined_write is None
                           else run.joined_write),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                    close_fds=True,
                    pass_fds=() if run.seccomp_fd is None else (run.seccomp_fd,))
            except OSError:
                if run.joined_read is not None:
                    os.close(run.joined_read)
                raise
            finally:
                if run.seccomp_fd is not None:
                    os.close(run.seccomp_fd)    # the run holds its own copy until bwrap reads it
                if run.joined_write is not None:
                    os.close(run.joined_write)  # the shell holds the only other copy
            _LIVE.add(process.pid)
        if self.oom_gate and not _oom.raise_stopped_run(process.pid):
            _kill_group(process.pid)
        return process

    def _supervise(self, run: "_Run", process: "subprocess.Popen[bytes]") -> "_Ended":
        """Watch the started run until it exits or is stopped at a limit, then kill every
        process of it, wait until none is left and reap the first."""
        self._running = process
        tree = processes.Tree(process.pid, run.spared)
        try:
            # abort() sets the flag before it looks for the running process, and this
            # run set the process before it looks at the flag: one of the two sees the
            # other, so a command started as abort() ran does not run to its timeout.
            if self._aborted:
                _kill_group(process.pid)
            streams, killed_for = self._collect(process, tree, run)
            if self._aborted:
                killed_for = "aborted"
            wall = time.perf_counter() - run.start
        finally:
            others = self._kill_everything(tree)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = 0  # reaped here; keep Popen from waiting again
            # Every process of the run is dead: the pipe holds all it will ever hold.
            joined = run.joined_read is None or confirmed(run.joined_read)
            self._running = None
            with _LIVE_LOCK:
                _LIVE.discard(process.pid)
            for stream in (process.stdout, process.stderr):
                stream.close()  # type: ignore[union-attr]  # both are pipes
        return _Ended(streams, killed_for, wall, status, usage, others, joined)

    def _result(self, run: "_Run", ended: "_Ended") -> RunResult:
        """The account of a run whose every process is dead: what it used, how it
        ended. Raises SandboxError when it never joined its cgroup."""
        killed_for = ended.killed_for
        memory: Optional[int]       # peak bytes (None: not measured)
        if self.group is not None:
            used = self.group.usage(run.counters)
            cpu, user, memory = used.cpu, used.user, used.peak_memory
            if used.oom_killed and killed_for is None:
                killed_for = "memory"
        else:
            cpu = ended.usage.ru_utime + ended.usage.ru_stime + ended.others.total
            user = ended.usage.ru_utime + ended.others.user
            memory = run.peak[0] or None
        stdout, stderr = bytes(ended.streams[0]), bytes(ended.streams[1])
        if not ended.joined and killed_for != "aborted":
            raise SandboxError("grading sandbox: the run could not join its cgroup")
        exit_code, signal_number = self._exit_of(ended.status, killed_for)
        killed_for = killed_for or _limit_behind(run, cpu, signal_number)
        return RunResult(exit_code, stdout, stderr, ended.wall, cpu,
                         killed_for or ending(exit_code, signal_number, stderr),
                         signal_number, memory, self.fences, user, run.clock.waited,
                         run.syscalls)

    def _exit_of(self, status: int, killed_for: Optional[str]
                 ) -> Tuple[Optional[int], Optional[int]]:
        """(exit code, signal) of the run's first process from its wait ``status``."""
        if os.WIFSIGNALED(status):
            return None, os.WTERMSIG(status)
        if not os.WIFEXITED(status):
            return None, None
        exit_code = os.WEXITSTATUS(status)
        # bwrap reports a child killed by signal S as exit code 128 + S.
        if self.use_bwrap and 128 < exit_code <= 128 + 64 and killed_for is None:
            return None, exit_code - 128
        return exit_code, None

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
            sweep_temporary(self.uid)
        if self.uid is not None and not (
                self.use_bwrap or self.launcher.ipc_namespaces):  # type: ignore[union-attr]
            # The run shared our IPC namespace (seccomp refuses IPC there, where it runs).
            remove_ipc_objects(self.uid)
        return others

    def _collect(self, process: "subprocess.Popen[bytes]", tree: processes.Tree,
                 run: "_Run") -> Tuple[List[bytearray], Optional[str]]:
        """Read both streams until the command exits, the wall clock or the CPU limit
        runs out, memory (sampled, without cgroups) goes over, or the output goes over its
        cap; return the bytes read and why we stopped it (None: it exited). The run's
        clock (a :class:`processes.RunClock`) says how much of the wall time it could run.

        The command's exit is noticed even while a left-behind child holds the pipes open
        (a pidfd where Python has one, else a poll every few milliseconds)."""
        buffers = [bytearray(), bytearray()]
        descriptors = {process.stdout.fileno(): 0,  # type: ignore[union-attr]  # pipes
                       process.stderr.fileno(): 1}  # type: ignore[union-attr]
        cap = self.limits.output_mb * MB
        clock = run.clock
        pidfd = pidfd_of(process.pid)
        total = 0
        poll_interval = 0.002
        next_check = run.start + POLL_SECONDS
        try:
            while True:
                now = time.perf_counter()
                # The wall-clock cap counts only time the run could run (RunClock).
                remaining = run.wall - clock.could_run(now)
                if remaining <= 0:
                    clock.sample(self._run_tasks(tree, fresh=True), now)
                    remaining = run.wall - clock.could_run(now)
                    if remaining <= 0:
                        return buffers, "timeout"
                if now >= next_check:
                    next_check = now + POLL_SECONDS
                    over = self._over_limits(tree, run)
                    if over:
                        return buffers, over
                    clock.sample(self._run_tasks(tree), now)
                watched = list(descriptors) + ([pidfd] if pidfd is not None else [])
                wait = min(remaining, max(0.0, next_check - now))
                if pidfd is None:
                    wait = min(wait, poll_interval)
                    poll_interval = min(poll_interval * 1.5, 0.005)
                ready, _, _ = select.select(watched, [], [], wait)
                total += read_ready(ready, descriptors, buffers, cap - total)
                if total > cap:
                    return buffers, "output"
                if exited(process.pid):
                    clock.sample(self._run_tasks(tree, fresh=True), time.perf_counter(),
                                 ended=True)
                    drain(descriptors, buffers, cap - total)
                    return buffers, None
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def _over_limits(self, tree: processes.Tree, run: "_Run") -> Optional[str]:
        """"cpu" or "memory" when the run as a whole is over a limit now, else None."""
        if self.group is not None:
            return "cpu" if self.group.cpu_seconds(run.counters) > run.timeout else None
        pids = self._tasks_of = self._run_processes(tree, zombies=True, thorough=False)
        if processes.cpu_seconds(pids) > run.timeout:
            return "cpu"
        memory = processes.memory_bytes(pids)
        run.peak[0] = max(run.peak[0], memory)
        return "memory" if memory > self.limits.memory_mb * MB else None

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

class _Run:
    """One run of :meth:`Sandbox.run` while it lasts: what the kit keeps to watch it,
    stop it and charge it."""

    def __init__(self, launcher: Launcher, syscalls: Optional[str],
                 seccomp_fd: Optional[int], timeout: float, wall: float) -> None:
        self.launcher = launcher
        self.syscalls = syscalls            # the seccomp filter it runs under, if any
        self.seccomp_fd = seccomp_fd        # bwrap's copy of that filter
        self.timeout = timeout              # CPU seconds
        self.wall = wall                    # the wall-clock cap
        self.counters: Any = None           # the cgroup's, at the start
        self.spared: Sequence[int] = ()     # our children before the run: never its
        self.oom_kills: Optional[int] = None
        self.start = 0.0
        self.clock: processes.RunClock
        self.joined_read: Optional[int] = None
        self.joined_write: Optional[int] = None
        self.peak = [0]                     # bytes, sampled without a cgroup


class _Ended(NamedTuple):
    """A run whose every process is dead: what it printed, why the kit stopped it (None:
    it exited), its wall seconds, its first process's wait status and rusage, the CPU of
    the others that were still running, and whether it joined its cgroup."""
    streams: List[bytearray]
    killed_for: Optional[str]
    wall: float
    status: int
    usage: resource.struct_rusage
    others: processes.CpuTime
    joined: bool


def _limit_behind(run: _Run, cpu: float, signal_number: Optional[int]) -> Optional[str]:
    """The limit behind a death the kit did not cause, or None: "memory" when the
    kernel's OOM killer struck (no cgroup) as the run's first process died of a SIGKILL,
    "cpu" when it died of RLIMIT_CPU's signals over its CPU limit."""
    if (run.oom_kills is not None and signal_number == signal.SIGKILL
            and (_oom.oom_kills() or 0) > run.oom_kills):
        # The machine (or the container) ran out of memory, and the run is the OOM
        # killer's first choice.
        return "memory"
    if cpu > run.timeout + 0.05 and signal_number in (signal.SIGKILL, signal.SIGXCPU):
        return "cpu"
    return None


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError as error:
        if error.errno not in (errno.ESRCH, errno.EPERM):
            raise


def _slot_core(index: int) -> Optional[int]:
    """The CPU of slot ``index``, counting round the cores this process may use (None:
    this Python cannot pin)."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return cores[index % len(cores)] if cores else None


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

