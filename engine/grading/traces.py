"""Search traces as trees: where a submission's listing first leaves ours, and how.

A trace lists the nodes a search visited, one entry per node, in post-order (a node
after its whole subtree; the tic-tac-toe and Morris visited files, the Take-Stones
trace). An entry's depth below the root can be read from the entry itself (marks on the
board, stones left), so the tree can be rebuilt from the listing alone: in post-order a
node's children are the entries one level deeper listed since its previous sibling.

:func:`build` rebuilds the tree from ``(depth, key, shown)`` entries and labels every
node with the path of moves from the root (``move(parent_key, key)``), which is what
identifies a node even when the same position occurs many times. :func:`diagnose_trace`
compares the expected and the submitted listing and names the first node where they
part: a different value at the same node, a node the expected search prunes (an extra
child after a cut), a node it visits and the submission skips, or the same nodes
listed parents-first ("pre-order").
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

# A node's moves from the root (whatever ``move`` names them).
Path = Tuple[Any, ...]


class Node:
    """One listed node: its listing ``index``, ``depth`` (root = 0), ``key`` (what the
    listing says of it, compared byte for byte), ``shown`` (how to show the part that
    is not its identity, e.g. ``value 1``), ``path`` (moves from the root)."""

    __slots__ = ("index", "depth", "key", "shown", "parent", "children", "path")

    def __init__(self, index: int, depth: int, key: Any, shown: str) -> None:
        self.index, self.depth, self.key, self.shown = index, depth, key, shown
        self.parent: Optional[Node] = None
        self.children: List[Node] = []
        self.path: Path = ()


class Entry(NamedTuple):
    """One parsed entry of a listing (see :class:`Node`)."""
    depth: int
    key: object
    shown: str



def build(entries: Sequence[Entry], move: Callable[[Any, Any], Any], root_key: Any,
          order: str = "post") -> Optional[List[Node]]:
    """The nodes of ``entries`` linked into a tree, in listing order, or None when the
    depths cannot come from a listing in ``order`` ("post" or "pre").

    ``move(parent_key, key)`` names the move from a parent to a child (``root_key`` is
    the root's key; the root itself is not listed).
    """
    nodes = [Node(i, e.depth, e.key, e.shown) for i, e in enumerate(entries)]
    if any(node.depth < 1 for node in nodes):
        return None
    if order == "post":
        stack: List[Node] = []
        for node in nodes:
            children: List[Node] = []
            while stack and stack[-1].depth == node.depth + 1:
                children.append(stack.pop())
            if stack and stack[-1].depth > node.depth + 1:
                return None
            children.reverse()
            node.children = children
            for child in children:
                child.parent = node
            stack.append(node)
        if any(node.depth != 1 for node in stack):
            return None
    else:
        open_: List[Node] = []
        for node in nodes:
            while open_ and open_[-1].depth >= node.depth:
                open_.pop()
            if node.depth != (open_[-1].depth + 1 if open_ else 1):
                return None
            if open_:
                node.parent = open_[-1]
                open_[-1].children.append(node)
            open_.append(node)
    # Paths top-down: parents before children whatever the listing order.
    for node in sorted(nodes, key=lambda n: n.depth):
        parent_key = node.parent.key if node.parent is not None else root_key
        parent_path = node.parent.path if node.parent is not None else ()
        label = move(parent_key, node.key)
        if label is None:
            return None
        node.path = parent_path + (label,)
    return nodes


def post_order(nodes: Sequence[Node]) -> List[Node]:
    """The nodes of a tree built by :func:`build`, re-listed in post-order."""
    roots = [node for node in nodes if node.parent is None]
    listed: List[Node] = []

    def walk(node: Node) -> None:
        for child in node.children:
            walk(child)
        listed.append(node)

    for node in roots:
        walk(node)
    return listed


def pre_order(nodes: Sequence[Node]) -> List[Node]:
    """The nodes of a tree built by :func:`build`, re-listed parents first."""
    roots = [node for node in nodes if node.parent is None]
    listed: List[Node] = []

    def walk(node: Node) -> None:
        listed.append(node)
        for child in node.children:
            walk(child)

    for node in roots:
        walk(node)
    return listed


class TraceDiagnosis(NamedTuple):
    reason: str
    detail: str


def diagnose_trace(expected: Sequence[Entry], actual: Sequence[Entry],
                   move: Callable[[Any, Any], Any], root_key: Any,
                   show_path: Callable[[Path], str],
                   line_of: Callable[[int], int] = lambda i: i + 1,
                   what: str = "listing") -> Optional[TraceDiagnosis]:
    """Why the ``actual`` entries differ from the ``expected`` ones, or None when the
    actual listing cannot be read as a tree at all (the caller falls back to lines).

    ``expected`` / ``actual``: lists of :class:`Entry` in listing order; ``show_path``
    formats a path of moves; ``line_of(i)`` is the line number of entry ``i``.
    """
    want = build(expected, move, root_key)
    if want is None:
        raise ValueError("the expected listing is not a post-order tree")
    as_post = build(actual, move, root_key, "post")
    # Parents first shows as a shallower entry where a deeper one is expected; only
    # then is the (costly, for big listings) pre-order reading tried.
    first = next((i for i, (w, g) in enumerate(zip(expected, actual)) if w != g),
                 min(len(expected), len(actual)))
    shallower = (first < len(expected) and first < len(actual)
                 and actual[first].depth < expected[first].depth)
    as_pre = build(actual, move, root_key, "pre") if as_post is None or shallower else None
    if as_pre is not None and [(n.path, n.key) for n in as_pre] == \
            [(n.path, n.key) for n in pre_order(want)] and \
            [(n.path, n.key) for n in as_pre] != [(n.path, n.key) for n in want]:
        return TraceDiagnosis(
            "listed in pre-order",
            f"{what}: the same nodes and values, but each node is listed before its "
            "children (pre-order); the grader expects post-order: a node's line comes "
            "after the lines of its whole subtree, the root's children last among their "
            "descendants")
    pre_note = ""
    got = as_post
    if as_pre is not None and (as_post is None or _matches(want, as_pre) > _matches(want, as_post)):
        got = post_order(as_pre)
        pre_note = "listed in pre-order (the grader expects post-order), and "
    if got is None:
        return _unreadable_divergence(want, actual, show_path, line_of, what)
    reason, detail = _first_divergence(want, got, show_path, line_of, what)
    return TraceDiagnosis(pre_note + reason, detail)


def _unreadable_divergence(want: Sequence[Node], actual: Sequence[Entry],
                           show_path: Callable[[Path], str], line_of: Callable[[int], int],
                           what: str) -> Optional[TraceDiagnosis]:
    """The actual listing is no tree (its depths do not nest): name the expected node
    at the first entry that differs, or None when they do not differ entry by entry."""
    for index, w in enumerate(want):
        if index >= len(actual) or actual[index].key != w.key:
            got = actual[index].key if index < len(actual) else "(end of listing)"
            return TraceDiagnosis(
                f"first difference at node reached by {show_path(w.path)}",
                f"{what} line {line_of(index)}: expected the node reached by "
                f"{show_path(w.path)} ({w.key!r}), got {got!r}; the listing's depths do "
                "not nest as a search tree from here on (nodes missing or out of place)")
    return None


def _matches(want: Sequence[Node], got: Sequence[Node]) -> int:
    """How many (path, key) pairs of ``got`` also occur in ``want``."""
    known = {(n.path, n.key) for n in want}
    return sum(1 for n in got if (n.path, n.key) in known)


def _first_divergence(want: Sequence[Node], got: Sequence[Node],
                      show_path: Callable[[Path], str], line_of: Callable[[int], int],
                      what: str) -> Tuple[str, str]:
    """(reason, detail) naming the first listed node where ``got`` leaves ``want``, or
    how their lengths differ when one listing is the start of the other."""
    wanted = {node.path: node for node in want}
    found = {node.path: node for node in got}
    for index, (w, g) in enumerate(zip(want, got)):
        if w.path == g.path and w.key == g.key:
            continue
        at = f"{what} line {line_of(index)}"
        if w.path == g.path:
            return _same_node_differs(w, g, at, show_path)
        if g.path not in wanted:
            return _node_not_expected(want, wanted, w, g, at, show_path)
        if w.path not in found:
            return (f"skips a node the expected search visits: {show_path(w.path)}",
                    f"{at}: expected the node reached by {show_path(w.path)} with "
                    f"{w.shown}; the listing never lists it (a cut too early, or a move "
                    f"missing). It has the node reached by {show_path(g.path)} here.")
        return (f"nodes in another order: expected {show_path(w.path)}, got "
                f"{show_path(g.path)}",
                f"{at}: expected the node reached by {show_path(w.path)}, got the node "
                f"reached by {show_path(g.path)} (children visited in another order?)")
    return _length_divergence(want, got, show_path, line_of, what)


def _same_node_differs(w: Node, g: Node, at: str,
                       show_path: Callable[[Path], str]) -> Tuple[str, str]:
    """The expected node ``w`` is listed at its place as ``g`` with other text."""
    if w.shown == g.shown:
        return (f"first difference at node reached by {show_path(w.path)}",
                f"{at}: the node reached by {show_path(w.path)} should be listed "
                f"as {w.key!r}, the listing has {g.key!r}")
    got_shown = g.shown
    if w.shown.startswith("value ") and got_shown.startswith("value "):
        got_shown = got_shown[len("value "):]      # "expected value 1, got 0"
    return (f"first difference at node reached by {show_path(w.path)}: "
            f"expected {w.shown}, got {got_shown}",
            f"{at}: the node reached by {show_path(w.path)} should have "
            f"{w.shown}, the listing has {g.shown}" + _lineage(w, show_path))


def _node_not_expected(want: Sequence[Node], wanted: Dict[Path, Node], w: Node, g: Node,
                       at: str, show_path: Callable[[Path], str]) -> Tuple[str, str]:
    """The listed node ``g`` (where ``w`` was expected) is none the expected search
    lists: a child past a cut, or a node below what it treats as a leaf."""
    # The deepest ancestor of the listed node that the expected search lists
    # too (or the root): the listing went on where the expected search stopped.
    depth = len(g.path) - 1
    while depth and g.path[:depth] not in wanted:
        depth -= 1
    ancestor = g.path[:depth]
    children = ([n for n in want if n.depth == 1] if not depth
                else wanted[ancestor].children)
    where = ("the root" if not depth
             else f"the node reached by {show_path(ancestor)}")
    first_extra = g.path[:depth + 1]
    if children:
        return (f"visits a node the expected search prunes: "
                f"{show_path(first_extra)}",
                f"{at}: the listing visits the node reached by "
                f"{show_path(g.path)}, but the expected search stops at {where} "
                f"after its child {children[-1].path[-1]} (a cut: the later "
                "children are neither visited nor listed), so it never reaches "
                f"{show_path(first_extra)}. Expected here: the node reached by "
                f"{show_path(w.path)} with {w.shown}.")
    return (f"lists a node the expected search never reaches: {show_path(g.path)}",
            f"{at}: expected the node reached by {show_path(w.path)} with "
            f"{w.shown}, got the node reached by {show_path(g.path)} with "
            f"{g.shown}; the expected search treats {where} as a leaf (a cut-off "
            "or the end of the game)")


def _length_divergence(want: Sequence[Node], got: Sequence[Node],
                       show_path: Callable[[Path], str], line_of: Callable[[int], int],
                       what: str) -> Tuple[str, str]:
    """(reason, detail) when one listing is the start of the other, or the same nodes."""
    if len(got) > len(want):
        extra = got[len(want)]
        return (f"extra nodes after the expected listing: {show_path(extra.path)} ...",
                f"{what} line {line_of(len(want))}: the expected listing ends here; the "
                f"submission goes on with {len(got) - len(want)} more nodes")
    if len(got) < len(want):
        missing = want[len(got)]
        return (f"listing stops early: missing {show_path(missing.path)} ...",
                f"{what}: {len(got)} of {len(want)} nodes; the first missing one is "
                f"reached by {show_path(missing.path)} with {missing.shown}")
    return ("the same nodes, listed differently", f"{what}: same nodes, other text")


def _lineage(node: Node, show_path: Callable[[Path], str]) -> str:
    """The values of the node's children, which explain its value (if it has any)."""
    if not node.children:
        return " (a leaf)"
    shown = "; ".join(f"{child.path[-1]}: {child.shown}" for child in node.children)
    return f"; its expected children: {shown}"
