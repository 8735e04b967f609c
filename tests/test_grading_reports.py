"""The kit's outputs: JSON shape, CSV gradebook, Gradescope results, HTML report, CLI."""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from golden import REPO, program_cases
from grading_helpers import grade, our_copy

from engine.grading import exports, report_html


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    """Our tic-tac-toe and a copy whose visited file has no final newline, on 4 samples."""
    folder = tmp_path_factory.mktemp("class")
    good = our_copy(folder / "good", "tictactoe.py")
    broken = our_copy(folder / "broken", "tictactoe.py")
    script = broken / "tictactoe.py"
    script.write_text(script.read_text().replace(
        "sys.exit(main(sys.argv[1:]))",
        "code = main(sys.argv[1:])\nimport os\n"
        "if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):\n"
        "    data = open(sys.argv[2], 'rb').read()\n"
        "    open(sys.argv[2], 'wb').write(data.rstrip(b'\\n') + b'<&>')\n"
        "sys.exit(code)"))
    cases = [case for case in program_cases("tictactoe")
             if case.name in ("case001", "case002", "case003", "terminal-x-won")]
    return grade("tictactoe", [good, broken], cases)


def test_json_has_the_contract_shape(document):
    assert document["program"] == "tictactoe"
    assert document["isolation"]
    for entry in document["submissions"]:
        assert {"submission", "score", "max_score", "points", "max_points",
                "cases"} <= set(entry)
        assert entry["max_score"] == len(entry["cases"]) == 4
        for case in entry["cases"]:
            assert {"case", "passed", "reason", "seconds", "detail"} <= set(case)
            assert isinstance(case["passed"], bool)
            assert case["seconds"] > 0
    json.dumps(document)
    good, broken = document["submissions"]
    assert good["score"] == 4 and broken["score"] == 1   # terminal input: no file to break


def test_csv_has_one_row_per_submission(document):
    rows = list(csv.DictReader(io.StringIO(exports.csv_text(document))))
    assert [row["submission"] for row in rows] == [
        entry["submission"] for entry in document["submissions"]]
    assert rows[0]["failed_cases"] == ""
    assert rows[1]["failed_cases"].split() == ["case001", "case002", "case003"]
    assert rows[1]["score"] == "1" and rows[1]["max_score"] == "4"
    assert {row["comparison"] for row in rows} == {"strict"}


def test_gradescope_results_fields(document):
    entry = document["submissions"][1]
    results = exports.gradescope(document, entry)
    assert results["score"] == entry["points"]
    assert len(results["tests"]) == 4
    for test, case in zip(results["tests"], entry["cases"]):
        assert set(test) >= {"name", "score", "max_score", "output"}
        # Named by what the case runs: its name, then the grader's command line.
        assert test["name"] == case["title"] and test["name"].startswith(case["case"] + ": ")
        assert test["score"] == (test["max_score"] if case["passed"] else 0)
    assert sum(test["max_score"] for test in results["tests"]) == pytest.approx(
        entry["max_points"])
    json.dumps(results)


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.tags, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.external.append(value)
        if tag in ("script", "link", "img", "iframe"):
            self.external.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_report_parses_and_holds_every_case(document):
    page = report_html.render(document)
    parser = Collector()
    parser.feed(page)
    parser.close()
    text = "".join(parser.text)
    assert parser.external == []
    for entry in document["submissions"]:
        assert entry["submission"] in text
        for case in entry["cases"]:
            assert case["case"] in text
    assert "<&>" in text          # the broken output, escaped in the page, read back
    assert "<&>" not in page
    assert text.count("expected visited.txt") == 3


def test_cli_run_writes_every_output_and_merge_joins(tmp_path):
    cases = tmp_path / "cases"
    for name in ("case001", "case002"):
        shutil.copytree(REPO / "fixtures" / "tictactoe" / name, cases / name)
    outputs = {name: tmp_path / name for name in ("r.json", "r.csv", "gs.json", "r.html")}
    command = [sys.executable, "-m", "engine", "grade", "run", "tictactoe", str(REPO),
               "--cases", str(cases), "--jobs", "2", "--json", str(outputs["r.json"]),
               "--csv", str(outputs["r.csv"]), "--gradescope", str(outputs["gs.json"]),
               "--report", str(outputs["r.html"])]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2/2 cases passed" in done.stdout
    assert all(path.exists() for path in outputs.values())
    assert json.loads(outputs["gs.json"].read_text())["score"] == 2
    merged = tmp_path / "merged.json"
    done = subprocess.run([sys.executable, "-m", "engine", "grade", "merge",
                           str(outputs["r.json"]), "--json", str(merged)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(merged.read_text())["submissions"][0]["score"] == 2
    duplicate = subprocess.run([sys.executable, "-m", "engine", "grade", "merge",
                                str(outputs["r.json"]), str(outputs["r.json"]),
                                "--json", str(merged)],
                               cwd=REPO, capture_output=True, text=True, timeout=60)
    assert duplicate.returncode == 2
    assert len(duplicate.stderr.strip().split("\n")) == 1


@pytest.mark.parametrize("argv", [
    ["run", "tictactoe"], ["run", "chess", "."], ["run", "tictactoe", ".", "--jobs", "0"],
    ["run", "tictactoe", ".", "--cases", "/nonexistent"],
    ["run", "tictactoe", "/nonexistent-submission"],
    ["run", "tictactoe", ".", "/nonexistent-submission", "--count", "1"],
    ["run", "tictactoe", ".", "--resume", "--cases", "fixtures/tictactoe"],
    ["merge", "/nonexistent.json", "--json", "x.json"], []])
def test_bad_usage_is_one_line_and_exit_2(argv):
    done = subprocess.run([sys.executable, "-m", "engine", "grade"] + argv, cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().split("\n")) == 1, done.stderr
    assert "Traceback" not in done.stderr


def synthetic(lenient=False, submissions=("a", "b")):
    """A small results document as the runner writes it (one failed case per submission,
    with a long actual output)."""
    long_output = "".join(f"line {number}\n" for number in range(500))
    entries = []
    for name in submissions:
        entries.append({"submission": name, "kind": "python", "build_error": None,
                        "score": 1, "max_score": 2, "points": 1, "max_points": 2,
                        "cases": [
                            {"case": "c1", "passed": True, "reason": "passed", "detail": "",
                             "seconds": 0.1, "lenient": lenient},
                            {"case": "c2", "passed": False, "reason": "wrong move",
                             "detail": "expected a, got b", "seconds": 0.2,
                             "compared": [{"what": "stdout", "expected": "a\n",
                                           "expected_truncated": False,
                                           "actual": long_output[:2000],
                                           "actual_truncated": True}]}]})
    return {"program": "stake_raid", "isolation": "rlimits", "lenient": lenient,
            "submissions": entries}


def test_lenient_comparison_is_marked_in_every_output():
    document = synthetic(lenient=True)
    assert {row["comparison"] for row in csv.DictReader(
        io.StringIO(exports.csv_text(document)))} == {"lenient"}
    results = exports.gradescope(document, document["submissions"][0])
    assert "Lenient" in results["output"]
    assert "--lenient" in results["tests"][0]["output"]
    assert "lenient" in report_html.render(document)
    assert "lenient" not in report_html.render(synthetic())


def test_report_marks_truncated_outputs():
    page = report_html.render(synthetic())
    assert page.count("(truncated)") == 2


def test_several_submissions_give_one_gradescope_file_each(tmp_path):
    from engine.grading.cli import write_outputs
    import argparse
    target = tmp_path / "gradescope"
    options = argparse.Namespace(json=None, csv=None, report=None, gradescope=str(target))
    write_outputs(options, synthetic(submissions=("class/a", "class/b")))
    files = sorted(path.name for path in target.iterdir())
    assert files == ["a.json", "b.json"]      # named within the class folder
    assert json.loads((target / "a.json").read_text())["score"] == 1
    single = tmp_path / "results.json"
    options.gradescope = str(single)
    write_outputs(options, synthetic(submissions=("a",)))
    assert json.loads(single.read_text())["tests"][1]["score"] == 0


def test_an_engine_in_the_current_folder_that_hides_ours_is_refused(tmp_path):
    """python3 -m engine imports the current folder's engine/ first: run inside a copy of
    this repository, the kit would grade with the copy's code."""
    from engine.grading.cli import shadowing_engine
    copy = our_copy(tmp_path / "sub", "tictactoe.py")
    assert shadowing_engine(pythonpath=str(REPO), loaded=copy / "engine") == (
        copy / "engine", (REPO / "engine").resolve())
    assert shadowing_engine(pythonpath=str(REPO), loaded=REPO / "engine") is None
    assert shadowing_engine(pythonpath="", loaded=copy / "engine") is None
    run = subprocess.run([sys.executable, "-m", "engine", "grade", "run", "tictactoe", ".",
                          "--count", "2"], cwd=copy, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=120)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "hides the one PYTHONPATH names" in run.stderr
