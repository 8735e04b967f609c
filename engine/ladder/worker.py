"""A ladder worker: leases builds and games from the server over HTTP, runs each in the
grading kit's sandbox through the tournament's director and referee, posts the result.

Every worker, on the server's machine (``ladder work DIR``, or ``ladder serve
--workers N``) or on another (``ladder work --server URL --worker-token T``, a cluster
node), speaks the same small JSON protocol with the worker token as its Bearer token:

    GET  /api/work/settings                 the game, clock, sizes, seed, lease
    POST /api/work/lease {"worker"}         -> {"kind": "build"|"game", "lease", ...}
                                               or {"kind": "idle", "wait": s}
    POST /api/work/extend {"lease"}         keep a lease alive (every lease / 3 s)
    GET  /api/work/submissions/ID/archive   the uploaded archive
    POST /api/work/builds/ID {"lease", "error"}
    POST /api/work/games/ID {"lease", "record"}     409 when the lease has expired
    POST /api/work/games/ID/abandon {"lease"}       an error of ours: play it again

A worker keeps one :class:`engine.tournament.director.Director` (one job: two seats) for
its life: each submission it meets is downloaded, unpacked by the link-safe
:func:`engine.ladder.uploads.unpack` into its own cache (hidden from every run), built
once and kept (the newest :data:`KEEP_BUILT`). A worker killed outright loses the game
it was playing: its lease expires and the server hands the game out again, once.
Standard library only, so that a cluster node needs nothing but the checkout.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, cast

from ..grading.printable import printable
from ..grading.untrusted_files import remove_tree
from ..grading.workspace import new_workspace
from ..tournament import entrants as entrants_module
from ..tournament.director import Director
from ..tournament.games import rules_for
from ..tournament.schedule import GameSpec
from ..commandline import positive, terminate_as_interrupt
from ..errors import UsageError
from . import config, uploads

KEEP_BUILT = 24
ARCHIVE_CAP = 64 * 1024 * 1024
IDLE_WAIT = 1.0
RETRY_SECONDS = (0.5, 1, 2, 4, 8)

T = TypeVar("T")


class ServerError(Exception):
    """The server answered with an error status (``status``) or could not be reached."""

    def __init__(self, status: Optional[int], message: str) -> None:
        super().__init__(message)
        self.status = status


class Client:
    """JSON over HTTP to the ladder's server, with the worker token."""

    def __init__(self, url: str, token: str, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read(ARCHIVE_CAP + 1)
        except urllib.error.HTTPError as error:
            text = error.read(2000).decode("utf-8", "replace")
            raise ServerError(error.code, f"{method} {path}: HTTP {error.code} {text}") \
                from None
        except (urllib.error.URLError, OSError) as error:
            raise ServerError(None, f"{method} {path}: {error}") from None
        if raw:
            return payload
        return json.loads(payload.decode("utf-8")) if payload else None

    def patient(self, method: str, path: str, body: Any = None, raw: bool = False,
                stop: Optional[threading.Event] = None) -> Any:
        """:meth:`request`, retried while the server cannot be reached (a restart)."""
        for wait in RETRY_SECONDS + (None,):
            try:
                return self.request(method, path, body, raw)
            except ServerError as error:
                if error.status is not None or wait is None or (stop and stop.is_set()):
                    raise
                time.sleep(wait)
        return None


def record_size(rules: Any, game: Dict[str, Any]) -> int:
    return rules.parse_sizes(str(game["size"]))[0]


def say(text: str) -> None:
    print(f"ladder worker: {text}", file=sys.stderr, flush=True)


class Worker:
    """See the module docstring. ``isolation``, ``memory_mb``: the sandbox's."""

    def __init__(self, client: Client, name: Optional[str] = None, isolation: str = "auto",
                 memory_mb: int = 1024) -> None:
        self.client = client
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        settings = client.patient("GET", "/api/work/settings")
        self.settings = settings
        self.rules = rules_for(settings["game"])
        # A kit workspace (grade-<pid>-...): one left by a worker killed outright is
        # removed by the next kit run once its process is gone, as the kit's own are.
        self.cache = new_workspace(in_memory=False)
        os.chmod(self.cache, 0o700)
        # None once closed (or when the Director could not start): see close
        self.director: Optional[Director] = None
        try:
            self.director = Director(self.rules, [], float(settings["time"]), jobs=1,
                                     isolation=settings.get("isolation", isolation),
                                     memory_mb=int(settings.get("memory_mb", memory_mb)),
                                     seed=int(settings["seed"]), hidden=[self.cache])
        except BaseException:
            self.close()
            raise
        self.order: List[str] = []
        self.stop = threading.Event()

    def running_director(self) -> Director:
        """The director, which exists from __init__ to close (when all work is done)."""
        return cast(Director, self.director)

    def close(self) -> None:
        if self.director is not None:
            self.director.close()
            self.director = None
        remove_tree(self.cache)

    # --- entrants -----------------------------------------------------------------------

    def entrant(self, described: Dict[str, Any]) -> Tuple[str, Optional[str]]:
        """Make sure the submission ``described`` is built here; return (its name in the
        director, its build error or None)."""
        key = f"{described['player']}@{described['id']}"
        if key in self.running_director().built:
            return key, None
        if described.get("path"):
            entrant = entrants_module.entrant_for(self.rules, key, described["path"],
                                                  staff=True)
        else:
            try:
                folder = self._unpacked(described)
            except uploads.Refused as refused:
                return key, f"upload refused: {refused}"
            entrant = entrants_module.entrant_for(self.rules, key, folder)
        error = self.running_director().admit(entrant)
        if error is None:
            self.order.append(key)
            while len(self.order) > KEEP_BUILT:
                self.running_director().forget(self.order.pop(0))
        return key, error

    def _unpacked(self, described: Dict[str, Any]) -> str:
        folder = os.path.join(self.cache, str(described["id"]))
        if os.path.lexists(folder):
            remove_tree(folder)
        data = self.client.patient("GET", f"/api/work/submissions/{described['id']}/archive",
                                   raw=True)
        archive = folder + ".archive"
        with open(archive, "wb") as handle:
            handle.write(data)
        try:
            return uploads.unpack(archive, folder)
        finally:
            os.unlink(archive)

    # --- work ---------------------------------------------------------------------------

    def run(self, games: Optional[int] = None) -> int:
        """Lease and do work until stopped (or after ``games`` games); the number of
        games played."""
        played = 0
        while not self.stop.is_set() and (games is None or played < games):
            try:
                work = self.client.patient("POST", "/api/work/lease", {"worker": self.name},
                                           stop=self.stop)
            except ServerError as error:
                say(f"cannot lease work ({error}); retrying")
                self.stop.wait(5.0)
                continue
            if work is None or work.get("kind") == "idle":
                self.stop.wait(float((work or {}).get("wait", IDLE_WAIT)))
                continue
            if work["kind"] == "build":
                self.build(work)
            elif work["kind"] == "game":
                self.game(work)
                played += 1
        return played

    def _heartbeat(self, lease: Any, every: float, done: threading.Event) -> None:
        while not done.wait(every):
            try:
                self.client.request("POST", "/api/work/extend", {"lease": lease})
            except ServerError as error:
                if error.status == 409:
                    return
                # The server is restarting: try again at the next beat.

    def _with_heartbeat(self, work: Dict[str, Any], body: Callable[[], T]) -> T:
        done = threading.Event()
        beat = threading.Thread(target=self._heartbeat, daemon=True,
                                args=(work["lease"], max(float(work["expires"]) / 3, 0.5),
                                      done))
        beat.start()
        try:
            return body()
        finally:
            done.set()
            beat.join(1.0)

    def _post(self, path: str, body: Any) -> bool:
        """Post a result; whether the server took it."""
        try:
            self.client.patient("POST", path, body)
            return True
        except ServerError as error:
            if error.status == 409:
                say(f"{path}: the lease had expired; the result is dropped")
            else:
                say(f"{path}: {error}")
            return False

    def build(self, work: Dict[str, Any]) -> None:
        described = work["submission"]
        _, error = self._with_heartbeat(work, lambda: self.entrant(described))
        self._post(f"/api/work/builds/{described['id']}",
                   {"lease": work["lease"], "error": error})

    def game(self, work: Dict[str, Any]) -> None:
        game = work["game"]

        def play() -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
            names = {}
            for side in ("x", "o"):
                names[side], error = self.entrant(game[side])
                if error is not None:
                    return None, f"{names[side]} did not build here: {error}"
            size = record_size(self.rules, game)
            spec = GameSpec(game["id"], 1, game["pair"], game["pair"], game["board"],
                            size, names["x"], names["o"])
            return self.running_director().play_one(spec, self.running_director().seats[0]), None
        try:
            record, problem = self._with_heartbeat(work, play)
        except Exception as error:  # noqa: BLE001 - an error of ours: the game goes back
            record, problem = None, f"{type(error).__name__}: {error}"
        if record is None:
            say(f"game {game['id']} not played: {problem}")
            self._post(f"/api/work/games/{game['id']}/abandon", {"lease": work["lease"]})
            return
        if self._post(f"/api/work/games/{game['id']}", {"lease": work["lease"],
                                                         "record": record}):
            outcome = {"x": "1-0", "o": "0-1", "draw": "1/2-1/2"}[record["result"]]
            forfeit = record["forfeit"]
            why = f", {forfeit['player'].upper()} forfeits: {forfeit['reason']}" \
                if forfeit else ""
            say(f"game {game['id']} ({self.rules.size_label(record_size(self.rules, game))}): "
                f"{printable(game['x']['player'])} - {printable(game['o']['player'])} "
                f"{outcome}{why}")


def add_arguments(commands: Any) -> None:
    """The ``work`` command's arguments, on the subparsers ``commands``."""
    work = commands.add_parser("work", help="a worker: plays the server's games")
    work.add_argument("folder", metavar="DIR", nargs="?")
    work.add_argument("--server", metavar="URL")
    work.add_argument("--worker-token", metavar="T",
                      help="the workers' token (or LADDER_WORKER_TOKEN; with DIR, read "
                           "from DIR/worker-token)")
    work.add_argument("--name", help="this worker's name in the server's records")
    work.add_argument("--games", type=positive(int), help="stop after N games")
    work.set_defaults(run=command)


def command(options: argparse.Namespace) -> int:
    """``ladder work``: see docs/ladder.md."""
    terminate_as_interrupt()
    url, token = options.server, options.worker_token or os.environ.get(
        "LADDER_WORKER_TOKEN")
    if options.folder:
        try:
            url = url or config.server_url(options.folder)
            token = token or config.read_worker_token(options.folder)
        except config.LadderError as error:
            raise UsageError(str(error)) from None
    if not url or not token:
        raise UsageError("give DIR (a ladder on this machine), or --server URL and "
                         "--worker-token T")
    try:
        worker = Worker(Client(url, token), options.name)
    except ServerError as error:
        raise UsageError(f"cannot reach the ladder: {error}") from None
    say(f"{worker.name} working for {url} (sandbox {worker.running_director().isolation})")
    try:
        played = worker.run(options.games)
    except KeyboardInterrupt:
        return 130
    finally:
        worker.close()
    print(f"ladder worker: {worker.name} played {played} games")
    return 0


