"""The method from end to end: entries in, ranked pairs, regions and clusters out.

:func:`compare` takes the rows of this term's class and of the prior terms (each a
folder to compare, or the reason it is not), fingerprints them, removes the handout's
fingerprints and ignores the common ones, ranks every pair, keeps the ``top`` best, maps
their matched regions back to lines, and groups the pairs at or above the threshold
into clusters. It reads what students handed in and runs nothing.
"""

from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set

from .clusters import THRESHOLD, Cluster, clusters
from .corpus import (COMMON_MIN, COMMON_SHARE, Printed, common_limit, fingerprint_all,
                     kept_fingerprints)
from .fingerprints import K, WINDOW
from .pairs import Pair, Region, rank_pairs, regions


class Entry(NamedTuple):
    """One row: ``name`` as reports show it (``class/alice``), ``within`` its name
    inside its class folder (``alice``), ``term`` ("class" for this term, "prior"),
    ``folder`` to compare (None: not compared, ``reason`` says why)."""
    name: str
    within: str
    term: str
    folder: Optional[str]
    reason: Optional[str] = None


class Settings(NamedTuple):
    """The method's parameters (docs/similarity.md, "The method and its parameters")."""
    k: int = K
    window: int = WINDOW
    common_share: float = COMMON_SHARE
    common_min: int = COMMON_MIN
    threshold: float = THRESHOLD
    top: int = 25
    jobs: int = 1


class Comparison(NamedTuple):
    """What :func:`compare` found. ``printed`` and ``sets`` are by entry (None / empty
    for one not compared); ``reasons`` the final reason of each entry (None:
    compared); ``pairs`` every pair ranked; ``reported`` the ``top`` best with their
    regions; ``common`` how many fingerprints were ignored as common, at what limit."""
    entries: List[Entry]
    settings: Settings
    printed: List[Optional[Printed]]
    sets: List[FrozenSet[int]]
    reasons: List[Optional[str]]
    pairs: List[Pair]
    reported: List[Pair]
    regions: Dict[int, List[Region]]
    clusters: List[Cluster]
    common: int
    common_limit: int
    base_files: List[str]
    base_fingerprints: int


DEFAULTS = Settings()


def compare(entries: Sequence[Entry], settings: Settings = DEFAULTS,
            base: Optional[Set[int]] = None, base_files: Sequence[str] = (),
            progress: Optional[Callable[[int, int], None]] = None) -> Comparison:
    """Compare ``entries`` (see the module docstring); ``base`` holds every k-gram hash
    of the handout (:func:`engine.similarity.corpus.base_hashes`)."""
    base = base or set()
    compared = [index for index, entry in enumerate(entries) if entry.folder is not None]
    found = fingerprint_all([entries[index].folder or "" for index in compared],
                            settings.k, settings.window, settings.jobs, progress)
    printed: List[Optional[Printed]] = [None] * len(entries)
    reasons: List[Optional[str]] = [entry.reason for entry in entries]
    for index, result in zip(compared, found):
        if result.reason is not None:
            reasons[index] = result.reason
        else:
            printed[index] = result
    in_class = [entry.term == "class" for entry in entries]
    class_size = sum(1 for index in compared if in_class[index] and printed[index])
    limit = common_limit(class_size, settings.common_share, settings.common_min)
    sets, common = kept_fingerprints(printed, in_class, base, limit)
    for index, kept in enumerate(printed):
        if kept is not None and not sets[index]:
            # Everything it holds is the handout's (or what most of the class wrote).
            reasons[index] = "nothing of its own: every fingerprint is the handout's " \
                "or common to the class"
    names = [entry.name for entry in entries]
    pairs = rank_pairs(sets, in_class, names)
    reported = pairs[:settings.top]
    found_regions = {rank: regions(_known(printed[pair.a]), _known(printed[pair.b]),
                                   sets[pair.a] & sets[pair.b], settings.k)
                     for rank, pair in enumerate(reported)}
    return Comparison(list(entries), settings, printed, sets, reasons, pairs, reported,
                      found_regions, clusters(pairs, names, settings.threshold), common,
                      limit, list(base_files), len(base))


def _known(printed: Optional[Printed]) -> Printed:
    if printed is None:                     # a ranked pair's entries are compared ones
        raise ValueError("a pair of an entry that was not compared")
    return printed
