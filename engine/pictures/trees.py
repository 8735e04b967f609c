"""Pictures of searches: a small tree layout and SVG / Graphviz DOT writers.

Standard library only; the SVG is drawn by our own layout code (no Graphviz needed).
A :class:`Figure` is a tree of :class:`FigureNode` built from what a search visited
(:mod:`engine.searchtree`); the builders below make one for an explicit tree
(``engine tree --svg``) and for a real game (``engine picture``).

What the picture promises (tests/test_trees.py checks it):
* one node shape per drawn node, with class ``node`` plus ``max``/``min``/``leaf`` and
  ``pruned``/``unvisited`` for nodes the search never reached: MAX nodes are triangles
  pointing up, MIN nodes triangles pointing down, leaves squares; board nodes are framed
  boards whose frame colour and a small triangle tell MAX from MIN;
* the value inside (or under) the shape, the final alpha/beta beside it, the label above;
* one ``edge pruned`` line (dashed, grey) into the top of every pruned branch; the edges
  inside a pruned branch are ``edge unvisited`` (dotted, grey);
* the edges of the chosen path ``edge best`` (thick, orange).

Layout: leaves take consecutive columns left to right, a parent is centred over its
first and last child; each depth is one row. Simple, and never overlaps.
"""

from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple,
                    cast)

from ..games.explicit_tree import TreeNode
from ..search import SearchResult
from ..searchtree import SearchNode, SearchTreeRecorder
from ..markup import XML, Attribute, Markup, asset
from .svg import number

MAX_COLOUR, MAX_FILL = "#1f5fa8", "#dbe9f6"
MIN_COLOUR, MIN_FILL = "#c0392b", "#f9dedb"
LEAF_COLOUR, LEAF_FILL = "#444444", "#eeeeee"
GREY = "#a8a8a8"
BEST = "#f39c12"


class FigureNode:
    """One node of a picture.

    role      "max" or "min" (the side to move there)
    leaf      True: drawn as a leaf (a terminal or cut-off node, valued directly)
    status    "visited", "pruned" (top of a pruned branch) or "unvisited" (inside one)
    value     text of the value, or None;  alpha, beta: text of the final bounds, or None
    label     text above the node, or None;  tooltip: hover text, or None
    board     rows of a small board drawn in the node (strings, one char a cell), or None
    best      True when the edge into this node is on the chosen path
    note      small text under the node (e.g. "+37 not drawn"), or None
    """

    __slots__ = ("role", "leaf", "status", "value", "alpha", "beta", "label", "tooltip",
                 "board", "best", "note", "children", "x", "y")

    def __init__(self, role: str, leaf: bool = False, status: str = "visited",
                 value: Optional[str] = None, alpha: Optional[str] = None,
                 beta: Optional[str] = None, label: Optional[str] = None,
                 tooltip: Optional[str] = None, board: Optional[Sequence[str]] = None,
                 best: bool = False, note: Optional[str] = None) -> None:
        self.role = role
        self.leaf = leaf
        self.status = status
        self.value = value
        self.alpha = alpha
        self.beta = beta
        self.label = label
        self.tooltip = tooltip
        self.board = board
        self.best = best
        self.note = note
        self.children: List[FigureNode] = []
        self.x = self.y = 0.0


class Figure:
    """A picture: the root FigureNode, caption lines, and warnings shown in red."""

    def __init__(self, root: FigureNode, caption: Iterable[str] = (),
                 warnings: Iterable[str] = ()) -> None:
        self.root = root
        self.caption = list(caption)
        self.warnings = list(warnings)

    def nodes(self) -> List[FigureNode]:
        """Every node, pre-order."""
        result, stack = [], [self.root]
        while stack:
            node = stack.pop()
            result.append(node)
            stack.extend(reversed(node.children))
        return result


# --- layout --------------------------------------------------------------------------
CELL = 11                      # board cell size
SHAPE_W, SHAPE_H = 44, 38      # triangles
LEAF_SIZE = 32
COLUMN = 96                    # width of one leaf column
ROW = 92                       # height of one level
MARGIN = 24
LINE = 16                      # caption line height


def shape_size(node: FigureNode) -> Tuple[float, float]:
    """(width, height) of the node's shape."""
    if node.board is not None:
        columns = max(len(row) for row in node.board)
        return columns * CELL + 8, len(node.board) * CELL + 8
    if node.leaf:
        return LEAF_SIZE, LEAF_SIZE
    return SHAPE_W, SHAPE_H


def layout(figure: Figure) -> Tuple[float, float, float]:
    """Set ``x``/``y`` (shape centres) of every node; return (width, height, top)."""
    top = MARGIN + LINE * (len(figure.caption) + len(figure.warnings)) + 24
    column = [0]

    def place(node: FigureNode,
              depth: int) -> int:   # recursion depth = tree depth (pictures are shallow)
        node.y = top + depth * ROW
        if not node.children:
            node.x = MARGIN + COLUMN / 2 + column[0] * COLUMN
            column[0] += 1
            return depth
        deepest = max(place(child, depth + 1) for child in node.children)
        node.x = (node.children[0].x + node.children[-1].x) / 2
        return deepest

    deepest = place(figure.root, 0)
    width = max(2 * MARGIN + column[0] * COLUMN, 520)
    height = top + deepest * ROW + ROW // 2 + MARGIN + 20
    return width, height, top


# --- SVG ------------------------------------------------------------------------------
# The document's skeleton and style are files: assets/picture.svg (the skeleton every
# picture shares) and assets/tree.css.
ASSETS = __name__.rpartition(".")[0]


def _polygon(points: Iterable[Tuple[float, float]]) -> str:
    return " ".join(f"{number(x)},{number(y)}" for x, y in points)


def _colours(node: FigureNode) -> Tuple[str, str]:
    if node.status != "visited":
        return GREY, "#ffffff"
    if node.leaf and node.board is None:
        return LEAF_COLOUR, LEAF_FILL
    return (MAX_COLOUR, MAX_FILL) if node.role == "max" else (MIN_COLOUR, MIN_FILL)


def _node_classes(node: FigureNode) -> str:
    classes = ["node", node.role]
    if node.leaf:
        classes.append("leaf")
    if node.board is not None:
        classes.append("board")
    if node.status != "visited":
        classes.append(node.status)
    if node.best:
        classes.append("chosen")
    return " ".join(classes)


def _triangle(x: float, y: float, w: float, h: float, up: bool) -> List[Tuple[float, float]]:
    if up:
        return [(x, y - h / 2), (x + w / 2, y + h / 2), (x - w / 2, y + h / 2)]
    return [(x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x, y + h / 2)]


def _lines(lines: Iterable[Markup], **attributes: Attribute) -> Markup:
    """A group whose elements stand one a line, between its own lines."""
    return XML.element("g", "\n", *((line, Markup("\n")) for line in lines), **attributes)


def _text(content: str, x: float, y: float, kind: str, **attributes: Attribute) -> Markup:
    return XML.element("text", content, class_=kind, x=number(x), y=number(y), **attributes)


def _board(node: FigureNode, rows: Sequence[str], stroke: str, text_colour: str
           ) -> Iterator[Markup]:
    """A board node's frame contents: the side to move as a small triangle left of the
    frame (up MAX, down MIN), then a square and a mark per cell."""
    x, y = node.x, node.y
    w, h = shape_size(node)
    marker = _triangle(x - w / 2 - 8, y - h / 2 + 6, 10, 9, node.role == "max")
    yield XML.element("polygon", class_="role", points=_polygon(marker), fill=stroke)
    left, top = x - w / 2 + 4, y - h / 2 + 4
    for r, row in enumerate(rows):
        for c, mark in enumerate(row):
            cx, cy = left + c * CELL, top + r * CELL
            yield XML.element("rect", x=number(cx), y=number(cy), width=CELL, height=CELL,
                              fill="none", stroke="#bbb", stroke_width="0.5")
            if mark not in "-. ":
                colour = text_colour if node.status != "visited" else (
                    MAX_COLOUR if mark == "x" else MIN_COLOUR)
                yield _text(mark, cx + CELL / 2, cy + CELL / 2, "cell", fill=colour)


def _shape(node: FigureNode) -> Iterator[Markup]:
    """The node's shape (a framed board, a leaf's square or a triangle) and its value."""
    x, y = node.x, node.y
    w, h = shape_size(node)
    stroke, fill = _colours(node)
    text_colour = GREY if node.status != "visited" else "#111"
    style: Dict[str, Attribute] = {
        "fill": fill, "stroke": stroke, "stroke_width": 3 if node.best else 1.5,
        "stroke_dasharray": "4 3" if node.status != "visited" else None}
    classes = _node_classes(node)
    value_y = y
    if node.board is not None:
        yield XML.element("rect", class_=classes, x=number(x - w / 2), y=number(y - h / 2),
                          width=w, height=h, rx="3", **style)
        yield from _board(node, node.board, stroke, text_colour)
        value_y = y + h / 2 + 9
    elif node.leaf:
        yield XML.element("rect", class_=classes, x=number(x - w / 2), y=number(y - h / 2),
                          width=w, height=h, **style)
    else:
        points = _triangle(x, y, w, h, node.role == "max")
        yield XML.element("polygon", class_=classes, points=_polygon(points), **style)
        value_y = y + (5 if node.role == "max" else -5)   # the triangle's wide part
    if node.value is not None:
        yield _text(node.value, x, value_y, "value", fill=text_colour)


def _svg_node(node: FigureNode) -> Iterator[Markup]:
    """The node's elements: hover text, shape and value, label, final bounds, note."""
    x, y = node.x, node.y
    w, h = shape_size(node)
    if node.tooltip:
        yield XML.element("title", node.tooltip)
    yield from _shape(node)
    if node.label:
        yield _text(node.label, x, y - h / 2 - 5, "label")
    if node.alpha is not None:
        yield _text(f"\u03b1 {node.alpha}", x + w / 2 + 4, y - 2, "bounds")
        yield _text(f"\u03b2 {node.beta}", x + w / 2 + 4, y + 10, "bounds")  # set with alpha
    if node.note:
        yield _text(node.note, x, y + h / 2 + (24 if node.board is not None else 13), "note")


def _svg_edges(node: FigureNode) -> Iterator[Markup]:
    """Every edge below ``node``, pre-order: a line, and a cross on a cut one."""
    _, parent_h = shape_size(node)
    for child in node.children:
        _, child_h = shape_size(child)
        x1, y1 = node.x, node.y + parent_h / 2 + (16 if node.board is not None else 0)
        x2, y2 = child.x, child.y - child_h / 2 - (16 if child.label else 0)
        if child.status == "pruned":
            kind = "edge pruned"
        elif child.status == "unvisited":
            kind = "edge unvisited"
        elif child.best:
            kind = "edge best"
        else:
            kind = "edge"
        yield XML.element("line", class_=kind, x1=number(x1), y1=number(y1), x2=number(x2),
                          y2=number(y2))
        if child.status == "pruned":
            # A scissors-like cross on the cut edge.
            yield _text("\u2715", (x1 + x2) / 2, (y1 + y2) / 2, "cut")
        yield from _svg_edges(child)


def render_svg(figure: Figure) -> str:
    """The figure as a self-contained SVG document (str)."""
    width, height, _ = layout(figure)
    body = [XML.element("rect", x="0", y="0", width=number(width), height=number(height),
                        fill="#ffffff")]
    y = MARGIN
    for line, kind in [(line, "caption") for line in figure.caption] + [
            (line, "warning") for line in figure.warnings]:
        body.append(_text(line, MARGIN, y, kind))
        y += LINE
    body.append(_lines(_svg_edges(figure.root), class_="edges"))
    body.append(_lines((_lines(_svg_node(node)) for node in figure.nodes()), class_="nodes"))
    body.append(_svg_legend(height - 14))
    return XML.fill(asset(ASSETS, "picture.svg"), width=number(width), height=number(height),
                    style=asset(ASSETS, "tree.css"),
                    body=XML.join((line, Markup("\n")) for line in body))


def _legend_text(x: float, y: float, words: str) -> Markup:
    return XML.element("text", words, class_="legend", x=x, y=y)


def _svg_legend(y: float) -> Markup:
    x = MARGIN
    up = _polygon(_triangle(x + 6, y - 4, 12, 11, True))
    down = _polygon(_triangle(x + 62, y - 4, 12, 11, False))
    dashed = {"stroke": GREY, "stroke_width": "1.3", "stroke_dasharray": "6 4"}
    return XML.element(
        "g",
        XML.element("polygon", class_="legend-shape", points=up, fill=MAX_FILL,
                    stroke=MAX_COLOUR), _legend_text(x + 16, y, "MAX"),
        XML.element("polygon", class_="legend-shape", points=down, fill=MIN_FILL,
                    stroke=MIN_COLOUR), _legend_text(x + 72, y, "MIN"),
        XML.element("rect", class_="legend-shape", x=x + 110, y=y - 10, width="11",
                    height="11", fill=LEAF_FILL, stroke=LEAF_COLOUR),
        _legend_text(x + 126, y, "leaf"),
        XML.element("line", x1=x + 162, y1=y - 4, x2=x + 188, y2=y - 4, **dashed),
        _legend_text(x + 194, y, "pruned"),
        XML.element("line", x1=x + 252, y1=y - 4, x2=x + 278, y2=y - 4, stroke=BEST,
                    stroke_width="4"), _legend_text(x + 284, y, "chosen path"),
        _legend_text(x + 370, y, "\u03b1/\u03b2: final bounds"),
        class_="legend-box")


# --- DOT ------------------------------------------------------------------------------
def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_dot(figure: Figure) -> str:
    """The figure as Graphviz DOT (str): same shapes, colours and dashes as the SVG."""
    lines = ["digraph search {",
             "  graph [ordering=out, labelloc=t, fontname=\"Helvetica\", label="
             + _dot_string("\n".join(figure.caption + figure.warnings)) + "];",
             "  node [fontname=\"Helvetica\", fontsize=11];",
             "  edge [arrowhead=none];"]
    numbers = {}
    for index, node in enumerate(figure.nodes()):
        numbers[id(node)] = index
        stroke, fill = _colours(node)
        text = []
        if node.label:
            text.append(node.label)
        if node.board is not None:
            text.extend(node.board)
            shape = "box"
        else:
            shape = "box" if node.leaf else ("triangle" if node.role == "max"
                                             else "invtriangle")
        if node.value is not None:
            text.append(node.value)
        attributes = [f"shape={shape}", "style=" + ("\"filled,dashed\"" if node.status !=
                                                    "visited" else "filled"),
                      f"color=\"{stroke}\"", f"fillcolor=\"{fill}\"",
                      "label=" + _dot_string("\n".join(text))]
        if node.status != "visited":
            attributes.append(f"fontcolor=\"{GREY}\"")
        if node.board is not None:
            attributes.append("fontname=\"Courier\"")
        if node.alpha is not None:
            attributes.append("xlabel=" + _dot_string(f"\u03b1 {node.alpha}\n\u03b2 {node.beta}"))
        if node.best:
            attributes.append("penwidth=2.5")
        if node.tooltip:
            attributes.append("tooltip=" + _dot_string(node.tooltip))
        lines.append(f"  n{index} [{', '.join(attributes)}];")
    for node in figure.nodes():
        for child in node.children:
            if child.status == "pruned":
                style = f" [style=dashed, color=\"{GREY}\", label=\"\u2715\", fontcolor=\"{GREY}\"]"
            elif child.status == "unvisited":
                style = f" [style=dotted, color=\"{GREY}\"]"
            elif child.best:
                style = f" [penwidth=4, color=\"{BEST}\"]"
            else:
                style = ""
            lines.append(f"  n{numbers[id(node)]} -> n{numbers[id(child)]}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --- builders -------------------------------------------------------------------------
def _bound(bound: Optional[float]) -> str:
    if bound == float("inf"):
        return "\u221e"
    if bound == float("-inf"):
        return "\u2212\u221e"
    return str(bound)


def explicit_tree_figure(answer: Any) -> Figure:
    """The Figure of an explicit tree's search (``answer``: programs.tree.TreeAnswer):
    the WHOLE tree, with the branches the search never reached greyed out."""
    from ..games.explicit_tree import path_text

    visited = {node.state: node for node in answer.visited}
    chosen = {node.state for node in answer.recorder.chosen_path(answer.best)}
    pruned_tops = set(answer.pruned)
    min_root = answer.game.min_root

    def build(tree_node: TreeNode, path: Tuple[int, ...], status: str) -> FigureNode:
        searched = visited.get(path)
        if status == "visited" and searched is None:
            status = "pruned" if path in pruned_tops else "unvisited"
        elif status != "visited":
            status = "unvisited"
        role = "max" if (len(path) % 2 == 0) != min_root else "min"
        if searched is not None:
            value = str(searched.value)
        elif tree_node.is_leaf:
            value = str(tree_node.value)     # a leaf's number is on the drawn tree anyway
        else:
            value = None
        node = FigureNode(role, leaf=tree_node.is_leaf, status=status, value=value,
                          label=tree_node.label, best=path in chosen,
                          tooltip=f"path {path_text(path) or '(root)'}"
                          + ("" if status == "visited" else f" ({status})"))
        if searched is not None and answer.prune:
            node.alpha, node.beta = _bound(searched.alpha), _bound(searched.beta)
        if not tree_node.is_leaf:
            node.children = [build(child, path + (index,), status)
                             for index, child in enumerate(cast(List[TreeNode],
                                                                tree_node.children))]
        return node

    root = build(answer.root, (), "visited")
    method = "alpha-beta" if answer.prune else "minimax"
    best = "none" if answer.best is None else str(answer.best)
    caption = [f"{method}, root {'MIN' if min_root else 'MAX'}: value {answer.value}, "
               f"best move {best}"]
    if answer.prune:
        caption.append("pruned: " + (", ".join(path_text(p) for p in answer.pruned)
                                     if answer.pruned else "none"))
    return Figure(root, caption)


def search_figure(recorder: SearchTreeRecorder, result: SearchResult,
                  board_of: Callable[[Any], Sequence[str]], child_of: Callable[[Any, Any], Any],
                  caption: Iterable[str] = (), prune: bool = True,
                  describe: Optional[Callable[[Any], str]] = None) -> Figure:
    """The Figure of a real game's search recorded by ``recorder``
    (engine.searchtree.SearchTreeRecorder) with SearchResult ``result``.

    ``board_of(state)`` gives the rows of the small board drawn in a node;
    ``child_of(state, action)`` the state a pruned action would have reached (its board is
    drawn greyed); ``describe(state)`` an optional hover text.
    """
    chosen = {id(node) for node in recorder.chosen_path(result.action)}

    def build(searched: SearchNode) -> FigureNode:
        node = FigureNode("max" if searched.is_max else "min", leaf=searched.is_leaf,
                          value=str(searched.value), board=board_of(searched.state),
                          best=id(searched) in chosen,
                          tooltip=describe(searched.state) if describe else None)
        if prune:
            node.alpha, node.beta = _bound(searched.alpha), _bound(searched.beta)
        if searched.hidden:
            node.note = f"+{searched.hidden} not drawn"
        node.children = [build(child) for child in searched.children]
        for action in searched.pruned:
            state = child_of(searched.state, action)
            stub = FigureNode("min" if searched.is_max else "max", status="pruned",
                              board=board_of(state),
                              tooltip=describe(state) if describe else None)
            node.children.append(stub)
        return node

    warnings = []
    if recorder.capped:
        warnings.append(f"capped: drew the {recorder.recorded} visited nodes of depth <= "
                        f"{recorder.drawn_depth} out of {recorder.visited} visited "
                        "(raise --max-nodes to see more)")
    return Figure(build(cast(SearchNode, recorder.root)), caption, warnings)
