"""Which fences a sandbox can put up here, and which files they keep out of sight.

:func:`parse_isolation` reads an ``--isolation`` value; :func:`bwrap_works` and
:func:`landlock_works` say whether those file fences can run on this machine (each tried
once); :func:`reference_paths` names our own files, which a submission must never see, and
:func:`carve` turns "the system folders but those" into the allow-list Landlock needs
(bubblewrap masks them instead). See :mod:`engine.grading.sandbox` for the fences
themselves.
"""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from . import landlock
from ..errors import EngineError

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                  "/opt")
# The fences a sandbox can report, in the order they are named (``Sandbox.fences``).
# "cgroup2": the cgroup fence, from the v2 hierarchy (see engine.grading.cgroups).
FENCE_ORDER = ("bwrap", "landlock", "seccomp", "cgroup", "cgroup2", "uid", "rlimits")


# The seccomp filter a run had (``RunResult.syscalls``, or None), as the kit's listings
# name it: results.json's "seccomp" of each case, the report, the autograder's message.
SYSCALL_FILTERS = {"allowlist": "seccomp allowlist", "denylist": "seccomp denylist",
                   None: "no seccomp filter"}


def syscall_filter_name(syscalls: Optional[str]) -> str:
    """The word results.json keeps for ``RunResult.syscalls``: "allowlist", "denylist"
    or "none"."""
    return syscalls if syscalls in ("allowlist", "denylist") else "none"


def syscall_filters(names: Iterable[Optional[str]]) -> str:
    """The filters of runs whose results.json words are ``names`` (an iterable of
    "allowlist", "denylist", "none"; missing ones are skipped), in one phrase, e.g.
    "seccomp allowlist (12 runs), seccomp denylist (1 run)", "no seccomp filter (3
    runs)"; "" when there is none."""
    counts: Dict[str, int] = {}
    for name in names:
        if name:
            counts[name] = counts.get(name, 0) + 1
    order = ("allowlist", "denylist", "none")
    return ", ".join(
        f"{SYSCALL_FILTERS.get(name if name != 'none' else None, name)} "
        f"({count} run{'s' if count != 1 else ''})"
        for name, count in sorted(counts.items(),
                                  key=lambda item: (order + (item[0],)).index(item[0])))


class IsolationError(EngineError, ValueError):
    """An isolation that was asked for cannot run here (the message says why)."""


def parse_isolation(spec: str) -> Tuple[str, Set[str]]:
    """``(file fence, required fences)`` of an ``--isolation`` value: "auto", or fences
    joined by "+": "bwrap" or "landlock" (that file fence, insisted on) or "rlimits"
    (neither), "seccomp", "cgroup" and "uid" (insisted on). Raises IsolationError."""
    words = [word for word in spec.split("+") if word]
    unknown = [word for word in words if word not in FENCE_ORDER + ("auto",)]
    if unknown or not words:
        raise IsolationError(f"unknown isolation {spec!r}: use auto, or fences joined by "
                             "'+' from bwrap, landlock, rlimits, seccomp, cgroup, cgroup2, "
                             "uid")
    file_fences = [word for word in words if word in ("bwrap", "landlock")]
    if len(file_fences) > 1:
        raise IsolationError("bwrap and landlock exclude each other: bwrap cannot start "
                             "under Landlock")
    if file_fences:
        file_fence = file_fences[0]
    elif "rlimits" in words and "auto" not in words:
        file_fence = "none"
    else:
        file_fence = "auto"
    return file_fence, {word for word in words
                        if word in ("seccomp", "cgroup", "cgroup2", "uid")}


def exposure(fences: Iterable[str], root: object = None) -> Optional[str]:
    """What a submission can do under ``fences`` (names, as ``Sandbox.fences``), in one
    sentence for a warning; None when a file fence (bwrap or Landlock) holds it."""
    if {"bwrap", "landlock"} & set(fences):
        return None
    network = "" if "seccomp" in fences else ", and reach the network"
    if "uid" in fences:
        return ("neither bwrap nor Landlock runs: submissions can read every "
                "world-readable file (the reference, the cases), though as uids of their "
                "own" + network)
    return ("neither bwrap nor Landlock runs and the kit is not root: submissions run as "
            "you, so they can read, change and delete every file you can, kill the kit "
            "and your other programs, and write where the next run looks" + network
            + "; use --isolation rlimits for your own programs only")


def refusal(root: bool) -> str:
    """Why ``--isolation auto`` refuses to run untrusted code here (no bwrap, no
    Landlock), and the way out, in one line."""
    if root:
        return ("neither bwrap nor Landlock can run here, so submissions could read the "
                "reference and the cases: install bubblewrap, or pass --isolation rlimits "
                "to grade without hiding them")
    return ("neither bwrap nor Landlock can run here and the kit is not root, so a "
            "submission would run as you (your files, your processes, the kit itself): "
            "install bubblewrap, run as root, or pass --isolation rlimits to run your "
            "own programs only")


# --- memory: the OOM killer hits the submission, never the kit --------------------------
#
# Without a memory cgroup per run (a container without cgroups), a class of processes
# each under its memory rlimit can still exhaust the machine or the container, and the
# kernel's OOM killer then picks a victim by size: often the kit (a Python of tens of MB
# among small children), which left no results.json behind. So the kit asks to be the
# last choice (oom_score_adj -1000, or as low as it may go), every run's processes the
# first (+1000, by util-linux's ``choom`` in the exec chain), and a run whose first
# process the OOM killer ended gets a memory verdict (see :func:`oom_kills`).

OOM_KIT = -1000
OOM_RUN = 1000
_OOM_ADJ = "/proc/self/oom_score_adj"


def protect_kit_from_oom() -> Optional[int]:
    """Lower this process's ``oom_score_adj`` to -1000 where it may (root with
    CAP_SYS_RESOURCE; an ordinary user, or root in many containers, may not lower it);
    return the value in effect (None: no such file)."""
    try:
        descriptor = os.open(_OOM_ADJ, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        current = int(os.read(descriptor, 32).strip() or 0)
        if current > OOM_KIT:
            try:
                os.write(descriptor, f"{OOM_KIT}\n".encode())
                current = OOM_KIT
            except OSError:
                pass
        return current
    except ValueError:
        return None
    finally:
        os.close(descriptor)


_CHOOM: List[List[str]] = []


def oom_target_prefix() -> List[str]:
    """``[choom, "-n", "1000", "--"]`` when util-linux's choom can raise a command's
    oom_score_adj here (tried once), else [] (the run keeps the kit's score)."""
    if not _CHOOM:
        path = shutil.which("choom", path=SAFE_PATH)
        prefix = [path, "-n", str(OOM_RUN), "--"] if path else []
        if prefix:
            try:
                done = subprocess.run(prefix + ["true"], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      timeout=10)
                if done.returncode != 0:
                    prefix = []
            except (OSError, subprocess.SubprocessError):
                prefix = []
        _CHOOM.append(prefix)
    return list(_CHOOM[0])


def raise_stopped_run(pid: int, patience: float = 60.0) -> bool:
    """Wait until the run's first process ``pid`` has stopped itself (its exec chain
    starts with ``kill -STOP $$``, before anything of the run can fork), make it the OOM
    killer's first choice (+1000; everything it starts inherits it) and let it go on.
    Used under Landlock, where a run may not write its own oom_score_adj. Returns False
    when it neither stopped nor ended within ``patience`` seconds (the caller ends it:
    let go unstopped, it would stop at the gate later with nobody to continue it)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True                     # gone: nothing left to raise
        if state in (b"T", b"t"):
            break
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    try:
        with open(f"/proc/{pid}/oom_score_adj", "w") as handle:
            handle.write(f"{OOM_RUN}\n")
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGCONT)
    except OSError:
        pass
    return True


def oom_kills() -> Optional[int]:
    """How many processes the kernel's OOM killer has killed since boot (``oom_kill`` of
    /proc/vmstat, Linux 4.13+; None when unknown)."""
    try:
        with open("/proc/vmstat", "rb") as handle:
            for line in handle:
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


_BWRAP_WORKS: Dict[bool, bool] = {}


def bwrap_works(uid: Optional[int] = None) -> bool:
    """True when ``bwrap`` is on PATH and can create its namespaces here (as ``uid``;
    the answer is kept for "as root, under some sandbox uid" and "as ourselves")."""
    key = uid is None
    if key not in _BWRAP_WORKS:
        path = shutil.which("bwrap", path=SAFE_PATH)
        works = False
        if path:
            prefix: List[str] = []
            setpriv = shutil.which("setpriv", path=SAFE_PATH)
            if uid is not None and setpriv:
                prefix = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                          "--no-new-privs", "--"]
            try:
                works = subprocess.run(
                    prefix + [path, "--unshare-all", "--die-with-parent",
                              "--ro-bind", "/", "/", "true"], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    timeout=10).returncode == 0
            except (OSError, subprocess.SubprocessError):
                works = False
        _BWRAP_WORKS[key] = works
    return _BWRAP_WORKS[key]


_LANDLOCK_WORKS: List[bool] = []


def landlock_works() -> bool:
    """True when Landlock can restrict a thread here (tried once)."""
    if not _LANDLOCK_WORKS:
        _LANDLOCK_WORKS.append(landlock.probe())
    return _LANDLOCK_WORKS[0]


def reference_paths() -> List[str]:
    """Our own files a submission must never see: the engine package wherever it is
    installed, and the repository it sits in when it is a checkout."""
    package = Path(__file__).resolve().parent.parent
    paths = [str(package)]
    checkout = package.parent
    if (checkout / "tictactoe.py").is_file() or (checkout / ".git").exists():
        paths.append(str(checkout))
    return paths


def carve(roots: Iterable[str], hidden: Iterable[str]) -> Tuple[List[str], List[str]]:
    """``(readable, listable)``: folders and files whose union is everything beneath
    ``roots`` except ``hidden``, and the folders on the way to a hidden path. Landlock can
    only allow, so a hidden folder inside an allowed one is left out by allowing its
    siblings instead; its ancestors stay listable (names only: Python's import system
    lists every folder on its path). Paths are resolved; missing roots are dropped."""
    resolved: List[str] = []
    for root in roots:
        if os.path.exists(root):
            real = os.path.realpath(root)
            if real not in resolved:
                resolved.append(real)
    real_hidden = [os.path.realpath(path) for path in hidden]
    readable: List[str] = []
    listable: List[str] = []
    for root in resolved:
        _carve_one(root, [path for path in real_hidden
                          if path == root or path.startswith(root + "/")],
                   readable, listable)
    return readable, listable


def _carve_one(root: str, hidden: Sequence[str], readable: List[str], listable: List[str]
               ) -> None:
    if not hidden:
        readable.append(root)
        return
    if root in hidden:
        return
    listable.append(root)
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return
    for name in names:
        child = os.path.join(root, name)
        inside = [path for path in hidden if path == child or path.startswith(child + "/")]
        if not inside:
            readable.append(child)
        elif child not in inside and os.path.isdir(child) and not os.path.islink(child):
            _carve_one(child, inside, readable, listable)
