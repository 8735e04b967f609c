"""The workers' protocol (engine.ladder.worker has the whole of it): each request
carries the worker's own token. A worker leases work, renews its lease, fetches the
normalised archive of a submission only while it holds a lease that includes it, and
reports a build, a game, or gives either back (with the entrant whose set-up failed
here, or none for a failure of ours)."""

import os
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from ...tournament.games import positions
from .. import config
from ..store import Conflict
from ..store.accounts import Caller
from .common import error, for_workers, int_or_none, json_body, store_of

IDLE_WAIT = 1.0
SETTINGS = ("game", "time", "sizes", "seed", "lease", "isolation", "memory_mb")


async def acknowledged(function: Callable[..., Any], *args: Any) -> Response:
    """``function(*args)`` (a store call that settles a lease) in a thread:
    ``{"ok": true}``, or 409 with the words of its Conflict (the lease is gone)."""
    try:
        await run_in_threadpool(function, *args)
    except Conflict as refusal:
        return error(409, str(refusal))
    return JSONResponse({"ok": True})


@for_workers
async def work_settings(request: Request, worker: Caller) -> Response:
    store = store_of(request)
    settings = {key: store.settings[key] for key in SETTINGS}
    # Every player may play: a worker's cache holds them all from the start.
    settings["class_size"] = await run_in_threadpool(store.accounts.players)
    return JSONResponse(settings)


@for_workers
async def work_lease(request: Request, worker: Caller) -> Response:
    body = await json_body(request)
    built = [sid for sid in body.get("built", []) if int_or_none(sid) is not None] \
        if isinstance(body.get("built"), list) else []
    label = body.get("worker") if isinstance(body.get("worker"), str) else None
    work = await run_in_threadpool(store_of(request).games.lease, worker, built[:10_000],
                                   label)
    return JSONResponse(work or {"kind": "idle", "wait": IDLE_WAIT})


@for_workers
async def work_extend(request: Request, worker: Caller) -> Response:
    body = await json_body(request)
    return await acknowledged(store_of(request).games.extend, str(body.get("lease")),
                              worker.id)


@for_workers
async def work_archive(request: Request, worker: Caller) -> Response:
    store = store_of(request)
    submission_id = request.path_params["id"]
    if not await run_in_threadpool(store.games.holds, worker.id, submission_id):
        return error(403, "no live lease of yours includes this submission")
    path = config.upload_path(store.settings, submission_id)
    if await run_in_threadpool(store.submissions.archive_of, submission_id) is None \
            or not os.path.isfile(path):
        return error(404, "no such uploaded archive")
    return FileResponse(path, media_type="application/octet-stream")


@for_workers
async def work_build(request: Request, worker: Caller) -> Response:
    body = await json_body(request)
    problem = body.get("error")
    return await acknowledged(store_of(request).submissions.finish_build,
                              request.path_params["id"], str(body.get("lease")), worker.id,
                              None if problem is None else str(problem))


@for_workers
async def work_build_abandon(request: Request, worker: Caller) -> Response:
    body = await json_body(request)
    return await acknowledged(store_of(request).submissions.abandon_build,
                              str(body.get("lease")), worker.id,
                              str(body.get("reason", ""))[:2000])


@for_workers
async def work_game(request: Request, worker: Caller) -> Response:
    store = store_of(request)
    body = await json_body(request)
    record = body.get("record")
    problem = check_record(store.rules.name, record)
    if problem:
        return error(422, problem)
    return await acknowledged(store.games.finish, request.path_params["id"],
                              str(body.get("lease")), worker.id, record)


@for_workers
async def work_game_abandon(request: Request, worker: Caller) -> Response:
    body = await json_body(request)
    # A lease already settled is simply left: give_back never raises Conflict.
    return await acknowledged(store_of(request).games.give_back, str(body.get("lease")),
                              worker.id, int_or_none(body.get("entrant")),
                              str(body.get("reason", ""))[:2000])


def check_record(game: str, record: Any) -> str:
    """Why a worker's record cannot be stored ("" when it can): the fields a tournament
    record has, and moves the rules replay to the end."""
    if not isinstance(record, dict):
        return "record must be an object"
    missing = [field for field in ("size", "cells", "moves", "result", "score", "cpu",
                                   "forfeit") if field not in record]
    if missing:
        return "record lacks " + ", ".join(missing)
    if record["result"] not in ("x", "o", "draw") or not isinstance(record["moves"], list):
        return "record's result or moves are malformed"
    forfeit = record["forfeit"]
    if forfeit is not None and (not isinstance(forfeit, dict)
                                or forfeit.get("player") not in ("x", "o")):
        return "record's forfeit is malformed"
    try:
        frames = positions(game, record["cells"], record["moves"])
    except Exception as problem:  # noqa: BLE001 - a malformed record from a worker
        return f"record's board cannot be set up: {type(problem).__name__}"
    if len(frames) != len(record["moves"]) + 1:
        return "record's moves do not replay by the rules"
    return ""
