"""Shared benchmark helper: CPU time and peak memory of a child process."""

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
