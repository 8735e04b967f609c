"""Hidden means hidden: sets made with different seeds share no case, --exclude leaves
out the cases of another set, and grade autograder refuses a bundle whose hidden case
equals a visible one."""

import os
import subprocess
import sys

from golden import REPO

from engine.grading.generate import SHARES, case_key, generate_cases
from engine.grading.judges import load as load_assignment


def kit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "engine", "grade", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_different_seeds_never_share_a_case():
    """The edge cases belong to the default seed; every other case to the share of its
    hash: sets of seeds that differ modulo SHARES are disjoint, whatever their counts."""
    stake_raid = load_assignment("stake_raid")
    sets = {seed: {case_key(case) for case in generate_cases(stake_raid, 12, seed)}
            for seed in (1, 2, 3, 4, 1 + SHARES)}
    for one in (1, 2, 3, 4):
        for other in (1, 2, 3, 4):
            if one != other:
                assert not sets[one] & sets[other], (one, other)
    # Seeds in the same share may meet (the guarantee is modulo SHARES).
    assert len(sets[1]) == 12
    tictactoe = [{case_key(case) for case in generate_cases(load_assignment("tictactoe"), 40, seed)}
                 for seed in (1, 5, 6)]
    assert not (tictactoe[0] & tictactoe[1] or tictactoe[0] & tictactoe[2]
                or tictactoe[1] & tictactoe[2])


def test_excluded_cases_are_never_generated():
    visible = generate_cases(load_assignment("stake_raid"), 8, 1)
    hidden = generate_cases(load_assignment("stake_raid"), 4, 1, exclude=visible[:2])
    assert not {case_key(case) for case in visible[:2]} & {case_key(case) for case in hidden}
    assert [case.name[4:] for case in hidden[:2]] == [case.name[4:] for case in visible[2:4]]


def test_the_docs_gradescope_example_builds_and_a_repeat_is_refused(tmp_path):
    assert kit("cases", "stake_raid", "--count", "8", "--seed", "3", "--out", "visible",
               cwd=tmp_path).returncode == 0
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "4", "--out", "hidden",
               cwd=tmp_path).returncode == 0
    built = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "hidden",
                "--out", "a.zip", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    # The same seed twice: every hidden case has a visible twin, and the bundle is refused.
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "3", "--out", "same",
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
