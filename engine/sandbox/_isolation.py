"""The isolation a sandbox is asked for, and what a caller says about the one it got.

:func:`parse_isolation` reads an ``--isolation`` value; :func:`refusal` says why ``auto``
refuses to run untrusted code here, :func:`exposure` what a submission can do under the
fences that ran; :func:`reference_paths` names our own files, which a submission must
never see. The names of the seccomp filters, as the kit's listings print them, are here
too. Which fences can run on this machine is the fences' own modules' business
(:mod:`engine.sandbox._bubblewrap`, :mod:`engine.sandbox._landlock`, ...).
"""

from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

from ..errors import EngineError

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                  "/opt")
# The fences a sandbox can report, in the order they are named (``Sandbox.fences``).
# "cgroup2": the cgroup fence, from the v2 hierarchy (see engine.sandbox._cgroups).
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


def reference_paths() -> List[str]:
    """Our own files a submission must never see: the engine package wherever it is
    installed, and the repository it sits in when it is a checkout."""
    package = Path(__file__).resolve().parent.parent
    paths = [str(package)]
    checkout = package.parent
    if (checkout / "tictactoe.py").is_file() or (checkout / ".git").exists():
        paths.append(str(checkout))
    return paths
