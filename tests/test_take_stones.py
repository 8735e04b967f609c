"""Take-Stones: rules, evaluation, trace and error contract (spec: shared/specs/take_stones.md).

The program's output is compared with tests/take_stones_oracle.py, a slow independent
transcription of the assignment's program (sets, no bit masks, no memo, its own tiny
recursive alpha-beta) that is used only here.
"""

import hashlib
import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import take_stones_oracle as oracle
from engine.games.take_stones import TakeStones, union_lists
from engine.programs.take_stones import program
from engine.search import EVALUATED, TERMINAL, ExactSearch, search
from engine.trace import Tracer
from golden import program_cases
from thoroughness import examples

REPO = Path(__file__).resolve().parent.parent


def run(capsys, *words):
    """Run the program in-process: (exit code, stdout, stderr)."""
    code = program.main([str(word) for word in words])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- rules ------------------------------------------------------------------------------

@pytest.mark.parametrize("n, first_moves", [
    (1, []), (2, []), (3, [1]), (4, [1]), (5, [1]), (6, [1]), (7, [1, 3]), (8, [1, 3]),
    (10, [1, 3]), (11, [1, 3, 5]), (12, [1, 3, 5]),
])
def test_first_moves_are_odd_and_below_half(n, first_moves):
    game = TakeStones(n)
    assert game.actions(game.initial_state()) == first_moves


def random_state(data, n):
    """A reachable-looking state: any available set not holding the last move."""
    game = TakeStones(n)
    last = data.draw(st.integers(1, n))
    others = [s for s in range(1, n + 1) if s != last]
    available = data.draw(st.sets(st.sampled_from(others))) if others else set()
    max_turn = data.draw(st.booleans())
    mask = sum(1 << s for s in available)
    return game, game.state(mask, last, max_turn), available, last, max_turn


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data(), st.integers(1, 40))
def test_moves_terminal_value_and_evaluation_match_the_oracle(data, n):
    game, state, available, last, max_turn = random_state(data, n)
    expected_moves = oracle.moves(n, available, last)
    assert game.actions(state) == expected_moves
    assert [stone for stone, _ in game.successors(state)] == expected_moves
    assert game.available_stones(state) == sorted(available)
    assert game.last_move(state) == last and game.is_maxs_turn(state) == max_turn
    for stone, child in game.successors(state):
        assert child == game.result(state, stone)
        assert game.available_stones(child) == sorted(available - {stone})
        assert game.last_move(child) == stone and game.is_maxs_turn(child) != max_turn
    if expected_moves:
        assert game.terminal_value(state) is None
        assert game.evaluate(state) == oracle.static_value(n, available, last)
    else:
        assert game.terminal_value(state) == (-100 if max_turn else 100)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, (1 << 40) - 1), min_size=1, max_size=33), st.data())
def test_union_lists_give_the_union_of_the_masks_of_a_set(masks, data):
    """Three 11-bit lists cover sets of up to 33 members; members past the masks add
    nothing."""
    first, second, third = union_lists(masks, 3)
    members = data.draw(st.integers(0, (1 << 33) - 1))
    expected = 0
    for index, mask in enumerate(masks):
        if members >> index & 1:
            expected |= mask
    assert first[members & 0x7FF] | second[members >> 11 & 0x7FF] | third[members >> 22] \
        == expected


@settings(max_examples=examples(200), deadline=None)
@given(st.data(), st.integers(1, 32))
def test_inline_reach_successors_equal_the_general_ones(data, n):
    """The n <= 32 fast path without evaluations: same children, same varying stones."""
    fast, general = TakeStones(n, evaluations=False), TakeStones(n, evaluations=False)
    general.successors = TakeStones.successors.__get__(general)
    general.varying_stones = TakeStones.varying_stones.__get__(general)
    assert fast.successors.__func__ is TakeStones._reach_successors
    _, _, available, last, max_turn = random_state(data, n)
    state = fast.state(sum(1 << s for s in available), last, max_turn)
    children = list(fast.successors(state))
    assert children == list(general.successors(state))
    for _, child in children:
        assert fast.varying_stones(child) == general.varying_stones(child)


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(st.data(), st.integers(1, 40), st.booleans())
def test_states_with_one_subtree_key_differ_only_in_varying_stones(data, n, evaluations):
    """Toggling stones ``varying_stones`` names keeps the key, the moves and the values."""
    game = TakeStones(n, evaluations=evaluations)
    _, state, available, last, max_turn = random_state(data, n)
    state = game.state(sum(1 << s for s in available), last, max_turn)
    varying = game.varying_stones(state)
    assert not varying & (1 << last) and not varying & game.legal_mask(state)
    toggled = data.draw(st.sets(st.sampled_from([s for s in range(1, n + 1)
                                                 if varying >> s & 1] or [0])))
    other_available = set(available) ^ (toggled - {0})
    other = game.state(sum(1 << s for s in other_available), last, max_turn)
    assert game.subtree_key(other) == game.subtree_key(state)
    assert game.varying_stones(other) == varying
    depth = data.draw(st.integers(1, 4)) if evaluations else None
    first = search(game, state, ExactSearch(depth=depth, window=(-1000, 1000)))
    second = search(game, other, ExactSearch(depth=depth, window=(-1000, 1000)))
    assert (first.value, first.action, first.stats.nodes, first.stats.evaluations) == (
        second.value, second.action, second.stats.nodes, second.stats.evaluations)


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.booleans())
def test_random_histories_print_what_the_oracle_prints(capsys, monkeypatch, data, merge):
    """Deeper histories than the sweep, with and without merged subtree keys."""
    monkeypatch.setattr(program, "MERGE_SUBTREES", merge)
    n = data.draw(st.integers(1, 30))
    history = []
    for _ in range(data.draw(st.integers(0, 6))):
        last = history[-1] if history else None
        choices = [s for s in range(1, n + 1) if s not in history
                   and (last is None or s % last == 0 or last % s == 0)]
        if not choices:
            break
        history.append(data.draw(st.sampled_from(choices)))
    depth = data.draw(st.integers(0, 5) if n - len(history) <= 14 else st.integers(1, 4))
    code, out, _ = run(capsys, n, len(history), *history, depth)
    assert code == 0 and out == oracle.expected_output(n, history, depth)


@pytest.mark.parametrize("n, taken, counted, value", [
    (7, [3], "stone 1 still on the table", 0),
    (7, [1], "lastMove 1, 6 successors: even", -5),
    (8, [1], "lastMove 1, 7 successors: odd", 5),
    (12, [1, 3], "prime 3: 6, 9, 12 available", 7),
    (10, [1, 2], "prime 2: 4, 6, 8, 10 available", -7),
    (10, [1, 2, 4], "composite 4, p = 2: 6, 8, 10", 6),
    (12, [1, 3, 6], "composite 6, p = 3: 9, 12", -6),
    (10, [1, 5, 10], "composite 10, p = 5: none (5 is taken)", -6),
    (14, [1, 7], "prime 7: 14", 7),
])
def test_evaluation_branches(n, taken, counted, value):
    game = TakeStones(n)
    state = game.replay_history(taken)
    assert game.evaluate(state) == value, counted


def test_evaluation_counts_available_stones_not_only_successors():
    """Composite 6 with p = 3: 9 is available and divisible by 3 but not a successor of 6.

    The assignment says "successors"; the official output 2 fits only "available".
    """
    game = TakeStones(10)
    state = game.replay_history([1, 3, 6])            # available 2 4 5 7 8 9 10
    assert 9 not in game.actions(state)
    assert game.evaluate(state) == 6                  # {9}: one stone, odd


def test_history_first_stone_is_not_held_to_the_first_move_rule():
    """Official sample 5 (``10 3 4 2 6 4``) starts with stone 4 (even)."""
    game = TakeStones(10)
    state = game.replay_history([4, 2, 6])
    assert game.last_move(state) == 6 and not game.is_maxs_turn(state)


@pytest.mark.parametrize("taken, reason", [
    ([1, 9], "not between 1 and 7"), ([0], "not between 1 and 7"),
    ([1, 1], "already taken"), ([1, 4, 3, 3], "stone 3 \\(move 4\\) was already taken"),
])
def test_malformed_histories_are_rejected(taken, reason):
    with pytest.raises(ValueError, match=reason):
        TakeStones(7).replay_history(taken)


def test_history_breaking_the_move_rules_is_replayed_as_given():
    """``8 3 1 8 3``: 3 is neither a factor nor a multiple of 8, yet the position is the
    one the stones describe: 3 is the last move and Min is to move."""
    game = TakeStones(8)
    state = game.replay_history([1, 8, 3])
    assert game.available_stones(state) == [2, 4, 5, 6, 7]
    assert game.last_move(state) == 3 and not game.is_maxs_turn(state)
    assert game.actions(state) == [6]
    assert game.first_rule_break([1, 8, 3]) == (
        "stone 3 (move 3) is neither a factor nor a multiple of the last move 8")


@pytest.mark.parametrize("taken, broken", [
    ([], None), ([4], None), ([4, 2, 6], None), ([1, 8, 3, 6, 5], "stone 3 (move 3)"),
    ([1, 2, 4, 7], "stone 7 (move 4)"), ([5, 7], "stone 7 (move 2)"),
])
def test_first_rule_break_names_the_first_illegal_stone(taken, broken):
    note = TakeStones(8).first_rule_break(taken)
    assert (note if note is None else note[:len(broken)]) == broken


# --- the trace against the oracle ---------------------------------------------------------

def legal_histories(n, length):
    """Every history of ``length`` stones: any first stone, then factors/multiples."""
    def extend(history):
        if len(history) == length:
            yield history
            return
        last = history[-1] if history else None
        candidates = range(1, n + 1) if last is None else [
            s for s in range(1, n + 1) if s not in history and (s % last == 0 or last % s == 0)]
        for stone in candidates:
            yield from extend(history + [stone])
    return extend([])


SWEEP = [(n, history, depth)
         for n in range(1, 13)
         for length in (0, 1, 2)
         for history in legal_histories(n, length)
         for depth in (0, 1, 2, 3, 4)]


def rule_breaking_histories(n, length):
    """Every history of ``length`` distinct stones in which some stone after the first is
    neither a factor nor a multiple of the stone before it."""
    return [list(history) for history in itertools.permutations(range(1, n + 1), length)
            if any(b % a and a % b for a, b in zip(history, history[1:]))]


def test_rule_breaking_histories_are_searched_as_given(capsys):
    """The original program searches whatever position the taken stones describe: the
    stdout is the oracle's full trace, and stderr is one note naming the broken move."""
    mismatches, cases = [], 0
    for n in range(3, 9):
        for length in (2, 3):
            for history in rule_breaking_histories(n, length):
                for depth in (0, 2):
                    cases += 1
                    code, out, err = run(capsys, n, len(history), *history, depth)
                    # a game already over at the root adds its own line after the note
                    lines = 2 if out.endswith("Invalid input\n") else 1
                    if (code != 0 or out != oracle.expected_output(n, history, depth)
                            or err.count("\n") != lines
                            or not err.startswith("TakeStones: note: stone")):
                        mismatches.append((n, history, depth))
    assert cases > 500
    assert not mismatches, f"{len(mismatches)} of {cases} differ, e.g. {mismatches[:5]}"


def test_every_small_position_prints_what_the_oracle_prints(capsys):
    mismatches = []
    for n, history, depth in SWEEP:
        code, out, _ = run(capsys, n, len(history), *history, depth)
        if code != 0 or out != oracle.expected_output(n, history, depth):
            mismatches.append((n, history, depth))
    assert not mismatches, f"{len(mismatches)} of {len(SWEEP)} differ, e.g. {mismatches[:5]}"


@pytest.mark.parametrize("n, history, depth", [
    (15, [], 0), (16, [1], 3), (31, [1, 2], 2), (32, [3], 3), (33, [1], 2), (47, [5, 1], 2),
    (100, [], 2), (1000, [1, 997], 0),
])
def test_stone_counts_on_every_side_of_the_16_stone_tables(capsys, n, history, depth):
    code, out, _ = run(capsys, n, len(history), *history, depth)
    assert code == 0 and out == oracle.expected_output(n, history, depth)


def test_fixture_traces_match_the_oracle(capsys):
    """Our own golden cases were generated by the program: check them independently."""
    checked = 0
    for case in program_cases("take_stones"):
        try:
            n, taken, depth = program.parse_arguments(list(case.args))
            TakeStones(n).replay_history(taken)
        except (program.InvalidInput, ValueError):
            assert case.stdout == b"Invalid input\n", case.name
            continue
        assert case.stdout.decode() == oracle.expected_output(n, taken, depth), case.name
        checked += 1
    assert checked >= 20


def test_fixtures_cover_every_evaluation_branch_and_both_sides():
    values, leaf_sides, terminal_sides = set(), set(), set()

    class Sides(Tracer):
        def __init__(self, game):
            self.game = game

        def leave(self, state, action, depth, value, alpha, beta, kind):
            if kind == EVALUATED:
                values.add(value)
                leaf_sides.add(self.game.is_maxs_turn(state))
            elif kind == TERMINAL and depth:
                terminal_sides.add(self.game.is_maxs_turn(state))

    for case in program_cases("take_stones"):
        try:
            n, taken, depth = program.parse_arguments(list(case.args))
            game = TakeStones(n)
            state = game.replay_history(taken)
        except (program.InvalidInput, ValueError):
            continue
        search(game, state, ExactSearch(depth=depth or n + 1, window=(-1000, 1000),
                                        tracer=Sides(game)))
    assert values == {0, 5, -5, 6, -6, 7, -7}
    assert leaf_sides == {True, False} and terminal_sides == {True, False}


# --- error contract -----------------------------------------------------------------------

@pytest.mark.parametrize("words, reason", [
    ([], "expected at least n, k and depth"),
    (["7"], "expected at least n, k and depth"),
    (["seven", "0", "0"], "n must be an integer, not 'seven'"),
    (["7", "x", "0"], "k must be an integer"),
    (["7", "3", "1", "4", "3"], "k = 3 needs 3 stone(s) and then a depth"),
    (["7", "-1", "0"], "k must be between 0 and n = 7"),
    (["3", "5", "1", "2", "3", "4", "5", "0"], "k must be between 0 and n = 3"),
    (["7", "2", "1", "9", "0"], "stone 9 (move 2) is not between 1 and 7"),
    (["7", "2", "1", "1", "0"], "stone 1 (move 2) was already taken"),
    (["7", "0", "-1"], "depth must be 0 (to the end) or positive"),
    (["7", "0", "2.5"], "depth must be an integer, not '2.5'"),
    (["0", "0", "0"], "n must be between 1 and 1000"),
    (["1001", "0", "1"], "n must be between 1 and 1000, not 1001"),
    (["7", "1", "٣", "2"], "stone s1 must be an integer"),
])
def test_bad_input_prints_invalid_input_and_the_reason(capsys, words, reason):
    code, out, err = run(capsys, *words)
    assert (code, out) == (0, "Invalid input\n")
    assert err.startswith("TakeStones: ") and reason in err and err.count("\n") == 1


@pytest.mark.parametrize("words, side", [(["7", "3", "1", "2", "4", "0"], "Min"),
                                         (["7", "2", "1", "5", "0"], "Max"),
                                         (["2", "0", "3"], "Max")])
def test_game_over_prints_the_root_then_invalid_input(capsys, words, side):
    code, out, err = run(capsys, *words)
    lines = out.split("\n")
    assert code == 0 and lines[2:] == ["alpha: -1000\tbeta: 1000", "Invalid input", ""]
    assert f"player to move ({side}) has no legal stone" in err


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 14).map(str), st.text(max_size=3)), max_size=7))
def test_any_argument_list_gives_a_trace_or_invalid_input(words):
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = program.main(words)
    text = out.getvalue()
    assert code == 0 and "Traceback" not in err.getvalue()
    if words[:1] in (["-h"], ["--help"]):
        assert "n k s1 .. sk depth" in text and not err.getvalue()
    elif text.endswith("Invalid input\n"):
        assert err.getvalue().count("\n") == 1
    else:
        assert text.split("\n")[-4] == "NEXT MOVE"
        # A history that breaks the move rules is searched as given, after a note.
        n, taken, _ = program.parse_arguments(list(words))
        broken = TakeStones(n).first_rule_break(taken)
        assert err.getvalue() == ("" if broken is None else
                                  f"TakeStones: note: {broken}; searching the position as given\n")


def test_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "n k s1 .. sk depth" in out


# --- the script as graders run it -----------------------------------------------------------

def test_script_is_executable_with_a_shebang():
    script = REPO / "TakeStones"
    assert script.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    assert script.stat().st_mode & 0o111


def test_script_runs_from_another_directory(tmp_path):
    completed = subprocess.run([sys.executable, str(REPO / "TakeStones"), "7", "3", "1", "4",
                                "2", "3"], cwd=tmp_path, capture_output=True)
    assert completed.returncode == 0
    assert completed.stdout.decode() == oracle.expected_output(7, [1, 4, 2], 3)


def test_closed_pipe_is_not_an_error():
    """``TakeStones 22 0 0 | head`` must end quietly."""
    process = subprocess.Popen([sys.executable, str(REPO / "TakeStones"), "22", "0", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = process.stdout.read(100)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait() == 0 and head.startswith(b"") and b"Traceback" not in stderr


@pytest.mark.slow
@pytest.mark.parametrize("n", [20, 24, 28])
def test_big_new_games_stream_what_the_oracle_prints(n):
    completed = subprocess.run([sys.executable, str(REPO / "TakeStones"), str(n), "0", "0"],
                               capture_output=True)
    assert completed.returncode == 0 and not completed.stderr
    expected = oracle.expected_output(n, [], 0).encode()
    assert hashlib.sha256(completed.stdout).digest() == hashlib.sha256(expected).digest()
    if n == 28:
        assert completed.stdout.count(b"\n") == 3_080_817


# --- bounded memory -----------------------------------------------------------------------

@pytest.mark.parametrize("budget, max_segment, flush_chars", [
    (0, 1 << 15, 64), (4000, 300, 200), (60000, 5000, 1000)])
def test_trimming_the_memo_never_changes_the_output(capsys, monkeypatch, budget,
                                                    max_segment, flush_chars):
    """Tiny budgets force memo trims and flushes mid-search: the text must not change."""
    monkeypatch.setattr(program, "MEMO_BUDGET", budget)
    for name, value in (("MAX_SEGMENT", max_segment), ("FLUSH_CHARS", flush_chars),
                        ("RECORD_MAX_SEGMENT", max_segment),
                        ("RECORD_FLUSH_BYTES", flush_chars)):
        monkeypatch.setattr(program, name, value)
    for words in ([16, 0, 0], [15, 2, 3, 9, 0], [18, 1, 1, 5], [20, 2, 1, 2, 0]):
        code, out, _ = run(capsys, *words)
        n, k = words[0], words[1]
        assert code == 0 and out == oracle.expected_output(n, words[2:2 + k], words[-1])


def test_bounded_memo_is_emptied_before_it_would_pass_its_budget():
    entry_cost = program.BoundedMemo.ENTRY_COST + 100
    memo = program.BoundedMemo(budget=10 * entry_cost)
    for index in range(10):
        memo.added(100)
        memo[index] = (0, (b"x" * 100, 0), 1, 0)
    assert list(memo) == list(range(10)) and memo.cost == memo.budget
    for index in range(10, 13):
        memo.added(100)                           # the 11th would pass: emptied first
        memo[index] = (0, (b"x" * 100, 0), 1, 0)
    assert list(memo) == [10, 11, 12] and memo.cost == 3 * entry_cost


def test_progress_note_only_after_the_quiet_time(capsys):
    import io
    now = [0.0]
    progress = program.Progress(io.StringIO(), quiet_seconds=2.0, clock=lambda: now[0])
    progress.enabled = True                       # as if stderr were a terminal
    progress.write(b"x" * 3_000_000)
    assert capsys.readouterr().err == ""
    now[0] = 2.5
    progress.write(b"x" * 1_000_000)
    progress.done()
    assert capsys.readouterr().err == "\rTakeStones: 4 MB of trace written\n"


def test_no_progress_note_when_stderr_is_not_a_terminal(capsys):
    import io
    assert not program.Progress(io.StringIO()).enabled
