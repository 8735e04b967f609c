"""The search's options are one typed value (engine.searchoptions): each kind holds only
what goes together, so a combination the search cannot honour cannot be written."""

import random

import pytest

from search_helpers import NestedTree, random_tree

from engine.iterative import iterative_deepening
from engine.search import (INF, ExactSearch, SearchOptions, SelectiveSearch, TableSearch,
                           TimeLimit, TranspositionTable, search)
from engine.selective import Selective
from engine.trace import Tracer

TREE = ((3, 12, 8), (2, 4, 6), (14, 5, 2))      # AIMA Figure 5.2


# What a kind refuses: a tracer for an agent (its trace would not be a spec's visit
# order), a memo for anything but the exact search (it would replay subtrees a table or
# the agent's hooks value otherwise), an agent's hooks for anything but its own kind.
REFUSED = [
    (SelectiveSearch, dict(hooks=Selective(), tracer=Tracer())),
    (SelectiveSearch, dict(hooks=Selective(), memo={})),
    (TableSearch, dict(memo={})),
    (TableSearch, dict(memo_key=len)),
    (TableSearch, dict(hooks=Selective())),
    (ExactSearch, dict(table=TranspositionTable())),
    (ExactSearch, dict(time_limit=TimeLimit(INF))),
    (ExactSearch, dict(hooks=Selective())),
]


@pytest.mark.parametrize("kind, fields", REFUSED)
def test_a_kind_cannot_be_built_with_what_it_refuses(kind, fields):
    with pytest.raises(TypeError, match="unexpected keyword"):
        kind(**fields)


@pytest.mark.parametrize("kind, fields", REFUSED)
def test_nor_changed_into_it(kind, fields):
    given = dict(hooks=Selective()) if kind is SelectiveSearch else {}
    options = kind(**given)
    extra = {name: value for name, value in fields.items() if name not in given}
    with pytest.raises(TypeError, match="unexpected keyword"):
        options.but(**extra)
    for name, value in extra.items():
        with pytest.raises(AttributeError):
            setattr(options, name, value)
        assert getattr(options, name) is None       # what a kind lacks reads None


def test_but_copies_with_changes_and_keeps_the_kind():
    table = TranspositionTable()
    options = TableSearch(prune=False, depth=3, table=table)
    deeper = options.but(depth=5)
    assert type(deeper) is TableSearch
    assert (deeper.prune, deeper.depth, deeper.table) == (False, 5, table)
    assert options.depth == 3 and deeper != options and deeper.but(depth=3) == options
    assert SearchOptions.fields() == ("prune", "depth", "window", "order")
    assert SelectiveSearch.fields()[-3:] == ("hooks", "table", "time_limit")


def test_a_selective_search_needs_its_hooks():
    with pytest.raises(TypeError):
        SelectiveSearch()       # type: ignore[call-arg]


def test_deepening_gives_a_tracer_to_a_table_search_only():
    game = NestedTree(TREE)
    tracers = []

    def tracer_for(depth):
        tracers.append(Tracer())
        return tracers[-1]
    found = iterative_deepening(game, (), TableSearch(depth=2), tracer_for=tracer_for)
    assert found.depth == 2 and len(tracers) == 2
    with pytest.raises(TypeError, match="unexpected keyword"):
        iterative_deepening(game, (), SelectiveSearch(hooks=Selective(), depth=2),
                            tracer_for=tracer_for)


def test_no_options_is_alphabeta_to_the_end():
    game = NestedTree(TREE)
    default, explicit = search(game, ()), search(game, (), ExactSearch(prune=True))
    assert (default.value, default.action, default.stats.nodes) == (3, 0, 11)
    assert (explicit.value, explicit.stats.nodes) == (3, 11)
    assert search(game, (), ExactSearch(prune=False)).stats.nodes == 13


@pytest.mark.parametrize("seed", range(20))
def test_idle_pieces_of_each_kind_change_nothing(seed):
    """An empty table is the exact search when it answers nothing; empty hooks are it
    too. Their values, moves and counts on random trees equal the exact search's."""
    rng = random.Random(seed)
    game = NestedTree(random_tree(rng, 6))
    depth = (None, 2, 3, 4)[seed % 4]
    for prune in (True, False):
        exact = search(game, (), ExactSearch(prune=prune, depth=depth))
        idle = search(game, (), SelectiveSearch(hooks=Selective(), prune=prune, depth=depth))
        timed = search(game, (), TableSearch(prune=prune, depth=depth,
                                             time_limit=TimeLimit(INF, lambda: 0.0, 1)))
        for other in (idle, timed):
            assert (other.value, other.action, other.root_values) == \
                (exact.value, exact.action, exact.root_values)
            assert (other.stats.nodes, other.stats.evaluations, other.stats.cutoffs) == \
                (exact.stats.nodes, exact.stats.evaluations, exact.stats.cutoffs)
