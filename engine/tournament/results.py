"""The tournament's results document: assembled from the games, written atomically,
read back for ``--resume`` and ``merge``, and its standings as CSV.

The document (docs/tournament.md has every field) holds a header (the game, format, time,
seed, sizes and the format's parameters: what decides the schedule), the entrants with
their standings, every game played and, per pair of entrants, pentanomial counts. The
standings are never read back: a resumed or merged tournament recomputes them from the
games (:mod:`engine.tournament.standings`), so they are always those of the games in the
file.
"""

import csv
import io
import json
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..grading.printable import csv_cell
from ..commandline import write_atomically
from . import schedule, standings
from .games import rules_for
from ..errors import EngineError

# What decides the schedule: two documents disagreeing on one of these are different
# tournaments (resume and merge refuse them).
SCHEDULE_FIELDS = ("game", "format", "time", "seed", "sizes", "pairs", "games_per_match",
                   "rounds")
GAME_FIELDS = ("id", "round", "match", "pair", "size", "x", "o", "cells", "moves",
               "result", "score", "cpu", "forfeit")
CSV_FIELDS = ("place", "name", "staff", "kind", "points", "games", "wins", "draws",
              "losses", "beaten", "rating", "rating_low", "rating_high", "cpu_per_game",
              "margin", "forfeits", "byes", "placing", "build_error", "path")


class ResultsError(EngineError, ValueError):
    """A results file that cannot be read, or files that do not belong together."""


def assemble(header: Dict[str, Any], entrants: Sequence[Dict[str, Any]],
             builds: Dict[str, Optional[str]], records: Iterable[Dict[str, Any]], complete: bool,
             sprt: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The whole document: ``header`` (SCHEDULE_FIELDS plus isolation and shard),
    ``entrants`` (dicts: name, path, kind, staff), ``builds`` (name -> build error or
    None), ``records`` (the games, any order), whether the run is ``complete``, and the
    SPRT summary when there is one."""
    games = sorted(records, key=lambda record: record["id"])
    played = {record["id"]: record for record in games}
    names = [entrant["name"] for entrant in entrants if builds.get(entrant["name"]) is None]
    staff = {entrant["name"] for entrant in entrants if entrant["staff"]}
    plan: Optional[schedule.Schedule] = None
    if header["format"] in schedule.FORMATS:
        sizes = parse_sizes(header)
        plan = schedule.make(header["format"], names, staff, header["seed"], sizes,
                             header["pairs"], header["games_per_match"], header["rounds"],
                             played)
    byes = plan.byes if plan is not None else None
    bye_points = (schedule.bye_points(plan, header["pairs"])
                  if plan is not None and header["format"] == "swiss" else None)
    placings = (standings.placings(plan, names)
                if plan is not None and header["format"] == "knockout" else None)
    rows = standings.entrant_rows(entrants, builds, games, byes, bye_points, placings)
    document = dict(header)
    document.update(
        complete=complete, entrants=rows, games=games,
        pentanomial=standings.pentanomial(entrants, games),
        knockout=(standings.bracket_rows(plan)
                  if plan is not None and header["format"] == "knockout" else None),
        sprt=sprt)
    return document


def parse_sizes(header: Dict[str, Any]) -> List[Any]:
    """The header's sizes as the game's size objects."""
    rules = rules_for(header["game"])
    return rules.parse_sizes(",".join(str(size) for size in header["sizes"]))


def save(path: str, document: Dict[str, Any]) -> None:
    """Replace ``path`` by ``document`` at once (a reader never sees half a file)."""
    write_atomically(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def load(path: str) -> Dict[str, Any]:
    """The document in ``path``. Raises ResultsError (one line) when it cannot be read
    or is no tournament's results."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise ResultsError(f"cannot read {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ResultsError(f"{path} is not a tournament's JSON results: {error}") from None
    if not isinstance(document, dict) or any(field not in document for field in
                                             SCHEDULE_FIELDS + ("entrants", "games")):
        raise ResultsError(f"{path} is not a tournament's JSON results (fields missing)")
    if not isinstance(document["games"], list) or not isinstance(document["entrants"], list):
        raise ResultsError(f"{path}: games and entrants must be lists")
    for record in document["games"]:
        if not isinstance(record, dict) or any(field not in record for field in GAME_FIELDS):
            raise ResultsError(f"{path}: a game record lacks fields "
                               f"({', '.join(GAME_FIELDS)} are needed)")
    try:
        rules_for(document["game"])
    except (KeyError, TypeError):
        raise ResultsError(f"{path}: unknown game {document['game']!r}") from None
    return document


def entrant_identity(document: Dict[str, Any]) -> List[Tuple[str, str, bool]]:
    """The entrants as the schedule sees them: (name, path, staff) in order."""
    return [(row["name"], row["path"], bool(row["staff"])) for row in document["entrants"]]


def check_same_tournament(first: Dict[str, Any], other: Dict[str, Any], what: str) -> None:
    """Raise ResultsError when ``other`` is not the tournament of ``first`` (a field of
    SCHEDULE_FIELDS or the entrants differ); ``what`` names ``other`` in the message."""
    for field in SCHEDULE_FIELDS:
        if first.get(field) != other.get(field):
            raise ResultsError(f"{what} is another tournament: its {field} is "
                               f"{other.get(field)!r}, not {first.get(field)!r}")
    if entrant_identity(first) != entrant_identity(other):
        raise ResultsError(f"{what} is another tournament: its entrants differ")


def games_of(documents: Sequence[Dict[str, Any]], names: Sequence[str]
             ) -> Dict[int, Dict[str, Any]]:
    """The games of ``documents`` by id. Raises ResultsError when two hold different
    games under one id (``names`` name the documents)."""
    games: Dict[int, Dict[str, Any]] = {}
    for document, name in zip(documents, names):
        for record in document["games"]:
            known = games.get(record["id"])
            if known is not None and known != record:
                raise ResultsError(f"{name} and another file hold different games "
                                   f"with id {record['id']}")
            games[record["id"]] = record
    return games


def builds_of(documents: Iterable[Dict[str, Any]]) -> Dict[str, Optional[str]]:
    """name -> build error over ``documents`` (an entrant failed if it failed anywhere)."""
    errors: Dict[str, Optional[str]] = {}
    for document in documents:
        for row in document["entrants"]:
            if row.get("build_error") or row["name"] not in errors:
                errors[row["name"]] = row.get("build_error") or errors.get(row["name"])
    return errors


def merge(documents: Sequence[Dict[str, Any]], names: Sequence[str]) -> Dict[str, Any]:
    """One document from shards of one tournament (``names`` name them in messages),
    standings refitted over all their games. Raises ResultsError."""
    if not documents:
        raise ResultsError("nothing to merge")
    first = documents[0]
    for document, name in zip(documents[1:], names[1:]):
        check_same_tournament(first, document, name)
    games = games_of(documents, names)
    builds = builds_of(documents)
    header = {field: first[field] for field in SCHEDULE_FIELDS}
    header["isolation"] = "; ".join(sorted({d.get("isolation", "") for d in documents}))
    header["shard"] = None
    entrants = [{"name": row["name"], "path": row["path"], "kind": row["kind"],
                 "staff": row["staff"]} for row in first["entrants"]]
    complete = all(document.get("complete") for document in documents)
    if first["format"] in schedule.FORMATS:
        played_names = [row["name"] for row in entrants if builds.get(row["name"]) is None]
        plan = schedule.make(first["format"], played_names,
                             {row["name"] for row in entrants if row["staff"]},
                             first["seed"], parse_sizes(first), first["pairs"],
                             first["games_per_match"], first["rounds"], games)
        complete = plan.final and all(game.id in games for game in plan.games)
    return assemble(header, entrants, builds, list(games.values()), complete,
                    first.get("sprt"))


def csv_text(document: Dict[str, Any]) -> str:
    """The standings as CSV: one row per entrant, best first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for place, row in enumerate(ranked(document["entrants"]), 1):
        writer.writerow([_cell(value) for value in (
            place, row["name"], "staff" if row["staff"] else "", row["kind"], row["points"],
            row["games"], row["wins"], row["draws"], row["losses"], row["beaten"],
            row["rating"],
            row["rating_low"], row["rating_high"], row["cpu_per_game"], row["margin"],
            "; ".join(f"{reason}: {count}" for reason, count in sorted(
                row["forfeits"].items())),
            row["byes"], row["placing"], row["build_error"], row["path"])])
    return out.getvalue()


def _cell(value: object) -> object:
    """A CSV cell (:func:`engine.grading.printable.csv_cell`); nothing for None."""
    return "" if value is None else csv_cell(value)


def placing_rank(placing: object) -> Tuple[int, int]:
    """Sort key of a knockout placing: the winner first, then the finalist, the
    semi-finalists, the quarter-finalists, then those out in a later round first."""
    named = {"winner": 0, "finalist": 1, "semi-finalist": 2, "quarter-finalist": 3}
    if not isinstance(placing, str):
        return (5, 0)
    if placing in named:
        return (named[placing], 0)
    number = placing[len("round "):]
    if placing.startswith("round ") and number.isdigit():
        return (4, -int(number))
    return (5, 0)


def ranked(rows: Iterable[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Entrants best first: the knockout placing (when there is one), then points, then
    rating, then fewer games lost by forfeit."""
    def key(row: Dict[str, Any]) -> Tuple[bool, Tuple[int, int], float, float, int, str]:
        rating = row["rating"] if row["rating"] is not None else float("-inf")
        return (row["build_error"] is not None, placing_rank(row.get("placing")),
                -row["points"], -rating, sum(row["forfeits"].values()), row["name"])
    return sorted(rows, key=key)
