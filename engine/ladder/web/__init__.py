"""The ladder's web process (Starlette): the students' JSON API, the pages, and the
workers' protocol, as module-level endpoints over one routes list.

    app.py        the routes, app.state, the guards around the application
    common.py     who is asking (tokens, sessions), limits, JSON errors
    api.py        the students' API (uploads, their submissions, challenges; public
                  leaderboard and games)
    work.py       the workers' protocol
    site.py       the pages
    receiving.py  an upload, from the HTTP layer to a queued submission

The web process runs as an unprivileged user (engine.ladder.serving drops root before
it serves anything); it never runs an entrant's code.
"""

from .app import make_app

__all__ = ["make_app"]
