"""Every entry read and fingerprinted; the handout's fingerprints and the class's common
ones set aside.

:func:`fingerprint_all` reads, lexes and winnows every submission (on ``jobs``
processes when asked: each submission is independent of the others), in the entries'
order. :func:`base_hashes` gives every k-gram hash of the handout files (``--base``):
all of them, not only those winnowing keeps, so that no fingerprint of a submission
that comes from the handout survives. :func:`kept_fingerprints` then gives each entry
its set of fingerprints without those of the handout and without those found in more
than :func:`common_limit` entries of this term's class (MOSS's ``-m``): code that many
students wrote alike (an idiom, the assignment's own snippet) is no evidence of copying
between two of them.
"""

import math
from array import array
from concurrent.futures import ProcessPoolExecutor
from typing import (Callable, Dict, FrozenSet, Iterable, List, NamedTuple, Optional,
                    Sequence, Set, Tuple)

from .fingerprints import K, WINDOW, encode, fingerprints, kgram_hashes
from .languages import lex_file
from .sources import SourceFile, read_submission

# A fingerprint in more than this share of the class's entries is ignored ...
COMMON_SHARE = 0.1
# ... and never when in this many entries or fewer: in a small class, a group of
# students who copied from each other would otherwise erase its own evidence.
COMMON_MIN = 10


class Printed(NamedTuple):
    """One submission read, lexed and fingerprinted.

    ``files``: the source files compared; ``token_lines``: per file, the line each of
    its tokens starts on; ``prints``: ``(hash, file index, token position)`` of every
    fingerprint winnowing kept; ``notes``: the files set aside and the syntax problems
    (``name: what``); ``reason``: why nothing of it can be compared (None when
    something can); ``tokens``: how many tokens were read."""
    files: List[SourceFile]
    token_lines: List["array[int]"]
    prints: List[Tuple[int, int, int]]
    notes: List[str]
    reason: Optional[str]
    tokens: int


def fingerprint_submission(path: str, k: int = K, window: int = WINDOW) -> Printed:
    """Read, lex and fingerprint the submission at ``path``; never raises for what the
    submission holds (its problems are ``notes`` or the ``reason``)."""
    found = read_submission(path)
    if found.error is not None:
        return Printed([], [], [], [], found.error, 0)
    notes = list(found.set_aside)
    files: List[SourceFile] = []
    token_lines: List["array[int]"] = []
    prints: List[Tuple[int, int, int]] = []
    tokens = 0
    for source in found.files:
        lexed = lex_file(source.language, source.text)
        if not lexed.kinds:
            notes.append(f"empty: {source.name} (only comments)")
            continue
        if lexed.problem:
            notes.append(f"syntax error: {source.name}, {lexed.problem} (compared through "
                         "its tokens)")
        index = len(files)
        files.append(source)
        token_lines.append(array("I", lexed.lines))
        tokens += len(lexed.kinds)
        prints.extend((value, index, position) for value, position
                      in fingerprints(lexed.kinds, k, window, lexed.segments))
    reason = None
    if not files:
        # Why nothing is compared: its files' reasons, or that it holds no source file.
        reason = "; ".join(notes) or "empty: no source file (.py, .c, .cpp, .java, Makefile)"
    return Printed(files, token_lines, prints, notes, reason, tokens)


def _fingerprint_one(arguments: Tuple[str, int, int]) -> Printed:
    return fingerprint_submission(*arguments)


def fingerprint_all(paths: Sequence[str], k: int = K, window: int = WINDOW, jobs: int = 1,
                    progress: Optional[Callable[[int, int], None]] = None) -> List[Printed]:
    """:func:`fingerprint_submission` of each path, in order, on ``jobs`` processes;
    ``progress(done, total)`` after each."""
    total = len(paths)
    work = [(path, k, window) for path in paths]
    results: List[Printed] = []
    if jobs <= 1 or total < 2:
        found: Iterable[Printed] = map(_fingerprint_one, work)
        executor = None
    else:
        executor = ProcessPoolExecutor(max_workers=min(jobs, total))
        found = executor.map(_fingerprint_one, work,
                             chunksize=max(1, total // (4 * jobs)))
    try:
        for printed in found:
            results.append(printed)
            if progress is not None:
                progress(len(results), total)
    finally:
        if executor is not None:
            executor.shutdown()
    return results


def base_hashes(paths: Iterable[str], k: int = K) -> Tuple[Set[int], List[str]]:
    """``(every k-gram hash of the handout files, the handout files read)``."""
    hashes: Set[int] = set()
    names: List[str] = []
    for path in paths:
        found = read_submission(path)
        for source in found.files:
            lexed = lex_file(source.language, source.text)
            hashes.update(kgram_hashes(encode(lexed.kinds), k, lexed.segments)[0])
            names.append(source.name)
    return hashes, names


def common_limit(class_size: int, share: float = COMMON_SHARE,
                 floor: int = COMMON_MIN) -> int:
    """The most entries of the class a fingerprint may be in and still count."""
    return max(floor, math.floor(share * class_size))


def kept_fingerprints(printed: Sequence[Optional[Printed]], in_class: Sequence[bool],
                      base: Set[int], limit: int
                      ) -> Tuple[List[FrozenSet[int]], int]:
    """``(each entry's fingerprints that count, how many distinct fingerprints were
    ignored as common)``: without the handout's, and without those in more than
    ``limit`` entries of the class (``in_class``; prior terms are not counted: they
    are compared one way)."""
    raw = [frozenset(value for value, _, _ in entry.prints) - base if entry else frozenset()
           for entry in printed]
    counts: Dict[int, int] = {}
    for values, counted in zip(raw, in_class):
        if counted:
            for value in values:
                counts[value] = counts.get(value, 0) + 1
    common = {value for value, count in counts.items() if count > limit}
    return [values - common if common else values for values in raw], len(common)
