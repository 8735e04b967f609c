"""Take-Stones (CS 540 Spring 2017, HW2 P3): rules and static evaluation, no I/O.

Documented in ``docs/take_stones.md``. Stones are numbered 1..n; players alternately take
one stone; Max moves first (Max is to move iff an even number of stones has been taken).

* First move of a new game: an odd stone i with i < n/2 (real division).
* Later moves: an available stone that is a factor or a multiple of the last move.
* A player with no move loses: -100 when Max is to move, +100 when Min is.

A state is one int (small, hashable, cheap as a memo key)::

    state = ((others << width | key_stones) << shift | last_move) << 1 | max_to_move

The stones on the table are ``key_stones | others`` (bit s = stone s; ``width`` = n + 1;
``shift`` = n.bit_length()); ``last_move`` is 0 for a new game (printed as -1 by the
program). The split is a function of the stones and the last move, so every position has
exactly one state: ``key_stones`` are the stones the rest of the game can still depend on
(those reachable from the last move through chains of factors and multiples, plus those
an evaluation in that part of the game counts), ``others`` the stones no later move can
take and no evaluation counts. :meth:`TakeStones.subtree_key` drops ``others``: positions
that differ only there have the same game tree, with the same values, and only the
printed stone lists differ. Use :meth:`TakeStones.state`, :meth:`available`,
:meth:`last_move` rather than the bits.
"""

from __future__ import annotations

from functools import partial
from operator import and_

from ..game import Game

# The grader programs import this module on every run; typing (about 10 ms of start-up)
# is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

WIN = 100  # the assignment's value of a won game (Max's view: +100 when Min cannot move)


def smallest_prime_factors(limit: int) -> List[int]:
    """List ``spf`` with ``spf[m]`` the smallest prime factor of m for 2 <= m <= limit."""
    spf = list(range(limit + 1))
    for p in range(2, int(limit ** 0.5) + 1):
        if spf[p] == p:
            for multiple in range(p * p, limit + 1, p):
                if spf[multiple] == multiple:
                    spf[multiple] = p
    return spf


def largest_prime_factor(m: int, spf: Sequence[int]) -> int:
    """Largest prime factor of ``m`` >= 2, using the table of :func:`smallest_prime_factors`."""
    while spf[m] != m:
        m //= spf[m]
    return m


class UnionTable(dict):
    """``table[chunk]``: the union of ``masks[offset + i]`` over the bits i set in ``chunk``
    (a 16-bit slice of a stone set), computed on first use from a smaller chunk."""

    def __init__(self, masks: Sequence[int], offset: int) -> None:
        super().__init__({0: 0})
        self.masks = masks
        self.offset = offset

    def __missing__(self, chunk: int) -> int:
        low = chunk & -chunk
        index = self.offset + low.bit_length() - 1
        union = self[chunk] = self[chunk ^ low] | (self.masks[index]
                                                   if index < len(self.masks) else 0)
        return union


def union_tables(masks: Sequence[int]) -> List[UnionTable]:
    """One :class:`UnionTable` per 16 stones of ``masks`` (see :func:`union_of`)."""
    return [UnionTable(masks, offset) for offset in range(0, len(masks), 16)]


def union_of(tables: Sequence[UnionTable], stones: int) -> int:
    """The union of ``masks[s]`` over the stones s in the set ``stones``."""
    union = 0
    for table in tables:
        if not stones:
            break
        union |= table[stones & 0xFFFF]
        stones >>= 16
    return union


def union_lists(masks: Sequence[int], count: int, bits: int = 11) -> List[List[int]]:
    """``count`` lists, ``lists[j][chunk]`` the union of ``masks[bits * j + i]`` over the
    bits i set in ``chunk``, for every ``chunk`` below ``2**bits`` (masks past the end of
    ``masks`` count as empty): the union over a set of up to ``count * bits`` stones is
    ``count`` list indexes.

    Precomputed (``2**bits`` entries per list): for few stones, a list index is much
    cheaper than a dict lookup with its int hash and comparison.
    """
    lists = []
    for offset in range(0, count * bits, bits):
        table = [0] * (1 << bits)
        for chunk in range(1, 1 << bits):
            low = chunk & -chunk
            index = offset + low.bit_length() - 1
            table[chunk] = table[chunk ^ low] | (masks[index] if index < len(masks) else 0)
        lists.append(table)
    return lists


def popcount(mask: int) -> int:
    """Number of set bits (int.bit_count needs Python 3.10; we support 3.8)."""
    return bin(mask).count("1")


class TakeStones(Game):
    """The game with n stones. Actions are stone numbers, visited in ascending order.

    ``evaluations=False`` promises that no search evaluates a state (each searches to the
    end of the game): the key stones are then only the reachable ones, which lets far
    more positions share a :meth:`subtree_key`. Values and traces are the same.

    ``split=False`` makes every stone on the table a key stone: :meth:`subtree_key` is
    then the whole state, and :meth:`successors` skips the reachability search it needs
    otherwise (the cheaper choice when few positions would share a key anyway, e.g.
    when the stones evaluations read must be kept).
    """

    def __init__(self, n: int, evaluations: bool = True, split: bool = True) -> None:
        if n < 1:
            raise ValueError(f"n must be at least 1, not {n}")
        self.n = n
        self.shift = n.bit_length()
        self.last_mask = (1 << self.shift) - 1
        self.width = n + 1                                    # bits of a stone set
        self.stones_mask = (1 << self.width) - 1
        self.all_stones = self.stones_mask & ~1               # bits 1..n
        # related[s]: stones that divide s or are multiples of s (s itself excluded);
        # related[0]: the legal first moves, odd stones i < n/2, i.e. 2*i < n.
        related = [0] * (n + 1)
        related[0] = sum(1 << i for i in range(1, n + 1, 2) if 2 * i < n)
        for s in range(1, n + 1):
            for multiple in range(2 * s, n + 1, s):
                related[s] |= 1 << multiple
                related[multiple] |= 1 << s
        self.related = related
        # Evaluation masks (spec "Static evaluation"): for lastMove m >= 2 the stones that
        # count are the multiples of p, where p = m if m is prime, else its largest prime
        # factor; "multiples of p" includes p itself (a prime last move is taken anyway).
        spf = smallest_prime_factors(n)
        multiples_of = {}
        self.counted = [0, 0] + [0] * (n - 1)
        for m in range(2, n + 1):
            p = largest_prime_factor(m, spf)
            if p not in multiples_of:
                multiples_of[p] = sum(1 << q for q in range(p, n + 1, p))
            self.counted[m] = multiples_of[p]
        self.is_prime = [False, False] + [spf[m] == m for m in range(2, n + 1)]
        # seen_by[m]: the stones whose presence an evaluation with last move m reads:
        # stone 1 (value 0 while it is on the table), then the counted stones; for
        # last move 1 (or none) the successors, i.e. the related stones. None of them
        # without evaluations.
        self.seen_by = [0 if not evaluations else related[m] | 2 if m < 2
                        else self.counted[m] | 2 for m in range(n + 1)]
        self.related_of = union_tables(related)
        self.seen_of = union_tables(self.seen_by) if evaluations else None
        self.split = split
        self._prepare_hot_path()

    # --- states ------------------------------------------------------------------------
    def state(self, available: int, last_move: int, max_to_move: bool) -> int:
        """The state with stones ``available`` (a bit mask), ``last_move`` (0 = none)."""
        key_stones = self.key_stones(available, last_move)
        others = available & ~key_stones
        return (((others << self.width | key_stones) << self.shift | last_move) << 1
                | (1 if max_to_move else 0))

    def key_stones(self, available: int, last_move: int) -> int:
        """The stones of ``available`` the game after ``last_move`` can depend on.

        Those reachable from the last move by chains of factors and multiples through
        stones on the table (every stone a later move can take), plus those on the
        table that an evaluation with one of them (or the last move) as last move reads.
        """
        if not self.split:
            return available
        reachable, seen, _ = self._reach(last_move, available)
        return reachable | (available & seen)

    def varying_stones(self, state: int) -> int:
        """The stones that may be on the table or not among the states with the key of
        ``state`` (:meth:`subtree_key`); every other stone's presence the key fixes.

        Fixed: the key stones (present), the last move, the stones related to it or to
        a reachable stone, and those an evaluation there reads (all absent: present, they
        would be key stones).
        """
        if not self.split:
            return 0
        key_stones = (state >> (self.shift + 1)) & self.stones_mask
        last = (state >> 1) & self.last_mask
        if self.seen_of is None:
            # Without evaluations the key stones are exactly the reachable ones: the
            # stones related to them are one union away, no search needed.
            neighbours = self.related[last] | union_of(self.related_of, key_stones)
            return self.all_stones & ~(key_stones | 1 << last | neighbours)
        _, seen, neighbours = self._reach(last, key_stones)
        return self.all_stones & ~(key_stones | 1 << last | neighbours | seen)

    def _reach(self, start: int, available: int) -> Tuple[int, int, int]:
        """(stones of ``available`` reachable from ``start``, stones the evaluations with
        ``start`` or one of them as last move read, stones related to any of them).

        Breadth first, a whole frontier per step: the divisibility graph is shallow.
        """
        related_of, seen_of = self.related_of, self.seen_of
        reached, neighbours = 0, self.related[start]
        if neighbours & available & 2:
            # Stone 1 is a move and divides every stone: all are reachable through it,
            # and every stone is related to it.
            reached, neighbours = available, self.stones_mask
            seen = self.seen_by[start] | union_of(seen_of, reached) if seen_of else 0
            return reached, seen, neighbours
        frontier = neighbours & available
        if len(related_of) <= 2:          # n <= 31: two lookups per step, inline
            low, high = related_of[0], related_of[-1]
            while frontier:
                reached |= frontier
                neighbours |= low[frontier & 0xFFFF] | high[frontier >> 16]
                frontier = neighbours & available & ~reached
        while frontier:
            reached |= frontier
            neighbours |= union_of(related_of, frontier)
            frontier = neighbours & available & ~reached
        seen = self.seen_by[start] | union_of(seen_of, reached) if seen_of else 0
        return reached, seen, neighbours

    def initial_state(self) -> int:
        """A new game: every stone on the table, no last move, Max to move."""
        return self.state(self.all_stones, 0, True)

    def available(self, state: int) -> int:
        """Bit mask of the stones still on the table (bit s = stone s)."""
        stones = state >> (self.shift + 1)
        return (stones & self.stones_mask) | (stones >> self.width)

    def available_stones(self, state: int) -> List[int]:
        """The stones still on the table, ascending."""
        mask = self.available(state)
        return [s for s in range(1, self.n + 1) if mask >> s & 1]

    def last_move(self, state: int) -> int:
        """The stone taken last, 0 for a new game."""
        return (state >> 1) & self.last_mask

    def is_maxs_turn(self, state: int) -> bool:
        return bool(state & 1)

    def subtree_key(self, state: int) -> int:
        """The part of ``state`` its game tree depends on (``memo_key`` of engine.search).

        States with equal keys have the same moves, values and evaluations all the way
        down; they differ only in stones no move in the subtree takes and no evaluation
        reads, which a trace still prints (see the module doc).
        """
        return state & self.key_bits

    def replay_history(self, taken: Sequence[int]) -> int:
        """The state after the stones ``taken`` (in order) from a new game.

        Raises ValueError naming the first stone that is out of range or repeated: such a
        list describes no position. The move rules are NOT checked (see
        :meth:`first_rule_break`): like the original program, the position the taken
        stones describe is searched as given, the last stone being the last move, even
        when a stone was not a legal move at its turn.
        """
        state = self.initial_state()
        for turn, stone in enumerate(taken, 1):
            if not 1 <= stone <= self.n:
                raise ValueError(f"stone {stone} (move {turn}) is not between 1 and {self.n}")
            if not self.available(state) >> stone & 1:
                raise ValueError(f"stone {stone} (move {turn}) was already taken")
            state = self.result(state, stone)
        return state

    def first_rule_break(self, taken: Sequence[int]) -> Optional[str]:
        """A sentence naming the first stone of ``taken`` (a history that
        :meth:`replay_history` accepts) that was not a legal move at its turn, or None.

        A stone after the first must divide, or be a multiple of, the stone taken before
        it. The FIRST stone is not held to the first-move rule (odd, < n/2): the official
        sample 5 (``10 3 4 2 6 4``) starts with stone 4.
        """
        for turn in range(2, len(taken) + 1):
            last, stone = taken[turn - 2], taken[turn - 1]
            if not self.related[last] >> stone & 1:
                return (f"stone {stone} (move {turn}) is neither a factor nor a multiple "
                        f"of the last move {last}")
        return None

    # --- the assignments' interface ----------------------------------------------------
    def legal_mask(self, state: int) -> int:
        """Bit mask of the legal moves in ``state``."""
        return self.available(state) & self.related[(state >> 1) & self.last_mask]

    def actions(self, state: int) -> List[int]:
        mask = self.legal_mask(state)
        return [s for s in range(1, self.n + 1) if mask >> s & 1]

    def result(self, state: int, stone: int) -> int:
        available = self.available(state) & ~(1 << stone)
        return self.state(available, stone, not state & 1)

    def is_terminal(self, state: int) -> bool:
        return not self.legal_mask(state)

    def utility(self, state: int) -> int:
        """The player to move has no move and loses: -100 if that is Max, else +100."""
        return -WIN if state & 1 else WIN

    def evaluate(self, state: int) -> int:
        """The assignment's static evaluation of a non-terminal state (same sign for both).

        stone 1 available: 0; lastMove 1: +5 if the number of successors is odd, else -5;
        lastMove prime p: +7 if the number of available multiples of p is odd, else -7;
        lastMove composite: p = its largest prime factor, +6 if the number of available
        stones divisible by p is odd, else -6. "Available" is every stone on the table,
        not only the legal successors: the official output 2 fits only that reading.
        """
        available = self.available(state)
        if available & 2:
            return 0
        last = (state >> 1) & self.last_mask
        if last == 1:
            return 5 if popcount(available & self.related[1]) & 1 else -5
        if last == 0:
            # Never reached through the search (a new game always has stone 1); the rule
            # "number of successors" applies as for lastMove 1.
            return 5 if popcount(self.legal_mask(state)) & 1 else -5
        odd = popcount(available & self.counted[last]) & 1
        if self.is_prime[last]:
            return 7 if odd else -7
        return 6 if odd else -6

    # --- hot path ----------------------------------------------------------------------
    def _prepare_hot_path(self) -> None:
        """Masks in state coordinates, so that a node costs a few int operations.

        ``moves_in_state[m]``: ``related[m]`` shifted onto the key stones of a state (a
        legal move is reachable, so it is always a key stone). ``key_bits`` keeps the
        key stones, the last move and the side; ``others_bits`` the other stones.
        """
        offset = self.shift + 1
        self.low_bits = (1 << offset) - 1
        self.key_bits = (1 << (offset + self.width)) - 1
        self.others_bits = self.stones_mask << (offset + self.width)
        self.moves_in_state = [mask << offset for mask in self.related]
        # Without the split: (s, key bit of s in a state, s << 1) for each s related to m.
        self.stone_tables = [
            [(s, 1 << (s + offset), s << 1) for s in range(1, self.n + 1) if mask >> s & 1]
            for mask in self.related]
        # subtree_key(state) is state & key_bits: as a C-level callable, the search's
        # memo lookup (once per visited node) runs no Python frame for it.
        self.subtree_key = partial(and_, self.key_bits)  # type: ignore[method-assign]
        if not self.split:
            self.successors = self._unsplit_successors  # type: ignore[method-assign]
        elif self.seen_of is None and self.width <= 33:
            self.related_lists = union_lists(self.related, 3)
            # move_tables[max_to_move][m]: (s, bit of s, the low bits of the child after
            # s: last move s and the other side) for each s related to m, ascending.
            self.move_tables = [
                [[(s, 1 << s, s << 1 | (1 - side)) for s in range(1, self.n + 1)
                  if mask >> s & 1] for mask in self.related]
                for side in (0, 1)]
            self.successors = self._reach_successors  # type: ignore[method-assign]
            self.varying_stones = self._listed_varying_stones()  # type: ignore

    def _listed_varying_stones(self) -> Callable[[int], int]:
        """:meth:`varying_stones` without evaluations for n <= 32, as a closure over
        local names (the listing calls it once per searched node)."""
        offset, stones_mask, last_mask = self.shift + 1, self.stones_mask, self.last_mask
        related, all_stones = self.related, self.all_stones
        first, second, third = self.related_lists

        def varying_stones(state: int) -> int:
            key_stones = (state >> offset) & stones_mask
            last = (state >> 1) & last_mask
            return all_stones & ~(key_stones | 1 << last | related[last]
                                  | first[key_stones & 0x7FF]
                                  | second[key_stones >> 11 & 0x7FF] | third[key_stones >> 22])

        return varying_stones

    def terminal_value(self, state: int) -> Optional[int]:
        """-100/+100 when the side to move has no move, else None (tested before depth)."""
        if state & self.moves_in_state[(state >> 1) & self.last_mask]:
            return None
        return -WIN if state & 1 else WIN

    def _unsplit_successors(self, state: int) -> List[Tuple[int, int]]:
        """:meth:`successors` without the split: the stone's bit cleared, the last move
        and the side replaced (a list)."""
        base = state & ~self.low_bits
        side = (state & 1) ^ 1
        return [(stone, (base ^ bit) | tail | side)
                for stone, bit, tail in self.stone_tables[(state >> 1) & self.last_mask]
                if state & bit]

    def _reach_successors(self, state: int) -> Iterator[Tuple[int, int]]:
        """:meth:`successors` without evaluations for n <= 32: the key stones are the
        reachable ones only, found by the same breadth-first search, inline, with the
        unions of related stones read from three precomputed lists."""
        offset = self.shift + 1
        key_stones = (state >> offset) & self.stones_mask
        others = state & self.others_bits
        others_offset = offset + self.width
        related = self.related
        first, second, third = self.related_lists
        # The child's side is the other one: state & 1 picks the table for it.
        for stone, bit, tail in self.move_tables[state & 1][(state >> 1) & self.last_mask]:
            if not key_stones & bit:
                continue
            left = key_stones ^ bit
            if left & 2:
                # Stone 1 divides every stone: all of them are reachable through it.
                yield stone, (left << offset) | tail | others
                continue
            reached, neighbours = 0, related[stone]
            frontier = neighbours & left
            while frontier:
                reached |= frontier
                neighbours |= (first[frontier & 0x7FF] | second[frontier >> 11 & 0x7FF]
                               | third[frontier >> 22])
                frontier = neighbours & left & ~reached
            yield stone, ((reached << offset) | tail | others
                          | ((left ^ reached) << others_offset))

    def successors(self, state: int) -> Iterable[Tuple[int, int]]:
        """(stone, child) for every legal stone, ascending (the assignment's visit order).

        A generator: alpha-beta builds only the children it visits. The child after
        stone m keeps as key stones what is reachable from m among the parent's key
        stones (the parent's other stones are out of m's reach too) and what their
        evaluations read; the rest of the parent's key stones join the others.
        """
        offset = self.shift + 1
        key_stones = (state >> offset) & self.stones_mask
        last = (state >> 1) & self.last_mask
        side = (state & 1) ^ 1
        others = state & self.others_bits
        others_offset = offset + self.width
        legal = key_stones & self.related[last]
        reach = self._reach
        while legal:
            low = legal & -legal
            legal ^= low
            stone = low.bit_length() - 1
            left = key_stones ^ low
            reachable, seen, _ = reach(stone, left)
            kept = reachable | (left & seen)
            child = (kept << offset) | (stone << 1) | side
            yield stone, child | others | ((left ^ kept) << others_offset)
