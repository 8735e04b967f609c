"""The named pieces :func:`engine.search.search` is built of, each usable (and tested) alone.

The exact node of :mod:`engine.search` and the table node of :mod:`engine.tablenode` share
them: what a node's value is called (``kind``), the transposition table and its entries,
the memo's entries, the loop over children valued in bulk, the hint-first move order and
the report of the children a cut skipped. None of them knows a game.
"""

from typing import Any, Callable, Hashable, Iterable, List, NamedTuple, Optional, Tuple

from .errors import SearchTimeout

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


class TableEntry(NamedTuple):
    """What the transposition table knows of one position.

    left    the levels that were searched below it (``inf``: a value that does not
            depend on the depth)
    value   its value, exact or a bound as ``flag`` says
    flag    EXACT, LOWER (the node failed high: ``value`` is a lower bound) or UPPER
            (it failed low: an upper bound)
    best    the best action found there (None if none), tried first next time
    """
    left: float
    value: float
    flag: int
    best: Any


# The table holds plain tuples in TableEntry's layout, read by index in the node: a
# tuple subclass is never untracked by CPython's garbage collector (plain tuples of
# numbers are), and the NamedTuple's Python-level __new__ and attribute reads made the
# N-Queens solver (367,287 nodes, as many entries) about 20% slower. Read an entry by
# name with ``TableEntry._make(entry)``.


def bound_flag(value: float, alpha: float, beta: float) -> int:
    """The flag of a node searched with window (alpha, beta) that returned ``value``:
    UPPER when it failed low (value <= alpha), LOWER when it failed high, else EXACT."""
    return UPPER if value <= alpha else LOWER if value >= beta else EXACT


def table_answer(entry: TableEntry, left: float, alpha: float,
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
    """Maps ``game.key(state)`` to a :class:`TableEntry`.

    A plain dict, so that its owner can clear or size it (a bounded subclass evicts).
    """

    def best_action(self, key: Hashable) -> Any:
        """The best action stored for ``key``, or None."""
        entry = self.get(key)
        return entry[3] if entry is not None else None


class MemoEntry(NamedTuple):
    """A memoised subtree (engine.search's ``memo``): its value, the trace text it
    produced (None without a tracer), and the nodes and evaluations it counted. The memo
    holds plain tuples in this layout, as the table does (``MemoEntry._make(entry)``
    reads one by name): Take-Stones' 28 0 0 makes hundreds of thousands of them."""
    value: float
    segment: Optional[str]
    nodes: int
    evaluations: int



def bulk_value(values: Iterable[float], prune: bool, maximizing: bool, alpha: float,
               beta: float) -> Tuple[float, int, int]:
    """The loop over children on the cut-off, on their precomputed ``values`` (a game's
    ``horizon_values``): (value, index of the best, children visited; negative when it
    cut). The same tests, in the same order, as the node's own loop."""
    if not prune:
        if not isinstance(values, list):
            values = list(values)   # a lazy iterator (see engine.game)
        v = max(values) if maximizing else min(values)
        return v, values.index(v), len(values)
    v = -INF if maximizing else INF
    index = visited = 0
    for cv in values:
        visited += 1
        if maximizing:
            if cv > v:
                v, index = cv, visited - 1
            if v >= beta:
                return v, index, -visited
            if v > alpha:
                alpha = v
        else:
            if cv < v:
                v, index = cv, visited - 1
            if v <= alpha:
                return v, index, -visited
            if v < beta:
                beta = v
    return v, index, visited


def horizon_piece(horizon: Any, prune: bool,
                  leaves: Optional[Callable]) -> Tuple[Any, Callable]:
    """The bulk-horizon piece of the exact node: ``bulk(state, d1, maximizing, alpha,
    beta)``, the value of a node whose children (at depth ``d1``) sit on the cut-off, from
    the game's ``horizon_values`` (the child loop's tests on precomputed values; a
    tracer's ``leaves`` is told how many were valued), and ``counts() -> (children
    valued, cuts)``. (None, counts) without ``horizon``."""
    valued = cuts = 0

    def bulk(state: Any, d1: int, maximizing: bool, alpha: float, beta: float) -> float:
        nonlocal valued, cuts
        v, _, visited = bulk_value(horizon(state)[1], prune, maximizing, alpha, beta)
        cuts += visited < 0
        visited = abs(visited)
        valued += visited
        if leaves is not None:
            leaves(state, d1, visited)
        return v

    return (bulk if horizon is not None else None), lambda: (valued, cuts)


def cut_piece(tracer: Any) -> Tuple[Callable, Callable[[], int]]:
    """What a node does when its child loop is cut: ``cut(state, depth, rest)`` counts
    it and, with a ``tracer`` (one that overrides ``pruned``), reports the children
    ``rest`` still holds. Returns ``(cut, count)``, ``count()`` the cuts so far."""
    cuts = 0

    def cut(state: Any, depth: int, rest: Iterable[Tuple[Any, Any]]) -> None:
        nonlocal cuts
        cuts += 1
        if tracer is not None:
            report_pruned(tracer, state, depth, rest)

    return cut, lambda: cuts


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


def ordered(successors: Callable, order: Optional[Callable], expand: Optional[Callable],
            state: Any, hint: Any, depth: int) -> Iterable[Tuple[Any, Any]]:
    """A node's (action, child) pairs in visit order: the agent's ``expand``, else
    ``game.successors`` put in order by ``order`` (with the table's ``hint``), else with
    the hint's child first."""
    if expand is not None:
        return expand(state, hint, depth)
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
        if hit is not None:         # a MemoEntry's layout: value, segment, nodes, evaluations
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
            memo[key] = (v, segment, seen - first,      # a MemoEntry (see TableEntry)
                         evaluations() + replayed_evaluations - before if bounded else 0)
        return v

    return visit, lambda: (hits, replayed_nodes, replayed_evaluations)


class Counts:
    """What one search's node functions counted (added to a Statistics at the end).

    A plain class, not a NamedTuple: it is made once a search, and a NamedTuple class
    costs the import of every program about 0.3 ms to create."""

    __slots__ = ("nodes", "evaluations", "terminals", "cutoffs", "table_hits", "memo_hits")

    def __init__(self, nodes: int, evaluations: int, terminals: int, cutoffs: int,
                 table_hits: int, memo_hits: int) -> None:
        self.nodes, self.evaluations, self.terminals = nodes, evaluations, terminals
        self.cutoffs, self.table_hits, self.memo_hits = cutoffs, table_hits, memo_hits
