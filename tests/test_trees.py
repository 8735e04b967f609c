"""Tests of issue 9: explicit trees (tree), pictures (drawing, picture), hillclimb."""

import itertools
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from engine.pictures.trees import explicit_tree_figure, render_dot, render_svg
from engine.games.explicit_tree import (ExplicitTree, TreeSyntaxError, node_at, parse_tree,
                                        path_text)
from engine.programs import hillclimb
from engine.programs.tree import TreeAnswer, format_json
from engine.search import INF, ExactSearch, search
from engine.trace import Tracer
from golden import REPO, program_cases
from thoroughness import examples

FIGURE_5_2 = "A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))"
SVG = "{http://www.w3.org/2000/svg}"


# --- oracle: a tiny plain recursive minimax, written here only as a test oracle -------
def oracle(node, maximizing):
    if node.is_leaf:
        return node.value
    values = [oracle(child, not maximizing) for child in node.children]
    return max(values) if maximizing else min(values)


def oracle_move(root, maximizing):
    """First root child with the best value (the spec's tie-break)."""
    values = [oracle(child, not maximizing) for child in root.children]
    best = max(values) if maximizing else min(values)
    return values.index(best)


# --- Figure 5.2 ------------------------------------------------------------------------
def test_figure_5_2_values_bounds_and_pruned_branches():
    answer = TreeAnswer(parse_tree(FIGURE_5_2))
    assert answer.value == 3 and answer.best == 0
    assert [path_text(p) for p in answer.pruned] == ["1.1", "1.2"]
    by_path = {path_text(n.state): n for n in answer.visited}
    assert set(by_path) == {"", "0", "0.0", "0.1", "0.2", "1", "1.0", "2", "2.0", "2.1",
                            "2.2"}
    expected = {"": (3, 3, INF), "0": (3, -INF, 3), "1": (2, 3, INF), "2": (2, 3, 5),
                "2.1": (5, 3, 14)}
    for path, (value, alpha, beta) in expected.items():
        node = by_path[path]
        assert (node.value, node.alpha, node.beta) == (value, alpha, beta), path


def test_figure_5_2_json_matches_the_issue_example():
    answer = TreeAnswer(parse_tree("((3 12 8) (2 4 6) (14 5 2))"))
    data = json.loads(format_json(answer))
    assert set(data) == {"value", "best", "pruned", "nodes"}
    assert (data["value"], data["best"], data["pruned"]) == (3, 0, ["1.1", "1.2"])
    for entry in data["nodes"]:
        assert set(entry) == {"path", "label", "value", "alpha", "beta"}
        for bound in (entry["alpha"], entry["beta"]):
            assert isinstance(bound, int) or bound in ("-inf", "inf")
    node_2 = next(entry for entry in data["nodes"] if entry["path"] == "2")
    assert (node_2["alpha"], node_2["beta"]) == (3, 5)
    assert data["nodes"][0] == {"path": "", "label": None, "value": 3, "alpha": 3,
                                "beta": "inf"}


def test_minimax_json_has_null_bounds_and_no_pruning():
    answer = TreeAnswer(parse_tree(FIGURE_5_2), prune=False)
    data = json.loads(format_json(answer))
    assert data["pruned"] == [] and len(data["nodes"]) == 13
    assert all(e["alpha"] is None and e["beta"] is None for e in data["nodes"])
    assert data["nodes"][1]["label"] == "B"


# --- random trees ----------------------------------------------------------------------
def trees(max_depth=4):
    leaf = st.integers(-9, 9).map(str)
    return st.recursive(leaf, lambda kids: st.lists(kids, min_size=1, max_size=4).map(
        lambda children: "(" + " ".join(children) + ")"), max_leaves=40)


class WindowTracer(Tracer):
    """Remembers the window each node was entered with."""

    def __init__(self):
        self.windows = {}

    def enter(self, state, action, depth, alpha, beta):
        self.windows[state] = (alpha, beta)


class CountingTree(ExplicitTree):
    """Counts which leaves the search evaluated."""

    def __init__(self, root, min_root=False):
        super().__init__(root, min_root)
        self.evaluated = set()

    def terminal_value(self, path):
        value = super().terminal_value(path)
        if value is not None:
            self.evaluated.add(path)
        return value


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(trees(), st.booleans())
def test_random_trees_alphabeta_agrees_with_minimax(text, min_root):
    root = parse_tree(text)
    maximizing = not min_root
    answer = TreeAnswer(root, min_root=min_root)
    assert answer.value == oracle(root, maximizing)
    if not root.is_leaf:
        assert answer.best == oracle_move(root, maximizing)
    plain = TreeAnswer(root, prune=False, min_root=min_root)
    assert (plain.value, plain.best) == (answer.value, answer.best)

    game = CountingTree(root, min_root)
    windows = WindowTracer()
    search(game, (), ExactSearch(prune=True, tracer=windows))
    pruned = answer.pruned
    for leaf in game.evaluated:                  # a pruned leaf is never evaluated
        assert not any(leaf[:len(top)] == top for top in pruned)
    for node in answer.visited:                  # values respect the window (fail-soft)
        exact = oracle(node_at(root, node.state), node.is_max)
        alpha, beta = windows.windows[node.state]
        if alpha < node.value < beta:
            assert node.value == exact
        elif node.value <= alpha:
            assert exact <= node.value
        else:
            assert exact >= node.value
    # Every pruned top's parent was visited, and the top itself was not.
    visited = {node.state for node in answer.visited}
    for top in pruned:
        assert top[:-1] in visited and top not in visited


# --- parsing -----------------------------------------------------------------------------
def test_labels_newlines_comments_and_negative_leaves():
    root = parse_tree("# a tree\nA:(\n  B: ( -3 D:+4 )\n  C:7 )\n")
    assert root.label == "A" and root.children[0].label == "B"
    assert [c.value for c in root.children[0].children] == [-3, 4]
    assert root.children[0].children[1].label == "D" and root.children[1].value == 7


@pytest.mark.parametrize("text, line, column", [
    ("", 1, 1),
    ("((3 4)\n (5 6)", 2, 7),
    ("(3 4))", 1, 6),
    ("()", 1, 1),
    ("(3 ())", 1, 4),
    ("(3 4.5)", 1, 5),
    ("(3 A 4)", 1, 4),
    ("(3\n  A:)", 2, 5),
    ("(3 - 4)", 1, 5),
    ("(3 4) 5", 1, 7),
    ("(3 ; 4)", 1, 4),
])
def test_malformed_trees_name_line_and_column(text, line, column):
    with pytest.raises(TreeSyntaxError) as caught:
        parse_tree(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert str(caught.value).startswith(f"line {line}, column {column}: ")


def run_engine(args, cwd, stdin=b""):
    return subprocess.run([sys.executable, "-m", "engine"] + args, cwd=cwd, input=stdin,
                          capture_output=True, env={"PYTHONPATH": str(REPO)})


def test_malformed_tree_program_exits_2_without_output_file(tmp_path):
    completed = run_engine(["tree", "-", "--svg", "out.svg"], tmp_path, b"(1 (2 3)")
    assert completed.returncode == 2 and completed.stdout == b""
    assert completed.stderr.count(b"\n") == 1 and b"line 1, column 9" in completed.stderr
    assert not (tmp_path / "out.svg").exists()


# --- pictures --------------------------------------------------------------------------
def classes(element):
    return element.get("class", "").split()


@settings(max_examples=examples(60), deadline=None)
@given(trees())
def test_svg_parses_with_one_shape_per_node_and_a_dashed_edge_per_pruned_branch(text):
    answer = TreeAnswer(parse_tree(text))
    figure = explicit_tree_figure(answer)
    document = ET.fromstring(render_svg(figure).encode("utf-8"))
    shapes = [e for e in document.iter() if "node" in classes(e)]
    assert len(shapes) == len(figure.nodes())
    total = sum(1 for _ in _walk(answer.root))
    assert len(shapes) == total                  # the whole tree is drawn
    dashed = [e for e in document.iter(SVG + "line") if "pruned" in classes(e)]
    assert len(dashed) == len(answer.pruned)
    best = [e for e in document.iter(SVG + "line") if "best" in classes(e)]
    assert len(best) == len(answer.recorder.chosen_path(answer.best))
    max_shapes = [e for e in shapes if "max" in classes(e) and "leaf" not in classes(e)]
    assert all(e.tag == SVG + "polygon" for e in max_shapes)
    dot = render_dot(figure)
    assert dot.startswith("digraph") and dot.count("style=dashed,") == len(answer.pruned)


MORRIS_CASES = [case for case in program_cases("tmmorris")
                if case.program == "tmmorris.py" and "visited.txt" in case.expected]


@pytest.mark.parametrize("case", MORRIS_CASES, ids=[case.name for case in MORRIS_CASES])
def test_picture_records_exactly_the_nodes_tmmorris_lists(case):
    """Same check for Three Men's Morris: the picture searches what tmmorris.py searched."""
    from engine.programs.picture import MorrisAdapter
    state, _, ply, turn = case.args          # tmmorris.py STATE PATH PLY TURN
    recorded, _ = recorded_listing(MorrisAdapter(), [state, ply, turn],
                                   board=lambda node: node[0])
    assert recorded == case.expected["visited.txt"].decode().splitlines()


def test_picture_of_morris_draws_boards_and_refuses_terminal_positions(tmp_path):
    completed = run_engine(["picture", "tmmorris", "x--------", "3", "o", "--svg", "m.svg"],
                           tmp_path)
    assert completed.returncode == 0, completed.stderr
    document = ET.parse(str(tmp_path / "m.svg")).getroot()
    shapes = [e for e in document.iter() if "node" in classes(e)]
    assert len([e for e in shapes if "pruned" not in classes(e)]) > 8
    terminal = run_engine(["picture", "tmmorris", "xxx-o-o--", "2", "o"], tmp_path)
    assert terminal.returncode == 2 and terminal.stderr.count(b"\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.svg"]


def test_picture_takes_the_old_name_morris_and_writes_the_one_name(tmp_path):
    """``morris`` (the program's name until the assignment and program had one) still
    draws, and what is written and printed says ``tmmorris``."""
    completed = run_engine(["picture", "morris", "x--------", "2", "o"], tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmmorris.svg"]
    assert b"tmmorris.svg" in completed.stderr and b"morris.svg" not in \
        completed.stderr.replace(b"tmmorris.svg", b"")
    unknown = run_engine(["picture", "chess", "x"], tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.decode().strip() == (
        "picture: unknown game 'chess'; pictures exist for: tictactoe, tmmorris, "
        "take_stones, stake_raid")


def _walk(node):
    yield node
    for child in node.children or ():
        yield from _walk(child)


def test_picture_of_tictactoe_draws_the_searched_tree(tmp_path):
    completed = run_engine(["picture", "tictactoe", "x--o-----", "prune", "--max-nodes",
                            "60", "--svg", "t.svg"], tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert b"capped" in completed.stderr
    document = ET.parse(str(tmp_path / "t.svg")).getroot()
    shapes = [e for e in document.iter() if "node" in classes(e)]
    visited = [e for e in shapes if "pruned" not in classes(e)]
    stubs = [e for e in shapes if "pruned" in classes(e)]
    assert 1 < len(visited) <= 60
    dashed = [e for e in document.iter(SVG + "line") if "pruned" in classes(e)]
    assert len(dashed) == len(stubs)
    assert any("capped" in (t.text or "") for t in document.iter(SVG + "text"))


# --- hillclimb ------------------------------------------------------------------------
FIVE = """M C W E S
M 0 8 3 5 4
C 8 0 6 2 9
W 3 6 0 7 5
E 5 2 7 0 3
S 4 9 5 3 0
"""


def oracle_length(tour, distance):
    return sum(distance[a, b] for a, b in zip(tour, tour[1:] + tour[:1]))


@pytest.mark.parametrize("order", list(itertools.permutations("CWES")))
def test_hillclimb_from_every_start_against_exhaustive_check(order):
    names, distance = hillclimb.parse_matrix(FIVE)
    steps = hillclimb.climb(("M",) + order, distance)
    for (tour, length), (after, after_length) in zip(steps, steps[1:]):
        swaps = [t for t in itertools.permutations(tour[1:])
                 if sum(a != b for a, b in zip(t, tour[1:])) == 2]
        shortest = min(oracle_length(("M",) + t, distance) for t in swaps)
        assert after_length == shortest < length
        assert after == min(("M",) + t for t in swaps
                            if oracle_length(("M",) + t, distance) == shortest)
    final, final_length = steps[-1]
    assert final_length == oracle_length(final, distance)
    for tour in hillclimb.neighbours(final):
        assert oracle_length(tour, distance) >= final_length
    every = [oracle_length(("M",) + t, distance) for t in itertools.permutations("CWES")]
    assert hillclimb.optimum(("M",) + order, distance)[0] == min(every)


@pytest.mark.parametrize("text, message", [
    ("A B\nA 0 1\n", "not square"),
    ("A B\nA 0 1\nB 2 0\n", "not symmetric"),
    ("A B\nA 0 -1\nB -1 0\n", "non-negative"),
    ("A B\nA 0 1 3\nB 1 0\n", "not square"),
    ("A B\nA 1 1\nB 1 0\n", "must be 0"),
    ("A B\nA 0 x\nB 1 0\n", "not a number"),
])
def test_bad_matrices_are_rejected(text, message):
    with pytest.raises(hillclimb.UsageError, match=message):
        hillclimb.parse_matrix(text)


def test_hillclimb_counts_and_unknown_name(tmp_path):
    (tmp_path / "m.txt").write_text(FIVE)
    completed = run_engine(["hillclimb", "m.txt", "--tour", "M,C,W,E,S"], tmp_path)
    assert b"neighbours of a state: 6 " in completed.stdout
    assert b"distinct states: 12 " in completed.stdout
    completed = run_engine(["hillclimb", "m.txt", "--tour", "M,C,W,E,Q"], tmp_path)
    assert completed.returncode == 2 and completed.stderr.count(b"\n") == 1


# --- picture draws what tictactoe.py searched ----------------------------------------
TICTACTOE_CASES = sorted((REPO / "fixtures" / "tictactoe").glob("case*/cmd"))


@pytest.mark.parametrize("cmd", TICTACTOE_CASES, ids=[c.parent.name for c in TICTACTOE_CASES])
def test_picture_records_exactly_the_nodes_tictactoe_lists(cmd):
    """The official visited files list every node but the root in post-order: the
    picture's recorder, uncapped, must have seen the same states with the same values."""
    from engine.programs.picture import TicTacToeAdapter
    words = cmd.read_text().split()
    args = [words[1]] + words[3:]
    recorded, visited = recorded_listing(TicTacToeAdapter(), args, board=lambda s: s)
    listed = (cmd.parent / "expected" / "visited.txt").read_text().splitlines()
    assert recorded == listed
    assert visited == len(listed) + 1


def recorded_listing(adapter, args, board):
    """The visited-file lines (``BOARD VALUE``, post-order, root left out) that picture's
    recorder saw while searching as ``adapter`` says, and the number of visited nodes."""
    from engine.searchtree import SearchTreeRecorder
    game, state, options, _ = adapter.parse(args)
    recorder = SearchTreeRecorder(game)
    search(game, state, ExactSearch(tracer=recorder, **options))

    def post_order(node):
        for child in node.children:
            yield from post_order(child)
        yield f"{board(node.state)} {node.value}"

    return list(post_order(recorder.root))[:-1], recorder.visited
