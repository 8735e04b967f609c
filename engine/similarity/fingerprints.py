"""Token codes, k-gram hashes and winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003).

A file's normalised tokens are coded as 16-bit numbers (:func:`encode`); every run of
``k`` consecutive tokens (a k-gram) within one segment (a top-level definition, see
:mod:`engine.similarity.lexed`) is hashed (CRC-32 of its codes: the same on every
Python, in every process); winnowing then keeps, in every window of ``window``
consecutive hashes, the smallest (the rightmost when several are), each kept position
once. That choice has the paper's two guarantees:

* a match of at least ``k + window - 1`` tokens always shares a fingerprint (the
  guarantee threshold);
* a match shorter than ``k`` tokens never does (the noise threshold),

and keeps about 2 / (window + 1) of the positions. :data:`K` and :data:`WINDOW` are the
defaults of ``grade similar`` (docs/similarity.md says why).
"""

import zlib
from array import array
from typing import Dict, Iterable, List, Sequence, Tuple

from . import clike_tokens, make_tokens, python_tokens
from .lexed import (BLOCK_CLOSE, BLOCK_OPEN, IDENTIFIER, NUMBER, STATEMENT_END, STRING,
                    UNKNOWN)

# The defaults: 20 tokens (two to three lines of code) per k-gram, one fingerprint kept
# in every 6 consecutive k-grams: any match of 25 tokens or more is found.
K = 20
WINDOW = 6

_OPERATORS = """
( ) [ ] { } , ; : . ... -> ->* :: ++ -- && || ** = == != < <= + - * / % & | ^ ~ ! ? @ #
<< >> >>> <<= >>= >>>= += -= *= /= %= &= |= ^= **= //= // := \\
""".split()
# Every token text with a code of its own: the kinds, the operators and every name some
# lexer keeps; sorted, so that every process numbers them alike.
VOCABULARY: Tuple[str, ...] = tuple(sorted(
    {IDENTIFIER, NUMBER, STRING, STATEMENT_END, BLOCK_OPEN, BLOCK_CLOSE, UNKNOWN,
     make_tokens.RECIPE}
    | set(_OPERATORS) | python_tokens.KEYWORDS | python_tokens.BUILTINS
    | clike_tokens.CPP_KEYWORDS | clike_tokens.JAVA_KEYWORDS | clike_tokens.C_LIBRARY
    | clike_tokens.JAVA_LIBRARY | make_tokens.MAKE_WORDS))
CODES: Dict[str, int] = {text: code for code, text in enumerate(VOCABULARY, 1)}
# Other texts (a directive, a flag of a Makefile) get a code from their own hash, above
# the vocabulary's.
_SPARE_FIRST = 4096
_SPARE_COUNT = 65536 - _SPARE_FIRST
assert len(VOCABULARY) < _SPARE_FIRST


def code_of(text: str) -> int:
    """The 16-bit code of a normalised token."""
    code = CODES.get(text)
    if code is None:
        code = _SPARE_FIRST + zlib.crc32(text.encode("utf-8", "replace")) % _SPARE_COUNT
    return code


def encode(kinds: Iterable[str]) -> bytes:
    """The tokens' codes, two bytes each (little-endian, as :func:`kgram_hashes` reads)."""
    known = CODES.get
    codes = array("H", [known(kind) or code_of(kind) for kind in kinds])
    if codes.itemsize != 2:                          # pragma: no cover - no such machine
        raise RuntimeError("array('H') is not 16 bits here")
    if array("H", [1]).tobytes() != b"\x01\x00":     # big-endian machine: same bytes
        codes.byteswap()
    return codes.tobytes()


def kgram_hashes(encoded: bytes, k: int = K, segments: Sequence[int] = ()
                 ) -> Tuple[List[int], List[int]]:
    """``(hashes, positions)``: the hash of every k-gram of the encoded tokens that lies
    within one segment (``segments``: where each but the first starts), and the
    position of its first token. A segment shorter than ``k`` tokens has none."""
    hashes: List[int] = []
    positions: List[int] = []
    for start, values in _segment_hashes(encoded, k, segments):
        hashes.extend(values)
        positions.extend(range(start, start + len(values)))
    return hashes, positions


def _segment_hashes(encoded: bytes, k: int, segments: Sequence[int]
                    ) -> List[Tuple[int, List[int]]]:
    """``[(first position, hashes of its k-grams)]`` per segment."""
    crc = zlib.crc32
    width = 2 * k
    bounds = [0, *segments, len(encoded) // 2]
    return [(start, [crc(encoded[at:at + width])
                     for at in range(2 * start, 2 * end - width + 1, 2)])
            for start, end in zip(bounds, bounds[1:])]


def winnow(hashes: Sequence[int], window: int = WINDOW) -> List[Tuple[int, int]]:
    """``[(hash, position)]`` that winnowing keeps (see the module docstring), by
    position. Fewer hashes than a window: their minimum alone."""
    count = len(hashes)
    if count == 0:
        return []
    if count < window:
        window = count
    first = list(hashes[:window])
    minimum = min(first)
    position = window - 1 - first[::-1].index(minimum)
    kept = [(minimum, position)]
    for end in range(window, count):
        value = hashes[end]
        if value <= minimum:
            minimum, position = value, end
            kept.append((value, end))
        elif position <= end - window:
            # The kept minimum left the window: the new window's rightmost minimum.
            current = list(hashes[end - window + 1:end + 1])
            minimum = min(current)
            position = end - current[::-1].index(minimum)
            kept.append((minimum, position))
    return kept


def fingerprints(kinds: Sequence[str], k: int = K, window: int = WINDOW,
                 segments: Sequence[int] = ()) -> List[Tuple[int, int]]:
    """``[(hash, first token's position)]`` of a file's normalised tokens, cut into
    ``segments``: what winnowing keeps of each segment's k-grams (each segment winnowed
    on its own, so that a segment's fingerprints do not depend on its neighbours)."""
    kept: List[Tuple[int, int]] = []
    for start, values in _segment_hashes(encode(kinds), k, segments):
        kept.extend((value, start + offset) for value, offset in winnow(values, window))
    return kept
