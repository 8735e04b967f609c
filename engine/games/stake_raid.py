"""Stake/Raid, the war game of ``homework.py`` (docs/stake_raid.md).

Board: N x N squares (N = 1..26), each with a value 1..99; columns A.. left to right,
rows 1.. top to bottom. Cells are numbered row-major: cell = row * N + column.

State: ``(cells, score, mover)``, an immutable, hashable tuple.

* ``cells``  bytes of length N*N: ``EMPTY`` (0), ``MAX`` (1, the YOUPLAY side) or ``MIN`` (2).
* ``score``  sum of the values owned by MAX minus those owned by MIN, kept incrementally
             ("score ... ALWAYS from YOUPLAY's side (Max = YOUPLAY)").
* ``mover``  ``MAX`` or ``MIN``, the side to move.

Actions are ints: a Stake on ``cell`` is ``cell``; a Raid of ``cell`` is ``cell + RAID``.

Rules (spec "Rules"):

* Stake: a piece on any empty square.
* Raid: an empty square orthogonally adjacent to one of the mover's pieces becomes the
  mover's, and every enemy piece orthogonally adjacent to it flips to the mover. A Raid
  that flips nothing is still a legal move (its child equals the Stake's; see the class
  doc for why the search skips it).
* Terminal: the board is full (players cannot pass). Terminal and cut-off nodes are both
  valued by ``score``.

Successor order (spec "Search"): all Stakes row-major, then all Raids row-major by the
raided square. This order is the tie-break order of the root.
"""

from __future__ import annotations

from itertools import chain, compress

from ..game import Game

# homework.py's every run imports this module, and typing costs about 10 ms of start-up:
# the type names are for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

    # A state is ``(cells, score, mover)``: the board as one byte per cell (EMPTY, MAX,
    # MIN) in row-major order, MAX's score, the side to move.
    State = Tuple[bytes, int, int]
else:
    State = tuple       # the same name at run time, for modules that build type aliases

EMPTY, MAX, MIN = 0, 1, 2
RAID = 1 << 10          # actions >= RAID are Raids (N*N <= 676 < 1024)
MAX_SIZE = 26

# bytes.translate tables: a cell byte -> 1 if it is of the wanted kind, else 0.
_ONLY = {kind: bytes(1 if code == kind else 0 for code in range(256))
         for kind in (EMPTY, MAX, MIN)}
_PIECE = {MAX: bytes([MAX]), MIN: bytes([MIN])}
# Neighbourhood codes (StakeRaid.neighbourhoods): four neighbours, three states each,
# plus OCCUPIED on a square that is not empty (so every code fits in a byte).
NEIGHBOURHOODS = 3 ** 4
OCCUPIED = NEIGHBOURHOODS
# Swaps the two sides' pieces (the board as the other side sees it).
_SWAP = bytes.maketrans(bytes([MAX, MIN]), bytes([MIN, MAX]))
# A cell byte -> OCCUPIED for a piece of either side, 0 for an empty square.
_OCCUPIED_FLAGS = bytes(0 if code == EMPTY else OCCUPIED for code in range(256))


def code_digits(code: int) -> Tuple[int, int, int, int]:
    """The (up, left, right, down) digits of a neighbourhood code (0 empty or off the
    board, 1 the mover's piece, 2 the other side's; see StakeRaid.neighbourhoods)."""
    return code // 27 % 3, code // 9 % 3, code // 3 % 3, code % 3


def code_table(wanted: Callable[[bool, Tuple[int, int, int, int]], Any]) -> bytes:
    """A bytes.translate table: a neighbourhood code -> 1 if ``wanted(occupied, digits)``
    is true (``digits`` as code_digits gives them), else 0."""
    return bytes(1 if wanted(code >= OCCUPIED, code_digits(code)) else 0
                 for code in range(256))


def is_raid(action: int) -> bool:
    """True for a Raid action, False for a Stake."""
    return action >= RAID


def action_cell(action: int) -> int:
    """The square an action puts a piece on."""
    return action - RAID if action >= RAID else action


def move_name(size: int, action: int) -> str:
    """The move as the rules write it, ``<col><row> <Stake|Raid>``: column letter A..,
    row number 1.. on a ``size`` x ``size`` board."""
    row, column = divmod(action_cell(action), size)
    return f"{chr(ord('A') + column)}{row + 1} {'Raid' if is_raid(action) else 'Stake'}"


class StakeRaid(Game):
    """Stake/Raid on an N x N board with the given cell values.

    A Raid that flips nothing is a legal move, but its child is the very state of the
    Stake on the same square, which comes earlier in the visit order. Such a duplicate
    child can change neither a node's minimax value nor the root's choice (the FIRST
    strictly best child), and alpha-beta's guarantees hold on the tree without it; so
    by default ``successors``/``horizon_values`` leave it out (``flipless_raids=False``),
    which is also what the reference programs count (330,334 nodes for the empty 5x5
    MINIMAX depth 4). ``actions`` always lists every legal move.

    ``values`` is a sequence of N*N ints in row-major order. The precomputed tables
    (neighbour lists, edge masks) make every node cost a few C-level operations:
    empties and raid targets are found with ``bytes.translate``, big-int shifts and
    ``itertools.compress`` instead of Python loops over the board.
    """

    def __init__(self, size: int, values: Sequence[int], flipless_raids: bool = False) -> None:
        if not 1 <= size <= MAX_SIZE:
            raise ValueError(f"board size must be 1..{MAX_SIZE}, not {size}")
        if len(values) != size * size:
            raise ValueError(f"expected {size * size} values, got {len(values)}")
        self.size = size
        self.flipless_raids = flipless_raids
        self.area = area = size * size
        self.values = tuple(values)
        # Signed values: what a piece of MAX / MIN on a cell adds to the score.
        self.signed = {MAX: self.values, MIN: tuple(-v for v in self.values)}
        neighbours = []
        for cell in range(area):
            row, column = divmod(cell, size)
            near = []
            if row > 0:
                near.append(cell - size)
            if column > 0:
                near.append(cell - 1)
            if column < size - 1:
                near.append(cell + 1)
            if row < size - 1:
                near.append(cell + size)
            neighbours.append(tuple(near))
        self.neighbours = tuple(neighbours)
        self.cell_range = range(area)
        # One byte per cell in the big-int views: shifting by 8 bits moves one column,
        # by 8*size bits one row. The masks stop a shift from wrapping across rows.
        self._row_shift = 8 * size
        self._not_last_column = int.from_bytes(
            bytes(0 if c % size == size - 1 else 1 for c in range(area)), "little")
        self._not_first_column = int.from_bytes(
            bytes(0 if c % size == 0 else 1 for c in range(area)), "little")
        self._whole_board = (1 << (8 * area)) - 1
        # The same masks with whole bytes (0xFF) for codes other than 0 and 1.
        self._bytes_not_last_column = self._not_last_column * 0xFF
        self._bytes_not_first_column = self._not_first_column * 0xFF

    # --- states ----------------------------------------------------------------------
    def initial_state(self, cells: Iterable[int], mover: int = MAX) -> State:
        """The state of a board given as N*N codes (EMPTY/MAX/MIN), ``mover`` to move."""
        cells = bytes(cells)
        if len(cells) != self.area or any(c not in (EMPTY, MAX, MIN) for c in cells):
            raise ValueError("cells must be N*N codes from EMPTY, MAX, MIN")
        values = self.values
        score = sum(values[i] for i in range(self.area) if cells[i] == MAX)
        score -= sum(values[i] for i in range(self.area) if cells[i] == MIN)
        return (cells, score, mover)

    def empties(self, cells: bytes) -> List[int]:
        """Empty cells in row-major order (the Stakes)."""
        return list(compress(self.cell_range, cells.translate(_ONLY[EMPTY])))

    def raid_targets(self, cells: bytes, mover: int, flipless: Optional[bool] = None) -> List[int]:
        """Raided squares in row-major order: empty cells orthogonally adjacent to a
        piece of ``mover`` and, unless ``flipless`` (default: the game's
        ``flipless_raids``), to an enemy piece too."""
        own = int.from_bytes(cells.translate(_ONLY[mover]), "little")
        if not own:
            return []
        near = self._near(own) & int.from_bytes(cells.translate(_ONLY[EMPTY]), "little")
        if near and not (self.flipless_raids if flipless is None else flipless):
            near &= self._near(int.from_bytes(cells.translate(_ONLY[MAX + MIN - mover]),
                                              "little"))
        if not near:
            return []
        return list(compress(self.cell_range, near.to_bytes(self.area, "little")))

    def neighbourhoods(self, cells: bytes, mover: int) -> bytes:
        """For every cell (one byte each, row-major), who holds its four neighbours as
        ``mover`` sees them: up*27 + left*9 + right*3 + down, each 0 (empty or off the
        board), 1 (``mover``'s piece) or 2 (the other side's), plus OCCUPIED when the
        cell itself is not empty. A few big-int operations for the whole board; a player
        looks its per-cell tables up with these codes, or finds the cells of a kind with
        one ``translate`` (see code_table)."""
        own = int.from_bytes(cells if mover == MAX else cells.translate(_SWAP), "little")
        shift, whole = self._row_shift, self._whole_board
        # Each byte stays below 81 + OCCUPIED throughout, so no byte carries into the next.
        code = ((((own << shift) & whole) * 3
                 + ((own & self._bytes_not_last_column) << 8)) * 3
                + ((own & self._bytes_not_first_column) >> 8)) * 3 + (own >> shift)
        occupied = int.from_bytes(cells.translate(_OCCUPIED_FLAGS), "little")
        return ((code & whole) + occupied).to_bytes(self.area, "little")

    def values_by_holder(self, cell: int, code: int) -> Tuple[int, int]:
        """(mine, theirs): the values of ``cell``'s neighbours held by the mover and by
        the other side, ``code`` being the cell's neighbourhood code."""
        mine = theirs = 0
        for near, digit in zip(self.neighbours_by_side(cell), code_digits(code)):
            # a digit 1 or 2 is a piece, so ``near`` is on the board (not None)
            if digit == 1:
                mine += self.values[near]  # type: ignore[index]
            elif digit == 2:
                theirs += self.values[near]  # type: ignore[index]
        return mine, theirs

    def neighbours_by_side(self, cell: int) -> Tuple[Optional[int], ...]:
        """The cells up, left, right and down of ``cell`` (None off the board): the
        order of a neighbourhood code's digits."""
        size = self.size
        row, column = divmod(cell, size)
        return (cell - size if row > 0 else None, cell - 1 if column > 0 else None,
                cell + 1 if column < size - 1 else None,
                cell + size if row < size - 1 else None)

    def _near(self, pieces: int) -> int:
        """The cells orthogonally adjacent to ``pieces`` (one byte per cell, see init)."""
        return (((pieces & self._not_last_column) << 8)
                | ((pieces & self._not_first_column) >> 8)
                | (pieces << self._row_shift) | (pieces >> self._row_shift))

    def play(self, state: State, action: int) -> State:
        """The state after ``action`` (same as ``result``)."""
        cells, score, mover = state
        if action < RAID:
            return (cells[:action] + _PIECE[mover] + cells[action + 1:],
                    score + self.signed[mover][action], MAX + MIN - mover)
        cell = action - RAID
        enemy = MAX + MIN - mover
        board = bytearray(cells)
        board[cell] = mover
        gain = self.values[cell]
        for near in self.neighbours[cell]:
            if board[near] == enemy:
                board[near] = mover
                gain += 2 * self.values[near]
        return (bytes(board), score + gain if mover == MAX else score - gain, enemy)

    # --- the assignments' interface ----------------------------------------------------
    def actions(self, state: State) -> List[int]:
        """Every legal move in visit order, flipless Raids included."""
        cells, _, mover = state
        targets = self.raid_targets(cells, mover, flipless=True)
        return self.empties(cells) + [t + RAID for t in targets]

    def result(self, state: State, action: int) -> State:
        return self.play(state, action)

    def is_terminal(self, state: State) -> bool:
        return EMPTY not in state[0]

    def utility(self, state: State) -> int:
        return state[1]

    def is_maxs_turn(self, state: State) -> bool:
        return state[2] == MAX

    def score_bounds(self, state: State) -> Tuple[int, int]:
        """(low, high): the least and the most score (MAX's view) of any position
        reachable from ``state``, whoever plays what. An empty square can still go
        either way (its value at most); a piece can flip only by a Raid on an empty
        square next to it, so a piece without an empty neighbour is settled and one
        with an empty neighbour can at most change hands (twice its value). A search
        to the end of the game cuts with these (engine.selective's ``bounds``)."""
        cells, score, _ = state
        values, area = self.values, self.area
        empty_flags = cells.translate(_ONLY[EMPTY])
        empty_sum = sum(compress(values, empty_flags))
        near_empty = self._near(int.from_bytes(empty_flags, "little"))
        exposed_max = near_empty & int.from_bytes(cells.translate(_ONLY[MAX]), "little")
        exposed_min = near_empty & int.from_bytes(cells.translate(_ONLY[MIN]), "little")
        at_risk_max = sum(compress(values, exposed_max.to_bytes(area, "little")))
        at_risk_min = sum(compress(values, exposed_min.to_bytes(area, "little")))
        return (score - empty_sum - 2 * at_risk_max, score + empty_sum + 2 * at_risk_min)

    def evaluate(self, state: State) -> int:
        """The spec's cut-off value: the score from YOUPLAY's (MAX's) side."""
        return state[1]

    # --- hot path ----------------------------------------------------------------------
    def successors(self, state: State) -> List[Tuple[int, State]]:
        cells, score, mover = state
        piece = _PIECE[mover]
        signed = self.signed[mover]
        following = MAX + MIN - mover
        children = [(cell, (cells[:cell] + piece + cells[cell + 1:],
                            score + signed[cell], following))
                    for cell in self.empties(cells)]
        play = self.play
        children += [(target + RAID, play(state, target + RAID))
                     for target in self.raid_targets(cells, mover)]
        return children

    def terminal_value(self, state: State) -> Optional[int]:
        return None if EMPTY in state[0] else state[1]

    def horizon_values(self, state: State) -> Tuple["HorizonActions", Iterator[int]]:
        """(actions, values) of every child on the cut-off: its score, in visit order.

        A child's value (terminal or evaluated alike) is the parent's score plus the
        move's gain, so no child is built. ``values`` is a lazy iterator: the Stakes'
        values are one list, made in one pass over the empty squares' values; the Raids'
        are computed only if the search gets past the Stakes (alpha-beta stops at a
        cut). ``actions`` is an indexable view of the same moves.
        """
        cells, score, mover = state
        empty_flags = cells.translate(_ONLY[EMPTY])
        stakes = [score + gain for gain in compress(self.signed[mover], empty_flags)]
        actions = HorizonActions(self, cells, mover, empty_flags)
        return actions, chain(stakes, self._raid_values(actions, score))

    def _raid_values(self, actions: "HorizonActions", score: int) -> Iterator[int]:
        """The values of the Raids of a horizon node, in visit order, one at a time."""
        cells, mover = actions.cells, actions.mover
        values, neighbours = self.values, self.neighbours
        enemy = MAX + MIN - mover
        sign = 1 if mover == MAX else -1
        for target in actions.raid_targets():
            gain = values[target]
            for near in neighbours[target]:
                if cells[near] == enemy:
                    gain += 2 * values[near]
            yield score + sign * gain


class HorizonActions:
    """The actions of a horizon node by index (Stakes, then Raids): the empty squares
    and the raid targets are found once, when first needed (most horizon nodes never
    ask: the search reads an action only to store a best move)."""

    __slots__ = ("game", "cells", "mover", "empty_flags", "empties", "targets")

    def __init__(self, game: StakeRaid, cells: bytes, mover: int, empty_flags: bytes) -> None:
        self.game, self.cells, self.mover, self.empty_flags = game, cells, mover, empty_flags
        self.empties: Optional[List[int]] = None
        self.targets: Optional[List[int]] = None

    def raid_targets(self) -> List[int]:
        if self.targets is None:
            self.targets = self.game.raid_targets(self.cells, self.mover)
        return self.targets

    def __getitem__(self, index: int) -> int:
        if self.empties is None:
            self.empties = list(compress(self.game.cell_range, self.empty_flags))
        stakes = len(self.empties)
        if index < stakes:
            return self.empties[index]
        return self.raid_targets()[index - stakes] + RAID
