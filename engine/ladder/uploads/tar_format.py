""".tar.gz archives read with every header bounded before it is buffered, and written in
our normal form.

Why not :mod:`tarfile`: it reads a pax or GNU long-name header's whole declared size into
memory (a 1 MB upload made it ask for gigabytes), keeps a TarInfo for every member (a
million repeated folder entries cost 450 MB), and reads the sizes, sparse maps and
global headers an archive declares as it finds them. The tar format is simple: 512-byte
headers, each member's data padded to 512 bytes, two zero blocks at the end.

:func:`read_tar` reads one gzip stream (zero padding after it is allowed, a second
stream is not) in pieces of at most ``CHUNK`` bytes, never past ``limit`` inflated
bytes in all, and refuses (``Refused``), before reading what it declares,

* an extended header (pax ``x`` or global ``g``) of more than ``MAX_EXTENDED`` bytes, a
  GNU long name (``L``) of more than ``MAX_NAME`` bytes, two of one kind for one member,
  a global header that names or sizes members;
* a link (``1``, ``2``, a GNU long link name ``K``), a device or FIFO (``3``, ``4``,
  ``6``), a sparse file (``S`` or pax ``GNU.sparse.*``), any other kind but a regular file
  (``0``, ``\\0``, ``7``) or a folder (``5``);
* a header whose checksum does not match, a size that is negative or not a number;

and hands every name and every byte of data to the ``Catalog`` (names, counts, sizes).

:class:`NormalTar` writes the form the server keeps: a gzip'd ustar stream, entries in
sorted order, folders ``name/`` (0755) and regular files (0755 or 0644), owner 0, time 0,
no other header than a pax ``path`` record for a name longer than 100 bytes. The same
files give the same bytes, hence the same SHA-256, however they were packed.
"""

import hashlib
import struct
import zlib
from typing import IO, Callable, Dict, Iterator, NamedTuple, Optional, Set

from .rules import (CHUNK, MAX_EXTENDED, MAX_NAME, Catalog, Refused, Sink,
                            decode_name, shown, size_words)

BLOCK = 512
ZERO_BLOCK = bytes(BLOCK)
USTAR = b"ustar\x00"
EXTENDED_LIMITS = {b"x": MAX_EXTENDED, b"g": MAX_EXTENDED, b"L": MAX_NAME + 1}
FILE_KINDS = (b"0", b"\x00", b"7")
FOLDER_KIND = b"5"
NOT_FILES = (b"1", b"2", b"3", b"4", b"6", b"K")      # links, devices, FIFOs
MEMBER_KEYS = (b"path", b"size", b"linkpath")         # what a global header may not set


class Inflated:
    """The bytes inflated from the one gzip stream of ``handle``: at most ``limit`` in
    all (Refused past it), one piece of at most ``CHUNK`` bytes held at a time, each
    piece given to ``digest`` (e.g. a SHA-256's update) as it is inflated."""

    def __init__(self, handle: IO[bytes], limit: int,
                 digest: Optional[Callable[[bytes], None]] = None) -> None:
        self.handle = handle
        self.limit = limit
        self.digest = digest
        self.total = 0
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.pending = b""           # read from the file, not yet inflated
        self.file_ended = False
        self.piece = b""             # inflated, read up to ``position``
        self.position = 0

    def _inflate(self) -> bytes:
        """The next inflated bytes (at most CHUNK); b"" at the end of the gzip stream."""
        while not self.inflater.eof:
            if not self.pending and not self.file_ended:
                self.pending = self.handle.read(CHUNK)
                self.file_ended = not self.pending
            piece = self.inflater.decompress(self.pending, CHUNK)
            self.pending = self.inflater.unconsumed_tail
            if piece:
                self.total += len(piece)
                if self.total > self.limit:
                    raise Refused(f"more than {size_words(self.limit)} once inflated")
                if self.digest is not None:
                    self.digest(piece)
                return piece
            if self.file_ended and not self.pending:
                raise Refused("the .tar.gz file ends before its gzip stream does")
        return b""

    def take(self, most: int) -> bytes:
        """At most ``most`` bytes (fewer at the end of a piece); b"" at the end."""
        if self.position == len(self.piece):
            self.piece, self.position = self._inflate(), 0
        start = self.position
        self.position = min(len(self.piece), start + most)
        return self.piece[start:self.position]

    def chunks(self, size: int) -> Iterator[bytes]:
        """The next ``size`` bytes, in pieces of at most CHUNK; Refused when the stream
        ends first."""
        while size:
            part = self.take(min(size, CHUNK))
            if not part:
                raise Refused("the tar stream ends in the middle of a member")
            size -= len(part)
            yield part

    def read(self, size: int) -> bytes:
        """The next ``size`` bytes (a size its caller bounded) as one string."""
        return b"".join(self.chunks(size))

    def skip(self, size: int) -> None:
        for _ in self.chunks(size):
            pass

    def block(self) -> Optional[bytes]:
        """The next 512-byte block, or None when the stream ends right here."""
        first = self.take(BLOCK)
        if not first:
            return None
        return first if len(first) == BLOCK else first + self.read(BLOCK - len(first))

    def finish(self) -> None:
        """Inflate the rest of the stream (within the limit: its CRC is checked), then
        refuse anything but zero padding after it (a second gzip stream included)."""
        self.position = len(self.piece)
        while self._inflate():
            pass
        rest = self.pending + self.inflater.unused_data
        while rest:
            if rest.strip(b"\x00"):
                raise Refused("data after the end of the gzip stream (a second stream?)")
            rest = self.handle.read(CHUNK)


class Header(NamedTuple):
    """What a member's 512-byte header says (the ustar prefix joined to the name)."""
    name: bytes
    kind: bytes
    size: int
    mode: int


def _text(field: bytes) -> bytes:
    return field.split(b"\x00", 1)[0]


def _number(field: bytes, what: str) -> int:
    """A numeric field: octal digits (NUL or space ended), or GNU's base-256 (first byte
    0x80 for a positive number, 0xff for a negative one)."""
    if field[0] == 0x80:
        return int.from_bytes(field[1:], "big")
    if field[0] == 0xFF:
        return int.from_bytes(field, "big", signed=True)
    digits = _text(field).strip(b" ")
    if digits.strip(b"01234567"):
        raise Refused(f"a damaged tar header (its {what} is not a number)")
    return int(digits, 8) if digits else 0


def parse_header(block: bytes) -> Header:
    """The :class:`Header` of ``block``; Refused when its checksum does not match."""
    stored = _number(block[148:156], "checksum")
    unsigned = sum(block) - sum(block[148:156]) + 8 * 0x20
    signed = sum(struct.unpack("148b8x356b", block)) + 8 * 0x20
    if stored not in (unsigned, signed):
        raise Refused("a damaged tar header (its checksum does not match)")
    name = _text(block[0:100])
    if block[257:263] == USTAR and _text(block[345:500]):
        name = _text(block[345:500]) + b"/" + name
    return Header(name, block[156:157], _number(block[124:136], "size"),
                  _number(block[100:108], "mode"))


def parse_pax(data: bytes) -> Dict[bytes, bytes]:
    """The records ``length key=value\\n`` of a pax header (bounded by its caller); the
    last of a key wins; NUL padding at the end is ignored."""
    records: Dict[bytes, bytes] = {}
    position = 0
    while position < len(data):
        if data[position] == 0:
            if data[position:].strip(b"\x00"):
                raise Refused("a damaged pax header")
            break
        space = data.find(b" ", position, position + 21)
        digits = data[position:space] if space > 0 else b""
        end = position + int(digits) if digits.isdigit() else -1
        if not space < end <= len(data) or data[end - 1:end] != b"\n":
            raise Refused("a damaged pax header")
        key, equals, value = data[space + 1:end - 1].partition(b"=")
        if not equals or not key:
            raise Refused("a damaged pax header")
        records[key] = value
        position = end
    return records


def _padding(size: int) -> int:
    return -size % BLOCK


class Member(NamedTuple):
    """A member's header with its extended headers applied."""
    name: bytes
    kind: bytes
    size: int
    mode: int
    sparse: bool


def _extended(stream: Inflated, header: Header) -> bytes:
    """The data of an extended header, refused before it is read when too large."""
    limit = EXTENDED_LIMITS[header.kind]
    if header.kind == b"L" and not 0 <= header.size <= limit:
        raise Refused(f"a member's name longer than {MAX_NAME:,} bytes (a long-name "
                      f"header of {header.size:,} bytes)")
    if not 0 <= header.size <= limit:
        raise Refused(f"an archive header of {header.size:,} bytes (at most "
                      f"{size_words(limit)})")
    data = stream.read(header.size)
    stream.skip(_padding(header.size))
    return data


def _pax_size(value: bytes) -> int:
    if not value.isdigit() or len(value) > 20:
        raise Refused("a damaged pax header (its size is not a number)")
    return int(value)


def next_member(stream: Inflated, catalog: Catalog) -> Optional[Member]:
    """The next member, its extended headers applied, or None at the end of the archive
    (a zero block, or the end of the stream at a header's place)."""
    pax: Dict[bytes, bytes] = {}
    long_name: Optional[bytes] = None
    seen: Set[bytes] = set()
    while True:
        block = stream.block()
        if block is None or block == ZERO_BLOCK:
            return None
        header = parse_header(block)
        if header.kind not in EXTENDED_LIMITS:
            break
        if header.kind in seen:
            raise Refused("two extended headers of one kind for one archive member")
        seen.add(header.kind)
        data = _extended(stream, header)
        if header.kind == b"g":
            catalog.count_member()
            if any(key in MEMBER_KEYS or key.startswith(b"GNU.sparse.")
                   for key in parse_pax(data)):
                raise Refused("a global archive header that names or sizes members")
        elif header.kind == b"x":
            pax = parse_pax(data)
        else:
            long_name = _text(data)
    name = pax.get(b"path", header.name if long_name is None else long_name)
    size = _pax_size(pax[b"size"]) if b"size" in pax else header.size
    sparse = header.kind == b"S" or any(key.startswith(b"GNU.sparse.") for key in pax)
    return Member(name, header.kind, size, header.mode, sparse)


def _counted(chunks: Iterator[bytes], catalog: Catalog) -> Iterator[bytes]:
    for chunk in chunks:
        catalog.count_bytes(len(chunk))
        yield chunk


def _take(stream: Inflated, member: Member, catalog: Catalog, sink: Sink) -> None:
    """Check the member, then hand it (and its data) to ``sink``."""
    name = decode_name(member.name)
    kind = FOLDER_KIND if member.kind == b"\x00" and name.endswith("/") else member.kind
    if member.sparse:
        raise Refused(f"archive member {shown(name)} is a sparse file")
    if kind in NOT_FILES:
        raise Refused(f"archive member {shown(name)} is a link or a special file")
    if kind == FOLDER_KIND:
        parts = catalog.admit_folder(name)
        if parts is not None:
            sink.folder(parts)
        return                       # a folder has no data (tarfile skips none either)
    if kind not in FILE_KINDS:
        raise Refused(f"archive member {shown(name)} is of an unknown kind "
                      f"({kind.decode('latin-1')!r})")
    if member.size < 0:
        raise Refused(f"archive member {shown(name)}: a negative size")
    parts = catalog.admit_file(name)
    catalog.expect(member.size)
    data = _counted(stream.chunks(member.size), catalog)
    sink.file(parts, bool(member.mode & 0o111), data)
    for _ in data:                   # what the sink left unread
        pass
    stream.skip(_padding(member.size))


def read_tar(stream: Inflated, catalog: Catalog, sink: Sink) -> None:
    """Read the tar archive inflated by ``stream`` to its end, handing each folder and
    file to ``sink`` after ``catalog`` admitted it (see the module)."""
    while True:
        member = next_member(stream, catalog)
        if member is None:
            break
        _take(stream, member, catalog, sink)
    stream.finish()


# --- the normal form ----------------------------------------------------------------------

def _header(name: bytes, kind: bytes, size: int, mode: int) -> bytes:
    """A ustar header of the normal form (owner 0, time 0, no user or group names)."""
    fields = (name.ljust(100, b"\x00") + b"%07o\x00" % mode + b"0000000\x00" * 2
              + b"%011o\x00" % size + b"00000000000\x00" + b" " * 8 + kind
              + bytes(100) + USTAR + b"00" + bytes(64) + b"0000000\x00" * 2 + bytes(167))
    return fields[:148] + b"%06o\x00 " % sum(fields) + fields[156:]


def _pax_record(key: bytes, value: bytes) -> bytes:
    """One pax record; its length counts its own digits."""
    body = b" " + key + b"=" + value + b"\n"
    length = len(body) + len(str(len(body)))
    if len(str(length)) > len(str(len(body))):
        length += 1
    return b"%d" % length + body


class NormalTar:
    """Writes the normal form (see the module) to ``out``, gzip'd; the caller gives the
    entries in sorted order, each folder before what it holds. :meth:`close` returns the
    SHA-256 of the tar stream (before gzip)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        self.digest = hashlib.sha256()

    def _write(self, data: bytes) -> None:
        self.digest.update(data)
        packed = self.packer.compress(data)
        if packed:
            self.out.write(packed)

    def _entry(self, name: bytes, kind: bytes, size: int, mode: int) -> None:
        if len(name) > 100:
            record = _pax_record(b"path", name)
            self._write(_header(b"././@PaxHeader", b"x", len(record), 0o644))
            self._write(record + bytes(_padding(len(record))))
            name = name[:100]
        self._write(_header(name, kind, size, mode))

    def folder(self, path: str) -> None:
        """The folder ``path`` ("a/b")."""
        self._entry(path.encode() + b"/", FOLDER_KIND, 0, 0o755)

    def file(self, path: str, executable: bool, size: int, data: Iterator[bytes]) -> None:
        """The regular file ``path`` of ``size`` bytes, which ``data`` yields."""
        self._entry(path.encode(), b"0", size, 0o755 if executable else 0o644)
        for chunk in data:
            self._write(chunk)
        self._write(bytes(_padding(size)))

    def close(self) -> str:
        """End the archive (two zero blocks) and the gzip stream; the SHA-256 in hex."""
        self._write(ZERO_BLOCK * 2)
        self.out.write(self.packer.flush())
        return self.digest.hexdigest()
