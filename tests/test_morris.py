"""Three Men's Morris (issue 5): rules, exact values, perfect play, invariants, CLI, play.

The oracle below is an INDEPENDENT retrograde analysis written in this file (its own
coordinates, move generator, win test and a round-by-round fixpoint instead of the
game module's predecessor-driven BFS). The program is checked against it.
"""

import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from engine.games.morris import (DECISIVE_HORIZON, LONGEST_FORCED_WIN, Morris,
                                 MorrisLookahead, WIN, EVAL_LIMIT, line_owner, moves, solve)
from engine.programs.morris.play import parse_move, play
from engine.programs.morris import main
from engine.programs.morris.lookahead import best_move
from engine.search import ExactSearch, search
from engine.trace import TraceRecorder
from thoroughness import examples

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --- the oracle ---------------------------------------------------------------------------


def oracle_children(board, side):
    """Boards after each legal move of ``side`` (order irrelevant to the oracle)."""
    grid = [list(board[r * 3:r * 3 + 3]) for r in range(3)]
    mine = [(r, c) for r in range(3) for c in range(3) if grid[r][c] == side]
    empty = [(r, c) for r in range(3) for c in range(3) if grid[r][c] == "-"]
    out = []
    if len(mine) < 3:
        for r, c in empty:
            out.append(board[:r * 3 + c] + side + board[r * 3 + c + 1:])
        return out
    for r, c in mine:
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r2, c2 = r + dr, c + dc
            if 0 <= r2 < 3 and 0 <= c2 < 3 and grid[r2][c2] == "-":
                cells = list(board)
                cells[r * 3 + c], cells[r2 * 3 + c2] = "-", side
                out.append("".join(cells))
    return out


def oracle_has_line(board, side):
    rows = any(all(board[r * 3 + c] == side for c in range(3)) for r in range(3))
    columns = any(all(board[r * 3 + c] == side for r in range(3)) for c in range(3))
    return rows or columns


def build_oracle():
    """{(board, side): (+1 win / -1 loss / 0 draw for side, plies)} by a fixpoint."""
    import itertools
    boards = ["".join(cells) for cells in itertools.product("xo-", repeat=9)
              if cells.count("x") <= 3 and cells.count("o") <= 3]
    other = {"x": "o", "o": "x"}
    value, children = {}, {}
    for board in boards:
        for side in "xo":
            x_line, o_line = oracle_has_line(board, "x"), oracle_has_line(board, "o")
            kids = oracle_children(board, side)
            if x_line or o_line:
                if x_line and o_line:
                    value[board, side] = (0, 0)
                else:
                    value[board, side] = (1 if (x_line == (side == "x")) else -1, 0)
            elif not kids:
                value[board, side] = (-1, 0)
            else:
                children[board, side] = [(kid, other[side]) for kid in kids]
    rounds = 0
    while True:
        rounds += 1
        found = {}
        for position, kids in children.items():
            if position in value:
                continue
            known = [value.get(kid) for kid in kids]
            if any(v is not None and v[0] == -1 for v in known):
                found[position] = (1, 1 + min(v[1] for v in known if v and v[0] == -1))
            elif all(v is not None and v[0] == 1 for v in known):
                found[position] = (-1, 1 + max(v[1] for v in known))
        if not found:
            break
        value.update(found)
    for position in children:
        value.setdefault(position, (0, 0))   # never decided: endless play repeats = draw
    return value


@pytest.fixture(scope="module")
def oracle():
    return build_oracle()


def non_terminal(oracle):
    game = Morris()
    return sorted(p for p in oracle if game.terminal_value(p) is None)


# --- rules -----------------------------------------------------------------------------

def test_placement_order_and_slides_order():
    assert [a for a, _ in moves("x-o------", "x")] == [1, 3, 4, 5, 6, 7, 8]
    # x on 0, 4, 8: slides by origin then destination in raster order.
    assert [a for a, _ in moves("x---x---x", "x")] == [
        (0, 1), (0, 3), (4, 1), (4, 3), (4, 5), (4, 7), (8, 5), (8, 7)]
    # o still places (2 pieces) while x, with 3, slides.
    assert all(isinstance(a, int) for a, _ in moves("xxo-x-o--", "o"))


def test_lines_rows_and_columns_only():
    assert line_owner("xxx------") == "x"
    assert line_owner("o--o--o--") == "o"
    assert line_owner("x---x---x") is None       # diagonals do not count
    assert line_owner("--x-x-x--") is None


def test_blocked_side_loses():
    game = Morris()
    positions = [(key[:9], key[9]) for key in solve()]
    blocked = [p for p in positions if line_owner(p[0]) is None and not moves(*p)]
    assert blocked, "some position leaves the side to move without a move"
    for position in blocked:
        assert game.terminal_value(position) == (-1 if position[1] == "x" else 1)


# --- exact values ------------------------------------------------------------------------

def test_solver_matches_independent_oracle(oracle):
    assert {(key[:9], key[9]): value for key, value in solve().items()} == oracle


def test_longest_forced_win_constant(oracle):
    assert LONGEST_FORCED_WIN == max(plies for outcome, plies in oracle.values() if outcome)
    assert DECISIVE_HORIZON == LONGEST_FORCED_WIN + 1
    assert WIN - DECISIVE_HORIZON > EVAL_LIMIT


def test_empty_board_is_a_draw(oracle):
    assert oracle["---------", "x"] == (0, 0)
    assert oracle["---------", "o"] == (0, 0)


def chosen_is_perfect(oracle, board, turn, child):
    """Won -> child lost for the opponent; drawn -> child not won for the opponent."""
    root_outcome = oracle[board, turn][0]
    child_outcome = oracle[child, "o" if turn == "x" else "x"][0]
    if root_outcome == 1:
        return child_outcome == -1
    if root_outcome == 0:
        return child_outcome <= 0
    return True


def test_perfect_play_with_large_ply_sample(oracle):
    positions = non_terminal(oracle)
    rng = random.Random(5)
    game = MorrisLookahead()
    for board, turn in rng.sample(positions, 250):
        result = best_move(board, turn, 1000000, game=game)
        assert chosen_is_perfect(oracle, board, turn, result.child[0]), (board, turn)


@pytest.mark.slow
def test_perfect_play_with_large_ply_everywhere(oracle):
    game = MorrisLookahead()
    for board, turn in non_terminal(oracle):
        result = best_move(board, turn, 1000000, game=game)
        assert chosen_is_perfect(oracle, board, turn, result.child[0]), (board, turn)


class BlindLookahead(MorrisLookahead):
    """The program's game with a know-nothing evaluation (always 0)."""

    def evaluate(self, node):
        return 0


@pytest.mark.slow
def test_decisive_horizon_is_enough_without_knowledge(oracle):
    """The depth cap's argument: depth 7 plays perfectly whatever the evaluation."""
    positions = non_terminal(oracle)
    rng = random.Random(7)
    game = BlindLookahead()
    for board, turn in rng.sample(positions, 200):
        result = search(game, game.root(board, turn), ExactSearch(depth=DECISIVE_HORIZON))
        assert chosen_is_perfect(oracle, board, turn, result.child[0]), (board, turn)


@pytest.mark.slow
def test_decisive_horizon_is_enough_without_knowledge_everywhere(oracle):
    game = BlindLookahead()
    for board, turn in non_terminal(oracle):
        result = search(game, game.root(board, turn), ExactSearch(depth=DECISIVE_HORIZON))
        assert chosen_is_perfect(oracle, board, turn, result.child[0]), (board, turn)


def test_alphabeta_chooses_minimax_move(oracle):
    positions = non_terminal(oracle)
    rng = random.Random(3)
    game = MorrisLookahead()
    for board, turn in rng.sample(positions, 60):
        for depth in (1, 2, 3):
            root = game.root(board, turn)
            pruned = search(game, root, ExactSearch(prune=True, depth=depth))
            full = search(game, root, ExactSearch(prune=False, depth=depth))
            assert (pruned.action, pruned.value) == (full.action, full.value)


# --- invariants (property tests) ---------------------------------------------------------

@st.composite
def legal_positions(draw):
    cells = list("x" * draw(st.integers(0, 3)) + "o" * draw(st.integers(0, 3)))
    cells += ["-"] * (9 - len(cells))
    order = draw(st.permutations(cells))
    return "".join(order), draw(st.sampled_from("xo"))


GAME = MorrisLookahead()


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(legal_positions(), st.sampled_from([1, 2, 3, 4, 10, 1000000]))
def test_move_is_legal_and_tactically_sound(position, ply):
    board, turn = position
    other = "o" if turn == "x" else "x"
    if GAME.terminal_value(GAME.root(board, turn)) is not None:
        assert best_move(board, turn, ply, game=GAME) is None
        return
    child = best_move(board, turn, ply, game=GAME).child[0]
    children = oracle_children(board, turn)
    assert child in children
    winning = [kid for kid in children if oracle_has_line(kid, turn)]
    if winning:
        assert oracle_has_line(child, turn)
        return
    if ply >= 2:
        def opponent_wins_at_once(kid):
            return any(oracle_has_line(grand, other) for grand in oracle_children(kid, other))
        safe = [kid for kid in children if not opponent_wins_at_once(kid)]
        if safe:
            assert child in safe


# --- the program as graders run it ------------------------------------------------------

def run_cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, os.path.join(REPO, "tmmorris.py")] + args,
                          cwd=cwd, capture_output=True, text=True, env=env)


class Listing(TraceRecorder):
    def leave(self, node, action, depth, value, alpha, beta, kind):
        if depth:
            self.chunks.append(f"{node[0]} {value}\n")


def test_ply_one_lists_children_in_spec_order(tmp_path):
    board, turn = "xo-o-x-x-", "o"
    done = run_cli([board, "v.txt", "1", turn], tmp_path)
    assert done.returncode == 0
    listed = [line.split()[0] for line in (tmp_path / "v.txt").read_text().splitlines()]
    assert listed == [kid for _, kid in moves(board, turn)]


def test_large_ply_equals_decisive_horizon(tmp_path):
    board, turn = "xo-ox-o-x", "o"
    outputs = []
    for ply in ("7", "1000000"):
        done = run_cli([board, f"v{ply}.txt", ply, turn], tmp_path)
        outputs.append((done.stdout, (tmp_path / f"v{ply}.txt").read_text()))
    assert outputs[0] == outputs[1]


def test_terminal_input_prints_and_writes_nothing(tmp_path):
    # A line for either side, or the side to move blocked (x on 0, 1, 3 boxed in).
    for board, turn in (("xxx-o-o--", "o"), ("o--o--o-x", "x"), ("xxoxo-o--", "x")):
        done = run_cli([board, "v.txt", "3", turn], tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert not (tmp_path / "v.txt").exists()


@pytest.mark.parametrize("args", [
    [], ["---------", "v.txt", "1"], ["---------", "v.txt", "1", "x", "extra"],
    ["--------", "v.txt", "1", "x"], ["---------a", "v.txt", "1", "x"],
    ["xxxx-----", "v.txt", "1", "o"], ["-ooooo---", "v.txt", "1", "x"],
    ["---------", "v.txt", "0", "x"], ["---------", "v.txt", "-3", "x"],
    ["---------", "v.txt", "two", "x"], ["---------", "v.txt", "1.5", "x"],
    ["---------", "v.txt", "1", "X"], ["---------", "v.txt", "1", "-"],
])
def test_bad_input_exit_2_and_path_untouched(tmp_path, args):
    (tmp_path / "v.txt").write_text("keep me\n")
    done = run_cli(args, tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert (tmp_path / "v.txt").read_text() == "keep me\n"
    assert sorted(os.listdir(tmp_path)) == ["v.txt"]


def test_help(capsys):
    assert main(["--help"]) == 0
    assert "STATE PATH PLY TURN" in capsys.readouterr().out


# --- human play -------------------------------------------------------------------------

def test_parse_move_refuses_with_reasons():
    board = "xo-ox-o--"
    with pytest.raises(ValueError, match="taken"):
        parse_move("1", board, "x")
    with pytest.raises(ValueError, match="to place"):
        parse_move("3 6", board, "x")
    assert parse_move("9", board, "x") == 8
    full = "xo-ox-o-x"
    with pytest.raises(ValueError, match="slide one"):
        parse_move("3", full, "x")
    with pytest.raises(ValueError, match="not adjacent"):
        parse_move("1 9", full, "x")
    with pytest.raises(ValueError, match="does not hold"):
        parse_move("2 3", full, "x")
    assert parse_move("5-6", full, "x") == (4, 5)
    assert parse_move("56", full, "x") == (4, 5)


@pytest.mark.parametrize("human", ["x", "o"])
@pytest.mark.parametrize("seed", range(4))
def test_program_never_loses_to_a_random_player(human, seed):
    rng = random.Random(seed)
    transcript = []

    def write(text=""):
        transcript.extend(str(text).split("\n"))

    def read(prompt):
        # The person reads the board from the last rendering (its three rows).
        rows = [line for line in transcript if line.startswith("   ")][-3:]
        board = "".join(row.split()[i] for row in rows for i in range(3)).replace(".", "-")
        kids = [action for action, _ in moves(board, human)]
        action = rng.choice(kids)
        if isinstance(action, tuple):
            return f"{action[0] + 1} {action[1] + 1}"
        return str(action + 1)

    assert play(["--human", human], read=read, write=write) == 0
    verdict = transcript[-1]
    assert f"{human} wins" not in verdict and f"{human} has three" not in verdict, transcript
