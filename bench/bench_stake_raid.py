"""Speed of homework.py (Stake/Raid) on the issue's three reference searches.

    python3 bench/bench_stake_raid.py [--runs K] [--selfplay]

Each case is a generated input.txt (fixed seed) run as a whole process, exactly as the
grader runs it; the figure is the least CPU time (user + sys) of K runs, start-up
included, with peak memory. The node counts and rates come from one in-process search.
``--selfplay`` also runs bench/bench_stake_raid_selfplay.py with its defaults.

Reference figures (issue 4): a typical student program takes 3.6-4 s for the empty 5x5
MINIMAX depth 4 and up to 50 s for the half-full 26x26 ALPHABETA depth 2; a careful
Python program 0.27 s and 0.18 s. Target: beat those, and the empty 26x26 MINIMAX depth 2
in under 0.3 s.
"""

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from measure import PYTHON, best_of  # noqa: E402

from engine.games.stake_raid_files import parse_input  # noqa: E402
from engine.games.stake_raid_files import position as setup  # noqa: E402
from engine.search import ExactSearch, search  # noqa: E402

# (name, N, MODE, DEPTH, fraction of squares filled, target CPU seconds)
CASES = [
    ("empty 5x5 MINIMAX depth 4", 5, "MINIMAX", 4, 0.0, 0.27),
    ("half-full 26x26 ALPHABETA depth 2", 26, "ALPHABETA", 2, 0.5, 0.18),
    ("empty 26x26 MINIMAX depth 2", 26, "MINIMAX", 2, 0.0, 0.30),
    ("half-full 26x26 MINIMAX depth 2", 26, "MINIMAX", 2, 0.5, None),
    ("empty 5x5 ALPHABETA depth 6", 5, "ALPHABETA", 6, 0.0, None),
]


def input_text(size, mode, depth, filled, seed=561):
    rng = random.Random(seed)
    values = [[rng.randint(1, 99) for _ in range(size)] for _ in range(size)]
    board = ["".join(rng.choice("XO") if rng.random() < filled else "."
                     for _ in range(size)) for _ in range(size)]
    return (f"{size}\n{mode}\nX\n{depth}\n"
            + "".join(" ".join(map(str, row)) + "\n" for row in values)
            + "".join(row + "\n" for row in board))


def main(argv):
    runs = 3
    if "--runs" in argv:
        runs = int(argv[argv.index("--runs") + 1])
    print(f"python: {PYTHON}; least CPU time of {runs} runs, whole process")
    with tempfile.TemporaryDirectory() as folder:
        empty_cpu = best_of(runs, [PYTHON, "-c", "pass"])[0]
        print(f"  interpreter start-up alone: {empty_cpu:.3f} s CPU")
        for name, size, mode, depth, filled, target in CASES:
            text = input_text(size, mode, depth, filled)
            Path(folder, "input.txt").write_text(text)
            cpu, wall, rss, code = best_of(runs, [PYTHON, str(REPO / "homework.py")],
                                           cwd=folder)
            if code:
                print(f"!! {name}: exit code {code}")
                return 1
            problem = parse_input(text)
            game, state = setup(problem)
            started = time.process_time()
            result = search(game, state, ExactSearch(prune=mode == "ALPHABETA", depth=depth))
            seconds = time.process_time() - started
            nodes = result.stats.nodes
            verdict = "" if target is None else (
                f"  target < {target:.2f} s: {'met' if cpu < target else 'MISSED'}")
            print(f"  {name:36} {cpu:6.3f} s CPU  {rss:6.1f} MB  {nodes:8d} nodes "
                  f"({nodes / max(seconds, 1e-9) / 1e6:5.2f} M nodes/s in-process)"
                  f"{verdict}", flush=True)
    if "--selfplay" in argv:
        return subprocess.run([sys.executable, str(HERE / "bench_stake_raid_selfplay.py")],
                              cwd=REPO).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
