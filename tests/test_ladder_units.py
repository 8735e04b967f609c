"""The ladder's standard-library parts: the upload unpacker (hostile archives) and
the roster reader. No server, no database."""

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import zipfile

import pytest
from ladder_helpers import FIRST_EMPTY, symlink_member, zip_bytes, zip_with

from engine.errors import UsageError
from engine.sandbox import Bounds, start_time
from engine.ladder.create import read_roster
from engine.ladder.serving import run_stop
from engine.ladder.uploads import Refused, unpack


def write(tmp_path, data, name="upload"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def tar_gz(add):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        add(archive)
    return buffer.getvalue()


def tar_member(archive, name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.linkname = link
    archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


# --- unpacking -------------------------------------------------------------------------

def test_a_zip_is_unpacked_and_a_lone_folder_is_the_agent(tmp_path):
    path = write(tmp_path, zip_bytes({"me/homework.py": FIRST_EMPTY, "me/lib/x.py": "1\n"}))
    root = unpack(path, tmp_path / "out")
    assert root == str(tmp_path / "out" / "me")
    assert (tmp_path / "out" / "me" / "homework.py").read_text() == FIRST_EMPTY
    assert (tmp_path / "out" / "me" / "lib" / "x.py").read_text() == "1\n"


def test_a_tar_gz_is_unpacked(tmp_path):
    data = tar_gz(lambda a: (tar_member(a, "homework.py", data=FIRST_EMPTY.encode()),
                             tar_member(a, "sub", tarfile.DIRTYPE)))
    root = unpack(write(tmp_path, data), tmp_path / "out")
    assert root == str(tmp_path / "out")
    assert sorted(os.listdir(root)) == ["homework.py", "sub"]


ZIPS = {
    "parent": (lambda a: a.writestr("../x", "escaped"), r"'\.\.'"),
    "deep parent": (lambda a: a.writestr("a/../../x", "escaped"), r"'\.\.'"),
    "absolute": (lambda a: a.writestr("/tmp/ladder-unit-abs", "escaped"), "absolute"),
    "backslash": (lambda a: a.writestr("..\\x", "escaped"), "backslash"),
    "link": (symlink_member, "link"),
    "twice": (lambda a: (a.writestr("homework.py", "1")), "twice"),
}


@pytest.mark.parametrize("what", sorted(ZIPS))
def test_hostile_zips_are_refused_and_write_nothing_outside(tmp_path, what):
    member, words = ZIPS[what]
    inside = tmp_path / "inside"
    inside.mkdir()
    path = write(inside, zip_with(member))
    with pytest.raises(Refused, match=words):
        unpack(path, inside / "out")
    assert sorted(os.listdir(inside)) == ["upload"]      # nothing left, nothing beside
    assert sorted(os.listdir(tmp_path)) == ["inside"]
    assert not os.path.exists("/tmp/ladder-unit-abs")


TARS = {
    "parent": (lambda a: tar_member(a, "../x", data=b"escaped"), "'..'"),
    "absolute": (lambda a: tar_member(a, "/tmp/ladder-unit-abs", data=b"x"), "absolute"),
    "symlink": (lambda a: tar_member(a, "l", tarfile.SYMTYPE, link="/etc/passwd"), "link"),
    "hard link": (lambda a: (tar_member(a, "f", data=b"1"),
                             tar_member(a, "h", tarfile.LNKTYPE, link="/etc/passwd")), "link"),
    "device": (lambda a: tar_member(a, "dev", tarfile.CHRTYPE), "special"),
    "fifo": (lambda a: tar_member(a, "fifo", tarfile.FIFOTYPE), "special"),
}


@pytest.mark.parametrize("what", sorted(TARS))
def test_hostile_tars_are_refused_and_write_nothing_outside(tmp_path, what):
    member, words = TARS[what]
    inside = tmp_path / "inside"
    inside.mkdir()
    path = write(inside, tar_gz(member))
    with pytest.raises(Refused, match=words):
        unpack(path, inside / "out")
    assert sorted(os.listdir(inside)) == ["upload"]
    assert sorted(os.listdir(tmp_path)) == ["inside"]


def test_a_zip_bomb_is_refused_after_the_bound_whatever_it_declares(tmp_path):
    # 200 MB of zeros compresses to about 200 KB; the bound is 1 MB here.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("zeros.bin", "w", force_zip64=True) as member:
            for _ in range(200):
                member.write(bytes(1 << 20))
    path = write(tmp_path, buffer.getvalue())
    assert path.stat().st_size < 1 << 20
    with pytest.raises(Refused, match="MB once unpacked"):
        unpack(path, tmp_path / "out", Bounds(depth=8, entries=100, bytes=1 << 20))
    assert not (tmp_path / "out").exists()


def test_a_zip_that_lies_about_its_sizes_is_refused(tmp_path):
    data = bytearray(zip_bytes({"a.txt": "x" * 5000}))
    # Declare 10 bytes in the central directory and the local header: zipfile reads only
    # what is declared, and the CRC of 10 bytes then fails.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    data[22:26] = (10).to_bytes(4, "little")
    with pytest.raises(Refused):
        unpack(write(tmp_path, bytes(data)), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_too_many_entries_and_depth_are_refused(tmp_path):
    many = zip_bytes({f"f{i}.py": "" for i in range(30)})
    with pytest.raises(Refused, match="more than 20 files"):
        unpack(write(tmp_path, many), tmp_path / "out", Bounds(depth=8, entries=20,
                                                               bytes=1 << 20))
    deep = zip_bytes({"/".join("d" * 10) + "/f.py": ""})
    with pytest.raises(Refused, match="nested more than 5 deep"):
        unpack(write(tmp_path, deep, "deep"), tmp_path / "out2",
               Bounds(depth=5, entries=100, bytes=1 << 20))


def test_what_is_no_archive_is_refused(tmp_path):
    with pytest.raises(Refused, match="not a .zip or .tar.gz"):
        unpack(write(tmp_path, b"#!/bin/sh\nrm -rf /\n"), tmp_path / "out")
    with pytest.raises(Refused, match="not a readable"):
        unpack(write(tmp_path, b"PK\x03\x04garbage", "z"), tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- the roster ----------------------------------------------------------------------------

def test_the_roster_takes_a_name_column_or_the_first(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("email,name\na@x,alice\nb@x,bob\n")
    assert read_roster(path) == ["alice", "bob"]
    path.write_text("carol\ndave\n")
    assert read_roster(path) == ["carol", "dave"]
    for bad in ("name\n<script>\n", "name\nann\nann\n", "name\nours:agent\n", "name\n"):
        path.write_text(bad)
        with pytest.raises(UsageError):
            read_roster(path)


# --- ladder stop ----------------------------------------------------------------------------

def _process(tmp_path, code):
    """A Python child that writes ``ready`` once it runs ``code``'s set-up."""
    ready = tmp_path / "ready"
    process = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "server.json"),
                                str(ready)])
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return process


SERVER = ("import os, signal, sys, time\n"
          "signal.signal(signal.SIGTERM, lambda *_: (os.unlink(sys.argv[1]), sys.exit(0)))\n"
          "open(sys.argv[2], 'w').close()\ntime.sleep(600)\n")


def test_stop_never_signals_a_process_that_took_a_dead_servers_pid(tmp_path):
    """A server killed outright leaves server.json behind; its pid may go to any process
    later. The process holding it now started at another time: it is left alone, and
    the stale file is removed."""
    stranger = _process(tmp_path, SERVER)
    try:
        (tmp_path / "server.json").write_text(json.dumps(
            {"pid": stranger.pid, "started": start_time(stranger.pid) - 1}))
        with pytest.raises(UsageError, match="was gone already"):
            run_stop(argparse.Namespace(folder=str(tmp_path)))
        time.sleep(0.1)
        assert stranger.poll() is None
        assert not (tmp_path / "server.json").exists()
    finally:
        stranger.kill()
        stranger.wait()


def test_stop_ends_the_server_that_wrote_the_file(tmp_path, capsys):
    server = _process(tmp_path, SERVER)
    try:
        (tmp_path / "server.json").write_text(json.dumps(
            {"pid": server.pid, "started": start_time(server.pid)}))
        assert run_stop(argparse.Namespace(folder=str(tmp_path))) == 0
        assert server.wait(30) == 0 and "stopped the server" in capsys.readouterr().out
    finally:
        server.kill()
        server.wait()
