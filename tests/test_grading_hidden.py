"""Hidden means hidden: a hidden set made with --exclude VISIBLE never holds a case of
VISIBLE (command and files), whatever the seed and the counts, and grade autograder
refuses a bundle whose hidden case equals a visible one. Seeds do not keep sets apart:
two seeds may give the same case (docs/grading.md, "grade cases")."""

import os
import subprocess
import sys

import pytest
from golden import REPO
from hypothesis import example, given, settings, strategies as st

from engine.errors import UsageError
from engine.grading.case import Outcome, load_case
from engine.grading.casespace import Stratum, Walk, permute
from engine.grading.generate import PROGRAMS, case_key, generate_cases
from engine.grading.judges import load as load_assignment
from thoroughness import examples


def kit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "engine", "grade", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def stub(case):
    """A runner that runs nothing: the cases' commands and files are what is tested."""
    return Outcome(0, b"", b"", {})


@pytest.mark.parametrize("program", PROGRAMS)
@settings(max_examples=examples(4), deadline=None)
@given(seed=st.integers(0, 2 ** 63 - 1), visible=st.integers(1, 30), hidden=st.integers(1, 30))
@example(seed=2021, visible=40, hidden=40)
def test_a_hidden_set_never_holds_a_visible_case(program, seed, visible, hidden):
    assignment = load_assignment(program)
    shown = generate_cases(assignment, visible, seed, runner=stub)
    kept = generate_cases(assignment, hidden, seed, runner=stub, exclude=shown)
    assert len(shown) == visible and len(kept) == hidden
    assert not {case_key(case) for case in shown} & {case_key(case) for case in kept}
    # A second hidden set, excluding both, meets neither.
    more = generate_cases(assignment, 10, seed + 1, runner=stub, exclude=shown + kept)
    assert not {case_key(case) for case in more} & {case_key(case) for case in shown + kept}


def test_seeds_do_not_keep_sets_apart():
    """Every seed starts with the edge cases: without --exclude, two seeds' sets share
    the blank board (which is why a hidden set is made with --exclude)."""
    one, other = (generate_cases(load_assignment("tictactoe"), 3, seed, runner=stub)
                  for seed in (1, 2021))
    assert {case_key(case) for case in one} & {case_key(case) for case in other}


@settings(max_examples=examples(25), deadline=None)
@given(size=st.integers(1, 1500), data=st.data())
def test_a_seed_walks_a_whole_family_once(size, data):
    """What generation rests on: permute maps 0..size-1 onto itself, so a seed draws
    every number of a family once, and then the family is used up."""
    name = data.draw(st.text(max_size=8))
    assert sorted(permute(name, size, i) for i in range(size)) == list(range(size))
    family = Stratum(name, size, lambda n: None if n % 7 == 3 else (str(n), [], {}))
    walk = Walk("toy", data.draw(st.integers(0, 2 ** 63 - 1)))
    drawn = [int(label) for label, _, _ in walk.through(family)]
    assert sorted(drawn) == [n for n in range(size) if n % 7 != 3]
    assert walk.used_up(family)


def test_bad_seeds_and_counts_are_refused():
    with pytest.raises(UsageError, match="natural number"):
        generate_cases(load_assignment("tictactoe"), 2, -1, runner=stub)
    with pytest.raises(UsageError, match="non-negative integer"):
        generate_cases(load_assignment("tictactoe"), -2, 1, runner=stub)


def test_excluded_cases_are_never_generated():
    visible = generate_cases(load_assignment("stake_raid"), 8, 1)
    hidden = generate_cases(load_assignment("stake_raid"), 4, 1, exclude=visible[:2])
    assert not {case_key(case) for case in visible[:2]} & {case_key(case) for case in hidden}
    assert [case.name[4:] for case in hidden[:2]] == [case.name[4:] for case in visible[2:4]]


def test_the_docs_gradescope_example_builds_and_a_repeat_is_refused(tmp_path):
    """docs/grading.md's bundle: 8 visible cases, 4 hidden made with --exclude visible;
    none of the hidden equals a visible one, command and files."""
    assert kit("cases", "stake_raid", "--count", "8", "--out", "visible",
               cwd=tmp_path).returncode == 0
    assert kit("cases", "stake_raid", "--count", "4", "--out", "hidden", "--exclude",
               "visible", cwd=tmp_path).returncode == 0

    def folder_keys(name):
        return {case_key(load_case(folder)) for folder in (tmp_path / name).iterdir()}
    assert len(folder_keys("visible")) == 8 and len(folder_keys("hidden")) == 4
    assert not folder_keys("visible") & folder_keys("hidden")
    built = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "hidden",
                "--out", "a.zip", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    # The same seed twice without --exclude: every hidden case has a visible twin, and
    # the bundle is refused.
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "1", "--out", "same",
               cwd=tmp_path).returncode == 0
    refused = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "same",
                  "--out", "b.zip", cwd=tmp_path)
    assert refused.returncode == 2 and not (tmp_path / "b.zip").exists()
    assert len(refused.stderr.strip().split("\n")) == 1
    assert "4 hidden case(s) equal visible ones: 001-" in refused.stderr


def test_grade_cases_defaults_the_seed_to_1_as_grade_run(tmp_path):
    done = kit("cases", "tictactoe", "--count", "2", "--out", "cases", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = [case.name for case in generate_cases(load_assignment("tictactoe"), 2, 1)]
    assert sorted(os.listdir(tmp_path / "cases")) == expected


@pytest.mark.slow
def test_every_tictactoe_case_and_not_one_more():
    """Tic-tac-toe's kinds of cases, counted from the game: every open board in each of
    11 modes (4,520 x 11) and every board already over in each (958 x 11). A set of all
    of them is made; one more is refused in one line."""
    from engine.games.tictactoe import TicTacToe
    from engine.grading.assignments.tictactoe import RANDOM_MODES, tictactoe_positions
    every = len(tictactoe_positions()) * len(RANDOM_MODES)
    assert every == (4520 + 958) * 11 and not TicTacToe().is_terminal("-" * 9)
    cases = generate_cases(load_assignment("tictactoe"), every, 2021, runner=stub)
    assert len({case_key(case) for case in cases}) == every
    with pytest.raises(UsageError, match=f"^tictactoe has only {every} distinct cases"):
        generate_cases(load_assignment("tictactoe"), every + 1, 2021, runner=stub)
