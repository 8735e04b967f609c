"""Gradescope autograder bundles (``grade autograder``) run as Gradescope runs them, in a
root laid out like ``/autograder``; PrairieLearn results (``grade run --prairielearn``)."""

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grading_helpers import our_copy, submission
from grading_mutants import make_mutant

from engine.sandbox import _seccomp as seccomp

REPO = Path(__file__).resolve().parent.parent

# The fields Gradescope's autograder specification documents.
TOP_FIELDS = {"score", "execution_time", "output", "output_format", "test_output_format",
              "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
              "leaderboard"}
TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output",
               "output_format", "tags", "visibility", "extra_data"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def engine(*args, cwd=None):
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=600)


def check_gradescope_schema(results):
    """Every field is one Gradescope documents, with the type and values it allows."""
    assert set(results) <= TOP_FIELDS, set(results) - TOP_FIELDS
    assert isinstance(results["score"], (int, float))
    assert results.get("visibility", "visible") in VISIBILITIES
    assert results.get("stdout_visibility", "visible") in VISIBILITIES
    assert results.get("output_format", "text") in FORMATS
    assert isinstance(results.get("output", ""), str)
    for test in results.get("tests", []):
        assert set(test) <= TEST_FIELDS, set(test) - TEST_FIELDS
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float))
        assert isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test.get("status", "passed") in ("passed", "failed")
        assert test.get("visibility", "visible") in VISIBILITIES
        assert test.get("output_format", "text") in FORMATS
    for entry in results.get("leaderboard", []):
        assert set(entry) <= {"name", "value", "order"}
        assert entry.get("order", "desc") in ("asc", "desc")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """A Stake/Raid bundle: 8 visible cases, 4 hidden (the docs' example)."""
    folder = tmp_path_factory.mktemp("bundle")
    # 8 visible cases, and 4 hidden ones made to share none of them (--exclude).
    for name, seed, count in (("visible", 1, 8), ("hidden", 2, 4)):
        exclude = ["--exclude", str(folder / "visible")] if name == "hidden" else []
        done = engine("grade", "cases", "stake_raid", "--count", str(count), "--seed",
                      str(seed), "--out", str(folder / name), *exclude)
        assert done.returncode == 0, done.stderr
    done = engine("grade", "autograder", "stake_raid", "--cases", str(folder / "visible"),
                  "--hidden", str(folder / "hidden"), "--out", str(folder / "ag.zip"),
                  "--languages", "python,java,cpp", "--timeout", "20")
    assert done.returncode == 0, done.stderr
    assert "8 visible and 4 hidden cases" in done.stdout
    return folder / "ag.zip"


def gradescope(tmp_path, zip_path, files=None, folder=None):
    """Lay out a Gradescope-like root (source/ from the zip, submission/, results/),
    run its run_autograder, return results.json."""
    root = tmp_path / "autograder"
    (root / "results").mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():          # zipfile drops the modes: Gradescope not
            mode = info.external_attr >> 16
            if mode:
                os.chmod(root / "source" / info.filename, mode)
    if folder is not None:
        shutil.copytree(folder, root / "submission")
    else:
        submission(root / "submission", files or {})
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environment["AUTOGRADER_ROOT"] = str(root)
    done = subprocess.run([str(root / "source" / "run_autograder")], env=environment,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope_schema(results)
    return results


def test_the_zip_holds_what_gradescope_runs(bundle, tmp_path):
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        config = json.loads(archive.read("autograder.json"))
    for name in ("setup.sh", "run_autograder"):
        assert modes[name] & stat.S_IXUSR, name
    assert "engine/__init__.py" in names and "engine/grading/autograder.py" in names
    assert "engine/programs/take_stones/TakeStones.java" in names
    assert not any("__pycache__" in name for name in names)
    assert sum(1 for name in names if name.startswith("cases/visible/")
               and name.endswith("/cmd")) == 8
    assert sum(1 for name in names if name.startswith("cases/hidden/")
               and name.endswith("/cmd")) == 4
    for package in ("python3", "bubblewrap", "util-linux", "default-jdk-headless", "g++",
                    "make"):
        assert f" {package}" in setup
    assert config == {"program": "stake_raid", "timeout": 20.0, "memory": 768,
                      "languages": ["python", "java", "cpp"], "leaderboard": False}
    python_only = tmp_path / "py.zip"
    done = engine("grade", "autograder", "stake_raid", "--cases",
                  str(bundle.parent / "visible"), "--out", str(python_only),
                  "--languages", "python")
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(python_only) as archive:
        setup = archive.read("setup.sh").decode()
        assert not any(name.startswith("cases/hidden/") for name in archive.namelist())
    assert "default-jdk-headless" not in setup and "g++" not in setup


def test_our_own_submission_scores_full_and_hidden_cases_wait(bundle, tmp_path):
    results = gradescope(tmp_path, bundle, folder=our_copy(tmp_path / "ours", "homework.py"))
    assert results["score"] == 50
    tests = results["tests"]
    assert len(tests) == 12 and all(test["status"] == "passed" for test in tests)
    hidden = [test for test in tests if test["visibility"] == "after_published"]
    assert len(hidden) == 4 and all(test["name"].startswith("hidden case") for test in hidden)
    assert "4 hidden" in results["output"] and results["output_format"] == "md"
    # The student reads which system-call filter held their runs (python: the allowlist).
    if seccomp.allowlist_supported():
        assert "; seccomp allowlist (12 runs))" in results["output"], results["output"]
    # The answers are the kit's alone, whatever fences can run in the container.
    answers = next((tmp_path / "autograder" / "source" / "cases" / "hidden").rglob("output.txt"))
    assert answers.stat().st_mode & 0o077 == 0


def test_a_broken_copy_gets_partial_credit_and_reproducible_diagnoses(bundle, tmp_path):
    results = gradescope(tmp_path, bundle, folder=make_mutant(
        "Raids before Stakes", tmp_path / "mutant"))
    failed = [test for test in results["tests"] if test["status"] == "failed"]
    assert 0 < len(failed) < 12
    assert 0 < results["score"] < 50
    assert results["score"] == pytest.approx(sum(test["score"] for test in results["tests"]),
                                             abs=0.01)
    for test in failed:
        output = test["output"]
        assert test["output_format"] == "md"
        assert "**Command:** `python3 homework.py`" in output
        assert "**input.txt:**" in output and "**Expected output.txt**" in output
        assert "**To rerun it in your folder:**" in output


def test_an_empty_submission_scores_zero_and_says_why(bundle, tmp_path):
    results = gradescope(tmp_path, bundle)
    assert results["score"] == 0
    assert "no homework.py" in results["output"]


def test_a_submission_that_does_not_build_scores_zero_and_says_why(bundle, tmp_path):
    if not shutil.which("javac"):
        pytest.skip("no javac here")
    results = gradescope(tmp_path, bundle, files={
        "homework.java": "public class homework { int x = ; }\n"})
    assert results["score"] == 0
    assert "could not be run" in results["output"] and "javac" in results["output"]


def test_the_kit_failing_still_writes_results(bundle, tmp_path):
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(broken, "w") as target:
        for info in source.infolist():
            data = b"{not json" if info.filename == "autograder.json" else \
                source.read(info)
            target.writestr(info, data)
    results = gradescope(tmp_path, broken, folder=our_copy(tmp_path / "ours", "homework.py"))
    assert results["score"] == 0
    assert "autograder failed" in results["output"] and "not about your code" in \
        results["output"]
    without_engine = tmp_path / "noengine.zip"
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(without_engine, "w") as target:
        for info in source.infolist():
            if not info.filename.startswith("engine/"):
                target.writestr(info, source.read(info))
    results = gradescope(tmp_path / "second", without_engine)
    assert results["score"] == 0 and "autograder failed" in results["output"]


def test_bad_bundle_requests_are_one_line(tmp_path):
    for args in (["--cases", str(tmp_path)],
                 ["--cases", str(tmp_path), "--languages", "cobol"],
                 ["--cases", str(tmp_path), "--out", "/nonexistent/ag.zip"]):
        done = engine("grade", "autograder", "stake_raid", *args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done
        assert "Traceback" not in done.stderr


def test_prairielearn_results(bundle, tmp_path):
    cases = bundle.parent / "visible"
    ours = our_copy(tmp_path / "ours", "homework.py")
    broken = submission(tmp_path / "broken", {"homework.java": "class homework {\n"})
    for folder, gradable in ((ours, True), (broken, False)):
        out = tmp_path / f"{folder.name}.json"
        done = engine("grade", "run", "stake_raid", str(folder), "--cases", str(cases),
                      "--prairielearn", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        results = json.loads(out.read_text())
        assert results["gradable"] is gradable
        assert 0 <= results["score"] <= 1
        assert results["score"] == (1 if gradable else 0)
        for test in results["tests"]:
            assert set(test) == {"name", "description", "points", "max_points", "message",
                                 "output"}
            assert 0 <= test["points"] <= test["max_points"]


@pytest.mark.slow
def test_the_leaderboard_comes_from_a_gauntlet_against_our_agents(bundle, tmp_path):
    board = tmp_path / "board.zip"
    done = engine("grade", "autograder", "stake_raid", "--cases",
                  str(bundle.parent / "visible"), "--out", str(board), "--leaderboard")
    assert done.returncode == 0, done.stderr
    results = gradescope(tmp_path, board, folder=our_copy(tmp_path / "ours", "homework.py"))
    names = [entry["name"] for entry in results["leaderboard"]]
    assert names == ["Points against the staff agents", "Rating (Elo)"]
    assert 0 <= results["leaderboard"][0]["value"] <= 8


@pytest.mark.slow
def test_the_real_setup_script_and_the_real_autograder_path(bundle, tmp_path):
    root = Path("/autograder")
    if os.geteuid() != 0 or root.exists() or not shutil.which("apt-get"):
        pytest.skip("needs root, apt-get and no /autograder on this machine")
    try:
        (root / "results").mkdir(parents=True)
        with zipfile.ZipFile(bundle) as archive:
            archive.extractall(root / "source")
        for name in ("setup.sh", "run_autograder"):
            os.chmod(root / "source" / name, 0o755)
        setup = subprocess.run(["bash", str(root / "source" / "setup.sh")],
                               capture_output=True, text=True, timeout=1800)
        if setup.returncode != 0:
            pytest.skip(f"setup.sh could not install packages here: {setup.stderr[-300:]}")
        shutil.copytree(our_copy(tmp_path / "ours", "homework.py"), root / "submission")
        shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
        environment = {key: value for key, value in os.environ.items()
                       if key not in ("PYTHONPATH", "AUTOGRADER_ROOT")}
        done = subprocess.run([str(root / "run_autograder")], env=environment,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        check_gradescope_schema(results)
        assert results["score"] == 50
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_leaderboard_is_the_registrys_and_only_where_it_says(tmp_path, monkeypatch):
    """Which assignments have a leaderboard, and whom it plays on which boards, are the
    registry's facts: the autograder asks it, never a game's name."""
    from engine import registry
    from engine.grading import autograder
    command = autograder.leaderboard_command("stake_raid", "SUB", "OUT")
    assert command[command.index("run"):command.index("--format")] == [
        "run", "stake_raid", "SUB", "--staff", "ours:greedy", "ours:classic",
        "--sizes", "5"]
    with pytest.raises(autograder.BundleError, match="competition agent: stake_raid$"):
        autograder.build_bundle("tictactoe", str(tmp_path), None, str(tmp_path / "b.zip"),
                                ["python"], 5, 256, True, lambda folder: [])
    # An entry that gains a leaderboard has one, with its own opponents and boards.
    board = registry.Leaderboard(("ours:depth2",), "6")
    table = tuple(entry._replace(leaderboard=board) if entry.name == "tictactoe" else entry
                  for entry in registry.ASSIGNMENTS)
    monkeypatch.setattr(registry, "ASSIGNMENTS", table)
    command = autograder.leaderboard_command("tictactoe", "SUB", "OUT")
    assert command[command.index("--staff"):command.index("--format")] == [
        "--staff", "ours:depth2", "--sizes", "6"]
    with pytest.raises(autograder.BundleError, match="agent: tictactoe, stake_raid$"):
        autograder.build_bundle("take_stones", str(tmp_path), None,
                                str(tmp_path / "b.zip"), ["python"], 5, 256, True,
                                lambda folder: [])


@pytest.mark.parametrize("program, said", [("stake_raid", True), ("tictactoe", False)])
def test_the_zero_points_rule_is_told_where_the_judge_has_it(program, said):
    from engine.grading.autograder import results_json
    case = {"case": "001", "passed": False, "reason": "output.txt missing",
            "unusable_output": True}
    entry = {"cases": [case], "points": 0, "max_points": 50, "score": 0, "max_score": 1}
    output = results_json({"program": program}, entry, set())["output"]
    rule = ("The assignment's rule: 0 points when output.txt is missing or cannot be read "
            "in any case.")
    assert (rule in output) is said
