"""A ladder worker's side of the HTTP protocol: JSON with this worker's own token,
requests retried with backoff, and the token read where no entrant can see it.

The token is a Bearer token on every request. It is read from a file that nobody else
may read (:func:`read_token_file`) or from standard input, never taken from a command
line (``/proc/PID/cmdline`` is world-readable) or from the environment (an entrant run
as the worker's user reads ``/proc/PID/environ``). Redirects are refused: urllib would
send the token on to wherever a redirect points.

A request that fails for a reason that may pass (the server unreachable or restarting,
a 5xx, a 429) is tried again after 0.5, 1, 2, 4, ... seconds, doubling up to
:data:`RETRY_CAP`, with one line on stderr per failure; any other answer (a 409: the
lease is gone; a 403, a 422) is final. Standard library only.
"""

import json
import os
import stat
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Iterator, Optional

from ...errors import EngineError, UsageError
from ...grading.printable import printable

RETRY_FIRST = 0.5
RETRY_CAP = 30.0
# A JSON answer is small; an archive is at most the upload bounds (64 MB of files) plus
# the archive's own headers.
ANSWER_CAP = 1 << 20
ARCHIVE_CAP = 96 << 20
TOKEN_CAP = 4096
# Answers worth trying again: the server restarting (502-504 from a proxy, 500, 503)
# or asking us to slow down.
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})


class ServerError(EngineError):
    """The server answered with an error (``status``), or could not be reached, or
    answered with something that is not the protocol's (``status`` None)."""

    def __init__(self, status: Optional[int], message: str) -> None:
        super().__init__(message)
        self.status = status

    @property
    def passing(self) -> bool:
        """Whether trying again later may succeed."""
        return self.status is None or self.status in RETRIED_STATUSES


def say(text: str) -> None:
    """One line of the worker's on stderr."""
    print(f"ladder worker: {text}", file=sys.stderr, flush=True)


def backoff(first: float = RETRY_FIRST, cap: float = RETRY_CAP) -> Iterator[float]:
    """The waits between tries: ``first``, then doubling, never more than ``cap``."""
    delay = first
    while True:
        yield delay
        delay = min(delay * 2, cap)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Every redirect is an error: the request carries the worker's token."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Client:
    """JSON over HTTP to the ladder's server at ``url`` with ``token``; ``log`` gets
    the one line per failed try (default: :func:`say`)."""

    def __init__(self, url: str, token: str, timeout: float = 60.0,
                 log: Callable[[str], None] = say) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.log = log
        self._opener = urllib.request.build_opener(_NoRedirects)

    def request(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        """One try: the parsed JSON answer (or its bytes with ``raw``). Raises
        ServerError."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        cap = ARCHIVE_CAP if raw else ANSWER_CAP
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                payload = response.read(cap + 1)
        except urllib.error.HTTPError as error:
            text = printable(error.read(300).decode("utf-8", "replace"))
            raise ServerError(error.code, f"{method} {path}: HTTP {error.code} {text}") \
                from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            raise ServerError(None, f"{method} {path}: {printable(reason)}") from None
        if len(payload) > cap:
            raise ServerError(None, f"{method} {path}: an answer over {cap >> 20} MB")
        if raw:
            return payload
        try:
            return json.loads(payload.decode("utf-8")) if payload else None
        except ValueError:
            raise ServerError(None, f"{method} {path}: an answer that is not JSON") \
                from None

    def call(self, method: str, path: str, body: Any = None, raw: bool = False,
             patience: Optional[float] = None,
             stop: Optional[threading.Event] = None) -> Any:
        """:meth:`request`, tried again with :func:`backoff` while its failure may pass,
        for at most ``patience`` seconds (None: until ``stop`` is set), one line per
        failure. Raises the last ServerError when it is final, when ``stop`` is set or
        when patience runs out."""
        deadline = None if patience is None else time.monotonic() + patience
        for delay in backoff():
            try:
                return self.request(method, path, body, raw)
            except ServerError as error:
                out_of_time = deadline is not None and time.monotonic() + delay > deadline
                stopped = stop is not None and stop.is_set()
                if not error.passing or out_of_time or stopped:
                    raise
                self.log(f"{error}; trying again in {delay:g} s")
                if stop is not None:
                    if stop.wait(delay):
                        raise
                else:
                    time.sleep(delay)
        raise AssertionError("backoff never ends")       # pragma: no cover


# --- the token ------------------------------------------------------------------------

USE_A_FILE = ("write the token into a file only you may read (chmod 600) and give "
              "--worker-token-file FILE, or pipe it in with --worker-token-file -")


def _checked(token: str, where: str) -> str:
    token = token.strip()
    if not token:
        raise UsageError(f"{where} holds no token")
    if any(not "!" <= char <= "~" for char in token):
        raise UsageError(f"{where}: a token is one word of printable ASCII characters")
    return token


def read_token_file(path: str) -> str:
    """The token in the file ``path`` ("-": the first line of standard input). Raises
    UsageError (one line) for a link, anything but a regular file, a file that others
    may read or write, or no token."""
    if path == "-":
        return _checked(sys.stdin.readline(TOKEN_CAP), "standard input")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                             | os.O_CLOEXEC)
    except OSError as error:
        if os.path.islink(path):
            raise UsageError(f"{path} is a link: give the token file itself") from None
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UsageError(f"{path} is not a regular file")
        if status.st_mode & 0o077:
            raise UsageError(f"{path} may be read by others (mode "
                             f"{status.st_mode & 0o777:04o}): chmod 600 {path}")
        data = os.read(descriptor, TOKEN_CAP)
    finally:
        os.close(descriptor)
    return _checked(data.decode("utf-8", "replace"), path)


def refuse_exposed_token(option_given: bool, environment_given: bool) -> None:
    """Raise UsageError when the token came on the command line or in the environment,
    saying why and what to use instead."""
    if option_given:
        raise UsageError("--worker-token is refused: a command line is readable by every "
                         "user of this machine, entrants' programs included; "
                         + USE_A_FILE)
    if environment_given:
        raise UsageError("LADDER_WORKER_TOKEN is refused: the environment is readable by "
                         "programs run as this user, entrants' included; unset it and "
                         + USE_A_FILE)
