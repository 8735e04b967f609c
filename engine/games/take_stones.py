"""Take-Stones (CS 540 Spring 2017, HW2 P3): rules and static evaluation, no I/O.

Spec: ``shared/specs/take_stones.md``. Stones are numbered 1..n; players alternately take
one stone; Max moves first (Max is to move iff an even number of stones has been taken).

* First move of a new game: an odd stone i with i < n/2 (real division).
* Later moves: an available stone that is a factor or a multiple of the last move.
* A player with no move loses: -100 when Max is to move, +100 when Min is.

A state is one int (small, hashable, cheap as a memo key)::

    state = (available << shift | last_move) << 1 | max_to_move

``available`` has bit s set when stone s is still on the table; ``last_move`` is 0 for a
new game (printed as -1 by the program); ``shift`` = n.bit_length(). Use
:meth:`TakeStones.state`, :meth:`available`, :meth:`last_move` rather than the bits.
"""

from ..game import Game

WIN = 100  # the assignment's value of a won game (Max's view: +100 when Min cannot move)


def smallest_prime_factors(limit):
    """List ``spf`` with ``spf[m]`` the smallest prime factor of m for 2 <= m <= limit."""
    spf = list(range(limit + 1))
    for p in range(2, int(limit ** 0.5) + 1):
        if spf[p] == p:
            for multiple in range(p * p, limit + 1, p):
                if spf[multiple] == multiple:
                    spf[multiple] = p
    return spf


def largest_prime_factor(m, spf):
    """Largest prime factor of ``m`` >= 2, using the table of :func:`smallest_prime_factors`."""
    while spf[m] != m:
        m //= spf[m]
    return m


def popcount(mask):
    """Number of set bits (int.bit_count needs Python 3.10; we support 3.8)."""
    return bin(mask).count("1")


class TakeStones(Game):
    """The game with n stones. Actions are stone numbers, visited in ascending order."""

    def __init__(self, n):
        if n < 1:
            raise ValueError(f"n must be at least 1, not {n}")
        self.n = n
        self.shift = n.bit_length()
        self.last_mask = (1 << self.shift) - 1
        self.all_stones = ((1 << (n + 1)) - 1) & ~1          # bits 1..n
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
        self._prepare_hot_path()

    # --- states ------------------------------------------------------------------------
    def state(self, available, last_move, max_to_move):
        """The state with stones ``available`` (a bit mask), ``last_move`` (0 = none)."""
        return (available << self.shift | last_move) << 1 | (1 if max_to_move else 0)

    def initial_state(self):
        """A new game: every stone on the table, no last move, Max to move."""
        return self.state(self.all_stones, 0, True)

    def available(self, state):
        """Bit mask of the stones still on the table (bit s = stone s)."""
        return state >> (self.shift + 1)

    def available_stones(self, state):
        """The stones still on the table, ascending."""
        mask = self.available(state)
        return [s for s in range(1, self.n + 1) if mask >> s & 1]

    def last_move(self, state):
        """The stone taken last, 0 for a new game."""
        return (state >> 1) & self.last_mask

    def is_maxs_turn(self, state):
        return bool(state & 1)

    def replay_history(self, taken):
        """The state after the stones ``taken`` (in order) from a new game.

        Raises ValueError naming the first stone that is out of range, repeated, or not a
        factor or multiple of the stone taken before it. The FIRST stone of a history is
        not held to the first-move rule (odd, < n/2): the official sample 5 starts with
        stone 4 (``10 3 4 2 6 4``) and the original program accepts it.
        """
        state = self.initial_state()
        for turn, stone in enumerate(taken, 1):
            if not 1 <= stone <= self.n:
                raise ValueError(f"stone {stone} (move {turn}) is not between 1 and {self.n}")
            if not self.available(state) >> stone & 1:
                raise ValueError(f"stone {stone} (move {turn}) was already taken")
            last = self.last_move(state)
            if last and not self.related[last] >> stone & 1:
                raise ValueError(f"stone {stone} (move {turn}) is illegal: it is neither "
                                 f"a factor nor a multiple of the last move {last}")
            state = self.result(state, stone)
        return state

    # --- the assignments' interface ----------------------------------------------------
    def legal_mask(self, state):
        """Bit mask of the legal moves in ``state``."""
        return (state >> (self.shift + 1)) & self.related[(state >> 1) & self.last_mask]

    def actions(self, state):
        mask = self.legal_mask(state)
        return [s for s in range(1, self.n + 1) if mask >> s & 1]

    def result(self, state, stone):
        available = self.available(state) & ~(1 << stone)
        return self.state(available, stone, not state & 1)

    def is_terminal(self, state):
        return not self.legal_mask(state)

    def utility(self, state):
        """The player to move has no move and loses: -100 if that is Max, else +100."""
        return -WIN if state & 1 else WIN

    def evaluate(self, state):
        """The assignment's static evaluation of a non-terminal state (same sign for both).

        stone 1 available: 0; lastMove 1: +5 if the number of successors is odd, else -5;
        lastMove prime p: +7 if the number of available multiples of p is odd, else -7;
        lastMove composite: p = its largest prime factor, +6 if the number of available
        stones divisible by p is odd, else -6. "Available" is every stone on the table,
        not only the legal successors: the official output 2 fits only that reading.
        """
        available = state >> (self.shift + 1)
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
    def _prepare_hot_path(self):
        """Tables in state coordinates, so that a node costs a few int operations.

        ``moves_in_state[m]``: ``related[m]`` shifted onto the availability bits of a state.
        ``stone_tables[m]``: ``(s, availability bit of s in a state, s << 1)`` for each s
        related to m, ascending.
        """
        offset = self.shift + 1
        self.low_bits = (1 << offset) - 1
        self.moves_in_state = [mask << offset for mask in self.related]
        self.stone_tables = [
            [(s, 1 << (s + offset), s << 1) for s in range(1, self.n + 1) if mask >> s & 1]
            for mask in self.related]

    def terminal_value(self, state):
        """-100/+100 when the side to move has no move, else None (tested before depth)."""
        if state & self.moves_in_state[(state >> 1) & self.last_mask]:
            return None
        return -WIN if state & 1 else WIN

    def successors(self, state):
        """(stone, child) for every legal stone, ascending (the assignment's visit order)."""
        # The child: the stone's availability bit cleared, last move and side replaced.
        base = state & ~self.low_bits
        side = (state & 1) ^ 1
        return [(stone, (base ^ bit) | tail | side)
                for stone, bit, tail in self.stone_tables[(state >> 1) & self.last_mask]
                if state & bit]
