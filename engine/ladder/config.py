"""A ladder's folder: where its settings, secrets, database and uploads live.

    DIR/ladder.json     the settings (game, time, sizes, seed, lease, database URL);
                        owned by the web process's user, mode 0600 (a PostgreSQL URL may
                        hold a password)
    DIR/tokens.csv      name,token per student: the one copy of the secrets, 0600, root's
    DIR/worker-token    the workers' secret (local workers read it), 0600
    DIR/server.json     where ``ladder serve`` listens (local workers read it)
    DIR/data/           the web process's: ladder.db (SQLite), uploads/ID.normalised
                        (each upload in our normalised form)

Only hashes of the tokens are in the database. Standard library only.
"""

import hashlib
import json
import os
import secrets
import sys
from typing import Any, Dict

from ..commandline import write_atomically
from ..errors import EngineError

SETTINGS = "ladder.json"
TOKENS = "tokens.csv"
WORKER_TOKEN = "worker-token"
SERVER = "server.json"
DATA = "data"
UPLOADS = "uploads"
DEFAULTS = {"seed": 1, "lease": 60.0, "upload_mb": 8, "placement_pairs": 2,
            "memory_mb": 1024, "isolation": "auto", "uploads_per_minute": 10,
            "requests_per_minute": 600, "challenges": "unrated", "challenges_per_hour": 4}


def say(text: str) -> None:
    """One line of the ladder's commands on stderr."""
    print(f"ladder: {text}", file=sys.stderr, flush=True)


class LadderError(EngineError, ValueError):
    """A ladder folder that cannot be used (the message says why, in one line)."""


def new_token() -> str:
    """A fresh secret: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database keeps of a token (tokens are random, so one SHA-256 suffices)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def write_secret(path: str, text: str) -> None:
    """Create ``path`` holding ``text``, mode 0600, exclusively (never replacing a file,
    never through a link). Raises LadderError when it exists."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise LadderError(f"{path} exists already") from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)


def settings_path(folder: str) -> str:
    return os.path.join(folder, SETTINGS)


def load(folder: str) -> Dict[str, Any]:
    """The settings of the ladder in ``folder`` (dict). Raises LadderError."""
    path = settings_path(folder)
    try:
        with open(path, encoding="utf-8") as handle:
            settings = json.load(handle)
    except FileNotFoundError:
        raise LadderError(f"{folder} is no ladder (no {SETTINGS}; see ladder init)") from None
    except (OSError, ValueError) as error:
        raise LadderError(f"cannot read {path}: {error}") from None
    merged = dict(DEFAULTS)
    merged.update(settings)
    merged["folder"] = os.path.abspath(folder)
    return merged


def save(folder: str, settings: Dict[str, Any]) -> None:
    stored = {key: value for key, value in settings.items() if key != "folder"}
    write_atomically(settings_path(folder), json.dumps(stored, indent=1) + "\n")
    os.chmod(settings_path(folder), 0o600)


def data_folder(settings: Dict[str, Any]) -> str:
    return os.path.join(settings["folder"], DATA)


def uploads_folder(settings: Dict[str, Any]) -> str:
    return os.path.join(data_folder(settings), UPLOADS)


def upload_path(settings: Dict[str, Any], submission_id: int) -> str:
    """Where the normalised archive of upload ``submission_id`` is kept."""
    return os.path.join(uploads_folder(settings), f"{submission_id}.normalised")


def database_url(settings: Dict[str, Any]) -> str:
    """The SQLAlchemy URL: the settings' ``db`` (postgresql://... is given the psycopg
    driver), else the SQLite file in DIR/data."""
    url = settings.get("db")
    if not url:
        return "sqlite:///" + os.path.join(data_folder(settings), "ladder.db")
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def read_worker_token(folder: str) -> str:
    try:
        with open(os.path.join(folder, WORKER_TOKEN), encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError as error:
        raise LadderError(f"cannot read {os.path.join(folder, WORKER_TOKEN)}: "
                          f"{error.strerror}") from None


def server_url(folder: str) -> str:
    """The URL ``ladder serve`` wrote into DIR/server.json."""
    try:
        with open(os.path.join(folder, SERVER), encoding="utf-8") as handle:
            return json.load(handle)["url"]
    except (OSError, ValueError, KeyError):
        raise LadderError(f"no server is running for {folder} (no {SERVER}); start "
                          "ladder serve, or give --server URL") from None
