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
import subprocess
from pathlib import Path

from . import landlock

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                  "/opt")
# The fences a sandbox can report, in the order they are named (``Sandbox.fences``).
FENCE_ORDER = ("bwrap", "landlock", "seccomp", "cgroup", "uid", "rlimits")


class IsolationError(ValueError):
    """An isolation that was asked for cannot run here (the message says why)."""


def parse_isolation(spec):
    """``(file fence, required fences)`` of an ``--isolation`` value: "auto", or fences
    joined by "+": "bwrap" or "landlock" (that file fence, insisted on) or "rlimits"
    (neither), "seccomp", "cgroup" and "uid" (insisted on). Raises IsolationError."""
    words = [word for word in spec.split("+") if word]
    unknown = [word for word in words if word not in FENCE_ORDER + ("auto",)]
    if unknown or not words:
        raise IsolationError(f"unknown isolation {spec!r}: use auto, or fences joined by "
                             "'+' from bwrap, landlock, rlimits, seccomp, cgroup, uid")
    if "bwrap" in words and "seccomp" in words:
        raise IsolationError("bwrap and seccomp exclude each other here: bwrap needs "
                             "netlink sockets to set up its network namespace")
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
    return file_fence, {word for word in words if word in ("seccomp", "cgroup", "uid")}


def exposure(fences, root=None):
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


def refusal(root):
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


_BWRAP_WORKS = {}


def bwrap_works(uid=None):
    """True when ``bwrap`` is on PATH and can create its namespaces here (as ``uid``;
    the answer is kept for "as root, under some sandbox uid" and "as ourselves")."""
    key = uid is None
    if key not in _BWRAP_WORKS:
        path = shutil.which("bwrap", path=SAFE_PATH)
        works = False
        if path:
            prefix = []
            setpriv = shutil.which("setpriv", path=SAFE_PATH)
            if uid is not None and setpriv:
                prefix = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                          "--no-new-privs", "--"]
            try:
                works = subprocess.run(
                    prefix + [path, "--unshare-all", "--die-with-parent", "--as-pid-1",
                              "--ro-bind", "/", "/", "true"], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    timeout=10).returncode == 0
            except (OSError, subprocess.SubprocessError):
                works = False
        _BWRAP_WORKS[key] = works
    return _BWRAP_WORKS[key]


_LANDLOCK_WORKS = []


def landlock_works():
    """True when Landlock can restrict a thread here (tried once)."""
    if not _LANDLOCK_WORKS:
        _LANDLOCK_WORKS.append(landlock.probe())
    return _LANDLOCK_WORKS[0]


def reference_paths():
    """Our own files a submission must never see: the engine package wherever it is
    installed, and the repository it sits in when it is a checkout."""
    package = Path(__file__).resolve().parent.parent
    paths = [str(package)]
    checkout = package.parent
    if (checkout / "tictactoe.py").is_file() or (checkout / ".git").exists():
        paths.append(str(checkout))
    return paths


def carve(roots, hidden):
    """``(readable, listable)``: folders and files whose union is everything beneath
    ``roots`` except ``hidden``, and the folders on the way to a hidden path. Landlock can
    only allow, so a hidden folder inside an allowed one is left out by allowing its
    siblings instead; its ancestors stay listable (names only: Python's import system
    lists every folder on its path). Paths are resolved; missing roots are dropped."""
    resolved = []
    for root in roots:
        if os.path.exists(root):
            real = os.path.realpath(root)
            if real not in resolved:
                resolved.append(real)
    hidden = [os.path.realpath(path) for path in hidden]
    readable, listable = [], []
    for root in resolved:
        _carve_one(root, [path for path in hidden
                          if path == root or path.startswith(root + "/")],
                   readable, listable)
    return readable, listable


def _carve_one(root, hidden, readable, listable):
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
