"""Stake/Raid: rules, grader moves, input errors (spec: shared/specs/stake_raid.md).

The ORACLE below is an independent, deliberately plain restatement of the rules and of
minimax on lists of strings: it shares no code with engine.games.stake_raid and serves
only to check it. It is not a second search of the product.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import UsageError
from engine.games.stake_raid import (EMPTY, MAX, MIN, OCCUPIED, RAID, StakeRaid,
                                     code_digits)
from engine.games.stake_raid import move_name
from engine.games.stake_raid_files import Problem, output_text, parse_input
from engine.games.stake_raid_files import position as setup
from engine.search import ExactSearch, search
from golden import program_cases
from thoroughness import examples



# --- the oracle -------------------------------------------------------------------------
def oracle_moves(board, player):
    """[(name, kind, new_board)] in the spec's order: Stakes row-major, then Raids."""
    n = len(board)
    enemy = "O" if player == "X" else "X"
    moves = []
    for r in range(n):
        for c in range(n):
            if board[r][c] == ".":
                grid = [list(row) for row in board]
                grid[r][c] = player
                moves.append((f"{chr(65 + c)}{r + 1}", "Stake", ["".join(g) for g in grid]))
    for r in range(n):
        for c in range(n):
            if board[r][c] != ".":
                continue
            near = [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < n and 0 <= c + dc < n]
            if not any(board[a][b] == player for a, b in near):
                continue
            grid = [list(row) for row in board]
            grid[r][c] = player
            for a, b in near:
                if grid[a][b] == enemy:
                    grid[a][b] = player
            moves.append((f"{chr(65 + c)}{r + 1}", "Raid", ["".join(g) for g in grid]))
    return moves


def oracle_score(board, values, me):
    total = 0
    for r, row in enumerate(board):
        for c, mark in enumerate(row):
            if mark == me:
                total += values[r][c]
            elif mark != ".":
                total -= values[r][c]
    return total


def oracle_value(board, values, me, to_move, depth, limit):
    if depth == limit or all("." not in row for row in board):
        return oracle_score(board, values, me)
    other = "O" if to_move == "X" else "X"
    results = [oracle_value(child, values, me, other, depth + 1, limit)
               for _, _, child in oracle_moves(board, to_move)]
    return max(results) if to_move == me else min(results)


def oracle_decision(board, values, me, limit):
    """(value, 'MOVE Kind', board after): the FIRST root move with the best value."""
    other = "O" if me == "X" else "X"
    best = None
    for name, kind, child in oracle_moves(board, me):
        value = oracle_value(child, values, me, other, 1, limit)
        if best is None or value > best[0]:
            best = (value, f"{name} {kind}", child)
    return best


# --- helpers ------------------------------------------------------------------------------
def problem_text(n, mode, player, limit, values, board):
    return (f"{n}\n{mode}\n{player}\n{limit}\n"
            + "".join(" ".join(map(str, row)) + "\n" for row in values)
            + "".join(row + "\n" for row in board))


@st.composite
def positions(draw, max_size=4):
    n = draw(st.integers(1, max_size))
    values = [[draw(st.integers(1, 99)) for _ in range(n)] for _ in range(n)]
    marks = draw(st.lists(st.sampled_from("XO.."), min_size=n * n, max_size=n * n))
    if "." not in marks:
        marks[draw(st.integers(0, n * n - 1))] = "."
    board = ["".join(marks[r * n:(r + 1) * n]) for r in range(n)]
    return n, values, board, draw(st.sampled_from("XO"))


def decide(n, mode, player, depth, values, board):
    problem = parse_input(problem_text(n, mode, player, depth, values, board))
    game, state = setup(problem)
    result = search(game, state, ExactSearch(prune=mode == "ALPHABETA", depth=depth))
    lines = output_text(problem.size, problem.player, result.action, result.child[0]).split("\n")
    return result.value, lines[0], lines[1:-1]


# --- rules ------------------------------------------------------------------------------
def without_flipless_raids(moves):
    """The oracle's moves less the Raids whose board equals the same square's Stake."""
    stakes = {name: grid for name, kind, grid in moves if kind == "Stake"}
    return [move for move in moves if move[1] == "Stake" or move[2] != stakes[move[0]]]


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(positions(max_size=6), st.booleans())
def test_successors_match_the_oracle_rules(position, flipless_raids):
    n, values, board, player = position
    problem = Problem(n, "MINIMAX", player, 1, [v for row in values for v in row], board)
    _, state = setup(problem)
    game = StakeRaid(n, problem.values, flipless_raids=flipless_raids)
    every_move = oracle_moves(board, player)
    expected = every_move if flipless_raids else without_flipless_raids(every_move)
    children = game.successors(state)
    assert [move_name(n, a) for a, _ in children] == [f"{m} {k}" for m, k, _ in expected]
    for (action, child), (_, _, grid) in zip(children, expected):
        assert output_text(problem.size, problem.player, action, child[0]).split("\n")[1:-1] == grid
        assert child[1] == oracle_score(grid, values, player)
        assert child[2] == MIN
        assert child == game.result(state, action)
    assert [move_name(n, a) for a in game.actions(state)] == \
        [f"{m} {k}" for m, k, _ in every_move]


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(positions(max_size=6), st.booleans())
def test_horizon_values_equal_the_childrens_values(position, flipless_raids):
    n, values, board, player = position
    game = StakeRaid(n, [v for row in values for v in row], flipless_raids=flipless_raids)
    codes = {".": EMPTY, "X": MAX, "O": MIN}
    for mover in (MAX, MIN):
        state = game.initial_state(bytes(codes[c] for row in board for c in row), mover)
        children = game.successors(state)
        actions, values_iter = game.horizon_values(state)
        values_list = list(values_iter)
        want = [game.terminal_value(c) if game.terminal_value(c) is not None
                else game.evaluate(c) for _, c in children]
        assert values_list == want
        assert [actions[i] for i in range(len(children))] == [a for a, _ in children]


def test_raid_that_flips_nothing_is_legal_equals_the_stake_and_is_skipped():
    for flipless_raids in (True, False):
        game = StakeRaid(2, [1, 2, 3, 4], flipless_raids=flipless_raids)
        state = game.initial_state(bytes([MAX, 0, 0, 0]), MAX)
        assert game.actions(state) == [1, 2, 3, 1 + RAID, 2 + RAID]
        assert game.result(state, 1 + RAID) == game.result(state, 1)
        assert [a for a, _ in game.successors(state)] == \
            ([1, 2, 3, 1 + RAID, 2 + RAID] if flipless_raids else [1, 2, 3])


def reachable_scores(game, state, seen):
    """(least, greatest) score of every position reachable from ``state`` (itself
    included), every legal move tried; ``seen`` checks score_bounds at each one."""
    low = high = state[1]
    for action in game.actions(state):
        child_low, child_high = reachable_scores(game, game.play(state, action), seen)
        low, high = min(low, child_low), max(high, child_high)
    bound_low, bound_high = game.score_bounds(state)
    assert bound_low <= low and high <= bound_high
    seen.append((bound_low, low, high, bound_high))
    return low, high


@pytest.mark.parametrize("seed", range(12))
def test_score_bounds_hold_for_every_reachable_position(seed):
    rng = random.Random(seed)
    size = rng.choice((3, 4))
    game = StakeRaid(size, [rng.randint(1, 99) for _ in range(size * size)])
    board = [rng.choice((MAX, MIN)) for _ in range(size * size)]
    for cell in rng.sample(range(size * size), rng.randint(1, 5)):
        board[cell] = EMPTY
    seen = []
    reachable_scores(game, game.initial_state(bytes(board), rng.choice((MAX, MIN))), seen)
    # Settled pieces count for nothing: with one empty square left, the bounds are
    # exactly its value and its neighbours' flips.
    assert any(low == bound_low or high == bound_high
               for bound_low, low, high, bound_high in seen)


def test_score_bounds_ignore_settled_pieces():
    game = StakeRaid(3, [1, 2, 3, 4, 5, 6, 7, 8, 9])
    # X X O / O . X / X O O: only B2 (5) is empty; its neighbours B1 (2, X), A2 (4, O),
    # C2 (6, X) and B3 (8, O) may flip, the corners never.
    board = bytes([MAX, MAX, MIN, MIN, EMPTY, MAX, MAX, MIN, MIN])
    state = game.initial_state(board, MAX)
    assert state[1] == 1 + 2 - 3 - 4 + 6 + 7 - 8 - 9
    assert game.score_bounds(state) == (state[1] - 5 - 2 * (2 + 6),
                                        state[1] + 5 + 2 * (4 + 8))


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(st.integers(1, 9), st.data())
def test_neighbourhood_codes_name_the_four_neighbours(size, data):
    game = StakeRaid(size, range(1, size * size + 1))
    cells = bytes(data.draw(st.lists(st.sampled_from((EMPTY, MAX, MIN)),
                                     min_size=size * size, max_size=size * size)))
    for mover in (MAX, MIN):
        codes = game.neighbourhoods(cells, mover)
        assert len(codes) == size * size
        for cell, code in enumerate(codes):
            row, column = divmod(cell, size)
            expected = []
            for r, c in ((row - 1, column), (row, column - 1), (row, column + 1),
                         (row + 1, column)):
                owner = cells[r * size + c] if 0 <= r < size and 0 <= c < size else EMPTY
                expected.append(0 if owner == EMPTY else 1 if owner == mover else 2)
            assert code_digits(code) == tuple(expected)
            assert (code >= OCCUPIED) == (cells[cell] != EMPTY)
            held = [0, 0, 0]
            for near, owner in zip(game.neighbours_by_side(cell), expected):
                if near is not None:
                    held[owner] += game.values[near]
            assert game.values_by_holder(cell, code) == (held[1], held[2])
            assert [near for near in game.neighbours_by_side(cell) if near is not None] \
                == sorted(game.neighbours[cell])


def test_node_count_of_the_reference_search():
    """Issue 4: the reference programs visit 330k nodes for the empty 5x5 MINIMAX depth 4;
    exactly the tree without flipless Raids (with them: 405,858)."""
    for flipless_raids, nodes in ((False, 330334), (True, 405858)):
        game = StakeRaid(5, list(range(1, 26)), flipless_raids=flipless_raids)
        state = game.initial_state(bytes(25), MAX)
        assert search(game, state, ExactSearch(prune=False, depth=4)).stats.nodes == nodes


def test_terminal_only_when_full():
    game = StakeRaid(1, [7])
    assert game.terminal_value(game.initial_state(bytes([EMPTY]), MAX)) is None
    assert game.terminal_value(game.initial_state(bytes([MIN]), MAX)) == -7


# --- grader moves -------------------------------------------------------------------------
@settings(max_examples=examples(120), deadline=None)
@given(positions(max_size=4), st.integers(1, 3))
def test_minimax_and_alphabeta_choose_the_oracles_move(position, depth):
    n, values, board, player = position
    want_value, want_move, want_board = oracle_decision(board, values, player, depth)
    for mode in ("MINIMAX", "ALPHABETA"):
        value, move, after = decide(n, mode, player, depth, values, board)
        assert (move, after) == (want_move, want_board), mode
        assert value == want_value


def test_alphabeta_equals_minimax_on_many_random_boards():
    """The property of issue 4 item 5, on a fixed sample of deeper searches (no oracle)."""
    rng = random.Random(4)
    for _ in range(60):
        n = rng.randint(2, 5)
        values = [[rng.randint(1, 99) for _ in range(n)] for _ in range(n)]
        board = ["".join(rng.choice("XO...") for _ in range(n)) for _ in range(n)]
        if all("." not in row for row in board):
            continue
        player, depth = rng.choice("XO"), rng.randint(1, 4 if n <= 4 else 3)
        assert decide(n, "MINIMAX", player, depth, values, board) == \
            decide(n, "ALPHABETA", player, depth, values, board)


def as_text(data):
    """Bytes as ``Path.read_text`` gives them (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def small_fixture_cases():
    cases = []
    for case in program_cases("stake_raid"):
        if case.exit != 0 or "input.txt" not in case.files:
            continue
        problem = parse_input(as_text(case.files["input.txt"]))
        if problem.mode != "COMPETITION" and (problem.size <= 5 or problem.limit == 1):
            # the oracle needs seconds for a depth-4 5x5 search: those go to the sweeps
            slow = (pytest.mark.slow,) if problem.limit >= 4 and problem.size >= 4 else ()
            cases.append(pytest.param(case, marks=slow, id=case.name))
    return cases


@pytest.mark.parametrize("case", small_fixture_cases())
def test_golden_outputs_agree_with_the_oracle(case):
    """Every expected output.txt we can afford to recompute independently is right."""
    problem = parse_input(as_text(case.files["input.txt"]))
    n = problem.size
    values = [problem.values[r * n:(r + 1) * n] for r in range(n)]
    _, move, after = oracle_decision(problem.board, values, problem.player, problem.limit)
    assert as_text(case.expected["output.txt"]) == "\n".join([move] + after) + "\n"


# --- input errors ---------------------------------------------------------------------------
GOOD = problem_text(2, "ALPHABETA", "X", 3, [[1, 2], [3, 4]], ["X.", ".O"])


def replace_line(text, number, new):
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


@pytest.mark.parametrize("number, new", [
    (1, "0"), (1, "27"), (1, "-3"), (1, "2.0"), (2, "alphabeta"), (2, "MINIMAX2"),
    (3, "x"), (3, "XO"), (4, "0"), (4, "-1"), (4, "three"), (4, "1e3"),
    (5, "1 100"), (5, "0 2"), (6, "1 2 3"), (6, "3"), (7, "X"), (8, ".Q"), (8, "..."),
])
def test_bad_lines_are_reported_with_their_number(number, new):
    with pytest.raises(UsageError, match=rf"line {number}\b"):
        parse_input(replace_line(GOOD, number, new))


def test_line_count_and_full_board_errors():
    with pytest.raises(UsageError, match="line 8 .* missing"):
        parse_input("\n".join(GOOD.split("\n")[:7]))
    with pytest.raises(UsageError, match="line 9: unexpected extra line"):
        parse_input(GOOD + "X.\n")
    with pytest.raises(UsageError, match="board is full"):
        parse_input(replace_line(replace_line(GOOD, 7, "XO"), 8, "OO"))


def test_lenient_input_and_competition_time():
    text = GOOD.replace("\n", " \r\n") + "\r\n\r\n"
    assert parse_input(text) == parse_input(GOOD)
    problem = parse_input(replace_line(replace_line(GOOD, 2, "COMPETITION"), 4, "12.5"))
    assert problem.limit == 12.5
    with pytest.raises(UsageError, match="line 4"):
        parse_input(replace_line(replace_line(GOOD, 2, "COMPETITION"), 4, "nan"))


@pytest.mark.slow
def test_alphabeta_equals_minimax_sweep():
    """A wider sweep of the same property: 600 random boards up to 6x6, depths 1..4."""
    rng = random.Random(561)
    for _ in range(600):
        n = rng.randint(1, 6)
        values = [[rng.randint(1, 99) for _ in range(n)] for _ in range(n)]
        board = ["".join(rng.choice("XO..") for _ in range(n)) for _ in range(n)]
        if all("." not in row for row in board):
            continue
        player, depth = rng.choice("XO"), rng.randint(1, 4 if n <= 4 else 3)
        minimax = decide(n, "MINIMAX", player, depth, values, board)
        assert minimax == decide(n, "ALPHABETA", player, depth, values, board)
        if n <= 3:
            want_value, want_move, want_board = oracle_decision(board, values, player, depth)
            assert minimax == (want_value, want_move, want_board)
