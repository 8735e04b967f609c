"""picture: draw the tree a game program actually searched (SVG, or DOT on stdout).

usage: python3 -m engine picture GAME ARGS... [--svg OUT.svg] [--dot] [--max-nodes N]
       python3 -m engine picture GAME ARGS... --html OUT.html [--against VISITED]
                                                              [--move BOARD]

games:
  tictactoe STATE [prune [PLY]]   the search of tictactoe.py STATE PATH [prune [PLY]]:
                                  same game, same options, same visit order
  tmmorris STATE PLY TURN         the search of tmmorris.py STATE PATH PLY TURN
                                  (``morris`` is accepted for tmmorris)
  take_stones N K S1..SK DEPTH    the search of TakeStones N K S1..SK DEPTH (its window
                                  -1000..1000 and depth rule; nodes as its listing
                                  prints them: last move, stones left)
  stake_raid INPUT.txt            the grader search of homework.py on INPUT.txt
                                  (MINIMAX or ALPHABETA mode; boards as N rows)

Each node shows its board (small), MAX/MIN (frame colour and a small triangle), its value
and, with pruning, its final alpha/beta; pruned branches are dashed and grey (their boards
greyed), the chosen line is orange. Pictures keep whole levels: with more than N visited
nodes (default 300) the deepest levels are left out, and both the picture and stderr say so.

options:
  --svg OUT.svg   write the picture (default: GAME.svg in the current folder)
  --dot           print Graphviz DOT on stdout instead of writing an SVG
  --max-nodes N   draw at most N visited nodes (default 300)
  --html OUT.html write the stepper instead: one offline page replaying the whole search
                  step by step (every visited node; subtrees open on demand)
  --against FILE  overlay a student's visited file (the format tictactoe.py / tmmorris.py
                  write) or TakeStones listing (its stdout) on the page and highlight
                  the first line that differs (implies --html; default GAME.html;
                  not for stake_raid, whose grader checks only output.txt)
  --move BOARD    with --against (tictactoe, tmmorris): the board the student's program
                  printed; the page says whether that move is the search's
"""

import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import registry
from ..pictures.stepper import Recording
from ..pictures.trees import render_dot, render_svg, search_figure
from ..errors import UsageError
from ..search import ExactSearch, search
from ..searchtree import SearchTreeRecorder
from ..commandline import parse_positive_int, read_text_file, run_program, write_atomically

USAGE = ("usage: python3 -m engine picture GAME ARGS... [--svg OUT.svg] [--dot] "
         "[--max-nodes N] [--html OUT.html] [--against VISITED [--move BOARD]]")
MAX_TRACE_BYTES = 64 << 20      # a student's visited file larger than this is refused
DEFAULT_MAX_NODES = 300


class Adapter:
    """What ``picture`` needs of a program (engine.registry lists each subclass as its
    assignment's ``picture``; :func:`adapter_for` names an instance after the
    assignment): ``parse(args) -> (game, state, search keyword arguments, caption)``
    (UsageError on bad input), ``board(state) -> rows``, ``child(state, action)``.

    Optional, with these defaults: ``label`` (a node's text instead of its board; None:
    boards), ``move(parent, child)`` (a move's name on the stepping page; None: none),
    ``compare(recording, text)`` (a student's visited file against the recording:
    line by line, nodes matched by their boards).
    """

    name = ""
    game: Any = None
    label: Optional[Callable[[Any], str]] = None
    move: Optional[Callable[[Any, Any], Optional[str]]] = None

    def parse(self, args: List[str]) -> Tuple[Any, Any, Dict[str, Any], str]:
        raise NotImplementedError

    def board(self, state: Any) -> Tuple[str, ...]:
        raise NotImplementedError

    def child(self, state: Any, action: Any) -> Any:
        return self.game.result(state, action)

    def compare(self, recording: Recording, text: str) -> Dict[str, Any]:
        from ..pictures import stepper
        return stepper.compare_visited(recording, text,
                                       key=lambda s: "".join(self.board(s)))


class TicTacToeAdapter(Adapter):
    """What ``picture`` needs of tictactoe.py: its argument rules, game and search options."""

    def parse(self, args: List[str]) -> Tuple[Any, Any, Dict[str, Any], str]:
        from ..games.tictactoe import TicTacToe
        from .tictactoe import parse_arguments
        if not 1 <= len(args) <= 3:
            raise UsageError("tictactoe takes STATE [prune [PLY]]")
        board, _, prune, ply = parse_arguments([args[0], "-"] + args[1:])
        game = TicTacToe(evaluate_terminals=ply is not None)
        if game.terminal_value(board) is not None:
            raise UsageError(f"{board} is terminal: tictactoe.py searches nothing there")
        self.game = game
        method = "alpha-beta" if prune else "minimax"
        caption = f"tictactoe.py {board} PATH" + (" prune" if prune else "") + \
            (f" {ply}" if ply else "") + f"  ({method}"
        caption += f", cut off at depth {ply}, leaves valued E(s))" if ply else ")"
        return game, board, {"prune": prune, "depth": ply}, caption

    def board(self, state: Any) -> Tuple[str, ...]:
        return (state[0:3], state[3:6], state[6:9])

    def move(self, parent: str, child: str) -> Optional[str]:
        """``x@4``: the mark ``child`` adds to ``parent`` and its cell, as the grading
        kit's diagnoses name a node's moves."""
        for cell in range(9):
            if parent[cell] != child[cell]:
                return f"{child[cell]}@{cell}"
        return None


class MorrisAdapter(Adapter):
    """What ``picture`` needs of tmmorris.py: STATE PLY TURN, searched exactly as the
    program searches (its game, repetition rule and depth ``min(PLY, 7)``)."""

    def parse(self, args: List[str]) -> Tuple[Any, Any, Dict[str, Any], str]:
        from ..games.morris import DECISIVE_HORIZON, MorrisLookahead
        from .morris.program import parse_arguments
        if len(args) != 3:
            raise UsageError("tmmorris takes STATE PLY TURN")
        board, _, ply, turn = parse_arguments([args[0], "-", args[1], args[2]])
        game = MorrisLookahead()
        root = game.root(board, turn)
        if game.terminal_value(root) is not None:
            raise UsageError(f"{board} with {turn} to move is terminal: "
                             "tmmorris.py searches nothing there")
        self.game = game
        depth = min(ply, DECISIVE_HORIZON)
        caption = (f"tmmorris.py {board} PATH {ply} {turn}  (alpha-beta to depth {depth}; "
                   "a repeated position is a draw)")
        return game, root, {"prune": True, "depth": depth}, caption

    def board(self, node: Any) -> Tuple[str, ...]:
        board = node[0]
        return (board[0:3], board[3:6], board[6:9])


class TakeStonesAdapter(Adapter):
    """What ``picture`` needs of TakeStones: ``n k s1..sk depth``, searched as the program
    searches (its window BOUNDS, its depth rule, the same evaluations), without the memo:
    a memo saves time only, the visit order and every node's bounds are the same.

    Nodes are drawn as the listing prints them: ``label(state)`` is the last move (-1 for
    a new game) and the stones on the table; ``board(state)`` (the SVG) one cell a stone,
    ``x`` the last move, ``o`` a stone on the table, ``.`` one taken before.
    """

    def parse(self, args: List[str]) -> Tuple[Any, Any, Dict[str, Any], str]:
        from ..games.take_stones import TakeStones
        from .take_stones.program import BOUNDS, InvalidInput, parse_arguments
        try:
            n, taken, depth = parse_arguments(list(args))
            if len(args) != len(taken) + 3:
                raise InvalidInput("take_stones takes n k s1..sk depth, nothing after depth")
            limit = depth or n + 1
            # program.run: a cut-off only when `limit` more stones can be taken.
            evaluations = limit <= n - len(taken)
            # split only changes memo keys (TakeStones's docstring): no memo, no split.
            game = TakeStones(n, evaluations=evaluations, split=False)
            try:
                state = game.replay_history(taken)
            except ValueError as error:
                raise InvalidInput(str(error)) from None
        except InvalidInput as error:
            raise UsageError(f"take_stones: {error}") from None
        if game.terminal_value(state) is not None:
            raise UsageError("take_stones: the game is already over: TakeStones prints "
                             "Invalid input there")
        self.game = game
        words = " ".join(str(a) for a in args)
        cut = f"cut off at depth {limit}" if evaluations else "to the end of the game"
        caption = (f"TakeStones {words}  (alpha-beta from alpha {BOUNDS[0]}, beta "
                   f"{BOUNDS[1]}, {cut})")
        return game, state, {"prune": True, "depth": limit if evaluations else None,
                             "window": BOUNDS}, caption

    def label(self, state: Any) -> str:
        last = self.game.last_move(state) or -1
        stones = " ".join(str(s) for s in self.game.available_stones(state))
        return f"{last}: {stones}" if stones else f"{last}: (none)"

    def board(self, state: Any) -> Tuple[str, ...]:
        game = self.game
        available, last = game.available(state), game.last_move(state)
        return ("".join("x" if s == last else "o" if available >> s & 1 else "."
                        for s in range(1, game.n + 1)),)


    def compare(self, recording: Recording, text: str) -> Dict[str, Any]:
        from ..pictures.stepper_listing import compare_listing
        return compare_listing(recording, text, self.game)


class StakeRaidAdapter(Adapter):
    """What ``picture`` needs of homework.py: an input.txt in MINIMAX or ALPHABETA mode,
    searched as its grader search (homework.choose): the same game and side, alpha-beta
    for ALPHABETA, minimax for MINIMAX, to DEPTH. Boards are the N rows of output.txt.
    No ``--against``: the grader checks only output.txt."""


    def parse(self, args: List[str]) -> Tuple[Any, Any, Dict[str, Any], str]:
        from ..games.stake_raid_files import parse_input
        from ..games.stake_raid_files import position as setup
        if len(args) != 1:
            raise UsageError("stake_raid takes INPUT.txt (MINIMAX or ALPHABETA mode)")
        problem = parse_input(read_text_file(args[0], errors="replace"), args[0])
        if problem.mode not in ("MINIMAX", "ALPHABETA"):
            raise UsageError(f"{args[0]}: mode {problem.mode}: pictures exist for MINIMAX "
                             "and ALPHABETA only (COMPETITION searches against a clock)")
        game, state = setup(problem)
        self.game, self.problem = game, problem
        prune = problem.mode == "ALPHABETA"
        caption = (f"homework.py {args[0]}  ({'alpha-beta' if prune else 'minimax'} to "
                   f"depth {problem.limit}, {problem.player} to move)")
        return game, state, {"prune": prune, "depth": problem.limit}, caption

    def board(self, state: Any) -> Tuple[str, ...]:
        from ..games.stake_raid import EMPTY, MAX, MIN
        player = self.problem.player
        marks = {EMPTY: ".", MAX: player, MIN: "XO"[player == "X"]}
        size = self.problem.size
        cells = state[0]
        return tuple("".join(marks[c] for c in cells[r * size:(r + 1) * size])
                     for r in range(size))


    def compare(self, recording: Recording, text: str) -> Dict[str, Any]:
        raise UsageError("stake_raid has no --against: its grader checks only output.txt")


def game_names() -> List[str]:
    """The games ``picture`` draws: the assignments engine.registry gives an adapter."""
    return [entry.name for entry in registry.pictured()]


def adapter_for(word: str) -> Adapter:
    """A fresh adapter of the game ``word`` (an assignment's name or alias), named by
    the assignment's one name; UsageError for a game without pictures."""
    entry = registry.assignment(word)
    if entry is None or entry.picture is None:
        raise UsageError(f"unknown game {word!r}; pictures exist for: "
                         f"{', '.join(game_names())}")
    adapter = registry.import_named(entry.picture)()
    adapter.name = entry.name
    return adapter


def parse_arguments(argv: Sequence[str], pages: Optional[Dict[str, Optional[str]]] = None
                    ) -> Tuple[Adapter, List[str], Optional[str], bool, int]:
    """(adapter, game arguments, svg path or None, dot, max_nodes) or UsageError.

    ``pages``: a dict that receives the stepper options ``html`` and ``against`` (paths
    or None) and ``move`` (a board or None); without it those options are refused.
    """
    words = list(argv)
    svg: Optional[str] = None
    dot, max_nodes, rest = False, DEFAULT_MAX_NODES, []
    page: Dict[str, Optional[str]] = {"html": None, "against": None, "move": None}
    while words:
        word = words.pop(0)
        if word in ("--svg", "--max-nodes", "--html", "--against", "--move") and (
                pages is not None or word in ("--svg", "--max-nodes")):
            if not words:
                raise UsageError(f"{word} needs a value; {USAGE}")
            value = words.pop(0)
            if word == "--svg":
                svg = value
            elif word in ("--html", "--against", "--move"):
                if not value:
                    raise UsageError(f"{word} needs a value")
                page[word[2:]] = value
            else:
                max_nodes = parse_positive_int(value, "--max-nodes")
        elif word == "--dot":
            dot = True
        elif word.startswith("--") and word[2:3].isalpha():
            # (a board such as --------- is an argument, not an option)
            raise UsageError(f"unknown option {word!r}; {USAGE}")
        else:
            rest.append(word)
    if not rest:
        raise UsageError(f"missing GAME (one of: {', '.join(game_names())}); {USAGE}")
    adapter = adapter_for(rest[0])
    if dot and svg is not None:
        raise UsageError("choose one of --svg and --dot")
    if pages is not None:
        if page["move"] is not None and (page["against"] is None or adapter.label):
            raise UsageError(f"--move goes with --against, for a game whose program "
                             f"prints its move as a board, not {adapter.name}")
        if page["against"] is not None and page["html"] is None:
            page["html"] = f"{adapter.name}.html"
        if page["html"] is not None and dot:
            raise UsageError("choose one of --html and --dot")
        pages.update(page)
    return adapter, rest[1:], svg, dot, max_nodes


def read_student_trace(path: str) -> str:
    """A student's visited file as text: any bytes are accepted (undecodable ones become
    U+FFFD); UsageError when it cannot be read or is absurdly large."""
    return read_text_file(path, errors="replace", cap=MAX_TRACE_BYTES)


def stepper_page(adapter: Adapter, game: Any, state: Any, options: Dict[str, Any], caption: str,
                 against: Optional[str] = None, move: Optional[str] = None) -> str:
    """The stepper page (str) of the search ``picture`` draws, with a student's visited
    file (text) overlaid when ``against`` is given, and the board their program printed
    (``move``) set beside the search's choice."""
    from ..pictures import stepper
    label = adapter.label
    # A node with a label shows it instead of a board (the page draws one character a
    # cell, a row of the board a row: fit for boards, not for a list of stones).
    recording = stepper.record(game, state, prune=options.get("prune", True),
                               depth=options.get("depth"), window=options.get("window"),
                               board=None if label else adapter.board, label=label,
                               child=adapter.child, move=adapter.move,
                               title=caption.split("  (")[0],
                               caption=[caption])
    report = adapter.compare(recording, against) if against is not None else None
    moved = None if move is None else stepper.compare_move(
        recording, move, lambda s: "".join(adapter.board(s)), adapter.move)
    return stepper.render(recording, against=report, move=moved)


def run(argv: List[str]) -> int:
    pages: Dict[str, Optional[str]] = {}
    adapter, args, svg, dot, max_nodes = parse_arguments(argv, pages)
    if not args:
        raise UsageError(f"missing the {adapter.name} arguments; see --help")
    game, state, options, caption = adapter.parse(args)
    if pages["html"] is not None:
        against = (read_student_trace(pages["against"]) if pages["against"] is not None
                   else None)
        write_atomically(pages["html"], stepper_page(adapter, game, state, options, caption,
                                                     against, pages["move"]))
        print(f"picture: wrote {pages['html']}", file=sys.stderr)
        if svg is None:
            return 0
    recorder = SearchTreeRecorder(game, max_nodes=max_nodes)
    result = search(game, state, ExactSearch(tracer=recorder, **options))
    move = adapter.board(result.child) if result.child is not None else None
    lines = [caption, f"value {result.value}; visited {recorder.visited} nodes"
             + (f"; chosen: {'/'.join(move)}" if move else "")]
    figure = search_figure(recorder, result, adapter.board, adapter.child, lines,
                           prune=options.get("prune", True))
    if recorder.capped:
        print(f"picture: {figure.warnings[0]}", file=sys.stderr)
    if dot:
        sys.stdout.write(render_dot(figure))
    else:
        path = svg if svg is not None else f"{adapter.name}.svg"
        write_atomically(path, render_svg(figure))
        print(f"picture: wrote {path} ({recorder.recorded} nodes drawn)", file=sys.stderr)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("picture", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
