"""Three Men's Morris: tmmorris.py and ``python3 -m engine tmmorris`` (docs/tmmorris.md;
``morris`` is accepted for tmmorris).

    program.py     the grader's program: argv, the visited file, the printed board
    lookahead.py   the program's move (the engine's alpha-beta on MorrisLookahead)
    play.py        ``tmmorris play``: a person against the program in the terminal
"""

from .program import main

__all__ = ["main"]
