"""Take-Stones: the TakeStones script, ``python3 -m engine take_stones`` and
``java TakeStones`` (docs/take_stones.md).

    program.py        arguments, the alpha-beta listing, the move
    listing.py        the listing's node records and their text
    TakeStones.java   the Java launcher that hands its arguments to the Python program
"""

from .program import main

__all__ = ["main"]
