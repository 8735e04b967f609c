"""The named pieces the one search is built of, each usable (and tested) alone.

:mod:`engine.node`'s node function and :mod:`engine.search`'s root are made of them: what a
node's value is called (``kind``), the transposition table's flags and answers, the memo,
THE child loop, the loop over children valued in bulk, the move order with the table's
hint first, the report of the children a cut skipped, the deadline, the counts. None of
them knows a game. (The entries of the table and the memo, by name: engine.entries.)
"""

from __future__ import annotations

from .errors import SearchTimeout

# Every program imports this module; typing (about 10 ms of start-up) is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Hashable, Iterable, List, Optional, Tuple

    # (action, child) pairs in visit order; visit(state, action, depth, alpha, beta)
    Children = Iterable[Tuple[Any, Any]]
    NodeFunction = Callable[[Any, Any, int, float, float], float]

INF = float("inf")

# Where a node's value came from (the ``kind`` argument of Tracer.leave).
INTERIOR = "interior"          # computed from the children it visited
TERMINAL = "terminal"          # game over: game.terminal_value
EVALUATED = "evaluated"        # depth cut-off: game.evaluate
TRANSPOSITION = "transposition"  # taken from the transposition table

# Transposition-table bound flags.
EXACT, LOWER, UPPER = 0, 1, 2


class Tracer:
    """No-op observer; subclasses override the events they need (engine.trace holds the
    recorders)."""

    def enter(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> None:
        """Called before ``state`` (reached by ``action``; None at the root) is examined."""

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        """Called just before the node returns ``value`` (post-order).

        ``alpha``/``beta`` are the node's final bounds (a leaf's: those it was called
        with). ``kind`` is engine.search.INTERIOR, TERMINAL, EVALUATED or TRANSPOSITION.
        """

    def pruned(self, state: Any, depth: int, actions: List[Any]) -> None:
        """Called when a cut at ``state`` skips the children reached by ``actions``
        (only when it skipped any; right before that node's ``leave``)."""

    # A tracer MAY define ``leaves(state, depth, count)``: the search then uses the
    # game's bulk ``horizon_values`` and, instead of enter/leave for each child of
    # ``state`` on the cut-off, reports once that ``count`` children were valued at
    # ``depth``. Not defined here, so that the search can tell who accepts it.


def overrides(tracer: Tracer, event: str) -> bool:
    """False when ``tracer``'s class keeps the no-op ``Tracer.<event>`` (nothing to tell)."""
    return getattr(type(tracer), event, None) is not getattr(Tracer, event)


# The table holds plain tuples in engine.entries.TableEntry's layout (left, value, flag,
# best), read by index in the node: a tuple subclass is never untracked by CPython's
# garbage collector (plain tuples of numbers are), and a NamedTuple's Python-level
# __new__ and attribute reads made the N-Queens solver (367,287 nodes, as many entries)
# about 20% slower. Read an entry by name with ``TableEntry._make(entry)``.


def bound_flag(value: float, alpha: float, beta: float) -> int:
    """The flag of a node searched with window (alpha, beta) that returned ``value``:
    UPPER when it failed low (value <= alpha), LOWER when it failed high, else EXACT."""
    return UPPER if value <= alpha else LOWER if value >= beta else EXACT


def table_answer(entry: Tuple[float, float, int, Any], left: float, alpha: float,
                 beta: float) -> Optional[float]:
    """The value ``entry`` gives a node with ``left`` levels to search and window
    (alpha, beta), or None when it does not settle the node: the entry must have been
    searched at least as deep, and be exact or a bound outside the window."""
    if entry[0] < left:         # .left
        return None
    value, flag = entry[1], entry[2]
    if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
        return value
    return None


class TranspositionTable(dict):
    """Maps ``game.key(state)`` to a TableEntry (engine.entries) as a plain tuple.

    A plain dict, so that its owner can clear or size it (a bounded subclass evicts).
    """

    def best_action(self, key: Hashable) -> Any:
        """The best action stored for ``key``, or None."""
        entry = self.get(key)
        return entry[3] if entry is not None else None


def bulk_value(values: Iterable[float], prune: bool, maximizing: bool, alpha: float,
               beta: float, tally: Counts) -> Tuple[float, int, int]:
    """The child loop over children on the cut-off, on their precomputed ``values`` (a
    game's ``horizon_values``): (value, index of the best, children visited). The same
    tests, in the same order, as :func:`child_loop`; ``tally`` counts the children as
    nodes and evaluations, and the cut if there is one."""
    if not prune:
        if not isinstance(values, list):
            values = list(values)   # a lazy iterator (see engine.game)
        v = max(values) if maximizing else min(values)
        index, visited = values.index(v), len(values)
    else:
        v = -INF if maximizing else INF
        index = visited = 0
        for cv in values:
            visited += 1
            if maximizing:
                if cv > v:
                    v, index = cv, visited - 1
                if v >= beta:
                    tally.cutoffs += 1
                    break
                if v > alpha:
                    alpha = v
            else:
                if cv < v:
                    v, index = cv, visited - 1
                if v <= alpha:
                    tally.cutoffs += 1
                    break
                if v < beta:
                    beta = v
    tally.nodes += visited
    tally.evaluations += visited
    return v, index, visited


def child_loop(visit: NodeFunction, prune: bool, tally: Counts, tracer: Any
               ) -> Callable[[Any, int, Children, float, float, bool],
                             Tuple[float, Any, float, float]]:
    """THE loop over an interior node's children, bound to one search: ``loop(state,
    depth, children, alpha, beta, maximizing) -> (value, best action, alpha, beta)``.

    Each child is valued by ``visit`` at depth + 1 with the node's current window, in
    the order ``children`` gives. The node keeps the first child strictly better than
    every earlier one. With ``prune``, a Max node returns as soon as ``v >= beta`` and a
    Min node as soon as ``v <= alpha``, the test made BEFORE alpha or beta is updated,
    and a cut node returns ``v`` (not the bound); the alpha and beta returned are the
    node's final bounds. A cut is counted in ``tally`` and, for a ``tracer`` that
    overrides ``pruned``, reported with the children it skipped.
    """
    reporter = tracer if tracer is not None and overrides(tracer, "pruned") else None

    def loop(state: Any, d: int, children: Children, alpha: float, beta: float,
             maximizing: bool) -> Tuple[float, Any, float, float]:
        if reporter is not None:   # the loop's own iterator: what is left of it at a cut
            children = iter(children)
        d1, best = d + 1, None
        if maximizing:
            v = -INF
            for a, child in children:
                cv = visit(child, a, d1, alpha, beta)
                if cv > v:
                    v, best = cv, a
                if prune:
                    if v >= beta:               # the cut test, BEFORE the update
                        cut(state, d, children)
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
                        cut(state, d, children)
                        break
                    if v < beta:
                        beta = v
        return v, best, alpha, beta

    def cut(state: Any, d: int, rest: Children) -> None:
        tally.cutoffs += 1
        if reporter is not None:
            report_pruned(reporter, state, d, rest)

    return loop


def report_pruned(tracer: Any, state: Any, depth: int, rest: Iterable[Tuple[Any, Any]]) -> None:
    """Tell ``tracer`` which children a cut skipped: those ``rest`` (the iterator over
    the children, stopped at the cut) has not yielded yet, if any."""
    skipped = [pair[0] for pair in rest]
    if skipped:
        tracer.pruned(state, depth, skipped)


def hint_first(children: Iterable[Tuple[Any, Any]], hint: Any) -> List[Tuple[Any, Any]]:
    """``children`` with the child of action ``hint`` moved to the front (stable otherwise)."""
    children = list(children)
    for index, pair in enumerate(children):
        if pair[0] == hint:
            if index:
                children = [pair] + children[:index] + children[index + 1:]
            break
    return children


def ordered(successors: Callable[[Any], Children], order: Optional[Callable[..., Children]],
            state: Any, hint: Any, depth: int) -> Children:
    """A node's (action, child) pairs in visit order: ``game.successors`` put in order
    by ``order`` (given the table's ``hint``), else with the hint's child first."""
    children = successors(state)
    if order is not None:
        return order(state, children, hint, depth)
    if hint is not None:
        return hint_first(children, hint)
    return children


def deadline_check(deadline: float, clock: Callable[[], float],
                   check_every: int) -> Callable[[int], float]:
    """The deadline piece: ``check(nodes)`` raises :class:`SearchTimeout` once
    ``clock() >= deadline``, else returns the node count at which to read the clock next.

    The node functions call it once their count reaches that threshold. A threshold, not
    ``nodes % check_every == 0``: bulk horizon values add many nodes at once and could jump
    over every multiple, leaving the deadline unchecked for long.
    """
    def check(nodes: int) -> float:
        if clock() >= deadline:
            raise SearchTimeout("search deadline reached")
        return nodes + check_every
    return check


def memoised(node: Callable, evaluations: Callable[[], int], memo: dict,
             memo_key: Optional[Callable], limit: float,
             tracer: Any) -> Tuple[Callable, Callable]:
    """The memo piece: ``node`` (a node function) wrapped so that a whole subtree is
    searched once per (key, levels left, alpha, beta) and replayed on later visits.

    Every node below the root goes through the wrapper, so it counts the nodes of each
    subtree itself; ``evaluations()`` gives the evaluations ``node`` has made so far
    (read only under a cut-off: without one there are none). A replay adds the counts
    of the subtree it stands for. With a tracer, the subtree's trace is recorded
    (``mark``/``capture``) and replayed (``replay``), so the text is identical to a full
    search's. Returns ``(visit, counts)``: the wrapped node function and ``counts() ->
    (memo hits, nodes replayed, evaluations replayed)``. Not for games valued in bulk
    (``horizon_values``): those children never pass through the wrapper.
    """
    bounded = limit != INF   # without a cut-off the levels left are 0 (an int: no float
    hits = seen = replayed_nodes = replayed_evaluations = 0   # made and hashed at every node)
    mark: Any = None
    capture: Any = None
    replay: Any = None
    if tracer is not None:
        mark, capture, replay = tracer.mark, tracer.capture, tracer.replay

    def visit(state: Any, action: Any, d: int, alpha: float, beta: float) -> float:
        nonlocal hits, seen, replayed_nodes, replayed_evaluations
        key = (state if memo_key is None else memo_key(state),
               limit - d if bounded else 0, alpha, beta)
        hit = memo.get(key)
        if hit is not None:     # engine.entries.MemoEntry: value, segment, nodes, evaluations
            hits += 1
            seen += hit[2]
            replayed_nodes += hit[2]
            replayed_evaluations += hit[3]
            if replay is not None:
                replay(hit[1], state)
            return hit[0]
        first = seen
        seen += 1
        before = evaluations() + replayed_evaluations if bounded else 0
        start = mark(state) if mark is not None else None
        v = node(state, action, d, alpha, beta)
        segment = capture(start) if mark is not None else None
        if mark is None or segment is not None:
            memo[key] = (v, segment, seen - first,      # a MemoEntry
                         evaluations() + replayed_evaluations - before if bounded else 0)
        return v

    return visit, lambda: (hits, replayed_nodes, replayed_evaluations)


class Counts:
    """What one search's pieces count: the tally they add to as they go, handed to a
    Statistics at the end. A plain class: its fields change at every node."""

    __slots__ = ("nodes", "evaluations", "terminals", "cutoffs", "table_hits", "memo_hits")

    def __init__(self, nodes: int, evaluations: int, terminals: int, cutoffs: int,
                 table_hits: int, memo_hits: int) -> None:
        self.nodes, self.evaluations, self.terminals = nodes, evaluations, terminals
        self.cutoffs, self.table_hits, self.memo_hits = cutoffs, table_hits, memo_hits
