"""homework.py: the Stake/Raid war game (docs/stake_raid.md).

    homework.py [--strategy NAME] [INPUT OUTPUT]

Reads input.txt in the current folder (or INPUT) and writes output.txt (or OUTPUT) with
the move of the side to move and the board after it:

    N            board size 1..26
    MODE         MINIMAX | ALPHABETA | COMPETITION
    YOUPLAY      X | O, the side to move (scores are always from its side)
    DEPTH        search depth >= 1 (root = depth 0); in COMPETITION mode the CPU
                 seconds left for the whole game
    N lines      N cell values 1..99
    N lines      N characters from X, O, . (the board)

MINIMAX and ALPHABETA play exactly the move the grader expects: the first move with the
strictly best value, Stakes (row-major) before Raids (row-major). COMPETITION plays the
strongest move a share of the remaining time allows (iterative deepening alpha-beta),
showing each completed depth on stderr when stderr is a terminal.

COMPETITION strategies (--strategy NAME, or the STAKE_RAID_STRATEGY environment
variable; the option wins): agent (the default: the tournament agent), classic (the
earlier agent: iterative deepening over every move), greedy (best immediate score),
depth1..depth9 (ALPHABETA at that fixed depth, whatever the clock). MINIMAX and
ALPHABETA ignore the strategy.
Bad input: one line on stderr naming the line, exit code 2, output file untouched.
"""

from __future__ import annotations

import gc
import os
import sys
import time

from ...commandline import run_program, write_atomically
from ...errors import UsageError
from ...games.stake_raid import move_name  # noqa: F401  (re-exported for tests)
# The file format is read and written by engine.games.stake_raid_files, for homework.py,
# the kit's judge and the tournament alike.
from ...games.stake_raid_files import (Problem, output_text, parse_input,  # noqa: F401
                                       position)
from ...search import ExactSearch, search

# A grader's MINIMAX or ALPHABETA case imports only what that mode uses: the agent (its
# dataclasses, its tables) is imported when COMPETITION plays or a strategy is named,
# and typing (about 10 ms) never: the type names are for mypy. tests/test_startup.py
# pins the modules such a case imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, List, Optional, Tuple

    from ...iterative import Iteration
    from .agent import Move

# The strategy COMPETITION plays unless one is named (agent.STRATEGIES has them all).
DEFAULT_STRATEGY = "agent"


def choose(problem: Problem, clock: Callable[[], float] = time.process_time,
           strategy: str = DEFAULT_STRATEGY) -> Move:
    """(action, child) for ``problem``: the grader's move, or the COMPETITION move of
    the strategy named ``strategy``."""
    game, state = position(problem)
    if problem.mode == "COMPETITION":
        from .agent import STRATEGIES
        # The line-4 time also pays for this run's start-up, already spent (CPU clock).
        def report(iteration: Iteration) -> None:
            print(f"homework.py: depth {iteration.depth}: "
                  f"{move_name(problem.size, iteration.result.action)}, score "
                  f"{iteration.result.value:g}, {iteration.seconds:.3f} s", file=sys.stderr)
        def report_solve(outcome: Optional[str], action: Optional[int], seconds: float) -> None:
            if outcome is None:
                said = "not solved in time"
            elif action is None:
                said = "solved to the end: every move loses"
            else:
                said = (f"solved to the end: {move_name(problem.size, action)} "
                        f"{'wins' if outcome == 'win' else 'draws'}")
            print(f"homework.py: {said}, {seconds:.3f} s", file=sys.stderr)
        play = STRATEGIES[strategy]
        # A person watching (stderr is a terminal) sees each depth the search reaches.
        if sys.stderr.isatty() and strategy in ("agent", "classic"):
            extra = {"on_solve": report_solve} if strategy == "agent" else {}
            return play(game, state, problem.limit, clock=clock, spent=clock(),
                        on_iteration=report, **extra)
        return play(game, state, problem.limit, clock=clock, spent=clock())
    result = search(game, state, ExactSearch(prune=problem.mode == "ALPHABETA",
                                             depth=int(problem.limit)))  # DEPTH: an int
    return result.action, result.child


STRATEGY_VARIABLE = "STAKE_RAID_STRATEGY"


def pick_strategy(argv: List[str]) -> Tuple[str, List[str]]:
    """(strategy name, remaining argv): ``--strategy NAME`` first in ``argv``, else the
    STAKE_RAID_STRATEGY environment variable, else the default; UsageError if unknown
    (a named strategy is checked against agent.STRATEGIES, whatever the mode)."""
    name = os.environ.get(STRATEGY_VARIABLE) or DEFAULT_STRATEGY
    where = f"the {STRATEGY_VARIABLE} environment variable"
    if argv[:1] == ["--strategy"]:
        if len(argv) < 2:
            raise UsageError("--strategy needs a NAME")
        name, argv, where = argv[1], argv[2:], "--strategy"
    elif argv[:1] and argv[0].startswith("--strategy="):
        name, argv, where = argv[0].partition("=")[2], argv[1:], "--strategy"
    if name == DEFAULT_STRATEGY:
        return name, argv
    from .agent import STRATEGIES
    if name not in STRATEGIES:
        raise UsageError(f"{where}: unknown strategy {name!r}; known: "
                         f"{', '.join(STRATEGIES)}")
    return name, argv


# Games between two programs: the tournament's sandboxed referee (docs/stake_raid_agent.md).
RETIRED_ARENA = ("'stake_raid arena' was retired: play two programs with 'python3 -m engine "
                 "tournament sprt stake_raid A B --elo0 0 --elo1 50' (ours:NAME for a "
                 "strategy), sandboxed, see docs/stake_raid_agent.md")


def run(argv: List[str], fast_exit: bool = False) -> int:
    if argv[:1] == ["arena"]:
        raise UsageError(RETIRED_ARENA)
    strategy, argv = pick_strategy(argv)
    if len(argv) not in (0, 2):
        raise UsageError(f"expected no arguments (or INPUT OUTPUT), got {len(argv)}; "
                         "see homework.py --help")
    source, target = argv if argv else ("input.txt", "output.txt")
    try:
        with open(source, encoding="utf-8", errors="replace", newline=None) as handle:
            text = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {source}: {error.strerror}") from None
    problem = parse_input(text, source)
    if fast_exit and problem.mode == "COMPETITION":
        # The game's clock is this process's CPU time until it ends. The cyclic garbage
        # collector can free nothing the search makes (states, table entries) yet scans
        # them again and again, and freeing millions of table entries at shutdown would
        # cost tenths of a second after the move's deadline. So: no collector (turning
        # it back on would scan everything at once), and leave as soon as the output is
        # written.
        gc.disable()
    action, child = choose(problem, strategy=strategy)
    write_atomically(target, output_text(problem.size, problem.player, action, child[0]))
    if fast_exit and problem.mode == "COMPETITION":
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def main(argv: Optional[List[str]] = None, fast_exit: bool = True) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code.

    With ``fast_exit`` a successful COMPETITION run ends the process itself right after
    writing its output (see :func:`run`); pass False to call it in-process.
    """
    return run_program("homework.py", lambda args: run(args, fast_exit),
                       sys.argv[1:] if argv is None else argv, help_text=__doc__)
