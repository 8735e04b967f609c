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
               exactly), a horizon that charges the opponent's best reply
               (:class:`ThreatGame`), a bounded table, and the time manager of
               :mod:`.stake_raid_player`.
* ``classic``  the earlier agent: iterative deepening over every move, children ordered
               by their score (:func:`.stake_raid_player.competition_move`).
* ``greedy``   the move with the best immediate score, no search.
* ``depthD``   the grader's ALPHABETA at a fixed depth D (1..9), whatever the clock.
"""

import time

from ..iterative import iterative_deepening
from ..search import search
from .stake_raid import EMPTY, MAX, MIN, RAID, StakeRaid, HorizonActions
from .stake_raid_player import (FINISH, FINISH_FRACTION, BoundedTable, competition_move,
                                greedy_move, move_budget, moves_left)

DEFAULT_STRATEGY = "agent"

# Memory for the agent's transposition table (bytes, as BoundedTable estimates them; the
# real cost is higher, about 460 bytes an entry on 12x12). With the remembered move
# lists of swing_expand, a 9 s search on 12x12 peaked at 158 MB with 120 MB here and
# 200,000 lists: both were lowered to stay under 200 MB on the longest moves.
AGENT_TABLE_BYTES = 80 * 1024 * 1024
# CPU seconds reserved for each later run of homework.py (start-up, imports, output):
# measured 0.055-0.066 s on an idle machine, more under load; the agent keeps a margin.
AGENT_STARTUP_COST = 0.09
# Forward pruning: below the root a node searches at most this many of its moves, the
# best by swing (the root always searches them all).
BEAM = 8
# ... except with this many empty squares or fewer: the end is searched in full (exact
# once the deepening reaches the last move).
ENDGAME_CELLS = 10
# How much of the opponent's best reply gain a horizon value takes off (see ThreatGame).
THREAT_WEIGHT = 0.5


class ThreatGame(StakeRaid):
    """Stake/Raid with a horizon that sees the reply coming (same rules, same moves).

    The plain cut-off value is the score after the last move, which flatters whoever
    moved last: the opponent's Raid one move later is invisible. Here a child on the
    cut-off is valued at its score minus ``threat_weight`` times the best gain the
    opponent could take next (its best Raid or Stake), the square just taken excluded.
    (Flips made by the move itself are not re-examined: an estimate, cheap enough for
    every horizon node.) Only ``horizon_values`` changes; ``evaluate`` stays the score.
    """

    def __init__(self, size, values, threat_weight=THREAT_WEIGHT):
        super().__init__(size, values)
        self.threat_weight = threat_weight

    def horizon_values(self, state):
        cells, score, mover = state
        actions = HorizonActions(self, cells, mover, self.empties(cells))
        return actions, self._threat_iter(actions, score)

    def _threat_iter(self, actions, score):
        cells, mover, empties = actions.cells, actions.mover, actions.empties
        values, neighbours = self.values, self.neighbours
        enemy = MAX + MIN - mover
        # The opponent's two best next gains on two different squares (a Raid gains at
        # least what the Stake on its square does), and the square of the best one.
        raids = {}
        for target in self.raid_targets(cells, enemy):
            gain = values[target]
            for near in neighbours[target]:
                if cells[near] == mover:
                    gain += 2 * values[near]
            raids[target] = gain
        best = second = 0
        best_cell = -1
        for cell in empties:
            gain = raids.get(cell, 0) or values[cell]
            if gain > second:
                if gain > best:
                    best, second, best_cell = gain, best, cell
                else:
                    second = gain
        weight = self.threat_weight
        sign = 1 if mover == MAX else -1
        for cell in empties:
            threat = second if cell == best_cell else best
            yield score + sign * (values[cell] - weight * threat)
        for target in actions.raid_targets():
            gain = values[target]
            for near in neighbours[target]:
                if cells[near] == enemy:
                    gain += 2 * values[near]
            threat = second if target == best_cell else best
            yield score + sign * (gain - weight * threat)


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


def swing_expand(game, beam=BEAM, remember=50000):
    """An ``expand`` hook for engine.search: the children of a node by swing, best
    first, the table's move first; below the root only the ``beam`` best are built.

    The swing of a move onto square t is what it gains the mover plus what t would have
    given the opponent next. A Stake gains t's value; a Raid (t next to pieces of both
    sides) also flips the enemy pieces next to t, worth twice their values. The
    opponent would get t's value too, plus twice the mover's pieces next to t when it
    has a piece there (its Raid). So Stakes that block a big Raid rank beside the
    mover's own Raids. Equal swings keep the spec's visit order (Stakes, then Raids,
    row-major). With ENDGAME_CELLS empty squares or fewer nothing is pruned.
    Keys are computed from the board alone: no child state is made for a pruned move.
    The sorted moves of up to ``remember`` positions are kept: iterative deepening
    expands the same nodes again at every depth.
    """
    values, neighbours, signed = game.values, game.neighbours, game.signed
    play, empties_of = game.play, game.empties
    known = {}

    def expand(state, hint, depth):
        cells, score, mover = state
        enemy = MAX + MIN - mover
        entry = known.get(state)
        if entry is None:
            if len(known) >= remember:
                known.clear()
            entry = known[state] = sorted_moves(cells, mover, enemy)
        empty_count, actions = entry
        actions = list(actions)
        if hint is not None and hint in actions:
            actions.remove(hint)
            actions.insert(0, hint)
        if depth > 0 and len(actions) > beam and empty_count > ENDGAME_CELLS:
            del actions[beam:]
        piece = bytes([mover])
        gains = signed[mover]
        children = []
        for action in actions:
            if action < RAID:
                children.append((action, (cells[:action] + piece + cells[action + 1:],
                                          score + gains[action], enemy)))
            else:
                children.append((action, play(state, action)))
        return children

    def sorted_moves(cells, mover, enemy):
        """(number of empty squares, every move sorted by swing)."""
        empties = empties_of(cells)
        stakes = []
        raids = []
        for cell in empties:
            mine = theirs = 0
            for near in neighbours[cell]:
                owner = cells[near]
                if owner == mover:
                    mine += values[near]
                elif owner == enemy:
                    theirs += values[near]
            value = values[cell]
            if theirs:
                stakes.append((-2 * (value + mine), cell))
                if mine:
                    raids.append((-2 * (value + mine + theirs), cell + RAID))
            else:
                stakes.append((-2 * value, cell))
        # Equal keys: the tuples compare the action second, and Stakes (< RAID) come
        # before Raids, each row-major: the spec's visit order.
        keyed = stakes + raids
        keyed.sort()
        return len(empties), [item[1] for item in keyed]

    return expand


def agent(game, state, seconds_left, clock=time.process_time, spent=0.0, beam=BEAM,
          on_iteration=None, threat_weight=THREAT_WEIGHT):
    """The tournament agent (see the module doc); falls back to greedy without time."""
    started = clock()
    if threat_weight:
        game = ThreatGame(game.size, game.values, threat_weight)
    budget = move_budget(seconds_left, moves_left(state[0]), AGENT_STARTUP_COST)
    allowed = (budget - spent) * (1 - FINISH_FRACTION) - FINISH
    if allowed <= 0:
        return greedy_move(game, state)
    table = BoundedTable(max(1000, AGENT_TABLE_BYTES // (len(state[0]) + 250)))
    result = iterative_deepening(
        game, state, max_depth=state[0].count(EMPTY), deadline=started + allowed,
        clock=clock, table=table, expand=swing_expand(game, beam),
        on_iteration=on_iteration)
    if result.action is None:
        return greedy_move(game, state)
    return result.action, result.child


STRATEGIES = {"agent": agent, "classic": classic, "greedy": greedy}
STRATEGIES.update((f"depth{d}", fixed_depth(d)) for d in range(1, 10))
