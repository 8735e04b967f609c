"""The named pieces engine.search is built of, each alone, and the two node functions
against each other: the table node (engine.tablenode) with none of its pieces in use
visits exactly the exact node's nodes, in the same order, with the same bounds."""

import random

import pytest

from search_helpers import NestedTree, random_tree

from engine.errors import EngineError, SearchOptionError, SearchTimeout
from engine.search import TimeLimit, TranspositionTable, search
from engine.searchparts import (EXACT, INF, LOWER, UPPER, TableEntry, bound_flag, bulk_value,
                                cut_piece, deadline_check, hint_first, horizon_piece,
                                memoised, table_answer)
from engine.selective import Selective
from engine.trace import Tracer, TraceRecorder


class RandomTree(NestedTree):
    """A tree given as nested tuples (ints are leaves); states are paths. Interior nodes
    on a cut-off are valued by the sum of their path (any deterministic number)."""

    def evaluate(self, path):
        return sum(path) - 3


class Events(TraceRecorder):
    """Every event, as text."""

    def enter(self, state, action, depth, alpha, beta):
        self.chunks.append(f"> {state} {action} {depth} {alpha} {beta}\n")

    def leave(self, state, action, depth, value, alpha, beta, kind):
        self.chunks.append(f"< {state} {depth} {value} {alpha} {beta} {kind}\n")

    def pruned(self, state, depth, actions):
        self.chunks.append(f"x {state} {depth} {actions}\n")


@pytest.mark.parametrize("seed", range(40))
def test_the_table_node_without_pieces_is_the_exact_node(seed):
    """A time limit that never ends sends the search through engine.tablenode: the
    trace (every enter, leave and pruned event with its bounds) and the counts are the
    exact node's. Fails if the table node's visit order, cut test or window update
    differs."""
    rng = random.Random(seed)
    game = RandomTree(random_tree(rng, 6))
    prune = seed % 2 == 0
    depth = (None, 2, 3, 4)[seed % 4]
    window = ((-INF, INF), (-3, 4))[seed % 3 == 0]
    exact, extended = Events(), Events()
    a = search(game, (), prune=prune, depth=depth, window=window, tracer=exact)
    b = search(game, (), prune=prune, depth=depth, window=window, tracer=extended,
               time_limit=TimeLimit(INF, lambda: 0.0, 1))
    assert extended.text() == exact.text()
    assert (b.value, b.action, b.root_values) == (a.value, a.action, a.root_values)
    assert (b.stats.nodes, b.stats.evaluations, b.stats.terminals, b.stats.cutoffs) == \
        (a.stats.nodes, a.stats.evaluations, a.stats.terminals, a.stats.cutoffs)


def test_memoised_alone_counts_replays_and_calls_the_node_once_per_key():
    calls = []
    evaluations = [0]

    def node(state, action, d, alpha, beta):
        calls.append(state)
        if d < 2:
            return visit(state + "a", "a", d + 1, alpha, beta) + 1
        evaluations[0] += 1
        return 10

    visit, counts = memoised(node, lambda: evaluations[0], {}, lambda s: len(s), 5, None)
    assert visit("x", None, 0, -INF, INF) == 12
    assert visit("y", None, 0, -INF, INF) == 12          # same key: replayed
    assert calls == ["x", "xa", "xaa"]
    assert counts() == (1, 3, 1)    # one hit standing for 3 nodes and 1 evaluation


def test_table_answer_needs_depth_and_a_bound_outside_the_window():
    assert table_answer(TableEntry(3, 5, EXACT, None), 3, -INF, INF) == 5
    assert table_answer(TableEntry(2, 5, EXACT, None), 3, -INF, INF) is None
    assert table_answer(TableEntry(4, 5, LOWER, None), 3, 0, 5) == 5
    assert table_answer(TableEntry(4, 5, LOWER, None), 3, 0, 6) is None
    assert table_answer(TableEntry(4, 0, UPPER, None), 3, 0, 6) == 0
    assert table_answer(TableEntry(4, 1, UPPER, None), 3, 0, 6) is None
    assert table_answer((INF, 7, EXACT, "m"), 30, -INF, INF) == 7    # a plain tuple too


def test_bound_flag_and_the_tables_best_action():
    assert [bound_flag(v, 0, 10) for v in (-1, 0, 5, 10, 11)] == \
        [UPPER, UPPER, EXACT, LOWER, LOWER]
    table = TranspositionTable()
    table["k"] = (3, 5, EXACT, "move")
    assert table.best_action("k") == "move" and table.best_action("other") is None
    assert TableEntry._make(table["k"]).best == "move"


def test_bulk_value_is_the_child_loop_on_values():
    assert bulk_value([3, 9, 1], True, True, -INF, 5) == (9, 1, -2)     # cut at 9 >= 5
    assert bulk_value([3, 4, 1], True, True, -INF, 5) == (4, 1, 3)
    assert bulk_value([3, 4, 1], True, False, 3, INF) == (3, 0, -1)     # 3 <= alpha
    assert bulk_value(iter([3, 4, 1]), False, False, 3, INF) == (1, 2, 3)


def test_hint_first_moves_only_the_hinted_child():
    children = [("a", 1), ("b", 2), ("c", 3)]
    assert hint_first(children, "c") == [("c", 3), ("a", 1), ("b", 2)]
    assert hint_first(children, "z") == children


def test_deadline_check_reads_the_clock_only_when_called():
    now = [0.0]
    check = deadline_check(5.0, lambda: now[0], 100)
    assert check(100) == 200
    now[0] = 5.0
    with pytest.raises(SearchTimeout):
        check(200)


def test_cut_and_horizon_pieces_count():
    seen = []

    class Skipped(Tracer):
        def pruned(self, state, depth, actions):
            seen.append((state, depth, actions))

    cut, count = cut_piece(Skipped())
    cut("s", 2, iter([("x", 1), ("y", 2)]))
    cut("t", 1, iter([]))
    assert count() == 2 and seen == [("s", 2, ["x", "y"])]
    leaves = []
    bulk, counts = horizon_piece(lambda state: (["a", "b"], [4, 7]), True,
                                 lambda state, d, n: leaves.append((state, d, n)))
    assert bulk("s", 3, True, -INF, 6) == 7
    assert counts() == (2, 1) and leaves == [("s", 3, 2)]
    assert horizon_piece(None, True, None)[0] is None


def test_selective_pieces_bound_to_a_fake_search():
    visits = []

    def visit(state, action, d, alpha, beta):
        visits.append((state, d, alpha, beta))
        return 50 if len(visits) == 1 else 10 * len(visits)

    cut = Selective(probcut=(2, 1, 10)).cutter(visit, 6, None)
    assert cut("s", "m", 1, -INF, 30, True, None, None) == 30        # 50 >= 30 + 10
    assert visits == [("s", 2, 39, 40)]
    assert Selective(probcut=(9, 1, 10)).cutter(visit, 6, None)(
        "s", "m", 1, -INF, 30, True, None, None) is None             # 5 levels left < 9
    assert Selective().cutter(visit, 6, None) is None
    table = {"k": (5, 1, EXACT, "deep")}
    shallow = {"k": (1, 2, EXACT, "shallow")}

    def storing_visit(state, action, d, alpha, beta):
        table.update(shallow)
        return 0
    Selective(probcut=(2, 3, 10)).cutter(storing_visit, 6, table)(
        "s", "m", 0, -INF, 30, True, "k", (5, 1, EXACT, "deep"))
    assert table["k"][3] == "deep"      # the probe's shallower entry did not replace it
    reduce = Selective(reduce=(1, 2)).reducer(visit)
    visits.clear()
    assert reduce([("a", "A"), ("b", "B")], 1, -INF, INF, True) == (50, "a", 0)
    assert [v[:2] for v in visits] == [("A", 1), ("B", 3)]     # 20 < alpha: kept
    visits.clear()
    visits.append("start")          # values 20, 30 (reduced: > alpha 20), 40
    assert reduce([("a", "A"), ("b", "B")], 1, -INF, INF, True) == (40, "b", 0)
    assert [v[:2] for v in visits[1:]] == [("A", 1), ("B", 3), ("B", 1)]


def test_options_that_do_not_go_together_are_a_typed_error():
    game = RandomTree((1, 2))
    for options in (dict(tracer=Tracer(), selective=Selective()),
                    dict(memo={}, table=TranspositionTable()),
                    dict(memo={}, time_limit=TimeLimit(INF))):
        with pytest.raises(SearchOptionError) as raised:
            search(game, (), **options)
        assert isinstance(raised.value, EngineError)
        assert isinstance(raised.value, ValueError)     # callers catching ValueError
