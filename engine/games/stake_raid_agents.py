"""COMPETITION strategies of Stake/Raid: the agent homework.py plays, and sparring partners.

Every strategy is a function ``(game, state, seconds_left, clock, spent) -> (action,
child)`` for a non-terminal ``state`` (MAX to move), with ``seconds_left`` the CPU time
left for the whole game (line 4 of input.txt) and ``spent`` the CPU time this run used
before the call. :data:`STRATEGIES` names them; homework.py picks one with
``--strategy NAME`` or the ``STAKE_RAID_STRATEGY`` environment variable, so an arena can
run every one of them as a real program:

* ``agent``    (the default) the tournament agent: iterative-deepening alpha-beta over
               the engine's one search, with "swing" move ordering (what a square gains
               the mover plus what it denies the opponent), forward pruning of the
               weakest moves below the root (none in the endgame, which it solves
               exactly), late-move reductions within the beam, ProbCut (a node
               cut when a search a few plies shallower clears the window's edge by
               a margin; not in the endgame either), a horizon valued
               without building its children (:class:`ThreatGame`), an iterative
               deepening that stops when the next iteration would not finish in time,
               a bounded table, and the time manager of :mod:`.stake_raid_player`;
               from SOLVE_CELLS empty squares on, first an exact win/draw/loss solve.
* ``classic``  the earlier agent: iterative deepening over every move, children ordered
               by their score (:func:`.stake_raid_player.competition_move`).
* ``greedy``   the move with the best immediate score, no search.
* ``depthD``   the grader's ALPHABETA at a fixed depth D (1..9), whatever the clock.
"""

import time
from itertools import compress, islice
from operator import itemgetter

from ..errors import SearchTimeout
from ..iterative import iterative_deepening
from ..search import search
from .stake_raid import (EMPTY, MAX, MIN, NEIGHBOURHOODS, RAID, HorizonActions, StakeRaid,
                         code_table)
from .stake_raid_player import (FINISH, FINISH_FRACTION, BoundedTable, competition_move,
                                greedy_move, move_budget, moves_left, usable_seconds)

DEFAULT_STRATEGY = "agent"

# Memory for the agent's transposition table (bytes, as BoundedTable estimates them; the
# real cost is higher, about 460 bytes an entry on 12x12). With the remembered move
# lists of swing_expand, a 9 s search on 12x12 peaked at 158 MB with 120 MB here and
# 200,000 lists: both were lowered to stay under 200 MB on the longest moves.
AGENT_TABLE_BYTES = 80 * 1024 * 1024
# CPU seconds reserved for each later run of homework.py (start-up, imports, output):
# measured 0.055-0.066 s on an idle machine, more under load; the agent keeps a margin.
AGENT_STARTUP_COST = 0.09
# ... or, when more, this many times what this run spent before its search (``spent``:
# start-up and parsing): on a slower or busier machine every run costs more than here,
# and a fixed reserve would run the game's clock out in its last moves. Here a run
# spends 0.050-0.064 s before its search, so the reserve stays 0.09 s.
STARTUP_MARGIN = 1.4
# Forward pruning: below the root a node searches at most this many of its moves, the
# best by swing (the root always searches them all).
BEAM = 8
# Late-move reductions (engine.search's ``reduce``): below the root, the moves after the
# first REDUCE_AFTER are searched REDUCE_PLIES shallower first, and again at full depth
# only if they look better. Two plies, not one: a value one ply shallower comes from the
# other side's horizon and differs by the last mover's gain. With beam 8 they halve the
# positions of a fixed-depth search; against classic they scored as well as beam 5
# without them at equal time and better against 10x its time (docs/stake_raid_log.md).
REDUCE_AFTER = 3
REDUCE_PLIES = 2
# ... except with this many empty squares or fewer: the end is searched in full (exact
# once the deepening reaches the last move).
ENDGAME_CELLS = 10
# With this many empty squares or fewer, the agent first tries to solve the game
# exactly: is there a move that wins (or at least draws) whatever the opponent does?
# Only the outcome counts in a tournament, and a null-window solve of it is several
# times cheaper than the exact score. On positions of real games a solve from 16
# empty squares took a median 1.9 s (80% within 3.7 s) and from 17 about 4.3 s, more
# when the game is close, before solve_expand built children lazily (1.7 times faster
# since). A close game on 5x5 is decided in that stretch, where the deepening's pruned
# search sees too little. The attempt may spend this share of the time left.
SOLVE_CELLS = 16
SOLVE_SHARE = 0.5
# Null-move pruning (engine.search's ``null_move``): a node where even passing would
# reach the window's edge is cut after a search this many plies shallower (a move
# always gains something here; never in the endgame). 0: off. With 2, a fixed-depth
# search visited 15% fewer positions with the same answers, but games showed no gain
# (docs/stake_raid_log.md), so it stays a setting for the benches.
NULL_MOVE = 0
# ProbCut (engine.search's ``probcut``): a node with at least PROBCUT_LEFT plies left is
# first searched PROBCUT_PLIES shallower, and cut when that reaches PROBCUT_MARGIN
# beyond the side to move's edge of the window (never in the endgame). 0 plies: off.
# Four plies keep the horizon's side to move. On 112 positions of the agent's games
# (6x6 to 12x12), the value of a search 4 plies shallower was off by 13 points on
# average (the deeper one higher for the side to move) with a spread of 34. With a
# margin of 40 the agent scored 68% of the points against itself without ProbCut (200
# games, 3 s a side, 6x6 to 10x10); 60 scored 50% against 40 there, but guesses less
# often, and did better against the proxy in the arena (75.8% over three series; 40
# scored 70% on the first one's boards), while at equal time the two are within the
# noise (88.9% and 90.4% on the same 140 boards; docs/stake_raid_log.md).
PROBCUT_LEFT = 6
PROBCUT_PLIES = 4
PROBCUT_MARGIN = 60
# Each move may spend this many times its equal share of the time left (see move_budget).
SHARE = 2.0
# Iterative deepening stops when the next iteration is expected to end beyond this
# multiple of the move's time (the deadline still stops it at 1.0); the growth of
# iteration times is taken from the last two iterations, within these bounds.
OVERRUN = 1.2
GROWTH_BOUNDS = (1.5, 6.0)
# How much of the opponent's best reply gain a horizon value takes off (see ThreatGame).
# Measured against classic at equal time (docs/stake_raid_log.md): 0 scored best,
# 0.5 and 0.75 worse; with 0 the horizon is the best immediate gain of the side to move.
THREAT_WEIGHT = 0.0
# How much of the side to move's best gain a horizon value adds (see ThreatGame). The
# full gain flatters whoever moves on the horizon: values of odd and even depths differ
# by 100-300 points. Half of it scored 56% and 57% of the points against the full gain
# (two series of 200 games, 2 s a game each, sizes 5..10); 0.6 52%, 0.7 58%, 0.35 50%
# (docs/stake_raid_log.md, "Head to head").
GAIN_WEIGHT = 0.5

# bytes.translate tables over the mover's neighbourhood codes (StakeRaid.neighbourhoods):
# the empty squares where the mover's Raid flips something, those next to an enemy
# piece (where the enemy may raid, so their swing is more than twice their value), and
# the other empty squares.
_RAIDABLE = code_table(lambda occupied, digits:
                       not occupied and 1 in digits and 2 in digits)
_NEAR_ENEMY = code_table(lambda occupied, digits: not occupied and 2 in digits)
_AWAY_FROM_ENEMY = code_table(lambda occupied, digits: not occupied and 2 not in digits)


class ValueOrder:
    """The squares of a board from the most valuable down (row-major among equals)."""

    def __init__(self, values):
        self.cells = tuple(sorted(range(len(values)), key=lambda cell: -values[cell]))
        # Reads a board's codes in that order in one C call, so that the empty squares
        # are found with tuple.index instead of a Python loop over the board.
        self._codes = (itemgetter(*self.cells) if len(self.cells) > 1
                       else lambda board: (board[0],))

    def flagged(self, flags):
        """The squares whose byte in ``flags`` is not 0, in this order, one at a time
        (found in C: ``flags`` is read in this order and compressed)."""
        return compress(self.cells, self._codes(flags))

    def first_empty(self, board):
        """The most valuable empty square of ``board``, or None when it is full."""
        try:
            return self.cells[self._codes(board).index(EMPTY)]
        except ValueError:
            return None

    def empties(self, board):
        """The empty squares of ``board`` in this order, one at a time."""
        codes, cells = self._codes(board), self.cells
        index = -1
        while True:
            try:
                index = codes.index(EMPTY, index + 1)
            except ValueError:
                return
            yield cells[index]


class ThreatGame(StakeRaid):
    """Stake/Raid with a horizon that sees the reply coming (same rules, same moves).

    The plain cut-off value is the score after the last move, which flatters whoever
    moved last: the opponent's Raid one move later is invisible. Here a child on the
    cut-off is valued at its score minus ``threat_weight`` times the best gain the
    opponent could take next (its best Raid or Stake), the square just taken excluded.
    (Flips made by the move itself are not re-examined: an estimate, cheap enough for
    every horizon node.) :meth:`threat_values` lists that value for every child;
    :meth:`horizon_values` gives only the best child, found without visiting the others.
    With ``threat_weight`` 0 (the agent's), that best child is valued at the score plus
    ``gain_weight`` times its gain: the opponent's reply is not looked at, but it will
    take back part of it. A child that ends the game is always valued at its score.
    ``evaluate`` stays the score.
    """

    def __init__(self, size, values, threat_weight=THREAT_WEIGHT, gain_weight=GAIN_WEIGHT):
        super().__init__(size, values)
        self.threat_weight = threat_weight
        self.gain_weight = gain_weight
        self.value_order = ValueOrder(self.values)
        # What a Raid gains on a square with a given neighbourhood, found the first time
        # that pair is met: cell * NEIGHBOURHOODS + code (as SwingOrder's table).
        self._raid_gain_by_code = [None] * (self.area * NEIGHBOURHOODS)

    def _raid_gain(self, cell, code):
        """What the mover's Raid of empty ``cell`` gains, its neighbours holding ``code``:
        the square's value and twice that of each enemy piece it flips."""
        return self.values[cell] + 2 * self.values_by_holder(cell, code)[1]

    def best_empties(self, cells, count=3):
        """Up to ``count`` empty squares, the most valuable first (row-major among equals)."""
        return list(islice(self.value_order.empties(cells), count))

    def _raid_gains(self, cells, mover):
        """{square: what ``mover``'s Raid there gains} for every flipping Raid, row-major
        (found by neighbourhood code, each (square, code) pair's gain worked out once)."""
        codes = self.neighbourhoods(cells, mover)
        known = self._raid_gain_by_code
        gains = {}
        for cell in compress(self.cell_range, codes.translate(_RAIDABLE)):
            index = cell * NEIGHBOURHOODS + codes[cell]
            gain = known[index]
            if gain is None:
                gain = known[index] = self._raid_gain(cell, codes[cell])
            gains[cell] = gain
        return gains

    def _threats(self, cells, mover, enemy, top):
        """(best, its square, second best): the opponent's two best next gains on two
        different squares. A Raid gains at least what the Stake on its square does, so
        the best two are among its Raids and the three most valuable empty squares."""
        values = self.values
        gains = {cell: values[cell] for cell in top}
        gains.update(self._raid_gains(cells, enemy))
        best = second = 0
        best_cell = -1
        for cell, gain in gains.items():
            if gain > second:
                if gain > best:
                    best, second, best_cell = gain, best, cell
                else:
                    second = gain
        return best, best_cell, second

    def horizon_values(self, state):
        """([action], [value]): the best child on the cut-off for the side to move, by
        :meth:`threat_values`, found among the mover's Raids, its two most valuable
        Stakes and the Stake that blocks the opponent's best square: every other Stake
        is charged the opponent's best gain and is worth less than one of those."""
        cells, score, mover = state
        enemy = MAX + MIN - mover
        values = self.values
        sign = 1 if mover == MAX else -1
        weight = self.threat_weight
        if not weight:
            # The opponent's reply is not looked at: the best child is the most
            # valuable Stake or a Raid gaining more (the first of equals, as below),
            # its gain weighted unless it fills the board (the endgame stays exact).
            # The loop of _raid_gains, inlined: building its dict at every horizon
            # node made the search benchmark 3% slower.
            chosen = self.value_order.first_empty(cells)
            chosen_gain = values[chosen]
            codes = self.neighbourhoods(cells, mover)
            gains = self._raid_gain_by_code
            for cell in compress(self.cell_range, codes.translate(_RAIDABLE)):
                index = cell * NEIGHBOURHOODS + codes[cell]
                gain = gains[index]
                if gain is None:
                    gain = gains[index] = self._raid_gain(cell, codes[cell])
                if gain > chosen_gain:
                    chosen, chosen_gain = cell + RAID, gain
            if cells.count(EMPTY) > 1:
                chosen_gain *= self.gain_weight
            return [chosen], [score + sign * chosen_gain]
        top = self.best_empties(cells)
        best, best_cell, second = self._threats(cells, mover, enemy, top)
        stakes = top if best_cell < 0 or best_cell in top else top + [best_cell]
        chosen, chosen_gain = None, None
        for action, cell, gain in ([(cell, cell, values[cell]) for cell in stakes]
                                   + [(cell + RAID, cell, gain) for cell, gain in
                                      self._raid_gains(cells, mover).items()]):
            net = gain - weight * (second if cell == best_cell else best)
            if chosen_gain is None or net > chosen_gain:
                chosen, chosen_gain = action, net
        return [chosen], [score + sign * chosen_gain]

    def threat_values(self, state):
        """(actions, values) of every child on the cut-off, in visit order: the child's
        score less ``threat_weight`` times the opponent's best next gain elsewhere."""
        cells, score, mover = state
        actions = HorizonActions(self, cells, mover, self.empties(cells))
        return actions, self._threat_iter(actions, score)

    def _threat_iter(self, actions, score):
        cells, mover, empties = actions.cells, actions.mover, actions.empties
        values = self.values
        enemy = MAX + MIN - mover
        best, best_cell, second = self._threats(cells, mover, enemy,
                                                self.best_empties(cells))
        weight = self.threat_weight
        sign = 1 if mover == MAX else -1
        for cell in empties:
            threat = second if cell == best_cell else best
            yield score + sign * (values[cell] - weight * threat)
        raid_gains = self._raid_gains(cells, mover)
        for target in actions.raid_targets():
            threat = second if target == best_cell else best
            yield score + sign * (raid_gains[target] - weight * threat)


def classic(game, state, seconds_left, clock=time.process_time, spent=0.0,
            on_iteration=None):
    """The earlier agent, unchanged (see competition_move)."""
    move = competition_move(game, state, seconds_left, clock=clock, spent=spent,
                            on_iteration=on_iteration)
    return move.action, move.child


def greedy(game, state, seconds_left=0.0, clock=time.process_time, spent=0.0):
    """The first move with the best immediate score."""
    return greedy_move(game, state)


def fixed_depth(depth):
    """A strategy: the grader's ALPHABETA at ``depth`` (no clock at all)."""
    def play(game, state, seconds_left=0.0, clock=time.process_time, spent=0.0):
        result = search(game, state, prune=True, depth=depth)
        return result.action, result.child
    play.__doc__ = f"ALPHABETA at depth {depth}."
    return play


def swing_expand(game, beam=BEAM, remember=50000, opponent_beam=None,
                 endgame_cells=ENDGAME_CELLS):
    """An ``expand`` hook for engine.search: the children of a node by swing, best
    first, the table's move first; below the root only the ``beam`` best are built.

    The swing of a move onto square t is what it gains the mover plus what t would have
    given the opponent next. A Stake gains t's value; a Raid (t next to pieces of both
    sides) also flips the enemy pieces next to t, worth twice their values. The
    opponent would get t's value too, plus twice the mover's pieces next to t when it
    has a piece there (its Raid). So Stakes that block a big Raid rank beside the
    mover's own Raids. Equal swings keep the spec's visit order (Stakes, then Raids,
    row-major). With ``endgame_cells`` empty squares or fewer nothing is pruned.
    Keys are computed from the board alone: no child state is made for a pruned move,
    nor for a move the search never reaches (the children come from a generator: a
    node cut after its first child or two builds only those), and below the root only
    the squares next to an enemy piece and the most valuable other squares are looked
    at (:func:`top_moves`). The moves of up to ``remember`` positions are kept:
    iterative deepening expands the same nodes again at every depth. ``opponent_beam``
    (default ``beam``; 0: no pruning) is the beam of the nodes where the root's
    opponent moves.
    """
    signed = game.signed
    play = game.play
    ordering = SwingOrder(game)
    known = {}

    if opponent_beam is None:
        opponent_beam = beam

    def expand(state, hint, depth):
        cells, score, mover = state
        enemy = MAX + MIN - mover
        # The agent always plays MAX (homework.py's YOUPLAY); not the depth's parity,
        # which late-move reductions change.
        width = opponent_beam if mover == MIN else beam
        entry = known.get(state)
        if entry is None:
            if len(known) >= remember:
                known.clear()
            entry = known[state] = [cells.count(EMPTY), None, None]
        empty_count = entry[0]
        prune = bool(depth > 0 and width and empty_count > endgame_cells)
        if prune and entry[1] is None and entry[2] is None:
            entry[2] = ordering.top_moves(cells, mover, width)
        elif not prune and entry[1] is None:
            entry[1] = ordering.sorted_moves(cells, mover)
        # entry: [empty squares, every move in order, the head of that order]
        actions = list(entry[1] if entry[1] is not None else entry[2])
        if hint is not None:
            if hint in actions:
                actions.remove(hint)
                actions.insert(0, hint)
            elif prune:
                actions.insert(0, hint)
        if prune and len(actions) > width:
            del actions[width:]
        return _children(state, actions, bytes([mover]), signed[mover], enemy, play)

    return expand


def solve_expand(game):
    """An ``expand`` hook for a search to the end of the game (solve_outcome): every
    move in swing order (see swing_expand), the table's move first, each child built
    only when the search reaches it. A null-window solve cuts most nodes after a move
    or two, and nodes are rarely seen twice, so neither the children nor the orders are
    kept."""
    signed = game.signed
    play = game.play
    sorted_moves = SwingOrder(game).sorted_moves

    def expand(state, hint, depth):
        cells, score, mover = state
        enemy = MAX + MIN - mover
        actions = sorted_moves(cells, mover)
        if hint is not None and hint in actions:
            actions.remove(hint)
            actions.insert(0, hint)
        return _children(state, actions, bytes([mover]), signed[mover], enemy, play)

    return expand


def _children(state, actions, piece, gains, enemy, play):
    """(action, child) of each of ``actions`` in turn, made when asked for."""
    cells, score = state[0], state[1]
    for action in actions:
        if action < RAID:
            yield action, (cells[:action] + piece + cells[action + 1:],
                           score + gains[action], enemy)
        else:
            yield action, play(state, action)


class SwingOrder:
    """The swing keys of swing_expand for one board's values (see its doc)."""

    def __init__(self, game):
        self.game = game
        self.values = game.values
        self.value_order = ValueOrder(game.values)
        # [(key, action)] of the moves onto a square with a given neighbourhood, made
        # the first time that pair is met (most never are): cell * NEIGHBOURHOODS + code.
        self._moves_by_code = [None] * (len(game.values) * NEIGHBOURHOODS)

    def _keyed(self, codes, squares):
        """[(key, action)] of the Stakes and Raids onto ``squares`` (empty), given the
        board's neighbourhood codes as the mover sees them."""
        table, width = self._moves_by_code, NEIGHBOURHOODS
        keyed = []
        for cell in squares:
            code = codes[cell]
            index = cell * width + code
            moves = table[index]
            if moves is None:
                moves = table[index] = self._square_moves(cell, code)
            keyed += moves
        return keyed

    def _square_moves(self, cell, code):
        """[(key, action)] onto empty ``cell`` whose neighbours hold ``code`` (see
        StakeRaid.neighbourhoods): its Stake, and its Raid when that flips something."""
        mine, theirs = self.game.values_by_holder(cell, code)
        value = self.values[cell]
        if not (mine and theirs):
            return ((-2 * value, cell),)
        return ((-2 * (value + mine), cell), (-2 * (value + mine + theirs), cell + RAID))

    def sorted_moves(self, cells, mover):
        """Every move, sorted by swing. Equal keys: the tuples compare the action second,
        and Stakes (< RAID) come before Raids, each row-major: the spec's visit order."""
        game = self.game
        keyed = self._keyed(game.neighbourhoods(cells, mover), game.empties(cells))
        keyed.sort()
        return [item[1] for item in keyed]

    def top_moves(self, cells, mover, count):
        """The first ``count`` moves of :meth:`sorted_moves`, found from the squares
        next to an enemy piece (the only ones whose key is not minus twice their value)
        and the ``count`` most valuable other empty squares."""
        codes = self.game.neighbourhoods(cells, mover)
        near_enemy = compress(self.game.cell_range, codes.translate(_NEAR_ENEMY))
        keyed = self._keyed(codes, near_enemy)
        values = self.values
        others = self.value_order.flagged(codes.translate(_AWAY_FROM_ENEMY))
        keyed += [(-2 * values[cell], cell) for cell in islice(others, count)]
        keyed.sort()
        return [item[1] for item in keyed[:count]]


def agent(game, state, seconds_left, clock=time.process_time, spent=0.0, beam=BEAM,
          on_iteration=None, threat_weight=THREAT_WEIGHT, overrun=OVERRUN,
          opponent_beam=None, share=SHARE, reduce_after=REDUCE_AFTER,
          reduce_plies=REDUCE_PLIES, endgame_cells=ENDGAME_CELLS, solve_cells=SOLVE_CELLS,
          solve_share=SOLVE_SHARE, on_solve=None, null_move=NULL_MOVE,
          gain_weight=GAIN_WEIGHT, max_depth=None, probcut_left=PROBCUT_LEFT,
          probcut_plies=PROBCUT_PLIES, probcut_margin=PROBCUT_MARGIN):
    """The tournament agent (see the module doc); falls back to greedy without time.

    ``on_solve(outcome, action, seconds)``, if given, hears how each solve attempt
    ended: "win" or "draw" (``action`` is then the move played), "loss" or None (out
    of time; ``action`` None in both). ``max_depth`` (default: to the end of the game)
    caps the deepening: with ``overrun`` 0 and time to spare, a fixed-depth search, as
    the speed benchmark runs it."""
    started = clock()
    startup = startup_reserve(spent)
    game = ThreatGame(game.size, game.values, threat_weight, gain_weight)
    table = BoundedTable(max(1000, AGENT_TABLE_BYTES // (len(state[0]) + 250)))
    empty = state[0].count(EMPTY)
    if empty <= solve_cells:
        usable = usable_seconds(seconds_left, moves_left(state[0]), startup)
        solve_allowed = (usable * solve_share - spent) * (1 - FINISH_FRACTION) - FINISH
        outcome, action, child = (solve_outcome(game, state, started + solve_allowed, clock,
                                                table) or (None, None, None))
        if on_solve is not None:
            on_solve(outcome, action, clock() - started)
        if action is not None:
            return action, child
        # No win nor draw found: the deepening below plays for the best score, with a
        # budget taken from the time the attempt left, and the table emptied for it
        # (one table at a time keeps the process's peak memory where it was).
        table.clear()
        seconds_left -= spent + clock() - started
        spent, started = 0.0, clock()
    budget = move_budget(seconds_left, moves_left(state[0]), startup, share)
    allowed = (budget - spent) * (1 - FINISH_FRACTION) - FINISH
    if allowed <= 0:
        return greedy_move(game, state)
    result = iterative_deepening(
        game, state, max_depth=empty if max_depth is None else min(max_depth, empty),
        deadline=started + allowed,
        clock=clock, table=table,
        expand=swing_expand(game, beam, opponent_beam=opponent_beam,
                            endgame_cells=endgame_cells),
        # No reductions in the endgame: a reduced move that looks no better is never
        # searched to the end, and the endgame is meant to be solved exactly.
        reduce=((reduce_after, reduce_plies)
                if reduce_plies and empty > endgame_cells else None),
        null_move=null_move if null_move and empty > endgame_cells else None,
        probcut=((probcut_left, probcut_plies, probcut_margin)
                 if probcut_plies and empty > endgame_cells else None),
        # In the endgame a position far enough from the window is settled at once. Not
        # with a threat weight: its horizon estimate may fall outside the bounds.
        bounds=game.score_bounds if empty <= endgame_cells and not threat_weight else None,
        on_iteration=on_iteration,
        stop_when=_unlikely_to_finish(started, allowed * overrun, clock) if overrun else None)
    if result.action is None:
        return greedy_move(game, state)
    return result.action, result.child


def startup_reserve(spent):
    """CPU seconds to keep for each later run of homework.py, given that this run spent
    ``spent`` before its search: AGENT_STARTUP_COST, or STARTUP_MARGIN times ``spent``
    when that is more (the machine is slower or busier than ours)."""
    return max(AGENT_STARTUP_COST, STARTUP_MARGIN * spent)


def solve_outcome(game, state, deadline, clock, table):
    """("win" or "draw", action, child) of a move after which the side to move wins, or
    else draws, whatever the other side plays; ("loss", None, None) when every move
    loses; None when ``deadline`` (a ``clock()`` time) comes first.

    The search runs to the end of the game with the null window (-1, 1) around a draw:
    a value of 1 or more proves a win, 0 is exactly a draw, -1 or less proves a loss.
    The root stops at the first winning move (``root_cut``); moves come in swing order
    (:func:`solve_expand`), none pruned; a position whose score is too far from a draw
    for the pieces still at stake to change the outcome ends there (the game's
    ``score_bounds``); ``table`` is a (Bounded)TranspositionTable.
    """
    if clock() >= deadline:
        return None
    try:
        result = search(game, state, prune=True, depth=state[0].count(EMPTY),
                        window=(-1, 1), table=table,
                        expand=solve_expand(game), root_cut=True, bounds=game.score_bounds,
                        deadline=deadline, clock=clock)
    except SearchTimeout:
        return None
    value = result.value if state[2] == MAX else -result.value
    if value > 0:
        return "win", result.action, result.child
    if value == 0:
        return "draw", result.action, result.child
    return "loss", None, None


def _unlikely_to_finish(started, allowed, clock):
    """A ``stop_when`` for iterative_deepening: True when the next iteration, expected
    to take as long as the last one times the last growth (between
    GROWTH_BOUNDS), would end after ``allowed`` seconds from ``started``. An iteration
    cut short by the deadline is thrown away: its time is better kept for later moves."""
    durations = []

    def stop(iteration):
        durations.append(iteration.seconds)
        growth = GROWTH_BOUNDS[1]
        if len(durations) > 1 and durations[-2] > 0:
            growth = min(max(durations[-1] / durations[-2], GROWTH_BOUNDS[0]),
                         GROWTH_BOUNDS[1])
        return clock() - started + durations[-1] * growth > allowed
    return stop


STRATEGIES = {"agent": agent, "classic": classic, "greedy": greedy}
STRATEGIES.update((f"depth{d}", fixed_depth(d)) for d in range(1, 10))
