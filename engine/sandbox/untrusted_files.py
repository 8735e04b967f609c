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
  and raise :class:`TooLarge` (a verdict for the submission, never a crash) past them;
* create files only exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``) and change, remove or
  give away an entry only through a descriptor of its own folder (:func:`write_new`,
  :func:`remove_beneath`, :func:`chown_beneath`, :func:`chmod_beneath`, ...).

This is THE module through which the kit touches a run, build or seat folder:
tests/test_trust_lint.py fails on a path-based file call (``open``, ``os.path.isdir``,
``Path.write_bytes``, ``shutil.*`` ...) anywhere else in engine/sandbox, engine/grading
and engine/tournament, but for a short list of paths that are ours only. A path below an
open folder is resolved by ``openat2`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``
where the kernel has it (Linux 5.6+), else one component at a time with ``O_NOFOLLOW``:
either way a link anywhere on the way, or a ``..``, is refused (ELOOP/EXDEV/EPERM),
even when a live process swaps folders and links while we walk.

The kit reads what a run left only after every process of the run is dead; it writes a
case's inputs before the run's processes start, into a folder it emptied itself.
"""

import ctypes
import errno
import os
import stat
import struct
from typing import (Any, Callable, Collection, Iterable, List, NamedTuple, Optional, Tuple,
                    Union)
from ..errors import EngineError

# O_PATH (010000000 on Linux): PyPy's os module does not name it.
O_PATH = getattr(os, "O_PATH", 0o10000000)
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | _NOFOLLOW


class Bounds(NamedTuple):
    """How much of a folder is walked: levels below it, entries in all, bytes in all."""
    depth: int = 32
    entries: int = 10_000
    bytes: int = 256 * 1024 * 1024


class TooLarge(EngineError):
    """A folder went past its :class:`Bounds`; the message says which bound, in words."""


def open_folder(path: str, dir_fd: Optional[int] = None) -> int:
    """A descriptor of the folder ``path`` (relative to ``dir_fd``), never through a link.
    Raises OSError (ELOOP or ENOTDIR for a link or a file)."""
    return os.open(path, _FOLDER_FLAGS, dir_fd=dir_fd)


def read_regular(name: str, dir_fd: Optional[int] = None, cap: Optional[int] = None
                 ) -> Optional[Tuple[bytes, int]]:
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
        # Each read asks for all that is still wanted, so the kernel copies the file
        # straight into the bytes object returned: a graded visited.txt is megabytes,
        # and chunks joined afterwards cost a second copy. A regular file reads short
        # only past 2 GiB a call or when it shrank meanwhile; only then are pieces joined.
        chunks: List[bytes] = []
        got = 0
        while got < want:
            chunk = os.read(descriptor, want - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return data, status.st_size
    except OSError:
        return None
    finally:
        os.close(descriptor)


def read_untrusted_text(path: str, cap: int = 1 << 20) -> Optional[str]:
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


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    return "other"


# openat2(2): its number is the same on every Linux architecture (new system calls are
# numbered alike since 5.1); RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS.
_OPENAT2 = 437
_RESOLVE = 0x04 | 0x08 | 0x02
_OPENAT2_STATE: List[Any] = []


def _libc_syscall() -> Any:
    """libc's syscall(), or None (no libc to load: then openat2 is never tried)."""
    if not _OPENAT2_STATE:
        try:
            function = ctypes.CDLL(None, use_errno=True).syscall
            function.restype = ctypes.c_long
            _OPENAT2_STATE.append(function)
        except (OSError, AttributeError):
            _OPENAT2_STATE.append(None)
    return _OPENAT2_STATE[0]


def _openat2(dir_fd: int, relative: str, flags: int, mode: int = 0) -> Any:
    """``openat2(dir_fd, relative, flags, mode, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)``
    (a descriptor); NotImplemented when the kernel (or seccomp) has no openat2. Raises
    OSError."""
    syscall = _libc_syscall()
    if syscall is None or os.uname().sysname != "Linux":
        return NotImplemented
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if not flags & os.O_CREAT and not (tmpfile and flags & tmpfile == tmpfile):
        mode = 0                     # openat2 refuses a mode it would not use
    how = ctypes.create_string_buffer(struct.pack("QQQ", flags, mode, _RESOLVE), 24)
    result = syscall(ctypes.c_long(_OPENAT2), ctypes.c_int(dir_fd),
                     ctypes.c_char_p(os.fsencode(relative)), how, ctypes.c_size_t(24))
    if result >= 0:
        return result
    error = ctypes.get_errno()
    if error in (errno.ENOSYS, errno.EPERM) and not _OPENAT2_CHECKED:
        # No openat2 here (an old kernel, or a seccomp filter refusing it): fall back
        # for good. (EPERM later on is a real answer: the probe below settled it.)
        _OPENAT2_STATE[0] = None
        return NotImplemented
    raise OSError(error, os.strerror(error), relative)


_OPENAT2_CHECKED: List[bool] = []


def _probe_openat2() -> None:
    """Settle once whether openat2 works here (on ``/``, which always exists)."""
    if _OPENAT2_CHECKED:
        return
    root = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        found = _openat2(root, ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        if found is not NotImplemented:
            os.close(found)
    except OSError:
        _OPENAT2_STATE[:] = [None]
    finally:
        os.close(root)
        _OPENAT2_CHECKED.append(True)


def uses_openat2() -> bool:
    """True when paths below a folder are resolved by openat2 here (else component by
    component with O_NOFOLLOW)."""
    _probe_openat2()
    return _libc_syscall() is not None


def _parts(relative: str) -> List[str]:
    """The components of ``relative``; ValueError for an absolute path or a ``..``."""
    if relative.startswith("/"):
        raise ValueError(f"not a relative path: {relative!r}")
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"'..' in {relative!r}")
    return parts


def open_beneath(relative: str, dir_fd: int, flags: int, mode: int = 0o600) -> int:
    """``os.open`` of ``relative`` below the open folder ``dir_fd``, never through a link
    (on the way or at the end) and never outside it. Raises OSError (ELOOP, EXDEV, ...),
    ValueError for an absolute path or a ``..``."""
    parts = _parts(relative)
    flags |= _NOFOLLOW
    if not parts:
        return os.open(".", flags, mode, dir_fd=dir_fd)
    _probe_openat2()
    found = _openat2(dir_fd, "/".join(parts), flags, mode)
    if found is not NotImplemented:
        return found
    folder = _walk_down(parts[:-1], dir_fd)
    try:
        return os.open(parts[-1], flags, mode, dir_fd=folder)
    finally:
        os.close(folder)


def _walk_down(parts: Iterable[str], dir_fd: int, make_mode: Optional[int] = None) -> int:
    """A descriptor of the folder reached from the open folder ``dir_fd`` through the
    components ``parts``, each opened with O_NOFOLLOW relative to the one before (a link
    or a file on the way raises OSError). With ``make_mode``, each component missing is
    made first (that mode; one already there is fine). One descriptor is held at a time
    and none is left open when it raises."""
    current = os.dup(dir_fd)
    try:
        for part in parts:
            if make_mode is not None:
                try:
                    os.mkdir(part, make_mode, dir_fd=current)
                except FileExistsError:
                    pass
            following = open_folder(part, current)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def open_path(relative: str, dir_fd: int) -> int:
    """A descriptor of the folder ``relative`` ("a/b/c") below the open folder ``dir_fd``,
    so that no component may be a link (openat2 where the kernel has it, else one
    component at a time with O_NOFOLLOW). Raises OSError."""
    try:
        return open_beneath(relative, dir_fd, os.O_RDONLY | os.O_DIRECTORY)
    except ValueError as error:
        raise OSError(errno.EPERM, str(error)) from None


def _parent_of(relative: str, dir_fd: int) -> Tuple[int, str]:
    """``(descriptor of the folder holding relative's last component, that name)``."""
    parts = _parts(relative)
    if not parts:
        raise OSError(errno.EINVAL, f"no name in {relative!r}")
    return open_path("/".join(parts[:-1]), dir_fd), parts[-1]


def lstat_beneath(relative: str, dir_fd: int) -> Optional[os.stat_result]:
    """The ``lstat`` of ``relative`` below ``dir_fd`` (the entry itself, never a link's
    target), or None when it (or a folder on the way) is missing or a link on the way."""
    try:
        parent, name = _parent_of(relative, dir_fd)
    except OSError:
        return None
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(parent)


def regular_file_in(folder: str, relative: str) -> bool:
    """True when ``relative`` below the folder ``folder`` is a regular file (no link on
    the way nor at the end)."""
    try:
        top = open_folder(folder)
    except OSError:
        return False
    try:
        status = lstat_beneath(relative, top)
    except ValueError:
        return False
    finally:
        os.close(top)
    return status is not None and stat.S_ISREG(status.st_mode)


def make_folders(relative: str, dir_fd: int, mode: int = 0o755) -> int:
    """Make the folder ``relative`` below ``dir_fd`` and any missing one on the way (no
    link followed: an existing link or file on the way raises OSError); return a
    descriptor of it."""
    return _walk_down(_parts(relative), dir_fd, make_mode=mode)


def write_new(relative: str, data: bytes, dir_fd: int, mode: int = 0o644,
              owner: Optional[Tuple[int, int]] = None) -> None:
    """Create the file ``relative`` below ``dir_fd`` holding ``data``, with its missing
    folders: the file exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``: an entry already
    there, a link included, raises FileExistsError), each folder without following a
    link. ``owner`` (uid, gid), when given, gets the file (by its descriptor)."""
    parts = _parts(relative)
    folder = make_folders("/".join(parts[:-1]), dir_fd)
    try:
        descriptor = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW,
                             mode, dir_fd=folder)
    finally:
        os.close(folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
        if owner is not None:
            os.fchown(descriptor, *owner)
    finally:
        os.close(descriptor)


def remove_beneath(relative: str, dir_fd: int) -> bool:
    """Remove the entry ``relative`` below ``dir_fd`` (a folder however deep, a file, a
    link: never followed). Missing, or a link on the way, is fine: nothing is removed
    outside. Returns True when nothing is left under that name."""
    try:
        parent, name = _parent_of(relative, dir_fd)
    except OSError:
        return True
    try:
        _remove_entry(parent, name)
        try:
            os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return True
        return False
    finally:
        os.close(parent)


def chown_beneath(relative: str, dir_fd: int, uid: int, gid: int) -> None:
    """``lchown`` the entry ``relative`` below ``dir_fd`` (a link itself, never its
    target; no link on the way)."""
    parent, name = _parent_of(relative, dir_fd)
    try:
        os.chown(name, uid, gid, dir_fd=parent, follow_symlinks=False)
    finally:
        os.close(parent)


def chmod_beneath(relative: str, dir_fd: int, mode: int) -> None:
    """``chmod`` the file or folder ``relative`` below ``dir_fd`` through a descriptor of
    its own (a link, a FIFO or a device is left alone: OSError)."""
    descriptor = open_beneath(relative, dir_fd, O_PATH)
    try:
        _chmod_descriptor(descriptor, mode, relative)
    finally:
        os.close(descriptor)


def _chmod_descriptor(descriptor: int, mode: int, name: str) -> None:
    """chmod the file or folder an ``O_PATH`` descriptor names (O_PATH: no read right
    needed, so a mode-000 folder of ours can be opened up again). fchmod refuses O_PATH
    descriptors; /proc/self/fd/N names exactly that inode."""
    kind = stat.S_IFMT(os.fstat(descriptor).st_mode)
    if kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise OSError(errno.EPERM, "neither a file nor a folder", name)
    os.chmod(f"/proc/self/fd/{descriptor}", mode)


def new_folder(path: str, mode: int = 0o700) -> int:
    """Make the folder ``path`` (its parent is ours: a workspace folder) and return a
    descriptor of it, opened without following a link."""
    os.mkdir(path, mode)
    return open_folder(path)


def remove_owned_by(folder: str, uid: int) -> None:
    """Remove every top-level entry of ``folder`` (a shared temporary folder: /tmp, ...)
    that ``uid`` owns, through a descriptor of the folder: never followed, never
    outside it. Missing or unreadable folders are skipped."""
    try:
        top = open_folder(folder)
    except OSError:
        return
    try:
        try:
            names = os.listdir(top)
        except OSError:
            return
        for name in names:
            try:
                if os.stat(name, dir_fd=top, follow_symlinks=False).st_uid == uid:
                    _remove_entry(top, name)
            except OSError:
                pass
    finally:
        os.close(top)


def move_out(run_folder: str, destination: str, home: str, bounds: Bounds = Bounds()
             ) -> Optional[List[Entry]]:
    """Move everything in ``run_folder`` into the new folder ``destination`` (mode 0700)
    inside ``home`` (a folder the kit just made, opened to others as 0711 afterwards):
    renamed entry by entry through descriptors, links moved as links. Where ``home`` is
    on another file system (rename fails with EXDEV: a workspace in /dev/shm, builds on
    disk), the entries are copied within ``bounds`` instead and the run folder emptied
    (:func:`copy_across`; every process of the run must be dead). Returns None when
    everything was renamed, else the entries copied: FIFOs, sockets and devices are not
    carried across, so a walk of the run folder made before no longer describes
    ``destination``. Raises TooLarge past ``bounds`` (nothing copied, the run folder as
    it was), OSError."""
    home_fd = open_folder(home)
    try:
        os.mkdir(os.path.basename(destination), 0o700, dir_fd=home_fd)
        target = open_folder(os.path.basename(destination), home_fd)
        try:
            source = open_folder(run_folder)
            try:
                copied = move_contents(source, target, bounds)
            finally:
                os.close(source)
        finally:
            os.close(target)
        os.fchmod(home_fd, 0o711)
    finally:
        os.close(home_fd)
    return copied


def hard_link(name: str, source_fd: int, target_fd: int) -> None:
    """Hard-link the entry ``name`` of the open folder ``source_fd`` as ``name`` in the
    open folder ``target_fd`` (a link is linked itself, never its target)."""
    try:
        os.link(_single(name), name, src_dir_fd=source_fd, dst_dir_fd=target_fd,
                follow_symlinks=False)
    except OSError as error:
        # PyPy passes AT_SYMLINK_NOFOLLOW to linkat, which refuses it (EINVAL); linkat
        # with no flag is the same call: it never follows a link either.
        if error.errno != errno.EINVAL:
            raise
        _linkat_no_flags(name, source_fd, target_fd)


def _linkat_no_flags(name: str, source_fd: int, target_fd: int) -> None:
    """linkat(source_fd, name, target_fd, name, 0) through libc."""
    linkat = ctypes.CDLL(None, use_errno=True).linkat
    encoded = ctypes.c_char_p(os.fsencode(name))
    if linkat(ctypes.c_int(source_fd), encoded, ctypes.c_int(target_fd), encoded,
              ctypes.c_int(0)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number), name)


def make_link(target: str, name: str, dir_fd: int) -> None:
    """Create the symbolic link ``name`` -> ``target`` in the open folder ``dir_fd``
    (``target`` is only text: it is never resolved here)."""
    os.symlink(target, _single(name), dir_fd=dir_fd)


def read_link(name: str, dir_fd: int) -> str:
    """The target (text) of the symbolic link ``name`` in the open folder ``dir_fd``."""
    return os.readlink(_single(name), dir_fd=dir_fd)


def _single(name: str) -> str:
    """``name`` when it is one plain component, else ValueError."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a plain name: {name!r}")
    return name


def move_contents(source_fd: int, destination_fd: int, bounds: Bounds = Bounds()
                  ) -> Optional[List[Entry]]:
    """Move every entry of the open folder ``source_fd`` into the open folder
    ``destination_fd`` (renameat: links move as links, never followed); None. When the
    two lie on different file systems (EXDEV, which the pair of folders decides: the
    first rename meets it), copy them within ``bounds`` instead (:func:`copy_across`)
    and return the entries copied."""
    for name in os.listdir(source_fd):
        try:
            os.rename(name, name, src_dir_fd=source_fd, dst_dir_fd=destination_fd)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            return copy_across(source_fd, destination_fd, bounds)
    return None


def copy_across(source_fd: int, destination_fd: int, bounds: Bounds = Bounds()
                ) -> List[Entry]:
    """Copy everything in the open folder ``source_fd`` (what a run left: call it only
    once every process of the run is dead) into the open, empty folder
    ``destination_fd``, then empty ``source_fd``; return the entries copied.

    Where a rename cannot go (another file system), this carries a build over link-safely:
    the source is walked iteratively within ``bounds`` from its descriptor, every entry
    reached below an open folder with no link on the way (:func:`open_path`); regular
    files are copied with their permission bits (no set-id bits) and times, folders made
    (0755, as :func:`copy_tree` makes them), symbolic links made again as links with the
    same text (never followed); FIFOs, sockets and devices are left out. Entries that we
    own but may not read (a mode-000 file or folder of a run that had our uid) are
    opened to us first: the source is thrown away. Raises TooLarge past ``bounds``
    before anything is copied; on any failure what was copied is removed and the source
    is left as it was (the caller clears it), OSError."""
    entries = walk_folder(source_fd, bounds, open_up=True)
    try:
        copied = _copy_entries(entries, source_fd, destination_fd)
    except BaseException:
        remove_contents(destination_fd)
        raise
    remove_contents(source_fd)
    return copied


def _remove_entry(parent: int, name: str) -> None:
    try:
        status = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(status.st_mode):
            os.unlink(name, dir_fd=parent)
            return
        if status.st_mode & 0o700 != 0o700:
            _chmod_folder(name, parent, 0o700)
        folder = open_folder(name, parent)
    except OSError:
        return
    try:
        remove_contents(folder)
    finally:
        os.close(folder)
    try:
        os.rmdir(name, dir_fd=parent)
    except OSError:
        pass


def _chmod_folder(name: str, parent: int, mode: int) -> None:
    """chmod the folder ``name`` of ``parent`` by a descriptor (never a link)."""
    folder = os.open(name, O_PATH | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent)
    try:
        _chmod_descriptor(folder, mode, name)
    finally:
        os.close(folder)


def walk(top: str, bounds: Bounds = Bounds(), skip: Collection[str] = ()) -> List[Entry]:
    """Every entry below the folder ``top`` (a path, not followed if it is a link), parents
    before children, sorted by name within a folder; folders named in ``skip`` are listed
    but not entered. Raises TooLarge past ``bounds`` (bytes: the sizes of regular files),
    OSError when ``top`` is not a folder. At most two descriptors are open at a time."""
    root = open_folder(top)
    try:
        return walk_folder(root, bounds, skip)
    finally:
        os.close(root)


def walk_folder(root: int, bounds: Bounds = Bounds(), skip: Collection[str] = (),
                open_up: bool = False) -> List[Entry]:
    """:func:`walk` of the open folder ``root``. With ``open_up``, a file or folder found
    without the owner's read (and, for a folder, search) right gets it before it is
    entered or read (see :func:`copy_across`: only for a tree about to be thrown away);
    the entries keep the modes found. One more descriptor than ``root`` is open at a
    time."""
    entries: List[Entry] = []
    total = 0
    pending = [("", 0)]
    while pending:
        prefix, depth = pending.pop()
        try:
            folder = open_path(prefix, root)
        except OSError:
            continue
        try:
            children: List[Tuple[str, int]] = []
            for name in sorted(os.listdir(folder)):
                try:
                    status = os.stat(name, dir_fd=folder, follow_symlinks=False)
                except OSError:
                    continue
                kind = _kind(status.st_mode)
                entries.append(Entry(prefix + name, status, kind))
                if len(entries) > bounds.entries:
                    raise TooLarge(f"more than {bounds.entries:,} files and folders")
                if open_up:
                    _open_up(name, folder, status)
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
    return entries


def _open_up(name: str, folder: int, status: os.stat_result) -> None:
    """Give the owner of the file or folder ``name`` of ``folder`` the rights we need to
    copy it (read; and search for a folder), through a descriptor of its own; quietly
    nothing when it has them, is another kind or is not ours to change."""
    wanted = {"file": 0o400, "folder": 0o500}.get(_kind(status.st_mode))
    if wanted is None or status.st_mode & wanted == wanted:
        return
    try:
        descriptor = os.open(name, O_PATH | _NOFOLLOW, dir_fd=folder)
    except OSError:
        return
    try:
        _chmod_descriptor(descriptor, stat.S_IMODE(status.st_mode) | wanted, name)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _megabytes(count: int) -> str:
    return f"{count / (1024 * 1024):g} MB"


def copy_tree(source: str, destination: Union[str, int], bounds: Bounds = Bounds(),
              skip: Collection[str] = (), keep: Optional[Collection[str]] = None,
              existing: bool = False, entries: Optional[List[Entry]] = None
              ) -> List[Entry]:
    """Copy the folder ``source`` into the new folder ``destination`` (with ``existing``,
    into that empty folder; an int: that open, empty folder): folders, regular files
    (with their permission bits and times) and symbolic links (as links, never
    followed); FIFOs, devices and sockets are left out, so are names in ``skip`` at any
    level and, at the top, names not in ``keep`` (when given). ``entries`` is
    ``walk(source, ...)`` when the caller has it. Returns the entries copied. Raises
    TooLarge past ``bounds`` (the caller removes what was copied)."""
    if entries is None:
        entries = walk(source, bounds, skip)
    if isinstance(destination, int):
        target_root = os.dup(destination)
    else:
        if not existing:
            os.mkdir(destination, 0o755)
        target_root = open_folder(destination)
    try:
        source_root = open_folder(source)
    except BaseException:
        os.close(target_root)
        raise
    try:
        return _copy_entries(entries, source_root, target_root, skip, keep)
    finally:
        os.close(source_root)
        os.close(target_root)


def _copy_entries(entries: Iterable[Entry], source_root: int, target_root: int,
                  skip: Collection[str] = (), keep: Optional[Collection[str]] = None
                  ) -> List[Entry]:
    """Copy ``entries`` (a walk of the open folder ``source_root``, parents first) into
    the open folder ``target_root``: see :func:`copy_tree`. Returns those copied."""
    copied: List[Entry] = []
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
    return copied


def _in_folder(root: int, relative: str, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args, dir_fd=...)`` in the folder ``relative`` below ``root`` (no
    links)."""
    folder = open_path(relative, root)
    try:
        return function(*args, dir_fd=folder)
    finally:
        os.close(folder)


def _copy_file(entry: Entry, source_root: int, target_root: int) -> None:
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


def _clear_files(folder: int) -> List[str]:
    """Unlink every non-folder entry of the open ``folder``; return its sub-folders'
    names (made enterable and writable by us first: a submission may leave mode-000
    folders)."""
    folders: List[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return folders
    for name in names:
        try:
            status = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(status.st_mode):
                if status.st_mode & 0o700 != 0o700:
                    _chmod_folder(name, folder, 0o700)
                folders.append(name)
            else:
                os.unlink(name, dir_fd=folder)
        except OSError:
            pass
    return folders


def remove_contents(folder_fd: int) -> None:
    """Remove everything inside the open folder ``folder_fd`` (not the folder itself),
    however deep, without following links and with two descriptors open at most (the
    way back up is each folder's ``..``: nothing moves, the run's processes are dead).
    What cannot be removed stays."""
    current = os.dup(folder_fd)
    names: List[Optional[str]] = [None]     # our name in the parent, per level
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


def remove_tree(path: str) -> None:
    """Remove ``path`` (a folder, however deep; or a file or link) without following
    links. Missing is fine; what cannot be removed stays."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        parent_fd = open_folder(parent)
    except OSError:
        return
    try:
        _remove_entry(parent_fd, name)
    finally:
        os.close(parent_fd)
