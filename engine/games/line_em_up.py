"""Line 'em Up (COMP 472 Mini-Project 2): rules and the two heuristics, no I/O.

Documented in ``docs/lineemup.md``. An n x n board (3 <= n <= 10) with b blocs where
nobody may play; X moves first; the first player with s stones in a row, column or
diagonal wins; a full board without such a line is a draw.

Representation (chosen for speed: see docs/adding_a_game.md, step 2):

* a cell is an int ``c = row * n + column`` and the action that plays there;
* a state is the tuple ``(x, o, x_to_move, terminal, score, x_threats, o_threats)``:
  ``x``/``o`` bitboards (bit ``c`` set = a stone on ``c``), whose turn it is,
  ``terminal`` = None while the game goes on, else its value (Max = X's view),
  ``score`` the heuristic's running sum (X's view), and for e2 the number of *threats*
  of each side (windows holding s-1 of its stones and one empty cell).
  Everything after ``x_to_move`` is a function of (x, o), so the tuple is a valid
  transposition-table key as it is.
* a *window* is a bitmask of s aligned cells (row, column or either diagonal) holding no
  bloc (a window through a bloc can never be completed, so it plays no role at all).
  ``windows_through[c]`` lists the windows containing cell ``c``.

Everything that changes when a stone is placed is computed through the windows of that
one cell (win test through the last move only; incremental heuristic), so building a
child costs O(windows through one cell), never a scan of the board.

Heuristics (both from X's point of view, both incremental):

* **e1, "simple"** -- open lines: (number of windows still winnable by X, i.e. without an
  O stone) minus (number still winnable by O). A stone of X on ``c`` takes every window
  through ``c`` that held no X stone away from O: +1 each. One AND per window.
* **e2, "threats"** -- weighted open windows: every window holding k >= 1 stones of one
  side and none of the other is worth ``WEIGHTS[k]`` to that side (weights grow 8x per
  stone, so one window one stone from completion outweighs many weaker ones). A window
  with s-1 stones and an empty cell is a *threat*. At a cut-off the side to move that
  owns a threat wins on its next move (worth almost a win); an opponent with two or
  more threats while the side to move has none is very likely winning (bonus of
  ``4 * WEIGHTS[s-1]``).

Terminal values are ``±(WIN + empty cells left)`` so that a quicker win is preferred and
a slower loss is preferred; a draw is 0.
"""

from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..game import Game

# (x, o, x_to_move, terminal value or None, score, x threats, o threats): see above.
State = Tuple[Any, ...]

WIN = 10 ** 12
HEURISTICS = ("e1", "e2")
HEURISTIC_NAMES = {"e1": "simple", "e2": "threats"}


def popcount(value: int) -> int:
    """Number of set bits (``int.bit_count`` needs Python 3.10)."""
    return bin(value).count("1")


class _StoneCounts(dict):
    """``counts[stones & window]`` = number of stones in the window, memoised.

    A dict lookup is several times cheaper than ``bin(v).count('1')`` and there are at
    most 2**s distinct values per window, so the table stays small.
    """

    def __missing__(self, key: int) -> int:
        value = self[key] = bin(key).count("1")
        return value


def cell_name(cell: int, n: int) -> str:
    """``'C2'`` for column 2 (C), row 2: column letter, then row number."""
    return "ABCDEFGHIJ"[cell % n] + str(cell // n)


def window_masks(n: int, s: int, blocs: Iterable[Sequence[int]] = ()) -> List[int]:
    """Every window of s aligned cells without a bloc, as bitmasks, in a fixed order."""
    bloc_mask = 0
    for column, row in blocs:
        bloc_mask |= 1 << (row * n + column)
    masks = []
    for row in range(n):
        for column in range(n):
            for d_row, d_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row = row + d_row * (s - 1)
                end_column = column + d_column * (s - 1)
                if not (0 <= end_row < n and 0 <= end_column < n):
                    continue
                mask = 0
                for k in range(s):
                    mask |= 1 << ((row + d_row * k) * n + column + d_column * k)
                if not mask & bloc_mask:
                    masks.append(mask)
    return masks


class LineEmUp(Game):
    """Rules of one board (n, s, blocs) evaluated with one heuristic ('e1' or 'e2').

    Each AI player owns its own instance (its heuristic), the rules being identical.
    Max is X. Actions are cell indices, visited centre first (ties by index).
    """

    def __init__(self, n: int, s: int, blocs: Iterable[Sequence[int]] = (),
                 heuristic: str = "e2") -> None:
        if not 3 <= n <= 10:
            raise ValueError(f"n must be 3..10, not {n}")
        if not 3 <= s <= n:
            raise ValueError(f"s must be 3..n, not {s}")
        if heuristic not in HEURISTICS:
            raise ValueError(f"heuristic must be e1 or e2, not {heuristic!r}")
        self.n, self.s, self.heuristic = n, s, heuristic
        self.blocs = tuple(blocs)
        self.bloc_mask = 0
        for column, row in self.blocs:
            if not (0 <= column < n and 0 <= row < n):
                raise ValueError(f"bloc {(column, row)} is off the {n}x{n} board")
            self.bloc_mask |= 1 << (row * n + column)
        self.full_mask = (1 << (n * n)) - 1
        self.windows = window_masks(n, s, self.blocs)
        self.windows_through = [[m for m in self.windows if m >> c & 1] for c in range(n * n)]
        centre = (n - 1) / 2.0
        self.cell_order = sorted(range(n * n), key=lambda c: (
            max(abs(c // n - centre), abs(c % n - centre)),
            abs(c // n - centre) + abs(c % n - centre), c))
        # WEIGHTS[k]: value of an open window holding k stones of one side (e2).
        self.weights = [0] + [8 ** (k - 1) for k in range(1, s)]
        self.gains = [self.weights[k + 1] - self.weights[k] for k in range(s - 1)]
        self.threat_bonus = 4 * self.weights[s - 1]
        self.counts = _StoneCounts()
        self._child = self._child_e2 if heuristic == "e2" else self._child_e1
        self.evaluate = (  # type: ignore[method-assign]  # the heuristic's, bound once
            self._evaluate_e2 if heuristic == "e2" else self._evaluate_e1)

    # --- building states -------------------------------------------------------------
    def initial_state(self) -> State:
        """The empty board (blocs only), X to move."""
        return self.state_from(0, 0, True)

    def state_from(self, x: int, o: int, x_to_move: bool) -> State:
        """The state for bitboards ``x``/``o``, everything recomputed from scratch.

        Terminal when a line of s exists (the side that has one won: a legal game stops
        at the first line) or the board is full. Raises ValueError when both have a line
        or a stone lies on a bloc.
        """
        if (x & o) or ((x | o) & self.bloc_mask) or ((x | o) & ~self.full_mask):
            raise ValueError("stones overlap each other or a bloc, or lie off the board")
        x_line = any(x & m == m for m in self.windows)
        o_line = any(o & m == m for m in self.windows)
        if x_line and o_line:
            raise ValueError("both players have a line")
        empties = popcount(self.full_mask & ~(x | o | self.bloc_mask))
        terminal = None
        if x_line:
            terminal = WIN + empties
        elif o_line:
            terminal = -(WIN + empties)
        elif not empties:
            terminal = 0
        score = x_threats = o_threats = 0
        s = self.s
        for m in self.windows:
            xs, os_ = popcount(x & m), popcount(o & m)
            if self.heuristic == "e1":
                score += (os_ == 0) - (xs == 0)
            elif os_ == 0 and xs:
                score += self.weights[min(xs, s - 1)]
                x_threats += xs == s - 1
            elif xs == 0 and os_:
                score -= self.weights[min(os_, s - 1)]
                o_threats += os_ == s - 1
        return (x, o, x_to_move, terminal, score, x_threats, o_threats)

    def _child_e1(self, state: State, cell: int) -> State:
        """The state after the side to move plays on the empty, non-bloc ``cell`` (e1)."""
        x, o, x_to_move, _, score, _, _ = state
        bit = 1 << cell
        me, other = (x, o) if x_to_move else (o, x)
        mine = me | bit
        closed = 0
        won = False
        for m in self.windows_through[cell]:
            if not me & m:
                closed += 1
            if not other & m and mine & m == m:
                won = True
        occupied = x | o | self.bloc_mask | bit
        if x_to_move:
            x = mine
            score += closed
        else:
            o = mine
            score -= closed
        terminal = None
        if won:
            left = popcount(self.full_mask & ~occupied)
            terminal = WIN + left if x_to_move else -(WIN + left)
        elif occupied == self.full_mask:
            terminal = 0
        return (x, o, not x_to_move, terminal, score, 0, 0)

    def _child_e2(self, state: State, cell: int) -> State:
        """The state after the side to move plays on the empty, non-bloc ``cell`` (e2)."""
        x, o, x_to_move, _, score, x_threats, o_threats = state
        bit = 1 << cell
        if x_to_move:
            me, other, my_threats, other_threats = x, o, x_threats, o_threats
        else:
            me, other, my_threats, other_threats = o, x, o_threats, x_threats
        weights, gains, last, counts = self.weights, self.gains, self.s - 1, self.counts
        gain = 0
        won = False
        for m in self.windows_through[cell]:
            if other & m:
                if not me & m:  # the window was the opponent's: it is dead now
                    k = counts[other & m]
                    gain += weights[k]
                    if k == last:
                        other_threats -= 1
            elif me & m:
                k = counts[me & m]
                if k == last:
                    won = True
                    break
                gain += gains[k]
                if k == last - 1:
                    my_threats += 1
            else:
                gain += gains[0]
        occupied = x | o | self.bloc_mask | bit
        terminal = None
        if won:
            left = popcount(self.full_mask & ~occupied)
            terminal = WIN + left if x_to_move else -(WIN + left)
        elif occupied == self.full_mask:
            terminal = 0
        if x_to_move:
            return (me | bit, o, False, terminal, score + gain, my_threats, other_threats)
        return (x, me | bit, True, terminal, score - gain, other_threats, my_threats)

    # --- heuristics at a cut-off -------------------------------------------------------
    def _evaluate_e1(self, state: State) -> int:
        """e1: open windows of X minus open windows of O (module docstring)."""
        return state[4]

    def _evaluate_e2(self, state: State) -> int:
        """e2: weighted open windows, plus the threat rule (module docstring)."""
        _, _, x_to_move, _, score, x_threats, o_threats = state
        if x_to_move:
            if x_threats:
                return WIN // 2 + score
            if o_threats >= 2:
                return score - self.threat_bonus
        else:
            if o_threats:
                return score - WIN // 2
            if x_threats >= 2:
                return score + self.threat_bonus
        return score

    # --- the assignments' interface ------------------------------------------------------
    def actions(self, state: State) -> List[int]:
        """Empty cells, centre first (empty if the game is over)."""
        if state[3] is not None:
            return []
        occupied = state[0] | state[1] | self.bloc_mask
        return [c for c in self.cell_order if not occupied >> c & 1]

    def result(self, state: State, action: int) -> State:
        occupied = state[0] | state[1] | self.bloc_mask
        if not 0 <= action < self.n * self.n or occupied >> action & 1 or state[3] is not None:
            raise ValueError(f"illegal move {action}")
        return self._child(state, action)

    def is_terminal(self, state: State) -> bool:
        return state[3] is not None

    def utility(self, state: State) -> int:
        return state[3]

    def is_maxs_turn(self, state: State) -> bool:
        return state[2]

    # --- hot path -------------------------------------------------------------------------
    def successors(self, state: State) -> List[Tuple[int, State]]:
        occupied = state[0] | state[1] | self.bloc_mask
        child = self._child
        return [(c, child(state, c)) for c in self.cell_order if not occupied >> c & 1]

    def terminal_value(self, state: State) -> Optional[int]:
        return state[3]

    def horizon_values(self, state: State) -> Tuple[List[int], Iterator[float]]:
        """Values of the children on the cut-off, in visit order (engine.game contract).

        The values are a generator: alpha-beta stops reading at a cut, so the children
        after it are never built.
        """
        occupied = state[0] | state[1] | self.bloc_mask
        actions = [c for c in self.cell_order if not occupied >> c & 1]
        return actions, self._leaf_values(state, actions)

    def _leaf_values(self, state: State, actions: List[int]) -> Iterator[float]:
        child, evaluate = self._child, self.evaluate
        for c in actions:
            after = child(state, c)
            yield after[3] if after[3] is not None else evaluate(after)

    def order_moves(self, state: State, children: List[Tuple[int, State]], hint: Optional[int],
                    depth: int) -> List[Tuple[int, State]]:
        """Move ordering for engine.search's ``order`` hook: strongest-looking first.

        Children are sorted by their incremental score for the side to move (wins carry
        ±WIN and come first; blocking a threat removes a large weight and comes early),
        stably, so the centre-first order breaks ties; the transposition table's best
        move (the previous iteration's choice) goes in front of all.
        """
        if state[2]:
            ranked = sorted(children, key=_child_rank, reverse=True)
        else:
            ranked = sorted(children, key=_child_rank)
        if hint is not None:
            for index, pair in enumerate(ranked):
                if pair[0] == hint:
                    if index:
                        del ranked[index]
                        ranked.insert(0, pair)
                    break
        return ranked


def _child_rank(pair: Tuple[int, State]) -> int:
    """Sort key of an (action, child) pair: the child's terminal value, else its score."""
    child = pair[1]
    return child[3] if child[3] is not None else child[4]
