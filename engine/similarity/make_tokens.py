"""Makefiles -> normalised tokens, by a small lexer of our own.

A Makefile is read line by line: ``#`` comments and blank lines are dropped, a line
continued with a backslash joins the next; a recipe line (it starts with a tab) opens
with a :data:`RECIPE` token. Words are split at spaces and at the punctuation of make
(``:``, ``=``, ``$(``, ``)``, ``,`` ...). Make's own words (``ifeq``, ``.PHONY``, ``CC``,
``$@``) and the usual tools and flags (``gcc``, ``-O2``) stay; other words (targets,
variables of the student's, file names) become identifiers; numbers become numbers.
"""

import re
from typing import List

from .lexed import IDENTIFIER, NUMBER, Lexed

RECIPE = "$recipe"
MAKE_WORDS = frozenset("""
ifeq ifneq ifdef ifndef else endif include -include define endef export unexport override
vpath .PHONY .SUFFIXES .DEFAULT all clean install CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS
LDLIBS JAVAC JAVA RM MAKE SHELL $@ $< $^ $? $* wildcard patsubst shell foreach
gcc g++ cc c++ clang clang++ javac java jar python python3 rm cp mv mkdir echo chmod
touch make
""".split())
_PIECE = re.compile(r"\$[({]|[(){}]|::=|:=|\?=|\+=|!=|::|[:=,;|]|[^\s(){}:=,;|$]+|\$.?")


def lex_make(text: str) -> Lexed:
    """The normalised tokens of a Makefile (see the module docstring)."""
    kinds: List[str] = []
    lines: List[int] = []
    pending = ""
    pending_line = 0
    for number, raw in enumerate(text.split("\n"), 1):
        if pending:
            line, start = pending + " " + raw.lstrip(), pending_line
        else:
            line, start = raw, number
        if line.endswith("\\"):
            pending, pending_line = line[:-1], start
            continue
        pending = ""
        _lex_line(line, start, kinds, lines)
    if pending:
        _lex_line(pending, pending_line, kinds, lines)
    return Lexed(kinds, lines)


def _lex_line(line: str, number: int, kinds: List[str], lines: List[int]) -> None:
    recipe = line.startswith("\t")
    body = line.split("#", 1)[0] if not recipe else line
    if not body.strip():
        return
    if recipe:
        kinds.append(RECIPE)
        lines.append(number)
    for piece in _PIECE.findall(body):
        if piece in MAKE_WORDS or piece.startswith("-") or not piece[0].isalnum() \
                and not piece.startswith((".", "_", "/")):
            kinds.append(piece)
        elif piece.isdigit():
            kinds.append(NUMBER)
        else:
            kinds.append(IDENTIFIER)
        lines.append(number)
