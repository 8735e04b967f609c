"""Selective search: the ways a game-playing agent searches less than everything.

A :class:`Selective` is handed to :func:`engine.search.search` by players only, as the
``hooks`` of a :class:`engine.search.SelectiveSearch`: the grader modes visit every node
their spec visits, and none of this applies to them. Each hook is a guess or a shortcut
the full search would not take, so a selective search is never traced (a
SelectiveSearch has no tracer). With ``prune=False`` only ``expand`` applies.

* ``expand(state, hint, depth) -> children``: the node's (action, child) pairs, replacing
  ``game.successors`` and ``order`` at interior nodes and the root, for players that choose
  which children to build at all (ordering and forward pruning before any child state is
  made; a generator builds only the children the search reaches).
* ``reduce = (after, plies)``: late-move reductions. Below the root, every child after the
  first ``after`` is first searched ``plies`` shallower, and again at full depth only when
  that value would raise alpha (Max) or lower beta (Min): a move the ordering put late
  rarely matters, and when it does the re-search finds out. Children with ``plies`` or
  fewer levels left are never reduced.
* ``probcut = (min_left, plies, margin)``: ProbCut, for games whose values change little
  from one depth to one a few plies deeper. Below the root, a node with at least
  ``min_left`` levels left is first searched ``plies`` shallower with a window one unit
  wide at the side to move's far edge moved ``margin`` beyond it (beta + margin for Max,
  alpha - margin for Min). If that shallow search reaches it, the node returns its edge
  (beta or alpha) at once: the full search would most probably cut there too. A guess,
  not a proof (unlike ``bounds``). A deeper table entry of the node that the shallow
  search replaced is put back.
* ``bounds(state) -> (low, high)``: every value the search could give ``state`` lies in
  [low, high]. An interior node whose ``high`` is at or below alpha, or whose ``low`` is at
  or above beta, returns that bound at once without expanding (a solve far from its
  window ends early). A proof: the answer does not change.
* ``root_cut``: the root stops at the first child whose value reaches the window's far
  edge (``>= beta`` for Max, ``<= alpha`` for Min) and returns that child, its value a
  bound. A null-window test such as "is there a winning move?" needs one such child.

The search's node (engine.node) binds :meth:`Selective.cutter` (bounds, then ProbCut) and
:meth:`Selective.reducer` to its node function once; it calls the cutter at interior
nodes with at least ``cut_from`` levels left, after the table probe, and the reducer for
the child loop of nodes where reductions apply.
"""

from typing import Any, Callable, Iterable, NamedTuple, Optional, Tuple

INF = float("inf")


class Selective(NamedTuple):
    """The hooks of one selective search (see the module docstring); None: not used."""
    expand: Optional[Callable] = None
    reduce: Optional[Tuple[int, int]] = None
    probcut: Optional[Tuple[int, int, int]] = None
    bounds: Optional[Callable] = None
    root_cut: bool = False

    # --- what engine.search reads ------------------------------------------------------

    @property
    def reduce_plies(self) -> int:
        """Plies a late child is reduced by (0: no reductions)."""
        return self.reduce[1] if self.reduce is not None else 0

    @property
    def cut_from(self) -> float:
        """Levels left from which :meth:`cut` may act (none: an infinite level)."""
        if self.bounds is not None:
            return 1
        if self.probcut is not None and self.probcut[1]:
            return self.probcut[0]
        return INF

    def pieces(self, visit: Callable, limit: float, table: Optional[dict],
               prune: bool) -> Tuple[Any, ...]:
        """What engine.node's node needs, bound to one search: (expand, cut,
        cut_from, reduce, reduce_plies), the cutter and reducer None (and their levels 0)
        when not used. Without pruning only ``expand`` applies."""
        if not prune:
            return self.expand, None, 0, None, 0
        reduce = self.reducer(visit) if self.reduce is not None else None
        return (self.expand, self.cutter(visit, limit, table), self.cut_from, reduce,
                self.reduce_plies)

    def cutter(self, visit: Callable, limit: float,
               table: Optional[dict]) -> Optional[Callable]:
        """The node hook of one search (None when neither bounds nor ProbCut is set).

        Bound once to the search's node function ``visit``, its cut-off ``limit`` and its
        ``table``, it is called at an interior node as ``cut(state, action, d, alpha,
        beta, maximizing, key, entry)``, the node's own facts (``key``/``entry``: its
        table key and the entry the probe found, None without one), and returns the
        value the node returns at once, or None to search it: by its bounds, then by
        ProbCut (see the module docstring).
        """
        if self.bounds is None and (self.probcut is None or not self.probcut[1]):
            return None
        bounds = self.bounds
        min_left, plies, margin = self.probcut if self.probcut is not None else (INF, 0, 0)

        def cut(state: Any, action: Any, d: int, alpha: float, beta: float, maximizing: bool,
                key: Any, entry: Any) -> Optional[float]:
            if bounds is not None:
                low, high = bounds(state)
                if high <= alpha:
                    return high
                if low >= beta:
                    return low
            left = limit - d
            if not plies or left < min_left:
                return None
            if maximizing:
                hit = beta < INF
                if hit:
                    edge = beta + margin
                    hit = visit(state, action, d + plies, edge - 1, edge) >= edge
            else:
                hit = alpha > -INF
                if hit:
                    edge = alpha - margin
                    hit = visit(state, action, d + plies, edge, edge + 1) <= edge
            if table is not None and entry is not None and entry[0] > left - plies:
                table[key] = entry      # the deeper search's entry and move stay
            if hit:
                return beta if maximizing else alpha
            return None
        return cut

    def reducer(self, visit: Callable) -> Callable:
        """The child loop of an alpha-beta node under late-move reductions, bound to the
        search's node function: ``reduce(children, d1, alpha, beta, maximizing)`` ->
        (value, best action, 1 if it cut else 0). Children after the first ``after``
        are searched at depth ``d1 + plies`` first, and again at ``d1`` when that value
        would improve the node's bound. Only for a Selective with ``reduce``."""
        assert self.reduce is not None
        after, plies = self.reduce

        def reduce(children: Iterable[Tuple[Any, Any]], d1: int, alpha: float, beta: float,
                   maximizing: bool) -> Tuple[float, Any, int]:
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
        return reduce
