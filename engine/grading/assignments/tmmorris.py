"""Three Men's Morris (tmmorris): generated cases and the diagnosis of a run.

Graded: stdout (the board after the move) and the visited file PATH. The assignment lets
students write their own evaluation, so the visited file cannot match ours: what is
checked is a legal move, well-formed visited lines, and with PLY >= 7 a move that keeps
the solved value of the position (see engine.grading.assignments for the contract).
"""

import functools
import re
from pathlib import Path
from random import Random
from typing import Callable, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple

from ...games.morris import OTHER, Morris, Position, line_owner, moves as morris_moves, solve
from ..case import Case, Outcome
from ..detect import script_or_java_or_make
from ..diagnose import VISITED_LINE, fail, judge_text, terminal_input
from ..generate import VISITED, reachable_positions
from ..casespace import Candidate, Category, Stratum
from ..plan import Plan
from ..scoring import one_point_per_case
from ..verdict import Finding


def fits(case: Case) -> bool:
    """A generated Morris case: STATE PATH PLY TURN."""
    return len(case.args) == 4


def graded_files(case: Case) -> List[str]:
    """The visited file PATH."""
    return [case.args[1]] if len(case.args) >= 2 else []


@functools.lru_cache(maxsize=None)
def morris_positions() -> List[Tuple[str, str]]:
    """Every (board, turn) reachable from the blank board with x first, sorted."""
    return reachable_positions(Morris(), ("-" * 9, "x"))


def _morris_args(position: Position, ply: int) -> List[str]:
    return [position[0], VISITED, str(ply), position[1]]


def edges(rng: Random) -> Iterator[Candidate]:
    blank = ("-" * 9, "x")
    for ply in (1, 2, 7, 1000000):
        yield f"blank-ply{ply}", _morris_args(blank, ply), {}
    pools = _edge_pools()
    for label, pool, ply in (("placement-ply2", "placement", 2), ("movement-ply1", "movement", 1),
                             ("movement-ply3", "movement", 3),
                             ("immediate-win-ply2", "winning", 2),
                             ("must-block-ply2", "must-block", 2), ("won-ply7", "won", 7),
                             ("drawn-ply8", "drawn", 8), ("won-large-ply", "won", 1000000),
                             ("terminal-line", "lined", 3), ("terminal-blocked", "blocked", 5)):
        yield label, _morris_args(rng.choice(pools[pool]), ply), {}


@functools.lru_cache(maxsize=None)
def _edge_pools() -> Dict[str, List[Position]]:
    """The sorted positions each edge case is chosen from (made once: every seed's set
    starts with the edge cases)."""
    game = Morris()
    solved = solve()
    positions = morris_positions()
    open_ = [p for p in positions if not game.is_terminal(p)]
    movement = [p for p in open_ if _movement(p[0])]

    def wins_at_once(position: Position) -> bool:
        return any(line_owner(child) == position[1] for _, child in morris_moves(*position))

    def must_block(position: Position) -> bool:
        """The side to move cannot win at once, but the other side threatens to."""
        board, turn = position
        other = "o" if turn == "x" else "x"
        return not wins_at_once(position) and wins_at_once((board, other))

    terminal = [p for p in positions if game.is_terminal(p)]
    return {
        "placement": [p for p in open_ if 0 < p[0].count("x") + p[0].count("o") < 6],
        "movement": movement,
        "winning": [p for p in open_ if wins_at_once(p)],
        "must-block": [p for p in open_ if must_block(p)],
        "won": [p for p in open_ if solved[p[0] + p[1]][0] > 0 and solved[p[0] + p[1]][1] >= 3],
        "drawn": [p for p in movement if solved[p[0] + p[1]][0] == 0],
        "lined": [p for p in terminal if line_owner(p[0]) is not None],
        "blocked": [p for p in terminal if line_owner(p[0]) is None],
    }


# The PLY of a random case: small ones, where the evaluation decides, and ones from 7 up,
# where the search sees every forced result.
RANDOM_PLIES = (1, 2, 3, 4, 5, 6, 7, 8, 10, 50, 1000000)


def draw_stratum(rng: Random) -> Hashable:
    """One stratum holds every random case: the open positions at each PLY."""
    return "open-positions"


def stratum(key: Hashable) -> Stratum:
    """Every non-terminal reachable position at every PLY (5,152 x 11 = 56,672 cases),
    numbered position-major."""
    game = Morris()
    open_ = [position for position in morris_positions() if not game.is_terminal(position)]
    plies = len(RANDOM_PLIES)

    def decode(number: int) -> Optional[Candidate]:
        ply = RANDOM_PLIES[number % plies]
        return f"random-ply{ply}", _morris_args(open_[number // plies], ply), {}
    return Stratum(str(key), len(open_) * plies, decode)


def _at_plies(name: str, positions: Sequence[Position], plies: Sequence[int]) -> Stratum:
    """Each of ``positions`` at each of ``plies``, numbered position-major, labelled
    ``name-plyPLY``."""
    def decode(number: int) -> Optional[Candidate]:
        ply = plies[number % len(plies)]
        return f"{name}-ply{ply}", _morris_args(positions[number // len(plies)], ply), {}
    return Stratum(name, len(positions) * len(plies), decode)


def _positions(which: str) -> List[Position]:
    """The reachable positions that are ``terminal``, ``open`` (not over), open with
    ``x`` or ``o`` to move, or open in the ``movement`` phase (3 pieces each)."""
    game = Morris()
    if which == "terminal":
        return [p for p in morris_positions() if game.is_terminal(p)]
    open_ = [p for p in morris_positions() if not game.is_terminal(p)]
    if which in ("x", "o"):
        return [p for p in open_ if p[1] == which]
    if which == "movement":
        return [p for p in open_ if _movement(p[0])]
    return open_


def _movement(board: str) -> bool:
    return board.count("x") == board.count("o") == 3


def _open_where(test: Callable[[str, int, str], bool]) -> Callable[[Candidate], bool]:
    """Whether a candidate's position is open and ``test(board, ply, turn)`` holds."""
    def holds(candidate: Candidate) -> bool:
        board, _, ply, turn = candidate[1]
        return not Morris().is_terminal((board, turn)) and test(board, int(ply), turn)
    return holds


BLANK: Position = ("-" * 9, "x")
# PLY 7 and more: the search sees every forced result (the move is judged by the
# solved value); below 7 the students' own evaluation decides.
SOLVED_PLY = 7

# What every set of ten or more cases holds (engine.grading.generate): the blank board,
# both sides to move, a board already over, the placement and movement phases, a PLY
# where the evaluation decides and one where the search sees every forced result.
CATEGORIES = (
    Category("blank board", lambda candidate: (candidate[1][0], candidate[1][3]) == BLANK,
             lambda: _at_plies("blank", [BLANK], RANDOM_PLIES)),
    Category("x to move", _open_where(lambda board, ply, turn: turn == "x"),
             lambda: _at_plies("x-to-move", _positions("x"), RANDOM_PLIES)),
    Category("o to move", _open_where(lambda board, ply, turn: turn == "o"),
             lambda: _at_plies("o-to-move", _positions("o"), RANDOM_PLIES)),
    Category("terminal board",
             lambda candidate: Morris().is_terminal((candidate[1][0], candidate[1][3])),
             lambda: _at_plies("terminal", _positions("terminal"), RANDOM_PLIES)),
    Category("movement phase", _open_where(lambda board, ply, turn: _movement(board)),
             lambda: _at_plies("movement", _positions("movement"), RANDOM_PLIES)),
    Category("PLY below 7", _open_where(lambda board, ply, turn: ply < SOLVED_PLY),
             lambda: _at_plies("open", _positions("open"),
                               [ply for ply in RANDOM_PLIES if ply < SOLVED_PLY])),
    Category("PLY 7 or more", _open_where(lambda board, ply, turn: ply >= SOLVED_PLY),
             lambda: _at_plies("open", _positions("open"),
                               [ply for ply in RANDOM_PLIES if ply >= SOLVED_PLY])),
)


def _canonical_lines(text: bytes) -> bytes:
    """``text`` as LF lines without trailing blanks, each ended by a newline."""
    lines = text.replace(b"\r\n", b"\n").split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return b"".join(line.rstrip(b" \t") + b"\n" for line in lines)


def judge(case: Case, outcome: Outcome, lenient: bool) -> Sequence[Optional[Finding]]:
    board, path, ply, turn = case.args[0], case.args[1], int(case.args[2]), case.args[3]
    if path not in case.expected:
        return terminal_input(case, outcome, path)
    findings: List[Finding] = []
    # stdout: one board, then a newline; cosmetic differences judged against that form.
    stdout = _canonical_lines(outcome.stdout)
    finding = judge_text("stdout", stdout, outcome.stdout, lenient)
    lines = stdout.split(b"\n")[:-1]
    if len(lines) != 1 or not re.match(rb"^[xo-]{9}$", lines[0]):
        findings.append(fail("no board printed" if not lines else "stdout is not one board",
                             f"stdout should be the 9-character board after the move, got "
                             f"{outcome.stdout[:200]!r}"))
    else:
        got = lines[0].decode()
        children = [child for _, child in morris_moves(board, turn)]
        if got not in children:
            findings.append(fail(f"illegal move for {turn}: {got}",
                                 f"stdout: {got} is not one legal move of {turn} from "
                                 f"{board} (placement while fewer than 3 pieces, then "
                                 f"orthogonal slides)"))
        elif ply >= 7:
            findings.append(_morris_keeps_value(board, turn, got))
        findings.append(finding)
    if path not in outcome.files:
        findings.append(fail("visited file missing", f"{path} was not created"))
    else:
        text = outcome.files[path]
        canonical = _canonical_lines(text)
        findings.append(judge_text("visited file", canonical, text, lenient))
        lines = canonical.split(b"\n")[:-1]
        if not lines:
            findings.append(fail("visited file is empty",
                                 f"{path} lists no node; every non-terminal search visits "
                                 "at least the root's children"))
        for number, line in enumerate(lines, 1):
            if not VISITED_LINE.match(line):
                findings.append(fail(f"visited file: line {number} is not 'STATE VALUE'",
                                     f"{path} line {number}: {line[:200]!r} is not a "
                                     "9-character board from x, o, - followed by a space "
                                     "and an integer"))
                break
    return findings


def _morris_keeps_value(board: str, turn: str, child: str) -> Finding:
    """With PLY >= 7 the move must keep the exact value: won stays won, drawn not lost."""
    solved = solve()
    outcome, plies = solved[board + turn]
    after = -solved[child + OTHER[turn]][0]      # the child's value for ``turn``
    names = {1: "won", 0: "drawn", -1: "lost"}
    if after >= outcome:
        return Finding(True)
    return fail(f"the move throws away a {names[outcome]} position",
                f"{board} with {turn} to move is {names[outcome]} for {turn} (exact value, "
                f"repetition = draw); after {child} it is {names[after]} for {turn}. With "
                "PLY >= 7 the search sees every forced result, so a won position must stay "
                "won and a drawn one must not be lost.")


# --- how a submission runs ------------------------------------------------------------

STDOUT_GRADED = True
UNREADABLE_ZEROES = False
FILE_LABEL = "visited file"

# The files a submission is recognised by (for the hints of a folder that is none).
ENTRY_POINTS = ("tmmorris.py", "tmmorris.java", "Makefile")


def detect(folder: Path) -> Plan:
    """Our repository's tmmorris.py, a Makefile with a tmmorris target, tmmorris.java, or
    tmmorris.py."""
    return script_or_java_or_make(folder, "tmmorris")


# One point per case passed (engine.grading.judges.Judge.score).
score = one_point_per_case
