"""The COMPETITION player of Stake/Raid: the strongest move a CPU-time budget allows.

Contract (docs/stake_raid.md, "COMPETITION mode"): line 4 of input.txt is the CPU
time left to our program for the WHOLE game; spend a share of it per move, never run out,
always write a legal move.

* :func:`move_budget` decides the share of the game's remaining CPU time for this move.
* :func:`competition_move` runs engine.iterative.iterative_deepening (alpha-beta with a
  transposition table, the table's best move first, then children ordered by their
  score) until the per-move deadline, and falls back to the best immediate gain when
  not even depth 1 completed.

Time is read only through ``clock`` (``time.process_time``: the budget is CPU time), so
the tests drive it with a fake clock.
"""

import time
from typing import Any, Callable, Hashable, List, NamedTuple, Optional, Tuple

from ...games.stake_raid import EMPTY, MAX, StakeRaid, State
from ...entries import TableEntry
from ...iterative import iterative_deepening
from ...search import TableSearch, TimeLimit, TranspositionTable

# CPU seconds one run of homework.py costs besides its search (interpreter start,
# imports, parsing, writing output.txt, exit): reserved for every move still to come.
STARTUP_COST = 0.06
# Never plan more than this fraction of what is left for a single move (but the last).
MAX_FRACTION = 0.25
# A move is worth at most this many seconds: deeper searches gain little in practice.
MAX_MOVE_SECONDS = 30.0
# Kept back from the whole game's time: never spent by anyone.
SAFETY = 0.02
# Memory the transposition table may use, roughly (bytes): it stops taking new positions
# beyond that (an entry costs about the board's bytes plus ~250 bytes of tuples and slot).
TABLE_BYTES = 400 * 1024 * 1024
# Left at the end of this run's budget for writing output.txt and exiting; the
# deadline is also only checked every few hundred nodes.
FINISH = 0.01
# ... and this fraction of the search time: the kernel's time for the memory a long
# search touched (page faults, unmapping at exit) grows with it (measured: ~3%).
FINISH_FRACTION = 0.04


def moves_left(cells: bytes) -> int:
    """Moves we still have to make: half the empty squares, rounded up (we move now)."""
    return (cells.count(EMPTY) + 1) // 2


def move_budget(seconds_left: float, our_moves_left: int, startup_cost: float = STARTUP_COST,
                share: float = 2.0) -> float:
    """CPU seconds this whole run may use (start-up included) out of ``seconds_left``.

    Invariant (so the game's time never runs out): after this run, what is left still
    pays ``startup_cost`` (default STARTUP_COST) for every later run, plus SAFETY.
    Within that, each remaining move gets ``share`` times its equal share (twice: the
    early and middle game matter most), at most MAX_FRACTION of what is usable and
    MAX_MOVE_SECONDS; the last move may use it all.
    Returns 0.0 when nothing beyond the bare minimum can be spent.
    """
    usable = usable_seconds(seconds_left, our_moves_left, startup_cost)
    if usable <= 0:
        return 0.0
    if our_moves_left <= 1:
        return min(usable, MAX_MOVE_SECONDS)
    return min(share * usable / our_moves_left, usable * MAX_FRACTION, MAX_MOVE_SECONDS)


def usable_seconds(seconds_left: float, our_moves_left: int,
                   startup_cost: float = STARTUP_COST) -> float:
    """The most this run may spend of ``seconds_left`` (start-up included): all but
    ``startup_cost`` for every later run and SAFETY; 0.0 when nothing is left (or
    ``seconds_left`` is not a positive number)."""
    if not seconds_left > 0:
        return 0.0
    later = max(our_moves_left - 1, 0)
    return max(seconds_left - startup_cost * later - SAFETY, 0.0)


class BoundedTable(TranspositionTable):
    """A transposition table that keeps at most ``capacity`` positions (it updates the
    ones it has but takes no new one when full), so a long search cannot exhaust memory."""

    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity

    def __setitem__(self, key: Hashable, entry: TableEntry) -> None:
        if len(self) < self.capacity or key in self:
            dict.__setitem__(self, key, entry)


def table_for(area: int) -> BoundedTable:
    """A BoundedTable sized to TABLE_BYTES for boards of ``area`` squares."""
    return BoundedTable(max(1000, TABLE_BYTES // (area + 250)))


def order_by_score(state: State, children: List[Tuple[int, State]], hint: Optional[int],
                   depth: int) -> List[Tuple[int, State]]:
    """Move ordering: the table's best move first, then children best-first for the
    side to move (a stable sort keeps the spec's order among equal scores)."""
    children = sorted(children, key=_child_score, reverse=state[2] == MAX)
    if hint is not None:
        for index, pair in enumerate(children):
            if pair[0] == hint:
                if index:
                    children.insert(0, children.pop(index))
                break
    return children


def _child_score(pair: Tuple[int, State]) -> int:
    return pair[1][1]


class CompetitionMove(NamedTuple):
    """The chosen action, the resulting state, the depth reached and the seconds used."""

    action: Any
    child: Any
    depth: int
    budget: float
    seconds: float
    nodes: int


def greedy_move(game: StakeRaid, state: State) -> Tuple[int, State]:
    """The first move with the best immediate score (depth 1 without a search tree)."""
    actions, lazy_values = game.horizon_values(state)
    values = list(lazy_values)
    pick = max(values) if game.is_maxs_turn(state) else min(values)
    action = actions[values.index(pick)]
    return action, game.play(state, action)


def competition_move(game: StakeRaid, state: State, seconds_left: float,
                     clock: Callable[[], float] = time.process_time, spent: float = 0.0,
                     table: Optional[TranspositionTable] = None,
                     on_iteration: Optional[Callable[[Any], Any]] = None) -> CompetitionMove:
    """Play the strongest move found within this run's share of ``seconds_left``.

    ``state`` must not be terminal. ``spent`` is the CPU time this run used before the
    call (start-up, parsing): it comes out of the run's :func:`move_budget`. The search
    deadline is ``clock()`` at the call plus what remains of the budget less FINISH and
    FINISH_FRACTION of it;
    iterations that do not complete by then are dropped, and when none completes (or
    there is no time at all) the greedy move is played. ``on_iteration`` is passed to
    iterative_deepening (called with each completed Iteration).
    """
    started = clock()
    budget = move_budget(seconds_left, moves_left(state[0]))
    allowed = (budget - spent) * (1 - FINISH_FRACTION) - FINISH
    if allowed <= 0:
        action, child = greedy_move(game, state)
        return CompetitionMove(action, child, 1, budget, clock() - started, 0)
    result = iterative_deepening(
        game, state, TableSearch(depth=state[0].count(EMPTY), order=order_by_score,
                                 table=table_for(len(state[0])) if table is None else table,
                                 time_limit=TimeLimit(started + allowed, clock)),
        on_iteration=on_iteration)
    if result.action is None:
        action, child = greedy_move(game, state)
        depth = 1
    else:
        action, child, depth = result.action, result.child, result.depth
    return CompetitionMove(action, child, depth, budget, clock() - started,
                           result.stats.nodes)
