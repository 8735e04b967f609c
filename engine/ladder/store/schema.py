"""The ladder's tables (SQLAlchemy 2.x declarative), created and upgraded by the Alembic
migrations in engine/ladder/migrations (0001: the first schema; 0002: workers, kinds of
games, abandons, private details, rating history).

    meta          key/value: ``freeze_at`` (uploads closed from then on)
    players       name, staff (our anchors), the SHA-256 of the student's token
    workers       one row per worker token (its SHA-256), revocable
    submissions   per upload: status uploading -> queued -> building -> ready | failed
                  (or superseded: replaced by a newer upload before it was built), the
                  normalised archive's digest, the build log, a build lease and its worker
    games         per scheduled game: its pair, board, size, the two submissions, kind
                  (placement, rated, challenge) and whether it is rated, state pending ->
                  leased -> done (or void), the lease and its worker, the abandons, and
                  once done the public record, the side that forfeited (if one did) and the
                  private detail of its forfeit
    sessions      the pages' logins: a hashed session id, its player and CSRF token
    rating_points a player's rating after games, for the history chart of /me
"""

from sqlalchemy import Boolean, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Submission statuses, and game states and kinds.
UPLOADING, QUEUED, BUILDING, READY, FAILED, SUPERSEDED = (
    "uploading", "queued", "building", "ready", "failed", "superseded")
PENDING, LEASED, DONE, VOID = "pending", "leased", "done", "void"
PLACEMENT, RATED, CHALLENGE = "placement", "rated", "challenge"


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


class Worker(Base):
    __tablename__ = "workers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


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
    lease_worker: Mapped[int] = mapped_column(Integer, nullable=True)
    built_at: Mapped[float] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class Game(Base):
    __tablename__ = "games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair: Mapped[int] = mapped_column(Integer, index=True)
    board: Mapped[int] = mapped_column(Integer)
    size: Mapped[str] = mapped_column(String(32))
    x_sub: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    o_sub: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    kind: Mapped[str] = mapped_column(String(12), default=RATED)
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    requested_by: Mapped[int] = mapped_column(Integer, nullable=True)
    state: Mapped[str] = mapped_column(String(8), index=True)
    lease: Mapped[str] = mapped_column(String(64), nullable=True)
    lease_expires: Mapped[float] = mapped_column(Float, nullable=True)
    lease_worker: Mapped[int] = mapped_column(Integer, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    abandons: Mapped[str] = mapped_column(Text, default="[]")
    worker: Mapped[str] = mapped_column(String(100), nullable=True)
    created: Mapped[float] = mapped_column(Float)
    finished: Mapped[float] = mapped_column(Float, nullable=True)
    record: Mapped[str] = mapped_column(Text, nullable=True)
    private: Mapped[str] = mapped_column(Text, nullable=True)
    forfeited: Mapped[str] = mapped_column(String(1), nullable=True)


class SessionRow(Base):
    __tablename__ = "sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    csrf: Mapped[str] = mapped_column(String(64))
    expires: Mapped[float] = mapped_column(Float)


class RatingPoint(Base):
    __tablename__ = "rating_points"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    submission_id: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
