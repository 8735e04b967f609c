#!/usr/bin/env python3
"""Stake/Raid grader program: python3 homework.py (reads input.txt, writes output.txt)."""
import sys

from engine.programs.stake_raid import main

sys.exit(main(sys.argv[1:]))
