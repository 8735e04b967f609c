"""Benchmark of tmmorris.py: worst-case CPU seconds over all legal inputs, per PLY.

For each PLY the search depth is min(PLY, 7), so PLY 10 and 1,000,000 search alike. The
inputs with the most visited nodes at that depth are found in-process (every non-terminal
position with at most 3 pieces per side, either side to move), then the heaviest few are
run as graders run them and measured as CPU time (user + sys) of the whole process, best
of 3, with peak memory and the visited file's size.

    python3 bench/bench_morris.py [--top N]      (BENCH_PYTHON=pypy3 to time PyPy)
"""

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from measure import PYTHON, best_of  # noqa: E402

from engine.games.morris import DECISIVE_HORIZON, MorrisLookahead, solve  # noqa: E402
from engine.search import ExactSearch, Statistics, search  # noqa: E402

PLIES = (1, 2, 3, 10, 1000000)


def heaviest_inputs(depth, top):
    """The ``top`` (nodes, board, turn) with the most visited nodes at ``depth``."""
    game = MorrisLookahead()
    counts = []
    for key in solve():
        board, turn = key[:9], key[9]
        root = game.root(board, turn)
        if game.terminal_value(root) is not None:
            continue
        stats = Statistics()
        search(game, root, ExactSearch(depth=depth), stats=stats)
        counts.append((stats.nodes, board, turn))
    counts.sort(key=lambda item: (-item[0], item[1], item[2]))
    return counts[:top]


def main(argv):
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 3
    print(f"interpreter: {PYTHON}")
    print(f"{'PLY':>8} {'input':>14} {'nodes':>7} {'CPU s':>6} {'wall s':>6} "
          f"{'RSS MB':>6} {'file B':>8}")
    found = {}
    worst = {}
    for ply in PLIES:
        depth = min(ply, DECISIVE_HORIZON)
        if depth not in found:
            found[depth] = heaviest_inputs(depth, top)
        for nodes, board, turn in found[depth]:
            with tempfile.TemporaryDirectory() as folder:
                cpu, wall, rss, code = best_of(
                    3, [PYTHON, str(ROOT / "tmmorris.py"), board, "visited.txt", str(ply),
                        turn], cwd=folder)
                size = os.path.getsize(os.path.join(folder, "visited.txt"))
            if code:
                print(f"!! exit code {code} for {board} {turn} PLY {ply}")
                return 1
            worst[ply] = max(worst.get(ply, 0.0), cpu)
            print(f"{ply:>8} {board + ' ' + turn:>14} {nodes:>7} {cpu:6.3f} {wall:6.3f} "
                  f"{rss:6.1f} {size:>8}")
    print("worst-case CPU s per PLY: "
          + ", ".join(f"{ply}: {seconds:.3f}" for ply, seconds in worst.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
