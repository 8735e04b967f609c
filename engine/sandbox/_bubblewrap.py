"""bubblewrap: a run in namespaces of its own, the system read-only, our files masked.

:func:`bwrap_works` says whether ``bwrap`` can create its namespaces here (tried once);
:func:`bwrap_options` is the part of a run's exec chain that enters them.
"""

import os
import shutil
import subprocess
from typing import Dict, Iterable, List, Optional

from ._isolation import SAFE_PATH, SYSTEM_FOLDERS

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


def bwrap_options(bwrap: str, hidden: Iterable[str], tmpfs_bytes: int, folder: str,
                  read_only: Iterable[str], seccomp_fd: Optional[int] = None) -> List[str]:
    """bwrap (the program ``bwrap``) and its options for one run in ``folder``: the system
    folders and the folders ``read_only`` read-only, with our own files (``hidden``)
    masked, /tmp and /dev/shm private and capped at ``tmpfs_bytes`` each, the run folder
    the only writable path; the seccomp filter read from ``seccomp_fd`` when given."""
    # bwrap's own init is the pid namespace's first process: when the command ends,
    # it ends, and the kernel kills everything else in the namespace. The command is
    # never that first process (no --as-pid-1): the first process ignores the signals
    # it sends itself, so abort() would end as a segmentation fault.
    options = [bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
    for path in SYSTEM_FOLDERS:
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    for path in hidden:
        if any(path == root or path.startswith(root + "/") for root in SYSTEM_FOLDERS):
            options += (["--tmpfs", path] if os.path.isdir(path)
                        else ["--ro-bind", "/dev/null", path])
    size = str(tmpfs_bytes)
    options += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/tmp",
                "--size", size, "--tmpfs", "/dev/shm"]
    for path in read_only:
        options += ["--ro-bind", path, path]
    if seccomp_fd is not None:
        # Installed by bwrap right before it starts the command, after its own setup.
        options += ["--seccomp", str(seccomp_fd)]
    options += ["--bind", folder, folder, "--chdir", folder, "--"]
    return options
