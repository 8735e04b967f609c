"""``python3 -m engine PROGRAM [ARGS...]``: run one of the project's programs.

The programs are those of engine.registry; ``python3 -m engine --help`` lists them. The
grader programs also have top-level scripts (tictactoe.py, tmmorris.py, TakeStones,
homework.py) that call the same ``main``.
"""

import sys

from .registry import PROGRAMS, program, program_names


def usage():
    lines = ["usage: python3 -m engine PROGRAM [ARGS...]", "", "programs:"]
    for entry in PROGRAMS:
        lines.append(f"  {entry.name:<12} {entry.summary}")
    lines.append("")
    lines.append("python3 -m engine PROGRAM --help shows a program's own help.")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    entry = program(argv[0])
    if entry is None:
        print(f"engine: unknown program {argv[0]!r}; known: {', '.join(program_names())}",
              file=sys.stderr)
        return 2
    return entry.main()(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
