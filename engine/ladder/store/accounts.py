"""Who may do what: the students (their token's SHA-256), our anchors, the workers (one
token each, revocable) and the pages' login sessions. Only hashes of tokens are kept."""

import secrets
import time
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

from sqlalchemy import func, select

from .. import config
from .database import Database
from .schema import QUEUED, Player, SessionRow, Submission, Worker

SESSION_SECONDS = 12 * 3600.0
LOCAL_WORKERS = "local"


class Caller(NamedTuple):
    """A token's owner: its id and name (a player's or a worker's)."""
    id: int
    name: str


class Accounts:
    """See the module docstring."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, names: Iterable[str], worker_token: str) -> Dict[str, str]:
        """A new ladder: the players ``names`` (returns name -> token), our anchors (each
        with its one submission, queued for building), and the local workers' token."""
        tokens = {}
        now = time.time()
        with self.db.session.begin() as session:
            if session.scalar(select(Player).limit(1)) is not None:
                raise config.LadderError("the database already holds a ladder (give "
                                         "another database, or drop its tables)")
            session.add(Worker(name=LOCAL_WORKERS, token_hash=config.token_hash(worker_token),
                               created=now, revoked=False))
            for name in names:
                token = config.new_token()
                tokens[name] = token
                session.add(Player(name=name, staff=False,
                                   token_hash=config.token_hash(token), created=now))
            for path in self.db.rules.anchors:
                player = Player(name=path, staff=True, token_hash=None, created=now)
                session.add(player)
                session.flush()
                session.add(Submission(player_id=player.id, created=now, status=QUEUED,
                                       archive=None, path=path, attempts=0))
        return tokens

    def player_of_token(self, token: Optional[str]) -> Optional[Caller]:
        """The student whose token this is, or None."""
        if not token:
            return None
        with self.db.session() as session:
            player = session.scalar(select(Player).where(
                Player.token_hash == config.token_hash(token)))
            return None if player is None else Caller(player.id, player.name)

    def players(self) -> int:
        """How many players the ladder has (students and anchors): the class's size."""
        with self.db.session() as session:
            return int(session.scalar(select(func.count()).select_from(Player)) or 0)

    def player_named(self, name: str) -> Optional[Caller]:
        with self.db.session() as session:
            player = session.scalar(select(Player).where(Player.name == name))
            return None if player is None else Caller(player.id, player.name)

    # --- workers ------------------------------------------------------------------------

    def worker_of_token(self, token: Optional[str]) -> Optional[Caller]:
        """The live (not revoked) worker whose token this is, or None."""
        if not token:
            return None
        digest = config.token_hash(token)
        with self.db.session() as session:
            worker = session.scalar(select(Worker).where(Worker.token_hash == digest))
        if worker is None or worker.revoked or not secrets.compare_digest(
                worker.token_hash, digest):
            return None
        return Caller(worker.id, worker.name)

    def add_worker(self, name: str) -> str:
        """A new worker token named ``name`` (LadderError when the name is taken)."""
        token = config.new_token()
        with self.db.session.begin() as session:
            if session.scalar(select(Worker).where(Worker.name == name)) is not None:
                raise config.LadderError(f"a worker named {name} exists already "
                                         "(revoke it first, or choose another name)")
            session.add(Worker(name=name, token_hash=config.token_hash(token),
                               created=time.time(), revoked=False))
        return token

    def revoke_worker(self, name: str) -> None:
        """Revoke the worker token ``name``: its leases die with it (LadderError when no
        such worker)."""
        with self.db.session.begin() as session:
            worker = session.scalar(select(Worker).where(Worker.name == name))
            if worker is None:
                raise config.LadderError(f"no worker named {name}")
            worker.revoked = True
            # A revoked name may be given out again: the row keeps its hash, renamed.
            worker.name = f"{name}~revoked~{worker.id}"

    def workers(self) -> List[Tuple[str, bool]]:
        """(name, revoked) of every worker token."""
        with self.db.session() as session:
            return [(w.name, w.revoked) for w in session.scalars(
                select(Worker).order_by(Worker.id)).all()]

    # --- page sessions ------------------------------------------------------------------

    def open_session(self, player_id: int) -> Tuple[str, str]:
        """A new login: (session id, csrf token)."""
        session_id, csrf = config.new_token(), config.new_token()
        with self.db.session.begin() as session:
            session.add(SessionRow(id_hash=config.token_hash(session_id), player_id=player_id,
                                   csrf=csrf, expires=time.time() + SESSION_SECONDS))
        return session_id, csrf

    def session_of(self, session_id: Optional[str]) -> Optional[Tuple[int, str, str]]:
        """(player id, name, csrf) of a live session, or None."""
        if not session_id:
            return None
        with self.db.session() as session:
            row = session.get(SessionRow, config.token_hash(session_id))
            if row is None or row.expires < time.time():
                return None
            player = session.get(Player, row.player_id)
            return player.id, player.name, row.csrf

    def close_session(self, session_id: Optional[str]) -> None:
        if not session_id:
            return
        with self.db.session.begin() as session:
            row = session.get(SessionRow, config.token_hash(session_id))
            if row is not None:
                session.delete(row)
