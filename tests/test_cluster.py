"""The repository's cluster scripts on a real one-node Slurm (and GNU parallel).

A module fixture starts munged, slurmctld and slurmd from Debian's packages with a
minimal configuration in a temporary folder (loopback only, process tracking by /proc, no
task plugin, no accounting), and stops every daemon by its pid afterwards. The tests
submit cluster/slurm/submit-grading.sh and submit-tournament.sh as a course would and
check that the merged outputs equal one run on one machine (timings aside), and that a
task requeued half-way finishes with nothing lost and nothing graded twice. Skipped, with
the reason, where the packages are missing or the daemons cannot start (``make
test-cluster`` installs them where apt-get can).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grading_helpers import FIRST_EMPTY, LAST_EMPTY, our_copy, submission
from grading_mutants import make_mutant
from slurm_helpers import ClusterUnavailable, slurm_cluster, wait_for

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parent.parent
SLURM = REPO / "cluster" / "slurm"
PARALLEL = REPO / "cluster" / "parallel"



@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with slurm_cluster(tmp_path_factory.mktemp("slurm")) as running:
            yield running
    except ClusterUnavailable as reason:
        pytest.skip(str(reason))


def without_timings(document):
    """A grading results document without what depends on the run (times, memory, the
    shard and the fences' names)."""
    clean = json.loads(json.dumps(document))
    for key in ("isolation", "fences", "shard"):
        clean.pop(key, None)
    for entry in clean["submissions"]:
        entry.pop("build_seconds", None)
        for case in entry["cases"]:
            for key in ("seconds", "cpu", "memory_mb"):
                case.pop(key, None)
    return clean


def without_cpu(document):
    clean = json.loads(json.dumps(document))
    clean.pop("isolation", None)
    clean.pop("shard", None)
    for game in clean["games"]:
        game.pop("cpu")
        for move in game["moves"]:
            move.pop()
    for row in clean["entrants"]:
        row.pop("cpu_per_game")
    return clean


def job_ids(text):
    """The job ids the submit scripts print ("array job 12 (3 tasks), merge job 13")."""
    return re.findall(r"\bjob (\d+)", text)


def engine(*args, cwd=None):
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=900)


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    """Five Stake/Raid submissions (ours twice, a broken copy, two that fail) and six
    cases."""
    folder = tmp_path_factory.mktemp("class")
    done = engine("grade", "cases", "stake_raid", "--count", "6", "--seed", "5", "--out",
                  str(folder / "cases"))
    assert done.returncode == 0, done.stderr
    students = folder / "class"
    our_copy(students / "ann", "homework.py")
    our_copy(students / "ben", "homework.py")
    make_mutant("Raids before Stakes", students / "cat")
    submission(students / "dan", {"homework.py": FIRST_EMPTY})
    submission(students / "eve", {"homework.java": "class homework {\n"})
    one = folder / "one.json"
    done = engine("grade", "run", "stake_raid", str(students), "--cases",
                  str(folder / "cases"), "--json", str(one), "--quiet")
    assert done.returncode == 0, done.stderr
    return folder, json.loads(one.read_text())


def test_a_class_graded_by_array_tasks_equals_one_run(cluster, small_class, tmp_path):
    folder, one = small_class
    out = tmp_path / "out"
    done = cluster.run(str(SLURM / "submit-grading.sh"), "3", CLASS=str(folder / "class"),
                       CASES=str(folder / "cases"), OUT=str(out), PROGRAM="stake_raid")
    assert done.returncode == 0, done.stderr
    jobs = job_ids(done.stdout)
    assert len(jobs) == 2, done.stdout
    states = cluster.wait_jobs(jobs)
    assert set(states) == {"COMPLETED"}, (states, cluster.log("slurmctld.log"))
    merged = json.loads((out / "class.json").read_text())
    assert without_timings(merged) == without_timings(one)
    shards = [json.loads((out / f"shard-{index}.json").read_text()) for index in (1, 2, 3)]
    assert sorted(entry["submission"] for shard in shards for entry in shard["submissions"]) \
        == sorted(entry["submission"] for entry in one["submissions"])
    assert (out / "grades.csv").read_text().count("\n") == 6
    assert sorted(path.name for path in (out / "gradescope").iterdir()) == [
        f"{name}.json" for name in ("ann", "ben", "cat", "dan", "eve")]
    assert (out / "report.html").stat().st_size > 1000


def test_a_task_requeued_half_way_loses_nothing_and_grades_nothing_twice(cluster, small_class,
                                                                      tmp_path):
    folder, _ = small_class
    students = tmp_path / "slow"
    submission(students / "slo", {"homework.py": "import time\ntime.sleep(1.5)\n" + FIRST_EMPTY})
    out = tmp_path / "out"
    done = cluster.run(str(SLURM / "submit-grading.sh"), "1", CLASS=str(students),
                       CASES=str(folder / "cases"), OUT=str(out))
    assert done.returncode == 0, done.stderr
    array, merge = job_ids(done.stdout)
    shard = out / "shard-1.json"

    def cases_done():
        try:
            document = json.loads(shard.read_text())
        except (OSError, ValueError):
            return 0
        entries = document["submissions"]
        return len(entries[0]["cases"]) if entries else 0

    wait_for(lambda: cases_done() >= 2, 120, "two graded cases")
    requeued = cluster.run("scontrol", "requeue", f"{array}_1")
    assert requeued.returncode == 0, requeued.stderr
    wait_for(lambda: "PENDING" in cluster.job_state(f"{array}_1"), 60, "the requeue")
    kept = cases_done()
    assert 2 <= kept < 6
    # The stopped run is gone (it logged what it kept), and Slurm is done with it, before
    # the requeued task is started early: a batch job relaunched at once onto a node still
    # cleaning up its killed run fails ("already killed, do not launch batch job").
    log = out / f"grade-{array}_1.log"
    wait_for(lambda: log.exists() and "interrupted" in log.read_text(), 60, "the stop")
    time.sleep(5)
    states = cluster.wait_jobs([array, merge], seconds=300, release=[f"{array}_1"])
    assert set(states) == {"COMPLETED"}, states
    document = json.loads(shard.read_text())
    names = [case["case"] for case in document["submissions"][0]["cases"]]
    assert len(names) == len(set(names)) == 6
    log = (out / f"grade-{array}_1.log").read_text()
    assert "interrupted; finished cases are kept" in log


def test_a_tournament_by_array_tasks_equals_one_run(cluster, tmp_path):
    entrants = []
    for name, code in (("first", FIRST_EMPTY), ("last", LAST_EMPTY), ("third", FIRST_EMPTY),
                       ("fourth", LAST_EMPTY)):
        entrants.append(str(submission(tmp_path / "class" / name, {"homework.py": code})))
    options = "--format swiss --rounds 2 --sizes 3,4 --time 5"
    one = tmp_path / "one.json"
    done = engine("tournament", "run", "stake_raid", *entrants, *options.split(), "--json",
                  str(one), "--quiet")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    done = cluster.run(str(SLURM / "submit-tournament.sh"), "2", ENTRANTS=" ".join(entrants),
                       OPTIONS=options, ROUNDS="2", OUT=str(out))
    assert done.returncode == 0, done.stderr
    jobs = job_ids(done.stdout)
    assert len(jobs) == 4, done.stdout
    states = cluster.wait_jobs(jobs)
    assert set(states) == {"COMPLETED"}, states
    merged = json.loads((out / "tournament.json").read_text())
    assert merged["complete"] is True
    assert without_cpu(merged) == without_cpu(json.loads(one.read_text()))
    assert (out / "tournament.html").stat().st_size > 1000
    assert (out / "standings.csv").read_text().count("\n") == 5


def test_gnu_parallel_grades_the_same(small_class, tmp_path):
    if shutil.which("parallel") is None:
        pytest.skip("GNU parallel is not installed here (Debian's `parallel`)")
    folder, one = small_class
    out = tmp_path / "out"
    environment = dict(os.environ, CLASS=str(folder / "class"), CASES=str(folder / "cases"),
                       OUT=str(out), PROGRAM="stake_raid")
    environment.pop("PYTHONPATH", None)
    done = subprocess.run([str(PARALLEL / "grade.sh"), "2"], env=environment,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    merged = json.loads((out / "class.json").read_text())
    assert without_timings(merged) == without_timings(one)
