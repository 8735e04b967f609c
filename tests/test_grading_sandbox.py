"""Hostile submissions cost a verdict, never the machine or the kit (engine.grading.sandbox).

Each test writes a tiny homework.py that misbehaves in one way, grades it on one
Stake/Raid-shaped case with small limits, and checks the verdict and that nothing of
the misbehaviour outlived the run. Every test runs under each isolation that works here
("rlimits" always; "bwrap" when bubblewrap can create namespaces).
"""

import os
import time
from pathlib import Path

import pytest

from grading_helpers import ISOLATIONS, grade, only_case, stake_raid_case, submission

pytestmark = pytest.mark.parametrize("isolation", ISOLATIONS)


def run_hostile(tmp_path, isolation, code, **limits):
    folder = submission(tmp_path / "student", {"homework.py": code})
    start = time.monotonic()
    document = grade("stake_raid", [folder], [stake_raid_case()], isolation, **limits)
    return only_case(document), time.monotonic() - start, document


def sleep_marker(isolation, kind):
    """A sleep duration of about 1000 s, unique to this test process and test, that
    sleep(1) accepts and /proc/PID/cmdline shows."""
    return "1000.%d%d%06d" % (ISOLATIONS.index(isolation), kind, os.getpid())


def processes_with(marker):
    """Pids of live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def test_a_well_behaved_submission_passes(tmp_path, isolation):
    case, _, document = run_hostile(
        tmp_path, isolation, "open('output.txt', 'w').write('ok\\n')\n")
    assert case["passed"], case
    fences = document["isolation"].split("+")
    assert fences[0] == isolation or (isolation == "rlimits" and "bwrap" not in fences
                                      and "landlock" not in fences), fences


def test_infinite_loop_times_out(tmp_path, isolation):
    case, seconds, _ = run_hostile(tmp_path, isolation, "while True:\n    pass\n", timeout=1.5)
    assert not case["passed"]
    assert "timed out" in case["reason"] or "CPU time" in case["reason"]
    assert seconds < 10


def test_fork_bomb_costs_a_verdict_and_leaves_nothing(tmp_path, isolation):
    marker = sleep_marker(isolation, 1)
    code = ("import os, sys\n"
            "while True:\n"
            "    try:\n"
            f"        if os.fork() == 0:\n            os.execvp('sleep', ['sleep', '{marker}'])\n"
            "    except OSError:\n"
            "        pass\n")
    case, seconds, _ = run_hostile(tmp_path, isolation, code, timeout=1.5)
    assert not case["passed"]
    assert seconds < 15
    time.sleep(0.2)
    assert processes_with(marker) == []


def test_ten_gigabytes_of_output_stop_at_the_cap_quickly(tmp_path, isolation):
    code = ("import sys\nblock = b'x' * (1 << 20)\n"
            "for _ in range(10 * 1024):\n    sys.stdout.buffer.write(block)\n")
    case, seconds, _ = run_hostile(tmp_path, isolation, code, output_mb=1)
    assert not case["passed"]
    assert case["reason"] == "output over 1 MB"
    assert seconds < 5


def test_memory_hog_hits_the_memory_limit(tmp_path, isolation):
    code = "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n"
    case, _, _ = run_hostile(tmp_path, isolation, code, memory_mb=256)
    assert not case["passed"]
    assert case["reason"] == "memory limit (256 MB) exceeded"


def test_writes_outside_its_folder_do_not_land(tmp_path, isolation):
    outside = tmp_path / "outside.txt"
    home_file = Path(os.path.expanduser("~")) / f"grading-test-{os.getpid()}.txt"
    code = ("for path in (%r, %r):\n"
            "    try:\n        open(path, 'w').write('pwned')\n"
            "    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n')\n") % (str(outside), str(home_file))
    try:
        case, _, _ = run_hostile(tmp_path, isolation, code)
        assert case["passed"], case
        assert not outside.exists()
        assert not home_file.exists()
    finally:
        if home_file.exists():
            home_file.unlink()


def test_a_case_cannot_change_the_build_the_next_case_shares(tmp_path, isolation):
    # Cases share the build's sub-folders and top-level files (links, no copies): each
    # tries to change them, and passes only if it finds them as the build left them.
    code = ("import os\n"
            "clean = open('data/seed.txt').read() == 'clean' and not os.path.exists('data/new')\n"
            "for attempt in (lambda: open('data/seed.txt', 'w').write('dirty'),\n"
            "                lambda: open('data/new', 'w').write('x'),\n"
            "                lambda: os.unlink('data/seed.txt'),\n"
            "                lambda: open('homework.py', 'a').write('# dirty')):\n"
            "    try:\n        attempt()\n    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n' if clean else 'dirty\\n')\n")
    folder = submission(tmp_path / "student", {"homework.py": code, "data/seed.txt": "clean"})
    document = grade("stake_raid", [folder],
                     [stake_raid_case("c1"), stake_raid_case("c2"), stake_raid_case("c3")],
                     isolation, jobs=1)
    cases = document["submissions"][0]["cases"]
    assert [case["passed"] for case in cases] == [True] * 3, cases
    assert (folder / "data" / "seed.txt").read_text() == "clean"


def test_another_submissions_build_cannot_be_read(tmp_path, isolation):
    secret = submission(tmp_path / "a", {"homework.py": "open('output.txt', 'w').write('ok\\n')\n",
                                         "secret.txt": "s3cret"})
    # Look for the other build wherever the kit's folders are: beside the case folder.
    code = ("import glob, os\n"
            "found = []\n"
            "for path in glob.glob(os.path.join(os.path.dirname(os.getcwd()), '*', '*', 'secret.txt')):\n"
            "    try:\n        found.append(open(path).read())\n"
            "    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('leak\\n' if found else 'ok\\n')\n")
    spy = submission(tmp_path / "b", {"homework.py": code})
    document = grade("stake_raid", [secret, spy], [stake_raid_case()], isolation)
    verdicts = [entry["cases"][0] for entry in document["submissions"]]
    assert [case["passed"] for case in verdicts] == [True, True], verdicts


def test_our_environment_is_not_visible(tmp_path, isolation, monkeypatch):
    monkeypatch.setenv("GRADING_TEST_SECRET", "hunter2")
    code = ("import os\nleak = [k for k, v in os.environ.items() if 'hunter2' in v or "
            "k == 'GRADING_TEST_SECRET']\n"
            "open('output.txt', 'w').write('ok\\n' if not leak else 'leak\\n')\n")
    case, _, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case


def test_children_left_running_are_killed(tmp_path, isolation):
    marker = sleep_marker(isolation, 2)
    # 'ok' only once the child is surely running, so a pass proves there was one to kill.
    code = ("import subprocess, time\n"
            f"child = subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
            "time.sleep(0.3)\n"
            "open('output.txt', 'w').write('ok\\n' if child.poll() is None else 'no\\n')\n")
    case, seconds, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case
    assert seconds < 5
    assert processes_with(marker) == []


def test_a_crash_is_judged_by_diagnose_not_as_a_limit(tmp_path, isolation):
    case, _, _ = run_hostile(tmp_path, isolation, "import os\nos.abort()\n")
    assert not case["passed"]
    assert case["ended"] == "signal"


def test_without_a_uid_of_its_own_escaped_children_are_killed_as_orphans(tmp_path, isolation):
    """The fallback of an ordinary user without bwrap: the kit reaps orphans."""
    from engine.grading.sandbox import Limits, Sandbox
    if isolation == "bwrap":
        pytest.skip("bwrap's pid namespace covers this case")
    sandbox = Sandbox(Limits(timeout=5), isolation="rlimits", dedicated_uids=False)
    assert sandbox.reaps_orphans
    marker = sleep_marker(isolation, 3)
    folder = tmp_path / "run"
    folder.mkdir()
    code = ("import subprocess, sys\n"
            f"subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
            "print('started')\n")
    (folder / "p.py").write_text(code)
    result = sandbox.run(["python3", "p.py"], str(folder))
    assert result.stdout == b"started\n"
    assert processes_with(marker) == []


def test_after_abort_no_command_runs(tmp_path, isolation):
    """abort() (Ctrl-C) may come while a slot is between two runs: the next run must not
    start its command, let alone wait for its timeout."""
    from engine.grading.sandbox import Limits, Sandbox
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    marker = sleep_marker(isolation, 4)
    folder = tmp_path / "run"
    folder.mkdir()
    sandbox.abort()
    start = time.monotonic()
    result = sandbox.run(["sleep", marker], str(folder))
    assert result.ended == "aborted" and time.monotonic() - start < 5
    assert processes_with(marker) == []
