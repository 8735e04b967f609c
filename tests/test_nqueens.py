"""N-Queens game (spec: shared/specs/nqueens.md): rules, known values, search agreement,
the exact solver, cut-off tables, the CLI's formats and errors.

The oracle below is a tiny memoised plain minimax over the game's own rules, written here
only as an independent check of engine.search and of the solver.
"""

import io
import re
import subprocess
import sys
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from engine.games.nqueens import AnySquare, ColumnByColumn, make_game, reverse_bits
from engine.programs.nqueens import program
from engine.search import INF, ExactSearch, TableSearch, TranspositionTable, search
from golden import REPO
from thoroughness import examples

KNOWN_1A = [1, 1, 1, -1, 1, 1, 1, -1, -1, 1, 1, 1, 1, -1]          # N = 1..14
KNOWN_1B = {1: 1, 2: 1, 3: 1, 4: -2, 10: 7}
VARIATION_2_PLAYER_1_WINS = {n: n not in (10, 12) for n in range(1, 13)}
FIRST_OPENING_ROWS = [0, 0, 1, 0]                                   # N = 1..4


def oracle_values(game):
    """{opening: exact value} by plain memoised minimax (children valued independently)."""

    @lru_cache(maxsize=None)
    def value(state):
        terminal = game.terminal_value(state)
        if terminal is not None:
            return terminal
        values = [value(child) for _, child in game.successors(state)]
        return max(values) if game.is_maxs_turn(state) else min(values)

    return {action: value(child) for action, child in game.successors(game.initial_state())}


def oracle_value_and_first_best(game):
    values = oracle_values(game)
    best = max(values.values())
    first = next(action for action, v in values.items() if v == best)
    return best, first


# --- rules ----------------------------------------------------------------------------------

def play_out(game, choices):
    """States along a game where move i is actions[choices[i] % len(actions)]."""
    state = game.initial_state()
    states = [state]
    for choice in choices:
        if game.is_terminal(state):
            break
        actions = game.actions(state)
        state = game.result(state, actions[choice % len(actions)])
        states.append(state)
    return states


def attacks(a, b):
    return a[0] == b[0] or a[1] == b[1] or a[0] - a[1] == b[0] - b[1] or \
        a[0] + a[1] == b[0] + b[1]


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["1a", "1b", "2"]), st.integers(1, 9),
       st.lists(st.integers(0, 80), max_size=12))
def test_moves_are_legal_and_utilities_follow_the_last_placer(variation, size, choices):
    game = make_game(variation, size)
    states = play_out(game, choices)
    board = {}
    for number, state in enumerate(states):
        assert game.queens_placed(state) == number
        assert game.is_maxs_turn(state) == (number % 2 == 0) != game.is_mins_turn(state)
        if number:
            squares = list(game.board(state))
            new = set(squares) - set(board)
            assert len(new) == 1
            square = new.pop()
            assert not any(attacks(square, other) for other in board)
            if variation != "2":
                assert square[1] == number - 1       # left-most empty column
            board = dict.fromkeys(squares)
    last = states[-1]
    if game.is_terminal(last):
        assert game.actions(last) == []
        k = game.queens_placed(last)
        magnitude = k if variation == "1b" else 1
        assert game.utility(last) == (magnitude if k % 2 else -magnitude)
        if variation != "2" and k < size:
            assert not game.free_rows(last)
    else:
        assert game.actions(last)


@pytest.mark.parametrize("variation", ["1a", "1b", "2"])
def test_illegal_moves_are_refused(variation):
    game = make_game(variation, 4)
    state = game.result(game.initial_state(), ("X", 0) if variation != "2" else ("X", 0, 0))
    bad = ("O", 1) if variation != "2" else ("O", 1, 1)
    with pytest.raises(ValueError):
        game.result(state, bad)


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["1a", "1b", "2"]), st.integers(1, 12),
       st.lists(st.integers(0, 200), max_size=8))
def test_evaluation_stays_inside_the_utility_range(variation, size, choices):
    game = make_game(variation, size)
    bound = size if variation == "1b" else 1
    for state in play_out(game, choices):
        if not game.is_terminal(state):
            value = game.eval(state)
            assert -bound < value < bound
            assert value == game.evaluate(state)       # deterministic, same alias


def test_cutoff_test_checks_terminal_first():
    game = make_game("1a", 2)
    terminal = game.result(game.initial_state(), ("X", 0))
    assert game.is_terminal(terminal)
    assert game.cutoff_test(terminal, 0, limit=5)
    start = game.initial_state()
    assert not game.cutoff_test(start, 3)            # no limit: never cut a live state
    assert game.cutoff_test(start, 3, limit=3) and not game.cutoff_test(start, 2, limit=3)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 10), st.lists(st.integers(0, 99), max_size=9))
def test_column_key_merges_mirror_images(size, choices):
    game = ColumnByColumn(size, "1a")
    last = size - 1
    plain = game.initial_state()
    mirrored = plain
    for state in play_out(game, choices)[1:]:
        row = state[0][-1]
        plain = game.result(plain, ("?", row))
        mirrored = game.result(mirrored, ("?", last - row))
        assert game.key(plain) == game.key(mirrored)
        assert game.terminal_value(plain) == game.terminal_value(mirrored)
    assert reverse_bits(0b0011, 4) == 0b1100


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 7), st.lists(st.integers(0, 99), max_size=6), st.integers(0, 7))
def test_square_key_merges_all_eight_symmetries(size, choices, transform):
    game = AnySquare(size, symmetry=True)
    image = game.image[transform]
    plain = game.initial_state()
    moved = plain
    for state in play_out(game, choices)[1:]:
        action = next(a for a, child in game.successors(plain) if child[1] == state[1])
        square = action[1] * size + action[2]
        plain = state
        moved = game.result(moved, ("?",) + divmod(image[square], size))
        assert game.key(plain) == game.key(moved)


# --- known values ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", range(1, 15))
def test_variation_1a_known_values(size):
    value, _, _ = program.solve_size("1a", size)
    assert value == KNOWN_1A[size - 1]
    if size <= 10:
        assert search(make_game("1a", size), make_game("1a", size).initial_state()
                      ).value == KNOWN_1A[size - 1]


@pytest.mark.parametrize("size", sorted(KNOWN_1B))
@pytest.mark.parametrize("prune", [False, True])
def test_variation_1b_known_values(size, prune):
    game = make_game("1b", size)
    assert search(game, game.initial_state(), ExactSearch(prune=prune)).value == KNOWN_1B[size]


# The largest board of each sweep takes 4-5 s: make test-all.
@pytest.mark.parametrize("size", [*range(1, 11), pytest.param(11, marks=pytest.mark.slow)])
def test_variation_2_known_winners(size):
    game = make_game("2", size, symmetry=True)
    result = search(game, game.initial_state(), TableSearch(table=TranspositionTable(),
                                                            order=game.solver_order))
    assert (result.value == 1) == VARIATION_2_PLAYER_1_WINS[size]


@pytest.mark.slow
def test_variation_2_known_winner_12():
    game = make_game("2", 12, symmetry=True)
    result = search(game, game.initial_state(), TableSearch(table=TranspositionTable(),
                                                            order=game.solver_order))
    assert result.value == -1


@pytest.mark.parametrize("variation", ["1a", "1b"])
@pytest.mark.parametrize("prune", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_first_best_openings(variation, prune, size):
    game = make_game(variation, size)
    action = search(game, game.initial_state(), ExactSearch(prune=prune)).action
    assert action == ("X", FIRST_OPENING_ROWS[size - 1])


def test_minimax_node_count_at_10():
    game = make_game("1a", 10)
    assert search(game, game.initial_state(), ExactSearch(prune=False)).stats.nodes == 35539


@pytest.mark.slow
def test_minimax_node_count_at_12():
    game = make_game("1a", 12)
    assert search(game, game.initial_state(), ExactSearch(prune=False)).stats.nodes == 856189


# --- minimax == alpha-beta, and both == the oracle ------------------------------------------

@pytest.mark.parametrize("variation", ["1a", "1b"])
@pytest.mark.parametrize("size", range(1, 10))
def test_minimax_equals_alphabeta_columns(variation, size):
    game = make_game(variation, size)
    plain = search(game, game.initial_state(), ExactSearch(prune=False))
    pruned = search(game, game.initial_state(), ExactSearch(prune=True))
    assert (plain.value, plain.action) == (pruned.value, pruned.action)
    assert (plain.value, plain.action) == oracle_value_and_first_best(game)


def variation_2_minimax(size):
    # Minimax (no pruning) through engine.search; the transposition table only merges
    # equal positions reached by different move orders, so values stay exact minimax.
    game = make_game("2", size)
    return search(game, game.initial_state(), TableSearch(prune=False, table=TranspositionTable()))


@pytest.mark.parametrize("size", [*range(1, 8), pytest.param(8, marks=pytest.mark.slow)])
def test_minimax_equals_alphabeta_any_square(size):
    game = make_game("2", size)
    plain = variation_2_minimax(size)
    pruned = search(game, game.initial_state(), ExactSearch(prune=True))
    assert (plain.value, plain.action) == (pruned.value, pruned.action)
    if size <= 6:
        assert (plain.value, plain.action) == oracle_value_and_first_best(game)


@pytest.mark.slow
def test_minimax_equals_alphabeta_any_square_9():
    game = make_game("2", 9)
    plain = variation_2_minimax(9)
    pruned = search(game, game.initial_state(), ExactSearch(prune=True))
    assert (plain.value, plain.action) == (pruned.value, pruned.action)


# --- the solver -------------------------------------------------------------------------------

@pytest.mark.parametrize("variation,sizes", [("1a", range(1, 10)), ("1b", range(1, 10)),
                                             ("2", range(1, 6))])
def test_solver_matches_plain_search_on_every_opening(variation, sizes):
    for size in sizes:
        game = make_game(variation, size)
        values = oracle_values(game)
        best = max(values.values())
        value, openings, nodes = program.solve_size(variation, size)
        assert value == best
        assert openings == [action for action, v in values.items() if v == best]
        assert nodes >= 1


@pytest.mark.parametrize("size", [6, 7])
def test_solver_matches_alphabeta_on_every_opening_any_square(size):
    game = make_game("2", size)
    root = game.initial_state()
    values = {action: search(game, child).value for action, child in game.successors(root)}
    best = max(values.values())
    assert program.solve_size("2", size)[:2] == (
        best, [action for action, v in values.items() if v == best])


@pytest.mark.parametrize("variation,size", [("1a", 11), ("1a", 12), ("1b", 11), ("1b", 12),
                                            ("2", 8)])
def test_solver_value_matches_alphabeta(variation, size):
    game = make_game(variation, size)
    assert program.solve_size(variation, size)[0] == search(game, game.initial_state()).value


def test_solver_reports_progress_through_the_clock():
    stream = io.StringIO()
    clock = program.ProgressClock(stream, check_every=16, first=0.0, every=0.0)
    clock.restart("variation 1a N=9")
    program.solve_size("1a", 9, clock)
    assert "nqueens solve: variation 1a N=9" in stream.getvalue()
    assert clock.calls > 0


# --- cut-off tables ------------------------------------------------------------------------------

@pytest.mark.parametrize("variation", ["1a", "1b", "2"])
@pytest.mark.parametrize("search_name", ["minimax", "alphabeta"])
def test_cutoff_tables_are_exact_up_to_4(variation, search_name):
    exact = list(program.table_lines(variation, search_name, None, [1, 2, 3, 4], False))
    cut = list(program.table_lines(variation, search_name, 4, [1, 2, 3, 4], False))
    assert cut == exact


@pytest.mark.parametrize("variation", ["1a", "1b"])
def test_cutoff_minimax_equals_alphabeta(variation):
    for size in range(5, 15):
        game = make_game(variation, size)
        plain = search(game, game.initial_state(), ExactSearch(prune=False, depth=4))
        pruned = search(game, game.initial_state(), ExactSearch(prune=True, depth=4))
        assert (plain.value, plain.action) == (pruned.value, pruned.action)


# --- the CLI --------------------------------------------------------------------------------------

def run_cli(*arguments, stdin=""):
    return subprocess.run([sys.executable, "-m", "engine", "nqueens", *arguments],
                          cwd=REPO, input=stdin, capture_output=True, text=True, timeout=120)


def test_table_with_time_column_format():
    completed = run_cli("table", "--variation", "1a", "--search", "minimax", "--sizes", "1-3")
    assert completed.returncode == 0
    lines = completed.stdout.splitlines()
    assert lines[0] == "Size  Minimax Value  Best Opening Move  Time in Seconds"
    assert re.fullmatch(r"1     1              \('X', 0\)           [0-9.e+-]+", lines[1])
    assert len(lines) == 4


def test_help_and_bad_arguments():
    helped = run_cli("--help")
    assert helped.returncode == 0 and "nqueens table" in helped.stdout
    for arguments in (["table", "--cutoff", "-1"], ["solve", "--variation", "1a"],
                      ["play", "--size", "0", "--variation", "1a", "--p1", "human",
                       "--p2", "human"], ["table", "--sizes", "1-65"],
                      ["scenarios", "--search", "dfs"], ["table", "extra"]):
        completed = run_cli(*arguments)
        assert completed.returncode == 2, arguments
        assert completed.stdout == ""
        assert len(completed.stderr.splitlines()) == 1, completed.stderr
        assert completed.stderr.startswith("nqueens: ")


def test_a4_output_is_not_written_on_error(tmp_path):
    target = tmp_path / "missing" / "A4_output.txt"
    completed = run_cli("a4", "--output", str(target))
    assert completed.returncode == 2 and not target.exists()


def test_play_human_end_of_input_is_clean():
    completed = run_cli("play", "--size", "3", "--variation", "1a", "--p1", "human",
                        "--p2", "random", stdin="")
    assert completed.returncode == 0
    assert completed.stdout.endswith("End of input: game abandoned.\n")


@pytest.mark.slow
def test_scenarios_minimax_and_alphabeta_agree():
    minimax = list(program.scenario_lines("1a", False))
    alphabeta = list(program.scenario_lines("1a", True))
    assert minimax == alphabeta
    assert minimax[0] == "N  Cut-off P1  Cut-off P2  Win/Loss P1"
    assert len(minimax) == 9


# --- the engine change this program relies on -------------------------------------------------

def test_root_entry_of_a_narrowed_window_is_a_bound():
    """engine.search stores the root's table entry with a bound flag when the root's value
    reaches its window (it used to be stored as EXACT whatever the window)."""
    from engine.search import EXACT, LOWER, UPPER
    game = make_game("1a", 5)
    root = game.initial_state()
    for window, flag in (((-INF, 0), LOWER), ((-INF, INF), EXACT)):
        table = TranspositionTable()
        value = search(game, root, TableSearch(window=window, table=table)).value
        assert value == 1 or window[1] == 0
        assert table[game.key(root)][2] == flag
    table = TranspositionTable()
    losing = game.result(root, ("X", 0))        # Player 2 to move; value 1 (Player 1 wins)
    search(game, losing, TableSearch(window=(2, INF), table=table))
    assert table[game.key(losing)][2] == UPPER


@pytest.mark.parametrize("variation,size", [("1a", 10), ("1b", 9), ("2", 6)])
def test_value_only_gives_one_of_the_optimal_openings(variation, size):
    value, openings, _ = program.solve_size(variation, size)
    quick_value, (opening,), _ = program.solve_size(variation, size, all_openings=False)
    assert quick_value == value and opening in openings


@pytest.mark.parametrize("variation,size", [("1a", 12), ("1b", 11), ("2", 7)])
def test_a_tiny_bounded_table_changes_no_result(variation, size):
    assert program.solve_size(variation, size, table_entries=40)[:2] == \
        program.solve_size(variation, size)[:2]


def test_bounded_table_evicts_the_lightest_entries():
    table = program.BoundedTable(4, weight=lambda key: key)
    for key in (5, 1, 4, 2):
        table[key] = (INF, 0, 0, None)
    table[9] = (INF, 0, 0, None)              # full: keys of weight <= 2 go first
    assert sorted(table) == [4, 5, 9] and table.evictions == 2
