"""Generated cases (grade cases): the time to write a set, and the categories each set holds.

1. Time: ``python3 -m engine grade cases PROGRAM --count 40`` as a whole process, for
   each program at a few seeds, RUNS times each: the median and range of its CPU time
   (user + sys of the child) and wall time.
2. Categories: for a sweep of seeds (small ones, years, a fixed sample up to 2**63 - 1),
   a visible set and a hidden set made with exclude = the visible one; for each category
   of the assignment (engine.grading.generate.categories_of, judged from the inputs), how
   many cases of the set hold it (min, median and max over the seeds), and how many sets
   hold none.

Usage: python3 bench/bench_cases.py [--runs 5] [--count 40] [--seeds 1,2021,20261128]
                                    [--sweep 60] [--only time|categories]
"""

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.grading.case import Case  # noqa: E402
from engine.grading.generate import PROGRAMS, candidates, categories_of  # noqa: E402
from engine.grading.judges import load as load_assignment  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def time_one(program: str, seed: int, count: int, folder: str) -> List[float]:
    """[cpu, wall] seconds of one ``grade cases`` process writing ``count`` cases."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine", "grade", "cases", program, "--seed",
                    str(seed), "--count", str(count), "--out", folder], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=ROOT))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return [after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall]


def report_times(runs: int, count: int, seeds: List[int]) -> None:
    print(f"time to write {count} cases, one process each, {runs} runs "
          "(median [min-max]):")
    with tempfile.TemporaryDirectory(prefix="bench-cases-") as scratch:
        for program in PROGRAMS:
            for seed in seeds:
                samples = [time_one(program, seed, count, os.path.join(scratch, f"{run}"))
                           for run in range(runs)]
                cpu, wall = ([sample[i] for sample in samples] for i in (0, 1))
                print(f"  {program:12} seed {seed:<10} cpu {statistics.median(cpu):.2f} s "
                      f"[{min(cpu):.2f}-{max(cpu):.2f}]  wall {statistics.median(wall):.2f} s "
                      f"[{min(wall):.2f}-{max(wall):.2f}]")


def sweep_seeds(size: int) -> List[int]:
    """Small seeds, years and a fixed sample of large ones: ``size`` at most."""
    rng = random.Random("bench_cases")
    seeds = [0, 1, 2, 3, 17, 1000, 2021, 2026, 20261128, 123456789, 2 ** 63 - 1]
    seeds += [rng.randrange(2 ** 63) for _ in range(max(0, size - len(seeds)))]
    return seeds[:size]


def category_counts(program: str, count: int, seeds: List[int]) -> Dict[str, Dict[str, List[int]]]:
    """{"visible"/"hidden": {category: [cases of it in each seed's set]}}."""
    assignment = load_assignment(program)
    names = [category.name for category in assignment.judge.CATEGORIES]
    counts: Dict[str, Dict[str, List[int]]] = {kind: {name: [] for name in names}
                                               for kind in ("visible", "hidden")}
    for seed in seeds:
        visible = [Case(label, assignment.script, tuple(args), files=files)
                   for label, args, files in candidates(assignment, count, seed)]
        hidden = [Case(label, assignment.script, tuple(args), files=files)
                  for label, args, files in candidates(assignment, count, seed, visible)]
        for kind, cases in (("visible", visible), ("hidden", hidden)):
            found = [categories_of(assignment, case) for case in cases]
            for name in names:
                counts[kind][name].append(sum(name in held for held in found))
    return counts


def report_categories(count: int, seeds: List[int]) -> None:
    print(f"cases of each category per set of {count}, {len(seeds)} seeds "
          "(min / median / max; sets with none):")
    for program in PROGRAMS:
        for kind, by_name in category_counts(program, count, seeds).items():
            print(f"  {program} {kind}:")
            for name, numbers in by_name.items():
                print(f"    {name:22} {min(numbers):3} / {statistics.median(numbers):5.1f} / "
                      f"{max(numbers):3}; none in {sum(n == 0 for n in numbers)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seeds", default="1,2021,20261128")
    parser.add_argument("--sweep", type=int, default=60)
    parser.add_argument("--only", choices=("time", "categories"))
    options = parser.parse_args()
    if options.only != "categories":
        report_times(options.runs, options.count,
                     [int(seed) for seed in options.seeds.split(",")])
    if options.only != "time":
        for count in (10, options.count):
            report_categories(count, sweep_seeds(options.sweep))


if __name__ == "__main__":
    main()
