"""tictactoe.py: best move and visited-nodes listing (docs/tictactoe.md).

    tictactoe.py STATE PATH [prune [PLY]]

Prints the board after the best move for the side to move and writes PATH with one
``STATE VALUE`` line per visited node except the root, in post-order. Without ``prune``:
full minimax; with ``prune``: alpha-beta; with ``prune PLY``: alpha-beta cut off at depth
PLY, where every leaf (terminal or not) is valued by E(s).
"""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..games.tictactoe import MARKS, TicTacToe
from ..search import ExactSearch, search
from ..trace import VisitedListing
from ..commandline import parse_positive_int, run_program, write_atomically

# The grader programs import this module on every run; typing (about 10 ms of start-up)
# is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Tuple

USAGE = "usage: tictactoe.py STATE PATH [prune [PLY]]"


def parse_arguments(argv: List[str]) -> Tuple[str, str, bool, Optional[int]]:
    """Return (board, path, prune, ply) or raise UsageError."""
    if len(argv) not in (2, 3, 4):
        raise UsageError(f"expected 2 to 4 arguments, got {len(argv)}; {USAGE}")
    board, path = argv[0], argv[1]
    if len(board) != 9 or any(c not in MARKS for c in board):
        raise UsageError(f"STATE must be 9 characters from 'x', 'o', '-', not {board!r}")
    xs, os_ = board.count("x"), board.count("o")
    if not os_ <= xs <= os_ + 1:
        raise UsageError(f"impossible position {board!r}: {xs} x and {os_} o "
                         "(x moves first, so count(x) is count(o) or count(o) + 1)")
    prune = len(argv) >= 3
    if prune and argv[2] != "prune":
        raise UsageError(f"third argument must be 'prune', not {argv[2]!r}; {USAGE}")
    ply = parse_positive_int(argv[3], "PLY") if len(argv) == 4 else None
    return board, path, prune, ply


def run(argv: List[str]) -> int:
    board, path, prune, ply = parse_arguments(argv)
    game = TicTacToe(evaluate_terminals=ply is not None)
    if game.terminal_value(board) is not None:
        return 0  # the spec: terminal input prints nothing and creates no file
    listing = VisitedListing()
    # Without path-dependent rules a subtree's listing depends only on (state, depth
    # left, window): the memo records each one once and replays it.
    result = search(game, board, ExactSearch(prune=prune, depth=ply, tracer=listing, memo={}))
    write_atomically(path, listing.text())
    sys.stdout.write(result.child + "\n")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("tictactoe.py", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
