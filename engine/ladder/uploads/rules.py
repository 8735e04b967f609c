"""The rules every uploaded archive is held to, whatever its format, and its one error.

An archive is hostile until proven otherwise: its headers may declare a name of a
gigabyte, a million entries, a size of -1 or of an exabyte. The readers
(:mod:`engine.ladder.tar_format`, :mod:`engine.ladder.zip_format`) therefore bound what
they read BEFORE they buffer it (each header, each name, each extended record), and hand
every member to one :class:`Catalog` before a byte of its data is read. The catalog
refuses (:class:`Refused`, one line for the student) a member

* whose name is empty, absolute, holds a ``..``, a backslash, a NUL or a control
  character, is not UTF-8, is longer than :data:`MAX_NAME` bytes or has a component
  longer than :data:`MAX_COMPONENT` bytes;
* past ``bounds.entries`` members read (every header counts, a folder repeated a million
  times included) or distinct files and folders (the folders a name implies included);
* nested more than ``bounds.depth`` folders deep;
* that is a file and a folder, or a file twice;
* whose data, declared or counted as it is inflated, would take the files past
  ``bounds.bytes`` in all.

Memory is then bounded by small constants (one header, one extended header of at most
:data:`MAX_EXTENDED` bytes, one chunk, the catalog's names) and CPU by the bytes an
archive may hold (:func:`stream_limit`), whatever the archive says.
"""

from typing import Dict, Iterator, List, Optional, Protocol

from ...errors import EngineError
from ...sandbox import Bounds

# What one upload may hold: far more than an agent needs, far less than a disk.
UPLOAD_BOUNDS = Bounds(depth=16, entries=2000, bytes=64 * 1024 * 1024)
CHUNK = 1 << 16                  # bytes read, inflated or written at a time
MAX_NAME = 1024                  # bytes of a member's path (UTF-8)
MAX_COMPONENT = 255              # bytes of one component of it (NAME_MAX)
MAX_EXTENDED = 64 * 1024         # bytes of one extended header (pax records, a long name)
HEADER_ALLOWANCE = 4096          # header bytes a member may use, on average, in a stream


class Refused(EngineError, ValueError):
    """An archive that is not accepted; the message says why, in one line."""


def size_words(count: int) -> str:
    """``count`` bytes in words: "64 MB", "1.5 MB", "512 KB", "100 bytes"."""
    for unit, name in ((1 << 20, "MB"), (1 << 10, "KB")):
        if count >= unit:
            return f"{count / unit:,.1f}".replace(".0", "") + f" {name}"
    return f"{count:,} bytes"


def stream_limit(bounds: Bounds) -> int:
    """The most bytes an archive file, or the tar stream inflated from it, may hold: the
    files' bytes plus room for a member's headers and padding, and one extended header."""
    return bounds.bytes + bounds.entries * HEADER_ALLOWANCE + MAX_EXTENDED


def shown(name: str) -> str:
    """A member's name as a message shows it: quoted, escaped, at most 80 characters."""
    return repr(name[:80])


def clean_name(name: str) -> List[str]:
    """The member ``name`` (of at most MAX_NAME bytes: :func:`decode_name` saw to it) as
    relative parts ("./a//b/" -> ["a", "b"]), or Refused."""
    if not name or "\x00" in name or "\\" in name:
        raise Refused(f"archive member {shown(name)}: a name with NUL or backslash")
    if any(ord(character) < 0x20 or character == "\x7f" for character in name):
        raise Refused(f"archive member {shown(name)}: a name with a control character")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise Refused(f"archive member {shown(name)}: an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if any(part == ".." for part in parts):
        raise Refused(f"archive member {shown(name)}: a '..' in its path")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_COMPONENT for part in parts):
        raise Refused(f"archive member {shown(name)}: a name with a part longer than "
                      f"{MAX_COMPONENT} bytes")
    return parts


def decode_name(raw: bytes, fallback: Optional[str] = None) -> str:
    """The name ``raw`` as text: UTF-8, else ``fallback`` (zip's cp437), else Refused.
    Longer than :data:`MAX_NAME` bytes is refused before it is decoded."""
    if len(raw) > MAX_NAME:
        raise Refused(f"archive member {shown(raw[:80].decode('latin-1'))}: a name longer "
                      f"than {MAX_NAME:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        if fallback is None:
            raise Refused(f"archive member {shown(raw.decode('latin-1'))}: a name that is "
                          "not UTF-8") from None
        return raw.decode(fallback)


class Catalog:
    """What an archive holds so far, checked as it is read (see the module).

    ``paths`` maps each path ("a/b") to True for a folder, False for a file; ``members``
    counts the headers read, ``bytes`` the files' bytes inflated so far."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.paths: Dict[str, bool] = {}
        self.members = 0
        self.bytes = 0

    def too_many(self) -> Refused:
        """The refusal for an archive of more members than ``bounds.entries``."""
        return Refused(f"more than {self.bounds.entries:,} files and folders")

    def count_member(self) -> None:
        """Count one header read (a member, a repeated folder, a global header)."""
        self.members += 1
        if self.members > self.bounds.entries:
            raise self.too_many()

    def admit_folder(self, name: str) -> Optional[List[str]]:
        """Count the folder member ``name`` and return its parts, or None when there is
        nothing to make (a folder already known, or the top itself). Refused when it
        breaks a rule of the module."""
        parts = self._admit(name)
        if not parts or self.paths.get("/".join(parts)) is True:
            return None
        self._add("/".join(parts), True, name)
        return parts

    def admit_file(self, name: str) -> List[str]:
        """Count the file member ``name`` and return its parts; Refused when it breaks a
        rule of the module (a file that is known already included)."""
        parts = self._admit(name)
        if not parts:
            raise Refused(f"archive member {shown(name)}: a file with no name")
        self._add("/".join(parts), False, name)
        return parts

    def _admit(self, name: str) -> List[str]:
        """Count a member, check its name and depth, and add the folders it implies."""
        self.count_member()
        parts = clean_name(name)
        if len(parts) > self.bounds.depth:
            raise Refused(f"folders nested more than {self.bounds.depth} deep")
        for depth in range(1, len(parts)):
            self._add("/".join(parts[:depth]), True, name)
        return parts

    def _add(self, path: str, folder: bool, name: str) -> None:
        known = self.paths.get(path)
        if known is None:
            if len(self.paths) >= self.bounds.entries:
                raise self.too_many()
            self.paths[path] = folder
        elif not (known and folder):
            what = "appears twice" if known == folder else "is both a file and a folder"
            raise Refused(f"archive member {shown(name)} {what}")

    def too_large(self) -> Refused:
        """The refusal for files of more than ``bounds.bytes`` in all."""
        return Refused(f"more than {size_words(self.bounds.bytes)} once unpacked")

    def expect(self, size: int) -> None:
        """Refuse, before reading it, a member declaring ``size`` bytes that the files'
        bytes cannot hold any more (the per-member bound is what is left of the total)."""
        if size > self.bounds.bytes - self.bytes:
            raise self.too_large()

    def count_bytes(self, count: int) -> None:
        """Count ``count`` bytes of file data as they are inflated."""
        self.bytes += count
        if self.bytes > self.bounds.bytes:
            raise self.too_large()


class Sink(Protocol):
    """Where a reader hands the members it admitted, in the archive's order."""

    def folder(self, parts: List[str]) -> None:
        """The folder ``parts`` (new to the catalog)."""

    def file(self, parts: List[str], executable: bool, data: Iterator[bytes]) -> None:
        """The file ``parts``: ``data`` yields its bytes, counted and bounded."""
