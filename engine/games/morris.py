"""Three Men's Morris, the rules of ``tmmorris.py`` (docs/tmmorris.md).

Position: ``(board, turn)``. ``board`` is the 9-character string in raster order from
``x``, ``o`` and ``-``; ``turn`` is ``'x'`` or ``'o'``, the side to move (after the
placement phase the piece counts no longer tell). ``x`` is Max.

Rules (the assignment's, with the two points it leaves open made explicit):

* Placement: a side with fewer than 3 pieces on the board places one on an empty cell;
  actions are the cells, in raster order.
* Movement: a side with 3 pieces slides one of them up, down, left or right to an
  adjacent empty cell; actions are ``(origin, destination)`` ordered by origin, then
  destination, both in raster order (the spec's visit and tie-break order).
* Win: three of one side's pieces in a row or a column (diagonals do NOT count).
* A side to move that has no legal move loses (the assignment is silent).
* Repetition (see :class:`MorrisLookahead`): a position that repeats one on the current
  search path is a draw and is not expanded.

:class:`Morris` is the plain game on positions; :func:`solve` computes the exact value
of every position by retrograde analysis; :class:`MorrisLookahead` is the game the
program searches: its nodes also carry their depth and the positions on their path, so
that repetition, "sooner wins score higher" and the evaluation can be stated per node.
"""

from __future__ import annotations

from ..game import Game

# tmmorris.py imports this module on every run; typing (about 10 ms of start-up) is for
# mypy only. A placement is the cell (int), a slide ``(origin, destination)``; a position
# is ``(board, turn)``, a node of MorrisLookahead ``(board, turn, depth, path)``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

    Action = Union[int, Tuple[int, int]]
    Position = Tuple[str, str]
    Node = Tuple[str, str, int, FrozenSet[str]]
else:   # the same names at run time, for modules that build type aliases of them
    Action, Position, Node = object, tuple, tuple

ROWS_AND_COLUMNS = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8))
# Orthogonal neighbours of each cell, in raster order (so slides come out in spec order).
NEIGHBOURS = ((1, 3), (0, 2, 4), (1, 5), (0, 4, 6), (1, 3, 5, 7), (2, 4, 8),
              (3, 7), (4, 6, 8), (5, 7))
MARKS = "xo-"
PIECES = 3
OTHER = {"x": "o", "o": "x"}

# Values from x's point of view (integers). A game decided at depth d from the root
# scores +-(WIN - d): a sooner win is worth more, a sooner loss less. Evaluations stay
# strictly inside +-EVAL_LIMIT, and EVAL_LIMIT < WIN - DECISIVE_HORIZON (the deepest node
# the program searches), so any win or loss the search reaches outranks every evaluation.
WIN = 1000
EVAL_LIMIT = 500
DRAW = 0


def line_owner(board: str) -> Optional[str]:
    """``'x'``/``'o'`` if that side has three in a row or column, ``'both'``, or None."""
    owner = None
    for a, b, c in ROWS_AND_COLUMNS:
        mark = board[a]
        if mark != "-" and mark == board[b] == board[c]:
            if owner is not None and owner != mark:
                return "both"
            owner = mark
    return owner


def moves(board: str, turn: str) -> List[Tuple[Action, str]]:
    """Legal ``(action, child_board)`` pairs for ``turn`` in spec order (no terminal test)."""
    if board.count(turn) < PIECES:
        return [(cell, board[:cell] + turn + board[cell + 1:])
                for cell in range(9) if board[cell] == "-"]
    result: List[Tuple[Action, str]] = []
    for origin in range(9):
        if board[origin] != turn:
            continue
        lifted = board[:origin] + "-" + board[origin + 1:]
        for destination in NEIGHBOURS[origin]:
            if board[destination] == "-":
                result.append(((origin, destination),
                               lifted[:destination] + turn + lifted[destination + 1:]))
    return result


def check_board(board: str) -> Optional[str]:
    """None if ``board`` is a legal STATE for the spec, else a one-line reason."""
    if len(board) != 9 or any(c not in MARKS for c in board):
        return f"STATE must be 9 characters from 'x', 'o', '-', not {board!r}"
    for side in "xo":
        if board.count(side) > PIECES:
            return f"STATE {board!r} has {board.count(side)} {side!r} pieces (at most {PIECES})"
    return None


class Morris(Game):
    """The plain game on positions ``(board, turn)``: no depth, no history.

    Terminal: a row/column of three on the board (its owner wins; both sides owning one
    can only be given as input and counts as a draw), or the side to move has no legal
    move (it loses). Utility is +1 / 0 / -1 from x's view.
    """

    def actions(self, position: Position) -> List[Action]:
        return [action for action, _ in moves(*position)]

    def result(self, position: Position, action: Action) -> Position:
        board, turn = position
        for candidate, child in moves(board, turn):
            if candidate == action:
                return child, OTHER[turn]
        raise ValueError(f"illegal action {action!r} in {position!r}")

    def is_terminal(self, position: Position) -> bool:
        board, turn = position
        return line_owner(board) is not None or not moves(board, turn)

    def utility(self, position: Position) -> int:
        board, turn = position
        owner = line_owner(board)
        if owner is None:
            owner = OTHER[turn]          # the side to move is blocked and loses
        return {"x": 1, "o": -1, "both": 0}[owner]

    def is_maxs_turn(self, position: Position) -> bool:
        return position[1] == "x"

    def successors(self, position: Position) -> List[Tuple[Action, Position]]:
        board, turn = position
        other = OTHER[turn]
        return [(action, (child, other)) for action, child in moves(board, turn)]

    def terminal_value(self, position: Position) -> Optional[int]:
        if self.is_terminal(position):
            return self.utility(position)
        return None


# --- exact values -----------------------------------------------------------------------

def all_positions() -> List[Position]:
    """Every position with at most 3 pieces per side, either side to move (13,598)."""
    boards = [""]
    for _ in range(9):
        boards = [b + m for b in boards for m in MARKS
                  if m == "-" or (b + m).count(m) <= PIECES]
    return [(board, turn) for board in boards for turn in "xo"]


_SOLVED: Optional[Dict[str, Tuple[int, int]]] = None


def predecessors(key: str) -> List[str]:
    """Keys ``board + turn`` of the positions with a move leading to ``key``.

    The previous mover is the side not to move now: it placed a piece (it has one on
    the board that it may have just put there, and had fewer than 3 before) or, with 3
    on the board, slid one from an adjacent cell that is empty now. Terminal
    predecessors are included (callers skip positions they have already solved).
    """
    board, turn = key[:9], key[9]
    mover = OTHER[turn]
    result = []
    sliding = board.count(mover) == PIECES
    for cell in range(9):
        if board[cell] != mover:
            continue
        lifted = board[:cell] + "-" + board[cell + 1:]
        result.append(lifted + mover)                 # it was placed on ``cell``
        if sliding:
            for origin in NEIGHBOURS[cell]:
                if board[origin] == "-":
                    result.append(lifted[:origin] + mover + lifted[origin + 1:] + mover)
    return result


def solve() -> Dict[str, Tuple[int, int]]:
    """Exact value of every position: ``{board + turn: (outcome, plies)}``.

    ``outcome`` is +1 when the side to move wins, -1 when it loses, 0 for a draw;
    ``plies`` is the length of the game under optimal play (the winner ends it as soon
    as it can, the loser as late as it can; 0 for draws and terminal positions).
    A position that is neither won nor lost is a draw: under the repetition rule an
    endless game repeats a position and is a draw. Computed once by retrograde
    analysis (backward induction from the terminal positions), then cached.
    """
    global _SOLVED
    if _SOLVED is not None:
        return _SOLVED
    keys = [board + turn for board, turn in all_positions()]
    solved: Dict[str, Tuple[int, int]] = {}
    frontier: List[str] = []
    for key in keys:
        board, turn = key[:9], key[9]
        owner = line_owner(board)
        if owner is not None:
            # The line's owner wins; both owning one (input only) is a draw.
            solved[key] = (0 if owner == "both" else (1 if owner == turn else -1), 0)
            frontier.append(key)
        elif board.count(turn) == PIECES and not moves(board, turn):
            solved[key] = (-1, 0)          # blocked: the side to move loses
            frontier.append(key)
    # Breadth-first by game length over predecessors: a position is won as soon as one
    # child is lost for the opponent (shortest win first), lost once every child is won
    # for the opponent (the last one resolved is the longest defence).
    unresolved_children: Dict[str, int] = {}
    while frontier:
        next_frontier = []
        for key in frontier:
            outcome, plies = solved[key]
            if not outcome:
                continue
            for parent in predecessors(key):
                if parent in solved:
                    continue
                if outcome < 0:
                    solved[parent] = (1, plies + 1)
                    next_frontier.append(parent)
                else:
                    left = unresolved_children.get(parent)
                    if left is None:
                        left = len(moves(parent[:9], parent[9]))
                    left -= 1
                    unresolved_children[parent] = left
                    if not left:
                        solved[parent] = (-1, plies + 1)
                        next_frontier.append(parent)
        frontier = next_frontier
    for key in keys:
        if key not in solved:
            solved[key] = (0, 0)
    _SOLVED = solved
    return solved


def exact_value(board: str, turn: str) -> Tuple[int, int]:
    """``(outcome, plies)`` of :func:`solve` for one position (outcome for ``turn``)."""
    return solve()[board + turn]


# --- the game the program searches ------------------------------------------------------

# Every won position of this game is won within LONGEST_FORCED_WIN plies (computed by
# solve(); the test suite checks it with its own retrograde analysis). So a search of
# depth LONGEST_FORCED_WIN + 1 already sees every forced result that any root move leads
# to; searching deeper cannot change the chosen move (see MorrisLookahead).
LONGEST_FORCED_WIN = 6
DECISIVE_HORIZON = LONGEST_FORCED_WIN + 1


class MorrisLookahead(Game):
    """Three Men's Morris as the program searches it: nodes know their depth and path.

    A node is ``(board, turn, depth, path)``: ``depth`` is its distance from the root
    (root = 0), ``path`` the frozenset of the positions ``board + turn`` of its proper
    ancestors. The visit order is the spec's (:func:`moves`).

    Node values, from x's view (integers):

    * a row/column of three: +-(WIN - depth) for its owner (sooner wins score higher,
      sooner losses lower); both sides owning one (input only): 0.
    * the side to move has no legal move: it loses, +-(WIN - depth).
    * REPETITION RULE: a position (board and side to move) that already occurs on the
      path from the root to this node is a draw, valued 0 and not expanded. The path
      is all the program knows of the game's history (the root is the given STATE).
    * at the depth cut-off: :meth:`evaluate`.

    The evaluation (sound: exact where it claims a result; strong: exact everywhere the
    game is decided) uses the solved table of :func:`solve`:

    * a position won for x in n more plies: EVAL_LIMIT - 1 - (depth + n) (the same
      "sooner is better" order as real wins, but below every real win); lost for x:
      the negation.
    * a drawn position: the traps left to the side to move, i.e. how many of its legal
      moves lose (from x's view: +count when o is to move, -count when x is): among
      draws the program prefers those where the opponent has the most ways to go wrong.

    Why ``depth`` is capped (:attr:`horizon`): with the repetition rule the cycle-free
    game tree is finite but astronomically large, so "a large PLY" needs a bound. Every
    forced win of this game takes at most LONGEST_FORCED_WIN plies, so a search of
    depth DECISIVE_HORIZON sees, for every root move, whether it wins, loses or neither
    by force, whatever the evaluation, and the root's choice is perfect; searching any
    deeper can only repeat that choice. The program therefore searches to depth
    ``min(PLY, DECISIVE_HORIZON)``.
    """

    def __init__(self) -> None:
        self.solved = solve()
        self._moves: Dict[str, List[Tuple[Action, str]]] = {}

    # --- helpers ---------------------------------------------------------------------
    def legal_moves(self, board: str, turn: str) -> List[Tuple[Action, str]]:
        """Cached :func:`moves` (positions recur all over the tree)."""
        key = board + turn
        found = self._moves.get(key)
        if found is None:
            found = self._moves[key] = moves(board, turn)
        return found

    @staticmethod
    def root(board: str, turn: str, history: Iterable[str] = ()) -> Node:
        """The root node for ``board`` with ``turn`` to move.

        ``history``: positions ``board + turn`` played before the root in this game
        (play mode); they count as ancestors for the repetition rule.
        """
        return (board, turn, 0, frozenset(history))

    # --- the assignments' interface ------------------------------------------------------
    def actions(self, node: Node) -> List[Action]:
        return [action for action, _ in self.legal_moves(node[0], node[1])]

    def result(self, node: Node, action: Action) -> Node:
        for candidate, child in self.successors(node):
            if candidate == action:
                return child
        raise ValueError(f"illegal action {action!r}")

    def is_terminal(self, node: Node) -> bool:
        return self.terminal_value(node) is not None

    def utility(self, node: Node) -> int:
        value: int = self.terminal_value(node)  # type: ignore[assignment]  # terminal: an int
        return value

    def is_maxs_turn(self, node: Node) -> bool:
        return node[1] == "x"

    def evaluate(self, node: Node) -> int:
        board, turn, depth, _ = node
        outcome, plies = self.solved[board + turn]
        if outcome:
            value = EVAL_LIMIT - 1 - (depth + plies)
            return value if (outcome > 0) == (turn == "x") else -value
        traps = 0
        solved = self.solved
        other = OTHER[turn]
        for _, child in self.legal_moves(board, turn):
            if solved[child + other][0] > 0:
                traps += 1
        return traps if turn == "o" else -traps

    # --- hot path ----------------------------------------------------------------------
    def successors(self, node: Node) -> List[Tuple[Action, Node]]:
        board, turn, depth, path = node
        path = path | {board + turn}
        other = OTHER[turn]
        depth += 1
        return [(action, (child, other, depth, path))
                for action, child in self.legal_moves(board, turn)]

    def terminal_value(self, node: Node) -> Optional[int]:
        board, turn, depth, path = node
        owner = line_owner(board)
        if owner is not None:
            if owner == "both":
                return DRAW
            return WIN - depth if owner == "x" else depth - WIN
        if board + turn in path:
            return DRAW
        if not self.legal_moves(board, turn):
            return depth - WIN if turn == "x" else WIN - depth
        return None

