"""Explicit game trees, as drawn in pen-and-paper exercises (issue 9).

Grammar (whitespace and newlines are free; ``#`` starts a comment to the end of the line)::

    node   := [label ':'] (leaf | '(' node node* ')')
    leaf   := an integer, optionally negative:  3   -12   +4
    label  := a letter or '_', then letters, digits, '_' or "'"  (A, B2, max_1, C')

Examples: ``((3 12 8) (2 4 6) (14 5 2))`` (AIMA Figure 5.2) and
``A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))``. ``()`` is not a node: an interior node has at
least one child.

The game: a state is the *path* of a node, the tuple of child indices from the root
(root = ``()``). The root is MAX unless ``min_root``; levels alternate. Actions are child
indices in left-to-right order (the exercises' visit order); a leaf is terminal and its
utility is its number. Rules only: the search is engine.search.
"""

from typing import Any, Iterable, List, NoReturn, Optional, Tuple, cast

from ..errors import UsageError
from ..game import Game

LABEL_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
LABEL_REST = LABEL_START + "0123456789'"
DIGITS = "0123456789"


class TreeSyntaxError(UsageError):
    """Malformed tree text; the message names the line and column (1-based)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


class TreeNode:
    """One node of an explicit tree: ``label`` (str or None) and either ``value`` (a
    leaf's int) or ``children`` (a non-empty list of TreeNode)."""

    __slots__ = ("label", "value", "children")

    def __init__(self, label: Optional[str] = None, value: Optional[int] = None,
                 children: Optional[List["TreeNode"]] = None) -> None:
        self.label = label
        self.value = value
        self.children = children

    @property
    def is_leaf(self) -> bool:
        return self.children is None

    def __repr__(self) -> str:
        head = f"{self.label}:" if self.label else ""
        if self.is_leaf:
            return f"{head}{self.value}"
        return head + "(" + " ".join(map(repr, cast(List[TreeNode], self.children))) + ")"


class _Reader:
    """Character cursor over the tree text that knows line and column for errors."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def where(self, position: Optional[int] = None) -> Tuple[int, int]:
        position = self.position if position is None else position
        before = self.text[:position]
        line = before.count("\n") + 1
        column = position - (before.rfind("\n") + 1) + 1
        return line, column

    def fail(self, message: str, position: Optional[int] = None) -> NoReturn:
        raise TreeSyntaxError(message, *self.where(position))

    def skip_space(self) -> None:
        text, i = self.text, self.position
        while i < len(text):
            if text[i].isspace():
                i += 1
            elif text[i] == "#":
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
            else:
                break
        self.position = i

    def peek(self) -> str:
        return self.text[self.position] if self.position < len(self.text) else ""


def _describe(char: str) -> str:
    return "end of input" if not char else repr(char)


def parse_tree(text: str) -> TreeNode:
    """The TreeNode that ``text`` spells; TreeSyntaxError naming line and column if not.

    Iterative (an explicit stack), so a very deep tree cannot overflow Python's stack.
    """
    reader = _Reader(text)
    # open '(' nodes: (node, position of its '('); their children lists are never None
    stack: List[Tuple[Any, int]] = []
    root = None
    while True:
        reader.skip_space()
        char = reader.peek()
        if char == ")":
            _close_node(reader, stack)
        else:
            if not char or (root is not None and not stack):
                _refuse_end(reader, stack, root is not None)
            node = _read_node_head(reader)
            if stack:
                stack[-1][0].children.append(node)
            elif root is None:
                root = node
            if node.children is not None:     # at its '(': its children follow
                stack.append((node, reader.position))
                reader.position += 1
                continue
        if not stack and root is not None:
            reader.skip_space()
            if reader.peek():
                reader.fail(f"unexpected {_describe(reader.peek())} after the end of "
                            "the tree")
            return root


def _close_node(reader: _Reader, stack: List[Tuple[Any, int]]) -> None:
    """Consume the ``)`` at the cursor, closing the innermost open node (which must
    have a child)."""
    if not stack:
        reader.fail("')' without a matching '('")
    node, opened = stack.pop()
    if not node.children:
        reader.fail("empty node '()': an interior node needs at least one child", opened)
    reader.position += 1


def _refuse_end(reader: _Reader, stack: List[Tuple[Any, int]], have_root: bool) -> NoReturn:
    """Fail where no node may start: after a whole tree (``have_root`` and no open node)
    or at the end of the input."""
    char = reader.peek()
    if have_root and not stack:
        reader.fail(f"unexpected {_describe(char)} after the end of the tree")
    if stack:
        line, column = reader.where(stack[-1][1])
        reader.fail(f"end of input: '(' at line {line}, column {column} is never closed")
    reader.fail("empty input: expected a tree such as ((3 12 8) (2 4 6))")


def _read_node_head(reader: _Reader) -> TreeNode:
    """The node starting at the cursor: a leaf (read whole), or an interior node with
    no children yet and the cursor left on its ``(``."""
    start = reader.position
    label = _read_label(reader)
    if label is not None:
        reader.skip_space()
    char = reader.peek()
    if char == "(":
        return TreeNode(label, children=[])
    if char and (char in DIGITS or char in "+-"):
        return TreeNode(label, value=_read_integer(reader))
    if label is not None:
        reader.fail(f"expected a number or '(' after label {label!r}, "
                    f"found {_describe(char)}")
    reader.fail(f"expected a number, '(' or a label, found {_describe(char)}", start)


def _read_label(reader: _Reader) -> Optional[str]:
    """A ``Name:`` prefix at the cursor (consumed, name returned) or None (nothing read)."""
    text, i = reader.text, reader.position
    if i >= len(text) or text[i] not in LABEL_START:
        return None
    j = i + 1
    while j < len(text) and text[j] in LABEL_REST:
        j += 1
    if j < len(text) and text[j] == ":":
        reader.position = j + 1
        return text[i:j]
    word = text[i:j]
    reader.fail(f"expected a number, '(' or a label, found {word!r} "
                f"(a label is written {word}: right before its node)", i)


def _read_integer(reader: _Reader) -> int:
    text, i = reader.text, reader.position
    j = i + 1 if text[i] in "+-" else i
    k = j
    while k < len(text) and text[k] in DIGITS:
        k += 1
    if k == j:
        reader.fail(f"expected digits after {text[i]!r}", j)
    if k < len(text) and not (text[k].isspace() or text[k] in "()#"):
        reader.fail(f"unexpected {text[k]!r} in a number (leaves are integers)", k)
    reader.position = k
    return int(text[i:k])


def node_at(root: TreeNode, path: Tuple[int, ...]) -> TreeNode:
    """The node reached from ``root`` by the child indices of ``path``."""
    node = root
    for index in path:
        node = node.children[index]  # type: ignore[index]  # an inner node: a list
    return node


def path_text(path: Iterable[int]) -> str:
    """The issue's path notation: indices joined by '.', the root is ``""``."""
    return ".".join(map(str, path))


class ExplicitTree(Game):
    """The game played on an explicit tree: states are paths (tuples of child indices)."""

    def __init__(self, root: TreeNode, min_root: bool = False) -> None:
        self.root = root
        self.min_root = min_root

    def initial_state(self) -> Tuple[int, ...]:
        return ()

    def node(self, path: Tuple[int, ...]) -> TreeNode:
        return node_at(self.root, path)

    # --- the assignments' interface -----------------------------------------------
    def actions(self, path: Tuple[int, ...]) -> List[int]:
        # Per node, so no cast call: an inner node's children are a list.
        return list(range(len(self.node(path).children)))  # type: ignore[arg-type]

    def result(self, path: Tuple[int, ...], index: int) -> Tuple[int, ...]:
        return path + (index,)

    def is_terminal(self, path: Tuple[int, ...]) -> bool:
        return self.node(path).is_leaf

    def utility(self, path: Tuple[int, ...]) -> int:
        return self.node(path).value  # type: ignore[return-value]  # a leaf's: an int

    def is_maxs_turn(self, path: Tuple[int, ...]) -> bool:
        # Levels alternate from the root: even depths belong to the root's side.
        return (len(path) % 2 == 0) != self.min_root

    # --- hot path ---------------------------------------------------------------------
    def successors(self, path: Tuple[int, ...]) -> List[Tuple[int, Tuple[int, ...]]]:
        # Called on inner nodes only, whose children are a list (no cast call per node).
        children = self.node(path).children
        return [(index, path + (index,))
                for index in range(len(children))]  # type: ignore[arg-type]

    def terminal_value(self, path: Tuple[int, ...]) -> Optional[int]:
        node = self.node(path)
        return node.value if node.children is None else None
