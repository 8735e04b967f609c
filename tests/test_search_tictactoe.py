"""The engine's search on tic-tac-toe: node counts, minimax == alpha-beta, hooks."""

import pytest

from engine.games.tictactoe import TicTacToe, winner
from engine.search import (EVALUATED, INF, INTERIOR, TERMINAL, ExactSearch, Statistics,
                           TableSearch, TranspositionTable, search)
from engine.trace import TraceRecorder, Tracer

EMPTY = "-" * 9
GAME = TicTacToe()


def reachable_positions():
    """Every position reachable from the empty board (terminal ones included)."""
    seen = {EMPTY}
    frontier = [EMPTY]
    while frontier:
        board = frontier.pop()
        if GAME.terminal_value(board) is not None:
            continue
        for _, child in GAME.successors(board):
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


POSITIONS = reachable_positions()
NON_TERMINAL = sorted(b for b in POSITIONS if GAME.terminal_value(b) is None)


def test_reachable_position_counts():
    assert len(POSITIONS) == 5478
    assert len(NON_TERMINAL) == 4520


def test_node_counts_from_the_empty_board():
    assert search(GAME, EMPTY, ExactSearch(prune=False)).stats.nodes == 549_946
    assert search(GAME, EMPTY).stats.nodes == 18_297


def test_memo_keeps_node_counts_exact():
    stats = search(GAME, EMPTY, ExactSearch(prune=False, memo={})).stats
    assert stats.nodes == 549_946 and stats.memo_hits > 0


def oracle_value(board):
    """Independent plain minimax value (test oracle, no pruning, no engine)."""
    won = winner(board)
    if won:
        return 1 if won == "x" else -1
    if "-" not in board:
        return 0
    mark = "x" if board.count("x") == board.count("o") else "o"
    values = [oracle_value(board[:i] + mark + board[i + 1:]) for i in range(9) if board[i] == "-"]
    return max(values) if mark == "x" else min(values)


@pytest.mark.slow
def test_minimax_values_match_an_independent_oracle():
    for board in NON_TERMINAL[::37]:
        assert search(GAME, board, ExactSearch(prune=False)).value == oracle_value(board), board


def test_alphabeta_agrees_with_minimax_on_every_reachable_position():
    memo_mm, memo_ab = {}, {}
    for board in NON_TERMINAL:
        plain = search(GAME, board, ExactSearch(prune=False, memo=memo_mm))
        pruned = search(GAME, board, ExactSearch(memo=memo_ab))
        assert (pruned.value, pruned.action) == (plain.value, plain.action), board


@pytest.mark.parametrize("ply", [1, 2, 3, 4])
def test_alphabeta_agrees_with_minimax_under_a_ply_limit(ply):
    game = TicTacToe(evaluate_terminals=True)
    for board in NON_TERMINAL[::11]:
        plain = search(game, board, ExactSearch(prune=False, depth=ply))
        pruned = search(game, board, ExactSearch(depth=ply))
        assert (pruned.value, pruned.action) == (plain.value, plain.action), board


@pytest.mark.slow
def test_transposition_table_gives_the_same_values():
    table = TranspositionTable()
    for board in NON_TERMINAL[::7]:
        assert search(GAME, board, TableSearch(table=table)).value == search(GAME, board,
                                                                             ExactSearch(prune=False)).value


class EventLog(Tracer):
    def __init__(self):
        self.events = []

    def enter(self, state, action, depth, alpha, beta):
        self.events.append(("enter", state, depth, alpha, beta))

    def leave(self, state, action, depth, value, alpha, beta, kind):
        self.events.append(("leave", state, depth, value, alpha, beta, kind))

    def pruned(self, state, depth, actions):
        self.events.append(("pruned", state, depth, tuple(actions)))


def test_tracer_sees_every_node_in_post_order_with_final_bounds():
    log = EventLog()
    result = search(GAME, "ooxxx----", ExactSearch(tracer=log))
    enters = [e for e in log.events if e[0] == "enter"]
    leaves = [e for e in log.events if e[0] == "leave"]
    assert len(enters) == len(leaves) == result.stats.nodes
    assert leaves[-1][1] == "ooxxx----" and leaves[-1][2] == 0  # the root leaves last
    assert {e[6] for e in leaves} <= {INTERIOR, TERMINAL}
    prunes = [i for i, e in enumerate(log.events) if e[0] == "pruned"]
    assert 0 < len(prunes) <= result.stats.cutoffs
    for i in prunes:
        parent, depth, actions = log.events[i][1:]
        # A cut is reported right before its node leaves: pruned children are never entered.
        assert log.events[i + 1][:3] == ("leave", parent, depth)
        assert actions == tuple(GAME.actions(parent)[-len(actions):])


def test_leaf_bounds_are_the_window_it_was_called_with():
    log = EventLog()
    search(GAME, "oxxxo-ox-", ExactSearch(tracer=log))
    stack = []
    for event in log.events:
        if event[0] == "enter":
            stack.append(event)
        elif event[0] == "leave":
            entered = stack.pop()
            if event[6] == TERMINAL:
                assert event[4:6] == entered[3:5]


def test_cut_off_evaluates_at_the_limit_and_counts_by_depth():
    game = TicTacToe(evaluate_terminals=True)
    stats = Statistics()
    result = search(game, EMPTY, ExactSearch(prune=False, depth=2), stats=stats)
    assert stats.evaluations == 72 and stats.evaluations_by_depth == {2: 72}
    assert result.stats is stats


class Lines(TraceRecorder):
    def leave(self, state, action, depth, value, alpha, beta, kind):
        self.chunks.append(f"{state} {value} {alpha} {beta} {kind}\n")


@pytest.mark.parametrize("prune", [pytest.param(False, marks=pytest.mark.slow), True])
def test_memo_replay_is_byte_identical_to_a_full_search(prune):
    for board in ("---------", "----x----", "--xxo-ox-", "ooxxx----"):
        full, replayed = Lines(), Lines()
        search(GAME, board, ExactSearch(prune=prune, tracer=full))
        search(GAME, board, ExactSearch(prune=prune, tracer=replayed, memo={}))
        assert replayed.text() == full.text()


def test_streaming_recorder_bounds_memory_and_keeps_the_bytes():
    full = Lines()
    search(GAME, EMPTY, ExactSearch(prune=True, tracer=full))
    pieces = []
    streamed = Lines(sink=pieces.append, flush_chunks=64, flush_chars=2000, max_segment=500)
    search(GAME, EMPTY, ExactSearch(prune=True, tracer=streamed, memo={}))
    streamed.flush()
    assert "".join(pieces) == full.text()
    assert max(len(piece) for piece in pieces) < len(full.text())


def test_window_sets_the_initial_value_and_bounds():
    log = EventLog()
    search(GAME, "oxxxo-ox-", ExactSearch(window=(-1000, 1000), tracer=log))
    root_enter = next(e for e in log.events if e[0] == "enter")
    assert root_enter[3:5] == (-1000, 1000)


def test_terminal_root_has_no_move():
    result = search(GAME, "xxxoo----")
    assert (result.value, result.action, result.child) == (1, None, None)


def test_depth_zero_root_is_evaluated():
    result = search(TicTacToe(evaluate_terminals=True), EMPTY, ExactSearch(depth=0))
    assert result.action is None and result.value == 0


def test_infinite_default_window():
    log = EventLog()
    search(GAME, "oxxxo-ox-", ExactSearch(tracer=log))
    assert log.events[0][3:5] == (-INF, INF)
    assert any(e[0] == "leave" and e[6] == TERMINAL for e in log.events)
    assert not any(e[0] == "leave" and e[6] == EVALUATED for e in log.events)
