"""Replays every fixture case (see tests/golden.py) and checks the fixture set itself.

Our cases are YAML golden files collected by pytest-golden (``test_our_golden_case``;
``make update-goldens`` rewrites them); the official samples are raw folders compared
byte for byte (``test_official_sample``) and never rewritten.
"""

import hashlib
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.registry import PROGRAMS
from engine.grading.case import (Case, case_from_fields, case_to_fields, compare,
                                 escape_bytes, plain_text, run_reference, unescape_text)
from golden import (FIXTURES, OFFICIAL, REPO, YAML_SUFFIX, case_id, dump_yaml, interpreter,
                    load_any, raw_cases, read_yaml, replay, yaml_cases)
from thoroughness import examples

RAW = raw_cases()

OUTPUT_KEYS = ("exit", "stdout", "stdout_escaped", "stderr", "stderr_escaped",
               "expected", "expected_escaped")
INPUT_KEYS = ("cmd", "stdin", "stdin_escaped", "files", "files_escaped")


@pytest.mark.parametrize("case", RAW, ids=[case_id(case) for case in RAW])
def test_official_sample(case, tmp_path):
    problems = replay(case, tmp_path)
    assert not problems, "\n".join(problems)


@pytest.mark.golden_test("../fixtures/*/*.yml")
def test_our_golden_case(golden, tmp_path):
    """Run the case's inputs; compare with its expected outputs, or with
    ``--update-goldens`` record what the program did as the new expected outputs."""
    name = golden.path.name[:-len(YAML_SUFFIX)]
    inputs = case_from_fields(name, {key: golden.get(key) for key in INPUT_KEYS})
    outcome = run_reference(inputs, tmp_path, python=interpreter())
    if not golden.update_goldens:
        problems = compare(case_from_fields(name, golden.out), outcome)
        assert not problems, "\n".join(problems)
        return
    # Update: stderr stays checked only where it was; a file stays expected if it was,
    # or if the program created or changed it.
    old = case_from_fields(name, {key: golden.get(key) for key in INPUT_KEYS + OUTPUT_KEYS})
    expected = {path: data for path, data in outcome.files.items()
                if path in old.expected or inputs.files.get(path) != data}
    recorded = inputs._replace(exit=outcome.exit, stdout=outcome.stdout, expected=expected,
                               stderr=None if old.stderr is None else outcome.stderr)
    assert not compare(recorded, outcome)
    fields = case_to_fields(recorded)
    for key in OUTPUT_KEYS:
        assert fields.get(key) == golden.out.get(key)


# --- the fixture set ----------------------------------------------------------------------
def test_every_program_has_golden_cases():
    """Meta-test: each program of engine.registry has golden cases, and each grader
    program's top-level script exists."""
    names = [entry.fixture_folder for entry in PROGRAMS]
    assert names, "no programs found"
    scripts = [entry.script for entry in PROGRAMS if entry.script]
    assert [script for script in scripts if not (REPO / script).is_file()] == []
    missing = sorted({name for name in names
                      if not any(FIXTURES.glob(f"{name}/*/cmd"))
                      and not any(FIXTURES.glob(f"{name}/*{YAML_SUFFIX}"))})
    assert not missing, f"programs without golden cases in fixtures/: {missing}"


def test_fixture_folders_name_known_programs():
    """A fixture folder for a program that does not exist is a typo, not a test."""
    known = {entry.fixture_folder for entry in PROGRAMS}
    for folder in FIXTURES.iterdir():
        if folder.is_dir():
            assert folder.name in known, f"fixtures/{folder.name} matches no program"


def test_raw_folders_are_exactly_the_official_samples():
    """Our cases are YAML (updatable); a raw folder is an official sample (never
    rewritten). A raw folder of ours would escape --update-goldens: convert it with
    ``PYTHONPATH=. .venv/bin/python tests/golden.py convert fixtures/<program>/<case>``."""
    raw = {case_id(case) for case in RAW}
    ours = sorted(raw - OFFICIAL)
    assert not ours, f"raw case folders that are not official samples: {ours}"
    missing = sorted(name for name in OFFICIAL if not (FIXTURES / name).is_dir())
    assert not missing, f"official samples missing: {missing}"
    twins = sorted(case_id(path) for path in yaml_cases() if case_id(path) in OFFICIAL)
    assert not twins, f"official samples must not have a YAML golden file: {twins}"


def test_every_yaml_golden_reads_as_a_case_and_writes_back_the_same(tmp_path):
    """Each golden file is a well-formed case, and writing its Case again (as the
    conversion and pytest-golden do) gives the same file: nothing is lost either way."""
    assert len(yaml_cases()) > 100
    for path in yaml_cases():
        case = load_any(path)
        fields = read_yaml(path)
        assert set(fields) <= set(INPUT_KEYS + OUTPUT_KEYS), path.name
        copy = tmp_path / path.name
        dump_yaml(case_to_fields(case), copy)
        assert load_any(copy) == case, case_id(path)
        assert copy.read_bytes() == path.read_bytes(), case_id(path)


# --- the YAML form is lossless --------------------------------------------------------------
# Texts of every shape the programs may print: lines with trailing blanks, tabs, leading
# spaces, empty lines, no final newline, CR, NUL, BOM, separators, bytes that are not UTF-8.
PIECES = st.sampled_from(["a", "x y", " ", "  ", "\t", "\n", "\n\n", "\r", "\r\n", "é",
                          "\\", "\\r", "#", "- ", ": ", "'", '"', "|", "\ufeff", "\u2028",
                          "\x85", "\x00", "\x1b[0m", "\U0001F600", "yes", "0", "~"])
TEXTS = st.lists(PIECES, max_size=12).map("".join)
BLOBS = st.one_of(TEXTS.map(lambda text: text.encode("utf-8")), st.binary(max_size=40))


@settings(max_examples=examples(100), deadline=None)
@given(BLOBS)
def test_escaping_round_trips(data):
    assert unescape_text(escape_bytes(data)) == data
    assert plain_text(escape_bytes(data).encode("utf-8")) is not None


@settings(max_examples=examples(60), deadline=None)
@given(stdout=BLOBS, stderr=st.one_of(st.none(), BLOBS), stdin=BLOBS,
       files=st.dictionaries(st.sampled_from(["input.txt", "a/b.txt"]), BLOBS, max_size=2))
def test_a_case_round_trips_through_pytest_golden_yaml(tmp_path_factory, stdout, stderr,
                                                        stdin, files):
    """Any bytes survive pytest-golden's writer and reader: plain texts as they are,
    the rest escaped."""
    case = Case("c", "tictactoe.py", ("-x", "1"), stdin, files, stdout, stderr, 2, files)
    path = tmp_path_factory.mktemp("yaml") / "c.yml"
    dump_yaml(case_to_fields(case), path)
    assert load_any(path) == case


# --- an update run never touches the official samples -----------------------------------------
def fingerprint(folder):
    """sha256 of every file under ``folder`` (relative path -> digest)."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


# Runs `make update-goldens` on a copy of the tree (13 s): a maintainer's tool, make test-all.
@pytest.mark.slow
def test_update_goldens_rewrites_our_cases_and_never_the_official_samples(tmp_path):
    """In a copy of the repository whose tic-tac-toe program prints something else,
    ``pytest --update-goldens`` (what ``make update-goldens`` runs) records the new output
    in our tic-tac-toe YAML cases, while every official sample keeps its bytes (and the
    official tic-tac-toe cases fail instead of being rewritten)."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".pytest_cache", "*.bin")
    for name in ("engine", "tests", "fixtures"):
        shutil.copytree(REPO / name, copy / name, ignore=ignore)
    for name in ("pytest.ini", "tictactoe.py"):
        shutil.copy(REPO / name, copy / name)
    (copy / "tictactoe.py").write_text("print('changed')\n")
    official_before = {name: fingerprint(copy / "fixtures" / name) for name in OFFICIAL}
    ours = [path.relative_to(REPO) for path in yaml_cases() if path.parent.name == "tictactoe"]
    assert ours and all(b"changed" not in (REPO / path).read_bytes() for path in ours)

    environment = {key: value for key, value in os.environ.items()
                   if key not in ("GOLDEN_PYTHON", "PYTEST_ADDOPTS")}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--update-goldens",
         "tests/test_golden.py", "-k", "tictactoe and (official_sample or our_golden_case)"],
        cwd=copy, capture_output=True, text=True, env=environment, timeout=600)

    # The whole output is searched: under CI=true pytest does not shorten summary lines.
    report = completed.stdout[-3000:]
    summary = completed.stdout.split("short test summary")[-1]
    assert completed.returncode == 1, report          # the official samples failed ...
    assert "FAILED tests/test_golden.py::test_official_sample[tictactoe/case001]" in summary
    assert "test_our_golden_case" not in summary, report
    official_after = {name: fingerprint(copy / "fixtures" / name) for name in OFFICIAL}
    assert official_after == official_before          # ... and kept their bytes
    for path in ours:                                 # our cases recorded the new output
        assert load_any(copy / path).stdout == b"changed\n", path

    # Without --update-goldens the YAML cases are checked, not recorded: with the real
    # program back, every updated case fails.
    shutil.copy(REPO / "tictactoe.py", copy / "tictactoe.py")
    checked = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_golden.py", "-k", "tictactoe and our_golden_case"],
        cwd=copy, capture_output=True, text=True, env=environment, timeout=600)
    assert checked.returncode == 1 and f"{len(ours)} failed" in checked.stdout, \
        checked.stdout[-3000:]
