"""``python3 -m engine nqueens check A4_output.txt``: check the tables of Q1-Q7 and Q9.

Reached through :mod:`engine.programs.nqueens` (first word ``check``); no ``main`` here,
so it is not a program of its own.

Reading (the layout ``nqueens a4`` writes, and the looser ones the assignment allows):

* a *heading* is a line that is not a table row and names a question: ``Q1`` ... ``Q9``
  (``== Q1: ... ==``, ``Q1:``, ``Question 1``); it may name the variation (``1a``/``1b``),
  the search and a cut-off (``cut-off 4``), else the question's own settings apply
  (Q1/Q3 1a, Q2/Q4 1b, full depth; Q5 1a, Q6 1b, cut-off 4; Q7 twice with cut-off 4,
  1a first, then 1b);
* a *row* of Q1-Q7 is ``Size  Value  Opening  [Time]`` with any spacing (blanks, tabs,
  ``|`` or commas), the opening written ``('X', 0)`` or as a plain row ``0``; a row of Q9
  is ``N  Cut-off P1  Cut-off P2  1W, 0L``;
* other lines (column titles, prose, blank lines) are skipped; a line that starts like a
  row but cannot be read is reported.

Checks, each problem as ``FILE:LINE: Qn ...`` (one line):

* exact rows (Q1-Q4; N <= the cut-off in Q5-Q7), up to N = :data:`EXACT_LIMIT`: the value
  is the exact minimax value, and the opening is *an* optimal one (the assignment accepts
  any optimal opening); values come from the engine's one search (alpha-beta with a
  transposition table over the game's symmetric keys), about 0.1 s for N = 1..10;
* rows beyond the cut-off: the value lies in the utility's range ([-1, 1] in 1a,
  [-N, N] in 1b) and the opening is a row of the board;
* every row: the opening is Player 1's ('X') and on the board, the time (if given) is a
  number of seconds, no size twice; each table covers the sizes the question asks for
  (1..10 in Q1-Q4, 1..20 in Q5-Q7);
* Q9: each row is one game (1W, 0L or 0W, 1L) of a listed scenario (N = 10, 20; cut-offs
  4/4, 5/5, 5/3, 3/5), every scenario present; the minimax and alpha-beta tables agree
  (alpha-beta makes exactly the moves minimax makes, so the games are the same);
* every question (Q1-Q7, Q7 twice, Q9) is present.

Prints the problems, then one summary line per question; exit 1 when there are problems.
"""

import re
from typing import Any, Dict, List, Match, Optional, Sequence, TextIO, Tuple

from ...errors import UsageError
from ...commandline import read_text_file
from ...games.nqueens import make_game
from ...search import TableSearch, TranspositionTable, search

EXACT_LIMIT = 12          # exact values are computed up to this N (N = 12: about 2 s)
QUESTIONS = {             # question -> (variation, cut-off, sizes asked for)
    "Q1": ("1a", None, 10), "Q2": ("1b", None, 10), "Q3": ("1a", None, 10),
    "Q4": ("1b", None, 10), "Q5": ("1a", 4, 20), "Q6": ("1b", 4, 20), "Q7": ("1a", 4, 20),
}
SCENARIOS = [(size, first, second) for size in (10, 20)
             for first, second in ((4, 4), (5, 5), (5, 3), (3, 5))]

SEPARATOR = r"[\s|,;]+"
ROW = re.compile(r"\s*\|?\s*(\d+)" + SEPARATOR + r"(-?\d+(?:\.\d*)?(?:[eE]-?\d+)?)" +
                 SEPARATOR + r"(\(\s*'?([A-Za-z])'?\s*,\s*(-?\d+)\s*\)|-?\d+)"
                 r"(?:" + SEPARATOR + r"([^\s|]+))?[\s|]*")
SCENARIO_ROW = re.compile(r"\s*(\d+)" + SEPARATOR + r"(\d+)" + SEPARATOR + r"(\d+)" +
                          SEPARATOR + r"(\d+)\s*W\s*,?\s*(\d+)\s*L\s*")
HEADING = re.compile(r"(?:\bQ|\bQuestion\s*)([1-9])\b", re.IGNORECASE)


class Table:
    """One question's table as read: settings, rows [(line, values...)]."""

    # Q9 only, set by Checker.check_scenarios: {(N, cut-off P1, cut-off P2): (line, wins)}
    results: Dict[Tuple[int, int, int], Tuple[int, int]]

    def __init__(self, question: str, line: int, variation: str, cutoff: Optional[int],
                 search_name: Optional[str]) -> None:
        self.question = question
        self.line = line
        self.variation = variation
        self.cutoff = cutoff
        self.search = search_name
        # (line, match) per row; Q9: (line, N, cut-off P1, cut-off P2, wins, losses)
        self.rows: List[Tuple[Any, ...]] = []

    def title(self) -> str:
        if self.question == "Q9":
            return f"Q9 ({self.search or 'search not named'})"
        depth = f"cut-off {self.cutoff}" if self.cutoff else "full depth"
        search_name = f"{self.search}, " if self.search else ""
        return f"{self.question} (variation {self.variation}, {search_name}{depth})"


class Solver:
    """Exact values of the empty board and of each opening, computed on demand."""

    def __init__(self) -> None:
        self.cache: Dict[Tuple[str, int], Tuple[float, Dict[int, float]]] = {}

    def openings(self, variation: str, size: int) -> Tuple[float, Dict[int, float]]:
        """(value, {opening row: value}) of the empty board of ``size``."""
        key = (variation, size)
        if key not in self.cache:
            game = make_game(variation, size, symmetry=True)
            root = game.initial_state()
            table = TranspositionTable()
            options = TableSearch(table=table, order=game.solver_order)
            value = search(game, root, options).value
            values = {action[1]: search(game, game.result(root, action), options).value
                      for action in game.actions(root)}
            self.cache[key] = (value, values)
        return self.cache[key]


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def read_tables(text: str,
                question: Optional[str] = None) -> Tuple[List[Table], List[Tuple[int, str]]]:
    """(tables, problems) with problems [(line, text)] about lines that cannot be read.

    ``question`` ('Q1' ... 'Q7', 'Q9'): rows before any heading form a table of that
    question (the output of one ``nqueens table`` command).
    """
    tables, problems = [], []
    current = None
    if question is not None:
        variation, cutoff, _ = QUESTIONS.get(question, ("1a", None, 0))
        current = Table(question, 1, variation, cutoff, None)
        tables.append(current)
    q7_count = 0
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        row = ROW.fullmatch(line)
        scenario = SCENARIO_ROW.fullmatch(line)
        heading = HEADING.search(line) if not (row or scenario) else None
        if heading is not None:
            named = f"Q{heading.group(1)}"
            if named == "Q7":
                q7_count += 1
            current = _table_of_heading(named, number, line, q7_count)
            if current is not None:
                tables.append(current)
            continue
        problem = _take_row(current, number, line, row, scenario)
        if problem is not None:
            problems.append((number, problem))
    return tables, problems


def _table_of_heading(question: str, number: int, line: str, q7_count: int) -> Optional[Table]:
    """The table a heading of ``question`` at line ``number`` starts (None for Q8, which
    has no table): its settings are the question's own unless the heading names them.
    ``q7_count``: the Q7 headings so far, this one included (1a first, then 1b)."""
    if question != "Q9" and question not in QUESTIONS:
        return None
    lowered = line.lower()
    name = ("alphabeta" if re.search(r"alpha[\s-]*beta", lowered) else
            "minimax" if "minimax" in lowered else None)
    if question == "Q9":
        return Table("Q9", number, "1a", None, name)
    variation, cutoff, _ = QUESTIONS[question]
    if question == "Q7":
        variation = "1a" if q7_count == 1 else "1b"
    named = re.search(r"\b(1a|1b)\b", lowered)
    if named:
        variation = named.group(1)
    depth = re.search(r"cut[\s-]*off\D{0,3}(\d+)", lowered)
    if depth:
        cutoff = int(depth.group(1))
    elif "full depth" in lowered:
        cutoff = None
    return Table(question, number, variation, cutoff, name)


def _take_row(current: Optional[Table], number: int, line: str, row: Optional[Match[str]],
              scenario: Optional[Match[str]]) -> Optional[str]:
    """Add a non-heading line's row to ``current``; return the problem with the line, if
    any (a row outside any table, or a line that starts like a row but cannot be read)."""
    if current is None:
        if row or scenario:
            return "a table row before any question heading (Q1 ... Q9)"
        return None
    if current.question == "Q9":
        if scenario:
            current.rows.append((number,) + tuple(int(g) for g in scenario.groups()))
        elif line.lstrip()[:1].isdigit():
            return (f"{current.question}: cannot read this row: "
                    f"expected 'N  Cut-off P1  Cut-off P2  1W, 0L'")
    elif row:
        current.rows.append((number, row))
    elif line.lstrip().lstrip("|").lstrip()[:1].isdigit():
        return (f"{current.question}: cannot read this row: expected "
                f"'Size  Value  Opening  [Time]'")
    return None


class Checker:
    """Checks the tables; collects (line, text) problems and per-question summaries."""

    def __init__(self, solver: Optional[Solver] = None, question: Optional[str] = None) -> None:
        self.solver = solver or Solver()
        self.question = question
        self.problems: List[Tuple[int, str]] = []
        self.summaries: List[str] = []

    def add(self, line: int, text: str) -> None:
        self.problems.append((line, text))

    def check_text(self, text: str) -> None:
        tables, problems = read_tables(text, self.question)
        self.problems.extend(problems)
        for table in tables:
            before = len(self.problems)
            if table.question == "Q9":
                detail = self.check_scenarios(table)
            else:
                detail = self.check_table(table)
            found = len(self.problems) - before
            verdict = "OK" if not found else f"{found} problem{'s' * (found != 1)}"
            self.summaries.append(f"{table.title()}: {detail}: {verdict}")
        if self.question is None:             # a whole A4 file, not one table
            self.check_presence(tables)
        self.check_scenario_agreement([t for t in tables if t.question == "Q9"])
        self.problems.sort(key=lambda item: item[0])

    def check_presence(self, tables: List[Table]) -> None:
        present = [table.question for table in tables]
        for question in ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q9"):
            if question not in present:
                self.add(0, f"{question} is missing")
        if present.count("Q7") == 1:
            self.add(0, "Q7 asks for two tables (variations 1a and 1b); one is missing")

    def check_table(self, table: Table) -> str:
        sizes: Dict[int, int] = {}
        exact = in_range = 0
        for line, row in table.rows:
            size = int(row.group(1))
            where = f"{table.question} N={size}"
            if size in sizes:
                self.add(line, f"{where}: size {size} is listed twice (line {sizes[size]})")
                continue
            sizes[size] = line
            if size < 1:
                self.add(line, f"{where}: the board size must be at least 1")
                continue
            value = float(row.group(2))
            mark, opening = row.group(4), row.group(5)
            opening = int(opening if opening is not None else row.group(3))
            if mark is not None and mark.upper() != "X":
                self.add(line, f"{where}: the opening is Player 1's move, ('X', row), not "
                               f"{row.group(3)}")
            if not 0 <= opening < size:
                self.add(line, f"{where}: opening row {opening} is off the board "
                               f"(rows 0..{size - 1})")
                continue
            seconds = row.group(6)
            if seconds is not None and not _is_seconds(seconds):
                self.add(line, f"{where}: time {seconds!r} is not a number of seconds")
            if table.cutoff is None or size <= table.cutoff:
                if size <= EXACT_LIMIT and table.variation in ("1a", "1b"):
                    exact += 1
                    self.check_exact(line, where, table.variation, size, value, opening)
                    continue
            in_range += 1
            bound = 1 if table.variation != "1b" else size
            if not -bound <= value <= bound:
                self.add(line, f"{where}: value {row.group(2)} is outside the utility's "
                               f"range [-{bound}, {bound}]")
        _, _, largest = QUESTIONS[table.question]
        missing = [size for size in range(1, largest + 1) if size not in sizes]
        if missing:
            self.add(table.line, f"{table.question}: no row for N = "
                                 f"{_ranges(missing)} (the question asks for 1..{largest})")
        parts = [f"{len(sizes)} rows", f"{exact} checked exactly"]
        if in_range:
            parts.append(f"{in_range} checked for range")
        return ", ".join(parts)

    def check_exact(self, line: int, where: str, variation: str, size: int, value: float,
                    opening: int) -> None:
        best, values = self.solver.openings(variation, size)
        if value != best:
            self.add(line, f"{where}: value {_number_text(value)} is wrong: the exact "
                           f"minimax value is {best}")
        if values[opening] != best:
            optimal = ", ".join(str(row) for row, worth in sorted(values.items())
                                if worth == best)
            self.add(line, f"{where}: ('X', {opening}) is not an optimal opening: it is "
                           f"worth {values[opening]}, the best is {best} (optimal rows: "
                           f"{optimal})")

    def check_scenarios(self, table: Table) -> str:
        seen: Dict[Tuple[int, int, int], Tuple[int, int]] = {}
        for line, size, first, second, wins, losses in table.rows:
            key = (size, first, second)
            where = f"Q9 N={size} cut-offs {first}/{second}"
            if key not in SCENARIOS:
                self.add(line, f"{where}: not one of Q9's scenarios (N = 10, 20; cut-offs "
                               f"4/4, 5/5, 5/3, 3/5)")
            elif key in seen:
                self.add(line, f"{where}: listed twice (line {seen[key][0]})")
            if (wins, losses) not in ((1, 0), (0, 1)):
                self.add(line, f"{where}: {wins}W, {losses}L is not the result of one "
                               f"game (1W, 0L or 0W, 1L)")
            seen.setdefault(key, (line, wins))
        missing = [key for key in SCENARIOS if key not in seen]
        if missing:
            self.add(table.line, "Q9: missing scenario(s) " + ", ".join(
                f"N={size} {first}/{second}" for size, first, second in missing))
        table.results = seen
        return f"{len(table.rows)} games"

    def check_scenario_agreement(self, tables: List[Table]) -> None:
        named = {table.search: table for table in tables if table.search}
        if "minimax" not in named or "alphabeta" not in named:
            return
        minimax, alphabeta = named["minimax"].results, named["alphabeta"].results
        for key, (line, wins) in sorted(alphabeta.items()):
            if key in minimax and minimax[key][1] != wins:
                self.add(line, f"Q9 N={key[0]} cut-offs {key[1]}/{key[2]}: alpha-beta "
                               f"and minimax disagree (line {minimax[key][0]}), but "
                               f"alpha-beta makes exactly minimax's moves")


def _is_seconds(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return value >= 0 and value == value and value != float("inf")


def _ranges(sizes: Sequence[int]) -> str:
    parts, start = [], None
    for index, size in enumerate(sizes):
        if start is None:
            start = size
        if index + 1 == len(sizes) or sizes[index + 1] != size + 1:
            parts.append(str(start) if start == size else f"{start}-{size}")
            start = None
    return ", ".join(parts)


def check_file(path: str, solver: Optional[Solver] = None,
               question: Optional[str] = None) -> Tuple[List[str], List[str]]:
    """(problem lines 'FILE:LINE: ...', summary lines) for one file."""
    text = read_text_file(path)
    checker = Checker(solver, question)
    checker.check_text(text)
    lines = [f"{path}:{line}: {text}" if line else f"{path}: {text}"
             for line, text in checker.problems]
    return lines, checker.summaries


def run_check(argv: List[str], stdout: TextIO) -> int:
    """``nqueens check [--question Qn] FILE...``: problems, then per-question summaries;
    exit 0 or 1. ``--question`` reads files holding one table (one ``nqueens table``
    output) as that question's."""
    question = None
    if argv[:1] == ["--question"]:
        if len(argv) < 2 or argv[1].upper() not in list(QUESTIONS) + ["Q9"]:
            raise UsageError("check: --question takes one of Q1 ... Q7, Q9")
        question, argv = argv[1].upper(), argv[2:]
    if not argv:
        raise UsageError("check: give the A4_output.txt file(s) to check")
    solver = Solver()
    failed = False
    for path in argv:
        problems, summaries = check_file(path, solver, question)
        failed = failed or bool(problems)
        for line in problems:
            stdout.write(line + "\n")
        for line in summaries:
            stdout.write(f"{path}: {line}\n" if len(argv) > 1 else line + "\n")
    stdout.write("problems found\n" if failed else "OK\n")
    return 1 if failed else 0
