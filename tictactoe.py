#!/usr/bin/env python3
"""tic-tac-toe grader program: python3 tictactoe.py STATE PATH [prune [PLY]]."""
import sys

from engine.programs.tictactoe import main

sys.exit(main(sys.argv[1:]))
