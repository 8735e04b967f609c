"""Hidden means hidden: a hidden set made with --exclude shares no case with the visible
one, and grade autograder refuses a bundle whose hidden case equals a visible one."""

import os
import subprocess
import sys

from golden import REPO

from engine.grading.generate import case_key, generate_cases


def kit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "engine", "grade", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_excluded_cases_are_never_generated():
    visible = generate_cases("stake_raid", 8, 3)
    hidden = generate_cases("stake_raid", 4, 4, exclude=visible)
    assert not {case_key(case) for case in visible} & {case_key(case) for case in hidden}
    # Without the exclusion the fixed edge cases are shared (what the refusal catches).
    plain = generate_cases("stake_raid", 4, 4)
    assert {case_key(case) for case in visible} & {case_key(case) for case in plain}


def test_the_docs_gradescope_example_refuses_then_builds(tmp_path):
    assert kit("cases", "stake_raid", "--count", "8", "--seed", "3", "--out", "visible",
               cwd=tmp_path).returncode == 0
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "4", "--out", "same",
               cwd=tmp_path).returncode == 0
    refused = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "same",
                  "--out", "a.zip", cwd=tmp_path)
    assert refused.returncode == 2 and not (tmp_path / "a.zip").exists()
    assert len(refused.stderr.strip().split("\n")) == 1
    assert "tie-stake-raid = 003-tie-stake-raid" in refused.stderr
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "4", "--out", "hidden",
               "--exclude", "visible", cwd=tmp_path).returncode == 0
    built = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "hidden",
                "--out", "a.zip", cwd=tmp_path)
    assert built.returncode == 0, built.stderr


def test_grade_cases_defaults_the_seed_to_1_as_grade_run(tmp_path):
    done = kit("cases", "tictactoe", "--count", "2", "--out", "cases", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = [case.name for case in generate_cases("tictactoe", 2, 1)]
    assert sorted(os.listdir(tmp_path / "cases")) == expected
