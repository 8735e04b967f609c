"""Which games a tournament plays: a pure function of the entrants, the format, the seed
and (for the formats that pair by results) the games already played.

Every game belongs to a colour-swapped pair: the same board (Stake/Raid values, Line 'em
Up blocs and opening: :meth:`Rules.setup` of board index ``board``) played twice, each
entrant moving first once. Formats:

* ``round-robin``: every two entrants play ``pairs`` pairs; pair k of every pairing is
  played on board k, so the whole field meets the same boards.
* ``gauntlet``: every entrant who is not staff plays ``pairs`` pairs against each staff
  entrant.
* ``knockout`` (the competition handout's "like in tennis"): each round, the survivors are
  drawn into random matches of ``games_per_match`` games (odd), colours alternating; the
  winner of more games goes on, a tie broken by the margin (stones or cells won) and then
  by a seeded coin. With an odd number of survivors one of them (one who has had fewest
  byes) goes on without playing.
* ``swiss``: ``rounds`` rounds; each round entrants are ranked by points and paired
  top-down with someone they have not met (the pairing backtracks before it repeats a
  meeting, and repeats one only when no pairing without repeats exists); each match is
  ``pairs`` pairs. With an odd number, the lowest-ranked entrant without a bye sits out
  and scores ``pairs`` points (a drawn match).

Game ids count from 1 in the order games are scheduled, so ``--shard I/K`` (whole pairs,
balanced by board size: :func:`in_shard`) and ``--resume`` see the same ids in every run.
Adaptive formats (knockout, Swiss) are scheduled round by round: a round exists once
every game before it has been played.
"""

import math
import random
from typing import (Any, Callable, Collection, Dict, FrozenSet, Iterable, List, NamedTuple,
                    Optional, Sequence, Set, Tuple)


# How many steps the Swiss pairing may search before it gives up avoiding repeats.
PAIRING_STEPS = 200_000


class GameSpec(NamedTuple):
    """One scheduled game: its ``id``, ``round``, ``match`` (the meeting of two entrants
    it belongs to), ``pair`` (its colour-swapped pair), ``board`` (the index its board is
    set up from), ``size``, and the entrants ``x`` (moving first) and ``o``."""
    id: int
    round: int
    match: int
    pair: int
    board: int
    size: Any
    x: str
    o: str


class Meeting(NamedTuple):
    """A knockout match: its entrants, their points, margins (own score minus the
    opponent's, summed), and the winner (None until every game of it was played)."""
    a: str
    b: str
    points: tuple
    margin: tuple
    winner: Optional[str]


class Schedule(NamedTuple):
    """The games so far (every round that exists), whether the tournament is over once
    they are played (``final``), the knockout bracket (a list of rounds, each
    ``(meetings, byes)``), byes per entrant, and the total number of games expected."""
    games: list
    final: bool
    bracket: Optional[list] = None
    byes: Optional[dict] = None
    expected: int = 0


def _pair_games(counter: Dict[str, int], round_number: int, match: int, board: int,
                size: Any, a: str, b: str) -> List[GameSpec]:
    """The two games of a colour-swapped pair (a moves first in the first)."""
    pair = counter["pair"] = counter["pair"] + 1
    games = []
    for x, o in ((a, b), (b, a)):
        counter["id"] += 1
        games.append(GameSpec(counter["id"], round_number, match, pair, board, size, x, o))
    return games


def round_robin(names: Sequence[str], pairs: int, sizes: Sequence[Any]) -> Schedule:
    """Every two of ``names`` play ``pairs`` colour-swapped pairs, pair k on board k."""
    counter = {"id": 0, "pair": 0}
    games, match = [], 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            match += 1
            for k in range(pairs):
                games += _pair_games(counter, 1, match, k, sizes[k % len(sizes)], a, b)
    return Schedule(games, True, expected=len(games))


def gauntlet(names: Sequence[str], staff: Sequence[str], pairs: int, sizes: Sequence[Any]
             ) -> Schedule:
    """Every one of ``names`` who is not in ``staff`` against each of ``staff``."""
    counter = {"id": 0, "pair": 0}
    games, match = [], 0
    for a in names:
        if a in staff:
            continue
        for b in staff:
            match += 1
            for k in range(pairs):
                games += _pair_games(counter, 1, match, k, sizes[k % len(sizes)], a, b)
    return Schedule(games, True, expected=len(games))


def _points(record: Dict[str, Any], name: str) -> float:
    if record["result"] == "draw":
        return 0.5
    side = "x" if record["x"] == name else "o"
    return 1.0 if record["result"] == side else 0.0


def _margin(record: Dict[str, Any], name: str) -> int:
    score = record.get("score") or [0, 0]
    own = 0 if record["x"] == name else 1
    return score[own] - score[1 - own]


def knockout_rounds(count: int) -> int:
    """How many rounds a knockout of ``count`` entrants has."""
    rounds = 0
    while count > 1:
        count = (count + 1) // 2
        rounds += 1
    return rounds


def knockout(names: Sequence[str], seed: int, games_per_match: int, sizes: Sequence[Any],
             played: Dict[int, Dict[str, Any]]) -> Schedule:
    """The knockout so far (see the module docstring); ``played`` maps game ids to their
    records (``x``, ``o``, ``result``, ``score``)."""
    counter = {"id": 0, "pair": 0}
    games, bracket, byes = [], [], {name: 0 for name in names}
    survivors = list(names)
    round_number, match = 0, 0
    boards = (games_per_match + 1) // 2
    expected = max(len(names) - 1, 0) * games_per_match
    while len(survivors) > 1:
        round_number += 1
        order = list(survivors)
        random.Random(f"tournament knockout {seed} round {round_number}").shuffle(order)
        bye = []
        if len(order) % 2:
            fewest = min(byes[name] for name in order)
            sitter = [name for name in order if byes[name] == fewest][-1]
            order.remove(sitter)
            byes[sitter] += 1
            bye = [sitter]
        meetings, complete = [], True
        for a, b in zip(order[0::2], order[1::2]):
            match += 1
            these = []
            for k in range(games_per_match):
                board = (round_number - 1) * boards + k // 2
                size = sizes[board % len(sizes)]
                if k % 2 == 0:
                    counter["pair"] += 1
                counter["id"] += 1
                x, o = (a, b) if k % 2 == 0 else (b, a)
                these.append(GameSpec(counter["id"], round_number, match, counter["pair"],
                                      board, size, x, o))
            games += these
            found = [played.get(game.id) for game in these]
            records = [record for record in found if record is not None]
            if len(records) < len(found):
                complete = False
                meetings.append(Meeting(a, b, (0, 0), (0, 0), None))
                continue
            points = tuple(sum(_points(r, name) for r in records) for name in (a, b))
            margin = tuple(sum(_margin(r, name) for r in records) for name in (a, b))
            if points[0] != points[1]:
                winner = a if points[0] > points[1] else b
            elif margin[0] != margin[1]:
                winner = a if margin[0] > margin[1] else b
            else:
                coin = random.Random(f"tournament knockout {seed} tie {round_number} "
                                     f"{match}")
                winner = coin.choice(sorted((a, b)))
            meetings.append(Meeting(a, b, points, margin, winner))
        bracket.append((meetings, bye))
        if not complete:
            return Schedule(games, False, bracket, byes, expected)
        # (complete: every meeting has its winner)
        survivors = [m.winner for m in meetings if m.winner is not None] + bye
        # The next round's draw does not depend on who won which match.
        survivors.sort(key=names.index)
    return Schedule(games, True, bracket, byes, expected)


def placing(schedule: Schedule, name: str, entrants: int) -> Optional[str]:
    """A knockout entrant's placing: winner, finalist, semi-finalist, quarter-finalist
    or ``round R`` (the round it lost in); None while it is still in."""
    total = knockout_rounds(entrants)
    for number, (meetings, _) in enumerate(schedule.bracket or [], 1):
        for meeting in meetings:
            if name in (meeting.a, meeting.b) and meeting.winner not in (None, name):
                left = total - number
                return ("finalist", "semi-finalist", "quarter-finalist")[left] \
                    if left < 3 else f"round {number}"
            if number == total and meeting.winner == name:
                return "winner"
    if schedule.final and total == 0 and entrants == 1:
        return "winner"
    return None


def swiss_rounds(count: int) -> int:
    """The default number of Swiss rounds for ``count`` entrants: ceil(log2 count)."""
    return max(1, math.ceil(math.log2(max(count, 2))))


def swiss(names: Sequence[str], seed: int, rounds: int, pairs: int, sizes: Sequence[Any],
          played: Dict[int, Dict[str, Any]]) -> Schedule:
    """The Swiss tournament so far (see the module docstring)."""
    counter = {"id": 0, "pair": 0}
    games, byes = [], {name: 0 for name in names}
    points = {name: 0.0 for name in names}
    met: Set[FrozenSet[str]] = set()
    match = 0
    per_round = (len(names) // 2) * pairs * 2
    for round_number in range(1, rounds + 1):
        rng = random.Random(f"tournament swiss {seed} round {round_number}")
        tiebreak = {name: rng.random() for name in names}
        ranked = sorted(names, key=lambda name: (-points[name], tiebreak[name]))
        sitter = None
        if len(ranked) % 2:
            candidates = [name for name in reversed(ranked)
                          if byes[name] == min(byes.values())]
            sitter = candidates[0]
            ranked.remove(sitter)
        pairing = _pair_swiss(ranked, met, [PAIRING_STEPS])
        if pairing is None:
            pairing = list(zip(ranked[0::2], ranked[1::2]))
        these = []
        for a, b in pairing:
            match += 1
            met.add(frozenset((a, b)))
            for k in range(pairs):
                board = (round_number - 1) * pairs + k
                these += _pair_games(counter, round_number, match, board,
                                     sizes[board % len(sizes)], a, b)
        games += these
        if sitter is not None:
            byes[sitter] += 1
        records = [played.get(game.id) for game in these]
        if any(record is None for record in records):
            return Schedule(games, False, None, byes, per_round * rounds)
        if sitter is not None:
            points[sitter] += pairs
        for record in records:
            assert record is not None       # (every record is there, see above)
            for name in (record["x"], record["o"]):
                points[name] += _points(record, name)
    return Schedule(games, True, None, byes, per_round * rounds)


def _pair_swiss(ranked: List[str], met: Collection[FrozenSet[str]], budget: List[int]
                ) -> Optional[List[Tuple[str, str]]]:
    """Pairs of ``ranked`` (even length) top-down, none in ``met``; None when impossible
    or when the search took more than ``budget[0]`` steps (then the caller pairs by rank
    alone). Depth-first with backtracking; the first solution keeps the ranking closest."""
    if not ranked:
        return []
    first, rest = ranked[0], ranked[1:]
    for index, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if frozenset((first, other)) in met:
            continue
        tail = _pair_swiss(rest[:index] + rest[index + 1:], met, budget)
        if tail is not None:
            return [(first, other)] + tail
    return None


def bye_points(schedule: Schedule, pairs: int) -> Dict[str, int]:
    """Points each entrant got from Swiss byes in rounds that are over."""
    if schedule.byes is None:
        return {}
    return {name: count * pairs for name, count in schedule.byes.items()}


def in_shard(games: Iterable[GameSpec], shard: Optional[Tuple[int, int]],
             size_cost: Callable[[Any], int]) -> Set[int]:
    """The ids of the ``games`` in the slice ``shard`` = (I, K) (1-based I; None: all).
    Whole colour-swapped pairs are dealt out round by round, the costliest first (a
    game costs ``size_cost(game.size)``, the game's :meth:`Rules.size_cost`: the moves
    of a game on that board; every game has the same clock), each to the slice with
    the least cost so far (ties: the lower slice): every slice gets a fair share of big
    boards, a pair is never split, and the slices are the same on any machine."""
    if shard is None:
        return {game.id for game in games}
    index, count = shard
    pairs: Dict[Tuple[int, int], List[GameSpec]] = {}
    for game in games:
        pairs.setdefault((game.round, game.pair), []).append(game)
    mine: Set[int] = set()
    for round_number in sorted({key[0] for key in pairs}):
        loads = [0] * count
        these = [(key, members) for key, members in pairs.items() if key[0] == round_number]
        these.sort(key=lambda item: (-sum(size_cost(g.size) for g in item[1]), item[0][1]))
        for _, members in these:
            target = min(range(count), key=lambda slot: (loads[slot], slot))
            loads[target] += sum(size_cost(game.size) for game in members)
            if target == index - 1:
                mine.update(game.id for game in members)
    return mine


FORMATS = ("knockout", "round-robin", "gauntlet", "swiss")


def make(fmt: str, names: Sequence[str], staff: Collection[str], seed: int,
         sizes: Sequence[Any], pairs: int, games_per_match: int, rounds: Optional[int],
         played: Dict[int, Dict[str, Any]]) -> Schedule:
    """The :class:`Schedule` of the format ``fmt`` for the entrants ``names`` (those that
    built, in entrant order; ``staff`` among them), given the records ``played`` (by id)."""
    if fmt == "round-robin":
        return round_robin(names, pairs, sizes)
    if fmt == "gauntlet":
        return gauntlet(names, [name for name in names if name in staff], pairs, sizes)
    if fmt == "knockout":
        return knockout(names, seed, games_per_match, sizes, played)
    if fmt == "swiss":
        if rounds is None:
            raise ValueError("a Swiss tournament needs its number of rounds")
        return swiss(names, seed, rounds, pairs, sizes, played)
    raise ValueError(f"unknown format {fmt!r}")


def sprt_pair(k: int, sizes: Sequence[Any], a: str, b: str) -> List[GameSpec]:
    """The two games of an SPRT's pair ``k`` (0-based): board k, ``a`` first then ``b``."""
    size = sizes[k % len(sizes)]
    return [GameSpec(2 * k + 1, 1, 1, k + 1, k, size, a, b),
            GameSpec(2 * k + 2, 1, 1, k + 1, k, size, b, a)]
