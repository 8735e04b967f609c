"""Every output file the programs and tools write goes through write_atomically (a
temporary file renamed over the target), which must never rename over a device or a
named pipe: run as root, ``python3 tictactoe.py STATE /dev/null`` once replaced the
machine's /dev/null by a regular file, and every program after it failed."""

import os
import stat
import subprocess
import sys
import threading

import pytest

from golden import REPO

from engine.commandline import stream_target, write_atomically


def read_fifo(path, into):
    with open(path, "rb") as handle:
        into.append(handle.read())


def test_a_named_pipe_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    # A daemon: if the pipe were replaced, the reader would wait on it for ever.
    reader = threading.Thread(target=read_fifo, args=(fifo, got), daemon=True)
    reader.start()
    write_atomically(fifo, "line\n")
    reader.join(10)
    assert got == [b"line\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.fixture
def null_device(tmp_path):
    """A character device of our own with /dev/null's numbers (never the machine's: a
    regression would replace it)."""
    path = tmp_path / "null"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as error:
        pytest.skip(f"cannot make a device here: {error.strerror}")
    return path


def test_a_program_writing_its_visited_file_to_a_device_leaves_the_device(null_device):
    done = subprocess.run([sys.executable, str(REPO / "tictactoe.py"), "x--------",
                           str(null_device)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.lstat(null_device).st_mode)
    assert null_device.parent.joinpath("null").stat().st_rdev == os.makedev(1, 3)


def test_a_trusted_link_to_a_device_is_written_through(tmp_path, null_device):
    """Like /dev/stdout: a link we own in a folder only we may write."""
    folder = tmp_path / "dev"
    folder.mkdir(mode=0o755)
    link = folder / "out"
    link.symlink_to(null_device)
    assert stream_target(link) == str(link)
    write_atomically(link, "x\n")
    assert link.is_symlink() and stat.S_ISCHR(os.lstat(null_device).st_mode)


def test_a_link_in_a_folder_others_may_write_is_never_written_through(tmp_path,
                                                                      null_device):
    """A link planted in a shared folder (mode 1777, as /tmp) is replaced as before."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    link = shared / "out"
    link.symlink_to(null_device)
    assert stream_target(link) is None
    write_atomically(link, "x\n")
    assert not link.is_symlink() and link.read_text() == "x\n"
    assert stat.S_ISCHR(os.lstat(null_device).st_mode)


def test_an_ordinary_file_is_still_replaced_all_at_once(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    write_atomically(target, "new\n")
    assert target.read_text() == "new\n" and stream_target(target) is None


def test_a_pipe_another_user_made_in_a_shared_folder_is_never_written_into(tmp_path):
    """A FIFO planted in /tmp by someone else: writing into it would hand our output to
    its reader (or wait for ever for one); it is replaced like any file there."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    fifo = shared / "results.json"
    os.mkfifo(fifo)
    try:
        os.chown(fifo, 65534, 65534)
    except OSError as error:
        pytest.skip(f"cannot give the pipe away: {error.strerror}")
    assert stream_target(fifo) is None
    write_atomically(fifo, "x\n")
    assert fifo.read_text() == "x\n"
