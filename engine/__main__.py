"""``python3 -m engine PROGRAM [ARGS...]``: run one of the project's programs.

Every module of engine.programs that defines ``main(argv)`` and ``SUMMARY`` is a program;
``python3 -m engine --help`` lists them. The grader programs also have top-level scripts
(tictactoe.py, tmmorris.py, TakeStones, homework.py) that call the same ``main``.
"""

import importlib
import pkgutil
import sys

from . import programs

NOT_PROGRAMS = {"common"}


def program_names():
    """Names of the modules in engine.programs that are programs, sorted."""
    return sorted(info.name for info in pkgutil.iter_modules(programs.__path__)
                  if info.name not in NOT_PROGRAMS and not info.name.startswith("_"))


def load(name):
    """The program module ``name`` (it must have ``main`` and ``SUMMARY``), or None."""
    if name not in program_names():
        return None
    module = importlib.import_module(f"{programs.__name__}.{name}")
    if not hasattr(module, "main"):
        return None
    return module


def usage():
    lines = ["usage: python3 -m engine PROGRAM [ARGS...]", "", "programs:"]
    for name in program_names():
        module = load(name)
        if module is not None:
            lines.append(f"  {name:<12} {getattr(module, 'SUMMARY', '')}")
    lines.append("")
    lines.append("python3 -m engine PROGRAM --help shows a program's own help.")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    module = load(argv[0])
    if module is None:
        print(f"engine: unknown program {argv[0]!r}; known: {', '.join(program_names())}",
              file=sys.stderr)
        return 2
    return module.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
