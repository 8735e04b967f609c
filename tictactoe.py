#!/usr/bin/env python3
"""tic-tac-toe grader program: python3 tictactoe.py STATE PATH [prune [PLY]]."""
import sys

try:
    from engine.programs.tictactoe import main
except ModuleNotFoundError as missing:  # copied alone: say what it needs, in one line
    if missing.name != "engine":
        raise
    print("tictactoe.py: needs the engine/ folder beside it (copy it too, or use the single "
          "file that make dist builds: dist/tictactoe.pyz)", file=sys.stderr)
    sys.exit(2)

sys.exit(main(sys.argv[1:]))
