"""`python3 -m engine nqueens check A4_output.txt` (engine/programs/nqueens/check.py):
our own output passes, so do the looser layouts the assignment allows, and every
corruption is caught at its line."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.programs.nqueens import program as nqueens
from engine.programs.nqueens.check import Checker, Solver
from thoroughness import examples

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def a4_text():
    """Our A4 output, as `nqueens a4` writes it.

    Shortcut for speed: Q9's minimax table is played with alpha-beta, which makes exactly
    minimax's moves (the engine's cross-checks assert it); full-depth minimax at N = 20
    would cost a minute.
    """
    original = nqueens.scenario_lines
    nqueens.scenario_lines = lambda variation, prune, progress=None: original(variation, True)
    try:
        return nqueens.a4_text(with_time=True)
    finally:
        nqueens.scenario_lines = original


@pytest.fixture(scope="module")
def solver():
    return Solver()


def check(text, solver):
    checker = Checker(solver)
    checker.check_text(text)
    return checker


def row_index(lines, question, size, occurrence=0):
    """Index of the row of ``size`` in the ``occurrence``-th table of ``question``."""
    headings = [i for i, line in enumerate(lines) if re.match(rf"== {question}\b", line)]
    start = headings[occurrence]
    for index in range(start + 1, len(lines)):
        if lines[index].startswith("=="):
            break
        if lines[index].split()[:1] == [str(size)]:
            return index
    raise AssertionError(f"no row N={size} in {question}")


def set_cell(lines, index, column, text):
    cells = re.split(r"\s{2,}", lines[index])
    cells[column] = text
    lines[index] = "   ".join(cells)


# --- what must pass -------------------------------------------------------------------------------
def test_our_a4_output_passes(a4_text, solver):
    checker = check(a4_text, solver)
    assert checker.problems == []
    assert len(checker.summaries) == 10 and all(s.endswith(": OK") for s in checker.summaries)
    assert checker.summaries[0] == ("Q1 (variation 1a, minimax, full depth): 10 rows, "
                                    "10 checked exactly: OK")
    assert "4 checked exactly, 16 checked for range" in checker.summaries[4]


@pytest.mark.parametrize("variation", ["1a", "1b"])
def test_the_exact_values_agree_with_the_solver_and_the_known_values(variation, solver):
    known = {"1a": [1, 1, 1, -1, 1, 1, 1, -1, -1, 1], "1b": [1, 1, 1, -2] + [None] * 5 + [7]}
    for size in range(1, 11):
        value, openings = solver.openings(variation, size)
        exact, optimal, _ = nqueens.solve_size(variation, size)
        assert value == exact and known[variation][size - 1] in (None, value)
        assert [("X", row) for row, worth in sorted(openings.items()) if worth == value] \
            == optimal


def test_any_optimal_opening_is_accepted(a4_text, solver):
    lines = a4_text.split("\n")
    _, optimal, _ = nqueens.solve_size("1a", 10)
    assert len(optimal) > 1
    index = row_index(lines, "Q1", 10)
    for action in optimal:
        set_cell(lines, index, 2, str(action))
        assert check("\n".join(lines), solver).problems == []


def test_looser_layouts_pass(a4_text, solver):
    """Headings 'Q1' only, plain rows for openings, tabs, no time column in Q3."""
    out = []
    question = None
    for line in a4_text.split("\n"):
        heading = re.match(r"== (Q\d): Variation (\w+)", line)
        if heading:
            question = heading.group(1)
            out.append(f"{question} ({heading.group(2)})" if question == "Q7" else question)
            continue
        match = re.match(r"(\d+)\s+(\S+)\s+\('X', (\d+)\)\s+(\S+)$", line)
        if match and question != "Q9":
            cells = list(match.groups())
            if question == "Q3":
                cells = cells[:3]
            out.append("\t".join(cells))
        else:
            out.append(line)
    checker = check("\n".join(out), solver)
    assert checker.problems == [] and len(checker.summaries) == 10


# --- corruptions ----------------------------------------------------------------------------------
def wrong_value(lines):
    index = row_index(lines, "Q2", 4)
    set_cell(lines, index, 1, "2")
    return index, "value 2 is wrong: the exact minimax value is -2"


def non_optimal_opening(lines):
    _, optimal, _ = nqueens.solve_size("1a", 10)
    worse = next(row for row in range(10) if ("X", row) not in optimal)
    index = row_index(lines, "Q3", 10)
    set_cell(lines, index, 2, f"('X', {worse})")
    return index, f"('X', {worse}) is not an optimal opening"


def non_optimal_opening_1b_in_a_cutoff_table(lines):
    _, optimal, _ = nqueens.solve_size("1b", 4)
    worse = next(row for row in range(4) if ("X", row) not in optimal)
    index = row_index(lines, "Q7", 4, occurrence=1)
    set_cell(lines, index, 2, f"('X', {worse})")
    return index, "Q7 N=4: ('X', " + str(worse) + ") is not an optimal opening"


def out_of_range_cutoff_row(lines):
    index = row_index(lines, "Q5", 15)
    set_cell(lines, index, 1, "1.5")
    return index, "outside the utility's range [-1, 1]"


def out_of_range_cutoff_row_1b(lines):
    index = row_index(lines, "Q6", 12)
    set_cell(lines, index, 1, "-13")
    return index, "outside the utility's range [-12, 12]"


def opening_off_the_board(lines):
    index = row_index(lines, "Q6", 17)
    set_cell(lines, index, 2, "('X', 17)")
    return index, "off the board"


def opening_of_player_2(lines):
    index = row_index(lines, "Q1", 3)
    set_cell(lines, index, 2, "('O', 1)")
    return index, "Player 1's move"


def missing_question(lines):
    start = next(i for i, line in enumerate(lines) if line.startswith("== Q3"))
    end = next(i for i, line in enumerate(lines) if line.startswith("== Q4"))
    del lines[start:end]
    return None, "Q3 is missing"


def missing_second_q7(lines):
    starts = [i for i, line in enumerate(lines) if line.startswith("== Q7")]
    end = next(i for i, line in enumerate(lines) if line.startswith("== Q9"))
    del lines[starts[1]:end]
    return None, "Q7 asks for two tables"


def missing_row(lines):
    index = row_index(lines, "Q1", 7)
    del lines[index]
    heading = next(i for i, line in enumerate(lines) if line.startswith("== Q1"))
    return heading, "no row for N = 7"


def q9_disagreement(lines):
    tables = [i for i, line in enumerate(lines) if line.startswith("== Q9")]
    index = tables[1] + 3
    flipped = "0W, 1L" if lines[index].endswith("1W, 0L") else "1W, 0L"
    lines[index] = lines[index][:-6] + flipped
    return index, "alpha-beta and minimax disagree"


def q9_not_one_game(lines):
    index = next(i for i, line in enumerate(lines) if line.startswith("== Q9")) + 2
    lines[index] = lines[index][:-6] + "1W, 1L"
    return index, "is not the result of one game"


def unreadable_row(lines):
    index = row_index(lines, "Q4", 5)
    lines[index] = lines[index].replace("('X', ", "X-")
    return index, "cannot read this row"


CORRUPTIONS = [wrong_value, non_optimal_opening, non_optimal_opening_1b_in_a_cutoff_table,
               out_of_range_cutoff_row, out_of_range_cutoff_row_1b, opening_off_the_board,
               opening_of_player_2, missing_question, missing_second_q7, missing_row,
               q9_disagreement, q9_not_one_game, unreadable_row]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_every_corruption_is_caught_at_its_line(corrupt, a4_text, solver):
    lines = a4_text.split("\n")
    index, words = corrupt(lines)
    problems = check("\n".join(lines), solver).problems
    line = 0 if index is None else index + 1
    assert any(number == line and words in text for number, text in problems), \
        (line, words, problems)


def test_the_command_reports_per_question_and_exits_1(a4_text, tmp_path):
    lines = a4_text.split("\n")
    index, _ = wrong_value(lines)
    path = tmp_path / "A4_output.txt"
    path.write_text("\n".join(lines))
    run = subprocess.run([sys.executable, "-m", "engine", "nqueens", "check", str(path)],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 1 and run.stderr == ""
    out = run.stdout.splitlines()
    assert out[0] == (f"{path}:{index + 1}: Q2 N=4: value 2 is wrong: the exact minimax "
                      f"value is -2")
    assert out[2].startswith("Q2 (variation 1b, minimax, full depth): ")
    assert out[2].endswith(": 1 problem") and out[-1] == "problems found"
    path.write_text(a4_text)
    run = subprocess.run([sys.executable, "-m", "engine", "nqueens", "check", str(path)],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "OK"
    run = subprocess.run([sys.executable, "-m", "engine", "nqueens", "check",
                          str(tmp_path / "none.txt")], cwd=REPO, capture_output=True,
                         text=True)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1


# --- never a traceback ---------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(edits=st.lists(st.tuples(st.sampled_from(["delete", "digit", "minus"]),
                                st.integers(0, 10 ** 6), st.integers(0, 9)),
                      min_size=1, max_size=4))
def test_any_edited_file_gives_problems_never_a_crash(edits, a4_text, solver):
    lines = a4_text.split("\n")
    for kind, where, digit in edits:
        index = where % len(lines)
        if kind == "delete":
            del lines[index]
        elif kind == "minus":
            lines[index] = "-" + lines[index]
        else:
            positions = [i for i, ch in enumerate(lines[index]) if ch.isdigit()]
            if positions:
                i = positions[where % len(positions)]
                lines[index] = lines[index][:i] + str(digit) + lines[index][i + 1:]
    checker = check("\n".join(lines), solver)
    for number, message in checker.problems:
        assert 0 <= number <= len(lines) and message and "\n" not in message


def test_one_table_is_checked_as_the_question_named(tmp_path, capsys):
    path = tmp_path / "q2.txt"
    assert nqueens.main(["table", "--variation", "1b", "--search", "minimax", "--sizes",
                         "1-10", "--no-time"]) == 0
    table = capsys.readouterr().out
    path.write_text(table)
    assert nqueens.main(["check", "--question", "Q2", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Q2 (variation 1b, full depth): 10 rows, 10 checked exactly: OK", "OK"]
    # The same table read as Q1's (variation 1a) has wrong values from N = 4 on.
    assert nqueens.main(["check", "--question", "Q1", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:5: Q1 N=4: value -2 is wrong: the exact minimax value is -1" in out
    assert nqueens.main(["check", str(path)]) == 1       # no heading: not an A4 file
    assert "a table row before any question heading" in capsys.readouterr().out
