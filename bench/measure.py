"""Shared benchmark helpers: CPU time and peak memory of a child process; a trivial
Stake/Raid agent for the benches that play games (ladder, tournament)."""

import os
import subprocess
import sys
import time


def run_measured(argv, cwd=None, stdin=b"", stdout=subprocess.DEVNULL, env=None):
    """Run ``argv`` and return (cpu_seconds, wall_seconds, peak_rss_mb, returncode).

    CPU seconds are the child's user + sys time; peak RSS is its maxrss. Uses a fresh
    ``wait4`` so that only this child is counted.
    """
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=stdout,
                               stderr=subprocess.PIPE, env=env)
    process.stdin.write(stdin)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stderr.close()
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, process.returncode


def best_of(count, argv, **options):
    """The run with the least CPU time out of ``count`` runs (noise only adds time)."""
    runs = [run_measured(argv, **options) for _ in range(count)]
    return min(runs, key=lambda run: run[0])


PYTHON = os.environ.get("BENCH_PYTHON", sys.executable)


_STAKE_AGENT = """\
import sys
lines = open("input.txt").read().split("\\n")
n = int(lines[0])
rows = list(enumerate(lines[4 + n:4 + 2 * n]))
for r, row in (reversed(rows) if "{order}" == "last" else rows):
    for c, mark in enumerate(row):
        if mark == ".":
            open("output.txt", "w").write("%s%d Stake\\n" % (chr(65 + c), r + 1))
            sys.exit(0)
"""


def stake_agent(order):
    """The homework.py of a trivial Stake/Raid player that costs next to no CPU: it
    stakes the first empty square of the first row that has one (``order`` "first") or of
    the last such row ("last")."""
    return _STAKE_AGENT.replace("{order}", order)


def write_stake_agent(folder, order):
    """Make the folder ``folder`` holding :func:`stake_agent` ``(order)`` as homework.py;
    return ``folder``."""
    os.mkdir(folder)
    with open(os.path.join(folder, "homework.py"), "w") as handle:
        handle.write(stake_agent(order))
    return folder
