"""Grading-kit benchmark: harness overhead per case, and a class graded on all cores.

1. Overhead: N cases of a trivial submission (``true``) and of our tic-tac-toe, graded
   one at a time (--jobs 1); the per-case wall time of the kit minus the wall time of
   running the same command directly (no sandbox, no copies). Target: <= 20 ms.
2. Class: K copies of our tic-tac-toe against M cases on every core; the run's wall time
   against the submissions' summed CPU seconds divided by the cores. Target: <= 1.3x.

Cases come from the kit's generator (seed 1).
Usage: python3 bench/bench_grading.py [--class K] [--cases M] [--overhead N]
                                     [--submission whole|imported]
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.grading.detect import compile_step  # noqa: E402
from engine.grading.generate import generate_cases  # noqa: E402
from engine.grading.plan import Plan  # noqa: E402
from engine.grading.results import Results  # noqa: E402
from engine.grading.runner import Runner  # noqa: E402
from engine.sandbox import SAFE_PATH, Limits  # noqa: E402
from engine.sandbox._bubblewrap import bwrap_works  # noqa: E402
from engine.sandbox._landlock import landlock_works  # noqa: E402
from engine.grading.judges import load as load_assignment  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
def tictactoe_cases(count, seed):
    """``count`` generated tic-tac-toe cases (the kit's own generator)."""
    return generate_cases(load_assignment("tictactoe"), count, seed)


# What a copy of our tic-tac-toe holds: "whole" (tictactoe.py and all of engine/, 114
# modules, as a student who copies the repository would hand it in) or "imported"
# (tictactoe.py and the modules of engine/ it imports, as a one-program submission).
SUBMISSION = {"kind": "whole"}
_IMPORTED = []

FIND_IMPORTED = """
import runpy, sys, tempfile
sys.argv = ["tictactoe.py", "---------", tempfile.mktemp()]
try:
    runpy.run_path("tictactoe.py", run_name="__main__")
except SystemExit:
    pass
for module in list(sys.modules.values()):
    print(getattr(module, "__file__", None) or "")
"""


def imported_modules():
    """The files of engine/ that tictactoe.py imports (run once, in a child Python)."""
    if not _IMPORTED:
        listing = subprocess.run([sys.executable, "-c", FIND_IMPORTED], cwd=ROOT,
                                 capture_output=True, text=True, check=True).stdout
        engine = os.path.join(ROOT, "engine") + os.sep
        _IMPORTED.extend(sorted(os.path.relpath(path, ROOT) for path in listing.split("\n")
                                if path.startswith(engine)))
    return _IMPORTED


def our_copy(folder):
    os.makedirs(folder)
    shutil.copy2(os.path.join(ROOT, "tictactoe.py"), folder)
    if SUBMISSION["kind"] == "whole":
        shutil.copytree(os.path.join(ROOT, "engine"), os.path.join(folder, "engine"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        return folder
    for relative in imported_modules():
        os.makedirs(os.path.join(folder, os.path.dirname(relative)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, relative), os.path.join(folder, relative))
    return folder


def grade(submissions, cases, jobs, isolation="auto"):
    results = Results("tictactoe")
    runner = Runner(load_assignment("tictactoe"), cases, results, Limits(timeout=20), jobs=jobs,
                    isolation=isolation)
    started = time.perf_counter()
    runner.run(submissions)
    return time.perf_counter() - started, results.document, runner.isolation


def direct_wall(argv, cwd, runs):
    started = time.perf_counter()
    for _ in range(runs):
        subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) / runs


def cpu_now():
    """CPU seconds of this process and of every child it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def overhead(cases, runs, cgroups=None):
    """Per-case wall and CPU of the kit against running the same command directly (same
    python3 as the sandbox, same byte-compiled folder). The CPU figure is what the kit
    itself spends (this process plus bwrap and the launchers) and is steady on a busy
    machine; the wall figure is what a user waits."""
    python = shutil.which("python3", path=SAFE_PATH)
    workspace = tempfile.mkdtemp(prefix="bench-grading-")
    try:
        ours = our_copy(os.path.join(workspace, "ours"))
        subprocess.run([python, "-m", "compileall", "-q", "."], cwd=ours, check=True)
        trivial = os.path.join(workspace, "trivial")
        os.makedirs(trivial)
        available = {"rlimits": True, "landlock": landlock_works(), "bwrap": bwrap_works()}
        for isolation in ("rlimits", "landlock", "bwrap"):
            if not available[isolation]:
                print(f"{isolation}: not available here, skipped")
                continue
            for label, folder, command, direct in (
                    ("true", trivial, "exec true", ["true"]),
                    ("our tictactoe", ours, None,
                     [python, "tictactoe.py"] + list(cases[0].args))):
                subset = [cases[0]._replace(name=f"r{index:03d}") for index in range(runs)]
                results = Results("tictactoe")
                runner = Runner(load_assignment("tictactoe"), subset, results,
                                Limits(timeout=20), jobs=1,
                                command=command, isolation=isolation,
                                cgroups_wanted=cgroups)
                started, cpu_started = time.perf_counter(), cpu_now()
                runner.run([folder])
                per_case = (time.perf_counter() - started) / runs
                kit_cpu = (cpu_now() - cpu_started) / runs
                records = results.document["submissions"][0]["cases"]
                own_cpu = sum(record["cpu"] for record in records) / runs
                started, cpu_started = time.perf_counter(), cpu_now()
                alone = direct_wall(direct, folder, runs)
                alone_cpu = (cpu_now() - cpu_started) / runs
                print(f"overhead {runner.isolation:<34} {label:<14} "
                      f"wall: kit {per_case * 1000:6.1f} ms"
                      f" vs direct {alone * 1000:6.1f} ms = +{(per_case - alone) * 1000:5.1f} ms;"
                      f" CPU: kit {kit_cpu * 1000:6.1f} ms vs direct {alone_cpu * 1000:6.1f} ms"
                      f" = +{(kit_cpu - alone_cpu) * 1000:5.1f} ms (run itself "
                      f"{own_cpu * 1000:.1f} ms, so the kit's own "
                      f"{(kit_cpu - own_cpu) * 1000:.1f} ms) per case; target <= 20 ms")
    finally:
        shutil.rmtree(workspace)


def compile_cpu(folder, runs=3):
    """CPU seconds of the kit's build step (byte-compiling what tictactoe.py imports, see
    engine.grading.precompile) on a fresh copy of ``folder``, the median of ``runs``."""
    python = shutil.which("python3", path=SAFE_PATH)
    spent = []
    for _ in range(runs):
        copy = tempfile.mkdtemp(prefix="bench-compile-")
        try:
            shutil.copytree(folder, os.path.join(copy, "s"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            started = cpu_now()
            step = compile_step(Plan("our repository", ("python3", "tictactoe.py")))
            subprocess.run([python] + step[1:], cwd=os.path.join(copy, "s"), check=True)
            spent.append(cpu_now() - started)
        finally:
            shutil.rmtree(copy)
    return sorted(spent)[len(spent) // 2]


def klass(cases, size, jobs, isolation):
    workspace = tempfile.mkdtemp(prefix="bench-class-")
    try:
        submissions = [our_copy(os.path.join(workspace, f"student{index:02d}"))
                       for index in range(size)]
        load = os.getloadavg()[0]
        cpu_started = cpu_now()
        wall, document, isolation = grade(submissions, cases, jobs, isolation)
        everything = cpu_now() - cpu_started
        cpu = sum(case["cpu"] for entry in document["submissions"] for case in entry["cases"])
        passed = sum(entry["score"] for entry in document["submissions"])
        total = sum(entry["max_score"] for entry in document["submissions"])
        ideal = cpu / jobs
        print(f"class {size} x {len(cases)} cases ({isolation}, {jobs} jobs): wall {wall:.1f} s, "
              f"summed CPU {cpu:.1f} s / {jobs} cores = {ideal:.1f} s, ratio "
              f"{wall / ideal:.2f} (target <= 1.3); {passed}/{total} passed; "
              f"load average {load:.1f} before the run")
        # On a busy machine the wall clock mostly measures the neighbours; the CPU the
        # whole run used (kit + sandboxes + submissions) against the submissions' own CPU
        # is the wall-clock ratio an otherwise idle machine would show.
        print(f"  all CPU of the run {everything:.1f} s = {everything / cpu:.2f} x the "
              f"submissions' CPU (the ratio an idle {jobs}-core machine would approach)")
        build = compile_cpu(submissions[0]) * size
        print(f"  of the {everything - cpu:.1f} s beyond the submissions' CPU, about "
              f"{build:.1f} s is their builds' byte-compiling ({size} copies of our "
              f"tic-tac-toe ({SUBMISSION['kind']}), measured alone), "
              f"{(everything - cpu - build) / (size * len(cases)) * 1000:.1f} ms per case "
              f"the kit and its fences")
    finally:
        shutil.rmtree(workspace)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--class", dest="size", type=int, default=50)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--overhead", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", choices=("overhead", "class"))
    parser.add_argument("--submission", choices=("whole", "imported"), default="whole",
                        help="each copy of our tic-tac-toe holds all of engine/ (whole, "
                             "the default) or only the modules it imports")
    parser.add_argument("--no-cgroups", action="store_true",
                        help="run without the cgroup fence even where it could run")
    options = parser.parse_args(argv)
    SUBMISSION["kind"] = options.submission
    cases = tictactoe_cases(options.cases, seed=1)
    if options.only == "class":
        options.overhead = 0
    if options.only == "overhead":
        options.size = 0
    if options.overhead:
        overhead(cases, options.overhead, False if options.no_cgroups else None)
    if options.size:
        for isolation in ("rlimits", "landlock", "bwrap"):
            if options.size >= 50:
                klass(cases[:10], 10, options.jobs, isolation)
            klass(cases, options.size, options.jobs, isolation)


if __name__ == "__main__":
    main(sys.argv[1:])
