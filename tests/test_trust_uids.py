"""Two kits at once never share a sandbox uid (engine.sandbox.uid_leases).

Uids used to be drawn from a range chosen by the kit's pid modulo 10,000: two kits whose
pids agreed there handed out the same uids (one's cleanup killed the other's runs). Now
each kit holds an flock'd lease on its block. The kits here are separate processes that
even claim the same pid, so that only the lock can tell them apart.
"""

import os
import subprocess
import sys
import time

import pytest

from golden import REPO

from engine.sandbox import uid_leases

# A "kit": pretends its pid is 4242 (what decided the block before), takes uids like the
# sandbox does, prints them, and holds its lease until its stdin closes.
KIT = """\
import os, sys
os.getpid = lambda: 4242
from engine.sandbox import _slot as sandbox
uids = [sandbox._next_uid() for _ in range(5)]
print(" ".join(map(str, uids)), flush=True)
sys.stdin.read()
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="uid blocks are for root kits")


def start_kit():
    process = subprocess.Popen([sys.executable, "-c", KIT], cwd=REPO, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    return process, set(map(int, process.stdout.readline().split()))


def stop(process):
    process.stdin.close()
    process.wait(timeout=30)


def test_two_kits_at_once_never_share_a_uid():
    first, first_uids = start_kit()
    try:
        second, second_uids = start_kit()
        try:
            assert len(first_uids) == len(second_uids) == 5
            assert not first_uids & second_uids
            blocks = {(uid - uid_leases.BASE) // uid_leases.BLOCK
                      for uid in first_uids | second_uids}
            assert len(blocks) == 2
        finally:
            stop(second)
    finally:
        stop(first)


def test_a_dead_kits_block_is_free_again():
    first, first_uids = start_kit()
    first.kill()                     # no cleanup: the kernel drops the lock
    first.wait(timeout=30)
    again, again_uids = start_kit()
    try:
        assert again_uids == first_uids
    finally:
        stop(again)


def test_a_forked_child_leases_a_block_of_its_own():
    uid_leases.next_uid()
    ours = uid_leases.current_block()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(reader)
            os.write(writer, str(uid_leases.next_uid()).encode())
        finally:
            os._exit(0)
    os.close(writer)
    time.sleep(0.1)
    uid = int(os.read(reader, 100))
    os.close(reader)
    os.waitpid(child, 0)
    assert (uid - uid_leases.BASE) // uid_leases.BLOCK != ours


def test_the_lease_folder_is_private():
    folder = uid_leases.lease_folder()
    status = os.lstat(folder)
    assert status.st_uid == 0 and status.st_mode & 0o777 == 0o700


def test_no_lease_folder_is_a_one_line_refusal(monkeypatch):
    from engine.sandbox import _slot as sandbox
    from engine.sandbox import IsolationError

    def refuse():
        raise uid_leases.LeaseError(13, "no folder for uid leases: /run: not ours")
    monkeypatch.setattr(uid_leases, "lease_folder", refuse)
    monkeypatch.setattr(uid_leases, "_lease", None)
    with pytest.raises(IsolationError, match="no block of sandbox uids"):
        sandbox.Sandbox(isolation="rlimits+uid")


def test_a_lease_folder_that_is_a_link_or_open_to_others_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    linked, shared = tmp_path / "linked", tmp_path / "shared"
    linked.mkdir()
    (linked / uid_leases.FOLDER_NAME).symlink_to(elsewhere)
    (shared / uid_leases.FOLDER_NAME).mkdir(parents=True)
    (shared / uid_leases.FOLDER_NAME).chmod(0o777)
    for parent in (linked, shared):
        with pytest.raises(uid_leases.LeaseError):
            uid_leases.lease_folder([str(parent)])
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    made = uid_leases.lease_folder([str(fresh)])
    assert os.stat(made).st_mode & 0o777 == 0o700
