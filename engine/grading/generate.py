"""Seeded, valid, distinct cases for the four graded programs, with expected outputs.

Contract: ``generate_cases(program, count, seed)`` returns ``count`` distinct
:class:`~engine.grading.case.Case` objects (edge cases first, then random ones), the same
for the same arguments on any machine and any Python; their expected outputs are what our
own programs produce. ``PROGRAMS`` names the programs that can be graded;
:func:`write_cases` stores cases as numbered case folders.

Determinism: every choice comes from one ``random.Random`` seeded with a string built
from the program and the seed (string seeds are hashed with SHA-512, the same on every
Python since 3.2), and only its integer and sequence methods are used (``randrange``,
``choice``, ``shuffle``), whose results do not depend on the platform. Candidates are
drawn from sorted lists, never from set or dict order.

Only valid inputs are generated: no error cases (no expected stderr is ever stored), no
COMPETITION mode (it has no single right answer). Each case's reference run stays small:
Take-Stones outputs stay under about 20,000 lines and Stake/Raid searches under about a
second, both judged by deterministic node counts (never by the clock).

Case families (the ``name`` of a case says which: ``001-blank-minimax``):

* tictactoe: blank board (minimax, prune, prune PLY), near-full boards, terminal inputs
  (x won, o won, full board: nothing printed, no visited file), mid-game positions in the
  three modes, ``prune PLY`` reaching a won position above the cut-off; then random
  reachable positions with a random mode.
* tmmorris: blank board at PLY 1, 2, 7 and 1,000,000, placement and movement positions,
  an immediate win, a forced block, won and drawn positions at PLY >= 7, terminal inputs
  (a line on the board, a blocked side); then random reachable positions, random PLY.
* take_stones: the official samples' shapes, games already over (Max or Min to move, and
  new games of n = 1, 2), depth 0..6, depth beyond the end of the game, new games of
  n = 1..30 (to the end while the output stays small, else depths 1..6); then random
  legal histories, random n and depth.
* stake_raid: N = 1 and 26, MINIMAX and ALPHABETA, YOUPLAY X and O, a Stake tying a Raid,
  boards of equal values (ties everywhere), depth beyond the empty squares, the
  assignment-sized 5x5 boards; then random boards, N 1..26, depth as large as the size
  budget allows.
"""

import functools
import io
import os
import random
import sys
import tempfile
from pathlib import Path

from ..errors import SearchTimeout, UsageError
from ..games.morris import Morris, line_owner, moves as morris_moves, solve
from ..games.take_stones import TakeStones
from ..games.tictactoe import TicTacToe, winner
from ..search import search
from .case import Case, Outcome, prepare, run_reference, snapshot, write_case

PROGRAMS = ("tictactoe", "tmmorris", "take_stones", "stake_raid")

# The grader's script of our repository for each program: the program word of a case.
SCRIPTS = {"tictactoe": "tictactoe.py", "tmmorris": "tmmorris.py",
           "take_stones": "TakeStones", "stake_raid": "homework.py"}
VISITED = "visited.txt"

# Size limits of a case's reference run (see the module docstring).
TAKE_STONES_MAX_LINES = 20000
TAKE_STONES_MAX_NODES = (TAKE_STONES_MAX_LINES - 3) // 3 - 2   # 3 lines per node + NEXT MOVE
STAKE_RAID_MAX_NODES = {"MINIMAX": 300000, "ALPHABETA": 600000}   # estimated, see below


def generate_cases(program, count, seed, runner=None):
    """``count`` distinct cases for ``program`` from ``seed`` (see the module docstring).

    ``runner(case) -> Outcome`` computes the expected outputs; the default runs our
    program in this process (:func:`run_in_process`), which gives the same bytes as a
    subprocess (:func:`run_in_subprocess`) and costs a tenth of the time. Raises
    UsageError for an unknown program, a negative count, or more cases than the
    program has distinct inputs of the kinds generated.
    """
    if program not in PROGRAMS:
        raise UsageError(f"unknown program {program!r}; choose from {', '.join(PROGRAMS)}")
    if not isinstance(count, int) or count < 0:
        raise UsageError(f"the number of cases must be a non-negative integer, not {count!r}")
    runner = runner or run_in_process
    rng = random.Random(f"engine.grading:{program}:{seed}")
    families = _FAMILIES[program]
    width = max(3, len(str(count)))
    seen = set()
    cases = []
    attempts = 0
    for label, args, files in _candidates(families, rng):
        if len(cases) == count:
            break
        attempts += 1
        if attempts > 200 * count + 1000:
            raise UsageError(f"could not find {count} distinct {program} inputs "
                             f"(found {len(cases)})")
        key = (tuple(args), tuple(sorted(files.items())))
        if key in seen:
            continue
        seen.add(key)
        name = f"{len(cases) + 1:0{width}d}-{label}"
        bare = Case(name=name, program=SCRIPTS[program], args=tuple(args),
                    files=dict(files))
        outcome = runner(bare)
        cases.append(_with_expected(bare, outcome))
    return cases


def _candidates(families, rng):
    """The edge candidates in order, then random candidates for ever."""
    edges, random_candidate = families
    for candidate in edges(rng):
        yield candidate
    while True:
        candidate = random_candidate(rng)
        if candidate is not None:
            yield candidate


def _with_expected(case, outcome):
    """``case`` with the outputs of our run as its expectations (never stderr)."""
    if outcome.exit != 0:
        raise RuntimeError(f"the reference program failed on generated case {case.name} "
                           f"({' '.join(case.args)}): exit {outcome.exit}, "
                           f"{outcome.stderr[-300:]!r}")
    expected = {name: data for name, data in outcome.files.items()
                if name not in case.files or case.files[name] != data}
    return case._replace(stdout=outcome.stdout, expected=expected)


def write_cases(cases, out_dir):
    """Write each case to ``out_dir/<case.name>`` (see :func:`engine.grading.case.write_case`).

    ``out_dir`` is created if needed; UsageError if it exists and is not an empty folder
    (generated cases never mix with older ones). Returns the list of folders written.
    """
    out_dir = Path(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise UsageError(f"{out_dir} exists and is not a folder")
        if any(out_dir.iterdir()):
            raise UsageError(f"{out_dir} is not empty: write generated cases to a new "
                             "or empty folder")
    folders = []
    for case in cases:
        folder = out_dir / case.name
        write_case(case, folder)
        folders.append(folder)
    return folders


# --- running our programs ------------------------------------------------------------

def _program_main(script):
    """``main(argv) -> exit code`` of the program behind ``script``, for in-process runs."""
    if script == "tictactoe.py":
        from ..programs.tictactoe import main
        return main
    if script == "tmmorris.py":
        from ..programs.morris import main
        return main
    if script == "TakeStones":
        from ..programs.take_stones import main
        return lambda argv: main(argv, fast_exit=False)
    if script == "homework.py":
        from ..programs.stake_raid import main
        return lambda argv: main(argv, fast_exit=False)
    raise ValueError(f"no in-process entry point for {script!r}")


def run_in_process(case):
    """Run our program on ``case`` inside this process; return its Outcome.

    The program's ``main`` is called with the case's arguments in a fresh temporary
    folder (made the working folder for the call), with ``sys.stdout``/``sys.stderr``
    captured as bytes. Not thread-safe (it swaps process-wide state), and meant for our
    own programs only, which read no environment and leave no global state that changes
    their output. Not for Stake/Raid's COMPETITION mode, which reads the process's CPU
    clock (generated cases never use it).
    """
    main = _program_main(case.program)
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="gradecase-") as workdir:
        prepare(case, workdir)
        stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n", write_through=True)
        stderr = io.TextIOWrapper(err, encoding="utf-8", newline="\n", write_through=True)
        try:
            os.chdir(workdir)
            sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
            sys.stdout, sys.stderr = stdout, stderr
            try:
                code = main(list(case.args))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            stdout.flush()
            stderr.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved[:3]
            os.chdir(saved[3])
        files = snapshot(workdir)
        stdout_bytes, stderr_bytes = out.getvalue(), err.getvalue()
        stdout.detach()
        stderr.detach()
    return Outcome(code, stdout_bytes, stderr_bytes, files)


def run_in_subprocess(case, python=None):
    """Run our program on ``case`` as a grader would, in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="gradecase-") as workdir:
        return run_reference(case, workdir, python=python)


# --- tic-tac-toe ---------------------------------------------------------------------

def reachable_positions(game, root):
    """Every position reachable from ``root`` (terminal ones included), sorted."""
    seen = {root}
    frontier = [root]
    while frontier:
        following = []
        for position in frontier:
            if game.is_terminal(position):
                continue
            for _, child in game.successors(position):
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        frontier = following
    return sorted(seen)


@functools.lru_cache(maxsize=None)
def tictactoe_positions():
    """Every position reachable from the blank board (terminal ones included), sorted."""
    return reachable_positions(TicTacToe(), "-" * 9)


def _tictactoe_mode_args(board, mode):
    """Arguments for ``board`` in ``mode``: 'minimax', 'prune' or a PLY (int)."""
    if mode == "minimax":
        return [board, VISITED]
    if mode == "prune":
        return [board, VISITED, "prune"]
    return [board, VISITED, "prune", str(mode)]


def _mode_label(mode):
    return mode if isinstance(mode, str) else f"prune-ply{mode}"


def _tictactoe_edges(rng):
    game = TicTacToe()
    positions = tictactoe_positions()
    open_ = [b for b in positions if not game.is_terminal(b)]
    blank = "-" * 9
    for mode in ("minimax", "prune", 2, 1, 9):
        yield f"blank-{_mode_label(mode)}", _tictactoe_mode_args(blank, mode), {}
    near_full = [b for b in open_ if b.count("-") == 1]
    two_left = [b for b in open_ if b.count("-") == 2]
    yield "near-full-minimax", _tictactoe_mode_args(rng.choice(near_full), "minimax"), {}
    yield "near-full-prune", _tictactoe_mode_args(rng.choice(two_left), "prune"), {}
    yield "near-full-prune-ply1", _tictactoe_mode_args(rng.choice(two_left), 1), {}
    terminal = [b for b in positions if game.is_terminal(b)]
    x_won = [b for b in terminal if winner(b) == "x"]
    o_won = [b for b in terminal if winner(b) == "o"]
    drawn = [b for b in terminal if winner(b) is None]
    yield "terminal-x-won", _tictactoe_mode_args(rng.choice(x_won), "minimax"), {}
    yield "terminal-o-won-prune", _tictactoe_mode_args(rng.choice(o_won), "prune"), {}
    yield "terminal-full-board-prune-ply", _tictactoe_mode_args(rng.choice(drawn), 3), {}
    # The grader's own trap: with PLY, a terminal node above the cut-off is valued E(s).
    yield "win-above-cutoff-prune-ply3", _tictactoe_mode_args("ooxxx----", 3), {}
    middle = [b for b in open_ if b.count("-") in (4, 5, 6)]
    for mode in ("minimax", "prune", 2):
        yield f"midgame-{_mode_label(mode)}", _tictactoe_mode_args(rng.choice(middle), mode), {}
    o_to_move = [b for b in open_ if not game.is_maxs_turn(b) and b.count("-") >= 4]
    yield "o-to-move-prune", _tictactoe_mode_args(rng.choice(o_to_move), "prune"), {}


def _tictactoe_random(rng):
    game = TicTacToe()
    board = rng.choice(tictactoe_positions())
    if game.is_terminal(board):
        return None
    modes = ["minimax", "prune"] + list(range(1, 10))
    mode = rng.choice(modes)
    return f"random-{_mode_label(mode)}", _tictactoe_mode_args(board, mode), {}


# --- Three Men's Morris --------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def morris_positions():
    """Every (board, turn) reachable from the blank board with x first, sorted."""
    return reachable_positions(Morris(), ("-" * 9, "x"))


def _morris_args(position, ply):
    return [position[0], VISITED, str(ply), position[1]]


def _morris_edges(rng):
    game = Morris()
    solved = solve()
    blank = ("-" * 9, "x")
    for ply in (1, 2, 7, 1000000):
        yield f"blank-ply{ply}", _morris_args(blank, ply), {}
    positions = morris_positions()
    open_ = [p for p in positions if not game.is_terminal(p)]
    placement = [p for p in open_ if 0 < p[0].count("x") + p[0].count("o") < 6]
    movement = [p for p in open_ if p[0].count("x") == p[0].count("o") == 3]
    yield "placement-ply2", _morris_args(rng.choice(placement), 2), {}
    yield "movement-ply1", _morris_args(rng.choice(movement), 1), {}
    yield "movement-ply3", _morris_args(rng.choice(movement), 3), {}

    def wins_at_once(position):
        return any(line_owner(child) == position[1] for _, child in morris_moves(*position))

    def must_block(position):
        """The side to move cannot win at once, but the other side threatens to."""
        board, turn = position
        other = "o" if turn == "x" else "x"
        return not wins_at_once(position) and wins_at_once((board, other))

    yield ("immediate-win-ply2",
           _morris_args(rng.choice([p for p in open_ if wins_at_once(p)]), 2), {})
    yield "must-block-ply2", _morris_args(rng.choice([p for p in open_ if must_block(p)]), 2), {}
    won = [p for p in open_ if solved[p[0] + p[1]][0] > 0 and solved[p[0] + p[1]][1] >= 3]
    drawn = [p for p in movement if solved[p[0] + p[1]][0] == 0]
    yield "won-ply7", _morris_args(rng.choice(won), 7), {}
    yield "drawn-ply8", _morris_args(rng.choice(drawn), 8), {}
    yield "won-large-ply", _morris_args(rng.choice(won), 1000000), {}
    terminal = [p for p in positions if game.is_terminal(p)]
    lined = [p for p in terminal if line_owner(p[0]) is not None]
    blocked = [p for p in terminal if line_owner(p[0]) is None]
    yield "terminal-line", _morris_args(rng.choice(lined), 3), {}
    yield "terminal-blocked", _morris_args(rng.choice(blocked), 5), {}


def _morris_random(rng):
    position = rng.choice(morris_positions())
    if Morris().is_terminal(position):
        return None
    ply = rng.choice([1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 10, 50, 1000000])
    return f"random-ply{ply}", _morris_args(position, ply), {}


# --- Take-Stones ---------------------------------------------------------------------

def take_stones_nodes(n, taken, depth):
    """Number of nodes our Take-Stones search visits for ``n taken depth`` (the root
    included), or None when it passes TAKE_STONES_MAX_NODES.

    Counted by the search itself, with a "clock" that counts its own readings (the
    search reads it once per ``check_every`` nodes), so the answer is the same on
    every machine.
    """
    game = TakeStones(n)
    state = game.replay_history(taken)
    readings = [0]
    check_every = 64

    def clock():
        readings[0] += 1
        return readings[0]

    limit = depth or n + 1
    try:
        result = search(game, state, prune=True, depth=limit, window=(-1000, 1000),
                        deadline=TAKE_STONES_MAX_NODES // check_every + 1, clock=clock,
                        check_every=check_every)
    except SearchTimeout:
        return None
    if result.stats.nodes > TAKE_STONES_MAX_NODES:
        return None
    return result.stats.nodes


def random_history(n, length, rng, first_rule=True):
    """Up to ``length`` stones taken by random legal play from a new game of ``n``
    (stops early when the player to move has no stone)."""
    game = TakeStones(n)
    state = game.initial_state()
    taken = []
    for _ in range(length):
        choices = game.actions(state)
        if not first_rule and not taken:
            choices = list(range(1, n + 1))
        if not choices:
            break
        stone = rng.choice(choices)
        taken.append(stone)
        state = game.result(state, stone)
    return taken


def _take_stones_args(n, taken, depth):
    return [str(n), str(len(taken))] + [str(s) for s in taken] + [str(depth)]


def _game_over_history(n, rng, max_to_move):
    """A legal history of ``n`` stones that ends the game with Max (or Min) to move."""
    game = TakeStones(n)
    for _ in range(200):
        taken = random_history(n, n, rng)
        if not taken or (len(taken) % 2 == 0) != max_to_move:
            continue
        if game.is_terminal(game.replay_history(taken)):
            return taken
    return None


def _take_stones_edges(rng):
    def small(label, n, taken, depth):
        if take_stones_nodes(n, taken, depth) is not None:
            return [(label, _take_stones_args(n, taken, depth), {})]
        return []

    # The official samples' shapes first.
    for label, n, taken, depth in (("mid-game-depth3", 7, [1, 4, 2], 3),
                                   ("new-game-depth3", 7, [], 3),
                                   ("first-move-depth2", 7, [1], 2),
                                   ("history-from-even-depth4", 10, [4, 2, 6], 4)):
        yield from small(label, n, taken, depth)
    for max_to_move, label in ((True, "game-over-max-to-move"), (False, "game-over-min-to-move")):
        taken = _game_over_history(rng.randrange(6, 13), rng, max_to_move) or []
        if taken:
            n = max(max(taken), 6)
            yield label, _take_stones_args(n, taken, rng.randrange(0, 4)), {}
    yield "game-over-new-n1", _take_stones_args(1, [], 0), {}
    yield "game-over-new-n2", _take_stones_args(2, [], 3), {}
    for depth in range(0, 7):
        n = rng.randrange(12, 21)
        taken = random_history(n, rng.randrange(1, 4), rng)
        if not TakeStones(n).is_terminal(TakeStones(n).replay_history(taken)):
            yield from small(f"depth{depth}", n, taken, depth)
    yield from small("depth-beyond-end", 9, random_history(9, 3, rng), 20)
    # New games across the range of n: to the end while the output stays small, then
    # the deepest depth that keeps it small (the random cases fill the gaps).
    for n in (3, 4, 5, 6, 7, 8, 11, 13, 16, 17, 20, 24, 28, 30):
        if take_stones_nodes(n, [], 0) is not None:
            yield f"new-n{n}-to-end", _take_stones_args(n, [], 0), {}
        else:
            for depth in range(6, 0, -1):
                if take_stones_nodes(n, [], depth) is not None:
                    yield f"new-n{n}-depth{depth}", _take_stones_args(n, [], depth), {}
                    break


def _take_stones_random(rng):
    n = rng.randrange(1, 31)
    taken = random_history(n, rng.randrange(0, max(1, n // 2)), rng)
    depth = rng.randrange(0, 7)
    if take_stones_nodes(n, taken, depth) is None:
        return None
    label = f"random-n{n}-k{len(taken)}-depth{depth}"
    game = TakeStones(n)
    if game.is_terminal(game.replay_history(taken)):
        label += "-game-over"
    return label, _take_stones_args(n, taken, depth), {}


# --- Stake/Raid ----------------------------------------------------------------------

def stake_raid_input(size, mode, player, depth, values, board):
    """The text of input.txt (LF line endings, as the assignment's examples)."""
    lines = [str(size), mode, player, str(depth)]
    lines += [" ".join(str(v) for v in values[r * size:(r + 1) * size]) for r in range(size)]
    lines += board
    return "\n".join(lines) + "\n"


def stake_raid_estimate(board, depth):
    """An upper bound of the nodes a search of ``depth`` visits on ``board`` (rows of
    X, O, .): each empty square is at most one Stake and one Raid."""
    empty = sum(row.count(".") for row in board)
    total = level = 1
    for ply in range(min(depth, empty)):
        level *= 2 * (empty - ply)
        total += level
    return total


def _deepest(board, mode, cap=8):
    """The largest depth <= ``cap`` whose estimate fits the budget of ``mode``."""
    depth = 1
    while depth < cap and stake_raid_estimate(board, depth + 1) <= STAKE_RAID_MAX_NODES[mode]:
        depth += 1
    return depth


def _random_board(size, rng, fill_percent):
    """Rows of X, O, . with about ``fill_percent`` % pieces and at least one empty."""
    cells = []
    for _ in range(size * size):
        if rng.randrange(100) < fill_percent:
            cells.append(rng.choice("XO"))
        else:
            cells.append(".")
    if "." not in cells:
        cells[rng.randrange(size * size)] = "."
    return ["".join(cells[r * size:(r + 1) * size]) for r in range(size)]


def _stake_raid_case(label, size, mode, player, depth, values, board):
    return label, [], {"input.txt": stake_raid_input(size, mode, player, depth, values,
                                                     board).encode()}


def _stake_raid_edges(rng):
    def values(size, low=1, high=100):
        return [rng.randrange(low, high) for _ in range(size * size)]

    # The assignment's own size first: 5x5, both modes, both sides.
    board = _random_board(5, rng, 40)
    v = values(5)
    yield _stake_raid_case("5x5-minimax-x", 5, "MINIMAX", "X", 2, v, board)
    yield _stake_raid_case("5x5-alphabeta-o", 5, "ALPHABETA", "O", 3, v, board)
    # A Stake and a Raid with the same value: the Stake, first in the order, is the move.
    v = [1] * 9
    v[1], v[2], v[6] = 1, 1, 3   # Raid B1 gains 1 + 2*1, Stake A3 gains 3
    yield _stake_raid_case("tie-stake-raid", 3, "MINIMAX", "X", 1, v,
                           ["X.O", "...", "..."])
    yield _stake_raid_case("tie-stake-raid-as-o-alphabeta", 3, "ALPHABETA", "O", 1, v,
                           ["O.X", "...", "..."])
    equal = rng.randrange(1, 100)
    board = _random_board(6, rng, 30)
    yield _stake_raid_case("ties-equal-values-minimax", 6, "MINIMAX", "X", 2, [equal] * 36, board)
    yield _stake_raid_case("ties-equal-values-alphabeta-o", 6, "ALPHABETA", "O", 3,
                           [equal] * 36, board)
    yield _stake_raid_case("n1-minimax", 1, "MINIMAX", "X", 1, values(1), ["."])
    yield _stake_raid_case("n1-alphabeta-depth-beyond", 1, "ALPHABETA", "O", 4, values(1), ["."])
    board = _random_board(4, rng, 100)
    cells = [i for i in range(16)]
    rng.shuffle(cells)
    board = list(board)
    for cell in cells[:3]:
        row, column = divmod(cell, 4)
        board[row] = board[row][:column] + "." + board[row][column + 1:]
    yield _stake_raid_case("depth-beyond-empties-minimax", 4, "MINIMAX", "O", 6, values(4), board)
    yield _stake_raid_case("depth-beyond-empties-alphabeta", 4, "ALPHABETA", "X", 9, values(4),
                           board)
    board = _random_board(26, rng, 50)
    yield _stake_raid_case("n26-minimax-depth1", 26, "MINIMAX", "O", 1, values(26), board)
    board = _random_board(26, rng, 97)
    yield _stake_raid_case("n26-alphabeta", 26, "ALPHABETA", "X",
                           _deepest(board, "ALPHABETA", 3), values(26), board)
    yield _stake_raid_case("empty-board-alphabeta", 4, "ALPHABETA", "X", 3, values(4),
                           ["...."] * 4)


def _stake_raid_random(rng):
    size = rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 10, 12, 16, 20, 26])
    fill = rng.choice([0, 20, 40, 60, 80, 95])
    board = _random_board(size, rng, fill)
    mode = rng.choice(["MINIMAX", "ALPHABETA"])
    player = rng.choice("XO")
    if rng.randrange(5) == 0:
        values = [rng.randrange(1, 100)] * (size * size)   # ties everywhere
        kind = "equal-values"
    else:
        values = [rng.randrange(1, 100) for _ in range(size * size)]
        kind = "random"
    deepest = _deepest(board, mode)
    empty = sum(row.count(".") for row in board)
    if deepest >= empty and rng.randrange(3) == 0:
        depth = empty + rng.randrange(1, 4)      # deeper than the game lasts
    else:
        depth = rng.randrange(1, deepest + 1)
    label = f"{kind}-n{size}-{mode.lower()}-{player.lower()}-depth{depth}"
    return _stake_raid_case(label, size, mode, player, depth, values, board)


_FAMILIES = {
    "tictactoe": (_tictactoe_edges, _tictactoe_random),
    "tmmorris": (_morris_edges, _morris_random),
    "take_stones": (_take_stones_edges, _take_stones_random),
    "stake_raid": (_stake_raid_edges, _stake_raid_random),
}
