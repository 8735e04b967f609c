"""COMPETITION strategies of Stake/Raid: legality, the swing order, the threat horizon,
the exact endgame and the strategy choice of homework.py."""

import io
import itertools
import os
import random
import subprocess
import sys
import time

import pytest

from engine.games import stake_raid_agents as agents
from engine.games.stake_raid import EMPTY, MAX, MIN, RAID, StakeRaid
from engine.programs import stake_raid as homework
from engine.iterative import iterative_deepening
from engine.search import TranspositionTable, search

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


def test_threat_horizon_without_weight_is_the_plain_horizon():
    rng = random.Random(11)
    for _ in range(20):
        game, state = random_state(rng, 5, rng.randint(1, 20), rng.choice((MAX, MIN)))
        plain = StakeRaid(game.size, game.values)
        threat = agents.ThreatGame(game.size, game.values, threat_weight=0)
        actions, values = plain.horizon_values(state)
        t_actions, t_values = threat.threat_values(state)
        values, t_values = list(values), list(t_values)
        assert t_values == values
        assert [t_actions[i] for i in range(len(values))] == \
            [actions[i] for i in range(len(values))]


def test_threat_horizon_charges_the_opponents_best_reply():
    # 1x3 board, values 10 50 1: MAX on the left, MIN to move on the right.
    game = agents.ThreatGame(3, [10, 50, 1, 1, 1, 1, 1, 1, 1], threat_weight=1)
    cells = bytes([MAX, EMPTY, MIN] + [EMPTY] * 6)
    state = game.initial_state(cells, MIN)
    actions, values = game.threat_values(state)
    values = list(values)
    score = 10 - 1
    # MIN's Stake on B1 (50) takes the best square: MAX's best reply is then a 1.
    stake_b1 = values[0]
    assert stake_b1 == score - 50 + 1
    # MIN's Stake on A2 (1) leaves B1 to MAX: a Raid there gains 50 + 2 * 1.
    stake_a2 = values[1]
    assert stake_a2 == score - 1 + 52


def threat_values_by_hand(game, state):
    """Every child's threat value, from its definition: the child's score less the
    weight times the opponent's best next gain on any other empty square."""
    cells, score, mover = state
    enemy = MAX + MIN - mover
    values, neighbours = game.values, game.neighbours
    replies = {}
    for cell in game.empties(cells):
        near = [cells[other] for other in neighbours[cell]]
        gain = values[cell]
        if enemy in near and mover in near:
            gain += 2 * sum(values[other] for other in neighbours[cell]
                            if cells[other] == mover)
        replies[cell] = gain
    sign = 1 if mover == MAX else -1
    found = []
    for action, child in game.successors(state):
        square = action - RAID if action >= RAID else action
        threat = max([gain for cell, gain in replies.items() if cell != square], default=0)
        found.append(score + sign * ((child[1] - score) * sign - game.threat_weight * threat))
    return found


def random_position(rng):
    n = rng.randint(1, 7)
    # Some small values make ties and near-ties common.
    game = agents.ThreatGame(n, [rng.choice((rng.randint(1, 99), rng.randint(1, 3)))
                                 for _ in range(n * n)], rng.choice((0, 0.3, 0.5, 1)),
                             rng.choice((1, 0.5, 0.7)))
    cells = [EMPTY] * (n * n)
    for cell in rng.sample(range(n * n), n * n - rng.randint(1, n * n)):
        cells[cell] = rng.choice((MAX, MIN))
    return game, game.initial_state(bytes(cells), rng.choice((MAX, MIN)))


def test_the_horizon_picks_the_best_threat_value_without_visiting_every_move():
    rng = random.Random(17)
    for _ in range(600):
        game, state = random_position(rng)
        expected = threat_values_by_hand(game, state)
        actions, values = game.threat_values(state)
        assert list(values) == expected
        [action], [value] = game.horizon_values(state)
        best = (max if state[2] == MAX else min)(expected)
        assert expected[[actions[i] for i in range(len(expected))].index(action)] == best
        if game.threat_weight == 0 and state[0].count(EMPTY) > 1:
            # only a share of the best gain (see the next test)
            best = state[1] + (best - state[1]) * game.gain_weight
        assert value == best


def test_the_horizon_adds_a_share_of_the_gain_but_values_the_last_move_exactly():
    rng = random.Random(19)
    for _ in range(200):
        game, state = random_state(rng, 4, rng.randint(1, 6), rng.choice((MAX, MIN)))
        threat = agents.ThreatGame(game.size, game.values, 0, 0.5)
        best = (max if state[2] == MAX else min)(
            child[1] for _, child in game.successors(state))
        [_], [value] = threat.horizon_values(state)
        if state[0].count(EMPTY) == 1:
            assert value == best            # the move fills the board: its real score
        else:
            assert value == state[1] + (best - state[1]) / 2
        # a search to the end of the game stays exact
        assert iterative_deepening(
            threat, state, max_depth=state[0].count(EMPTY), table=TranspositionTable(),
            expand=agents.swing_expand(threat)).value == search(game, state).value


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
    game, state = random_state(rng, 6, agents.ENDGAME_CELLS + 10)
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
    exact = search(game, state, prune=True).value
    found = search(game, child, prune=True).value
    # a won (drawn) game stays won (drawn); a lost one is played for the best score,
    # exactly (7 empty squares are within ENDGAME_CELLS)
    assert outcome(found, state[2]) == outcome(exact, state[2])
    if outcome(exact, state[2]) < 0:
        assert found == exact


@pytest.mark.parametrize("seed", range(6))
def test_solve_outcome_proves_what_a_full_search_finds(seed):
    rng = random.Random(seed)
    game, state = random_state(rng, 4, 8, rng.choice((MAX, MIN)))
    game = agents.ThreatGame(game.size, game.values)
    exact = search(game, state, prune=True, table=TranspositionTable()).value
    solved = agents.solve_outcome(game, state, time.process_time() + 60,
                                  time.process_time, TranspositionTable())
    expected = outcome(exact, state[2])
    if expected < 0:
        assert solved == ("loss", None, None)
    else:
        assert solved[0] == ("win" if expected > 0 else "draw")
        assert solved[2] == game.play(state, solved[1])
        assert outcome(search(game, solved[2], prune=True, table=TranspositionTable()).value,
                       state[2]) == expected


def test_solve_outcome_gives_up_at_the_deadline():
    rng = random.Random(3)
    game, state = random_state(rng, 6, 20)
    ticks = iter(range(10 ** 6))
    assert agents.solve_outcome(agents.ThreatGame(game.size, game.values), state, 5,
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


def test_expand_hook_replaces_successors_and_order():
    """engine.search's ``expand``: the same children give the same search; fewer
    children are all the search visits."""
    rng = random.Random(8)
    game, state = random_state(rng, 4, 9)
    plain = search(game, state, prune=True, depth=4)
    calls = []

    def same(node, hint, depth):
        calls.append(depth)
        return game.successors(node)

    hooked = search(game, state, prune=True, depth=4, expand=same)
    assert (hooked.value, hooked.action, hooked.stats.nodes) == \
        (plain.value, plain.action, plain.stats.nodes)
    assert calls and min(calls) == 0

    def first_two(node, hint, depth):
        return game.successors(node)[:2]

    pruned = search(game, state, prune=True, depth=4, expand=first_two)
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
    game, ours = random_state(rng, 6, agents.ENDGAME_CELLS + 12)
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
    """Positions visited by the agent's deepening (beam 8) to ``depth`` on ``count``
    random 6x6 positions, summed; each search must reach ``depth`` with a legal move."""
    from engine.games.stake_raid_player import BoundedTable

    rng = random.Random(seed)
    nodes = 0
    for _ in range(count):
        game, state = random_state(rng, 6, agents.ENDGAME_CELLS + 14)
        threat = agents.ThreatGame(game.size, game.values)
        result = iterative_deepening(threat, state, max_depth=depth,
                                     table=BoundedTable(10 ** 5),
                                     expand=agents.swing_expand(threat, beam=8), **options)
        assert result.depth == depth
        assert result.action in [a for a, _ in game.successors(state)]
        nodes += result.stats.nodes
    return nodes


def test_late_move_reductions_reach_the_same_depth_with_fewer_positions():
    assert (fixed_depth_positions(31, 6, 6, reduce=(2, 2))
            < 0.8 * fixed_depth_positions(31, 6, 6))


def search_options(monkeypatch, game, state, **settings):
    """The options ``agents.agent(game, state, 30.0, **settings)`` hands the deepening
    (which is replaced by a stub that records them and stops the agent)."""
    seen = {}

    def deepening(*args, **options):
        seen.update(options)
        raise StopIteration

    monkeypatch.setattr(agents, "iterative_deepening", deepening)
    with pytest.raises(StopIteration):
        agents.agent(game, state, 30.0, **settings)
    return seen


def test_the_agent_passes_its_reductions_to_the_search(monkeypatch):
    game, state = random_state(random.Random(3), 6, 20)
    seen = search_options(monkeypatch, game, state, reduce_after=3, reduce_plies=2)
    assert seen["reduce"] == (3, 2)
    seen = search_options(monkeypatch, game, state, reduce_plies=0)
    assert seen["reduce"] is None
    # none in the endgame, which must be solved exactly
    _, endgame = random_state(random.Random(4), 6, agents.ENDGAME_CELLS)
    seen = search_options(monkeypatch, game, endgame, reduce_after=3, reduce_plies=2,
                          solve_cells=0, null_move=2)
    assert seen["reduce"] is None and seen["null_move"] is None
    # score bounds in the endgame only, and only with the horizon they hold for
    assert seen["bounds"] is not None
    seen = search_options(monkeypatch, game, endgame, solve_cells=0, threat_weight=0.5)
    assert seen["bounds"] is None
    # null-move pruning: off by default (measured, not kept), passed on when asked for
    seen = search_options(monkeypatch, game, state)
    assert not seen["null_move"] and seen["bounds"] is None
    seen = search_options(monkeypatch, game, state, null_move=2)
    assert seen["null_move"] == 2


def test_the_agent_passes_probcut_to_the_search_outside_the_endgame(monkeypatch):
    game, state = random_state(random.Random(3), 6, 20)
    seen = search_options(monkeypatch, game, state, probcut_left=5, probcut_plies=4,
                          probcut_margin=30)
    assert seen["probcut"] == (5, 4, 30)
    seen = search_options(monkeypatch, game, state, probcut_plies=0)
    assert seen["probcut"] is None
    _, endgame = random_state(random.Random(4), 6, agents.ENDGAME_CELLS)
    seen = search_options(monkeypatch, game, endgame, solve_cells=0, probcut_plies=4)
    assert seen["probcut"] is None


def test_a_pass_keeps_the_board_and_hands_over_the_move():
    game, state = random_state(random.Random(5), 5, 12)
    cells, score, mover = state
    assert game.pass_turn(state) == (cells, score, 3 - mover)
    assert game.pass_turn(game.pass_turn(state)) == state


def test_null_move_pruning_saves_positions_at_a_fixed_depth():
    # Moving nearly always beats passing here: where even a pass fails high, the node
    # is cut without searching its moves.
    assert (fixed_depth_positions(17, 4, 7, null_move=2)
            < fixed_depth_positions(17, 4, 7))


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
    action, child = agents.agent(game, state, 1e6, overrun=0, solve_cells=0, max_depth=4,
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
