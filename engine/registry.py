"""The one table of the project's programs, and of the assignments the grading kit grades.

Everything that needs to know "which programs are there, how is each run, what does its
grader compare" reads this module: ``python3 -m engine`` (the list and the dispatch), the
grading kit (the scripts, in-process entry points, graded outputs, case generators and
judges), the tests' meta-tests. Adding a program or an assignment is one entry here plus
its modules. Nothing is imported until it is used, so a program starts as fast as if it
were run alone.
"""

import importlib
from typing import Any, Callable, Iterable, List, NamedTuple, Optional, Tuple, TypeVar


class Program(NamedTuple):
    """A program of ``python3 -m engine NAME``.

    ``module`` holds ``main(argv) -> exit code``; ``page`` is its page in docs/;
    ``script`` is its top-level script in the repository (a grader program), if any;
    ``fixtures`` its folder of golden cases under fixtures/ (the name by default);
    ``aliases`` other names ``python3 -m engine`` accepts for it (never printed)."""
    name: str
    module: str
    summary: str
    page: str
    script: Optional[str] = None
    fixtures: Optional[str] = None
    aliases: Tuple[str, ...] = ()

    @property
    def fixture_folder(self) -> str:
        return self.fixtures or self.name

    def main(self) -> Callable[..., int]:
        """The program's ``main`` function (imports its module)."""
        main: Callable[..., int] = importlib.import_module(self.module).main
        return main


PROGRAMS: Tuple[Program, ...] = (
    Program("tictactoe", "engine.programs.tictactoe",
            "tic-tac-toe: tictactoe.py STATE PATH [prune [PLY]]",
            page="tictactoe.md", script="tictactoe.py"),
    Program("tmmorris", "engine.programs.morris",
            "Three Men's Morris: tmmorris.py STATE PATH PLY TURN, or 'tmmorris play'",
            page="tmmorris.md", script="tmmorris.py", aliases=("morris",)),
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
            "pictures of searches: picture tictactoe STATE [prune [PLY]] | tmmorris STATE "
            "PLY TURN --svg OUT.svg",
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


class Leaderboard(NamedTuple):
    """An autograder bundle's leaderboard (``grade autograder ... --leaderboard``): the
    student's competition agent plays a short gauntlet, ``python3 -m engine tournament
    run NAME SUBMISSION --staff STAFF... --sizes SIZES`` (the assignment's tournament
    game), against ``staff``, our players as ``ours:NAME``, on the boards ``sizes``."""
    staff: Tuple[str, ...]
    sizes: str


class Assignment(NamedTuple):
    """An assignment: everything the grading kit, ``picture`` and the tournament need to
    know about it (``python3 -m engine grade ... NAME``, ``picture NAME``, ``tournament
    run NAME``). Each fact is data or the dotted name of what implements it
    (``module`` or ``module:attribute``, imported when used), so that this table imports
    nothing of ours and no layer reaches up through it.

    ``program``: the name of our :class:`Program` that is its reference (its grader
    program, or its player); ``aliases``: other names accepted on command lines (every
    name printed or written is ``name``).

    Graded by the kit (both None when it is not): ``graded``, what its grader compares,
    in words; ``judge``, the module implementing
    :class:`engine.grading.judges.Judge` (detection of submissions, cases, diagnosis,
    scoring rule). ``quick_exit``: whether the program's ``main`` takes ``fast_exit``
    (then False when run in-process).

    ``picture``: the ``picture`` adapter class (engine.programs.picture) that draws and
    steps through our search of it; ``visited_arg``: the position, among the grader's
    arguments, of the visited file the stepping page overlays (the others are
    ``picture``'s arguments), None when its grader compares no search trace.

    ``tournament``: the rules class of its tournament game (engine.tournament.games),
    which holds the game's own facts (its sizes, boards, entry points, our players);
    ``agent_args``: the words after ``python3 -m engine PROGRAM`` that run our player
    ``{player}`` as a tournament entrant; ``leaderboard``: the :class:`Leaderboard` of
    a graded assignment whose submissions are competition agents of its tournament
    game (None: its bundles have no leaderboard)."""
    name: str
    program: str
    graded: Optional[str] = None
    judge: Optional[str] = None
    quick_exit: bool = False
    picture: Optional[str] = None
    visited_arg: Optional[int] = None
    tournament: Optional[str] = None
    agent_args: Tuple[str, ...] = ()
    leaderboard: Optional[Leaderboard] = None
    aliases: Tuple[str, ...] = ()

    @property
    def script(self) -> Optional[str]:
        """The grader's script word in a case's ``cmd`` (``tictactoe.py``, ...)."""
        return _program_of(self).script

    def reference_main(self) -> Callable[[List[str]], int]:
        """``main(argv) -> exit code`` of our program, for in-process runs."""
        main = _program_of(self).main()
        if self.quick_exit:
            return lambda argv: main(argv, fast_exit=False)
        return main

    def agent_command(self, player: str) -> List[str]:
        """The argv (run in a folder holding a copy of the engine package) of our
        tournament player ``player``."""
        return ["python3", "-m", "engine", self.program] + [
            word.replace("{player}", player) for word in self.agent_args]


ASSIGNMENTS: Tuple[Assignment, ...] = (
    Assignment("tictactoe", "tictactoe", "stdout and the PATH file",
               "engine.grading.assignments.tictactoe",
               picture="engine.programs.picture:TicTacToeAdapter", visited_arg=1),
    Assignment("tmmorris", "tmmorris", "stdout and the PATH file",
               "engine.grading.assignments.tmmorris",
               picture="engine.programs.picture:MorrisAdapter", visited_arg=1,
               aliases=("morris",)),
    Assignment("take_stones", "take_stones", "stdout",
               "engine.grading.assignments.take_stones", quick_exit=True,
               picture="engine.programs.picture:TakeStonesAdapter"),
    Assignment("stake_raid", "stake_raid", "output.txt",
               "engine.grading.assignments.stake_raid", quick_exit=True,
               picture="engine.programs.picture:StakeRaidAdapter",
               tournament="engine.tournament.games:StakeRaidRules",
               agent_args=("--strategy", "{player}"),
               leaderboard=Leaderboard(("ours:greedy", "ours:classic"), "5")),
    Assignment("lineemup", "lineemup",
               tournament="engine.tournament.games:LineEmUpRules",
               agent_args=("agent", "--heuristic", "{player}")),
)


def import_named(dotted: str) -> Any:
    """What a dotted name of this table names: ``module`` or ``module:attribute``
    (imports the module)."""
    module, _, attribute = dotted.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


# A table's entry (both kinds have a name and aliases).
_Entry = TypeVar("_Entry", Program, Assignment)


def _named(entries: Iterable[_Entry], name: str) -> Optional[_Entry]:
    for entry in entries:
        if name == entry.name or name in entry.aliases:
            return entry
    return None


def program(name: str) -> Optional[Program]:
    """The :class:`Program` named ``name`` (or one of its aliases), or None."""
    return _named(PROGRAMS, name)


def program_names() -> List[str]:
    """The programs' names, in the table's order."""
    return [entry.name for entry in PROGRAMS]


def _program_of(entry: Assignment) -> Program:
    found = program(entry.program)
    if found is None:
        raise LookupError(f"assignment {entry.name}: no program {entry.program!r}")
    return found


def assignment(name: str) -> Optional[Assignment]:
    """The :class:`Assignment` named ``name`` (or one of its aliases), or None."""
    return _named(ASSIGNMENTS, name)


def graded() -> Tuple[Assignment, ...]:
    """The assignments the grading kit grades (those with a judge), in order."""
    return tuple(entry for entry in ASSIGNMENTS if entry.judge is not None)


def assignment_names() -> Tuple[str, ...]:
    """The names of the assignments the kit grades."""
    return tuple(entry.name for entry in graded())


def pictured() -> Tuple[Assignment, ...]:
    """The assignments ``picture`` draws, in order."""
    return tuple(entry for entry in ASSIGNMENTS if entry.picture is not None)


def tournament_games() -> Tuple[Assignment, ...]:
    """The assignments that are tournament games, in order."""
    return tuple(entry for entry in ASSIGNMENTS if entry.tournament is not None)


def with_leaderboard() -> Tuple[Assignment, ...]:
    """The graded assignments whose autograder bundles may have a leaderboard, in
    order."""
    return tuple(entry for entry in graded() if entry.leaderboard is not None)
