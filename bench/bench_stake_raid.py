"""Speed of homework.py (Stake/Raid) on the reference searches, beside a plain program.

    python3 bench/bench_stake_raid.py [--runs K] [--selfplay]

Each case is a generated input.txt (fixed seed) run as a whole process, exactly as the
grader runs it, in K rounds; a round runs the interpreter alone (``-c pass``), homework.py
and bench/plain_stake_raid.py (a careful plain implementation, as a good student writes
one) once each, in turn, so that a drift of the machine's speed touches all three alike.
The figures are medians of CPU time (user + sys), start-up included, and the ratio of
the two programs' CPU beyond the interpreter's own start (the target: at most 0.5). The
two output.txt must be the same bytes. A first, uncounted run writes the bytecode caches
of our modules, as a grader's first case does (the plain program is one script: Python
compiles it on every run, as it does any script). The node counts and rates come from
one in-process search. ``--selfplay`` also runs bench/bench_stake_raid_selfplay.py.

Reference figures (issue 4): a typical student program takes 3.6-4 s for the empty 5x5
MINIMAX depth 4 and up to 50 s for the half-full 26x26 ALPHABETA depth 2; a careful
Python program 0.27 s and 0.18 s. Target: beat those, and the empty 26x26 MINIMAX depth 2
in under 0.3 s.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from measure import PYTHON, run_measured  # noqa: E402

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


PLAIN = HERE / "plain_stake_raid.py"
# The children write their bytecode caches, as on a grader's machine.
ENVIRONMENT = {name: value for name, value in os.environ.items()
               if name != "PYTHONDONTWRITEBYTECODE"}


def rounds(count, folder):
    """{"start", "ours", "plain": [(CPU seconds, peak MB) of each run]} of ``count``
    rounds in ``folder`` (holding input.txt); None when a program fails or the outputs
    differ."""
    commands = {"start": [PYTHON, "-c", "pass"],
                "ours": [PYTHON, str(REPO / "homework.py")],
                "plain": [PYTHON, str(PLAIN)]}
    outputs = {}
    for name in ("ours", "plain"):                       # the uncounted first runs
        if run_measured(commands[name], cwd=folder, env=ENVIRONMENT)[3]:
            return None
        outputs[name] = Path(folder, "output.txt").read_bytes()
    if outputs["ours"] != outputs["plain"]:
        return None
    figures = {name: [] for name in commands}
    for _ in range(count):
        for name, command in commands.items():
            cpu, _, peak, _ = run_measured(command, cwd=folder, env=ENVIRONMENT)
            figures[name].append((cpu, peak))
    return figures


def in_process(text, mode, depth):
    """(nodes, seconds) of the grader's search of ``text``, in this process."""
    game, state = setup(parse_input(text))
    started = time.process_time()
    result = search(game, state, ExactSearch(prune=mode == "ALPHABETA", depth=depth))
    return result.stats.nodes, time.process_time() - started


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds a case (medians kept)")
    parser.add_argument("--selfplay", action="store_true")
    options = parser.parse_args(argv)
    print(f"python: {PYTHON}; median CPU seconds of {options.runs} rounds, whole process; "
          "ratio: CPU beyond the interpreter's start, ours / plain")
    starts = []
    with tempfile.TemporaryDirectory() as folder:
        for name, size, mode, depth, filled, target in CASES:
            text = input_text(size, mode, depth, filled)
            Path(folder, "input.txt").write_text(text)
            figures = rounds(options.runs, folder)
            if figures is None:
                print(f"!! {name}: a program failed, or the outputs differ")
                return 1
            start, ours, plain = (statistics.median(cpu for cpu, _ in figures[key])
                                  for key in ("start", "ours", "plain"))
            starts += [cpu for cpu, _ in figures["start"]]
            peak = max(peak for _, peak in figures["ours"])
            nodes, seconds = in_process(text, mode, depth)
            verdict = "" if target is None else (
                f"  target < {target:.2f} s: {'met' if ours < target else 'MISSED'}")
            print(f"  {name:36} ours {ours:6.3f} s {peak:5.1f} MB  plain {plain:6.3f} s  "
                  f"ratio {(ours - start) / (plain - start):4.2f}  {nodes:8d} nodes "
                  f"({nodes / max(seconds, 1e-9) / 1e6:5.2f} M nodes/s in-process)"
                  f"{verdict}", flush=True)
    print(f"  interpreter start-up alone: {statistics.median(starts):.3f} s CPU")
    if options.selfplay:
        return subprocess.run([sys.executable, str(HERE / "bench_stake_raid_selfplay.py")],
                              cwd=REPO).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
