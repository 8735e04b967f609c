"""Reading, copying and removing folders that a submission controls, safely and boundedly.

Everything a student hands in, and everything a run leaves behind, may be hostile: links
to files of ours (``visited.txt -> /etc/shadow``), special files that block or never end
(a FIFO, ``/proc/self/mem``, ``/dev/zero``), trees 10,000 folders deep, sparse files of
gigabytes. The functions here

* never follow a symbolic link: every path is opened component by component relative to
  an open folder, with ``O_NOFOLLOW``;
* read regular files only (a FIFO, device or socket is skipped: ``O_NONBLOCK`` keeps even
  the open from waiting), and at most a given number of bytes of each;
* walk folders iteratively, within bounds of depth, entries and bytes (:class:`Bounds`),
  and raise :class:`TooLarge` (a verdict for the submission, never a crash) past them.

The kit calls them only after every process of the run is dead, so nothing changes
under them while they work.
"""

import os
import stat
from typing import NamedTuple

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | _NOFOLLOW


class Bounds(NamedTuple):
    """How much of a folder is walked: levels below it, entries in all, bytes in all."""
    depth: int = 32
    entries: int = 10_000
    bytes: int = 256 * 1024 * 1024


class TooLarge(Exception):
    """A folder went past its :class:`Bounds`; the message says which bound, in words."""


def open_folder(path, dir_fd=None):
    """A descriptor of the folder ``path`` (relative to ``dir_fd``), never through a link.
    Raises OSError (ELOOP or ENOTDIR for a link or a file)."""
    return os.open(path, _FOLDER_FLAGS, dir_fd=dir_fd)


def read_regular(name, dir_fd=None, cap=None):
    """``(data, size)`` of the regular file ``name`` (relative to ``dir_fd``): at most
    ``cap`` bytes of it (all when None) and its full size; None when it is not a regular
    file (a link, a folder, a FIFO, a device) or cannot be opened."""
    try:
        descriptor = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return None
        want = status.st_size if cap is None else min(status.st_size, cap)
        chunks, got = [], 0
        while got < want:
            chunk = os.read(descriptor, min(want - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks), status.st_size
    except OSError:
        return None
    finally:
        os.close(descriptor)


def read_text_file(path, cap=1 << 20):
    """The text of the regular file ``path`` (at most ``cap`` bytes, decoded leniently),
    or None when it is missing, a link, a special file or unreadable."""
    parent, name = os.path.split(path)
    try:
        folder = open_folder(parent or ".")
    except OSError:
        return None
    try:
        found = read_regular(name, folder, cap)
    finally:
        os.close(folder)
    return None if found is None else found[0].decode("utf-8", errors="replace")


class Entry(NamedTuple):
    """One entry found by :func:`walk`: its path relative to the top (POSIX separators),
    its ``lstat`` result, and the kind: "file", "folder", "link" or "other"."""
    path: str
    status: os.stat_result
    kind: str


def _kind(mode):
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    return "other"


def open_path(relative, dir_fd):
    """A descriptor of the folder ``relative`` ("a/b/c") below the open folder ``dir_fd``,
    opened one component at a time so that no component may be a link. Raises OSError."""
    current = os.dup(dir_fd)
    try:
        for part in relative.split("/"):
            if not part:
                continue
            following = open_folder(part, current)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def walk(top, bounds=Bounds(), skip=()):
    """Every entry below the folder ``top`` (a path, not followed if it is a link), parents
    before children, sorted by name within a folder; folders named in ``skip`` are listed
    but not entered. Raises TooLarge past ``bounds`` (bytes: the sizes of regular files),
    OSError when ``top`` is not a folder. At most two descriptors are open at a time."""
    entries = []
    total = 0
    root = open_folder(top)
    try:
        pending = [("", 0)]
        while pending:
            prefix, depth = pending.pop()
            try:
                folder = open_path(prefix, root)
            except OSError:
                continue
            try:
                names = sorted(os.listdir(folder))
                children = []
                for name in names:
                    try:
                        status = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    except OSError:
                        continue
                    kind = _kind(status.st_mode)
                    entries.append(Entry(prefix + name, status, kind))
                    if len(entries) > bounds.entries:
                        raise TooLarge(f"more than {bounds.entries:,} files and folders")
                    if kind == "file":
                        total += status.st_size
                        if total > bounds.bytes:
                            raise TooLarge(f"more than {_megabytes(bounds.bytes)} of files")
                    elif kind == "folder" and name not in skip:
                        if depth + 1 > bounds.depth:
                            raise TooLarge(f"folders nested more than {bounds.depth} deep")
                        children.append((prefix + name + "/", depth + 1))
                pending.extend(reversed(children))
            finally:
                os.close(folder)
    finally:
        os.close(root)
    return entries


def _megabytes(count):
    return f"{count / (1024 * 1024):g} MB"


def copy_tree(source, destination, bounds=Bounds(), skip=(), keep=None, existing=False,
              entries=None):
    """Copy the folder ``source`` into the new folder ``destination`` (with ``existing``,
    into that empty folder): folders, regular files (with their permission bits and
    times) and symbolic links (as links, never followed); FIFOs, devices and sockets are
    left out, so are names in ``skip`` at any level and, at the top, names not in
    ``keep`` (when given). ``entries`` is ``walk(source, ...)`` when the caller has it.
    Returns the entries copied. Raises TooLarge past ``bounds`` (the caller removes what
    was copied)."""
    if entries is None:
        entries = walk(source, bounds, skip)
    if not existing:
        os.mkdir(destination, 0o755)
    copied = []
    source_root = open_folder(source)
    target_root = open_folder(destination)
    try:
        for entry in entries:
            parts = entry.path.split("/")
            if entry.kind == "other" or any(part in skip for part in parts) or (
                    keep is not None and parts[0] not in keep):
                continue
            copied.append(entry)
            parent, _, name = entry.path.rpartition("/")
            if entry.kind == "folder":
                _in_folder(target_root, parent, os.mkdir, name, 0o755)
            elif entry.kind == "link":
                target = _in_folder(source_root, parent, os.readlink, name)
                _in_folder(target_root, parent, os.symlink, target, name)
            elif entry.kind == "file":
                _copy_file(entry, source_root, target_root)
    finally:
        os.close(source_root)
        os.close(target_root)
    return copied


def _in_folder(root, relative, function, *args):
    """``function(*args, dir_fd=...)`` in the folder ``relative`` below ``root`` (no
    links)."""
    folder = open_path(relative, root)
    try:
        return function(*args, dir_fd=folder)
    finally:
        os.close(folder)


def _copy_file(entry, source_root, target_root):
    parent, _, name = entry.path.rpartition("/")
    source_folder = open_path(parent, source_root)
    try:
        target_folder = open_path(parent, target_root)
    except BaseException:
        os.close(source_folder)
        raise
    try:
        reader = os.open(name, _READ_FLAGS, dir_fd=source_folder)
        try:
            if not stat.S_ISREG(os.fstat(reader).st_mode):
                return
            mode = stat.S_IMODE(entry.status.st_mode) & 0o777
            writer = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW,
                             mode | 0o600, dir_fd=target_folder)
            try:
                left = entry.status.st_size
                while left > 0:
                    chunk = os.read(reader, min(left, 1 << 20))
                    if not chunk:
                        break
                    os.write(writer, chunk)
                    left -= len(chunk)
                os.fchmod(writer, mode)
                os.utime(writer, ns=(entry.status.st_atime_ns, entry.status.st_mtime_ns))
            finally:
                os.close(writer)
        finally:
            os.close(reader)
    finally:
        os.close(source_folder)
        os.close(target_folder)


def _clear_files(folder):
    """Unlink every non-folder entry of the open ``folder``; return its sub-folders'
    names (made enterable and writable by us first: a submission may leave mode-000
    folders)."""
    folders = []
    try:
        names = os.listdir(folder)
    except OSError:
        return folders
    for name in names:
        try:
            status = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(status.st_mode):
                if status.st_mode & 0o700 != 0o700:
                    os.chmod(name, 0o700, dir_fd=folder, follow_symlinks=False)
                folders.append(name)
            else:
                os.unlink(name, dir_fd=folder)
        except OSError:
            pass
    return folders


def remove_contents(folder_fd):
    """Remove everything inside the open folder ``folder_fd`` (not the folder itself),
    however deep, without following links and with two descriptors open at most (the
    way back up is each folder's ``..``: nothing moves, the run's processes are dead).
    What cannot be removed stays."""
    current = os.dup(folder_fd)
    names = [None]                          # our name in the parent, per level
    pending = [_clear_files(current)]       # sub-folders still to empty, per level
    while True:
        if pending[-1]:
            child = pending[-1].pop()
            try:
                following = open_folder(child, current)
            except OSError:
                continue
            os.close(current)
            current = following
            names.append(child)
            pending.append(_clear_files(current))
            continue
        pending.pop()
        name = names.pop()
        if name is None:
            os.close(current)
            return
        try:
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC,
                             dir_fd=current)
        except OSError:
            os.close(current)
            return
        os.close(current)
        current = parent
        try:
            os.rmdir(name, dir_fd=current)
        except OSError:
            pass


def remove_tree(path):
    """Remove ``path`` (a folder, however deep; or a file or link) without following
    links. Missing is fine; what cannot be removed stays."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        parent_fd = open_folder(parent)
    except OSError:
        return
    try:
        try:
            status = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            if not stat.S_ISDIR(status.st_mode):
                os.unlink(name, dir_fd=parent_fd)
                return
            if status.st_mode & 0o700 != 0o700:
                os.chmod(name, 0o700, dir_fd=parent_fd, follow_symlinks=False)
            folder = open_folder(name, parent_fd)
        except OSError:
            return
        try:
            remove_contents(folder)
        finally:
            os.close(folder)
        try:
            os.rmdir(name, dir_fd=parent_fd)
        except OSError:
            pass
    finally:
        os.close(parent_fd)
