"""The two tournament games as the referee sees them: boards, the protocol, the outcome.

Each rules class holds its game's facts (engine.registry lists it as the assignment's
``tournament``): sizes, the seeded setup, the board, the entry points and how an entrant
without a Makefile is run (:meth:`entrant_plan`), our players (``ours``).

A tournament game is set up from a seed (:meth:`Rules.setup`: Stake/Raid cell values;
Line 'em Up blocs and an opening), which is stored in the game's record as ``cells`` so
that the game can be replayed (:meth:`Rules.positions`). The referee keeps a
:class:`Board` per game: it writes the side to move's ``input.txt``
(:meth:`Board.input_text`), reads the move from ``output.txt`` (:meth:`Board.parse`),
checks it (:meth:`Board.legal`) and plays it by the rules of engine.games itself.

Protocols (docs/agent.md, "The protocol"):

* Stake/Raid, the homework's COMPETITION input: N, ``COMPETITION``, the side to move
  (``X``/``O``), its remaining CPU seconds (plainly: ``200``, ``12.37``), N lines of
  values, N lines of the board (``.`` ``X`` ``O``). Output: ``<col><row> Stake|Raid`` on
  the first line (the homework's board lines after it are not read).
* Line 'em Up: n, s, the side to move, its remaining CPU seconds, n lines of the board
  (``.`` empty, ``*`` bloc, ``X``, ``O``; row 0 first). Output: the cell on the first line,
  column letter then row (``B3``; ``B 3`` is accepted too).
"""

import random
import re
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, NamedTuple, Optional,
                    Protocol, Sequence, Tuple)

from .. import registry
from ..games.line_em_up import WIN as LINE_WIN
from ..games.line_em_up import LineEmUp, cell_name
from ..games.stake_raid import EMPTY, MAX, MIN, StakeRaid, move_name
from ..games.stake_raid_files import board_rows, input_text, output_move, plain_number
from ..errors import EngineError
from ..grading.detect import Plan, detect, is_file, needs
from ..grading.judges import load as load_assignment

X_SIDE, O_SIDE = "x", "o"
_SWAP = bytes.maketrans(bytes([MAX, MIN]), bytes([MIN, MAX]))
_LINE_CELL = re.compile(r"^\s*([A-Za-z])\s*,?\s*(\d+)\s*$")
_CELL_NAME = re.compile(r"^[A-Z][0-9]{1,2}$")      # a cell as records name it: B3


# ``seconds`` as the plainest number that keeps its milliseconds (``3``, ``2.5``), as
# both games' input.txt write it.
plain_seconds = plain_number


class SizeError(EngineError, ValueError):
    """A board size that the game does not have (the message says why)."""


class Board(Protocol):
    """One game in progress, as the referee drives it (every game's board fulfils it).

    ``side`` is the side to move (``x`` moves first, then ``o``); ``over`` whether the
    game has ended. The referee writes ``input_text(seconds)`` as the mover's
    input.txt, reads its output.txt with ``parse`` (None: garbled), checks the action
    with ``legal`` and plays it with ``play`` (which returns the move's name for the
    record). ``scores`` are [X, O] as the game counts them, ``forfeit_scores(winner)``
    those of a game ``winner`` won by forfeit, ``winner`` is ``x``, ``o`` or ``draw``.

    ``rows`` is the position as the report draws it: a square of n strings of n
    characters, n at most 26 (the columns are lettered A to Z), the top row first, a
    character per cell: ``.`` empty, ``X``, ``O``, ``*`` a cell nobody may take (the
    report colours these four)."""

    @property
    def over(self) -> bool: ...

    @property
    def side(self) -> str: ...

    def input_text(self, seconds: float) -> str: ...

    def parse(self, text: str) -> Any: ...

    def legal(self, action: Any) -> bool: ...

    def play(self, action: Any) -> str: ...

    def scores(self) -> List[int]: ...

    def forfeit_scores(self, winner: str) -> List[int]: ...

    def winner(self) -> str: ...

    def rows(self) -> List[str]: ...


class Rules(Protocol):
    """A tournament game's facts (the class engine.registry names as an assignment's
    ``tournament``; its members are static). Nothing outside this class looks at a
    game's name to know one of them:

    * ``name`` (the assignment's), ``title``;
    * ``entry_points`` and ``entrant_plan``: how an entrant without a Makefile runs;
    * ``ours``: our players (name -> description); ``anchors``: the players of ``ours``
      a ladder places every newcomer against, as ``ours:NAME``, strongest first (may
      be empty);
    * sizes: ``default_sizes`` (``--sizes``'s default), ``parse_sizes`` (a size's
      word, as ``--sizes`` and the records write it, to the game's size objects; a
      size is written to JSON as itself when it is an int, else as its ``str``, which
      ``parse_sizes`` reads back), ``size_label`` (plain, for terminals and logs:
      ``5x5``), ``size_text`` (for people, on pages: ``5×5``; shorter when ``short``),
      ``size_of`` (the size of a game's cells), ``size_cost`` (what a game on it costs,
      in moves, to balance shards);
    * cells: the seeded ``setup`` of a game's ``cells`` (stored in its record),
      ``clean_cells`` (a record's cells when a board can be set up from them and drawn,
      else None: records are untrusted), ``cell_values`` (the numbers a replay writes
      in the cells, row by row, or None);
    * ``first_row``: the number the game gives the top row in cell names (A1: 1, A0:
      0), which the report's replays label rows with;
    * ``board``: the :class:`Board` of a game in progress."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def default_sizes(self) -> str: ...

    @property
    def entry_points(self) -> Tuple[str, ...]: ...

    @property
    def ours(self) -> Dict[str, str]: ...

    @property
    def anchors(self) -> Tuple[str, ...]: ...

    @property
    def first_row(self) -> int: ...

    def entrant_plan(self, folder: Path) -> Optional[Plan]: ...

    def parse_sizes(self, text: str) -> List[Any]: ...

    def size_label(self, size: Any) -> str: ...

    def size_text(self, size: Any, short: bool = ...) -> str: ...

    def size_cost(self, size: Any) -> int: ...

    def setup(self, seed: int, pair: int, size: Any, openings: int = ...) -> Any: ...

    def size_of(self, cells: Any) -> Any: ...

    def clean_cells(self, cells: object) -> Any: ...

    def cell_values(self, cells: Any) -> Optional[List[int]]: ...

    def board(self, cells: Any) -> Board: ...


# --- Stake/Raid --------------------------------------------------------------------------

class StakeRaidBoard:
    """One Stake/Raid game in progress: X (MAX) moves first; the board is full at the end.

    Cells use absolute codes (MAX = X, MIN = O); the state the rules see is the board
    from the mover's side (``initial_state`` always lets MAX move)."""

    def __init__(self, cells: Sequence[int]) -> None:
        self.size = int(len(cells) ** 0.5 + 0.5)
        self.values = list(cells)
        self.game = StakeRaid(self.size, self.values)
        self.board = bytes(self.size * self.size)
        self.side = X_SIDE

    @property
    def over(self) -> bool:
        return EMPTY not in self.board

    def _state(self) -> Any:
        own = self.board if self.side == X_SIDE else self.board.translate(_SWAP)
        return self.game.initial_state(own)

    def input_text(self, seconds: float) -> str:
        return input_text(self.size, "COMPETITION", self.side.upper(), seconds, self.values,
                          self.rows())

    def parse(self, text: str) -> Any:
        """The action named on the first line, or None when it names no move of this
        board (garbled)."""
        return output_move(text, self.size)

    def legal(self, action: Any) -> bool:
        return action in self.game.actions(self._state())

    def play(self, action: Any) -> str:
        """Play the legal ``action``; return its name (``B3 Raid``)."""
        child = self.game.play(self._state(), action)[0]
        self.board = child if self.side == X_SIDE else child.translate(_SWAP)
        self.side = O_SIDE if self.side == X_SIDE else X_SIDE
        return move_name(self.size, action)

    def scores(self) -> List[int]:
        """[X's points, O's points]: the values of the squares each holds."""
        return [sum(v for v, c in zip(self.values, self.board) if c == code)
                for code in (MAX, MIN)]

    def forfeit_scores(self, winner: str) -> List[int]:
        """[X, O] of a game ``winner`` won by forfeit: the squares still empty count
        as the winner's."""
        scores = self.scores()
        empty = sum(v for v, c in zip(self.values, self.board) if c == EMPTY)
        scores[0 if winner == X_SIDE else 1] += empty
        return scores

    def winner(self) -> str:
        """"x", "o" or "draw" by the scores (meaningful once the board is full)."""
        x, o = self.scores()
        return X_SIDE if x > o else O_SIDE if o > x else "draw"

    def rows(self) -> List[str]:
        return board_rows(self.board, self.size, "X")     # X is MAX


class StakeRaidRules:
    """Stake/Raid: a size is N (1..26); a game's ``cells`` are its N*N values (1..99)."""

    name = "stake_raid"
    title = "Stake/Raid"
    default_sizes = "5,6,8,10"
    # Without a Makefile an entrant is run as the homework's grader runs it.
    entry_points = ("homework.py", "homework.java", "homework.cpp", "homework11.cpp",
                    "homework.c")
    ours = {"agent": "the tournament agent (iterative deepening, selective alpha-beta)",
            "classic": "plain iterative-deepening alpha-beta",
            "greedy": "the move with the best immediate score",
            **{f"depth{d}": f"fixed-depth alpha-beta, depth {d}" for d in range(1, 10)}}
    anchors = ("ours:agent", "ours:greedy")
    first_row = 1           # the homework names the top-left cell A1

    @staticmethod
    def entrant_plan(folder: Path) -> Optional[Plan]:
        """How an entrant ``folder`` without a Makefile is run: homework11.cpp (C++11),
        else as the grading kit runs the homework (its Stake/Raid judge's detection);
        None when neither fits."""
        if is_file(folder / "homework11.cpp"):
            return needs(Plan("c++", ("./homework",),
                              build=("g++", "-O2", "-std=c++11", "-o", "homework",
                                     "homework11.cpp")), "g++")
        plan = detect(load_assignment(StakeRaidRules.name), folder)
        return plan if plan.kind != "none" else None

    @staticmethod
    def parse_sizes(text: str) -> List[int]:
        """The sizes of ``--sizes`` (``5,6,8``), or SizeError."""
        sizes = []
        for word in text.split(","):
            word = word.strip()
            if not word.isdigit() or not 1 <= int(word) <= 26:
                raise SizeError(f"Stake/Raid board sizes are 1..26, not {word!r}")
            sizes.append(int(word))
        return sizes

    @staticmethod
    def size_label(size: int) -> str:
        return f"{size}x{size}"

    @staticmethod
    def size_text(size: int, short: bool = False) -> str:
        """``5×5`` (short or not)."""
        return f"{size}×{size}"

    @staticmethod
    def size_cost(size: int) -> int:
        """The board's squares: the moves of a game."""
        return size * size

    @staticmethod
    def setup(seed: int, pair: int, size: int, openings: int = 0) -> List[int]:
        """The values of pair ``pair``'s board: a pure function of the arguments."""
        rng = random.Random(f"tournament stake_raid {seed} {pair} {size}")
        return [rng.randint(1, 99) for _ in range(size * size)]

    @staticmethod
    def size_of(cells: Sequence[int]) -> int:
        return int(len(cells) ** 0.5 + 0.5)

    @staticmethod
    def clean_cells(cells: object) -> Optional[List[int]]:
        """``cells`` when they are N * N integers (N in 1..26) a page can show, else
        None."""
        if not isinstance(cells, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10 ** 6
                for v in cells):
            return None
        size = int(len(cells) ** 0.5 + 0.5)
        return cells if 1 <= size <= 26 and size * size == len(cells) else None

    @staticmethod
    def cell_values(cells: Sequence[int]) -> List[int]:
        """The squares' values, which a replay writes in them (and adds up)."""
        return list(cells)

    @staticmethod
    def board(cells: Sequence[int]) -> StakeRaidBoard:
        return StakeRaidBoard(cells)


# --- Line 'em Up -------------------------------------------------------------------------

class LineSize(NamedTuple):
    """A Line 'em Up board: n x n, s in a row wins, b blocs."""
    n: int
    s: int
    b: int

    def __str__(self) -> str:
        return f"{self.n}:{self.s}:{self.b}"


class LineEmUpBoard:
    """One Line 'em Up game in progress: blocs, then the opening, then the players."""

    def __init__(self, cells: Dict[str, Any]) -> None:
        self.n, self.s = cells["n"], cells["s"]
        self.blocs = [_cell(name, self.n) for name in cells["blocs"]]
        self.game = LineEmUp(self.n, self.s, [(c % self.n, c // self.n) for c in self.blocs],
                             "e1")
        self.state = self.game.initial_state()
        for name in cells.get("opening", ()):
            self.state = self.game.result(self.state, _cell(name, self.n))

    @property
    def side(self) -> str:
        return X_SIDE if self.state[2] else O_SIDE

    @property
    def over(self) -> bool:
        return self.state[3] is not None

    def input_text(self, seconds: float) -> str:
        lines = [str(self.n), str(self.s), self.side.upper(), plain_seconds(seconds)]
        return "\n".join(lines + self.rows()) + "\n"

    def parse(self, text: str) -> Any:
        match = _LINE_CELL.match(text.split("\n", 1)[0])
        if not match:
            return None
        column = ord(match.group(1).upper()) - ord("A")
        row = int(match.group(2))
        if not (0 <= column < self.n and 0 <= row < self.n):
            return None
        return row * self.n + column

    def legal(self, action: Any) -> bool:
        return action in self.game.actions(self.state)

    def play(self, action: Any) -> str:
        self.state = self.game.result(self.state, action)
        return cell_name(action, self.n)

    def winner(self) -> str:
        value = self.state[3]
        if not value:
            return "draw"
        return X_SIDE if value > 0 else O_SIDE

    def scores(self) -> List[int]:
        """[X, O]: the winner scores the empty cells left plus one (a quicker win scores
        more), the loser 0; a draw is [0, 0]."""
        value = self.state[3] or 0
        margin = abs(value) - LINE_WIN + 1 if value else 0
        return [margin, 0] if value > 0 else [0, margin]

    def forfeit_scores(self, winner: str) -> List[int]:
        """[X, O] of a game ``winner`` won by forfeit: scored as a win now (the empty
        cells left plus one)."""
        x, o = self.state[0], self.state[1]
        empty = self.n * self.n - len(self.blocs) - bin(x).count("1") - bin(o).count("1")
        return [empty + 1, 0] if winner == X_SIDE else [0, empty + 1]

    def rows(self) -> List[str]:
        x, o = self.state[0], self.state[1]
        blocs = set(self.blocs)
        rows = []
        for r in range(self.n):
            row = ""
            for c in range(r * self.n, (r + 1) * self.n):
                row += ("X" if x >> c & 1 else "O" if o >> c & 1 else
                        "*" if c in blocs else ".")
            rows.append(row)
        return rows


def _cell(name: str, n: int) -> int:
    column, row = ord(name[0]) - ord("A"), int(name[1:])
    return row * n + column


class LineEmUpRules:
    """Line 'em Up: a size is ``n`` or ``n:s`` or ``n:s:b`` (s defaults to min(n, 4),
    b to n // 2); a game's ``cells`` are ``{"n", "s", "blocs", "opening"}`` (cell names)."""

    name = "lineemup"
    title = "Line 'em Up"
    default_sizes = "5:4:2,6:4:3,8:5:4"
    entry_points = ("lineemup_agent.py",)
    ours = {"e1": "our AI with heuristic e1 (open lines)",
            "e2": "our AI with heuristic e2 (weighted threats)"}
    anchors = ("ours:e2", "ours:e1")
    first_row = 0           # the handout names the top-left cell A0

    @staticmethod
    def entrant_plan(folder: Path) -> Optional[Plan]:
        """How an entrant ``folder`` without a Makefile is run: lineemup_agent.py;
        None without it."""
        if is_file(folder / "lineemup_agent.py"):
            return needs(Plan("python", ("python3", "lineemup_agent.py")), "python3")
        return None

    @staticmethod
    def parse_sizes(text: str) -> List[LineSize]:
        sizes = []
        for word in text.split(","):
            parts = word.strip().split(":")
            if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
                raise SizeError(f"a Line 'em Up size is n, n:s or n:s:b, not {word!r}")
            n = int(parts[0])
            s = int(parts[1]) if len(parts) > 1 else min(n, 4)
            b = int(parts[2]) if len(parts) > 2 else n // 2
            if not 3 <= n <= 10:
                raise SizeError(f"Line 'em Up boards are 3..10 wide, not {n}")
            if not 3 <= s <= n:
                raise SizeError(f"s must be 3..{n} on a {n}x{n} board, not {s}")
            if not 0 <= b <= 2 * n:
                raise SizeError(f"b must be 0..{2 * n} on a {n}x{n} board, not {b}")
            sizes.append(LineSize(n, s, b))
        return sizes

    @staticmethod
    def size_label(size: LineSize) -> str:
        return f"{size.n}x{size.n} s={size.s} b={size.b}"

    @staticmethod
    def size_text(size: LineSize, short: bool = False) -> str:
        """``6×6, 4 in a row, 3 blocs``; ``6×6 s4 b3`` when ``short``."""
        if short:
            return f"{size.n}×{size.n} s{size.s} b{size.b}"
        return f"{size.n}×{size.n}, {size.s} in a row, {size.b} blocs"

    @staticmethod
    def size_cost(size: LineSize) -> int:
        """The board's cells (blocs included): a bound on the moves of a game."""
        return size.n * size.n

    @staticmethod
    def setup(seed: int, pair: int, size: LineSize, openings: int = 2) -> Dict[str, Any]:
        """Blocs and an opening of ``openings`` plies (never one that ends the game), a
        pure function of the arguments."""
        n, s, b = size
        rng = random.Random(f"tournament lineemup {seed} {pair} {n}:{s}:{b}")
        blocs = sorted(rng.sample(range(n * n), b))
        game = LineEmUp(n, s, [(c % n, c // n) for c in blocs], "e1")
        state = game.initial_state()
        opening = []
        for _ in range(openings):
            moves = sorted(game.actions(state))
            if not moves:
                break
            cell = rng.choice(moves)
            after = game.result(state, cell)
            if after[3] is not None:
                break
            opening.append(cell_name(cell, n))
            state = after
        return {"n": n, "s": s, "blocs": [cell_name(c, n) for c in blocs],
                "opening": opening}

    @staticmethod
    def size_of(cells: Dict[str, Any]) -> LineSize:
        return LineSize(cells["n"], cells["s"], len(cells["blocs"]))

    @staticmethod
    def clean_cells(cells: object) -> Optional[Dict[str, Any]]:
        """``cells`` when n is 3..10, s 3..n, and every bloc and opening move names a
        cell of the board (``B3``), else None."""
        if not isinstance(cells, dict):
            return None
        n, s, blocs = cells.get("n"), cells.get("s"), cells.get("blocs")
        if not (isinstance(n, int) and isinstance(s, int) and 3 <= n <= 10 and 3 <= s <= n):
            return None
        opening = cells.get("opening", [])
        names = (blocs if isinstance(blocs, list) else []) + (
            opening if isinstance(opening, list) else [])
        if not isinstance(blocs, list) or not all(
                isinstance(name, str) and _CELL_NAME.match(name)
                and ord(name[0]) - ord("A") < n and int(name[1:]) < n for name in names):
            return None
        return cells

    @staticmethod
    def cell_values(cells: Dict[str, Any]) -> None:
        """None: a replay writes nothing in Line 'em Up's cells."""
        return None

    @staticmethod
    def board(cells: Dict[str, Any]) -> LineEmUpBoard:
        return LineEmUpBoard(cells)


class _Games(Mapping[str, Rules]):
    """{game name: rules class} of the tournament games engine.registry lists (its
    ``tournament`` entries, in the table's order), each resolved when first asked for:
    the registry names the classes of this module, which is loaded by then."""

    def __iter__(self) -> Iterator[str]:
        return iter([entry.name for entry in registry.tournament_games()])

    def __len__(self) -> int:
        return len(registry.tournament_games())

    def __getitem__(self, name: str) -> Rules:
        entry = registry.assignment(name)
        if entry is None or entry.tournament is None:
            raise KeyError(name)
        return registry.import_named(entry.tournament)


GAMES = _Games()


def rules_for(name: str) -> Rules:
    """The rules class of the game ``name`` (``stake_raid`` or ``lineemup``), or KeyError."""
    return GAMES[name]


def our_command(rules: Rules, player: str) -> List[str]:
    """The argv (run in a folder holding a copy of the engine package) of our player
    ``player`` of the game ``rules`` (engine.registry's command for it)."""
    entry = registry.assignment(rules.name)
    if entry is None:
        raise KeyError(rules.name)
    return entry.agent_command(player)


def positions(game: str, cells: Any, moves: Sequence[Sequence[Any]]) -> List[List[str]]:
    """Every position of a recorded game, as board rows: the start (after Line 'em Up's
    opening), then after each move of ``moves`` ([SIDE, MOVE, CPU] as recorded).

    Moves are replayed by the rules; a move that cannot be read or played ends the
    list (a record is only as trustworthy as the file it came from)."""
    board = rules_for(game).board(cells)
    frames = [board.rows()]
    for move in moves:
        action = board.parse(str(move[1]))
        if action is None or board.over or not board.legal(action):
            break
        board.play(action)
        frames.append(board.rows())
    return frames


if TYPE_CHECKING:   # for mypy only: each rules class is a Rules
    _STAKE_RAID: Rules = StakeRaidRules
    _LINE_EM_UP: Rules = LineEmUpRules
