"""Iterative deepening under a deadline, on top of the one alpha-beta of engine.search.

``iterative_deepening`` searches depth 1, 2, ... up to its options' ``depth`` (a
:class:`engine.search.TableSearch` or :class:`engine.search.SelectiveSearch`) with a shared
transposition table (so each iteration starts with the previous one's best moves first),
and returns the result of the deepest iteration that COMPLETED before the deadline. A
search that runs past the deadline is abandoned (engine.search raises SearchTimeout
inside it) and its partial result is thrown away.

Time is read only through the time limit's ``clock`` (default ``time.perf_counter``), so
tests inject a fake clock and never depend on real time. Budgeting (how much of a game's
time to give a move, safety margins) belongs to the program; this module only honours a
deadline.
"""

import itertools
import time
from collections import namedtuple
from typing import Any, Callable, List, Optional, Union, overload

from .errors import SearchTimeout
from .game import Game
from .search import (SearchResult, SelectiveSearch, Statistics, TableSearch,
                     TranspositionTable, search)
from .searchparts import Tracer


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


@overload
def iterative_deepening(game: Game, state: Any, options: TableSearch, *, min_depth: int = 1,
                        tracer_for: Optional[Callable[[int], Tracer]] = None,
                        stats: Optional[Statistics] = None,
                        on_iteration: Optional[Callable[[Iteration], Any]] = None,
                        stop_when: Optional[Callable[[Iteration], bool]] = None
                        ) -> DeepeningResult: ...


@overload
def iterative_deepening(game: Game, state: Any, options: SelectiveSearch, *,
                        min_depth: int = 1, stats: Optional[Statistics] = None,
                        on_iteration: Optional[Callable[[Iteration], Any]] = None,
                        stop_when: Optional[Callable[[Iteration], bool]] = None
                        ) -> DeepeningResult: ...


def iterative_deepening(game: Game, state: Any, options: Union[TableSearch, SelectiveSearch],
                        *, min_depth: int = 1,
                        tracer_for: Optional[Callable[[int], Tracer]] = None,
                        stats: Optional[Statistics] = None,
                        on_iteration: Optional[Callable[[Iteration], Any]] = None,
                        stop_when: Optional[Callable[[Iteration], bool]] = None
                        ) -> DeepeningResult:
    """Search ``state`` with ``options`` at depth ``min_depth``, ``min_depth + 1``, ... up
    to ``options.depth`` (None: no limit) until its ``time_limit`` (whose clock also
    times the iterations).

    ``options.table`` (a TranspositionTable, created if None) is kept across
    iterations. ``tracer_for(depth)`` may give each iteration its own tracer (a
    TableSearch only: a SelectiveSearch is never traced); ``on_iteration`` is called
    with each completed :class:`Iteration`. Stops early once an iteration is exact (no
    evaluation and no table answer used: searched to the game's end; a cut by true
    ``bounds`` keeps an iteration exact), or when ``stop_when(iteration)`` returns True
    after a completed iteration (e.g. a proven win).
    """
    time_limit = options.time_limit
    clock = time_limit.clock if time_limit is not None else time.perf_counter
    if options.table is None:
        options = options.but(table=TranspositionTable())
    if stats is None:
        stats = Statistics()
    depths = (itertools.count(min_depth) if options.depth is None
              else range(min_depth, options.depth + 1))
    iterations: List[Iteration] = []
    timed_out = solved = False
    for depth in depths:
        if time_limit is not None and clock() >= time_limit.deadline:
            timed_out = True
            break
        deeper = (options.but(depth=depth) if tracer_for is None
                  else options.but(depth=depth, tracer=tracer_for(depth)))
        evaluations_before, hits_before = stats.evaluations, stats.table_hits
        started = clock()
        try:
            result = search(game, state, deeper, stats)
        except SearchTimeout:
            timed_out = True
            break
        iteration = Iteration(depth, result, clock() - started)
        iterations.append(iteration)
        if on_iteration is not None:
            on_iteration(iteration)
        if result.action is None or (stop_when is not None and stop_when(iteration)):
            break
        if stats.evaluations == evaluations_before and stats.table_hits == hits_before:
            solved = True  # nothing was estimated: deeper iterations cannot change it
            break
    return _deepest(iterations, timed_out, solved, stats)


def _deepest(iterations: List[Iteration], timed_out: bool, solved: bool,
             stats: Statistics) -> DeepeningResult:
    """The DeepeningResult of the deepest completed iteration (None's when none)."""
    if not iterations:
        return DeepeningResult(None, None, None, 0, iterations, timed_out, solved, stats)
    last = iterations[-1]
    result: SearchResult = last.result
    return DeepeningResult(result.value, result.action, result.child, last.depth,
                           iterations, timed_out, solved, stats)
