"""COMPETITION mode of Stake/Raid: time budgeting and play, driven by fake clocks only."""

import itertools
import random

import pytest

from engine.games.stake_raid import EMPTY, MAX, MIN, StakeRaid
from engine.programs.stake_raid.player import (FINISH, FINISH_FRACTION, SAFETY, STARTUP_COST,
                                            BoundedTable, competition_move, greedy_move,
                                            move_budget, moves_left, order_by_score,
                                            table_for)
from engine.search import ExactSearch, search


class FakeClock:
    """A clock that advances ``step`` seconds every time it is read."""

    def __init__(self, step=0.0, start=100.0):
        self.now = start
        self.step = step
        self.reads = 0

    def __call__(self):
        self.reads += 1
        self.now += self.step
        return self.now


def random_state(rng, n, fill=0.4, mover=MAX):
    game = StakeRaid(n, [rng.randint(1, 99) for _ in range(n * n)])
    cells = [rng.choice((MAX, MIN)) if rng.random() < fill else EMPTY for _ in range(n * n)]
    if EMPTY not in cells:
        cells[0] = EMPTY
    return game, game.initial_state(bytes(cells), mover)


def legal(game, state, action):
    return action in game.actions(state)


@pytest.mark.parametrize("seconds_left", [-1.0, 0.0, 0.001, 0.05, 0.5, 3.0, 60.0, 1e4])
@pytest.mark.parametrize("our_moves", [1, 2, 10, 338])
def test_budget_leaves_the_start_up_of_every_later_run(seconds_left, our_moves):
    budget = move_budget(seconds_left, our_moves)
    assert budget >= 0.0
    if budget > 0:
        assert budget + STARTUP_COST * (our_moves - 1) + SAFETY <= seconds_left + 1e-12


def test_a_whole_game_of_full_budgets_never_runs_out():
    """Each run uses all its budget (at least the start-up): the clock never runs out
    as long as the game's time covers the bare start-up of every run."""
    for total, moves in itertools.product((0.5, 2.0, 30.0, 300.0, 3000.0), (1, 5, 40, 338)):
        if total <= (STARTUP_COST + SAFETY) * moves:
            continue
        left = total
        for remaining in range(moves, 0, -1):
            left -= max(move_budget(left, remaining), STARTUP_COST)
            assert left > 0, (total, moves, remaining)


def test_moves_left_counts_our_half_of_the_empty_squares():
    assert moves_left(bytes([EMPTY] * 5)) == 3
    assert moves_left(bytes([EMPTY, MAX, EMPTY, MIN])) == 1


def test_the_deadline_is_honoured_with_a_fake_clock():
    rng = random.Random(7)
    step = 1e-3
    for n in (3, 6, 12, 26):
        game, state = random_state(rng, n)
        clock = FakeClock(step=step)
        seconds_left = 0.5 + 0.1 * moves_left(state[0])
        move = competition_move(game, state, seconds_left, clock=clock, spent=0.05)
        assert legal(game, state, move.action)
        assert move.child == game.result(state, move.action)
        assert move.budget > 0 and move.depth >= 1
        # the search stops at its first deadline check past the deadline (plus the few
        # reads that close the iteration)
        assert move.seconds <= (move.budget - 0.05) * (1 - FINISH_FRACTION) - FINISH + 5 * step


def test_no_time_at_all_still_plays_the_greedy_move():
    rng = random.Random(8)
    game, state = random_state(rng, 8)
    clock = FakeClock(step=1000.0)  # every read jumps far past any deadline
    move = competition_move(game, state, 1.0, clock=clock)
    assert legal(game, state, move.action)
    assert (move.action, move.child) == greedy_move(game, state)
    for seconds_left, spent in ((0.0, 0.0), (0.1, 0.0), (5.0, 4.0)):
        instant = competition_move(game, state, seconds_left, clock=FakeClock(), spent=spent)
        assert (instant.action, instant.child) == greedy_move(game, state)
        assert instant.nodes == 0


def test_greedy_move_is_the_first_best_one_ply_move():
    rng = random.Random(9)
    for _ in range(30):
        game, state = random_state(rng, rng.randint(1, 6), mover=rng.choice((MAX, MIN)))
        action, child = greedy_move(game, state)
        scores = [c[1] for _, c in game.successors(state)]
        best = max(scores) if state[2] == MAX else min(scores)
        assert game.successors(state)[scores.index(best)] == (action, child)


def test_with_ample_time_it_plays_a_perfect_move_on_small_boards():
    rng = random.Random(10)
    for _ in range(8):
        game, state = random_state(rng, rng.randint(2, 3), fill=0.4)
        empties = state[0].count(EMPTY)
        move = competition_move(game, state, 1e6, clock=FakeClock(step=0.0))
        exact = search(game, state, ExactSearch(prune=True, depth=empties)).value
        reply = search(game, move.child, ExactSearch(prune=True, depth=empties)).value
        assert reply == exact


def test_ordering_is_a_permutation_best_first_with_the_hint_in_front():
    rng = random.Random(11)
    game, state = random_state(rng, 5)
    children = game.successors(state)
    ordered = order_by_score(state, children, None, 0)
    assert sorted(ordered) == sorted(children)
    scores = [c[1] for _, c in ordered]
    assert scores == sorted(scores, reverse=True)
    hint = children[-1][0]
    assert order_by_score(state, children, hint, 0)[0][0] == hint


def test_the_bounded_table_stops_growing_but_keeps_updating():
    table = BoundedTable(2)
    table["a"], table["b"], table["c"] = 1, 2, 3
    table["a"] = 4
    assert table == {"a": 4, "b": 2}
    assert table_for(676).capacity > 100000
