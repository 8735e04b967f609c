"""The space of generated cases: numbered families, each seed's walk through them, and
the categories every set covers.

A *family* of candidates is a :class:`Stratum`: ``decode`` numbers its candidates
``0 .. size - 1`` one to one (two different numbers never give the same command and
files; a number may give none, e.g. a position too big to search). The judge of each
assignment (engine.grading.assignments) has two kinds of families: the strata of its
random cases (``stratum(key)``, drawn as often as ``draw_stratum(rng)`` says) and the
instances of each of its :class:`Category`.

A seed walks every family in an order of its own: its ``k``-th draw from a family is
the candidate numbered ``permute(f"{program}:{seed}:{family}", size, k)``, a keyed
bijection of ``0 .. size - 1`` (a Feistel network, cycle-walked into range). So a seed
never draws one number twice, and after ``size`` draws it has seen the whole family
(``Walk.used_up``): a set runs short only when the families truly hold no more cases.
Different seeds walk in different orders and may meet: nothing here keeps a case from
another seed's set. Hidden cases stay hidden because the hidden set is made to exclude
the visible one (``grade cases --exclude``), and ``grade autograder`` refuses a bundle
whose hidden case equals a visible one.

A :class:`Category` is a situation every set of ten or more cases holds at least once
(a blank board, a game already over, a Raid that decides...): ``holds`` says whether a
candidate is one, and its ``family`` numbers instances of it, so that a set that lacks
one (a hidden set whose visible set took the usual ones) draws another.
"""

import bisect
import hashlib
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

# A generated case before its expected outputs: (label, the grader's arguments, input
# files {relative path: bytes}). The label goes into the case's folder name.
Candidate = Tuple[str, List[str], Dict[str, bytes]]


class Stratum(NamedTuple):
    """A family of candidates numbered ``0 .. size - 1`` one to one: ``decode(number)``
    is the candidate of that number, or None when the number stands for none (two
    numbers never decode to the same command and files). ``name`` keys its walks."""
    name: str
    size: int
    decode: Callable[[int], Optional[Candidate]]


class Category(NamedTuple):
    """A situation every set of ten or more cases covers (engine.grading.generate).

    ``name`` is how docs and measurements name it (``blank board``); ``holds(candidate)``
    whether a candidate is one, from its command and files alone, cheaply (it may say
    False for an instance too costly to recognise: the set then draws one more);
    ``family()`` a :class:`Stratum` of instances, each of which ``holds``."""
    name: str
    holds: Callable[[Candidate], bool]
    family: Callable[[], Stratum]


def concatenated(name: str, families: Sequence[Stratum]) -> Stratum:
    """One family numbering every candidate of ``families`` (which must be disjoint),
    the first family's numbers first."""
    starts: List[int] = []
    size = 0
    for family in families:
        starts.append(size)
        size += family.size

    def decode(number: int) -> Optional[Candidate]:
        index = bisect.bisect_right(starts, number) - 1
        return families[index].decode(number - starts[index])
    return Stratum(name, size, decode)


def restricted(name: str, family: Stratum, digit: int, base: int) -> Stratum:
    """The candidates of ``family`` whose number ends in ``digit`` in base ``base``
    (a family numbered with a choice as its lowest digit, e.g. the side to move)."""
    def decode(number: int) -> Optional[Candidate]:
        return family.decode(number * base + digit)
    return Stratum(name, (family.size - digit + base - 1) // base, decode)


# Feistel rounds: 4 already make a pseudo-random permutation (Luby-Rackoff); 6 for margin.
ROUNDS = 6


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


class Walk:
    """One seed's walks through the families of one program (a seed is a natural
    number): ``next_from(family)`` is the candidate at the seed's next position in that
    family (None when that number decodes to none), until the seed has drawn every
    number of the family (``used_up``)."""

    def __init__(self, program: str, seed: int) -> None:
        if seed < 0:
            raise ValueError(f"a seed is a natural number, not {seed}")
        self.program = program
        self.seed = seed
        self.drawn: Dict[str, int] = {}      # family name -> draws made from it

    def used_up(self, family: Stratum) -> bool:
        """Whether the seed has drawn every number of ``family``."""
        return self.drawn.get(family.name, 0) >= family.size

    def next_from(self, family: Stratum) -> Optional[Candidate]:
        """The next candidate of ``family`` (None: the number stands for none); only
        while the family is not used up."""
        k = self.drawn.get(family.name, 0)
        assert k < family.size, f"{family.name} is used up"
        self.drawn[family.name] = k + 1
        return family.decode(permute(f"{self.program}:{self.seed}:{family.name}",
                                     family.size, k))

    def through(self, family: Stratum) -> Iterator[Candidate]:
        """The rest of ``family`` in the seed's order, numbers that stand for none left
        out."""
        while not self.used_up(family):
            candidate = self.next_from(family)
            if candidate is not None:
                yield candidate
