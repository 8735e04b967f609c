"""What every lexer of the package returns, and the kinds shared by all languages.

A lexer turns a file's text into :class:`Lexed`: one normalised token per lexical token
of the source, in order, each with the line it starts on. Normalised means that what a
student can change without changing the program is gone: identifiers become
:data:`IDENTIFIER`, numbers :data:`NUMBER`, strings and characters :data:`STRING`;
comments, blank lines and spacing are dropped; ``a > b`` reads as ``b < a`` does
(:func:`canonical_operator`), and a comparison of two single operands is written with
its operands in one order (:func:`ordered_comparisons`: ``k < 9`` and ``9 > k`` read
alike). Keywords, operators, punctuation and the names of the language's own library
stay as they are: they cannot be renamed.

A lexer also cuts the tokens into segments, one per top-level definition (a function,
a class, a method of a Java class): no k-gram spans two of them, so that moving whole
functions around changes no fingerprint.
"""

from typing import List, NamedTuple, Optional, Sequence

# The kinds a renamed or re-valued token becomes (never the text of any real token).
IDENTIFIER = "$id"
NUMBER = "$num"
STRING = "$str"
# Statement structure of Python: the end of a statement, a block opened, a block closed.
STATEMENT_END = "$end"
BLOCK_OPEN = "$indent"
BLOCK_CLOSE = "$dedent"
# A character no rule of the language knows (kept: it is part of what was handed in).
UNKNOWN = "$?"

# Flipping a comparison (a > b into b < a) changes only which side each operand is on:
# the operator itself reads as its mirror image.
MIRRORED = {">": "<", ">=": "<="}


def canonical_operator(text: str) -> str:
    """``text`` with ``>`` read as ``<`` and ``>=`` as ``<=``: ``b < a`` and ``a > b``
    then differ only in the order of their (already anonymous) operands."""
    return MIRRORED.get(text, text)


# A single-token operand: an anonymous kind or a constant.
_OPERANDS = frozenset({IDENTIFIER, NUMBER, STRING, "None", "True", "False", "null", "NULL",
                       "true", "false", "nullptr"})
# Comparisons whose operands may change places: ``<`` and ``<=`` stand for their mirror
# images too (canonical_operator).
_COMPARISONS = frozenset({"<", "<=", "==", "!="})
# What may stand just before the left operand and just after the right one for the
# comparison to be the whole expression there (``-a < b`` and ``a < b.c`` are not).
_BEFORE = frozenset({"(", "[", "{", ",", ";", ":", "=", "?", "!", "&&", "||", "and", "or",
                     "not", "if", "elif", "while", "return", "assert", STATEMENT_END,
                     BLOCK_OPEN, BLOCK_CLOSE})
_AFTER = frozenset({")", "]", "}", ",", ";", ":", "?", "&&", "||", "and", "or", "if",
                    "else", STATEMENT_END})


def ordered_comparisons(kinds: List[str]) -> List[str]:
    """``kinds`` with the two operands of every comparison of single operands in one
    order (the smaller kind first), so that ``k < 9`` and ``9 > k`` (``9 < k`` once the
    operator is canonical) read alike. Chained comparisons are left as they are."""
    out = list(kinds)
    for index in range(1, len(out) - 1):
        if out[index] not in _COMPARISONS:
            continue
        left, right = out[index - 1], out[index + 1]
        if left in _OPERANDS and right in _OPERANDS and left > right \
                and (index < 2 or out[index - 2] in _BEFORE) \
                and (index + 2 >= len(out) or out[index + 2] in _AFTER):
            out[index - 1], out[index + 1] = right, left
    return out


class Lexed(NamedTuple):
    """A file's normalised tokens (``kinds``), the 1-based line each starts on
    (``lines``, as long as ``kinds``), what kept the file from reading as valid source
    (``problem``: where and what the syntax error is, ``line 3: invalid syntax``; None
    when none was seen), and where each segment but the first starts (``segments``:
    token positions, ascending). A file with a problem is still compared through its
    tokens."""
    kinds: List[str]
    lines: List[int]
    problem: Optional[str] = None
    segments: Sequence[int] = ()
