"""The kit never resolves a path a submission could have touched (docs/sandbox.md, "Files a
submission controls").

A submission's folder, its build and every run folder may hold links the submission
planted, and a live process of another run may swap a folder for a link while the kit
works. These tests plant such links and swap them in a loop, and check the concrete
fact: a 0600 file of the kit's user outside the run (a tmp folder standing for /root) is
unchanged and no file appears beside it. They run under every file fence this machine
offers (rlimits alone, where a file fence runs, as their long variant: make test-all), as
root (tests/test_grading_unprivileged.py's way: cgroups and a uid per run join each) and
as user nobody; a tournament agent plants links in its seat between moves.
The build's tools run isolated: a planted compileall.py never runs.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import ISOLATIONS, grade, isolation_params, submission

from engine.grading.case import Case, write_case
from engine.grading.judges import load as load_assignment

# A run (on slot 0) swaps its own ``x`` between a folder and a link to a file that does
# not exist yet beside the victim; the build another slot shares has ``input.txt`` ->
# slot 0's ``x``. Before: the kit saw a folder (os.path.isdir followed the link), kept
# ``input.txt``, then wrote the case's input through it (Path.write_bytes) as root.
SWAPPER = """\
import ctypes, os, time
target = {created!r}
os.mkdir('x')
os.symlink(target, 'l')
exchange = ctypes.CDLL(None).renameat2      # RENAME_EXCHANGE: x is always one of both
end = time.time() + {seconds}
while time.time() < end:
    exchange(-100, b'x', -100, b'l', 2)
open('output.txt', 'w').write('ok\\n')
"""
# Runs at the build's ``python3 -m compileall`` only if the build's tools import from the
# submission's folder: it plants a link to the victim where the cases write.
PLANTED_COMPILEALL = """\
import os
open('planted', 'w').write('the build imported the submission\\n')
os.symlink({victim!r}, 'output.txt')
"""


def victim_folder(tmp_path, owner=None):
    """A 0700 folder holding a 0600 file: what the kit's user keeps outside any run."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    victim = home / "input.txt"
    victim.write_text("precious\n")
    victim.chmod(0o600)
    if owner is not None:
        for path in (home, victim):
            os.chown(path, owner, owner)
    return home, victim


ATTACKS = ("sub-folder link", "swapped link", "planted compileall")


def hostile_submission(folder, home, attacks=ATTACKS, seconds=1.0):
    """A submission whose folder carries the links (as a build would leave them)."""
    created = str(home / "created.txt")
    code = SWAPPER.format(created=created, seconds=seconds if "swapped link" in attacks
                          else 0)
    folder = submission(folder, {"homework.py": "import os\nassert not os.path.exists("
                                 "'planted'), 'the build ran compileall.py'\n" + code})
    if "planted compileall" in attacks:
        (folder / "compileall.py").write_text(
            PLANTED_COMPILEALL.format(victim=str(home / "input.txt")))
    if "sub-folder link" in attacks:
        # A case file in a sub-folder: ``data`` is a link to the victim's folder.
        # Before: os.path.lexists/isdir followed it, os.unlink removed the victim, and
        # the input was written in its place.
        (folder / "data").symlink_to(home)
    if "swapped link" in attacks:
        (folder / "input.txt").symlink_to("../../slot-0/run/x")
        (folder / "visited.txt").symlink_to(created)
    return folder


def hostile_cases(count):
    return [Case(f"c{number:02d}", "homework.py", (),
                 files={"input.txt": b"anything\n", "data/input.txt": b"overwritten\n"},
                 expected={"output.txt": b"ok\n"}) for number in range(count)]


def assert_untouched(home, victim):
    assert victim.read_text() == "precious\n"
    assert sorted(path.name for path in home.iterdir()) == ["input.txt"]


# Every day under bwrap; Landlock and rlimits are the long variants (the same attacks on
# a kit run by nobody run under Landlock every day, below).
@pytest.mark.parametrize("isolation", isolation_params(keep=["bwrap"] if "bwrap" in ISOLATIONS
                                                       else None))
@pytest.mark.parametrize("attack", ATTACKS)
def test_planted_and_swapped_links_never_make_the_kit_write_outside(tmp_path, isolation,
                                                                    attack):
    home, victim = victim_folder(tmp_path)
    student = hostile_submission(tmp_path / "student", home, [attack])
    cases = 12 if attack == "swapped link" else 2
    document = grade("stake_raid", [student], hostile_cases(cases), isolation, jobs=2)
    assert_untouched(home, victim)
    cases = document["submissions"][0]["cases"]
    # Each case got its inputs as real files, and the planted compileall.py never ran.
    assert all(case["passed"] for case in cases), [case["reason"] for case in cases]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (to become nobody)")
@pytest.mark.parametrize("isolation", isolation_params())
def test_the_same_attack_on_a_kit_run_by_nobody(isolation):
    from test_grading_unprivileged import NOBODY, as_nobody, reachable_by_nobody
    import tempfile
    from engine.sandbox.untrusted_files import remove_tree
    if not reachable_by_nobody(REPO):
        pytest.skip(f"user nobody cannot reach this checkout ({REPO})")
    place = Path(tempfile.mkdtemp(prefix="grade-trust-", dir="/tmp"))
    try:
        os.chown(place, NOBODY, NOBODY)
        home, victim = victim_folder(place, owner=NOBODY)
        hostile_submission(place / "class" / "student", home)
        for case in hostile_cases(4):
            write_case(case, place / "cases" / case.name)
        for path in [place / "class", place / "cases"] + list(
                (place / "class").rglob("*")) + list((place / "cases").rglob("*")):
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        completed, _ = as_nobody(
            ["-m", "engine", "grade", "run", "stake_raid", "class/student", "--cases",
             "cases", "--isolation", isolation, "--timeout", "5", "--jobs", "2",
             "--json", "results.json", "--quiet"], place)
        assert completed.returncode == 0, completed.stderr
        assert_untouched(home, victim)
        document = json.loads((place / "results.json").read_text())
        cases = document["submissions"][0]["cases"]
        assert all(case["passed"] for case in cases), [case["reason"] for case in cases]
    finally:
        remove_tree(str(place))


def test_the_build_byte_compiles_with_an_isolated_python(tmp_path):
    """The guard, alone: ``python3 -I`` does not import the folder's compileall.py."""
    from engine.grading.detect import COMPILE_STEP
    folder = submission(tmp_path / "s", {"compileall.py": "open('planted', 'w')\n"})
    subprocess.run(list(COMPILE_STEP), cwd=folder, check=True, capture_output=True)
    assert not (folder / "planted").exists()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "."], cwd=folder,
                   capture_output=True)
    assert (folder / "planted").exists()      # what -I prevents


@pytest.mark.parametrize("original", ["../../escaped.py", "/tmp/escaped-{pid}.py",
                                      "sub/../../escaped.py"])
def test_a_receipts_file_name_never_stages_a_file_outside(tmp_path, original):
    """A Blackboard receipt maps a stored file back to the name the student uploaded: a
    name with ``..`` or a leading ``/`` once made the kit create a file outside its
    staging folder (open(..., "xb") follows both)."""
    from engine.grading import layouts
    original = original.format(pid=os.getpid())
    export = tmp_path / "export"
    export.mkdir()
    (export / "HW1_eve_attempt_2024-02-03-09-30-00_hw.py").write_text("print(1)\n")
    (export / "HW1_eve_attempt_2024-02-03-09-30-00.txt").write_text(
        "Name: Eve (eve)\nFiles:\n"
        f"\tOriginal filename: {original}\n"
        "\tFilename: HW1_eve_attempt_2024-02-03-09-30-00_hw.py\n")
    staging = tmp_path / "deep" / "er" / "staging"
    staging.mkdir(parents=True)
    _, [student] = layouts.read_paths(load_assignment("stake_raid"), [str(export)], "blackboard",
                                      str(staging))
    assert "cannot be staged" in student.reason
    assert not list(tmp_path.rglob("escaped.py"))
    assert not os.path.lexists(f"/tmp/escaped-{os.getpid()}.py")


# A tournament agent that, after each move, leaves input.txt as a link to the victim and
# a folder link where the next input's name goes: the referee writes the next move's
# input, which must never go through either.
PLANTING_AGENT = """\
import atexit, os
def plant():
    for name, target in (("input.txt", {victim!r}), ("data", {home!r})):
        try:
            os.unlink(name)
        except OSError:
            pass
        os.symlink(target, name)
atexit.register(plant)
"""


@pytest.mark.parametrize("isolation", isolation_params())
def test_a_tournament_seat_never_writes_through_a_planted_link(tmp_path, isolation):
    from grading_helpers import FIRST_EMPTY, LAST_EMPTY
    home, victim = victim_folder(tmp_path)
    planter = submission(tmp_path / "planter", {"homework.py": PLANTING_AGENT.format(
        victim=str(victim), home=str(home)) + FIRST_EMPTY})
    other = submission(tmp_path / "other", {"homework.py": LAST_EMPTY})
    done = subprocess.run(
        [sys.executable, "-m", "engine", "tournament", "run", "stake_raid", str(planter),
         str(other), "--sizes", "3", "--pairs", "1", "--time", "5", "--isolation",
         isolation, "--json", str(tmp_path / "t.json"), "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    assert_untouched(home, victim)
    games = json.loads((tmp_path / "t.json").read_text())["games"]
    assert games and not any(game["forfeit"] for game in games), games
