"""A class ladder (``python3 -m engine ladder``, docs/ladder.md): students upload agents
any time, workers play rated games in the kit's sandbox, pages show the standings and
the replays.

    cli.py        the command line: each command's module adds its own arguments
    create.py     init: a ladder's folder, database and secrets
    serving.py    serve, its web process, stop (lifelines.py: children die with serve;
                  ownership.py: DIR/data handed to the web user through descriptors)
    admin.py      freeze, worker-token
    exporting.py  export: the tournament's results, the final's entrants
    config.py     the ladder's folder: settings, tokens, where things live
    extra.py      the optional libraries, imported with one clear line when missing
    uploads/      an upload read once by bounded readers, kept in our normal form
    scheduler.py  who plays whom: turns, placement, uncertainty, backoff (pure)
    store/        the database, by responsibility (SQLAlchemy; Alembic migrations)
    web/          the API, the workers' protocol, the pages (Starlette), and the
                  network's bounds (guard.py, connections.py)
    pages.py      renders the pages: templates/*.html (Jinja2), static/
    worker/       a worker: leases builds and games, plays them through the tournament

The ladder builds on the tournament (entrants, director, referee, ratings, results,
report) and the sandbox; nothing imports the ladder. Its web process and database need
the ``ladder`` extra (pip install '.[ladder]'); a worker, the uploads and the scheduler
need the standard library only.
"""
