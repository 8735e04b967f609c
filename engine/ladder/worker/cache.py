"""A ladder worker's folder on disk, and the builds it keeps there by last use.

Layout (``root`` is /var/tmp, else the temporary folder: builds stay on disk, never in
the RAM of /dev/shm, since a worker keeps a class's worth of them for hours)::

    ladder-worker-<pid>-<random>/   mode 0711, flock-ed by its worker for its life
        sources/                    0700: an archive, then its unpacked folder, for the
                                    time of one build (hidden from every run)
        builds/                     0711: the director's builds (``builds_root``)
        workspace -> /dev/shm/grade-<pid>-XXXX   a link naming the director's workspace

The director's workspace, and with it the run folders where the games are played,
stays the kit's (/dev/shm): there a run's files are memory charged to the run, so its
memory limit stops an agent that writes file after file; on disk nothing would bound
them but the disk. Runs never see this folder (the sandbox shows them their run
folder and the system's).

A worker killed outright (SIGKILL, its machine's OOM killer) cannot remove its folder.
The kernel releases its lock as it dies, so the next worker to start on the machine
(:func:`remove_dead_folders`) takes the lock of every such folder it can and removes
it, with the kit's link-safe remover, and the workspace its link names (whatever its
runs left in /dev/shm is memory). A lock held means a live worker, whatever PID
namespace it runs in; no age or PID guess is needed.

:class:`BuildCache` keeps the built submissions by last use (LRU): as many as the
class has entrants playing, plus some slack, and at most a number of bytes on disk,
and it never evicts one that the work being set up needs.
"""

import collections
import fcntl
import os
import stat
import secrets
import tempfile
import time
from typing import Any, Callable, Collection, List, NamedTuple, Optional

from ...sandbox import WORKSPACE_PREFIX, remove_tree

FOLDER_PREFIX = "ladder-worker-"
# A folder being made has this name until its worker holds its lock.
CLAIMING_PREFIX = ".ladder-worker-new-"
# ... and one whose worker died in that instant is removed after this many seconds.
CLAIM_SECONDS = 60.0
SOURCES = "sources"
BUILDS = "builds"
WORKSPACE_LINK = "workspace"


def cache_root() -> str:
    """Where workers' folders go: /var/tmp (on disk on every common system; /tmp may be
    a tmpfs) when it is a folder we may write, else the temporary folder."""
    preferred = "/var/tmp"
    if os.path.isdir(preferred) and os.access(preferred, os.W_OK | os.X_OK):
        return preferred
    return tempfile.gettempdir()


def _open_folder(path: str) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def _locked(descriptor: int) -> bool:
    """Take the exclusive lock of ``descriptor`` if nobody holds it; whether we did."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def remove_dead_folders(root: str) -> List[str]:
    """Remove the workers' folders in ``root`` that are ours (this user's) and whose
    worker is gone (nobody holds their lock); return them. Never raises."""
    removed: List[str] = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        claiming = name.startswith(CLAIMING_PREFIX)
        if not (name.startswith(FOLDER_PREFIX) or claiming):
            continue
        path = os.path.join(root, name)
        try:
            descriptor = _open_folder(path)
        except OSError:
            continue
        try:
            status = os.fstat(descriptor)
            young = claiming and time.time() - status.st_mtime < CLAIM_SECONDS
            if status.st_uid != os.geteuid() or young or not _locked(descriptor):
                continue
            _remove_noted_workspace(descriptor)
            remove_tree(path)
            if not os.path.lexists(path):
                removed.append(path)
        except OSError:
            continue
        finally:
            os.close(descriptor)
    return removed


def _remove_noted_workspace(folder: int) -> None:
    """Remove the kit workspace that the dead worker's folder (open as ``folder``)
    names in its ``workspace`` link (see :meth:`WorkerFolder.note_workspace`): only a
    folder of this user's, named as a kit's workspace. The link's text was written by
    the worker, in its own folder, which no run sees."""
    try:
        target = os.readlink(WORKSPACE_LINK, dir_fd=folder)
    except OSError:
        return
    if (not os.path.isabs(target) or os.path.normpath(target) != target
            or not os.path.basename(target).startswith(WORKSPACE_PREFIX)):
        return
    try:
        status = os.lstat(target)
    except OSError:
        return
    if stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid():
        remove_tree(target)


class WorkerFolder:
    """This worker's folder (see the module docstring), made in ``root`` (default
    :func:`cache_root`) after removing the dead workers' folders there
    (``removed`` lists them)."""

    def __init__(self, root: Optional[str] = None) -> None:
        root = cache_root() if root is None else root
        self.removed = remove_dead_folders(root)
        made = tempfile.mkdtemp(prefix=CLAIMING_PREFIX, dir=root)
        self._lock: Optional[int] = _open_folder(made)
        try:
            if not _locked(self._lock):
                raise OSError(f"{made}: locked by another process")
            # Named as a worker's folder only once locked: a worker starting now
            # never mistakes it for a dead one.
            while True:
                path = os.path.join(root, f"{FOLDER_PREFIX}{os.getpid()}-"
                                          f"{secrets.token_hex(6)}")
                if not os.path.lexists(path):
                    break
            os.rename(made, path)
            self.path = path
            # As the kit's workspace and builds/: others may pass through, never list.
            os.chmod(path, 0o711)
            self.sources = os.path.join(path, SOURCES)
            os.mkdir(self.sources, 0o700)
            self.builds = os.path.join(path, BUILDS)
            os.mkdir(self.builds, 0o711)
        except BaseException:
            self.close(made)
            raise

    def note_workspace(self, workspace: str) -> None:
        """Name the director's ``workspace`` (its run folders, in /dev/shm) in this
        folder, so that the next worker removes it too if this one is killed outright
        (the kit's own sweep of stale workspaces waits an hour)."""
        os.symlink(workspace, os.path.join(self.path, WORKSPACE_LINK))

    def close(self, path: Optional[str] = None) -> None:
        """Remove the folder (everything in it), then let go of its lock."""
        remove_tree(path or self.path)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


# --- the builds, by last use ---------------------------------------------------------

# Builds kept beyond the class's entrants: a few re-uploads between two reads of the
# class size.
MIN_SLACK = 4
DEFAULT_CLASS = 20
DEFAULT_CACHE_MB = 4096


def capacity_for(class_size: Any) -> int:
    """Builds to keep for a class of ``class_size`` entrants playing now (anchors
    included): all of them, plus a tenth and at least :data:`MIN_SLACK` more."""
    try:
        size = max(int(class_size), 0)
    except (TypeError, ValueError):
        size = DEFAULT_CLASS
    return size + max(MIN_SLACK, size // 10)


class Kept(NamedTuple):
    """A build in the cache: its entrant's name in the director, its bytes on disk."""
    name: str
    size: int


class BuildCache:
    """Submission id -> :class:`Kept`, least recently used first. ``forget(name)`` is
    called for each build evicted (:meth:`engine.tournament.director.Director.forget`,
    which removes it). ``capacity``: builds; ``byte_cap``: their bytes on disk.

    Eviction never touches the ids in ``keep`` (the players of the game being set
    up): the cache may then hold more than its caps until the next :meth:`trim`."""

    def __init__(self, forget: Callable[[str], None], capacity: int, byte_cap: int
                 ) -> None:
        self._forget = forget
        self.capacity = capacity
        self.byte_cap = byte_cap
        self._kept: "collections.OrderedDict[int, Kept]" = collections.OrderedDict()
        self.evicted = 0

    def ids(self) -> List[int]:
        """The ids built here, least recently used first."""
        return list(self._kept)

    def bytes(self) -> int:
        return sum(kept.size for kept in self._kept.values())

    def use(self, ident: int) -> Optional[str]:
        """The name of the build of ``ident`` (now the most recently used), or None."""
        kept = self._kept.get(ident)
        if kept is None:
            return None
        self._kept.move_to_end(ident)
        return kept.name

    def add(self, ident: int, name: str, size: int, keep: Collection[int] = ()) -> None:
        """Keep the new build ``name`` of ``ident`` (``size`` bytes), then :meth:`trim`
        around ``keep``."""
        self._kept[ident] = Kept(name, size)
        self._kept.move_to_end(ident)
        self.trim(keep, ident)

    def make_room(self, keep: Collection[int] = ()) -> None:
        """Evict until one more build fits in ``capacity`` (before a build: its bytes
        on disk are not there yet)."""
        self._evict_while(lambda: len(self._kept) + 1 > self.capacity, keep)

    def trim(self, keep: Collection[int] = (), newest: Optional[int] = None) -> None:
        """Evict, least recently used first and never ``keep`` (nor ``newest``), until
        the cache is within both caps."""
        kept = set(keep) | ({newest} if newest is not None else set())
        self._evict_while(lambda: len(self._kept) > self.capacity
                          or self.bytes() > self.byte_cap, kept)

    def _evict_while(self, over: Callable[[], bool], keep: Collection[int]) -> None:
        for ident in list(self._kept):
            if not over():
                break
            if ident in keep:
                continue
            kept = self._kept.pop(ident)
            self._forget(kept.name)
            self.evicted += 1
