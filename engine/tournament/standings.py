"""Standings of a tournament from its games: points, W/D/L, forfeits, CPU, margins, the
joint rating fit (:mod:`engine.tournament.ratings`), pentanomial counts per pair of
entrants, and the knockout bracket. A pure function of the records, so that a resumed or
merged tournament gets the very standings of an uninterrupted one.
"""

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from . import ratings, schedule
from .games import O_SIDE, X_SIDE

# The filters a game record may name per side (see engine.sandbox).
SYSCALL_FILTERS = ("allowlist", "denylist", "none")


def _side_points(record: Dict[str, Any], side: str) -> float:
    if record["result"] == "draw":
        return 0.5
    return 1.0 if record["result"] == side else 0.0


def entrant_rows(entrants: Sequence[Any], builds: Dict[str, Optional[str]],
                 records: Iterable[Dict[str, Any]], byes: Optional[Dict[str, int]] = None,
                 bye_points: Optional[Dict[str, int]] = None,
                 placings: Optional[Dict[str, Optional[str]]] = None) -> List[Dict[str, Any]]:
    """The ``entrants`` list of the document: one dict per entrant (in the order given),
    see docs/tournament.md. ``builds`` maps names to their build error (None: built)."""
    rows = {}
    for entrant in entrants:
        rows[entrant["name"]] = dict(
            name=entrant["name"], path=entrant["path"], kind=entrant["kind"],
            staff=entrant["staff"], build_error=builds.get(entrant["name"]),
            points=0.0, games=0, wins=0, draws=0, losses=0, forfeits={},
            rating=None, rating_low=None, rating_high=None, cpu_per_game=None,
            margin=None, beaten=0, byes=(byes or {}).get(entrant["name"], 0),
            placing=(placings or {}).get(entrant["name"]), seccomp=None)
    cpu: Dict[str, List[float]] = {}
    margin: Dict[str, List[float]] = {}
    results: List[Tuple[str, str, float]] = []
    for record in records:
        score = record.get("score") or [0, 0]
        for index, side in enumerate((X_SIDE, O_SIDE)):
            name = record[side]
            row = rows.get(name)
            if row is None:
                continue
            points = _side_points(record, side)
            row["games"] += 1
            row["points"] += points
            row["wins" if points == 1 else "draws" if points == 0.5 else "losses"] += 1
            forfeit = record.get("forfeit")
            if forfeit and forfeit.get("player") == side:
                reason = forfeit.get("reason", "?")
                row["forfeits"][reason] = row["forfeits"].get(reason, 0) + 1
            cpu.setdefault(name, []).append((record.get("cpu") or [0, 0])[index])
            filters = record.get("seccomp")
            if isinstance(filters, dict) and filters.get(side) in SYSCALL_FILTERS:
                seen = set(filter(None, (row["seccomp"] or "").split(", ")))
                row["seccomp"] = ", ".join(sorted(seen | {filters[side]}))
            margin.setdefault(name, []).append(score[index] - score[1 - index])
        results.append((record[X_SIDE], record[O_SIDE], _side_points(record, X_SIDE)))
    for name, extra in (bye_points or {}).items():
        if name in rows:
            rows[name]["points"] += extra
    for name, count in beaten(results).items():
        if name in rows:
            rows[name]["beaten"] = count
    fitted = ratings.fit(list(rows), [r for r in results if r[0] in rows and r[1] in rows])
    for name, row in rows.items():
        if name in cpu:
            row["cpu_per_game"] = round(sum(cpu[name]) / len(cpu[name]), 3)
            row["margin"] = round(sum(margin[name]) / len(margin[name]), 2)
        rating = fitted.get(name)
        if rating is not None:
            # + 0.0: a rating that rounds to zero is 0.0, never -0.0.
            row["rating"] = round(rating.rating, 1) + 0.0
            row["rating_low"] = round(rating.low, 1) + 0.0
            row["rating_high"] = round(rating.high, 1) + 0.0
        row["points"] = round(row["points"], 1)
    return list(rows.values())


def beaten(results: Iterable[Tuple[str, str, float]]) -> Dict[str, int]:
    """How many opponents each entrant beat: scored more than half the points against,
    over all their games (the competition handout's "the agent that beat the largest
    number of others"). ``results``: (x, o, x's points) per game."""
    head: Dict[str, Dict[str, List[float]]] = {}
    for x, o, points in results:
        for me, other, got in ((x, o, points), (o, x, 1 - points)):
            tally = head.setdefault(me, {}).setdefault(other, [0.0, 0])
            tally[0] += got
            tally[1] += 1
    return {me: sum(1 for got, games in others.values() if got * 2 > games)
            for me, others in head.items()}


def pentanomial(entrants: Sequence[Dict[str, Any]], records: Iterable[Dict[str, Any]]
                ) -> List[Dict[str, Any]]:
    """Per two entrants who played complete colour-swapped pairs: how many pairs the
    first (in entrant order) scored 0, 0.5, 1, 1.5 and 2 points in."""
    order = {entrant["name"]: index for index, entrant in enumerate(entrants)}
    by_pair: Dict[Any, List[Dict[str, Any]]] = {}
    for record in records:
        by_pair.setdefault(record.get("pair"), []).append(record)
    scores: Dict[Tuple[str, str], List[float]] = {}
    for games in by_pair.values():
        if len(games) != 2:
            continue
        first, second = games
        swapped = first["x"] == second["o"] and first["o"] == second["x"]
        if not swapped or first["x"] == first["o"]:
            continue
        a, b = sorted((first["x"], first["o"]), key=lambda name: order.get(name, len(order)))
        got = sum(_side_points(game, X_SIDE if game["x"] == a else O_SIDE) for game in games)
        scores.setdefault((a, b), []).append(got)
    return [{"a": a, "b": b, "counts": ratings.pentanomial(got)}
            for (a, b), got in sorted(scores.items(), key=lambda item: (
                order.get(item[0][0], 0), order.get(item[0][1], 0)))]


def bracket_rows(plan: schedule.Schedule) -> List[Dict[str, Any]]:
    """The ``knockout`` list of the document from a knockout :class:`Schedule`."""
    rows = []
    for number, (meetings, byes) in enumerate(plan.bracket or (), 1):
        rows.append({"round": number, "byes": list(byes), "matches": [
            {"a": m.a, "b": m.b, "winner": m.winner, "points": list(m.points),
             "margin": m.margin[0] - m.margin[1] if m.winner else None}
            for m in meetings]})
    return rows


def placings(plan: schedule.Schedule, names: Sequence[str]) -> Dict[str, Optional[str]]:
    """Knockout placings of ``names`` (see :func:`engine.tournament.schedule.placing`)."""
    return {name: schedule.placing(plan, name, len(names)) for name in names}
