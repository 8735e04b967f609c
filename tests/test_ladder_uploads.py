"""Uploads (engine/ladder/uploads/: the API and its readers): hostile archives are refused for
the right reason with memory and CPU bounded whatever they declare; normal archives are
kept once in our normal form, the same files giving the same digest. Standard library
only: no ladder extra needed.

The huge archives are built streaming and fast: a block is deflated once after a full
flush (which makes it independent of what came before), and its bytes repeated."""

import hashlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

import pytest

from engine.errors import EngineError
from engine.sandbox.untrusted_files import Bounds
from engine.ladder import uploads
from engine.ladder.uploads import Refused, accept, unpack, unpack_normalised

REPO = Path(__file__).resolve().parent.parent
SMALL = Bounds(depth=5, entries=20, bytes=1 << 20)
GIGABYTE = 1 << 30


# --- building archives ------------------------------------------------------------------

def header(name, kind=tarfile.REGTYPE, size=0, mode=0o644, form=tarfile.GNU_FORMAT):
    """One tar header (the name and size as given, however large)."""
    info = tarfile.TarInfo(name)
    info.type, info.size, info.mode = kind, size, mode
    return info.tobuf(format=form)


def padded(data):
    return data + bytes(-len(data) % 512)


def member(name, data=b"", mode=0o644, form=tarfile.GNU_FORMAT):
    return header(name, size=len(data), mode=mode, form=form) + padded(data)


def pax(records, kind=tarfile.XHDTYPE):
    """A pax header (``kind``: per member or global) holding ``records`` (key -> str)."""
    data = b""
    for key, value in records.items():
        body = f" {key}={value}\n".encode()
        length = len(body) + len(str(len(body)))
        length += len(str(length)) - len(str(len(body)))
        data += b"%d" % length + body
    return header("././@PaxHeader", kind, len(data)) + padded(data)


END = bytes(1024)


def write_gzip(path, head, block=b"", count=0, tail=b""):
    """``path`` := gzip of head + block * count + tail, ``block`` deflated only once."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    crc, total = zlib.crc32(head), len(head)
    with open(path, "wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")
        out.write(packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH))
        packed = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
        for _ in range(count):
            out.write(packed)
            crc = zlib.crc32(block, crc)
        out.write(packer.compress(tail) + packer.flush())
        crc, total = zlib.crc32(tail, crc), total + len(block) * count + len(tail)
        out.write(struct.pack("<LL", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))
    return path


def huge_pax_header(path, length=GIGABYTE):
    """The attack of issue 65: a pax header whose path is ``length`` bytes (1 GB: about
    1 MB once compressed), then a small file."""
    prefix = b"%d path=" % length
    block = b"a" * (1 << 20)
    count = (length - len(prefix) - 1) // len(block)
    rest = length - len(prefix) - 1 - count * len(block)
    return write_gzip(path, header("././@PaxHeader", tarfile.XHDTYPE, length) + prefix,
                      block, count, b"a" * rest + b"\n" + bytes(-length % 512)
                      + member("x.py", b"1\n") + END)


def huge_long_name(path, length=GIGABYTE):
    """A GNU long-name header of ``length`` bytes of name."""
    block = b"a" * (1 << 20)
    return write_gzip(path, header("././@LongLink", tarfile.GNUTYPE_LONGNAME, length),
                      block, length // len(block),
                      bytes(-length % 512) + member("x.py", b"1\n") + END)


def repeated_folders(path, count=1_000_000):
    """The other attack of issue 65: one folder entry a million times (about 2 MB)."""
    per_block = 2000
    return write_gzip(path, b"", header("d/", tarfile.DIRTYPE) * per_block,
                      count // per_block, END)


def tar_gz(path, *members, end=END):
    return write_gzip(path, b"".join(members) + end)


def zip_file(path, files, extra=None):
    """``path`` := a zip of ``files`` (name -> bytes, or (bytes, unix mode))."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            data, mode = data if isinstance(data, tuple) else (data, None)
            info = zipfile.ZipInfo(name, date_time=(2001, 2, 3, 4, 5, 6))
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data)
        if extra:
            extra(archive)
    return path


def end_record(data):
    """(offset of the end record, its fields) of the zip bytes ``data`` (no comment)."""
    offset = len(data) - 22
    return offset, list(struct.unpack("<4s4H2LH", data[offset:]))


# --- measuring a check in a process of its own -------------------------------------------

MEASURE = """
import json, os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from engine.ladder import uploads
raw, normalised = sys.argv[1:3]
try:
    outcome = "accepted: %r" % (uploads.accept(raw, normalised),)
except uploads.Refused as error:
    outcome = "refused: %s" % error
except BaseException as error:
    outcome = "failed: %s %s" % (type(error).__name__, str(error)[:200])
usage = resource.getrusage(resource.RUSAGE_SELF)
# The peak of this program's own memory (VmHWM): ru_maxrss would also hold the RSS of
# the test process at its fork, which Linux keeps across exec.
peak = [int(line.split()[1]) for line in open("/proc/self/status")
        if line.startswith("VmHWM:")][0]
print(json.dumps({"outcome": outcome, "megabytes": peak / 1024,
                  "cpu": usage.ru_utime + usage.ru_stime}))
"""


def measured(raw, tmp_path):
    """What accepting ``raw`` did in a fresh process held to 1 GB of address space:
    (outcome, peak RSS in MB, CPU seconds, from the interpreter's start)."""
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", MEASURE, str(raw),
                           str(tmp_path / "normal.tar.gz")], env=environment,
                          capture_output=True, text=True, timeout=300, check=True)
    found = json.loads(done.stdout)
    return found["outcome"], found["megabytes"], found["cpu"]


def check_bounded(raw, tmp_path, reason, megabytes=64, cpu=2.0):
    outcome, peak, spent = measured(raw, tmp_path)
    assert outcome.startswith("refused: ") and reason in outcome, outcome
    assert peak < megabytes and spent < cpu, (peak, spent)
    assert not (tmp_path / "normal.tar.gz").exists()


# --- the attacks of issue 65, measured ------------------------------------------------------

def test_a_1_gb_pax_header_is_refused_before_it_is_read(tmp_path):
    raw = huge_pax_header(tmp_path / "upload")
    assert raw.stat().st_size < 1_200_000
    check_bounded(raw, tmp_path, "an archive header of 1,073,741,824 bytes (at most 64 KB)")


def test_a_1_gb_gnu_long_name_is_refused_before_it_is_read(tmp_path):
    raw = huge_long_name(tmp_path / "upload")
    check_bounded(raw, tmp_path, "a member's name longer than 1,024 bytes")


def test_a_million_repeated_folders_are_counted(tmp_path):
    raw = repeated_folders(tmp_path / "upload")
    assert raw.stat().st_size < 2_500_000
    check_bounded(raw, tmp_path, "more than 2,000 files and folders", cpu=1.0)


def test_a_zip_declaring_a_million_entries_is_refused_from_its_end_record(tmp_path):
    data = zip_file(tmp_path / "one.zip", {"a.py": b"1"}).read_bytes()
    end, fields = end_record(data)
    directory, size = fields[6], fields[5]
    zip64_end = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, 1_000_000,
                            1_000_000, size, directory)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    fields[3:5] = [0xFFFF, 0xFFFF]
    raw = tmp_path / "upload"
    raw.write_bytes(data[:end] + zip64_end + locator + struct.pack("<4s4H2LH", *fields))
    check_bounded(raw, tmp_path, "more than 2,000 files and folders", cpu=1.0)
    # Its two end records must agree.
    fields[3:5] = [5, 5]
    raw.write_bytes(data[:end] + zip64_end + locator + struct.pack("<4s4H2LH", *fields))
    assert "its two end records disagree" in refused(raw, tmp_path)


# --- hostile archives: the reason ----------------------------------------------------------

def refused(raw, tmp_path, bounds=uploads.UPLOAD_BOUNDS):
    """The message accept() refuses ``raw`` with; nothing may be left where the normal
    form would have gone (neither it nor a temporary file)."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    with pytest.raises(Refused) as caught:
        accept(raw, folder / "normal.tar.gz", bounds)
    assert os.listdir(folder) == []
    return str(caught.value)


HUNDRED_KB_PAX = pax({"path": "n" * 102_400})


TARS = {
    "a 100 KB name in a pax header": (
        [HUNDRED_KB_PAX], "an archive header of 102,413 bytes (at most 64 KB)"),
    "a 100 KB GNU long name": (
        [header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 102_400)
         + padded(b"n" * 102_400)], "a member's name longer than 1,024 bytes"),
    "a 2 KB name": ([member("n" * 2000, form=tarfile.PAX_FORMAT)],
                    "a name longer than 1,024 bytes"),
    "a 300-byte folder name": ([member("d" * 300 + "/x")], "a part longer than 255"),
    "symlink": ([header("l", tarfile.SYMTYPE)], "'l' is a link or a special file"),
    "hard link": ([member("f", b"1"), header("h", tarfile.LNKTYPE)], "a link"),
    "GNU long link name": ([header("././@LongLink", b"K", 10) + padded(b"/etc/passwd")],
                           "a link"),
    "character device": ([header("dev", tarfile.CHRTYPE)], "a special file"),
    "block device": ([header("dev", tarfile.BLKTYPE)], "a special file"),
    "FIFO": ([header("fifo", tarfile.FIFOTYPE)], "a special file"),
    "GNU sparse file": ([header("s", tarfile.GNUTYPE_SPARSE)], "'s' is a sparse file"),
    "pax sparse file": ([pax({"GNU.sparse.major": "1"}), member("s", b"x")],
                        "'s' is a sparse file"),
    "unknown kind": ([header("v", b"V")], "of an unknown kind ('V')"),
    "parent": ([member("a/../../x", b"1")], "a '..' in its path"),
    "absolute": ([member("/tmp/ladder-uploads-abs", b"1")], "an absolute path"),
    "control character": ([member("a\x1b[2J.py", b"1")], "a control character"),
    "not UTF-8": ([member("caf\udce9.py", b"1")], "not UTF-8"),
    "file twice": ([member("a.py", b"1"), member("./a.py", b"2")], "appears twice"),
    "file and folder": ([member("a", b"1"), member("a/b", b"2")],
                        "is both a file and a folder"),
    "folder then file": ([header("a/", tarfile.DIRTYPE), member("a", b"1")],
                         "is both a file and a folder"),
    "deep nesting": ([member("/".join("d" * 17) + "/x.py", b"1")],
                     "nested more than 16 deep"),
    "two pax headers for one member": ([pax({"path": "ab"}), pax({"path": "cd"}),
                                        member("x", b"1")],
                                       "two extended headers of one kind"),
    "a global header naming members": ([pax({"path": "ab"}, tarfile.XGLTYPE),
                                        member("x", b"1")],
                                       "a global archive header that names or sizes"),
    "a damaged pax record": ([header("././@PaxHeader", tarfile.XHDTYPE, 12)
                              + padded(b"99 path=ab\n"), member("x")],
                             "a damaged pax header"),
}


@pytest.mark.parametrize("what", sorted(TARS))
def test_hostile_tars_are_refused_for_their_reason(tmp_path, what):
    members, reason = TARS[what]
    raw = tar_gz(tmp_path / "upload", *members, member("ok.py", b"1"))
    assert reason in refused(raw, tmp_path)
    assert not os.path.exists("/tmp/ladder-uploads-abs")


def with_checksum(block):
    """``block`` with its tar checksum made right."""
    fields = block[:148] + b" " * 8 + block[156:]
    return fields[:148] + b"%06o\x00 " % sum(fields) + fields[156:]


def test_sizes_are_checked_before_the_data_is_read(tmp_path):
    # 10 GB in base-256, and no data: refused for its size, not for the missing data.
    huge = with_checksum(header("x")[:124] + b"\x80" + (10 * GIGABYTE).to_bytes(11, "big")
                         + header("x")[136:])
    assert "more than 64 MB once unpacked" in refused(tar_gz(tmp_path / "a", huge, end=b""),
                                                      tmp_path)
    negative = with_checksum(header("x")[:124] + b"\xff" * 12 + header("x")[136:])
    assert "'x': a negative size" in refused(tar_gz(tmp_path / "b", negative), tmp_path)
    damaged = b"y" + header("x")[1:]
    assert "checksum does not match" in refused(tar_gz(tmp_path / "c", damaged), tmp_path)


def test_what_tar_formats_declare_is_honoured(tmp_path):
    # A pax size record overrides the header's; a ustar prefix is joined to the name; an
    # old-style folder (a regular kind, a name ending in "/") is a folder; an archive
    # without its end blocks ends where its stream does.
    long_folder = "p" * 120
    raw = tar_gz(tmp_path / "upload", pax({"size": "3"}), header("sized"), padded(b"abc"),
                 header(long_folder + "/x", size=1, form=tarfile.USTAR_FORMAT),
                 padded(b"1"), header("old/", b"\x00"), end=b"")
    accept(raw, tmp_path / "normal.tar.gz")
    found, empty = files_of(unpack_normalised(tmp_path / "normal.tar.gz", tmp_path / "out"))
    assert found == {"sized": (b"abc", False), long_folder + "/x": (b"1", False)}
    assert empty == ["old"]
    bad = tar_gz(tmp_path / "bad", pax({"size": "x3"}), header("sized"))
    assert "its size is not a number" in refused(bad, tmp_path)


def test_a_pax_header_is_read_within_its_bound(tmp_path):
    # A long path (and other records) in a pax header are honoured: the name is kept.
    name = "agent/" + "n" * 200 + ".py"
    raw = tmp_path / "upload"
    with tarfile.open(raw, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo(name)
        info.size, info.pax_headers = 2, {"comment": "x" * 30_000}
        archive.addfile(info, io.BytesIO(b"1\n"))
    accepted = accept(raw, tmp_path / "normal.tar.gz")
    unpack_normalised(tmp_path / "normal.tar.gz", tmp_path / "out")
    assert (tmp_path / "out" / ("n" * 200 + ".py")).read_bytes() == b"1\n"
    assert accepted.files == 1


def test_bombs_are_refused_after_the_bound_whatever_they_declare(tmp_path):
    # A file of 128 MB of zeros, declared as such: refused from its header.
    raw = write_gzip(tmp_path / "a", header("zeros", size=128 << 20), bytes(1 << 20), 128,
                     END)
    check_bounded(raw, tmp_path, "more than 64 MB once unpacked", cpu=1.0)
    # 128 MB of zeros after the end of the archive, inside the gzip stream: inflated only
    # up to the bound for the stream (64 MB + 4 KB a member + 64 KB).
    raw = write_gzip(tmp_path / "b", member("a.py", b"1") + END, bytes(1 << 20), 128)
    check_bounded(raw, tmp_path, "more than 71.9 MB once inflated")


def test_a_second_gzip_stream_is_refused(tmp_path):
    one = tar_gz(tmp_path / "one", member("a.py", b"1")).read_bytes()
    raw = tmp_path / "upload"
    raw.write_bytes(one + one)
    assert "a second stream" in refused(raw, tmp_path)
    raw.write_bytes(one + bytes(5000))             # zero padding after it is fine
    assert accept(raw, tmp_path / "normal.tar.gz").files == 1
    raw.write_bytes(one[:-20])
    assert "ends before its gzip stream does" in refused(raw, tmp_path)


def test_a_zip_bomb_that_lies_about_its_size_is_stopped_as_it_inflates(tmp_path):
    raw = tmp_path / "upload"
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open("zeros.bin", "w") as out:
            for _ in range(100):
                out.write(bytes(1 << 20))
    data = bytearray(raw.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (1000).to_bytes(4, "little")   # declared size
    raw.write_bytes(bytes(data))
    check_bounded(raw, tmp_path, "'zeros.bin' is larger than it declares (1,000 bytes)",
                  cpu=1.0)


def test_a_zip_declaring_more_than_it_holds_is_refused_before_inflating(tmp_path):
    data = bytearray(zip_file(tmp_path / "z", {"a.py": b"1"}).read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (100 << 20).to_bytes(4, "little")
    raw = tmp_path / "upload"
    raw.write_bytes(bytes(data))
    assert "more than 64 MB once unpacked" in refused(raw, tmp_path)


ZIPS = {
    "symlink": ({"homework.py": b"", "link.py": (b"/etc/passwd", 0o120777)},
                "'link.py' is a link or a special file"),
    "device": ({"dev": (b"", 0o020644)}, "'dev' is a link or a special file"),
    "parent": ({"../x": b"1"}, "a '..' in its path"),
    "absolute": ({"/tmp/ladder-uploads-abs": b"1"}, "an absolute path"),
    "drive letter": ({"C:/x": b"1"}, "an absolute path"),
    "backslash": ({"..\\x": b"1"}, "backslash"),
    "file and folder": ({"a": b"1", "a/b": b"2"}, "is both a file and a folder"),
    "deep nesting": ({"/".join("d" * 17) + "/x.py": b"1"}, "nested more than 16 deep"),
    "a 2 KB name": ({"n" * 2000: b"1"}, "a member's name longer than 1,024 bytes"),
}


@pytest.mark.parametrize("what", sorted(ZIPS))
def test_hostile_zips_are_refused_for_their_reason(tmp_path, what):
    files, reason = ZIPS[what]
    raw = zip_file(tmp_path / "upload", files)
    assert reason in refused(raw, tmp_path)
    assert not os.path.exists("/tmp/ladder-uploads-abs")


def test_a_zip_with_a_name_twice_is_refused(tmp_path):
    with pytest.warns(UserWarning, match="Duplicate name"):     # zipfile's, as it writes
        raw = zip_file(tmp_path / "upload", {"a.py": b"1"},
                       lambda archive: archive.writestr("a.py", "2"))
    assert "'a.py' appears twice" in refused(raw, tmp_path)


def test_zips_that_are_not_what_their_records_say_are_refused(tmp_path):
    data = zip_file(tmp_path / "z", {"a.py": b"1", "b.py": b"2"}).read_bytes()
    raw = tmp_path / "upload"
    raw.write_bytes(data + b"junk")
    assert "no end record" in refused(raw, tmp_path)
    raw.write_bytes(b"PK\x03\x04" + bytes(100) + data)          # data before the archive
    assert "not where its end record says" in refused(raw, tmp_path)
    second = data.find(b"PK\x03\x04", 4)                        # b.py's local header
    renamed = data[:second + 30] + b"c" + data[second + 31:]
    raw.write_bytes(renamed)
    assert "names another member" in refused(raw, tmp_path)
    end, fields = end_record(data)
    fields[3:5] = [1, 1]                                        # one record declared, two held
    raw.write_bytes(data[:end] + struct.pack("<4s4H2LH", *fields))
    assert "more than the records it declares" in refused(raw, tmp_path)
    data = bytearray(data)
    central = data.find(b"PK\x01\x02")
    data[central + 16] ^= 1                                     # a.py's CRC-32
    raw.write_bytes(bytes(data))
    assert "the size or CRC of 'a.py' does not match" in refused(raw, tmp_path)
    data[central + 16] ^= 1
    data[central + 8] = 1                                       # encrypted
    raw.write_bytes(bytes(data))
    assert "'a.py' is encrypted" in refused(raw, tmp_path)


def with_end(data, **changes):
    """The zip ``data`` (no comment) with fields of its end record changed."""
    end, fields = end_record(data)
    names = ("disk", "start_disk", "here", "records", "size", "start", "comment")
    for name, value in changes.items():
        fields[1 + names.index(name)] = value
    return data[:end] + struct.pack("<4s4H2LH", *fields)


def test_zips_whose_records_disagree_are_refused(tmp_path):
    data = zip_file(tmp_path / "z", {"a.py": b"1", "b.py": b"2"}).read_bytes()
    end, fields = end_record(data)
    raw = tmp_path / "upload"
    raw.write_bytes(with_end(data, disk=1))
    assert "split over several disks" in refused(raw, tmp_path)
    # A comment that is itself an end record ending the file: two candidates.
    fake = struct.pack("<4s4H2LH", *fields)
    raw.write_bytes(with_end(data, comment=len(fake)) + fake)
    assert "two end records" in refused(raw, tmp_path)
    # Two directory records for the same bytes (one name each): members overlap.
    central = data.find(b"PK\x01\x02")
    second = data.find(b"PK\x01\x02", central + 4)
    twin = bytearray(data[central:second])
    twin[46:50] = b"c.py"
    directory = data[central:end] + bytes(twin)
    raw.write_bytes(with_end(data[:central] + directory + data[end:], here=3, records=3,
                             size=len(directory)))
    assert "its members overlap" in refused(raw, tmp_path)
    # A member whose data would run into the directory.
    longer = bytearray(data)
    longer[second + 20:second + 24] = (1000).to_bytes(4, "little")
    raw.write_bytes(bytes(longer))
    assert "the data of 'b.py' runs into the directory" in refused(raw, tmp_path)


def test_counts_and_sizes_are_bounded_exactly(tmp_path):
    many = {f"f{index}.py": b"" for index in range(20)}
    assert accept(zip_file(tmp_path / "a", many), tmp_path / "a.normal", SMALL).files == 20
    many["f20.py"] = b""
    assert "more than 20 files and folders" in refused(zip_file(tmp_path / "b", many),
                                                       tmp_path, SMALL)
    # Implied folders count: 19 files in a folder are 20 entries, 20 are 21.
    folder = {f"d/f{index}.py": b"" for index in range(20)}
    assert "more than 20" in refused(zip_file(tmp_path / "c", folder), tmp_path, SMALL)
    # Repeated folder entries count as members.
    repeated = tar_gz(tmp_path / "d", *[header("d/", tarfile.DIRTYPE)] * 21)
    assert "more than 20" in refused(repeated, tmp_path, SMALL)
    exact = {"a": b"x" * (1 << 19), "b": b"y" * (1 << 19)}
    assert accept(zip_file(tmp_path / "e", exact), tmp_path / "e.normal", SMALL).bytes \
        == 1 << 20
    exact["c"] = b"z"
    assert "more than 1 MB once unpacked" in refused(zip_file(tmp_path / "f", exact),
                                                     tmp_path, SMALL)
    # In a tar, each file's size is checked against what the ones before it left.
    halves = tar_gz(tmp_path / "h", member("a", b"x" * (1 << 19)),
                    member("b", b"y" * (1 << 19)), member("c", b"z"))
    assert "more than 1 MB once unpacked" in refused(halves, tmp_path, SMALL)
    big = tmp_path / "g"
    big.write_bytes(b"PK\x03\x04" + bytes(2 << 20))
    assert "an archive of more than 1.1 MB" in refused(big, tmp_path, SMALL)


# --- normal archives, and the normal form ---------------------------------------------------

AGENT = {"homework.py": b"print('A1 Stake')\n", "run.sh": (b"#!/bin/sh\n", 0o100755),
         "lib/util.py": b"X = 1\n", "lib/data/table.txt": b"1 2 3\n"}


def files_of(folder):
    """{path: (bytes, executable)} and the empty folders below ``folder``."""
    found, empty = {}, []
    for root, folders, names in os.walk(folder):
        relative = os.path.relpath(root, folder)
        if not folders and not names:
            empty.append(relative)
        for name in names:
            path = os.path.join(root, name)
            key = os.path.normpath(os.path.join(relative, name))
            found[key] = (Path(path).read_bytes(), bool(os.stat(path).st_mode & 0o100))
    return found, sorted(empty)


def test_a_zip_holding_one_folder_is_kept_unwrapped(tmp_path):
    files = {f"me/{name}": data for name, data in AGENT.items()}
    files["me/empty/"] = b""
    files["__MACOSX/me/._homework.py"] = b"finder"
    accepted = accept(zip_file(tmp_path / "upload", files), tmp_path / "normal.tar.gz")
    assert accepted[:3] == (4, 3, sum(len(d[0] if isinstance(d, tuple) else d)
                                      for d in AGENT.values()))
    agent = unpack_normalised(tmp_path / "normal.tar.gz", tmp_path / "out",
                              sha256=accepted.sha256)
    assert agent == str(tmp_path / "out")
    found, empty = files_of(agent)
    assert found == {"homework.py": (b"print('A1 Stake')\n", False),
                     "run.sh": (b"#!/bin/sh\n", True), "lib/util.py": (b"X = 1\n", False),
                     "lib/data/table.txt": (b"1 2 3\n", False)}
    assert empty == ["empty"]
    # Without a folder to unwrap, Finder's metadata is dropped still.
    files = {"a.py": b"1", "__MACOSX/._a.py": b"finder"}
    accept(zip_file(tmp_path / "bare.zip", files), tmp_path / "bare.normal")
    found, _ = files_of(unpack_normalised(tmp_path / "bare.normal", tmp_path / "bare"))
    assert found == {"a.py": (b"1", False)}


def test_the_normal_form_is_ours_only(tmp_path):
    raw = tmp_path / "upload"
    with tarfile.open(raw, "w:gz") as archive:
        for name, mode, owner in (("agent/", 0o777, 1234), ("agent/a.py", 0o4775, 1234),
                                  ("agent/b.py", 0o600, 99)):
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE if name.endswith("/") else tarfile.REGTYPE
            info.mode, info.uid, info.uname, info.mtime = mode, owner, "someone", 1e9
            info.size = 0 if info.isdir() else 3
            archive.addfile(info, None if info.isdir() else io.BytesIO(b"abc"))
    accept(raw, tmp_path / "normal.tar.gz")
    with tarfile.open(tmp_path / "normal.tar.gz") as normal:
        seen = [(info.name, info.type, oct(info.mode), info.uid, info.uname, info.mtime,
                 info.pax_headers) for info in normal]
    assert seen == [("a.py", tarfile.REGTYPE, "0o755", 0, "", 0, {}),
                    ("b.py", tarfile.REGTYPE, "0o644", 0, "", 0, {})]


def test_the_same_files_packed_two_ways_give_the_same_digest(tmp_path):
    zipped = zip_file(tmp_path / "a.zip", {f"me/{name}": data for name, data in
                                           reversed(list(AGENT.items()))})
    source = tmp_path / "src"
    for name, data in AGENT.items():
        data, mode = data if isinstance(data, tuple) else (data, 0o100664)
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
        (source / name).chmod(mode & 0o777)
    tarred = tmp_path / "b.tar.gz"
    with tarfile.open(tarred, "w:gz") as archive:
        for name in sorted(AGENT):
            archive.add(source / name, arcname=name)
    first = accept(zipped, tmp_path / "a.normal")
    second = accept(tarred, tmp_path / "b.normal")
    assert first == second
    assert (tmp_path / "a.normal").read_bytes() == (tmp_path / "b.normal").read_bytes()
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as archive:
        for name, data in AGENT.items():                          # run.sh not executable
            archive.writestr(name, data[0] if isinstance(data, tuple) else data)
    assert accept(tmp_path / "c.zip", tmp_path / "c.normal").sha256 != first.sha256


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar command here")
def test_a_tar_gz_made_by_tar_czf_is_accepted(tmp_path):
    agent = tmp_path / "agent"
    (agent / "lib").mkdir(parents=True)
    (agent / "empty").mkdir()
    (agent / "homework.py").write_text("print('A1 Stake')\n")
    (agent / "lib" / ("long_" * 30 + ".py")).write_text("X = 1\n")
    (agent / "go").write_text("#!/bin/sh\n")
    (agent / "go").chmod(0o755)
    subprocess.run(["tar", "czf", str(tmp_path / "upload"), "-C", str(tmp_path), "agent"],
                   check=True)
    accepted = accept(tmp_path / "upload", tmp_path / "normal.tar.gz")
    assert accepted[:2] == (3, 2)
    found, empty = files_of(unpack_normalised(tmp_path / "normal.tar.gz", tmp_path / "out"))
    assert found == {"homework.py": (b"print('A1 Stake')\n", False), "go": (b"#!/bin/sh\n", True),
                     "lib/" + "long_" * 30 + ".py": (b"X = 1\n", False)}
    assert empty == ["empty"]


def test_accept_writes_a_new_file_only(tmp_path):
    raw = zip_file(tmp_path / "upload", {"a.py": b"1"})
    (tmp_path / "normal.tar.gz").write_bytes(b"theirs")
    with pytest.raises(FileExistsError):
        accept(raw, tmp_path / "normal.tar.gz")
    assert (tmp_path / "normal.tar.gz").read_bytes() == b"theirs"
    assert sorted(os.listdir(tmp_path)) == ["normal.tar.gz", "upload"]


def test_unpack_normalised_checks_again(tmp_path):
    raw = zip_file(tmp_path / "upload", {"a.py": b"1"})
    with pytest.raises(Refused, match="not an agent in our normal form"):
        unpack_normalised(raw, tmp_path / "out")
    normal = tmp_path / "normal.tar.gz"
    accepted = accept(raw, normal)
    with pytest.raises(Refused, match="does not match its SHA-256"):
        unpack_normalised(normal, tmp_path / "out", sha256=hashlib.sha256(b"").hexdigest())
    assert not (tmp_path / "out").exists()
    # Defence in depth: a form of ours is held to the bounds it is unpacked with.
    many = zip_file(tmp_path / "many", {f"f{index}": b"" for index in range(21)})
    accept(many, tmp_path / "many.normal")
    with pytest.raises(Refused, match="more than 20 files and folders"):
        unpack_normalised(tmp_path / "many.normal", tmp_path / "out", SMALL)
    assert not (tmp_path / "out").exists()
    assert unpack_normalised(normal, tmp_path / "out", sha256=accepted.sha256) \
        == str(tmp_path / "out")


def test_the_old_unpack_uses_the_same_bounded_readers(tmp_path):
    assert issubclass(Refused, EngineError) and issubclass(Refused, ValueError)
    with pytest.raises(Refused, match="an archive header of 67,108,864 bytes"):
        unpack(huge_pax_header(tmp_path / "upload", 64 << 20), tmp_path / "out")
    assert not (tmp_path / "out").exists()
    raw = zip_file(tmp_path / "ok.zip", {"me/a.py": b"1", ".hidden": b""})
    assert unpack(raw, tmp_path / "out") == str(tmp_path / "out" / "me")
