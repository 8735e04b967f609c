"""Replays every fixture case (see tests/golden.py) and checks the fixture set itself."""

import pytest

from engine.__main__ import load, program_names
from golden import FIXTURES, REPO, all_cases, case_id, replay

CASES = all_cases()

# Top-level scripts of the grader programs and the engine program each one runs.
SCRIPTS = {"tictactoe.py": "tictactoe", "tmmorris.py": "morris",
           "TakeStones": "take_stones", "homework.py": "stake_raid"}


@pytest.mark.parametrize("case", CASES, ids=[case_id(case) for case in CASES])
def test_golden_case(case, tmp_path):
    problems = replay(case, tmp_path)
    assert not problems, "\n".join(problems)


def test_every_program_has_golden_cases():
    """Meta-test: each program (engine module or top-level script) has golden cases."""
    names = [name for name in program_names() if load(name) is not None]
    names += [program for script, program in SCRIPTS.items() if (REPO / script).exists()]
    assert names, "no programs found"
    missing = sorted({name for name in names
                      if not any(FIXTURES.glob(f"{name}/*/cmd"))})
    assert not missing, f"programs without golden cases in fixtures/: {missing}"


def test_fixture_folders_name_known_programs():
    """A fixture folder for a program that does not exist is a typo, not a test."""
    known = set(program_names())
    for folder in FIXTURES.iterdir():
        if folder.is_dir():
            assert folder.name in known, f"fixtures/{folder.name} matches no program"
