"""lineemup: Line 'em Up games, traces and scoreboards (docs/lineemup.md).

    python3 -m engine lineemup [options]            play one game
    python3 -m engine lineemup --series R [options] 2xR AI-vs-AI games -> scoreboard.txt
    python3 -m engine lineemup move --board ROWS --side X|O -s S [--depth D] [-t T]
                                    [--heuristic e1|e2] [--minimax]
    python3 -m engine lineemup check FILE...         check game traces / scoreboards
    python3 -m engine lineemup report scoreboard.txt [--svg FILE] [--html FILE]
                                                    charts of a scoreboard's series

Game options:
  -n N               board size, 3..10 (default 5)
  -b B               number of blocs, 0..2n (default 0, or the number of --blocs)
  --blocs CELLS      bloc cells, e.g. A0,D0,A3,D3 (column letter, row)
  --random-blocs     place the b blocs at random (also the default when b > 0 and no
                     --blocs is given); --seed S makes it reproducible
  -s S               stones in a row to win, 3..n (default min(n, 4))
  --d1 D, --d2 D     maximum search depth of player 1 (X) and player 2 (O) (default 4)
  -t T               seconds allowed per AI move (default 5); an AI over t loses
  --a1 B, --a2 B     true: alpha-beta, false: minimax, per player (default true)
  --e1 H, --e2 H     heuristic of player 1 and player 2: e1 (simple) or e2 (threats)
                     (default: player 1 e1, player 2 e2)
  --mode M           H-H, H-AI, AI-H or AI-AI (default H-AI: you play X)
  --series R         play 2xR AI-vs-AI games (player 1 has heuristic e1 in the first R,
                     e2 in the last R; player 2 the other one) and append the results
                     to scoreboard.txt; a progress line per game goes to stderr
  --random-openings K  in a series, the first K moves of each game are random legal
                     moves (seeded by --seed; games i and R+i share an opening), so
                     that the games differ; default 0 (deterministic AIs then replay
                     the same game)
  --dir DIR          folder for gameTrace-<n><b><s><t>.txt and scoreboard.txt (default .)
  --quiet            do not echo the game on stdout
  --clock-tick SEC   deterministic mode for tests: a simulated clock that advances SEC
                     seconds at every reading replaces the real one (times and the
                     deadline then depend on the work done, not on the machine)

A human move is a column letter and a row, e.g. "B 3" or "B3". An illegal move is refused
with a warning and asked again. End of input ends the game (trace written, exit 0).
Every single game writes gameTrace-<n><b><s><t>.txt in the course's format.
"""

import argparse
import os
import random
import re
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, NoReturn, Optional, Sequence, Tuple

from ...errors import UsageError
from ...games.line_em_up import HEURISTIC_NAMES, LineEmUp, State, cell_name
from . import agent as lineemup_agent, check as lineemup_check, report as lineemup_report
from ...commandline import run_program, write_atomically
from .ai import AIPlayer, MoveReport, SimulatedClock
from .boards import position

COLUMNS = "ABCDEFGHIJ"
MOVE_PATTERN = re.compile(r"^\s*([A-Za-z])\s*,?\s*(\d+)\s*$")


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as UsageError (one stderr line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "t", "yes", "1"):
        return True
    if lowered in ("false", "f", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text!r}")
    return value


def _nonnegative(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, not {text!r}")
    return int(text)


def _positive(text: str) -> int:
    value = _nonnegative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return value


def _heuristic(text: str) -> str:
    if text not in ("e1", "e2"):
        raise argparse.ArgumentTypeError(f"expected e1 or e2, not {text!r}")
    return text


def format_number(value: float) -> str:
    """``8`` for 8.0, ``0.5`` for 0.5: how t appears in headers and file names."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_seconds(value: float) -> str:
    """Seconds rounded to 2 decimals, printed like the course sample (0.4s, 8.0s, 7.51s)."""
    return f"{round(value, 2)}s"


def parse_cell(text: str, n: int) -> Tuple[int, int]:
    """``(column, row)`` from ``'B3'``/``'B 3'``, or UsageError saying what is wrong."""
    match = MOVE_PATTERN.match(text)
    if not match:
        raise UsageError(f"{text.strip()!r} is not a cell: give a column letter then a row, "
                         f"e.g. B 3")
    column = COLUMNS.find(match.group(1).upper())
    row = int(match.group(2))
    if not 0 <= column < n:
        raise UsageError(f"column {match.group(1).upper()} is not on the {n}x{n} board "
                         f"(columns A..{COLUMNS[n - 1]})")
    if not 0 <= row < n:
        raise UsageError(f"row {row} is not on the {n}x{n} board (rows 0..{n - 1})")
    return column, row


# --- settings ----------------------------------------------------------------------------
def game_parser() -> _Parser:
    parser = _Parser(prog="python3 -m engine lineemup", add_help=False)
    parser.add_argument("-n", type=_positive, default=5)
    parser.add_argument("-b", type=_nonnegative, default=None)
    parser.add_argument("--blocs", default=None)
    parser.add_argument("--random-blocs", action="store_true")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("-s", type=_positive, default=None)
    parser.add_argument("--d1", type=_positive, default=4)
    parser.add_argument("--d2", type=_positive, default=4)
    parser.add_argument("-t", type=_seconds, default=5.0)
    parser.add_argument("--a1", type=_boolean, default=True)
    parser.add_argument("--a2", type=_boolean, default=True)
    parser.add_argument("--e1", type=_heuristic, default="e1")
    parser.add_argument("--e2", type=_heuristic, default="e2")
    parser.add_argument("--mode", choices=("H-H", "H-AI", "AI-H", "AI-AI"), default=None)
    parser.add_argument("--series", type=_positive, default=None)
    parser.add_argument("--random-openings", type=_nonnegative, default=0)
    parser.add_argument("--dir", default=".")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--clock-tick", type=_seconds, default=None)
    return parser


def resolve_blocs(options: argparse.Namespace) -> List[Tuple[int, int]]:
    """The bloc cells [(column, row)] the options ask for (validated)."""
    n = options.n
    if options.blocs is not None:
        if options.random_blocs:
            raise UsageError("give either --blocs or --random-blocs, not both")
        blocs = []
        for text in filter(None, (part.strip() for part in options.blocs.split(","))):
            try:
                cell = parse_cell(text, n)
            except UsageError as error:
                raise UsageError(f"--blocs: {error}") from None
            if cell in blocs:
                raise UsageError(f"--blocs: {text} is given twice")
            blocs.append(cell)
        if options.b is not None and options.b != len(blocs):
            raise UsageError(f"-b {options.b} but --blocs lists {len(blocs)} cells")
    else:
        count = options.b or 0
        if count > 2 * n:
            raise UsageError(f"-b must be 0..{2 * n} on a {n}x{n} board, not {count}")
        cells = [(column, row) for row in range(n) for column in range(n)]
        blocs = random.Random(options.seed).sample(cells, count)
    if len(blocs) > 2 * n:
        raise UsageError(f"at most {2 * n} blocs on a {n}x{n} board, not {len(blocs)}")
    return blocs


def validate(options: argparse.Namespace) -> argparse.Namespace:
    if not 3 <= options.n <= 10:
        raise UsageError(f"-n must be 3..10, not {options.n}")
    if options.s is None:
        options.s = min(options.n, 4)
    if not 3 <= options.s <= options.n:
        raise UsageError(f"-s must be 3..n (3..{options.n}), not {options.s}")
    options.bloc_cells = resolve_blocs(options)
    if not os.path.isdir(options.dir):
        raise UsageError(f"--dir {options.dir}: no such folder")
    if options.series is not None and options.mode not in (None, "AI-AI"):
        raise UsageError("--series plays AI-vs-AI games: leave --mode out or use AI-AI")
    if options.mode is None:
        options.mode = "AI-AI" if options.series is not None else "H-AI"
    return options


# --- one game ------------------------------------------------------------------------------
class GameLog:
    """The trace text of one game, echoed to ``echo`` (a writer) as it grows."""

    def __init__(self, echo: Optional[Callable[[str], Any]] = None) -> None:
        self.parts: List[str] = []
        self.echo = echo

    def add(self, text: str) -> None:
        self.parts.append(text)
        if self.echo is not None:
            self.echo(text)

    def text(self) -> str:
        return "".join(self.parts)


def render_board(state: State, n: int, bloc_cells: Iterable[Tuple[int, int]],
                 move_number: Optional[int] = None) -> str:
    """The board as in the course sample: header, rule, one row per line."""
    header = "  " + COLUMNS[:n] + ("" if move_number is None else f"  (move #{move_number})")
    lines = [header, " +" + "-" * n]
    blocs = {row * n + column for column, row in bloc_cells}
    x, o = state[0], state[1]
    for row in range(n):
        marks = []
        for column in range(n):
            cell = row * n + column
            marks.append("X" if x >> cell & 1 else "O" if o >> cell & 1 else
                         "*" if cell in blocs else ".")
        lines.append(f"{row}|" + "".join(marks))
    return "\n".join(lines) + "\n"


def statistics_lines(seconds: float, evaluations: int, by_depth: Dict[int, int],
                     average_depth: float, ard: float, prefix: str) -> List[str]:
    """Items i..v, labelled ``prefix + 'i'`` ... as in the course sample."""
    labels = ("i", "ii", "iii", "iv", "v")
    values = (f"Evaluation time: {format_seconds(seconds)}",
              f"Heuristic evaluations: {evaluations}",
              f"Evaluations by depth: {format_depths(by_depth)}",
              f"Average evaluation depth: {round(average_depth, 1)}",
              f"Average recursion depth: {round(ard, 1)}")
    return [f"{prefix + label:<{len(prefix) + 4}}{value}" for label, value in zip(labels, values)]


def format_depths(by_depth: Dict[int, int]) -> str:
    return "{" + ", ".join(f"{depth}: {count}" for depth, count in by_depth.items()) + "}"


class Totals:
    """Sums of the AI moves' statistics over one game or a series (items 6(b)i..vi)."""

    def __init__(self) -> None:
        self.moves = 0            # every move played
        self.ai_moves = 0
        self.seconds = 0.0
        self.evaluations = 0
        self.by_depth: Dict[int, int] = {}
        self.ard_sum = 0.0
        self.nodes = 0
        self.longest = 0.0       # the longest AI move, seconds

    def add_ai_move(self, report: MoveReport) -> None:
        self.ai_moves += 1
        self.longest = max(self.longest, report.seconds)
        self.seconds += report.seconds
        self.evaluations += report.evaluations
        for depth, count in report.evaluations_by_depth.items():
            self.by_depth[depth] = self.by_depth.get(depth, 0) + count
        self.ard_sum += report.recursion_depth
        self.nodes += report.nodes

    def merge(self, other: "Totals") -> None:
        self.moves += other.moves
        self.ai_moves += other.ai_moves
        self.seconds += other.seconds
        self.evaluations += other.evaluations
        for depth, count in other.by_depth.items():
            self.by_depth[depth] = self.by_depth.get(depth, 0) + count
        self.ard_sum += other.ard_sum
        self.nodes += other.nodes
        self.longest = max(self.longest, other.longest)

    def summary(self) -> Tuple[float, int, Dict[int, int], float, float]:
        """(mean seconds, evaluations, by_depth, average depth, mean ARD) of the AI moves."""
        count = self.ai_moves or 1
        average_depth = (sum(d * c for d, c in self.by_depth.items()) / self.evaluations
                         if self.evaluations else 0.0)
        return (self.seconds / count, self.evaluations, self.by_depth, average_depth,
                self.ard_sum / count)


class Outcome:
    """How a game ended: ``winner`` 'X', 'O' or None (draw / abandoned).

    ``reason``: 'line' (s in a row), 'time' (the loser's AI went over t), 'draw' or
    'abandoned' (end of input).
    """

    def __init__(self, winner: Optional[str], reason: str, totals: Totals) -> None:
        self.winner = winner
        self.reason = reason
        self.abandoned = reason == "abandoned"
        self.totals = totals


def player_label(kind: str, depth: int, alphabeta: bool, heuristic: str) -> str:
    if kind == "H":
        return "Human"
    return f"AI d={depth} a={alphabeta} {heuristic}({HEURISTIC_NAMES[heuristic]})"


def play_game(settings: argparse.Namespace, kinds: Sequence[str], heuristics: Sequence[str],
              log: GameLog, read_move: Optional[Callable[[str], Optional[str]]] = None,
              warn: Optional[Callable[[str], Any]] = None,
              clock: Optional[Callable[[], float]] = None,
              opening: Sequence[int] = ()) -> Outcome:
    """Play one game; return an :class:`Outcome`. ``kinds`` = ('AI'|'H', 'AI'|'H').

    ``read_move(side)`` returns a line typed by the human, or None at end of input;
    ``warn(text)`` shows a refused move. ``clock`` (default: real) is read by the AIs.
    ``opening``: cells played first, whoever is in control (series variety).
    """
    n, blocs, t = settings.n, settings.bloc_cells, settings.t
    games = [LineEmUp(n, settings.s, blocs, heuristic) for heuristic in heuristics]
    ais = _ai_players(settings, kinds, games, clock or time.perf_counter)
    _log_header(log, settings, kinds, heuristics, games[0])
    totals = Totals()
    x = o = 0
    x_to_move = True
    cell: Optional[int]
    while True:
        player = 0 if x_to_move else 1
        side = "X" if x_to_move else "O"
        game = games[player]
        state = game.state_from(x, o, x_to_move)
        ai = ais[player]
        if totals.moves < len(opening):
            cell = opening[totals.moves]
            log.add(f"Player {side} plays the random opening move: {cell_name(cell, n)}\n")
        elif ai is not None:
            cell = _ai_move(log, ai, state, side, n, t, totals)
            if cell is None:
                return _finish(log, "O" if side == "X" else "X", totals, "time")
        else:
            # A human player comes with read_move and warn (the caller's contract).
            cell = _human_turn(log, game, state, side, totals, read_move, warn)  # type: ignore[arg-type]
            if cell is None:
                return Outcome(None, "abandoned", totals)
        totals.moves += 1
        after = game.result(state, cell)
        x, o = after[0], after[1]
        x_to_move = not x_to_move
        log.add("\n\n" + render_board(after, n, blocs, totals.moves) + "\n")
        if after[3] is not None:
            winner = None if after[3] == 0 else ("X" if after[3] > 0 else "O")
            return _finish(log, winner, totals, "line" if winner else "draw")


def _ai_players(settings: argparse.Namespace, kinds: Sequence[str], games: List[LineEmUp],
                clock: Callable[[], float]) -> List[Optional[AIPlayer]]:
    """Player 1's and player 2's AI (None for a human), with their depth, t and pruning."""
    depths = (settings.d1, settings.d2)
    prunes = (settings.a1, settings.a2)
    return [AIPlayer(games[i], depths[i], settings.t, prunes[i], clock=clock)
            if kinds[i] == "AI" else None for i in range(2)]


def _log_header(log: GameLog, settings: argparse.Namespace, kinds: Sequence[str],
                heuristics: Sequence[str], game: LineEmUp) -> None:
    """The trace's parameters, blocs, players and initial board (course layout)."""
    n, blocs = settings.n, settings.bloc_cells
    depths = (settings.d1, settings.d2)
    prunes = (settings.a1, settings.a2)
    log.add(f"n={n} b={len(blocs)} s={settings.s} t={format_number(settings.t)}\n")
    log.add("blocs=[" + ", ".join(f"({c},{r})" for c, r in blocs) + "]\n\n")
    for i in range(2):
        log.add(f"Player {i + 1}: "
                f"{player_label(kinds[i], depths[i], prunes[i], heuristics[i])}\n")
    log.add("\n" + render_board(game.initial_state(), n, blocs) + "\n")


def _ai_move(log: GameLog, ai: AIPlayer, state: State, side: str, n: int, t: float,
             totals: Totals) -> Optional[int]:
    """Let the AI choose and log its move and statistics; return its cell, or None when
    it took more than t (the time-loss line is logged and the move counted)."""
    report = ai.choose(state)
    cell = report.action
    if report.depth == 0:
        log.add(f"*** Out of extra time at depth 1 ***\n"
                f"Selected first ordered move for {side}: {cell_name(cell, n)}\n")
    log.add(f"Player {side} under AI control plays: {cell_name(cell, n)}\n\n")
    log.add("\n".join(statistics_lines(report.seconds, report.evaluations,
                                       report.evaluations_by_depth, report.average_depth,
                                       report.recursion_depth, "")) + "\n")
    totals.add_ai_move(report)
    if report.seconds > t:
        totals.moves += 1
        log.add(f"\n*** Player {side} took {format_seconds(report.seconds)}, more "
                f"than t={format_number(t)}s: {side} loses ***\n\n")
        return None
    return cell


def _human_turn(log: GameLog, game: LineEmUp, state: State, side: str, totals: Totals,
                read_move: Callable[[str], Optional[str]],
                warn: Callable[[str], Any]) -> Optional[int]:
    """The human's legal cell, logged; None at end of input (the abandon line logged)."""
    n = game.n
    cell = _human_move(game, state, side, n, read_move, warn)
    if cell is None:
        log.add(f"\nEnd of input: the game is abandoned after {totals.moves} moves.\n")
        return None
    log.add(f"Player {side} under Human control plays: {cell_name(cell, n)}\n")
    return cell


def _finish(log: GameLog, winner: Optional[str], totals: Totals, reason: str) -> Outcome:
    log.add(f"The winner is {winner}!\n\n" if winner else "It's a tie!\n\n")
    mean_seconds, evaluations, by_depth, average_depth, ard = totals.summary()
    lines = statistics_lines(mean_seconds, evaluations, by_depth, average_depth, ard, "6(b)")
    lines[0] = lines[0].replace("Evaluation time", "Average evaluation time")
    lines[1] = lines[1].replace("Heuristic evaluations", "Total heuristic evaluations")
    lines.append(f"{'6(b)vi':<8}Total moves: {totals.moves}")
    log.add("\n".join(lines) + "\n\n")
    return Outcome(winner, reason, totals)


def _human_move(game: LineEmUp, state: State, side: str, n: int,
                read_move: Callable[[str], Optional[str]],
                warn: Callable[[str], Any]) -> Optional[int]:
    """A legal cell typed by the human, asked again after each illegal one; None at EOF."""
    occupied = state[0] | state[1] | game.bloc_mask
    while True:
        line = read_move(side)
        if line is None:
            return None
        if not line.strip():
            continue
        try:
            column, row = parse_cell(line, n)
        except UsageError as error:
            warn(f"Illegal move: {error}. Try again.")
            continue
        cell = row * n + column
        if game.bloc_mask >> cell & 1:
            warn(f"Illegal move: {cell_name(cell, n)} is a bloc. Try again.")
        elif occupied >> cell & 1:
            warn(f"Illegal move: {cell_name(cell, n)} is already taken. Try again.")
        else:
            return cell


def trace_name(settings: argparse.Namespace) -> str:
    return (f"gameTrace-{settings.n}{len(settings.bloc_cells)}{settings.s}"
            f"{format_number(settings.t)}.txt")


def run_single(settings: argparse.Namespace) -> int:
    kinds = tuple("H" if part == "H" else "AI" for part in settings.mode.split("-"))
    echo = None if settings.quiet else _write_stdout
    log = GameLog(echo)
    clock = SimulatedClock(settings.clock_tick) if settings.clock_tick else None

    def read_move(side: str) -> Optional[str]:
        sys.stdout.write(f"Player {side}, your move (column letter then row, e.g. B 3; "
                         "Ctrl-D or Ctrl-C quits): ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            return None
        if not sys.stdin.isatty():
            sys.stdout.write(line if line.endswith("\n") else line + "\n")
        return line

    def warn(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    # An abandoned game (end of input) is told once, by the trace line that stdout echoes
    # and the trace file keeps; it is not an error (exit 0), so nothing goes to stderr.
    # Ctrl-C abandons it too, and keeps the trace so far (exit 130, as Ctrl-C does).
    trace = os.path.join(settings.dir, trace_name(settings))
    try:
        play_game(settings, kinds, (settings.e1, settings.e2), log, read_move, warn, clock)
    except KeyboardInterrupt:
        log.add("\nInterrupted (Ctrl-C): the game is abandoned.\n")
        write_atomically(trace, log.text())
        return 130
    write_atomically(trace, log.text())
    return 0


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def run_series(settings: argparse.Namespace) -> int:
    """2 x R AI-vs-AI games, heuristics swapped halfway; appends one scoreboard block."""
    rounds = settings.series
    wins = {"e1": 0, "e2": 0}
    totals = Totals()
    total_games = 2 * rounds
    for number in range(total_games):
        heuristics = ("e1", "e2") if number < rounds else ("e2", "e1")
        clock = SimulatedClock(settings.clock_tick) if settings.clock_tick else None
        started = time.perf_counter()
        opening = random_opening(settings, number % rounds)
        outcome = play_game(settings, ("AI", "AI"), heuristics, GameLog(), clock=clock,
                            opening=opening)
        totals.merge(outcome.totals)
        if outcome.winner is not None:
            wins[heuristics[0] if outcome.winner == "X" else heuristics[1]] += 1
        result = f"{outcome.winner} ({heuristics[0 if outcome.winner == 'X' else 1]}) wins" \
            if outcome.winner else "tie"
        if outcome.reason == "time":
            result += " (the other AI went over t)"
        print(f"lineemup: game {number + 1}/{total_games}: X={heuristics[0]} "
              f"O={heuristics[1]}: {result} in {outcome.totals.moves} moves "
              f"({time.perf_counter() - started:.1f}s, longest move "
              f"{outcome.totals.longest:.3f}s)", file=sys.stderr, flush=True)
    mean_seconds, evaluations, by_depth, average_depth, ard = totals.summary()
    lines = [f"n={settings.n} b={len(settings.bloc_cells)} s={settings.s} "
             f"t={format_number(settings.t)}", "",
             f"Player 1: d={settings.d1} a={settings.a1}",
             f"Player 2: d={settings.d2} a={settings.a2}", "",
             f"{total_games} games", ""]
    for heuristic in ("e1", "e2"):
        lines.append(f"Total wins for heuristic {heuristic}: {wins[heuristic]} "
                     f"({round(100.0 * wins[heuristic] / total_games, 1)}%) "
                     f"({HEURISTIC_NAMES[heuristic]})")
    lines.append("")
    stats = statistics_lines(mean_seconds, evaluations, by_depth, average_depth, ard, "")
    stats[0] = stats[0].replace("Evaluation time", "Average evaluation time")
    stats[1] = stats[1].replace("Heuristic evaluations", "Total heuristic evaluations")
    lines += stats
    lines.append(f"{'vi':<4}Average moves per game: {round(totals.moves / total_games, 2)}")
    block = "\n".join(lines) + "\n\n"
    path = os.path.join(settings.dir, "scoreboard.txt")
    try:
        with open(path, "rb") as handle:
            previous = handle.read()
    except FileNotFoundError:
        previous = b""
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    write_atomically(path, previous + block.encode("utf-8"))
    if not settings.quiet:
        sys.stdout.write(block)
    return 0


def random_opening(settings: argparse.Namespace, index: int) -> List[int]:
    """``settings.random_openings`` random legal cells for the series' game pair ``index``.

    Stops early if a move would end the game (an opening never decides a game).
    """
    if not settings.random_openings:
        return []
    rng = random.Random(f"{settings.seed}/{index}")
    game = LineEmUp(settings.n, settings.s, settings.bloc_cells, "e1")
    state = game.initial_state()
    cells = []
    for _ in range(settings.random_openings):
        cell = rng.choice(game.actions(state))
        after = game.result(state, cell)
        if after[3] is not None:
            break
        cells.append(cell)
        state = after
    return cells


# --- position analysis ---------------------------------------------------------------------
def choose_move(board: Sequence[str], blocs: Iterable[Sequence[int]], n: int, s: int, side: str,
                depth: int, t: float, heuristic: str,
                clock: Optional[Callable[[], float]] = None) -> Tuple[int, int]:
    """The AI's move ``(column, row)`` for one position (spec "Position analysis").

    ``board``: n row strings of '.', '*', 'X', 'O' from row 0; ``blocs``: extra bloc
    cells (column, row); ``side``: 'X' or 'O' to move; ``depth``: maximum depth; ``t``:
    seconds, never exceeded (the AI keeps its own safety margin); alpha-beta on.
    Raises UsageError for a malformed board or a finished game.
    """
    game, state = position(board, blocs, n, s, side, heuristic)
    ai = AIPlayer(game, depth, t, True, clock=clock or time.perf_counter)
    cell = ai.choose(state).action
    return cell % n, cell // n


def run_move(argv: List[str]) -> int:
    parser = _Parser(prog="python3 -m engine lineemup move", add_help=False)
    parser.add_argument("--board", required=True)
    parser.add_argument("--side", required=True, choices=("X", "O"))
    parser.add_argument("-s", type=_positive, required=True)
    parser.add_argument("--depth", type=_positive, default=64)
    parser.add_argument("-t", type=_seconds, default=5.0)
    parser.add_argument("--heuristic", type=_heuristic, default="e2")
    parser.add_argument("--minimax", action="store_true")
    parser.add_argument("--clock-tick", type=_seconds, default=None)
    options = parser.parse_args(argv)
    rows = options.board.split("/")
    game, state = position(rows, (), len(rows), options.s, options.side, options.heuristic)
    clock = SimulatedClock(options.clock_tick) if options.clock_tick else time.perf_counter
    ai = AIPlayer(game, options.depth, options.t, not options.minimax, clock=clock)
    print(cell_name(ai.choose(state).action, len(rows)))
    return 0


def run(argv: List[str]) -> int:
    if argv[:1] == ["move"]:
        return run_move(argv[1:])
    if argv[:1] == ["agent"]:
        return lineemup_agent.run_agent(argv[1:])
    if argv[:1] == ["check"]:
        return lineemup_check.run_check(argv[1:], sys.stdout)
    if argv[:1] == ["report"]:
        return lineemup_report.run_report(argv[1:])
    settings = validate(game_parser().parse_args(argv))
    if settings.series is not None:
        return run_series(settings)
    return run_single(settings)


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["move"], ["check"], ["report"]) and argv[1:2] in (["-h"], ["--help"]):
        argv = ["--help"]
    return run_program("lineemup", run, argv, help_text=__doc__)
