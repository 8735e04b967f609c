"""The TakeStones listings (engine/programs/take_stones/listing.py): node records and their
text, rewriting varying stones, and whole traces against the oracle for any n the
records fit, including positions far from a new game.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import take_stones_oracle as oracle
from engine.games.take_stones import TakeStones
from engine.programs.take_stones.program import BoundedMemo
from engine.programs.take_stones.listing import RecordLayout, RecordListing, TextListing
from engine.search import ExactSearch, search
from thoroughness import examples

VALUES = (-1000, 1000, -100, 100)     # every alpha and beta of a search to the end
LARGEST_N = 79                        # records fit up to here (2-bit lanes)


def stone_sets(n):
    return st.sets(st.integers(1, n), max_size=n).map(lambda s: sum(1 << i for i in s))


def stones_of(mask):
    return {s for s in range(1, mask.bit_length()) if mask >> s & 1}


@pytest.mark.parametrize("n, width, size", [
    (1, 5, 4), (28, 5, 8), (29, 5, 8), (30, 4, 10), (47, 4, 14), (48, 3, 20),
    (63, 3, 24), (64, 2, 36), (LARGEST_N, 2, 42)])
def test_lane_width_is_the_widest_that_fits(n, width, size):
    layout = RecordLayout(n, VALUES)
    assert layout.fits and (layout.lane_bits, layout.record_size) == (width, size)


def test_records_do_not_fit_past_79_stones_or_with_too_many_bound_pairs():
    assert not RecordLayout(LARGEST_N + 1, VALUES).fits
    assert not RecordLayout(28, range(20)).fits            # 400 pairs


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data(), st.integers(1, LARGEST_N))
def test_a_record_reads_as_its_node_block(data, n):
    layout = RecordLayout(n, VALUES)
    blocks = []
    records = b""
    for _ in range(data.draw(st.integers(1, 4))):
        available = data.draw(stone_sets(n))
        last = data.draw(st.integers(0, n))
        alpha, beta = data.draw(st.sampled_from(VALUES)), data.draw(st.sampled_from(VALUES))
        record = layout.record(last, available, alpha, beta)
        assert len(record) == layout.record_size
        records += record
        blocks.append(oracle.block(stones_of(available), last or None, alpha, beta))
    assert layout.to_text(records).decode() == "".join(blocks)


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data(), st.integers(1, LARGEST_N))
def test_substitution_sets_exactly_the_varying_stones(data, n):
    layout = RecordLayout(n, VALUES)
    varying = data.draw(stone_sets(n))
    present = varying & data.draw(stone_sets(n))
    nodes = [(data.draw(st.integers(0, n)), data.draw(stone_sets(n)),
              data.draw(st.sampled_from(VALUES)), data.draw(st.sampled_from(VALUES)))
             for _ in range(3)]
    records = b"".join(layout.record(*node) for node in nodes)
    expected = b"".join(layout.record(last, available & ~varying | present, alpha, beta)
                        for last, available, alpha, beta in nodes)
    assert records.translate(layout.substitution(varying, present)) == expected


def trace(listing_class, n, available, last, max_to_move, budget, max_segment, flush):
    """The search's trace of the position with a fresh listing and memo (str)."""
    merged = listing_class is RecordListing
    game = TakeStones(n, evaluations=False, split=merged)
    state = game.state(available, last, max_to_move)
    memo = BoundedMemo(budget)
    written = []
    options = dict(sink=written.append, memo=memo, max_segment=max_segment,
                   flush_chars=flush)
    listing = (RecordListing(game, RecordLayout(n, VALUES), **options) if merged
               else TextListing(game, **options))
    search(game, state, ExactSearch(prune=True, window=(-1000, 1000), tracer=listing, memo=memo,
                                    memo_key=game.subtree_key if merged else None))
    listing.flush()
    return b"".join(written).decode()


def small_position(rng, n):
    """A position with about a dozen stones left, mostly small numbers (which divide
    many others), and a last move that can be answered: a game neither trivial nor too
    big for the oracle."""
    pool = list(range(1, n + 1))
    rng.shuffle(pool)
    near = [s for s in range(2, 13) if s <= n]
    chosen = set(rng.sample(near, min(len(near), rng.randint(3, 8))))
    chosen |= set(pool[:rng.randint(0, 5)])
    related = [s for s in range(1, n + 1) if s not in chosen
               and any(s % c == 0 or c % s == 0 for c in chosen)]
    last = rng.choice(related or [s for s in range(1, n + 1) if s not in chosen] or [0])
    return sum(1 << s for s in chosen), last, rng.random() < 0.5


@pytest.mark.parametrize("listing_class, n", [
    (listing_class, n) for listing_class in (RecordListing, TextListing)
    for n in (12, 29, 30, 47, 48, 64, LARGEST_N, 100)
    if listing_class is TextListing or n <= LARGEST_N])
def test_traces_of_positions_far_from_a_new_game_match_the_oracle(listing_class, n):
    """Every lane width, tiny memo budgets and flushes (trims and cut segments)."""
    rng = random.Random(n)
    for case in range(12):
        available, last, max_to_move = small_position(rng, n)
        budget, max_segment, flush = [(1 << 20, 1 << 12, 1 << 10), (2000, 400, 100),
                                      (0, 1 << 15, 64)][case % 3]
        out = []
        oracle.alphabeta(n, stones_of(available), last or None, max_to_move, n + 1,
                         -1000, 1000, out)
        assert trace(listing_class, n, available, last, max_to_move, budget, max_segment,
                     flush) == "".join(out), (available, last, max_to_move)
