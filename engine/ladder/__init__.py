"""A class ladder (``python3 -m engine ladder init|serve|work|export``, docs/ladder.md):
students upload agents any time, workers play rated games in the kit's sandbox, pages
show the standings and the replays.

    config.py     the ladder's folder: settings, tokens, where things live
    uploads.py    an upload read once, kept in our normal form, unpacked link-safely
    archive_rules.py, tar_format.py, zip_format.py   its bounded readers
    scheduler.py  placement games, then pairing by rating uncertainty
    store.py      the database (SQLAlchemy; SQLite or PostgreSQL; Alembic migrations)
    web.py        the HTTP API, pages and workers' protocol (Starlette)
    pages.py      renders the pages: templates/*.html (Jinja2), static/ (style, script,
                  icon); the game's board is the tournament report's
    worker.py     a worker: leases builds and games, plays them through the tournament
    cli.py        the command line

The ladder builds on the tournament (entrants, director, referee, ratings, results,
report) and the kit's sandbox; nothing imports the ladder. Its web process and database
need the ``ladder`` extra (pip install '.[ladder]'); a worker needs the standard
library only.
"""
