"""The web process's connections, bounded before anything is buffered (uvicorn's h11).

uvicorn's HTTP protocols bound the size of a request head (h11's 16 KB) but not its
time: a client that sends one header byte a minute holds its connection for ever, and a
few hundred of them held every slot. :class:`GuardedProtocol` (the class passed as
``uvicorn.Config(http=...)``; see :func:`engine.ladder.web.guard.server`) adds:

* a connection cap per client address (an IPv6 client counts by its /64) and one in
  all, checked when the connection is made: past either, the connection is closed at
  once, before a byte is read, so that one address never locks out another;
* a time limit on the request head (from the connection, or from the end of the
  previous response on a kept-alive connection): past it, 408 and the connection closed;
* a time limit on the body and a floor on its rate, averaged from its start once a
  grace period has passed: past either, 408, the connection closed, and the application
  reading it sees the client gone.

Time is charged only while the server is reading: when the application has not yet read
what came (uvicorn pauses reading past 64 KB), the client cannot send and is not
charged. The application's own time (between the end of the request and the end of the
response) is never limited here.
"""

import ipaddress
import time
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Union

from uvicorn.protocols.http import h11_impl

from ...grading.printable import printable

# h11 as uvicorn uses it (reached through uvicorn, whose names mypy.ini leaves unchecked).
h11: Any = h11_impl.h11

# A closed connection's last bytes are read and dropped until the client has been quiet
# for LINGER_SECONDS, or for LINGER_LIMIT seconds in all.
LINGER_SECONDS = 2.0
LINGER_LIMIT = 30.0

Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]



def _raw_408(words: str) -> bytes:
    """A whole 408 response with a JSON body, outside h11 (for a head that never came:
    there is no request to answer in h11's terms)."""
    body = ('{"error": "' + words + '"}').encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode()
            + b"\r\n\r\n" + body)


class Limits(NamedTuple):
    """What one connection and one client may take (the defaults are the server's)."""
    head_seconds: float = 10.0          # the whole request head
    body_seconds: float = 300.0         # the whole request body (8 MB at 28 KB/s)
    body_grace_seconds: float = 10.0    # before the rate floor applies
    body_bytes_per_second: int = 4096   # the body's average rate, past the grace
    per_address: int = 64               # open connections per client address
    total: int = 1024                   # open connections in all
    keep_alive_seconds: float = 5.0     # an idle kept-alive connection
    head_bytes: int = 16 * 1024         # the request head's size (h11 refuses past it)
    tick_seconds: float = 0.5           # how often a connection's clocks are looked at


def parse_networks(words: Iterable[str]) -> List[Network]:
    """The addresses or networks ``words`` (``10.0.0.1``, ``10.0.0.0/8``, ``::1``).
    Raises ValueError naming the first that is neither."""
    networks = []
    for word in words:
        word = word.strip()
        try:
            networks.append(ipaddress.ip_network(word, strict=False))
        except ValueError:
            raise ValueError(f"{word!r} is not an IP address or network") from None
    return networks


def is_address(text: str) -> bool:
    """Whether ``text`` is an IPv4 or IPv6 address."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def within(host: str, networks: Iterable[Network]) -> bool:
    """Whether the address ``host`` is in one of ``networks`` (False for a non-address)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)


def address_key(host: str) -> str:
    """Whom a connection is counted against: the IPv4 address, or an IPv6 address's /64
    (one host's share: a client may take any address of its /64). An IPv4 address
    mapped into IPv6 counts as the IPv4 address."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class QuietLog:
    """Lines for the server's log, one per kind of event per ``window`` seconds: the
    first is written, repeats within the window are counted, and the next one written
    after it says how many there were (a full disk must not write a line per request)."""

    def __init__(self, write: Callable[[str], None], window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.write = write
        self.window = window
        self.clock = clock
        self.last: Dict[Any, float] = {}
        self.held: Dict[Any, int] = {}

    def __call__(self, kind: Any, text: str) -> None:
        now = self.clock()
        if kind in self.last and now - self.last[kind] < self.window:
            self.held[kind] = self.held.get(kind, 0) + 1
            return
        if len(self.last) > 10_000:
            self.last.clear()
        self.last[kind] = now
        more = self.held.pop(kind, 0)
        self.write(printable(text) + (f" (and {more} more like it since)" if more else ""))


class ConnectionBook:
    """The open connections, per client address and in all (one per server).

    Connections from a trusted proxy (``trusted``) are counted in all only: the proxy
    speaks for many clients, and the per-client limits then apply to the address it
    forwards (engine.ladder.web.guard)."""

    def __init__(self, limits: Limits, trusted: Iterable[Network],
                 log: Callable[[Any, str], None]) -> None:
        self.limits = limits
        self.trusted = list(trusted)
        self.log = log
        self.open: Dict[str, int] = {}
        self.total = 0

    def admit(self, host: str) -> Optional[str]:
        """Count a new connection from ``host``: the key to :meth:`release` it by, or
        None when it is over a cap (the caller closes it)."""
        proxied = within(host, self.trusted)
        key = ("proxy " + host) if proxied else address_key(host)
        if self.total >= self.limits.total:
            self.log(("total",), f"refused connections: {self.limits.total} are open")
            return None
        if not proxied and self.open.get(key, 0) >= self.limits.per_address:
            self.log(("address", key), f"refused connections from {key}: "
                                       f"{self.limits.per_address} of its are open")
            return None
        self.open[key] = self.open.get(key, 0) + 1
        self.total += 1
        return key

    def release(self, key: str) -> None:
        """A connection admitted under ``key`` has closed."""
        self.total -= 1
        left = self.open.get(key, 1) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)


class LingeringClose:
    """The connection's transport as uvicorn sees it, closing gently: a socket closed
    with unread bytes in it resets the connection, and the client may then lose the
    answer it was sent (a 413 or a 408) before reading it. So, while the client may
    still be sending, a close ends our side only (FIN after the answer), what still
    comes is read and dropped, and the socket is closed when the client closes its side
    or has been quiet for :data:`LINGER_SECONDS` (:data:`LINGER_LIMIT` at most)."""

    def __init__(self, transport: Any, protocol: "GuardedProtocol") -> None:
        self._transport = transport
        self._protocol = protocol
        self.lingering = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or bool(self._transport.is_closing())

    def write(self, data: bytes) -> None:
        if not self.lingering:
            self._transport.write(data)

    def close(self) -> None:
        if self.is_closing():
            return
        if not (self._protocol.may_be_sending() and self._transport.can_write_eof()):
            self._transport.close()
            return
        try:
            self._transport.write_eof()
        except OSError:             # the client is gone already (ENOTCONN): just close
            self._transport.close()
            return
        self.lingering = True
        self._transport.resume_reading()
        self._protocol.linger()

    def close_now(self) -> None:
        self._transport.close()


class GuardedProtocol(h11_impl.H11Protocol):
    """uvicorn's h11 protocol with the caps and clocks of the module docstring.

    ``book`` (a :class:`ConnectionBook`) is a class attribute: :func:`protocol_class`
    makes a subclass per server."""

    book: ConnectionBook

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.admitted: Optional[str] = None
        self.phase = "head"
        self.charged = 0.0
        self.body_bytes = 0
        self.looked = self.lingering_since = time.monotonic()
        self.watch: Any = None

    def connection_made(self, transport: Any) -> None:
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "local"
        self.admitted = self.book.admit(host)
        if self.admitted is None:
            transport.abort()
            return
        super().connection_made(LingeringClose(transport, self))
        self.looked = time.monotonic()
        self.watch = self.loop.call_later(self.book.limits.tick_seconds, self.look)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self.admitted is None:          # refused: uvicorn never knew of it
            return
        self.book.release(self.admitted)
        self.admitted = None
        if self.watch is not None:
            self.watch.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.phase == "cut":             # lingering: dropped, the client not quiet
            self.looked = time.monotonic()
            return
        if self.admitted is None:           # refused
            return
        super().data_received(data)
        self.follow(len(data))

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.follow(0)

    def follow(self, received: int) -> None:
        """Move to the phase h11 is in (a new phase starts its clock afresh) and count
        ``received`` bytes of a body."""
        state = self.conn.their_state
        phase = "head" if state is h11.IDLE else "body" if state is h11.SEND_BODY \
            else "app"
        if phase != self.phase:
            self.phase, self.charged, self.body_bytes = phase, 0.0, 0
        if phase == "body":
            self.body_bytes += received

    def look(self) -> None:
        """The periodic look at this connection's clocks: charge the time since the last
        look (unless reading is paused), and cut the connection past a limit."""
        now = time.monotonic()
        elapsed, self.looked = now - self.looked, now
        if self.transport is None or self.transport.is_closing():
            return
        if not self.flow.read_paused:
            self.charged += elapsed
        problem = self.overdue()
        if problem is not None:
            self.cut(problem)
            return
        self.watch = self.loop.call_later(self.book.limits.tick_seconds, self.look)

    def overdue(self) -> Optional[str]:
        """Why this connection is past a limit (None when it is not)."""
        limits = self.book.limits
        if self.phase == "head" and self.charged > limits.head_seconds:
            return f"no request head within {limits.head_seconds:g} s"
        if self.phase != "body":
            return None
        if self.charged > limits.body_seconds:
            return f"the request body took more than {limits.body_seconds:g} s"
        if self.charged > limits.body_grace_seconds and \
                self.body_bytes < limits.body_bytes_per_second * self.charged:
            return (f"the request body came slower than "
                    f"{limits.body_bytes_per_second} bytes a second")
        return None

    def cut(self, problem: str) -> None:
        """Answer 408 (when nothing was answered yet) and close the connection; the
        application reading the body sees the client gone."""
        host = self.client[0] if self.client else "?"
        self.book.log(("cut", problem), f"closed a connection from {host}: {problem}")
        cycle = self.cycle
        if self.phase == "head":
            self.transport.write(_raw_408(problem))
        elif cycle is not None and not cycle.response_started:
            self._answer_408(problem)
        if cycle is not None:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def may_be_sending(self) -> bool:
        """Whether the client may still be sending (a head or a body not read to its
        end), so that closing now would reset the connection."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def linger(self) -> None:
        """The connection is lingering (see :class:`LingeringClose`): what comes is
        dropped, and it is closed for good once the client is quiet."""
        self.phase = "cut"
        self.looked = self.lingering_since = time.monotonic()
        if self.watch is not None:
            self.watch.cancel()
        self.watch = self.loop.call_later(self.book.limits.tick_seconds, self.look_quiet)

    def look_quiet(self) -> None:
        """Close a lingering connection whose client has been quiet for
        :data:`LINGER_SECONDS`, or that has lingered :data:`LINGER_LIMIT` seconds."""
        now = time.monotonic()
        if now - self.looked > LINGER_SECONDS or now - self.lingering_since > LINGER_LIMIT:
            self.transport.close_now()
            return
        self.watch = self.loop.call_later(self.book.limits.tick_seconds, self.look_quiet)

    def shutdown(self) -> None:
        if self.phase == "cut":
            self.transport.close_now()
        else:
            super().shutdown()

    def _answer_408(self, problem: str) -> None:
        body = ('{"error": "' + problem + '"}').encode()
        try:
            for event in (h11.Response(status_code=408, reason=b"Request Timeout", headers=[
                              (b"content-type", b"application/json"),
                              (b"connection", b"close"),
                              (b"content-length", str(len(body)).encode())]),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:
            pass


def protocol_class(book: ConnectionBook) -> type:
    """A :class:`GuardedProtocol` subclass counting its connections in ``book``."""
    return type("LadderProtocol", (GuardedProtocol,), {"book": book})
