"""The ladder's first schema: meta, players, submissions, games, sessions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("meta", sa.Column("key", sa.String(64), primary_key=True),
                    sa.Column("value", sa.Text(), nullable=False))
    op.create_table("players",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("name", sa.String(100), nullable=False, unique=True),
                    sa.Column("staff", sa.Boolean(), nullable=False),
                    sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
                    sa.Column("created", sa.Float(), nullable=False))
    op.create_table("submissions",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"),
                              nullable=False, index=True),
                    sa.Column("created", sa.Float(), nullable=False),
                    sa.Column("status", sa.String(16), nullable=False, index=True),
                    sa.Column("archive", sa.String(16), nullable=True),
                    sa.Column("path", sa.String(200), nullable=True),
                    sa.Column("size", sa.Integer(), nullable=False),
                    sa.Column("sha256", sa.String(64), nullable=True),
                    sa.Column("build_log", sa.Text(), nullable=True),
                    sa.Column("lease", sa.String(64), nullable=True),
                    sa.Column("lease_expires", sa.Float(), nullable=True),
                    sa.Column("attempts", sa.Integer(), nullable=False))
    op.create_table("games",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("pair", sa.Integer(), nullable=False, index=True),
                    sa.Column("board", sa.Integer(), nullable=False),
                    sa.Column("size", sa.String(32), nullable=False),
                    sa.Column("x_sub", sa.Integer(), sa.ForeignKey("submissions.id"),
                              nullable=False, index=True),
                    sa.Column("o_sub", sa.Integer(), sa.ForeignKey("submissions.id"),
                              nullable=False, index=True),
                    sa.Column("state", sa.String(8), nullable=False, index=True),
                    sa.Column("lease", sa.String(64), nullable=True),
                    sa.Column("lease_expires", sa.Float(), nullable=True),
                    sa.Column("attempts", sa.Integer(), nullable=False),
                    sa.Column("worker", sa.String(100), nullable=True),
                    sa.Column("created", sa.Float(), nullable=False),
                    sa.Column("finished", sa.Float(), nullable=True),
                    sa.Column("record", sa.Text(), nullable=True))
    op.create_table("sessions",
                    sa.Column("id_hash", sa.String(64), primary_key=True),
                    sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"),
                              nullable=False),
                    sa.Column("csrf", sa.String(64), nullable=False),
                    sa.Column("expires", sa.Float(), nullable=False))


def downgrade() -> None:
    for table in ("sessions", "games", "submissions", "players", "meta"):
        op.drop_table(table)
