"""TakeStones: the alpha-beta trace and next move of Take-Stones (spec: shared/specs/take_stones.md).

    ./TakeStones n k s1 .. sk depth          (or: java TakeStones ... after make TakeStones.class)

n stones numbered 1..n (n <= 1000); k stones already taken, s1..sk in the order taken
(sk is the last move; each stone after s1 must divide or be a multiple of the one before);
depth is the search depth, 0 meaning "to the end of the game". Max is to move iff k is
even. Arguments after depth are ignored.

Prints every node alpha-beta visits, in post-order (the root last), as three lines:

    <last move, -1 for a new game>
    <every stone still on the table, ascending, each followed by a space>
    alpha: <a><TAB>beta: <b>

then NEXT MOVE, the chosen stone and the stones left after it. Bad input (not numbers, k
not matching the stones given, stones out of range or repeated, an illegal history)
prints "Invalid input" and exits 0 like the original program, with the reason on stderr;
a game that is already over prints the root's block, then "Invalid input".
"""

import gc
import operator
import platform
import sys
import time

from ..games.take_stones import TakeStones
from ..search import search
from ..trace import TraceRecorder
from .common import run_program

SUMMARY = "Take-Stones alpha-beta trace: ./TakeStones n k s1..sk depth"
USAGE = "usage: TakeStones n k s1 .. sk depth"
INVALID = "Invalid input"
# The assignment's initial bounds: v starts at -1000 (Max) / 1000 (Min), and so do alpha/beta.
BOUNDS = (-1000, 1000)
# Beyond this the game's tables (one n-bit mask per stone) and the trace (n digits per
# line) are too big to be useful; the assignment's cases have n <= 28.
MAX_STONES = 1000


class InvalidInput(Exception):
    """Input the original program answers with "Invalid input" (exit 0); message = reason."""


def parse_arguments(argv):
    """Return (n, taken, depth) from ``n k s1..sk depth`` or raise InvalidInput.

    Only the shape is checked here (integers, counts, ranges); the history's legality is
    checked by the game. depth 0 is returned as is (the caller maps it to n + 1).
    """
    numbers = []
    for position, text in enumerate(argv[:2], 1):
        numbers.append(_integer(text, "n" if position == 1 else "k"))
    if len(numbers) < 2:
        raise InvalidInput(f"expected at least n, k and depth; {USAGE}")
    n, k = numbers
    if not 1 <= n <= MAX_STONES:
        raise InvalidInput(f"n must be between 1 and {MAX_STONES}, not {n}")
    if not 0 <= k <= n:
        raise InvalidInput(f"k must be between 0 and n = {n}, not {k}")
    if len(argv) < k + 3:
        raise InvalidInput(f"k = {k} needs {k} stone(s) and then a depth, but "
                           f"{len(argv) - 2} argument(s) follow k; {USAGE}")
    taken = [_integer(text, f"stone s{index}") for index, text in enumerate(argv[2:2 + k], 1)]
    depth = _integer(argv[2 + k], "depth")
    if depth < 0:
        raise InvalidInput(f"depth must be 0 (to the end) or positive, not {depth}")
    return n, taken, depth


def _integer(text, what):
    """``int(text)`` for a plain decimal integer (optional sign), else InvalidInput."""
    body = text[1:] if text[:1] in "+-" else text
    if not (body.isascii() and body.isdigit()):
        raise InvalidInput(f"{what} must be an integer, not {text!r}")
    return int(text)


class StonesText(dict):
    """``table[bits]``: the text of the stones ``offset + i`` for each bit i set in ``bits``
    (each stone followed by a space), computed on first use and then looked up."""

    def __init__(self, offset):
        super().__init__()
        self.offset = offset

    def __missing__(self, bits):
        offset = self.offset
        text = self[bits] = "".join(f"{offset + i} " for i in range(bits.bit_length())
                                    if bits >> i & 1)
        return text


class BoundLines(dict):
    """``table[alpha, beta]``: the line ``alpha: A<TAB>beta: B``, made on first use."""

    def __missing__(self, bounds):
        text = self[bounds] = "alpha: %s\tbeta: %s\n" % bounds
        return text


CHUNK = 16   # stones per lookup table of the stones line


class TraceListing(TraceRecorder):
    """The assignment's node blocks, written in post-order as the search leaves each node.

    A block is ``last move``, ``available stones``, ``alpha: A<TAB>beta: B``. ``leave``
    is the hot path of the program (one call per node not replayed from the memo), so it
    is a closure over lookup tables: the last-move lines, the bound lines, and the stones
    line assembled from one :class:`StonesText` table per 16 stones of the availability
    mask (two lookups for n <= 31).

    After every ``housekeeping_every`` characters of new blocks it calls
    ``housekeeping()`` (the program trims its memo there) and flushes, so that neither
    the memo nor the unwritten text grows with the size of the trace.
    """

    def __init__(self, game, sink=None, housekeeping=None, housekeeping_every=1 << 20,
                 **options):
        super().__init__(sink, **options)
        self.game = game
        self.available_shift = game.shift + 1
        # Bit s of the availability mask is stone s: chunk i holds stones 16i..16i+15.
        self.stones_tables = [StonesText(CHUNK * i) for i in range(game.n // CHUNK + 1)]
        self.leave = self._make_leave(housekeeping, housekeeping_every)

    def stones_line(self, state):
        """Every stone on the table, ascending, each followed by one space (no newline)."""
        available = state >> self.available_shift
        mask = (1 << CHUNK) - 1
        return "".join([table[available >> (CHUNK * i) & mask]
                        for i, table in enumerate(self.stones_tables)])

    def _make_leave(self, housekeeping, every):
        # "-1" for a new game (last move 0), as the original program prints.
        last_lines = ["-1\n"] + [f"{stone}\n" for stone in range(1, self.game.n + 1)]
        last_mask = self.game.last_mask
        shift = self.available_shift
        bound_lines = BoundLines()
        append = self.chunks.append     # flush() clears this list in place
        left = every
        tables = self.stones_tables
        low, high = tables[0], tables[-1]
        stones_line = self.stones_line

        def after_block(size):
            nonlocal left
            left -= size
            if left <= 0:
                left = every
                if housekeeping is not None:
                    housekeeping()
                self.flush()

        # The stones line inline for the usual sizes (one or two tables), else by method.
        if len(tables) == 1:
            def leave(state, action, depth, value, alpha, beta, kind):
                nonlocal left
                block = (f"{last_lines[state >> 1 & last_mask]}{low[state >> shift]}\n"
                         f"{bound_lines[alpha, beta]}")
                append(block)
                left -= len(block)
                if left <= 0:
                    after_block(0)
        elif len(tables) == 2:
            def leave(state, action, depth, value, alpha, beta, kind):
                nonlocal left
                available = state >> shift
                block = (f"{last_lines[state >> 1 & last_mask]}{low[available & 0xFFFF]}"
                         f"{high[available >> CHUNK]}\n{bound_lines[alpha, beta]}")
                append(block)
                left -= len(block)
                if left <= 0:
                    after_block(0)
        else:
            def leave(state, action, depth, value, alpha, beta, kind):
                block = (f"{last_lines[state >> 1 & last_mask]}{stones_line(state)}\n"
                         f"{bound_lines[alpha, beta]}")
                append(block)
                after_block(len(block))
        return leave


SEGMENT = operator.itemgetter(1)   # the trace text of a memo entry


class BoundedMemo(dict):
    """The search's subtree memo, cut back by :meth:`trim` when it holds too much text.

    engine.search stores ``(value, trace segment, nodes, evaluations)`` per subtree. Each
    entry is counted as its segment's length plus ``ENTRY_COST`` bytes of bookkeeping.
    Past ``budget``, only the newest entries worth half the budget are kept (repeats of
    a subtree come mostly soon after it, in the same branch). Forgetting costs only speed
    (a later repeat is searched again and prints the same text), never bytes of output,
    and keeps the peak memory independent of the size of the trace.
    """

    ENTRY_COST = 256

    def __init__(self, budget):
        super().__init__()
        self.budget = budget

    def trim(self):
        """Keep the newest entries worth budget/2 if the memo is over budget."""
        cost = self.ENTRY_COST
        if sum(map(len, map(SEGMENT, self.values()))) + cost * len(self) <= self.budget:
            return
        kept, room = [], self.budget // 2
        for item in reversed(self.items()):     # dicts keep insertion order (3.7+)
            room -= len(item[1][1]) + cost
            if room < 0:
                break
            kept.append(item)
        self.clear()
        self.update(reversed(kept))


class Progress:
    """Output sink that also reports progress on stderr during long runs.

    The note (``TakeStones: N MB of trace written``, rewritten in place) appears only
    when stderr is a terminal and stdout is not (a trace piped to a file or a pager),
    and only after ``quiet_seconds``; :meth:`done` ends its line.
    """

    def __init__(self, out, quiet_seconds=2.0, clock=time.monotonic):
        self.out = out
        self.written = 0
        self.clock = clock
        self.start = clock()
        self.quiet_seconds = quiet_seconds
        self.enabled = _is_terminal(sys.stderr) and not _is_terminal(out)
        self.shown = False

    def write(self, text):
        self.out.write(text)
        self.written += len(text)

    def tick(self):
        if self.enabled and self.clock() - self.start >= self.quiet_seconds:
            sys.stderr.write(f"\rTakeStones: {self.written / 1e6:.0f} MB of trace written")
            sys.stderr.flush()
            self.shown = True

    def done(self):
        if self.shown:
            sys.stderr.write("\n")


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


MEMO_BUDGET = 32 << 20      # bytes of memoised trace (see BoundedMemo)
MAX_SEGMENT = 1 << 15       # longest subtree text kept for replay (TraceRecorder)
HOUSEKEEPING_EVERY = 1 << 20  # characters of new trace between memo trims and flushes


def run(argv):
    out = sys.stdout
    try:
        n, taken, depth = parse_arguments(argv)
        game = TakeStones(n)
        try:
            state = game.replay_history(taken)
        except ValueError as error:
            raise InvalidInput(str(error)) from None
    except InvalidInput as error:
        out.write(INVALID + "\n")
        print(f"TakeStones: {error}", file=sys.stderr)
        return 0

    memo = BoundedMemo(MEMO_BUDGET)
    progress = Progress(out)

    def housekeeping():
        memo.trim()
        progress.tick()

    listing = TraceListing(game, sink=progress.write, housekeeping=housekeeping,
                           housekeeping_every=HOUSEKEEPING_EVERY, max_segment=MAX_SEGMENT)
    # A subtree's text depends only on (state, depth left, alpha, beta) - the state holds
    # the stones, the last move and the side to move - so the memo prints each distinct
    # subtree once and replays it, byte-identical to the full search.
    # The memo's many small tuples make no cycles, so CPython's collections are pure
    # waste here; PyPy needs its collector to give the emptied memo's memory back.
    collecting = gc.isenabled() and platform.python_implementation() == "CPython"
    if collecting:
        gc.disable()
    try:
        result = search(game, state, prune=True, depth=depth or n + 1, window=BOUNDS,
                        tracer=listing, memo=memo)
    finally:
        if collecting:
            gc.enable()
    listing.flush()
    progress.done()
    if result.action is None:
        out.write(listing.text() + INVALID + "\n")
        print(f"TakeStones: the game is already over: the player to move "
              f"({'Max' if game.is_maxs_turn(state) else 'Min'}) has no legal stone",
              file=sys.stderr)
        return 0
    out.write(f"NEXT MOVE\n{result.action}\n{listing.stones_line(result.child)}\n")
    return 0


def main(argv=None):
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("TakeStones", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
