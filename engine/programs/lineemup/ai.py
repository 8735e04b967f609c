"""The Line 'em Up AI: a time-safe move choice with the assignment's per-move statistics.

No I/O. The search is the engine's one alpha-beta/minimax, deepened under a deadline by
``engine.iterative.iterative_deepening`` with a transposition table and the game's move
ordering; this module only budgets the time and collects the statistics (spec
"Game trace file", items i..v).

Time rule (assignment): an AI that takes more than t seconds for a move loses. The search
gets the deadline ``start + t - margin``; the clock is read every few hundred nodes (well
under a millisecond of work on every board size), the deepest COMPLETED iteration gives
the move, and if not even depth 1 completed the first move of the game's ordering is
played (always legal). ``margin`` defaults to :func:`safety_margin`. Deepening stops
early once an iteration proves the game's result (see :func:`_decided`).
"""

import gc
import platform
import time
from typing import Callable, Dict, NamedTuple, Optional

from ...games.line_em_up import WIN, LineEmUp, State
from ...iterative import Iteration, iterative_deepening
from ...search import TableSearch, TimeLimit, TranspositionTable
from ...trace import RecursionDepthTracer


PAUSE_GC = platform.python_implementation() == "CPython"


def safety_margin(t: float) -> float:
    """Seconds kept in reserve out of ``t``: 5% plus 100 ms, at most a quarter of ``t``.

    Covers the gap between two clock readings (well under 10 ms), returning from the
    search, a JIT warm-up pause, and being descheduled for a while on a busy machine.
    """
    return min(0.1 + 0.05 * t, t / 4.0)


class MoveReport(NamedTuple):
    """One AI move and its statistics (spec items i..v).

    action                the cell played
    seconds               clock time from the call to the decision (item i)
    evaluations           leaves valued this move, all iterations (item ii)
    evaluations_by_depth  {depth from the root: count} in first-seen order (item iii)
    average_depth         sum(depth * count) / evaluations, 0.0 if none (item iv)
    recursion_depth       ARD of the root of the deepest completed iteration (item v)
    depth                 depth of that iteration (0: none completed, fallback move)
    timed_out             True when the deadline stopped an iteration
    nodes                 nodes searched (all iterations), for node rates
    """

    action: int
    seconds: float
    evaluations: int
    evaluations_by_depth: Dict[int, int]
    average_depth: float
    recursion_depth: float
    depth: int
    timed_out: bool
    nodes: int


class SimulatedClock:
    """A clock that advances ``tick`` seconds at every reading: deterministic runs.

    With it the deadline falls after a fixed number of clock readings and the printed
    times are fixed, so traces are reproducible on any machine and interpreter.
    """

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


class AIPlayer:
    """An AI with a depth limit, a per-move time limit and alpha-beta on or off.

    ``game`` is the LineEmUp instance carrying this player's heuristic. A fresh
    transposition table is used per move (positions repeat within one move's deepening,
    and a fresh table keeps the memory flat over a long game).
    """

    def __init__(self, game: LineEmUp, depth: int, seconds: float, alphabeta: bool = True,
                 margin: Optional[float] = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.game = game
        self.depth = depth
        self.seconds = seconds
        self.alphabeta = alphabeta
        self.margin = safety_margin(seconds) if margin is None else margin
        self.clock = clock

    def choose(self, state: State) -> MoveReport:
        """Search the non-terminal ``state`` and return a :class:`MoveReport`."""
        clock = self.clock
        start = clock()
        tracers = []

        def tracer_factory(depth: int) -> RecursionDepthTracer:
            tracer = RecursionDepthTracer(count_terminals=True)
            tracers.append(tracer)
            return tracer

        # The cyclic garbage collector would walk the whole transposition table (millions
        # of tuples) at unpredictable moments, a pause the deadline cannot see coming.
        # Nothing the search allocates forms a cycle, so it is paused during the search.
        # (CPython only: PyPy's collector is incremental, and without it PyPy would not
        # free the search's garbage at all.)
        collecting = PAUSE_GC and gc.isenabled()
        if collecting:
            gc.disable()
        try:
            outcome = iterative_deepening(
                self.game, state, TableSearch(
                    prune=self.alphabeta, depth=self.depth, order=self.game.order_moves,
                    table=TranspositionTable(),
                    time_limit=TimeLimit(start + self.seconds - self.margin, clock)),
                tracer_for=tracer_factory, stop_when=_decided)
        finally:
            if collecting:
                gc.enable()
        action = outcome.action
        if action is None:  # not even depth 1 finished: any legal move beats a loss
            action = self.game.order_moves(state, self.game.successors(state), None, 0)[0][0]
        seconds = clock() - start
        by_depth: Dict[int, int] = {}
        for tracer in tracers:
            for depth, count in tracer.evaluation_depths.items():
                by_depth[depth] = by_depth.get(depth, 0) + count
        evaluations = sum(by_depth.values())
        average = (sum(d * c for d, c in by_depth.items()) / evaluations
                   if evaluations else 0.0)
        ard = tracers[len(outcome.iterations) - 1].root_ard if outcome.iterations else 0.0
        return MoveReport(action, seconds, evaluations, by_depth, average, ard,
                          outcome.depth, outcome.timed_out, outcome.stats.nodes)


def _decided(iteration: Iteration) -> bool:
    """True when the iteration proved a win or a loss (a line of s within its horizon).

    A deeper search cannot change a proven result: a quicker win would have been found
    by a shallower iteration, and a proven loss loses against every reply. (The threat
    rule of e2 values positions at most WIN / 2, so it never counts as proof.)
    """
    return abs(iteration.result.value) >= WIN
