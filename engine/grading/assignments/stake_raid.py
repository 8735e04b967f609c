"""Stake/Raid: generated cases and the diagnosis of a run (see engine.grading.assignments).

Graded: output.txt (stdout is ignored). A missing or unparsable output.txt zeroes the
submission's points (``unusable``); a wrong move is judged by its value. The case's
input.txt and the submission's output.txt are read here, independently of the program
under judgement (homework.py's own parser is not used).
"""

import math
from pathlib import Path
from random import Random
from typing import Callable, Hashable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ...games.stake_raid import RAID, StakeRaid, State, action_cell, is_raid, move_name
from ...games.stake_raid_files import (FileFormatError, Problem, input_text, parse_input,
                                       parse_output, position)
from ...search import ExactSearch, search
from ..case import Case, Outcome
from ..detect import Plan, is_file, needs, ours
from ..diagnose import fail, judge_text
from ..textdiff import content_difference
from ..casespace import Candidate, Category, Stratum, concatenated, restricted
from ..verdict import Finding, Verdict

# A case's reference search stays under about a second: an estimate of its nodes (see
# stake_raid_estimate) within these budgets.
STAKE_RAID_MAX_NODES = {"MINIMAX": 300000, "ALPHABETA": 600000}


def fits(case: Case) -> bool:
    """A generated Stake/Raid case: it has an input.txt."""
    return "input.txt" in case.files


def graded_files(case: Case) -> List[str]:
    """output.txt."""
    return ["output.txt"]


def stake_raid_estimate(board: Sequence[str], depth: int) -> int:
    """An upper bound of the nodes a search of ``depth`` visits on ``board`` (rows of
    X, O, .): each empty square is at most one Stake and one Raid."""
    empty = sum(row.count(".") for row in board)
    total = level = 1
    for ply in range(min(depth, empty)):
        level *= 2 * (empty - ply)
        total += level
    return total


def _deepest(board: Sequence[str], mode: str, cap: int = 8) -> int:
    """The largest depth <= ``cap`` whose estimate fits the budget of ``mode``."""
    depth = 1
    while depth < cap and stake_raid_estimate(board, depth + 1) <= STAKE_RAID_MAX_NODES[mode]:
        depth += 1
    return depth


def _random_board(size: int, rng: Random, fill_percent: int) -> List[str]:
    """Rows of X, O, . with about ``fill_percent`` % pieces and at least one empty."""
    cells: List[str] = []
    for _ in range(size * size):
        if rng.randrange(100) < fill_percent:
            cells.append(rng.choice("XO"))
        else:
            cells.append(".")
    if "." not in cells:
        cells[rng.randrange(size * size)] = "."
    return ["".join(cells[r * size:(r + 1) * size]) for r in range(size)]


def _stake_raid_case(label: str, size: int, mode: str, player: str, depth: int,
                     values: List[int], board: Sequence[str]) -> Candidate:
    return label, [], {"input.txt": input_text(size, mode, player, depth, values,
                                               board).encode()}


def edges(rng: Random) -> Iterator[Candidate]:
    def values(size: int, low: int = 1, high: int = 100) -> List[int]:
        return [rng.randrange(low, high) for _ in range(size * size)]

    # The assignment's own size first: 5x5, both modes, both sides.
    board = _random_board(5, rng, 40)
    v = values(5)
    yield _stake_raid_case("5x5-minimax-x", 5, "MINIMAX", "X", 2, v, board)
    yield _stake_raid_case("5x5-alphabeta-o", 5, "ALPHABETA", "O", 3, v, board)
    # A Stake and a Raid with the same value: the Stake, first in the order, is the move.
    v = [1] * 9
    v[1], v[2], v[6] = 1, 1, 3   # Raid B1 gains 1 + 2*1, Stake A3 gains 3
    yield _stake_raid_case("tie-stake-raid", 3, "MINIMAX", "X", 1, v,
                           ["X.O", "...", "..."])
    yield _stake_raid_case("tie-stake-raid-as-o-alphabeta", 3, "ALPHABETA", "O", 1, v,
                           ["O.X", "...", "..."])
    equal = rng.randrange(1, 100)
    board = _random_board(6, rng, 30)
    yield _stake_raid_case("ties-equal-values-minimax", 6, "MINIMAX", "X", 2, [equal] * 36, board)
    yield _stake_raid_case("ties-equal-values-alphabeta-o", 6, "ALPHABETA", "O", 3,
                           [equal] * 36, board)
    yield _stake_raid_case("n1-minimax", 1, "MINIMAX", "X", 1, values(1), ["."])
    yield _stake_raid_case("n1-alphabeta-depth-beyond", 1, "ALPHABETA", "O", 4, values(1), ["."])
    board = _random_board(4, rng, 100)
    cells = [i for i in range(16)]
    rng.shuffle(cells)
    board = list(board)
    for cell in cells[:3]:
        row, column = divmod(cell, 4)
        board[row] = board[row][:column] + "." + board[row][column + 1:]
    yield _stake_raid_case("depth-beyond-empties-minimax", 4, "MINIMAX", "O", 6, values(4), board)
    yield _stake_raid_case("depth-beyond-empties-alphabeta", 4, "ALPHABETA", "X", 9,
                           values(4), board)
    board = _random_board(26, rng, 50)
    yield _stake_raid_case("n26-minimax-depth1", 26, "MINIMAX", "O", 1, values(26), board)
    board = _random_board(26, rng, 97)
    yield _stake_raid_case("n26-alphabeta", 26, "ALPHABETA", "X",
                           _deepest(board, "ALPHABETA", 3), values(26), board)
    yield _stake_raid_case("empty-board-alphabeta", 4, "ALPHABETA", "X", 3, values(4),
                           ["...."] * 4)


RANDOM_SIZES = (1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 10, 12, 16, 20, 26)
RANDOM_FILLS = (0, 20, 40, 60, 80, 95)
VALUES = 99          # a square's value is 1..99


def draw_stratum(rng: Random) -> Hashable:
    """(size, pieces, mode, kind, depth): a board size (5x5, the assignment's, three
    times as often), a number of pieces as a board filled at random to 0..95 % has them
    (at least one square empty), MINIMAX or ALPHABETA, random values or (one time in
    five) all equal, and a depth the size budget allows, deeper than the empty squares
    one time in three when the whole game fits."""
    size = rng.choice(RANDOM_SIZES)
    fill = rng.choice(RANDOM_FILLS)
    area = size * size
    pieces = min(area - 1, sum(1 for _ in range(area) if rng.randrange(100) < fill))
    mode = rng.choice(["MINIMAX", "ALPHABETA"])
    # On one square "all equal" is every value: one kind.
    kind = "equal-values" if rng.randrange(5) == 0 and area > 1 else "random"
    empty = area - pieces
    deepest = _deepest(["." * empty], mode)
    if deepest >= empty and rng.randrange(3) == 0:
        depth = empty + rng.randrange(1, 4)      # deeper than the game lasts
    else:
        depth = rng.randrange(1, deepest + 1)
    return size, pieces, mode, kind, depth


def _cells_of(rank: int, count: int, area: int) -> List[int]:
    """The ``rank``-th set of ``count`` cells of ``0 .. area - 1`` (the combinatorial
    number system: rank = sum of C(cell_i, i) over the chosen cells, i = 1..count)."""
    chosen: List[int] = []
    for cell in range(area - 1, -1, -1):
        if count and rank >= math.comb(cell, count):
            rank -= math.comb(cell, count)
            chosen.append(cell)
            count -= 1
    return chosen


def stratum(key: Hashable) -> Stratum:
    """The inputs of a size, number of pieces, mode, kind of values and depth: numbered
    by YOUPLAY (2), then the values (99 choices of the one value, or 99 per square with
    the all-equal ones left to the other kind), then the board (which squares hold a
    piece, then whose each is)."""
    assert isinstance(key, tuple)
    size, pieces, mode, kind, depth = key
    area = size * size
    values_count = VALUES if kind == "equal-values" else VALUES ** area
    boards = math.comb(area, pieces) << pieces

    def decode(number: int) -> Optional[Candidate]:
        number, player = divmod(number, 2)
        number, values_number = divmod(number, values_count)
        placement, colours = divmod(number, 1 << pieces)
        if kind == "equal-values":
            values = [values_number + 1] * area
        else:
            values = []
            for _ in range(area):
                values_number, value = divmod(values_number, VALUES)
                values.append(value + 1)
            if area > 1 and len(set(values)) == 1:
                return None                      # the other kind's
        cells = ["."] * area
        for index, cell in enumerate(_cells_of(placement, pieces, area)):
            cells[cell] = "O" if colours >> index & 1 else "X"
        board = ["".join(cells[r * size:(r + 1) * size]) for r in range(size)]
        youplay = "XO"[player]
        label = f"{kind}-n{size}-{mode.lower()}-{youplay.lower()}-depth{depth}"
        return _stake_raid_case(label, size, mode, youplay, depth, values, board)
    name = f"n{size}-pieces{pieces}-{mode.lower()}-{kind}-depth{depth}"
    return Stratum(name, 2 * values_count * boards, decode)


def _header(candidate: Candidate) -> List[bytes]:
    """The first four lines of a candidate's input.txt: N, mode, YOUPLAY, depth."""
    return candidate[2]["input.txt"].split(b"\n", 4)[:4]


def _header_is(line: int, value: bytes) -> Callable[[Candidate], bool]:
    return lambda candidate: _header(candidate)[line] == value


def raid_decides(candidate: Candidate) -> bool:
    """Whether the grader's move of a candidate is a Raid (one that flips: the search
    never plays one that does not), found by our search when its estimate is at most
    RAID_CHECK_NODES (False above: too costly to tell)."""
    problem = parse_input(candidate[2]["input.txt"].decode("ascii"), "input.txt")
    depth = problem.limit
    if not isinstance(depth, int) or stake_raid_estimate(problem.board, depth) > \
            RAID_CHECK_NODES:
        return False
    game, state = position(problem)
    return not game.is_terminal(state) and is_raid(
        search(game, state, ExactSearch(depth=depth)).action)


RAID_CHECK_NODES = 20000


def _boards(name: str, keys: Iterable[Tuple[int, int, str, str, int]],
            player: Optional[int] = None) -> Stratum:
    """The random strata ``keys`` as one family, labelled ``name-...`` (with YOUPLAY X
    only, ``player`` 0, or O only, 1: each stratum numbers it as its lowest digit)."""
    strata = [stratum(key) for key in keys]
    if player is not None:
        strata = [restricted(f"{one.name}-{player}", one, player, 2) for one in strata]
    every = concatenated(name, strata)

    def decode(number: int) -> Optional[Candidate]:
        candidate = every.decode(number)
        if candidate is None:
            return None
        label, args, files = candidate
        return f"{name}-{label}", args, files
    return Stratum(name, every.size, decode)


def _keys(size: int, pieces: Iterable[int], kinds: Sequence[str] = ("random",),
          max_depth: int = 3) -> List[Tuple[int, int, str, str, int]]:
    """Strata keys of ``size`` with each number of ``pieces``, both modes, each of
    ``kinds``, every depth up to ``max_depth`` the node budget allows."""
    return [(size, count, mode, kind, depth)
            for count in pieces for mode in ("MINIMAX", "ALPHABETA") for kind in kinds
            for depth in range(1, min(max_depth, _deepest(["." * (size * size - count)],
                                                           mode)) + 1)]


def _mode_boards(mode: str) -> Stratum:
    """5x5 boards searched in ``mode``."""
    return _boards(mode.lower(), [key for key in _keys(5, range(25)) if key[2] == mode])


def _raid_deciding() -> Stratum:
    """Boards of 3..5 squares a side, a third to two thirds full, depth 1 or 2, whose
    move is a Raid (the others stand for none)."""
    keys = [key for size in (3, 4, 5)
            for key in _keys(size, range(size * size // 3, 2 * size * size // 3 + 1),
                             max_depth=2)]
    boards = _boards("raid-deciding", keys)

    def decode(number: int) -> Optional[Candidate]:
        candidate = boards.decode(number)
        return candidate if candidate is not None and raid_decides(candidate) else None
    return Stratum(boards.name, boards.size, decode)


# What every set of ten or more cases holds (engine.grading.generate): both modes, both
# sides, the smallest and the largest board, and a position whose move is a Raid.
CATEGORIES = (
    Category("MINIMAX", _header_is(1, b"MINIMAX"), lambda: _mode_boards("MINIMAX")),
    Category("ALPHABETA", _header_is(1, b"ALPHABETA"), lambda: _mode_boards("ALPHABETA")),
    Category("YOUPLAY X", _header_is(2, b"X"),
             lambda: _boards("youplay-x", _keys(5, range(25)), 0)),
    Category("YOUPLAY O", _header_is(2, b"O"),
             lambda: _boards("youplay-o", _keys(5, range(25)), 1)),
    Category("N = 1", _header_is(0, b"1"),
             lambda: _boards("smallest", _keys(1, (0,), max_depth=4))),
    Category("N = 26", _header_is(0, b"26"),
             lambda: _boards("largest", _keys(26, range(670, 676),
                                              ("random", "equal-values")))),
    Category("a Raid decides", raid_decides, _raid_deciding),
)


def judge(case: Case, outcome: Outcome, lenient: bool) -> Sequence[Optional[Finding]]:
    expected = case.expected.get("output.txt")
    if expected is None:
        return [judge_text("output.txt", b"", outcome.files.get("output.txt", b""), lenient)]
    actual = outcome.files.get("output.txt")
    if actual is None:
        return [fail("output.txt missing", "output.txt was not written (the assignment "
                     "gives 0 points when output.txt is missing in any case)",
                     unusable=True)]
    parsed = _parse_output(case, actual)
    if isinstance(parsed, str):
        return [fail(f"output.txt unparsable: {parsed}",
                     f"output.txt: {parsed} (the assignment gives 0 points when "
                     "output.txt cannot be parsed in any case)", unusable=True)]
    return [judge_text("output.txt", expected, actual, lenient,
                       lambda e, a: _stake_raid_difference(case, e, a))]


def _problem(case: Case) -> Tuple[Problem, StakeRaid, State]:
    """(Problem, game, state) of a case's input.txt (our own, generated: well formed)."""
    given = parse_input(case.files["input.txt"].decode("utf-8"), "input.txt")
    game, state = position(given)
    return given, game, state


def _parse_output(case: Case, data: bytes) -> Union[Tuple[int, List[str]], str]:
    """(action, board rows) of an output.txt, or a string saying what is wrong."""
    try:
        return _output(case, data)
    except FileFormatError as error:
        return str(error)


def _output(case: Case, data: bytes) -> Tuple[int, List[str]]:
    """(action, board rows) of an output.txt; raises FileFormatError (an EngineError:
    bytes decide then) when it cannot be parsed."""
    size = int(case.files["input.txt"].split()[0])
    return parse_output(data.decode("ascii", "replace"), size)


def _stake_raid_difference(case: Case, expected: bytes, actual: bytes) -> Tuple[str, str]:
    problem, game, state = _problem(case)
    size = problem.size
    want = _output(case, expected)
    got = _output(case, actual)
    want_name, got_name = move_name(size, want[0]), move_name(size, got[0])
    if want[0] == got[0]:
        for number, (w, g) in enumerate(zip(want[1], got[1]), 2):
            if w != g:
                return ("wrong board after the move",
                        f"output.txt: the move {got_name} is right, but board line "
                        f"{number} should be {w!r}, got {g!r} (a Raid flips every enemy "
                        "piece orthogonally next to the raided square)")
        return content_difference(expected, actual, "output.txt")
    action = got[0]
    if action not in game.actions(state):
        why = ("the square is not empty" if state[0][action_cell(action)] else
               "no piece of yours is next to it")
        return (f"illegal move: {got_name}", f"output.txt: {got_name} is not legal ({why})")
    depth = problem.limit
    if not isinstance(depth, int):
        # COMPETITION: line 4 is the CPU time left, not a depth, and no one search values
        # the moves (taking the seconds for plies would search the whole game).
        return (f"wrong move: expected {want_name}, got {got_name}",
                f"output.txt: expected {want_name}, got {got_name} (a COMPETITION input "
                "has no depth to value the two moves at)")
    child = game.play(state, action)
    want_child = game.play(state, want[0])
    want_value = search(game, want_child, ExactSearch(depth=depth - 1)).value
    got_value = search(game, child, ExactSearch(depth=depth - 1)).value
    head = f"wrong move: expected {want_name}, got {got_name}"
    if want_value == got_value:
        flipless = is_raid(action) and child[0] == game.play(state, action - RAID)[0]
        extra = (f" ({got_name} flips nothing: it is the same as the Stake, which comes "
                 "first)") if flipless else ""
        return (f"{head} (tie-break slip: both moves have value {want_value}; the grader "
                "keeps the first in Stakes-then-Raids row-major order)",
                f"output.txt: {want_name} and {got_name} both score {want_value} at depth "
                f"{depth} (YOUPLAY's view){extra}; the grader keeps the first move with the "
                "strictly best value, all Stakes (row by row) before all Raids (row by row)")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"output.txt: {want_name} scores {want_value}, {got_name} scores {got_value} "
            f"at depth {depth} (YOUPLAY's view: the sum of YOUPLAY's squares minus the "
            "opponent's)")


# --- how a submission runs, and its score -------------------------------------------------

# The grader ignores stdout: output.txt is everything.
STDOUT_GRADED = False
FILE_LABEL = "output.txt"
# A missing or unreadable output.txt in any case zeroes the submission's points.
UNREADABLE_ZEROES = True
# The assignment's points: 50, one lost per failed case over 50 cases.
POINTS = 50

# The files a submission is recognised by (for the hints of a folder that is none).
ENTRY_POINTS = ("homework.py", "homework.java", "homework.cpp", "homework.c")


def detect(folder: Path) -> Plan:
    """homework.py (ours or not), homework.java, homework.cpp or homework.c; run in a
    folder holding input.txt, writing output.txt."""
    if is_file(folder / "homework.py"):
        keep = ("homework.py", "engine") if ours(folder) else None
        kind = "our repository" if keep else "python"
        return needs(Plan(kind, ("python3", "homework.py"), keep=keep), "python3")
    if is_file(folder / "homework.java"):
        return needs(Plan("java", ("java", "homework"), build=("javac", "homework.java")),
                     "javac", "java")
    if is_file(folder / "homework.cpp"):
        return needs(Plan("c++", ("./homework",),
                          build=("g++", "-O2", "-std=c++17", "-o", "homework",
                                 "homework.cpp")), "g++")
    if is_file(folder / "homework.c"):
        return needs(Plan("c", ("./homework",),
                          build=("gcc", "-O2", "-o", "homework", "homework.c", "-lm")), "gcc")
    return Plan("none", error="no homework.py, homework.java, homework.cpp or homework.c")


def score(verdicts: Sequence[Verdict]) -> Tuple[float, float]:
    """(points, max_points) by the assignment's rule: "50 - failed" over 50 cases, i.e.
    50 points, one lost per failed case; for another number of cases the same rule
    scaled (``50 * passed / cases``, two decimals). And 0 points when output.txt was
    missing or unparsable in ANY case, however many passed."""
    total = len(verdicts)
    if not total or any(verdict.unusable_output for verdict in verdicts):
        return 0, POINTS
    points = round(POINTS * sum(1 for verdict in verdicts if verdict.passed) / total, 2)
    return (int(points) if points == int(points) else points), POINTS
