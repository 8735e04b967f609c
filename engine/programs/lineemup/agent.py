"""lineemup agent: one tournament move of Line 'em Up through input.txt / output.txt.

    python3 -m engine lineemup agent [--heuristic e1|e2] [--depth D]
                                     [--input FILE] [--output FILE] [--verbose]

Reads the position from FILE (default input.txt, in the current folder) and writes the
AI's move to output.txt (default), then exits 0. The referee (engine/tournament) runs
this once per move and charges its CPU time against the player's clock.

input.txt, one item per line:
  n                  the board size, 3..10
  s                  stones in a row to win, 3..n
  X or O             the side to move
  SECONDS            this player's CPU seconds left for the whole game (200, 12.37)
  n rows             n characters each, row 0 first: '.' empty, '*' bloc, 'X', 'O'
output.txt: one line, the cell, column letter then row number (B3).

Options:
  --heuristic H      e1 (open lines) or e2 (weighted threats) (default e2)
  --depth D          search exactly to depth D (deepening stops early only once the
                     result is proven), with no clock: reproducible, for tests
  --input FILE       the position (default input.txt)
  --output FILE      where the move goes (default output.txt), written atomically
  --verbose          one line on stderr: the move, the depth reached and the time

Time rule (without --depth; docs/lineemup.md, "Tournament agent protocol"): with R the
seconds left and E the empty cells, this player still has M = ceil(E / 2) moves to make,
of which the game (usually decided long before the board is full) is expected to need
half. This run may use

    budget = min((R - SAFETY - STARTUP_COST * (M - 1)) / max(M / 2, MIN_SHARES),
                 MAX_MOVE_SECONDS)

CPU seconds, its own start-up included (0 when the parenthesis is not positive). The
engine's one AI (ai.AIPlayer) searches on the process's CPU clock until the budget less
FINISH and FINISH_FRACTION of the search time; docs/lineemup.md says why each term.

Bad input (no such file, a malformed line, a wrong size, a finished game) is one line on
stderr and exit code 2, and output.txt is not written.
"""

import argparse
import math
import sys
import time
from typing import Callable, List, NamedTuple, NoReturn, Optional

from ...commandline import write_atomically
from ...errors import UsageError
from ...games.line_em_up import cell_name
from .ai import AIPlayer
from .boards import position

# CPU seconds one run costs besides its search (interpreter start, imports, parsing,
# writing, exit): measured about 0.15 s with CPython 3.11; reserved for every later move.
STARTUP_COST = 0.25
# Seconds of the game's clock never planned for by anyone.
SAFETY = 0.1
# The most a single move may take of what may be spent is 1 / MIN_SHARES, even when only
# a move or two is left: the estimate of the moves left may be wrong.
MIN_SHARES = 4.0
# Deeper searches gain little beyond this, and memory grows with the search time (a
# 10 s move peaks at about 90 MB on 8x8 and 115 MB on 5x5 boards, CPython 3.11).
MAX_MOVE_SECONDS = 10.0
# Kept at the end of the budget for returning from the search, freeing its table,
# writing output.txt and exiting: a fixed part and a part that grows with the search.
FINISH = 0.03
FINISH_FRACTION = 0.05


def our_moves_left(empties: int) -> int:
    """The moves this player still has to make, this one included: ceil(empties / 2)."""
    return (empties + 1) // 2


def move_budget(seconds_left: float, empties: int) -> float:
    """CPU seconds this whole run may use (its start-up included) out of ``seconds_left``.

    ``empties``: the empty cells of the position (this player moves now). The rule of
    the module docstring: what remains after keeping SAFETY and STARTUP_COST per later
    move, shared among max(moves left / 2, MIN_SHARES), at most MAX_MOVE_SECONDS.
    Never more than ``seconds_left``, nondecreasing in it; 0.0 when nothing may be
    spent (or ``seconds_left`` is not a positive number).
    """
    moves = our_moves_left(max(empties, 1))
    if not seconds_left > 0:
        return 0.0
    usable = seconds_left - SAFETY - STARTUP_COST * (moves - 1)
    if usable <= 0:
        return 0.0
    return min(usable / max(moves / 2.0, MIN_SHARES), MAX_MOVE_SECONDS)


class Position(NamedTuple):
    """A parsed input.txt: the rows as given, the winning length, the side to move and
    the CPU seconds left."""

    rows: list
    s: int
    side: str
    seconds: float


def parse_input(text: str, name: str = "input.txt") -> Position:
    """The :class:`Position` of an input file's ``text``; UsageError naming the bad line
    (``name``: the file, as the messages call it).

    Only the format is checked here (numbers, the side, n rows of n characters);
    :func:`engine.programs.lineemup.boards.position` checks the position itself.
    """
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()  # trailing blank lines are harmless
    if len(lines) < 4:
        raise UsageError(f"{name} has {len(lines)} lines: expected n, s, the side to move, "
                         "the seconds left and n board rows")
    n = _integer(lines[0], f"{name} line 1 (n)")
    if not 3 <= n <= 10:
        raise UsageError(f"{name} line 1: n must be 3..10, not {n}")
    s = _integer(lines[1], f"{name} line 2 (s)")
    if not 3 <= s <= n:
        raise UsageError(f"{name} line 2: s must be 3..{n}, not {s}")
    side = lines[2]
    if side not in ("X", "O"):
        raise UsageError(f"{name} line 3: the side to move must be X or O, not {side!r}")
    try:
        seconds = float(lines[3])
    except ValueError:
        seconds = math.nan
    if not (0 <= seconds < math.inf):
        raise UsageError(f"{name} line 4: the seconds left must be a number >= 0, not {lines[3]!r}")
    rows = lines[4:]
    if len(rows) != n:
        raise UsageError(f"{name} has {len(rows)} board rows, expected n = {n}")
    for number, row in enumerate(rows):
        if len(row) != n:
            raise UsageError(f"{name} line {number + 5}: board row {number} has {len(row)} cells, "
                             f"expected {n}")
    return Position(rows, s, side, seconds)


def _integer(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise UsageError(f"{what} must be a whole number, not {text!r}")
    return int(text)


class AgentMove(NamedTuple):
    """The chosen move and how it was found.

    cell     the cell's name (B3)
    depth    the deepest completed iteration (0: the first ordered move, none completed)
    budget   the CPU seconds this run was allowed (None with a fixed depth)
    seconds  CPU seconds of the search
    """

    cell: str
    depth: int
    budget: object
    seconds: float


def choose(position_: Position, heuristic: str = "e2", depth: Optional[int] = None,
           clock: Callable[[], float] = time.process_time) -> AgentMove:
    """The agent's move for a parsed :class:`Position`.

    ``depth`` None: iterative deepening under :func:`move_budget`, the deadline read on
    ``clock`` (CPU seconds since the process started, so that the start-up counts);
    ``depth`` D: a search to depth D without a deadline. Raises UsageError when the
    position is not playable (impossible, or the game is over).
    """
    rows = position_.rows
    n = len(rows)
    game, state = position(rows, (), n, position_.s, position_.side, heuristic)
    if depth is not None:
        # No deadline: an infinite time and no margin make TimeLimit never fire.
        ai = AIPlayer(game, depth, math.inf, True, margin=0.0, clock=clock)
        budget = None
    else:
        budget = move_budget(position_.seconds, len(game.actions(state)))
        spent = clock()  # the start-up and the parsing so far, out of this run's budget
        search = (budget - spent - FINISH) / (1.0 + FINISH_FRACTION)
        # A budget already spent still gets a move: the deadline has passed, no iteration
        # starts, and the AI plays the first move of its ordering (immediate wins first).
        ai = AIPlayer(game, 64, max(search, 0.0), True, margin=0.0, clock=clock)
    report = ai.choose(state)
    return AgentMove(cell_name(report.action, n), report.depth, budget, report.seconds)


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as UsageError (one stderr line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _depth(text: str) -> int:
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return int(text)


def _parser() -> _Parser:
    parser = _Parser(prog="python3 -m engine lineemup agent", add_help=False)
    parser.add_argument("--heuristic", choices=("e1", "e2"), default="e2")
    parser.add_argument("--depth", type=_depth, default=None)
    parser.add_argument("--input", default="input.txt")
    parser.add_argument("--output", default="output.txt")
    parser.add_argument("--verbose", action="store_true")
    return parser


def run_agent(argv: List[str]) -> int:
    """``lineemup agent ARGS``: read the input file, write the move; the exit code.

    Raises UsageError (one stderr line, exit 2, nothing written) for bad options or
    input."""
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip("\n"))
        return 0
    options = _parser().parse_args(argv)
    try:
        with open(options.input, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {options.input}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{options.input} is not UTF-8 text") from None
    move = choose(parse_input(text, options.input), options.heuristic, options.depth)
    write_atomically(options.output, move.cell + "\n")
    if options.verbose:
        budget = "fixed depth" if move.budget is None else f"budget {move.budget:.2f}s"
        print(f"lineemup agent: {move.cell} (depth {move.depth}, search {move.seconds:.2f}s, "
              f"{budget}, CPU so far {time.process_time():.2f}s)", file=sys.stderr)
    return 0
