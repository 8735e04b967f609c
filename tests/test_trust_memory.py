"""Memory hits the submission, not the kit: a container-wide OOM grades the submission.

What is simulated: a container without cgroups for the kit (the kit's cgroup probe
answers no, so runs get no memory cgroup of their own and only rlimits bound each
process), whose whole memory is small. The "container" is a memory cgroup (v1) of
CONTAINER_MB that the kit joins before it starts; every process it starts is in it too.
The kernel's OOM killer acts inside that cgroup only, so the machine is never at risk.

The submission forks many small processes (each far under its rlimit) and then grows:
the container runs out of memory. The kernel kills by size and oom_score_adj: before, the
kit (a Python of tens of MB, bigger than each child) was the victim and no results.json
was written ("autograder failed (not about your code)"). Now every run's processes have
oom_score_adj +1000 (the kit stays at its own, or -1000 where it may lower it), the
submission is killed, and its case gets a memory verdict.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import ISOLATIONS, stake_raid_case

from engine.grading.case import write_case

MEMORY_ROOT = Path("/sys/fs/cgroup/memory")
CONTAINER_MB = 300
# 45 children of 6 MB each (each smaller than the kit: about 19 MB), then the first
# process grows 1 MB at a time.
HOG = """\
import os, time
for _ in range(45):
    if os.fork() == 0:
        block = bytearray(6 << 20)
        time.sleep(30)
        os._exit(0)
chunks = []
while True:
    chunks.append(bytearray(1 << 20))
"""
OK = "open('output.txt', 'w').write('ok\\n')\n"
# The kit as a container without cgroups runs it: joins the "container" first.
KIT = """\
import sys
with open(sys.argv[1] + "/cgroup.procs", "w") as handle:
    handle.write("0\\n")
from engine.sandbox import _cgroups as cgroups
cgroups.available = lambda: False
from engine.__main__ import main
sys.exit(main(sys.argv[2:]))
"""

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not (MEMORY_ROOT / "memory.limit_in_bytes").exists(),
    reason="needs root and a cgroup v1 memory hierarchy (to make the small container)")


@pytest.fixture
def container(tmp_path):
    path = MEMORY_ROOT / f"engine-test-container-{os.getpid()}-{tmp_path.name}"
    path.mkdir()
    try:
        (path / "memory.limit_in_bytes").write_text(str(CONTAINER_MB << 20))
        swap = path / "memory.memsw.limit_in_bytes"
        if swap.exists():
            swap.write_text(str(CONTAINER_MB << 20))
        yield path
    finally:
        # A kit that was killed leaves its runs behind: end them, then the container.
        for _ in range(100):
            for pid in (path / "cgroup.procs").read_text().split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            try:
                path.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def in_container(container, *args, cwd=REPO):
    return subprocess.run([sys.executable, "-c", KIT, str(container), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def oom_kills(container):
    for line in (container / "memory.oom_control").read_text().splitlines():
        if line.startswith("oom_kill "):
            return int(line.split()[1])
    return None


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_container_wide_oom_costs_the_submission_its_case(tmp_path, container, isolation):
    for name, code in (("hog", HOG), ("next", OK)):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "homework.py").write_text(code)
    write_case(stake_raid_case(), tmp_path / "cases" / "c1")
    done = in_container(container, "grade", "run", "stake_raid", str(tmp_path / "class"),
                        "--cases", str(tmp_path / "cases"), "--isolation", isolation,
                        "--memory", "2048", "--timeout", "10", "--jobs", "1",
                        "--json", str(tmp_path / "r.json"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert oom_kills(container) not in (None, 0)        # the container did run out
    document = json.loads((tmp_path / "r.json").read_text())
    verdicts = {Path(entry["submission"]).name: entry["cases"][0]
                for entry in document["submissions"]}
    assert verdicts["hog"]["ended"] == "memory", verdicts["hog"]
    assert "memory" in verdicts["hog"]["reason"].lower()
    assert verdicts["next"]["passed"], verdicts["next"]


def test_the_autograder_survives_and_grades_the_submission(tmp_path, container):
    source = tmp_path / "source"
    source.mkdir()
    (source / "autograder.json").write_text(json.dumps(
        {"program": "stake_raid", "timeout": 10, "memory": 2048}))
    write_case(stake_raid_case(), source / "cases" / "visible" / "c1")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "homework.py").write_text(HOG)
    (tmp_path / "results").mkdir()
    done = in_container(container, "grade", "gradescope-run", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert oom_kills(container) not in (None, 0)
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert "not about your code" not in results["output"], results["output"]
    [test] = results["tests"]
    assert test["status"] == "failed" and "memory" in test["output"].lower(), test
    shutil.rmtree(tmp_path / "submission", ignore_errors=True)


def test_the_landlock_gate_raises_the_run_before_it_goes_on():
    """Under Landlock a run cannot write its own oom_score_adj: its first process stops
    itself, the kit raises it and lets it go; its children inherit +1000."""
    from engine.sandbox import _oom
    gated = subprocess.Popen(["sh", "-c", 'kill -STOP $$ && exec "$@"', "sh", "sh", "-c",
                              "sh -c 'cat /proc/self/oom_score_adj'"],
                             stdout=subprocess.PIPE, text=True)
    assert _oom.raise_stopped_run(gated.pid)
    assert gated.communicate(timeout=30)[0].strip() == str(_oom.OOM_RUN)
    never = subprocess.Popen(["sleep", "30"])
    try:
        assert not _oom.raise_stopped_run(never.pid, patience=0.2)
    finally:
        never.kill()
        never.wait()
