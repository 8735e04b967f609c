"""The students' JSON API (docs/ladder.md, "The HTTP API").

Public, no token: ``GET /api/leaderboard`` (the standings' snapshot, served as stored
bytes), ``GET /api/games[?player=NAME|?submission=ID]`` and ``GET /api/games/ID``: public
records carry the moves, the result and the forfeit's reason category, never what a
program printed. A student's own, with ``Authorization: Bearer TOKEN``: ``POST
/api/submissions`` (multipart field ``file``), ``GET /api/submissions``, ``GET
/api/submissions/ID`` (another's is 404, as a missing one: its build log and forfeit
details are private), ``POST /api/challenges`` ``{"opponent": NAME}``.
"""

from typing import Any, Dict, Tuple

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from .. import config
from ..store.accounts import Caller
from .guard import BodyTooLarge
from .common import error, for_students, json_body, limits_of, store_of
from .receiving import receive

FORM_LIMITS = {"max_files": 1, "max_fields": 4}


async def read_upload_form(request: Request) -> Tuple[Any, Response]:
    """(the parsed form, None) or (None, an error response) for an upload."""
    try:
        return await request.form(**FORM_LIMITS), None
    except ClientDisconnect:
        return None, error(400, "the upload was cut off")
    except Exception as problem:  # noqa: BLE001 - the parser's words for a bad form
        if isinstance(problem, BodyTooLarge):
            settings = store_of(request).settings
            return None, error(413, f"the archive is larger than {settings['upload_mb']} MB")
        return None, error(400, f"not a multipart form with a file: {problem}")


@for_students
async def post_submission(request: Request, player: Caller) -> Response:
    if not limits_of(request).uploads.allow(player.id):
        settings = store_of(request).settings
        return error(429, f"too many uploads; at most {settings['uploads_per_minute']} "
                          "a minute")
    form, refused = await read_upload_form(request)
    if refused is not None:
        return refused
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            return error(400, "no file: send the archive as the multipart field 'file'")
        received = await run_in_threadpool(receive, store_of(request), player.id,
                                           upload.file)
    finally:
        await form.close()
    if received.refusal is not None:
        return error(*received.refusal)
    body: Dict[str, Any] = {"id": received.id, "status": received.status}
    if received.again:
        body["identical"] = True
    return JSONResponse(body, status_code=200 if received.again else 201)


@for_students
async def get_submission(request: Request, player: Caller) -> Response:
    store = store_of(request)
    found = await run_in_threadpool(store.submissions.view, request.path_params["id"],
                                    player.id)
    if found is None:
        return error(404, "no such submission of yours")
    return JSONResponse(with_rating(store, found))


@for_students
async def list_submissions(request: Request, player: Caller) -> Response:
    store = store_of(request)
    found = await run_in_threadpool(store.submissions.of_player, player.id)
    return JSONResponse([with_rating(store, view) for view in found])


def with_rating(store: Any, view: Dict[str, Any]) -> Dict[str, Any]:
    """A submission's view with its version's rating ([rating, low, high] or None)."""
    rating = store.standings.snapshot().by_submission.get(view["id"])
    return dict(view, rating=list(rating) if rating else None)


@for_students
async def post_challenge(request: Request, player: Caller) -> Response:
    body = await json_body(request)
    opponent = body.get("opponent")
    if not isinstance(opponent, str) or not opponent:
        return error(400, "name the opponent: {\"opponent\": NAME}")
    try:
        pair = await run_in_threadpool(store_of(request).games.challenge, player.id,
                                       opponent)
    except config.LadderError as refusal:
        return error(409, str(refusal))
    return JSONResponse({"pair": pair}, status_code=201)


async def get_leaderboard(request: Request) -> Response:
    snapshot = await run_in_threadpool(store_of(request).standings.snapshot)
    return Response(snapshot.body, media_type="application/json")


async def list_games(request: Request) -> Response:
    player = request.query_params.get("player")
    submission = request.query_params.get("submission")
    if submission is not None and not submission.isdigit():
        return error(400, "submission must be a number")
    records = await run_in_threadpool(store_of(request).games.listed, player,
                                      int(submission) if submission else None)
    return JSONResponse(records)


async def get_game(request: Request) -> Response:
    record = await run_in_threadpool(store_of(request).games.record,
                                     request.path_params["id"])
    if record is None:
        return error(404, "no such finished game")
    return JSONResponse(record)
