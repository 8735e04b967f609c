"""Alembic's environment for the ladder: migrations run on the connection that
:func:`engine.ladder.store.migrate` hands over (no alembic.ini, no URL here)."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
