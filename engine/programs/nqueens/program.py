"""nqueens: the N-Queens game of CMPT 317 Assignment 4 (docs/nqueens.md).

    python3 -m engine nqueens table     --variation 1a|1b|2 --search minimax|alphabeta
                                        [--cutoff D] [--sizes 1-10] [--no-time] [--svg FILE]
    python3 -m engine nqueens play      --size N --variation 1a|1b|2 --p1 SPEC --p2 SPEC
                                        [--seed S]
    python3 -m engine nqueens scenarios [--variation 1a|1b|2] [--search minimax|alphabeta|both]
    python3 -m engine nqueens solve     --variation 1a|1b|2 --sizes A-B [--no-time] [--quiet]
                                        [--value-only] [--table-entries E]
    python3 -m engine nqueens a4        [--output A4_output.txt] [--svg FILE]
    python3 -m engine nqueens check     [--question Qn] A4_output.txt

table      the assignment's table (Q1-Q7): Size, Minimax Value, Best Opening Move and Time
           in Seconds (CPU seconds of the search) for every size. Q1 = 1a minimax, Q2 = 1b
           minimax, Q3/Q4 = the same with alphabeta, all over --sizes 1-10; Q5/Q6 = 1a/1b
           minimax --cutoff 4, Q7 = both with alphabeta --cutoff 4, over --sizes 1-20.
           --no-time leaves the time column out (reproducible output). --svg FILE also
           draws the time against N (log scale).
play       a game on an N x N board; SPEC is human, random, minimax[:D] or alphabeta[:D]
           (D = depth cut-off; omitted = full depth). Human moves are a row (1a, 1b: the
           column is the left-most empty one) or "row col" (2), counted from 0 at the top
           left. The board is shown after every move. --seed fixes the random players.
scenarios  Q9: AI against AI on N = 10 and 20 with cut-offs 4/4, 5/5, 5/3 and 3/5; one
           table per search algorithm (default variation 1a, both algorithms).
solve      EXACT values and every optimal opening, with a transposition table and the
           board's symmetries; progress on stderr for long runs (--quiet: none).
           --value-only: the value and the one optimal opening the root search found.
           --table-entries E bounds the transposition table (default 5,000,000 entries,
           about 2 GB); when full, entries near the end of the game are dropped.
a4         writes every table of Q1-Q7 and Q9 to a file (default A4_output.txt); --svg
           FILE draws the times of Q1-Q4 and of the exact solver against N (log scale).
check      checks the tables of an A4 output file (ours or a student's): exact values and
           optimal openings where the search is exact, ranges beyond a cut-off, Q9's
           games; prints the problems (FILE:LINE: ...) and a line per question, exit 1
           on problems. --question Qn checks a file holding one table of question Qn
           (e.g. the output of one table command).

--sizes takes N, A-B or a comma list of those (e.g. 1-10 or 5,8,12-14).
Moves are written ('X', row) / ('O', row) in 1a/1b and ('X', row, col) in 2.
"""

import argparse
import os
import random
import sys
import time
from typing import (Any, Callable, Dict, Hashable, Iterable, Iterator, List, Optional,
                    Sequence, Set, TextIO, Tuple, Union, cast)

from ...errors import UsageError
from ...games.nqueens import VARIATIONS, Action, AnySquare, ColumnByColumn, State, make_game
from ...entries import TableEntry
from ...search import (INF, ExactSearch, TableSearch, TimeLimit, TranspositionTable,
                        search)
from . import chart as nqueens_chart, check as nqueens_check
from ...commandline import argument_parser, run_program, write_atomically

NAME = "nqueens"
COMMANDS = ("table", "play", "scenarios", "solve", "a4", "check")
MAX_SIZE = 64
SCENARIO_SIZES = (10, 20)
SCENARIO_CUTOFFS = ((4, 4), (5, 5), (5, 3), (3, 5))
Player = Tuple[str, Optional[int]]   # (kind, depth or None) of a --p1/--p2 player
NQueens = Union[ColumnByColumn, AnySquare]

TABLE_HEADER = ("Size", "Minimax Value", "Best Opening Move", "Time in Seconds")


# --- argument parsing ---------------------------------------------------------------------

def parse_sizes(text: str) -> List[int]:
    """'N', 'A-B' or a comma list of those -> sorted list of distinct sizes."""
    sizes: Set[int] = set()
    for part in text.split(","):
        bounds = part.split("-")
        if len(bounds) > 2 or not all(b.isascii() and b.isdigit() for b in bounds):
            raise UsageError(f"--sizes must look like 5, 1-10 or 1-4,8; not {text!r}")
        low, high = int(bounds[0]), int(bounds[-1])
        if low < 1 or high > MAX_SIZE or low > high:
            raise UsageError(f"--sizes {text!r}: sizes must go from low to high within "
                             f"1..{MAX_SIZE}")
        sizes.update(range(low, high + 1))
    return sorted(sizes)


def parse_size(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_SIZE:
        raise UsageError(f"--size must be an integer from 1 to {MAX_SIZE}, not {text!r}")
    return int(text)


def parse_depth(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise UsageError(f"cut-off depth must be a positive integer, not {text!r}")
    return int(text)


def parse_entries(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 2:
        raise UsageError(f"--table-entries must be an integer of at least 2, not {text!r}")
    return int(text)


def parse_player(text: str) -> Player:
    """'human', 'random', 'minimax[:D]' or 'alphabeta[:D]' -> (kind, depth or None)."""
    kind, _, depth = text.partition(":")
    if kind in ("human", "random") and not _:
        return kind, None
    if kind in ("minimax", "alphabeta"):
        return kind, parse_depth(depth) if _ else None
    raise UsageError(f"player must be human, random, minimax[:D] or alphabeta[:D], "
                     f"not {text!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argument_parser(prefix_errors=True, prog=NAME, add_help=False)
    commands = parser.add_subparsers(dest="command")

    def command(name: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, add_help=False, prog=f"{NAME} {name}")
        return sub

    table = command("table")
    table.add_argument("--variation", choices=VARIATIONS, default="1a")
    table.add_argument("--search", choices=("minimax", "alphabeta"), default="alphabeta")
    table.add_argument("--cutoff", type=parse_depth, default=None)
    table.add_argument("--sizes", type=parse_sizes, default=None)
    table.add_argument("--no-time", action="store_true")
    table.add_argument("--svg", default=None)

    play = command("play")
    play.add_argument("--size", type=parse_size, required=True)
    play.add_argument("--variation", choices=VARIATIONS, required=True)
    play.add_argument("--p1", type=parse_player, required=True)
    play.add_argument("--p2", type=parse_player, required=True)
    play.add_argument("--seed", type=int, default=None)

    scenarios = command("scenarios")
    scenarios.add_argument("--variation", choices=VARIATIONS, default="1a")
    scenarios.add_argument("--search", choices=("minimax", "alphabeta", "both"),
                           default="both")

    solve = command("solve")
    solve.add_argument("--variation", choices=VARIATIONS, required=True)
    solve.add_argument("--sizes", type=parse_sizes, required=True)
    solve.add_argument("--no-time", action="store_true")
    solve.add_argument("--quiet", action="store_true")
    solve.add_argument("--value-only", action="store_true")
    solve.add_argument("--table-entries", type=parse_entries, default=DEFAULT_TABLE_ENTRIES)

    a4 = command("a4")
    a4.add_argument("--output", default="A4_output.txt")
    a4.add_argument("--no-time", action="store_true")
    a4.add_argument("--svg", default=None)
    return parser


# --- tables (Q1-Q7) -----------------------------------------------------------------------

def format_row(cells: Sequence[Any], widths: Sequence[int]) -> str:
    """Cells left-aligned in columns of ``widths`` (header width + 2), the last unpadded."""
    text = "".join(str(cell).ljust(width) for cell, width in zip(cells[:-1], widths))
    return (text + str(cells[-1])).rstrip()


def column_widths(header: Sequence[str]) -> List[int]:
    return [len(title) + 2 for title in header[:-1]]


def format_seconds(seconds: float) -> str:
    """CPU seconds with 3 significant digits, as in the assignment's sample (3.72e-05)."""
    return f"{seconds:.3g}"


def best_opening(variation: str, size: int, prune: bool,
                 cutoff: Optional[int]) -> Tuple[float, Optional[Action], float]:
    """(value, best opening action, CPU seconds) of the empty board of ``size``."""
    game = make_game(variation, size)
    started = time.process_time()
    result = search(game, game.initial_state(), ExactSearch(prune=prune, depth=cutoff))
    return result.value, result.action, time.process_time() - started


def table_lines(variation: str, search_name: str, cutoff: Optional[int], sizes: Iterable[int],
                with_time: bool = True) -> Iterator[str]:
    """Yield the lines of the assignment's table, header first, one row per size."""
    header = TABLE_HEADER if with_time else TABLE_HEADER[:-1]
    widths = column_widths(header)
    yield format_row(header, widths)
    for size in sizes:
        value, action, seconds = best_opening(variation, size, search_name == "alphabeta",
                                              cutoff)
        cells = [size, value, action] + ([format_seconds(seconds)] if with_time else [])
        yield format_row(cells, widths)


def run_table(options: argparse.Namespace) -> None:
    sizes = options.sizes or list(range(1, 21 if options.cutoff else 11))
    if options.svg and options.no_time:
        raise UsageError("table: --svg draws the times: leave --no-time out")
    lines = []
    for line in table_lines(options.variation, options.search, options.cutoff, sizes,
                            not options.no_time):
        print(line, flush=True)
        lines.append(line)
    if options.svg:
        depth = f", cut-off {options.cutoff}" if options.cutoff else ""
        nqueens_chart.write_time_chart(options.svg, [(
            f"{options.variation} {options.search}{depth}",
            nqueens_chart.times_from_lines(lines))])


# --- playing (Q9 and the play command) ------------------------------------------------------

class GameRecord:
    """The board as people see it: {(row, col): mark}, updated move by move."""

    def __init__(self, game: NQueens) -> None:
        self.game = game
        self.marks: Dict[Tuple[int, int], str] = {}

    def record(self, state: State, action: Action) -> None:
        mark, row = action[0], action[1]
        col = action[2] if len(action) == 3 else self.game.queens_placed(state)
        self.marks[(row, col)] = mark

    def attacker(self, row: int, col: int) -> Optional[Tuple[int, int, str]]:
        """A queen (row, col, mark) attacking the square, or None."""
        for (r, c), mark in sorted(self.marks.items()):
            if r == row or c == col or r - c == row - col or r + c == row + col:
                return r, c, mark
        return None

    def render(self) -> str:
        """The board, row 0 at the top, with row and column numbers."""
        size = self.game.size
        width = len(str(size - 1))
        lines = [" " * (width + 1) + " ".join(str(c).rjust(width) for c in range(size))]
        for row in range(size):
            cells = (self.marks.get((row, col), ".").rjust(width) for col in range(size))
            lines.append(str(row).rjust(width) + " " + " ".join(cells))
        return "\n".join(lines)


def ai_move(game: NQueens, state: State, prune: bool, depth: Optional[int]) -> Action:
    """The move the assignment's minimax / alpha-beta player makes (first best, top first)."""
    return search(game, state, ExactSearch(prune=prune, depth=depth)).action


def play_quietly(game: NQueens, first: Tuple[bool, Optional[int]],
                 second: Tuple[bool, Optional[int]]) -> Tuple[int, List[Action]]:
    """Play AI against AI; ``first``/``second`` are (prune, depth). Returns (utility, moves)."""
    state = game.initial_state()
    players = (first, second)
    moves = []
    while not game.is_terminal(state):
        prune, depth = players[game.queens_placed(state) % 2]
        action = ai_move(game, state, prune, depth)
        moves.append(action)
        state = game.result(state, action)
    return game.utility(state), moves


def describe_player(spec: Player) -> str:
    kind, depth = spec
    if kind in ("minimax", "alphabeta"):
        return f"{kind}:{depth}" if depth else f"{kind} (full depth)"
    return kind


def read_human_move(game: NQueens, state: State, record: GameRecord, player: int, stdin: TextIO,
                    stdout: TextIO) -> Optional[Action]:
    """Ask until a legal move is typed; None at end of input."""
    size = game.size
    mark = game.mark_to_move(state)
    two_numbers = game.variation == "2"
    if two_numbers:
        prompt = f"Player {player} ({mark}), your move as 'row col' (0-{size - 1}): "
    else:
        col = game.queens_placed(state)
        prompt = f"Player {player} ({mark}), your row for column {col} (0-{size - 1}): "
    while True:
        stdout.write(prompt)
        stdout.flush()
        line = stdin.readline()
        if not line:
            return None
        words = line.replace(",", " ").split()
        wanted = 2 if two_numbers else 1
        if len(words) != wanted or not all(w.lstrip("-").isdigit() for w in words):
            what = "two numbers, row and column" if two_numbers else "one number, the row"
            stdout.write(f"  refused: type {what}, not {line.strip()!r}\n")
            continue
        numbers = [int(w) for w in words]
        row = numbers[0]
        col = numbers[1] if two_numbers else game.queens_placed(state)
        if not all(0 <= n < size for n in numbers):
            stdout.write(f"  refused: {' '.join(words)} is off the board "
                         f"(0-{size - 1})\n")
            continue
        if (row, col) in record.marks:
            stdout.write(f"  refused: ({row}, {col}) already holds a queen\n")
            continue
        attacker = record.attacker(row, col)
        if attacker is not None:
            stdout.write(f"  refused: ({row}, {col}) is attacked by the queen "
                         f"{attacker[2]} at ({attacker[0]}, {attacker[1]})\n")
            continue
        return (mark, row, col) if two_numbers else (mark, row)


def run_play(options: argparse.Namespace, stdin: Optional[TextIO] = None,
             stdout: Optional[TextIO] = None) -> int:
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    game = make_game(options.variation, options.size)
    chooser = random.Random(options.seed)
    players = (options.p1, options.p2)
    record = GameRecord(game)
    state = game.initial_state()
    stdout.write(f"N-Queens, variation {options.variation}, {options.size} x "
                 f"{options.size}: Player 1 (X) {describe_player(options.p1)} against "
                 f"Player 2 (O) {describe_player(options.p2)}\n")
    stdout.write(record.render() + "\n")
    while not game.is_terminal(state):
        number = game.queens_placed(state) % 2 + 1
        kind, depth = players[number - 1]
        if kind == "human":
            action = read_human_move(game, state, record, number, stdin, stdout)
            if action is None:
                stdout.write("\nEnd of input: game abandoned.\n")
                return 0
        elif kind == "random":
            action = chooser.choice(game.actions(state))
        else:
            action = ai_move(game, state, kind == "alphabeta", depth)
        record.record(state, action)
        state = game.result(state, action)
        stdout.write(f"\nPlayer {number} ({action[0]}) plays {action}\n")
        stdout.write(record.render() + "\n")
        stdout.flush()
    utility = game.utility(state)
    placed = game.queens_placed(state)
    winner = 1 if utility > 0 else 2
    loser_mark = "XO"[2 - winner]
    why = ("the board is full" if placed == game.size and game.variation != "2"
           else f"Player {3 - winner} ({loser_mark}) cannot place a queen")
    stdout.write(f"\nPlayer {winner} ({'XO'[winner - 1]}) wins: {why}. "
                 f"Queens placed: {placed}. Utility: {utility}\n")
    return 0


def scenario_lines(variation: str, prune: bool,
                   progress: Optional[Callable[[str], Any]] = None) -> Iterator[str]:
    """Q9's table: one AI-against-AI game per (N, cut-off P1, cut-off P2)."""
    header = ("N", "Cut-off P1", "Cut-off P2", "Win/Loss P1")
    widths = column_widths(header)
    yield format_row(header, widths)
    for size in SCENARIO_SIZES:
        game = make_game(variation, size)
        for first, second in SCENARIO_CUTOFFS:
            if progress is not None:
                progress(f"scenario N={size} cut-offs {first}/{second}")
            utility, _ = play_quietly(game, (prune, first), (prune, second))
            won = 1 if utility > 0 else 0
            yield format_row((size, first, second, f"{won}W, {1 - won}L"), widths)


def run_scenarios(options: argparse.Namespace) -> None:
    searches = ("minimax", "alphabeta") if options.search == "both" else (options.search,)
    for index, name in enumerate(searches):
        if index:
            print()
        print(f"Variation {options.variation}, {name} against {name}")
        for line in scenario_lines(options.variation, name == "alphabeta"):
            print(line, flush=True)


# --- the exact solver ----------------------------------------------------------------------

class ProgressClock:
    """A clock for engine.search that also reports progress on stderr.

    engine.search reads its clock every ``check_every`` nodes when a deadline is set, so
    with an infinite deadline this object sees the search advance (calls x check_every
    ~ nodes) without any change to the search. Reports after ``first`` seconds, then every
    ``every`` seconds; silent when ``stream`` is None.
    """

    def __init__(self, stream: Optional[TextIO], check_every: int = 256, first: float = 2.0,
                 every: float = 5.0) -> None:
        self.stream = stream
        self.check_every = check_every
        self.first, self.every = first, every
        self.label = ""
        self.calls = 0
        self.started = time.perf_counter()
        self.next_report = self.started + first

    def restart(self, label: str) -> None:
        self.label = label
        self.calls = 0
        self.started = time.perf_counter()
        self.next_report = self.started + self.first

    def __call__(self) -> float:
        now = time.perf_counter()
        self.calls += 1
        if self.stream is not None and now >= self.next_report:
            self.next_report = now + self.every
            self.stream.write(f"nqueens solve: {self.label}: {now - self.started:.0f} s, "
                              f"~{self.calls * self.check_every:,} nodes\n")
            self.stream.flush()
        return now


class BoundedTable(TranspositionTable):
    """A transposition table that holds at most ``capacity`` entries.

    When full, it evicts the lightest entries (smallest ``weight(key)``: positions near
    the end of the game, cheap to search again) until at most half the capacity is
    left. Dropping entries never changes a value (the table is only a cache of bounds
    with their flags); it keeps memory bounded on large boards. ``evictions`` counts
    the entries dropped.
    """

    def __init__(self, capacity: int, weight: Callable[[Any], int]) -> None:
        super().__init__()
        self.capacity = max(2, capacity)
        self.weight = weight
        self.evictions = 0

    def __setitem__(self, key: Hashable, entry: TableEntry) -> None:
        if len(self) >= self.capacity and key not in self:
            self.evict()
        dict.__setitem__(self, key, entry)

    def evict(self) -> None:
        weight = self.weight
        counts: Dict[int, int] = {}
        for key in self:
            w = weight(key)
            counts[w] = counts.get(w, 0) + 1
        target = len(self) - self.capacity // 2
        dropped, threshold = 0, None
        for w in sorted(counts):
            threshold = w
            dropped += counts[w]
            if dropped >= target:
                break
        # ``threshold`` is an int: the table is full (capacity >= 2), so counts has some
        doomed = [key for key in self if weight(key) <= cast(int, threshold)]
        for key in doomed:
            del self[key]
        self.evictions += len(doomed)


DEFAULT_TABLE_ENTRIES = 5000000   # about 2 GB with CPython's tuples


def solve_size(variation: str, size: int, clock: Optional[ProgressClock] = None,
               all_openings: bool = True,
               table_entries: int = DEFAULT_TABLE_ENTRIES) -> Tuple[float, List[Action], int]:
    """Exact value and every optimal opening of the empty board of ``size``.

    The root is searched with alpha-beta, a transposition table keyed by the game's
    canonical key (symmetric states merged) and the game's solver move ordering. Then
    each opening class under the board's symmetries is tested with the window
    (-inf, best): no opening beats the root value, so the opening is optimal exactly when
    the test fails high (a value below ``best`` is exact). The window is open below on
    purpose: engine.search starts Max nodes at the window's low end, and a root whose
    value reaches that end would hand its later children an empty window, whose
    one-child answers the transposition table would keep as bounds. When Player 1 loses with
    utilities +-1, every opening has the value -1 and no test is needed.
    ``all_openings=False`` stops after the root: the one optimal opening it found.
    ``table_entries`` bounds the transposition table (see :class:`BoundedTable`).
    Returns (value, optimal openings in move order, nodes).
    """
    game = make_game(variation, size, symmetry=True)
    table = BoundedTable(table_entries, game.key_weight)
    options = TableSearch(table=table, order=game.solver_order,
                          time_limit=(TimeLimit(INF, clock, clock.check_every)
                                      if clock is not None else None))
    root = game.initial_state()
    started = time.process_time()
    result = search(game, root, options)
    best, nodes = result.value, result.stats.nodes
    if clock is not None and clock.stream is not None:
        clock.stream.write(f"nqueens solve: {clock.label}: value {best} after "
                           f"{time.process_time() - started:.3g} CPU seconds, "
                           f"{nodes:,} nodes\n")
    if not all_openings:
        return best, [result.action], nodes
    openings = game.actions(root)     # the assignment's order, top row first
    if best == -1 and variation != "1b":
        return best, openings, nodes
    optimal = set()
    classes = game.opening_classes()
    for index, (representative, members) in enumerate(classes, 1):
        if clock is not None:
            clock.label = f"{clock.label.split(' (')[0]} (opening {index} of {len(classes)})"
        if representative == result.action:
            optimal.update(members)
            continue
        child = game.result(root, representative)
        test = search(game, child, options.but(window=(-INF, best)))
        nodes += test.stats.nodes
        if test.value >= best:
            optimal.update(members)
    return best, [action for action in openings if action in optimal], nodes


def solve_lines(variation: str, sizes: Iterable[int], with_time: bool = True,
                stream: Optional[TextIO] = None, all_openings: bool = True,
                table_entries: int = DEFAULT_TABLE_ENTRIES) -> Iterator[str]:
    header: Tuple[str, ...] = ("Size", "Value", "Winner", "Time in Seconds",
              "Optimal Openings" if all_openings else "An Optimal Opening")
    if not with_time:
        header = header[:3] + header[4:]
    widths = [6, 7, 10, 17][:len(header) - 1]   # room for "Player 1" under "Winner"
    yield format_row(header, widths)
    clock = ProgressClock(stream)
    for size in sizes:
        clock.restart(f"variation {variation} N={size}")
        started = time.process_time()
        value, openings, nodes = solve_size(variation, size, clock, all_openings,
                                            table_entries)
        seconds = time.process_time() - started
        if stream is not None:
            stream.write(f"nqueens solve: variation {variation} N={size}: value {value}, "
                         f"{nodes:,} nodes, {seconds:.3g} CPU seconds\n")
            stream.flush()
        game = make_game(variation, size)
        total = len(game.actions(game.initial_state()))
        shown = (f"all {total}" if len(openings) == total and total > 1
                 else ", ".join(map(str, openings)))
        winner = "Player 1" if value > 0 else "Player 2"
        cells = [size, value, winner] + ([format_seconds(seconds)] if with_time else [])
        yield format_row(cells + [shown], widths)


def run_solve(options: argparse.Namespace) -> None:
    stream = None if options.quiet else sys.stderr
    for line in solve_lines(options.variation, options.sizes, not options.no_time, stream,
                            not options.value_only, options.table_entries):
        print(line, flush=True)


# --- the assignment's output file -------------------------------------------------------------

A4_TABLES = (
    ("Q1", "1a", "minimax", None, range(1, 11)),
    ("Q2", "1b", "minimax", None, range(1, 11)),
    ("Q3", "1a", "alphabeta", None, range(1, 11)),
    ("Q4", "1b", "alphabeta", None, range(1, 11)),
    ("Q5", "1a", "minimax", 4, range(1, 21)),
    ("Q6", "1b", "minimax", 4, range(1, 21)),
    ("Q7", "1a", "alphabeta", 4, range(1, 21)),
    ("Q7", "1b", "alphabeta", 4, range(1, 21)),
)


def a4_text(with_time: bool = True, stream: Optional[TextIO] = None) -> str:
    """Every table of Q1-Q7 and Q9, each under a marked heading."""
    parts = []
    for question, variation, name, cutoff, sizes in A4_TABLES:
        depth = f"depth cut-off {cutoff}" if cutoff else "full depth"
        title = (f"{question}: Variation {variation}, {name}, {depth}, "
                 f"N = {sizes[0]}..{sizes[-1]}")
        if stream is not None:
            stream.write(f"nqueens a4: {title}\n")
            stream.flush()
        parts.append(f"== {title} ==\n")
        parts.extend(line + "\n" for line in
                     table_lines(variation, name, cutoff, list(sizes), with_time))
        parts.append("\n")
    for name in ("minimax", "alphabeta"):
        title = f"Q9: Variation 1a, {name} against {name}, AI vs AI"
        if stream is not None:
            stream.write(f"nqueens a4: {title}\n")
            stream.flush()
        parts.append(f"== {title} ==\n")
        parts.extend(line + "\n" for line in scenario_lines("1a", name == "alphabeta"))
        parts.append("\n")
    return "".join(parts).rstrip("\n") + "\n"


def run_a4(options: argparse.Namespace) -> None:
    folder = os.path.dirname(os.path.abspath(options.output))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        # Checked before the tables are computed (half a minute of work).
        raise UsageError(f"cannot write {options.output}: folder {folder} is missing "
                         "or not writable")
    if options.svg and options.no_time:
        raise UsageError("a4: --svg draws the times: leave --no-time out")
    text = a4_text(not options.no_time, sys.stderr)
    write_atomically(options.output, text)
    print(f"wrote {options.output}")
    if options.svg:
        series = nqueens_chart.a4_series(text)
        for variation in ("1a", "1b"):
            series.append((f"solver: {variation}", solver_times(variation, range(1, 15))))
        nqueens_chart.write_time_chart(options.svg, series)
        print(f"wrote {options.svg}")


def solver_times(variation: str, sizes: Iterable[int]) -> List[Tuple[int, float]]:
    """[(N, CPU seconds of solve_size)]: the exact solver's growth, for the picture."""
    points = []
    for size in sizes:
        started = time.process_time()
        solve_size(variation, size, all_openings=False)
        points.append((size, time.process_time() - started))
    return points


# --- entry point -------------------------------------------------------------------------

RUNNERS: Dict[str, Callable[[argparse.Namespace], Optional[int]]] = {
    "table": run_table, "play": run_play, "scenarios": run_scenarios, "solve": run_solve,
    "a4": run_a4}


def run(argv: List[str]) -> Optional[int]:
    if not argv:
        raise UsageError(f"missing command: one of {', '.join(COMMANDS)} "
                         f"(python3 -m engine nqueens --help)")
    if argv[0] not in COMMANDS:
        raise UsageError(f"unknown command {argv[0]!r}: one of {', '.join(COMMANDS)}")
    if any(word in ("-h", "--help") for word in argv[1:]):
        print(__doc__.strip("\n"))
        return 0
    if argv[0] == "check":
        return nqueens_check.run_check(argv[1:], sys.stdout)
    options = build_parser().parse_args(argv)
    return RUNNERS[options.command](options)


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program(NAME, run, sys.argv[1:] if argv is None else argv, help_text=__doc__)
