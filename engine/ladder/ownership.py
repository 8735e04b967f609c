"""Handing DIR/data to the web process's user, as root, without walking it by path.

DIR/data belongs to the web process's user (``nobody`` by default), who may rename,
swap and link anything in it at any moment: a walk by path could be led, one folder
swapped for a link after it was listed, into a tree of root's, and a chown by path
would give root's files away. So root never resolves a path in there:

* every folder is opened below an open folder without following a link (openat2 with
  RESOLVE_NO_SYMLINKS where the kernel has it, else one component at a time with
  O_NOFOLLOW: :func:`engine.sandbox.untrusted_files.open_path`);
* every entry is opened by its own descriptor (O_PATH | O_NOFOLLOW), looked at through
  that descriptor, and changed through it: whatever is swapped in afterwards is not
  what is changed;
* only what root owns is given (what root's own commands made: the database and its
  journals, folders made by ``ladder init``), and only folders and regular files with
  one name, on DIR/data's own file system: a link, a device, a FIFO, a hard link to a
  file elsewhere or a mount is left as it is.
"""

import os
import stat
from typing import List, Tuple

from ..errors import UsageError
from ..sandbox import O_PATH, open_folder, open_path

MAX_ENTRIES = 1_000_000
MAX_DEPTH = 32
_ENTRY_FLAGS = O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


def give_tree(top: int, name: str, uid: int, gid: int) -> int:
    """Give the folder ``name`` of the open folder ``top``, and what root owns below it,
    to ``uid``:``gid`` (see the module docstring); the number of entries given.
    Raises OSError when ``name`` is not a folder (a link included), UsageError past
    :data:`MAX_ENTRIES` entries. At most three descriptors are open at a time."""
    root = open_folder(name, top)
    try:
        device = os.fstat(root).st_dev
        given = int(_give(root, device, uid, gid))
        pending: List[str] = [""]
        seen = 0
        while pending:
            prefix = pending.pop()
            try:
                folder = open_path(prefix, root) if prefix else os.dup(root)
            except OSError:                 # swapped for a link or a file: not entered
                continue
            try:
                names = os.listdir(folder)
                seen += len(names)
                if seen > MAX_ENTRIES:
                    raise UsageError(f"{name} holds more than {MAX_ENTRIES:,} entries")
                for entry in names:
                    kind, changed = _give_entry(folder, entry, device, uid, gid)
                    given += changed
                    if kind == "folder" and prefix.count("/") < MAX_DEPTH:
                        pending.append(prefix + entry + "/")
            finally:
                os.close(folder)
        return given
    finally:
        os.close(root)


def _give_entry(folder: int, name: str, device: int, uid: int, gid: int) -> Tuple[str, bool]:
    """Open ``name`` of ``folder`` by a descriptor of its own (never through a link),
    give it when it qualifies: (its kind, "folder", "file" or "other"; whether given)."""
    try:
        descriptor = os.open(name, _ENTRY_FLAGS, dir_fd=folder)
    except OSError:                         # gone meanwhile
        return "other", False
    try:
        status = os.fstat(descriptor)
        if status.st_dev != device:
            return "other", False
        if stat.S_ISDIR(status.st_mode):
            return "folder", _give(descriptor, device, uid, gid)
        if stat.S_ISREG(status.st_mode) and status.st_nlink == 1:
            return "file", _give(descriptor, device, uid, gid)
        return "other", False
    finally:
        os.close(descriptor)


def _give(descriptor: int, device: int, uid: int, gid: int) -> bool:
    """chown the entry ``descriptor`` names (O_PATH or not) when root owns it: through
    /proc/self/fd, which names exactly that inode (fchown refuses O_PATH descriptors)."""
    status = os.fstat(descriptor)
    if status.st_uid != 0 or status.st_dev != device:
        return False
    os.chown(f"/proc/self/fd/{descriptor}", uid, gid)
    return True
