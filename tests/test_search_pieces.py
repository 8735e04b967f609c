"""The named pieces engine.search is built of, each alone, and the one node with its
players' pieces in place but idle (a time limit that never comes): it visits exactly the
grader modes' nodes, in the same order, with the same bounds."""

import random

import pytest

from search_helpers import NestedTree, random_tree

from engine.entries import TableEntry
from engine.errors import SearchTimeout
from engine.search import ExactSearch, TableSearch, TimeLimit, TranspositionTable, search
from engine.searchparts import (EXACT, INF, LOWER, UPPER, Counts, bound_flag, bulk_value,
                                child_loop, deadline_check, hint_first, memoised,
                                table_answer)
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
def test_a_time_limit_that_never_comes_changes_nothing(seed):
    """A TableSearch whose time limit never comes (its clock read at every node) visits
    what the ExactSearch visits: the trace (every enter, leave and pruned event with its
    bounds) and the counts are the same. Fails if the deadline piece changes the visit
    order, the cut test or the window."""
    rng = random.Random(seed)
    game = RandomTree(random_tree(rng, 6))
    prune = seed % 2 == 0
    depth = (None, 2, 3, 4)[seed % 4]
    window = ((-INF, INF), (-3, 4))[seed % 3 == 0]
    exact, extended = Events(), Events()
    a = search(game, (), ExactSearch(prune=prune, depth=depth, window=window, tracer=exact))
    b = search(game, (), TableSearch(prune=prune, depth=depth, window=window, tracer=extended,
                                     time_limit=TimeLimit(INF, lambda: 0.0, 1)))
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


def tally():
    return Counts(0, 0, 0, 0, 0, 0)


def test_bulk_value_is_the_child_loop_on_values():
    counted = tally()
    assert bulk_value([3, 9, 1], True, True, -INF, 5, counted) == (9, 1, 2)   # cut at 9 >= 5
    assert (counted.nodes, counted.evaluations, counted.cutoffs) == (2, 2, 1)
    assert bulk_value([3, 4, 1], True, True, -INF, 5, counted) == (4, 1, 3)
    assert bulk_value([3, 4, 1], True, False, 3, INF, counted) == (3, 0, 1)   # 3 <= alpha
    assert bulk_value([5, 4, 4], True, False, 3, INF, counted) == (4, 1, 3)   # first of equals
    assert bulk_value(iter([3, 4, 1]), False, False, 3, INF, counted) == (1, 2, 3)
    assert (counted.nodes, counted.cutoffs) == (12, 2)


def loop_over(values, prune=True, tracer=None):
    """The child loop on children whose values are ``values`` (a child is its value)."""
    visits = []
    counted = tally()

    def visit(child, action, depth, alpha, beta):
        visits.append((action, depth, alpha, beta))
        return child
    children = [(f"a{index}", value) for index, value in enumerate(values)]
    return child_loop(visit, prune, counted, tracer), children, visits, counted


def test_child_loop_keeps_the_first_best_and_cuts_before_the_update():
    loop, children, visits, counted = loop_over([3, 7, 7, 9])
    assert loop("s", 2, children, -INF, 8, True) == (9, "a3", 7, 8)   # 9 >= beta: cut
    assert visits == [("a0", 3, -INF, 8), ("a1", 3, 3, 8), ("a2", 3, 7, 8), ("a3", 3, 7, 8)]
    assert counted.cutoffs == 1
    loop, children, visits, counted = loop_over([3, 7, 7, 9])
    assert loop("s", 2, children, -INF, INF, True) == (9, "a3", 9, INF)
    assert loop("s", 2, children, 5, INF, False) == (3, "a0", 5, INF)  # 3 <= alpha: cut
    assert loop("s", 2, children[1:], -INF, INF, False) == (7, "a1", -INF, 7)
    assert counted.cutoffs == 1
    loop, children, visits, counted = loop_over([3, 7, 7, 9], prune=False)
    assert loop("s", 2, children, -INF, 0, True) == (9, "a3", -INF, 0)  # minimax: no cut
    assert len(visits) == 4 and counted.cutoffs == 0


def test_child_loop_reports_the_children_a_cut_skipped():
    seen = []

    class Skipped(Tracer):
        def pruned(self, state, depth, actions):
            seen.append((state, depth, actions))

    loop, children, visits, counted = loop_over([3, 9, 1, 2], tracer=Skipped())
    assert loop("s", 2, children, -INF, 5, True)[0] == 9
    assert seen == [("s", 2, ["a2", "a3"])]
    loop, children, visits, counted = loop_over([3, 9], tracer=Skipped())
    loop("t", 1, children, -INF, 5, True)     # the cut skipped nothing: no report
    assert seen == [("s", 2, ["a2", "a3"])] and counted.cutoffs == 1


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
