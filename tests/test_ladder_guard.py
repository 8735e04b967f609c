"""The ladder's web process on the open network (engine.ladder.web.guard, .connections):
real uvicorn servers on 127.0.0.1 at random ports, attacked as an attacker would:

* a slowloris head and a trickling body are cut (408, connection closed), an honest
  body the application is slow to read is not;
* 300 idle connections from one address leave another address served at once (the
  server under a 256-descriptor limit, where plain uvicorn runs out of them);
* X-Forwarded-For is believed from the operator's proxies only, never by default;
* bodies past their caps get 413 naming the limit (JSON under /api/, a page elsewhere);
* a real full disk (a small tmpfs) under a file write and under SQLite gives a JSON 503
  from /api/ and a page from the pages, one log line and no traceback; any other
  exception a 500 the same way;
* the rate limiters count per key and forget.
"""

import asyncio
import contextlib
import errno
import http.client
import json
import os
import resource
import select
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from golden import REPO  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import HTMLResponse, JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from engine.ladder.web import guard  # noqa: E402
from engine.ladder.web.connections import (ConnectionBook, Limits,  # noqa: E402
                                           LingeringClose, QuietLog, address_key,
                                           parse_networks)
from ports import free_port

CSP = "default-src 'none'"
QUICK = Limits(head_seconds=1.0, body_seconds=60.0, body_grace_seconds=0.5,
               body_bytes_per_second=1000, tick_seconds=0.1)


def error_page(status, heading, words):
    return f"<!doctype html><h1 class='ours'>{status} {heading}</h1><p>{words}</p>"


def application(lines, disk=None):
    """The test's application, guarded: a few endpoints, some that fail on ``disk``."""
    async def ping(request: Request):
        return JSONResponse({"ok": True})

    async def whoami(request: Request):
        return JSONResponse({"client": request.client.host, "scheme": request.url.scheme})

    async def echo(request: Request):
        return JSONResponse({"bytes": len(await request.body())})

    async def late_reader(request: Request):
        await asyncio.sleep(2.0)
        return JSONResponse({"bytes": len(await request.body())})

    async def upload(request: Request):
        form = await request.form()
        data = await form["file"].read()
        return JSONResponse({"bytes": len(data)})

    def write_file(request: Request):
        with open(os.path.join(disk, "new-file"), "wb") as handle:
            handle.write(bytes(256 * 1024))
            handle.flush()
            os.fsync(handle.fileno())
        return JSONResponse({"written": True})

    def write_database(request: Request):
        import sqlalchemy
        engine = sqlalchemy.create_engine(f"sqlite:///{disk}/ladder.db")
        try:
            with engine.begin() as connection:
                connection.execute(sqlalchemy.text("insert into blobs values (:data)"),
                                   {"data": bytes(512 * 1024)})
        finally:
            engine.dispose()
        return JSONResponse({"written": True})

    async def boom(request: Request):
        raise ValueError("an internal fault\nits second line")

    async def page(request: Request):
        return HTMLResponse("<p>a page</p>", headers={"content-security-policy": "own"})

    routes = [Route("/api/ping", ping), Route("/api/whoami", whoami),
              Route("/api/echo", echo, methods=["POST"]),
              Route("/api/late", late_reader, methods=["POST"]),
              Route("/api/submissions", upload, methods=["POST"]),
              Route("/me/upload", upload, methods=["POST"]),
              Route("/api/file", write_file), Route("/file", write_file),
              Route("/api/db", write_database), Route("/db", write_database),
              Route("/api/boom", boom), Route("/boom", boom), Route("/page", page)]
    return guard.protect(Starlette(routes=routes), error_page=error_page, upload_mb=1,
                         csp=CSP, log=QuietLog(lines.append))


class Served:
    def __init__(self, port, lines):
        self.port = port
        self.lines = lines

    def connect(self, source="127.0.0.1", timeout=10.0):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0))

    def request(self, method, path, body=None, headers=None, source="127.0.0.1"):
        """(status, headers, body) of one request."""
        connection = self.connect(source)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def raw(self, source="127.0.0.1", timeout=15.0):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.settimeout(timeout)
        sock.connect(("127.0.0.1", self.port))
        return sock


@contextlib.contextmanager
def serving(limits=QUICK, trust_proxy=None, disk=None):
    """The test application served by :func:`engine.ladder.web.guard.server` in a thread."""
    lines = []
    sock = guard.listening_socket("127.0.0.1", 0)
    server = guard.server(application(lines, disk), "127.0.0.1", sock.getsockname()[1],
                          sock=sock, trust_proxy=trust_proxy, limits=limits,
                          log=QuietLog(lines.append))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield Served(sock.getsockname()[1], lines)
    finally:
        server.should_exit = True
        thread.join(30)


def read_until_closed(sock, seconds):
    """What the server sent until it closed the connection, and whether it closed it
    within ``seconds``."""
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], 0.1)
        if ready:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return received, True
            if not chunk:
                return received, True
            received += chunk
    return received, False


# --- heads and bodies that never end ---------------------------------------------------------

def test_a_head_that_trickles_in_is_cut():
    with serving() as served:
        slow = served.raw()
        slow.sendall(b"GET /api/ping HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed = False
        for _ in range(60):                 # a header byte every 0.2 s, never the end
            try:
                slow.sendall(b"X")
            except OSError:
                closed = True
                break
            received, closed = read_until_closed(slow, 0.2)
            if closed:
                break
        elapsed = time.monotonic() - started
        assert closed, "the server kept a head that never ended"
        assert elapsed < 8
        idle = served.raw()
        received, closed = read_until_closed(idle, 10)
        assert closed and received.startswith(b"HTTP/1.1 408 ")
        assert b"no request head within 1 s" in received
        assert served.request("GET", "/api/ping")[0] == 200
        assert any("no request head within 1 s" in line for line in served.lines)


def _trickle(served, per_send, pause, sends):
    """POST /api/echo declaring 100 KB and sending ``per_send`` bytes every ``pause``
    seconds: (what came back, whether the server closed the connection)."""
    sock = served.raw()
    sock.sendall(b"POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
    # What came back is kept across reads: the answer may come in one and the close in
    # a later one (the server lingers while the client still sends).
    received = b""
    for _ in range(sends):
        try:
            sock.sendall(b"x" * per_send)
        except OSError:
            break
        chunk, closed = read_until_closed(sock, pause)
        received += chunk
        if closed:
            return received, True
    chunk, closed = read_until_closed(sock, 1)
    return received + chunk, closed


def test_a_body_slower_than_the_floor_is_cut():
    with serving() as served:
        received, closed = _trickle(served, 50, 0.2, 50)       # 250 bytes a second
        assert closed and received.startswith(b"HTTP/1.1 408 "), received
        assert b"slower than 1000 bytes a second" in received
        assert served.request("POST", "/api/echo", b"y" * 5000)[0] == 200


def test_a_body_longer_than_its_time_is_cut():
    limits = QUICK._replace(body_seconds=1.5, body_bytes_per_second=10)
    with serving(limits) as served:
        received, closed = _trickle(served, 500, 0.1, 100)     # 5 KB a second
        assert closed and received.startswith(b"HTTP/1.1 408 "), received
        assert b"took more than 1.5 s" in received


def test_a_body_the_application_reads_late_is_not_charged_to_the_client():
    """The endpoint sleeps 2 s before reading 1,000,000 bytes: the server stops reading
    (its buffer is full) and the client cannot send, which is not the client's
    slowness, though it is far below the floor of 1 MB a second meanwhile."""
    limits = QUICK._replace(body_bytes_per_second=1 << 20)
    with serving(limits) as served:
        status, _, body = served.request("POST", "/api/late", b"z" * 1_000_000)
        assert status == 200 and json.loads(body) == {"bytes": 1_000_000}


# --- connection caps -------------------------------------------------------------------------

SERVER_SCRIPT = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from engine.ladder.web import guard

    async def ping(request):
        return JSONResponse({"ok": True})
    app = Starlette(routes=[Route("/api/ping", ping)])
    guard.server(app, "127.0.0.1", int(sys.argv[1])).run()
""")


def _answers(port, source):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                            source_address=(source, 0))
    try:
        connection.request("GET", "/api/ping")
        return connection.getresponse().status
    finally:
        connection.close()


def _wait_until_serving(process, port):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            return _answers(port, "127.0.0.3")
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


def test_idle_connections_from_one_address_lock_out_no_one_else():
    """300 connections from 127.0.0.1 that never send a byte, against a server that may
    open 256 descriptors: the per-address cap's worth are kept, the rest closed at once,
    and 127.0.0.2 is answered. (Plain uvicorn keeps them all, runs out of descriptors
    and answers no one until they go.)"""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, str(port)], cwd=REPO,
                               stderr=subprocess.PIPE, text=True)
    idle = []
    try:
        assert _wait_until_serving(process, port) == 200
        for _ in range(300):
            connection = socket.socket()
            connection.connect(("127.0.0.1", port))
            idle.append(connection)
        started = time.monotonic()
        assert _answers(port, "127.0.0.2") == 200
        answered_in = time.monotonic() - started
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            closed = [c for c in idle if select.select([c], [], [], 0)[0]]
            if len(idle) - len(closed) <= Limits().per_address:
                break
            time.sleep(0.1)
        assert len(idle) - len(closed) == Limits().per_address
        assert answered_in < 5
    finally:
        for connection in idle:
            connection.close()
        process.terminate()
        _, err = process.communicate(timeout=30)
    # No accept() ever failed for want of a descriptor (asyncio logs a traceback).
    assert "Too many open files" not in err and "Traceback" not in err, err[-2000:]


def test_the_connection_book_caps_per_address_and_in_all():
    lines = []
    book = ConnectionBook(Limits(per_address=2, total=5), parse_networks(["10.9.0.0/16"]),
                          QuietLog(lines.append))
    assert book.admit("192.0.2.1") and book.admit("192.0.2.1")
    assert book.admit("192.0.2.1") is None
    # An IPv6 client counts by its /64: another address of it is the same client.
    first = book.admit("2001:db8:1:2::1")
    assert first == "2001:db8:1:2::/64" and book.admit("2001:db8:1:2::ffff")
    assert book.admit("2001:db8:1:2:aaaa::1") is None
    # A trusted proxy is counted in all only; the total holds for everyone.
    assert book.admit("10.9.1.1") == "proxy 10.9.1.1"
    assert book.admit("10.9.1.1") is None           # 5 open in all
    book.release(first)
    assert book.admit("10.9.1.1") == "proxy 10.9.1.1"
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert len(lines) == 3       # one line per kind of refusal, repeats counted quietly


# --- proxy headers ---------------------------------------------------------------------------

FORGED = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}


def _whoami(served, headers, source="127.0.0.1"):
    status, _, body = served.request("GET", "/api/whoami", headers=headers, source=source)
    assert status == 200
    found = json.loads(body)
    return found["client"], found["scheme"]


def test_forwarded_for_is_ignored_by_default_even_from_the_local_host():
    with serving() as served:
        assert _whoami(served, FORGED) == ("127.0.0.1", "http")


def test_forwarded_for_is_believed_from_the_trusted_proxies_only():
    with serving(trust_proxy=["127.0.0.1", "10.0.0.0/8"]) as served:
        assert _whoami(served, FORGED) == ("203.0.113.9", "https")
        assert _whoami(served, FORGED, source="127.0.0.2") == ("127.0.0.2", "http")
        # Each proxy appends what it heard from: the last untrusted address is the client.
        chain = {"X-Forwarded-For": "198.51.100.1, 198.51.100.7, 10.1.2.3"}
        assert _whoami(served, chain)[0] == "198.51.100.7"
        assert _whoami(served, {"X-Forwarded-For": "not-an-address"})[0] == "127.0.0.1"


def test_trust_proxy_refuses_what_is_not_an_address():
    with pytest.raises(ValueError, match="'proxy.example' is not an IP address"):
        guard.server(None, "127.0.0.1", 0, trust_proxy=["proxy.example"])


# --- body caps -------------------------------------------------------------------------------

def _multipart(size):
    boundary = "b0undary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"a.zip\"\r\n\r\n").encode() + b"a" * size + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def _chunked(served, path, total):
    """POST ``total`` bytes to ``path`` in chunks, no Content-Length: (status, body)."""
    connection = served.connect()
    try:
        connection.putrequest("POST", path)
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        try:
            for _ in range(total // 65536):
                connection.send(b"10000\r\n" + b"c" * 65536 + b"\r\n")
            connection.send(b"0\r\n\r\n")
        except OSError:
            pass
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_bodies_past_their_caps_get_413_naming_the_limit():
    with serving() as served:
        body, headers = _multipart(900 * 1024)
        status, _, answer = served.request("POST", "/api/submissions", body, headers)
        assert status == 200 and json.loads(answer) == {"bytes": 900 * 1024}
        body, headers = _multipart(1200 * 1024)
        status, answered, answer = served.request("POST", "/api/submissions", body, headers)
        assert status == 413 and json.loads(answer) == {
            "error": "the archive is larger than 1 MB"}
        assert answered["content-type"] == "application/json"
        status, answered, answer = served.request("POST", "/me/upload", body, headers)
        assert status == 413 and answered["content-type"].startswith("text/html")
        assert b"class='ours'" in answer and b"the archive is larger than 1 MB" in answer
        # Without a Content-Length the bytes are counted as they come.
        status, answer = _chunked(served, "/api/echo", 2 << 20)
        assert status == 413 and json.loads(answer) == {
            "error": "the request is larger than 1 MB"}
        assert _chunked(served, "/api/echo", 512 * 1024)[0] == 200


def test_a_declared_length_past_the_cap_is_refused_before_the_body_comes():
    """An upload declaring 9 MB, of which the client sends 1 KB and waits: 413 at once
    (the server does not wait for bytes it would refuse)."""
    with serving() as served:
        sock = served.raw()
        sock.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"multipart/form-data; boundary=b\r\nContent-Length: 9437184\r\n\r\n"
                     + bytes(1024))
        received, closed = read_until_closed(sock, 10)
        assert received.startswith(b"HTTP/1.1 413 ") and closed
        assert received.endswith(b'{"error": "the archive is larger than 1 MB"}')


def test_a_refusal_reaches_a_client_that_sends_its_whole_body_first():
    """http.client sends all of an 8 MB body before it reads the answer; the server
    refuses it by its Content-Length. The 413 reaches the client: the server closes its
    side only and reads and drops the rest (a socket closed with unread bytes resets
    the connection: the client's sending fails and the answer is lost)."""
    with serving() as served:
        status, _, body = served.request("POST", "/api/echo", bytes(8 << 20))
        assert status == 413
        assert json.loads(body) == {"error": "the request is larger than 1 MB"}


def test_every_answer_carries_the_policy_headers():
    with serving() as served:
        _, headers, _ = served.request("GET", "/api/ping")
        assert headers["content-security-policy"] == CSP
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        _, headers, _ = served.request("GET", "/page")
        assert headers["content-security-policy"] == "own"
        _, headers, _ = served.request("GET", "/boom")
        assert headers["content-security-policy"] == CSP


# --- failures --------------------------------------------------------------------------------

def test_an_unexpected_exception_is_a_500_in_its_form_and_one_log_line(capfd):
    with serving() as served:
        status, headers, body = served.request("GET", "/api/boom")
        assert status == 500 and headers["content-type"] == "application/json"
        assert "error" in json.loads(body)
        status, headers, body = served.request("GET", "/boom")
        assert status == 500 and headers["content-type"].startswith("text/html")
        assert b"class='ours'" in body
        logged = [line for line in served.lines if "ValueError" in line]
        assert len(logged) == 1 and "an internal fault" in logged[0]
        assert "second line" not in logged[0]
    assert "Traceback" not in capfd.readouterr().err


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MB tmpfs holding a SQLite database with a table, then filled to the last
    byte (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        import sqlite3
        with sqlite3.connect(disk / "ladder.db") as database:
            database.execute("create table blobs (data blob)")
        database.close()
        with open(disk / "filler", "wb", buffering=0) as handle:
            with pytest.raises(OSError) as full:
                while True:
                    handle.write(bytes(4096))
        assert full.value.errno == errno.ENOSPC
        yield str(disk)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_is_a_503_from_the_api_and_a_page_from_the_pages(full_disk, capfd):
    pytest.importorskip("sqlalchemy")
    with serving(disk=full_disk) as served:
        for path in ("/api/file", "/api/db"):
            status, headers, body = served.request("GET", path)
            assert status == 503, (path, body)
            assert headers["content-type"] == "application/json"
            assert "disk is full" in json.loads(body)["error"]
            assert headers["retry-after"] == "60"
        for path in ("/file", "/db"):
            status, headers, body = served.request("GET", path)
            assert status == 503 and headers["content-type"].startswith("text/html")
            assert b"class='ours'" in body and b"disk is full" in body
        # Four failures, one line: repeats within a minute are counted, not written.
        logged = [line for line in served.lines if "disk is full" in line]
        assert len(logged) == 1, served.lines
        assert "ENOSPC" in logged[0] or "No space left" in logged[0]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Internal Server Error" not in err


def test_the_disk_full_words_of_each_database():
    class Wrapped(Exception):
        pass
    sqlite = Wrapped("(sqlite3.OperationalError) database or disk is full")
    assert guard.is_disk_full(sqlite)
    postgres = Exception("could not extend file")
    postgres.sqlstate = "53100"
    assert guard.is_disk_full(postgres)
    try:
        try:
            raise OSError(errno.EDQUOT, "Disk quota exceeded")
        except OSError as error:
            raise RuntimeError("while saving") from error
    except RuntimeError as chained:
        assert guard.is_disk_full(chained)
    assert not guard.is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not guard.is_disk_full(ValueError("database is locked"))


# --- rates -----------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_a_rate_limit_counts_per_key_within_its_window():
    clock = Clock()
    limit = guard.RateLimit(3, 60.0, clock=clock)
    assert [limit.allow("ann") for _ in range(4)] == [True, True, True, False]
    assert limit.allow("ben")               # another key is not touched
    assert limit.exceeded("ann") and not limit.exceeded("ben")
    clock.now += 60.0
    assert limit.allow("ann")


def test_a_rate_limit_remembers_a_bounded_number_of_keys():
    clock = Clock()
    limit = guard.RateLimit(1, 60.0, keys=100, clock=clock)
    for number in range(1000):
        assert limit.allow(f"10.0.{number // 256}.{number % 256}")
        clock.now += 0.01
    assert len(limit.events) <= 100
    assert not limit.allow("10.0.3.231")    # the newest are kept


def test_failures_count_only_failures():
    """A failure limit is consulted on failures only: a classmate's valid token behind
    the same address is never refused because of an attacker's wrong ones."""
    clock = Clock()
    failures = guard.FailureLimit(5, 60.0, clock=clock)
    answers = [failures.failed("192.0.2.1") for _ in range(6)]
    assert answers == [False] * 5 + [True]
    assert not failures.failed("192.0.2.2")
    clock.now += 61
    assert not failures.failed("192.0.2.1")


def test_the_listening_socket_refuses_a_taken_port():
    taken = guard.listening_socket("127.0.0.1", 0)
    try:
        with pytest.raises(guard.PortTaken, match="is taken"):
            guard.listening_socket("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_the_connections_fit_the_descriptor_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    total, backlog = guard._descriptor_budget(10 ** 6)
    assert total + backlog <= max(soft * 3 // 4, 32)


AFTER_ROOT_SCRIPT = textwrap.dedent("""
    import os, sys, tempfile
    from engine.ladder.web import guard
    code = os.path.dirname(guard.__file__)
    guard.AfterRoot(folders=[code]).install()
    import colorsys, colorsys                        # a new module: named once
    for _ in range(2):
        open(guard.__file__).close()                 # beneath the code's folder: once
    with tempfile.NamedTemporaryFile() as elsewhere:   # elsewhere: not named
        open(elsewhere.name).close()
""")


def test_the_web_process_names_what_it_imports_or_reads_after_root_is_dropped():
    """The check behind the late-import test of every served ladder: a module imported,
    or a file opened beneath the code's folders, after the hook is installed is named
    in the log once; a file opened elsewhere is not."""
    done = subprocess.run([sys.executable, "-c", AFTER_ROOT_SCRIPT], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    tail = " after dropping root (a web user who cannot read the code's folders would " \
        "fail here)"
    assert done.stderr.splitlines() == [
        "ladder web: imported colorsys" + tail,
        f"ladder web: opened {os.path.abspath(guard.__file__)}" + tail]


class FakeTransport:
    def __init__(self, gone):
        self.gone, self.closed, self.eof, self.reading = gone, False, False, False

    def is_closing(self):
        return self.closed

    def can_write_eof(self):
        return True

    def write_eof(self):
        if self.gone:
            raise OSError(errno.ENOTCONN, "Transport endpoint is not connected")
        self.eof = True

    def resume_reading(self):
        self.reading = True

    def close(self):
        self.closed = True


class FakeProtocol:
    lingered = False

    def may_be_sending(self):
        return True

    def linger(self):
        self.lingered = True


@pytest.mark.parametrize("gone", [False, True])
def test_a_gentle_close_lingers_unless_the_client_is_gone(gone):
    """Closing while the client may still send ends our side and lingers; when the client
    has reset the connection already (write_eof: ENOTCONN, seen after a 413 under load)
    the socket is just closed, never an exception and a traceback in the log."""
    transport, protocol = FakeTransport(gone), FakeProtocol()
    gentle = LingeringClose(transport, protocol)
    gentle.close()
    assert transport.closed == gone and protocol.lingered == (not gone)
    assert gentle.is_closing()
