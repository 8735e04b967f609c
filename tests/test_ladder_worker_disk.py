"""A ladder worker's builds on disk, its run folders in memory.

A worker keeps a class's builds for hours, so they go on disk (Director's
``builds_root``); the run folders stay in the kit's workspace in /dev/shm, where a run's
files are memory charged to the run: an agent that writes file after file is stopped
by its memory limit, never by the disk filling up. A build then leaves its run folder
for another file system: rename fails (EXDEV), and move_out copies it link-safely
instead (engine.sandbox.untrusted_files.copy_across).

What is checked: the copy carries files (content, mode, times), folders and links (as
links, never followed), leaves special files and nothing of the source, stays within
its bounds (and leaves nothing half copied), opens up what a run with our uid made
unreadable; on one file system builds are still renamed. A director with its builds
on another file system builds (a build that leaves a FIFO too) and plays a game, and
its close leaves the builds' folder empty. And the attack: an agent writing 64 MB
files in a loop during its move, played by a worker, forfeits on memory while the
file system holding the builds does not grow.

"The disk" in the director's tests is a tmpfs the test mounts (root only): a file
system of the test's own, whose free space moves only with what is written there,
whatever else the machine does.
"""

import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from grading_helpers import FIRST_EMPTY, LAST_EMPTY
from test_ladder_worker import TOKEN, FakeLadder, agent, game_lease, submission

from engine.sandbox import _cgroups as cgroups
from engine.sandbox import untrusted_files
from engine.sandbox.untrusted_files import Bounds, TooLarge, move_out, remove_tree
from engine.sandbox.workspace import workspace_root
from engine.ladder.worker import Worker
from engine.ladder.worker.client import Client
from engine.tournament import entrants as entrants_module
from engine.tournament.director import Director
from engine.tournament.games import rules_for
from engine.tournament.schedule import GameSpec

REPO = Path(__file__).resolve().parent.parent
RULES = rules_for("stake_raid")
NOBODY = 65534
# What the builds' file system may lose while an agent writes gigabytes in its run
# folder: the two small builds and their sources, with room to spare.
DISK_SLACK = 8 << 20

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0,
    reason="the director's sandbox needs bubblewrap and root here")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="becomes user nobody: root only")


def device(path):
    return os.stat(path).st_dev


@pytest.fixture
def two_file_systems(tmp_path):
    """(a run folder in /dev/shm, a folder on the file system of tmp_path): another one."""
    shared = workspace_root()
    if shared is None or device(shared) == device(tmp_path):
        pytest.skip("needs /dev/shm on a file system of its own")
    folder = Path(tempfile.mkdtemp(prefix="disk-test-", dir=shared))
    run = folder / "run"
    run.mkdir()
    yield run, tmp_path
    remove_tree(str(folder))


@pytest.fixture
def own_disk():
    """A tmpfs of 512 MB mounted for this test, in a folder others may pass through."""
    mount = shutil.which("mount")
    if os.geteuid() != 0 or mount is None:
        pytest.skip("mounts a tmpfs: root only")
    folder = tempfile.mkdtemp(prefix="disk-test-", dir="/var/tmp")
    try:
        subprocess.run([mount, "-t", "tmpfs", "-o", "size=512m,mode=0711", "tmpfs", folder],
                       check=True, capture_output=True)
    except (subprocess.CalledProcessError, OSError) as error:
        os.rmdir(folder)
        pytest.skip(f"cannot mount a tmpfs here: {error}")
    try:
        yield Path(folder)
    finally:
        subprocess.run([shutil.which("umount") or "umount", "-l", folder], check=True)
        os.rmdir(folder)


def free_bytes(path):
    status = os.statvfs(path)
    return status.f_bavail * status.f_frsize


def listing(top):
    """{relative path: ("file", bytes, mode) | ("folder",) | ("link", text)} of
    everything below ``top``, links never followed."""
    found = {}
    for folder, folders, files in os.walk(top):
        for name in folders + files:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, top)
            status = os.lstat(path)
            if stat.S_ISLNK(status.st_mode):
                found[relative] = ("link", os.readlink(path))
            elif stat.S_ISDIR(status.st_mode):
                found[relative] = ("folder",)
            elif stat.S_ISREG(status.st_mode):
                found[relative] = ("file", Path(path).read_bytes(),
                                   stat.S_IMODE(status.st_mode))
            else:
                found[relative] = ("other",)
    return found


def plant_tree(run, outside):
    """What a build may leave: files (one executable), folders (one empty), links out
    of the folder (to a file, to a folder), a relative link, a FIFO and a link to it."""
    (outside / "secret.txt").write_text("secret\n")
    (outside / "loot").mkdir()
    (outside / "loot" / "gold.txt").write_text("gold\n")
    (run / "agent").write_bytes(b"#!/bin/sh\necho A1 Stake\n")
    (run / "agent").chmod(0o755)
    (run / "data" / "inner").mkdir(parents=True)
    (run / "data" / "inner" / "deep.txt").write_text("deep\n")
    (run / "data" / "inner" / "deep.txt").chmod(0o640)
    (run / "empty").mkdir()
    (run / "secret-link").symlink_to(outside / "secret.txt")
    (run / "data" / "loot").symlink_to(outside / "loot")
    (run / "data" / "up").symlink_to("..")
    os.mkfifo(run / "pipe")
    (run / "data" / "to-pipe").symlink_to("../pipe")
    os.utime(run / "agent", ns=(1_000_000_000, 1_234_567_890_000_000_000))


# --- the copy fallback --------------------------------------------------------------------

def test_across_file_systems_a_build_is_copied_links_as_links(two_file_systems):
    run, disk = two_file_systems
    plant_tree(run, disk)
    home = disk / "home"
    home.mkdir()
    copied = move_out(str(run), str(home / "submission"), str(home))
    built = home / "submission"
    assert listing(built) == {
        "agent": ("file", b"#!/bin/sh\necho A1 Stake\n", 0o755),
        "data": ("folder",),
        "data/inner": ("folder",),
        "data/inner/deep.txt": ("file", b"deep\n", 0o640),
        "data/loot": ("link", str(disk / "loot")),
        "data/to-pipe": ("link", "../pipe"),
        "data/up": ("link", ".."),
        "empty": ("folder",),
        "secret-link": ("link", str(disk / "secret.txt")),
    }
    assert os.stat(built / "agent").st_mtime_ns == 1_234_567_890_000_000_000
    assert sorted(entry.path for entry in copied) == sorted(listing(built))
    assert os.listdir(run) == []                       # nothing of the source is left
    assert (disk / "secret.txt").read_text() == "secret\n"
    assert os.listdir(disk / "loot") == ["gold.txt"]
    assert device(built) != device(run)


def test_on_one_file_system_a_build_is_still_renamed(tmp_path, monkeypatch):
    def no_copy(*args):
        raise AssertionError("copied where a rename does")
    monkeypatch.setattr(untrusted_files, "copy_across", no_copy)
    run = tmp_path / "run"
    run.mkdir()
    plant_tree(run, tmp_path)
    inode = os.stat(run / "agent").st_ino
    home = tmp_path / "home"
    home.mkdir()
    assert move_out(str(run), str(home / "submission"), str(home)) is None
    assert os.stat(home / "submission" / "agent").st_ino == inode
    assert stat.S_ISFIFO(os.lstat(home / "submission" / "pipe").st_mode)
    assert os.listdir(run) == []


@pytest.mark.parametrize("bounds, words", [
    (Bounds(entries=5), "more than 5 files and folders"),
    (Bounds(depth=2), "nested more than 2 deep"),
    (Bounds(bytes=1000), "MB of files"),
])
def test_a_tree_past_the_bounds_is_refused_before_anything_is_copied(two_file_systems,
                                                                      bounds, words):
    run, disk = two_file_systems
    deep = run / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for index in range(4):
        (run / f"f{index}").write_bytes(b"x" * 400)
    home = disk / "home"
    home.mkdir()
    with pytest.raises(TooLarge, match=words):
        move_out(str(run), str(home / "submission"), str(home), bounds)
    assert os.listdir(home / "submission") == []
    assert sorted(os.listdir(run)) == ["a", "f0", "f1", "f2", "f3"]   # the caller clears


def test_a_copy_that_fails_midway_leaves_nothing_half_copied(two_file_systems,
                                                             monkeypatch):
    run, disk = two_file_systems
    plant_tree(run, disk)
    real_copy = untrusted_files._copy_file

    def fail_on_deep(entry, source_root, target_root):
        if entry.path.endswith("deep.txt"):
            raise OSError(28, "No space left on device")
        real_copy(entry, source_root, target_root)
    monkeypatch.setattr(untrusted_files, "_copy_file", fail_on_deep)
    home = disk / "home"
    home.mkdir()
    with pytest.raises(OSError, match="No space"):
        move_out(str(run), str(home / "submission"), str(home))
    assert os.listdir(home / "submission") == []
    assert "agent" in os.listdir(run)


# As user nobody (a kit without root: runs share its uid), a run made a file and a
# folder unreadable; rename would carry them, and so must the copy.
AS_NOBODY = """\
import json, os, sys
from engine.sandbox.untrusted_files import move_out
run, home = sys.argv[1], sys.argv[2]
os.mkdir(run + "/locked")
with open(run + "/locked/inside.txt", "w") as handle:
    handle.write("inside\\n")
with open(run + "/hidden.txt", "w") as handle:
    handle.write("hidden\\n")
os.chmod(run + "/hidden.txt", 0)
os.chmod(run + "/locked", 0)
copied = move_out(run, home + "/submission", home)
print(json.dumps(sorted(entry.path for entry in copied)))
"""


@needs_root
def test_what_a_run_of_our_uid_made_unreadable_is_still_carried(two_file_systems):
    run, disk = two_file_systems
    home = Path(tempfile.mkdtemp(prefix="disk-test-", dir="/var/tmp"))
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if python is None or device(home) == device(run):
        pytest.skip("needs a system python3 and /var/tmp apart from /dev/shm")
    # nobody imports a copy of engine/: the checkout may sit in a folder closed to it
    # (a clone in mktemp -d's 0700 folder).
    code = Path(tempfile.mkdtemp(prefix="disk-test-engine-", dir="/var/tmp"))
    try:
        os.chmod(code, 0o755)
        shutil.copytree(REPO / "engine", code / "engine",
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.chmod(run.parent, 0o711)
        os.chown(run, NOBODY, NOBODY)
        os.chown(home, NOBODY, NOBODY)
        done = subprocess.run([python, "-c", AS_NOBODY, str(run), str(home)], cwd=code,
                              env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"},
                              user=NOBODY, group=NOBODY, extra_groups=[],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == ["hidden.txt", "locked", "locked/inside.txt"]
        built = home / "submission"
        assert (built / "locked" / "inside.txt").read_text() == "inside\n"
        assert (built / "hidden.txt").read_text() == "hidden\n"
        assert stat.S_IMODE(os.stat(built / "hidden.txt").st_mode) == 0
        assert os.listdir(run) == []
    finally:
        remove_tree(str(home))
        shutil.rmtree(code, ignore_errors=True)


# --- a director with its builds on another file system --------------------------------

def entrant_folder(root, name, files):
    folder = root / name
    folder.mkdir()
    for relative, text in files.items():
        (folder / relative).write_text(text)
    return str(folder)


@needs_sandbox
def test_a_director_builds_on_another_file_system_and_plays(own_disk, tmp_path):
    # "piper"'s build leaves a FIFO, which no copy carries over.
    paths = [entrant_folder(tmp_path, "first", {"homework.py": FIRST_EMPTY}),
             entrant_folder(tmp_path, "piper", {
                 "last.py": LAST_EMPTY,
                 "Makefile": "agent:\n\tmkfifo leftover\n\tcp last.py agent.py\n\n"
                             "run:\n\tpython3 agent.py\n"})]
    found = entrants_module.resolve(RULES, paths, [], None)
    builds = own_disk / "builds"
    builds.mkdir(mode=0o711)
    director = Director(RULES, found, 2.0, jobs=1, memory_mb=256, builds_root=str(builds))
    try:
        assert director.build() == {"first": None, "piper": None}
        workspace = director.workspace
        assert workspace is not None and device(workspace) != device(builds)
        for built in director.built.values():
            folder = Path(built.build.folder)
            assert folder.parent.parent == builds and device(folder) == device(builds)
        piper = Path(director.built["piper"].build.folder)
        assert sorted(os.listdir(piper)) == ["Makefile", "agent.py", "last.py"]
        record = director.play_one(GameSpec(1, 1, 1, 1, 1, 3, "first", "piper"),
                                   director.seats[0])
        assert record["forfeit"] is None and record["result"] in ("x", "o", "draw")
        assert len(record["moves"]) >= 2
    finally:
        director.close()
    assert os.listdir(builds) == [] and not os.path.lexists(workspace)


# --- the attack: files written in a loop during a move --------------------------------

# Writes 64 MB files (the file-size limit) one after another, for ever.
WRITER = """\
import os
block = b"x" * (64 << 20)
index = 0
while True:
    with open("junk-%d" % index, "wb") as handle:
        handle.write(block)
    index += 1
"""


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0 or not cgroups.available(),
                    reason="a memory limit on a run's files needs a memory cgroup")
def test_an_agent_writing_files_in_a_loop_is_stopped_by_memory_not_the_disk(own_disk):
    fake = FakeLadder([game_lease(30, submission(31, "writer"), submission(2, "ben"))],
                      {31: agent(WRITER), 2: agent(LAST_EMPTY)},
                      settings={"memory_mb": 256, "time": 2.0})
    lowest = []

    def watch_the_disk(worker):
        # Each call's run folder is cleared before the next call and after the game:
        # just before, it holds all that the run wrote.
        for seat in worker.running_director().seats[0].values():
            sandbox = seat.sandbox
            clear = sandbox.clear

            def measured_clear(clear=clear):
                lowest.append(free_bytes(own_disk))
                clear()
            sandbox.clear = measured_clear
        lowest.append(free_bytes(own_disk))
    before = free_bytes(own_disk)
    worker = Worker(Client(fake.url, TOKEN), "disk-test", root=str(own_disk))
    try:
        watch_the_disk(worker)
        fake.when_drained = worker.stop.set
        worker.run()
    finally:
        worker.close()
        fake.close()
    (path, body), = fake.posts("/api/work/games/")
    forfeit = body["record"]["forfeit"]
    assert forfeit["player"] == "x" and forfeit["reason"] == "crash", forfeit
    assert "memory limit (256 MB) exceeded" in forfeit["detail"]
    assert len(lowest) >= 3
    assert before - min(lowest) < DISK_SLACK, (before - min(lowest)) >> 20
