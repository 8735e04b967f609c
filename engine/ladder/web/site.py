"""The pages: ``/`` the leaderboard, ``/games/ID`` a game, ``/me`` a student's own
versions, build errors, forfeits and rating history (after logging in with the token:
a session cookie, HttpOnly, SameSite=Strict), with the upload and challenge forms.

Forms carry a CSRF token bound to the session and are refused from another origin.
Every form that changes something answers with a redirect (POST-redirect-GET), so that
refreshing /me never uploads again; its errors are pages that name the limit.
"""

from typing import Any, Dict, Optional, Tuple

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from .. import config, pages
from ..store.games import CHALLENGES_PER_HOUR
from .guard import BodyTooLarge
from .common import (LOGIN_COOKIE, SESSION_COOKIE, address, limits_of, store_of)
from .receiving import receive

Session = Tuple[int, str, str]


def html(text: str, status: int = 200) -> Response:
    """A page, with the pages' policy (pages.CSP: no inline script or style)."""
    response = HTMLResponse(text, status_code=status)
    response.headers["content-security-policy"] = pages.CSP
    return response


def error_page(request: Request, heading: str, words: str, status: int) -> Response:
    """The error page (``status``) saying ``heading``: ``words``."""
    return html(pages.error(store_of(request).rules.title, heading, words), status)


def not_your_form(request: Request) -> Response:
    """403 for a form that is not of the caller's session (no session, another origin,
    or a CSRF token not the session's)."""
    return error_page(request, "Refused", "not a form of your session", 403)


def same_origin(request: Request) -> bool:
    """Whether a page's form comes from our own pages (Origin, when sent)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def session_of(request: Request) -> Optional[Session]:
    return store_of(request).accounts.session_of(request.cookies.get(SESSION_COOKIE))


async def checked_session(request: Request, form: Any) -> Optional[Session]:
    """The caller's session when the form is one of its own, else None."""
    found = await run_in_threadpool(session_of, request)
    if found is None or not same_origin(request) or form.get("csrf") != found[2]:
        return None
    return found


# --- the public pages ----------------------------------------------------------------------

async def page_leaderboard(request: Request) -> Response:
    store = store_of(request)
    snapshot = await run_in_threadpool(store.standings.snapshot)
    games = await run_in_threadpool(store.games.listed, None, None, 30)
    counts = await run_in_threadpool(store.games.counts)
    done = counts[0].get("done", 0)
    students = sum(1 for row in snapshot.rows if not row["staff"])
    summary = (f"{done} game{'s' * (done != 1)} played, {students} "
               f"student{'s' * (students != 1)} playing, "
               f"{float(store.settings['time']):g} s of CPU per player per game")
    return html(pages.leaderboard(store.rules, snapshot.rows, games, summary))


async def page_game(request: Request) -> Response:
    store = store_of(request)
    game_id = request.path_params["id"]
    record = await run_in_threadpool(store.games.record, game_id)
    players = await run_in_threadpool(store.games.players_of, game_id)
    if record is None or players is None:
        return error_page(request, "No such game", "This game has not been played (yet).",
                          404)
    ratings = (await run_in_threadpool(store.standings.snapshot)).by_submission
    for side in players.values():
        side["rating"] = ratings.get(side["submission"])
    return html(pages.game(store.rules, store.settings, record, players))


# --- a student's own page ------------------------------------------------------------------

# /me lists the latest games of each of a student's newest submissions.
GAMES_PER_VERSION = 10
VERSIONS_WITH_GAMES = 10


def _me_view(request: Request, found: Session) -> Dict[str, Any]:
    """What /me shows of the player of session ``found`` (see pages.me)."""
    store = store_of(request)
    player_id, name = found[0], found[1]
    snapshot = store.standings.snapshot()
    versions = []
    for number, view in enumerate(store.submissions.of_player(player_id)):
        played = (store.games.listed(None, view["id"], GAMES_PER_VERSION)
                  if view["games"] and number < VERSIONS_WITH_GAMES else [])
        versions.append(dict(view, rating=snapshot.by_submission.get(view["id"]),
                             played=played))
    settings = store.settings
    limits = {"upload_mb": settings["upload_mb"],
              "uploads_per_minute": settings["uploads_per_minute"],
              "challenges": str(settings.get("challenges", "unrated")),
              "challenges_per_hour": settings.get("challenges_per_hour",
                                                  CHALLENGES_PER_HOUR),
              "entry_points": ", ".join(store.rules.entry_points)}
    return {"versions": versions, "current": store.submissions.current_of(player_id),
            "history": store.standings.history(player_id), "frozen": store.frozen_since(),
            "opponents": [row["name"] for row in snapshot.rows if row["name"] != name],
            "limits": limits}


def _notice(request: Request) -> Tuple[Optional[str], str]:
    """The message a redirect to /me carries (?submitted=ID, ?again=ID, ?challenged=N)."""
    query = request.query_params
    if query.get("submitted", "").isdigit():
        return (f"Submission {query['submitted']} received: it is built and placed "
                "within minutes.", "ok")
    if query.get("again", "").isdigit():
        return (f"The same files as submission {query['again']}, uploaded a moment ago: "
                "nothing new to build.", "ok")
    if query.get("challenged", "").isdigit():
        return f"Challenge sent: pair {query['challenged']} is queued.", "ok"
    return None, "ok"


async def page_me(request: Request, message: Optional[str] = None, message_class: str = "ok",
                  status: int = 200) -> Response:
    store = store_of(request)
    found = await run_in_threadpool(session_of, request)
    if found is None:
        csrf = config.new_token()
        response = html(pages.login(store.rules.title, csrf, message), status)
        response.set_cookie(LOGIN_COOKIE, csrf, httponly=True, samesite="strict",
                            path="/login")
        return response
    if message is None:
        message, message_class = _notice(request)
    view = await run_in_threadpool(_me_view, request, found)
    return html(pages.me(store.rules.title, found[1], found[2], view, message,
                         message_class), status)


async def get_me(request: Request) -> Response:
    return await page_me(request)


async def post_login(request: Request) -> Response:
    if not same_origin(request):
        return error_page(request, "Refused", "a form from another site", 403)
    form = await request.form(max_files=0, max_fields=4)
    expected = request.cookies.get(LOGIN_COOKIE)
    if not expected or form.get("csrf") != expected:
        return error_page(request, "Refused", "the login form has expired: reload /me", 403)
    token = str(form.get("token", "")).strip()[:200]
    store = store_of(request)
    player = await run_in_threadpool(store.accounts.player_of_token, token)
    if player is None:
        if limits_of(request).failures.failed(("address", address(request))):
            return error_page(request, "Too many tries",
                              "too many wrong tokens from your address: wait a minute", 429)
        return await page_me(request, "That token is not one of this ladder's.", "error",
                             403)
    session_id, _ = await run_in_threadpool(store.accounts.open_session, player.id)
    response = RedirectResponse("/me", status_code=303)
    response.set_cookie(SESSION_COOKIE, session_id, httponly=True, samesite="strict",
                        path="/", max_age=12 * 3600)
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


async def post_logout(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=4)
    if await checked_session(request, form) is None:
        return not_your_form(request)
    await run_in_threadpool(store_of(request).accounts.close_session,
                            request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/me", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def post_upload(request: Request) -> Response:
    store = store_of(request)
    found = await run_in_threadpool(session_of, request)
    if found is None or not same_origin(request):
        return not_your_form(request)
    try:    # the CSRF token is read from the parsed form, before anything is stored
        form = await request.form(max_files=1, max_fields=4)
    except Exception as problem:  # noqa: BLE001 - too large, or not a form
        if isinstance(problem, BodyTooLarge):
            return await page_me(request, "Upload refused: the archive is larger than "
                                          f"{store.settings['upload_mb']} MB.", "error", 413)
        return await page_me(request, "That was not an upload form.", "error", 400)
    try:
        if form.get("csrf") != found[2]:
            return not_your_form(request)
        if not limits_of(request).uploads.allow(found[0]):
            return await page_me(request, "Upload refused: at most "
                                          f"{store.settings['uploads_per_minute']} uploads "
                                          "a minute; wait a minute.", "error", 429)
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            return await page_me(request, "Choose a file to upload.", "error", 400)
        received = await run_in_threadpool(receive, store, found[0], upload.file)
    finally:
        await form.close()
    if received.refusal is not None:
        status, words = received.refusal
        return await page_me(request, f"Upload refused: {words}.", "error", status)
    kind = "again" if received.again else "submitted"
    return RedirectResponse(f"/me?{kind}={received.id}", status_code=303)


async def post_challenge(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=4)
    found = await checked_session(request, form)
    if found is None:
        return not_your_form(request)
    try:
        pair = await run_in_threadpool(store_of(request).games.challenge, found[0],
                                       str(form.get("opponent", ""))[:100])
    except config.LadderError as refusal:
        return await page_me(request, f"Challenge refused: {refusal}.", "error", 409)
    return RedirectResponse(f"/me?challenged={pair}", status_code=303)


async def favicon(request: Request) -> Response:
    return Response(pages.icon(), media_type="image/svg+xml")


async def static_file(request: Request) -> Response:
    found = pages.static(request.path_params["name"])
    if found is None:
        return error_page(request, "Not found", "no such file", 404)
    return Response(found[1], media_type=found[0])
