"""Generated grading cases: seeded, distinct, valid, replayable, with the edge families."""

import hashlib
import os
import random
import subprocess
import sys

import pytest

from engine.errors import UsageError
from engine.grading.case import REPO, Outcome, load_case, replay, snapshot
from engine.grading.assignments.take_stones import TAKE_STONES_MAX_LINES
from engine.grading.generate import (COVERED_WITHIN, PROGRAMS, generate_cases,
                                     run_in_subprocess, write_cases)
from engine.grading.judges import load as load_assignment

SMALL = 12
LARGE = 80


def digest(cases):
    """A hash of everything a case folder holds, in order."""
    h = hashlib.sha256()
    for case in cases:
        h.update(repr((case.name, case.program, case.args, case.stdin,
                       sorted(case.files.items()), case.stdout, case.stderr, case.exit,
                       sorted(case.expected.items()))).encode())
    return h.hexdigest()


@pytest.fixture(scope="module")
def large():
    return {program: generate_cases(load_assignment(program), LARGE, 1) for program in PROGRAMS}


@pytest.mark.parametrize("program", PROGRAMS)
def test_same_seed_same_bytes_on_disk(program, tmp_path):
    first = write_cases(generate_cases(load_assignment(program), SMALL, 11), tmp_path / "a")
    second = write_cases(generate_cases(load_assignment(program), SMALL, 11), tmp_path / "b")
    assert [f.name for f in first] == [f.name for f in second]
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert len(first) == SMALL


@pytest.mark.parametrize("program", PROGRAMS)
def test_different_seeds_differ(program):
    def stub(case):
        return Outcome(0, b"", b"", {})
    one = generate_cases(load_assignment(program), 40, 1, runner=stub)
    two = generate_cases(load_assignment(program), 40, 2, runner=stub)
    assert [c.args for c in one] != [c.args for c in two] or \
        [c.files for c in one] != [c.files for c in two]


def test_same_cases_in_another_process_with_another_hash_seed():
    """Nothing may depend on set or dict order of strings (hash randomisation)."""
    code = ("import sys, hashlib; from engine.grading.generate import generate_cases\n"
            "from engine.grading.judges import load as load_assignment\n"
            "for p in ('tictactoe', 'tmmorris', 'take_stones', 'stake_raid'):\n"
            "    cs = generate_cases(load_assignment(p), 12, 5)\n"
            "    print(p, hashlib.sha256(repr([(c.name, c.args, sorted(c.files.items()),"
            " c.stdout, sorted(c.expected.items())) for c in cs]).encode()).hexdigest())\n")
    outputs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED=hash_seed)
        outputs.append(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                      capture_output=True).stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") == 4


@pytest.mark.parametrize("program", PROGRAMS)
def test_large_count_distinct_valid_inputs(program, large):
    cases = large[program]
    assert len(cases) == LARGE
    keys = [(c.args, tuple(sorted(c.files.items()))) for c in cases]
    assert len(set(keys)) == LARGE
    assert len({c.name for c in cases}) == LARGE
    assert [c.name for c in cases] == sorted(c.name for c in cases)
    for case in cases:
        assert case.stderr is None and case.exit == 0
        assert b"COMPETITION" not in case.files.get("input.txt", b"")
        assert b"Invalid input" not in case.stdout or program == "take_stones"


def random_label(label):
    return label.startswith(("random", "equal-values"))


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("seed", [1, 2021])
def test_edges_come_first_then_random(program, seed):
    """Every seed starts with the edge cases, in the judge's order (a category a set
    lacks may take one of the first ten places); after them, random cases only."""
    assignment = load_assignment(program)
    cases = generate_cases(assignment, LARGE, seed,
                           runner=lambda case: Outcome(0, b"", b"", {}))
    labels = [case.name.split("-", 1)[1] for case in cases]
    first_random = next(i for i, label in enumerate(labels) if random_label(label))
    assert first_random > 5
    assert all(random_label(label) for label in labels[max(first_random, COVERED_WITHIN):])
    edges = [label for label, _, _ in assignment.judge.edges(
        random.Random(f"engine.grading:{program}:{seed}"))]
    assert labels[0] == edges[0]
    assert [label for label in labels if label in edges] == \
        [label for label in dict.fromkeys(edges) if label in labels]


def test_small_count_is_a_prefix_of_a_larger_one():
    small = generate_cases(load_assignment("tictactoe"), 3, 9)
    larger = generate_cases(load_assignment("tictactoe"), 12, 9)
    assert [c.name[4:] for c in small] == [c.name[4:] for c in larger[:3]]
    assert [c.args for c in small] == [c.args for c in larger[:3]]
    assert generate_cases(load_assignment("tictactoe"), 0, 9) == []


def test_tictactoe_families(large):
    cases = large["tictactoe"]
    names = " ".join(c.name for c in cases)
    for family in ("blank-minimax", "blank-prune", "blank-prune-ply", "near-full",
                   "terminal-x-won", "terminal-o-won", "terminal-full-board", "midgame"):
        assert family in names
    modes = {len(c.args) for c in cases}
    assert modes == {2, 3, 4}
    for case in cases:
        if "terminal" in case.name:
            assert case.stdout == b"" and case.expected == {}
        else:
            assert len(case.stdout) == 10 and "visited.txt" in case.expected


def test_morris_families(large):
    cases = large["tmmorris"]
    names = " ".join(c.name for c in cases)
    for family in ("blank-ply1", "blank-ply1000000", "placement", "movement",
                   "immediate-win", "must-block", "won-ply7", "drawn-ply8",
                   "terminal-line", "terminal-blocked"):
        assert family in names
    assert {c.args[3] for c in cases} == {"x", "o"}
    assert any(int(c.args[2]) >= 7 for c in cases if "random" in c.name)


def test_take_stones_families_and_sizes(large):
    cases = large["take_stones"]
    names = " ".join(c.name for c in cases)
    for family in ("game-over-max-to-move", "game-over-min-to-move", "game-over-new-n1",
                   "depth-beyond-end", "new-n30"):
        assert family in names
    depths = {int(c.args[-1]) for c in cases}
    assert set(range(0, 7)) <= depths
    assert {int(c.args[0]) for c in cases} >= {1, 2, 3, 30}
    for case in cases:
        assert case.stdout.count(b"\n") < TAKE_STONES_MAX_LINES
        assert case.stdout.endswith(b"Invalid input\n") == ("game-over" in case.name)


def test_stake_raid_families(large):
    cases = large["stake_raid"]
    headers = [c.files["input.txt"].split(b"\n")[:4] for c in cases]
    assert {h[1] for h in headers} == {b"MINIMAX", b"ALPHABETA"}
    assert {h[2] for h in headers} == {b"X", b"O"}
    sizes = {int(h[0]) for h in headers}
    assert 1 in sizes and 26 in sizes
    names = " ".join(c.name for c in cases)
    assert "tie-stake-raid" in names and "equal-values" in names
    def deeper_than_empties(case):
        lines = case.files["input.txt"].decode().split("\n")
        size = int(lines[0])
        return int(lines[3]) > sum(row.count(".") for row in lines[4 + size:4 + 2 * size])

    beyond = [c for c in cases if deeper_than_empties(c)]
    assert beyond, "no case searches deeper than the empty squares"
    for case in cases:
        assert case.stdout == b"" and set(case.expected) == {"output.txt"}


@pytest.mark.parametrize("program", PROGRAMS)
def test_cases_replay_green_as_subprocesses(program, tmp_path):
    """Expected outputs made in-process are the bytes the real scripts print: those of a
    hidden set, random cases and instances of the categories its visible set took (the
    edge cases, whose largest runs cost seconds as subprocesses, are left out)."""
    assignment = load_assignment(program)
    visible = generate_cases(assignment, SMALL, 3, runner=lambda case: Outcome(0, b"", b"", {}))
    folders = write_cases(generate_cases(assignment, SMALL, 3, exclude=visible),
                          tmp_path / "cases")
    for folder in folders:
        workdir = tmp_path / ("run-" + folder.name)
        workdir.mkdir()
        assert replay(folder, workdir) == [], folder.name
        assert load_case(folder).name == folder.name


def test_subprocess_runner_gives_the_same_cases():
    assert generate_cases(load_assignment("take_stones"), 6, 4, runner=run_in_subprocess) == \
        generate_cases(load_assignment("take_stones"), 6, 4)


def test_write_cases_refuses_a_non_empty_folder(tmp_path):
    cases = generate_cases(load_assignment("tictactoe"), 2, 1)
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "x").write_text("x")
    with pytest.raises(UsageError):
        write_cases(cases, tmp_path / "old")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError):
        write_cases(cases, tmp_path / "file")
    (tmp_path / "empty").mkdir()
    assert len(write_cases(cases, tmp_path / "empty")) == 2


def test_bad_arguments():
    with pytest.raises(UsageError):
        generate_cases(load_assignment("nqueens"), 3, 1)
    with pytest.raises(UsageError):
        generate_cases(load_assignment("tictactoe"), -1, 1)


DIGEST_SCRIPT = (
    "import hashlib; from engine.grading.generate import generate_cases\n"
    "from engine.grading.judges import load as load_assignment\n"
    "for p in ('tictactoe', 'tmmorris', 'take_stones', 'stake_raid'):\n"
    "    cs = generate_cases(load_assignment(p), 30, 5)\n"
    "    print(p, hashlib.sha256(repr([(c.name, c.args, sorted(c.files.items()), c.stdout,"
    " sorted(c.expected.items())) for c in cs]).encode()).hexdigest())\n")


@pytest.mark.slow
def test_identical_cases_under_every_available_python():
    """Same seed, same case folders on CPython 3.8, this Python and PyPy."""
    import glob
    import shutil
    candidates = [shutil.which("pypy3"), shutil.which("python3.8")]
    candidates += glob.glob("/root/.pyenv/versions/3.8*/bin/python3.8")
    pythons = [sys.executable] + [
        p for p in candidates
        if p and subprocess.run([p, "-c", "import sys; assert sys.version_info >= (3, 8)"],
                                capture_output=True).returncode == 0]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    outputs = {python: subprocess.run([python, "-c", DIGEST_SCRIPT], env=env, check=True,
                                      capture_output=True).stdout for python in pythons}
    assert len(set(outputs.values())) == 1, outputs
