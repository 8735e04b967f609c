"""A real ladder for the tests: `ladder init` and `ladder serve` on 127.0.0.1 (a random
port), agents zipped, uploads over HTTP, a throw-away PostgreSQL, waiting for games.

The ladder's folder is made in a folder of its own under /tmp, open to every user: the
web process drops root to `nobody`, who must reach its files (pytest's tmp_path is
private to root)."""

import csv
import glob
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from pathlib import Path

from golden import REPO
from grading_helpers import FIRST_EMPTY, LAST_EMPTY
from ports import free_port

from engine.ladder.lifelines import dying_with_me

PYTHON = sys.executable

# A hostile entrant: it pokes at what it must not reach, writes markup and control
# characters to stderr, then names a square off the board (a forfeit: garbled output,
# with the tail of its stderr).
HOSTILE = """\
import os, sys
for path in ("/etc/shadow", "../", "/tmp", os.environ.get("HOME", "/root")):
    try:
        print("listing", path, os.listdir(path)[:3], file=sys.stderr)
    except OSError as error:
        print("refused", path, error.errno, file=sys.stderr)
sys.stderr.write("<script>alert('pwned')</script>\\x1b[31m & <b>bold</b>\\n")
open("output.txt", "w").write("Z99 Stake\\n")
"""

# A Makefile entrant: `make agent` writes the agent that `make run` runs.
MAKEFILE = ("agent:\n\tcp first.py agent.py\n\nrun:\n\tpython3 agent.py\n")


def zip_bytes(files, extra=None):
    """A zip of ``files`` (name -> text); ``extra(zipfile)`` may add hostile members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        if extra:
            extra(archive)
    return buffer.getvalue()


AGENTS = {
    "ann": {"homework.py": FIRST_EMPTY},
    "ben": {"homework.py": LAST_EMPTY},
    "cat": {"agent/first.py": FIRST_EMPTY, "agent/Makefile": MAKEFILE},
    "dan": {"homework.py": "import time\ntime.sleep(0.05)\n" + LAST_EMPTY},
    "eve": {"homework.py": HOSTILE},
}


def request(url, method="GET", token=None, data=None, headers=None, timeout=30):
    """(status, parsed JSON or bytes) of one HTTP request."""
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            status, body, kind = response.status, response.read(), response.headers.get(
                "content-type", "")
    except urllib.error.HTTPError as error:
        status, body, kind = error.code, error.read(), error.headers.get("content-type", "")
    return status, json.loads(body) if "json" in kind else body


def multipart(field, filename, payload):
    """A multipart/form-data body with one file (the test's client; the server parses
    it with python-multipart)."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
            f"filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            ).encode() + payload + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def oversized_upload_status(url, token, size):
    """The status the server answers to an upload declaring ``size`` bytes, of which
    the client sends only the first 64 KB (the server must not wait for the rest)."""
    import http.client
    host, port = url.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.putrequest("POST", "/api/submissions")
        connection.putheader("Authorization", f"Bearer {token}")
        connection.putheader("Content-Type", "multipart/form-data; boundary=x")
        connection.putheader("Content-Length", str(size))
        connection.endheaders()
        try:
            connection.send(bytes(64 * 1024))
        except OSError:
            pass
        return connection.getresponse().status
    finally:
        connection.close()


def upload(url, token, payload, filename="agent.zip"):
    body, headers = multipart("file", filename, payload)
    return request(url + "/api/submissions", "POST", token, body, headers)


class Ladder:
    """A ladder made and served for a test (see the module docstring)."""

    def __init__(self, names, game="stake_raid", time_s=1.0, sizes="3,4", lease=4.0,
                 db=None, workers=2, extra_init=()):
        self.root = tempfile.mkdtemp(prefix="ladder-test-")
        os.chmod(self.root, 0o755)
        self.folder = os.path.join(self.root, "ladder")
        roster = os.path.join(self.root, "roster.csv")
        with open(roster, "w") as handle:
            handle.write("name,email\n" + "".join(f"{n},{n}@example.edu\n" for n in names))
        command = [PYTHON, "-m", "engine", "ladder", "init", self.folder, "--game", game,
                   "--roster", roster, "--time", str(time_s), "--sizes", sizes,
                   "--lease", str(lease)] + list(extra_init)
        if db:
            command += ["--db", db]
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with open(os.path.join(self.folder, "tokens.csv")) as handle:
            self.tokens = {row["name"]: row["token"] for row in csv.DictReader(handle)}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.remote = []
        self.start(workers)

    def start(self, workers):
        """Serve the ladder (again: a restart) with ``workers`` local workers."""
        self.log = open(os.path.join(self.root, "serve.log"), "a")
        self.process = subprocess.Popen(
            [PYTHON, "-m", "engine", "ladder", "serve", self.folder, "--port",
             str(self.port), "--workers", str(workers)], cwd=REPO, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=dying_with_me())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if request(self.url + "/api/leaderboard", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert self.process.poll() is None, self.log_text()
            time.sleep(0.2)
        else:
            raise AssertionError("the ladder did not start: " + self.log_text())

    def log_text(self):
        self.log.flush()
        return Path(self.root, "serve.log").read_text()[-4000:]

    def late_imports(self):
        """The lines where the web process, after dropping root, imported a module for
        the first time: each would fail for a web user who cannot read the libraries."""
        self.log.flush()
        return [line for line in Path(self.root, "serve.log").read_text().splitlines()
                if "after dropping root" in line]

    def server_state(self):
        return json.loads(Path(self.folder, "server.json").read_text())

    def worker_token(self):
        return Path(self.folder, "worker-token").read_text().strip()

    def start_remote_worker(self, name):
        """A worker as on another machine: --server URL --worker-token-file FILE (a
        copy of the token, mode 0600), run from a folder that is not the ladder's."""
        token = os.path.join(self.root, f"{name}.token")
        descriptor = os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(self.worker_token() + "\n")
        process = subprocess.Popen(
            [PYTHON, "-m", "engine", "ladder", "work", "--server", self.url, "--name", name,
             "--worker-token-file", token],
            cwd=self.root, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=dying_with_me())
        self.remote.append(process)
        return process

    def upload_agents(self, agents=AGENTS):
        ids = {}
        for name, files in agents.items():
            status, body = upload(self.url, self.tokens[name], zip_bytes(files))
            assert status == 201, body
            ids[name] = body["id"]
        return ids

    def games(self):
        status, records = request(self.url + "/api/games")
        assert status == 200
        return records

    def wait_for_games(self, count, seconds=300):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            records = self.games()
            if len(records) >= count:
                return records
            assert self.process.poll() is None, self.log_text()
            time.sleep(0.5)
        raise AssertionError(f"fewer than {count} games after {seconds} s: "
                             f"{len(self.games())}\n{self.log_text()}")

    def stop(self):
        if self.log.closed:
            return
        for process in self.remote:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        for process in self.remote + [self.process]:
            try:
                process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.remote = []
        self.log.close()

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


class Postgres:
    """A throw-away PostgreSQL cluster (Debian's binaries) owned by `nobody`, on
    127.0.0.1 at a random port, trusting local connections."""

    BIN = max(glob.glob("/usr/lib/postgresql/*/bin"), default="/usr/lib/postgresql/15/bin",
              key=lambda path: int(path.split("/")[-2]) if path.split("/")[-2].isdigit()
              else 0)

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="ladder-pg-")
        os.chmod(self.root, 0o755)
        self.data = os.path.join(self.root, "data")
        self.port = free_port()
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        shutil.chown(self.root, "nobody", "nogroup")
        done = subprocess.run(as_nobody + [self._bin("initdb"), "-D", self.data, "-A",
                                           "trust", "-U", "ladder", "--no-sync"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        self.log = os.path.join(self.root, "postgres.log")
        done = subprocess.run(as_nobody + [
            self._bin("pg_ctl"), "-D", self.data, "-l", self.log, "-w", "-o",
            f"-h 127.0.0.1 -p {self.port} -k {self.root} -F", "start"],
            capture_output=True, text=True)
        assert done.returncode == 0, done.stderr + Path(self.log).read_text()[-2000:]
        self.url = f"postgresql://ladder@127.0.0.1:{self.port}/postgres"

    def _bin(self, name):
        return os.path.join(self.BIN, name)

    @classmethod
    def available(cls):
        return os.path.exists(os.path.join(cls.BIN, "postgres")) and \
            shutil.which("setpriv") is not None

    def stop(self):
        subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        self._bin("pg_ctl"), "-D", self.data, "-m", "immediate", "-w",
                        "stop"], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def points_from_records(records, name):
    """(games, wins, draws, losses) of ``name`` counted from game records."""
    wins = draws = losses = games = 0
    for record in records:
        for side in ("x", "o"):
            if record[side] != name:
                continue
            games += 1
            if record["result"] == "draw":
                draws += 1
            elif record["result"] == side:
                wins += 1
            else:
                losses += 1
    return games, wins, draws, losses


# --- the checks both databases go through -------------------------------------------------

def zip_with(member):
    """A zip whose one hostile member is made by ``member(zipfile)``."""
    return zip_bytes({"homework.py": FIRST_EMPTY}, member)


def symlink_member(archive):
    info = zipfile.ZipInfo("link.py")
    info.external_attr = (0o120777 << 16)
    archive.writestr(info, "/etc/passwd")


def zeros_bomb():
    """A zip of 1 GB of zeros (about 1 MB compressed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("zeros.bin", "w", force_zip64=True) as member:
            block = bytes(1 << 20)
            for _ in range(1024):
                member.write(block)
    return buffer.getvalue()


def hostile_archives(outside):
    """(what, archive bytes) that the server must refuse; ``outside`` is an absolute
    path that must not be written."""
    return [
        ("../x", zip_with(lambda a: a.writestr("../x", "escaped"))),
        ("absolute", zip_with(lambda a: a.writestr(outside, "escaped"))),
        ("link", zip_with(symlink_member)),
        ("1 GB of zeros", zeros_bomb()),
    ]


def files_under(folder):
    return sorted(str(path.relative_to(folder)) for path in Path(folder).rglob("*"))


def read_only_db(ladder):
    """The ladder's SQLite database, read-only (the server keeps writing it)."""
    import sqlite3
    path = os.path.join(ladder.folder, "data", "ladder.db")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)


def leased_by(rows_query, worker, seconds=120):
    """Wait until ``rows_query()`` lists a game leased by ``worker``: its id."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for game_id, who in rows_query():
            if who == worker:
                return game_id
        time.sleep(0.05)
    raise AssertionError(f"{worker} leased no game in {seconds} s")
