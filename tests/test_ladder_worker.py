"""The ladder's worker against a fake server: a stdlib HTTP server in a thread that
speaks the workers' protocol (version 2) from a script of leases and records every
request. The sandbox is the kit's own, the agents are tiny; neither the ladder extra
nor the real server is needed.

What is checked (issue 65, the worker's side): the token only from a 0600 file or
stdin, never a command line or the environment, and hidden from every run; an entrant's
failures are its own (a build error, a forfeit: never an abandon), the kit's are
abandons naming nobody, a build failing here for an entrant built elsewhere is an
abandon naming it; builds kept by last use, never evicting a player of the game being
set up; a killed worker's folder removed by the next one; posts retried with backoff,
one line per failure, a 409 final; builds renew their lease; the lease request names
the builds kept."""

import io
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from grading_helpers import FIRST_EMPTY, LAST_EMPTY
from ladder_helpers import zip_bytes

from engine.sandbox import SandboxError
from engine.sandbox.workspace import workspace_root
from engine.ladder.worker import loop as worker_module
from engine.ladder import uploads
from engine.ladder.worker import cache as worker_cache
from engine.ladder.worker import Worker
from engine.ladder.worker.cache import BuildCache, WorkerFolder, capacity_for
from engine.ladder.worker.client import Client, backoff

REPO = Path(__file__).resolve().parent.parent
TOKEN = "w0rker-t0ken-" + "x" * 30
SETTINGS = {"game": "stake_raid", "time": 1.0, "sizes": "3", "seed": 1, "lease": 30,
            "isolation": "auto", "memory_mb": 512, "class_size": 4}
CGROUP_LINE = "grading sandbox: cannot join the run's cgroup"

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0,
    reason="the worker's sandbox needs bubblewrap and root here")


# --- the fake server ---------------------------------------------------------------------

class FakeLadder:
    """A ladder's server as a worker sees it. ``script``: the lease answers, in order
    (then idle, and ``when_drained()`` is called); ``archives``: submission id -> bytes;
    ``faults``: path -> statuses answered before the real answer; ``gone``: leases
    whose extend and posts answer 409. ``requests``: (method, path, body, token)."""

    def __init__(self, script, archives=None, settings=None):
        self.script = list(script)
        self.archives, self.digests = {}, {}
        for ident, raw in (archives or {}).items():
            self.archives[ident], self.digests[ident] = normal_form(raw)
        self.settings = dict(SETTINGS, **(settings or {}))
        self.faults = {}
        self.gone = set()
        self.requests = []
        self.live = set()
        self.when_drained = None
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def posts(self, where):
        """The POSTs to the path ``where`` (below it when it ends with a /)."""
        return [(path, body) for method, path, body, _ in self.requests
                if method == "POST" and (path == where or where.endswith("/")
                                         and path.startswith(where))]

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, payload):
                data = payload if isinstance(payload, bytes) else json.dumps(
                    payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _serve(self, method):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                token = (self.headers.get("Authorization") or "").replace("Bearer ", "")
                with fake.lock:
                    fake.requests.append((method, self.path, body, token))
                    status, payload = fake.answer(method, self.path, body, token)
                self._answer(status, payload)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler

    def answer(self, method, path, body, token):
        if token != TOKEN:
            return 401, {"error": "unknown token"}
        pending = self.faults.get(path)
        if pending:
            return pending.pop(0), {"error": "not now"}
        if path == "/api/work/settings":
            return 200, self.settings
        if path == "/api/work/lease":
            return 200, self._lease()
        if path.startswith("/api/work/submissions/"):
            ident = int(path.split("/")[4])
            if ident not in self.live:
                return 403, {"error": "no lease of yours holds this submission"}
            return 200, self.archives[ident]
        if path == "/api/work/extend":
            return (409, {"error": "gone"}) if body["lease"] in self.gone else (
                200, {"ok": True})
        if body and body.get("lease") in self.gone:
            return 409, {"error": "gone"}
        self.live = set()
        return 200, {"ok": True}

    def _lease(self):
        if not self.script:
            if self.when_drained:
                self.when_drained()
            return {"kind": "idle", "wait": 0.05}
        work = self.script.pop(0)
        described = [work["submission"]] if work["kind"] == "build" else [
            work["game"]["x"], work["game"]["o"]]
        self.live = {submission["id"] for submission in described}
        for submission in described:
            if not submission["staff"] and submission["sha256"] is None:
                submission["sha256"] = self.digests.get(submission["id"])
        return work


def normal_form(raw):
    """(the server's normal form of the upload ``raw``, its SHA-256), as the server
    keeps it (engine.ladder.uploads.accept)."""
    with tempfile.TemporaryDirectory() as folder:
        upload, normal = Path(folder, "upload"), Path(folder, "normal.tar.gz")
        upload.write_bytes(raw)
        accepted = uploads.accept(upload, normal)
        return normal.read_bytes(), accepted.sha256


def submission(ident, player, staff_path=None, sha256=None):
    """A submission as the protocol describes it (the fake server fills in the digest
    of its archive unless given)."""
    return {"id": ident, "player": player, "staff": staff_path is not None,
            "path": staff_path, "archive": None if staff_path else "normalised",
            "sha256": sha256}


def build_lease(ident, player, expires=30.0):
    return {"kind": "build", "lease": f"b{ident}-{next(LEASES)}", "expires": expires,
            "submission": submission(ident, player)}


def game_lease(ident, x, o, expires=30.0):
    return {"kind": "game", "lease": f"g{ident}-{next(LEASES)}", "expires": expires,
            "game": {"id": ident, "pair": ident, "board": ident, "size": "3",
                     "x": x, "o": o}}


LEASES = itertools.count(1)


def agent(source):
    return zip_bytes({"homework.py": source})


def makefile_agent(build_command):
    """A Makefile entrant whose ``make agent`` runs ``build_command`` first."""
    return zip_bytes({"first.py": FIRST_EMPTY,
                      "Makefile": f"agent:\n\t{build_command}\n\tcp first.py agent.py\n\n"
                                  "run:\n\tpython3 agent.py\n"})


def run_worker(fake, tmp_root, prepare=None, **options):
    """A worker in this process against ``fake`` until its script is done, its folder
    in ``tmp_root``; the worker (closed)."""
    worker = Worker(Client(fake.url, TOKEN), "test-worker", root=str(tmp_root), **options)
    # A worker that never asks for the script's end is stopped (and the test fails).
    guard = threading.Timer(300, worker.stop.set)
    guard.start()
    try:
        if prepare:
            prepare(worker)
        fake.when_drained = worker.stop.set
        worker.run()
    finally:
        guard.cancel()
        worker.close()
    assert fake.script == [], "the worker stopped before the script's end"
    assert list(tmp_root.iterdir()) == []      # a worker closed leaves nothing
    return worker


@pytest.fixture
def cache_root():
    """A folder for workers' folders, on disk, that sandbox users may pass through."""
    root = tempfile.mkdtemp(prefix="ladder-worker-test-", dir=worker_cache.cache_root())
    os.chmod(root, 0o711)
    yield Path(root)
    shutil.rmtree(root, ignore_errors=True)


# --- units: backoff, the cache's policy, the worker's folder ------------------------------

def test_backoff_doubles_from_half_a_second_up_to_its_cap():
    assert list(itertools.islice(backoff(0.5, 4.0), 6)) == [0.5, 1, 2, 4, 4, 4]


def test_the_cache_is_sized_to_the_class_with_slack():
    assert capacity_for(4) == 8                 # at least four more
    assert capacity_for(300) == 330             # a tenth more
    assert capacity_for(None) == capacity_for(worker_cache.DEFAULT_CLASS)


def test_the_cache_evicts_the_least_recently_used_never_a_kept_one():
    forgotten = []
    cache = BuildCache(forgotten.append, capacity=2, byte_cap=10 ** 9)
    cache.add(1, "a@1", 10)
    cache.add(2, "b@2", 10)
    assert cache.use(1) == "a@1"                # 2 is now the least recently used
    cache.add(3, "c@3", 10)
    assert forgotten == ["b@2"] and cache.ids() == [1, 3]
    # A game of 1 and 4: 1 is the least recently used, but a player of the game.
    cache.use(3)
    cache.make_room(keep={1, 4})
    cache.add(4, "d@4", 10, keep={1, 4})
    assert forgotten == ["b@2", "c@3"] and cache.ids() == [1, 4]
    # Kept ones may hold it over its caps until the next trim.
    cache.capacity = 1
    cache.trim(keep={1, 4})
    assert cache.ids() == [1, 4]
    cache.trim()
    assert cache.ids() == [4] and forgotten[-1] == "a@1"


def test_the_cache_keeps_its_bytes_under_the_cap():
    forgotten = []
    cache = BuildCache(forgotten.append, capacity=10, byte_cap=25)
    for ident in range(1, 4):
        cache.add(ident, f"p@{ident}", 10)
    assert cache.ids() == [2, 3] and forgotten == ["p@1"]
    cache.add(4, "huge@4", 100)                 # the newest stays, alone
    assert cache.ids() == [4] and cache.bytes() == 100


def hold_folder(root):
    """A process that makes a worker's folder in ``root`` and sleeps; (process, path)."""
    code = ("import sys, time; from engine.ladder.worker.cache import WorkerFolder; "
            f"f = WorkerFolder({str(root)!r}); print(f.path, flush=True); time.sleep(600)")
    process = subprocess.Popen([sys.executable, "-c", code], cwd=REPO,
                               stdout=subprocess.PIPE, text=True)
    return process, process.stdout.readline().strip()


def test_a_dead_workers_folder_is_removed_and_a_live_ones_kept(tmp_path):
    live, live_path = hold_folder(tmp_path)
    dead, dead_path = hold_folder(tmp_path)
    try:
        Path(dead_path, "sources", "junk").write_text("left behind")
        dead.send_signal(signal.SIGKILL)
        dead.wait()
        folder = WorkerFolder(str(tmp_path))
        try:
            assert folder.removed == [dead_path]
            assert not os.path.lexists(dead_path) and os.path.isdir(live_path)
            assert os.stat(folder.path).st_mode & 0o777 == 0o711
            assert os.stat(folder.sources).st_mode & 0o777 == 0o700
        finally:
            folder.close()
        assert not os.path.lexists(folder.path)
    finally:
        live.kill()
        live.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs another user's folder: root only")
def test_another_users_folder_is_never_removed(tmp_path):
    theirs = tmp_path / f"{worker_cache.FOLDER_PREFIX}1-planted"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    folder = WorkerFolder(str(tmp_path))
    folder.close()
    assert theirs.is_dir() and folder.removed == []


# --- a real worker, in this process ---------------------------------------------------------

def ann():
    return submission(1, "ann")


def ben():
    return submission(2, "ben")


@needs_sandbox
def test_builds_and_a_game_posted_and_the_lease_names_the_builds_kept(cache_root, capsys):
    fake = FakeLadder([build_lease(1, "ann"), game_lease(7, ann(), ben())],
                      {1: agent(FIRST_EMPTY), 2: agent(LAST_EMPTY)})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    (path, body), = fake.posts("/api/work/builds/")
    assert path == "/api/work/builds/1" and body["error"] is None
    (path, body), = fake.posts("/api/work/games/")
    assert path == "/api/work/games/7"
    record = body["record"]
    assert (record["x"], record["o"], record["size"]) == ("ann@1", "ben@2", 3)
    assert record["result"] in ("x", "o", "draw") and record["forfeit"] is None
    built = [body["built"] for _, body in fake.posts("/api/work/lease")]
    assert built[:3] == [[], [1], [1, 2]]
    # Each archive was fetched once: ann's build served the game.
    fetched = [path for method, path, _, _ in fake.requests if method == "GET"
               and path.endswith("/archive")]
    assert fetched == ["/api/work/submissions/1/archive", "/api/work/submissions/2/archive"]
    assert "Traceback" not in capsys.readouterr().err


def abandons(fake, kind):
    return [(path, body) for path, body in fake.posts(f"/api/work/{kind}/")
            if path.endswith("/abandon")]


@needs_sandbox
def test_an_entrants_build_error_is_its_own_never_an_abandon(cache_root, capsys):
    # Its build log carries an escape sequence: the worker's line shows it escaped.
    fake = FakeLadder([build_lease(3, "cat")],
                      {3: makefile_agent("@printf 'error: broken \\033[31m red\\n'; exit 1")})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    (path, body), = fake.posts("/api/work/builds/")
    assert path == "/api/work/builds/3" and "broken" in body["error"]
    err = capsys.readouterr().err
    assert "submission 3 (cat): build failed" in err
    assert "\x1b" not in err and "\\x1b[31m" in err


@needs_sandbox
def test_the_old_sandbox_failure_line_is_a_forfeit_never_an_abandon(cache_root, capsys):
    liar = f"import sys\nprint({CGROUP_LINE!r}, file=sys.stderr)\nsys.exit(125)\n"
    fake = FakeLadder([game_lease(8, submission(4, "liar"), ben())],
                      {4: agent(liar), 2: agent(LAST_EMPTY)})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    assert abandons(fake, "games") == []
    (path, body), = fake.posts("/api/work/games/")
    record = body["record"]
    assert record["result"] == "o" and record["forfeit"]["player"] == "x"
    assert CGROUP_LINE in record["forfeit"]["detail"]      # sent whole: the server hides it
    assert "X forfeits" in capsys.readouterr().err


@needs_sandbox
def test_a_build_failing_here_for_an_entrant_built_elsewhere_names_it(cache_root, capsys):
    # The server says submission 5 is built (another worker built it); here it fails.
    fake = FakeLadder([game_lease(9, ann(), submission(5, "flip"))],
                      {1: agent(FIRST_EMPTY), 5: makefile_agent("exit 3")})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    assert fake.posts("/api/work/games/9") == []
    (path, body), = abandons(fake, "games")
    assert path == "/api/work/games/9/abandon" and body["entrant"] == 5
    assert "build failed" in body["reason"]
    assert 5 not in fake.posts("/api/work/lease")[-1][1]["built"]
    assert "game 9 abandoned (charged to submission 5 after two)" in capsys.readouterr().err


@needs_sandbox
def test_a_failure_of_the_kit_abandons_the_game_naming_nobody(cache_root, capsys):
    def broken_kit(worker):
        def play_one(spec, seats):
            raise SandboxError("grading sandbox: the run could not join its cgroup")
        worker.running_director().play_one = play_one
    fake = FakeLadder([game_lease(10, ann(), ben())],
                      {1: agent(FIRST_EMPTY), 2: agent(LAST_EMPTY)})
    try:
        run_worker(fake, cache_root, prepare=broken_kit)
    finally:
        fake.close()
    (path, body), = abandons(fake, "games")
    assert body["entrant"] is None and body["reason"].startswith("SandboxError")
    assert fake.posts("/api/work/games/10") == []
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
@needs_sandbox
def test_an_archive_that_cannot_be_fetched_or_unpacked_is_ours(cache_root):
    # The server refuses two archives (403, 404); a third is not the normal form the
    # server described (its digest differs): no build, no game, nobody charged.
    tampered = submission(16, "tampered", sha256="0" * 64)
    fake = FakeLadder([build_lease(6, "gone"), game_lease(11, ann(), ben()),
                       game_lease(12, ann(), tampered)],
                      {1: agent(FIRST_EMPTY), 16: agent(LAST_EMPTY)})
    fake.faults = {"/api/work/submissions/6/archive": [403],
                   "/api/work/submissions/2/archive": [404]}
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    (path, body), = abandons(fake, "builds")
    assert path == "/api/work/builds/6/abandon" and "HTTP 403" in body["reason"]
    assert fake.posts("/api/work/builds/6") == []
    (_, first), (_, second) = abandons(fake, "games")
    assert first["entrant"] is None and "HTTP 404" in first["reason"]
    assert second["entrant"] is None and "SHA-256" in second["reason"]


@needs_sandbox
def test_posts_are_retried_one_line_per_failure_and_a_409_is_final(cache_root, capsys):
    gone = build_lease(2, "ben")
    fake = FakeLadder([build_lease(1, "ann"), gone],
                      {1: agent(FIRST_EMPTY), 2: agent(LAST_EMPTY)})
    fake.faults = {"/api/work/builds/1": [503]}
    fake.gone.add(gone["lease"])
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    posts = fake.posts("/api/work/builds/1")
    assert len(posts) == 2 and posts[-1][1]["error"] is None
    assert len(fake.posts("/api/work/builds/2")) == 1          # a 409 is not retried
    err = capsys.readouterr().err
    assert err.count("HTTP 503 ") == 1 and "trying again in 0.5 s" in err
    assert err.count("the lease is gone (409); the result is dropped") == 1
    assert "Traceback" not in err and "submission 1 (ann): built" in err
    assert "submission 2 (ben): built" not in err


@pytest.mark.slow
@needs_sandbox
def test_a_build_renews_its_lease_every_third_of_it(cache_root):
    lease = build_lease(12, "slow", expires=0.6)
    fake = FakeLadder([lease], {12: makefile_agent("sleep 1.5")})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    extends = fake.posts("/api/work/extend")
    # 1.5 s of build at one renewal per 0.2 s: a slower machine only renews more.
    assert len(extends) >= 3 and {body["lease"] for _, body in extends} == {lease["lease"]}
    assert fake.posts("/api/work/builds/12")[0][1]["error"] is None


@needs_sandbox
def test_a_player_of_the_game_being_set_up_is_never_evicted(cache_root, capsys):
    # Room for two builds. In the game of cat (3, new: built first) and ann (1, the
    # least recently used), ben (2) goes, and ann stays to play: built once.
    def two_builds(worker):
        worker.cache.capacity = 2
    cat = submission(3, "cat")
    fake = FakeLadder([build_lease(1, "ann"), build_lease(2, "ben"), game_lease(13, cat, ann())],
                      {1: agent(FIRST_EMPTY), 2: agent(LAST_EMPTY), 3: agent(LAST_EMPTY)})
    try:
        run_worker(fake, cache_root, prepare=two_builds)
    finally:
        fake.close()
    assert abandons(fake, "games") == []
    (path, body), = fake.posts("/api/work/games/13")
    assert (body["record"]["x"], body["record"]["o"]) == ("cat@3", "ann@1")
    fetched = [path for method, path, _, _ in fake.requests if path.endswith("/archive")]
    assert fetched.count("/api/work/submissions/1/archive") == 1
    assert fake.posts("/api/work/lease")[-1][1]["built"] == [3, 1]


@pytest.mark.slow
@needs_sandbox
def test_the_token_file_is_hidden_from_every_run(cache_root, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    # It tries to read the token, says what it got, and forfeits: its stderr is in the
    # record's forfeit detail.
    peek = ("import sys\ntry:\n    print('read', open(%r).read(), file=sys.stderr)\n"
            "except OSError as error:\n    print('refused', error.errno, file=sys.stderr)\n"
            "sys.exit(1)\n" % str(token_file))
    seen = {}

    def note_hidden(worker):
        seen["hidden"] = worker.running_director().seats[0]["x"].sandbox.hidden
    fake = FakeLadder([game_lease(14, submission(15, "peek"), ben())],
                      {15: agent(peek), 2: agent(LAST_EMPTY)})
    try:
        run_worker(fake, cache_root, prepare=note_hidden, hidden=[str(token_file)])
    finally:
        fake.close()
    assert str(token_file) in seen["hidden"]
    (_, body), = fake.posts("/api/work/games/14")
    detail = body["record"]["forfeit"]["detail"]
    assert "refused" in detail and TOKEN not in json.dumps(body)


# --- the command line: the token, a killed worker ------------------------------------------

def work_command(*arguments):
    return [sys.executable, "-m", "engine", "ladder", "work"] + list(arguments)


def environment(**extra):
    env = {key: value for key, value in os.environ.items()
           if key != "LADDER_WORKER_TOKEN"}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def refused(capsys, arguments):
    """The one line ``ladder work ARGUMENTS`` refuses with (exit code 2)."""
    from engine.ladder import cli
    assert cli.main(["work"] + list(arguments)) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


SERVER = ["--server", "http://127.0.0.1:9"]


def test_a_token_on_the_command_line_or_in_the_environment_is_refused(capsys, monkeypatch):
    line = refused(capsys, SERVER + ["--worker-token", TOKEN])
    assert "--worker-token is refused" in line and "--worker-token-file" in line
    assert TOKEN not in line
    monkeypatch.setenv("LADDER_WORKER_TOKEN", TOKEN)
    line = refused(capsys, SERVER)
    assert "LADDER_WORKER_TOKEN is refused" in line and "--worker-token-file" in line


def test_a_token_file_that_others_may_read_or_a_link_is_refused(capsys, monkeypatch,
                                                                tmp_path):
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o640)
    line = refused(capsys, SERVER + ["--worker-token-file", str(token)])
    assert "may be read by others (mode 0640)" in line and "chmod 600" in line
    token.chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(token)
    assert "is a link" in refused(capsys, SERVER + ["--worker-token-file", str(link)])
    line = refused(capsys, SERVER + ["--worker-token-file", str(tmp_path)])
    assert "not a regular file" in line
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    line = refused(capsys, SERVER + ["--worker-token-file", "-"])
    assert "standard input holds no token" in line
    # The token read, the server is tried (nobody listens on port 9).
    monkeypatch.setattr(worker_module, "START_PATIENCE", 0.0)
    line = refused(capsys, SERVER + ["--worker-token-file", str(token)])
    assert "cannot reach the ladder" in line and TOKEN not in line


def wait_for(condition, seconds=60, what="the condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"no {what} in {seconds} s")


def start_worker(fake, *arguments, stdin_token=False, wrap=()):
    """``ladder work --server URL ...`` in its own process (stderr to a file)."""
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(list(wrap) + work_command("--server", fake.url, *arguments),
                               cwd=REPO, env=environment(), stderr=log,
                               stdin=subprocess.PIPE if stdin_token else None, text=True)
    if stdin_token:
        process.stdin.write(TOKEN + "\n")
        process.stdin.close()
    process.log = log
    return process


def stop_worker(process, how=signal.SIGTERM):
    process.send_signal(how)
    code = process.wait(60)
    process.log.seek(0)
    return code, process.log.read()


def leased(fake, count=1):
    return lambda: len(fake.posts("/api/work/lease")) >= count


@needs_sandbox
def test_a_token_from_stdin_is_on_no_command_line_nor_environment(cache_root):
    fake = FakeLadder([])
    try:
        worker = start_worker(fake, "--worker-token-file", "-", "--cache", str(cache_root),
                              stdin_token=True)
        try:
            wait_for(leased(fake), what="lease request")
            for name in ("cmdline", "environ"):
                assert TOKEN.encode() not in Path(f"/proc/{worker.pid}/{name}").read_bytes()
        except BaseException:
            stop_worker(worker, signal.SIGKILL)
            raise
        code, err = stop_worker(worker)
    finally:
        fake.close()
    assert code == 130 and "Traceback" not in err
    assert {token for _, _, _, token in fake.requests} == {TOKEN}


@needs_sandbox
def test_a_killed_workers_folder_is_removed_by_the_next_worker(cache_root, tmp_path):
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    fake = FakeLadder([build_lease(1, "ann")], {1: agent(FIRST_EMPTY)})
    arguments = ("--worker-token-file", str(token), "--cache", str(cache_root))
    first = second = None
    try:
        first = start_worker(fake, *arguments)
        wait_for(lambda: fake.posts("/api/work/builds/1"), what="build")
        wait_for(leased(fake, 2), what="second lease request")
        killed, = [path for path in cache_root.iterdir()]
        assert any(killed.glob("builds/*/submission"))      # the build, on disk
        # ... its run folders in memory, in a workspace its folder names
        workspace = Path(os.readlink(killed / worker_cache.WORKSPACE_LINK))
        assert workspace.parent == Path(workspace_root() or tempfile.gettempdir())
        assert workspace.is_dir()
        assert stop_worker(first, signal.SIGKILL)[0] == -signal.SIGKILL
        assert killed.is_dir() and workspace.is_dir()
        second = start_worker(fake, *arguments)
        wait_for(leased(fake, 3), what="the second worker's lease request")
        assert not killed.exists() and not workspace.exists()
        mine, = [path for path in cache_root.iterdir()]
        assert mine.name.startswith(f"ladder-worker-{second.pid}-")
        code, err = stop_worker(second)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                stop_worker(process, signal.SIGKILL)
        fake.close()
    assert code == 130 and f"removed {killed}, left by a worker that was killed" in err
    assert list(cache_root.iterdir()) == []         # a worker stopped cleans up itself


@pytest.mark.slow
@needs_sandbox
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_an_agent_whose_build_fails_on_another_machine_is_charged_not_us(cache_root, tmp_path):
    """The attacker: its build succeeds on the machine of the server's first build and
    fails on any other (it checks the hostname). The other worker abandons the game
    naming it, which the server charges to it after two."""
    import socket
    check = f"import socket, sys\nsys.exit(socket.gethostname() != {socket.gethostname()!r})\n"
    attacker = zip_bytes({"first.py": FIRST_EMPTY, "check.py": check,
                          "Makefile": "agent:\n\tpython3 check.py\n\tcp first.py agent.py\n\n"
                                      "run:\n\tpython3 agent.py\n"})
    first = FakeLadder([build_lease(20, "mallory")], {20: attacker})
    try:
        run_worker(first, cache_root)
    finally:
        first.close()
    assert first.posts("/api/work/builds/20")[0][1]["error"] is None
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    second = FakeLadder([game_lease(21, submission(20, "mallory"), ben())],
                        {20: attacker, 2: agent(LAST_EMPTY)})
    try:
        elsewhere = start_worker(second, "--worker-token-file", str(token), "--cache",
                                 str(cache_root),
                                 wrap=["unshare", "--uts", "sh", "-c",
                                       'hostname another-machine && exec "$@"', "sh"])
        try:
            wait_for(leased(second, 2), what="the game's end")
        except BaseException:
            stop_worker(elsewhere, signal.SIGKILL)
            raise
        code, err = stop_worker(elsewhere)
    finally:
        second.close()
    assert code == 130, err
    (path, body), = abandons(second, "games")
    assert path == "/api/work/games/21/abandon" and body["entrant"] == 20
    assert second.posts("/api/work/games/21") == []


@pytest.mark.slow
@needs_sandbox
def test_a_staff_anchor_is_built_from_our_repository_not_fetched(cache_root):
    anchor = submission(30, "ours:greedy", staff_path="ours:greedy")
    fake = FakeLadder([game_lease(31, ann(), anchor)], {1: agent(FIRST_EMPTY)})
    try:
        run_worker(fake, cache_root)
    finally:
        fake.close()
    (_, body), = fake.posts("/api/work/games/31")
    assert body["record"]["o"] == "ours:greedy@30" and body["record"]["forfeit"] is None
    fetched = [path for method, path, _, _ in fake.requests if path.endswith("/archive")]
    assert fetched == ["/api/work/submissions/1/archive"]
    assert fake.posts("/api/work/lease")[-1][1]["built"] == [1, 30]
