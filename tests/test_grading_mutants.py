"""Our own programs pass every generated case; broken copies fail with the right diagnosis.

Each mutant (tests/grading_mutants.py) is a copy of the repository with one deliberate
bug, run as a subprocess exactly as a grader runs a submission (run_reference with
``repo=`` the copy) on a few generated cases; the diagnosis must name the bug.
"""

import re
import tempfile
from pathlib import Path

import pytest

from engine.grading.case import REPO, run_reference
from engine.grading.diagnose import diagnose
from engine.grading.generate import PROGRAMS, generate_cases
from engine.grading.scoring import score
from engine.grading.judges import load as load_assignment
from grading_mutants import make_mutant

SEED = 1        # the default seed: the one holding the edge cases


@pytest.fixture(scope="module")
def cases():
    return {program: generate_cases(load_assignment(program), 40, SEED) for program in PROGRAMS}


def pick(cases, program, *labels, limit=None):
    """The cases of ``program`` whose names contain one of ``labels`` (in order)."""
    chosen = [c for c in cases[program] if any(label in c.name for label in labels)]
    return chosen[:limit] if limit else chosen


def run_all(program, chosen, repo, tmp_path, lenient=False):
    """[(case, outcome, verdict)] of the programs in ``repo`` on ``chosen``."""
    results = []
    for case in chosen:
        workdir = Path(tempfile.mkdtemp(prefix=f"{program}-{case.name}-", dir=tmp_path))
        outcome = run_reference(case, workdir, repo=repo)
        results.append((case, outcome, diagnose(load_assignment(program), case, outcome, lenient)))
    return results


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    """name -> folder of that mutant (made once, lazily)."""
    made = {}

    def get(name):
        if name not in made:
            made[name] = make_mutant(name, tmp_path_factory.mktemp("mutant"))
        return made[name]
    return get


@pytest.mark.parametrize("program", PROGRAMS)
def test_our_own_programs_score_100_percent(program, cases, tmp_path):
    chosen = cases[program][:6] + cases[program][-4:]
    results = run_all(program, [c for c in chosen if "blank-minimax" not in c.name],
                      REPO, tmp_path)
    verdicts = [verdict for _, _, verdict in results]
    assert all(v.passed and v.reason == "passed" for v in verdicts), verdicts
    result = score(load_assignment(program), verdicts)
    assert result.score == result.max_score == len(verdicts)
    assert result.points == result.max_points


def test_tie_break_ge_is_a_tie_break_slip(cases, mutants, tmp_path):
    repo = mutants("tie-break >=")
    results = run_all("tictactoe", pick(cases, "tictactoe", "blank-prune", "midgame", limit=4),
                      repo, tmp_path)
    results += run_all("stake_raid", pick(cases, "stake_raid", "tie-", limit=4), repo, tmp_path)
    failed = [(c, v) for c, _, v in results if not v.passed]
    assert len(failed) >= 3
    for case, verdict in failed:
        assert "tie-break slip: both moves have value" in verdict.reason, (case.name, verdict)
    stake_raid = [v for c, _, v in results if c.program == "homework.py" and not v.passed]
    assert stake_raid and all("Stakes-then-Raids row-major order" in v.reason
                              for v in stake_raid)


def test_tie_break_ge_is_no_fault_in_morris(cases, mutants, tmp_path):
    """Morris grades legality and solved values, not our choice among equal moves."""
    chosen = pick(cases, "tmmorris", "blank-ply", "won-ply7", "drawn-ply8", limit=4)
    results = run_all("tmmorris", chosen, mutants("tie-break >="), tmp_path)
    assert any(o.stdout != c.stdout for c, o, _ in results)
    assert all(v.passed for _, _, v in results), [v for _, _, v in results]


def test_pre_order_listing(cases, mutants, tmp_path):
    chosen = pick(cases, "tictactoe", "midgame", "blank-prune-ply2", "o-to-move", limit=4)
    results = run_all("tictactoe", chosen, mutants("pre-order listing"), tmp_path)
    assert results
    for case, _outcome, verdict in results:
        assert verdict.reason == "visited file: listed in pre-order", (case.name, verdict)


def test_crlf_line_endings(cases, mutants, tmp_path):
    chosen = pick(cases, "tictactoe", "midgame", "near-full", limit=3)
    results = run_all("tictactoe", chosen, mutants("CRLF line endings"), tmp_path)
    assert results
    for _case, _outcome, verdict in results:
        assert verdict.reason == "CRLF line endings (stdout, visited file)", verdict
    lenient = run_all("tictactoe", chosen[:1], mutants("CRLF line endings"), tmp_path,
                      lenient=True)
    assert not lenient[0][2].passed


def test_cut_test_after_the_window_update(cases, mutants, tmp_path):
    chosen = pick(cases, "take_stones", "mid-game", "new-game", "first-move", "history",
                  "depth2", "depth3", "depth4")
    results = run_all("take_stones", chosen, mutants("cut test after the window update"),
                      tmp_path)
    failed = [(c, o, v) for c, o, v in results if not v.passed]
    assert len(failed) >= 3
    for case, outcome, verdict in failed:
        match = re.match(r"trace: first difference at node reached by taking ([\d, ]+): "
                         r"expected alpha: (-?\d+), beta: (-?\d+), got alpha: (-?\d+), "
                         r"beta: (-?\d+)", verdict.reason)
        assert match, (case.name, verdict.reason)
        # The right node: the block holding the first line where the outputs differ.
        want, got = case.stdout.split(b"\n"), outcome.stdout.split(b"\n")
        line = next(i for i, (w, g) in enumerate(zip(want, got)) if w != g)
        block = line // 3
        path = match.group(1).split(", ")
        assert want[3 * block] == path[-1].encode()
        numbers = [int(a) for a in case.args]
        left = set(range(1, numbers[0] + 1)) - set(numbers[2:2 + numbers[1]]) \
            - {int(s) for s in path}
        assert want[3 * block + 1] == "".join(f"{s} " for s in sorted(left)).encode()
        assert want[3 * block + 2].decode() == \
            f"alpha: {match.group(2)}\tbeta: {match.group(3)}"
        assert got[3 * block + 2].decode() == \
            f"alpha: {match.group(4)}\tbeta: {match.group(5)}"


def test_raids_before_stakes(cases, mutants, tmp_path):
    chosen = pick(cases, "stake_raid", "tie-stake-raid")
    results = run_all("stake_raid", chosen, mutants("Raids before Stakes"), tmp_path)
    assert len(results) == 2
    for _case, _outcome, verdict in results:
        assert not verdict.passed
        assert re.match(r"wrong move: expected \w+ Stake, got \w+ Raid \(tie-break slip: "
                        r"both moves have value -?\d+; the grader keeps the first in "
                        r"Stakes-then-Raids row-major order\)$", verdict.reason), verdict


def test_missing_final_newline(cases, mutants, tmp_path):
    chosen = pick(cases, "stake_raid", "5x5", "n1-")
    repo = mutants("missing final newline")
    strict = run_all("stake_raid", chosen, repo, tmp_path)
    assert strict and all(v.reason == "output.txt: missing final newline"
                          and not v.unusable_output for _, _, v in strict)
    lenient = run_all("stake_raid", chosen, repo, tmp_path, lenient=True)
    assert all(v.passed and v.lenient and v.reason == "passed (lenient: missing final newline)"
               for _, _, v in lenient)
