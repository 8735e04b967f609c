"""Hidden means hidden: sets made with different seeds share no case, --exclude leaves
out the cases of another set, and grade autograder refuses a bundle whose hidden case
equals a visible one."""

import os
import subprocess
import sys

import pytest
from golden import REPO
from hypothesis import example, given, settings, strategies as st

from engine.errors import UsageError
from engine.grading.case import Outcome, load_case
from engine.grading.casespace import pair, permute
from engine.grading.generate import EDGE_SEED, PROGRAMS, case_key, generate_cases
from engine.grading.judges import load as load_assignment


def kit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "engine", "grade", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def keys(program, count, seed):
    """The cases (command and files) of a set, without running our program on them."""
    return {case_key(case) for case in generate_cases(
        load_assignment(program), count, seed, runner=lambda case: Outcome(0, b"", b"", {}))}


# Seeds that differ by 16, 32, 2**k: the old construction (16 hash shares of the seed)
# let them meet: Take-Stones seeds 2 and 18 (20 cases each) shared 'random-n7-k0-depth5'
# and 'random-n17-k0-depth6', tic-tac-toe seeds 3 and 19 (40 each) one 'random-prune-ply7'.
@pytest.mark.parametrize("program", PROGRAMS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 120), gap=st.one_of(st.sampled_from([16, 32, 64, 128]),
                                                 st.integers(1, 130)))
@example(seed=2, gap=16)
@example(seed=1, gap=16)
@example(seed=3, gap=32)
def test_any_two_seeds_share_no_case(program, seed, gap):
    one, other = keys(program, 20, seed), keys(program, 20, seed + gap)
    assert len(one) == len(other) == 20
    assert not one & other, sorted(one & other)


@pytest.mark.parametrize("program", PROGRAMS)
def test_many_seeds_pairwise_disjoint(program):
    """Sixteen seeds at once, among them 1 (with the edge cases), 1 + 16 and 1 + 2**k."""
    seen = {}
    for seed in (0, 1, 2, 3, 5, 8, 17, 18, 19, 33, 65, 129, 34, 50, 66, 97):
        for key in keys(program, 15, seed):
            assert key not in seen, (program, seed, seen.get(key))
            seen[key] = seed


@pytest.mark.parametrize("program", ["take_stones", "tictactoe"])
def test_no_other_seed_repeats_an_edge_case(program):
    """The edge cases are seed 1's: a seed drawing one of them from its own share (a new
    game of n = 1..3 stones, which the small strata hold) leaves it out."""
    stub = {"runner": lambda case: Outcome(0, b"", b"", {})}
    edges = {case_key(case)
             for case in generate_cases(load_assignment(program), 40, EDGE_SEED, **stub)
             if not case.name[4:].startswith("random")}
    assert len(edges) >= 15
    for seed in (0, 2, 3, 4, 5, 6):
        assert not keys(program, 60, seed) & edges, seed


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 5000), data=st.data())
def test_permute_is_a_bijection_and_pair_is_injective(size, data):
    """What the construction rests on: permute maps 0..size-1 onto itself, and Cantor's
    pairing never gives two pairs the same number."""
    name = data.draw(st.text(max_size=8))
    assert sorted(permute(name, size, i) for i in range(size)) == list(range(size))
    a, b = data.draw(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))), \
        data.draw(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)))
    assert (pair(*a) == pair(*b)) == (a == b)


def test_a_seed_whose_share_is_used_up_is_refused():
    """Tic-tac-toe has 49,720 random cases: seed 300 owns about 15 of them, and asking
    it for more says so rather than repeat another seed's case."""
    with pytest.raises(UsageError, match="share .* is used up"):
        keys("tictactoe", 40, 300)
    with pytest.raises(UsageError, match="natural number"):
        keys("tictactoe", 2, -1)
    assert len(keys("tictactoe", 300, EDGE_SEED)) == 300


def test_excluded_cases_are_never_generated():
    visible = generate_cases(load_assignment("stake_raid"), 8, 1)
    hidden = generate_cases(load_assignment("stake_raid"), 4, 1, exclude=visible[:2])
    assert not {case_key(case) for case in visible[:2]} & {case_key(case) for case in hidden}
    assert [case.name[4:] for case in hidden[:2]] == [case.name[4:] for case in visible[2:4]]


def test_the_docs_gradescope_example_builds_and_a_repeat_is_refused(tmp_path):
    """docs/grading.md's bundle: 8 visible cases (seed 1), 4 hidden (seed 2); none of the
    hidden equals a visible one, command and files."""
    assert kit("cases", "stake_raid", "--count", "8", "--out", "visible",
               cwd=tmp_path).returncode == 0
    assert kit("cases", "stake_raid", "--count", "4", "--seed", "2", "--out", "hidden",
               cwd=tmp_path).returncode == 0

    def folder_keys(name):
        return {case_key(load_case(folder)) for folder in (tmp_path / name).iterdir()}
    assert len(folder_keys("visible")) == 8 and len(folder_keys("hidden")) == 4
    assert not folder_keys("visible") & folder_keys("hidden")
    built = kit("autograder", "stake_raid", "--cases", "visible", "--hidden", "hidden",
                "--out", "a.zip", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    # The same seed twice: every hidden case has a visible twin, and the bundle is refused.
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
