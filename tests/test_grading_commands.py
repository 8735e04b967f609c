"""Commands the kit prints for a student run where they are printed: named as the kit
was called, and the stepping command draws our search, never a copy of the engine that
the student's folder holds (it refuses instead)."""

import os
import shutil
import subprocess
import sys

import pytest

from golden import REPO
from grading_mutants import make_mutant

from engine.commandline import command_words, invoked_as
from engine.grading.judges import load as load_assignment


def test_commands_are_named_as_the_kit_was_called(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/home/me/.local/bin/game-search", "grade"])
    assert invoked_as() == "game-search" and command_words() == "game-search"
    monkeypatch.setattr(sys, "argv", [str(REPO / "engine" / "__main__.py"), "grade"])
    assert command_words() == f"PYTHONPATH={REPO} python3 -m engine"


def test_no_stepping_command_is_printed_that_the_page_would_refuse():
    from engine.grading.generate import generate_cases
    from engine.grading.runner import STEPPED_NODES, stepper_command
    from engine.pictures.stepper import MAX_NODES
    assert STEPPED_NODES == MAX_NODES
    [blank] = generate_cases(load_assignment("tictactoe"), 1, 1)          # 549,945 visited lines
    assert blank.args[0] == "---------" and len(blank.args) == 2
    written = {"visited.txt": b"x\n"}
    assert stepper_command(load_assignment("tictactoe"), blank, written) is None
    [pruned] = [case for case in generate_cases(load_assignment("tictactoe"), 2, 1)
                if "prune" in case.args]
    assert stepper_command(load_assignment("tictactoe"), pruned, written)


def test_our_search_refuses_under_a_copy_of_the_engine(tmp_path):
    copy = tmp_path / "student"
    shutil.copytree(REPO / "engine", copy / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run([sys.executable, "-m", "engine", "picture", "tictactoe",
                          "xxoo-----", "--html", "steps.html"], cwd=copy,
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert run.returncode == 2 and not (copy / "steps.html").exists()
    assert len(run.stderr.strip().split("\n")) == 1 and "hides" in run.stderr
    # Without PYTHONPATH naming another engine, the copy is the one asked for.
    alone = subprocess.run([sys.executable, "-m", "engine", "picture", "tictactoe",
                            "xxoo-----", "--html", "steps.html"], cwd=copy,
                           capture_output=True, text=True, timeout=120,
                           env={key: value for key, value in os.environ.items()
                                if key != "PYTHONPATH"})
    assert alone.returncode == 0, alone.stderr


@pytest.mark.slow
def test_installed_kit_stepper_in_a_students_copy_draws_the_reference(installed_project,
                                                                      tmp_path):
    """The kit installed in a venv, run from another folder: a mutant's failed case's
    stepping command, run in a copy of the student's folder (with its own engine/),
    draws the page the reference draws."""
    environment = installed_project
    student = make_mutant("tie-break >=", tmp_path / "student")
    work = tmp_path / "elsewhere"
    work.mkdir()
    bare = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    bare["PATH"] = f"{environment / 'bin'}{os.pathsep}{bare.get('PATH', '')}"
    graded = subprocess.run(["game-search", "grade", "run", "tictactoe", str(student),
                             "--count", "12", "--quiet"], cwd=work, env=bare,
                            capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0, graded.stderr
    lines = graded.stdout.split("\n")
    index = next(i for i, line in enumerate(lines) if "watch it step by step" in line)
    rerun = lines[index - 1].split("rerun it: ", 1)[1]
    # The printed line works pasted alone: it reruns the case, then draws the page.
    alone = lines[index].split("(reruns it first): ", 1)[1]
    assert alone.startswith(rerun + "; game-search picture tictactoe ")
    stepper = alone[len(rerun) + 2:]
    copy = tmp_path / "copy"
    shutil.copytree(student, copy)
    subprocess.run(alone, shell=True, cwd=copy, env=bare, check=True, timeout=120,
                   capture_output=True)
    reference = tmp_path / "reference"
    reference.mkdir()
    shutil.copy(copy / "visited.txt", reference / "visited.txt")
    subprocess.run(stepper.replace("game-search", f"{sys.executable} -m engine", 1),
                   shell=True, cwd=reference, check=True, timeout=120, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert (copy / "steps.html").read_bytes() == (reference / "steps.html").read_bytes()


def test_the_diagnosis_and_the_stepping_page_name_a_node_alike(tmp_path):
    """A visited file that leaves the expected search at a node: the diagnosis names it
    by its moves (x@0, o@1, ...), and so does the stepping page's first difference."""
    import json
    import re

    from engine.grading.case import Outcome
    from engine.grading.diagnose import diagnose
    from engine.grading.generate import generate_cases

    [case] = [case for case in generate_cases(load_assignment("tictactoe"), 2, 1)
              if "prune" in case.args]
    lines = case.expected["visited.txt"].decode().split("\n")
    board, value = lines[40].split()
    lines[40] = f"{board} {int(value) + 1}"          # one node's value wrong
    trace = "\n".join(lines)
    verdict = diagnose(load_assignment("tictactoe"), case, Outcome(0, case.stdout, b"", {
        "visited.txt": trace.encode()}), False)
    moves = re.search(r"reached by ([^:;]+)", verdict.reason).group(1)
    (tmp_path / "visited.txt").write_text(trace)
    subprocess.run([sys.executable, "-m", "engine", "picture", "tictactoe", *case.args[:1],
                    *case.args[2:], "--against", "visited.txt", "--html", "steps.html"],
                   cwd=tmp_path, check=True, timeout=120, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    page = (tmp_path / "steps.html").read_text()
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>',
                                page, re.S).group(1))
    node = data["against"]["node"]
    assert node is not None and data["moves"][node] == moves
