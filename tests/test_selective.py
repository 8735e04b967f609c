"""The selective hooks of game-playing agents (engine.selective), each against its contract
written out plainly, on a tree of arbitrary values (ProbeTree)."""

import pytest

from engine.game import Game
from engine.iterative import iterative_deepening
from engine.search import INF, ExactSearch, SelectiveSearch, TranspositionTable, search
from engine.selective import Selective


class ProbeTree(Game):
    """Test game: every node has ``width`` children, nothing ends; a node at the cut-off
    is valued by a fixed pseudo-random function of its path, so a shallower search of
    the same node usually gives another value."""

    def __init__(self, width=3):
        self.width = width

    def actions(self, path):
        return list(range(self.width))

    def result(self, path, index):
        return path + (index,)

    def is_terminal(self, path):
        return False

    def utility(self, path):
        raise AssertionError("no node ends")

    def is_maxs_turn(self, path):
        return len(path) % 2 == 0

    def evaluate(self, path):
        total = sum((index + 1) * (7 * position + 3) for position, index in enumerate(path))
        return total % 23 - 11


def reference_node(maximizing, actions, alpha, beta, value_of):
    """One alpha-beta node written out plainly: ``value_of(action, alpha, beta)`` is the
    value of each child in turn, searched with the window the earlier ones left."""
    v = -INF if maximizing else INF
    for action in actions:
        cv = value_of(action, alpha, beta)
        if maximizing:
            v = max(v, cv)
            if v >= beta:
                return v
            alpha = max(alpha, v)
        else:
            v = min(v, cv)
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v


def reference_root(width, value_of):
    """(root_values, (action, value)) of a Max root that never cuts: it keeps the first
    strictly best child, every child searched with the window the earlier ones left
    (``value_of(action, alpha)``, beta infinite)."""
    alpha, best, root_values = -INF, None, []
    for index in range(width):
        value = value_of(index, alpha)
        root_values.append((index, value))
        if best is None or value > best[1]:
            best = (index, value)
        alpha = max(alpha, value)
    return root_values, best


def reduced_reference(game, path, d, limit, alpha, beta, after, plies):
    """The ``reduce`` contract of engine.selective written out plainly (below the root)."""
    if d >= limit:
        return game.evaluate(path)
    maximizing = game.is_maxs_turn(path)

    def value_of(index, alpha, beta):
        child = game.result(path, index)
        if index >= after and limit - (d + 1) > plies:
            cv = reduced_reference(game, child, d + 1 + plies, limit, alpha, beta, after, plies)
            if not ((cv > alpha) if maximizing else (cv < beta)):
                return cv
        return reduced_reference(game, child, d + 1, limit, alpha, beta, after, plies)

    return reference_node(maximizing, game.actions(path), alpha, beta, value_of)


@pytest.mark.parametrize("width, depth, after, plies",
                         [(3, 5, 1, 1), (3, 6, 1, 2), (4, 5, 2, 1), (4, 6, 2, 2), (3, 4, 0, 1),
                          # deep enough that searching 1 ply shallower instead of 2 or 3
                          # gives other values
                          (3, 7, 1, 2), (4, 7, 0, 3)])
def test_late_move_reductions_follow_their_contract(width, depth, after, plies):
    game = ProbeTree(width)
    found = search(game, (), SelectiveSearch(hooks=Selective(reduce=(after, plies)), depth=depth))
    # The root is never reduced.
    expected, best = reference_root(width, lambda index, alpha: reduced_reference(
        game, (index,), 1, depth, alpha, INF, after, plies))
    assert found.root_values == expected
    assert (found.action, found.value) == best
    # Reductions change this tree's answers (else the comparison above proves little).
    plain = search(game, (), ExactSearch(depth=depth))
    assert found.root_values != plain.root_values
    assert found.stats.nodes != plain.stats.nodes


def test_late_move_reductions_past_the_last_child_change_nothing():
    game = ProbeTree(3)
    plain = search(game, (), ExactSearch(depth=5))
    same = search(game, (), SelectiveSearch(hooks=Selective(reduce=(3, 2)), depth=5))
    assert (same.value, same.action, same.root_values, same.stats.nodes) == (
        plain.value, plain.action, plain.root_values, plain.stats.nodes)


def test_late_move_reductions_are_off_without_pruning():
    game = ProbeTree(3)
    plain = search(game, (), ExactSearch(prune=False, depth=4))
    same = search(game, (), SelectiveSearch(hooks=Selective(reduce=(1, 1)), prune=False, depth=4))
    assert (same.root_values, same.stats.nodes) == (plain.root_values, plain.stats.nodes)


# Cuts at the first child (3, 4, 0), at the last one (3, 5, 6), and never (3, 4, 5).
@pytest.mark.parametrize("width, depth, threshold", [(3, 4, 0), (3, 5, 6), (3, 4, 5)])
def test_root_cut_stops_at_the_first_child_past_the_window(width, depth, threshold):
    game = ProbeTree(width)
    plain = search(game, (), ExactSearch(depth=depth, window=(threshold - 1, threshold + 1)))
    cut = search(game, (), SelectiveSearch(hooks=Selective(root_cut=True), depth=depth,
                                           window=(threshold - 1, threshold + 1)))
    # The root's children in order, each searched with the window the earlier ones left:
    # the first one at or past beta ends the search and is the move.
    first = next((index for index, (_, value) in enumerate(plain.root_values)
                  if value >= threshold + 1), None)
    if first is None:
        assert cut.root_values == plain.root_values
        assert (cut.action, cut.value) == (plain.action, plain.value)
    else:
        assert cut.root_values == plain.root_values[:first + 1]
        assert (cut.action, cut.value) == plain.root_values[first]
        assert cut.value >= threshold + 1


def test_root_cut_needs_a_win_to_stop_and_helps_a_null_window_test():
    game = ProbeTree(4)
    exact = search(game, (), ExactSearch(depth=5))
    below = exact.value - 1      # some move reaches exact.value > below: a cut is due
    plain = search(game, (), ExactSearch(depth=5, window=(below - 1, below + 1)))
    cut = search(game, (), SelectiveSearch(hooks=Selective(root_cut=True), depth=5,
                                           window=(below - 1, below + 1)))
    assert cut.value >= below + 1 and len(cut.root_values) < 4
    assert cut.stats.nodes < plain.stats.nodes
    # No move reaches a bound above the true value: the root searches every move.
    above = exact.value + 1
    none = search(game, (), SelectiveSearch(hooks=Selective(root_cut=True), depth=5,
                                            window=(above - 1, above + 1)))
    assert len(none.root_values) == 4 and none.value <= above - 1


def probcut_reference(game, path, d, limit, alpha, beta, left, plies, margin):
    """The ``probcut`` contract of engine.selective written out plainly (below the root)."""
    if d >= limit:
        return game.evaluate(path)
    maximizing = game.is_maxs_turn(path)
    if limit - d >= left:
        if maximizing and beta < INF:
            edge = beta + margin
            if probcut_reference(game, path, d + plies, limit, edge - 1, edge,
                                 left, plies, margin) >= edge:
                return beta
        elif not maximizing and alpha > -INF:
            edge = alpha - margin
            if probcut_reference(game, path, d + plies, limit, edge, edge + 1,
                                 left, plies, margin) <= edge:
                return alpha
    return reference_node(
        maximizing, game.actions(path), alpha, beta,
        lambda index, alpha, beta: probcut_reference(
            game, game.result(path, index), d + 1, limit, alpha, beta, left, plies, margin))


@pytest.mark.parametrize("width, depth, left, plies, margin",
                         [(3, 6, 3, 2, 0), (3, 6, 4, 2, 3), (4, 6, 3, 1, 2), (3, 7, 4, 3, 1),
                          (3, 5, 2, 2, -2),
                          # one unit more or less margin gives other values here
                          (3, 6, 2, 2, 0), (3, 5, 2, 1, -2)])
def test_probcut_follows_its_contract(width, depth, left, plies, margin):
    game = ProbeTree(width)
    found = search(game, (), SelectiveSearch(hooks=Selective(probcut=(left, plies, margin)),
                                             depth=depth))
    expected, best = reference_root(width, lambda index, alpha: probcut_reference(
        game, (index,), 1, depth, alpha, INF, left, plies, margin))
    assert found.root_values == expected
    assert (found.action, found.value) == best
    # Shallow searches cut in this tree (else the comparison above proves little).
    plain = search(game, (), ExactSearch(depth=depth))
    assert found.stats.nodes != plain.stats.nodes


def test_probcut_beyond_every_value_only_costs_positions():
    # No shallow search can reach a margin wider than the range of values: the answers
    # stay those of the plain search, and the shallow searches are extra positions.
    game = ProbeTree(3)
    plain = search(game, (), ExactSearch(depth=6))
    probed = search(game, (), SelectiveSearch(hooks=Selective(probcut=(3, 2, 100)), depth=6))
    assert (probed.root_values, probed.value, probed.action) == (
        plain.root_values, plain.value, plain.action)
    assert probed.stats.nodes > plain.stats.nodes


def test_a_probe_leaves_the_deeper_table_entry_of_an_earlier_iteration():
    # ProbeTree has no transpositions, so across the iterations of a deepening a node's
    # entry only ever gets deeper: a probe's shallower entry must not stay in its place.
    game = ProbeTree(3)
    table = TranspositionTable()
    shallower = []
    seen = {}

    def check(iteration):
        for key, entry in table.items():
            if entry[0] < seen.get(key, entry[0]):
                shallower.append((iteration.depth, key, seen[key], entry[0]))
            seen[key] = entry[0]

    kept = iterative_deepening(game, (), SelectiveSearch(hooks=Selective(probcut=(3, 2, 0)),
                                                         depth=7, table=table), on_iteration=check)
    assert seen and not shallower
    # Every iteration completed, with cuts (else the check proves little).
    assert kept.depth == 7 and kept.stats.cutoffs > 0


def test_probcut_is_off_without_pruning():
    game = ProbeTree(3)
    plain = search(game, (), ExactSearch(prune=False, depth=4))
    same = search(game, (), SelectiveSearch(hooks=Selective(probcut=(2, 1, 0)), prune=False,
                                            depth=4))
    assert (same.root_values, same.stats.nodes) == (plain.root_values, plain.stats.nodes)


def leaf_range(game, path, limit):
    """(least, greatest) cut-off value below ``path``: true bounds of its subtree."""
    if len(path) >= limit:
        value = game.evaluate(path)
        return value, value
    ranges = [leaf_range(game, game.result(path, index), limit)
              for index in game.actions(path)]
    return min(low for low, _ in ranges), max(high for _, high in ranges)


def bounds_reference(game, path, d, limit, alpha, beta, bounds):
    """The ``bounds`` contract of engine.selective written out plainly (below the root)."""
    if d >= limit:
        return game.evaluate(path)
    low, high = bounds(path)
    if high <= alpha:
        return high
    if low >= beta:
        return low
    return reference_node(
        game.is_maxs_turn(path), game.actions(path), alpha, beta,
        lambda index, alpha, beta: bounds_reference(
            game, game.result(path, index), d + 1, limit, alpha, beta, bounds))


@pytest.mark.parametrize("width, depth, window", [(3, 5, (-INF, INF)), (2, 6, (-INF, INF)),
                                                   (4, 6, (-5, 5)), (2, 8, (0, 1))])
def test_static_bounds_follow_their_contract_and_keep_the_answer(width, depth, window):
    game = ProbeTree(width)
    bounds = lambda path: leaf_range(game, path, depth)   # noqa: E731
    found = search(game, (), SelectiveSearch(hooks=Selective(bounds=bounds), depth=depth,
                                             window=window))
    expected, best = reference_root(width, lambda index, alpha: bounds_reference(
        game, (index,), 1, depth, max(alpha, window[0]), window[1], bounds))
    assert found.root_values == expected
    assert (found.action, found.value) == best
    # True bounds never change the answer, only the work: the same exact value inside
    # the window, or a bound on the same side of it.
    plain = search(game, (), ExactSearch(depth=depth, window=window))
    low, high = window
    if low < plain.value < high:
        assert (found.action, found.value) == (plain.action, plain.value)
    else:
        assert (found.value <= low) == (plain.value <= low)
        assert (found.value >= high) == (plain.value >= high)
    assert found.stats.nodes < plain.stats.nodes


def test_static_bounds_that_lie_change_the_answer_and_need_pruning():
    game = ProbeTree(3)
    plain = search(game, (), ExactSearch(depth=5))
    # A bound claiming every subtree is worth at most -100 cuts everything at once.
    lying = search(game, (), SelectiveSearch(hooks=Selective(bounds=lambda path: (-200, -100)),
                                             depth=5, window=(-50, 50)))
    assert lying.value == -100 and lying.stats.nodes == 4
    assert plain.value != -100
    # Without pruning (the grader's minimax) bounds are ignored.
    plain = search(game, (), ExactSearch(prune=False, depth=5))
    same = search(game, (), SelectiveSearch(hooks=Selective(bounds=lambda path: (-200, -100)),
                                            prune=False, depth=5))
    assert (same.root_values, same.stats.nodes) == (plain.root_values, plain.stats.nodes)

