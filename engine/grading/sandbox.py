"""Running untrusted code: one command in one folder, fenced in, with every limit enforced.

:class:`Sandbox` runs a command (a submission's build or one case) in a folder and returns
a :class:`RunResult`: exit code, output streams (each read up to a cap), wall and CPU
seconds, and how the run ended (see ``ENDINGS``). Whatever the command does, the call
returns within the wall-clock limit plus a fraction of a second and leaves no process
behind.

Fences, always:

* its own session and process group (``start_new_session``); stdin is /dev/null;
* a scrubbed environment: ``PATH`` (system folders only), ``LANG=C.UTF-8``, ``HOME`` and
  ``TMPDIR`` = the run's folder, ``PYTHONDONTWRITEBYTECODE=1``; nothing of ours;
* rlimits: ``RLIMIT_CPU`` (the timeout, rounded up), ``RLIMIT_DATA`` (the memory limit:
  DATA rather than AS, because a JVM reserves far more address space than it uses, and
  malloc/mmap'd heap memory counts against DATA on Linux >= 4.7), ``RLIMIT_FSIZE``,
  ``RLIMIT_NPROC``, ``RLIMIT_CORE`` = 0;
* a wall-clock timeout that kills the whole process group, and the group is killed after
  EVERY run, so children that outlived their parent die too;
* stdout and stderr read with a cap: past it the run is killed ("output over N MB").

The process-count limit needs care: ``RLIMIT_NPROC`` counts every process of the real user
on the whole machine, and root ignores it. So when the kit runs as root, each run gets a
dedicated unused uid (a new one per run, from a range of the kit process's own, see
:meth:`Sandbox.renew`): the limit then counts only that run's processes (a fresh count
every run, so even a fork bomb's zombies cannot spill into the next case), the submission
cannot read or write files of ours (root's 0600/0700 files, other runs' folders), and
without bwrap every process of that uid is killed after the run, which also catches
children that escaped into a new session. Not as root, the limit is set to the user's
current process count plus the allowance (best effort: other programs of the same user
move the count), and ``bwrap``'s pid namespace does the rest.

Where ``bwrap`` (bubblewrap) can create namespaces, the command also runs inside it:
``--unshare-all`` (no network, own pid/ipc/uts namespaces), ``--die-with-parent``,
``--new-session``, ``--as-pid-1``, the system folders bound read-only, a private /tmp,
and the run's folder as the only writable path. When the pid namespace's first process
ends, the kernel kills everything else in it. ``isolation`` says which of
"bwrap+rlimits" or "rlimits" ran.

Limits and the uid are applied by ``setpriv`` and ``prlimit`` (util-linux) in front of the
command, so that Python can start it with vfork: a preexec function would make it fork()
the whole kit, 20+ ms per case. Where those tools are missing, a preexec function does it;
it runs between fork and exec in a process that may have threads (the runner drives one
subprocess per thread) and only calls ``resource.setrlimit`` and ``os.set*id``, already
imported, which take no Python-level locks.
"""

import errno
import itertools
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import NamedTuple, Optional

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SANDBOX_UID_BASE = 3_500_000
UIDS_PER_PROCESS = 100_000
_uid_counter = itertools.count(1)
_uid_lock = threading.Lock()


def _next_uid():
    """A uid no other run uses: each kit process draws from its own range (by pid), and
    within it never hands out the same uid twice in a row of UIDS_PER_PROCESS runs."""
    with _uid_lock:
        number = next(_uid_counter)
    return SANDBOX_UID_BASE + (os.getpid() % 10_000) * UIDS_PER_PROCESS + (
        number % UIDS_PER_PROCESS)
MB = 1024 * 1024

# How a run ended. Only "exited" and "signal" (the program crashed by itself) are runs
# that ended by themselves; the others are limits the kit enforced.
ENDINGS = ("exited", "signal", "timeout", "cpu", "memory", "output", "file size",
           "aborted")

_MEMORY_MESSAGES = (b"MemoryError", b"std::bad_alloc", b"OutOfMemoryError",
                    b"Cannot allocate memory", b"out of memory")


class Limits(NamedTuple):
    """Limits of one run: wall-clock seconds, MB of data memory, MB of stdout+stderr,
    MB per written file, and processes (threads count too)."""
    timeout: float = 10.0
    memory_mb: int = 1024
    output_mb: int = 16
    file_mb: int = 64
    processes: int = 64


class RunResult(NamedTuple):
    """What a sandboxed run did. ``exit`` is None when a signal ended it (``signal`` then
    names it); ``ended`` is one of ``ENDINGS``; ``cpu`` is user+system seconds of the
    command and the descendants it waited for."""
    exit: Optional[int]
    stdout: bytes
    stderr: bytes
    wall: float
    cpu: float
    ended: str
    signal: Optional[int] = None

    def describe(self, limits):
        """A one-line verdict reason for a run that did not end by itself."""
        if self.ended == "timeout":
            return f"timed out after {limits.timeout:g} s"
        if self.ended == "cpu":
            return f"CPU time limit ({limits.timeout:g} s) exceeded"
        if self.ended == "memory":
            return f"memory limit ({limits.memory_mb} MB) exceeded"
        if self.ended == "output":
            return f"output over {limits.output_mb} MB"
        if self.ended == "file size":
            return f"wrote a file over {limits.file_mb} MB"
        if self.ended == "signal":
            return f"killed by signal {_signal_name(self.signal)}"
        return f"exit code {self.exit}"


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except (ValueError, TypeError):
        return str(number)


_BWRAP_WORKS = {}


def bwrap_works(uid=None):
    """True when ``bwrap`` is on PATH and can create its namespaces here (as ``uid``;
    the answer is kept for "as root, under some sandbox uid" and "as ourselves")."""
    key = uid is None
    if key not in _BWRAP_WORKS:
        path = shutil.which("bwrap")
        works = False
        if path:
            try:
                works = subprocess.run(
                    [path, "--unshare-all", "--die-with-parent", "--as-pid-1",
                     "--ro-bind", "/", "/", "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, timeout=10,
                    preexec_fn=_drop_to(uid)).returncode == 0
            except (OSError, subprocess.SubprocessError):
                works = False
        _BWRAP_WORKS[key] = works
    return _BWRAP_WORKS[key]


def _drop_to(uid):
    if uid is None:
        return None

    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return drop


def _bwrap_prefix(folder, read_only=()):
    """bwrap's options: the system and the folders ``read_only`` read-only, /tmp
    private, ``folder`` the only writable."""
    # --as-pid-1: the command is the namespace's first process, so bwrap waits for it
    # itself and its CPU time reaches our wait4(); when it ends, the namespace dies.
    options = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1"]
    for name in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt"):
        path = "/" + name
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    options += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in read_only:
        options += ["--ro-bind", path, path]
    options += ["--bind", folder, folder, "--chdir", folder, "--"]
    return options


def _user_process_count(uid):
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat("/proc/" + entry).st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def kill_uid(uid):
    """SIGKILL every process owned by ``uid`` (a sandbox uid: nothing else runs as it),
    and wait (up to a few seconds) until none is left running, so that the next run of
    the slot starts afresh. Zombies are not waited for: they are already dead, and only
    their parent (often the machine's init, after bwrap's helper) can reap them."""
    for attempt in range(300):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.stat("/proc/" + entry).st_uid != uid:
                    continue
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    state = handle.read().rsplit(b")", 1)[1].split()[0]
                if state in (b"Z", b"X"):
                    continue
                os.kill(int(entry), signal.SIGKILL)
                found = True
            except (OSError, IndexError):
                pass
        if not found:
            return
        time.sleep(0.001 if attempt < 10 else 0.01)


_LIVE = set()            # pids of the commands running now, in any slot
_LIVE_LOCK = threading.Lock()
_SUBREAPER = []


def become_subreaper():
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


def kill_orphans():
    """SIGKILL and reap every child of ours that is not a running command: orphans of
    earlier runs (e.g. a daemon that left its session), reparented to us as subreaper.
    (An orphan of a run still going in another slot is killed too: its parent is gone.)"""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            if int(fields[1]) != me:
                continue
        except (OSError, IndexError, ValueError):
            continue
        with _LIVE_LOCK:
            if pid in _LIVE:
                continue
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass


class Sandbox:
    """Runs commands for one parallel slot (``slot`` picks the dedicated uid as root).

    ``isolation`` is "auto" (bwrap when it works), "bwrap" or "rlimits".
    """

    def __init__(self, limits=Limits(), slot=0, isolation="auto", dedicated_uids=None):
        self.limits = limits
        if dedicated_uids is None:
            dedicated_uids = os.geteuid() == 0
        self.uid = _next_uid() if dedicated_uids else None
        # Without a uid of its own and without bwrap, a child that escaped into a new
        # session is found as an orphan: the kit becomes their "subreaper".
        self.reaps_orphans = self.uid is None and isolation != "bwrap" and (
            isolation == "rlimits" or not bwrap_works(None)) and become_subreaper()
        if isolation == "auto":
            isolation = "bwrap" if bwrap_works(self.uid) else "rlimits"
        elif isolation == "bwrap" and not bwrap_works(self.uid):
            raise RuntimeError("bwrap is missing or cannot create namespaces here")
        self.use_bwrap = isolation == "bwrap"
        # prlimit/setpriv (util-linux) set the limits and the uid between exec calls;
        # without them a preexec function does it, but a preexec function makes Python
        # fork() the whole kit instead of vfork() (20+ ms per case instead of 0.3 ms).
        self.prlimit = shutil.which("prlimit")
        self.setpriv = shutil.which("setpriv") if self.uid is not None else None
        self._running = None
        self._aborted = False
        self.isolation = "bwrap+rlimits" if self.use_bwrap else "rlimits"
        if self.uid is None:
            self.nproc = _user_process_count(os.getuid()) + limits.processes + 32
        else:
            self.nproc = limits.processes

    def renew(self):
        """As root, take the slot's next uid for the next run (call before :meth:`give`).

        A fresh uid per run means a fresh process count: zombies of an earlier run (a
        fork bomb's, waiting for the machine's init to reap them) cannot make the next
        run fail its process limit."""
        if self.uid is not None:
            self.uid = _next_uid()

    def give(self, folder, directories_only=False):
        """Make ``folder`` (and everything in it, or only its folders) the sandbox user's,
        so that it can write there."""
        if self.uid is None:
            return
        os.chown(folder, self.uid, self.uid)
        for root, dirs, files in os.walk(folder):
            for name in dirs + ([] if directories_only else files):
                os.chown(os.path.join(root, name), self.uid, self.uid, follow_symlinks=False)

    def give_file(self, path):
        """Make the single file ``path`` the sandbox user's."""
        if self.uid is not None:
            os.chown(path, self.uid, self.uid, follow_symlinks=False)

    def take_back(self, folder):
        """Make a built ``folder`` ours again, for cases to share (see :func:`fresh_copy`)
        and return the group id that may read it (None when not running as root).

        Everything inside becomes root's, readable by all and writable by none but us;
        ``folder`` itself is root's with mode 0750 and, as group, the build's own
        sandbox uid (never any other run's), which :meth:`run` gives the cases of this
        build (``groups``) and nobody else: other submissions cannot look in."""
        if self.uid is None:
            return None
        for root, dirs, files in os.walk(folder):
            for name in [os.path.join(root, entry) for entry in dirs + files]:
                os.chown(name, 0, 0, follow_symlinks=False)
                if not os.path.islink(name):
                    mode = os.stat(name).st_mode
                    # Read (and, for folders and programs, run) by all: the build's
                    # own folder below keeps out everyone but its cases.
                    readable = 0o555 if os.path.isdir(name) or mode & 0o111 else 0o444
                    os.chmod(name, (mode | readable) & ~0o022)
        os.chown(folder, 0, self.uid)
        os.chmod(folder, 0o750)
        return self.uid

    @property
    def shares_builds(self):
        """True when a case may share the build's files and folders instead of copying
        them (see :func:`fresh_copy`): the commands run as another uid, which cannot write
        what we own (mode go-w)."""
        return self.uid is not None

    def environment(self, folder):
        return {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "HOME": folder, "TMPDIR": folder,
                "PYTHONDONTWRITEBYTECODE": "1"}

    def _limits(self, timeout):
        cpu = max(1, int(timeout + 0.999))
        return (
            (resource.RLIMIT_CPU, (cpu, cpu + 1), "--cpu"),
            (resource.RLIMIT_DATA, (self.limits.memory_mb * MB,) * 2, "--data"),
            (resource.RLIMIT_FSIZE, (self.limits.file_mb * MB,) * 2, "--fsize"),
            (resource.RLIMIT_NPROC, (self.nproc,) * 2, "--nproc"),
            (resource.RLIMIT_CORE, (0, 0), "--core"),
        )

    def _launch(self, timeout, groups=()):
        """(argv prefix, preexec function) that apply the limits, the uid and, as the
        only supplementary ``groups``, e.g. the group of a shared build."""
        prefix = []
        need_preexec = False
        groups = list(groups) if self.uid is not None else []
        if self.uid is not None:
            if self.setpriv:
                prefix += [self.setpriv, f"--reuid={self.uid}", f"--regid={self.uid}"]
                prefix += ([f"--groups={','.join(map(str, groups))}"] if groups
                           else ["--clear-groups"]) + ["--"]
            else:
                need_preexec = True
        if self.prlimit:
            prefix += [self.prlimit] + [f"{option}={soft}:{hard}" for _, (soft, hard), option
                                        in self._limits(timeout)] + ["--"]
        else:
            need_preexec = True
        if not need_preexec:
            return prefix, None
        prefix = []
        limits = [(which, value) for which, value, _ in self._limits(timeout)]
        uid = self.uid
        setrlimit, setgroups, setgid, setuid = (resource.setrlimit, os.setgroups,
                                                os.setgid, os.setuid)

        def apply():
            for which, value in limits:
                setrlimit(which, value)
            if uid is not None:
                setgroups(groups)
                setgid(uid)
                setuid(uid)
        return prefix, apply

    def run(self, argv, folder, timeout=None, read_only=(), groups=()):
        """Run ``argv`` in ``folder`` (absolute; already given to the sandbox user) and
        return its :class:`RunResult`. ``timeout`` overrides the limits' wall clock;
        ``read_only`` are absolute folders (outside ``folder``) the command may read
        under bwrap too, and ``groups`` its supplementary groups: e.g. the build a shared
        case folder links to, and its group (see :meth:`take_back`)."""
        timeout = self.limits.timeout if timeout is None else timeout
        folder = os.path.abspath(folder)
        if self._aborted:
            return RunResult(None, b"", b"", 0.0, 0.0, "aborted")
        prefix, preexec = self._launch(timeout, groups)
        isolate = _bwrap_prefix(folder, read_only) if self.use_bwrap else []
        command = prefix + isolate + list(argv)
        cap = self.limits.output_mb * MB
        start = time.perf_counter()
        try:
            process = subprocess.Popen(
                command, cwd=folder, env=self.environment(folder), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                preexec_fn=preexec, close_fds=True)
        except OSError as error:
            # e.g. the command's program does not exist: the shell would say 127.
            return RunResult(127, b"", f"cannot run {argv[0]}: {error.strerror}\n".encode(),
                             time.perf_counter() - start, 0.0, "exited")
        self._running = process
        with _LIVE_LOCK:
            _LIVE.add(process.pid)
        try:
            # abort() sets the flag before it looks for the running process, and this
            # run set the process before it looks at the flag: one of the two sees the
            # other, so a command started as abort() ran does not run to its timeout.
            if self._aborted:
                os.killpg(process.pid, signal.SIGKILL)
            streams, killed_for = self._collect(process, start + timeout, cap)
            if self._aborted:
                killed_for = "aborted"
            wall = time.perf_counter() - start
        finally:
            # The command is a zombie or still running: its group id is still ours.
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError as error:
                if error.errno not in (errno.ESRCH, errno.EPERM):
                    raise
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = 0  # reaped here; keep Popen from waiting again
            self._running = None
            with _LIVE_LOCK:
                _LIVE.discard(process.pid)
            # Inside bwrap the pid namespace dies with its first process, taking every
            # child with it; outside, children that escaped into a new session are found
            # by their uid.
            if self.uid is not None and not self.use_bwrap:
                kill_uid(self.uid)
            if self.reaps_orphans:
                kill_orphans()
        for stream in (process.stdout, process.stderr):
            stream.close()
        cpu = usage.ru_utime + usage.ru_stime
        stdout, stderr = bytes(streams[0]), bytes(streams[1])
        exit_code, signal_number = None, None
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
            # bwrap reports a child killed by signal S as exit code 128 + S.
            if self.use_bwrap and 128 < exit_code <= 128 + 64 and killed_for is None:
                exit_code, signal_number = None, exit_code - 128
        elif os.WIFSIGNALED(status):
            signal_number = os.WTERMSIG(status)
        ended = killed_for or self._ending(exit_code, signal_number, stderr)
        return RunResult(exit_code, stdout, stderr, wall, cpu, ended, signal_number)

    def abort(self):
        """Kill the running command (from another thread, e.g. on Ctrl-C); its run
        returns with ``ended`` = "aborted" and no more runs start."""
        self._aborted = True
        process = self._running
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass

    @staticmethod
    def _ending(exit_code, signal_number, stderr):
        if signal_number == signal.SIGXCPU:
            return "cpu"
        if signal_number == signal.SIGXFSZ:
            return "file size"
        if exit_code != 0 and any(message in stderr[-4096:] for message in _MEMORY_MESSAGES):
            return "memory"
        if signal_number is not None:
            return "signal"
        return "exited"

    def _collect(self, process, deadline, cap):
        """Read both streams until the command exits, the deadline passes or the output
        goes over ``cap``; return the bytes read and why we stopped it (None: it exited).

        The command's exit is noticed even while a left-behind child holds the pipes open
        (a pidfd where Python has one, else a poll every few milliseconds)."""
        buffers = [bytearray(), bytearray()]
        descriptors = {process.stdout.fileno(): 0, process.stderr.fileno(): 1}
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(process.pid)
            except OSError:
                pidfd = None
        total = 0
        poll_interval = 0.002
        try:
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return buffers, "timeout"
                watched = list(descriptors) + ([pidfd] if pidfd is not None else [])
                wait = remaining if pidfd is not None else min(remaining, poll_interval)
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
                if self._exited(process.pid):
                    self._drain(descriptors, buffers, cap - total)
                    return buffers, None
        finally:
            if pidfd is not None:
                os.close(pidfd)

    @staticmethod
    def _exited(pid):
        """True when ``pid`` has ended; it stays a zombie (WNOWAIT), so that its process
        group id cannot be reused before we kill the group."""
        if hasattr(os, "waitid"):
            try:
                return os.waitid(os.P_PID, pid,
                                 os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                return True
        # PyPy has no os.waitid: an exited, unreaped child is a zombie in /proc.
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                return handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
        except (OSError, IndexError):
            return True

    @staticmethod
    def _drain(descriptors, buffers, room):
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


def list_top(source):
    """``(folders, symlinks, files)`` at the top of the folder ``source``: names of its
    folders, of its symbolic links with their targets, and of its other files. A build is
    listed once and shared by every case (see :func:`fresh_copy`)."""
    folders, symlinks, files = [], [], []
    for entry in sorted(os.scandir(source), key=lambda entry: entry.name):
        if entry.is_symlink():
            symlinks.append((entry.name, os.readlink(entry.path)))
        elif entry.is_dir():
            folders.append(entry.name)
        else:
            files.append(entry.name)
    return folders, symlinks, files


def fresh_copy(source, destination, shared=False, listing=None):
    """Make the new folder ``destination`` a copy of the built folder ``source``.

    Without ``shared``, a real copy: symlinks stay links, times are preserved (so that
    unchanged files can be recognised afterwards). With ``shared`` (see
    :attr:`Sandbox.shares_builds`), a few system calls whatever the build's size: the
    top-level files are hard links, the top-level folders symbolic links to the build's
    own (absolute, so the command must see ``source`` at its path: see the ``read_only``
    of :meth:`Sandbox.run`). The case can then replace top-level files (it owns the
    folder) but write into neither: the sandbox user owns none of the build. ``listing``
    is ``list_top(source)`` when the caller has it already (``source`` unchanged since)."""
    if not shared:
        shutil.copytree(source, destination, symlinks=True)
        return
    folders, symlinks, files = listing or list_top(source)
    os.mkdir(destination)
    for name in folders:
        os.symlink(os.path.join(source, name), os.path.join(destination, name))
    for name, target in symlinks:
        os.symlink(target, os.path.join(destination, name))
    for name in files:
        os.link(os.path.join(source, name), os.path.join(destination, name))


# A grading run's workspace is named after its process, so that a later run can tell a
# workspace whose kit was killed outright (SIGKILL: no cleanup) from a live one.
WORKSPACE_PREFIX = "grade-"
# ... and only a workspace unchanged for this many seconds is stale: a kit in another PID
# namespace sharing /dev/shm (a container) has a pid this one cannot see, but a live run
# creates and removes a case folder in its workspace at least every case.
STALE_AFTER = 3600.0


def new_workspace(root=None):
    """A fresh workspace folder ``grade-<pid>-XXXX`` in ``root`` (default
    :func:`workspace_root`), after removing the ones left by dead grading runs there."""
    root = workspace_root() if root is None else root
    remove_stale_workspaces(root)
    folder = tempfile.mkdtemp(prefix=f"{WORKSPACE_PREFIX}{os.getpid()}-", dir=root)
    os.chmod(folder, 0o755)
    return folder


def remove_stale_workspaces(root=None, min_age=STALE_AFTER):
    """Remove the workspaces in ``root`` (default: the temporary folder) that belong to
    this user, have not changed for ``min_age`` seconds and whose process is gone.
    Returns the folders removed. A workspace whose pid is alive (even if reused by
    another program) is left alone."""
    root = tempfile.gettempdir() if root is None else root
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(WORKSPACE_PREFIX):
            continue
        pid_text = name[len(WORKSPACE_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        path = os.path.join(root, name)
        try:
            status = os.lstat(path)
            if (status.st_uid != os.getuid() or time.time() - status.st_mtime < min_age
                    or _alive(int(pid_text))):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid):
    """True when a process ``pid`` exists (ours or not) and is not a zombie (a killed
    kit whose parent has not reaped it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as handle:
            # "pid (command) state ...": the command may hold spaces and parentheses.
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def workspace_root():
    """Where run folders go: a RAM-backed /dev/shm when it is there and writable (runs
    create and delete thousands of small files), else the temporary folder."""
    shared = "/dev/shm"
    if os.path.isdir(shared) and os.access(shared, os.W_OK | os.X_OK):
        return shared
    return None
