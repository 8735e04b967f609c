"""The ladder's web process: the JSON API, the pages and the workers' protocol (Starlette).

Public, no token: ``GET /api/leaderboard``, ``GET /api/games[?player=NAME]``,
``GET /api/games/ID`` (the game record as ``tournament run --json`` writes it), the
pages ``/`` and ``/games/ID``. A student's own, with ``Authorization: Bearer TOKEN``:
``POST /api/submissions`` (multipart field ``file``: a .zip or .tar.gz) -> 201
``{"id", "status"}``, ``GET /api/submissions`` and ``GET /api/submissions/ID`` (another's
is 404, as a missing one). The page ``/me`` logs in with the token (a session cookie,
HttpOnly, SameSite=Strict); its forms carry a CSRF token bound to the session and are
refused from another origin. Workers: ``/api/work/...`` with the worker token
(engine.ladder.worker).

Uploads are capped twice: the request body (``upload_mb``; the stream is cut, never
buffered past the cap) and the unpacked archive (:func:`engine.ladder.uploads.unpack`,
run once here into a throw-away folder, so that a refused archive is refused at once).
Per token, at most ``uploads_per_minute`` uploads and ``requests_per_minute``
requests (429 past them). The web process runs as an unprivileged user (cli.py drops
root before this module serves anything); it never runs an entrant's code.
"""

import functools
import hashlib
import json
import os
import tempfile
import threading
import time
from collections import defaultdict, deque

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (HTMLResponse, JSONResponse, RedirectResponse, Response)
from starlette.routing import Route
from typing import Any, Awaitable, Callable, DefaultDict, Deque, Dict, Hashable, IO, Optional, Tuple

from ..grading.untrusted_files import remove_tree
from ..tournament.games import positions
from . import config, pages, uploads
from .store import Conflict, Store

# ASGI, as the middlewares see it (starlette's own names are Any to mypy: mypy.ini).
Message = Dict[str, Any]
Scope = Dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Handler = Callable[[Request], Awaitable[Response]]
Player = Tuple[int, str]

SESSION_COOKIE = "ladder_session"
LOGIN_COOKIE = "ladder_login"
UPLOAD_PATHS = ("/api/submissions", "/me/upload")
FORM_OVERHEAD = 64 * 1024
SMALL_BODY = 8 * 1024 * 1024


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


class RateLimit:
    """At most ``count`` events per key in any 60 seconds (in this process)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.events: DefaultDict[Hashable, Deque[float]] = defaultdict(deque)
        self.lock = threading.Lock()

    def allow(self, key: Hashable) -> bool:
        now = time.monotonic()
        with self.lock:
            events = self.events[key]
            while events and events[0] < now - 60.0:
                events.popleft()
            if len(events) >= self.count:
                return False
            events.append(now)
            return True


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _bearer(request: Request) -> Optional[str]:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


def make_app(store: Store) -> ASGIApp:
    """The Starlette application over ``store`` (an :class:`engine.ladder.store.Store`)."""
    settings = store.settings
    rules = store.rules
    upload_bytes = int(settings["upload_mb"]) * 1024 * 1024
    uploads_dir = config.uploads_folder(settings)
    uploads_limit = RateLimit(int(settings["uploads_per_minute"]))
    requests_limit = RateLimit(int(settings["requests_per_minute"]))
    entry_points = ", ".join(rules.entry_points)

    # --- who is asking ------------------------------------------------------------------

    def student(request: Request) -> Tuple[Optional[Tuple[int, str]], Optional[Response]]:
        """(player id, name) of the Bearer token, or an error response."""
        token = _bearer(request)
        player = store.player_of_token(token)
        if player is None:
            return None, _error(401, "a valid student token is needed "
                                     "(Authorization: Bearer TOKEN)")
        if not requests_limit.allow(("student", player[0])):
            return None, _error(429, "too many requests; wait a minute")
        return player, None

    def worker_only(request: Request) -> Optional[Response]:
        if not store.is_worker(_bearer(request)):
            return _error(401, "a valid worker token is needed")
        return None

    def for_students(handler: Callable[[Request, Player], Awaitable[Response]]) -> Handler:
        """``handler(request, (player id, name))`` behind the student's Bearer token and
        the per-token request limit: a request without a valid token gets 401, one past
        the limit 429, and the handler is not called."""
        @functools.wraps(handler)
        async def checked(request: Request) -> Response:
            player, refused = await run_in_threadpool(student, request)
            if refused:
                return refused
            return await handler(request, player)
        return checked

    def for_workers(handler: Handler) -> Handler:
        """``handler`` behind the worker token: a request without it gets 401, and the
        handler is not called."""
        @functools.wraps(handler)
        async def checked(request: Request) -> Response:
            refused = await run_in_threadpool(worker_only, request)
            if refused:
                return refused
            return await handler(request)
        return checked

    def same_origin(request: Request) -> bool:
        """Whether a page's form comes from our own pages (Origin, when sent)."""
        origin = request.headers.get("origin")
        if origin is None:
            return True
        return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"

    # --- uploads ------------------------------------------------------------------------

    async def take_upload(request: Request,
                          player_id: int) -> Tuple[Optional[int], Optional[Response]]:
        """Store one upload of ``player_id``: (submission id, None) or (None, error
        response)."""
        if not uploads_limit.allow(player_id):
            return None, _error(429, "too many uploads; at most "
                                     f"{settings['uploads_per_minute']} a minute")
        try:
            form = await request.form(max_files=1, max_fields=4)
        except BodyTooLarge:
            return None, _error(413, f"the archive is larger than {settings['upload_mb']} MB")
        except ClientDisconnect:
            return None, _error(400, "the upload was cut off")
        except Exception as error:  # noqa: BLE001 - the parser's words for a bad form
            return None, _error(400, f"not a multipart form with a file: {error}")
        try:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                return None, _error(400, "no file: send the archive as the multipart "
                                         "field 'file'")
            return await run_in_threadpool(_store_upload, upload.file, player_id)
        finally:
            await form.close()

    def _store_upload(source: IO[bytes],
                      player_id: int) -> Tuple[Optional[int], Optional[Response]]:
        os.makedirs(uploads_dir, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".upload-", dir=uploads_dir)
        digest, size, head = hashlib.sha256(), 0, b""
        try:
            with os.fdopen(descriptor, "wb") as out:
                while True:
                    chunk = source.read(1 << 16)
                    if not chunk:
                        break
                    if not head:
                        head = chunk[:8]
                    size += len(chunk)
                    if size > upload_bytes:
                        return None, _error(413, f"the archive is larger than "
                                                 f"{settings['upload_mb']} MB")
                    digest.update(chunk)
                    out.write(chunk)
            kind = uploads.kind_of(head)
            if kind is None:
                return None, _error(400, "not a .zip or .tar.gz file")
            scratch = tempfile.mkdtemp(prefix=".check-", dir=uploads_dir)
            try:
                uploads.unpack(temporary, os.path.join(scratch, "agent"))
            except uploads.Refused as error:
                return None, _error(400, f"archive refused: {error}")
            finally:
                remove_tree(scratch)
            submission_id = store.add_submission(player_id, kind, size, digest.hexdigest())
            try:
                os.replace(temporary, os.path.join(uploads_dir, f"{submission_id}.{kind}"))
            except OSError:
                store.drop_submission(submission_id)
                raise
            store.queue_submission(submission_id)
            return submission_id, None
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)

    # --- the API ------------------------------------------------------------------------

    @for_students
    async def post_submission(request: Request, player: Player) -> Response:
        submission_id, refused = await take_upload(request, player[0])
        if refused:
            return refused
        return JSONResponse({"id": submission_id, "status": "queued"}, status_code=201)

    @for_students
    async def get_submission(request: Request, player: Player) -> Response:
        found = await run_in_threadpool(store.submission, request.path_params["id"],
                                        player[0])
        if found is None:
            return _error(404, "no such submission of yours")
        return JSONResponse(found)

    @for_students
    async def list_submissions(request: Request, player: Player) -> Response:
        return JSONResponse(await run_in_threadpool(store.submissions_of, player[0]))

    async def get_leaderboard(request: Request) -> Response:
        rows = await run_in_threadpool(store.standings)
        return JSONResponse([{key: row[key] for key in (
            "name", "rating", "rating_low", "rating_high", "games", "wins", "draws",
            "losses", "submission", "staff")} for row in rows])

    async def list_games(request: Request) -> Response:
        player = request.query_params.get("player")
        submission = request.query_params.get("submission")
        if submission is not None and not submission.isdigit():
            return _error(400, "submission must be a number")
        records = await run_in_threadpool(
            store.games_of, player, int(submission) if submission else None)
        return JSONResponse(records)

    async def get_game(request: Request) -> Response:
        record = await run_in_threadpool(store.game_record, request.path_params["id"])
        if record is None:
            return _error(404, "no such finished game")
        return JSONResponse(record)

    # --- the workers' protocol ----------------------------------------------------------

    async def acknowledged(function: Callable[..., Any], *args: Any) -> Response:
        """``function(*args)`` (a store call that settles a lease) in a thread:
        ``{"ok": true}``, or 409 with the words of its :class:`Conflict` (the lease
        expired)."""
        try:
            await run_in_threadpool(function, *args)
        except Conflict as error:
            return _error(409, str(error))
        return JSONResponse({"ok": True})

    @for_workers
    async def work_settings(request: Request) -> Response:
        return JSONResponse({key: settings[key] for key in (
            "game", "time", "sizes", "seed", "lease", "isolation", "memory_mb")})

    @for_workers
    async def work_lease(request: Request) -> Response:
        body = await _json(request)
        work = await run_in_threadpool(store.lease, str(body.get("worker", "?")))
        return JSONResponse(work or {"kind": "idle", "wait": 1.0})

    @for_workers
    async def work_extend(request: Request) -> Response:
        body = await _json(request)
        return await acknowledged(store.extend, str(body.get("lease")))

    @for_workers
    async def work_archive(request: Request) -> Response:
        found = await run_in_threadpool(store.archive_of, request.path_params["id"])
        if found is None or found[0] not in uploads.KINDS:
            return _error(404, "no such uploaded archive")
        path = os.path.join(uploads_dir, f"{request.path_params['id']}.{found[0]}")
        with open(path, "rb") as handle:
            data = handle.read()
        return Response(data, media_type="application/octet-stream")

    @for_workers
    async def work_build(request: Request) -> Response:
        body = await _json(request)
        error = body.get("error")
        return await acknowledged(store.finish_build, request.path_params["id"],
                                  str(body.get("lease")), None if error is None else str(error))

    @for_workers
    async def work_game(request: Request) -> Response:
        body = await _json(request)
        record = body.get("record")
        problem = _check_record(rules.name, record)
        if problem:
            return _error(422, problem)
        return await acknowledged(store.finish_game, request.path_params["id"],
                                  str(body.get("lease")), record)

    @for_workers
    async def work_abandon(request: Request) -> Response:
        body = await _json(request)
        # give_back never raises Conflict (a lease already settled is simply left).
        return await acknowledged(store.give_back, str(body.get("lease")))

    # --- pages --------------------------------------------------------------------------

    def html(text: str, status: int = 200, csp: Optional[str] = None) -> Response:
        response = HTMLResponse(text, status_code=status)
        response.headers["content-security-policy"] = csp or pages.CSP
        return response

    def error_page(heading: str, words: str, status: int) -> Response:
        """The error page (``status``) saying ``heading``: ``words``."""
        return html(pages.error(rules.title, heading, words), status)

    def not_your_form() -> Response:
        """403 for a form that is not of the caller's session (no session, another
        origin, or a CSRF token not the session's)."""
        return error_page("Refused", "not a form of your session", 403)

    async def page_leaderboard(request: Request) -> Response:
        rows = await run_in_threadpool(store.standings)
        games = await run_in_threadpool(store.games_of, None, None, 30)
        counts = await run_in_threadpool(store.counts)
        done = counts[0].get("done", 0)
        students = sum(1 for r in rows if not r["staff"])
        summary = (f"{done} game{'s' * (done != 1)} played, {students} "
                   f"student{'s' * (students != 1)} playing, "
                   f"{float(settings['time']):g} s of CPU per player per game")
        return html(pages.leaderboard(rules.title, rows, games, summary))

    async def page_game(request: Request) -> Response:
        record = await run_in_threadpool(store.game_record, request.path_params["id"])
        if record is None:
            return error_page("No such game", "This game has not been played (yet).", 404)
        document = {"game": rules.name, "format": "ladder", "time": settings["time"],
                    "seed": settings["seed"], "sizes": settings["sizes"],
                    "isolation": settings.get("isolation", ""), "complete": True,
                    "entrants": [], "games": [record]}
        return html(pages.replay(document), csp=pages.REPLAY_CSP)

    def session_of(request: Request) -> Optional[Tuple[int, str, str]]:
        return store.session_of(request.cookies.get(SESSION_COOKIE))

    async def page_me(request: Request, message: Optional[str] = None, message_class: str = "ok",
                      status: int = 200) -> Response:
        found = await run_in_threadpool(session_of, request)
        if found is None:
            csrf = config.new_token()
            response = html(pages.login(rules.title, csrf, message), status)
            response.set_cookie(LOGIN_COOKIE, csrf, httponly=True, samesite="strict",
                                path="/login")
            return response
        player_id, name, csrf = found
        submissions = await run_in_threadpool(store.submissions_of, player_id)
        current = await run_in_threadpool(store.current_of, player_id)
        return html(pages.me(rules.title, name, csrf, submissions, current,
                             settings["upload_mb"], entry_points, message, message_class),
                    status)

    async def get_me(request: Request) -> Response:
        return await page_me(request)

    async def post_login(request: Request) -> Response:
        if not same_origin(request):
            return error_page("Refused", "a form from another site", 403)
        form = await request.form(max_files=0, max_fields=4)
        expected = request.cookies.get(LOGIN_COOKIE)
        if not expected or form.get("csrf") != expected:
            return error_page("Refused", "the login form has expired: reload /me", 403)
        token = str(form.get("token", "")).strip()
        if not requests_limit.allow(("login", request.client.host if request.client
                                     else "?")):
            return error_page("Too many tries", "wait a minute", 429)
        player = await run_in_threadpool(store.player_of_token, token)
        if player is None:
            return await page_me(request, "That token is not one of this ladder's.",
                                 "error", 403)
        session_id, _ = await run_in_threadpool(store.open_session, player[0])
        response = RedirectResponse("/me", status_code=303)
        response.set_cookie(SESSION_COOKIE, session_id, httponly=True, samesite="strict",
                            path="/", max_age=12 * 3600)
        response.delete_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def checked_session(request: Request, form: Any) -> Optional[Tuple[int, str, str]]:
        found = await run_in_threadpool(session_of, request)
        if found is None or not same_origin(request) or \
                form.get("csrf") != found[2]:
            return None
        return found

    async def post_logout(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=4)
        found = await checked_session(request, form)
        if found is None:
            return not_your_form()
        await run_in_threadpool(store.close_session, request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/me", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def post_upload(request: Request) -> Response:
        found = await run_in_threadpool(session_of, request)
        if found is None or not same_origin(request):
            return not_your_form()
        # The CSRF token is read from the parsed form, before anything is stored.
        try:
            form = await request.form(max_files=1, max_fields=4)
        except BodyTooLarge:
            return await page_me(request, f"Upload refused: the archive is larger than "
                                          f"{settings['upload_mb']} MB.", "error", 413)
        except Exception:  # noqa: BLE001 - the parser's words for a bad form
            return await page_me(request, "That was not an upload form.", "error", 400)
        try:
            if form.get("csrf") != found[2]:
                return not_your_form()
            if not uploads_limit.allow(found[0]):
                return await page_me(request, "Too many uploads; wait a minute.", "error",
                                     429)
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                return await page_me(request, "Choose a file to upload.", "error", 400)
            submission_id, refused = await run_in_threadpool(_store_upload, upload.file,
                                                             found[0])
        finally:
            await form.close()
        if refused is not None:
            message = json.loads(refused.body)["error"]
            return await page_me(request, f"Upload refused: {message}", "error",
                                 refused.status_code)
        return await page_me(request, f"Submission {submission_id} received: it is built "
                                      "and placed within minutes.", "ok", 201)

    async def favicon(request: Request) -> Response:
        return Response(pages.ICON, media_type="image/svg+xml")

    async def static_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "ladder.js":
            return Response(pages.SCRIPT, media_type="text/javascript")
        if name == "ladder.css":
            return Response(pages.STYLE, media_type="text/css")
        return _error(404, "no such file")

    routes = [
        Route("/", page_leaderboard),
        Route("/games/{id:int}", page_game),
        Route("/me", get_me),
        Route("/login", post_login, methods=["POST"]),
        Route("/logout", post_logout, methods=["POST"]),
        Route("/me/upload", post_upload, methods=["POST"]),
        Route("/static/{name}", static_file),
        Route("/favicon.ico", favicon),
        Route("/api/submissions", post_submission, methods=["POST"]),
        Route("/api/submissions", list_submissions, methods=["GET"]),
        Route("/api/submissions/{id:int}", get_submission),
        Route("/api/leaderboard", get_leaderboard),
        Route("/api/games", list_games),
        Route("/api/games/{id:int}", get_game),
        Route("/api/work/settings", work_settings),
        Route("/api/work/lease", work_lease, methods=["POST"]),
        Route("/api/work/extend", work_extend, methods=["POST"]),
        Route("/api/work/submissions/{id:int}/archive", work_archive),
        Route("/api/work/builds/{id:int}", work_build, methods=["POST"]),
        Route("/api/work/games/{id:int}", work_game, methods=["POST"]),
        Route("/api/work/games/{id:int}/abandon", work_abandon, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    return SecurityHeaders(LimitBody(app, upload_bytes + FORM_OVERHEAD))


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


async def _json(request: Request) -> Dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _check_record(game: str, record: Any) -> Optional[str]:
    """Why a worker's record cannot be stored (None when it can): the fields a tournament
    record has, and moves the rules replay to the end."""
    if not isinstance(record, dict):
        return "record must be an object"
    missing = [field for field in ("size", "cells", "moves", "result", "score", "cpu",
                                   "forfeit") if field not in record]
    if missing:
        return "record lacks " + ", ".join(missing)
    if record["result"] not in ("x", "o", "draw") or not isinstance(record["moves"], list):
        return "record's result or moves are malformed"
    try:
        frames = positions(game, record["cells"], record["moves"])
    except Exception as error:  # noqa: BLE001 - a malformed record from a worker
        return f"record's board cannot be set up: {type(error).__name__}"
    if len(frames) != len(record["moves"]) + 1:
        return "record's moves do not replay by the rules"
    return None
