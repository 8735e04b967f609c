"""tmmorris.py: Three Men's Morris best move and visited nodes (docs/tmmorris.md).

    tmmorris.py STATE PATH PLY TURN
    python3 -m engine tmmorris STATE PATH PLY TURN
    python3 -m engine tmmorris play [--human x|o] [--ply N]

STATE is the board in raster order from 'x', 'o', '-' (at most 3 of each); TURN ('x' or
'o') is the side to move; PLY (a positive integer) is the look-ahead in plies. Alpha-beta
chooses the best move for TURN and prints the board after it; PATH receives one line
'STATE VALUE' per visited node except the root, in post-order, VALUE an integer from x's
view. A terminal STATE (a row or column of three, or TURN cannot move) prints nothing
and creates no file.

Rules: placement while a side has fewer than 3 pieces, then orthogonal slides; three in a
row or column wins (not diagonals); a side that cannot move loses; a position repeating
one on the search path is a draw. Every forced win takes at most 6 plies, so the search
depth is min(PLY, 7): from 7 on the choice is perfect and a larger PLY changes nothing.

'play' lets you play against the program in the terminal (cells are numbered 1-9).
"""

from __future__ import annotations

import sys

from ...errors import UsageError
from ...games.morris import check_board
from ...trace import VisitedListing
from ...commandline import parse_positive_int, run_program, write_atomically
from .lookahead import best_move

# The grader programs import this module on every run; typing (about 10 ms of start-up)
# is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Tuple

USAGE = "usage: tmmorris.py STATE PATH PLY TURN  (or: python3 -m engine tmmorris play)"


def parse_arguments(argv: List[str]) -> Tuple[str, str, int, str]:
    """Return (board, path, ply, turn) or raise UsageError."""
    if len(argv) != 4:
        raise UsageError(f"expected 4 arguments, got {len(argv)}; {USAGE}")
    board, path, ply_text, turn = argv
    problem = check_board(board)
    if problem:
        raise UsageError(problem)
    ply = parse_positive_int(ply_text, "PLY")
    if turn not in ("x", "o"):
        raise UsageError(f"TURN must be 'x' or 'o', not {turn!r}")
    return board, path, ply, turn


def run(argv: List[str]) -> int:
    if argv[:1] == ["play"]:
        from .play import play
        return play(argv[1:])
    board, path, ply, turn = parse_arguments(argv)
    listing = VisitedListing(board=lambda node: node[0])
    result = best_move(board, turn, ply, tracer=listing)
    if result is None:
        return 0  # the spec: terminal input prints nothing and creates no file
    write_atomically(path, listing.text())
    sys.stdout.write(result.child[0] + "\n")
    return 0


def main(argv: Optional[List[str]] = None, name: str = "tmmorris") -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code.

    ``name`` prefixes error lines: the program's one name (``tmmorris`` for
    ``python3 -m engine tmmorris``, or its alias ``morris``; tmmorris.py passes its own
    name).
    """
    return run_program(name, run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
