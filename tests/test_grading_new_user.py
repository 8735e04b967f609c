"""What a new user hit in the grading kit, each as that user would meet it: a relative
autograder root, a tie-break slip that alpha-beta disguises, a stepping command pasted
alone, Gradescope tests named by the command that ran, the ETA of a class whose runs hit
their limits, and the HTML summary (docs/grading.md, docs/failures.md)."""

import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import our_copy, submission
from grading_mutants import make_mutant

from engine.games.tictactoe import TicTacToe
from engine.grading import exports, report_html
from engine.grading.case import Case, Outcome
from engine.grading.cli import Progress
from engine.grading.diagnose import diagnose
from engine.grading.judges import load as load_assignment

STUDENT = REPO / "examples" / "grading" / "student" / "tictactoe.py"


def kit(args, cwd, env=None):
    """``python3 -m engine ARGS`` from ``cwd`` with this repository on PYTHONPATH."""
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(REPO), **(env or {})))


# --- the autograder bundle tried with a relative root -------------------------------------

def test_a_relative_autograder_root_gets_its_results(tmp_path):
    """``AUTOGRADER_ROOT=ag ag/source/run_autograder`` (docs/grading.md's way of trying a
    bundle) grades into ag/results, not into ag/source/ag/results."""
    assert kit(["grade", "cases", "tictactoe", "--count", "2", "--out", "cases"],
               tmp_path).returncode == 0
    made = kit(["grade", "autograder", "tictactoe", "--cases", "cases", "--out", "ag.zip",
                "--languages", "python"], tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "ag"
    (root / "results").mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "ag.zip") as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():          # zipfile drops the modes; Gradescope not
            if info.external_attr >> 16:
                os.chmod(root / "source" / info.filename, info.external_attr >> 16)
    our_copy(root / "submission", "tictactoe.py")
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(["ag/source/run_autograder"], cwd=tmp_path, timeout=600,
                          env=dict(environment, AUTOGRADER_ROOT="ag"),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 2, results["output"]
    assert not (root / "source" / "ag").exists()


# --- a tie-break slip seen through alpha-beta ---------------------------------------------

def oracle_value(game, board, depth, alpha=-math.inf, beta=math.inf):
    """AIMA's alpha-beta (fail-soft, the terminal test first, E(s) at the cut-off), written
    here again for the oracle: a node's value, or a bound of it outside (alpha, beta)."""
    value = game.terminal_value(board)
    if value is not None:
        return value
    if depth == 0:
        return game.evaluate(board)
    maximizing = game.is_maxs_turn(board)
    best = -math.inf if maximizing else math.inf
    for _, child in game.successors(board):
        found = oracle_value(game, child, None if depth is None else depth - 1, alpha, beta)
        best = max(best, found) if maximizing else min(best, found)
        if maximizing:
            if best >= beta:
                return best
            alpha = max(alpha, best)
        else:
            if best <= alpha:
                return best
            beta = min(beta, best)
    return best


def last_of_equals(game, board, ply):
    """The move a root keeping the LAST of equal values chooses under alpha-beta."""
    maximizing = game.is_maxs_turn(board)
    alpha, beta, best, chosen = -math.inf, math.inf, None, None
    for _, child in game.successors(board):
        depth = None if ply is None else ply - 1
        value = oracle_value(game, child, depth, alpha, beta)
        if best is None or (value >= best if maximizing else value <= best):
            best, chosen = value, child
        if maximizing:
            alpha = max(alpha, best)
        else:
            beta = min(beta, best)
    return chosen


def tictactoe_case(board, mode, tmp_path):
    """A case of ``board`` in ``mode`` ('prune' or a PLY) with our program's outputs."""
    args = [board, "visited.txt", "prune"] + ([] if mode == "prune" else [str(mode)])
    done = subprocess.run([sys.executable, str(REPO / "tictactoe.py"), *args], cwd=tmp_path,
                          capture_output=True, timeout=120, check=True)
    visited = (tmp_path / "visited.txt").read_bytes()
    return Case(f"{board}-{mode}", "tictactoe.py", tuple(args), stdout=done.stdout,
                expected={"visited.txt": visited}), visited


def test_a_slip_alpha_beta_disguises_is_named_a_tie_break_slip(tmp_path):
    """Every other move of pruned searches, diagnosed: a move of the same real value is a
    tie-break slip; the move a root keeping the last of equal values picks is the same
    slip seen through pruning (its real value is worse, alpha-beta bounded it at the
    best); any other move is a wrong value, an evaluation bug."""
    assignment = load_assignment("tictactoe")
    plain = TicTacToe()
    rng = random.Random(66)
    positions = sorted(b for b in _reachable() if plain.terminal_value(b) is None
                       and b.count("-") >= 4)
    # The grader's own trap (a win above the cut-off) and random positions and depths.
    chosen = [("ooxxx----", 3)] + [(rng.choice(positions), rng.choice(["prune", 2, 3, 4]))
                                   for _ in range(14)]
    kinds = set()
    for board, mode in chosen:
        ply = None if mode == "prune" else mode
        game = TicTacToe(evaluate_terminals=ply is not None)
        case, visited = tictactoe_case(board, mode, tmp_path)
        best = case.stdout.decode().strip()
        slip = last_of_equals(game, board, ply)
        exact = {child: oracle_value(game, child, None if ply is None else ply - 1)
                 for _, child in game.successors(board)}
        for child in exact:
            if child == best:
                continue
            outcome = Outcome(0, child.encode() + b"\n", b"", {"visited.txt": visited})
            reason = diagnose(assignment, case, outcome).reason
            if exact[child] == exact[best]:
                assert "(tie-break slip: both moves have value" in reason, (board, reason)
                kinds.add("tie")
            elif child == slip:
                assert ("(tie-break slip seen through pruning: alpha-beta bounds yours at "
                        f"{exact[best]}, the expected move's value; its own value is "
                        f"{exact[child]})") in reason, (board, mode, reason)
                assert "wrong value" not in reason
                kinds.add("through pruning")
            else:
                assert (f"(wrong value: expected move scores {exact[best]}, yours scores "
                        f"{exact[child]})") in reason, (board, mode, reason)
                kinds.add("value")
    assert kinds == {"tie", "through pruning", "value"}


def _reachable():
    from engine.grading.assignments.tictactoe import tictactoe_positions
    return tictactoe_positions()


def test_the_slip_through_pruning_says_why_the_value_differs():
    from engine.grading.assignments.tictactoe import _tictactoe_move_difference
    reason, detail = _tictactoe_move_difference("ooxxx----", 3, b"ooxxx-o--\n",
                                                b"ooxxx---o\n", prune=True)
    assert reason.startswith("wrong move: expected o@6, got o@8 (tie-break slip seen "
                             "through pruning")
    # Counted as one kind with the plain slip in a class's summary.
    assert exports.reason_kind(reason) == "wrong move (tie-break slip)"
    assert "Not an evaluation bug" in detail and "a bound, not its own value (2)" in detail
    assert ">= where the grader has >" in detail


# --- commands a student pastes -----------------------------------------------------------

@pytest.fixture(scope="module")
def student_run(tmp_path_factory):
    """The kit on two students: the repository's example (a pre-order visited file) and
    a copy that keeps the last of equal moves; --json and --gradescope written."""
    folder = tmp_path_factory.mktemp("students")
    (folder / "class" / "hw1").mkdir(parents=True)
    shutil.copy(STUDENT, folder / "class" / "hw1" / "tictactoe.py")
    make_mutant("tie-break >=", folder / "class" / "carol")
    assert kit(["grade", "cases", "tictactoe", "--count", "12", "--out", "cases"],
               folder).returncode == 0
    for case in (folder / "cases").iterdir():
        if len((case / "cmd").read_text().split()) < 4:
            shutil.rmtree(case)         # minimax: up to 549,945 lines, slow to diagnose
    done = kit(["grade", "run", "tictactoe", "class/hw1", "--cases", "cases", "--quiet",
                "--gradescope", "hw1.json"], folder)
    assert done.returncode == 0, done.stderr
    slipped = kit(["grade", "run", "tictactoe", "class/carol", "--cases", "cases",
                   "--quiet", "--json", "carol.json"], folder)
    assert slipped.returncode == 0, slipped.stderr
    return folder, done.stdout


def test_the_printed_stepping_command_works_pasted_alone(student_run, tmp_path):
    folder, printed = student_run
    lines = [line for line in printed.split("\n") if "watch it step by step" in line]
    assert lines, printed
    command = lines[0].split(": ", 1)[1]
    fresh = tmp_path / "hw1"          # the student's folder as it was: no visited.txt
    fresh.mkdir()
    shutil.copy(STUDENT, fresh / "tictactoe.py")
    done = subprocess.run(["bash", "-c", command], cwd=fresh, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert '"student":"' in (fresh / "steps.html").read_text()


def test_gradescope_shows_a_stepping_command_that_works_alone(student_run):
    folder, _ = student_run
    tests = json.loads((folder / "hw1.json").read_text())["tests"]
    outputs = [test["output"] for test in tests if "step by step" in test["output"]]
    assert outputs
    line = next(line for line in outputs[0].split("\n") if "step by step" in line)
    rerun = next(line for line in outputs[0].split("\n") if line.startswith("to rerun it"))
    rerun = rerun.split(": ", 1)[1]
    assert "(this reruns the case first)" in line
    assert f": {rerun}; game-search picture tictactoe " in line


def test_a_wrong_move_gives_the_stepping_page_the_move(student_run):
    """The copy keeping the last of equal moves writes the expected visited file and
    prints another move: its stepping command hands the page that move."""
    folder, _ = student_run
    document = json.loads((folder / "carol.json").read_text())
    stepped = [case for case in document["submissions"][0]["cases"]
               if case.get("stepper")]
    assert stepped
    for case in stepped:
        printed = case["compared"][0]["actual"].strip()
        assert case["stepper_args"][-2:] == ["--move", printed]
        assert f" --move {printed} --against visited.txt" in case["stepper"]


def test_gradescope_names_a_c_submissions_test_by_the_command_that_ran(tmp_path):
    if not (shutil.which("gcc") and shutil.which("make")):
        pytest.skip("no gcc or make here")
    submission(tmp_path / "c", {
        "Makefile": "tictactoe:\n\tgcc -O2 -o tictactoe.bin tictactoe.c\n",
        "tictactoe.c": '#include <stdio.h>\nint main(void) { puts("x--------"); '
                       "return 0; }\n"})
    done = kit(["grade", "run", "tictactoe", "c", "--count", "3", "--quiet",
                "--gradescope", "c.json", "--json", "all.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    tests = json.loads((tmp_path / "c.json").read_text())["tests"]
    cases = json.loads((tmp_path / "all.json").read_text())["submissions"][0]["cases"]
    assert len(tests) == 3
    for test, case in zip(tests, cases):
        assert test["name"] == f"{case['case']}: {case['command']}"
        assert test["name"].split(": ", 1)[1].startswith("./tictactoe.bin ")
        assert "tictactoe.py" not in test["name"]


# --- class progress -----------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_eta_counts_runs_that_hit_their_limits():
    """Three quick students, then one whose runs each stop at a 10 s limit: once two of
    its runs did, the ETA charges its eight left at 10 s each (it said 16 s at 92/150 when
    the run took 180 s more)."""
    clock = Clock()
    stream = io.StringIO()
    progress = Progress(stream, clock=clock, every=0.0)
    names = ["a", "b", "c", "d", "e"]
    progress.plan({name: 10 for name in names}, slots=1)
    done = 0
    for name, seconds, count in (("a", 0.1, 10), ("b", 0.1, 10), ("c", 0.1, 10),
                                 ("d", 10.0, 2)):
        for _ in range(count):
            clock.now += seconds
            progress.case_done(name, {"seconds": seconds})
            done += 1
            progress(done, 50)
    eta = float(re.findall(r"ETA (\d+) s", stream.getvalue())[-1])
    # Left: d's 8 runs at 10 s, e's 10 at a typical 0.1 s; the kit's own time is nil here.
    assert 80 <= eta <= 85, stream.getvalue()


def test_the_eta_of_an_even_class_is_its_rate():
    clock = Clock()
    stream = io.StringIO()
    progress = Progress(stream, clock=clock, every=0.0)
    progress.plan({"a": 10, "b": 10}, slots=2)
    for done in range(1, 11):
        clock.now += 0.5           # two slots: two runs of 1 s every second
        progress.case_done("ab"[done % 2], {"seconds": 1.0})
        progress(done, 20)
    assert stream.getvalue().split("\n")[-2] == "grade: 10/20 cases, 5 s, ETA 5 s"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_redrawn_bar_leaves_nothing_of_a_longer_line():
    clock = Clock()
    terminal = Terminal()
    progress = Progress(terminal, clock=clock)
    progress.plan({"a": 3}, slots=1)
    for done, seconds in ((1, 10.0), (2, 1.0), (3, 1.0)):
        clock.now += seconds
        progress.case_done("a", {"seconds": seconds})
        progress(done, 3)
    drawn = terminal.getvalue().rstrip("\n").split("\r")[1:]
    assert len(drawn) == 3
    assert "ETA 20 s" in drawn[0] and "ETA 6 s" in drawn[1], drawn
    # Each redraw covers the whole of the line before it: the bars line up.
    assert all(len(later) >= len(earlier) for earlier, later in zip(drawn, drawn[1:]))
    assert [line.index("]") for line in drawn] == [31, 31, 31]


# --- the HTML summary ---------------------------------------------------------------------

def summary_document():
    def case(name, passed, reason="passed"):
        return {"case": name, "passed": passed, "reason": reason, "detail": "",
                "seconds": 0.1}
    slip = "wrong move: expected x@0, got x@{} (tie-break slip: both moves have value 0)"
    entries = [
        {"submission": "class/alice", "kind": "python", "build_error": None, "score": 20,
         "max_score": 20, "points": 20, "max_points": 20,
         "cases": [case(f"c{n:02d}", True) for n in range(20)]},
        {"submission": "class/bob", "kind": "python", "build_error": None, "score": 3,
         "max_score": 20, "points": 3, "max_points": 20,
         "cases": [case(f"c{n:02d}", True) for n in range(3)]
         + [case(f"c{n:02d}", False, slip.format(n % 8 + 1)) for n in range(3, 15)]
         + [case(f"c{n:02d}", False, "CRLF line endings (stdout, visited file)")
            for n in range(15, 20)]},
        {"submission": "class/dave", "kind": "none",
         "build_error": "no tictactoe.py, tictactoe.java or Makefile with a tictactoe "
                        "target\nmore", "score": 0, "max_score": 20, "points": 0,
         "max_points": 20, "cases": [case(f"c{n:02d}", False, "no tictactoe.py")
                                     for n in range(20)]}]
    return {"program": "tictactoe", "isolation": "rlimits", "lenient": False,
            "submissions": entries}


def test_the_html_summary_shows_why_each_student_failed():
    document = summary_document()
    page = report_html.render(document)
    summary = page.split("<h2>Summary</h2>", 1)[1].split("</table>", 1)[0]
    rows = summary.split("<tr>")[2:]
    assert len(rows) == 3
    bob = rows[1]
    for line in exports.failure_lines(document["submissions"][1]):
        assert f">{line}<" in bob.replace("&#x27;", "'")
    assert ">12 failed: wrong move (tie-break slip)<" in bob
    assert ">5 failed: CRLF line endings (stdout, visited file)<" in bob
    assert "not graded: no tictactoe.py, tictactoe.java or Makefile with a tictactoe " \
           "target<" in rows[2]
    assert "more" not in rows[2]


@pytest.mark.browser
def test_the_html_summary_bars_line_up(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("no /usr/bin/chromium (Debian's chromium package) to drive")
    page_file = tmp_path / "report.html"
    page_file.write_text(report_html.render(summary_document()))
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox"] if os.geteuid() == 0 else [])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(Path(page_file).as_uri())
        bars = page.evaluate("""() => Array.from(document.querySelectorAll('.bar')).map(
            e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })""")
        browser.close()
    assert len(bars) == 3
    assert len({left for left, _ in bars}) == 1, bars
    assert len({right for _, right in bars}) == 1, bars
