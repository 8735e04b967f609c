"""tictactoe.py as a user runs it: properties over random inputs and bad arguments."""

import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from engine.games.tictactoe import TicTacToe
from engine.programs.tictactoe import main
from golden import REPO
from thoroughness import examples

GAME = TicTacToe()
boards = st.text(alphabet="xo-", min_size=9, max_size=9)


def legal(board):
    return board.count("o") <= board.count("x") <= board.count("o") + 1


@settings(max_examples=examples(150), deadline=None)
@given(board=boards.filter(legal), mode=st.sampled_from([[], ["prune"], ["prune", "1"],
                                                         ["prune", "2"], ["prune", "5"]]))
def test_the_move_is_one_legal_move_and_the_listing_is_well_formed(board, mode, tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    path = folder / "visited.txt"
    code, out, _ = run_in_process([board, str(path)] + mode)
    assert code == 0
    if GAME.terminal_value(board) is not None:
        assert out == "" and not path.exists()
        return
    move = out.rstrip("\n")
    assert out.endswith("\n") and move in [child for _, child in GAME.successors(board)]
    lines = path.read_text().splitlines()
    assert lines, "a non-terminal root has children to list"
    for line in lines:
        state, value = line.split(" ")
        int(value)
        assert len(state) == 9 and legal(state)


def run_in_process(argv):
    """Run main(argv) in this process; return (exit code, stdout, stderr)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=examples(200), deadline=None)
@given(argv=st.lists(st.text(min_size=0, max_size=12), min_size=0, max_size=5))
def test_any_argument_list_gives_exit_0_or_one_line_and_exit_2(argv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    before = set(os.listdir(folder))
    argv = [os.path.join(str(folder), "visited.txt") if i == 1 else a for i, a in enumerate(argv)]
    code, out, err = run_in_process(argv)
    assert code in (0, 2)
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("tictactoe.py: ")
        assert set(os.listdir(folder)) == before


def test_unwritable_path_is_one_line_and_exit_2(tmp_path):
    code, out, err = run_in_process(["oxxxo-ox-", str(tmp_path / "missing" / "v.txt")])
    assert (code, out) == (2, "") and err.count("\n") == 1 and "cannot write" in err


def test_the_script_runs_from_another_directory(tmp_path):
    completed = subprocess.run([sys.executable, str(REPO / "tictactoe.py"), "oxxxo-ox-", "v.txt"],
                               cwd=tmp_path, capture_output=True, text=True)
    assert completed.returncode == 0 and completed.stdout == "oxxxo-oxo\n"
    assert (tmp_path / "v.txt").read_text().count("\n") == 3


def test_help_exits_0():
    code, out, _ = run_in_process(["--help"])
    assert code == 0 and "STATE PATH" in out


def test_the_built_executable_matches_the_script(tmp_path):
    """`make tictactoe` builds tictactoe.bin with tools/build_zipapp.py: same bytes out."""
    binary = tmp_path / "tictactoe.bin"
    subprocess.run([sys.executable, str(REPO / "tools" / "build_zipapp.py"), "tictactoe.py",
                    str(binary)], cwd=REPO, check=True)
    assert os.access(binary, os.X_OK)
    work = tmp_path / "elsewhere"
    work.mkdir()
    for command in ([str(binary)], [sys.executable, str(REPO / "tictactoe.py")]):
        completed = subprocess.run(command + ["--xxo-ox-", "v.txt", "prune", "3"], cwd=work,
                                   capture_output=True)
        assert completed.returncode == 0 and completed.stdout == b"o-xxo-ox-\n"
        (work / f"{len(command)}.txt").write_bytes((work / "v.txt").read_bytes())
    assert (work / "1.txt").read_bytes() == (work / "2.txt").read_bytes()
    bad = subprocess.run([str(binary), "bad"], cwd=work, capture_output=True)
    assert bad.returncode == 2 and bad.stderr.count(b"\n") == 1
