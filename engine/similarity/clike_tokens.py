"""C, C++ and Java source -> normalised tokens, by a small lexer of our own.

One regular expression reads the lexical tokens the three languages share: ``//`` and
``/* */`` comments (dropped), preprocessor directives (``#include`` kept as one token),
string and character literals (escapes and Java's ``\"\"\"`` text blocks included),
numbers in every base with their suffixes, identifiers, and operators longest first.
Keywords and a short list of library names (``printf``, ``System``, ``vector``) stay as
they are; every other identifier becomes :data:`~engine.similarity.lexed.IDENTIFIER`.
The lexer never fails: a character it does not know is one
:data:`~engine.similarity.lexed.UNKNOWN` token, an unterminated comment or string runs
to the end of its line or file.
"""

import re
from typing import FrozenSet, List, Pattern

from .lexed import (IDENTIFIER, NUMBER, STRING, UNKNOWN, Lexed, canonical_operator,
                    ordered_comparisons)

C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Bool bool true false NULL
""".split())
CPP_KEYWORDS = C_KEYWORDS | frozenset("""
alignas alignof and asm catch class constexpr const_cast decltype delete dynamic_cast
explicit export friend mutable namespace new noexcept not nullptr operator or private
protected public reinterpret_cast static_assert static_cast template this throw try
typeid typename using virtual wchar_t override final
""".split())
JAVA_KEYWORDS = frozenset("""
abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int
interface long native new package private protected public return short static strictfp
super switch synchronized this throw throws transient try void volatile while var record
true false null
""".split())
# Names of the languages' own libraries: a student cannot rename them.
C_LIBRARY = frozenset("""
main printf scanf puts putchar getchar fprintf fopen fclose fgets fputs sprintf snprintf
malloc calloc realloc free memset memcpy strlen strcmp strcpy strcat atoi abs exit stdin
stdout stderr std cout cin cerr endl string vector map set pair max min swap sort size
push_back pop_back begin end ifstream ofstream getline to_string stoi make_pair size_t
""".split())
JAVA_LIBRARY = frozenset("""
main String System out err println print printf Math max min abs Integer parseInt
ArrayList List Map HashMap Set HashSet Arrays Scanner args length size add get put charAt
toString equals valueOf Object Exception IOException Files Paths BufferedReader
FileReader FileWriter PrintWriter
""".split())
PYTHON_FALLBACK_KEYWORDS = frozenset("""
False None True and as assert async await break class continue def del elif else except
finally for from global if import in is lambda nonlocal not or pass raise return try
while with yield
""".split())

_TOKEN = r"""
 (?P<space>[ \t\r\f\v]+)
|(?P<newline>\n)
|(?P<comment>{comments})
|(?P<directive>^[ \t]*\#[ \t]*[A-Za-z_]\w*)
|(?P<string>\"\"\"(?:[^\\]|\\.)*?(?:\"\"\"|\Z)
   |[uUL]?8?R?"(?:[^"\\\n]|\\.)*(?:"|$)
   |'(?:[^'\\\n]|\\.)*(?:'|$))
|(?P<number>(?:0[xX][0-9a-fA-F_']+|0[bB][01_']+
   |(?:\d[\d_']*(?:\.[\d_']*)?|\.\d[\d_']*)(?:[eEpP][+-]?\d+)?)[a-zA-Z]*)
|(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
|(?P<operator>>>>=|<<=|>>=|>>>|\.\.\.|->\*|->|::|\+\+|--|&&|\|\||\*\*
   |[-+*/%&|^!=<>]=|<<|>>|[-+*/%&|^~!=<>?:;,.(){{}}\[\]@\#\\])
|(?P<other>.)
"""
_C_COMMENTS = r"//[^\n]*|/\*(?:.|\n)*?(?:\*/|\Z)"


def _pattern(comments: str) -> Pattern[str]:
    return re.compile(_TOKEN.format(comments=comments), re.VERBOSE | re.MULTILINE)


C_PATTERN = _pattern(_C_COMMENTS)
# The fallback for Python text that ``tokenize`` cannot read: ``#`` comments, no
# directives (the directive rule never matches: a ``#`` starts a comment first).
PYTHON_PATTERN = _pattern(r"\#[^\n]*")


def lex(text: str, keywords: FrozenSet[str], library: FrozenSet[str] = frozenset(),
        pattern: Pattern[str] = C_PATTERN, first_line: int = 1,
        split_depths: FrozenSet[int] = frozenset()) -> Lexed:
    """The normalised tokens of ``text`` (see the module docstring); ``keywords`` and
    ``library`` are the names kept as they are; ``first_line`` numbers the text's first
    line; a ``}`` that brings the braces' depth to one of ``split_depths``, or a ``;``
    at such a depth, ends a segment (a C function or declaration at 0, a Java method
    or field at 1)."""
    kinds: List[str] = []
    lines: List[int] = []
    segments: List[int] = []
    depth = 0
    line = first_line
    for match in pattern.finditer(text):
        group = match.lastgroup
        token = match.group()
        if group == "newline":
            line += 1
            continue
        if group == "space":
            continue
        if group == "comment":
            line += token.count("\n")
            continue
        if group == "name":
            kinds.append(token if token in keywords or token in library else IDENTIFIER)
        elif group == "number":
            kinds.append(NUMBER)
        elif group == "string":
            kinds.append(STRING)
        elif group == "operator":
            kinds.append(canonical_operator(token))
            depth += (token == "{") - (token == "}")
            if token in ("}", ";") and depth in split_depths:
                segments.append(len(kinds))
        elif group == "directive":
            kinds.append("#" + token.lstrip(" \t#"))
        else:
            kinds.append(UNKNOWN)
        lines.append(line)
        if group == "string":
            line += token.count("\n")
    return Lexed(ordered_comparisons(kinds), lines, None,
                 [segment for segment in segments if segment < len(kinds)])


# Where a definition ends: a C or C++ function or declaration at depth 0, a Java method
# or field at depth 1.
_TOP = frozenset({0})
_CLASS_MEMBERS = frozenset({0, 1})


def lex_c(text: str) -> Lexed:
    """A C file (``.c``, ``.h``)."""
    return lex(text, C_KEYWORDS, C_LIBRARY, split_depths=_TOP)


def lex_cpp(text: str) -> Lexed:
    """A C++ file (``.cpp``, ``.cc``, ``.hpp`` ...)."""
    return lex(text, CPP_KEYWORDS, C_LIBRARY, split_depths=_TOP)


def lex_java(text: str) -> Lexed:
    """A Java file."""
    return lex(text, JAVA_KEYWORDS, JAVA_LIBRARY, split_depths=_CLASS_MEMBERS)
