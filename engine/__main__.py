"""``python3 -m engine PROGRAM [ARGS...]``: run one of the project's programs (the installed
command ``game-search``, see pyproject.toml, is the same).

The programs are those of engine.registry; ``python3 -m engine --help`` lists them. The
grader programs also have top-level scripts (tictactoe.py, tmmorris.py, TakeStones,
homework.py) that call the same ``main``.
"""

import os
import sys

from .registry import PROGRAMS, program, program_names


def invoked_as():
    """How the user called us: ``python3 -m engine``, or the installed command's name."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python3 -m engine" if name in ("", "__main__.py", "-c") else name


def usage():
    command = invoked_as()
    lines = [f"usage: {command} PROGRAM [ARGS...]", "", "programs:"]
    for entry in PROGRAMS:
        lines.append(f"  {entry.name:<12} {entry.summary}")
    lines.append("")
    lines.append(f"{command} PROGRAM --help shows a program's own help.")
    return "\n".join(lines)


def main(argv=None):
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
    return entry.main()(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
