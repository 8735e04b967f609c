"""The kit never misleads: as a student and as an instructor use it (docs/failures.md,
docs/grading.md).

An installed command that a copy in the folder cannot shadow, every folder of a class
accounted for, failures that say how to reproduce them, crashes as headlines, panes that
show where outputs differ, bad output paths refused before any case runs.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import grade, only_case, our_copy, stake_raid_case, submission
from grading_mutants import make_mutant

from engine.grading import exports, report_html
from engine.grading.case import write_case
from engine.grading.cli import gradescope_names, write_step_pages
from engine.grading.generate import generate_cases
from engine.grading.runner import find_submissions
from engine.games.stake_raid_files import input_text
from engine.grading.judges import load as load_assignment

# The tie-break slip of a student's copy: the last of equal moves wins.
SLIP = {"engine/search.py": ("if best is None or (cv > v if maximizing else cv < v):",
                             "if best is None or (cv >= v if maximizing else cv <= v):")}


def kit(args, cwd=REPO, env=None):
    return subprocess.run([sys.executable, "-m", "engine", "grade"] + args, cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))


# --- an installed command ----------------------------------------------------------------

def test_a_buggy_copy_graded_from_inside_is_refused(tmp_path):
    clone = our_copy(tmp_path / "clone", "tictactoe.py", replace=SLIP)
    inside = kit(["run", "tictactoe", ".", "--count", "5", "--quiet"], cwd=clone,
                 env={"PYTHONPATH": ""})
    assert inside.returncode == 2
    assert inside.stderr.count("\n") == 1
    assert "would grade itself" in inside.stderr
    # From the reference's folder the same copy fails the cases where its slip shows.
    outside = kit(["run", "tictactoe", str(clone), "--count", "20", "--quiet"])
    assert outside.returncode == 0
    assert not outside.stdout.startswith(f"{clone}: 20/20")


@pytest.fixture
def installed(installed_project):
    """``game-search`` installed (pip, from a copy of the project) in a new venv."""
    return installed_project / "bin" / "game-search"


# The installed-command tests share a pip install into a new venv (12 s): make test-all.
@pytest.mark.slow
def test_the_installed_command_is_the_hub(installed, tmp_path):
    shown = subprocess.run([str(installed), "--help"], capture_output=True, text=True,
                           timeout=60, cwd=tmp_path)
    assert shown.returncode == 0
    assert shown.stdout.startswith("usage: game-search PROGRAM")
    played = subprocess.run([str(installed), "tictactoe", "oxxxo-ox-", "v.txt"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    ours = subprocess.run([sys.executable, str(REPO / "tictactoe.py"), "oxxxo-ox-", "w.txt"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert played.returncode == 0 and played.stdout == ours.stdout == "oxxxo-oxo\n"
    assert (tmp_path / "v.txt").read_bytes() == (tmp_path / "w.txt").read_bytes()


@pytest.mark.slow
def test_the_installed_command_grades_a_copy_from_inside_it(installed, tmp_path):
    """A console command does not put the current folder first on sys.path: run inside
    a buggy copy, it grades the copy with the installed reference."""
    clone = our_copy(tmp_path / "clone", "tictactoe.py", replace=SLIP)
    graded = subprocess.run(
        [str(installed), "grade", "run", "tictactoe", ".", "--count", "20", "--quiet",
         "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=600, cwd=clone)
    assert graded.returncode == 0, graded.stderr
    entry = json.loads((tmp_path / "r.json").read_text())["submissions"][0]
    assert entry["score"] < entry["max_score"]


# --- every folder accounted for ----------------------------------------------------------

def mixed_class(tmp_path):
    """alice/hw1/tictactoe.py, bob/TicTacToe.py, carol smith/tictactoe.py."""
    script = (REPO / "tictactoe.py").read_text()
    our_copy(tmp_path / "class" / "alice" / "hw1", "tictactoe.py")
    our_copy(tmp_path / "class" / "carol smith", "tictactoe.py")
    bob = our_copy(tmp_path / "class" / "bob", "tictactoe.py")
    (bob / "tictactoe.py").rename(bob / "TicTacToe.py")
    assert script
    return tmp_path / "class"


def test_no_student_drops_out_of_the_gradebook(tmp_path):
    folder = mixed_class(tmp_path)
    found = find_submissions(load_assignment("tictactoe"), [str(folder)])
    assert [Path(path).name for path in found] == ["alice", "bob", "carol smith"]
    result = kit(["run", "tictactoe", str(folder), "--count", "2", "--quiet",
                  "--csv", str(tmp_path / "g.csv")])
    assert result.returncode == 0, result.stderr
    assert "a submission is one level down: hw1/" in result.stdout
    assert "found TicTacToe.py: names are case-sensitive" in result.stdout
    assert "carol smith: 2/2 cases passed" in result.stdout
    rows = (tmp_path / "g.csv").read_text().splitlines()[1:]
    assert len(rows) == 3
    assert "one level down" in rows[0] and ",0,2," in rows[0]
    descended = find_submissions(load_assignment("tictactoe"), [str(folder)], descend=True)
    assert [os.path.relpath(path, folder) for path in descended] == [
        "alice/hw1", "bob", "carol smith"]


def test_gradescope_files_are_named_within_the_class_folder(tmp_path):
    assert gradescope_names(["/tmp/class/alice", "/tmp/class/carol smith"]) == [
        "alice", "carol smith"]
    assert gradescope_names(["class/alice/hw1", "class/bob"]) == ["alice_hw1", "bob"]


# --- reproducible failures and honest headlines ------------------------------------------

def test_a_failed_case_says_how_to_rerun_it(tmp_path):
    code = ("import sys\n"
            "text = open('input.txt').read()\n"
            "open('output.txt', 'w').write('A1 Stake\\n' + text.split()[0] + '\\n')\n")
    folder = submission(tmp_path / "s", {"homework.py": code})
    [case] = generate_cases(load_assignment("stake_raid"), 1, 3)
    record = only_case(grade("stake_raid", [folder], [case]))
    assert not record["passed"]
    assert record["inputs"]["files"]["input.txt"] == case.files["input.txt"].decode()
    assert record["title"].startswith(f"{case.name}: python3 homework.py (input.txt: ")
    # The command, run in a copy of the student's folder, does what the kit saw.
    again = tmp_path / "again"
    shutil.copytree(folder, again)
    subprocess.run(record["rerun"], shell=True, cwd=again, check=True, timeout=60)
    assert (again / "input.txt").read_bytes() == case.files["input.txt"]
    assert (again / "output.txt").read_text() == record["compared"][0]["actual"]
    document = {"program": "stake_raid", "submissions": [
        {"submission": "s", "points": 0, "max_points": 50, "score": 0, "max_score": 1,
         "cases": [record]}]}
    test = exports.gradescope(document, document["submissions"][0])["tests"][0]
    assert test["name"] == record["title"]
    assert "to rerun it in your folder: printf " in test["output"]
    assert "to rerun it in the submission" in report_html.render(document)


def test_a_failed_trace_says_how_to_step_through_it_against_the_expected_search(tmp_path):
    # A tic-tac-toe copy with the tie-break slip: its visited file leaves the expected
    # search somewhere; the kit names the command that shows where, on the stepping page.
    folder = make_mutant("tie-break >=", tmp_path / "s")
    cases = [case for case in generate_cases(load_assignment("tictactoe"), 12, 1)
             if "prune" in case.args]
    document = grade("tictactoe", [folder], cases)
    # A visited file the report can redraw (kept in the record: at most 64 KB).
    failed = [record for record in document["submissions"][0]["cases"]
              if not record["passed"] and record.get("stepper") and "trace" in record]
    assert failed, [record["reason"] for record in document["submissions"][0]["cases"]]
    record = failed[0]
    # Named as the kit was called (python3 -m engine here), runnable from any folder.
    assert record["stepper"].startswith(f"PYTHONPATH={REPO} python3 -m engine picture "
                                        "tictactoe ")
    assert "--against visited.txt --html steps.html" in record["stepper"]
    again = tmp_path / "again"
    shutil.copytree(folder, again)
    subprocess.run(record["rerun"], shell=True, cwd=again, check=True, timeout=120)
    # In the submission's folder, its own engine/ would come first: refused, one line.
    refused = subprocess.run(record["stepper"], shell=True, cwd=again, timeout=120,
                             capture_output=True, text=True)
    assert refused.returncode == 2 and not (again / "steps.html").exists()
    assert len(refused.stderr.strip().split("\n")) == 1 and "hides" in refused.stderr
    # Beside the visited file alone, it draws our search with it laid over.
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(again / "visited.txt", plain / "visited.txt")
    subprocess.run(record["stepper"], shell=True, cwd=plain, check=True, timeout=120,
                   capture_output=True)
    page = (plain / "steps.html").read_text()
    assert "data-diverge" in page
    entry = document["submissions"][0]
    # A Gradescope reader has no copy of ours: the installed command, and how to get it.
    output = exports.gradescope(document, entry)["tests"][entry["cases"].index(record)][
        "output"]
    assert "game-search picture tictactoe " in output and "pipx install" in output
    assert str(REPO) not in output
    assert "step by step" in report_html.render(document)
    # --report draws the page itself, beside the report, and links it.
    assert record["trace"] == (again / "visited.txt").read_text()
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()
    steps = write_step_pages(str(report), document)
    address = steps[(entry["submission"], record["case"])]
    assert address.startswith("report.steps/")
    assert "data-diverge" in (report.parent / address).read_text()
    assert f'href="{address}"' in report_html.render(document, steps)


def test_a_crash_is_the_headline(tmp_path):
    folder = submission(tmp_path / "s", {"homework.py": "import numpy_of_my_own\n"})
    record = only_case(grade("stake_raid", [folder], [stake_raid_case()]))
    assert record["reason"].startswith(
        "crashed: ModuleNotFoundError: No module named 'numpy_of_my_own'"), record["reason"]
    assert "clean environment" in record["detail"]
    assert "b'" not in record["detail"] and "Traceback" in record["detail"]


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK here")
def test_a_java_exception_is_the_headline(tmp_path):
    code = ("public class homework { public static void main(String[] a) {"
            " int[] x = new int[2]; System.out.println(x[5]); } }\n")
    folder = submission(tmp_path / "s", {"homework.java": code})
    record = only_case(grade("stake_raid", [folder], [stake_raid_case()], timeout=30))
    assert record["reason"].startswith(
        "crashed: java.lang.ArrayIndexOutOfBoundsException"), record["reason"]


def test_the_class_summary_counts_reasons_and_what_lenient_would_forgive(tmp_path):
    cases = generate_cases(load_assignment("tictactoe"), 4, 1)
    no_newline = our_copy(tmp_path / "class" / "a", "tictactoe.py", replace={
        "engine/programs/tictactoe.py": ('sys.stdout.write(result.child + "\\n")',
                                         'sys.stdout.write(result.child)')})
    good = our_copy(tmp_path / "class" / "b", "tictactoe.py")
    document = grade("tictactoe", [no_newline, good], cases)
    first = document["submissions"][0]
    assert exports.failure_summary(first) == (
        "4 failed: missing final newline (cosmetic; --lenient would pass 4)")
    assert exports.failure_summary(document["submissions"][1]) == ""
    assert "--lenient would pass 4" in exports.csv_text(document).splitlines()[1]


def test_lenient_forgives_extra_blank_lines_at_the_end(tmp_path):
    cases = generate_cases(load_assignment("tictactoe"), 2, 1)
    blank = our_copy(tmp_path / "s", "tictactoe.py", replace={
        "engine/programs/tictactoe.py": ("    write_atomically(path, listing.text())",
                                         "    write_atomically(path, listing.text() + '\\n\\n')")})
    strict = grade("tictactoe", [blank], cases)["submissions"][0]
    assert strict["score"] == 0
    assert strict["cases"][0]["reason"] == "visited file: extra blank lines at the end (2)"
    lenient = grade("tictactoe", [blank], cases, lenient=True)["submissions"][0]
    assert lenient["score"] == 2 and lenient["cases"][0]["lenient"]


def test_report_panes_open_where_the_outputs_differ(tmp_path):
    cases = [case for case in generate_cases(load_assignment("tictactoe"), 1, 1)]
    blank = our_copy(tmp_path / "s", "tictactoe.py", replace={
        "engine/programs/tictactoe.py": ("    write_atomically(path, listing.text())",
                                         "    write_atomically(path, listing.text() + '\\n\\n')")})
    document = grade("tictactoe", [blank], cases)
    [compared] = only_case(document)["compared"]
    lines = cases[0].expected["visited.txt"].count(b"\n")
    assert compared["from_line"] == lines - 4          # five lines before the first difference
    page = report_html.render(document)
    assert f"from line {lines - 4}" in page and "(blank line past the end)" in page


# --- fail early ----------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--json", "--csv", "--report", "--gradescope"])
def test_an_output_path_that_cannot_be_written_is_refused_before_grading(tmp_path, option):
    # A case that ran would take at least 2 x 100 + 2 s of wall time (it sleeps).
    folder = submission(tmp_path / "s", {"homework.py": "import time\ntime.sleep(1000)\n"})
    started = time.monotonic()
    missing = kit(["run", "stake_raid", str(folder), "--count", "3", "--timeout", "100",
                   option, str(tmp_path / "nowhere" / "out")])
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "no folder" in missing.stderr and "internal error" not in missing.stderr
    assert time.monotonic() - started < 150      # no case ran (a loaded machine is slow)
    if os.geteuid() != 0:                          # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        refused = kit(["run", "stake_raid", str(folder), "--count", "3",
                       option, str(locked / "out")])
        assert refused.returncode == 2 and "not writable" in refused.stderr


# --- the rest ------------------------------------------------------------------------------

def test_competition_input_writes_times_plainly():
    lines = input_text(3, "COMPETITION", "X", 3.0, [1] * 9, ["..."] * 3).splitlines()
    assert lines[3] == "3"
    assert input_text(3, "COMPETITION", "X", 2.5, [1] * 9, ["..."] * 3).splitlines()[3] == "2.5"


def test_ctrl_c_in_a_human_game_keeps_the_trace(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "engine", "lineemup", "--mode", "H-H", "-n", "3", "-b", "0",
         "-s", "3", "-t", "5", "--dir", str(tmp_path)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # A suite started in the background ignores SIGINT; the game gets Ctrl-C back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = b""
    while b"quits): " not in seen:
        chunk = os.read(process.stdout.fileno(), 4096)
        assert chunk, seen
        seen += chunk
    assert b"Ctrl-D or Ctrl-C quits" in seen
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130
    process.stdin.close()
    traces = list(tmp_path.glob("gameTrace-*.txt"))
    assert len(traces) == 1
    assert "Interrupted (Ctrl-C): the game is abandoned." in traces[0].read_text()


def test_our_own_folder_grades_on_cases_that_carry_their_outputs(tmp_path):
    """With --cases the expected outputs are the cases' own: the reference's folder may
    be graded from itself (make grade-self); generated cases would be refused."""
    [case] = generate_cases(load_assignment("tictactoe"), 1, 2)
    write_case(case, tmp_path / "cases" / case.name)
    result = kit(["run", "tictactoe", str(REPO), "--cases", str(tmp_path / "cases"),
                  "--quiet"])
    assert result.returncode == 0 and "1/1 cases passed" in result.stdout


def test_a_summary_keeps_the_numbers_every_case_shares():
    """Reasons of one kind are summed up as the kind: a number that differs from case to
    case reads N, one they all share stays (Cy's 'found 0' in docs/grading.md)."""
    def failed(*reasons):
        return {"cases": [{"passed": False, "reason": reason} for reason in reasons]
                + [{"passed": True, "reason": "passed"}]}
    unparsable = "output.txt unparsable: expected {} board lines after the move, found 0"
    assert exports.failure_summary(failed(unparsable.format(5), unparsable.format(3))) == (
        "2 failed: output.txt unparsable: expected N board lines after the move, found 0")
    assert exports.failure_summary(failed("visited file: line 3 is not 'STATE VALUE'",
                                          "visited file: line 7 is not 'STATE VALUE'",
                                          "exit code 1")) == (
        "2 failed: visited file: line N is not 'STATE VALUE'; 1 failed: exit code 1")
    # One reason twice is shown as it is; moves are left out of a kind as before.
    assert exports.failure_summary(failed(unparsable.format(5), unparsable.format(5))) == (
        "2 failed: " + unparsable.format(5))
    slip = ("wrong move: expected {}, got {} (tie-break slip: both moves have value 0; the "
            "grader keeps the first in raster order)")
    assert exports.failure_summary(failed(slip.format("x@0", "x@8"), slip.format("o@1", "o@2"))) \
        == "2 failed: wrong move (tie-break slip)"
