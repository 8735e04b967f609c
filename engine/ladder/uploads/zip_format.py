""".zip archives read with every record bounded before it is read.

Why not :mod:`zipfile`: it reads the whole central directory into memory and makes a
ZipInfo of every record before anyone can count them (a directory may declare a million
entries), reads names, extra fields and comments of any length, and trusts the end record
it finds. Ours reads, in this order:

1. the end record, searched in the last 64 KB + 22 bytes only, and required to end the
   file exactly (its comment included); two candidates are refused, not chosen from;
   with zip64, the locator and the zip64 end record, which must agree with it;
2. the number of entries it declares: more than ``bounds.entries`` is refused before a
   record is read; the directory must end where the end records begin (no data before or
   after it: a zip with a prefix, or a split zip, is refused);
3. each central record (46 bytes, then a name of at most ``MAX_NAME`` bytes, its extra
   field of at most 64 KB, its comment skipped): its name, kind (a link, a device or
   anything but a file or a folder is refused), method (stored or deflated only),
   encryption (refused); every name goes to the ``Catalog`` before any data is read, and
   the sizes declared in all must fit ``bounds.bytes``;
4. each file's data, in the order of the file: its local header must name the member as
   the directory does, members may not overlap nor run into the directory; its bytes are
   inflated in pieces of at most ``CHUNK``, counted (more than declared is refused as it
   happens: the declared sizes bound the total), and their size and CRC-32 checked at
   the end.
"""

import stat
import struct
import zlib
from typing import IO, Iterator, List, NamedTuple, Optional, Tuple

from .rules import (CHUNK, MAX_NAME, Catalog, Refused, Sink, decode_name, shown,
                            size_words)

END, END_SIZE = b"PK\x05\x06", 22
LOCATOR, LOCATOR_SIZE = b"PK\x06\x07", 20
END64, END64_SIZE = b"PK\x06\x06", 56
CENTRAL, CENTRAL_SIZE = b"PK\x01\x02", 46
LOCAL, LOCAL_SIZE = b"PK\x03\x04", 30
STORED, DEFLATED = 0, 8
MAX16, MAX32 = 0xFFFF, 0xFFFFFFFF
UTF8_FLAG, ENCRYPTED_FLAGS = 0x800, 0x1 | 0x40


def damaged(why: str) -> Refused:
    return Refused(f"not a readable zip file ({why})")


def read_at(handle: IO[bytes], offset: int, size: int) -> bytes:
    """``size`` bytes at ``offset``; Refused when the file ends first."""
    handle.seek(offset)
    data = handle.read(size)
    if len(data) != size:
        raise damaged("it ends too early")
    return data


class Directory(NamedTuple):
    """Where the central directory is: bytes ``start`` to ``end``, ``records`` records."""
    start: int
    records: int
    end: int


def find_end(handle: IO[bytes], file_size: int) -> int:
    """The offset of the one end record that ends the file with its comment."""
    tail_size = min(file_size, END_SIZE + MAX16)
    base = file_size - tail_size
    tail = read_at(handle, base, tail_size)
    found: List[int] = []
    position = tail.rfind(END)
    while position >= 0 and len(found) < 2:
        comment = int.from_bytes(tail[position + 20:position + 22], "little")
        if position + END_SIZE + comment == tail_size:
            found.append(base + position)
        position = tail.rfind(END, 0, position)
    if len(found) != 1:
        raise damaged("no end record" if not found else "two end records")
    return found[0]


def _zip64(handle: IO[bytes], end: int, classic: Tuple[int, int, int]
           ) -> Tuple[int, int, int, int]:
    """(count, size, start) of the zip64 end record, and where it begins."""
    _, disk, where, disks = struct.unpack("<4sLQL", read_at(handle, end - LOCATOR_SIZE,
                                                            LOCATOR_SIZE))
    if disk != 0 or disks > 1:
        raise Refused("a zip file split over several disks")
    if where > end - LOCATOR_SIZE - END64_SIZE:
        raise damaged("its zip64 end record is not where its locator says")
    (signature, rest, _, _, disk, start_disk, here, count, size,
     start) = struct.unpack("<4sQ2H2L4Q", read_at(handle, where, END64_SIZE))
    if signature != END64 or where + 12 + rest != end - LOCATOR_SIZE:
        raise damaged("its zip64 end record is not where its locator says")
    if (disk, start_disk) != (0, 0) or here != count:
        raise Refused("a zip file split over several disks")
    for value, declared, sentinel in zip((count, size, start), classic,
                                         (MAX16, MAX32, MAX32)):
        if declared not in (value, sentinel):
            raise damaged("its two end records disagree")
    return count, size, start, where


def find_directory(handle: IO[bytes], file_size: int, catalog: Catalog) -> Directory:
    """The central directory's place, its declared entries within the bounds."""
    end = find_end(handle, file_size)
    (_, disk, start_disk, here, count, size, start,
     _) = struct.unpack("<4s4H2LH", read_at(handle, end, END_SIZE))
    if (disk, start_disk) != (0, 0) or here != count:
        raise Refused("a zip file split over several disks")
    finish = end
    if end >= LOCATOR_SIZE and read_at(handle, end - LOCATOR_SIZE, 4) == LOCATOR:
        count, size, start, finish = _zip64(handle, end, (count, size, start))
    if count > catalog.bounds.entries:
        raise catalog.too_many()
    if start + size != finish:
        raise damaged("its directory is not where its end record says")
    return Directory(start, count, finish)


class Central(NamedTuple):
    """A central directory record's fixed part (46 bytes)."""
    signature: bytes
    made_by: int
    needed: int
    flags: int
    method: int
    time: int
    date: int
    crc: int
    packed: int
    size: int
    name_length: int
    extra_length: int
    comment_length: int
    disk: int
    internal: int
    external: int
    offset: int


class ZipMember(NamedTuple):
    """A member as the central directory describes it, its name admitted."""
    name: str
    raw: bytes
    parts: Optional[List[str]]       # None: a folder already known, nothing to make
    folder: bool
    executable: bool
    method: int
    crc: int
    packed: int
    size: int
    offset: int


def _zip64_fields(extra: bytes, record: Central) -> Central:
    """``record`` with the sizes, offset and disk that its zip64 extra field holds (for
    those at their 32- or 16-bit maximum, in the format's order)."""
    position = 0
    while position + 4 <= len(extra):
        tag, length = struct.unpack_from("<2H", extra, position)
        body = extra[position + 4:position + 4 + length]
        position += 4 + length
        if tag != 1:
            continue
        values = []
        for value, width, full in ((record.size, 8, MAX32), (record.packed, 8, MAX32),
                                   (record.offset, 8, MAX32), (record.disk, 4, MAX16)):
            if value == full:
                if len(body) < width:
                    raise damaged("a short zip64 field")
                value, body = int.from_bytes(body[:width], "little"), body[width:]
            values.append(value)
        return record._replace(size=values[0], packed=values[1], offset=values[2],
                               disk=values[3])
    return record


def _member(raw: bytes, record: Central, catalog: Catalog) -> ZipMember:
    """Check one central record and admit its name."""
    name = decode_name(raw, None if record.flags & UTF8_FLAG else "cp437")
    folder = name.endswith("/")
    kind = stat.S_IFMT(record.external >> 16)
    if kind not in (0, stat.S_IFDIR if folder else stat.S_IFREG):
        raise Refused(f"archive member {shown(name)} is a link or a special file")
    if record.flags & ENCRYPTED_FLAGS:
        raise Refused(f"archive member {shown(name)} is encrypted")
    if record.method not in (STORED, DEFLATED):
        raise Refused(f"archive member {shown(name)} is compressed by method "
                      f"{record.method} (only stored or deflated are read)")
    if record.disk != 0:
        raise Refused("a zip file split over several disks")
    parts = catalog.admit_folder(name) if folder else catalog.admit_file(name)
    return ZipMember(name, raw, parts, folder, bool(record.external >> 16 & 0o111),
                     record.method, record.crc, record.packed, record.size, record.offset)


def read_directory(handle: IO[bytes], directory: Directory,
                   catalog: Catalog) -> List[ZipMember]:
    """Every member of the central directory, each checked and admitted (see the
    module); the directory must hold exactly the records it declares."""
    members: List[ZipMember] = []
    position = directory.start
    for _ in range(directory.records):
        if position + CENTRAL_SIZE > directory.end:
            raise damaged("its directory holds fewer records than it declares")
        record = Central._make(struct.unpack("<4s6H3L5H2L",
                                             read_at(handle, position, CENTRAL_SIZE)))
        if record.signature != CENTRAL:
            raise damaged("a damaged directory record")
        if record.name_length > MAX_NAME:
            raise Refused(f"a member's name longer than {MAX_NAME:,} bytes")
        raw = read_at(handle, position + CENTRAL_SIZE, record.name_length)
        extra = read_at(handle, position + CENTRAL_SIZE + record.name_length,
                        record.extra_length)
        position += (CENTRAL_SIZE + record.name_length + record.extra_length
                     + record.comment_length)
        if position > directory.end:
            raise damaged("a directory record runs past the directory")
        members.append(_member(raw, _zip64_fields(extra, record), catalog))
    if position != directory.end:
        raise damaged("its directory holds more than the records it declares")
    return members


def _data_start(handle: IO[bytes], member: ZipMember) -> int:
    """Where the member's data begins, after a local header that must agree."""
    (signature, _, flags, method, _, _, _, _, _, name_length,
     extra_length) = struct.unpack("<4s5H3L2H", read_at(handle, member.offset, LOCAL_SIZE))
    if signature != LOCAL or method != member.method or flags & ENCRYPTED_FLAGS:
        raise damaged(f"the local header of {shown(member.name)} does not match")
    if name_length != len(member.raw) or \
            read_at(handle, member.offset + LOCAL_SIZE, name_length) != member.raw:
        raise damaged(f"the local header of {shown(member.name)} names another member")
    return member.offset + LOCAL_SIZE + name_length + extra_length


def _inflated(handle: IO[bytes], start: int, member: ZipMember) -> Iterator[bytes]:
    """The member's bytes, inflated in pieces of at most CHUNK from its ``packed`` bytes
    at ``start``; Refused when they are not one whole deflate stream."""
    handle.seek(start)
    left = member.packed
    inflater = zlib.decompressobj(-zlib.MAX_WBITS) if member.method == DEFLATED else None
    pending = b""
    while True:
        if not pending and left:
            pending = handle.read(min(CHUNK, left))
            if not pending:
                raise damaged("it ends too early")
            left -= len(pending)
        if inflater is None:
            if not pending:
                return
            yield pending
            pending = b""
            continue
        piece = inflater.decompress(pending, CHUNK)
        pending = inflater.unconsumed_tail
        if piece:
            yield piece
        if inflater.eof:
            if pending or left or inflater.unused_data:
                raise damaged(f"{shown(member.name)} holds more than its data")
            return
        if not piece and not pending and not left:
            raise damaged(f"the data of {shown(member.name)} ends too early")


def _checked(pieces: Iterator[bytes], member: ZipMember) -> Iterator[bytes]:
    """``pieces`` counted: no more than the member declares (so the files' bytes stay
    within the total declared, which the catalog checked), and at the end exactly as
    many bytes, with its CRC-32."""
    produced, crc = 0, 0
    for piece in pieces:
        produced += len(piece)
        if produced > member.size:
            raise Refused(f"archive member {shown(member.name)} is larger than it "
                          f"declares ({size_words(member.size)})")
        crc = zlib.crc32(piece, crc)
        yield piece
    if produced != member.size or crc != member.crc:
        raise damaged(f"the size or CRC of {shown(member.name)} does not match")


def read_zip(handle: IO[bytes], file_size: int, catalog: Catalog, sink: Sink) -> None:
    """Read the zip archive ``handle`` (``file_size`` bytes), handing each folder and file
    to ``sink`` after ``catalog`` admitted it (see the module)."""
    directory = find_directory(handle, file_size, catalog)
    members = read_directory(handle, directory, catalog)
    catalog.expect(sum(member.size for member in members))
    floor = 0
    for member in sorted(members, key=lambda member: member.offset):
        if member.parts is None:
            continue
        if member.folder:
            sink.folder(member.parts)
            continue
        if member.offset < floor:
            raise damaged("its members overlap")
        start = _data_start(handle, member)
        floor = start + member.packed
        if floor > directory.start:
            raise damaged(f"the data of {shown(member.name)} runs into the directory")
        data = _checked(_inflated(handle, start, member), member)
        sink.file(member.parts, member.executable, data)
        for _ in data:               # what the sink left unread
            pass
