"""The Stake/Raid files, read and written once (engine.games.stake_raid_files): what
homework.py, the kit's judge and the tournament's referee all read and write."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import UsageError
from engine.games.stake_raid import MAX, MIN, RAID, move_name
from engine.games.stake_raid_files import (FileFormatError, Problem, board_cells, board_rows,
                                           input_text, output_move, output_text,
                                           parse_input, parse_move, parse_output,
                                           plain_number, position)
from thoroughness import examples


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.sampled_from(["MINIMAX", "ALPHABETA"]), st.sampled_from("XO"),
    st.integers(1, 9), st.lists(st.integers(1, 99), min_size=n * n, max_size=n * n),
    st.lists(st.sampled_from("XO."), min_size=n * n, max_size=n * n))))
def test_input_text_and_parse_input_round_trip(case):
    size, mode, player, depth, values, marks = case
    marks[0] = "."                          # a board with a move to make
    rows = ["".join(marks[r * size:(r + 1) * size]) for r in range(size)]
    problem = parse_input(input_text(size, mode, player, depth, values, rows))
    assert problem == Problem(size, mode, player, depth, values, rows)
    assert problem != Problem(size, mode, player, depth + 1, values, rows)
    game, state = position(problem)
    assert board_rows(state[0], size, player) == rows
    assert state[2] == MAX


def test_board_cells_are_from_youplays_side():
    assert board_cells(["XO", ".X"], "X") == bytes([MAX, MIN, 0, MAX])
    assert board_cells(["XO", ".X"], "O") == bytes([MIN, MAX, 0, MIN])
    assert board_rows(bytes([MAX, MIN, 0, MAX]), 2, "O") == ["OX", ".O"]


def test_competition_time_is_written_plainly():
    assert [plain_number(s) for s in (3.0, 2.5, 0.125, 12.3704, -1)] == \
        ["3", "2.5", "0.125", "12.37", "0"]
    text = input_text(2, "COMPETITION", "O", 12.5, [1, 2, 3, 4], ["..", "X."])
    assert text == "2\nCOMPETITION\nO\n12.5\n1 2\n3 4\n..\nX.\n"
    assert parse_input(text).limit == 12.5


def test_parse_move_is_lenient_with_spaces_and_names_the_problem():
    assert parse_move("B3 Raid", 4) == 2 * 4 + 1 + RAID
    assert parse_move("  A1   Stake \r", 4) == 0
    assert parse_move("A01 Stake", 4) == 0
    for line, why in (("A1 stake", "is not"), ("1A Stake", "is not"), ("A Stake", "is not"),
                      ("A1 Stake extra", "is not"), ("", "is not"),
                      ("E1 Stake", "square E1 is off the 4x4 board"),
                      ("A5 Raid", "off the 4x4")):
        with pytest.raises(FileFormatError, match=why):
            parse_move(line, 4)
    assert issubclass(FileFormatError, UsageError)


def test_the_referee_reads_only_the_first_line():
    assert output_move("C2 Stake\nwhatever\n", 3) == 3 + 2
    assert output_move("Z9 Stake\n", 3) is None
    assert output_move("", 3) is None


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ("\n\n", "the file is empty"),
    ("A1  Stake\n.\n", "line 1 'A1  Stake' is not '<column><row> Stake|Raid'"),
    ("A01 Stake\n.\n", "line 1 'A01 Stake' is not"),
    ("B1 Stake\n.\n", "square B1 is off the 1x1 board"),
    ("A1 Stake\n", "expected 1 board lines after the move, found 0"),
    ("A1 Stake\nx\n", "line 2 'x' is not 1 characters from X, O, ."),
])
def test_the_grader_reads_output_txt_strictly(text, message):
    with pytest.raises(FileFormatError) as raised:
        parse_output(text, 1)
    assert str(raised.value).startswith(message)


def test_output_text_and_parse_output_round_trip():
    cells = bytes([MAX, 0, MIN, MAX])
    text = output_text(2, "O", 1 + RAID, cells)
    assert text == "B1 Raid\nO.\nXO\n"
    assert parse_output(text.replace("\n", "\r\n") + "\r\n  \n", 2) == \
        (1 + RAID, ["O.", "XO"])
    assert move_name(2, parse_output(text, 2)[0]) == "B1 Raid"
