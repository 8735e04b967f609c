"""``python3 -m engine tmmorris play``: a person plays Three Men's Morris against the program.

Cells are numbered 1-9 like a phone keypad (1 2 3 / 4 5 6 / 7 8 9). A placement is one
cell (``5``); a slide is the origin and the destination (``4 5``, ``4-5`` or ``45``).
Illegal moves are refused with the reason. The game ends on three in a row or column, a
blocked side (it loses), or a repeated position (a draw: the search's repetition rule
applied to the real game, so the program and the referee agree).
"""


from typing import Any, Callable, List, Optional, Tuple

from ...errors import UsageError
from ...games.morris import (DECISIVE_HORIZON, NEIGHBOURS, OTHER, PIECES, Action,
                             MorrisLookahead, line_owner)
from ...commandline import parse_positive_int
from .lookahead import best_move

PLAY_USAGE = "usage: python3 -m engine tmmorris play [--human x|o] [--ply N]"
HELP = """Enter a move: a cell 1-9 to place a piece (while you have fewer than 3),
or two cells to slide a piece to an adjacent empty cell: '4 5', '4-5' or '45'.
Slides go up, down, left or right only. Three in a row or column wins (not diagonals).
'help' shows this, 'quit' ends the game."""


def parse_play_options(argv: List[str]) -> Tuple[str, int]:
    """Return (human_side, ply) from ``--human x|o`` and ``--ply N``, or raise UsageError."""
    human, ply = "x", DECISIVE_HORIZON
    words = list(argv)
    while words:
        option = words.pop(0)
        if option not in ("--human", "--ply") or not words:
            raise UsageError(f"unexpected {option!r}; {PLAY_USAGE}")
        value = words.pop(0)
        if option == "--human":
            if value not in ("x", "o"):
                raise UsageError(f"--human must be 'x' or 'o', not {value!r}")
            human = value
        else:
            ply = parse_positive_int(value, "--ply")
    return human, ply


def render(board: str) -> str:
    """The board as three rows beside the cell numbers."""
    rows = []
    for row in range(3):
        cells = board[3 * row:3 * row + 3].replace("-", ".")
        numbers = " ".join(str(3 * row + c + 1) for c in range(3))
        rows.append(f"   {' '.join(cells)}      {numbers}")
    return "\n".join(rows)


def parse_move(text: str, board: str, turn: str) -> Action:
    """The engine action for the person's ``text``, or raise ValueError with the reason."""
    digits = [c for c in text if not c.isspace() and c != "-"]
    if not digits or any(c not in "123456789" for c in digits) or len(digits) > 2:
        raise ValueError("type a cell 1-9 to place, or two cells like '4 5' to slide")
    cells = [int(c) - 1 for c in digits]
    placing = board.count(turn) < PIECES
    if placing:
        if len(cells) != 1:
            left = PIECES - board.count(turn)
            raise ValueError(f"you still have {left} piece(s) to place: give one empty cell")
        cell = cells[0]
        if board[cell] != "-":
            raise ValueError(f"cell {cell + 1} is taken")
        return cell
    if len(cells) != 2:
        raise ValueError("all your pieces are on the board: slide one, e.g. '4 5'")
    origin, destination = cells
    if board[origin] != turn:
        raise ValueError(f"cell {origin + 1} does not hold one of your pieces ({turn})")
    if destination not in NEIGHBOURS[origin]:
        raise ValueError(f"{origin + 1} and {destination + 1} are not adjacent "
                         "(slides go up, down, left or right, one cell)")
    if board[destination] != "-":
        raise ValueError(f"cell {destination + 1} is taken")
    return origin, destination


def human_action(action: Action) -> str:
    """An engine action in the person's numbering."""
    if isinstance(action, tuple):
        return f"{action[0] + 1}-{action[1] + 1}"
    return str(action + 1)


def play(argv: List[str], read: Callable[[str], str] = input, write: Callable[[str],
         Any] = print) -> int:
    """Run one game between the person and the program; returns the exit code."""
    if argv[:1] in (["-h"], ["--help"]):
        write(PLAY_USAGE + "\n\n" + HELP)
        return 0
    human, ply = parse_play_options(argv)
    game = MorrisLookahead()
    board, turn = "-" * 9, "x"
    history: List[str] = []
    write(f"Three Men's Morris. You are {human}; x moves first. 'help' for help.")
    show = True
    while True:
        if show:
            write("")
            write(render(board))
            verdict = game_over(game, board, turn, history)
            if verdict:
                write(verdict)
                return 0
        show = True
        if turn == human:
            try:
                text = read(f"your move ({turn}): ").strip().lower()
            except EOFError:
                write("")
                return 0
            if text in ("q", "quit", "exit"):
                return 0
            if text in ("h", "help", "?"):
                write(HELP)
                show = False
                continue
            try:
                action = parse_move(text, board, turn)
            except ValueError as reason:
                write(f"illegal: {reason}")
                show = False
                continue
        else:
            result = best_move(board, turn, ply, history=history, game=game)
            assert result is not None          # game_over found the position not final
            action = result.action
            write(f"program ({turn}) plays {human_action(action)}")
        history.append(board + turn)
        board = dict(game.legal_moves(board, turn))[action]
        turn = OTHER[turn]


def game_over(game: MorrisLookahead, board: str, turn: str, history: List[str]) -> Optional[str]:
    """The end-of-game message, or None while the game goes on."""
    owner = line_owner(board)
    if owner is not None:
        return f"{owner} has three in a line: {owner} wins."
    if not game.legal_moves(board, turn):
        return f"{turn} cannot move: {OTHER[turn]} wins."
    if board + turn in history:
        return "This position has occurred before: draw by repetition."
    return None

