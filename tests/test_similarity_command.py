"""python3 -m engine grade similar: the command, its files, the behaviour evidence, its
errors (docs/similarity.md).

The command runs in process through the kit's own entry point (engine.grading.cli.main:
the same argument parsing, error contract and exit codes as the console command); one
test runs it as a process, as an instructor does.
"""

import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys

import pytest

from golden import REPO
from similarity_helpers import disguise, program

from engine.grading import cli
from engine.markup import asset
from engine.similarity import command
from engine.similarity.behaviour import read_behaviour, shared_wrong


def make_class(folder, count=6, copies=((0, "copy"),), lines=70):
    """A class folder of ``count`` programs (student0 ...) and disguised copies."""
    texts = {}
    for index in range(count):
        texts[f"student{index}"] = program(500 + index, lines)
    for original, name in copies:
        texts[name] = disguise(texts[f"student{original}"], 3)
    for name, text in texts.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "tictactoe.py").write_text(text)
    return texts


def similar(argv, capsys):
    """``grade similar ARGV`` in process: (exit code, stdout, stderr)."""
    code = cli.main(["similar", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def failed_case(name, actual, reason="wrong move 4 (tie-break slip: both moves have value 0)",
                what="visited.txt"):
    """A failed case as grade run --json records it."""
    return {"case": name, "passed": False, "reason": reason,
            "compared": [{"what": what, "from_line": 1, "expected": "xo-\n",
                          "actual": actual, "actual_truncated": False}]}


def lenient_pass(name):
    """A case passed under --lenient: its bytes differ from the expected ones (a trailing
    blank), yet it is a correct answer."""
    return dict(failed_case(name, "xo- \n"), passed=True, reason="passed (lenient)")


def results_document(submissions):
    return {"program": "tictactoe", "submissions": [
        {"submission": name, "build_error": None, "cases": cases}
        for name, cases in submissions.items()]}


# --- the files -----------------------------------------------------------------------------

def test_the_command_reports_the_copy_and_writes_json_csv_and_html(tmp_path, capsys):
    make_class(tmp_path / "class")
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, stderr = similar(
        ["tictactoe", tmp_path / "class", "--top", "5", "--json", out / "r.json", "--csv",
         out / "r.csv", "--html", out / "r.html"], capsys)
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert lines[0].startswith("similar: 7 of 7 entries compared;")
    assert "copy" in lines[1] and "student0" in lines[1]
    document = json.loads((out / "r.json").read_text())
    assert {frozenset((document["pairs"][0]["a"], document["pairs"][0]["b"]))} == {
        frozenset((str(tmp_path / "class" / "copy"), str(tmp_path / "class" / "student0")))}
    rows = list(csv.reader(io.StringIO((out / "r.csv").read_text())))
    assert rows[0][:5] == ["rank", "a", "b", "prior", "score"]
    assert len(rows) == 1 + len(document["pairs"]) and len(document["pairs"]) <= 5
    assert rows[1][1:3] == [document["pairs"][0]["a"], document["pairs"][0]["b"]]
    page = (out / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="pair-1-region-1"' in page
    assert sorted(os.listdir(out)) == ["r.csv", "r.html", "r.json"]   # no temporary left


def test_the_json_has_the_documented_shape(tmp_path, capsys):
    make_class(tmp_path / "class", count=5)
    (tmp_path / "class" / "empty").mkdir()
    code, _, stderr = similar(["tictactoe", tmp_path / "class", "--json",
                               tmp_path / "r.json"], capsys)
    assert code == 0, stderr
    document = json.loads((tmp_path / "r.json").read_text())
    assert set(document) == {"program", "parameters", "base", "summary", "pairs", "clusters",
                             "behaviour", "entries"}
    assert document["program"] == "tictactoe" and document["behaviour"] is None
    parameters = document["parameters"]
    assert parameters["guarantee"] == parameters["k"] + parameters["window"] - 1
    for rank, pair in enumerate(document["pairs"], 1):
        assert pair["rank"] == rank and pair["prior"] is False
        assert 0 <= pair["b_share"] <= 1 and 0 <= pair["a_share"] <= 1
        assert pair["score"] == pytest.approx((pair["a_share"] + pair["b_share"]) / 2,
                                              abs=1e-3)
        for region in pair["regions"]:
            assert set(region) == {"a_file", "a_lines", "b_file", "b_lines", "fingerprints"}
            assert 1 <= region["a_lines"][0] <= region["a_lines"][1]
            assert region["fingerprints"] >= 1
    scores = [pair["score"] for pair in document["pairs"]]
    assert scores == sorted(scores, reverse=True)
    cluster = document["clusters"][0]
    assert set(cluster) == {"number", "members", "best", "pairs", "behaviour"}
    assert cluster["pairs"][0]["rank"] == 1
    by_name = {os.path.basename(entry["name"]): entry for entry in document["entries"]}
    assert by_name["empty"]["compared"] is False
    assert by_name["empty"]["reason"].startswith("empty: no source file")
    assert by_name["copy"]["files"] == ["tictactoe.py"] and by_name["copy"]["tokens"] > 100


def test_every_name_and_line_a_student_controls_is_escaped(tmp_path, capsys, monkeypatch):
    texts = make_class(tmp_path / "class", count=3)
    monkeypatch.chdir(tmp_path)
    hostile = "<img src=x onerror=alert(1)>\x1b[2J"
    os.rename(tmp_path / "class" / "copy", tmp_path / "class" / hostile)
    formula = tmp_path / "class" / "=HYPERLINK(1)"
    formula.mkdir()
    (formula / "tictactoe.py").write_text(texts["student0"].replace(
        "import sys", "import sys\nx = '</pre><script>alert(2)</script>'", 1))
    # A name given relative to here: "=HYPERLINK(1)" alone would start a CSV cell.
    (tmp_path / "class" / "student1").rename(tmp_path / "=cmd")
    code, stdout, stderr = similar(["tictactoe", "class", "--prior", "=cmd", "--html",
                                    tmp_path / "r.html", "--csv", tmp_path / "r.csv"], capsys)
    assert code == 0, stderr
    page = (tmp_path / "r.html").read_text()
    assert "<img" not in page and "<script" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;\\x1b[2J" in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "\x1b" not in stdout and "\\x1b[2J" in stdout
    cells = [cell for row in csv.reader(io.StringIO((tmp_path / "r.csv").read_text()))
             for cell in row]
    assert "'=cmd" in cells and "class/=HYPERLINK(1)" in cells
    assert not any(cell.startswith("=") for cell in cells)


def test_the_page_carries_its_own_style_and_allows_nothing_else(tmp_path, capsys):
    make_class(tmp_path / "class", count=3)
    code, _, _ = similar(["tictactoe", tmp_path / "class", "--html", tmp_path / "r.html"],
                         capsys)
    assert code == 0
    page = (tmp_path / "r.html").read_text()
    css = (REPO / "engine" / "similarity" / "assets" / "report.css").read_text()
    assert asset("engine.similarity", "report.css") == css
    assert f"<style>{css}</style>" in page
    digest = __import__("base64").b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"default-src 'none'; style-src 'sha256-{digest}'" in page
    assert "<script" not in page and "style=" not in page and "http" not in page.split(
        "</head>")[1]
    assert "@media print" in css


# --- behaviour -----------------------------------------------------------------------------

def test_the_same_wrong_bytes_are_marked_and_nothing_else(tmp_path, capsys):
    make_class(tmp_path / "class", count=4)
    names = {name: f"class/{name}" for name in ("student0", "copy", "student1", "student2",
                                                "student3")}
    same = "xo-\nx--\n"
    document = results_document({
        names["student0"]: [failed_case("c1", same), failed_case("c2", "one\n"),
                            {"case": "c3", "passed": True, "reason": "passed"},
                            failed_case("c4", ""), failed_case("c5", "crash\n",
                                                               reason="killed", what="stdout")],
        names["copy"]: [failed_case("c1", same), failed_case("c2", "two\n"),
                        {"case": "c3", "passed": True, "reason": "passed"},
                        failed_case("c4", ""), failed_case("c5", "crash\n",
                                                           reason="killed", what="stdout")],
        names["student1"]: [failed_case("c2", "one\n"), lenient_pass("c6")],
        names["student2"]: [lenient_pass("c6")], names["student3"]: []})
    (tmp_path / "results.json").write_text(json.dumps(document))
    code, stdout, stderr = similar(["tictactoe", tmp_path / "class", "--results",
                                    tmp_path / "results.json", "--json", tmp_path / "r.json",
                                    "--html", tmp_path / "r.html"], capsys)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text())
    top = report["pairs"][0]
    assert {os.path.basename(top["a"]), os.path.basename(top["b"])} == {"student0", "copy"}
    assert [case["case"] for case in top["behaviour"]] == ["c1", "c5"]
    assert top["behaviour"][0]["kinds"] == ["visit order", "tie-break"]
    assert top["behaviour"][1]["kinds"] == ["output"]
    assert "same wrong output in 2 cases" in stdout.splitlines()[1]
    # student0 and student1 printed the same wrong bytes on c2, whatever their code.
    listed = {frozenset((os.path.basename(pair["a"]), os.path.basename(pair["b"]))):
              [case["case"] for case in pair["wrong"]]
              for pair in report["behaviour"]["pairs"]}
    assert listed == {frozenset(("student0", "copy")): ["c1", "c5"],
                      frozenset(("student0", "student1")): ["c2"]}
    assert report["behaviour"]["missing"] == []
    page = (tmp_path / "r.html").read_text()
    assert "Behaviour: the same wrong bytes" in page


@pytest.mark.slow
def test_with_a_real_grade_run_a_copy_shares_its_wrong_outputs(tmp_path, capsys,
                                                             monkeypatch):
    """grade run --json of a class (in its sandbox), then grade similar --results: the
    copy and its original fail the same cases with the same bytes and are marked."""
    texts = {"ann": program(101, 60), "cat": program(102, 60), "dan": program(103, 60)}
    texts["ben"] = disguise(texts["ann"], 5)
    for name, text in texts.items():
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "tictactoe.py").write_text(text)
    graded = subprocess.run([sys.executable, "-m", "engine", "grade", "run", "tictactoe",
                             "class", "--count", "6", "--json", "results.json", "--quiet"],
                            cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)),
                            capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0, graded.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    failed = {entry["submission"]: {case["case"] for case in entry["cases"]
                                    if not case["passed"]}
              for entry in results["submissions"]}
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = similar(["tictactoe", "class", "--results", "results.json",
                                    "--json", "r.json"], capsys)
    assert code == 0, stderr
    top = json.loads((tmp_path / "r.json").read_text())["pairs"][0]
    assert {top["a"], top["b"]} == {"class/ann", "class/ben"}
    marked = {case["case"] for case in top["behaviour"]}
    assert marked and marked <= failed["class/ann"] & failed["class/ben"]


def test_a_wrong_answer_the_whole_class_shares_is_no_evidence():
    names = [f"s{index}" for index in range(14)]
    submissions = {name: [failed_case("common", "everyone's bug\n"),
                          failed_case("rare", "rare bug\n" if name in ("s0", "s1")
                                      else f"own {name}\n")] for name in names}
    behaviour = read_behaviour(results_document(submissions), names, names, True)
    assert behaviour.common == 1
    assert [case.case for case in shared_wrong(behaviour, "s0", "s1")] == ["rare"]
    assert shared_wrong(behaviour, "s2", "s3") == []


def test_results_are_matched_by_the_name_inside_the_class(tmp_path, capsys):
    make_class(tmp_path / "class", count=3)
    document = results_document({
        "/elsewhere/class/student0": [failed_case("c1", "same\n")],
        "other/copy": [failed_case("c1", "same\n")]})
    (tmp_path / "results.json").write_text(json.dumps(document))
    code, _, stderr = similar(["tictactoe", tmp_path / "class", "--results",
                               tmp_path / "results.json", "--json", tmp_path / "r.json"],
                              capsys)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert [case["case"] for case in report["pairs"][0]["behaviour"]] == ["c1"]
    assert sorted(os.path.basename(name) for name in report["behaviour"]["missing"]) == [
        "student1", "student2"]


# --- classes as grade run reads them -------------------------------------------------------

def test_a_canvas_export_is_read_as_grade_run_reads_it(tmp_path, capsys):
    export = tmp_path / "export"
    export.mkdir()
    original = program(42, 80)
    (export / "smithbob_1234_5678_tictactoe.py").write_text(original)
    (export / "doeamy_late_4321_8765_tictactoe-1.py").write_text(disguise(original, 1))
    (export / "leecy_9012_8801_tictactoe.py").write_text(program(43, 80))
    (export / "README.txt").write_text("hello")
    code, stdout, stderr = similar(["tictactoe", export, "--json", tmp_path / "r.json"],
                                   capsys)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert {report["pairs"][0]["a"], report["pairs"][0]["b"]} == {
        str(export / "smithbob"), str(export / "doeamy")}
    assert f"not compared: {export / 'README.txt'}: not named as Canvas names" in stdout
    assert not any(name.startswith("similar-staging-") for name in os.listdir(tmp_path))


def test_prior_folders_and_the_handout_on_the_command_line(tmp_path, capsys):
    make_class(tmp_path / "class", count=4, copies=())
    before = tmp_path / "2023"
    (before / "ann").mkdir(parents=True)
    (before / "ann" / "tictactoe.py").write_text(
        disguise((tmp_path / "class" / "student2" / "tictactoe.py").read_text(), 5))
    (before / "ben").mkdir()
    (before / "ben" / "tictactoe.py").write_text(program(999, 70))
    (tmp_path / "handout.py").write_text(program(1234, 40))
    code, stdout, stderr = similar(["tictactoe", tmp_path / "class", "--prior", before,
                                    "--base", tmp_path / "handout.py", "--json",
                                    tmp_path / "r.json"], capsys)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text())
    top = report["pairs"][0]
    assert top["prior"] is True and top["b"] == str(before / "ann")
    assert top["a"] == str(tmp_path / "class" / "student2") and top["score"] > 0.6
    assert report["summary"] == dict(report["summary"], entries=4, compared=4, prior=2)
    assert report["base"]["files"] == ["handout.py"] and report["base"]["fingerprints"] > 0
    assert "(prior)" in stdout.splitlines()[1]


def test_long_runs_show_their_progress(tmp_path, capsys, monkeypatch):
    make_class(tmp_path / "class", count=3, copies=())
    monkeypatch.setattr(command, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(command, "PROGRESS_EVERY", 0.0)
    code, _, stderr = similar(["tictactoe", tmp_path / "class"], capsys)
    assert code == 0
    assert [line.split(",")[0] for line in stderr.splitlines()] == [
        "similar: 1/3 submissions read", "similar: 2/3 submissions read",
        "similar: 3/3 submissions read", "similar: every submission read in"
        + stderr.splitlines()[-1].split("read in")[1]]
    code, _, stderr = similar(["tictactoe", tmp_path / "class", "--quiet"], capsys)
    assert code == 0 and stderr == ""


# --- errors --------------------------------------------------------------------------------

def bad_usages(tmp_path):
    make_class(tmp_path / "class", count=2, copies=())
    (tmp_path / "one" / "alice").mkdir(parents=True)
    (tmp_path / "one" / "alice" / "tictactoe.py").write_text(program(1, 40))
    (tmp_path / "notes.txt").write_text("not code\n")
    (tmp_path / "stake.json").write_text(json.dumps({"program": "stake_raid",
                                                     "submissions": []}))
    (tmp_path / "garbage.json").write_text("{not json")
    klass = str(tmp_path / "class")
    return {
        "no class": (["tictactoe", tmp_path / "nothing"], "no such class folder"),
        "no handout": (["tictactoe", klass, "--base", tmp_path / "nope"],
                       "--base"),
        "handout without code": (["tictactoe", klass, "--base", tmp_path / "notes.txt"],
                                 "no source file"),
        "prior is a file": (["tictactoe", klass, "--prior", tmp_path / "notes.txt"],
                            "not a folder"),
        "results of another program": (["tictactoe", klass, "--results",
                                        tmp_path / "stake.json"], "'stake_raid'"),
        "results not JSON": (["tictactoe", klass, "--results", tmp_path / "garbage.json"],
                             "not JSON"),
        "no output folder": (["tictactoe", klass, "--json", tmp_path / "no" / "r.json"],
                             "no folder"),
        "output is a folder": (["tictactoe", klass, "--html", tmp_path], "is a folder"),
        "top zero": (["tictactoe", klass, "--top", "0"], "positive"),
        "threshold above one": (["tictactoe", klass, "--threshold", "2"], "at most 1"),
        "one submission": (["tictactoe", tmp_path / "one" / "alice"], "fewer than two"),
        "unknown program": (["chess", klass], "invalid choice"),
        "unknown layout": (["tictactoe", klass, "--layout", "dropbox"], "invalid choice"),
    }


CASES = [
    "no class", "no handout", "handout without code", "prior is a file",
    "results of another program", "results not JSON", "no output folder",
    "output is a folder", "top zero", "threshold above one", "one submission",
    "unknown program", "unknown layout"]


@pytest.mark.parametrize("case", CASES)
def test_bad_usage_is_one_line_exit_2_and_no_file(case, tmp_path, capsys):
    argv, words = bad_usages(tmp_path)[case]
    outputs = [tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.html"]
    code, stdout, stderr = similar(argv + ["--json", outputs[0], "--csv", outputs[1],
                                           "--html", outputs[2]]
                                   if "--json" not in argv and "--html" not in argv
                                   else argv, capsys)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("grade: ") and words in stderr
    assert "Traceback" not in stderr and stdout == ""
    assert not any(path.exists() for path in outputs)


def test_as_a_process_bad_usage_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "engine", "grade", "similar", "tictactoe",
                           str(tmp_path / "missing")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"grade: {tmp_path / 'missing'}: no such class folder\n"


# --- the package ---------------------------------------------------------------------------

ALLOWED_PATH_CALLS = {
    ("command.py", "run"): "the staging folder of ours (mkdtemp), removed after reading",
    ("command.py", "_check_paths"): "the instructor's arguments, checked before any work",
    ("command.py", "_entries"): "folders made inside our own staging folder",
    ("sources.py", "read_submission"):
        "lstat of a submission's own entry (never followed) and, for a submission that "
        "is one file the instructor named, its folder",
}


def test_submissions_are_read_only_through_the_link_safe_functions():
    """As tests/test_trust_lint.py asks of the kit: a path-based file call in
    engine/similarity resolves only the instructor's arguments or our own files."""
    from test_trust_lint import path_calls
    found = set()
    for path in sorted((REPO / "engine" / "similarity").glob("*.py")):
        for _, function, call in path_calls(path.read_text()):
            assert (path.name, function) in ALLOWED_PATH_CALLS, (path.name, function, call)
            found.add((path.name, function))
    assert found == set(ALLOWED_PATH_CALLS)


def test_the_package_data_names_every_asset():
    """pyproject.toml's package-data for engine.similarity matches every file of
    assets/ (else ``pip install .`` would ship a page without its style)."""
    text = (REPO / "pyproject.toml").read_text()
    listed = re.search(r'"engine\.similarity" = \[(.*?)\]', text, re.S).group(1)
    patterns = re.findall(r'"([^"]+)"', listed)
    package = REPO / "engine" / "similarity"
    assets = sorted(package.glob("assets/*"))
    assert assets
    for path in assets:
        assert any(path.relative_to(package).match(pattern) for pattern in patterns), path


@pytest.mark.slow
def test_pip_install_ships_the_stylesheet(installed_project, tmp_path):
    """``pip install .`` (from a copy of the project, into a new venv) installs
    assets/report.css beside the package, and the installed command draws the page."""
    environment = installed_project
    found = list((environment / "lib").glob("python3*/site-packages/engine/similarity/"
                                            "assets/report.css"))
    assert len(found) == 1
    assert found[0].read_bytes() == (REPO / "engine" / "similarity" / "assets" /
                                     "report.css").read_bytes()
    make_class(tmp_path / "class", count=3)
    bare = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([str(environment / "bin" / "game-search"), "grade", "similar",
                           "tictactoe", str(tmp_path / "class"), "--html",
                           str(tmp_path / "r.html")], cwd=tmp_path, env=bare,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert found[0].read_text() in (tmp_path / "r.html").read_text()
