"""The node function of the one search: AIMA's MAX-VALUE and MIN-VALUE, with marked pieces.

:func:`node_function` builds, for one search, the function that values a node below the
root (:func:`engine.search.search` holds the root's own rule). It is the same function for
every kind of options (:mod:`engine.searchoptions`); a piece a kind does not use costs the
test that it is None, so that the grader modes pay next to nothing for the players'
pieces. In the order the node meets them:

1. the deadline (:func:`engine.searchparts.deadline_check`), once enough nodes are counted;
2. the terminal test FIRST, then the cut-off: such a node is a leaf; any other node is
   interior (:func:`interior_function`);
3. the table probe (:func:`engine.searchparts.table_answer`): a deep enough exact entry,
   or a bound outside the window, answers the node, and the entry's best action is tried
   first;
4. the agent's cut (:meth:`engine.selective.Selective.cutter`: bounds, ProbCut);
5. the children: valued in bulk when they sit on the cut-off (the game's
   ``horizon_values`` through :func:`engine.searchparts.bulk_value`), else visited by
   THE child loop (:func:`engine.searchparts.child_loop`) or, for an agent, its reduced
   loop (:meth:`engine.selective.Selective.reducer`), in ``successors`` order, ``order``'s
   or the agent's ``expand``'s;
6. the table store (the entry's flag by :func:`engine.searchparts.bound_flag`, written out).

A memo (ExactSearch's) wraps the node: :func:`engine.searchparts.memoised`.
"""

from __future__ import annotations

from .searchparts import (EVALUATED, EXACT, INF, INTERIOR, LOWER, TERMINAL, TRANSPOSITION,
                          UPPER, Counts, bulk_value, child_loop, deadline_check, memoised,
                          ordered, overrides, table_answer)

# Every program imports this module; typing (about 10 ms of start-up) is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Optional, Tuple

    from .game import Game
    from .searchoptions import SearchOptions

    # visit(state, action, depth, alpha, beta) -> value
    NodeFunction = Callable[[Any, Any, int, float, float], float]


def node_function(game: Game, options: SearchOptions, horizon: Optional[Callable[[Any], Any]]
                  ) -> Tuple[NodeFunction, Callable[[], Counts]]:
    """(``visit``, ``counts``): the node function of one search with ``options`` (the
    memo's wrapper when it has a memo), and ``counts()``, the :class:`Counts` its nodes
    made so far. ``horizon`` is the game's ``horizon_values``, or None when the search
    must visit the children on the cut-off one by one."""
    terminal_value, evaluate = game.terminal_value, game.evaluate
    limit = INF if options.depth is None else options.depth
    tracer, time_limit = options.tracer, options.time_limit
    # A tracer that keeps Tracer's no-op enter is not called for it: the call would cost
    # time on every node for nothing.
    enter = tracer.enter if tracer is not None and overrides(tracer, "enter") else None
    leave = tracer.leave if tracer is not None else None
    check: Any = (deadline_check(time_limit.deadline, time_limit.clock, time_limit.check_every)
                  if time_limit is not None else None)
    next_check = time_limit.check_every if time_limit is not None else INF
    tally = Counts(0, 0, 0, 0, 0, 0)

    def node(state: Any, action: Any, d: int, alpha: float, beta: float) -> float:
        """The value of ``state`` (reached by ``action``, at depth ``d``) searched with
        window (alpha, beta)."""
        nonlocal next_check
        nodes = tally.nodes = tally.nodes + 1
        if nodes >= next_check:
            next_check = check(nodes)
        if enter is not None:
            enter(state, action, d, alpha, beta)
        v = terminal_value(state)
        if v is not None:                   # the terminal test comes first,
            tally.terminals += 1
            kind = TERMINAL
        elif d < limit:                     # then the cut-off
            return interior(state, action, d, alpha, beta)
        else:
            v, kind = evaluate(state), EVALUATED
            tally.evaluations += 1
        if leave is not None:
            leave(state, action, d, v, alpha, beta, kind)
        return v

    visit, memo_counts = node, lambda: (0, 0, 0)
    if options.memo is not None:
        visit, memo_counts = memoised(node, lambda: tally.evaluations, options.memo,
                                      options.memo_key, limit, tracer)
    interior = interior_function(game, options, visit, horizon, tally)

    def counts() -> Counts:
        hits, nodes, evaluations = memo_counts()
        return Counts(tally.nodes + nodes, tally.evaluations + evaluations, tally.terminals,
                      tally.cutoffs, tally.table_hits, hits)
    return visit, counts


def interior_function(game: Game, options: SearchOptions, visit: NodeFunction,
                      horizon: Optional[Callable[[Any], Any]], tally: Counts) -> NodeFunction:
    """The part of :func:`node_function`'s node for an interior node (pieces 3 to 6 of
    the module docstring), bound to one search: ``visit`` is its node function (children
    go through it) and ``tally`` the Counts its pieces add to."""
    successors, is_max, key_of = game.successors, game.is_maxs_turn, game.key
    prune, order, table, tracer = options.prune, options.order, options.table, options.tracer
    limit = INF if options.depth is None else options.depth
    leave = tracer.leave if tracer is not None else None
    leaves = getattr(tracer, "leaves", None)
    loop = child_loop(visit, prune, tally, tracer)
    expand, cut, cut_from, reduce, reduce_plies = (
        options.hooks.pieces(visit, limit, table, prune) if options.hooks is not None
        else (None, None, 0, None, 0))

    def interior(state: Any, action: Any, d: int, alpha: float, beta: float) -> float:
        left, alpha_in, beta_in = limit - d, alpha, beta
        hint = key = entry = None
        if table is not None:                                   # the probe
            key = key_of(state)
            entry = table.get(key)
            if entry is not None:
                hint = entry[3]                                 # TableEntry.best
                stored = table_answer(entry, left, alpha, beta) if entry[0] >= left else None
                if stored is not None:
                    tally.table_hits += 1
                    if leave is not None:
                        leave(state, action, d, stored, alpha, beta, TRANSPOSITION)
                    return stored
        maximizing = is_max(state)
        if cut is not None and left >= cut_from:                # the agent's cut
            v = cut(state, action, d, alpha, beta, maximizing, key, entry)
            if v is not None:
                tally.cutoffs += 1
                return v
            if table is not None:   # the cut may have searched it shallower: its move
                entry = table.get(key)
                hint = entry[3] if entry is not None else hint
        if horizon is not None and left <= 1:                   # the children in bulk
            actions, values = horizon(state)
            v, index, visited = bulk_value(values, prune, maximizing, alpha, beta, tally)
            best = actions[index] if visited and table is not None else None   # to store
            if leaves is not None:
                leaves(state, d + 1, visited)
        else:
            children = (expand(state, hint, d) if expand is not None
                        else ordered(successors, order, state, hint, d))
            if reduce_plies and left - 1 > reduce_plies:
                v, best, was_cut = reduce(children, d + 1, alpha, beta, maximizing)
                tally.cutoffs += was_cut
            else:
                v, best, alpha, beta = loop(state, d, children, alpha, beta, maximizing)
        if table is not None:   # the store; bound_flag written out (a call: 1% of an agent)
            table[key] = (left, v, UPPER if v <= alpha_in else LOWER if v >= beta_in
                          else EXACT, best)
        if leave is not None:
            leave(state, action, d, v, alpha, beta, INTERIOR)
        return v

    return interior
