"""Uploaded agents: a .zip or .tar.gz of a student's folder, checked ONCE, kept in our
normal form, unpacked safely.

An upload is hostile until proven otherwise. The server calls :func:`accept` once per
upload: it reads the raw archive with our own bounded readers
(:mod:`engine.ladder.zip_format`, :mod:`engine.ladder.tar_format`: every header, name,
member count, total and per-member size bounded BEFORE anything is buffered, see
:mod:`engine.ladder.uploads.rules`) and either refuses it (:class:`Refused`, a one-line
reason for the student) or writes our normal form of it: a .tar.gz of regular files and
folders only, clean names in sorted order, our modes (0755 or 0644), no owner, no times,
the single folder an agent is often wrapped in removed, nothing else of the original
archive. Its SHA-256 (:class:`Accepted`) depends only on the files: the same files
packed two ways give the same digest. Workers fetch that form only, never the raw
upload, and unpack it with :func:`unpack_normalised`, under the same bounds.

What an archive may hold (:data:`UPLOAD_BOUNDS`): 2,000 members (headers read, a folder
repeated included) and distinct files and folders, 16 levels of folders, 64 MB of files,
names of at most 1,024 bytes (255 a component), extended headers of at most 64 KB; the
archive file and its inflated tar stream at most 64 MB plus 4 KB a member plus 64 KB.
Checking one costs a few megabytes of memory and CPU in proportion to those bounds,
whatever it declares.

Files are created below the destination through open folder descriptors, one component
at a time, never following a link and never replacing anything
(:func:`engine.sandbox.untrusted_files.open_path`, ``O_NOFOLLOW | O_EXCL``), so nothing
can land outside the destination even if a check above were missed. On refusal what was
written is removed. Standard library only: remote workers unpack with it too.
"""

import errno
import hashlib
import os
import posixpath
import tempfile
import zlib
from typing import IO, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple, Union

from ...sandbox import Bounds, open_folder, open_path, remove_tree
from .rules import (CHUNK, UPLOAD_BOUNDS, Catalog, Refused, Sink, size_words,
                            stream_limit)
from .tar_format import Inflated, NormalTar, read_tar
from .zip_format import read_zip

__all__ = ["UPLOAD_BOUNDS", "KINDS", "NORMAL_KIND", "Refused", "Accepted", "kind_of",
           "accept", "unpack_normalised", "unpack", "safe_relative"]

KINDS = ("zip", "tar.gz")
NORMAL_KIND = "tar.gz"               # the kind of what accept() writes
MAC_FOLDER = "__MACOSX"              # Finder's metadata beside a zipped folder: dropped

Path = Union[str, "os.PathLike[str]"]


class Accepted(NamedTuple):
    """What :func:`accept` kept: files, folders, the files' bytes, the SHA-256 (hex) of
    the normal form's tar stream (the same files give the same digest)."""
    files: int
    folders: int
    bytes: int
    sha256: str


def kind_of(data_head: bytes, filename: str = "") -> Optional[str]:
    """"zip" or "tar.gz" from the first bytes of an upload (its name only breaks no tie),
    or None when it is neither."""
    if data_head.startswith(b"PK\x03\x04") or data_head.startswith(b"PK\x05\x06"):
        return "zip"
    if data_head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    return None


def _read(path: Path, bounds: Bounds, sink: Sink, kinds: Tuple[str, ...] = KINDS,
          digest: Optional["hashlib._Hash"] = None) -> Catalog:
    """Read the archive file ``path`` (of one of ``kinds``) within ``bounds``, handing
    its members to ``sink``; its catalog. Refused for an archive it will not read."""
    catalog = Catalog(bounds)
    limit = stream_limit(bounds)
    with open(path, "rb") as handle:
        kind = kind_of(handle.read(8))
        if kind not in kinds:
            raise Refused("not a .zip or .tar.gz file" if kinds == KINDS else
                          "not an agent in our normal form (a .tar.gz)")
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise Refused(f"an archive of more than {size_words(limit)}")
        handle.seek(0)
        try:
            if kind == "zip":
                read_zip(handle, size, catalog, sink)
            else:
                read_tar(Inflated(handle, limit, None if digest is None else digest.update),
                         catalog, sink)
        except zlib.error as error:
            raise Refused(f"not a readable {'zip' if kind == 'zip' else '.tar.gz'} file "
                          f"({error})") from None
    return catalog


def _agent_top(paths: Dict[str, bool]) -> str:
    """"name/" when the archive holds a single folder (hidden entries and Finder's
    metadata aside) that the agent is in, else ""."""
    tops = [path for path in paths if "/" not in path and not path.startswith(".")
            and path != MAC_FOLDER]
    return tops[0] + "/" if len(tops) == 1 and paths[tops[0]] else ""


def _normal_entries(catalog: Catalog) -> List[Tuple[Tuple[str, ...], str, bool]]:
    """(parts in the normal form, path in the archive, is a folder), sorted: the agent's
    folder unwrapped, Finder's metadata dropped."""
    top = _agent_top(catalog.paths)
    entries = []
    for path, folder in catalog.paths.items():
        if not path.startswith(top) or path.split("/", 1)[0] == MAC_FOLDER:
            continue
        entries.append((tuple(path[len(top):].split("/")), path, folder))
    entries.sort()
    return entries


class _Spool:
    """Keeps the files' bytes, as they come, in one unnamed temporary file of
    ``folder``; ``files`` maps each path to (offset, size, executable)."""

    def __init__(self, folder: str) -> None:
        self.handle: IO[bytes] = tempfile.TemporaryFile(dir=folder)
        self.files: Dict[str, Tuple[int, int, bool]] = {}

    def folder(self, parts: List[str]) -> None:
        """Nothing to keep: the catalog knows every folder."""

    def file(self, parts: List[str], executable: bool, data: Iterator[bytes]) -> None:
        offset = self.handle.tell()
        for chunk in data:
            self.handle.write(chunk)
        self.files["/".join(parts)] = (offset, self.handle.tell() - offset, executable)

    def chunks(self, offset: int, size: int) -> Iterator[bytes]:
        """The ``size`` bytes kept at ``offset``, in pieces."""
        self.handle.seek(offset)
        while size:
            chunk = self.handle.read(min(CHUNK, size))
            if not chunk:
                raise OSError(errno.EIO, "the spool file shrank")
            size -= len(chunk)
            yield chunk


def _write_normal(catalog: Catalog, spool: _Spool, out: IO[bytes]) -> Accepted:
    writer = NormalTar(out)
    files = folders = total = 0
    for parts, path, folder in _normal_entries(catalog):
        if folder:
            writer.folder("/".join(parts))
            folders += 1
            continue
        offset, size, executable = spool.files[path]
        writer.file("/".join(parts), executable, size, spool.chunks(offset, size))
        files += 1
        total += size
    return Accepted(files, folders, total, writer.close())


def accept(raw_path: Path, normalised_path: Path, bounds: Bounds = UPLOAD_BOUNDS
           ) -> Accepted:
    """Read the raw upload ``raw_path`` once (zip or tar.gz, told by its first bytes) and
    write its normal form (see the module) at ``normalised_path``, a new file (created
    complete, by a hard link in its folder: FileExistsError when something is there).
    Raises Refused, leaving nothing behind, for an archive it will not accept."""
    target = os.fspath(normalised_path)
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, "already there", target)
    folder = os.path.dirname(os.path.abspath(target))
    spool = _Spool(folder)
    try:
        catalog = _read(raw_path, bounds, spool)
        descriptor, temporary = tempfile.mkstemp(prefix=".normal-", dir=folder)
        try:
            with os.fdopen(descriptor, "wb") as out:
                accepted = _write_normal(catalog, spool, out)
            os.link(temporary, target)
        finally:
            os.unlink(temporary)
    finally:
        spool.handle.close()
    return accepted


class _Writer:
    """Creates the folders and files a reader hands over below ``root`` (see the
    module: link-safe, exclusive)."""

    def __init__(self, root: str) -> None:
        self.root_fd = open_folder(root)
        self.made: Set[str] = set()

    def close(self) -> None:
        os.close(self.root_fd)

    def folder(self, parts: List[str]) -> None:
        """Make the folder ``parts`` (and its parents) unless it exists."""
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            if path in self.made:
                continue
            parent = open_path("/".join(parts[:depth - 1]), self.root_fd)
            try:
                os.mkdir(parts[depth - 1], 0o755, dir_fd=parent)
            except FileExistsError:
                raise Refused(f"archive member {path[:80]!r} appears twice") from None
            finally:
                os.close(parent)
            self.made.add(path)

    def file(self, parts: List[str], executable: bool, data: Iterator[bytes]) -> None:
        """Create the file ``parts`` holding what ``data`` yields."""
        self.folder(parts[:-1])
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
            for chunk in data:
                out.write(chunk)


def _unpack_into(path: Path, destination: str, bounds: Bounds, kinds: Tuple[str, ...],
                 sha256: Optional[str] = None) -> Catalog:
    """Unpack the archive ``path`` into the new folder ``destination``; its catalog.
    On any error, ``destination`` is removed."""
    os.mkdir(destination, 0o755)
    writer = _Writer(destination)
    try:
        digest = None if sha256 is None else hashlib.sha256()
        catalog = _read(path, bounds, writer, kinds, digest)
        if digest is not None and digest.hexdigest() != sha256:
            raise Refused("the agent's archive does not match its SHA-256")
    except BaseException:
        writer.close()
        remove_tree(destination)
        raise
    writer.close()
    return catalog


def unpack_normalised(normalised_path: Path, destination: Path,
                      bounds: Bounds = UPLOAD_BOUNDS, sha256: Optional[str] = None) -> str:
    """Unpack the normal form that :func:`accept` wrote into the new folder
    ``destination`` (the agent's folder, returned), under the same checks and bounds as
    an upload; with ``sha256``, the form must have that digest (:attr:`Accepted.sha256`).
    Raises Refused (and leaves no ``destination``) otherwise."""
    folder = os.fspath(destination)
    _unpack_into(normalised_path, folder, bounds, (NORMAL_KIND,), sha256)
    return folder


def unpack(path: Path, destination: Path, bounds: Bounds = UPLOAD_BOUNDS) -> str:
    """Unpack the raw archive file ``path`` (zip or tar.gz, told by its first bytes) into
    the new folder ``destination``; return the folder the agent is in (``destination``,
    or its one subfolder when the archive holds a single folder). Raises Refused (and
    leaves no ``destination``) for an archive it will not unpack. (What callers did
    before :func:`accept`; the same readers and bounds.)"""
    folder = os.fspath(destination)
    with open(path, "rb") as handle:
        if kind_of(handle.read(8)) is None:
            raise Refused("not a .zip or .tar.gz file")
    top = _agent_top(_unpack_into(path, folder, bounds, KINDS).paths)
    return os.path.join(folder, top[:-1]) if top else folder


def safe_relative(name: str) -> bool:
    """Whether ``name`` is a plain relative path (used for the files the server keeps)."""
    return bool(name) and not posixpath.isabs(name) and ".." not in name.split("/")
