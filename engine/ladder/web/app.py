"""The application: the routes, the objects the endpoints share (``app.state``), and
the network guards around it.

``app.state.store`` is the :class:`engine.ladder.store.Store`, ``app.state.limits`` the
process's rate limiters (engine.ladder.web.common). The standings' refresher thread
starts with the server (see engine.ladder.store.standings).
"""

import json
from typing import Any, Awaitable, Callable, Dict

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

from .. import pages
from ..store import Store
from . import api, site, work
from .common import Limits

Message = Dict[str, Any]
Scope = Dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UPLOAD_PATHS = ("/api/submissions", "/me/upload")
FORM_OVERHEAD = 64 * 1024
SMALL_BODY = 8 * 1024 * 1024

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
    """The application over ``store`` (see the module docstring)."""
    app = Starlette(routes=ROUTES)
    app.state.store = store
    app.state.limits = Limits(store.settings)
    upload_bytes = int(store.settings["upload_mb"]) * 1024 * 1024
    return SecurityHeaders(LimitBody(app, upload_bytes + FORM_OVERHEAD))


class BodyTooLarge(Exception):
    """A request body past its cap (cut while it streams in)."""


class LimitBody:
    """ASGI middleware: a request whose body exceeds its cap gets 413 without being read
    further (the declared Content-Length first, then the bytes as they arrive)."""

    def __init__(self, app: ASGIApp, upload_bytes: int) -> None:
        self.app = app
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.upload_bytes if scope["path"] in UPLOAD_PATHS else SMALL_BODY
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > cap:
                await _too_large(send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    raise BodyTooLarge()
            return message
        try:
            await self.app(scope, limited, send)
        except BodyTooLarge:
            await _too_large(send)


async def _too_large(send: Send) -> None:
    body = json.dumps({"error": "the request is too large"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """ASGI middleware: the policy headers of every response (pages set their own CSP)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                extra = [(b"x-content-type-options", b"nosniff"),
                         # same-origin, not no-referrer: with no-referrer a browser sends
                         # "Origin: null" on our own forms, and the CSRF check needs it.
                         (b"referrer-policy", b"same-origin"),
                         (b"x-frame-options", b"DENY"),
                         (b"cache-control", b"no-store")]
                if b"content-security-policy" not in names:
                    extra.append((b"content-security-policy", pages.CSP.encode()))
                message = dict(message, headers=headers + [
                    header for header in extra if header[0] not in names])
            await send(message)
        await self.app(scope, receive, with_headers)


def server(app: ASGIApp, host: str, port: int) -> Any:
    """The uvicorn server of ``app``, its protocol classes loaded and every late import
    done (:func:`preload`): ready to run after root is dropped."""
    config_ = uvicorn.Config(app, host=host, port=port, log_level="warning",
                             access_log=False, timeout_graceful_shutdown=5, lifespan="off")
    config_.load()
    preload()
    return uvicorn.Server(config_)


def preload() -> None:
    """Import what serving may import late (every codec, as zip names and forms may use
    any; gzip for .tar.gz; multipart parsing), while the process can still read every
    library: the unprivileged user may not be able to read the interpreter's own."""
    import encodings
    import gzip  # noqa: F401
    import importlib
    import pkgutil

    from starlette import formparsers  # noqa: F401
    for module in pkgutil.iter_modules(encodings.__path__):
        try:
            importlib.import_module(f"encodings.{module.name}")
        except ImportError:  # a codec of another platform (mbcs, oem)
            pass
