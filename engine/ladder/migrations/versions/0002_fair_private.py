"""Workers with tokens of their own, kinds of games, abandons, private details, build
leases by worker, rating history.

Revision ID: 0002
Revises: 0001
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("workers",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("name", sa.String(100), nullable=False, unique=True),
                    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
                    sa.Column("created", sa.Float(), nullable=False),
                    sa.Column("revoked", sa.Boolean(), nullable=False,
                              server_default=sa.false()))
    # The one token all workers shared becomes the local workers' own.
    connection = op.get_bind()
    row = connection.execute(sa.text("SELECT value FROM meta WHERE key = 'worker_token'")
                             ).first()
    if row is not None:
        connection.execute(sa.text(
            "INSERT INTO workers (name, token_hash, created, revoked) "
            "VALUES ('local', :hash, 0, :no)"), {"hash": row[0], "no": False})
        connection.execute(sa.text("DELETE FROM meta WHERE key = 'worker_token'"))
    with op.batch_alter_table("submissions") as table:
        table.add_column(sa.Column("lease_worker", sa.Integer(), nullable=True))
        table.add_column(sa.Column("built_at", sa.Float(), nullable=True))
    with op.batch_alter_table("games") as table:
        table.add_column(sa.Column("kind", sa.String(12), nullable=False,
                                   server_default="rated"))
        table.add_column(sa.Column("rated", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        table.add_column(sa.Column("requested_by", sa.Integer(), nullable=True))
        table.add_column(sa.Column("lease_worker", sa.Integer(), nullable=True))
        table.add_column(sa.Column("abandons", sa.Text(), nullable=False,
                                   server_default="[]"))
        table.add_column(sa.Column("private", sa.Text(), nullable=True))
        table.add_column(sa.Column("forfeited", sa.String(1), nullable=True))
    _make_details_private(connection)
    op.create_index("games_lease", "games", ["lease"])
    op.create_index("submissions_lease", "submissions", ["lease"])
    op.create_table("rating_points",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"),
                              nullable=False, index=True),
                    sa.Column("submission_id", sa.Integer(), nullable=False),
                    sa.Column("at", sa.Float(), nullable=False),
                    sa.Column("games", sa.Integer(), nullable=False),
                    sa.Column("rating", sa.Float(), nullable=False),
                    sa.Column("low", sa.Float(), nullable=False),
                    sa.Column("high", sa.Float(), nullable=False))


def _make_details_private(connection: sa.engine.Connection) -> None:
    """A forfeit's detail (the end of the player's stderr) leaves the public record."""
    rows = connection.execute(sa.text(
        "SELECT id, record FROM games WHERE state = 'done'")).all()
    for game_id, text in rows:
        record = json.loads(text)
        forfeit = record.get("forfeit")
        if not forfeit:
            continue
        detail = forfeit.pop("detail", "")
        connection.execute(sa.text("UPDATE games SET record = :record, private = :private, "
                                   "forfeited = :side WHERE id = :id"),
                           {"record": json.dumps(record, ensure_ascii=False),
                            "private": json.dumps({"detail": detail}, ensure_ascii=False),
                            "side": forfeit.get("player"), "id": game_id})


def downgrade() -> None:
    op.drop_table("rating_points")
    op.drop_index("submissions_lease", "submissions")
    op.drop_index("games_lease", "games")
    with op.batch_alter_table("games") as table:
        for column in ("forfeited", "private", "abandons", "lease_worker", "requested_by", "rated",
                       "kind"):
            table.drop_column(column)
    with op.batch_alter_table("submissions") as table:
        table.drop_column("built_at")
        table.drop_column("lease_worker")
    op.drop_table("workers")
