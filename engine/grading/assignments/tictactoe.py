"""tic-tac-toe: generated cases and the diagnosis of a run (see engine.grading.assignments).

Graded: stdout (the board after the move) and the visited file PATH, which must not exist
after a terminal input. A wrong move is judged by its value (a tie-break slip or a wrong
search), a visited file rebuilt into the tree it lists and walked beside ours.
"""

import functools
from pathlib import Path
from random import Random
from typing import Callable, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple, Union

from ...games.tictactoe import TicTacToe, winner
from ...search import ExactSearch, search
from ..case import Case, Outcome
from ..detect import script_or_java_or_make
from ..diagnose import (VISITED_LINE, fail, judge_text, last_of_equal_bounds,
                        terminal_input, tie_break_through_pruning)
from ..generate import VISITED, reachable_positions
from ..textdiff import content_difference, first_line_difference
from ..traces import Entry, diagnose_trace
from ..casespace import Candidate, Category, Stratum
from ..plan import Plan
from ..scoring import one_point_per_case
from ..verdict import Finding


def fits(case: Case) -> bool:
    """A generated tic-tac-toe case: STATE PATH [prune [PLY]]."""
    return 2 <= len(case.args) <= 4


def graded_files(case: Case) -> List[str]:
    """The visited file PATH."""
    return [case.args[1]] if len(case.args) >= 2 else []


@functools.lru_cache(maxsize=None)
def tictactoe_positions() -> List[str]:
    """Every position reachable from the blank board (terminal ones included), sorted."""
    return reachable_positions(TicTacToe(), "-" * 9)


def _tictactoe_mode_args(board: str, mode: Union[str, int]) -> List[str]:
    """Arguments for ``board`` in ``mode``: 'minimax', 'prune' or a PLY (int)."""
    if mode == "minimax":
        return [board, VISITED]
    if mode == "prune":
        return [board, VISITED, "prune"]
    return [board, VISITED, "prune", str(mode)]


def _mode_label(mode: Union[str, int]) -> str:
    return mode if isinstance(mode, str) else f"prune-ply{mode}"


def edges(rng: Random) -> Iterator[Candidate]:
    blank = "-" * 9
    for mode in ("minimax", "prune", 2, 1, 9):
        yield f"blank-{_mode_label(mode)}", _tictactoe_mode_args(blank, mode), {}
    pools = _edge_pools()
    for label, pool, mode in (("near-full-minimax", "one-left", "minimax"),
                              ("near-full-prune", "two-left", "prune"),
                              ("near-full-prune-ply1", "two-left", 1),
                              ("terminal-x-won", "x-won", "minimax"),
                              ("terminal-o-won-prune", "o-won", "prune"),
                              ("terminal-full-board-prune-ply", "drawn", 3)):
        yield label, _tictactoe_mode_args(rng.choice(pools[pool]), mode), {}
    # The grader's own trap: with PLY, a terminal node above the cut-off is valued E(s).
    yield "win-above-cutoff-prune-ply3", _tictactoe_mode_args("ooxxx----", 3), {}
    for mode in ("minimax", "prune", 2):
        yield (f"midgame-{_mode_label(mode)}",
               _tictactoe_mode_args(rng.choice(pools["middle"]), mode), {})
    yield "o-to-move-prune", _tictactoe_mode_args(rng.choice(pools["o-to-move"]), "prune"), {}


@functools.lru_cache(maxsize=None)
def _edge_pools() -> Dict[str, List[str]]:
    """The sorted boards each edge case is chosen from (made once: every seed's set
    starts with the edge cases)."""
    game = TicTacToe()
    positions = tictactoe_positions()
    open_ = [b for b in positions if not game.is_terminal(b)]
    terminal = [b for b in positions if game.is_terminal(b)]
    return {
        "one-left": [b for b in open_ if b.count("-") == 1],
        "two-left": [b for b in open_ if b.count("-") == 2],
        "x-won": [b for b in terminal if winner(b) == "x"],
        "o-won": [b for b in terminal if winner(b) == "o"],
        "drawn": [b for b in terminal if winner(b) is None],
        "middle": [b for b in open_ if b.count("-") in (4, 5, 6)],
        "o-to-move": [b for b in open_ if not game.is_maxs_turn(b) and b.count("-") >= 4],
    }


# The modes of a random case: minimax, prune, and prune with each PLY 1..9.
RANDOM_MODES = ("minimax", "prune") + tuple(range(1, 10))


def draw_stratum(rng: Random) -> Hashable:
    """One stratum holds every random case: the open positions in each mode."""
    return "open-positions"


def stratum(key: Hashable) -> Stratum:
    """Every non-terminal reachable position in every mode (4,520 x 11 = 49,720 cases),
    numbered position-major; the same board in two modes is two cases."""
    game = TicTacToe()
    open_ = [board for board in tictactoe_positions() if not game.is_terminal(board)]
    modes = len(RANDOM_MODES)

    def decode(number: int) -> Optional[Candidate]:
        board, mode = open_[number // modes], RANDOM_MODES[number % modes]
        return f"random-{_mode_label(mode)}", _tictactoe_mode_args(board, mode), {}
    return Stratum(str(key), len(open_) * modes, decode)


def _in_modes(name: str, boards: Sequence[str], modes: Sequence[Union[str, int]]) -> Stratum:
    """Each of ``boards`` in each of ``modes``, numbered board-major, labelled
    ``name-MODE``."""
    def decode(number: int) -> Optional[Candidate]:
        board, mode = boards[number // len(modes)], modes[number % len(modes)]
        return f"{name}-{_mode_label(mode)}", _tictactoe_mode_args(board, mode), {}
    return Stratum(name, len(boards) * len(modes), decode)


def _boards(which: str) -> List[str]:
    """The reachable boards that are ``open`` (not over), ``x-to-move`` or
    ``o-to-move`` (and open), or ``terminal``."""
    game = TicTacToe()
    if which == "terminal":
        return [board for board in tictactoe_positions() if game.is_terminal(board)]
    open_ = [board for board in tictactoe_positions() if not game.is_terminal(board)]
    if which == "open":
        return open_
    return [board for board in open_ if _x_to_move(board) == (which == "x-to-move")]


def _x_to_move(board: str) -> bool:
    return board.count("x") == board.count("o")


def _open_in_mode(arguments: int) -> Callable[[Candidate], bool]:
    """Whether a candidate searches an open board with ``arguments`` arguments (2:
    minimax, 3: prune, 4: prune PLY)."""
    def holds(candidate: Candidate) -> bool:
        args = candidate[1]
        return len(args) == arguments and not TicTacToe().is_terminal(args[0])
    return holds


def _open_and(x_to_move: bool) -> Callable[[Candidate], bool]:
    def holds(candidate: Candidate) -> bool:
        board = candidate[1][0]
        return not TicTacToe().is_terminal(board) and _x_to_move(board) == x_to_move
    return holds


BLANK = "-" * 9
PLIES = tuple(range(1, 10))

# What every set of ten or more cases holds (engine.grading.generate): each search mode
# on an open board, the blank board, both sides to move, a board already over.
CATEGORIES = (
    Category("minimax", _open_in_mode(2),
             lambda: _in_modes("open", _boards("open"), ("minimax",))),
    Category("prune", _open_in_mode(3),
             lambda: _in_modes("open", _boards("open"), ("prune",))),
    Category("prune PLY", _open_in_mode(4),
             lambda: _in_modes("open", _boards("open"), PLIES)),
    Category("blank board", lambda candidate: candidate[1][0] == BLANK,
             lambda: _in_modes("blank", [BLANK], RANDOM_MODES)),
    Category("x to move", _open_and(True),
             lambda: _in_modes("x-to-move", _boards("x-to-move"), RANDOM_MODES)),
    Category("o to move", _open_and(False),
             lambda: _in_modes("o-to-move", _boards("o-to-move"), RANDOM_MODES)),
    Category("terminal board", lambda candidate: TicTacToe().is_terminal(candidate[1][0]),
             lambda: _in_modes("terminal", _boards("terminal"), RANDOM_MODES)),
)


# Moves already named: a listing repeats the same few thousand parent/child pairs.
_CELL_MOVES: Dict[str, str] = {}


def _cell_move(parent: str, child: str) -> Optional[str]:
    """``x@4`` when ``child`` is ``parent`` with one more mark (cell 4), else None."""
    key = parent + child
    known = _CELL_MOVES.get(key)
    if known is None:
        if len(_CELL_MOVES) > 100000:
            _CELL_MOVES.clear()
        known = _CELL_MOVES[key] = _find_cell_move(parent, child) or ""
    return known or None


def _find_cell_move(parent: str, child: str) -> Optional[str]:
    changed = [i for i in range(9) if parent[i] != child[i]]
    if len(changed) != 1 or parent[changed[0]] != "-":
        return None
    return f"{child[changed[0]]}@{changed[0]}"


def _marks(board: str) -> int:
    return 9 - board.count("-")


def _visited_entries(text: bytes, root: str) -> Union[List[Entry], Tuple[int, bytes]]:
    """Entries of a visited file (see engine.grading.traces), or (line number, line)
    for the first line that is not ``STATE VALUE``."""
    entries: List[Entry] = []
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    # Listings repeat the same few thousand lines (549,945 lines, 5,478 positions):
    # each distinct line is parsed once.
    parsed: Dict[bytes, Entry] = {}
    root_marks = _marks(root)
    for number, line in enumerate(lines, 1):
        entry = parsed.get(line)
        if entry is None:
            match = VISITED_LINE.match(line)
            if not match:
                return number, line
            board = match.group(1).decode()
            entry = parsed[line] = Entry(_marks(board) - root_marks, line.decode(),
                                         f"value {int(match.group(2))}")
        entries.append(entry)
    return entries


def _show_cells(path: Sequence[str]) -> str:
    return ", ".join(path)


def visited_trace_difference(root: str, expected: bytes, actual: bytes,
                             where: str = "visited file") -> Tuple[str, str]:
    """(reason, detail) for two tic-tac-toe visited files that differ in content."""
    want = _visited_entries(expected, root)
    got = _visited_entries(actual, root)
    if isinstance(got, tuple):
        number, line = got
        return (f"{where}: line {number} is not 'STATE VALUE'",
                f"{where} line {number}: {line[:200]!r} is not a 9-character board from "
                "x, o, - followed by a space and an integer")
    if isinstance(want, list):
        found = diagnose_trace(want, got, lambda parent, key: _cell_move(parent[:9], key[:9]),
                               root, _show_cells, what=where)
        if found is not None:
            lines = first_line_difference(expected, actual, where)[1]
            return f"{where}: {found.reason}", f"{found.detail}\n{lines}"
    reason, detail = content_difference(expected, actual, where)
    return f"{where}: {reason}", detail


def _tictactoe_value(board: str, ply: Optional[int]) -> float:
    """The minimax value (x's view) of ``board`` as the assignment's search sees a root
    child: to the end, or cut off ``ply - 1`` plies below it."""
    game = TicTacToe(evaluate_terminals=ply is not None)
    return search(game, board, ExactSearch(depth=None if ply is None else ply - 1,
                                           memo={})).value


def _bounded_tie(board: str, ply: Optional[int], got: str) -> bool:
    """Whether ``got`` is the move alpha-beta's root chooses from ``board`` when it keeps
    the LAST of equal values: the tie-break slip, seen through pruning's bounds."""
    game = TicTacToe(evaluate_terminals=ply is not None)
    result = search(game, board, ExactSearch(depth=ply, memo={}))
    chosen = last_of_equal_bounds(result.root_values, game.is_maxs_turn(board))
    return chosen is not None and game.result(board, chosen[0]) == got


def _tictactoe_move_difference(board: str, ply: Optional[int], expected: bytes,
                               actual: bytes, prune: bool = False) -> Tuple[str, str]:
    """(reason, detail) for a tic-tac-toe stdout that differs in content."""
    lines = actual.split(b"\n")
    if len(lines) != 2 or lines[1] != b"":
        return content_difference(expected, actual, "stdout")
    got = lines[0].decode("ascii", "replace")
    want = expected.decode().strip()
    children = {child: action for action, child in TicTacToe().successors(board)}
    if got not in children:
        return (f"not a legal move: {got!r}",
                f"stdout: {got!r} is not {board} with one more "
                f"{'x' if board.count('x') == board.count('o') else 'o'}; expected {want}")
    want_move, got_move = _cell_move(board, want), _cell_move(board, got)
    want_value, got_value = _tictactoe_value(want, ply), _tictactoe_value(got, ply)
    head = f"wrong move: expected {want_move}, got {got_move}"
    view = "values from x's view: x takes the highest, o the lowest"
    if want_value == got_value:
        return (f"{head} (tie-break slip: both moves have value {want_value}; the grader "
                "keeps the first in raster order)",
                f"stdout: expected {want}, got {got}. Both moves have value {want_value} "
                f"({view}); the grader keeps the first of the best moves in raster order "
                f"(cell {children[want]}), and the only change is which equal move wins.")
    if prune and _bounded_tie(board, ply, got):
        return tie_break_through_pruning(head, want, got, want_value, got_value, view,
                                         f"cell {children[want]}, raster order")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"stdout: expected {want} (value {want_value}), got {got} (value "
            f"{got_value}); {view}")


def judge(case: Case, outcome: Outcome, lenient: bool) -> Sequence[Optional[Finding]]:
    board, path = case.args[0], case.args[1]
    ply = int(case.args[3]) if len(case.args) == 4 else None
    if path not in case.expected:
        return terminal_input(case, outcome, path)
    findings = [judge_text("stdout", case.stdout, outcome.stdout, lenient,
                           lambda e, a: _tictactoe_move_difference(
                               board, ply, e, a, prune=len(case.args) >= 3))]
    if path not in outcome.files:
        findings.append(fail("visited file missing", f"{path} was not created"))
    else:
        findings.append(judge_text(
            "visited file", case.expected[path], outcome.files[path], lenient,
            lambda e, a: visited_trace_difference(board, e, a)))
    return findings


# --- how a submission runs ------------------------------------------------------------

# What the grader compares besides the output files: stdout, as the runner shows it.
STDOUT_GRADED = True
# How diagnoses name the graded file.
UNREADABLE_ZEROES = False
FILE_LABEL = "visited file"

# The files a submission is recognised by (for the hints of a folder that is none).
ENTRY_POINTS = ("tictactoe.py", "tictactoe.java", "Makefile")


def detect(folder: Path) -> Plan:
    """Our repository's tictactoe.py, a Makefile with a tictactoe target, tictactoe.java,
    or tictactoe.py."""
    return script_or_java_or_make(folder, "tictactoe")


# One point per case passed (engine.grading.judges.Judge.score).
score = one_point_per_case
