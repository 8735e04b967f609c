"""Sandbox benchmark: what a slot costs to set up, and what one run costs, per isolation.

For each isolation that can run here (``bwrap``, ``landlock``, ``rlimits``; each with the
fences ``auto`` would add: seccomp, and as root cgroup and uid; then each again without a
cgroup or a uid of its own), one slot is set up
(timed), then N rounds run ``true`` and ``python3 -c pass`` in every slot in turn, as the
kit runs a case (``clear``, ``renew``, ``give``, ``run``), and the same two commands
started directly (no sandbox), so that a drift of the machine's speed touches all alike.
Printed: medians of the wall time of a run (the kit's whole step, clear to result) and of
its CPU time (``RunResult.cpu``: every process of the run; direct: the child's rusage),
and the slot's set-up and close.

Usage: python3 bench/bench_sandbox.py [--runs N]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.sandbox import SAFE_PATH, IsolationError, Limits, Sandbox  # noqa: E402

COMMANDS = {"true": ["true"], "python3 -c pass": ["python3", "-c", "pass"]}
# Each isolation as ``auto`` completes it (cgroup and uid where they run), then the
# file fences and rlimits without a cgroup or a uid of their own, to show what those cost.
ISOLATIONS = {"bwrap": {}, "landlock": {}, "rlimits": {},
              "bwrap, no cgroup or uid": {"cgroups_wanted": False, "dedicated_uids": False},
              "landlock, no cgroup or uid": {"cgroups_wanted": False,
                                             "dedicated_uids": False},
              "rlimits, no cgroup or uid": {"cgroups_wanted": False,
                                            "dedicated_uids": False}}


def direct(argv):
    """(wall seconds, CPU seconds) of ``argv`` started directly (found on the runs' own
    PATH, SAFE_PATH, as the sandbox finds it)."""
    argv = [shutil.which(argv[0], path=SAFE_PATH) or argv[0]] + list(argv[1:])
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def sandboxed(sandbox, argv):
    """(wall seconds, CPU seconds) of one run of ``argv`` in ``sandbox``, as a case runs."""
    started = time.perf_counter()
    sandbox.clear()
    sandbox.renew()
    sandbox.give()
    result = sandbox.run(argv)
    if result.exit != 0:
        raise SystemExit(f"{argv} failed under {sandbox.isolation}: {result}")
    return time.perf_counter() - started, result.cpu


def set_up(isolations):
    """{isolation: (sandbox, set-up seconds, its fences)} of those that can run here."""
    slots = {}
    for slot, (isolation, options) in enumerate(isolations.items()):
        started = time.perf_counter()
        try:
            sandbox = Sandbox(Limits(timeout=10.0), slot=slot,
                              isolation=isolation.split(",")[0], **options)
        except IsolationError as error:
            print(f"  {isolation}: cannot run here ({error})")
            continue
        slots[isolation] = (sandbox, time.perf_counter() - started, sandbox.isolation)
    return slots


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="rounds (medians kept)")
    options = parser.parse_args(argv)
    print(f"python: {sys.executable}; uid {os.geteuid()}; {options.runs} rounds; "
          "medians in ms")
    slots = set_up(ISOLATIONS)
    figures = {(name, label): [] for name in list(slots) + ["direct"] for label in COMMANDS}
    try:
        for _ in range(options.runs):
            for label, command in COMMANDS.items():
                figures[("direct", label)].append(direct(command))
                for isolation, (sandbox, _, _) in slots.items():
                    figures[(isolation, label)].append(sandboxed(sandbox, command))
    finally:
        closing = {}
        for isolation, (sandbox, _, _) in slots.items():
            started = time.perf_counter()
            sandbox.close()
            closing[isolation] = time.perf_counter() - started
    for name in list(slots) + ["direct"]:
        fences = slots[name][2] if name in slots else "no sandbox"
        line = f"  {fences:36}"
        for label in COMMANDS:
            walls, cpus = zip(*figures[(name, label)])
            line += (f"  {label}: wall {1000 * statistics.median(walls):6.1f}"
                     f" cpu {1000 * statistics.median(cpus):6.1f}")
        if name in slots:
            line += (f"  set-up {1000 * slots[name][1]:6.1f}"
                     f" close {1000 * closing[name]:5.1f}")
        print(line)


if __name__ == "__main__":
    main()
