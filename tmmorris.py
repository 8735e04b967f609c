#!/usr/bin/env python3
"""Three Men's Morris grader program: python3 tmmorris.py STATE PATH PLY TURN."""
import sys

from engine.programs.morris import main

sys.exit(main(sys.argv[1:], name="tmmorris.py"))
