"""Line 'em Up: ``python3 -m engine lineemup`` (docs/lineemup.md).

    program.py   games (human or AI), traces, scoreboards, series; the subcommands
    ai.py        the AI player: iterative-deepening search under the move's time
    agent.py     the tournament agent: one move through input.txt / output.txt
    boards.py    a position given as board rows, checked (move and agent)
    check.py     reading and checking game traces and scoreboards
    report.py    charts and an HTML page of a scoreboard
"""

from .program import choose_move, main

__all__ = ["choose_move", "main"]
