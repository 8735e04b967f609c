"""A ladder worker: leases builds and games from the server over HTTP, runs each in the
grading kit's sandbox through the tournament's director and referee, posts the result.

Every worker, on the server's machine (``ladder work DIR``, or ``ladder serve
--workers N``) or on another (``ladder work --server URL --worker-token-file FILE``, a
cluster node), speaks the same JSON protocol (version 2), its own token as its Bearer
token (:mod:`engine.ladder.worker.client`):

    GET  /api/work/settings                  the game, clock, sizes, seed, lease,
                                             isolation, memory_mb, class_size
    POST /api/work/lease {"worker", "built"} -> {"kind": "build", "lease", "expires",
                                             "submission"} | {"kind": "game", "lease",
                                             "expires", "game"} | {"kind": "idle", "wait"}
    POST /api/work/extend {"lease"}          every expires/3 s, for builds and games
    GET  /api/work/submissions/ID/archive    the normalised archive
    POST /api/work/builds/ID {"lease", "error"}
    POST /api/work/builds/ID/abandon {"lease", "reason"}
    POST /api/work/games/ID {"lease", "record"}
    POST /api/work/games/ID/abandon {"lease", "entrant", "reason"}

The kit's word about itself never travels in-band. An entrant's own failure is a
value (a build error, a forfeit in the record) and is posted as such; only an exception
of ours abandons the work with ``entrant`` null: the kit raised (IsolationError,
SandboxError, an OSError), or the archive could not be fetched, or did not unpack as
the server's normal form with its SHA-256. A build that fails here for an entrant the
server says is built (it fails at a time it chooses) abandons the game naming that
entrant: the server charges it after two. Nothing an entrant prints is parsed, and
every line of it that reaches stderr goes through ``printable``.

A worker keeps one :class:`engine.tournament.director.Director` (one job: two seats)
for its life: its builds on disk in the worker's folder
(:class:`engine.ladder.worker.cache.WorkerFolder`, cleaned by the next worker if this
one is killed outright), kept by last use
(:class:`engine.ladder.worker.cache.BuildCache`), never evicting a player of the game
being set up; its run folders in the kit's workspace in memory, where the run's memory
limit bounds what an agent writes. A worker killed outright loses its lease's work: the
lease expires and the server hands it out again. Standard library only, so that a
cluster node needs nothing but the checkout.
"""

import argparse
import os
import socket
import threading
import time
from typing import (Any, Callable, Dict, NamedTuple, Optional, Sequence, Set, Tuple, TypeVar,
                    Union)

from ...commandline import positive, terminate_as_interrupt
from ...errors import UsageError
from ...grading.printable import printable
from ...sandbox import remove_tree
from ...tournament import entrants as entrants_module
from ...tournament.director import Director
from ...tournament.games import rules_for
from ...tournament.schedule import GameSpec
from .. import config, uploads
from .cache import (DEFAULT_CACHE_MB, BuildCache, WorkerFolder, capacity_for)
from .client import (Client, ServerError, read_token_file, refuse_exposed_token,
                            say)

IDLE_WAIT = 1.0
# How long a result (or an abandon) is tried again before it is given up: by then its
# lease has expired many times over and the server has handed the work out again.
POST_PATIENCE = 600.0
FETCH_PATIENCE = 120.0
# A worker started before its server waits this long for it.
START_PATIENCE = 60.0
SETTINGS_EVERY = 60.0
# The shortest time between two renewals of a lease (a server asking for less).
MIN_BEAT = 0.05
REASON_CHARS = 2000

T = TypeVar("T")


class Abandon(NamedTuple):
    """Work that could not be done here: ``entrant`` is the submission id whose set-up
    failed on this worker (its build), or None for a failure of ours."""
    entrant: Optional[int]
    reason: str


def record_size(rules: Any, game: Dict[str, Any]) -> int:
    return rules.parse_sizes(str(game["size"]))[0]


def build_bytes(built: Any) -> int:
    """The bytes a build takes on disk (its entries' blocks)."""
    return sum(entry.status.st_blocks * 512 for entry in built.build.entries)


class Worker:
    """See the module docstring. ``hidden``: more paths no run may see (the token's
    file, the ladder's folder); ``cache_mb``: the cap on the builds' bytes on disk;
    ``root``: where the worker's folder goes (None: /var/tmp)."""

    def __init__(self, client: Client, name: Optional[str] = None,
                 hidden: Sequence[str] = (), cache_mb: int = DEFAULT_CACHE_MB,
                 root: Optional[str] = None) -> None:
        self.client = client
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.stop = threading.Event()
        self.settings: Dict[str, Any] = client.call("GET", "/api/work/settings",
                                                    patience=START_PATIENCE)
        self.settings_read = time.monotonic()
        self.rules = rules_for(self.settings["game"])
        self.folder = WorkerFolder(root)
        for path in self.folder.removed:
            say(f"removed {path}, left by a worker that was killed")
        # None once closed: see close
        self.director: Optional[Director] = None
        try:
            self.director = Director(
                self.rules, [], float(self.settings["time"]), jobs=1,
                isolation=str(self.settings.get("isolation", "auto")),
                memory_mb=int(self.settings.get("memory_mb", 1024)),
                seed=int(self.settings["seed"]), builds_root=self.folder.builds,
                hidden=[self.folder.sources] + [os.path.abspath(p) for p in hidden])
            if self.director.workspace is not None:
                self.folder.note_workspace(self.director.workspace)
        except BaseException:
            self.close()
            raise
        self.cache = BuildCache(self.director.forget,
                                capacity_for(self.settings.get("class_size")),
                                cache_mb << 20)

    def running_director(self) -> Director:
        """The director, which exists from __init__ to close."""
        if self.director is None:
            raise RuntimeError("the worker is closed")
        return self.director

    def close(self) -> None:
        """Close the director and remove the worker's folder (its builds included)."""
        if self.director is not None:
            self.director.close()
            self.director = None
        self.folder.close()

    # --- builds here ---------------------------------------------------------------------

    def built_here(self, described: Dict[str, Any], keep: Set[int]
                   ) -> Tuple[str, Optional[str]]:
        """Make sure the submission ``described`` is built here, evicting none of
        ``keep``; return (its name in the director, its build error or None). Raises
        for a failure of ours (the archive not fetched or not unpacked, the kit's
        exceptions)."""
        ident = int(described["id"])
        name = f"{described['player']}@{ident}"
        if self.cache.use(ident) is not None:
            return name, None
        self.cache.make_room(keep)
        director = self.running_director()
        folder = None
        if described.get("path"):
            entrant = entrants_module.entrant_for(self.rules, name, str(described["path"]),
                                                  staff=True)
        else:
            folder = os.path.join(self.folder.sources, str(ident))
            source = self._unpacked(ident, folder, described.get("sha256"))
            entrant = entrants_module.entrant_for(self.rules, name, source)
        started = time.monotonic()
        try:
            error = director.admit(entrant)
        finally:
            if folder is not None:
                remove_tree(folder)     # the build is a copy: the source is not needed
        if error is not None:
            director.forget(name)
            return name, error
        self.cache.add(ident, name, build_bytes(director.built[name]), keep)
        say(f"built {printable(name)} here ({time.monotonic() - started:.1f} s; "
            f"{len(self.cache.ids())} builds kept)")
        return name, None

    def _unpacked(self, ident: int, folder: str, sha256: Optional[str]) -> str:
        """Fetch the submission ``ident``'s normalised archive and unpack it into
        ``folder``, which it returns. The server made that archive from the upload and
        checked it (with ``sha256``, its digest is checked here too), so an archive
        that will not unpack here (Refused) is a failure of ours, not the entrant's."""
        data = self.client.call("GET", f"/api/work/submissions/{ident}/archive", raw=True,
                                patience=FETCH_PATIENCE, stop=self.stop)
        archive = folder + ".archive"
        for leftover in (folder, archive):
            if os.path.lexists(leftover):
                remove_tree(leftover)
        descriptor = os.open(archive, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        try:
            return uploads.unpack_normalised(archive, folder, sha256=sha256 or None)
        finally:
            os.unlink(archive)

    # --- the loop ------------------------------------------------------------------------

    def run(self, games: Optional[int] = None) -> int:
        """Lease and do work until stopped (or after ``games`` games played); the number
        of games played."""
        played = 0
        while not self.stop.is_set() and (games is None or played < games):
            self._refresh_settings()
            self.cache.trim()
            try:
                work = self.client.call("POST", "/api/work/lease",
                                        {"worker": self.name, "built": self.cache.ids()},
                                        stop=self.stop)
            except ServerError as error:
                if not self.stop.is_set():
                    say(f"cannot lease work ({error}); asking again in 5 s")
                    self.stop.wait(5.0)
                continue
            work = work if isinstance(work, dict) else {}
            if "class_size" in work:
                self.cache.capacity = capacity_for(work["class_size"])
            if work.get("kind") == "build":
                self.build(work)
            elif work.get("kind") == "game":
                played += self.game(work)
            else:
                self.stop.wait(float(work.get("wait", IDLE_WAIT)))
        return played

    def _refresh_settings(self) -> None:
        """Read the settings again every SETTINGS_EVERY seconds: the class's size
        changes as students upload (the cache is sized to it)."""
        if time.monotonic() - self.settings_read < SETTINGS_EVERY:
            return
        self.settings_read = time.monotonic()
        try:
            settings = self.client.request("GET", "/api/work/settings")
        except ServerError:
            return          # the lease request just after says what is wrong
        if isinstance(settings, dict) and "class_size" in settings:
            self.cache.capacity = capacity_for(settings["class_size"])

    def _heartbeat(self, lease: Any, every: float, done: threading.Event) -> None:
        while not done.wait(every):
            try:
                self.client.request("POST", "/api/work/extend", {"lease": lease})
            except ServerError as error:
                if not error.passing:
                    say(f"lease {printable(lease)} could not be renewed ({error}): the "
                        "server has taken the work back")
                    return
                say(f"{error}; renewing the lease again in {every:g} s")

    def _with_heartbeat(self, work: Dict[str, Any], body: Callable[[], T]) -> T:
        """``body()``, with the lease of ``work`` renewed every expires/3 seconds."""
        done = threading.Event()
        every = max(float(work.get("expires", 60.0)) / 3, MIN_BEAT)
        beat = threading.Thread(target=self._heartbeat, daemon=True,
                                args=(work["lease"], every, done))
        beat.start()
        try:
            return body()
        finally:
            done.set()
            beat.join(5.0)

    def _post(self, path: str, body: Dict[str, Any]) -> bool:
        """Post a result or an abandon; whether the server took it."""
        try:
            self.client.call("POST", path, body, patience=POST_PATIENCE)
            return True
        except ServerError as error:
            if error.status == 409:
                say(f"{path}: the lease is gone (409); the result is dropped")
            else:
                say(f"{error}; the result is dropped")
            return False

    # --- builds and games ---------------------------------------------------------------

    def build(self, work: Dict[str, Any]) -> None:
        """Build the leased submission and post its build error (None: built), or
        abandon the build for a failure of ours."""
        described = work["submission"]
        ident = int(described["id"])
        who = f"submission {ident} ({printable(described.get('player'))})"
        try:
            _, error = self._with_heartbeat(
                work, lambda: self.built_here(described, {ident}))
        except Exception as failure:  # noqa: BLE001 - ours: the build goes back
            reason = f"{type(failure).__name__}: {failure}"
            say(f"{who}: build abandoned: {printable(reason)}")
            self._post(f"/api/work/builds/{ident}/abandon",
                       {"lease": work["lease"], "reason": reason[:REASON_CHARS]})
            return
        if self._post(f"/api/work/builds/{ident}", {"lease": work["lease"],
                                                     "error": error}):
            say(f"{who}: " + ("built" if error is None else "build failed: " + printable(
                entrants_module.error_summary(error))))

    def _play(self, game: Dict[str, Any]) -> Union[Dict[str, Any], Abandon]:
        """The record of the leased ``game``, or why it could not be played here."""
        keep = {int(game["x"]["id"]), int(game["o"]["id"])}
        names = {}
        for side in ("x", "o"):
            described = game[side]
            try:
                names[side], error = self.built_here(described, keep)
            except Exception as failure:  # noqa: BLE001 - ours, not the entrant's
                return Abandon(None, f"setting up submission {described['id']}: "
                                     f"{type(failure).__name__}: {failure}")
            if error is not None:
                return Abandon(int(described["id"]),
                               f"its build failed on this worker: {error}")
        spec = GameSpec(game["id"], 1, game["pair"], game["pair"], game["board"],
                        record_size(self.rules, game), names["x"], names["o"])
        director = self.running_director()
        try:
            return director.play_one(spec, director.seats[0])
        except Exception as failure:  # noqa: BLE001 - the kit could not referee it
            return Abandon(None, f"{type(failure).__name__}: {failure}")

    def game(self, work: Dict[str, Any]) -> bool:
        """Play the leased game and post its record (or abandon it); whether it was
        played."""
        game = work["game"]
        outcome = self._with_heartbeat(work, lambda: self._play(game))
        if isinstance(outcome, Abandon):
            named = "" if outcome.entrant is None else f" (charged to submission " \
                f"{outcome.entrant} after two)"
            say(f"game {game['id']} abandoned{named}: "
                f"{printable(entrants_module.error_summary(outcome.reason))}")
            self._post(f"/api/work/games/{game['id']}/abandon",
                       {"lease": work["lease"], "entrant": outcome.entrant,
                        "reason": outcome.reason[:REASON_CHARS]})
            return False
        record = outcome
        if self._post(f"/api/work/games/{game['id']}", {"lease": work["lease"],
                                                         "record": record}):
            say(self._game_line(game, record))
        return True

    def _game_line(self, game: Dict[str, Any], record: Dict[str, Any]) -> str:
        outcome = {"x": "1-0", "o": "0-1", "draw": "1/2-1/2"}.get(record["result"], "?")
        forfeit = record.get("forfeit")
        why = f", {str(forfeit['player']).upper()} forfeits: {forfeit['reason']}" \
            if forfeit else ""
        size = self.rules.size_label(record_size(self.rules, game))
        return printable(f"game {game['id']} ({size}): {game['x']['player']} - "
                         f"{game['o']['player']} {outcome}{why}")


# --- the command line -------------------------------------------------------------------

def add_arguments(commands: Any) -> None:
    """The ``work`` command's arguments, on the subparsers ``commands``."""
    work = commands.add_parser("work", help="a worker: plays the server's games")
    work.add_argument("folder", metavar="DIR", nargs="?")
    work.add_argument("--server", metavar="URL")
    work.add_argument("--worker-token-file", metavar="FILE",
                      help="the file holding this worker's token, mode 0600 (- : read it "
                           "from standard input; with DIR, default DIR/worker-token)")
    work.add_argument("--worker-token", metavar="T", help=argparse.SUPPRESS)
    work.add_argument("--name", help="this worker's name in the server's records")
    work.add_argument("--games", type=positive(int), help="stop after N games")
    work.add_argument("--cache-mb", type=positive(int), default=DEFAULT_CACHE_MB,
                      metavar="MB", help="the builds kept on disk, at most (default "
                                         f"{DEFAULT_CACHE_MB})")
    work.add_argument("--cache", metavar="FOLDER",
                      help="where the worker keeps its builds (default /var/tmp)")
    work.set_defaults(run=command)


def _server_and_token(options: argparse.Namespace) -> Tuple[str, str, Optional[str]]:
    """(the server's URL, the token, the token's file or None for stdin)."""
    refuse_exposed_token(options.worker_token is not None,
                         "LADDER_WORKER_TOKEN" in os.environ)
    url, path = options.server, options.worker_token_file
    if options.folder:
        try:
            url = url or config.server_url(options.folder)
        except config.LadderError as error:
            raise UsageError(str(error)) from None
        path = path or os.path.join(options.folder, config.WORKER_TOKEN)
    if not url or not path:
        raise UsageError("give DIR (a ladder on this machine), or --server URL and "
                         "--worker-token-file FILE")
    return url, read_token_file(path), None if path == "-" else path


def command(options: argparse.Namespace) -> int:
    """``ladder work``: see docs/ladder.md."""
    terminate_as_interrupt()
    url, token, token_file = _server_and_token(options)
    if options.cache is not None and not os.path.isdir(options.cache):
        raise UsageError(f"--cache {options.cache}: no such folder")
    hidden = [path for path in (token_file, options.folder) if path]
    try:
        worker = Worker(Client(url, token), options.name, hidden, options.cache_mb,
                        options.cache)
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
