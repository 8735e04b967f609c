"""COMPETITION strategies of Stake/Raid: legality, the swing order, the agent's horizon,
the exact endgame, the settings it hands the search and the strategy choice of
homework.py."""

import io
import itertools
import os
import random
import subprocess
import sys
import time

import pytest

from engine.games.stake_raid import EMPTY, MAX, MIN, RAID, StakeRaid
from engine.iterative import iterative_deepening
from engine.programs.stake_raid import agent as agents
from engine.programs.stake_raid import homework
from engine.search import ExactSearch, SelectiveSearch, TableSearch, TranspositionTable, search
from engine.selective import Selective

AGENT = agents.AGENT
ENDGAME_CELLS = AGENT.endgame_cells

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def random_state(rng, n, empties, mover=MAX):
    game = StakeRaid(n, [rng.randint(1, 99) for _ in range(n * n)])
    cells = [EMPTY] * (n * n)
    for cell in rng.sample(range(n * n), n * n - empties):
        cells[cell] = rng.choice((MAX, MIN))
    return game, game.initial_state(bytes(cells), mover)


@pytest.mark.parametrize("name", sorted(agents.STRATEGIES))
def test_every_strategy_plays_a_legal_move(name):
    rng = random.Random(name)
    deep = name.startswith("depth") and int(name[5:]) > 3
    for n, empties in ((1, 1), (3, 4), (3, 6) if deep else (5, 17)):
        game, state = random_state(rng, n, empties)
        action, child = agents.STRATEGIES[name](game, state, 5.0)
        assert action in game.actions(state)
        assert child == game.play(state, action)


def test_no_time_means_the_greedy_move():
    game, state = random_state(random.Random(3), 6, 20)
    assert agents.agent(game, state, 0.0) == agents.greedy(game, state)


def random_position(rng):
    n = rng.randint(1, 7)
    # Some small values make ties and near-ties common.
    game = agents.HorizonGame(n, [rng.choice((rng.randint(1, 99), rng.randint(1, 3)))
                                  for _ in range(n * n)], rng.choice((1, 0.5, 0.7)))
    cells = [EMPTY] * (n * n)
    for cell in rng.sample(range(n * n), n * n - rng.randint(1, n * n)):
        cells[cell] = rng.choice((MAX, MIN))
    return game, game.initial_state(bytes(cells), rng.choice((MAX, MIN)))


def test_the_horizon_picks_the_best_child_without_visiting_every_move():
    """The first best child of the plain horizon (every child's score, in the spec's
    order), valued at the score plus the weighted gain unless it fills the board."""
    rng = random.Random(17)
    for _ in range(600):
        game, state = random_position(rng)
        plain = StakeRaid(game.size, game.values)
        actions, values = plain.horizon_values(state)
        values = list(values)
        best = (max if state[2] == MAX else min)(values)
        [action], [value] = game.horizon_values(state)
        assert action == actions[values.index(best)]
        if state[0].count(EMPTY) > 1:
            best = state[1] + (best - state[1]) * game.gain_weight
        assert value == best


def test_the_horizon_adds_a_share_of_the_gain_but_values_the_last_move_exactly():
    rng = random.Random(19)
    for _ in range(200):
        game, state = random_state(rng, 4, rng.randint(1, 6), rng.choice((MAX, MIN)))
        horizon = agents.HorizonGame(game.size, game.values, 0.5)
        best = (max if state[2] == MAX else min)(
            child[1] for _, child in game.successors(state))
        [_], [value] = horizon.horizon_values(state)
        if state[0].count(EMPTY) == 1:
            assert value == best            # the move fills the board: its real score
        else:
            assert value == state[1] + (best - state[1]) / 2
        # a search to the end of the game stays exact
        assert iterative_deepening(horizon, state, SelectiveSearch(
            hooks=Selective(expand=agents.swing_expand(horizon)), depth=state[0].count(EMPTY),
            table=TranspositionTable())).value == search(game, state).value


def test_top_moves_are_the_head_of_the_full_swing_order():
    rng = random.Random(23)
    for _ in range(600):
        game, state = random_position(rng)
        cells, _, mover = state
        order = agents.SwingOrder(game)
        every = order.sorted_moves(cells, mover)
        assert sorted(every) == sorted(action for action, _ in game.successors(state))
        for count in (1, 3, 8):
            assert order.top_moves(cells, mover, count) == every[:count]


def test_swing_expand_prefers_blocking_a_big_raid():
    # MAX's 90 at A1 is threatened by MIN through B1; the block (B1) comes first.
    game = StakeRaid(3, [90, 5, 1, 1, 1, 1, 1, 1, 30])
    cells = bytes([MAX, EMPTY, MIN] + [EMPTY] * 6)
    state = game.initial_state(cells, MAX)
    expand = agents.swing_expand(game, beam=3)
    root = list(expand(state, None, 0))
    assert root[0][0] == 1 + RAID            # the Raid of B1 blocks and flips C1
    assert root[1][0] == 1                   # the Stake of B1 still blocks
    # every move at the root, each with its true child
    assert sorted(root) == sorted(game.successors(state))
    # an endgame (7 empty squares) is never pruned
    assert len(list(expand(state, None, 1))) == len(root)


def test_swing_expand_puts_the_table_move_first_and_prunes_below_the_root():
    rng = random.Random(5)
    game, state = random_state(rng, 6, ENDGAME_CELLS + 10)
    children = game.successors(state)
    hint = children[-1][0]
    expand = agents.swing_expand(game, beam=4)
    root = list(expand(state, hint, 0))
    assert root[0][0] == hint and sorted(root) == sorted(children)
    below = list(expand(state, hint, 2))
    assert below == root[:4]


def outcome(value, mover):
    """1, 0 or -1: the game's result for ``mover`` given its final score (MAX's side)."""
    value = value if mover == MAX else -value
    return (value > 0) - (value < 0)


@pytest.mark.parametrize("seed", range(8))
def test_agent_keeps_the_outcome_of_the_endgame(seed):
    rng = random.Random(seed)
    game, state = random_state(rng, 4, 7, rng.choice((MAX, MIN)))
    action, child = agents.agent(game, state, 60.0)
    exact = search(game, state, ExactSearch(prune=True)).value
    found = search(game, child, ExactSearch(prune=True)).value
    # a won (drawn) game stays won (drawn); a lost one is played for the best score,
    # exactly (7 empty squares are within ENDGAME_CELLS)
    assert outcome(found, state[2]) == outcome(exact, state[2])
    if outcome(exact, state[2]) < 0:
        assert found == exact


@pytest.mark.parametrize("seed", range(6))
def test_solve_outcome_proves_what_a_full_search_finds(seed):
    rng = random.Random(seed)
    game, state = random_state(rng, 4, 8, rng.choice((MAX, MIN)))
    game = agents.HorizonGame(game.size, game.values)
    exact = search(game, state, TableSearch(prune=True, table=TranspositionTable())).value
    solved = agents.solve_outcome(game, state, time.process_time() + 60,
                                  time.process_time, TranspositionTable())
    expected = outcome(exact, state[2])
    if expected < 0:
        assert solved == ("loss", None, None)
    else:
        assert solved[0] == ("win" if expected > 0 else "draw")
        assert solved[2] == game.play(state, solved[1])
        assert outcome(search(game, solved[2], TableSearch(prune=True,
                                                           table=TranspositionTable())).value,
                       state[2]) == expected


def test_solve_outcome_gives_up_at_the_deadline():
    rng = random.Random(3)
    game, state = random_state(rng, 6, 20)
    ticks = iter(range(10 ** 6))
    assert agents.solve_outcome(agents.HorizonGame(game.size, game.values), state, 5,
                                lambda: next(ticks), TranspositionTable()) is None


def test_homework_strategy_from_option_and_environment(tmp_path):
    (tmp_path / "input.txt").write_text(
        "3\nCOMPETITION\nX\n5.0\n1 1 1\n1 1 1\n1 1 99\nX..\n...\n...\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    outputs = {}
    for how in (["--strategy", "depth1"], ["--strategy=greedy"], []):
        subprocess.run([sys.executable, os.path.join(ROOT, "homework.py")] + how,
                       cwd=tmp_path, check=True, env=dict(env, STAKE_RAID_STRATEGY="depth2"))
        outputs[" ".join(how)] = (tmp_path / "output.txt").read_text()
    assert outputs["--strategy depth1"].startswith("C3 Stake")
    bad = subprocess.run([sys.executable, os.path.join(ROOT, "homework.py")], cwd=tmp_path,
                         env=dict(env, STAKE_RAID_STRATEGY="nope"), capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "STAKE_RAID_STRATEGY" in bad.stderr


def test_unknown_strategy_option_exits_2(tmp_path):
    process = subprocess.run([sys.executable, os.path.join(ROOT, "homework.py"),
                              "--strategy", "nope"], cwd=tmp_path, capture_output=True,
                             text=True)
    assert process.returncode == 2 and "unknown strategy 'nope'" in process.stderr


def test_the_retired_arena_points_at_the_tournament(tmp_path):
    """``stake_raid arena`` (the unsandboxed referee) is gone: one line naming its
    replacement, exit 2, no traceback, nothing played."""
    process = subprocess.run([sys.executable, "-m", "engine", "stake_raid", "arena", "agent",
                              "greedy"], cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "tournament sprt stake_raid" in process.stderr


def test_expand_hook_replaces_successors_and_order():
    """engine.selective's ``expand``: the same children give the same search; fewer
    children are all the search visits."""
    rng = random.Random(8)
    game, state = random_state(rng, 4, 9)
    plain = search(game, state, ExactSearch(prune=True, depth=4))
    calls = []

    def same(node, hint, depth):
        calls.append(depth)
        return game.successors(node)

    hooked = search(game, state, SelectiveSearch(hooks=Selective(expand=same), prune=True, depth=4))
    assert (hooked.value, hooked.action, hooked.stats.nodes) == \
        (plain.value, plain.action, plain.stats.nodes)
    assert calls and min(calls) == 0

    def first_two(node, hint, depth):
        return game.successors(node)[:2]

    pruned = search(game, state, SelectiveSearch(hooks=Selective(expand=first_two), prune=True,
                                                 depth=4))
    assert pruned.action in [a for a, _ in game.successors(state)[:2]]
    assert pruned.stats.nodes < plain.stats.nodes


def test_deepening_stops_when_the_next_iteration_would_not_finish():
    from engine.iterative import Iteration
    now = [0.0]
    stop = agents._unlikely_to_finish(0.0, 1.0, clock=lambda: now[0])
    # 0.1 s, then 0.3 s (growth 3): at 0.4 s the next one would take 0.9 s -> 1.3 > 1.0
    now[0] = 0.1
    assert not stop(Iteration(1, None, 0.1))        # 0.1 + 0.1 * 6 (no growth yet) = 0.7
    now[0] = 0.4
    assert stop(Iteration(2, None, 0.3))
    # a slow growth lets the next one start
    stop = agents._unlikely_to_finish(0.0, 1.0, clock=lambda: now[0])
    now[0] = 0.05
    stop(Iteration(1, None, 0.05))
    now[0] = 0.12
    assert not stop(Iteration(2, None, 0.07))       # 0.12 + 0.07 * 1.5 = 0.225


def test_the_opponents_nodes_can_have_their_own_beam():
    rng = random.Random(8)
    game, ours = random_state(rng, 6, ENDGAME_CELLS + 12)
    # The agent plays MAX: a node is the opponent's when MIN moves there, at any depth
    # (late-move reductions change the depth's parity).
    theirs = (ours[0], ours[1], MIN)
    for depth in (1, 2, 3):
        expand = agents.swing_expand(game, beam=3, opponent_beam=6)
        assert len(list(expand(ours, None, depth))) == 3
        assert len(list(expand(theirs, None, depth))) == 6
    every = agents.swing_expand(game, beam=3, opponent_beam=0)
    assert len(list(every(theirs, None, 1))) == len(game.successors(theirs))


def fixed_depth_positions(seed, count, depth, **options):
    """Positions visited by the agent's deepening (beam 8, with the selective ``options``)
    to ``depth`` on ``count`` random 6x6 positions, summed; each search must reach
    ``depth`` with a legal move."""
    from engine.programs.stake_raid.player import BoundedTable

    rng = random.Random(seed)
    nodes = 0
    for _ in range(count):
        game, state = random_state(rng, 6, ENDGAME_CELLS + 14)
        horizon = agents.HorizonGame(game.size, game.values)
        selective = Selective(expand=agents.swing_expand(horizon, beam=8), **options)
        result = iterative_deepening(horizon, state, SelectiveSearch(hooks=selective, depth=depth,
                                                                     table=BoundedTable(10 ** 5)))
        assert result.depth == depth
        assert result.action in [a for a, _ in game.successors(state)]
        nodes += result.stats.nodes
    return nodes


def test_late_move_reductions_reach_the_same_depth_with_fewer_positions():
    assert (fixed_depth_positions(31, 6, 6, reduce=(2, 2))
            < 0.8 * fixed_depth_positions(31, 6, 6))


def selectivity(monkeypatch, game, state, **settings):
    """The Selective that ``agents.agent(game, state, 30.0, AGENT.but(**settings))`` hands
    the deepening (which is replaced by a stub that records it and stops the agent)."""
    seen = {}

    def deepening(game, state, options, **rest):
        seen["options"] = options
        raise StopIteration

    monkeypatch.setattr(agents, "iterative_deepening", deepening)
    with pytest.raises(StopIteration):
        agents.agent(game, state, 30.0, settings=AGENT.but(**settings))
    return seen["options"].hooks


def test_the_agent_passes_its_reductions_to_the_search(monkeypatch):
    game, state = random_state(random.Random(3), 6, 20)
    assert selectivity(monkeypatch, game, state, reduce_after=3,
                       reduce_plies=2).reduce == (3, 2)
    assert selectivity(monkeypatch, game, state, reduce_plies=0).reduce is None
    # none in the endgame, which must be solved exactly
    _, endgame = random_state(random.Random(4), 6, ENDGAME_CELLS)
    seen = selectivity(monkeypatch, game, endgame, reduce_after=3, reduce_plies=2,
                       solve_cells=0)
    assert seen.reduce is None
    # score bounds in the endgame only
    assert seen.bounds is not None
    assert selectivity(monkeypatch, game, state).bounds is None


def test_the_agent_passes_probcut_to_the_search_outside_the_endgame(monkeypatch):
    game, state = random_state(random.Random(3), 6, 20)
    seen = selectivity(monkeypatch, game, state, probcut_left=5, probcut_plies=4,
                       probcut_margin=30)
    assert seen.probcut == (5, 4, 30)
    assert selectivity(monkeypatch, game, state, probcut_plies=0).probcut is None
    _, endgame = random_state(random.Random(4), 6, ENDGAME_CELLS)
    seen = selectivity(monkeypatch, game, endgame, solve_cells=0, probcut_plies=4)
    assert seen.probcut is None


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("board, said", [
    # O to move and well ahead: the first move in swing order (the top row's Stake
    # next to X, which blocks its Raid) wins
    ("X..\nO..\nOOO\n", "homework.py: solved to the end: B1 Stake wins"),
    # O has everything but one square: every move loses
    ("XXX\nXXX\nXX.\n", "homework.py: solved to the end: every move loses")])
def test_homework_tells_a_watching_person_how_the_solve_ended(monkeypatch, board, said):
    problem = homework.parse_input("3\nCOMPETITION\nO\n10.0\n" + "5 5 5\n" * 3 + board)
    shown = Terminal()
    monkeypatch.setattr(sys, "stderr", shown)
    started = time.process_time()     # a run of its own: its CPU clock starts at 0
    homework.choose(problem, clock=lambda: time.process_time() - started)
    assert said in shown.getvalue()


def test_a_slower_start_up_is_kept_for_every_later_run(monkeypatch):
    """On a machine where each run of homework.py spends 0.3 s before its search (over
    three times AGENT_STARTUP_COST), a whole 5x5 game as X on a clock that barely
    covers those start-ups never runs out: the agent keeps STARTUP_MARGIN times its own
    start-up for each later run. With the fixed reserve alone it runs out."""
    def play_game():
        game, state = random_state(random.Random(11), 5, 25)
        startup, left = 0.3, 13 * 0.3 + 1.5
        ticks = itertools.count()
        clock = lambda: next(ticks) * 0.01  # noqa: E731
        while not game.is_terminal(state):
            if state[2] == MAX:
                before = clock()
                _, state = agents.agent(game, state, left, clock=clock, spent=startup)
                left -= startup + clock() - before
                if left <= 0:
                    return left
            else:
                _, state = agents.greedy(game, state)
        return left

    assert agents.startup_reserve(0.3) > 0.3
    assert play_game() > 0
    monkeypatch.setattr(agents, "STARTUP_MARGIN", 0.0)
    assert agents.startup_reserve(0.3) == agents.AGENT_STARTUP_COST
    assert play_game() <= 0


@pytest.mark.parametrize("colour", ["X", "O"])
def test_the_tuning_series_can_play_one_colour_only(colour):
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "bench_stake_raid_tuning.py"),
         "greedy", "greedy", "--pairs", "3", "--sizes", "3,4", "--jobs", "1",
         "--only", colour], capture_output=True, text=True, timeout=120, check=True)
    games = [line for line in result.stdout.splitlines() if ": margin " in line]
    assert [line.split(":")[0] for line in games] == \
        [f"3x3 A {colour}", f"4x4 A {colour}", f"3x3 A {colour}"]
    other = "O" if colour == "X" else "X"
    assert f"as {other} -," in result.stdout or f"as {other} -;" in result.stdout


def test_max_depth_makes_the_agent_a_fixed_depth_search():
    game, state = random_state(random.Random(12), 6, 24)
    reached = []
    action, child = agents.agent(game, state, 1e6,
                                 settings=AGENT.but(overrun=0, solve_cells=0, max_depth=4),
                                 on_iteration=reached.append)
    assert [iteration.depth for iteration in reached] == [1, 2, 3, 4]
    assert (action, child) == (reached[-1].result.action, reached[-1].result.child)


def test_the_search_benchmark_reaches_its_depths_and_prints_a_digest():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "bench_stake_raid_search.py"),
         "--sizes", "6", "--runs", "1"], capture_output=True, text=True, timeout=120,
        check=True)
    lines = result.stdout.splitlines()
    rows = [line.split() for line in lines[1:-1]]
    assert [row[0] for row in rows] == ["6", "6"]
    assert all(row[2] == str(bench_depth(6)) for row in rows)
    assert lines[-1].startswith("total: ") and " digest " in lines[-1]


def bench_depth(size):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import bench_stake_raid_search
    finally:
        sys.path.pop(0)
    return bench_stake_raid_search.DEPTHS[size]
