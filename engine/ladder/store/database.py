"""The ladder's database connection: the engine, the migrations, and what every part of
the store shares (settings, the game's rules, sessions, the version of the standings).

SQLite by default (WAL mode, waiting on locks), PostgreSQL for a large class. The web
process is the only one that writes; workers talk to it over HTTP.
"""

import os
import threading
from typing import Any, Dict

from sqlalchemy import create_engine, event
from sqlalchemy.orm import sessionmaker

from ...errors import EngineError
from ...tournament.games import rules_for
from .. import config


class Conflict(EngineError):
    """A worker's report that does not match a live lease of its own (expired, settled,
    or another worker's)."""


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
        "script_location", os.path.join(os.path.dirname(os.path.dirname(__file__)),
                                        "migrations"))
    with engine.begin() as connection:
        alembic_config.attributes["connection"] = connection
        command.upgrade(alembic_config, "head")


class Database:
    """What the parts of the store share: ``settings`` (engine.ladder.config's), the
    game's ``rules`` and board ``sizes``, the SQLAlchemy ``engine`` and ``session``
    factory, ``lock`` (one scheduler at a time in this process), and the standings'
    version, which :meth:`changed` bumps whenever a game or a build changes them."""

    def __init__(self, settings: Dict[str, Any], engine: Any = None) -> None:
        self.settings = settings
        self.rules = rules_for(settings["game"])
        self.sizes = self.rules.parse_sizes(",".join(str(s) for s in settings["sizes"]))
        self.engine = engine or make_engine(config.database_url(settings))
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        self.lock = threading.Lock()
        self.version = 0
        self._version_changed = threading.Condition()

    def changed(self) -> None:
        """Something the standings depend on changed (a game, a build, an upload)."""
        with self._version_changed:
            self.version += 1
            self._version_changed.notify_all()

    def wait_for_change(self, seen: int, timeout: float) -> int:
        """The version once it differs from ``seen`` (or after ``timeout`` seconds)."""
        with self._version_changed:
            self._version_changed.wait_for(lambda: self.version != seen, timeout)
            return self.version

    def close(self) -> None:
        self.engine.dispose()
