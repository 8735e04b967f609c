"""Typed errors raised inside the engine and the programs.

Programs turn a :class:`UsageError` into one line on stderr and exit code 2
(see :func:`engine.commandline.run_program`).
"""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class UsageError(EngineError):
    """Bad input from the user: wrong arguments, malformed files, impossible positions.

    The message is a single line that says what is wrong; the program prints it on
    stderr and exits with code 2 without creating or touching its output files.
    """


class SearchTimeout(EngineError):
    """Raised inside a search when its deadline has passed (see engine.iterative)."""


class SearchOptionError(EngineError, ValueError):
    """:func:`engine.search.search` was given options that do not go together (a
    programming error of its caller, e.g. a tracer with a selective search)."""
