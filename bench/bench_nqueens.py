"""Benchmark of the N-Queens program (docs/nqueens.md): CPU seconds and peak
memory of whole runs of ``python3 -m engine nqueens ...``.

    python3 bench/bench_nqueens.py            # the assignment's tables and a few solves (~1 min)
    python3 bench/bench_nqueens.py --reach    # also the solver's reach runs (many minutes)

BENCH_PYTHON=pypy3 measures another interpreter. Figures are best of 3 runs for the quick
cases and single runs for the long ones.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import PYTHON, best_of, run_measured  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
QUICK = [
    ("Q1 table 1a minimax N=1..10", "table --variation 1a --search minimax --sizes 1-10"),
    ("Q2 table 1b minimax N=1..10", "table --variation 1b --search minimax --sizes 1-10"),
    ("Q3 table 1a alphabeta N=1..10", "table --variation 1a --search alphabeta --sizes 1-10"),
    ("Q4 table 1b alphabeta N=1..10", "table --variation 1b --search alphabeta --sizes 1-10"),
    ("Q5 table 1a minimax cutoff 4 N=1..20",
     "table --variation 1a --search minimax --cutoff 4 --sizes 1-20"),
    ("Q6 table 1b minimax cutoff 4 N=1..20",
     "table --variation 1b --search minimax --cutoff 4 --sizes 1-20"),
    ("Q7 table 1a alphabeta cutoff 4 N=1..20",
     "table --variation 1a --search alphabeta --cutoff 4 --sizes 1-20"),
    ("Q9 scenarios alphabeta", "scenarios --search alphabeta"),
]
SINGLE = [
    ("Q9 scenarios minimax", "scenarios --search minimax"),
    ("solve 1a N=16", "solve --quiet --variation 1a --sizes 16"),
    ("solve 1b N=16", "solve --quiet --variation 1b --sizes 16"),
    ("solve 2 N=10", "solve --quiet --variation 2 --sizes 10"),
    ("solve 2 N=11", "solve --quiet --variation 2 --sizes 11"),
]
REACH = [
    ("solve 1a N=18", "solve --quiet --variation 1a --sizes 18"),
    ("solve 1b N=18", "solve --quiet --variation 1b --sizes 18"),
    ("solve 2 N=12", "solve --quiet --variation 2 --sizes 12"),
]


def command(arguments):
    return [PYTHON, "-m", "engine", "nqueens"] + arguments.split()


def report(label, run):
    cpu, wall, rss, code = run
    status = "" if code == 0 else f"  EXIT {code}"
    print(f"{label:<42} {cpu:8.2f} s CPU {wall:8.2f} s wall {rss:8.1f} MB{status}",
          flush=True)
    return code


def main(argv):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    failures = 0
    for label, arguments in QUICK:
        failures += bool(report(label, best_of(3, command(arguments), cwd=REPO, env=env)))
    cases = SINGLE + (REACH if "--reach" in argv else [])
    for label, arguments in cases:
        failures += bool(report(label, run_measured(command(arguments), cwd=REPO, env=env)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
