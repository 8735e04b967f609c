"""The Game protocol: the interface the assignments give their games.

A game object holds RULES ONLY. States are immutable and hashable values (strings,
ints, tuples) so that they can double as transposition-table and memo keys.

The six methods of the assignments' interface:

    actions(state)       legal actions in the order the spec visits them
    result(state, a)     the state after action ``a`` (a new value; ``state`` unchanged)
    is_terminal(state)   True when the game is over
    utility(state)       value of a terminal state from Max's point of view
    is_maxs_turn(state)  True when Max is to move
    evaluate(state)      heuristic value from Max's point of view, used at a depth cut-off

The search never calls those six directly: it calls the three *hot-path* methods below,
whose defaults are built from them. A game overrides a hot-path method when it can do
the same work with fewer calls per node (e.g. one win test instead of two):

    successors(state)      (action, child) pairs in visit order: a list, or a generator
                           (alpha-beta then builds only the children it visits)
    terminal_value(state)  None if the state is not terminal, else its value
    horizon_values(state)  optional bulk evaluation of all children at the cut-off

and ``key(state)``, the transposition-table key (a canonical form under symmetry).
"""

from __future__ import annotations

# Every program imports this module; typing (about 10 ms of start-up) is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Optional, Tuple


class Game:
    """Base class stating the contract; concrete games override what they need."""

    # --- the assignments' interface -------------------------------------------------
    def actions(self, state: Any) -> Iterable[Any]:
        """Legal actions in visit order (this order is also the tie-break order)."""
        raise NotImplementedError

    def result(self, state: Any, action: Any) -> Any:
        """The state reached by playing ``action`` in ``state``."""
        raise NotImplementedError

    def is_terminal(self, state: Any) -> bool:
        """True when the game is over in ``state``."""
        raise NotImplementedError

    def utility(self, state: Any) -> float:
        """Value of the terminal ``state`` from Max's point of view."""
        raise NotImplementedError

    def is_maxs_turn(self, state: Any) -> bool:
        """True when Max is the side to move in ``state``."""
        raise NotImplementedError

    def is_mins_turn(self, state: Any) -> bool:
        """True when Min is the side to move in ``state``."""
        return not self.is_maxs_turn(state)

    def evaluate(self, state: Any) -> float:
        """Heuristic value of a non-terminal ``state`` (Max's view) for depth cut-offs."""
        raise NotImplementedError(f"{type(self).__name__} has no evaluation function")

    # --- hot path used by engine.search ---------------------------------------------
    def successors(self, state: Any) -> Iterable[Tuple[Any, Any]]:
        """(action, child) pairs in visit order. Called only on non-terminal states."""
        result = self.result
        return [(action, result(state, action)) for action in self.actions(state)]

    def terminal_value(self, state: Any) -> Optional[float]:
        """``utility(state)`` if ``state`` is terminal, else None.

        This is the value the search gives a terminal node; a game variant whose
        assignment values terminal nodes differently (e.g. by the evaluation function
        under a ply limit) overrides this method rather than the search.
        """
        if self.is_terminal(state):
            return self.utility(state)
        return None

    # ``horizon_values(state)`` may be defined by a game: it returns the list of the
    # values the search would give every child of ``state`` when those children sit on
    # the depth cut-off (terminal_value if terminal, else evaluate), in visit order,
    # computed in bulk. The search then skips building the children. ``values`` may
    # also be a lazy iterator (alpha-beta stops pulling values at a cut; minimax turns
    # it into a list), in which case ``actions`` need only support ``actions[index]``.
    # Not defined here so that the search can tell whether a game offers it.

    def key(self, state: Any) -> Any:
        """Transposition-table key of ``state``; override to merge symmetric states."""
        return state
