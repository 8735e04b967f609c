"""The N-Queens game of CMPT 317 Assignment 4 (docs/nqueens.md).

Two players alternately put a queen on a square that no queen on the board attacks (same
row, column or diagonal). Player 1 = Max = ``'X'`` moves first; the LAST player able to
place a queen wins. Three variations:

* ``1a``: the queen must go in the left-most empty column (Player 1 column 0, Player 2
  column 1, ...). Utility +1 if Player 1 wins, -1 if Player 2 wins.
* ``1b``: as 1a, utility +k / -k where k is the number of queens on the board at the end.
* ``2``:  a queen may go on ANY non-attacked square. Utility +1 / -1.

In every variation Player 1 places the odd-numbered queens, so the winner (the last
placer) is Player 1 exactly when the final number of queens k is odd; this also covers a
full board in 1a/1b (N odd -> Player 1, N even -> Player 2). There are no draws.

Actions: ``('X', row)`` / ``('O', row)`` in 1a/1b and ``('X', row, col)`` /
``('O', row, col)`` in Variation 2, row 0 = top. They are visited top row first (then
left column first in Variation 2): the assignment's tie-break order.

States are immutable tuples of ints (hashable, cheap to build):

* 1a/1b: ``(rows, occupied, down, up)``. ``rows`` is the tuple of the rows of the queens
  in columns 0, 1, ...; bit r of ``occupied`` is set when row r holds a queen; bit r of
  ``down`` / ``up`` is set when a queen attacks row r of the NEXT empty column along a
  down-right / up-right diagonal. Moving one column right shifts ``down`` by one bit up
  and ``up`` by one bit down, so the future depends only on (occupied, down, up) -- the
  transposition key, merged with its mirror image (row r <-> row N-1-r).
* 2: ``(count, queens, free, *images)``. ``count`` queens are placed, bit r*N+c of
  ``queens`` marks them, ``free`` holds the squares still available (empty and not
  attacked). With ``symmetry=True`` (the solver) ``images`` are ``free`` seen through the
  7 other symmetries of the square, kept up to date move by move (the image of a queen's
  attack set is the attack set of the image square), so the canonical key under all 8
  board symmetries is a ``min`` over 8 ints.

The search checks ``is_terminal`` first and ``cutoff_test`` only after it (engine.search
does exactly that: ``terminal_value`` before the depth test).
"""

from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Union

from ..game import Game

# See above: tuples of ints; an action is ``(mark, row)`` (1a/1b) or ``(mark, row, col)``.
State = Tuple[Any, ...]
Action = Tuple[Any, ...]

VARIATIONS = ("1a", "1b", "2")
MARKS = ("X", "O")          # MARKS[number of queens placed % 2] is the side to move


def winner_value(queens_placed: int, scaled: bool) -> int:
    """Utility of a finished game with ``queens_placed`` queens, Player 1's view.

    The last placer wins; Player 1 places the odd-numbered queens (assignment rule).
    ``scaled`` (Variation 1b) multiplies by the number of queens k.
    """
    magnitude = queens_placed if scaled else 1
    return magnitude if queens_placed % 2 else -magnitude


def reverse_bits(value: int, width: int) -> int:
    """``value`` with its ``width`` low bits in reverse order (mirror row r <-> width-1-r)."""
    return int(format(value, "0%db" % width)[::-1], 2) if width else 0


class NQueens(Game):
    """Common interface of the three variations (``size`` N >= 1).

    The assignment's method names are all here: ``is_terminal``, ``utility``, ``actions``,
    ``result``, ``is_maxs_turn``, ``is_mins_turn``, ``cutoff_test(state, depth)`` and
    ``eval`` (an alias of ``evaluate``, the name engine.search uses).
    """

    variation: Optional[str] = None

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("board size must be at least 1")
        self.size = size

    @staticmethod
    def queens_placed(state: State) -> int:
        """The number of queens placed in ``state`` (each variation reads its own state)."""
        raise NotImplementedError

    def cutoff_test(self, state: State, depth: int, limit: Optional[float] = None) -> bool:
        """True when the search must stop at ``state`` reached at ``depth`` (root = 0).

        The assignment's contract: a terminal state is always cut off (it is valued by
        ``utility``, tested first), and a non-terminal one when ``depth >= limit``
        (``limit`` None = no cut-off: full depth). engine.search applies exactly this
        rule itself (its ``depth=`` argument is ``limit``); this method states it for the
        assignment's interface and for tests.
        """
        return self.is_terminal(state) or (limit is not None and depth >= limit)

    def eval(self, state: State) -> float:
        """The assignment's name of :meth:`evaluate`."""
        return self.evaluate(state)

    def mark_to_move(self, state: State) -> str:
        """``'X'`` or ``'O'``: the side that places the next queen."""
        return MARKS[self.queens_placed(state) % 2]

    def is_maxs_turn(self, state: State) -> bool:
        """Player 1 (Max, 'X') moves when an even number of queens is placed."""
        return self.queens_placed(state) % 2 == 0

    def is_mins_turn(self, state: State) -> bool:
        """Player 2 (Min, 'O') moves when an odd number of queens is placed."""
        return self.queens_placed(state) % 2 == 1

    def is_terminal(self, state: State) -> bool:
        """True when the side to move cannot place a queen (or every column is full)."""
        return self.terminal_value(state) is not None

    def utility(self, state: State) -> int:
        """+1 / -1 (1a, 2) or +k / -k (1b): Player 1 wins iff the final k is odd."""
        return winner_value(self.queens_placed(state), self.variation == "1b")


class ColumnByColumn(NQueens):
    """Variations 1a and 1b: each queen goes in the left-most empty column.

    Evaluation (used only at a depth cut-off): the winner is decided by the parity of the
    final number of queens, so E estimates that number with two greedy completions from
    the state (every later queen on the top-most free row, and on the bottom-most free
    row) and scores each completion as the utility it would give, halved:
    1a: +-0.5 per completion, averaged -> -0.5, 0 or 0.5;
    1b: +-k/2 per completion, averaged -> within (-N/2, N/2).
    Values stay strictly inside the utility range, so a proven win or loss always beats
    an estimate. Deterministic and O(N) with bit masks.
    """

    # Bit tables (popcount, mirror) are precomputed up to this size (2^N entries each).
    TABLE_LIMIT = 20

    def __init__(self, size: int, variation: str = "1a", solver: bool = False) -> None:
        """``solver=True``: the exact solver's instance. Its ``successors`` lists the
        moves leaving the opponent the fewest free rows first (see :meth:`solver_order`)
        instead of the assignment's top-first order; values are the same."""
        super().__init__(size)
        if variation not in ("1a", "1b"):
            raise ValueError("ColumnByColumn plays variations 1a and 1b")
        self.variation = variation
        self.scaled = variation == "1b"
        self.full = (1 << size) - 1
        self.solver = solver
        # mirror table: a dict filled on demand, or (solver, small boards) a full list
        self._reverse: Union[Dict[int, int], List[int]] = {}
        self._popcount: Optional[List[int]] = None
        # Shared action tuples: _actions[queens placed % 2][row].
        self._actions = [[(mark, row) for row in range(size)] for mark in MARKS]
        if solver:
            self.successors = self._successors_fewest_replies_first  # type: ignore[method-assign]
            if size <= self.TABLE_LIMIT:
                popcount, mirror = [0] * (1 << size), [0] * (1 << size)
                top = size - 1
                for value in range(1, 1 << size):
                    popcount[value] = popcount[value >> 1] + (value & 1)
                    mirror[value] = (mirror[value >> 1] >> 1) | ((value & 1) << top)
                self._popcount = popcount
                self._reverse = mirror

    def initial_state(self) -> State:
        return ((), 0, 0, 0)

    @staticmethod
    def queens_placed(state: State) -> int:
        return len(state[0])

    def free_rows(self, state: State) -> int:
        """Bit mask of the rows of the next column that no queen attacks."""
        _, occupied, down, up = state
        return ~(occupied | down | up) & self.full

    # --- the assignment's interface ---------------------------------------------------
    def actions(self, state: State) -> List[Action]:
        """The free rows of the left-most empty column as ('X'|'O', row), top row first;
        [] once the game is over."""
        if self.is_terminal(state):
            return []
        mark = self.mark_to_move(state)
        free = self.free_rows(state)
        return [(mark, row) for row in range(self.size) if free >> row & 1]

    def result(self, state: State, action: Action) -> State:
        """The state after a queen goes on row ``action[1]`` of the left-most empty
        column; ValueError if that square is attacked or the board is full."""
        rows, occupied, down, up = state
        row = action[1]
        bit = 1 << row
        if len(rows) >= self.size or not self.free_rows(state) & bit:
            raise ValueError("illegal move %r" % (action,))
        return (rows + (row,), occupied | bit, ((down | bit) << 1) & self.full,
                (up | bit) >> 1)

    def evaluate(self, state: State) -> float:
        """E(s) for a depth cut-off (see the class docstring), Player 1's view."""
        _, occupied, down, up = state
        placed = len(state[0])
        total = 0
        for top_first in (True, False):
            total += self._greedy_value(placed, occupied, down, up, top_first)
        return total / 4  # mean of two completions, halved

    def _greedy_value(self, placed: int, occupied: int, down: int, up: int, top_first: bool) -> int:
        full, size = self.full, self.size
        while placed < size:
            free = ~(occupied | down | up) & full
            if not free:
                break
            bit = free & -free if top_first else 1 << (free.bit_length() - 1)
            occupied |= bit
            down = ((down | bit) << 1) & full
            up = (up | bit) >> 1
            placed += 1
        return winner_value(placed, self.scaled)

    # --- hot path ---------------------------------------------------------------------
    def successors(self, state: State) -> List[Tuple[Action, State]]:
        rows, occupied, down, up = state
        full = self.full
        free = ~(occupied | down | up) & full
        mark = MARKS[len(rows) % 2]
        children = []
        while free:
            bit = free & -free
            free ^= bit
            row = bit.bit_length() - 1
            children.append(((mark, row), (rows + (row,), occupied | bit,
                                           ((down | bit) << 1) & full, (up | bit) >> 1)))
        return children

    def terminal_value(self, state: State) -> Optional[int]:
        rows, occupied, down, up = state
        placed = len(rows)
        if placed < self.size and ~(occupied | down | up) & self.full:
            return None
        magnitude = placed if self.scaled else 1
        return magnitude if placed % 2 else -magnitude

    def key(self, state: State) -> Tuple[int, int, int]:
        """(occupied, down, up), merged with its mirror (rows reversed, diagonals swapped).

        The number of queens is the number of bits of ``occupied``, so the key also fixes
        the side to move and (1b) the utility scale.
        """
        _, occupied, down, up = state
        reverse = self._reverse
        if self._popcount is not None:      # complete mirror table
            mirror = (reverse[occupied], reverse[up], reverse[down])
        else:
            mirror = (self._mirror(occupied), self._mirror(up), self._mirror(down))
        plain = (occupied, down, up)
        return plain if plain <= mirror else mirror

    def key_weight(self, key: Tuple[int, int, int]) -> int:
        """Columns still to fill at the state of ``key``: a rough measure of the work a
        table entry saves (the solver's bounded table evicts the lightest first)."""
        return self.size - bin(key[0]).count("1")

    def _mirror(self, value: int) -> int:
        cache = self._reverse
        try:
            return cache[value]
        except (KeyError, IndexError):
            mirrored = reverse_bits(value, self.size)
            if isinstance(cache, dict):
                cache[value] = mirrored
            return mirrored

    def _successors_fewest_replies_first(self, state: State) -> List[Tuple[Action, State]]:
        """The solver's successors: fewest free rows left to the opponent first, ties
        top row first (a child with none is an immediate win)."""
        rows, occupied, down, up = state
        full = self.full
        popcount = self._popcount
        free = ~(occupied | down | up) & full
        actions = self._actions[len(rows) % 2]
        scored = []
        while free:
            bit = free & -free
            free ^= bit
            row = bit.bit_length() - 1
            o, d, u = occupied | bit, ((down | bit) << 1) & full, (up | bit) >> 1
            replies = ~(o | d | u) & full
            replies = popcount[replies] if popcount else bin(replies).count("1")
            # One int sorts by (replies, row); rows are unique, so pairs never compare.
            scored.append((replies << 8 | row, (actions[row], (rows + (row,), o, d, u))))
        scored.sort()
        return [item[1] for item in scored]

    def mirror_action(self, action: Action) -> Action:
        """The action seen in the mirror (row r <-> N-1-r)."""
        return (action[0], self.size - 1 - action[1])

    def board(self, state: State) -> Dict[Tuple[int, int], str]:
        """{(row, col): mark} of the queens on the board."""
        return {(row, col): MARKS[col % 2] for col, row in enumerate(state[0])}

    # --- exact solver support (nqueens solve) -------------------------------------------
    def solver_order(self, state: State, children: List[Tuple[Action, State]],
                     hint: Optional[Action], depth: int) -> List[Tuple[Action, State]]:
        """engine.search ``order`` hook for exact solving: a move believed best first.

        The transposition table's best move (``hint``) goes first; the others by how
        many rows they leave free for the opponent, fewest first (none = immediate win),
        ties in row order. Ordering never changes a value, only how much is pruned.
        A ``solver=True`` instance lists its children in that order already.
        """
        if self.solver:
            if hint is not None:
                for index, pair in enumerate(children):
                    if pair[0] == hint:
                        return [pair] + children[:index] + children[index + 1:]
            return children
        full = self.full

        def replies(pair: Tuple[Action, State]) -> int:
            action, (_, occupied, down, up) = pair
            if action == hint:
                return -1
            return bin(~(occupied | down | up) & full).count("1")

        return sorted(children, key=replies)

    def opening_classes(self) -> List[Tuple[Action, Set[Action]]]:
        """[(representative opening, {openings with the same value})] under the mirror."""
        last = self.size - 1
        return [(("X", row), {("X", row), ("X", last - row)})
                for row in range((self.size + 1) // 2)]


def _square_transforms(size: int) -> Tuple[Callable[[int, int], Tuple[int, int]], ...]:
    """The 8 symmetries of the size x size board as functions (row, col) -> (row, col)."""
    last = size - 1
    return (lambda r, c: (r, c), lambda r, c: (r, last - c),
            lambda r, c: (last - r, c), lambda r, c: (last - r, last - c),
            lambda r, c: (c, r), lambda r, c: (c, last - r),
            lambda r, c: (last - c, r), lambda r, c: (last - c, last - r))


class AnySquare(NQueens):
    """Variation 2: a queen may go on any square no queen attacks (Node Kayles on the
    queen graph).

    Evaluation (used only at a depth cut-off): as in 1a, the parity of the final number
    of queens decides the game, so E plays two greedy completions on the free squares
    (always the first free square in row-major order, and always the last) and averages
    their outcomes, halved: -0.5, 0 or 0.5, strictly inside the utility range [-1, 1].
    Deterministic; each completion costs one mask operation per queen.
    """

    variation = "2"

    def __init__(self, size: int, symmetry: bool = False) -> None:
        super().__init__(size)
        self.symmetry = symmetry
        squares = size * size
        self.squares = squares
        self.all_squares = (1 << squares) - 1
        # keep[s]: the squares that stay free when a queen goes on s (its attack set,
        # s included, removed).
        keep = []
        for square in range(squares):
            row, col = divmod(square, size)
            attacked = 0
            for other in range(squares):
                r, c = divmod(other, size)
                if r == row or c == col or r - c == row - col or r + c == row + col:
                    attacked |= 1 << other
            keep.append(self.all_squares & ~attacked)
        self.keep = keep
        transforms = _square_transforms(size)
        # image[t][s]: index of square s seen through symmetry t (t = 0 is the identity).
        self.image = [[size * t(*divmod(s, size))[0] + t(*divmod(s, size))[1]
                       for s in range(squares)] for t in transforms]
        self.images = len(transforms) if symmetry else 1

    def initial_state(self) -> State:
        return (0, 0) + (self.all_squares,) * self.images

    @staticmethod
    def queens_placed(state: State) -> int:
        return state[0]

    def _place(self, state: State, square: int) -> State:
        keep, image = self.keep, self.image
        return (state[0] + 1, state[1] | 1 << square) + tuple(
            free & keep[image[t][square]] for t, free in enumerate(state[2:]))

    # --- the assignment's interface ---------------------------------------------------
    def actions(self, state: State) -> List[Action]:
        """Every free square as ('X'|'O', row, col), row-major from the top left."""
        mark = self.mark_to_move(state)
        free, size = state[2], self.size
        return [(mark,) + divmod(s, size) for s in range(self.squares) if free >> s & 1]

    def result(self, state: State, action: Action) -> State:
        """The state after a queen goes on (row, col); ValueError if it is not free."""
        _, row, col = action
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise ValueError("illegal move %r" % (action,))
        square = row * self.size + col
        if not state[2] >> square & 1:
            raise ValueError("illegal move %r" % (action,))
        return self._place(state, square)

    def evaluate(self, state: State) -> float:
        """E(s) for a depth cut-off (see the class docstring), Player 1's view."""
        placed, free = state[0], state[2]
        keep = self.keep
        total = 0
        for first in (True, False):
            count, left = placed, free
            while left:
                square = (left & -left).bit_length() - 1 if first else left.bit_length() - 1
                left &= keep[square]
                count += 1
            total += 1 if count % 2 else -1
        return total / 4

    # --- hot path ---------------------------------------------------------------------
    def successors(self, state: State) -> List[Tuple[Action, State]]:
        placed, queens, free = state[0], state[1], state[2]
        size, keep = self.size, self.keep
        mark = MARKS[placed % 2]
        placed += 1
        children = []
        remaining = free
        if self.images == 1:
            while remaining:
                bit = remaining & -remaining
                remaining ^= bit
                square = bit.bit_length() - 1
                children.append(((mark,) + divmod(square, size),
                                 (placed, queens | bit, free & keep[square])))
        else:
            # The solver's instance: fewest free squares left first (none = an immediate
            # win; short games are cheap to prove), ties in row-major order.
            images = self.image[1:]
            others = state[3:]
            scored = []
            while remaining:
                bit = remaining & -remaining
                remaining ^= bit
                square = bit.bit_length() - 1
                left = free & keep[square]
                child = (placed, queens | bit, left) + tuple(
                    mask & keep[image[square]] for mask, image in zip(others, images))
                scored.append((bin(left).count("1"), square,
                               ((mark,) + divmod(square, size), child)))
            scored.sort()
            children = [item[2] for item in scored]
        return children

    def terminal_value(self, state: State) -> Optional[int]:
        if state[2]:
            return None
        placed = state[0]
        return 1 if placed % 2 else -1

    def key(self, state: State) -> Tuple[int, int]:
        """(parity of queens, the least of the 8 images of the free squares).

        The rest of the game depends only on the free squares (Node Kayles); the parity
        fixes who is to move, hence the sign of the value from Player 1's view.
        """
        return (state[0] & 1, min(state[2:]))

    def key_weight(self, key: Tuple[int, int]) -> int:
        """Free squares left at the state of ``key``: a rough measure of the work a table
        entry saves (the solver's bounded table evicts the lightest first)."""
        return bin(key[1]).count("1")

    def orbit(self, row: int, col: int) -> List[Tuple[int, int]]:
        """The distinct squares (row, col) maps to under the board's symmetries."""
        size = self.size
        return sorted({divmod(self.image[t][row * size + col], size) for t in range(8)})

    # --- exact solver support (nqueens solve) -------------------------------------------
    def solver_order(self, state: State, children: List[Tuple[Action, State]],
                     hint: Optional[Action], depth: int) -> List[Tuple[Action, State]]:
        """engine.search ``order`` hook for exact solving: a move believed best first.

        The transposition table's best move (``hint``) goes first; the others by how many
        free squares they leave, fewest first (none = immediate win): short games are
        cheap to prove. Ordering never changes a value, only how much is pruned.
        A ``symmetry=True`` instance lists its children in that order already.
        """
        if self.symmetry:
            if hint is not None:
                for index, pair in enumerate(children):
                    if pair[0] == hint:
                        return [pair] + children[:index] + children[index + 1:]
            return children

        def left(pair: Tuple[Action, State]) -> int:
            if pair[0] == hint:
                return -1
            return bin(pair[1][2]).count("1")

        return sorted(children, key=left)

    def opening_classes(self) -> List[Tuple[Action, Set[Action]]]:
        """[(representative opening, {openings with the same value})]: one class per
        orbit of squares under the 8 symmetries, represented by its first square."""
        classes: List[Tuple[Action, Set[Action]]] = []
        seen: Set[int] = set()
        for square in range(self.squares):
            if square in seen:
                continue
            orbit = self.orbit(*divmod(square, self.size))
            seen.update(r * self.size + c for r, c in orbit)
            classes.append((("X",) + divmod(square, self.size),
                            {("X", r, c) for r, c in orbit}))
        return classes

    def board(self, state: State) -> Dict[Tuple[int, int], str]:
        """{(row, col): mark}. The marks of Variation 2 are not stored in the state."""
        queens, size = state[1], self.size
        return {divmod(s, size): "Q" for s in range(self.squares) if queens >> s & 1}


def make_game(variation: str, size: int,
              symmetry: bool = False) -> Union[ColumnByColumn, "AnySquare"]:
    """The game object of ``variation`` ('1a', '1b' or '2') on a ``size`` board.

    ``symmetry=True`` gives the exact solver's instance: symmetric transposition keys
    (Variation 2) and solver move order (1a/1b; their key always merges the mirror).
    """
    if variation in ("1a", "1b"):
        return ColumnByColumn(size, variation, solver=symmetry)
    if variation == "2":
        return AnySquare(size, symmetry=symmetry)
    raise ValueError("unknown variation %r" % (variation,))
