"""The kit's workspace: one folder per grading run, for builds and the slots' run folders.

Layout (all created by the kit; a submission only ever writes inside one ``run`` folder)::

    grade-<kit pid>-XXXX/        mode 0711: others may pass through, never list it
        builds/                  built submissions, each readable by its own runs only
        slot-0/run/              where slot 0 runs every build and case, one at a time
        slot-1/run/ ...

A run killed outright (SIGKILL) cannot remove its workspace, so every new one first
removes the workspaces of kits that are gone (:func:`remove_stale_workspaces`), with the
bounded, link-safe remover of :mod:`engine.sandbox.untrusted_files`: whatever a dead
run's submissions left there (trees 10,000 folders deep, mode-000 folders, links) never
stops the next run from starting.
"""

import os
import tempfile
import time
from typing import Iterable, List, Optional

from .untrusted_files import (Entry, copy_tree, hard_link, make_link, open_folder, read_link,
                              remove_tree)

# A grading run's workspace is named after its process, so that a later run can tell a
# workspace whose kit was killed outright from a live one.
WORKSPACE_PREFIX = "grade-"
# ... and only a workspace unchanged for this many seconds is stale: a kit in another PID
# namespace sharing /dev/shm (a container) has a pid this one cannot see, but a live run
# changes its workspace at least every case.
STALE_AFTER = 3600.0


def new_workspace(root: Optional[str] = None, in_memory: bool = True) -> str:
    """A fresh workspace folder ``grade-<pid>-XXXX`` in ``root`` (default
    :func:`workspace_root`), after removing the ones left by dead grading runs there."""
    root = workspace_root(in_memory) if root is None else root
    remove_stale_workspaces(root)
    folder = tempfile.mkdtemp(prefix=f"{WORKSPACE_PREFIX}{os.getpid()}-", dir=root)
    # Sandbox users pass through to their own run folder, but cannot list what is here.
    os.chmod(folder, 0o711)
    os.mkdir(os.path.join(folder, "builds"), 0o711)
    return folder


def slot_folder(workspace: str, slot: int) -> str:
    """The run folder of ``slot`` in ``workspace`` (created when missing): where every
    command of that slot runs."""
    slot_path = os.path.join(workspace, f"slot-{slot}")
    run = os.path.join(slot_path, "run")
    # mkdir never follows a link at its name: an entry already there is kept (and the
    # sandbox opens the run folder with O_NOFOLLOW, replacing anything but a folder).
    for path, mode in ((slot_path, 0o711), (run, 0o700)):
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            pass
    return run


def remove_stale_workspaces(root: Optional[str] = None, min_age: float = STALE_AFTER
                            ) -> List[str]:
    """Remove the workspaces in ``root`` (default: the temporary folder) that belong to
    this user, have not changed for ``min_age`` seconds and whose process is gone.
    Returns the folders removed. A workspace whose pid is alive (even if reused by
    another program) is left alone. Never raises."""
    root = tempfile.gettempdir() if root is None else root
    removed: List[str] = []
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
        remove_tree(path)
        if not os.path.lexists(path):
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
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


def workspace_root(in_memory: bool = True) -> Optional[str]:
    """Where workspaces go: with ``in_memory``, a RAM-backed /dev/shm when it is there and
    writable (runs create and delete thousands of small files; the sandbox counts a
    run's files there against its memory when cgroups run), else the temporary folder."""
    shared = "/dev/shm"
    if in_memory and os.path.isdir(shared) and os.access(shared, os.W_OK | os.X_OK):
        return shared
    return None


def populate(folder_fd: int, build: str, entries: Iterable[Entry], shared: bool) -> List[str]:
    """Fill the empty run folder (open as ``folder_fd``) from the built folder ``build``
    whose contents are ``entries`` (from :func:`engine.sandbox.untrusted_files.walk`);
    return the relative paths the run must own (all of them for a copy; none but the
    folder itself when ``shared``).

    Without ``shared``, a real copy: links stay links, times are preserved (so that
    unchanged files can be recognised afterwards). With ``shared`` (see
    :attr:`Sandbox.shares_builds`), a few system calls whatever the build's size: the
    top-level files are hard links, the top-level folders symbolic links to the build's
    own (absolute: the command sees the build at its path, see the ``read_only`` of
    :meth:`Sandbox.run`). The case can then replace top-level files (it owns the
    folder) but write into neither: the sandbox user owns none of the build."""
    if not shared:
        copied = copy_tree(build, folder_fd, existing=True, entries=list(entries))
        return [entry.path for entry in copied]
    build_fd = open_folder(build)
    try:
        for entry in entries:
            if "/" in entry.path:
                continue
            if entry.kind == "folder":
                make_link(os.path.join(build, entry.path), entry.path, folder_fd)
            elif entry.kind == "link":
                make_link(read_link(entry.path, build_fd), entry.path, folder_fd)
            elif entry.kind == "file":
                hard_link(entry.path, build_fd, folder_fd)
    finally:
        os.close(build_fd)
    return []
