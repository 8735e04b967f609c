"""The Stake/Raid files, read and written once: input.txt, output.txt, boards and moves.

homework.py, the kit's judge, the tournament's referee and the agent's tools all go
through this module (docs/stake_raid.md, "input.txt" and "output.txt"):

input.txt   N (1..26), MODE (MINIMAX | ALPHABETA | COMPETITION), YOUPLAY (X | O), DEPTH
            (>= 1; in COMPETITION the CPU seconds left), N lines of N cell values
            (1..99), N lines of N characters from ``X``, ``O``, ``.`` (the board)
output.txt  the move, ``<column><row> Stake|Raid`` (``B3 Raid``: columns A.., rows 1..),
            then the N board rows after it

A board's cells are bytes as engine.games.stake_raid keeps them, from YOUPLAY's side
(YOUPLAY is MAX). Readers raise :class:`FileFormatError`, a :class:`UsageError`: its
message names the line and says what is wrong.
"""

from __future__ import annotations

from ..errors import UsageError
from .stake_raid import EMPTY, MAX, MAX_SIZE, MIN, RAID, StakeRaid, move_name

# homework.py's every run imports this module: what it imports is start-up time that a
# grader's MINIMAX case pays (docs/stake_raid.md, "Speed"). typing (about 10 ms) is read
# by mypy only, and re is imported by the one reader that needs it (parse_output).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, NoReturn, Optional, Sequence, Tuple, Union

MODES = ("MINIMAX", "ALPHABETA", "COMPETITION")
PLAYERS = ("X", "O")
KINDS = ("Stake", "Raid")
MIN_VALUE, MAX_VALUE = 1, 99
MOVE_FORM = "<column><row> Stake|Raid"
# A move written exactly as move_name writes it (what the grader requires).
MOVE_PATTERN = r"^([A-Z])([1-9][0-9]*) (Stake|Raid)$"
INF = float("inf")


class FileFormatError(UsageError):
    """A Stake/Raid file that does not follow the format (the message says where)."""


class Problem:
    """A parsed input.txt. ``limit`` is DEPTH (int) or, in COMPETITION, seconds (float).

    ``board`` holds the N rows as strings of X, O and '.'. Two problems are equal when
    every field is. (A plain class, not a NamedTuple: see the imports.)
    """

    __slots__ = ("size", "mode", "player", "limit", "values", "board")

    def __init__(self, size: int, mode: str, player: str, limit: Union[int, float],
                 values: List[int], board: List[str]) -> None:
        self.size, self.mode, self.player, self.limit = size, mode, player, limit
        self.values, self.board = values, board

    def _fields(self) -> Tuple[int, str, str, Union[int, float], List[int], List[str]]:
        return self.size, self.mode, self.player, self.limit, self.values, self.board

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self._fields() == other._fields()

    __hash__ = None     # type: ignore[assignment]  # mutable lists inside: not a key

    def __repr__(self) -> str:
        return "Problem(%s)" % ", ".join(f"{name}={getattr(self, name)!r}"
                                         for name in self.__slots__)


def other(player: str) -> str:
    """The other side's mark: O for X, X for O."""
    return "XO"[player == "X"]


def board_cells(rows: Sequence[str], player: str) -> bytes:
    """The cells of a board given as rows of X, O and '.', from ``player``'s side
    (``player``'s pieces MAX, the other side's MIN)."""
    codes = {".": EMPTY, player: MAX, other(player): MIN}
    return bytes(codes[mark] for row in rows for mark in row)


def board_rows(cells: bytes, size: int, player: str) -> List[str]:
    """The rows of X, O and '.' of ``cells`` seen from ``player``'s side."""
    marks = {EMPTY: ".", MAX: player, MIN: other(player)}
    return ["".join(marks[c] for c in cells[r * size:(r + 1) * size]) for r in range(size)]


def position(problem: Problem) -> Tuple[StakeRaid, tuple]:
    """(game, state) of a :class:`Problem`: the board from YOUPLAY's side, YOUPLAY (MAX)
    to move."""
    game = StakeRaid(problem.size, problem.values)
    return game, game.initial_state(board_cells(problem.board, problem.player), MAX)


def plain_number(number: float) -> str:
    """``number`` as the plainest text that keeps its milliseconds: ``3`` for 3.0,
    ``2.5``, ``0.125``; never negative (an agent may read it as an integer or a float)."""
    text = f"{max(number, 0.0):.3f}".rstrip("0").rstrip(".")
    return text or "0"


def input_text(size: int, mode: str, player: str, limit: Union[int, float],
               values: Sequence[int], rows: Sequence[str]) -> str:
    """The text of input.txt (LF line endings, as the assignment's examples); a
    COMPETITION time is written plainly (:func:`plain_number`)."""
    lines = [str(size), mode, player,
             plain_number(limit) if mode == "COMPETITION" else str(limit)]
    lines += [" ".join(str(v) for v in values[r * size:(r + 1) * size]) for r in range(size)]
    lines += list(rows)
    return "\n".join(lines) + "\n"


def output_text(size: int, player: str, action: int, cells: bytes) -> str:
    """The text of output.txt: the move, then the N board rows (``cells`` from
    ``player``'s side), '\\n' after each."""
    return "\n".join([move_name(size, action)] + board_rows(cells, size, player)) + "\n"


def parse_input(text: str, name: str = "input.txt") -> Problem:
    """Parse the text of input.txt into a :class:`Problem`, or raise FileFormatError.

    Lenient with CRLF, spaces around tokens and trailing blank lines (spec "input.txt");
    every error message names the offending line.
    """
    lines = _InputLines(text, name)
    size, mode, player, limit = _header(lines)
    values = _cell_values(lines, size)
    board = _board(lines, size)
    if len(lines.lines) > 4 + 2 * size:
        lines.fail(5 + 2 * size, f"unexpected extra line {lines.lines[4 + 2 * size][:40]!r}: "
                                 f"the file should have {4 + 2 * size} lines for N = {size}")
    if not any("." in row for row in board):
        lines.fail(5 + size, "the board is full: there is no move to make")
    return Problem(size, mode, player, limit, values, board)


class _InputLines:
    """The stripped lines of an input.txt named ``name``, trailing blank lines dropped;
    ``line`` and ``fail`` raise FileFormatError naming the line."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        self.lines = [line.strip() for line in text.splitlines()]
        while self.lines and not self.lines[-1]:
            self.lines.pop()

    def line(self, number: int, what: str) -> str:
        """Line ``number`` (from 1), which holds ``what``."""
        if number > len(self.lines):
            raise FileFormatError(f"{self.name}: line {number} ({what}) is missing: the file "
                                  f"has {len(self.lines)} lines")
        return self.lines[number - 1]

    def fail(self, number: int, message: str) -> NoReturn:
        raise FileFormatError(f"{self.name} line {number}: {message}")


def _header(lines: _InputLines) -> Tuple[int, str, str, Union[int, float]]:
    """(N, MODE, YOUPLAY, DEPTH or the time left) of lines 1 to 4."""
    size_text = lines.line(1, "N")
    if not (size_text.isascii() and size_text.isdigit()) or not 1 <= int(size_text) <= MAX_SIZE:
        lines.fail(1, f"N must be an integer from 1 to {MAX_SIZE}, not {size_text!r}")
    mode = lines.line(2, "MODE")
    if mode not in MODES:
        lines.fail(2, f"MODE must be one of {', '.join(MODES)}, not {mode!r}")
    player = lines.line(3, "YOUPLAY")
    if player not in PLAYERS:
        lines.fail(3, f"YOUPLAY must be X or O, not {player!r}")
    limit_text = lines.line(4, "DEPTH" if mode != "COMPETITION" else "time left")
    if mode != "COMPETITION":
        if not (limit_text.isascii() and limit_text.isdigit()) or int(limit_text) < 1:
            lines.fail(4, f"DEPTH must be a positive integer, not {limit_text!r}")
        return int(size_text), mode, player, int(limit_text)
    try:
        seconds = float(limit_text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < INF:          # also refuses nan, which compares false
        lines.fail(4, f"the CPU time left must be a number of seconds >= 0, not "
                      f"{limit_text!r}")
    return int(size_text), mode, player, seconds


def _cell_values(lines: _InputLines, size: int) -> List[int]:
    """The N*N cell values of lines 5 to 4 + N, row-major."""
    values = []
    for number in range(5, 5 + size):
        words = lines.line(number, f"row {number - 4} of the cell values").split()
        if len(words) != size:
            lines.fail(number, f"expected {size} cell values, found {len(words)}")
        for word in words:
            if not (word.isascii() and word.isdigit()) or not MIN_VALUE <= int(word) <= MAX_VALUE:
                lines.fail(number, f"cell values must be integers from {MIN_VALUE} to "
                                   f"{MAX_VALUE}, not {word!r}")
            values.append(int(word))
    return values


def _board(lines: _InputLines, size: int) -> List[str]:
    """The N board rows of lines 5 + N to 4 + 2N."""
    board = []
    for number in range(5 + size, 5 + 2 * size):
        row = lines.line(number, f"row {number - 4 - size} of the board")
        if len(row) != size:
            lines.fail(number, f"expected {size} board characters, found {len(row)}: {row!r}")
        wrong = [c for c in row if c not in "XO."]
        if wrong:
            lines.fail(number, f"board characters must be X, O or '.', not {wrong[0]!r}")
        board.append(row)
    return board


def parse_move(line: str, size: int) -> int:
    """The action named by ``line`` (``<column><row> Stake|Raid``; spaces around and
    between the two words are free), or raise FileFormatError saying why."""
    parts = line.split()
    if len(parts) != 2 or parts[1] not in KINDS or len(parts[0]) < 2:
        raise FileFormatError(f"{line[:60]!r} is not '{MOVE_FORM}'")
    column, row = parts[0][0], parts[0][1:]
    if not ("A" <= column <= "Z" and row.isascii() and row.isdigit()):
        raise FileFormatError(f"{line[:60]!r} is not '{MOVE_FORM}'")
    column_index, row_index = ord(column) - ord("A"), int(row) - 1
    if not (0 <= column_index < size and 0 <= row_index < size):
        raise FileFormatError(f"square {column}{row_index + 1} is off the {size}x{size} "
                              f"board")
    cell = row_index * size + column_index
    return cell + RAID if parts[1] == "Raid" else cell


def output_move(text: str, size: int) -> Optional[int]:
    """The referee's reading of an output.txt: the action its first line names, or None
    when that line names no move of this board (the board lines are not read)."""
    try:
        return parse_move(text.split("\n", 1)[0], size)
    except FileFormatError:
        return None


def parse_output(text: str, size: int) -> Tuple[int, List[str]]:
    """(action, board rows) of a whole output.txt, as the grader reads it: CRLF or LF,
    trailing spaces and blank lines free, the move written exactly as
    :func:`engine.games.stake_raid.move_name` writes it, then N rows of N characters
    from X, O, '.'. Raises FileFormatError naming the line."""
    lines = [line.rstrip(" \t") for line in text.replace("\r\n", "\n").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise FileFormatError("the file is empty")
    import re
    if not re.match(MOVE_PATTERN, lines[0]):
        raise FileFormatError(f"line 1 {lines[0][:60]!r} is not '{MOVE_FORM}'")
    action = parse_move(lines[0], size)     # the square may still be off the board
    board = lines[1:]
    if len(board) != size:
        raise FileFormatError(f"expected {size} board lines after the move, found "
                              f"{len(board)}")
    for number, line in enumerate(board, 2):
        if len(line) != size or any(c not in "XO." for c in line):
            raise FileFormatError(f"line {number} {line[:60]!r} is not {size} characters "
                                  f"from X, O, .")
    return action, board
