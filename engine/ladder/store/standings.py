"""The standings: computed once per change, never per request and never in the
scheduler's loop.

Every change the standings depend on bumps the database's version
(:meth:`engine.ladder.store.database.Database.changed`: a game done, a build finished).
A refresher thread recomputes the standings when the version moved, at most once every
:data:`MIN_SPACING` seconds and never more than a fifth of the time (the joint rating
fit of thousands of games costs a fraction of a second), and publishes a
:class:`Snapshot`: the leaderboard rows, the /api/leaderboard body as bytes, and each
submission's rating for the scheduler. Requests and the scheduler read the latest
snapshot. Each refresh also adds a point to a player's rating history when its games
changed (for the chart of /me).

The document is the tournament's results document of every rated game (``ladder
export``; unrated challenge games are left out of the ratings): entrants are the
players' current submissions, named by the player, and their older submissions that
played, named ``NAME@ID``.
"""

import json
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple

from sqlalchemy import select

from ...tournament import results as tournament_results
from .database import Database
from .schema import DONE, FAILED, Game, Player, RatingPoint, Submission
from .submissions import current_submissions

MIN_SPACING = 1.0
DUTY = 5.0
# A player's history gets a point at most this often.
POINT_SPACING = 60.0
API_FIELDS = ("name", "rating", "rating_low", "rating_high", "games", "wins", "draws",
              "losses", "submission", "staff")
Rating = Tuple[Optional[float], Optional[float], Optional[float]]


class Snapshot(NamedTuple):
    """The standings at one version: ``rows`` (best rating first, the unrated last),
    ``body`` (/api/leaderboard's JSON), ``by_submission`` (id -> (rating, low, high))
    of every entrant that played, current or not."""
    version: int
    rows: List[Dict[str, Any]]
    body: bytes
    by_submission: Dict[int, Rating]
    computed: float
    seconds: float


EMPTY = Snapshot(-1, [], b"[]", {}, 0.0, 0.0)


class Standings:
    """See the module docstring."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._snapshot = EMPTY
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._points: Dict[int, Tuple[int, float]] = {}    # player -> (games, at)

    # --- the snapshot -------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The latest standings (computed now only the very first time)."""
        snapshot = self._snapshot
        if snapshot.version < 0:
            return self.refresh()
        return snapshot

    def refresh(self) -> Snapshot:
        """Compute the standings of the current version now and publish them."""
        with self._lock:
            version = self.db.version
            if self._snapshot.version == version:
                return self._snapshot
            started = time.perf_counter()
            rows, by_submission = self._rows()
            body = json.dumps([{key: row[key] for key in API_FIELDS} for row in rows],
                              separators=(",", ":")).encode()
            self._snapshot = Snapshot(version, rows, body, by_submission, time.time(),
                                      time.perf_counter() - started)
            self._add_points(rows)
            return self._snapshot

    def start(self) -> None:
        """Refresh in a thread of its own from now on (the web process)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._refresher, name="standings",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    def _refresher(self) -> None:
        seen = self._snapshot.version
        while not self._stop.is_set():
            version = self.db.wait_for_change(seen, 1.0)
            if version == seen:
                continue
            last = self._snapshot
            spacing = max(MIN_SPACING, DUTY * last.seconds)
            if self._stop.wait(max(0.0, last.computed + spacing - time.time())):
                return
            try:
                seen = self.refresh().version
            except Exception as error:  # noqa: BLE001 - a database hiccup: next change
                print(f"ladder: the standings could not be computed ({type(error).__name__})",
                      flush=True)
                self._stop.wait(5.0)

    # --- computing ----------------------------------------------------------------------

    def _rows(self) -> Tuple[List[Dict[str, Any]], Dict[int, Rating]]:
        document = self.document()
        by_submission: Dict[int, Rating] = {}
        rows = []
        for row in document["entrants"]:
            if row.get("submission") is not None and row["rating"] is not None:
                by_submission[row["submission"]] = (row["rating"], row["rating_low"],
                                                    row["rating_high"])

        # Best rating first (players meet different opponents and different numbers of
        # them: points would rank by activity); the unrated last.
        def by_rating(row: Dict[str, Any]) -> Tuple[bool, float, str]:
            return (row["rating"] is None, -(row["rating"] or 0.0), row["name"])
        for row in sorted(document["entrants"], key=by_rating):
            if row["build_error"] is not None or "@" in row["name"]:
                continue  # a failed build, or an older submission of a player
            rows.append({"name": row["name"], "rating": row["rating"],
                         "rating_low": row["rating_low"], "rating_high": row["rating_high"],
                         "games": row["games"], "wins": row["wins"], "draws": row["draws"],
                         "losses": row["losses"], "submission": row["submission"],
                         "staff": row["staff"], "points": row["points"],
                         "forfeits": sum(row["forfeits"].values())})
        return rows, by_submission

    def document(self, private: bool = False) -> Dict[str, Any]:
        """The results document of every rated game (see the module docstring); with
        ``private``, each forfeit's detail too (the instructor's export)."""
        with self.db.session() as session:
            current = current_submissions(session)
            players = {p.id: p for p in session.scalars(select(Player)).all()}
            subs = {s.id: s for s in session.scalars(select(Submission)).all()}
            games = session.execute(select(Game.x_sub, Game.o_sub, Game.record, Game.private)
                                    .where(Game.state == DONE, Game.rated)
                                    .order_by(Game.id)).all()
        current_ids = set(current.values())

        def name_of(sid: int) -> str:
            name = players[subs[sid].player_id].name
            return name if sid in current_ids else f"{name}@{sid}"
        records: List[Dict[str, Any]] = []
        seen: Set[int] = set()
        for x_sub, o_sub, text, hidden in games:
            record = json.loads(text)
            record["x"], record["o"] = name_of(x_sub), name_of(o_sub)
            if private and hidden and record.get("forfeit"):
                record["forfeit"]["detail"] = json.loads(hidden).get("detail", "")
            records.append(record)
            seen.update((x_sub, o_sub))
        entrants, builds = self._entrants(players, subs, current, seen, name_of)
        settings = self.db.settings
        header = {"game": self.db.rules.name, "format": "ladder", "time": settings["time"],
                  "seed": settings["seed"], "isolation": settings.get("isolation", "auto"),
                  "sizes": settings["sizes"], "pairs": None, "games_per_match": None,
                  "rounds": None, "shard": None}
        plain = [{key: e[key] for key in ("name", "path", "kind", "staff")}
                 for e in entrants]
        document = tournament_results.assemble(header, plain, builds, records, False)
        by_name = {e["name"]: e["submission"] for e in entrants}
        for row in document["entrants"]:
            row["submission"] = by_name.get(row["name"])
        return document

    @staticmethod
    def _entrants(players: Dict[int, Any], subs: Dict[int, Any], current: Dict[int, int],
                  seen: Set[int], name_of: Callable[[int], str]) -> Tuple[List[Dict[str, Any]],
                                                    Dict[str, Optional[str]]]:
        """The document's entrants (current and older submissions that played, and a
        player whose every upload failed, with its last build error) and their builds."""
        entrants: List[Dict[str, Any]] = []
        builds: Dict[str, Optional[str]] = {}
        for sid in sorted(seen | set(current.values())):
            sub = subs[sid]
            player = players[sub.player_id]
            entrants.append({"name": name_of(sid), "path": sub.path or f"submission {sid}",
                             "kind": "ours" if player.staff else (sub.archive or "?"),
                             "staff": player.staff, "submission": sid})
            builds[name_of(sid)] = None
        named = {entrant["name"] for entrant in entrants}
        for player in players.values():
            if player.id in current or player.name in named:
                continue
            failed = [s for s in subs.values() if s.player_id == player.id
                      and s.status == FAILED]
            if failed:
                last = max(failed, key=lambda s: s.id)
                entrants.append({"name": player.name, "path": f"submission {last.id}",
                                 "kind": last.archive or "?", "staff": player.staff,
                                 "submission": last.id})
                builds[player.name] = last.build_log or "build failed"
        return entrants, builds

    # --- history ------------------------------------------------------------------------

    def _add_points(self, rows: List[Dict[str, Any]]) -> None:
        """A point of history per player whose games changed since its last point (at
        most one per :data:`POINT_SPACING` seconds)."""
        now = time.time()
        fresh = []
        with self.db.session() as session:
            owners = dict(session.execute(select(Submission.id, Submission.player_id)
                                          .where(Submission.id.in_(
                                              [row["submission"] for row in rows]))).all())
        for row in rows:
            player_id = owners.get(row["submission"])
            if player_id is None or row["rating"] is None:
                continue
            games, at = self._points.get(player_id, (-1, 0.0))
            if games == row["games"] or now - at < POINT_SPACING:
                continue
            self._points[player_id] = (row["games"], now)
            fresh.append(RatingPoint(player_id=player_id, submission_id=row["submission"],
                                     at=now, games=row["games"], rating=row["rating"],
                                     low=row["rating_low"], high=row["rating_high"]))
        if fresh:
            with self.db.session.begin() as session:
                session.add_all(fresh)

    def history(self, player_id: int, limit: int = 500) -> List[Dict[str, Any]]:
        """The player's rating points, oldest first: at, submission, games, rating, low,
        high."""
        with self.db.session() as session:
            points = session.scalars(select(RatingPoint).where(
                RatingPoint.player_id == player_id).order_by(RatingPoint.id.desc())
                .limit(limit)).all()
        return [{"at": p.at, "submission": p.submission_id, "games": p.games,
                 "rating": p.rating, "low": p.low, "high": p.high} for p in reversed(points)]
