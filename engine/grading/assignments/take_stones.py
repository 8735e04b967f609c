"""Take-Stones: generated cases and the diagnosis of a run (see engine.grading.assignments).

Graded: stdout, the alpha-beta listing and the move. A listing is rebuilt into the tree
it lists and walked beside ours; a wrong move is judged by its value.
"""

import functools
import re
from pathlib import Path
from random import Random
from typing import Callable, Hashable, Iterable, Iterator, List, Optional, Sequence, Tuple

from ...errors import SearchTimeout
from ...games.take_stones import TakeStones
from ...search import ExactSearch, TableSearch, TimeLimit, search
from ..case import Case, Outcome
from ..detect import Plan, is_file, needs, ours
from ..diagnose import judge_text
from ..textdiff import content_difference, first_line_difference
from ..traces import Entry, diagnose_trace
from ..casespace import Candidate, Category, Stratum, concatenated, restricted
from ..scoring import one_point_per_case
from ..verdict import Finding

# Size limits of a case's reference run: outputs under about 20,000 lines, judged by a
# deterministic node count (never by the clock).
TAKE_STONES_MAX_LINES = 20000
TAKE_STONES_MAX_NODES = (TAKE_STONES_MAX_LINES - 3) // 3 - 2   # 3 lines per node + NEXT MOVE


def fits(case: Case) -> bool:
    """A generated Take-Stones case: n k s1..sk depth."""
    return len(case.args) >= 3


def graded_files(case: Case) -> List[str]:
    """None: Take-Stones prints everything."""
    return []


def take_stones_nodes(n: int, taken: Sequence[int], depth: int) -> Optional[int]:
    """Number of nodes our Take-Stones search visits for ``n taken depth`` (the root
    included), or None when it passes TAKE_STONES_MAX_NODES.

    Counted by the search itself, with a "clock" that counts its own readings (the
    search reads it once per ``check_every`` nodes), so the answer is the same on
    every machine.
    """
    game = TakeStones(n)
    state = game.replay_history(taken)
    readings = [0]
    check_every = 64

    def clock() -> float:
        readings[0] += 1
        return readings[0]

    limit = depth or n + 1
    try:
        # The "clock" counts its readings: the time limit is a budget of nodes.
        result = search(game, state, TableSearch(
            depth=limit, window=(-1000, 1000),
            time_limit=TimeLimit(TAKE_STONES_MAX_NODES // check_every + 1, clock,
                                 check_every)))
    except SearchTimeout:
        return None
    if result.stats.nodes > TAKE_STONES_MAX_NODES:
        return None
    return result.stats.nodes


@functools.lru_cache(maxsize=1 << 16)
def _fits(n: int, taken: Tuple[int, ...], depth: int) -> bool:
    """Whether the reference run of ``n taken depth`` stays small (take_stones_nodes),
    counted once per input in a process: every seed's edge cases ask the same."""
    return take_stones_nodes(n, taken, depth) is not None


def random_history(n: int, length: int, rng: Random, first_rule: bool = True) -> List[int]:
    """Up to ``length`` stones taken by random legal play from a new game of ``n``
    (stops early when the player to move has no stone)."""
    game = TakeStones(n)
    state = game.initial_state()
    taken: List[int] = []
    for _ in range(length):
        choices = game.actions(state)
        if not first_rule and not taken:
            choices = list(range(1, n + 1))
        if not choices:
            break
        stone = rng.choice(choices)
        taken.append(stone)
        state = game.result(state, stone)
    return taken


def _take_stones_args(n: int, taken: Sequence[int], depth: int) -> List[str]:
    return [str(n), str(len(taken))] + [str(s) for s in taken] + [str(depth)]


def _game_over_history(n: int, rng: Random, max_to_move: bool) -> Optional[List[int]]:
    """A legal history of ``n`` stones that ends the game with Max (or Min) to move."""
    game = TakeStones(n)
    for _ in range(200):
        taken = random_history(n, n, rng)
        if not taken or (len(taken) % 2 == 0) != max_to_move:
            continue
        if game.is_terminal(game.replay_history(taken)):
            return taken
    return None


def edges(rng: Random) -> Iterator[Candidate]:
    def small(label: str, n: int, taken: List[int], depth: int) -> List[Candidate]:
        if _fits(n, tuple(taken), depth):
            return [(label, _take_stones_args(n, taken, depth), {})]
        return []

    # The official samples' shapes first.
    for label, n, taken, depth in (("mid-game-depth3", 7, [1, 4, 2], 3),
                                   ("new-game-depth3", 7, [], 3),
                                   ("first-move-depth2", 7, [1], 2),
                                   ("history-from-even-depth4", 10, [4, 2, 6], 4)):
        yield from small(label, n, taken, depth)
    for max_to_move, label in ((True, "game-over-max-to-move"), (False, "game-over-min-to-move")):
        taken = _game_over_history(rng.randrange(6, 13), rng, max_to_move) or []
        if taken:
            n = max(max(taken), 6)
            yield label, _take_stones_args(n, taken, rng.randrange(0, 4)), {}
    yield "game-over-new-n1", _take_stones_args(1, [], 0), {}
    yield "game-over-new-n2", _take_stones_args(2, [], 3), {}
    for depth in range(0, 7):
        n = rng.randrange(12, 21)
        taken = random_history(n, rng.randrange(1, 4), rng)
        if not TakeStones(n).is_terminal(TakeStones(n).replay_history(taken)):
            yield from small(f"depth{depth}", n, taken, depth)
    yield from small("depth-beyond-end", 9, random_history(9, 3, rng), 20)
    # New games across the range of n: to the end while the output stays small, then
    # the deepest depth that keeps it small (the random cases fill the gaps).
    for n in (3, 4, 5, 6, 7, 8, 11, 13, 16, 17, 20, 24, 28, 30):
        if _fits(n, (), 0):
            yield f"new-n{n}-to-end", _take_stones_args(n, [], 0), {}
        else:
            for depth in range(6, 0, -1):
                if _fits(n, (), depth):
                    yield f"new-n{n}-depth{depth}", _take_stones_args(n, [], depth), {}
                    break


def draw_stratum(rng: Random) -> Hashable:
    """(n, length): a new game of n = 1..30 stones, then ``length`` stones taken
    (0 .. n/2 - 1), each equally likely."""
    n = rng.randrange(1, 31)
    return n, rng.randrange(0, max(1, n // 2))


DEPTHS = 7          # a random case searches to depth 0 (the end) .. 6


def _history(n: int, length: int, number: int) -> Optional[List[int]]:
    """The legal history of ``length`` stones that ``number`` spells in the mixed radix
    of the moves' choices (digit i picks among the legal stones at move i, in their
    order), or None when it spells none: the game ends before ``length`` moves, or
    ``number`` is not the whole spelling (digits left over). So two numbers never
    spell the same history."""
    game = TakeStones(n)
    state = game.initial_state()
    taken: List[int] = []
    for _ in range(length):
        choices = game.actions(state)
        if not choices:
            return None
        number, digit = divmod(number, len(choices))
        taken.append(choices[digit])
        state = game.result(state, taken[-1])
    return taken if number == 0 else None


@functools.lru_cache(maxsize=None)
def _history_bound(n: int, length: int) -> int:
    """How many numbers the histories of (n, length) are spelled from: the lower quartile
    of the product of the choices along 32 random legal histories (a fixed sample), so
    that about three numbers in four spell one; histories whose product is larger are
    spelled by the numbers below it only."""
    rng = Random(f"engine.grading:take_stones:bound:{n}:{length}")
    game = TakeStones(n)
    products: List[int] = []
    for _ in range(32):
        state, product = game.initial_state(), 1
        for _ in range(length):
            choices = game.actions(state)
            if not choices:
                break
            product *= len(choices)
            state = game.result(state, rng.choice(choices))
        else:
            products.append(product)
    products.sort()
    return products[len(products) // 4] if products else 1


def stratum(key: Hashable) -> Stratum:
    """The cases of a new game of n stones after a history of ``length`` stones, at each
    depth 0..6: numbered depth-minor (see :func:`_history`); a number whose output would
    pass the size limit gives none."""
    assert isinstance(key, tuple)
    n, length = key

    def decode(number: int) -> Optional[Candidate]:
        depth = number % DEPTHS
        taken = _history(n, length, number // DEPTHS)
        if taken is None or not _fits(n, tuple(taken), depth):
            return None
        label = f"random-n{n}-k{len(taken)}-depth{depth}"
        game = TakeStones(n)
        if game.is_terminal(game.replay_history(taken)):
            label += "-game-over"
        return label, _take_stones_args(n, taken, depth), {}
    return Stratum(f"n{n}-k{length}", DEPTHS * _history_bound(n, length), decode)


def _problem_of(candidate: Candidate) -> Tuple[TakeStones, int, int, int]:
    """(game, state, stones taken, depth) of a candidate's ``n k s1..sk depth``."""
    args = [int(word) for word in candidate[1]]
    game = TakeStones(args[0])
    return game, game.replay_history(args[2:-1]), args[1], args[-1]


def _over(candidate: Candidate) -> bool:
    game, state, _, _ = _problem_of(candidate)
    return game.is_terminal(state)


def _going_on_where(test: Callable[[int, int], bool]) -> Callable[[Candidate], bool]:
    """Whether a candidate's game is not over and ``test(stones taken, depth)`` holds."""
    def holds(candidate: Candidate) -> bool:
        game, state, taken, depth = _problem_of(candidate)
        return not game.is_terminal(state) and test(taken, depth)
    return holds


def _histories_at(name: str, ns: Sequence[int], lengths: Callable[[int], Iterable[int]],
                  depths: Sequence[int]) -> Stratum:
    """The random strata's cases of ``ns`` stones after ``lengths(n)`` stones taken, at
    ``depths`` only (each stratum numbers depth-minor), games already over left out."""
    families = [restricted(f"n{n}-k{length}-depth{depth}", stratum((n, length)), depth, DEPTHS)
                for n in ns for length in lengths(n) for depth in depths]
    every = concatenated(name, families)

    def decode(number: int) -> Optional[Candidate]:
        candidate = every.decode(number)
        if candidate is None or _over(candidate):
            return None
        label, args, files = candidate
        return label.replace("random", name, 1), args, files
    return Stratum(name, every.size, decode)


@functools.lru_cache(maxsize=None)
def _games_over() -> List[Tuple[int, Tuple[int, ...]]]:
    """Every (n, legal history that ends the game) for n = 1..GAME_OVER_MAX_N, sorted
    (new games of 1 and 2 stones among them: no first move exists)."""
    found: List[Tuple[int, Tuple[int, ...]]] = []
    for n in range(1, GAME_OVER_MAX_N + 1):
        game = TakeStones(n)
        stack: List[Tuple[int, Tuple[int, ...]]] = [(game.initial_state(), ())]
        while stack:
            state, taken = stack.pop()
            if game.is_terminal(state):
                found.append((n, taken))
            stack.extend((game.result(state, stone), taken + (stone,))
                         for stone in game.actions(state))
    return sorted(found)


GAME_OVER_MAX_N = 10        # 299 games over, each at depths 0..6


def _games_over_family() -> Stratum:
    def decode(number: int) -> Optional[Candidate]:
        n, taken = _games_over()[number // DEPTHS]
        depth = number % DEPTHS
        return (f"game-over-n{n}-k{len(taken)}-depth{depth}",
                _take_stones_args(n, taken, depth), {})
    return Stratum("game-over", len(_games_over()) * DEPTHS, decode)


# What every set of ten or more cases holds (engine.grading.generate): a new game (the
# official samples' k = 0), a first move, a game already over, a search to the end
# (depth 0) and a shallow one (depth 1 or 2).
CATEGORIES = (
    Category("new game", _going_on_where(lambda taken, depth: taken == 0),
             lambda: _histories_at("new-game", range(3, 31), lambda n: (0,), range(DEPTHS))),
    Category("first move", _going_on_where(lambda taken, depth: taken == 1),
             lambda: _histories_at("first-move", range(3, 31), lambda n: (1,), range(DEPTHS))),
    Category("game over", _over, _games_over_family),
    Category("depth 0 (to the end)", _going_on_where(lambda taken, depth: depth == 0),
             lambda: _histories_at("to-the-end", range(3, 18), lambda n: range(n // 2), (0,))),
    Category("depth 1 or 2", _going_on_where(lambda taken, depth: depth in (1, 2)),
             lambda: _histories_at("shallow", range(3, 31), lambda n: range(n // 2), (1, 2))),
)


_BOUNDS_LINE = re.compile(r"^alpha: (-?\d+)\tbeta: (-?\d+)$")

# A block of a Take-Stones listing: (last stone taken, stones left, alpha, beta).
Block = Tuple[int, Tuple[int, ...], int, int]


def _take_stones_listing(text: bytes) -> Optional[Tuple[List[Block], List[str]]]:
    """(blocks, tail) of a Take-Stones stdout, blocks = [(last, stones, alpha, beta)],
    tail = the lines after them; or None when it cannot be read that way."""
    lines = text.decode("ascii", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blocks: List[Block] = []
    index = 0
    while index + 2 < len(lines) and lines[index] not in ("NEXT MOVE", "Invalid input"):
        last, stones, bounds = lines[index:index + 3]
        match = _BOUNDS_LINE.match(bounds.rstrip(" "))
        if not re.match(r"^-?\d+$", last) or not match or \
                not all(word.isdigit() for word in stones.split()):
            return None
        blocks.append((int(last), tuple(int(w) for w in stones.split()),
                       int(match.group(1)), int(match.group(2))))
        index += 3
    return blocks, lines[index:]


def _take_stones_problem(case: Case) -> Tuple[int, List[int], int]:
    """(n, taken, depth) from the case's ``n k s1..sk depth`` (later arguments ignored)."""
    n, k = int(case.args[0]), int(case.args[1])
    numbers = [int(a) for a in case.args[2:3 + k]]
    return n, numbers[:k], numbers[k]


def _take_stones_value(n: int, taken: Sequence[int], depth: int, stone: int) -> float:
    """The alpha-beta value (Max's view) of the child of ``taken`` after ``stone``."""
    game = TakeStones(n)
    state = game.replay_history(list(taken))
    child = game.result(state, stone)
    limit = depth or n + 1
    # The memo only saves time (values do not depend on it): big cases repeat subtrees.
    return search(game, child, ExactSearch(depth=limit - 1, window=(-1000, 1000),
                                           memo={})).value


def _take_stones_difference(case: Case, expected: bytes, actual: bytes) -> Tuple[str, str]:
    want = _take_stones_listing(expected)
    got = _take_stones_listing(actual)
    if want is None or got is None or not want[0] or not got[0] or \
            want[1][:1] != ["NEXT MOVE"]:
        return content_difference(expected, actual, "stdout")
    findings: List[Tuple[str, str]] = []
    root = want[0][-1]
    got_root = got[0][-1]

    def entries(blocks: List[Block]) -> List[Entry]:
        return [Entry(len(root[1]) - len(b[1]), b, f"alpha: {b[2]}, beta: {b[3]}")
                for b in blocks[:-1]]

    if want[0] != got[0]:
        if got_root[:2] != root[:2]:
            findings.append(("trace: the root block is wrong",
                             f"stdout: the last block (the root) should be "
                             f"{root[0]} / {' '.join(map(str, root[1]))} / alpha: "
                             f"{root[2]} beta: {root[3]}; got {got_root}"))
        else:
            found = diagnose_trace(entries(want[0]), entries(got[0]),
                                   lambda parent, key: str(key[0]), root,
                                   lambda path: "taking " + ", ".join(path),
                                   line_of=lambda i: 3 * i + 3, what="stdout")
            if found is None:
                findings.append(content_difference(expected, actual, "stdout"))
            elif want[0][:-1] == got[0][:-1]:
                findings.append(("trace: the root's bounds differ",
                                 f"stdout: the root block should end with alpha: "
                                 f"{root[2]} beta: {root[3]}, got alpha: {got_root[2]} "
                                 f"beta: {got_root[3]}"))
            else:
                lines = first_line_difference(expected, actual, "stdout")[1]
                findings.append((f"trace: {found.reason}", f"{found.detail}\n{lines}"))
    if want[1] != got[1]:
        findings.append(_take_stones_move(case, want[1], got[1]))
    if not findings:
        return content_difference(expected, actual, "stdout")
    return "; ".join(r for r, _ in findings), "\n".join(d for _, d in findings)


def _take_stones_move(case: Case, want: List[str], got: List[str]) -> Tuple[str, str]:
    if len(got) < 2 or got[0] != "NEXT MOVE" or not got[1].strip().isdigit():
        return ("the NEXT MOVE section is wrong",
                f"stdout: after the trace expected {want}, got {got[:4]}")
    want_stone, got_stone = int(want[1]), int(got[1].strip())
    if want_stone == got_stone:
        return ("wrong stones left after the move",
                f"stdout: after NEXT MOVE {want_stone} expected the stones {want[2:]!r}, "
                f"got {got[2:]!r}")
    n, taken, depth = _take_stones_problem(case)
    game = TakeStones(n)
    if got_stone not in game.actions(game.replay_history(taken)):
        return (f"wrong move: expected {want_stone}, got {got_stone} (not a legal stone)",
                f"stdout: NEXT MOVE {got_stone} is not a legal stone here")
    want_value = _take_stones_value(n, taken, depth, want_stone)
    got_value = _take_stones_value(n, taken, depth, got_stone)
    head = f"wrong move: expected {want_stone}, got {got_stone}"
    if want_value == got_value:
        return (f"{head} (tie-break slip: both stones have value {want_value}; the grader "
                "keeps the first, smallest stone)",
                f"stdout: NEXT MOVE {want_stone} and {got_stone} have the same value "
                f"{want_value} (Max's view); the grader keeps the first strictly better "
                "stone in ascending order")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"stdout: NEXT MOVE {want_stone} has value {want_value}, {got_stone} has "
            f"{got_value} (Max's view: Max takes the highest, Min the lowest)")


def judge(case: Case, outcome: Outcome, lenient: bool) -> Sequence[Optional[Finding]]:
    return [judge_text("stdout", case.stdout, outcome.stdout, lenient,
                       lambda e, a: _take_stones_difference(case, e, a))]


# --- how a submission runs ------------------------------------------------------------

STDOUT_GRADED = True
UNREADABLE_ZEROES = False
FILE_LABEL = "stdout"

# The files a submission is recognised by (for the hints of a folder that is none).
ENTRY_POINTS = ("TakeStones.java", "TakeStones")


def detect(folder: Path) -> Plan:
    """TakeStones.java (with its other .java files), or a TakeStones script (ours)."""
    if is_file(folder / "TakeStones.java"):
        return needs(Plan("java", ("java", "TakeStones"),
                          build=("/bin/sh", "-c", "javac *.java")), "javac", "java")
    if is_file(folder / "TakeStones"):
        keep = ("TakeStones", "engine") if ours(folder) else None
        kind = "our repository" if keep else "python"
        return needs(Plan(kind, ("python3", "TakeStones"), keep=keep), "python3")
    return Plan("none", error="no TakeStones.java or TakeStones script")


# One point per case passed (engine.grading.judges.Judge.score).
score = one_point_per_case
