"""The ONE minimax / alpha-beta search of the project (AIMA form).

Every program searches through :func:`search`. It is minimax when ``prune=False`` and
alpha-beta when ``prune=True``; everything else is optional and costs nothing when off:

* ``depth``     depth cut-off. The root is depth 0; a node at depth == ``depth`` is a leaf
                valued by ``game.evaluate``. The terminal test comes FIRST, so a terminal
                node at the cut-off gets ``game.terminal_value``.
* ``window``    the root's (alpha, beta); the assignments use (-inf, inf) or e.g.
                (-1000, 1000). ``v`` always starts at -inf (Max) / +inf (Min) as in AIMA:
                the same values whenever the game's values lie inside the window, and a
                sound bound when a narrowed window is reached (a node that started at the
                window's edge could report that edge as a bound it never proved).
* ``tracer``    an observer (see :class:`Tracer` below; engine.trace holds the recorders)
                told about every visited node:
                ``enter(state, action, depth, alpha, beta)`` before the node is examined,
                ``leave(state, action, depth, value, alpha, beta, kind)`` just before it
                returns (post-order; ``alpha``/``beta`` are the node's final bounds, a leaf's
                are the ones it was called with; ``kind`` says where the value came from),
                and ``pruned(state, depth, actions)`` with the children a cut skipped (only
                when it skipped any; it comes right before that node's ``leave``).
                A tracer that defines ``leaves(state, depth, count)`` accepts the game's
                bulk ``horizon_values``: instead of enter/leave for each child on the
                cut-off it is told once that ``count`` of them were valued at ``depth``.
* ``stats``     a :class:`Statistics` object that receives the counts (accumulates).
* ``memo``      a dict memoising whole subtrees by (key, depth left, alpha, beta), where the
                key is ``memo_key(state)`` if that option is given, else the state itself.
                With a tracer, the tracer must be replayable (``mark``/``capture``/
                ``replay``): the subtree's trace is recorded once and replayed on every
                later visit, so the output is byte-identical to a full search. Only valid
                for games whose subtree depends on the key alone (no path-dependent rules).
* ``memo_key``  e.g. a game's ``subtree_key``: a key shared by states whose subtrees have
                the same shape and values. With a tracer, states sharing a key may print
                differently: ``replay(segment, state)`` must adapt the text to ``state``.
* ``table``     a :class:`TranspositionTable` (values with bound flags and best moves).
* ``order``     ``order(state, children, hint, depth) -> children``: move ordering; ``hint`` is
                the transposition table's best action for the state (or None).
* ``expand``    ``expand(state, hint, depth) -> children``: replaces ``game.successors``
                followed by ``order`` at interior nodes and the root, for players that
                choose which children to build at all (ordering and forward pruning
                before any child state is made). Not for the grader modes: their visit
                order is the spec's.
* ``reduce``    ``(after, plies)``: late-move reductions, for players only (with
                ``prune``). Below the root, every child after the first ``after`` is first
                searched ``plies`` shallower, and searched again at full depth only when
                that value would raise alpha (Max) or lower beta (Min): a move that the
                ordering put late rarely matters, and when it does the re-search finds out.
                Children with ``plies`` or fewer levels left are never reduced. Not
                with a tracer (a ValueError): a reduced search is not the visit order
                a trace describes.
* ``null_move`` ``plies``: null-move pruning, for players only (with ``prune``), for games
                where moving is practically never worse than passing. Below the root,
                at a node with more than ``plies + 1`` levels left whose parent was not
                itself a pass, the side to move first passes (``game.pass_turn(state)``,
                the same position with the other side to move; None: no pass there)
                and that position is searched ``plies`` shallower than a child would
                be, with a window one unit wide at the node's far edge. If even the
                pass reaches the edge (>= beta for Max, <= alpha for Min) the node
                returns that value at once, a bound (stored as one in ``table``): the
                node would cut anyway, and a real move would do at least as well.
                Not with a tracer (a ValueError).
* ``probcut``   ``(min_left, plies, margin)``: ProbCut, for players only (with
                ``prune``), for games whose values change little from one depth to one
                a few plies deeper. Below the root, at a node with at least ``min_left``
                levels left, the node itself is first searched ``plies`` shallower with
                a window one unit wide at the side to move's far edge moved ``margin``
                beyond it (beta + margin for Max, alpha - margin for Min). If that
                shallow search reaches it, the node returns its edge (beta or alpha)
                at once: the full search would most probably cut there too. A guess,
                not a proof (unlike ``bounds``). With a ``table``, a deeper entry of
                the node that the shallow search replaced is put back. Not with a
                tracer (a ValueError).
* ``bounds``    ``bounds(state) -> (low, high)``, for players only (with ``prune``): every
                value the search could give ``state`` (any position reachable from
                it, or any blend of their values a horizon makes) lies within
                [low, high]. An interior node whose ``high`` is at or below alpha, or
                whose ``low`` is at or above beta, returns that bound at once without
                expanding (a solve far from its window ends early). Not with a tracer
                (a ValueError): the trace would skip nodes the spec visits.
* ``deadline``  with ``clock``: raise :class:`SearchTimeout` once ``clock() >= deadline``
                (checked each time ``check_every`` more nodes have been counted).
* ``root_cut``  with ``prune``, for players only: the root stops at the first child whose
                value reaches the window's far edge (``>= beta`` for Max, ``<= alpha`` for
                Min) and returns that child, its value a bound. A null-window test such as
                "is there a winning move?" needs one such child, not the rest searched
                against an empty window. Not the grader modes' root (see below).

Rules graders depend on (docs/engine.md, "The search"): children are visited in
``game.successors`` order; a Max node returns as soon as ``v >= beta`` and a Min node as
soon as ``v <= alpha``, the test made BEFORE alpha/beta is updated; a cut node returns
``v`` (not the bound); the root never cuts but later root children get the tightened
window; the root keeps the FIRST strictly better child, so alpha-beta chooses exactly the
move minimax chooses.
"""

import time
from collections import namedtuple

from .errors import SearchTimeout

INF = float("inf")

# Where a node's value came from (the ``kind`` argument of Tracer.leave).
INTERIOR = "interior"          # computed from the children it visited
TERMINAL = "terminal"          # game over: game.terminal_value
EVALUATED = "evaluated"        # depth cut-off: game.evaluate
TRANSPOSITION = "transposition"  # taken from the transposition table

# Transposition-table bound flags.
EXACT, LOWER, UPPER = 0, 1, 2


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

    def __init__(self):
        self.nodes = 0
        self.evaluations = 0
        self.evaluations_by_depth = {}
        self.terminals = 0
        self.cutoffs = 0
        self.table_hits = 0
        self.memo_hits = 0
        self.elapsed = 0.0

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Statistics({fields})"


class TranspositionTable(dict):
    """Maps ``game.key(state)`` to ``(depth_left, value, flag, best_action)``.

    ``flag`` is EXACT, LOWER (value is a lower bound: the node failed high) or UPPER
    (an upper bound: it failed low). ``depth_left`` is ``inf`` for values that do not
    depend on the depth. A plain dict, so it can be cleared or sized by its owner.
    """

    def best_action(self, key):
        """The best action stored for ``key``, or None."""
        entry = self.get(key)
        return entry[3] if entry is not None else None


class Tracer:
    """No-op observer; subclasses override the events they need."""

    def enter(self, state, action, depth, alpha, beta):
        """Called before ``state`` (reached by ``action``; None at the root) is examined."""

    def leave(self, state, action, depth, value, alpha, beta, kind):
        """Called just before the node returns ``value`` (post-order).

        ``alpha``/``beta`` are the node's final bounds (a leaf's: those it was called
        with). ``kind`` is engine.search.INTERIOR, TERMINAL, EVALUATED or TRANSPOSITION.
        """

    def pruned(self, state, depth, actions):
        """Called when a cut at ``state`` skips the children reached by ``actions``."""

    # A tracer MAY define ``leaves(state, depth, count)``: the search then uses the
    # game's bulk ``horizon_values`` and, instead of enter/leave for each child of
    # ``state`` on the cut-off, reports once that ``count`` children were valued at
    # ``depth``. Not defined here, so that the search can tell who accepts it.


class SearchResult(namedtuple("SearchResult", "value action child root_values stats")):
    """What :func:`search` returns.

    value        the root's value (Max's view)
    action       the chosen root action (None for a terminal or depth-0 root)
    child        the state after ``action`` (None when ``action`` is None)
    root_values  [(action, value)] for every root child visited, in visit order; with
                 pruning, values after the first are bounds unless they improved the root
    stats        the Statistics object the search added to
    """

    __slots__ = ()


def _overrides(tracer, event):
    """False when ``tracer``'s class keeps the no-op ``Tracer.<event>`` (nothing to tell)."""
    return getattr(type(tracer), event, None) is not getattr(Tracer, event)


def _report_pruned(tracer, state, depth, rest):
    """Tell ``tracer`` which children a cut skipped: those ``rest`` (the iterator over
    the children, stopped at the cut) has not yielded yet, if any."""
    skipped = [pair[0] for pair in rest]
    if skipped:
        tracer.pruned(state, depth, skipped)


def search(game, state, *, prune=True, depth=None, window=(-INF, INF), tracer=None,
           stats=None, memo=None, memo_key=None, table=None, order=None, deadline=None,
           clock=time.perf_counter, check_every=256, expand=None, reduce=None,
           root_cut=False, null_move=None, bounds=None, probcut=None):
    """Search ``state`` of ``game`` and return a :class:`SearchResult` (see module doc)."""
    if stats is None:
        stats = Statistics()
    successors = game.successors
    terminal_value = game.terminal_value
    is_max = game.is_maxs_turn
    evaluate = game.evaluate
    key_of = game.key
    # Bulk horizon evaluation only when nobody needs to see the horizon nodes one by one.
    # A tracer may still take them in bulk if it has a ``leaves`` method (see Tracer).
    horizon_values = getattr(game, "horizon_values", None)
    tracer_leaves = getattr(tracer, "leaves", None) if tracer is not None else None
    if (tracer is not None and tracer_leaves is None) or memo is not None:
        horizon_values = None
    if memo is not None and tracer is not None:
        mark, capture, replay = tracer.mark, tracer.capture, tracer.replay
    leave = tracer.leave if tracer is not None else None
    # A tracer that keeps Tracer's no-op enter/pruned is not called for them: the calls
    # (and the list of pruned actions) would cost time on every node for nothing.
    report_enter = tracer is not None and _overrides(tracer, "enter")
    report_pruned = tracer is not None and _overrides(tracer, "pruned")
    limit = INF if depth is None else depth
    # The depth left is part of a memo key only under a cut-off; without one, 0 (an int:
    # INF - d would make and hash a float at every node).
    bounded = depth is not None
    low, high = window
    if reduce is not None and tracer is not None:
        raise ValueError("late-move reductions (reduce) cannot be traced")
    reduce_after, reduce_plies = reduce if reduce is not None and prune else (0, 0)
    if null_move is not None and tracer is not None:
        raise ValueError("null-move pruning (null_move) cannot be traced")
    null_plies = null_move if null_move and prune else 0
    if bounds is not None and tracer is not None:
        raise ValueError("static bounds (bounds) cannot be traced")
    if not prune:
        bounds = None
    if probcut is not None and tracer is not None:
        raise ValueError("ProbCut (probcut) cannot be traced")
    probe_left, probe_plies, probe_margin = (probcut if probcut is not None and prune
                                             else (0, 0, 0))
    pass_turn = game.pass_turn if null_plies else None
    nodes = evaluations = terminals = cutoffs = table_hits = memo_hits = 0
    # The clock is read once ``check_every`` more nodes have been counted. A threshold,
    # not ``nodes % check_every == 0``: bulk horizon values add many nodes at once and
    # could jump over every multiple, leaving the deadline unchecked for long.
    next_check = check_every
    started = clock()

    def visit(state, action, d, alpha, beta):
        """Value of ``state`` at depth ``d`` searched with window (alpha, beta)."""
        nonlocal nodes, evaluations, terminals, cutoffs, table_hits, memo_hits, next_check
        nodes += 1
        if deadline is not None and nodes >= next_check:
            next_check = nodes + check_every
            if clock() >= deadline:
                raise SearchTimeout("search deadline reached")
        if memo is not None:
            entry_key = (state if memo_key is None else memo_key(state),
                         limit - d if bounded else 0, alpha, beta)
            hit = memo.get(entry_key)
            if hit is not None:
                memo_hits += 1
                nodes += hit[2] - 1
                evaluations += hit[3]
                if tracer is not None:
                    replay(hit[1], state)
                return hit[0]
            first_node, first_evaluation = nodes - 1, evaluations
            if tracer is not None:
                start = mark(state)
        if report_enter:
            tracer.enter(state, action, d, alpha, beta)

        v = terminal_value(state)
        if v is not None:
            terminals += 1
            kind = TERMINAL
        elif d >= limit:
            v = evaluate(state)
            evaluations += 1
            kind = EVALUATED
        else:
            kind = INTERIOR
            hint = None
            if table is not None:
                table_key = key_of(state)
                entry = table.get(table_key)
                if entry is not None:
                    hint = entry[3]
                    if entry[0] >= limit - d:
                        stored, flag = entry[1], entry[2]
                        if (flag == EXACT or (flag == LOWER and stored >= beta)
                                or (flag == UPPER and stored <= alpha)):
                            table_hits += 1
                            if tracer is not None:
                                leave(state, action, d, stored, alpha, beta, TRANSPOSITION)
                                if memo is not None:
                                    # Close the mark; not memoised: a later visit may
                                    # find another table entry.
                                    capture(start)
                            return stored
                alpha_in, beta_in = alpha, beta
            if bounds is not None:
                low_bound, high_bound = bounds(state)
                if high_bound <= alpha or low_bound >= beta:
                    cutoffs += 1
                    return high_bound if high_bound <= alpha else low_bound
            maximizing = is_max(state)
            if probe_plies and action is not None and limit - d >= probe_left:
                # ProbCut: the shallow search of this very node, at the side to move's
                # edge pushed ``probe_margin`` further. A deeper table entry it replaced
                # is put back (its move comes from the deeper search); otherwise the
                # probe's entry gives the full search its first move.
                if maximizing:
                    cut = beta < INF
                    if cut:
                        edge = beta + probe_margin
                        cut = visit(state, action, d + probe_plies, edge - 1, edge) >= edge
                else:
                    cut = alpha > -INF
                    if cut:
                        edge = alpha - probe_margin
                        cut = visit(state, action, d + probe_plies, edge, edge + 1) <= edge
                if table is not None:
                    if entry is not None and entry[0] > limit - d - probe_plies:
                        table[table_key] = entry
                    else:
                        entry = table.get(table_key)
                        if entry is not None:
                            hint = entry[3]
                if cut:
                    cutoffs += 1
                    return beta if maximizing else alpha
            best = None
            bulk = None
            null_cut = False
            # Null move: ``action`` is None at the root and after a pass, so neither
            # passes. With the one-unit window the pass's value is a bound, enough to
            # tell whether it reaches the edge.
            if null_plies and action is not None and limit - d > null_plies + 1:
                passed = pass_turn(state)
                if passed is not None:
                    if maximizing:
                        if beta == INF:
                            passed = None   # no edge to reach
                    elif alpha == -INF:
                        passed = None
                if passed is not None:
                    if maximizing:
                        v = visit(passed, None, d + 1 + null_plies, beta - 1, beta)
                        null_cut = v >= beta
                    else:
                        v = visit(passed, None, d + 1 + null_plies, alpha, alpha + 1)
                        null_cut = v <= alpha
            if horizon_values is not None and d + 1 >= limit:
                bulk = horizon_values(state)
            if null_cut:
                cutoffs += 1        # even a pass reaches the edge: v is its bound
            elif bulk is not None:
                # Children sit on the cut-off: same loop over precomputed values.
                actions, values = bulk
                if not prune:
                    if not isinstance(values, list):
                        values = list(values)   # a lazy iterator (see Game docs)
                    v = max(values) if maximizing else min(values)
                    index = values.index(v)
                    visited = len(values)
                else:
                    v = -INF if maximizing else INF
                    index = visited = 0
                    for cv in values:
                        visited += 1
                        if maximizing:
                            if cv > v:
                                v, index = cv, visited - 1
                            if v >= beta:
                                cutoffs += 1
                                break
                            if v > alpha:
                                alpha = v
                        else:
                            if cv < v:
                                v, index = cv, visited - 1
                            if v <= alpha:
                                cutoffs += 1
                                break
                            if v < beta:
                                beta = v
                nodes += visited
                evaluations += visited
                best = actions[index] if visited else None
                if tracer is not None:
                    tracer_leaves(state, d + 1, visited)
            else:
                # A generator of children is pulled only up to a cut; to report what
                # the cut skipped, the loop runs on an iterator whose rest is just that.
                if expand is not None:
                    children = expand(state, hint, d)
                else:
                    children = successors(state)
                    if order is not None:
                        children = order(state, children, hint, d)
                    elif hint is not None:
                        children = _hint_first(children, hint)
                if report_pruned:
                    children = iter(children)
                d1 = d + 1
                if reduce_plies and limit - d1 > reduce_plies:
                    v, best, cut = _reduced_children(visit, children, d1, alpha, beta,
                                                     maximizing, reduce_after, reduce_plies)
                    cutoffs += cut
                elif maximizing:
                    v = -INF
                    for a, child in children:
                        cv = visit(child, a, d1, alpha, beta)
                        if cv > v:
                            v, best = cv, a
                        if prune:
                            if v >= beta:
                                cutoffs += 1
                                if report_pruned:
                                    _report_pruned(tracer, state, d, children)
                                break
                            if v > alpha:
                                alpha = v
                else:
                    v = INF
                    for a, child in children:
                        cv = visit(child, a, d1, alpha, beta)
                        if cv < v:
                            v, best = cv, a
                        if prune:
                            if v <= alpha:
                                cutoffs += 1
                                if report_pruned:
                                    _report_pruned(tracer, state, d, children)
                                break
                            if v < beta:
                                beta = v
            if table is not None:
                if v <= alpha_in:
                    flag = UPPER
                elif v >= beta_in:
                    flag = LOWER
                else:
                    flag = EXACT
                table[table_key] = (limit - d, v, flag, best)

        if tracer is not None:
            leave(state, action, d, v, alpha, beta, kind)
        if memo is not None:
            if tracer is None:
                memo[entry_key] = (v, None, nodes - first_node, evaluations - first_evaluation)
            else:
                segment = capture(start)
                if segment is not None:
                    memo[entry_key] = (v, segment, nodes - first_node,
                                      evaluations - first_evaluation)
        return v

    try:
        value, action, child, root_values = _search_root(
            game, state, visit, prune, limit, low, high, tracer, table, order, expand,
            root_cut)
    finally:
        stats.nodes += nodes + 1          # + the root
        stats.evaluations += evaluations
        stats.terminals += terminals
        stats.cutoffs += cutoffs
        stats.table_hits += table_hits
        stats.memo_hits += memo_hits
        if evaluations:
            by_depth = stats.evaluations_by_depth
            by_depth[limit] = by_depth.get(limit, 0) + evaluations
        stats.elapsed += clock() - started
    return SearchResult(value, action, child, root_values, stats)


def _reduced_children(visit, children, d1, alpha, beta, maximizing, after, plies):
    """The child loop of an alpha-beta node under late-move reductions (see ``reduce``):
    (value, best action, 1 if it cut else 0). Children after the first ``after`` are
    searched at depth ``d1 + plies`` first, and again at ``d1`` when that value would
    improve the node's bound."""
    v, best = (-INF if maximizing else INF), None
    for index, (a, child) in enumerate(children):
        if index >= after:
            cv = visit(child, a, d1 + plies, alpha, beta)
            if cv > alpha if maximizing else cv < beta:
                cv = visit(child, a, d1, alpha, beta)
        else:
            cv = visit(child, a, d1, alpha, beta)
        if maximizing:
            if cv > v:
                v, best = cv, a
            if v >= beta:
                return v, best, 1
            if v > alpha:
                alpha = v
        else:
            if cv < v:
                v, best = cv, a
            if v <= alpha:
                return v, best, 1
            if v < beta:
                beta = v
    return v, best, 0


def _hint_first(children, hint):
    """``children`` with the child of action ``hint`` moved to the front (stable otherwise)."""
    children = list(children)
    for index, pair in enumerate(children):
        if pair[0] == hint:
            if index:
                children = [pair] + children[:index] + children[index + 1:]
            break
    return children


def _search_root(game, state, visit, prune, limit, low, high, tracer, table, order,
                 expand=None, root_cut=False):
    """The root: like an interior node, but it never cuts (unless ``root_cut``: see
    search) and it remembers the move.

    The root keeps the FIRST child whose value is strictly better than every earlier
    child's; later children are searched with the tightened window (alpha-beta only).
    Returns (value, action, child, root_values).
    """
    alpha, beta = low, high
    if tracer is not None:
        tracer.enter(state, None, 0, alpha, beta)
    v = game.terminal_value(state)
    if v is not None or limit <= 0:
        kind = TERMINAL
        if v is None:
            v = game.evaluate(state)
            kind = EVALUATED
        if tracer is not None:
            tracer.leave(state, None, 0, v, alpha, beta, kind)
        return v, None, None, []

    hint = table.best_action(game.key(state)) if table is not None else None
    if expand is not None:
        children = expand(state, hint, 0)
    else:
        children = game.successors(state)
        if order is not None:
            children = order(state, children, hint, 0)
        elif hint is not None:
            children = _hint_first(children, hint)
    maximizing = game.is_maxs_turn(state)
    root_values = []
    best = None
    v = -INF if maximizing else INF
    for a, child in children:
        cv = visit(child, a, 1, alpha, beta)
        root_values.append((a, cv))
        if best is None or (cv > v if maximizing else cv < v):
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
        flag = UPPER if v <= low else LOWER if v >= high else EXACT
        table[game.key(state)] = (limit, v, flag, best[0])
    if tracer is not None:
        tracer.leave(state, None, 0, v, alpha, beta, INTERIOR)
    return v, best[0], best[1], root_values


def minimax(game, state, **options):
    """Plain minimax: :func:`search` with ``prune=False``."""
    return search(game, state, prune=False, **options)


def alphabeta(game, state, **options):
    """Alpha-beta: :func:`search` with ``prune=True``."""
    return search(game, state, prune=True, **options)
