"""Blocks of sandbox uids that no two live kits ever share.

A kit running as root gives every run a fresh uid (:mod:`engine.sandbox`). Two
kits at once (two terminals, two tasks of a cluster array on one node) must never hand
out the same uid: one's cleanup would kill the other's processes and its file fence
would let one run read the other's folder. Uids come in blocks of :data:`BLOCK` from
:data:`BASE` on; a kit takes a block by holding an exclusive ``flock`` on the file
``block-N`` in a folder only root may write (:func:`lease_folder`). The kernel releases
the lock when the kit exits, however it exits (SIGKILL included), so the block of a dead
kit is free again at once: nothing stale needs reclaiming by hand.

Limits: the folder is per machine (per mount namespace): kits in separate containers
that share one kernel's uid space but not /run could still meet; they also share no
files, so a shared uid there costs only the process limit's count.
"""

import errno
import fcntl
import os
import stat
import tempfile
import threading
from typing import Iterable, Optional
from ..errors import EngineError

BASE = 3_500_000
BLOCK = 100_000
BLOCKS = 10_000
FOLDER_NAME = "engine-grading-uids"


class LeaseError(EngineError, OSError):
    """No block could be leased (every block taken, or no safe folder for the locks)."""


def lease_folder(parents: Optional[Iterable[str]] = None) -> str:
    """The folder of the lease files: ``/run/engine-grading-uids`` (or in the temporary
    folder when /run is not writable; ``parents`` replaces both), made 0700 by us and
    refused when it is a link, another user's or open to others (a submission could
    then hold a lock)."""
    errors = []
    for parent in parents or ("/run", tempfile.gettempdir()):
        path = os.path.join(parent, FOLDER_NAME)
        try:
            os.mkdir(path, 0o700)   # never follows a link at ``path``
        except FileExistsError:
            pass
        except OSError as error:
            errors.append(f"{path}: {error.strerror}")
            continue
        status = os.lstat(path)
        if (not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid()
                or status.st_mode & 0o077):
            errors.append(f"{path}: not a private folder of ours")
            continue
        return path
    raise LeaseError(errno.EACCES, "no folder for uid leases: " + "; ".join(errors))


class Lease:
    """One leased block: ``first`` is its first uid; the lock lives as long as the
    descriptor (closed by :meth:`release`, or by the kernel when the process ends)."""

    def __init__(self, folder: Optional[str] = None, start: Optional[int] = None) -> None:
        folder = lease_folder() if folder is None else folder
        start = os.getpid() % BLOCKS if start is None else start
        self.pid = os.getpid()
        for step in range(BLOCKS):
            block = (start + step) % BLOCKS
            descriptor = os.open(os.path.join(folder, f"block-{block}"),
                                 os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                continue
            except BaseException:
                os.close(descriptor)
                raise
            # Who holds it, for a person looking (the lock is what counts).
            os.ftruncate(descriptor, 0)
            os.write(descriptor, f"{self.pid}\n".encode())
            self.descriptor: Optional[int] = descriptor
            self.block = block
            self.first = BASE + block * BLOCK
            return
        raise LeaseError(errno.EAGAIN, f"all {BLOCKS} uid blocks are leased")

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)
            self.descriptor = None


_lease: Optional[Lease] = None
_counter = 0
_lock = threading.Lock()


def next_uid() -> int:
    """A uid of this process's block that it has not handed out in its last
    :data:`BLOCK` runs (the block is leased on first use; a forked child leases its
    own: it inherits the descriptor, hence the lock, but must not share the block)."""
    global _lease, _counter
    with _lock:
        if _lease is None or _lease.pid != os.getpid():
            _lease = Lease()
            _counter = 0
        _counter += 1
        return _lease.first + _counter % BLOCK


def current_block() -> Optional[int]:
    """The block this process holds (None before its first uid)."""
    return None if _lease is None or _lease.pid != os.getpid() else _lease.block
