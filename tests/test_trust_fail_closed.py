"""Fail closed: without root, bwrap or Landlock, untrusted code is refused unless named.

Run by an ordinary user (nobody) on a machine where neither bwrap nor Landlock can run
(simulated: the probes answer no), ``grade run``, ``tournament run`` and the Gradescope
autograder refuse in one line, exit 2, and run nothing; ``--isolation rlimits`` (the
user's own programs) runs, with a warning that says what a submission could do. The
autograder still writes a results.json that tells the student why.
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import FIRST_EMPTY, LAST_EMPTY, stake_raid_case

from engine.grading.case import write_case
from engine.sandbox.untrusted_files import remove_tree

NOBODY = 65534
SETPRIV = shutil.which("setpriv")
# The kit with both file fences unavailable (what a container without user namespaces,
# on a kernel without Landlock, answers).
WITHOUT_FILE_FENCES = """\
import sys
from engine.sandbox import _bubblewrap, _landlock
_bubblewrap.bwrap_works = lambda uid=None: False
_landlock.landlock_works = lambda: False
from engine.__main__ import main
sys.exit(main(sys.argv[1:]))
"""
MARKER = "ran-{}".format(os.getpid())
# Leaves a file beside the kit's own (possible only when it runs as the kit's user).
HOMEWORK = ("open({!r}, 'w').write('x')\n"
            "open('output.txt', 'w').write('ok\\n')\n")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None,
                                reason="needs root (to become nobody) and setpriv")


@pytest.fixture
def place():
    from test_grading_unprivileged import reachable_by_nobody
    if not reachable_by_nobody(REPO):
        pytest.skip(f"user nobody cannot reach this checkout ({REPO})")
    folder = Path(tempfile.mkdtemp(prefix="grade-closed-", dir="/tmp"))
    yield folder
    remove_tree(str(folder))


def as_nobody(place, *args):
    for path in [place] + list(place.rglob("*")):
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(place), "LANG": "C.UTF-8",
           "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
         "/usr/bin/python3", "-c", WITHOUT_FILE_FENCES, *args],
        cwd=place, env=env, capture_output=True, text=True, timeout=600)


def assert_refused(done):
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--isolation rlimits" in done.stderr and "not root" in done.stderr


def test_grade_run_refuses_unless_rlimits_is_named(place):
    student = place / "student"
    student.mkdir()
    (student / "homework.py").write_text(HOMEWORK.format(str(place / MARKER)))
    write_case(stake_raid_case(), place / "cases" / "c1")
    common = ["grade", "run", "stake_raid", "student", "--cases", "cases", "--quiet",
              "--json", "r.json"]
    assert_refused(as_nobody(place, *common))
    assert not (place / MARKER).exists() and not (place / "r.json").exists()
    done = as_nobody(place, *common, "--isolation", "rlimits")
    assert done.returncode == 0, done.stderr
    assert (place / MARKER).exists()           # it ran: as us, as the warning says
    assert "run as you" in done.stderr and "kill the kit" in done.stderr


def test_tournament_refuses_unless_rlimits_is_named(place):
    for name, code in (("first", FIRST_EMPTY), ("last", LAST_EMPTY)):
        (place / name).mkdir()
        (place / name / "homework.py").write_text(code)
    common = ["tournament", "run", "stake_raid", "first", "last", "--sizes", "3",
              "--pairs", "1", "--time", "5", "--quiet"]
    assert_refused(as_nobody(place, *common))
    done = as_nobody(place, *common, "--isolation", "rlimits")
    assert done.returncode == 0, done.stderr
    assert "tournament: warning:" in done.stderr and "run as you" in done.stderr
    sprt = ["tournament", "sprt", "stake_raid", "first", "last", "--elo0", "0",
            "--elo1", "100", "--sizes", "3", "--time", "5", "--max-pairs", "1"]
    assert_refused(as_nobody(place, *sprt))


def test_the_autograder_refuses_and_says_so_in_results_json(place):
    source = place / "source"
    source.mkdir()
    (source / "autograder.json").write_text(json.dumps(
        {"program": "stake_raid", "timeout": 5, "memory": 256}))
    write_case(stake_raid_case(), source / "cases" / "visible" / "c1")
    (place / "submission").mkdir()
    (place / "submission" / "homework.py").write_text(HOMEWORK.format(str(place / MARKER)))
    (place / "results").mkdir()
    done = as_nobody(place, "grade", "gradescope-run", "--root", str(place))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (place / MARKER).exists()
    results = json.loads((place / "results" / "results.json").read_text())
    assert results["score"] == 0 and "was not run" in results["output"]
