"""Pairs of entries: shared fingerprints in both directions, the ranking, matched regions.

:func:`rank_pairs` counts, for every pair that shares at least :data:`MIN_SHARED`
fingerprints, how many it shares (through an index from each fingerprint to the entries
holding it: pairs that share nothing cost nothing). This term's entries are paired with
each other and with every prior entry; two prior entries never are (``--prior`` is
compared one way). A pair's two directions are the shares of each side's fingerprints
found in the other: ``a_share = shared / |A|``, ``b_share = shared / |B|``; its score is
their mean, so that a copy padded with dead code (a low share on its side) still ranks
high through the other side's share.

:func:`regions` maps a reported pair's shared fingerprints back to the code: the
positions of each shared fingerprint in both files, chained while both advance together
(gaps of at most :data:`GAP` tokens), each chain a region of lines in both files; a
region more than half of whose lines on a side another, stronger region already shows is
left out.
"""

from collections import Counter
from itertools import combinations, product
from typing import Dict, FrozenSet, List, NamedTuple, Sequence, Set, Tuple

from .corpus import Printed
from .fingerprints import K

# A pair sharing fewer fingerprints than this is not listed at all.
MIN_SHARED = 3
# Two matched fingerprints further apart than this (in tokens, on either side) start a
# new region: room for a statement or two of dead code inserted between them.
GAP = 3 * K
# A fingerprint repeated in a file is matched at most this many times per pair.
REPEATS = 4


class Pair(NamedTuple):
    """Two entries (indices; ``a`` is always of this term, ``b`` of this term or a
    prior one), the fingerprints they share, the share of each side's fingerprints
    that the other holds, and the score (their mean)."""
    a: int
    b: int
    shared: int
    a_share: float
    b_share: float
    score: float


class Region(NamedTuple):
    """A stretch of code found in both entries of a pair: files by index into each
    entry's files, first and last lines (1-based, inclusive), and how many shared
    fingerprints it holds."""
    a_file: int
    a_first: int
    a_last: int
    b_file: int
    b_first: int
    b_last: int
    fingerprints: int


def shared_counts(sets: Sequence[FrozenSet[int]], in_class: Sequence[bool]
                  ) -> "Counter[Tuple[int, int]]":
    """``{(a, b): shared fingerprints}`` of every pair that shares one (see the module
    docstring for which pairs are made)."""
    holders: Dict[int, List[int]] = {}
    for index, values in enumerate(sets):
        for value in values:
            holders.setdefault(value, []).append(index)
    counts: "Counter[Tuple[int, int]]" = Counter()
    for members in holders.values():
        if len(members) < 2:
            continue
        present = [index for index in members if in_class[index]]
        prior = [index for index in members if not in_class[index]]
        counts.update(combinations(present, 2))
        if prior and present:
            counts.update(product(present, prior))
    return counts


def rank_pairs(sets: Sequence[FrozenSet[int]], in_class: Sequence[bool],
               names: Sequence[str]) -> List[Pair]:
    """Every pair sharing at least :data:`MIN_SHARED` fingerprints, best first: by
    score, then shared fingerprints, then names."""
    pairs = []
    for (a, b), shared in shared_counts(sets, in_class).items():
        if shared < MIN_SHARED:
            continue
        a_share = shared / len(sets[a])
        b_share = shared / len(sets[b])
        pairs.append(Pair(a, b, shared, a_share, b_share, (a_share + b_share) / 2))
    pairs.sort(key=lambda pair: (-pair.score, -pair.shared, names[pair.a], names[pair.b]))
    return pairs


def positions(printed: Printed) -> Dict[int, List[Tuple[int, int]]]:
    """``{fingerprint: [(file index, token position)]}`` of an entry."""
    found: Dict[int, List[Tuple[int, int]]] = {}
    for value, file_index, position in printed.prints:
        found.setdefault(value, []).append((file_index, position))
    return found


def regions(a: Printed, b: Printed, shared: FrozenSet[int], k: int = K
            ) -> List[Region]:
    """The regions of the pair ``a``, ``b`` (see the module docstring), in the order of
    ``a``'s files and lines. ``shared`` are the fingerprints that count for both."""
    where_a, where_b = positions(a), positions(b)
    matches = []
    for value in shared:
        for (file_a, at_a), (file_b, at_b) in product(where_a.get(value, [])[:REPEATS],
                                                      where_b.get(value, [])[:REPEATS]):
            matches.append((file_a, file_b, at_a, at_b))
    matches.sort()
    chains: List[List[int]] = []      # [file_a, file_b, first_a, last_a, first_b, last_b, n]
    open_chains: Dict[Tuple[int, int], List[List[int]]] = {}
    for file_a, file_b, at_a, at_b in matches:
        candidates = open_chains.setdefault((file_a, file_b), [])
        for chain in reversed(candidates[-8:]):
            if 0 <= at_a - chain[3] <= GAP and -k < at_b - chain[5] <= GAP:
                chain[6] += at_a > chain[3]           # each position of a counted once
                chain[3], chain[5] = at_a, max(chain[5], at_b)
                chain[4] = min(chain[4], at_b)
                break
        else:
            chain = [file_a, file_b, at_a, at_a, at_b, at_b, 1]
            candidates.append(chain)
            chains.append(chain)
    return _one_to_one(_merged([_as_lines(chain, a, b, k) for chain in chains]))


def _as_lines(chain: List[int], a: Printed, b: Printed, k: int) -> Region:
    file_a, file_b, first_a, last_a, first_b, last_b, count = chain
    lines_a, lines_b = a.token_lines[file_a], b.token_lines[file_b]
    return Region(file_a, lines_a[first_a], lines_a[min(last_a + k - 1, len(lines_a) - 1)],
                  file_b, lines_b[first_b], lines_b[min(last_b + k - 1, len(lines_b) - 1)],
                  count)


def _one_to_one(found: List[Region]) -> List[Region]:
    """The regions, strongest first, each kept unless more than half of its lines on
    either side are already shown by a region kept before (code repeated within a
    file, such as a guard at the top of every function, matches several places: only
    its best match is shown), in ``a``'s order."""
    shown: Dict[Tuple[str, int], Set[int]] = {}
    kept: List[Region] = []
    for region in sorted(found, key=lambda region: (-region.fingerprints, region)):
        sides = ((("a", region.a_file), range(region.a_first, region.a_last + 1)),
                 (("b", region.b_file), range(region.b_first, region.b_last + 1)))
        if any(2 * len(shown.get(key, set()).intersection(lines)) > len(lines)
               for key, lines in sides):
            continue
        kept.append(region)
        for key, lines in sides:
            shown.setdefault(key, set()).update(lines)
    return sorted(kept)


def _merged(found: List[Region]) -> List[Region]:
    """The regions with those that overlap on both sides joined, in ``a``'s order."""
    found.sort()
    merged: List[Region] = []
    for region in found:
        last = merged[-1] if merged else None
        if last is not None and last.a_file == region.a_file \
                and last.b_file == region.b_file and region.a_first <= last.a_last \
                and region.b_first <= last.b_last and last.b_first <= region.b_last:
            merged[-1] = Region(last.a_file, last.a_first, max(last.a_last, region.a_last),
                                last.b_file, min(last.b_first, region.b_first),
                                max(last.b_last, region.b_last),
                                last.fingerprints + region.fingerprints)
        else:
            merged.append(region)
    return merged
