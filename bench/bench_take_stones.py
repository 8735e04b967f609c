"""Benchmark of TakeStones: CPU seconds and peak memory of whole processes.

    python3 bench/bench_take_stones.py [--runs N]

The headline case is ``28 0 0`` (a new game with 28 stones searched to the end): 3,080,817
lines, 71,572,970 bytes of stdout. The output goes to /dev/null, so the figures are the
program's own work (search, formatting, writing). Each figure is the best of N runs (noise
on a shared machine only ever adds time). The issue's target: at most 1.0 s CPU; a Java
student program takes ~30 s here and a careful Python one ~4.6 s.

Before measuring, each interpreter runs the program once with bytecode writing allowed,
so that the runs load the engine from __pycache__ as they do on any installation after
the first run (this sandbox sets PYTHONDONTWRITEBYTECODE=1, which would otherwise make
every run of a fresh clone compile the engine: about 18 ms more per run).
"""

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import PYTHON, best_of, run_measured  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCRIPT = str(REPO / "TakeStones")
CASES = [  # (arguments, lines of stdout)
    ("7 3 1 4 2 3", 12),
    ("22 0 0", None),
    ("24 0 0", None),
    ("28 0 0", 3_080_817),
    ("28 0 12", None),
]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case (best is kept)")
    parser.add_argument("--cases", nargs="*", help="only these argument lines")
    options = parser.parse_args(argv)
    interpreters = [("python3", PYTHON)]
    if shutil.which("pypy3") and "BENCH_PYTHON" not in os.environ:
        interpreters.append(("pypy3", shutil.which("pypy3")))
    print(f"{'interpreter':<12} {'arguments':<14} {'CPU s':>7} {'wall s':>7} {'peak MB':>8}")
    warm = {key: value for key, value in os.environ.items()
            if key != "PYTHONDONTWRITEBYTECODE"}
    for label, python in interpreters:
        run_measured([python, SCRIPT, "1", "0", "0"], env=warm)
        for arguments, _ in CASES:
            if options.cases and arguments not in options.cases:
                continue
            cpu, wall, peak, code = best_of(options.runs, [python, SCRIPT] + arguments.split())
            if code != 0:
                print(f"{label:<12} {arguments:<14} exit code {code}")
                return 1
            print(f"{label:<12} {arguments:<14} {cpu:7.2f} {wall:7.2f} {peak:8.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
