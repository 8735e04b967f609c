"""The one table of the project's programs, and of the assignments the grading kit grades.

Everything that needs to know "which programs are there, how is each run, what does its
grader compare" reads this module: ``python3 -m engine`` (the list and the dispatch), the
grading kit (the scripts, in-process entry points, graded outputs, case generators and
judges), the tests' meta-tests. Adding a program or an assignment is one entry here plus
its modules. Nothing is imported until it is used, so a program starts as fast as if it
were run alone.
"""

import importlib
from typing import NamedTuple, Optional


class Program(NamedTuple):
    """A program of ``python3 -m engine NAME``.

    ``module`` holds ``main(argv) -> exit code``; ``page`` is its page in docs/;
    ``script`` is its top-level script in the repository (a grader program), if any;
    ``fixtures`` its folder of golden cases under fixtures/ (the name by default)."""
    name: str
    module: str
    summary: str
    page: str
    script: Optional[str] = None
    fixtures: Optional[str] = None

    @property
    def fixture_folder(self):
        return self.fixtures or self.name

    def main(self):
        """The program's ``main`` function (imports its module)."""
        return importlib.import_module(self.module).main


PROGRAMS = (
    Program("tictactoe", "engine.programs.tictactoe",
            "tic-tac-toe: tictactoe.py STATE PATH [prune [PLY]]",
            page="tictactoe.md", script="tictactoe.py"),
    Program("morris", "engine.programs.morris",
            "Three Men's Morris: tmmorris.py STATE PATH PLY TURN, or 'morris play'",
            page="tmmorris.md", script="tmmorris.py"),
    Program("take_stones", "engine.programs.take_stones",
            "Take-Stones alpha-beta trace: ./TakeStones n k s1..sk depth",
            page="take_stones.md", script="TakeStones"),
    Program("stake_raid", "engine.programs.stake_raid",
            "Stake/Raid war game: homework.py (input.txt -> output.txt)",
            page="stake_raid.md", script="homework.py"),
    Program("nqueens", "engine.programs.nqueens",
            "N-Queens game (A4): table, play, scenarios, solve, a4",
            page="nqueens.md"),
    Program("lineemup", "engine.programs.lineemup",
            "Line 'em Up: games, traces, scoreboards and an AI",
            page="lineemup.md"),
    Program("tree", "engine.programs.tree",
            "answer key for a hand-drawn game tree: tree [--minimax] [--json|--dot] "
            "[--svg OUT] FILE",
            page="trees.md"),
    Program("picture", "engine.programs.picture",
            "pictures of searches: picture tictactoe STATE [prune [PLY]] | morris STATE PLY "
            "TURN --svg OUT.svg",
            page="trees.md"),
    Program("hillclimb", "engine.programs.hillclimb",
            "hill-climbing on tours: hillclimb MATRIX --tour START,A,B,...",
            page="trees.md"),
    Program("tournament", "engine.tournament.cli",
            "class tournaments of the competition agents (Stake/Raid, Line 'em Up): "
            "run, merge, sprt",
            page="tournament.md"),
    Program("ladder", "engine.ladder.cli",
            "a class ladder: students upload agents any time, workers play rated games "
            "in the sandbox, a web page shows standings and replays: init, serve, work, "
            "export",
            page="ladder.md"),
    Program("grade", "engine.grading.cli",
            "grading kit: generate cases, run submissions in a sandbox, score and report",
            page="grading.md"),
)


class Assignment(NamedTuple):
    """An assignment the grading kit grades (``python3 -m engine grade ... NAME``).

    ``program``: the name of our :class:`Program` that is its reference; ``graded``:
    what its grader compares, in words; ``judge``: the module with the assignment's
    detection of submissions, case generator, diagnosis and scoring rule (see
    engine.grading.assignments); ``quick_exit``: whether the program's ``main`` takes
    ``fast_exit`` (then False when run in-process)."""
    name: str
    program: str
    graded: str
    judge: str
    quick_exit: bool = False

    @property
    def script(self):
        """The grader's script word in a case's ``cmd`` (``tictactoe.py``, ...)."""
        return program(self.program).script

    def judge_module(self):
        return importlib.import_module(self.judge)

    def reference_main(self):
        """``main(argv) -> exit code`` of our program, for in-process runs."""
        main = program(self.program).main()
        if self.quick_exit:
            return lambda argv: main(argv, fast_exit=False)
        return main


ASSIGNMENTS = (
    Assignment("tictactoe", "tictactoe", "stdout and the PATH file",
               "engine.grading.assignments.tictactoe"),
    Assignment("tmmorris", "morris", "stdout and the PATH file",
               "engine.grading.assignments.morris"),
    Assignment("take_stones", "take_stones", "stdout",
               "engine.grading.assignments.take_stones", quick_exit=True),
    Assignment("stake_raid", "stake_raid", "output.txt",
               "engine.grading.assignments.stake_raid", quick_exit=True),
)


def program(name):
    """The :class:`Program` named ``name``, or None."""
    for entry in PROGRAMS:
        if entry.name == name:
            return entry
    return None


def program_names():
    """The programs' names, in the table's order."""
    return [entry.name for entry in PROGRAMS]


def assignment(name):
    """The :class:`Assignment` named ``name``, or None."""
    for entry in ASSIGNMENTS:
        if entry.name == name:
            return entry
    return None


def assignment_names():
    return tuple(entry.name for entry in ASSIGNMENTS)
