"""``python3 -m engine PROGRAM [ARGS...]``: run one of the project's programs (the installed
command ``game-search``, see pyproject.toml, is the same).

The programs are those of engine.registry; ``python3 -m engine --help`` lists them. The
grader programs also have top-level scripts (tictactoe.py, tmmorris.py, TakeStones,
homework.py) that call the same ``main``.
"""

import os
import sys
from typing import List, Optional

from .commandline import invoked_as, shadowing_engine
from .registry import PROGRAMS, program, program_names

# The programs that draw or print our search: run from a folder holding another copy of
# the engine (a student's), they would show that copy's search instead of the one asked
# for (PYTHONPATH), so they refuse.
OUR_SEARCH = ("picture", "tree")


def usage() -> str:
    command = invoked_as()
    lines = [f"usage: {command} PROGRAM [ARGS...]", "", "programs:"]
    for entry in PROGRAMS:
        lines.append(f"  {entry.name:<12} {entry.summary}")
    lines.append("")
    lines.append(f"{command} PROGRAM --help shows a program's own help.")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        try:
            print(usage())
            sys.stdout.flush()
        except BrokenPipeError:
            # A closed pipe (``| head``) is not an error; keep the exit quiet.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0 if argv else 2
    entry = program(argv[0])
    if entry is None:
        print(f"engine: unknown program {argv[0]!r}; known: {', '.join(program_names())}",
              file=sys.stderr)
        return 2
    shadowed = shadowing_engine() if entry.name in OUR_SEARCH else None
    if shadowed:
        print(f"engine: the engine in {shadowed[0].parent} (this folder's copy) hides the "
              f"one PYTHONPATH names ({shadowed[1].parent}); the installed command, "
              "game-search, runs the right one from any folder", file=sys.stderr)
        return 2
    return entry.main()(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
