"""ENGINE_DEBUG=1: a program shows the traceback behind its one-line error message.

Without the switch the error contract holds (engine.commandline.run_program): one
line on stderr, exit code 2, never a traceback. With it the same line comes first, then
the traceback, for bad input (UsageError) and for internal errors alike.
"""

import os
import subprocess
import sys

import pytest

from engine.errors import UsageError
from engine.commandline import run_program
from golden import REPO


def bad_input(argv):
    raise UsageError("STATE is not a board")


def internal_error(argv):
    return {}["missing"]


@pytest.mark.parametrize("body, line", [
    (bad_input, "prog: STATE is not a board"),
    (internal_error, "prog: internal error: KeyError: 'missing'")])
@pytest.mark.parametrize("value", [None, "", "0"])
def test_without_the_switch_one_line_and_no_traceback(body, line, value, monkeypatch, capsys):
    if value is None:
        monkeypatch.delenv("ENGINE_DEBUG", raising=False)
    else:
        monkeypatch.setenv("ENGINE_DEBUG", value)
    assert run_program("prog", body, []) == 2
    assert capsys.readouterr().err == line + "\n"


@pytest.mark.parametrize("body, line, last", [
    (bad_input, "prog: STATE is not a board",
     "engine.errors.UsageError: STATE is not a board"),
    (internal_error, "prog: internal error: KeyError: 'missing'", "KeyError: 'missing'")])
def test_with_the_switch_the_line_then_the_traceback(body, line, last, monkeypatch, capsys):
    monkeypatch.setenv("ENGINE_DEBUG", "1")
    assert run_program("prog", body, []) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == line
    assert lines[1] == "Traceback (most recent call last):"
    assert f", in {body.__name__}" in "\n".join(lines)        # the frame that raised
    assert lines[-1] == last


def test_a_program_run_as_the_graders_do(tmp_path):
    command = [sys.executable, str(REPO / "tictactoe.py"), "bad", str(tmp_path / "v.txt")]
    environment = {key: value for key, value in os.environ.items() if key != "ENGINE_DEBUG"}
    quiet = subprocess.run(command, capture_output=True, text=True, env=environment)
    loud = subprocess.run(command, capture_output=True, text=True,
                          env=dict(environment, ENGINE_DEBUG="1"))
    assert quiet.returncode == loud.returncode == 2
    assert quiet.stdout == loud.stdout == ""
    assert len(quiet.stderr.splitlines()) == 1 and "Traceback" not in quiet.stderr
    assert loud.stderr.startswith(quiet.stderr + "Traceback (most recent call last):\n")
    assert "in parse_arguments" in loud.stderr
