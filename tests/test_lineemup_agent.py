"""``python3 -m engine lineemup agent``: one tournament move through input.txt/output.txt.

Checks the protocol (docs/lineemup.md, "Tournament agent protocol"): a legal move for
seeded positions, wins taken and losses blocked, both heuristics and both sides, the
error contract (one stderr line, exit 2, no output.txt), the per-move CPU budget, and
that the search under a (simulated) clock stays within that budget. No test depends on
the machine's speed: the searches have a fixed depth or a simulated clock.
"""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.errors import UsageError
from engine.games.line_em_up import LineEmUp, cell_name
from engine.programs.lineemup import agent, program
from engine.programs.lineemup.ai import SimulatedClock
from thoroughness import examples

REPO = Path(__file__).resolve().parent.parent


def input_text(rows, s, side, seconds="200"):
    """An input.txt as the referee writes it."""
    return "\n".join([str(len(rows)), str(s), side, seconds] + list(rows)) + "\n"


def rows_of(game, state):
    """The board rows ('.', '*', 'X', 'O') of a LineEmUp state."""
    n = game.n
    marks = []
    for cell in range(n * n):
        marks.append("X" if state[0] >> cell & 1 else "O" if state[1] >> cell & 1 else
                     "*" if game.bloc_mask >> cell & 1 else ".")
    return ["".join(marks[r * n:(r + 1) * n]) for r in range(n)]


def seeded_position(seed, n, s, blocs, plies):
    """(game, state): blocs and ``plies`` random moves, seeded; never a finished game."""
    rng = random.Random(f"agent test {seed}")
    cells = rng.sample(range(n * n), blocs)
    game = LineEmUp(n, s, [(c % n, c // n) for c in cells], "e1")
    state = game.initial_state()
    for _ in range(plies):
        after = game.result(state, rng.choice(game.actions(state)))
        if after[3] is not None:
            break
        state = after
    return game, state


def play_in_process(folder, text, *options):
    """Run ``lineemup agent`` through program.main in ``folder``: (exit code, output.txt
    text or None)."""
    (folder / "input.txt").write_text(text)
    code = program.main(["agent", "--input", str(folder / "input.txt"),
                         "--output", str(folder / "output.txt")] + list(options))
    output = folder / "output.txt"
    return code, output.read_text() if output.exists() else None


def play_subprocess(folder, text, *options):
    """Run ``python -m engine lineemup agent`` in ``folder`` (default file names)."""
    (folder / "input.txt").write_text(text)
    return subprocess.run([sys.executable, "-m", "engine", "lineemup", "agent"] + list(options),
                          capture_output=True, text=True, cwd=folder, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


# --- legal moves ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed, n, s, blocs, plies", [
    (1, 5, 4, 2, 2), (2, 6, 4, 3, 5), (3, 8, 5, 4, 9), (4, 3, 3, 0, 3), (5, 10, 5, 6, 12)])
@pytest.mark.parametrize("heuristic", ["e1", "e2"])
def test_a_legal_move_for_seeded_positions(tmp_path, seed, n, s, blocs, plies, heuristic):
    game, state = seeded_position(seed, n, s, blocs, plies)
    side = "X" if state[2] else "O"
    code, output = play_in_process(tmp_path, input_text(rows_of(game, state), s, side),
                                   "--depth", "2", "--heuristic", heuristic)
    assert code == 0
    assert output in {cell_name(c, n) + "\n" for c in game.actions(state)}


def test_the_referees_own_board_reads_and_accepts_the_move(tmp_path):
    """The protocol as the referee defines it (engine.tournament.games.LineEmUpBoard):
    its input.txt, our output.txt, its parser and its legality check, for both sides."""
    games = pytest.importorskip("engine.tournament.games")
    rules = games.LineEmUpRules
    board = rules.board(rules.setup(7, 1, games.LineSize(6, 4, 3)))
    for _ in range(4):  # X, O, X, O
        done = play_subprocess(tmp_path, board.input_text(123.45), "--depth", "2")
        assert done.returncode == 0 and done.stderr == ""
        action = board.parse((tmp_path / "output.txt").read_text())
        assert action is not None and board.legal(action)
        board.play(action)
        if board.over:
            break


def test_the_move_is_the_one_search_s_move_for_that_depth(tmp_path):
    """The agent runs the engine's AI: the same move as choose_move at the same depth."""
    game, state = seeded_position(11, 6, 4, 3, 4)
    rows = rows_of(game, state)
    side = "X" if state[2] else "O"
    column, row = program.choose_move(rows, (), 6, 4, side, 3, 1e9, "e2",
                                      clock=SimulatedClock(1e-9))
    code, output = play_in_process(tmp_path, input_text(rows, 4, side), "--depth", "3")
    assert code == 0 and output == "ABCDEF"[column] + f"{row}\n"


# --- wins and blocks ------------------------------------------------------------------------
# X to move: X wins on E1 (B1 C1 D1 are X's, A1 is O's), while O threatens E3 (B3 C3 D3).
WIN_ROWS = ["..*..", "OXXX.", ".....", ".OOO.", "X...*"]
# O to move: X threatens E1 only; O has no win of its own.
BLOCK_ROWS = ["..*..", "OXXX.", "..O..", ".....", "*...."]


@pytest.mark.parametrize("heuristic", ["e1", "e2"])
@pytest.mark.parametrize("depth", ["1", "3"])
def test_an_immediate_win_is_taken(tmp_path, heuristic, depth):
    code, output = play_in_process(tmp_path, input_text(WIN_ROWS, 4, "X"),
                                   "--depth", depth, "--heuristic", heuristic)
    assert (code, output) == (0, "E1\n")


@pytest.mark.parametrize("heuristic", ["e1", "e2"])
def test_an_immediate_loss_is_blocked_by_o(tmp_path, heuristic):
    code, output = play_in_process(tmp_path, input_text(BLOCK_ROWS, 4, "O"),
                                   "--depth", "2", "--heuristic", heuristic)
    assert (code, output) == (0, "E1\n")


def test_o_wins_when_it_can(tmp_path):
    rows = ["XXX..", "OOO..", "X....", ".....", "....."]  # O to move: D1 wins (s=4)
    done = play_subprocess(tmp_path, input_text(rows, 4, "O"), "--depth", "2")
    assert done.returncode == 0 and done.stderr == ""
    assert (tmp_path / "output.txt").read_text() == "D1\n"


def test_without_time_left_the_move_is_still_legal_and_takes_the_win(tmp_path):
    """A budget already spent: no iteration, the first ordered move (wins first)."""
    done = play_subprocess(tmp_path, input_text(WIN_ROWS, 4, "X", "0"))
    assert done.returncode == 0 and done.stderr == ""
    assert (tmp_path / "output.txt").read_text() == "E1\n"


def test_a_fixed_depth_ignores_the_clock(tmp_path):
    game, state = seeded_position(21, 6, 4, 2, 6)
    rows, side = rows_of(game, state), "X" if state[2] else "O"
    moves = {play_in_process(tmp_path, input_text(rows, 4, side, seconds), "--depth", "3")
             for seconds in ("0", "0.5", "200")}
    assert len(moves) == 1 and next(iter(moves))[0] == 0


def test_output_txt_is_replaced_and_bad_input_leaves_it_alone(tmp_path):
    (tmp_path / "output.txt").write_text("Z9 something old\nmore\n")
    played = play_in_process(tmp_path, input_text(WIN_ROWS, 4, "X"), "--depth", "1")
    assert played == (0, "E1\n")
    assert play_in_process(tmp_path, "garbage\n", "--depth", "1") == (2, "E1\n")
    # no temporary file is left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt", "output.txt"]


# --- bad input ------------------------------------------------------------------------------
EMPTY5 = ["....."] * 5
BAD_INPUTS = {
    "empty file": "",
    "header only": "5\n4\nX\n200\n",
    "n not a number": input_text(EMPTY5, 4, "X").replace("5\n", "five\n", 1),
    "n too large": "11\n4\nX\n200\n" + "...........\n" * 11,
    "s too large": input_text(EMPTY5, 6, "X"),
    "bad side": input_text(EMPTY5, 4, "x"),
    "seconds not a number": input_text(EMPTY5, 4, "X", "lots"),
    "negative seconds": input_text(EMPTY5, 4, "X", "-1"),
    "infinite seconds": input_text(EMPTY5, 4, "X", "inf"),
    "too few rows": input_text(EMPTY5[:4], 4, "X").replace("4\n", "5\n", 1),
    "too many rows": input_text(EMPTY5, 4, "X") + ".....\n",
    "ragged row": input_text(["....", "....."] + EMPTY5[2:], 4, "X"),
    "bad character": input_text(["..a.."] + EMPTY5[1:], 4, "X"),
    "impossible counts": input_text(["XX..."] + EMPTY5[1:], 4, "O"),
    "game already won": input_text(["XXXX.", "OOO.."] + EMPTY5[2:], 4, "O"),
    "full board, no legal move": input_text(["XOX", "XOO", "OXX"], 3, "O"),
    "not utf-8": "5\n4\nX\n200\n\xff....\n",
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_stderr_line_exit_2_and_no_output(tmp_path, capsys, name):
    text = BAD_INPUTS[name]
    (tmp_path / "input.txt").write_bytes(text.encode("latin-1"))
    code = program.main(["agent", "--input", str(tmp_path / "input.txt"),
                         "--output", str(tmp_path / "output.txt"), "--depth", "1"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("lineemup: ")
    assert "Traceback" not in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt"]


def test_bad_input_in_a_subprocess(tmp_path):
    done = play_subprocess(tmp_path, input_text(EMPTY5[:4], 4, "X").replace("4\n", "5\n", 1))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "lineemup: input.txt has 4 board rows, expected n = 5\n"
    assert not (tmp_path / "output.txt").exists()


def test_a_missing_input_file_and_bad_options(tmp_path):
    done = subprocess.run([sys.executable, "-m", "engine", "lineemup", "agent"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert done.stderr == "lineemup: cannot read input.txt: No such file or directory\n"
    for options in (["--depth", "0"], ["--heuristic", "e3"], ["--bogus"]):
        done = play_subprocess(tmp_path, input_text(EMPTY5, 4, "X"), *options)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, options
    assert not (tmp_path / "output.txt").exists()


def test_parse_input_reads_the_referees_lines():
    text = "5\r\n4\r\nO\r\n12.37\r\n..*..\r\n.X...\r\n.....\r\n.....\r\n.....\r\n\r\n"
    parsed = agent.parse_input(text)
    assert parsed == agent.Position(["..*..", ".X...", ".....", ".....", "....."], 4, "O",
                                    12.37)
    with pytest.raises(UsageError, match="^in.txt line 3: "):
        agent.parse_input(input_text(EMPTY5, 4, "Y"), "in.txt")


# --- the budget -----------------------------------------------------------------------------
def test_budget_examples():
    assert agent.move_budget(200, 60) == agent.MAX_MOVE_SECONDS     # capped
    # 12.37 s, 20 empty cells: 10 moves left, planned for 5 of them
    assert agent.move_budget(12.37, 20) == pytest.approx((12.37 - agent.SAFETY
                                                          - 9 * agent.STARTUP_COST) / 5)
    # one move left: a quarter of what may be spent, never all of it
    assert agent.move_budget(2.0, 1) == pytest.approx((2.0 - agent.SAFETY) / 4)
    assert agent.move_budget(0, 10) == 0.0
    assert agent.move_budget(1.0, 60) == 0.0   # less than the later runs' start-ups
    assert agent.move_budget(float("nan"), 10) == 0.0


@settings(max_examples=examples(300), deadline=None)
@given(seconds=st.floats(0, 1e5), more=st.floats(0, 1e5), empties=st.integers(0, 100),
       fewer=st.integers(0, 100))
def test_budget_bounds_and_monotony(seconds, more, empties, fewer):
    budget = agent.move_budget(seconds, empties)
    assert 0.0 <= budget <= agent.MAX_MOVE_SECONDS
    assert budget <= seconds / agent.MIN_SHARES
    assert agent.move_budget(seconds + more, empties) >= budget     # more time: no less
    assert agent.move_budget(seconds, max(empties - fewer, 0)) >= budget  # fewer cells
    # what stays after this move still pays the start-up of every later move
    later = agent.our_moves_left(max(empties, 1)) - 1
    if budget > 0:
        assert seconds - budget >= agent.STARTUP_COST * later + agent.SAFETY - 1e-9


class CountingClock(SimulatedClock):
    """A simulated CPU clock that starts at ``start`` (the run's start-up)."""

    def __init__(self, tick, start):
        super().__init__(tick)
        self.now = start


@pytest.mark.parametrize("seconds", ["20", "60", "200"])
def test_the_search_stays_within_the_budget(seconds):
    """With a simulated CPU clock that already reads 0.1 s (the start-up) and advances
    1/200 of the budget per reading (the real clock is read every 256 nodes, about
    2 ms): the search ends within the run's budget, after at least one iteration."""
    game, state = seeded_position(31, 8, 5, 4, 2)
    position = agent.parse_input(input_text(rows_of(game, state), 5, "X", seconds))
    budget = agent.move_budget(float(seconds), len(game.actions(state)))
    assert budget > 0.5
    clock = CountingClock(budget / 200, start=0.1)
    move = agent.choose(position, "e2", clock=clock)
    assert move.budget == budget
    assert move.depth >= 1
    assert clock.now <= move.budget
    assert move.seconds <= move.budget - 0.1
    assert move.cell in {cell_name(c, 8) for c in game.actions(state)}


def test_a_spent_budget_plays_the_first_ordered_move():
    position = agent.parse_input(input_text(WIN_ROWS, 4, "X", "1"))
    move = agent.choose(position, "e2", clock=CountingClock(1e-4, start=5.0))
    assert (move.cell, move.depth) == ("E1", 0)
