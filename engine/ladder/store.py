"""The ladder's database (SQLAlchemy 2.x; SQLite by default, PostgreSQL for a large class).

Tables (created and upgraded by the Alembic migrations in engine/ladder/migrations):

    meta         key/value: the workers' token hash
    players      name, staff (our anchors ``ours:agent``, ``ours:greedy``), token hash
    submissions  per upload: status queued -> building -> ready | failed, its build log,
                 the archive's kind and hash; a lease while a worker builds it
    games        per scheduled game: its pair, board and size, the two submissions,
                 state pending -> leased -> done (or void: its worker died twice), the
                 lease, and once done the record (``tournament run --json``'s)
    sessions     the pages' logins: a hashed session id, its player and CSRF token

Durability: every change is one transaction. A result is accepted only from the worker
holding the game's lease, in the transaction that marks it done, so a game is never
recorded twice; a lease that expires (its worker was killed) puts the game back to
pending once, and a second expiry voids it. The web process is the only one that opens
the database; workers talk to it over HTTP.
"""

import json
import os
import secrets
import threading
import time

from sqlalchemy import (Boolean, Float, ForeignKey, Integer, String, Text, create_engine,
                        event, func, select, update)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, cast

from ..tournament import results as tournament_results
from ..tournament.games import rules_for
from . import config, scheduler

SESSION_SECONDS = 12 * 3600.0
# A build (make agent, then calibrate) may take this long before its lease is renewed.
BUILD_LEASE = 600.0
LOG_CHARS = 20000


class Base(DeclarativeBase):
    pass


class Meta(Base):
    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Player(Base):
    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    staff: Mapped[bool] = mapped_column(Boolean, default=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=True)
    created: Mapped[float] = mapped_column(Float)


class Submission(Base):
    __tablename__ = "submissions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    created: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), index=True)
    archive: Mapped[str] = mapped_column(String(16), nullable=True)
    path: Mapped[str] = mapped_column(String(200), nullable=True)
    size: Mapped[int] = mapped_column(Integer, default=0)
    sha256: Mapped[str] = mapped_column(String(64), nullable=True)
    build_log: Mapped[str] = mapped_column(Text, nullable=True)
    lease: Mapped[str] = mapped_column(String(64), nullable=True)
    lease_expires: Mapped[float] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class Game(Base):
    __tablename__ = "games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair: Mapped[int] = mapped_column(Integer, index=True)
    board: Mapped[int] = mapped_column(Integer)
    size: Mapped[str] = mapped_column(String(32))
    x_sub: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    o_sub: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    state: Mapped[str] = mapped_column(String(8), index=True)
    lease: Mapped[str] = mapped_column(String(64), nullable=True)
    lease_expires: Mapped[float] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str] = mapped_column(String(100), nullable=True)
    created: Mapped[float] = mapped_column(Float)
    finished: Mapped[float] = mapped_column(Float, nullable=True)
    record: Mapped[str] = mapped_column(Text, nullable=True)


class SessionRow(Base):
    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    csrf: Mapped[str] = mapped_column(String(64))
    expires: Mapped[float] = mapped_column(Float)


class Conflict(Exception):
    """A worker's report that does not match its lease (expired, or not its own)."""


def make_engine(url: str) -> Any:
    """The SQLAlchemy engine of ``url``; SQLite in WAL mode, waiting on locks."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)


def migrate(engine: Any) -> None:
    """Bring the database up to the newest schema (Alembic's ``upgrade head``)."""
    from alembic import command
    from alembic.config import Config
    alembic_config = Config()
    alembic_config.set_main_option(
        "script_location", os.path.join(os.path.dirname(__file__), "migrations"))
    with engine.begin() as connection:
        alembic_config.attributes["connection"] = connection
        command.upgrade(alembic_config, "head")


class Store:
    """The operations of the ladder on its database (see the module docstring)."""

    def __init__(self, settings: Dict[str, Any], engine: Any = None) -> None:
        self.settings = settings
        self.rules = rules_for(settings["game"])
        self.sizes = self.rules.parse_sizes(",".join(str(s) for s in settings["sizes"]))
        self.engine = engine or make_engine(config.database_url(settings))
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        # One scheduler at a time in this process (the web process is the only writer
        # that schedules; PostgreSQL's row locks guard the rest).
        self.lock = threading.Lock()
        # (the games and submissions they were computed from, the rows), see standings
        self._standings_cache: Tuple[Any, Optional[List[Dict[str, Any]]]] = (None, None)

    def close(self) -> None:
        self.engine.dispose()

    # --- players and tokens -------------------------------------------------------------

    def create(self, names: Iterable[str], worker_token: str) -> Dict[str, str]:
        """A new ladder: the players ``names`` (returns name -> token), our anchors, the
        workers' token hash."""
        tokens = {}
        now = time.time()
        with self.session.begin() as db:
            if db.get(Meta, "worker_token") is not None:
                raise config.LadderError("the database already holds a ladder (give "
                                         "another database, or drop its tables)")
            db.add(Meta(key="worker_token", value=config.token_hash(worker_token)))
            for name in names:
                token = config.new_token()
                tokens[name] = token
                db.add(Player(name=name, staff=False, token_hash=config.token_hash(token),
                              created=now))
            for path in self.rules.anchors:
                player = Player(name=path, staff=True, token_hash=None, created=now)
                db.add(player)
                db.flush()
                db.add(Submission(player_id=player.id, created=now, status="queued",
                                  archive=None, path=path, attempts=0))
        return tokens

    def player_of_token(self, token: Optional[str]) -> Optional[Tuple[int, str]]:
        """The (id, name) of the student whose token this is, or None."""
        if not token:
            return None
        with self.session() as db:
            player = db.scalar(select(Player).where(
                Player.token_hash == config.token_hash(token)))
            return None if player is None else (player.id, player.name)

    def is_worker(self, token: Optional[str]) -> bool:
        if not token:
            return False
        with self.session() as db:
            stored = db.get(Meta, "worker_token")
            return stored is not None and secrets.compare_digest(
                stored.value, config.token_hash(token))

    # --- page sessions ------------------------------------------------------------------

    def open_session(self, player_id: int) -> Tuple[str, str]:
        """A new login: (session id, csrf token)."""
        session_id, csrf = config.new_token(), config.new_token()
        with self.session.begin() as db:
            db.add(SessionRow(id_hash=config.token_hash(session_id), player_id=player_id,
                              csrf=csrf, expires=time.time() + SESSION_SECONDS))
        return session_id, csrf

    def session_of(self, session_id: Optional[str]) -> Optional[Tuple[int, str, str]]:
        """(player id, name, csrf) of a live session, or None."""
        if not session_id:
            return None
        with self.session() as db:
            row = db.get(SessionRow, config.token_hash(session_id))
            if row is None or row.expires < time.time():
                return None
            player = db.get(Player, row.player_id)
            return player.id, player.name, row.csrf

    def close_session(self, session_id: str) -> None:
        with self.session.begin() as db:
            row = db.get(SessionRow, config.token_hash(session_id))
            if row is not None:
                db.delete(row)

    # --- submissions --------------------------------------------------------------------

    def add_submission(self, player_id: int, kind: str, size: int, digest: str) -> int:
        """Record an upload (its archive is then stored as uploads/ID.<kind>); its id."""
        with self.session.begin() as db:
            row = Submission(player_id=player_id, created=time.time(), status="uploading",
                             archive=kind, size=size, sha256=digest, attempts=0)
            db.add(row)
            db.flush()
            return row.id

    def recover(self) -> None:
        """At the web process's start: an upload cut off by a crash (its archive never
        stored) is marked failed; leases left by the last run expire by themselves."""
        with self.session.begin() as db:
            for row in db.scalars(select(Submission).where(
                    Submission.status == "uploading")).all():
                row.status = "failed"
                row.build_log = "the server stopped while this upload was being stored"

    def queue_submission(self, submission_id: int) -> None:
        """The upload's archive is in place: a worker may build it."""
        with self.session.begin() as db:
            db.get(Submission, submission_id).status = "queued"

    def current_of(self, player_id: int) -> Optional[int]:
        """The id of the player's submission that plays now, or None."""
        with self.session() as db:
            return self.current_submissions(db).get(player_id)

    def drop_submission(self, submission_id: int) -> None:
        """Forget an upload whose archive could not be stored."""
        with self.session.begin() as db:
            row = db.get(Submission, submission_id)
            if row is not None:
                db.delete(row)

    def submission(self, submission_id: int,
                   player_id: Optional[int] = None) -> Optional[Dict[str, Any]]:
        """The submission as the API shows it (own only when ``player_id`` is given:
        another's is None, as a missing one)."""
        with self.session() as db:
            row = db.get(Submission, submission_id)
            if row is None or (player_id is not None and row.player_id != player_id):
                return None
            player = db.get(Player, row.player_id)
            games = db.scalars(select(Game).where(
                Game.state == "done", (Game.x_sub == row.id) | (Game.o_sub == row.id))
                .order_by(Game.id)).all()
        forfeits = []
        for game in games:
            record = json.loads(game.record)
            forfeit = record.get("forfeit")
            side = "x" if game.x_sub == row.id else "o"
            if forfeit and forfeit.get("player") == side:
                forfeits.append({"game": game.id, "reason": forfeit.get("reason"),
                                 "detail": forfeit.get("detail")})
        return {"id": row.id, "player": player.name, "status": row.status,
                "created": row.created, "size": row.size, "sha256": row.sha256,
                "build_log": row.build_log or "", "games": len(games),
                "forfeits": forfeits}

    def submissions_of(self, player_id: int) -> List[Optional[Dict[str, Any]]]:
        with self.session() as db:
            rows = db.scalars(select(Submission).where(Submission.player_id == player_id)
                              .order_by(Submission.id.desc())).all()
        return [self.submission(row.id) for row in rows]

    def archive_of(self, submission_id: int) -> Optional[Tuple[Optional[str], Optional[str], str]]:
        """(kind, path of staff, player name) of a submission, or None."""
        with self.session() as db:
            row = db.get(Submission, submission_id)
            if row is None:
                return None
            return row.archive, row.path, db.get(Player, row.player_id).name

    # --- standings ----------------------------------------------------------------------

    def _done_games(self, db: Any) -> Any:
        return db.execute(select(Game.id, Game.x_sub, Game.o_sub, Game.record)
                          .where(Game.state == "done").order_by(Game.id)).all()

    def current_submissions(self, db: Any) -> Dict[int, int]:
        """player id -> the id of its latest ready submission."""
        rows = db.execute(select(Submission.player_id, func.max(Submission.id))
                          .where(Submission.status == "ready")
                          .group_by(Submission.player_id)).all()
        return {player_id: submission_id for player_id, submission_id in rows}

    def document(self) -> Dict[str, Any]:
        """The tournament results document of everything played (``ladder export``, the
        standings): entrants are the players' current submissions, named by the player,
        and their older submissions that played, named ``NAME@ID``."""
        with self.session() as db:
            current = self.current_submissions(db)
            players = {p.id: p for p in db.scalars(select(Player)).all()}
            subs = {s.id: s for s in db.scalars(select(Submission)).all()}
            games = self._done_games(db)
        current_ids = set(current.values())

        def name_of(sid: int) -> str:
            sub = subs[sid]
            name = players[sub.player_id].name
            return name if sid in current_ids else f"{name}@{sid}"
        records, seen = [], {}
        for _game_id, x_sub, o_sub, text in games:
            record = json.loads(text)
            record["x"], record["o"] = name_of(x_sub), name_of(o_sub)
            records.append(record)
            seen[x_sub] = seen[o_sub] = True
        entrants: List[Dict[str, Any]] = []
        builds: Dict[str, Optional[str]] = {}       # entrant name -> build error, or None
        for sid in sorted(set(seen) | current_ids):
            sub = subs[sid]
            player = players[sub.player_id]
            entrants.append({"name": name_of(sid), "path": sub.path or f"submission {sid}",
                             "kind": "ours" if player.staff else (sub.archive or "?"),
                             "staff": player.staff, "submission": sid})
            builds[name_of(sid)] = None
        for player in players.values():
            if player.id in current:
                continue
            failed = [s for s in subs.values() if s.player_id == player.id
                      and s.status == "failed"]
            if failed:
                last = max(failed, key=lambda s: s.id)
                if any(e["name"] == player.name for e in entrants):
                    continue
                entrants.append({"name": player.name, "path": f"submission {last.id}",
                                 "kind": last.archive or "?", "staff": player.staff,
                                 "submission": last.id})
                builds[player.name] = last.build_log or "build failed"
        header = {"game": self.rules.name, "format": "ladder",
                  "time": self.settings["time"], "seed": self.settings["seed"],
                  "isolation": self.settings.get("isolation", "auto"),
                  "sizes": self.settings["sizes"], "pairs": None, "games_per_match": None,
                  "rounds": None, "shard": None}
        plain = [{key: e[key] for key in ("name", "path", "kind", "staff")}
                 for e in entrants]
        document = tournament_results.assemble(header, plain, builds, records, False)
        by_name = {e["name"]: e["submission"] for e in entrants}
        for row in document["entrants"]:
            row["submission"] = by_name.get(row["name"])
        return document

    def standings(self) -> List[Dict[str, Any]]:
        """The leaderboard rows (current submissions, best rating first), cached until a
        game or a build changes them."""
        with self.session() as db:
            key = (db.scalar(select(func.count()).select_from(Game)
                             .where(Game.state == "done")),
                   tuple(sorted(self.current_submissions(db).values())))
        cached_key, cached = self._standings_cache
        if cached_key == key:
            return cast(List[Dict[str, Any]], cached)   # a key is never None: rows are set
        document = self.document()
        rows = []
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
        self._standings_cache = (key, rows)
        return rows

    # --- games --------------------------------------------------------------------------

    def game_record(self, game_id: int) -> Optional[Dict[str, Any]]:
        """The record of a finished game, or None."""
        with self.session() as db:
            game = db.get(Game, game_id)
            if game is None or game.state != "done":
                return None
            return json.loads(game.record)

    def games_of(self, player: Optional[str] = None, submission: Optional[int] = None,
                 limit: int = 500) -> List[Dict[str, Any]]:
        """Finished games' records, newest first: of ``player`` (a name) or of one
        ``submission`` when given."""
        with self.session() as db:
            query = select(Game).where(Game.state == "done")
            if submission is not None:
                query = query.where((Game.x_sub == submission) | (Game.o_sub == submission))
            elif player is not None:
                found = db.scalar(select(Player).where(Player.name == player))
                if found is None:
                    return []
                mine = select(Submission.id).where(Submission.player_id == found.id)
                query = query.where(Game.x_sub.in_(mine) | Game.o_sub.in_(mine))
            games = db.scalars(query.order_by(Game.id.desc()).limit(limit)).all()
            return [json.loads(game.record) for game in games]

    def counts(self) -> Tuple[Dict[str, int], Dict[str, int]]:
        """{state: games} and {status: submissions}."""
        with self.session() as db:
            games = dict(db.execute(select(Game.state, func.count()).group_by(Game.state))
                         .all())
            subs = dict(db.execute(select(Submission.status, func.count())
                                   .group_by(Submission.status)).all())
        return games, subs

    # --- leases -------------------------------------------------------------------------

    def lease(self, worker: str) -> Optional[Dict[str, Any]]:
        """The next piece of work for ``worker``: a build, a game, or nothing (None).
        Expired leases are returned to the queue first (once; a second expiry voids)."""
        now = time.time()
        with self.lock, self.session.begin() as db:
            self._expire(db, now)
            build = db.scalars(select(Submission).where(Submission.status == "queued")
                               .order_by(Submission.id).limit(1)
                               .with_for_update(skip_locked=True)).first()
            if build is not None:
                build.status = "building"
                build.lease = config.new_token()
                build.lease_expires = now + BUILD_LEASE
                build.attempts += 1
                player = db.get(Player, build.player_id)
                return {"kind": "build", "lease": build.lease, "expires": BUILD_LEASE,
                        "submission": self._describe(build, player)}
            game = self._pending_game(db)
            if game is None:
                self._schedule(db, now)
                game = self._pending_game(db)
            if game is None:
                return None
            game.state = "leased"
            game.lease = config.new_token()
            game.lease_expires = now + float(self.settings["lease"])
            game.attempts += 1
            game.worker = worker[:100]
            x, o = db.get(Submission, game.x_sub), db.get(Submission, game.o_sub)
            return {"kind": "game", "lease": game.lease,
                    "expires": float(self.settings["lease"]),
                    "game": {"id": game.id, "pair": game.pair, "board": game.board,
                             "size": game.size,
                             "x": self._describe(x, db.get(Player, x.player_id)),
                             "o": self._describe(o, db.get(Player, o.player_id))}}

    @staticmethod
    def _describe(submission: Any, player: Any) -> Dict[str, Any]:
        return {"id": submission.id, "player": player.name, "staff": player.staff,
                "path": submission.path, "archive": submission.archive,
                "sha256": submission.sha256}

    def _expire(self, db: Any, now: float) -> None:
        for game in db.scalars(select(Game).where(Game.state == "leased",
                                                  Game.lease_expires < now)).all():
            game.state = "pending" if game.attempts < 2 else "void"
            game.lease = None
        for build in db.scalars(select(Submission).where(
                Submission.status == "building", Submission.lease_expires < now)).all():
            if build.attempts < 2:
                build.status = "queued"
            else:
                build.status = "failed"
                build.build_log = "the build's worker stopped twice before it finished"
            build.lease = None

    def _pending_game(self, db: Any) -> Any:
        """The oldest pending game whose two submissions still play (pending games of a
        superseded submission are voided here)."""
        current = set(self.current_submissions(db).values())
        for game in db.scalars(select(Game).where(Game.state == "pending")
                               .order_by(Game.id).with_for_update(skip_locked=True)).all():
            if game.x_sub in current and game.o_sub in current:
                return game
            game.state = "void"
        return None

    def _schedule(self, db: Any, now: float) -> None:
        """Add the next colour-swapped pair (see engine.ladder.scheduler)."""
        current = self.current_submissions(db)
        if len(current) < 2:
            return
        players = {p.id: p for p in db.scalars(select(Player)).all()}
        standings = {row["submission"]: row for row in self.standings()}
        counts = {}
        for sid in current.values():
            counts[sid] = db.scalar(select(func.count()).select_from(Game).where(
                Game.state != "void", (Game.x_sub == sid) | (Game.o_sub == sid)))
        active = []
        for player_id, sid in sorted(current.items()):
            row = standings.get(sid, {})
            active.append(scheduler.Active(
                sid, players[player_id].name, players[player_id].staff, row.get("rating"),
                row.get("rating_low"), row.get("rating_high"), counts[sid]))
        met: Dict[FrozenSet[int], float] = {}
        busy: Set[int] = set()
        ids = list(current.values())
        for x_sub, o_sub, state in db.execute(
                select(Game.x_sub, Game.o_sub, Game.state).where(
                    Game.state != "void", Game.x_sub.in_(ids), Game.o_sub.in_(ids))).all():
            key = frozenset((x_sub, o_sub))
            met[key] = met.get(key, 0) + 0.5
            if state in ("pending", "leased"):
                busy.update((x_sub, o_sub))
        pairs_of = {sid: count // 2 for sid, count in counts.items()}
        chosen = scheduler.next_pair(active, pairs_of, met, busy,
                                     int(self.settings["placement_pairs"]))
        if chosen is None:
            return
        pair = (db.scalar(select(func.max(Game.pair))) or 0) + 1
        size = scheduler.size_of_pair(self.sizes, pair)
        for x_sub, o_sub in (chosen, chosen[::-1]):
            db.add(Game(pair=pair, board=pair, size=str(size), x_sub=x_sub, o_sub=o_sub,
                        state="pending", attempts=0, created=now))
        db.flush()

    def extend(self, lease: str) -> None:
        """Renew a live lease (a build or a game); Conflict when it is not live."""
        now = time.time()
        with self.session.begin() as db:
            changed = db.execute(update(Game).where(Game.lease == lease,
                                                    Game.state == "leased")
                                 .values(lease_expires=now + float(self.settings["lease"])))
            if changed.rowcount:
                return
            changed = db.execute(update(Submission).where(
                Submission.lease == lease, Submission.status == "building")
                .values(lease_expires=now + BUILD_LEASE))
            if not changed.rowcount:
                raise Conflict("this lease has expired")

    def finish_build(self, submission_id: int, lease: str, error: Optional[str]) -> None:
        """A worker's build result; Conflict when its lease is not live."""
        with self.session.begin() as db:
            row = db.get(Submission, submission_id)
            if row is None or row.lease != lease or row.status != "building":
                raise Conflict("this build's lease has expired")
            row.status = "ready" if error is None else "failed"
            row.build_log = None if error is None else str(error)[:LOG_CHARS]
            row.lease = None

    def finish_game(self, game_id: int, lease: str, record: Dict[str, Any]) -> None:
        """A worker's finished game, stored in the transaction that marks it done;
        Conflict when its lease is not live (the game is someone else's now)."""
        with self.session.begin() as db:
            game = db.get(Game, game_id)
            if game is None or game.lease != lease or game.state != "leased":
                raise Conflict("this game's lease has expired")
            x_name = db.get(Player, db.get(Submission, game.x_sub).player_id).name
            o_name = db.get(Player, db.get(Submission, game.o_sub).player_id).name
            record = dict(record, id=game.id, round=1, match=game.pair, pair=game.pair,
                          x=x_name, o=o_name)
            game.record = json.dumps(record, ensure_ascii=False)
            game.state = "done"
            game.finished = time.time()
            game.lease = None

    def give_back(self, lease: str) -> None:
        """A worker could not play its game (an error of ours, not an entrant's): the
        game is pending again (counted as an attempt)."""
        with self.session.begin() as db:
            db.execute(update(Game).where(Game.lease == lease, Game.state == "leased")
                       .values(state="pending", lease=None))
