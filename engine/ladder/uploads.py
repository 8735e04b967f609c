"""Uploaded agents: a .zip or .tar.gz of a student's folder, checked and unpacked safely.

An upload is hostile until proven otherwise. :func:`unpack` refuses the whole archive
(:class:`Refused`, a one-line reason shown to the student) when any member

* has an absolute name, a ``..`` component, a backslash or a NUL in its name;
* is anything but a regular file or a folder (links, hard links, devices, FIFOs);
* goes past the :class:`engine.grading.untrusted_files.Bounds` (entries, depth, bytes:
  a zip bomb declares small sizes or large ones, but its bytes are counted as they are
  inflated, so that 1 GB of zeros is refused after ``bounds.bytes``, whatever it says).

Files are created below the destination through open folder descriptors, one component
at a time, never following a link and never replacing anything
(:func:`engine.grading.untrusted_files.open_path`, ``O_NOFOLLOW | O_EXCL``), so nothing
can land outside the destination even if a check above were missed. On refusal what was
written is removed. Standard library only: remote workers unpack with it too.
"""

import os
import posixpath
import stat
import tarfile
import zipfile
from typing import IO, List, Optional, Set, Union, cast

from ..grading.untrusted_files import Bounds, open_folder, open_path, remove_tree

# What one upload may hold: far more than an agent needs, far less than a disk.
UPLOAD_BOUNDS = Bounds(depth=16, entries=2000, bytes=64 * 1024 * 1024)
CHUNK = 1 << 16
KINDS = ("zip", "tar.gz")


class Refused(ValueError):
    """An archive that is not unpacked; the message says why, in one line."""


def kind_of(data_head: bytes, filename: str = "") -> Optional[str]:
    """"zip" or "tar.gz" from the first bytes of an upload (its name only breaks no tie),
    or None when it is neither."""
    if data_head.startswith(b"PK\x03\x04") or data_head.startswith(b"PK\x05\x06"):
        return "zip"
    if data_head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    return None


def _clean_name(name: str) -> List[str]:
    """The member ``name`` as relative parts, or Refused."""
    if not name or "\x00" in name or "\\" in name:
        raise Refused(f"archive member {name[:80]!r}: a name with NUL or backslash")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise Refused(f"archive member {name[:80]!r}: an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if any(part == ".." for part in parts):
        raise Refused(f"archive member {name[:80]!r}: a '..' in its path")
    return parts


class _Writer:
    """Creates folders and files below ``root`` within ``bounds`` (see the module)."""

    def __init__(self, root: str, bounds: Bounds) -> None:
        self.root = root
        self.bounds = bounds
        self.entries = 0
        self.bytes = 0
        self.root_fd = open_folder(root)
        self.made: Set[str] = set()

    def close(self) -> None:
        os.close(self.root_fd)

    def _count(self, parts: List[str]) -> None:
        self.entries += 1
        if self.entries > self.bounds.entries:
            raise Refused(f"more than {self.bounds.entries:,} files and folders")
        if len(parts) > self.bounds.depth:
            raise Refused(f"folders nested more than {self.bounds.depth} deep")

    def folder(self, parts: List[str]) -> None:
        """Make the folder ``parts`` (and its parents) unless it exists."""
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            if path in self.made:
                continue
            self._count(parts[:depth])
            parent = open_path("/".join(parts[:depth - 1]), self.root_fd)
            try:
                os.mkdir(parts[depth - 1], 0o755, dir_fd=parent)
            except FileExistsError:
                raise Refused(f"archive member {path[:80]!r} appears twice") from None
            finally:
                os.close(parent)
            self.made.add(path)

    def file(self, parts: List[str], source: IO[bytes], executable: bool) -> None:
        """Create the file ``parts`` from the readable ``source``, counting its bytes."""
        self.folder(parts[:-1])
        self._count(parts)
        parent = open_path("/".join(parts[:-1]), self.root_fd)
        try:
            descriptor = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                 | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o755 if executable else 0o644, dir_fd=parent)
        except FileExistsError:
            raise Refused(f"archive member {'/'.join(parts)[:80]!r} appears twice") from None
        finally:
            os.close(parent)
        with os.fdopen(descriptor, "wb") as out:
            while True:
                chunk = source.read(CHUNK)
                if not chunk:
                    break
                self.bytes += len(chunk)
                if self.bytes > self.bounds.bytes:
                    raise Refused(f"more than {self.bounds.bytes >> 20} MB once unpacked")
                out.write(chunk)


def _unpack_zip(path: Union[str, "os.PathLike[str]"], writer: _Writer) -> None:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise Refused(f"not a readable zip file ({error})") from None
    with archive:
        members = archive.infolist()
        if len(members) > writer.bounds.entries:
            raise Refused(f"more than {writer.bounds.entries:,} files and folders")
        for info in members:
            parts = _clean_name(info.filename)
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if info.is_dir():
                if kind not in (0, stat.S_IFDIR):
                    raise Refused(f"archive member {info.filename[:80]!r} is not a file")
                writer.folder(parts)
                continue
            if kind not in (0, stat.S_IFREG) or not parts:
                raise Refused(f"archive member {info.filename[:80]!r} is a link or a "
                              "special file")
            try:
                with archive.open(info) as source:
                    writer.file(parts, source, bool(mode & 0o111))
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError,
                    OSError) as error:
                if isinstance(error, Refused):
                    raise
                raise Refused(f"archive member {info.filename[:80]!r} cannot be read "
                              f"({error})") from None


def _unpack_tar(path: Union[str, "os.PathLike[str]"], writer: _Writer) -> None:
    try:
        archive = tarfile.open(path, mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise Refused(f"not a readable .tar.gz file ({error})") from None
    with archive:
        try:
            while True:
                info = archive.next()
                if info is None:
                    break
                parts = _clean_name(info.name)
                if info.isdir():
                    writer.folder(parts)
                elif info.isreg() and parts:
                    source = archive.extractfile(info)      # a regular file's: not None
                    writer.file(parts, cast(IO[bytes], source), bool(info.mode & 0o111))
                else:
                    raise Refused(f"archive member {info.name[:80]!r} is a link or a "
                                  "special file")
                if writer.entries > writer.bounds.entries:
                    raise Refused(f"more than {writer.bounds.entries:,} files and folders")
        except (tarfile.TarError, OSError, EOFError) as error:
            if isinstance(error, Refused):
                raise
            raise Refused(f"not a readable .tar.gz file ({error})") from None


def unpack(path: Union[str, "os.PathLike[str]"], destination: Union[str, "os.PathLike[str]"],
           bounds: Bounds = UPLOAD_BOUNDS) -> str:
    """Unpack the archive file ``path`` (zip or tar.gz, told by its first bytes) into the
    new folder ``destination``; return the folder the agent is in (``destination``, or
    its one subfolder when the archive holds a single folder). Raises Refused (and
    leaves no ``destination``) for an archive it will not unpack."""
    destination = os.fspath(destination)
    with open(path, "rb") as handle:
        kind = kind_of(handle.read(8))
    if kind is None:
        raise Refused("not a .zip or .tar.gz file")
    os.mkdir(destination, 0o755)
    writer = _Writer(destination, bounds)
    try:
        (_unpack_zip if kind == "zip" else _unpack_tar)(path, writer)
    except BaseException:
        writer.close()
        remove_tree(destination)
        raise
    writer.close()
    names = [name for name in os.listdir(destination) if not name.startswith(".")
             and name != "__MACOSX"]
    if len(names) == 1 and os.path.isdir(os.path.join(destination, names[0])) and \
            not os.path.islink(os.path.join(destination, names[0])):
        return os.path.join(destination, names[0])
    return destination


def safe_relative(name: str) -> bool:
    """Whether ``name`` is a plain relative path (used for the files the server keeps)."""
    return bool(name) and not posixpath.isabs(name) and ".." not in name.split("/")
