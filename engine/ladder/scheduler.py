"""Who plays whom next: a fair share of games for every student, placement first, then
pairing by rating uncertainty. A pure function of what the store knows (no database
here, standard library only).

* The share: the next pair goes to the free student who has waited longest since its
  last game (per player, over all its versions; never played comes first), so that
  students take turns: one who uploads often gets no more games than one who uploads
  once, and with workers enough for a pair per student an hour, every ready student
  plays every hour.
* Among equals, a submission still owed placement pairs (``placement_pairs``) goes
  first: it plays each staff anchor in turn, then the entrant rated nearest. Otherwise
  the entrant whose rating is least certain (the widest 95% interval; none yet counts as
  infinitely wide; fewer games breaks ties) plays the entrant rated nearest to it among
  those it has met least.
* An entrant that forfeited its last :data:`BACKOFF_AFTER` games or more rests: the
  n-th forfeit in a row keeps it out for ``BACKOFF_BASE * 2 ** (n - BACKOFF_AFTER)``
  seconds after its last game, at most :data:`BACKOFF_CAP` (so that it still plays every
  hour). Staff never rest, and may play any number of games at once; a student plays
  one pair at a time.

The board size of pair k is ``sizes[k % len(sizes)]``, so every size is played evenly.
"""

from typing import Container, FrozenSet, Mapping, NamedTuple, Optional, Sequence, Tuple

HOUR = 3600.0
BACKOFF_AFTER = 2
BACKOFF_BASE = 60.0
BACKOFF_CAP = 1800.0


class Active(NamedTuple):
    """An entrant the scheduler may pair: its submission id, player, whether it is
    staff, its rating and interval (None before its first game), its games (this
    version's), ``last`` (when its player's last game was scheduled, any version; 0.0:
    never), ``pairs`` (pairs scheduled for this version) and ``resting_until`` (the
    time before which it is backed off; 0: it is not)."""
    submission: int
    player: str
    staff: bool
    rating: Optional[float]
    low: Optional[float]
    high: Optional[float]
    games: int
    last: float = 0.0
    pairs: int = 0
    resting_until: float = 0.0


def resting_until(forfeits_in_a_row: int, last_game: float) -> float:
    """When an entrant whose last ``forfeits_in_a_row`` games were its forfeits, the last
    finished at ``last_game``, may play again (0.0: at once)."""
    if forfeits_in_a_row < BACKOFF_AFTER:
        return 0.0
    rest = BACKOFF_BASE * 2.0 ** min(forfeits_in_a_row - BACKOFF_AFTER, 30)
    return last_game + min(rest, BACKOFF_CAP)


def _width(entrant: Active) -> float:
    if entrant.rating is None or entrant.low is None or entrant.high is None:
        return float("inf")
    return entrant.high - entrant.low


def _distance(a: Active, b: Active) -> float:
    if a.rating is None or b.rating is None:
        return 0.0 if a.rating is None and b.rating is None else 400.0
    return abs(a.rating - b.rating)


def next_pair(active: Sequence[Active], met: Mapping[FrozenSet[int], float],
              busy: Container[int], placement_pairs: int,
              now: float = 0.0) -> Optional[Tuple[int, int]]:
    """The two submission ids to pair next (the first moves first in the pair's first
    game), or None when nobody can play.

    ``active``: :class:`Active` list; ``met``: frozenset({a, b}) -> pairs scheduled
    between them; ``busy``: the submissions with a pair still to play; ``now``: the
    time the backoff is measured against. See the module docstring."""
    staff = sorted((e for e in active if e.staff), key=lambda e: e.submission)
    free = [e for e in active if not e.staff and e.submission not in busy
            and e.resting_until <= now]

    def priority(entrant: Active) -> Tuple[float, bool, float, int, int]:
        return (entrant.last, entrant.pairs >= placement_pairs, -_width(entrant),
                entrant.games, entrant.submission)
    for entrant in sorted(free, key=priority):
        if entrant.pairs < min(len(staff), placement_pairs):
            return entrant.submission, staff[entrant.pairs].submission
        rival = _nearest(entrant, active, met, busy, now)
        if rival is not None:
            return entrant.submission, rival.submission
    return None


def _nearest(entrant: Active, active: Sequence[Active], met: Mapping[FrozenSet[int], float],
             busy: Container[int], now: float) -> Optional[Active]:
    """The entrant nearest in rating to ``entrant`` among those it met least that may
    play now (staff always may)."""
    others = [e for e in active if e.submission != entrant.submission
              and e.player != entrant.player
              and (e.staff or (e.submission not in busy and e.resting_until <= now))]
    if not others:
        return None
    return min(others, key=lambda e: (met.get(frozenset((entrant.submission,
                                                          e.submission)), 0),
                                      _distance(entrant, e), e.last, e.submission))


def size_of_pair(sizes: Sequence[int], pair: int) -> int:
    """The board size of pair ``pair`` (see the module docstring)."""
    return sizes[pair % len(sizes)]
