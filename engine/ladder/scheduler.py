"""Who plays whom next: placement games for a new submission, then pairing by uncertainty.

A pure function of what the store knows (no database here, standard library only):

* an active entrant (a player's latest working submission) with fewer than
  ``placement_pairs`` colour-swapped pairs scheduled plays first: against each staff
  anchor in turn, then against the entrant rated nearest to it;
* otherwise the entrant whose rating is least certain (the widest 95% interval; none yet
  counts as infinitely wide; fewer games breaks ties) plays the entrant rated nearest to
  it, among those it has met least, and never one with a pair still to play.

The board size of pair k is ``sizes[k % len(sizes)]``, so every size is played evenly.
"""

from typing import Container, FrozenSet, Mapping, NamedTuple, Optional, Sequence, Tuple


class Active(NamedTuple):
    """An entrant the scheduler may pair: its submission id, player, whether it is
    staff, its rating and interval (None before its first game), and its games."""
    submission: int
    player: str
    staff: bool
    rating: Optional[float]
    low: Optional[float]
    high: Optional[float]
    games: int


def _width(entrant: Active) -> float:
    if entrant.rating is None or entrant.low is None or entrant.high is None:
        return float("inf")
    return entrant.high - entrant.low


def _distance(a: Active, b: Active) -> float:
    if a.rating is None or b.rating is None:
        return 0.0 if a.rating is None and b.rating is None else 400.0
    return abs(a.rating - b.rating)


def next_pair(active: Sequence[Active], pairs_of: Mapping[int, int],
              met: Mapping[FrozenSet[int], float], busy: Container[int],
              placement_pairs: int) -> Optional[Tuple[int, int]]:
    """The two submission ids to pair next (the first moves first in the pair's first
    game), or None when nobody can play.

    ``active``: :class:`Active` list; ``pairs_of``: submission -> pairs scheduled (played
    or not); ``met``: frozenset({a, b}) -> pairs scheduled between them; ``busy``: the
    submissions with a pair still to play; ``placement_pairs``: see the module."""
    free = [entrant for entrant in active if entrant.submission not in busy]
    if len(active) < 2 or not free:
        return None
    staff = [entrant for entrant in active if entrant.staff]
    newcomers = sorted((e for e in free if not e.staff
                        and pairs_of.get(e.submission, 0) < placement_pairs),
                       key=lambda e: (pairs_of.get(e.submission, 0), e.submission))
    for entrant in newcomers:
        done = pairs_of.get(entrant.submission, 0)
        if done < len(staff):
            anchor = staff[done]
            if anchor.submission not in busy:
                return entrant.submission, anchor.submission
        rival = _nearest(entrant, active, met, busy)
        if rival is not None:
            return entrant.submission, rival.submission
    for entrant in sorted(free, key=lambda e: (-_width(e), e.games, e.submission)):
        rival = _nearest(entrant, active, met, busy)
        if rival is not None:
            return entrant.submission, rival.submission
    return None


def _nearest(entrant: Active, active: Sequence[Active], met: Mapping[FrozenSet[int], float],
             busy: Container[int]) -> Optional[Active]:
    """The free entrant nearest in rating to ``entrant`` among those it met least."""
    others = [e for e in active if e.submission != entrant.submission
              and e.player != entrant.player and e.submission not in busy]
    if not others:
        return None
    return min(others, key=lambda e: (met.get(frozenset((entrant.submission,
                                                          e.submission)), 0),
                                      _distance(entrant, e), e.submission))


def size_of_pair(sizes: Sequence[int], pair: int) -> int:
    """The board size of pair ``pair`` (see the module docstring)."""
    return sizes[pair % len(sizes)]
