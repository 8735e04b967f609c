"""The ladder's database (SQLAlchemy 2.x; SQLite by default, PostgreSQL for a large class),
split by responsibility:

    schema.py       the tables (created and upgraded by engine/ladder/migrations)
    database.py     the connection, the migrations, what the parts share
    accounts.py     students, anchors, workers and their tokens, the pages' sessions
    submissions.py  uploads and builds (their leases, their fair share)
    games.py        games, leases, results, abandons, challenges, scheduling
    standings.py    the standings, computed once per change; the rating history

:class:`Store` holds one of each over one connection. The web process is the only one
that opens the database for writing; workers talk to it over HTTP.
"""

import time
from typing import Any, Dict, Optional

from .accounts import Accounts
from .database import Conflict, Database, make_engine, migrate
from .games import Games
from .schema import Meta
from .standings import Standings
from .submissions import Submissions

__all__ = ["Store", "Conflict", "make_engine", "migrate"]

FREEZE = "freeze_at"


class Store:
    """The ladder's database: ``accounts``, ``submissions``, ``games``, ``standings``
    (see the module docstring), sharing ``db`` (settings, rules, sessions)."""

    def __init__(self, settings: Dict[str, Any], engine: Any = None) -> None:
        self.db = Database(settings, engine)
        self.settings = settings
        self.rules = self.db.rules
        self.engine = self.db.engine
        self.session = self.db.session
        self.accounts = Accounts(self.db)
        self.submissions = Submissions(self.db)
        self.standings = Standings(self.db)
        self.games = Games(self.db, self.submissions, self.standings)

    def close(self) -> None:
        self.standings.stop()
        self.db.close()

    def frozen_since(self) -> Optional[float]:
        """The time uploads closed (``ladder freeze``), or None when they are open; a
        freeze in the future is not one yet."""
        with self.session() as session:
            row = session.get(Meta, FREEZE)
        if row is None:
            return None
        at = float(row.value)
        return at if at <= time.time() else None

    def freeze_at(self) -> Optional[float]:
        """The freeze's time as set, past or future (None: none set)."""
        with self.session() as session:
            row = session.get(Meta, FREEZE)
        return None if row is None else float(row.value)

    def set_freeze(self, at: Optional[float]) -> None:
        """Close uploads from ``at`` on (None: open them again)."""
        with self.session.begin() as session:
            row = session.get(Meta, FREEZE)
            if at is None:
                if row is not None:
                    session.delete(row)
            elif row is None:
                session.add(Meta(key=FREEZE, value=repr(float(at))))
            else:
                row.value = repr(float(at))
