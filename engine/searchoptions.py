"""What :func:`engine.search.search` is asked to do: one typed value, of one of three kinds.

Every search takes ``prune``, ``depth``, ``window`` and ``order``. The rest depends on who
searches, and each kind holds only what goes together, so a combination the search
cannot honour cannot be written (the constructor refuses it, and mypy before it):

* :class:`ExactSearch`      the graders' modes: every node the spec visits, in its order;
                            a tracer may watch, a memo may replay whole subtrees.
* :class:`TableSearch`      a player, a solver or a judge with a budget: a transposition
                            table, a time limit, or both; a tracer may watch. No memo (it
                            replays subtrees the table would answer differently).
* :class:`SelectiveSearch`  a game-playing agent: its :class:`engine.selective.Selective`
                            hooks search less than everything, with a table and a time
                            limit. Never traced: the trace would not be a spec's visit order.

A kind that lacks a field reads it as None (``SelectiveSearch().tracer is None``), so the
search reads every option the same way. ``options.but(depth=5)`` is a copy with changes.
"""

from __future__ import annotations

import time

# Programs import this module on every run (engine.search does); typing costs about 10 ms
# of start-up and is read by mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, Optional, Tuple, TypeVar

    from .searchparts import Tracer, TranspositionTable
    from .selective import Selective

    Kind = TypeVar("Kind", bound="SearchOptions")
    # order(state, children, hint, depth) -> children in visit order (see SearchOptions);
    # the arguments are loose: a game's order takes its own kinds of states and lists.
    Order = Callable[..., Iterable[Tuple[Any, Any]]]

INF = float("inf")


class TimeLimit:
    """When a search must give up: :class:`engine.errors.SearchTimeout` is raised once
    ``clock() >= deadline``, the clock being read each time ``check_every`` more nodes
    have been counted. The clock is injectable, so tests never depend on real time."""

    __slots__ = ("deadline", "clock", "check_every")

    def __init__(self, deadline: float, clock: Callable[[], float] = time.perf_counter,
                 check_every: int = 256) -> None:
        self.deadline, self.clock, self.check_every = deadline, clock, check_every

    def __repr__(self) -> str:
        return f"TimeLimit({self.deadline!r}, {self.clock!r}, {self.check_every!r})"


class SearchOptions:
    """The options of every search; a search is given one of the three kinds below.

    prune   alpha-beta (True) or minimax (False)
    depth   the cut-off: the root is depth 0 and a node at depth == ``depth`` is a leaf
            valued by ``game.evaluate`` (None: search to the end of the game)
    window  the root's (alpha, beta), e.g. (-1000, 1000). Inside it the values are those
            of the full window; a narrowed window gives sound bounds
    order   ``order(state, children, hint, depth) -> children``: move ordering, with
            ``hint`` the table's best action for the state (None without a table)

    The fields a kind does not have read None here.
    """

    __slots__ = ("prune", "depth", "window", "order")
    tracer: Optional[Tracer] = None
    memo: Optional[Dict[Any, Any]] = None
    memo_key: Optional[Callable[[Any], Any]] = None
    table: Optional[TranspositionTable] = None
    time_limit: Optional[TimeLimit] = None
    hooks: Optional[Selective] = None

    def __init__(self, *, prune: bool = True, depth: Optional[int] = None,
                 window: Tuple[float, float] = (-INF, INF),
                 order: Optional[Order] = None) -> None:
        self.prune, self.depth, self.window, self.order = prune, depth, window, order

    @classmethod
    def fields(cls) -> Tuple[str, ...]:
        """The names this kind takes, in its constructor's order."""
        return tuple(name for kind in reversed(cls.__mro__)
                     for name in getattr(kind, "__slots__", ()))

    def but(self: Kind, **changes: Any) -> Kind:
        """A copy of these options with ``changes`` (a field this kind lacks: TypeError)."""
        values = {name: getattr(self, name) for name in self.fields()}
        values.update(changes)
        return type(self)(**values)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self.fields())

    __hash__ = None     # type: ignore[assignment]  # holds tables and memos: not a key

    def __repr__(self) -> str:
        given = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields())
        return f"{type(self).__name__}({given})"


class ExactSearch(SearchOptions):
    """The graders' search: every node its spec visits, in the spec's order.

    tracer    a :class:`engine.searchparts.Tracer`, told about every visited node
    memo      a dict memoising whole subtrees by (key, depth left, alpha, beta), the key
              being ``memo_key(state)`` (default: the state). With a tracer, the tracer
              must be replayable (``mark``/``capture``/``replay``, engine.trace): a
              subtree's trace is recorded once and replayed on every later visit, so the
              output is byte-identical to a full search. Only for games whose subtrees
              depend on the key alone
    memo_key  e.g. a game's ``subtree_key``: states sharing it have subtrees of the same
              shape and values (``replay(segment, state)`` adapts the text to ``state``)
    """

    __slots__ = ("tracer", "memo", "memo_key")

    def __init__(self, *, prune: bool = True, depth: Optional[int] = None,
                 window: Tuple[float, float] = (-INF, INF), order: Optional[Order] = None,
                 tracer: Optional[Tracer] = None, memo: Optional[Dict[Any, Any]] = None,
                 memo_key: Optional[Callable[[Any], Any]] = None) -> None:
        super().__init__(prune=prune, depth=depth, window=window, order=order)
        self.tracer, self.memo, self.memo_key = tracer, memo, memo_key


class TableSearch(SearchOptions):
    """A search with a transposition table, a time limit, or both.

    tracer      as for :class:`ExactSearch` (a node the table answers is reported with
                kind TRANSPOSITION)
    table       a :class:`engine.searchparts.TranspositionTable`: values with bound
                flags, and best moves that are tried first
    time_limit  a :class:`TimeLimit`
    """

    __slots__ = ("tracer", "table", "time_limit")

    def __init__(self, *, prune: bool = True, depth: Optional[int] = None,
                 window: Tuple[float, float] = (-INF, INF), order: Optional[Order] = None,
                 tracer: Optional[Tracer] = None, table: Optional[TranspositionTable] = None,
                 time_limit: Optional[TimeLimit] = None) -> None:
        super().__init__(prune=prune, depth=depth, window=window, order=order)
        self.tracer, self.table, self.time_limit = tracer, table, time_limit


class SelectiveSearch(SearchOptions):
    """A game-playing agent's search, which searches less than everything.

    hooks       its :class:`engine.selective.Selective`: its own children, forward
                pruning, reductions, cuts by bounds (with ``prune=False`` only ``expand``)
    table       as for :class:`TableSearch`
    time_limit  as for :class:`TableSearch`
    """

    __slots__ = ("hooks", "table", "time_limit")

    def __init__(self, *, hooks: Selective, prune: bool = True, depth: Optional[int] = None,
                 window: Tuple[float, float] = (-INF, INF), order: Optional[Order] = None,
                 table: Optional[TranspositionTable] = None,
                 time_limit: Optional[TimeLimit] = None) -> None:
        super().__init__(prune=prune, depth=depth, window=window, order=order)
        self.hooks, self.table, self.time_limit = hooks, table, time_limit
