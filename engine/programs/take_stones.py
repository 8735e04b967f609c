"""TakeStones: the alpha-beta trace and next move of Take-Stones (shared/specs/take_stones.md).

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


# Bytes the node blocks use ("7\n", "1 2 5 \n", "alpha: -1000\tbeta: 100\n"); every other
# byte value is free to stand for a digit or the space of a stone in a template.
BLOCK_BYTES = frozenset(b"0123456789- \t\n:alphbet")


class Concatenations(dict):
    """``table[chunk]``: ``items[offset + i]`` for the bits i of the 16-bit ``chunk``,
    ascending, joined; made on first use."""

    def __init__(self, items, offset):
        super().__init__()
        self.items, self.offset = items, offset

    def __missing__(self, chunk):
        joined = self[chunk] = b"".join(self.items[self.offset + i] for i in range(16)
                                        if chunk >> i & 1)
        return joined


class Placeholders:
    """Stand-in bytes for the stones of a template, and the tables that resolve them.

    ``codes[s]`` has one free byte per byte of ``b"s "``. ``resolver(stones, present)``
    gives the ``bytes.translate`` arguments that turn the codes of ``stones`` into their
    text where ``present`` has the stone and delete them elsewhere, leaving the other codes
    alone. ``fits`` is False when n is too large for 256 byte values (n > 81).
    """

    CACHE_SIZE = 1 << 16     # resolvers kept before the cache is emptied (memory bound)

    def __init__(self, n):
        free = [byte for byte in range(256) if byte not in BLOCK_BYTES]
        self.width = n + 1
        self.text = [b""] + [b"%d " % stone for stone in range(1, n + 1)]
        self.fits = sum(map(len, self.text)) <= len(free)
        self.codes = [b""] * (n + 1)
        if self.fits:
            used = 0
            for stone in range(1, n + 1):
                size = len(self.text[stone])
                self.codes[stone] = bytes(free[used:used + size])
                used += size
        self.resolvers = {}
        # Lookup tables for 16 stones at a time (stone 16i + j is bit j of chunk i);
        # those of line() take 8 stones of each of its two sets.
        chunks = (n + 1 + 15) // 16
        self.text += [b""] * (16 * chunks - len(self.text))
        self.codes += [b""] * (16 * chunks - len(self.codes))
        self.code_chunks = [Concatenations(self.codes, 16 * i) for i in range(chunks)]
        self.text_chunks = [Concatenations(self.text, 16 * i) for i in range(chunks)]
        self.line_chunks = [{} for _ in range(2 * chunks)]

    def resolver(self, stones, present):
        """(table, delete) for ``segment.translate``: resolve the codes of ``stones``."""
        present &= stones
        key = stones << self.width | present
        found = self.resolvers.get(key)
        if found is None:
            if len(self.resolvers) >= self.CACHE_SIZE:
                self.resolvers.clear()
            found = self.resolvers[key] = (
                bytes.maketrans(self.codes_of(present), self.text_of(present)),
                self.codes_of(stones & ~present))
        return found

    def codes_of(self, stones):
        """The codes of ``stones``, ascending, concatenated."""
        return self._concatenation(stones, self.codes, self.code_chunks)

    def text_of(self, stones):
        """The text of ``stones``, ascending, concatenated: ``b"2 5 11 "``."""
        return self._concatenation(stones, self.text, self.text_chunks)

    def line(self, text_stones, code_stones):
        """Every stone of either set, ascending: text for ``text_stones``, codes for the
        others (the two sets are disjoint)."""
        pieces = []
        chunk = 0
        while text_stones or code_stones:
            index = (code_stones & 0xFF) << 8 | (text_stones & 0xFF)
            table = self.line_chunks[chunk]
            piece = table.get(index)
            if piece is None:
                first = 8 * chunk
                piece = table[index] = b"".join(
                    self.text[first + i] if text_stones >> i & 1 else self.codes[first + i]
                    for i in range(8) if (text_stones | code_stones) >> i & 1)
            pieces.append(piece)
            text_stones >>= 8
            code_stones >>= 8
            chunk += 1
        return b"".join(pieces)

    def _concatenation(self, stones, items, tables):
        """``items[s]`` for the stones s in ``stones``, ascending, joined (16 at a time)."""
        pieces = []
        for table in tables:
            if not stones:
                break
            pieces.append(table[stones & 0xFFFF])
            stones >>= 16
        return b"".join(pieces)


class TraceListing(TraceRecorder):
    """The assignment's node blocks (bytes), in post-order as the search leaves each node.

    A block is ``last move``, ``available stones``, ``alpha: A<TAB>beta: B``.

    With ``merge`` the search's memo is keyed by ``game.subtree_key``: states that differ
    only in stones their subtree can never touch share one memo entry, so the recorded
    text must not spell those stones out. Each recorded subtree is a *template* in the
    *form* of its root: the stones whose presence varies among the states sharing the
    key (``game.varying_stones``) are written as placeholder codes in every line, all
    other stones as text. A template is resolved into the form of the enclosing subtree
    (a subset of those stones: the one printed at the top is the empty form, plain text)
    when it is captured or replayed, by one ``bytes.translate`` per template. Without
    ``merge`` (or for n > 81, too many stones for the free byte values) every form is
    empty and the memo is keyed by the state itself.

    ``stack`` holds one ``[start, form, state, whole, head]`` per subtree being recorded
    (the first stands for the top level): where its chunks start, its form, its state
    (which stones are present), whether its text is still all in ``chunks`` (a flush
    writes out the text of open subtrees, which then can no longer be memoised), and the
    first two lines of its block.

    ``memo`` (a :class:`BoundedMemo`) is told the size of every segment returned for it.
    The hot methods (``leave``, ``mark``, ``capture``, ``replay``) are closures over
    local names: they run once per node.
    """

    HEADS_CACHE_SIZE = 1 << 18   # heads kept before the cache is emptied (memory bound)

    def __init__(self, game, sink=None, merge=True, memo=None, **options):
        super().__init__(sink, **options)
        self.game = game
        self.memo = memo
        self.placeholders = Placeholders(game.n)
        self.merge = merge and self.placeholders.fits
        self.stack = [[0, 0, None, True, None]]
        self._install_hot_path()

    def head(self, form, state):
        """The first two lines of the block of ``state`` in ``form`` (bytes)."""
        game, placeholders = self.game, self.placeholders
        available = game.available(state)
        line = (placeholders.line(available & ~form, form) if form
                else placeholders.text_of(available))
        return b"%d\n%s\n" % (game.last_move(state) or -1, line)

    def stones_line(self, state):
        """Every stone on the table, ascending, each followed by one space (str, no newline)."""
        return "".join(f"{stone} " for stone in self.game.available_stones(state))

    def _install_hot_path(self):
        game, stack, chunks = self.game, self.stack, self.chunks
        append, join = chunks.append, b"".join
        make_head, varying_stones, memo = self.head, game.varying_stones, self.memo
        merge, key_bits = self.merge, game.key_bits
        width = game.width
        others_offset = game.shift + 1 + width
        placeholders = self.placeholders
        resolvers, make_resolver = placeholders.resolvers, placeholders.resolver
        bound_lines, heads = {}, {}
        max_segment, flush_chunks, flush_chars = (self.max_segment, self.flush_chunks,
                                                  self.flush_chars)
        streaming = self.sink is not None

        offset, stones_mask, last_mask = game.shift + 1, game.stones_mask, game.last_mask
        last_lines = [b"-1\n"] + [b"%d\n" % stone for stone in range(1, game.n + 1)]
        text_tables, text_of = placeholders.text_chunks, placeholders.text_of
        low, high = text_tables[0], text_tables[-1]
        two_chunks = len(text_tables) <= 2

        def leave(state, action, depth, value, alpha, beta, kind):
            head = stack[-1][4]
            if head is None:              # the root, or any node without merge: plain text
                stones = state >> offset
                available = (stones & stones_mask) | (stones >> width)
                head = last_lines[state >> 1 & last_mask] + (
                    low[available & 0xFFFF] + high[available >> 16] if two_chunks
                    else text_of(available)) + b"\n"
            bounds = bound_lines.get((alpha, beta))
            if bounds is None:
                bounds = bound_lines[alpha, beta] = b"alpha: %d\tbeta: %d\n" % (alpha, beta)
            append(head + bounds)

        def mark(state=None):
            if not merge:                 # plain text, head made by leave
                stack.append([len(chunks), 0, state, True, None])
                return
            # A form and a head are functions of the key bits but for the side to move.
            index = (state & key_bits) >> 1
            known = heads.get(index)
            if known is None:
                if len(heads) >= self.HEADS_CACHE_SIZE:
                    heads.clear()
                form = varying_stones(state)
                known = heads[index] = (form, make_head(form, state))
            stack.append([len(chunks), known[0], state, True, known[1]])

        def resolved(segment, form, state):
            """``segment`` in ``form`` (recorded for ``state``'s key) in the current form."""
            stones = form & ~stack[-1][1]
            if not stones:
                return segment
            # The stones a form holds are never key stones: present = among the others.
            present = (state >> others_offset) & stones
            resolver = resolvers.get(stones << width | present)
            if resolver is None:
                resolver = make_resolver(stones, present)
            return segment.translate(resolver[0], resolver[1])

        def capture(position):
            start, form, state, whole, _ = stack.pop()
            if len(chunks) - start == 1:
                segment = chunks.pop()
            else:
                segment = join(chunks[start:])
                del chunks[start:]
            append(resolved(segment, form, state))
            if streaming and len(chunks) >= flush_chunks:
                self.flush()
            if not whole or len(segment) > max_segment:
                return None
            if memo is not None:
                memo.added(len(segment))
            return segment, form

        def replay(segment, state=None):
            text = resolved(segment[0], segment[1], state)
            append(text)
            if streaming:
                self.pending_chars += len(text)
                if self.pending_chars >= flush_chars or len(chunks) >= flush_chunks:
                    self.flush()

        self.leave, self.mark, self.capture, self.replay = leave, mark, capture, replay

    # --- output ------------------------------------------------------------------------
    def flush(self):
        """Resolve the pending text of every open subtree into plain text and write it.

        The open subtrees' text can then no longer be memoised (``whole`` turns False);
        their later chunks start at 0.
        """
        chunks = self.chunks
        if self.sink is None or not chunks:
            return
        stack = self.stack
        pieces, end = [], len(chunks)
        # Each open subtree's chunks run from its start to the next one's start, in its
        # form; they are resolved with the presence of the stones at its root.
        for level in range(len(stack) - 1, 0, -1):
            entry = stack[level]
            start, form, state = entry[0], entry[1], entry[2]
            if start < end:
                text = b"".join(chunks[start:end])
                if form:
                    text = text.translate(*self.placeholders.resolver(
                        form, self.game.available(state)))
                pieces.append(text)
                end = start
            entry[0], entry[3] = 0, False
        pieces.append(b"".join(chunks[:end]))
        pieces.reverse()
        self.sink(b"".join(pieces))
        chunks.clear()
        self.pending_chars = 0
        self.generation += 1

    def text(self):
        """All text recorded and not yet flushed (str)."""
        return b"".join(self.chunks).decode("ascii")


class BoundedMemo(dict):
    """The search's subtree memo, emptied whenever its templates would pass ``budget``.

    The listing reports each segment it hands to the search for memoising
    (:meth:`added`); each entry is counted as its segment's length plus ``ENTRY_COST``
    bytes of bookkeeping. Forgetting costs only speed (a later repeat is searched again
    and prints the same text), never bytes of output, and keeps the peak memory
    independent of the size of the trace. Emptying it all is cheaper than keeping the
    newest entries: for ``28 0 0`` 1.89 s against 2.14 s, for ``28 0 12`` 3.38 s
    against 4.18 s (the walk over the entries costs more than the repeats it saves).
    """

    ENTRY_COST = 256

    def __init__(self, budget):
        super().__init__()
        self.budget = budget
        self.cost = 0

    def added(self, size):
        """Count a segment of ``size`` bytes about to be stored, after emptying the memo
        if the segment would take it over budget."""
        cost = size + self.ENTRY_COST
        if self.cost + cost > self.budget:
            self.clear()
            self.cost = 0
        self.cost += cost


class Progress:
    """Output sink (bytes) that also reports progress on stderr during long runs.

    The note (``TakeStones: N MB of trace written``, rewritten in place) appears only
    when stderr is a terminal and stdout is not (a trace piped to a file or a pager),
    and only after ``quiet_seconds``; :meth:`done` ends its line.
    """

    def __init__(self, out, quiet_seconds=2.0, clock=time.monotonic):
        self.write_bytes = binary_writer(out)
        self.written = 0
        self.clock = clock
        self.start = clock()
        self.quiet_seconds = quiet_seconds
        self.enabled = _is_terminal(sys.stderr) and not _is_terminal(out)
        self.shown = False

    def write(self, data):
        self.write_bytes(data)
        self.written += len(data)
        if self.enabled and self.clock() - self.start >= self.quiet_seconds:
            sys.stderr.write(f"\rTakeStones: {self.written / 1e6:.0f} MB of trace written")
            sys.stderr.flush()
            self.shown = True

    def done(self):
        if self.shown:
            sys.stderr.write("\n")


def binary_writer(stream):
    """A function writing bytes to the text ``stream``: to its buffer when it has one
    (after flushing the text written so far), else decoded."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return lambda data: stream.write(data.decode("ascii"))
    stream.flush()
    return buffer.write


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


MEMO_BUDGET = 32 << 20      # bytes of memoised templates (see BoundedMemo)
MAX_SEGMENT = 1 << 15       # longest subtree text kept for replay (TraceRecorder)
FLUSH_CHARS = 1 << 20       # replayed bytes pending before a write (TraceRecorder)
# Memo keyed by game.subtree_key (see TraceListing) on CPython only: its per-node work
# is what CPython pays for, while PyPy's JIT runs the plain per-state memo faster than
# the byte templates (28 0 0: CPython 2.2 s merged / 3.2 s plain; PyPy 4.2 s / 2.0 s).
MERGE_SUBTREES = platform.python_implementation() == "CPython"


def run(argv):
    out = sys.stdout
    try:
        n, taken, depth = parse_arguments(argv)
        limit = depth or n + 1
        # A node on the cut-off is evaluated only if `limit` more stones can be taken.
        # If none can be, the search has no cut-off, and the memo keys need neither the
        # depth nor the stones evaluations read: many more subtrees share a key.
        evaluations = limit <= n - len(taken)
        # With evaluations the key must keep the stones they read, nearly all of them:
        # merging would cost the split's reachability searches and save little.
        merging = MERGE_SUBTREES and not evaluations and Placeholders(n).fits
        game = TakeStones(n, evaluations=evaluations, split=merging)
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
    listing = TraceListing(game, sink=progress.write, merge=merging, memo=memo,
                           max_segment=MAX_SEGMENT, flush_chars=FLUSH_CHARS)
    # A subtree's text depends only on (state, depth left, alpha, beta), and its shape
    # and values only on (game.subtree_key(state), depth left, alpha, beta): the memo
    # keeps each distinct subtree once, as a template the listing resolves for every
    # state it is replayed for, byte-identical to the full search.
    # The memo's many small tuples make no cycles, so CPython's collections are pure
    # waste here; PyPy needs its collector to give the emptied memo's memory back.
    collecting = gc.isenabled() and platform.python_implementation() == "CPython"
    if collecting:
        gc.disable()
    try:
        result = search(game, state, prune=True, depth=limit if evaluations else None,
                        window=BOUNDS,
                        tracer=listing, memo=memo,
                        memo_key=game.subtree_key if listing.merge else None)
    finally:
        if collecting:
            gc.enable()
    listing.flush()
    progress.done()
    if result.action is None:
        progress.write_bytes(INVALID.encode() + b"\n")
        print(f"TakeStones: the game is already over: the player to move "
              f"({'Max' if game.is_maxs_turn(state) else 'Min'}) has no legal stone",
              file=sys.stderr)
    else:
        progress.write_bytes(f"NEXT MOVE\n{result.action}\n"
                             f"{listing.stones_line(result.child)}\n".encode())
    out.flush()
    return 0


def main(argv=None):
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("TakeStones", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
