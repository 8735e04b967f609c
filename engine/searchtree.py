"""The tree a search actually visited, recorded through the tracer hook (issue 9).

:class:`SearchTreeRecorder` is a :class:`engine.trace.Tracer`: attached to
``engine.search.search`` it rebuilds the visited tree node by node (pre-order, with each
node's final value, alpha and beta, and the actions a cut skipped). It never searches
anything itself: the tree tool and the pictures of real games both read what the ONE
search did.

Capping (``max_nodes``): pictures of real games must stay readable, so the recorder keeps
whole levels only. Once more than ``max_nodes`` nodes are recorded it drops its deepest
level and records nothing that deep any more; at the end it holds every visited node of
depth <= ``drawn_depth`` (the largest depth whose levels fit, the root always), and each
kept node counts in ``hidden`` the visited descendants that were not kept.
"""

from typing import Any, List, Optional

from .search import INTERIOR
from .trace import Tracer


class SearchNode:
    """One visited node.

    state, action   the node's state and the action that reached it (None at the root)
    depth, is_max   its depth (root 0) and whether Max is to move there
    value           the value it returned; alpha, beta its final bounds (engine.trace)
    kind            engine.search.INTERIOR / TERMINAL / EVALUATED / TRANSPOSITION
    children        the recorded visited children, in visit order
    pruned          actions of the children a cut skipped, in visit order
    hidden          visited descendants not recorded because of the cap
    order           its position in visit (pre-)order among the recorded nodes
    """

    __slots__ = ("state", "action", "depth", "is_max", "value", "alpha", "beta", "kind",
                 "children", "pruned", "hidden", "order", "parent")

    def __init__(self, state: Any, action: Any, depth: int, is_max: bool,
                 parent: Optional["SearchNode"], order: int) -> None:
        self.state = state
        self.action = action
        self.depth = depth
        self.is_max = is_max
        self.parent = parent
        self.order = order
        self.value: Optional[float] = None
        self.alpha: Optional[float] = None
        self.beta: Optional[float] = None
        self.kind: Optional[str] = None
        self.children: List[SearchNode] = []
        self.pruned: List[Any] = []
        self.hidden = 0

    @property
    def is_leaf(self) -> bool:
        """True when the node's value did not come from children (terminal, cut-off,
        or a transposition-table answer)."""
        return self.kind is not None and self.kind != INTERIOR

    def best_child(self) -> Optional["SearchNode"]:
        """The child that set this node's value: the first whose value equals it (the
        search keeps the FIRST strictly better child), or None."""
        for child in self.children:
            if child.value == self.value:
                return child
        return None


class SearchTreeRecorder(Tracer):
    """Records the visited tree of one search (see the module docstring)."""

    def __init__(self, game: Any, max_nodes: Optional[int] = None) -> None:
        self.is_max = game.is_maxs_turn
        self.max_nodes = max_nodes
        self.root: Optional[SearchNode] = None
        self.levels: List[List[SearchNode]] = []  # levels[d]: the recorded nodes of depth d
        self.recorded = 0
        self.visited = 0            # every node the search entered, recorded or not
        self.drawn_depth: Optional[int] = None  # None: no level dropped
        self.open: List[SearchNode] = []  # open[d]: the node of depth d on the current path

    @property
    def capped(self) -> bool:
        return self.drawn_depth is not None

    def enter(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> None:
        self.visited += 1
        limit = self.drawn_depth
        if limit is not None and depth > limit:
            self.open[limit].hidden += 1
            return
        parent = self.open[depth - 1] if depth else None
        node = SearchNode(state, action, depth, self.is_max(state), parent, self.visited - 1)
        del self.open[depth:]
        self.open.append(node)
        if parent is None:
            self.root = node
        else:
            parent.children.append(node)
        if len(self.levels) <= depth:
            self.levels.append([])
        self.levels[depth].append(node)
        self.recorded += 1
        if self.max_nodes is not None and self.recorded > self.max_nodes and depth:
            self._drop_deepest_level(self.max_nodes)

    def _drop_deepest_level(self, max_nodes: int) -> None:
        """Forget the deepest recorded level (keeping the root); count it as hidden."""
        while self.recorded > max_nodes and len(self.levels) > 1:
            level = self.levels.pop()
            self.recorded -= len(level)
            for node in level:
                parent = node.parent
                assert parent is not None  # only the root (level 0, never dropped) has none
                parent.hidden += 1 + node.hidden
            for node in self.levels[-1]:
                node.children = []
                node.pruned = []
            self.drawn_depth = len(self.levels) - 1

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        limit = self.drawn_depth
        if limit is not None and depth > limit:
            return
        node = self.open[depth]
        node.value, node.alpha, node.beta, node.kind = value, alpha, beta, kind

    def pruned(self, state: Any, depth: int, actions: List[Any]) -> None:
        limit = self.drawn_depth
        if limit is not None and depth >= limit:
            return
        self.open[depth].pruned.extend(actions)

    def nodes(self) -> List[SearchNode]:
        """Every recorded node in visit (pre-)order."""
        return sorted((node for level in self.levels for node in level),
                      key=lambda node: node.order)

    def chosen_path(self, root_action: Any) -> List[SearchNode]:
        """The recorded nodes of the chosen line: the root's chosen child (``root_action``
        from SearchResult.action), then each node's best child (:meth:`best_child`)."""
        path: List[SearchNode] = []
        node: Optional[SearchNode] = self.root
        if node is None or root_action is None:
            return path
        node = next((child for child in node.children if child.action == root_action), None)
        while node is not None:
            path.append(node)
            node = node.best_child() if node.children else None
        return path
