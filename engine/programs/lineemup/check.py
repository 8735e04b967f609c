"""``python3 -m engine lineemup check FILE...``: check game traces and scoreboards.

Reached through :mod:`engine.programs.lineemup` (first word ``check``); no ``main`` here,
so it is not a program of its own. Works on any ``gameTrace-*.txt`` or ``scoreboard.txt``
(ours or a student's); a file is a scoreboard when its first line has no ``blocs=`` line
after it, i.e. when its second line is blank.

Two kinds of problems, each reported as ``FILE:LINE: what`` (one line each):

* layout: the file must follow the course's samples line for line (labels, blank lines,
  number formats). The first line that does not fit stops the reading of that file,
  since nothing after it can be located reliably;
* content: what the numbers and boards claim must be true (see :func:`check_trace` and
  :func:`check_scoreboard` for the exact list).

Tolerances come from the printed precision only: a mean of values printed with 2
decimals is compared with the printed mean within the two roundings (0.005 each);
values printed with 1 decimal within 0.05 (+0.05 when they are a mean of rounded values).
Whole numbers (counts, sums, moves) must be exact.

Lines the course's own sample shows besides the regular ones are accepted: the
``*** Out of extra time at depth D ***`` / ``Selected random move for O: D3`` pair before
a move (and our ``Selected first ordered move``), our random-opening and human-move lines
(no statistics), our time-loss line (``*** Player X took 1.2s, more than t=1s: X
loses ***``, after which the other side wins) and our ``End of input`` line (a game a
human abandoned: no result and no end-of-game block).
"""

import os
import re
from typing import Any, Dict, List, Match, Optional, TextIO, Tuple, cast

from ...errors import EngineError, UsageError
from ...commandline import read_text_file

COLUMNS = "ABCDEFGHIJ"
SIDES = ("X", "O")
EPSILON = 1e-9

NUMBER = r"\d+(?:\.\d+)?"
SECONDS = r"(\d+\.\d{1,2})s"
DEPTHS = r"(\{(?:\d+: \d+(?:, \d+: \d+)*)?\})"
CELL = r"([A-J])(\d)"

# A statistics block as read: {item name: (line number, value)}; a board: {(column,
# row): mark}.
Stats = Dict[str, Tuple[int, Any]]
Cells = Dict[Tuple[int, int], str]


class LayoutError(EngineError):
    """The line at ``number`` does not fit the layout; ``message`` says what was expected."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(message)
        self.number = number
        self.message = message


class Lines:
    """A cursor over a file's lines (numbered from 1) that matches them one by one."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()          # the final newline ends the last line
        self.index = 0

    @property
    def number(self) -> int:
        """The number of the next line to read."""
        return self.index + 1

    def at_end(self) -> bool:
        return self.index >= len(self.lines)

    def peek(self) -> Optional[str]:
        return None if self.at_end() else self.lines[self.index]

    def expect(self, pattern: str, what: str) -> Match[str]:
        """Match the next line fully against ``pattern``; LayoutError naming ``what``."""
        line = self.peek()
        if line is None:
            # Named by the file's last line: a file without a final newline has no line
            # after it to point at.
            raise LayoutError(max(1, min(self.number, len(self.lines))),
                              f"expected {what}, found the end of the file")
        match = re.fullmatch(pattern, line)
        if match is None:
            raise LayoutError(self.number, f"expected {what}, found {_quote(line)}")
        self.index += 1
        return match

    def blank(self, what: str = "a blank line") -> None:
        self.expect("", what)

    def blank_then(self, prefix: str) -> bool:
        """True when the next line is blank and the one after it starts with ``prefix``."""
        return self.peek() == "" and self.index + 1 < len(self.lines) and \
            self.lines[self.index + 1].startswith(prefix)

    def accept(self, pattern: str) -> Optional[Match[str]]:
        """Match and consume the next line if it fits ``pattern``, else None."""
        line = self.peek()
        match = None if line is None else re.fullmatch(pattern, line)
        if match is not None:
            self.index += 1
        return match


def _quote(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


def parse_depths(text: str) -> Dict[int, int]:
    """``{4: 10, 3: 2}`` -> {4: 10, 3: 2} (the layout regex has already checked it)."""
    result: Dict[int, int] = {}
    for depth, count in re.findall(r"(\d+): (\d+)", text):
        result[int(depth)] = result.get(int(depth), 0) + int(count)
    return result


def weighted_mean(by_depth: Dict[int, int]) -> float:
    total = sum(by_depth.values())
    return sum(d * c for d, c in by_depth.items()) / total if total else 0.0


def close(printed: float, exact: float, tolerance: float) -> bool:
    return abs(printed - exact) <= tolerance + EPSILON


class Report:
    """The problems found in one file, as (line number, text)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: List[Tuple[int, str]] = []

    def add(self, number: int, text: str) -> None:
        self.problems.append((number, text))

    def lines(self) -> List[str]:
        return [f"{self.path}:{number}: {text}" for number, text in self.problems]


# --- statistics block (items i..v), shared by traces and scoreboards --------------------------
def read_statistics(lines: Lines, prefix: str, averaged: bool) -> Stats:
    """Read items i..v labelled ``prefix + 'i'`` ...; return {name: (line, value)}.

    ``averaged``: the end-of-game / scoreboard wording (Average evaluation time, Total
    heuristic evaluations).
    """
    width = len(prefix) + 4
    time_label = "Average evaluation time" if averaged else "Evaluation time"
    count_label = "Total heuristic evaluations" if averaged else "Heuristic evaluations"
    items = (("i", "time", time_label, SECONDS),
             ("ii", "evaluations", count_label, r"(\d+)"),
             ("iii", "by_depth", "Evaluations by depth", DEPTHS),
             ("iv", "average_depth", "Average evaluation depth", r"(\d+\.\d)"),
             ("v", "ard", "Average recursion depth", r"(\d+\.\d)"))
    values = {}
    for label, name, title, pattern in items:
        head = re.escape(f"{prefix + label:<{width}}{title}: ")
        number = lines.number
        match = lines.expect(head + pattern, f"'{prefix + label:<{width}}{title}: ...'")
        text = match.group(1)
        value = (parse_depths(text) if name == "by_depth" else
                 int(text) if name == "evaluations" else float(text))
        values[name] = (number, value)
    return values


def check_statistics(report: Report, stats: Stats, max_depth: Optional[int],
                     max_seconds: Optional[float], who: str) -> None:
    """The checks every i..v block must pass: sums, weighted mean, depth and time bounds."""
    line, by_depth = stats["by_depth"]
    count_line, evaluations = stats["evaluations"]
    if sum(by_depth.values()) != evaluations:
        report.add(count_line, f"{who}: {evaluations} heuristic evaluations, but the "
                               f"evaluations by depth sum to {sum(by_depth.values())}")
    mean_line, mean = stats["average_depth"]
    if sum(by_depth.values()) and not close(mean, weighted_mean(by_depth), 0.05):
        report.add(mean_line, f"{who}: average evaluation depth {mean} is not the weighted "
                              f"mean of the evaluations by depth "
                              f"({weighted_mean(by_depth):.3f})")
    if max_depth is not None:
        deeper = sorted(depth for depth in by_depth if depth > max_depth)
        if deeper:
            report.add(line, f"{who}: evaluations at depth {deeper[-1]}, beyond the "
                             f"player's maximum depth d={max_depth}")
        ard_line, ard = stats["ard"]
        if ard > max_depth + 0.05 + EPSILON:
            report.add(ard_line, f"{who}: average recursion depth {ard} exceeds the "
                                 f"maximum depth d={max_depth}")
    if max_seconds is not None:
        time_line, seconds = stats["time"]
        if seconds > max_seconds + EPSILON:
            report.add(time_line, f"{who}: evaluation time {seconds}s exceeds "
                                  f"t={_number(max_seconds)}s")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


# --- game traces ---------------------------------------------------------------------------------
class Player:
    def __init__(self, kind: str, depth: Optional[int] = None, alphabeta: Optional[bool] = None,
                 heuristic: Optional[str] = None) -> None:
        self.kind, self.depth, self.alphabeta, self.heuristic = kind, depth, alphabeta, heuristic


PLAYER = r"Player {}: (?:(Human)|AI d=(\d+) a=(True|False) (e1|e2)\([^()]*\))"


def read_board(lines: Lines, n: int, move_number: Optional[int]) -> Tuple[Cells, int]:
    """Read a board (header, rule, n rows, blank); return {(column, row): mark}, line."""
    header = "  " + COLUMNS[:n] + ("" if move_number is None else f"  (move #{move_number})")
    number = lines.number
    lines.expect(re.escape(header), repr(header))
    lines.expect(re.escape(" +" + "-" * n), repr(" +" + "-" * n))
    cells = {}
    for row in range(n):
        match = lines.expect(f"{row}\\|([.XO*]{{{n}}})", f"row {row} of the board "
                                                          f"('{row}|' and {n} of . * X O)")
        for column, mark in enumerate(match.group(1)):
            cells[(column, row)] = mark
    lines.blank("a blank line after the board")
    return cells, number


def has_line(cells: Cells, n: int, s: int, column: int, row: int, side: str) -> bool:
    """True when the stone of ``side`` on (column, row) is part of s in a row."""
    for d_column, d_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            c, r = column + sign * d_column, row + sign * d_row
            while 0 <= c < n and 0 <= r < n and cells[(c, r)] == side:
                count += 1
                c, r = c + sign * d_column, r + sign * d_row
        if count >= s:
            return True
    return False


def expected_trace_name(n: int, b: int, s: int, t_text: str) -> str:
    return f"gameTrace-{n}{b}{s}{t_text}.txt"


def check_trace(path: str, text: str) -> Report:
    """Check one game trace; return a :class:`Report`.

    Content checks: header values in range (3 <= n <= 10, 3 <= s <= n, b = number of
    blocs <= 2n, blocs distinct and on the board), the file name gameTrace-<n><b><s><t>
    agrees with the header; the initial board holds exactly the listed blocs; sides
    alternate from X; each move names a cell on the board that is empty, is made by a
    player of the kind the header lists (AI / Human), and the next board (numbered
    move #1, #2, ...) is the previous one plus that stone; per AI move the depth counts
    sum to ii, iv is their weighted mean, no depth exceeds the player's d, v <= d and
    time <= t (unless the time-loss line follows, then time > t); the game ends exactly
    when the mover has s in a row or the board is full, and the result line names the
    winner (or the tie); the end-of-game block is the aggregate of the AI moves (mean
    time, total and merged counts, weighted mean depth over the game, mean ARD) and vi
    counts every move.
    """
    report = Report(path)
    lines = Lines(text)
    try:
        _read_trace(lines, report, os.path.basename(path))
    except LayoutError as error:
        report.add(error.number, error.message)
    return report


def _read_trace(lines: Lines, report: Report, name: str) -> None:
    match = lines.expect(r"n=(\d+) b=(\d+) s=(\d+) t=(" + NUMBER + ")", "'n=N b=B s=S t=T'")
    n, b, s, t_text = int(match.group(1)), int(match.group(2)), int(match.group(3)), \
        match.group(4)
    t = float(t_text)
    if not 3 <= n <= 10:
        raise LayoutError(1, f"n={n}: the board size must be 3..10")
    if not 3 <= s <= n:
        report.add(1, f"s={s}: must be 3..n (3..{n})")
    if t <= 0:
        report.add(1, f"t={t_text}: must be positive")
    if name.startswith("gameTrace-") and name != expected_trace_name(n, b, s, t_text):
        report.add(1, f"the file name should be {expected_trace_name(n, b, s, t_text)} "
                      f"for these parameters")
    number = lines.number
    match = lines.expect(r"blocs=\[((?:\(\d+,\d+\)(?:, \(\d+,\d+\))*)?)\]",
                         "'blocs=[(column,row), ...]'")
    blocs = [(int(c), int(r)) for c, r in re.findall(r"\((\d+),(\d+)\)", match.group(1))]
    if len(blocs) != b:
        report.add(number, f"{len(blocs)} blocs listed, but b={b}")
    if b > 2 * n:
        report.add(1, f"b={b}: at most 2n = {2 * n} blocs")
    for cell in blocs:
        if not (cell[0] < n and cell[1] < n):
            report.add(number, f"bloc {cell} is off the {n}x{n} board")
    if len(set(blocs)) != len(blocs):
        report.add(number, "a bloc is listed twice")
    lines.blank()
    players = []
    for index in (1, 2):
        match = lines.expect(PLAYER.format(index),
                             f"'Player {index}: AI d=D a=True|False e1|e2(name)' or "
                             f"'Player {index}: Human'")
        players.append(Player("H") if match.group(1) else
                       Player("AI", int(match.group(2)), match.group(3) == "True",
                              match.group(4)))
    lines.blank()
    cells, board_line = read_board(lines, n, None)
    expected = {(c, r): "*" if (c, r) in blocs else "." for r in range(n) for c in range(n)}
    for (c, r), mark in sorted(cells.items(), key=lambda item: (item[0][1], item[0][0])):
        if mark != expected[(c, r)]:
            report.add(board_line + 2 + r, f"initial board: {COLUMNS[c]}{r} shows "
                                           f"{mark!r}, expected {expected[(c, r)]!r} "
                                           f"(only the listed blocs)")
            break
    cells = expected
    _read_moves(lines, report, n, s, t, players, cells)


class Move:
    """One move as read: its line, the side that played it, its statistics (AI only)."""

    def __init__(self, line: int, side: str, stats: Optional[Stats]) -> None:
        self.line, self.side, self.stats = line, side, stats


class _MoveLine:
    """A move's announcement as read, before its statistics and board.

    ``kind`` is "AI" or "Human" from ``under ... control``, None for a random opening;
    ``announced`` is (line, side, cell) of a preceding ``Selected ... move`` line, if any.
    """

    def __init__(self, line: int, number: int, mover: str, kind: Optional[str],
                 cell: Tuple[int, int], n: int,
                 announced: Optional[Tuple[int, str, Tuple[int, int]]]) -> None:
        self.line, self.number, self.mover, self.kind = line, number, mover, kind
        self.column, self.row = cell
        self.on_board = self.column < n and self.row < n
        self.announced = announced
        self.who = f"move #{number} ({mover})"

    @property
    def cell_name(self) -> str:
        return f"{COLUMNS[self.column]}{self.row}"


class _MovesReader:
    """Reads a trace's moves one by one and checks each against the board before it.

    After the last move it holds what :func:`_check_end` judges: the moves, ``won_at``
    (move number, side, already reported) once a side has s in a row, the result line
    (line, winner or None), whether the game was abandoned, the side that went over t,
    and the last board the file showed.
    """

    def __init__(self, lines: Lines, report: Report, n: int, s: int, t: float,
                 players: List[Player], cells: Cells) -> None:
        self.lines, self.report = lines, report
        self.n, self.s, self.t, self.players = n, s, t, players
        self.cells = cells
        self.moves: List[Move] = []
        self.won_at: Optional[Tuple[int, str, bool]] = None
        self.result: Optional[Tuple[int, Optional[str]]] = None
        self.abandoned = False
        self.time_loss: Optional[str] = None

    def read_all(self) -> None:
        """Read moves until a result line or an end-of-input block has been consumed."""
        while not self.read_ending():
            move = self.read_move_line()
            self.check_move_line(move)
            stats, lost_on_time = self.read_move_statistics(move)
            self.moves.append(Move(move.line, move.mover, stats))
            if not lost_on_time:      # after a time loss the result line follows
                self.read_board_after(move)

    def read_ending(self) -> bool:
        """Consume the result line or the end-of-input block if it comes next; True then."""
        lines = self.lines
        if lines.accept(r"It's a (?:tie|draw)!"):
            self.result = (lines.number - 1, None)
            return True
        match = lines.accept(r"The winner is ([XO])!")
        if match:
            self.result = (lines.number - 1, match.group(1))
            return True
        if lines.blank_then("End of input"):
            lines.blank()
            lines.expect(r"End of input: the game is abandoned after (\d+) moves\.",
                         "'End of input: the game is abandoned after N moves.'")
            if not any(player.kind == "H" for player in self.players):
                self.report.add(lines.number - 1,
                                "an AI-vs-AI game cannot end by end of input")
            self.abandoned = True
            return True
        return False

    def read_move_line(self) -> _MoveLine:
        """Read a random opening, or a played move with its optional selection lines."""
        lines = self.lines
        move_number = len(self.moves) + 1
        opening = lines.accept(r"Player ([XO]) plays the random opening move: " + CELL)
        if opening is not None:
            return _MoveLine(lines.number - 1, move_number, opening.group(1), None,
                             _cell(opening, 2), self.n, None)
        announced = None
        if lines.accept(r"\*\*\* Out of extra time at depth \d+ \*\*\*"):
            match = lines.expect(r"Selected (?:random|first ordered) move for ([XO]): "
                                 + CELL, "'Selected random move for X|O: CELL'")
            announced = (lines.number - 1, match.group(1), _cell(match, 2))
        number = lines.number
        match = lines.expect(r"Player ([XO]) under (AI|Human) control plays: " + CELL,
                             "'Player X|O under AI|Human control plays: CELL' or "
                             "the result line")
        return _MoveLine(number, move_number, match.group(1), match.group(2),
                         _cell(match, 3), self.n, announced)

    def check_move_line(self, move: _MoveLine) -> None:
        """Turn order, control kind, selection line, play after a win, the cell's state."""
        report, side = self.report, SIDES[len(self.moves) % 2]
        if move.mover != side:
            report.add(move.line, f"move #{move.number} is played by {move.mover}, but it "
                                  f"is {side}'s turn (sides alternate from X)")
        player = self.players[SIDES.index(move.mover)]
        if move.kind is not None and (move.kind == "AI") != (player.kind == "AI"):
            listed = "a human" if player.kind == "H" else "an AI"
            report.add(move.line, f"{move.who}: played under {move.kind} control, but the "
                                  f"header lists {listed} for {move.mover}")
        announced = move.announced
        if announced is not None and \
                (announced[1], announced[2]) != (move.mover, (move.column, move.row)):
            report.add(announced[0], f"{move.who}: the selected move does not match the "
                                     f"move played")
        if self.won_at is not None and not self.won_at[2]:   # said once, at the first extra
            report.add(move.line, f"the game went on after {self.won_at[1]} completed "
                                  f"{self.s} in a row at move #{self.won_at[0]}")
            self.won_at = (self.won_at[0], self.won_at[1], True)
        self._check_cell_free(move)

    def _check_cell_free(self, move: _MoveLine) -> None:
        """The move's cell must be on the board and empty."""
        if not move.on_board:
            self.report.add(move.line, f"{move.who}: {move.cell_name} is off the "
                                       f"{self.n}x{self.n} board")
            return
        mark = self.cells[(move.column, move.row)]
        if mark != ".":
            what = {"*": "a bloc", "X": "X's stone", "O": "O's stone"}[mark]
            self.report.add(move.line, f"{move.who}: {move.cell_name} is not empty "
                                       f"(holds {what})")

    def read_move_statistics(self, move: _MoveLine) -> Tuple[Optional[Stats], bool]:
        """An AI move's i..v block (None for other moves), and whether the time-loss
        line followed it (then no board follows: the result line does)."""
        if move.kind != "AI":
            return None, False
        lines = self.lines
        lines.blank()
        stats = read_statistics(lines, "", averaged=False)
        depth = self.players[SIDES.index(move.mover)].depth
        if not lines.blank_then("*** Player"):
            check_statistics(self.report, stats, depth, self.t, move.who)
            return stats, False
        lines.blank()
        loss = lines.expect(r"\*\*\* Player ([XO]) took " + SECONDS +
                            r", more than t=(" + NUMBER + r")s: ([XO]) loses \*\*\*",
                            "'*** Player X took Ts, more than t=Ts: X loses ***'")
        over = stats["time"][1] > self.t + EPSILON
        if not over or loss.group(1) != move.mover or loss.group(4) != move.mover:
            self.report.add(lines.number - 1, f"{move.who}: the time-loss line does not "
                                              f"fit the move's time and side")
        lines.blank()
        self.time_loss = move.mover
        check_statistics(self.report, stats, depth, None, move.who)
        return stats, True

    def read_board_after(self, move: _MoveLine) -> None:
        """The board after the move must be the previous one plus the move's stone;
        reading goes on from the board the file shows."""
        lines, n = self.lines, self.n
        lines.blank()
        lines.blank("a second blank line before the board")
        board, board_line = read_board(lines, n, move.number)
        cells = self.cells
        if move.on_board:
            cells = dict(cells)
            cells[(move.column, move.row)] = move.mover
        for r in range(n):
            wrong = [c for c in range(n) if board[(c, r)] != cells[(c, r)]]
            if wrong:
                c = wrong[0]
                self.report.add(board_line + 2 + r,
                                f"board after move #{move.number}: {COLUMNS[c]}{r} shows "
                                f"{board[(c, r)]!r}, expected {cells[(c, r)]!r} (the "
                                f"previous board plus {move.mover} on {move.cell_name})")
                break
        self.cells = board            # go on from what the file shows
        if self.won_at is None and move.on_board and \
                has_line(board, n, self.s, move.column, move.row, move.mover):
            self.won_at = (move.number, move.mover, False)


def _cell(match: Match[str], group: int) -> Tuple[int, int]:
    """The (column, row) of a CELL matched at ``group`` and ``group + 1``."""
    return COLUMNS.index(match.group(group)), int(match.group(group + 1))


def _read_moves(lines: Lines, report: Report, n: int, s: int, t: float, players: List[Player],
                cells: Cells) -> None:
    """Read and check every move, then the result and the end-of-game block."""
    game = _MovesReader(lines, report, n, s, t, players, cells)
    game.read_all()
    _check_end(lines, report, n, s, t, players, game.cells, game.moves, game.won_at,
               game.result, game.abandoned, game.time_loss)


def _check_end(lines: Lines, report: Report, n: int, s: int, t: float, players: List[Player],
               cells: Cells, moves: List[Move], won_at: Optional[Tuple[int, str, bool]],
               result: Optional[Tuple[int, Optional[str]]], abandoned: bool,
               time_loss: Optional[str]) -> None:
    full = all(mark != "." for mark in cells.values())
    if abandoned:
        if won_at is not None or full:
            report.add(lines.number - 1, "the game was already over, yet it is abandoned")
        _expect_end_of_file(lines, report)
        return
    line, winner = cast(Tuple[int, Optional[str]], result)   # not abandoned: a result line
    if time_loss is not None:
        expected = "O" if time_loss == "X" else "X"
        why = f"{time_loss} went over t"
    elif won_at is not None:
        expected, why = won_at[1], f"{won_at[1]} has {s} in a row"
    elif full:
        expected, why = None, "the board is full with no line"
    else:
        report.add(line, f"the game ends after move #{len(moves)}, but nobody has {s} in "
                         f"a row and the board is not full")
        expected, why = winner, None
    if why is not None and winner != expected:
        said = f"The winner is {winner}!" if winner else "a tie"
        report.add(line, f"the result line says {said!r}, but {why}")
    lines.blank()
    stats = read_statistics(lines, "6(b)", averaged=True)
    match = lines.expect(r"6\(b\)vi  Total moves: (\d+)", "'6(b)vi  Total moves: N'")
    total_line = lines.number - 1
    lines.blank()
    _expect_end_of_file(lines, report)
    _check_aggregate(report, stats, [move.stats for move in moves if move.stats], t,
                     players)
    if int(match.group(1)) != len(moves):
        report.add(total_line, f"total moves {match.group(1)}, but the trace shows "
                               f"{len(moves)} moves")


def _check_aggregate(report: Report, stats: Stats, per_move: List[Stats], t: float,
                     players: List[Player]) -> None:
    """The end-of-game block against the AI moves it summarises."""
    count = len(per_move)
    by_depth: Dict[int, int] = {}
    for move in per_move:
        for depth, value in move["by_depth"][1].items():
            by_depth[depth] = by_depth.get(depth, 0) + value
    line, value = stats["time"]
    mean = sum(move["time"][1] for move in per_move) / count if count else 0.0
    if not close(value, mean, 0.01):
        report.add(line, f"average evaluation time {value}s is not the mean of the moves' "
                         f"times ({mean:.3f}s)")
    line, value = stats["evaluations"]
    total = sum(move["evaluations"][1] for move in per_move)
    if value != total:
        report.add(line, f"total heuristic evaluations {value}, but the moves' evaluations "
                         f"sum to {total}")
    line, value = stats["by_depth"]
    if value != by_depth:
        wrong = sorted(set(value) | set(by_depth),
                       key=lambda d: value.get(d, 0) == by_depth.get(d, 0))[0]
        report.add(line, f"evaluations by depth: depth {wrong} totals "
                         f"{by_depth.get(wrong, 0)} over the moves, not {value.get(wrong, 0)}")
    line, value = stats["average_depth"]
    if by_depth and not close(value, weighted_mean(by_depth), 0.05):
        report.add(line, f"average evaluation depth {value} is not the weighted mean over "
                         f"the game ({weighted_mean(by_depth):.3f})")
    line, value = stats["ard"]
    mean = sum(move["ard"][1] for move in per_move) / count if count else 0.0
    if not close(value, mean, 0.1):
        report.add(line, f"average recursion depth {value} is not the mean of the moves' "
                         f"({mean:.3f})")


def _expect_end_of_file(lines: Lines, report: Report) -> None:
    if not lines.at_end():
        report.add(lines.number, f"unexpected text after the end of the game: "
                                 f"{_quote(cast(str, lines.peek()))}")


# --- scoreboards ---------------------------------------------------------------------------------
class SeriesBlock:
    """One series of a scoreboard as read: parameters, wins and statistics i..vi."""

    def __init__(self, line: int, n: int, b: int, s: int, t: float, depths: List[int],
                 prunes: List[bool], games: int, wins: Dict[str, int], names: Dict[str, str],
                 stats: Dict[str, Any],
                 average_moves: float) -> None:
        self.line = line
        self.n, self.b, self.s, self.t = n, b, s, t
        self.depths, self.prunes = depths, prunes       # (d1, d2), (a1, a2)
        self.games = games
        self.wins, self.names = wins, names             # {'e1': count}, {'e1': name}
        self.stats = stats                              # time, evaluations, by_depth, ...
        self.average_moves = average_moves


def read_scoreboard(text: str, path: str = "scoreboard.txt") -> List[SeriesBlock]:
    """The series blocks of a scoreboard; UsageError naming the first problem if any."""
    lines = Lines(text)
    blocks = []
    try:
        if lines.at_end():
            raise LayoutError(1, "the scoreboard is empty")
        while not lines.at_end():
            blocks.append(_read_series(lines, Report(path)))   # content: the checker's job
    except LayoutError as error:
        raise UsageError(f"{path}:{error.number}: {error.message}") from None
    return blocks


def check_scoreboard(path: str, text: str) -> Report:
    """Check a scoreboard (one or more appended series blocks); return a :class:`Report`.

    Per block: the header values in range; an even, positive number of games (a series
    is 2 x R games); wins of e1 and e2 at most the games together; each percentage is
    100 x wins / games (1 decimal); ii is the sum of iii and iv their weighted mean; the
    average time is at most t; no depth beyond the larger d, v at most that d; vi is a
    whole number of moves divided by the games (2 decimals) and at most the free cells.
    """
    report = Report(path)
    lines = Lines(text)
    try:
        if lines.at_end():
            raise LayoutError(1, "the scoreboard is empty")
        while not lines.at_end():
            _read_series(lines, report)
    except LayoutError as error:
        report.add(error.number, error.message)
    return report


def _read_series(lines: Lines, report: Report) -> SeriesBlock:
    first = lines.number
    match = lines.expect(r"n=(\d+) b=(\d+) s=(\d+) t=(" + NUMBER + ")", "'n=N b=B s=S t=T'")
    n, b, s, t = (int(match.group(1)), int(match.group(2)), int(match.group(3)),
                  float(match.group(4)))
    if not 3 <= n <= 10 or not 3 <= s <= n or b > 2 * n:
        report.add(first, f"n={n} b={b} s={s}: needs 3 <= n <= 10, 3 <= s <= n, b <= 2n")
    lines.blank()
    depths, prunes = [], []
    for index in (1, 2):
        match = lines.expect(f"Player {index}: d=(\\d+) a=(True|False)",
                             f"'Player {index}: d=D a=True|False'")
        depths.append(int(match.group(1)))
        prunes.append(match.group(2) == "True")
    lines.blank()
    games_line = lines.number
    games = int(lines.expect(r"(\d+) games", "'N games'").group(1))
    if games == 0 or games % 2:
        report.add(games_line, f"{games} games: a series is 2 x R games (R >= 1)")
    lines.blank()
    wins, names, counts = 0, {}, {}
    for heuristic in ("e1", "e2"):
        number = lines.number
        match = lines.expect(f"Total wins for heuristic {heuristic}: (\\d+) "
                             f"\\((\\d+\\.\\d)%\\) \\(([^()]*)\\)",
                             f"'Total wins for heuristic {heuristic}: W (P%) (name)'")
        count, percent = int(match.group(1)), float(match.group(2))
        wins += count
        counts[heuristic] = count
        names[heuristic] = match.group(3)
        if games and not close(percent, 100.0 * count / games, 0.05):
            report.add(number, f"{heuristic}: {count} wins of {games} games is "
                               f"{100.0 * count / games:.1f}%, not {percent}%")
    if wins > games:
        report.add(number, f"{wins} wins in all, more than the {games} games")
    lines.blank()
    stats = read_statistics(lines, "", averaged=True)
    check_statistics(report, stats, max(depths), t, "series")
    number = lines.number
    average = float(lines.expect(r"vi  Average moves per game: (\d+\.\d{1,2})",
                                 "'vi  Average moves per game: M'").group(1))
    if games:
        total = round(average * games)
        if not close(average, total / games, 0.005):
            report.add(number, f"{average} moves per game is no whole number of moves "
                               f"over {games} games")
        free = n * n - b
        if average > free + EPSILON:
            report.add(number, f"{average} moves per game, but the board has only {free} "
                               f"free cells")
    lines.blank()
    return SeriesBlock(first, n, b, s, t, depths, prunes, games, counts, names,
                       {name: value for name, (_, value) in stats.items()}, average)


# --- command --------------------------------------------------------------------------------------
def is_scoreboard(text: str) -> bool:
    """A scoreboard's second line is blank; a trace's second line lists the blocs."""
    lines = text.split("\n")
    return len(lines) < 2 or not lines[1].startswith("blocs=")


def check_file(path: str) -> Report:
    """The report of one file (trace or scoreboard, told apart by content)."""
    text = read_text_file(path)
    if is_scoreboard(text):
        return check_scoreboard(path, text)
    return check_trace(path, text)


def run_check(argv: List[str], stdout: TextIO) -> int:
    """``lineemup check FILE...``: print OK or the problems; exit code 0 or 1."""
    if not argv:
        raise UsageError("check: give one or more gameTrace-*.txt or scoreboard.txt files")
    problems = []
    for path in argv:
        problems += check_file(path).lines()
    for line in problems:
        stdout.write(line + "\n")
    if not problems:
        stdout.write("OK\n")
    return 1 if problems else 0
