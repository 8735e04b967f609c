"""tictactoe.py benchmark: whole-process CPU and peak memory, and the memo's effect.

Issue 2 target: the empty board without prune (549,945 lines, 6.7 MB) in at most 0.15 s CPU
for the whole process, under 100 MB. The interpreter's own start-up is measured in the same
run (``python3 -c pass``) so the figures can be read as "start-up + our work".
"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from measure import PYTHON, best_of  # noqa: E402

from engine.games.tictactoe import TicTacToe  # noqa: E402
from engine.trace import VisitedListing  # noqa: E402
from engine.search import ExactSearch, search  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = 7


def whole_process():
    with tempfile.TemporaryDirectory() as folder:
        startup = best_of(RUNS, [PYTHON, "-c", "pass"], cwd=folder)
        print(f"{'python3 -c pass (start-up only)':<44} cpu {startup[0]:.3f} s   "
              f"peak {startup[2]:.1f} MB")
        for args in (["---------", "v.txt"], ["---------", "v.txt", "prune"],
                     ["---------", "v.txt", "prune", "9"], ["--xxo-ox-", "v.txt"]):
            cpu, wall, peak, code = best_of(RUNS, [PYTHON, os.path.join(ROOT, "tictactoe.py")]
                                            + args, cwd=folder)
            size = os.path.getsize(os.path.join(folder, "v.txt"))
            print(f"tictactoe.py {' '.join(args):<31} cpu {cpu:.3f} s   peak {peak:.1f} MB   "
                  f"above start-up {cpu - startup[0]:.3f} s   {size:,} bytes   exit {code}")


def in_process():
    """The search alone, with and without the subtree memo (same bytes either way)."""
    for prune in (False, True):
        timings = {}
        for use_memo in (False, True):
            best = None
            for _ in range(3):
                listing = VisitedListing()
                started = time.process_time()
                search(TicTacToe(), "-" * 9, ExactSearch(prune=prune, tracer=listing,
                                                         memo={} if use_memo else None))
                text = listing.text()
                spent = time.process_time() - started
                best = spent if best is None else min(best, spent)
            timings[use_memo] = (best, len(text))
        (plain, size), (memo, same) = timings[False], timings[True]
        assert size == same
        print(f"in-process search+listing prune={prune!s:<5}  no memo {plain:.3f} s   "
              f"memo {memo:.3f} s   ratio {plain / memo:.1f}x")


if __name__ == "__main__":
    whole_process()
    in_process()
