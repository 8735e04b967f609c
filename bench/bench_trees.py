"""Benchmark of issue 9's programs: CPU seconds and peak memory of whole runs.

tree: a complete tree of branching 3 and depth 10 (59,049 leaves), alpha-beta text answer
and plain minimax JSON; picture: tic-tac-toe from the empty board (full minimax, 549,946
nodes seen by the recorder, 300 drawn); hillclimb: 9 locations with the exhaustive check.
"""

import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import PYTHON, best_of  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def complete_tree(branching, depth, rng):
    if depth == 0:
        return str(rng.randint(-99, 99))
    return "(" + " ".join(complete_tree(branching, depth - 1, rng)
                          for _ in range(branching)) + ")"


def main():
    folder = Path(tempfile.mkdtemp(prefix="bench-trees-"))
    rng = random.Random(9)
    (folder / "big.txt").write_text(complete_tree(3, 10, rng) + "\n")
    names = [f"L{i}" for i in range(9)]
    rows = [[0 if i == j else None for j in range(9)] for i in range(9)]
    for i in range(9):
        for j in range(i + 1, 9):
            rows[i][j] = rows[j][i] = rng.randint(1, 99)
    (folder / "nine.txt").write_text(" ".join(names) + "\n" + "".join(
        name + " " + " ".join(map(str, row)) + "\n" for name, row in zip(names, rows)))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cases = [
        ("tree alpha-beta text, 3^10 leaves", ["tree", "big.txt"]),
        ("tree minimax JSON, 3^10 leaves", ["tree", "--minimax", "--json", "big.txt"]),
        ("picture tictactoe empty board minimax", ["picture", "tictactoe", "---------",
                                                   "--svg", "t.svg"]),
        ("hillclimb 9 locations + exhaustive", ["hillclimb", "nine.txt", "--tour",
                                                ",".join(names)]),
    ]
    for title, args in cases:
        cpu, wall, rss, code = best_of(2, [PYTHON, "-m", "engine"] + args, cwd=str(folder),
                                       env=env)
        print(f"{title:<42} cpu {cpu:6.2f} s  wall {wall:6.2f} s  peak {rss:6.1f} MB"
              + ("" if code == 0 else f"  EXIT {code}"), flush=True)


if __name__ == "__main__":
    main()
