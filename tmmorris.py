#!/usr/bin/env python3
"""Three Men's Morris grader program: python3 tmmorris.py STATE PATH PLY TURN."""
import sys

try:
    from engine.programs.morris import main
except ModuleNotFoundError as missing:  # copied alone: say what it needs, in one line
    if missing.name != "engine":
        raise
    print("tmmorris.py: needs the engine/ folder beside it (copy it too, or use the single "
          "file that make dist builds: dist/tmmorris.pyz)", file=sys.stderr)
    sys.exit(2)

sys.exit(main(sys.argv[1:], name="tmmorris.py"))
