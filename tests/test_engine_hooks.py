"""Engine hooks on small trees (hand-made, and random ones for memo keys): ARD, iterative
deepening, time limits, windows, memo keys (the selective hooks of agents:
tests/test_selective.py)."""

import random

import pytest

from search_helpers import NestedTree, random_tree

from engine.errors import SearchTimeout
from engine.iterative import iterative_deepening
from engine.search import (EVALUATED, INF, INTERIOR, ExactSearch, TableSearch, TimeLimit,
                           TranspositionTable, search)
from engine.trace import RecursionDepthTracer, Tracer, TraceRecorder, Tracers


AIMA_FIGURE_5_2 = ((3, 12, 8), (2, 4, 6), (14, 5, 2))


def test_aima_figure_5_2_values_and_pruning():
    game = NestedTree(AIMA_FIGURE_5_2)
    plain, pruned = search(game, (), ExactSearch(prune=False)), search(game, ())
    assert plain.value == pruned.value == 3 and plain.action == pruned.action == 0
    assert plain.stats.nodes == 13 and pruned.stats.nodes == 11


# The spec's worked example of average recursion depth (line_em_up.md): A has children
# B, J, M (leaf, depth 1), N (leaf, 1); B -> C, F (leaf, 2), G; C -> D, E; G -> H, I;
# J -> K, L. Every leaf is a heuristic evaluation. 0 marks a leaf.
WORKED = (((0, 0), 0, (0, 0)), (0, 0), 0, 0)


def replay_events(tracer, node, depth=0):
    """Feed ``tracer`` the post-order events of a search that visits all of ``node``."""
    tracer.enter(node, None, depth, -INF, INF)
    if isinstance(node, tuple):
        for child in node:
            replay_events(tracer, child, depth + 1)
        tracer.leave(node, None, depth, 0, -INF, INF, INTERIOR)
    else:
        tracer.leave(node, None, depth, 0, -INF, INF, EVALUATED)


def test_average_recursion_depth_on_the_spec_example():
    tracer = RecursionDepthTracer()
    replay_events(tracer, WORKED)
    assert tracer.root_ard == pytest.approx((8 / 3 + 2 + 1 + 1) / 4)
    assert round(tracer.root_ard, 2) == 1.67
    depths = tracer.evaluation_depths
    assert depths == {1: 2, 2: 3, 3: 4}
    assert round(sum(d * n for d, n in depths.items()) / sum(depths.values()), 2) == 2.22


def test_average_recursion_depth_from_a_real_search():
    # Terminal leaves count as their own depth, like evaluated ones.
    tracer = RecursionDepthTracer()
    search(NestedTree(WORKED), (), ExactSearch(prune=False, tracer=tracer))
    assert round(tracer.root_ard, 2) == 1.67


def test_iterative_deepening_with_an_injected_clock_stops_at_the_deadline():
    game = NestedTree(((((1, 2), (3, 4)), ((5, 6), (7, 8))), (((9, 1), (2, 3)), ((4, 5), (6, 7)))))
    ticks = [0.0]

    def clock():
        ticks[0] += 1.0   # every look at the clock costs one "second"
        return ticks[0]

    full = iterative_deepening(game, (), TableSearch(depth=10, time_limit=TimeLimit(INF, clock)))
    assert full.solved and not full.timed_out and full.value == search(game, (),
                                                                       ExactSearch(prune=False)).value
    ticks[0] = 0.0
    rushed = iterative_deepening(game, (), TableSearch(depth=10, time_limit=TimeLimit(6.0, clock)))
    assert rushed.timed_out and 0 < rushed.depth < full.depth
    assert rushed.action is not None


def test_search_raises_timeout_past_the_deadline():
    game = NestedTree(AIMA_FIGURE_5_2)
    with pytest.raises(SearchTimeout):
        search(game, (), TableSearch(time_limit=TimeLimit(0.0, lambda: 1.0, 1)))


def test_min_root_and_fan_out_tracers():
    game = NestedTree(AIMA_FIGURE_5_2, max_root=False)
    first, second = RecursionDepthTracer(), RecursionDepthTracer()
    result = search(game, (), ExactSearch(tracer=Tracers(first, second)))
    assert result.value == search(game, (), ExactSearch(prune=False)).value == 6
    assert first.root_ard == second.root_ard


def test_table_bounds_stay_sound_when_a_narrowed_window_is_reached():
    """Regression: v started at the window's edge, so a child searched with an empty window
    (alpha == beta == the edge) cut at once and stored the edge as an unproved bound."""
    from engine.search import EXACT, LOWER, UPPER

    game = NestedTree(((5, 7), (9, 8), (6, 2)))
    table = TranspositionTable()
    search(game, (), TableSearch(window=(-INF, 5), table=table))
    assert table, "the search stored entries"
    for path, (_, value, flag, _) in table.items():
        true = search(game, path, ExactSearch(prune=False)).value
        if flag == EXACT:
            assert value == true, path
        elif flag == LOWER:
            assert true >= value, path
        else:
            assert flag == UPPER and true <= value, path


class LazyNestedTree(NestedTree):
    """NestedTree whose successors are a generator that logs each child it builds."""

    def __init__(self, tree):
        super().__init__(tree)
        self.built = []

    def successors(self, path):
        for index in range(len(self.node(path))):
            self.built.append(path + (index,))
            yield index, path + (index,)


class PrunedLog(Tracer):
    def __init__(self):
        self.events = []

    def pruned(self, state, depth, actions):
        self.events.append((state, depth, list(actions)))


def test_generator_successors_are_pulled_only_up_to_a_cut():
    lists, lazy = NestedTree(AIMA_FIGURE_5_2), LazyNestedTree(AIMA_FIGURE_5_2)
    listed_log, lazy_log = PrunedLog(), PrunedLog()
    expected = search(lists, (), ExactSearch(tracer=listed_log))
    found = search(lazy, (), ExactSearch(tracer=lazy_log))
    assert (found.value, found.action, found.stats.nodes) == (expected.value, expected.action,
                                                              expected.stats.nodes)
    # The cut under the second root child skips (1, 1) and (1, 2): reported, built only
    # for the report (a tracer that ignores pruned gets them never built).
    assert lazy_log.events == listed_log.events == [((1,), 1, [1, 2])]
    quiet = LazyNestedTree(AIMA_FIGURE_5_2)
    search(quiet, ())
    assert (1, 1) not in quiet.built and (1, 2) not in quiet.built
    assert len(quiet.built) == 10


@pytest.mark.parametrize("seed", [None, *range(20)])
def test_a_memo_key_merges_states_and_replays_them_as_the_full_search(seed):
    """A memo replays whole subtrees: the same text and the same node and evaluation
    counts as a search without it. The tree repeats one branch three times: paths
    differ, but the memo key ignores the path's first move, so the three branches share
    memo entries (a memo keyed by the state itself replays nothing here), and the
    recorder is told the state each replay stands for. Seed None: the hand-made branch
    (1, 2), searched by minimax in full; else a random branch and search."""
    if seed is None:
        branch, depth, prune = (1, 2), None, False
    else:
        branch = random_tree(random.Random(seed), 4)
        depth = (None, 3)[seed % 2]
        prune = seed % 3 == 0   # minimax: every branch has the same window, and hits

    class Repeated(NestedTree):
        def evaluate(self, path):
            return sum(path[1:]) - 3        # what the memo key keeps

    class Recorder(TraceRecorder):
        def __init__(self):
            super().__init__()
            self.replayed_for = []

        def leave(self, state, action, depth, value, alpha, beta, kind):
            self.chunks.append(f"{state[1:]} {value} {alpha} {beta} {kind}\n")

        def pruned(self, state, depth, actions):
            self.chunks.append(f"x {state[1:]} {depth} {actions}\n")

        def replay(self, segment, state=None):
            self.replayed_for.append(state)
            super().replay(segment, state)

    game = Repeated(tuple(branch for _ in range(3)))
    plain, unmerged, merged = Recorder(), Recorder(), Recorder()
    a = search(game, (), ExactSearch(prune=prune, depth=depth, tracer=plain))
    by_state = search(game, (), ExactSearch(prune=prune, depth=depth, tracer=unmerged, memo={}))
    b = search(game, (), ExactSearch(prune=prune, depth=depth, tracer=merged, memo={},
                                     memo_key=lambda path: path[1:]))
    assert merged.text() == unmerged.text() == plain.text()
    assert prune or b.stats.memo_hits > 0
    assert (b.stats.nodes, b.stats.evaluations) == (a.stats.nodes, a.stats.evaluations)
    assert unmerged.replayed_for == [] and by_state.value == b.value == a.value
    if not prune:
        assert merged.replayed_for == [(1,), (2,)]
    if seed is None:
        assert b.value == 1
