"""The application: the routes, the objects the endpoints share (``app.state``), and
the network guards around it (engine.ladder.web.guard; the server itself is guard.server).

``app.state.store`` is the :class:`engine.ladder.store.Store`, ``app.state.limits`` the
process's rate limiters (engine.ladder.web.common). The standings' refresher thread
starts with the server (see engine.ladder.store.standings).
"""

from starlette.applications import Starlette
from starlette.routing import Route

from .. import pages
from . import guard
from .guard import ASGIApp
from ..store import Store
from . import api, site, work
from .common import Limits

ROUTES = [
    Route("/", site.page_leaderboard),
    Route("/games/{id:int}", site.page_game),
    Route("/me", site.get_me),
    Route("/login", site.post_login, methods=["POST"]),
    Route("/logout", site.post_logout, methods=["POST"]),
    Route("/me/upload", site.post_upload, methods=["POST"]),
    Route("/me/challenge", site.post_challenge, methods=["POST"]),
    Route("/static/{name}", site.static_file),
    Route("/favicon.ico", site.favicon),
    Route("/api/submissions", api.post_submission, methods=["POST"]),
    Route("/api/submissions", api.list_submissions, methods=["GET"]),
    Route("/api/submissions/{id:int}", api.get_submission),
    Route("/api/challenges", api.post_challenge, methods=["POST"]),
    Route("/api/leaderboard", api.get_leaderboard),
    Route("/api/games", api.list_games),
    Route("/api/games/{id:int}", api.get_game),
    Route("/api/work/settings", work.work_settings),
    Route("/api/work/lease", work.work_lease, methods=["POST"]),
    Route("/api/work/extend", work.work_extend, methods=["POST"]),
    Route("/api/work/submissions/{id:int}/archive", work.work_archive),
    Route("/api/work/builds/{id:int}", work.work_build, methods=["POST"]),
    Route("/api/work/builds/{id:int}/abandon", work.work_build_abandon, methods=["POST"]),
    Route("/api/work/games/{id:int}", work.work_game, methods=["POST"]),
    Route("/api/work/games/{id:int}/abandon", work.work_game_abandon, methods=["POST"]),
]


def make_app(store: Store) -> ASGIApp:
    """The application over ``store`` (see the module docstring), inside the network
    guards (engine.ladder.web.guard.protect): bodies capped, every failure answered as JSON
    under /api/ and as a page elsewhere, the policy headers."""
    app = Starlette(routes=ROUTES)
    app.state.store = store
    app.state.limits = Limits(store.settings)
    title = store.rules.title

    def error_page(status: int, heading: str, words: str) -> str:
        return pages.error(title, heading, words)
    return guard.protect(app, error_page, float(store.settings["upload_mb"]), pages.CSP)
