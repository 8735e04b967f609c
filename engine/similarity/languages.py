"""Which lexer reads which file: by its name, as a grader's build would take it.

``.py`` is Python; ``.c`` and ``.h`` C; ``.cc``, ``.cpp``, ``.cxx``, ``.hpp``, ``.hh`` and
``.hxx`` C++; ``.java`` Java; ``Makefile``, ``makefile``, ``GNUmakefile`` and ``.mk``
Makefiles. Other files (data, outputs, notes, compiled files) are not compared.
"""

import posixpath
from typing import Callable, Dict, Optional

from .clike_tokens import lex_c, lex_cpp, lex_java
from .lexed import Lexed
from .make_tokens import lex_make
from .python_tokens import lex_python

LEXERS: Dict[str, Callable[[str], Lexed]] = {
    "python": lex_python, "c": lex_c, "c++": lex_cpp, "java": lex_java, "make": lex_make}
_BY_SUFFIX = {".py": "python", ".c": "c", ".h": "c", ".cc": "c++", ".cpp": "c++",
              ".cxx": "c++", ".hpp": "c++", ".hh": "c++", ".hxx": "c++", ".java": "java",
              ".mk": "make"}
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")


def language_of(path: str) -> Optional[str]:
    """The language of the file at ``path`` (a name or a relative path), None when the
    file is not compared."""
    name = posixpath.basename(path)
    if name in _MAKEFILES:
        return "make"
    return _BY_SUFFIX.get(posixpath.splitext(name)[1])


def lex_file(language: str, text: str) -> Lexed:
    """The normalised tokens of ``text`` in ``language`` (a key of :data:`LEXERS`)."""
    return LEXERS[language](text)
