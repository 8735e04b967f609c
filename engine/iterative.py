"""Iterative deepening under a deadline, on top of the one alpha-beta of engine.search.

``iterative_deepening`` searches depth 1, 2, ... up to ``max_depth`` with a shared
transposition table (so each iteration starts with the previous one's best moves first),
and returns the result of the deepest iteration that COMPLETED before the deadline. A
search that runs past the deadline is abandoned (engine.search raises SearchTimeout
inside it) and its partial result is thrown away.

Time is read only through the time limit's ``clock`` (default ``time.perf_counter``), so
tests inject a fake clock and never depend on real time. Budgeting (how much of a game's
time to give a move, safety margins) belongs to the program; this module only honours a
deadline.
"""

import time
from collections import namedtuple
from typing import Any, Callable, Optional, Tuple

from .errors import SearchTimeout
from .search import INF, Statistics, TimeLimit, TranspositionTable, search


class Iteration(namedtuple("Iteration", "depth result seconds")):
    """One completed iteration: its depth, SearchResult and the seconds it took."""

    __slots__ = ()


class DeepeningResult(namedtuple("DeepeningResult",
                                 "value action child depth iterations timed_out solved stats")):
    """What :func:`iterative_deepening` returns.

    value, action, child  from the deepest completed iteration (action None only if no
                          iteration completed, or the root is terminal)
    depth                 depth of that iteration (0 if none completed)
    iterations            every completed Iteration, shallowest first
    timed_out             True when the deadline stopped an iteration
    solved                True when the last iteration needed no evaluation (exact value)
    stats                 Statistics summed over all iterations, the abandoned one included
    """

    __slots__ = ()


def iterative_deepening(game: Any, state: Any, *, max_depth: int,
                        time_limit: Optional[TimeLimit] = None,
                        table: Optional[TranspositionTable] = None,
                        order: Optional[Callable] = None,
                        window: Tuple[float, float] = (-INF, INF),
                        tracer_factory: Optional[Callable] = None,
                        stats: Optional[Statistics] = None, min_depth: int = 1,
                        on_iteration: Optional[Callable] = None, prune: bool = True,
                        stop_when: Optional[Callable] = None,
                        selective: Any = None) -> DeepeningResult:
    """Deepen from ``min_depth`` to ``max_depth`` until ``time_limit`` (a
    :class:`engine.search.TimeLimit`; its clock also times the iterations).

    ``table`` (a TranspositionTable, created if None) is kept across iterations.
    ``tracer_factory(depth)`` may give each iteration its own tracer; ``on_iteration``
    is called with each completed :class:`Iteration`. Stops early once an iteration
    is exact (no evaluation and no table answer used: searched to the game's end).
    ``order`` and ``selective`` are passed to the search (see engine.search; a cut by true
    ``bounds`` keeps an iteration exact). ``prune=False`` deepens plain minimax instead
    of alpha-beta. ``stop_when(iteration)`` returning True ends the deepening after that
    completed iteration (e.g. a proven win).
    """
    deadline = time_limit.deadline if time_limit is not None else None
    clock = time_limit.clock if time_limit is not None else time.perf_counter
    if table is None:
        table = TranspositionTable()
    if stats is None:
        stats = Statistics()
    iterations = []
    timed_out = False
    solved = False
    for depth in range(min_depth, max_depth + 1):
        if deadline is not None and clock() >= deadline:
            timed_out = True
            break
        tracer = tracer_factory(depth) if tracer_factory is not None else None
        evaluations_before, hits_before = stats.evaluations, stats.table_hits
        started = clock()
        try:
            result = search(game, state, prune=prune, depth=depth, window=window,
                            tracer=tracer, stats=stats, table=table, order=order,
                            time_limit=time_limit, selective=selective)
        except SearchTimeout:
            timed_out = True
            break
        iteration = Iteration(depth, result, clock() - started)
        iterations.append(iteration)
        if on_iteration is not None:
            on_iteration(iteration)
        if result.action is None:
            break
        if stop_when is not None and stop_when(iteration):
            break
        if stats.evaluations == evaluations_before and stats.table_hits == hits_before:
            solved = True  # nothing was estimated: deeper iterations cannot change it
            break
    if iterations:
        last = iterations[-1]
        return DeepeningResult(last.result.value, last.result.action, last.result.child,
                               last.depth, iterations, timed_out, solved, stats)
    return DeepeningResult(None, None, None, 0, iterations, timed_out, solved, stats)
