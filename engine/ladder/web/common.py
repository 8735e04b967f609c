"""What every endpoint shares: who is asking (a student's token, a worker's token, a
page's session), the per-token and per-address limits, and JSON errors.

Limits (per minute, in this process): per student token ``requests_per_minute``
requests and ``uploads_per_minute`` uploads; per address, ``failures_per_minute``
failed logins or wrong tokens. A valid token is never refused because of its address: an
attacker's failures cannot lock out a classmate behind the same address.
"""

import functools
from typing import Any, Awaitable, Callable, Optional, Tuple

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .guard import FailureLimit, RateLimit
from ..store import Store
from ..store.accounts import Caller

SESSION_COOKIE = "ladder_session"
LOGIN_COOKIE = "ladder_login"
FAILURES_PER_MINUTE = 60
Handler = Callable[[Request], Awaitable[Response]]


class Limits:
    """The process's limiters (see the module docstring)."""

    def __init__(self, settings: Any) -> None:
        self.requests = RateLimit(int(settings["requests_per_minute"]))
        self.uploads = RateLimit(int(settings["uploads_per_minute"]))
        self.failures = FailureLimit(int(settings.get("failures_per_minute",
                                                      FAILURES_PER_MINUTE)))


def store_of(request: Request) -> Store:
    return request.app.state.store


def limits_of(request: Request) -> Limits:
    return request.app.state.limits


def address(request: Request) -> str:
    """The client's address (a proxy's forwarded one only when the operator trusts it:
    the server's configuration decides what the scope holds)."""
    return request.client.host if request.client else "?"


def error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def bearer(request: Request) -> Optional[str]:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()[:200]
    return None


def _student(request: Request) -> Tuple[Optional[Caller], Optional[Response]]:
    limits = limits_of(request)
    player = store_of(request).accounts.player_of_token(bearer(request))
    if player is None:
        if limits.failures.failed(("address", address(request))):
            return None, error(429, "too many wrong tokens from your address; wait a minute")
        return None, error(401, "a valid student token is needed "
                                "(Authorization: Bearer TOKEN)")
    if not limits.requests.allow(("student", player.id)):
        return None, error(429, "too many requests; wait a minute")
    return player, None


def for_students(handler: Callable[[Request, Caller], Awaitable[Response]]) -> Handler:
    """``handler(request, player)`` behind the student's Bearer token and the limits: a
    request without a valid token gets 401 (429 past its address's failures), one past
    its token's request limit 429, and the handler is not called."""
    @functools.wraps(handler)
    async def checked(request: Request) -> Response:
        player, refused = await run_in_threadpool(_student, request)
        if refused is not None:
            return refused
        return await handler(request, player)
    return checked


def for_workers(handler: Callable[[Request, Caller], Awaitable[Response]]) -> Handler:
    """``handler(request, worker)`` behind a worker's own live token: a request without
    one gets 401, and the handler is not called."""
    @functools.wraps(handler)
    async def checked(request: Request) -> Response:
        worker = await run_in_threadpool(store_of(request).accounts.worker_of_token,
                                         bearer(request))
        if worker is None:
            limits_of(request).failures.failed(("address", address(request)))
            return error(401, "a valid worker token is needed")
        return await handler(request, worker)
    return checked


async def json_body(request: Request) -> dict:
    """The request's JSON object ({} when it is none)."""
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def int_or_none(value: Any) -> Optional[int]:
    """``value`` when it is an int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
