"""Every seed its own cases: a program's random cases dealt out to seeds by construction.

A program's random cases come from *strata*: finite families of candidates, each a
:class:`Stratum` whose ``decode`` numbers its candidates ``0 .. size - 1`` injectively
(two different numbers never give the same command and files; a number may give none,
e.g. a position too big to search), and the strata of one program are disjoint sets
(their keys are part of what they decode: a board size, a number of pieces, a history
length...). The judge of each assignment (engine.grading.assignments) says which strata
it has (``stratum(key)``) and how often each is drawn (``draw_stratum(rng)``).

Seed ``s``'s ``k``-th draw from a stratum is the candidate numbered
``permute(name, size, pair(s, k))``: :func:`pair` is Cantor's pairing, a bijection of
pairs of naturals onto the naturals, and :func:`permute` a keyed bijection of
``0 .. size - 1`` (a Feistel network, cycle-walked into range). Two different seeds give
different pairs, hence different positions, hence different numbers, hence different
cases: sets made with different seeds share no random case, whatever their counts and
however the seeds differ (by 16, by 2**k...). No luck is involved: the hash inside
:func:`permute` only decides which cases look random, never whether two seeds meet.

The price is room: seed ``s`` owns the positions ``pair(s, k) < size`` of a stratum,
about ``sqrt(2 * size) - s`` of them, so a stratum of 49,720 cases (tic-tac-toe's)
gives seed 1 up to 313 and seed 300 up to 15; a seed whose share of a stratum is used up
draws from its other strata, and :meth:`Deal.next_from` says when it has none left.
"""

import hashlib
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

# A generated case before its expected outputs: (label, the grader's arguments, input
# files {relative path: bytes}). The label goes into the case's folder name.
Candidate = Tuple[str, List[str], Dict[str, bytes]]


class Stratum(NamedTuple):
    """A family of candidates numbered ``0 .. size - 1`` one to one: ``decode(number)``
    is the candidate of that number, or None when the number stands for none (two
    numbers never decode to the same command and files). ``name`` keys its shuffle."""
    name: str
    size: int
    decode: Callable[[int], Optional[Candidate]]

# Feistel rounds: 4 already make a pseudo-random permutation (Luby-Rackoff); 6 for margin.
ROUNDS = 6


def pair(seed: int, k: int) -> int:
    """Cantor's pairing of two naturals: a bijection N x N -> N, so that
    ``pair(a, i) == pair(b, j)`` only when ``a == b`` and ``i == j``."""
    if seed < 0 or k < 0:
        raise ValueError(f"pair takes naturals, not {seed}, {k}")
    total = seed + k
    return total * (total + 1) // 2 + k


def _round_value(name: str, round_: int, half: int, bits: int) -> int:
    """The round function: ``bits`` pseudo-random bits of (name, round, half), the same
    on every machine and Python (SHAKE-256 of bytes, never of str or hash())."""
    width = (bits + 7) // 8
    data = (f"{name}:{round_}:".encode("utf-8")
            + half.to_bytes(max(1, (half.bit_length() + 7) // 8), "big"))
    return int.from_bytes(hashlib.shake_256(data).digest(width), "big") >> (8 * width - bits)


def _feistel(name: str, bits: int, value: int) -> int:
    """One pass of a balanced Feistel network on ``2 * bits``-bit numbers: a bijection of
    ``0 .. 4**bits - 1`` (each round maps (left, right) to (right, left ^ F(right)),
    which is undone by (left, right) = (right' ^ F(left'), left'))."""
    mask = (1 << bits) - 1
    left, right = value >> bits, value & mask
    for round_ in range(ROUNDS):
        left, right = right, left ^ _round_value(name, round_, right, bits)
    return (left << bits) | right


def permute(name: str, size: int, position: int) -> int:
    """A bijection of ``0 .. size - 1`` keyed by ``name``: the Feistel network over the
    smallest power of 4 that holds ``size``, walked again while it leaves the range
    (cycle walking: a bijection on a superset restricted to its own cycles stays a
    bijection of the subset; fewer than 4 passes on average, since 4**bits < 4 * size)."""
    if not 0 <= position < size:
        raise ValueError(f"position {position} is not in 0..{size - 1}")
    if size == 1:
        return 0
    bits = max(1, ((size - 1).bit_length() + 1) // 2)
    value = _feistel(name, bits, position)
    while value >= size:
        value = _feistel(name, bits, value)
    return value


class Deal:
    """One seed's draws (a seed is a natural number): ``next_from(stratum)`` returns the
    candidate at the seed's next position in that stratum (None when that number decodes
    to no candidate), or raises :class:`Exhausted` when the seed's share of the stratum
    is used up."""

    def __init__(self, program: str, seed: int) -> None:
        if seed < 0:
            raise ValueError(f"a seed is a natural number, not {seed}")
        self.program = program
        self.seed = seed
        self.drawn: Dict[str, int] = {}      # stratum name -> draws made from it

    def next_from(self, stratum: Stratum) -> Optional[Candidate]:
        k = self.drawn.get(stratum.name, 0)
        position = pair(self.seed, k)
        if position >= stratum.size:
            raise Exhausted(stratum.name)
        self.drawn[stratum.name] = k + 1
        return stratum.decode(permute(f"{self.program}:{stratum.name}", stratum.size,
                                      position))


class Exhausted(Exception):
    """A seed's share of a stratum is used up (the stratum's name is the argument)."""
