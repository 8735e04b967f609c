"""COMPETITION strategies of Stake/Raid: the agent homework.py plays, and sparring partners.

Every strategy is a function ``(game, state, seconds_left, clock, spent) -> (action,
child)`` for a non-terminal ``state`` (MAX to move), with ``seconds_left`` the CPU time
left for the whole game (line 4 of input.txt) and ``spent`` the CPU time this run used
before the call. :data:`STRATEGIES` names them; homework.py picks one with
``--strategy NAME`` or the ``STAKE_RAID_STRATEGY`` environment variable, so the
tournament (``ours:NAME``) can run every one of them as a real program:

* ``agent``    (the default) the tournament agent: iterative-deepening alpha-beta over
               the engine's one search, selective (:mod:`engine.selective`): "swing"
               move ordering (what a square gains the mover plus what it denies the
               opponent), forward pruning of the weakest moves below the root (none in
               the endgame, which it solves exactly), late-move reductions within the
               beam, ProbCut (a node cut when a search a few plies shallower clears the
               window's edge by a margin; not in the endgame either); a horizon valued
               without building its children (:class:`HorizonGame`), an iterative
               deepening that stops when the next iteration would not finish in time,
               a bounded table, and the time manager of :mod:`.player`; from
               ``solve_cells`` empty squares on, first an exact win/draw/loss solve.
               Its settings: :class:`AgentSettings` (docs/stake_raid_agent.md says how
               each was measured).
* ``classic``  the earlier agent: iterative deepening over every move, children ordered
               by their score (:func:`.player.competition_move`).
* ``greedy``   the move with the best immediate score, no search.
* ``depthD``   the grader's ALPHABETA at a fixed depth D (1..9), whatever the clock.
"""

import time
from dataclasses import dataclass, replace
from itertools import compress, islice
from operator import itemgetter
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, cast

from ...errors import SearchTimeout
from ...games.stake_raid import (EMPTY, MAX, MIN, NEIGHBOURHOODS, RAID, StakeRaid, State,
                                  code_table)
from ...iterative import Iteration, iterative_deepening
from ...search import ExactSearch, SelectiveSearch, TimeLimit, TranspositionTable, search
from ...selective import Selective
from .player import (FINISH, FINISH_FRACTION, BoundedTable, competition_move, greedy_move,
                     move_budget, moves_left, usable_seconds)

# A move and the state after it; a strategy maps (game, state, seconds left, clock=...,
# spent=...) to the move it plays; an ``expand`` hook (engine.selective) maps (state,
# the table's move, depth) to the (action, child) pairs to search, in order.
Move = Tuple[int, State]
Strategy = Callable[..., Move]
Expand = Callable[[State, Optional[int], int], Iterator[Move]]

# Memory for the agent's transposition table (bytes, as BoundedTable estimates them; the
# real cost is higher, about 460 bytes an entry on 12x12), chosen so that the longest
# moves stay under 200 MB.
AGENT_TABLE_BYTES = 80 * 1024 * 1024
# CPU seconds reserved for each later run of homework.py (start-up, imports, output),
# with a margin over what a run costs here.
AGENT_STARTUP_COST = 0.09
# ... or, when more, this many times what this run spent before its search (``spent``:
# start-up and parsing): on a slower or busier machine every run costs more than here,
# and a fixed reserve would run the game's clock out in its last moves.
STARTUP_MARGIN = 1.4


@dataclass(frozen=True)
class AgentSettings:
    """How the tournament agent searches (docs/stake_raid_agent.md: how each was chosen).

    beam            below the root, a node searches at most this many of its moves, the
                    best by swing (the root always searches them all)
    opponent_beam   the beam where the root's opponent moves (None: ``beam``; 0: none)
    reduce_after,   late-move reductions (engine.selective): below the root, the moves
    reduce_plies    after the first ``reduce_after`` are searched ``reduce_plies``
                    shallower first, and again at full depth only if they look better
                    (0 plies: off)
    endgame_cells   with this many empty squares or fewer nothing is pruned nor reduced:
                    the end is searched in full, and positions far from the window are
                    settled by their score bounds
    solve_cells     with this many empty squares or fewer, first try to solve the game
                    (win, draw or loss) with a null-window search ...
    solve_share     ... spending at most this share of the usable time
    probcut_left,   ProbCut (engine.selective): a node with at least ``probcut_left``
    probcut_plies,  plies left is first searched ``probcut_plies`` shallower and cut when
    probcut_margin  that reaches ``probcut_margin`` beyond the window (0 plies: off)
    share           a move may spend this many times its equal share of the time left
    overrun         the deepening stops when the next iteration is expected to end beyond
                    this multiple of the move's time (0: only the deadline stops it)
    gain_weight     how much of the side to move's best gain a horizon value adds
                    (:class:`HorizonGame`)
    max_depth       cap of the deepening (None: to the end of the game); with ``overrun``
                    0 and time to spare, a fixed-depth search, as the speed benchmark runs
    """
    beam: int = 8
    opponent_beam: Optional[int] = None
    reduce_after: int = 3
    reduce_plies: int = 2
    endgame_cells: int = 10
    solve_cells: int = 16
    solve_share: float = 0.5
    probcut_left: int = 6
    probcut_plies: int = 4
    probcut_margin: int = 60
    share: float = 2.0
    overrun: float = 1.2
    gain_weight: float = 0.5
    max_depth: Optional[int] = None

    def but(self, **changes: Any) -> "AgentSettings":
        """These settings with ``changes`` (keyword per field)."""
        return replace(self, **changes)


AGENT = AgentSettings()
# The growth of iteration times the deepening's stopping rule assumes is taken from the
# last two iterations, within these bounds.
GROWTH_BOUNDS = (1.5, 6.0)

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

    def __init__(self, values: Sequence[int]) -> None:
        self.cells = tuple(sorted(range(len(values)), key=lambda cell: -values[cell]))
        # Reads a board's codes in that order in one C call, so that the empty squares
        # are found with tuple.index instead of a Python loop over the board.
        self._codes = (itemgetter(*self.cells) if len(self.cells) > 1
                       else lambda board: (board[0],))

    def flagged(self, flags: bytes) -> Iterator[int]:
        """The squares whose byte in ``flags`` is not 0, in this order, one at a time
        (found in C: ``flags`` is read in this order and compressed)."""
        return compress(self.cells, self._codes(flags))

    def first_empty(self, board: bytes) -> Optional[int]:
        """The most valuable empty square of ``board``, or None when it is full."""
        try:
            return self.cells[self._codes(board).index(EMPTY)]
        except ValueError:
            return None

    def empties(self, board: bytes) -> Iterator[int]:
        """The empty squares of ``board`` in this order, one at a time."""
        codes, cells = self._codes(board), self.cells
        index = -1
        while True:
            try:
                index = codes.index(EMPTY, index + 1)
            except ValueError:
                return
            yield cells[index]


class HorizonGame(StakeRaid):
    """Stake/Raid with the agent's horizon (same rules, same moves).

    The plain cut-off value is the score after the last move, which flatters whoever
    moved last. Here the side to move at a node on the cut-off's parent takes its best
    child, found without building the others (:meth:`horizon_values`): the most valuable
    Stake or a Raid gaining more, valued at the score plus ``gain_weight`` times that
    gain (the opponent's reply is not looked at, but it will take back part of the gain;
    a move that fills the board keeps its whole gain, so the endgame stays exact).
    ``evaluate`` stays the score.
    """

    def __init__(self, size: int, values: Sequence[int],
                 gain_weight: float = AGENT.gain_weight) -> None:
        super().__init__(size, values)
        self.gain_weight = gain_weight
        self.value_order = ValueOrder(self.values)
        # What a Raid gains on a square with a given neighbourhood, found the first time
        # that pair is met: cell * NEIGHBOURHOODS + code (as SwingOrder's table).
        self._raid_gain_by_code: List[Optional[int]] = [None] * (self.area * NEIGHBOURHOODS)

    def _raid_gain(self, cell: int, code: int) -> int:
        """What the mover's Raid of empty ``cell`` gains, its neighbours holding ``code``:
        the square's value and twice that of each enemy piece it flips."""
        return self.values[cell] + 2 * self.values_by_holder(cell, code)[1]

    # Lists where StakeRaid gives a lazy view and iterator: the same contract (indexable
    # actions, iterable values), which mypy cannot see.
    def horizon_values(  # type: ignore[override]
            self, state: State) -> Tuple[List[int], List[float]]:
        """([action], [value]): the best child on the cut-off for the side to move (see
        the class docstring; the first of equals in the spec's order)."""
        cells, score, mover = state
        values = self.values
        sign = 1 if mover == MAX else -1
        # not None: a node on the cut-off's parent is not terminal (no cast call: hot)
        chosen: int = self.value_order.first_empty(cells)  # type: ignore[assignment]
        chosen_gain: float = values[chosen]
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


def classic(game: StakeRaid, state: State, seconds_left: float,
            clock: Callable[[], float] = time.process_time, spent: float = 0.0,
            on_iteration: Optional[Callable[[Iteration], Any]] = None) -> Move:
    """The earlier agent, unchanged (see competition_move)."""
    move = competition_move(game, state, seconds_left, clock=clock, spent=spent,
                            on_iteration=on_iteration)
    return move.action, move.child


def greedy(game: StakeRaid, state: State, seconds_left: float = 0.0,
           clock: Callable[[], float] = time.process_time, spent: float = 0.0) -> Move:
    """The first move with the best immediate score."""
    return greedy_move(game, state)


def fixed_depth(depth: int) -> Strategy:
    """A strategy: the grader's ALPHABETA at ``depth`` (no clock at all)."""
    def play(game: StakeRaid, state: State, seconds_left: float = 0.0,
             clock: Callable[[], float] = time.process_time, spent: float = 0.0) -> Move:
        result = search(game, state, ExactSearch(depth=depth))
        return result.action, result.child
    play.__doc__ = f"ALPHABETA at depth {depth}."
    return play


def swing_expand(game: StakeRaid, beam: int = AGENT.beam, remember: int = 50000,
                 opponent_beam: Optional[int] = None,
                 endgame_cells: int = AGENT.endgame_cells) -> Expand:
    """An ``expand`` hook (engine.selective): the children of a node by swing, best
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
    known: Dict[State, List[Any]] = {}

    if opponent_beam is None:
        opponent_beam = beam

    def expand(state: State, hint: Optional[int], depth: int) -> Iterator[Move]:
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


def solve_expand(game: StakeRaid) -> Expand:
    """An ``expand`` hook (engine.selective) for a search to the end of the game
    (solve_outcome): every
    move in swing order (see swing_expand), the table's move first, each child built
    only when the search reaches it. A null-window solve cuts most nodes after a move
    or two, and nodes are rarely seen twice, so neither the children nor the orders are
    kept."""
    signed = game.signed
    play = game.play
    sorted_moves = SwingOrder(game).sorted_moves

    def expand(state: State, hint: Optional[int], depth: int) -> Iterator[Move]:
        cells, score, mover = state
        enemy = MAX + MIN - mover
        actions = sorted_moves(cells, mover)
        if hint is not None and hint in actions:
            actions.remove(hint)
            actions.insert(0, hint)
        return _children(state, actions, bytes([mover]), signed[mover], enemy, play)

    return expand


def _children(state: State, actions: Iterable[int], piece: bytes, gains: Sequence[int], enemy: int,
              play: Callable[[State, int], State]) -> Iterator[Move]:
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

    def __init__(self, game: StakeRaid) -> None:
        self.game = game
        self.values = game.values
        self.value_order = ValueOrder(game.values)
        # [(key, action)] of the moves onto a square with a given neighbourhood, made
        # the first time that pair is met (most never are): cell * NEIGHBOURHOODS + code.
        self._moves_by_code: List[Optional[Tuple[Tuple[int, int], ...]]] = (
            [None] * (len(game.values) * NEIGHBOURHOODS))

    def _keyed(self, codes: bytes, squares: Iterable[int]) -> List[Tuple[int, int]]:
        """[(key, action)] of the Stakes and Raids onto ``squares`` (empty), given the
        board's neighbourhood codes as the mover sees them."""
        table, width = self._moves_by_code, NEIGHBOURHOODS
        keyed: List[Tuple[int, int]] = []
        for cell in squares:
            code = codes[cell]
            index = cell * width + code
            moves = table[index]
            if moves is None:
                moves = table[index] = self._square_moves(cell, code)
            keyed += moves
        return keyed

    def _square_moves(self, cell: int, code: int) -> Tuple[Tuple[int, int], ...]:
        """[(key, action)] onto empty ``cell`` whose neighbours hold ``code`` (see
        StakeRaid.neighbourhoods): its Stake, and its Raid when that flips something."""
        mine, theirs = self.game.values_by_holder(cell, code)
        value = self.values[cell]
        if not (mine and theirs):
            return ((-2 * value, cell),)
        return ((-2 * (value + mine), cell), (-2 * (value + mine + theirs), cell + RAID))

    def sorted_moves(self, cells: bytes, mover: int) -> List[int]:
        """Every move, sorted by swing. Equal keys: the tuples compare the action second,
        and Stakes (< RAID) come before Raids, each row-major: the spec's visit order."""
        game = self.game
        keyed = self._keyed(game.neighbourhoods(cells, mover), game.empties(cells))
        keyed.sort()
        return [item[1] for item in keyed]

    def top_moves(self, cells: bytes, mover: int, count: int) -> List[int]:
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


def agent(game: StakeRaid, state: State, seconds_left: float,
          clock: Callable[[], float] = time.process_time, spent: float = 0.0,
          settings: AgentSettings = AGENT,
          on_iteration: Optional[Callable[[Iteration], Any]] = None,
          on_solve: Optional[Callable[[Optional[str], Optional[int], float], Any]] = None) -> Move:
    """The tournament agent (see the module doc and :class:`AgentSettings`); falls back
    to greedy without time.

    ``on_solve(outcome, action, seconds)``, if given, hears how each solve attempt
    ended: "win" or "draw" (``action`` is then the move played), "loss" or None (out
    of time; ``action`` None in both)."""
    started = clock()
    startup = startup_reserve(spent)
    game = HorizonGame(game.size, game.values, settings.gain_weight)
    table = BoundedTable(max(1000, AGENT_TABLE_BYTES // (len(state[0]) + 250)))
    empty = state[0].count(EMPTY)
    if empty <= settings.solve_cells:
        usable = usable_seconds(seconds_left, moves_left(state[0]), startup)
        solve_allowed = ((usable * settings.solve_share - spent) * (1 - FINISH_FRACTION)
                         - FINISH)
        outcome, action, child = (solve_outcome(game, state, started + solve_allowed, clock,
                                                table) or (None, None, None))
        if on_solve is not None:
            on_solve(outcome, action, clock() - started)
        if action is not None:
            return action, cast(State, child)
        # No win nor draw found: the deepening below plays for the best score, with a
        # budget taken from the time the attempt left, and the table emptied for it
        # (one table at a time keeps the process's peak memory where it was).
        table.clear()
        seconds_left -= spent + clock() - started
        spent, started = 0.0, clock()
    budget = move_budget(seconds_left, moves_left(state[0]), startup, settings.share)
    allowed = (budget - spent) * (1 - FINISH_FRACTION) - FINISH
    if allowed <= 0:
        return greedy_move(game, state)
    max_depth = empty if settings.max_depth is None else min(settings.max_depth, empty)
    result = iterative_deepening(
        game, state, SelectiveSearch(hooks=agent_selectivity(game, settings, empty),
                                     depth=max_depth, table=table,
                                     time_limit=TimeLimit(started + allowed, clock)),
        on_iteration=on_iteration,
        stop_when=(_unlikely_to_finish(started, allowed * settings.overrun, clock)
                   if settings.overrun else None))
    if result.action is None:
        return greedy_move(game, state)
    return result.action, result.child


def agent_selectivity(game: StakeRaid, settings: AgentSettings, empty: int) -> Selective:
    """The :class:`engine.selective.Selective` of the agent's deepening with ``empty``
    empty squares: forward pruning, reductions and ProbCut before the endgame; in it,
    every move, and positions far from the window settled by the score's bounds."""
    endgame = empty <= settings.endgame_cells
    return Selective(
        expand=swing_expand(game, settings.beam, opponent_beam=settings.opponent_beam,
                            endgame_cells=settings.endgame_cells),
        # No reductions in the endgame: a reduced move that looks no better is never
        # searched to the end, and the endgame is meant to be solved exactly.
        reduce=((settings.reduce_after, settings.reduce_plies)
                if settings.reduce_plies and not endgame else None),
        probcut=((settings.probcut_left, settings.probcut_plies, settings.probcut_margin)
                 if settings.probcut_plies and not endgame else None),
        bounds=game.score_bounds if endgame else None)


def startup_reserve(spent: float) -> float:
    """CPU seconds to keep for each later run of homework.py, given that this run spent
    ``spent`` before its search: AGENT_STARTUP_COST, or STARTUP_MARGIN times ``spent``
    when that is more (the machine is slower or busier than ours)."""
    return max(AGENT_STARTUP_COST, STARTUP_MARGIN * spent)


def solve_outcome(game: StakeRaid, state: State, deadline: float, clock: Callable[[], float],
                  table: TranspositionTable
                  ) -> Optional[Tuple[str, Optional[int], Optional[State]]]:
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
        result = search(game, state, SelectiveSearch(
            hooks=Selective(expand=solve_expand(game), root_cut=True, bounds=game.score_bounds),
            depth=state[0].count(EMPTY), window=(-1, 1), table=table,
            time_limit=TimeLimit(deadline, clock)))
    except SearchTimeout:
        return None
    value = result.value if state[2] == MAX else -result.value
    if value > 0:
        return "win", result.action, result.child
    if value == 0:
        return "draw", result.action, result.child
    return "loss", None, None


def _unlikely_to_finish(started: float, allowed: float,
                        clock: Callable[[], float]) -> Callable[[Iteration], bool]:
    """A ``stop_when`` for iterative_deepening: True when the next iteration, expected
    to take as long as the last one times the last growth (between
    GROWTH_BOUNDS), would end after ``allowed`` seconds from ``started``. An iteration
    cut short by the deadline is thrown away: its time is better kept for later moves."""
    durations = []

    def stop(iteration: Iteration) -> bool:
        durations.append(iteration.seconds)
        growth = GROWTH_BOUNDS[1]
        if len(durations) > 1 and durations[-2] > 0:
            growth = min(max(durations[-1] / durations[-2], GROWTH_BOUNDS[0]),
                         GROWTH_BOUNDS[1])
        return clock() - started + durations[-1] * growth > allowed
    return stop


STRATEGIES: Dict[str, Strategy] = {"agent": agent, "classic": classic, "greedy": greedy}
STRATEGIES.update((f"depth{d}", fixed_depth(d)) for d in range(1, 10))
