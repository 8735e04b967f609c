"""Line 'em Up positions given as board rows, checked for the AI (no I/O).

:func:`position` turns n row strings ('.' empty, '*' bloc, 'X', 'O', row 0 first) into
the game and state the AI searches, or says in one line (UsageError) why the position
cannot be played. Shared by ``lineemup move`` and ``lineemup agent``.
"""

from typing import Iterable, Sequence, Tuple

from ...errors import UsageError
from ...games.line_em_up import LineEmUp, State, cell_name


def position(board: Sequence[str], blocs: Iterable[Sequence[int]], n: int, s: int, side: str,
             heuristic: str) -> Tuple[LineEmUp, State]:
    """(game, state) for a board given as row strings; UsageError if it is not playable."""
    if len(board) != n or not 3 <= n <= 10:
        raise UsageError(f"the board must have n rows (3..10), not {len(board)}")
    if not 3 <= s <= n:
        raise UsageError(f"-s must be 3..{n}, not {s}")
    if side not in ("X", "O"):
        raise UsageError(f"side must be X or O, not {side!r}")
    x = o = 0
    cells = set(tuple(cell) for cell in blocs)
    for row, text in enumerate(board):
        if len(text) != n:
            raise UsageError(f"row {row} has {len(text)} cells, expected {n} (ragged board)")
        for column, mark in enumerate(text):
            if mark not in ".*XO":
                raise UsageError(f"row {row} holds {mark!r}: cells are '.', '*', 'X' or 'O'")
            bit = 1 << (row * n + column)
            if mark == "X":
                x |= bit
            elif mark == "O":
                o |= bit
            elif mark == "*":
                cells.add((column, row))
    for column, row in cells:
        if not (0 <= column < n and 0 <= row < n):
            raise UsageError(f"bloc {(column, row)} is off the board")
        if (x | o) >> (row * n + column) & 1:
            raise UsageError(f"bloc {cell_name(row * n + column, n)} holds a stone")
    xs, os_ = bin(x).count("1"), bin(o).count("1")
    if xs != os_ + (side == "O"):
        raise UsageError(f"impossible piece counts: {xs} X and {os_} O with {side} to move "
                         "(X moves first)")
    game = LineEmUp(n, s, sorted(cells), heuristic)
    try:
        state = game.state_from(x, o, side == "X")
    except ValueError as error:
        raise UsageError(f"impossible position: {error}") from None
    if state[3] is not None:
        raise UsageError("the game is already over in this position")
    return game, state
