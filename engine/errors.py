"""Typed errors raised inside the engine and the programs: one hierarchy.

Every exception class of engine/ derives from :class:`EngineError` (tests/test_errors.py
checks it; docs/engine.md, "Errors", lists them with their exit codes). Those that
callers used to catch as ValueError (or OSError, RuntimeError) still are one too.
Programs turn a :class:`UsageError` into one line on stderr and exit code 2 (see
:func:`engine.commandline.run_program`); the kit's and the tournament's command lines do
the same with their own errors.
"""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose.

    ``exit_code``: what a command line exits with when this error ends it (after one
    line on stderr saying what is wrong).
    """

    exit_code = 2


class UsageError(EngineError):
    """Bad input from the user: wrong arguments, malformed files, impossible positions.

    The message is a single line that says what is wrong; the program prints it on
    stderr and exits with code 2 without creating or touching its output files.
    """


class SearchTimeout(EngineError):
    """Raised inside a search when its deadline has passed (see engine.iterative)."""

