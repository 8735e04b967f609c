"""The N-Queens game (A4): ``python3 -m engine nqueens`` (docs/nqueens.md).

    program.py   tables, play, scenarios, solve, the A4 output; the subcommands
    check.py     reading and checking A4 output files
    chart.py     the chart of the A4 times
"""

from .program import main

__all__ = ["main"]
