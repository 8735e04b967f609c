"""The web process on the open network: every request bounded, every failure answered.

* :func:`server` -> the uvicorn server of an application, on a socket bound beforehand,
  whose connections are capped per client address and in all and whose request heads
  and bodies are timed (:mod:`engine.ladder.web.connections`); proxy headers
  (X-Forwarded-For, X-Forwarded-Proto) are believed only from the addresses
  ``trust_proxy`` names, never by default.
* :func:`protect` -> the application wrapped in the request-body caps (413, naming the
  limit), the policy headers, and one answer for every failure: a full disk is a 503, any
  other exception a 500, each as JSON under ``/api/`` and as a page elsewhere, with one
  line in the server's log (no traceback; repeats within a minute counted, not written).
* :class:`RateLimit` and :class:`FailureLimit`: at most so many events per key a minute;
  a failure limit per address never stands in the way of a valid token.
"""

import errno
import html
import json
import os
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from typing import (Any, Awaitable, Callable, Deque, Dict, Hashable, Iterable, List, Optional,
                    Sequence, Tuple)

from starlette.requests import ClientDisconnect

from ...errors import EngineError
from ...grading.printable import printable
from .connections import (ConnectionBook, Limits, Network, QuietLog, is_address, parse_networks,
                          protocol_class, within)

# ASGI, as the middlewares see it.
Message = Dict[str, Any]
Scope = Dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
ErrorPage = Callable[[int, str, str], str]

MB = 1024 * 1024
UPLOAD_PATHS = ("/api/submissions", "/me/upload")
FORM_OVERHEAD = 64 * 1024           # a multipart form's own bytes around the archive
BODY_MB = 1                         # every other request's body
API_PREFIX = "/api/"
DISK_FULL_WORDS = ("database or disk is full", "no space left on device",
                   "disk quota exceeded", "could not extend file")
DISK_FULL_SQLSTATE = "53100"        # PostgreSQL's disk_full


class BodyTooLarge(EngineError):
    """A request body past its cap, cut as it streamed in; the message names the cap
    ("the archive is larger than 8 MB")."""


class PortTaken(EngineError):
    """The address and port to listen on cannot be had (another server holds them)."""


def log_line(text: str) -> None:
    """One line of the web process's log (its stderr). A log that cannot be written (on
    the disk that is full) loses the line: the answer to the client must not fail."""
    try:
        sys.stderr.write(f"ladder web: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# --- the request: caps, headers, failures ----------------------------------------------------

def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (or one it was raised from or groups) says the disk is full:
    OSError ENOSPC or EDQUOT, SQLite's "database or disk is full", PostgreSQL's
    disk_full (SQLSTATE 53100), as the database libraries wrap them."""
    pending: List[BaseException] = [error]
    seen = 0
    while pending and seen < 32:
        current = pending.pop()
        seen += 1
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if getattr(current, "sqlstate", None) == DISK_FULL_SQLSTATE or \
                getattr(current, "pgcode", None) == DISK_FULL_SQLSTATE:
            return True
        words = str(current).lower()
        if any(phrase in words for phrase in DISK_FULL_WORDS):
            return True
        for linked in (current.__cause__, current.__context__,
                       getattr(current, "orig", None)):
            if isinstance(linked, BaseException):
                pending.append(linked)
        pending.extend(item for item in getattr(current, "exceptions", ())
                       if isinstance(item, BaseException))
    return False


def describe(error: BaseException) -> str:
    """``Type: first line of the message`` (at most 200 characters, printable)."""
    lines = str(error).splitlines()
    text = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return printable(text[:200])


def plain_page(status: int, heading: str, words: str) -> str:
    """The error page when the application's own cannot be made."""
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{status} "
            f"{html.escape(heading)}</title></head><body><h1>{html.escape(heading)}</h1>"
            f"<p>{html.escape(words)}</p></body></html>")


class Protect:
    """ASGI middleware: request-body caps, and every failure answered in its form (see
    the module docstring). Use :func:`protect`, which places it."""

    def __init__(self, app: ASGIApp, error_page: ErrorPage, upload_mb: float,
                 upload_paths: Sequence[str] = UPLOAD_PATHS, body_mb: float = BODY_MB,
                 log: Optional[Callable[[Any, str], None]] = None) -> None:
        self.app = app
        self.error_page = error_page
        self.upload_paths = tuple(upload_paths)
        self.upload = (int(upload_mb * MB) + FORM_OVERHEAD,
                       f"the archive is larger than {upload_mb:g} MB")
        self.other = (int(body_mb * MB), f"the request is larger than {body_mb:g} MB")
        self.log: Callable[[Any, str], None] = log or QuietLog(log_line)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap, words = self.upload if scope.get("path") in self.upload_paths else self.other
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > cap:
                await self.answer(scope, send, 413, "Too large", words)
                return
        seen, started = 0, False

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    raise BodyTooLarge(words)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)
        try:
            await self.app(scope, limited, watched)
        except BodyTooLarge as error:
            if not started:
                await self.answer(scope, send, 413, "Too large", str(error))
        except ClientDisconnect:    # the client went (or was cut): no one to answer
            pass
        except Exception as error:  # noqa: BLE001 - every failure gets one answer, one line
            await self.failed(scope, send, error, started)

    async def failed(self, scope: Scope, send: Send, error: Exception,
                     started: bool) -> None:
        """Log ``error`` in one line and answer 503 (a full disk) or 500, unless the
        answer had begun (then the connection is cut by the server)."""
        where = f"{scope.get('method', '?')} {scope.get('path', '?')}"
        if is_disk_full(error):
            self.log(("disk full",), f"the disk is full ({describe(error)}) at {where}: "
                                     "answered 503")
            if not started:
                await self.answer(scope, send, 503, "Out of space",
                                  "the server's disk is full: nothing was saved; try again "
                                  "in a few minutes", [(b"retry-after", b"60")])
            return
        self.log(("error", type(error).__name__),
                 f"internal error at {where}: {describe(error)}: answered 500")
        if not started:
            await self.answer(scope, send, 500, "Server error",
                              "something went wrong on the server; it is in the server's "
                              "log")

    async def answer(self, scope: Scope, send: Send, status: int, heading: str,
                     words: str, headers: Iterable[Tuple[bytes, bytes]] = ()) -> None:
        """The response ``status`` saying ``words``: JSON ``{"error": words}`` under
        /api/, else the application's error page; the connection is closed after it."""
        if str(scope.get("path", "")).startswith(API_PREFIX):
            body, kind = json.dumps({"error": words}).encode(), b"application/json"
        else:
            try:
                page = self.error_page(status, heading, words)
            except Exception:  # noqa: BLE001 - the page's own failure (the disk, again)
                page = plain_page(status, heading, words)
            body, kind = page.encode("utf-8"), b"text/html; charset=utf-8"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", kind),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")] + list(headers)})
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """ASGI middleware: the policy headers of every response (a response that sets its
    own Content-Security-Policy keeps it; ``csp`` is the rest's)."""

    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app = app
        self.csp = csp.encode()

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
                         (b"cache-control", b"no-store"),
                         (b"content-security-policy", self.csp)]
                message = dict(message, headers=headers + [
                    header for header in extra if header[0] not in names])
            await send(message)
        await self.app(scope, receive, with_headers)


def protect(app: Any, error_page: ErrorPage, upload_mb: float, csp: str,
            upload_paths: Sequence[str] = UPLOAD_PATHS, body_mb: float = BODY_MB,
            log: Optional[Callable[[Any, str], None]] = None) -> ASGIApp:
    """``app`` guarded: request bodies capped (``upload_mb`` for ``upload_paths``, plus
    the form's overhead; ``body_mb`` for the rest), failures answered (503 for a full
    disk, 500 else: JSON under /api/, ``error_page(status, heading, words)`` -> HTML
    elsewhere), one line logged per failure (``log(kind, text)``; default: stderr, a
    kind at most once a minute), and the policy headers on every response.

    A Starlette application gets :class:`Protect` as its outermost user middleware, that
    is inside Starlette's own error middleware, which would otherwise answer an exception
    with a plain-text 500 before any wrapper could: pass the Starlette object itself,
    before it serves (it is returned wrapped in :class:`SecurityHeaders`). Any other
    ASGI application is wrapped."""
    options: Dict[str, Any] = {"error_page": error_page, "upload_mb": upload_mb,
               "upload_paths": upload_paths, "body_mb": body_mb,
               "log": log or QuietLog(log_line)}
    if hasattr(app, "add_middleware") and hasattr(app, "user_middleware"):
        app.add_middleware(Protect, **options)
        return SecurityHeaders(app, csp)
    return SecurityHeaders(Protect(app, **options), csp)


class ForwardedFor:
    """ASGI middleware: a request that comes through a trusted proxy (its peer address
    is in ``trusted``) is the client's that the proxy names: the last address of
    X-Forwarded-For that is not itself a trusted proxy (each proxy appends the address
    it heard from; only the trusted ones' words are believed), and the scheme of
    X-Forwarded-Proto. A request from anyone else keeps its peer address, whatever
    headers it sends."""

    def __init__(self, app: ASGIApp, trusted: Sequence[Network]) -> None:
        self.app = app
        self.trusted = list(trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and client and \
                within(str(client[0]), self.trusted):
            scope = dict(scope)
            forwarded: List[str] = []
            for name, value in scope.get("headers", ()):
                if name == b"x-forwarded-for":
                    forwarded += [part.strip() for part in value.decode("latin-1").split(",")]
                elif name == b"x-forwarded-proto" and value.strip() in (b"http", b"https"):
                    scope["scheme"] = value.strip().decode()
            for address in reversed(forwarded):
                if not within(address, self.trusted):
                    if is_address(address):
                        scope["client"] = (address, 0)
                    break
        await self.app(scope, receive, send)


# --- rates ------------------------------------------------------------------------------------

class RateLimit:
    """At most ``count`` events per key in any ``seconds`` (in this process). At most
    ``keys`` keys are remembered: past that, the ones whose events are all old are
    forgotten, then the oldest."""

    def __init__(self, count: int, seconds: float = 60.0, keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.count = count
        self.seconds = seconds
        self.keys = keys
        self.clock = clock
        self.events: "OrderedDict[Hashable, Deque[float]]" = OrderedDict()
        self.lock = threading.Lock()

    def _recent(self, key: Hashable, now: float) -> Deque[float]:
        events = self.events.get(key)
        if events is None:
            if len(self.events) >= self.keys:
                self._forget(now)
            events = self.events[key] = deque()
        while events and events[0] <= now - self.seconds:
            events.popleft()
        return events

    def _forget(self, now: float) -> None:
        for key in [key for key, events in self.events.items()
                    if not events or events[-1] <= now - self.seconds]:
            del self.events[key]
        while len(self.events) >= self.keys:
            self.events.popitem(last=False)

    def allow(self, key: Hashable) -> bool:
        """Count an event of ``key`` and say True, or say False (nothing counted) when
        ``key`` had ``count`` events already in the last ``seconds``."""
        now = self.clock()
        with self.lock:
            events = self._recent(key, now)
            if len(events) >= self.count:
                return False
            events.append(now)
            return True

    def exceeded(self, key: Hashable) -> bool:
        """Whether ``key`` has had ``count`` events in the last ``seconds`` (nothing
        counted)."""
        now = self.clock()
        with self.lock:
            return len(self._recent(key, now)) >= self.count


class FailureLimit(RateLimit):
    """Failures per client address (a wrong token, a failed login): only failures count,
    so that a client with a valid token is never refused because of its neighbours
    behind the same address. Check the token first; on a failure call :meth:`failed`,
    and answer 429 instead of 401/403 when it says so."""

    def failed(self, key: Hashable) -> bool:
        """Count a failure of ``key``: True when it is one too many (answer 429)."""
        return not self.allow(key)


# --- the server -------------------------------------------------------------------------------

def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A TCP socket listening on ``host``:``port`` (inheritable, so that it can be handed
    to a child). Raises PortTaken when another holds the port, or the address cannot be
    had."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError as error:
        raise PortTaken(f"--host {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        # SO_REUSEADDR lets a restart bind past the old connections' TIME_WAIT; Linux
        # still refuses a port that another socket listens on.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortTaken(f"{host}:{port} is taken: another server listens there "
                            "(ladder stop DIR, or another --port)") from None
        raise PortTaken(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


def _descriptor_budget(wanted: int) -> Tuple[int, int]:
    """(connections, backlog) that fit this process's descriptors: at most ``wanted``
    connections, and a backlog that is also how many connections the event loop accepts
    at a time before any is admitted or refused (uvicorn gives asyncio 2048). A
    connection is a descriptor: with 256 of them, 300 connections accepted in one go
    left none, and accept() failed for everyone."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return wanted, 128
    if soft == resource.RLIM_INFINITY or soft >= 4 * (wanted + 2048):
        return wanted, 2048
    return max(16, min(wanted, soft // 2)), max(16, min(2048, soft // 4))


def server(app: ASGIApp, host: str, port: int, sock: Optional[socket.socket] = None,
           trust_proxy: Optional[Sequence[str]] = None, limits: Optional[Limits] = None,
           log: Optional[Callable[[Any, str], None]] = None) -> Any:
    """The uvicorn server of ``app`` on ``sock`` (bound now when None: PortTaken when
    the port is another's), with the connection caps and clocks of ``limits``, proxy
    headers believed only from ``trust_proxy`` (addresses or networks; ValueError for
    another word), its protocol classes loaded and every late import done
    (:func:`preload`): ready to ``run()`` after root is dropped."""
    import uvicorn
    limits = limits or Limits()
    total, backlog = _descriptor_budget(limits.total)
    limits = limits._replace(total=total)
    trusted = parse_networks(trust_proxy or ())
    book = ConnectionBook(limits, trusted, log or QuietLog(log_line))
    listener = sock if sock is not None else listening_socket(host, port)
    # uvicorn's own proxy-header handling is off: by default it believes 127.0.0.1.
    config = uvicorn.Config(
        ForwardedFor(app, trusted) if trusted else app, host=host, port=port,
        http=protocol_class(book), lifespan="off", proxy_headers=False, log_level="warning",
        loop="asyncio",
        access_log=False, server_header=False,
        timeout_keep_alive=limits.keep_alive_seconds, timeout_graceful_shutdown=5,
        backlog=backlog,
        h11_max_incomplete_event_size=limits.head_bytes)
    config.load()
    # The event loop's module is imported when the server runs (uvicorn 0.36 on:
    # get_loop_factory; before: setup_event_loop): import it now.
    if hasattr(config, "get_loop_factory"):
        config.get_loop_factory()
    else:
        config.setup_event_loop()
    preload()

    class Server(uvicorn.Server):
        async def serve(self, sockets: Optional[List[socket.socket]] = None) -> None:
            await super().serve(sockets=sockets or [listener])

    return Server(config)


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
    # anyio imports its backend at the first thread hand-off and its file wrapper at
    # the first file response; names that an older anyio lacks are skipped.
    for name in LATE_LIBRARY_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


LATE_LIBRARY_MODULES = ("anyio._backends._asyncio", "anyio._core._fileio", "anyio.to_thread",
                        "anyio.from_thread", "anyio.abc")


class AfterRoot:
    """What the web process does, once root is dropped, that a web user unable to read
    the code's folders (a Python or a checkout under /root) could not do: it names in
    the log, once each, every module imported for the first time and every file opened
    beneath the code's folders (the engine package, the standard library, the
    libraries). :func:`preload` and the pages' preload should have done it all before;
    a line here is a missing preload. An audit hook (PEP 578), so it lasts as long as
    the process: :meth:`install` it in the web process only."""

    def __init__(self, log: Callable[[str], None] = log_line,
                 folders: Optional[Sequence[str]] = None) -> None:
        self.log = log
        given = folders if folders is not None else code_folders()
        self.folders = tuple({os.path.join(how(folder), "") for folder in given
                              for how in (os.path.abspath, os.path.realpath)})
        self.seen: set = set()

    def __call__(self, event: str, args: Tuple[Any, ...]) -> None:
        if event == "import":
            if args[0] in sys.builtin_module_names:     # inside the interpreter: no file
                return
            what = f"imported {args[0]}"
        elif event == "open" and isinstance(args[0], str) and os.path.isabs(args[0]) \
                and os.path.normpath(args[0]).startswith(self.folders):
            # (a relative name may be relative to a folder's descriptor: never code)
            what = f"opened {os.path.normpath(args[0])}"
        else:
            return
        if what not in self.seen:
            self.seen.add(what)
            self.log(f"{what} after dropping root (a web user who cannot read the "
                     "code's folders would fail here)")

    def install(self) -> "AfterRoot":
        sys.addaudithook(self)
        return self


def code_folders() -> List[str]:
    """The folders the web process's code comes from: the engine package, the standard
    library and the folders libraries are installed in."""
    import sysconfig
    paths = sysconfig.get_paths()
    engine_folder = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    return sorted({engine_folder, paths["stdlib"], paths["platstdlib"], paths["purelib"],
                   paths["platlib"]})
