"""Line 'em Up: rules, heuristics, statistics (ARD/AD), time safety, formats, strength.

Spec: ../shared/specs/line_em_up.md; course samples: ../shared/samples/line_em_up/.
"""

import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from engine.game import Game
from engine.games.line_em_up import WIN, LineEmUp, cell_name, window_masks
from engine.programs.lineemup import program as lineemup
from engine.programs.lineemup.ai import AIPlayer, SimulatedClock, safety_margin
from engine.search import ExactSearch, search
from engine.trace import RecursionDepthTracer
from thoroughness import examples

REPO = Path(__file__).resolve().parent.parent
# The course samples, copied unchanged from shared/samples/line_em_up/.
SAMPLES = REPO / "fixtures" / "lineemup" / "course-samples"


# --- the spec's worked example of ARD and AD ----------------------------------------------
class ExampleTree(Game):
    """The assignment's tree: A -> B, J, M, N; B -> C, F, G; C -> D, E; G -> H, I; J -> K, L."""

    CHILDREN = {"A": "BJMN", "B": "CFG", "C": "DE", "G": "HI", "J": "KL"}

    def successors(self, state):
        return [(child, child) for child in self.CHILDREN[state]]

    def terminal_value(self, state):
        return None if state in self.CHILDREN else ord(state)

    def is_maxs_turn(self, state):
        return state in "AC"


def test_average_recursion_depth_and_evaluation_depth_of_the_worked_example():
    tracer = RecursionDepthTracer(count_terminals=True)
    search(ExampleTree(), "A", ExactSearch(prune=False, tracer=tracer))
    assert tracer.root_ard == pytest.approx((8 / 3 + 2 + 1 + 1) / 4)   # 1.67
    assert round(tracer.root_ard, 2) == 1.67
    depths = tracer.evaluation_depths
    assert depths == {3: 4, 2: 3, 1: 2}
    average = sum(d * c for d, c in depths.items()) / sum(depths.values())
    assert round(average, 2) == 2.22                                     # 20 / 9


def test_bulk_leaves_give_the_same_ard_as_one_by_one():
    """The additive tracer hook ``leaves`` (bulk horizon values) changes no statistic."""
    game = LineEmUp(4, 3, (), "e2")
    state = game.result(game.initial_state(), 5)

    class OneByOne(RecursionDepthTracer):
        leaves = None  # refuses bulk: the search then reports every leaf separately

    bulk, single = RecursionDepthTracer(True), OneByOne(True)
    a = search(game, state, ExactSearch(depth=3, tracer=bulk))
    b = search(game, state, ExactSearch(depth=3, tracer=single))
    assert a.value == b.value and a.action == b.action
    assert bulk.root_ard == pytest.approx(single.root_ard)
    assert bulk.evaluation_depths == single.evaluation_depths


# --- rules ---------------------------------------------------------------------------------
def brute_force_winner(n, s, x, o):
    """Oracle: 'X'/'O' if that side has s in a row (scanning every line), else None."""
    def has_line(stones):
        for row in range(n):
            for column in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(row + dr * k, column + dc * k) for k in range(s)]
                    if all(0 <= r < n and 0 <= c < n and stones >> (r * n + c) & 1
                           for r, c in cells):
                        return True
        return False
    return "X" if has_line(x) else "O" if has_line(o) else None


def random_game(game, rng, limit=None):
    """States of a random game from the start (all of them, the last may be terminal)."""
    state = game.initial_state()
    states = [state]
    while state[3] is None and (limit is None or len(states) <= limit):
        state = game.result(state, rng.choice(game.actions(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("heuristic", ["e1", "e2"])
@pytest.mark.parametrize("n,s,blocs", [(3, 3, ()), (5, 4, ((2, 3),)), (8, 5, ((0, 0), (7, 7))),
                                       pytest.param(10, 5, (), marks=pytest.mark.slow),
                                       (4, 3, ((0, 0), (3, 0), (0, 3), (3, 3)))])
def test_incremental_states_match_a_recomputation_and_the_win_oracle(n, s, blocs, heuristic):
    game = LineEmUp(n, s, blocs, heuristic)
    rng = random.Random(f"{n}{s}{heuristic}")
    for _ in range(15):
        for state in random_game(game, rng):
            x, o = state[0], state[1]
            winner = brute_force_winner(n, s, x, o)
            if state[3] is None:
                assert winner is None
                assert state == game.state_from(x, o, state[2])
            elif state[3] == 0:
                assert winner is None and (x | o | game.bloc_mask) == game.full_mask
            else:
                assert winner == ("X" if state[3] > 0 else "O")
                assert abs(state[3]) >= WIN


def test_windows_skip_blocs_and_count():
    assert len(window_masks(3, 3)) == 8
    assert len(window_masks(5, 4)) == 2 * 5 * 2 + 2 * 4
    assert len(window_masks(3, 3, [(1, 1)])) == 4
    assert cell_name(13, 5) == "D2"


def test_moves_are_refused_on_blocs_and_stones():
    game = LineEmUp(4, 3, [(0, 0)], "e1")
    state = game.result(game.initial_state(), 5)
    for cell in (0, 5, 16, -1):
        with pytest.raises(ValueError):
            game.result(state, cell)


# --- the AI: legal, time-safe ---------------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(n=st.integers(3, 7), data=st.data())
def test_ai_moves_are_always_legal(n, data):
    s = data.draw(st.integers(3, n))
    heuristic = data.draw(st.sampled_from(["e1", "e2"]))
    seed = data.draw(st.integers(0, 10 ** 6))
    rng = random.Random(seed)
    blocs = rng.sample([(c, r) for r in range(n) for c in range(n)], rng.randint(0, n))
    game = LineEmUp(n, s, blocs, heuristic)
    states = [state for state in random_game(game, rng) if state[3] is None]
    state = rng.choice(states)
    ai = AIPlayer(game, data.draw(st.integers(1, 6)), 0.2, data.draw(st.booleans()),
                  clock=SimulatedClock(0.001))
    report = ai.choose(state)
    assert report.action in game.actions(state)
    assert report.seconds <= 0.2


@pytest.mark.parametrize("tick", [0.0005, 0.003, 0.02])
def test_the_time_limit_is_never_exceeded_with_an_injected_clock(tick):
    game = LineEmUp(8, 5, (), "e2")
    state = game.result(game.initial_state(), 27)
    t = 0.4
    ai = AIPlayer(game, 30, t, clock=SimulatedClock(tick))
    report = ai.choose(state)
    assert report.seconds <= t
    assert report.action in game.actions(state)
    assert report.timed_out


def test_a_jumpy_clock_still_gives_a_legal_move_in_time():
    """Readings that jump by up to 30 ms: the margin (5% + 100 ms) absorbs them."""
    rng = random.Random(7)
    now = [0.0]

    def clock():
        now[0] += rng.uniform(0, 0.03)
        return now[0]

    game = LineEmUp(10, 5, (), "e1")
    state = game.initial_state()
    for _ in range(3):
        report = AIPlayer(game, 30, 2.0, clock=clock).choose(state)
        assert report.seconds <= 2.0
        state = game.result(state, report.action)


def test_no_completed_iteration_falls_back_to_a_legal_move():
    game = LineEmUp(6, 4, (), "e2")
    state = game.initial_state()
    ai = AIPlayer(game, 5, 1.0, margin=0.0, clock=SimulatedClock(10.0))
    report = ai.choose(state)
    assert report.depth == 0 and report.action in game.actions(state)
    assert report.recursion_depth == 0.0


def test_safety_margin_is_a_fraction_of_t():
    assert safety_margin(5) == pytest.approx(0.35)
    assert 0 < safety_margin(0.01) <= 0.0025


def test_the_ai_takes_a_win_and_blocks_a_threat():
    # X to move with X X X . on row 0 (s = 4): A0 B0 C0 -> D0 wins.
    game, state = lineemup.position(["XXX..", "OO...", "O....", ".....", "....."], (), 5, 4,
                                    "X", "e1")
    assert AIPlayer(game, 3, 5.0, clock=SimulatedClock(0.001)).choose(state).action == 3
    # O to move must block D0 (X threatens A0..D0 and nothing wins for O at once).
    game, state = lineemup.position(["XXX..", "OO...", ".....", ".....", "....."], (), 5, 4,
                                    "O", "e2")
    assert AIPlayer(game, 3, 5.0, clock=SimulatedClock(0.001)).choose(state).action == 3


def oracle_value(game, state):
    """Oracle: plain recursive minimax to the end of the game (tiny boards only)."""
    if state[3] is not None:
        return state[3]
    values = [oracle_value(game, child) for _, child in game.successors(state)]
    return max(values) if state[2] else min(values)


def test_full_depth_ai_value_matches_an_oracle_on_3x3():
    game = LineEmUp(3, 3, [(0, 0)], "e2")
    rng = random.Random(3)
    for _ in range(6):
        states = [s for s in random_game(game, rng) if s[3] is None]
        state = states[min(2, len(states) - 1)]
        report = AIPlayer(game, 9, 100.0, clock=SimulatedClock(1e-6)).choose(state)
        child = game.result(state, report.action)
        assert oracle_value(game, child) == oracle_value(game, state)


# --- formats against the course's samples ---------------------------------------------------
def line_shape(line):
    """A line with its values abstracted: same labels and number formats remain visible."""
    if re.fullmatch(r"\d\|[.XO*]+", line):
        return "ROW"
    line = re.sub(r"e([12])\(\w+\)", r"e\1(NAME)", line)
    line = re.sub(r"\((regular|defensive|simple|threats)\)$", "(NAME)", line)
    line = re.sub(r"\{\d+: \d+(, \d+: \d+)*\}", "{DEPTHS}", line)
    line = re.sub(r"\b[A-J]\d\b", "CELL", line)
    line = re.sub(r"\b\d+\.\d{1,2}s\b", "SECONDS", line)
    line = re.sub(r"per game: \d+\.\d{1,2}$", "per game: AVERAGE", line)
    line = re.sub(r"\b\d+\.\d\b", "DECIMAL", line)
    line = re.sub(r"\b\d+\.\d+\b", "REAL", line)
    line = re.sub(r"\d+", "9", line)
    line = re.sub(r"\b[XO]\b", "SIDE", line)
    line = re.sub(r"ABCDEFGHIJ|ABCDEFGHI|ABCDEFGH|ABCDEFG|ABCDEF|ABCDE|ABCD|ABC", "COLS", line)
    return re.sub(r"\+-+", "+RULE", line)


def trace_blocks(text):
    """(header shapes, [move block shapes], end shapes) of a trace."""
    lines = [line_shape(line) for line in text.split("\n")]
    starts = [i for i, line in enumerate(lines) if line.startswith("Player SIDE under")]
    end = next(i for i, line in enumerate(lines) if line.startswith(("The winner", "It's a")))
    header = lines[:starts[0]]
    moves = [lines[a:b] for a, b in zip(starts, starts[1:] + [end])]
    return header, moves, lines[end:]


def sample_settings(**changes):
    values = dict(n=5, s=4, bloc_cells=[(2, 3)], t=8.0, d1=4, d2=8, a1=True, a2=True,
                  e1="e1", e2="e2", random_openings=0, seed=None)
    values.update(changes)
    return SimpleNamespace(**values)


def test_game_trace_follows_the_course_sample_line_for_line():
    sample = (SAMPLES / "gameTrace-5148.txt").read_text()
    settings_ = sample_settings(t=1.0, d1=3)   # a game that O wins in 8 moves
    log = lineemup.GameLog()
    outcome = lineemup.play_game(settings_, ("AI", "AI"), ("e1", "e2"), log,
                                 clock=SimulatedClock(0.01))
    assert outcome.winner in ("X", "O")
    ours = log.text()
    assert ours.endswith("\n\n") and sample.endswith("\n\n")
    our_header, our_moves, our_end = trace_blocks(ours)
    header, moves, end = trace_blocks(sample)
    assert our_header == header
    regular = moves[0]          # the sample's 4th move block adds the random-move lines
    assert all(block == regular for block in our_moves[:-1])
    assert our_moves[-1] == moves[-1]
    assert our_end == end
    assert len(our_moves) == int(re.search(r"Total moves: (\d+)", ours).group(1))


def test_scoreboard_follows_the_course_sample_line_for_line(tmp_path):
    sample = (SAMPLES / "scoreboard.txt").read_text()
    argv = ["--series", "2", "-n", "5", "--blocs", "C3", "-s", "4", "--d1", "3", "--d2",
            "3", "-t", "6", "--clock-tick", "0.01", "--dir", str(tmp_path), "--quiet"]
    assert lineemup.main(argv) == 0
    ours = (tmp_path / "scoreboard.txt").read_text()
    assert [line_shape(line) for line in ours.split("\n")] == \
        [line_shape(line) for line in sample.split("\n")]
    assert lineemup.main(argv) == 0   # a second series is appended
    assert (tmp_path / "scoreboard.txt").read_text() == ours + ours


def test_statistics_labels_and_number_formats():
    lines = lineemup.statistics_lines(0.4, 4795, {4: 4795}, 4.0, 4.0, "")
    assert lines == ["i   Evaluation time: 0.4s", "ii  Heuristic evaluations: 4795",
                     "iii Evaluations by depth: {4: 4795}",
                     "iv  Average evaluation depth: 4.0", "v   Average recursion depth: 4.0"]
    assert lineemup.format_seconds(7.5061) == "7.51s"
    assert lineemup.format_seconds(8.0) == "8.0s"
    assert lineemup.format_number(8.0) == "8" and lineemup.format_number(0.5) == "0.5"


# --- human input --------------------------------------------------------------------------------
def run_program(args, stdin, cwd):
    return subprocess.run([sys.executable, "-m", "engine", "lineemup"] + args, input=stdin,
                          capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_illegal_human_moves_are_refused_and_asked_again(tmp_path):
    moves = "W 3\nA 7\nB1\nB 1\nzz\nA0\nC2\nA1\nB2\nC0\n"
    done = run_program(["--mode", "H-H", "-n", "3", "-s", "3", "--blocs", "B0"], moves,
                       tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Illegal move: column W is not on the 3x3 board (columns A..C). Try again." in out
    assert "Illegal move: row 7 is not on the 3x3 board (rows 0..2). Try again." in out
    assert "Illegal move: B1 is already taken. Try again." in out
    assert "Illegal move: 'zz' is not a cell" in out
    # X: B1, C2, C0 ... O: A0, A1, B2 -> X has C0? no line; the moves go on legally.
    trace = (tmp_path / "gameTrace-3135.txt").read_text()
    assert trace.count("under Human control plays") == trace.count("(move #")
    assert "Player X under Human control plays: B1" in trace
    assert "W 3" not in trace


def test_end_of_input_ends_the_game_cleanly(tmp_path):
    done = run_program(["--mode", "H-AI", "-n", "4", "-s", "3", "--d2", "2", "-t", "1"],
                       "B1\n", tmp_path)
    assert done.returncode == 0
    # the notice is told once: in the trace, which stdout echoes; stderr stays empty
    assert done.stderr == ""
    assert done.stdout.count("the game is abandoned") == 1
    trace = (tmp_path / "gameTrace-4031.txt").read_text()
    assert trace.endswith("End of input: the game is abandoned after 2 moves.\n")


@pytest.mark.parametrize("args,message", [
    (["-n", "11"], "-n must be 3..10, not 11"),
    (["-n", "4", "-s", "5"], "-s must be 3..n (3..4), not 5"),
    (["--blocs", "A0,A0"], "--blocs: A0 is given twice"),
    (["-b", "3", "--blocs", "A0"], "-b 3 but --blocs lists 1 cells"),
    (["-t", "-1"], "argument -t: expected a positive number of seconds, not '-1'"),
    (["--a1", "maybe"], "argument --a1: expected true or false, not 'maybe'"),
    (["--series", "1", "--mode", "H-H"],
     "--series plays AI-vs-AI games: leave --mode out or use AI-AI"),
    (["--blocs", "A0", "--random-blocs"], "give either --blocs or --random-blocs, not both"),
    (["-n", "3", "-b", "7"], "-b must be 0..6 on a 3x3 board, not 7"),
    (["--dir", "no/such/folder"], "--dir no/such/folder: no such folder"),
])
def test_bad_arguments_give_one_line_and_exit_2(tmp_path, args, message):
    done = run_program(args, "", tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"lineemup: {message}\n"
    assert list(tmp_path.iterdir()) == []


# --- strength -------------------------------------------------------------------------------------
def test_e2_beats_e1_in_a_2x10_series_at_equal_settings():
    settings_ = sample_settings(n=6, s=4, bloc_cells=[], t=100.0, d1=3, d2=3,
                                random_openings=2, seed=1)
    wins = {"e1": 0, "e2": 0}
    for number in range(20):
        heuristics = ("e1", "e2") if number < 10 else ("e2", "e1")
        outcome = lineemup.play_game(settings_, ("AI", "AI"), heuristics, lineemup.GameLog(),
                                     clock=SimulatedClock(1e-4),
                                     opening=lineemup.random_opening(settings_, number % 10))
        if outcome.winner:
            wins[heuristics[0] if outcome.winner == "X" else heuristics[1]] += 1
    assert wins["e2"] >= 15, wins


def test_an_ai_over_the_time_limit_loses_the_game():
    """The assignment's rule, enforced by the program: a clock that jumps 10 s per reading
    makes X's AI late (it still plays a legal fallback move), so O wins at once."""
    settings_ = sample_settings(n=4, s=3, bloc_cells=[], t=1.0, d1=2, d2=2)
    log = lineemup.GameLog()
    outcome = lineemup.play_game(settings_, ("AI", "AI"), ("e1", "e2"), log,
                                 clock=SimulatedClock(10.0))
    assert outcome.winner == "O" and outcome.reason == "time"
    text = log.text()
    assert "*** Out of extra time at depth 1 ***\n" in text
    assert "*** Player X took" in text and "more than t=1s: X loses ***" in text
    assert text.count("under AI control plays") == 1
    assert "The winner is O!" in text and "6(b)vi  Total moves: 1\n" in text


def test_choose_move_for_tournaments():
    board = ["XX...", "OO...", ".....", ".....", "....."]
    # X to move with X X . . on row 0 and s = 3: C0 wins at once.
    assert lineemup.choose_move(board, [], 5, 3, "X", 4, 1.0, "e2",
                                clock=SimulatedClock(0.001)) == (2, 0)
    # A bloc given apart from the board is respected: C0 is a bloc, so no win there.
    column, row = lineemup.choose_move(board, [(2, 0)], 5, 3, "X", 2, 1.0, "e1",
                                       clock=SimulatedClock(0.001))
    assert (column, row) != (2, 0) and board[row][column] == "."


@settings(max_examples=examples(200), deadline=None)
@given(rows=st.lists(st.text(alphabet=".*XOx#", min_size=3, max_size=6), min_size=1,
                     max_size=7),
       s=st.integers(1, 8), side=st.sampled_from(["X", "O", "Z"]))
def test_bad_positions_are_usage_errors_never_crashes(rows, s, side):
    try:
        game, state = lineemup.position(rows, (), len(rows), s, side, "e2")
    except lineemup.UsageError:
        return
    assert state[3] is None and game.actions(state)
