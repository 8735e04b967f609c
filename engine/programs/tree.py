"""tree: minimax / alpha-beta answer key for a hand-drawn game tree.

usage: python3 -m engine tree [options] FILE      (FILE '-' reads standard input)
       python3 -m engine tree [options] --random SEED   (a random quiz tree instead)

The tree, written in FILE (newlines, extra spaces and '#' comments are free):
  node   = [Name:] leaf | [Name:] ( node node ... )
  leaf   = an integer, may be negative            e.g.  3   -12
  Name   = a letter or _, then letters, digits, _ or '   e.g.  A   B2   C'
Example (AIMA Figure 5.2):  A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))
The root is MAX (--min-root: MIN) and levels alternate.

The search is alpha-beta in AIMA form (children left to right; a MAX node returns as soon
as v >= beta, a MIN node as soon as v <= alpha, the bounds updated after that test; the
root keeps the first strictly better child). --minimax searches without pruning.

Output (stdout): one line per visited node in visit order, indented by depth: its label
(or path: child indices from the root joined by '.'), MAX/MIN, its value and, with
alpha-beta, its final alpha and beta (the values when the node returns); a line for the
top of every pruned branch; then the root value, the chosen root move and the pruned paths.

options:
  --minimax       plain minimax (no pruning)
  --min-root      the root is a MIN node
  --json          print one JSON object instead:
                  {"value": V, "best": I, "pruned": [paths], "nodes": [{"path", "label",
                  "value", "alpha", "beta"}, ...]}; infinite bounds are "-inf"/"inf";
                  alpha and beta are null with --minimax
  --dot           print the tree as Graphviz DOT instead
  --svg OUT.svg   also write a picture of the search (pruned branches dashed and grey,
                  the chosen path highlighted)
  --html OUT.html also write the stepper: one offline page that replays the search step
                  by step (window, values, the reason of every cut) and, for trees of at
                  most 100 nodes, quizzes you on values, alpha/beta and the pruned set
  --random SEED   search a random tree made from SEED (an integer) instead of FILE:
                  three levels below the root, 2 or 3 children a node, leaves 0..20
  -h, --help      this help

Malformed input: one line on stderr naming the line and column, exit code 2.
"""

import json
import sys
from typing import Any, Dict, List, Optional, Tuple, cast

from ..errors import UsageError
from ..games.explicit_tree import ExplicitTree, TreeNode, node_at, parse_tree, path_text
from ..search import INF, ExactSearch, search
from ..searchtree import SearchTreeRecorder
from ..commandline import run_program, write_atomically

USAGE = ("usage: python3 -m engine tree [--minimax] [--min-root] [--json|--dot] [--svg OUT.svg] "
         "[--html OUT.html] FILE|--random SEED")
QUIZ_NODES = 100    # the quiz asks for every node: larger trees get only the stepper


def parse_arguments(argv: List[str]) -> Dict[str, Any]:
    """Return a dict of the options and FILE, or raise UsageError."""
    options: Dict[str, Any] = {"prune": True, "min_root": False, "json": False, "dot": False,
                               "svg": None, "html": None, "random": None, "file": None}
    words = list(argv)
    while words:
        word = words.pop(0)
        if word == "--minimax":
            options["prune"] = False
        elif word == "--min-root":
            options["min_root"] = True
        elif word == "--json":
            options["json"] = True
        elif word == "--dot":
            options["dot"] = True
        elif word == "--svg":
            if not words:
                raise UsageError(f"--svg needs a file name; {USAGE}")
            options["svg"] = words.pop(0)
        elif word.startswith("--svg="):
            options["svg"] = word[len("--svg="):]
        elif word in ("--html", "--random"):
            if not words:
                raise UsageError(f"{word} needs a value; {USAGE}")
            options[word[2:]] = words.pop(0)
        elif word.startswith(("--html=", "--random=")):
            key, _, value = word[2:].partition("=")
            options[key] = value
        elif word.startswith("-") and word != "-":
            raise UsageError(f"unknown option {word!r}; {USAGE}")
        elif options["file"] is not None:
            raise UsageError(f"more than one FILE ({options['file']!r}, {word!r}); {USAGE}")
        else:
            options["file"] = word
    if options["random"] is not None:
        if options["file"] is not None:
            raise UsageError("give FILE or --random SEED, not both")
        text = options["random"]
        if not (text.lstrip("-").isdigit() and text.isascii()):
            raise UsageError(f"--random needs an integer seed, not {text!r}")
        options["random"] = int(text)
    elif options["file"] is None:
        raise UsageError(f"missing FILE ('-' for standard input); {USAGE}")
    if options["json"] and options["dot"]:
        raise UsageError("choose one of --json and --dot")
    if options["svg"] == "" or options["html"] == "":
        raise UsageError("--svg and --html need a file name")
    return options


def random_tree_text(seed: int) -> str:
    """A random tree for practice, in the tree grammar: three levels below the root, 2 or
    3 children a node (the root 3), leaves 0..20, interior nodes labelled A, B, C, ...
    in pre-order. The same seed gives the same tree on every Python 3 (random.Random
    with an int seed is documented to be reproducible)."""
    import random
    rng = random.Random(seed)
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def node(depth: int) -> str:
        if depth == 3:
            return str(rng.randint(0, 20))
        label = next(letters)
        count = 3 if depth == 0 else rng.choice((2, 3))
        return f"{label}:(" + " ".join(node(depth + 1) for _ in range(count)) + ")"

    return node(0)


def read_source(name: str) -> str:
    """The text of FILE (``-``: standard input), or UsageError."""
    if name == "-":
        return sys.stdin.read()
    try:
        with open(name, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {name}: not UTF-8 text") from None


class TreeAnswer:
    """The search of an explicit tree and everything the outputs need."""

    def __init__(self, root: TreeNode, prune: bool = True, min_root: bool = False) -> None:
        self.root = root
        self.prune = prune
        self.game = ExplicitTree(root, min_root)
        self.recorder = SearchTreeRecorder(self.game)
        self.result = search(self.game, self.game.initial_state(),
                             ExactSearch(prune=prune, tracer=self.recorder))
        self.visited = self.recorder.nodes()
        # Tops of pruned branches, in visit order (= pre-order of the whole tree).
        self.pruned = sorted(node.state + (action,) for node in self.visited
                             for action in node.pruned)

    @property
    def value(self) -> float:
        return self.result.value

    @property
    def best(self) -> Optional[int]:
        return self.result.action

    def label(self, path: Tuple[int, ...]) -> Optional[str]:
        return node_at(self.root, path).label

    def name(self, path: Tuple[int, ...]) -> str:
        """What a person calls a node: its label, else its path ('root' for the root)."""
        label = self.label(path)
        if label is not None:
            return label
        return path_text(path) if path else "root"


def count_nodes(root: TreeNode) -> Tuple[int, int]:
    """(nodes, leaves) of the whole tree."""
    nodes = leaves = 0
    stack = [root]
    while stack:
        node = stack.pop()
        nodes += 1
        if node.is_leaf:
            leaves += 1
        else:
            stack.extend(cast(List[TreeNode], node.children))   # not a leaf: a list
    return nodes, leaves


MAX_DEPTH = 2000


def tree_depth(root: TreeNode) -> int:
    """Levels below the root (0 for a single leaf)."""
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if not node.is_leaf:
            stack.extend((child, depth + 1)
                         for child in cast(List[TreeNode], node.children))
    return deepest


def allow_depth(depth: int) -> None:
    """The search and the drawing recurse once per level: refuse absurd depths with a
    clear message and give Python the stack the others need."""
    if depth > MAX_DEPTH:
        raise UsageError(f"the tree is {depth} levels deep; at most {MAX_DEPTH} are supported")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3 * depth + 1000))


def bound_text(bound: Optional[float]) -> str:
    if bound == INF:
        return "inf"
    if bound == -INF:
        return "-inf"
    return str(bound)


def format_text(answer: TreeAnswer) -> str:
    """The human answer key (see the module docstring)."""
    rows = []   # cells: indented name, role, value, alpha, beta, note
    pruned_under: Dict[Tuple[int, ...], List[Tuple[int, ...]]] = {}
    for top in answer.pruned:
        pruned_under.setdefault(top[:-1], []).append(top)

    def emit_pruned(parent_path: Tuple[int, ...]) -> None:
        for top in pruned_under.get(parent_path, ()):
            rows.append(["  " * len(top) + answer.name(top), "pruned"])

    open_paths: List[Tuple[int, ...]] = []
    for node in answer.visited:
        path = node.state
        # Close the nodes whose subtree is finished: their pruned children come last.
        while open_paths and open_paths[-1] != path[:len(open_paths[-1])]:
            emit_pruned(open_paths.pop())
        row = ["  " * node.depth + answer.name(path), "MAX" if node.is_max else "MIN",
               f"value {node.value}"]
        if answer.prune:
            row += [f"alpha {bound_text(node.alpha)}", f"beta {bound_text(node.beta)}"]
        row.append("leaf" if node.is_leaf else "")
        rows.append(row)
        open_paths.append(path)
    while open_paths:
        emit_pruned(open_paths.pop())

    columns = max(len(row) for row in rows)
    # A 'pruned' line has two cells; it must not widen the role column.
    widths = [max(len(row[i]) for row in rows if len(row) > 2 or i == 0)
              for i in range(columns)]
    lines = [f"{'alpha-beta' if answer.prune else 'minimax'}, root "
             f"{'MIN' if answer.game.min_root else 'MAX'}"]
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    lines.append(f"value: {answer.value}")
    if answer.best is None:
        lines.append("best move: none (the root is a leaf)")
    else:
        label = answer.label((answer.best,))
        lines.append(f"best move: {answer.best}" + (f" ({label})" if label else ""))
    if answer.prune:
        names = [path_text(top) + (f" ({answer.label(top)})" if answer.label(top) else "")
                 for top in answer.pruned]
        lines.append("pruned: " + (", ".join(names) if names else "none"))
    nodes, leaves = count_nodes(answer.root)
    seen_leaves = sum(1 for node in answer.visited if node.is_leaf)
    lines.append(f"visited: {len(answer.visited)} of {nodes} nodes, "
                 f"{seen_leaves} of {leaves} leaves")
    return "\n".join(lines) + "\n"


def format_json(answer: TreeAnswer) -> str:
    """The machine answer: one JSON object, one line per visited node for readability."""
    from ..pictures.stepper import json_bound   # the page shows bounds as this writes them
    head = {"value": answer.value, "best": answer.best,
            "pruned": [path_text(top) for top in answer.pruned]}
    nodes = []
    for node in answer.visited:
        entry = {"path": path_text(node.state), "label": answer.label(node.state),
                 "value": node.value,
                 "alpha": json_bound(node.alpha) if answer.prune else None,
                 "beta": json_bound(node.beta) if answer.prune else None}
        nodes.append(json.dumps(entry, ensure_ascii=False))
    text = json.dumps(head, ensure_ascii=False)[:-1] + ', "nodes": [\n'
    return text + ",\n".join("  " + entry for entry in nodes) + "\n]}\n"


def stepper_page(root: TreeNode, text: str, source: str, prune: bool = True,
                 min_root: bool = False) -> str:
    """The stepper page (str) of an explicit tree: the engine's search replayed."""
    from ..pictures import stepper
    game = ExplicitTree(root, min_root)
    method = "alpha-beta" if prune else "minimax"
    shown = " ".join(text.split())
    if len(shown) > 160:
        shown = shown[:160] + "\u2026"
    recording = stepper.record(
        game, game.initial_state(), prune=prune, label=lambda path: node_at(root, path).label,
        child=game.result,
        expand=lambda path: [] if game.is_terminal(path) else game.actions(path),
        given=lambda path: node_at(root, path).value,
        title=f"{method} on {source}, root {'MIN' if min_root else 'MAX'}",
        caption=[shown])
    nodes, _ = count_nodes(root)
    recording.quiz = nodes <= QUIZ_NODES
    return stepper.render(recording)


def run(argv: List[str]) -> int:
    options = parse_arguments(argv)
    if options["random"] is not None:
        text = random_tree_text(options["random"])
        source = f"a random tree (seed {options['random']})"
    else:
        text = read_source(options["file"])
        source = "standard input" if options["file"] == "-" else options["file"]
    root = parse_tree(text)
    allow_depth(tree_depth(root))
    answer = TreeAnswer(root, prune=options["prune"], min_root=options["min_root"])
    if options["svg"] is not None:
        from ..pictures.trees import explicit_tree_figure, render_svg
        write_atomically(options["svg"], render_svg(explicit_tree_figure(answer)))
    if options["html"] is not None:
        write_atomically(options["html"], stepper_page(root, text, source, options["prune"],
                                                       options["min_root"]))
    if options["dot"]:
        from ..pictures.trees import explicit_tree_figure, render_dot
        sys.stdout.write(render_dot(explicit_tree_figure(answer)))
    elif options["json"]:
        sys.stdout.write(format_json(answer))
    else:
        sys.stdout.write(format_text(answer))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("tree", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
