"""The ONE minimax / alpha-beta search of the project (AIMA form).

Every program searches through :func:`search`: minimax with ``prune=False``, alpha-beta
with ``prune=True``, as its options say (one typed value: :mod:`engine.searchoptions`).
Rules graders depend on (docs/engine.md, "The search"):

* children are visited in ``game.successors`` order (or ``order``'s);
* a Max node returns as soon as ``v >= beta``, a Min node as soon as ``v <= alpha``, the
  test made BEFORE alpha/beta is updated, and a cut node returns ``v`` (not the bound);
* ``v`` starts at -inf (Max) / +inf (Min) whatever the window, as in AIMA;
* the terminal test comes FIRST: a terminal node at the cut-off gets
  ``game.terminal_value``, other nodes at the cut-off ``game.evaluate``;
* the root never cuts (see :func:`_search_root`), later root children get the tightened
  window, and the root keeps the FIRST strictly better child, so alpha-beta chooses
  exactly the move minimax chooses.

The root is :func:`_search_root`; every other node is valued by the one node function of
:mod:`engine.node`, whose children go through the one child loop
(:func:`engine.searchparts.child_loop`). A table, a deadline, a memo or an agent's
selectivity are named pieces the node runs where its options give them.
"""

from __future__ import annotations

import time

from .node import node_function
# The names programs import from here (options, kinds, flags, the table, the tracer) are
# defined with the options and the pieces; engine.search is the one public entry.
from .searchoptions import (ExactSearch, SearchOptions, SelectiveSearch,  # noqa: F401
                            TableSearch, TimeLimit)
from .searchparts import (EVALUATED, EXACT, INF, INTERIOR, LOWER, TERMINAL,  # noqa: F401
                          TRANSPOSITION, UPPER, Counts, Tracer, TranspositionTable,
                          bound_flag, ordered)

# Every program imports this module; typing (about 10 ms of start-up) is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Tuple

    from .game import Game

# search(game, state) with no options: alpha-beta to the end of the game.
FULL_ALPHABETA = ExactSearch()


class Statistics:
    """Counts of one or more searches (a search adds to the object it is given).

    nodes                 calls of the node function, root included (memo replays count
                          the nodes of the subtree they stand for)
    evaluations           game.evaluate calls at the cut-off (incl. bulk horizon values)
    evaluations_by_depth  {depth from the root: evaluations}
    terminals             terminal nodes reached
    cutoffs               nodes that returned early because of a cut
    table_hits, memo_hits transposition-table answers, memo replays
    elapsed               seconds of ``clock`` spent in the searches
    """

    __slots__ = ("nodes", "evaluations", "evaluations_by_depth", "terminals", "cutoffs",
                 "table_hits", "memo_hits", "elapsed")

    def __init__(self) -> None:
        self.nodes = 0
        self.evaluations = 0
        self.evaluations_by_depth: Dict[float, int] = {}
        self.terminals = 0
        self.cutoffs = 0
        self.table_hits = 0
        self.memo_hits = 0
        self.elapsed = 0.0

    def add(self, counts: Counts, limit: float, seconds: float) -> None:
        """Add one search's :class:`engine.searchparts.Counts` (its evaluations were made
        at the cut-off ``limit``) and the ``seconds`` it took."""
        self.nodes += counts.nodes
        self.evaluations += counts.evaluations
        self.terminals += counts.terminals
        self.cutoffs += counts.cutoffs
        self.table_hits += counts.table_hits
        self.memo_hits += counts.memo_hits
        if counts.evaluations:
            by_depth = self.evaluations_by_depth
            by_depth[limit] = by_depth.get(limit, 0) + counts.evaluations
        self.elapsed += seconds

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Statistics({fields})"


class SearchResult:
    """What :func:`search` returns.

    value        the root's value (Max's view)
    action       the chosen root action (None for a terminal or depth-0 root)
    child        the state after ``action`` (None when ``action`` is None)
    root_values  [(action, value)] for every root child visited, in visit order; with
                 pruning, values after the first are bounds unless they improved the root
    stats        the Statistics object the search added to
    """

    __slots__ = ("value", "action", "child", "root_values", "stats")

    def __init__(self, value: float, action: Any, child: Any,
                 root_values: List[Tuple[Any, float]], stats: Statistics) -> None:
        self.value, self.action, self.child = value, action, child
        self.root_values, self.stats = root_values, stats

    def __repr__(self) -> str:
        return (f"SearchResult(value={self.value!r}, action={self.action!r}, "
                f"child={self.child!r}, root_values={self.root_values!r}, "
                f"stats={self.stats!r})")


def search(game: Game, state: Any, options: SearchOptions = FULL_ALPHABETA,
           stats: Optional[Statistics] = None) -> SearchResult:
    """Search ``state`` of ``game`` as ``options`` say (an :class:`ExactSearch`,
    :class:`TableSearch` or :class:`SelectiveSearch`; default: alpha-beta to the end of
    the game); return a :class:`SearchResult`. The counts are added to ``stats`` (a new
    :class:`Statistics` by default).

    A tracer (ExactSearch's, TableSearch's) is told about every visited node: ``enter``
    before it is examined, ``leave`` just before it returns (post-order), ``pruned``
    with the children a cut skipped. A game with ``horizon_values`` (see engine.game)
    has the children of a node on the cut-off valued in bulk, unless a tracer without
    ``leaves`` or a memo needs them one by one.

    Raises SearchTimeout past the time limit (the counts made so far are in ``stats``).
    """
    if stats is None:
        stats = Statistics()
    tracer = options.tracer
    horizon = getattr(game, "horizon_values", None)
    if (tracer is not None and getattr(tracer, "leaves", None) is None) or \
            options.memo is not None:
        horizon = None
    time_limit = options.time_limit
    clock = time_limit.clock if time_limit is not None else time.perf_counter
    started = clock()
    visit, counts = node_function(game, options, horizon)
    try:
        value, action, child, root_values = _search_root(game, state, visit, options)
    finally:
        made = counts()
        made.nodes += 1                                 # the root
        stats.add(made, INF if options.depth is None else options.depth,
                  clock() - started)
    return SearchResult(value, action, child, root_values, stats)


def _search_root(game: Game, state: Any, visit: Callable[..., float], options: SearchOptions
                 ) -> Tuple[float, Any, Any, List[Tuple[Any, float]]]:
    """The root: like an interior node, but it never cuts and it remembers the move.

    The root keeps the FIRST child whose value is strictly better than every earlier
    child's (``cv > v`` for Max, ``cv < v`` for Min: a later equal child never replaces
    it); later children are searched with the tightened window (alpha-beta only). With
    a selective search's ``root_cut`` (a null-window test) it stops at the first child
    whose value reaches the window's far edge. Returns (value, action, child,
    root_values).
    """
    low, high = alpha, beta = options.window
    prune, tracer, table, hooks = options.prune, options.tracer, options.table, options.hooks
    if tracer is not None:
        tracer.enter(state, None, 0, alpha, beta)
    v = game.terminal_value(state)
    if v is not None or (options.depth is not None and options.depth <= 0):
        kind = TERMINAL
        if v is None:
            v = game.evaluate(state)
            kind = EVALUATED
        if tracer is not None:
            tracer.leave(state, None, 0, v, alpha, beta, kind)
        return v, None, None, []

    hint = table.best_action(game.key(state)) if table is not None else None
    children = (hooks.expand(state, hint, 0) if hooks is not None and hooks.expand is not None
                else ordered(game.successors, options.order, state, hint, 0))
    root_cut = hooks is not None and prune and hooks.root_cut
    maximizing = game.is_maxs_turn(state)
    root_values = []
    best: Any = None
    v = -INF if maximizing else INF
    for a, child in children:
        cv = visit(child, a, 1, alpha, beta)
        root_values.append((a, cv))
        if best is None or (cv > v if maximizing else cv < v):     # strictly better only
            v, best = cv, (a, child)
        if prune:
            if root_cut and (v >= high if maximizing else v <= low):
                break
            if maximizing and v > alpha:
                alpha = v
            elif not maximizing and v < beta:
                beta = v
    if table is not None:
        # A root searched with a narrowed window (e.g. a null-window test) knows only a
        # bound when its value falls on or outside the window.
        limit = INF if options.depth is None else options.depth
        table[game.key(state)] = (limit, v, bound_flag(v, low, high), best[0])   # TableEntry
    if tracer is not None:
        tracer.leave(state, None, 0, v, alpha, beta, INTERIOR)
    return v, best[0], best[1], root_values
