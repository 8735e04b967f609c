"""Take Away, a toy tournament game that exists only for tests/test_toy_game.py.

It proves that a game is added through engine.registry alone: :func:`register` puts one
``Assignment`` entry naming :class:`TakeAwayRules` into the registry's table, and the
tournament and the ladder then play it with no other edit (docs/adding_a_game.md).

The rules: a square of n x n counters, a few of them struck out before the game (the
board's seeded setup); the players take turns taking 1, 2 or 3 counters, in reading
order; whoever takes the last counter wins. X moves first.

The protocol: the mover's input.txt holds the counters left, its side (``X`` or ``O``)
and its CPU seconds left, a line each; its output.txt holds how many it takes (1-3) on
the first line.
"""

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional

from engine.grading.detect import Plan, is_file, needs
from engine.tournament.games import O_SIDE, X_SIDE, Rules, SizeError, plain_seconds

NAME = "take_away"
ENTRY_POINT = "take_away_agent.py"
SIZES = range(2, 6)
EMPTY, STRUCK = ".", "*"


class TakeAwayBoard:
    """One game in progress: ``marks`` holds a character per counter, in reading order
    (``.`` still there, ``*`` struck out at the start, ``X``/``O`` taken by that side)."""

    def __init__(self, cells: Dict[str, int]) -> None:
        self.n = cells["n"]
        self.marks = [STRUCK] * cells["struck"] + [EMPTY] * (self.n * self.n - cells["struck"])
        self.side = X_SIDE
        self.last: Optional[str] = None         # the side that took last

    @property
    def left(self) -> int:
        return self.marks.count(EMPTY)

    @property
    def over(self) -> bool:
        return self.left == 0

    def input_text(self, seconds: float) -> str:
        return f"{self.left}\n{self.side.upper()}\n{plain_seconds(seconds)}\n"

    def parse(self, text: str) -> Optional[int]:
        word = text.split("\n", 1)[0].strip()
        return int(word) if word in ("1", "2", "3") else None

    def legal(self, action: Any) -> bool:
        return isinstance(action, int) and 1 <= action <= min(3, self.left)

    def play(self, action: Any) -> str:
        start = self.marks.index(EMPTY)
        self.marks[start:start + action] = [self.side.upper()] * action
        self.last = self.side
        self.side = O_SIDE if self.side == X_SIDE else X_SIDE
        return str(action)

    def winner(self) -> str:
        return self.last if self.over and self.last else "draw"

    def scores(self) -> List[int]:
        """[X, O]: 1 for the winner, 0 for the loser."""
        winner = self.winner()
        return [int(winner == X_SIDE), int(winner == O_SIDE)]

    def forfeit_scores(self, winner: str) -> List[int]:
        return [int(winner == X_SIDE), int(winner == O_SIDE)]

    def rows(self) -> List[str]:
        return ["".join(self.marks[row * self.n:(row + 1) * self.n])
                for row in range(self.n)]


class TakeAwayRules:
    """Take Away: a size is n (2..5); a game's ``cells`` are ``{"n", "struck"}``."""

    name = NAME
    title = "Take Away"
    default_sizes = "3,4"
    entry_points = (ENTRY_POINT,)
    ours: ClassVar[Dict[str, str]] = {}
    anchors = ()
    first_row = 1

    @staticmethod
    def entrant_plan(folder: Path) -> Optional[Plan]:
        if is_file(folder / ENTRY_POINT):
            return needs(Plan("python", ("python3", ENTRY_POINT)), "python3")
        return None

    @staticmethod
    def parse_sizes(text: str) -> List[int]:
        sizes = []
        for word in text.split(","):
            word = word.strip()
            if not word.isdigit() or int(word) not in SIZES:
                raise SizeError(f"Take Away boards are 2..5 wide, not {word!r}")
            sizes.append(int(word))
        return sizes

    @staticmethod
    def size_label(size: int) -> str:
        return f"{size}x{size}"

    @staticmethod
    def size_text(size: int, short: bool = False) -> str:
        return f"{size}×{size}" if short else f"{size}×{size} counters"

    @staticmethod
    def size_cost(size: int) -> int:
        return size * size

    @staticmethod
    def setup(seed: int, pair: int, size: int, openings: int = 0) -> Dict[str, int]:
        rng = random.Random(f"take away {seed} {pair} {size}")
        return {"n": size, "struck": rng.randrange(size)}

    @staticmethod
    def size_of(cells: Dict[str, int]) -> int:
        return cells["n"]

    @staticmethod
    def clean_cells(cells: object) -> Optional[Dict[str, int]]:
        if not isinstance(cells, dict):
            return None
        n, struck = cells.get("n"), cells.get("struck")
        if not (isinstance(n, int) and isinstance(struck, int) and n in SIZES
                and 0 <= struck < n * n):
            return None
        return cells

    @staticmethod
    def cell_values(cells: Dict[str, int]) -> None:
        return None

    @staticmethod
    def board(cells: Dict[str, int]) -> TakeAwayBoard:
        return TakeAwayBoard(cells)


if TYPE_CHECKING:   # for mypy (``mypy tests/toy_game.py``): the rules class is a Rules
    _TAKE_AWAY: Rules = TakeAwayRules


def register() -> None:
    """Add Take Away to engine.registry's table, the one thing a new game needs."""
    from engine import registry
    entry = registry.Assignment(NAME, NAME, tournament=f"{__name__}:TakeAwayRules")
    registry.ASSIGNMENTS = registry.ASSIGNMENTS + (entry,)


# A whole program that registers the toy game and runs ``python3 -m engine ARGS``:
# ``python3 -c MAIN ARGS`` with tests/ and the repository on PYTHONPATH.
MAIN = ("import sys, toy_game; toy_game.register(); from engine.__main__ import main; "
        "sys.exit(main(sys.argv[1:]))")
