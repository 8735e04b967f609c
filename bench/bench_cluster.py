"""A class graded on a real one-node Slurm against the same class on one machine.

    python3 bench/bench_cluster.py [--students 50] [--cases 50] [--tasks 4]

Needs root and Debian's Slurm (``make test-cluster`` installs it). Builds a Stake/Raid
class of N students (half of them copies of our homework.py, half a short Python agent)
and C generated cases; grades it once with ``grade run --jobs CPUS`` and once with
``cluster/slurm/submit-grading.sh K`` (K array tasks of one CPU each, then the merge) on
a one-node cluster with this machine's CPUs; prints both wall times, their ratio, and
the scheduler's own cost per task (an array of K tasks that run ``true``, submission to
last completion, divided by K).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from grading_helpers import FIRST_EMPTY, our_copy, submission  # noqa: E402
from slurm_helpers import ClusterUnavailable, slurm_cluster, wait_for  # noqa: E402



def engine(*args):
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, env=environment)
    if done.returncode:
        raise SystemExit(done.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=4)
    options = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        engine("grade", "cases", "stake_raid", "--count", str(options.cases), "--seed", "11",
               "--out", str(root / "cases"))
        for index in range(options.students):
            folder = root / "class" / f"s{index:03d}"
            if index % 2:
                submission(folder, {"homework.py": FIRST_EMPTY})
            else:
                our_copy(folder, "homework.py")
        started = time.perf_counter()
        engine("grade", "run", "stake_raid", str(root / "class"), "--cases",
               str(root / "cases"), "--jobs", str(cpus), "--json", str(root / "one.json"),
               "--quiet")
        one = time.perf_counter() - started
        print(f"one machine, --jobs {cpus}: {one:.1f} s for {options.students} x "
              f"{options.cases} cases", flush=True)
        try:
            with slurm_cluster(root / "slurm") as cluster:
                started = time.perf_counter()
                done = cluster.run("sbatch", "--parsable", f"--array=1-{options.tasks}",
                                   "--output=/dev/null", "--wrap", "true")
                jobs = [done.stdout.strip()]
                cluster.wait_jobs(jobs)
                empty = time.perf_counter() - started
                started = time.perf_counter()
                done = cluster.run(str(REPO / "cluster" / "slurm" / "submit-grading.sh"),
                                   str(options.tasks), CLASS=str(root / "class"),
                                   CASES=str(root / "cases"), OUT=str(root / "out"))
                jobs = re.findall(r"\bjob (\d+)", done.stdout)
                states = cluster.wait_jobs(jobs, seconds=7200)
                slurm = time.perf_counter() - started
        except ClusterUnavailable as reason:
            raise SystemExit(f"bench_cluster: {reason}") from None
        wait_for(lambda: (root / "out" / "class.json").exists(), 10, "the merged file")
        print(f"Slurm, {options.tasks} array tasks of 1 CPU + the merge: {slurm:.1f} s "
              f"({', '.join(sorted(set(states)))}); ratio to one machine "
              f"{slurm / one:.2f}")
        print(f"scheduler cost: an array of {options.tasks} tasks running `true` took "
              f"{empty:.1f} s from submission to the last completion, "
              f"{empty / options.tasks:.2f} s a task")


if __name__ == "__main__":
    main()
