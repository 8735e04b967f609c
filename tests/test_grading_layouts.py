"""Class folders as instructors download them (engine.grading.layouts): every entry is a
graded student or a row with its reason, in every output; each export layout is
recognised and its students named. The exports here are small fabricated ones, named as
each system names its files."""

import json
import os
import subprocess
import sys

import pytest

from golden import REPO

from engine.grading import layouts
from engine.grading.judges import load as load_assignment

AGENT = "open('output.txt', 'w').write('A1 Stake\\n')\n"


def write(path, text=AGENT):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def rows(folder, layout="auto", staging=None, program="stake_raid"):
    used, students = layouts.read_paths(load_assignment(program), [str(folder)], layout,
                                        str(staging) if staging else None)
    return used, {os.path.basename(student.label): student for student in students}


def test_a_loose_file_and_a_case_twin_are_rows_with_reasons(tmp_path):
    write(tmp_path / "class" / "alice" / "homework.py")
    write(tmp_path / "class" / "bob.py")
    write(tmp_path / "class" / "carol" / "homework.py")
    write(tmp_path / "class" / "Carol" / "homework.py")
    (tmp_path / "class" / "dave").mkdir()
    write(tmp_path / "class" / ".DS_Store", "x")
    used, found = rows(tmp_path / "class")
    assert used == ["folders"]
    assert sorted(found) == ["Carol", "alice", "bob.py", "carol", "dave"]
    assert found["alice"].folder and found["alice"].reason is None
    assert found["bob.py"].folder is None and "loose file" in found["bob.py"].reason
    assert found["carol"].folder is None and "differ only in case" in found["carol"].reason
    assert found["Carol"].folder is None
    assert found["dave"].folder is not None      # graded: detection says why it fails


def test_a_class_folder_that_is_a_submission_too_is_refused(tmp_path):
    write(tmp_path / "class" / "homework.py")
    write(tmp_path / "class" / "alice" / "homework.py")
    write(tmp_path / "class" / "bob" / "homework.py")
    with pytest.raises(layouts.Ambiguous) as refused:
        rows(tmp_path / "class")
    message = str(refused.value)
    assert "--layout single" in message and "--layout folders" in message
    assert "alice" in message
    # The flag picks a reading.
    assert rows(tmp_path / "class", "single")[0] == ["single"]
    _, found = rows(tmp_path / "class", "folders")
    assert found["homework.py"].folder is None and found["alice"].folder


def test_one_student_folder_with_a_backup_inside_is_one_submission(tmp_path):
    write(tmp_path / "alice" / "homework.py")
    write(tmp_path / "alice" / "old" / "homework.py")
    assert rows(tmp_path / "alice")[0] == ["single"]


def test_canvas_flat_export(tmp_path):
    export = tmp_path / "export"
    write(export / "smithbob_1234_5678_homework.py")
    write(export / "doeamy_late_4321_8765_homework-1.py")
    write(export / "doeamy_late_4321_8766_notes.txt", "notes")
    write(export / "README.txt", "hello")
    write(export / "LATE_leecy_9012_8801_homework.py")
    staging = tmp_path / "staging"
    staging.mkdir()
    used, found = rows(export, staging=staging)
    assert used == ["canvas"]
    assert sorted(found) == ["README.txt", "doeamy", "leecy", "smithbob"]
    assert os.listdir(found["leecy"].folder) == ["homework.py"]
    assert sorted(os.listdir(found["doeamy"].folder)) == ["homework.py", "notes.txt"]
    assert found["smithbob"].ids == ("user 1234",)
    assert found["README.txt"].folder is None


def test_blackboard_flat_export_grades_the_latest_attempt(tmp_path):
    export = tmp_path / "export"
    write(export / "HW1_bsmith_attempt_2024-02-01-10-00-00_homework.py", "old\n")
    write(export / "HW1_bsmith_attempt_2024-02-03-09-30-00_hw.py")
    write(export / "HW1_bsmith_attempt_2024-02-03-09-30-00.txt",
          "Name: Bob Smith (bsmith)\nAssignment: HW1\nFiles:\n"
          "\tOriginal filename: homework.py\n"
          "\tFilename: HW1_bsmith_attempt_2024-02-03-09-30-00_hw.py\n")
    write(export / "HW1_amy_attempt_2024-02-02-08-00-00_homework.py")
    staging = tmp_path / "staging"
    staging.mkdir()
    used, found = rows(export, staging=staging)
    assert used == ["blackboard"]
    assert sorted(found) == ["Bob Smith", "amy"]
    bob = found["Bob Smith"]
    assert os.listdir(bob.folder) == ["homework.py"]
    assert (open(os.path.join(bob.folder, "homework.py")).read() == AGENT)
    assert "older attempts set aside: 2024-02-01-10-00-00" in bob.source


def test_moodle_export(tmp_path):
    export = tmp_path / "export"
    write(export / "Bob Smith_1234_assignsubmission_file_" / "homework.py")
    write(export / "Bob Smith_1234_assignsubmission_onlinetext_" / "onlinetext.html", "x")
    write(export / "Amy Doe_5678_assignsubmission_onlinetext_" / "onlinetext.html", "x")
    used, found = rows(export)
    assert used == ["moodle"]
    assert found["Bob Smith"].folder.endswith("Bob Smith_1234_assignsubmission_file_")
    assert found["Amy Doe"].folder is None and "no file submission" in found["Amy Doe"].reason


def test_gradescope_export(tmp_path):
    export = tmp_path / "export"
    write(export / "submission_111" / "homework.py")
    write(export / "submission_222" / "homework.py")
    write(export / "submission_metadata.yml",
          "submission_111:\n  :submitters:\n  - :name: Bob Smith\n    :sid: '100'\n"
          "    :email: bob@example.edu\n  :created_at: 2024-02-01 10:00:00.0 -0800\n"
          "submission_222:\n  :submitters:\n  - :name: Amy Doe\n    :sid: '200'\n"
          "    :email: amy@example.edu\n  - :name: Cy Lee\n    :sid: '201'\n"
          "    :email: cy@example.edu\n")
    used, found = rows(export)
    assert used == ["gradescope"]
    assert sorted(found) == ["Amy Doe, Cy Lee", "Bob Smith"]
    assert found["Bob Smith"].ids == ("Bob Smith <bob@example.edu> sid 100",)


def test_github_classroom_clones(tmp_path):
    export = tmp_path / "export"
    for user in ("bob-smith", "amy"):
        write(export / f"hw1-{user}" / "homework.py")
        (export / f"hw1-{user}" / ".git").mkdir()
    used, found = rows(export)
    assert used == ["classroom"]
    assert sorted(found) == ["amy", "bob-smith"]


def test_every_student_is_named_in_every_output(tmp_path):
    """A Canvas export and a class folder with a loose file, graded at once: each row is
    in the console, the CSV, the JSON, the Gradescope folder and the report."""
    write(tmp_path / "canvas" / "smithbob_1234_5678_homework.py")
    write(tmp_path / "canvas" / "doeamy_4321_8765_homework.py")
    write(tmp_path / "class" / "alice" / "homework.py")
    write(tmp_path / "class" / "carol" / "homework.py")
    write(tmp_path / "class" / "bob.py")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", "canvas", "class",
         "--count", "1", "--isolation", "rlimits", "--quiet", "--json", "r.json", "--csv",
         "r.csv", "--gradescope", "gs", "--report", "r.html"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert run.returncode == 0, run.stderr
    labels = ["canvas/doeamy", "canvas/smithbob", "class/alice", "class/bob.py",
              "class/carol"]
    document = json.loads((tmp_path / "r.json").read_text())
    assert [entry["submission"] for entry in document["submissions"]] == labels
    csv = (tmp_path / "r.csv").read_text()
    report = (tmp_path / "r.html").read_text()
    for label in labels:
        assert f"{label}:" in run.stdout
        assert label in csv and label in report
    assert sorted(os.listdir(tmp_path / "gs")) == [
        "canvas_doeamy.json", "canvas_smithbob.json", "class_alice.json",
        "class_bob.py.json", "class_carol.json"]
    loose = json.loads((tmp_path / "gs" / "class_bob.py.json").read_text())
    # Not graded is said once, not once per case.
    assert len(loose["tests"]) == 1 and "loose file" in loose["tests"][0]["output"]
    bob = report[report.index('<h2 id="s-class-bob-py"'):]
    bob = bob[:bob.index("<h2", 10)]
    assert bob.count("loose file") == 1 and "<table>" not in bob


def test_a_hidden_case_is_named_by_its_number_only():
    from engine.grading.autograder import results_json
    case = {"case": "hidden-001-blank-minimax", "passed": False, "reason": "wrong move",
            "title": "hidden-001-blank-minimax: tictactoe.py --------- visited.txt"}
    entry = {"cases": [case], "points": 0, "max_points": 1, "score": 0, "max_score": 1}
    [test] = results_json({"program": "tictactoe"}, entry, {case["case"]})["tests"]
    assert test["name"] == "hidden case 1" and test["visibility"] == "after_published"
    assert "blank" in test["output"]            # shown once published


def test_the_ambiguous_class_folder_is_one_line_and_exit_2(tmp_path):
    write(tmp_path / "class" / "homework.py")
    write(tmp_path / "class" / "alice" / "homework.py")
    write(tmp_path / "class" / "bob" / "homework.py")
    run = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", "class", "--count",
         "1", "--isolation", "rlimits"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().split("\n")) == 1 and "--layout" in run.stderr


def test_every_export_layout_names_its_students_in_every_output(tmp_path):
    """One run over an export of each form: every student, under the name the export
    gives, in the console, the CSV, the JSON, the report and the Gradescope folder."""
    write(tmp_path / "bb" / "HW1_bsmith_attempt_2024-02-03-09-30-00_homework.py")
    write(tmp_path / "bb" / "HW1_bsmith_attempt_2024-02-03-09-30-00.txt",
          "Name: Bob Smith (bsmith)\n")
    write(tmp_path / "moodle" / "Amy Doe_5678_assignsubmission_file_" / "homework.py")
    write(tmp_path / "gs" / "submission_111" / "homework.py")
    write(tmp_path / "gs" / "submission_metadata.yml",
          "submission_111:\n  :submitters:\n  - :name: Cy Lee\n    :sid: '7'\n")
    for user in ("dee", "eve"):
        write(tmp_path / "gh" / f"hw1-{user}" / "homework.py")
        (tmp_path / "gh" / f"hw1-{user}" / ".git").mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", "bb", "moodle", "gs",
         "gh", "--count", "1", "--isolation", "rlimits", "--quiet", "--json", "r.json",
         "--csv", "r.csv", "--gradescope", "out", "--report", "r.html"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert run.returncode == 0, run.stderr
    labels = ["bb/Bob Smith", "moodle/Amy Doe", "gs/Cy Lee", "gh/dee", "gh/eve"]
    document = json.loads((tmp_path / "r.json").read_text())
    assert [entry["submission"] for entry in document["submissions"]] == labels
    csv = (tmp_path / "r.csv").read_text()
    report = (tmp_path / "r.html").read_text()
    for label in labels:
        assert f"{label}:" in run.stdout and label in csv and label in report
        assert "not graded" not in run.stdout
    assert sorted(os.listdir(tmp_path / "out")) == sorted(
        label.replace("/", "_") + ".json" for label in labels)
