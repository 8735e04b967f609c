"""python3 -m engine ladder init|serve|work|stop|export: a class ladder (docs/ladder.md).

  python3 -m engine ladder init DIR --game stake_raid|lineemup --roster ROSTER.csv
          [--time SEC] [--sizes LIST] [--seed S] [--lease SEC] [--upload-mb MB]
          [--db postgresql://USER@HOST/DB]
  python3 -m engine ladder serve DIR [--host 127.0.0.1] [--port 8000] [--workers N]
          [--user nobody]
  python3 -m engine ladder work DIR                       (a worker on this machine)
  python3 -m engine ladder work --server URL --worker-token T    (on another machine)
  python3 -m engine ladder stop DIR
  python3 -m engine ladder export DIR [--json FILE] [--csv FILE] [--report FILE.html]

Students upload a .zip or .tar.gz of their agent's folder any time (POST
/api/submissions with their token, or the page /me); workers build it once in the
grading kit's sandbox, play placement games against our anchors and nearby ratings,
then keep pairing by rating uncertainty; / shows the standings, /games/ID each replay.
init and serve and export need the ladder extra (pip install '.[ladder]'); a worker
needs only this package. Exit code 0, 2 on bad usage, 130 when interrupted.
"""

import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..commandline import run_program, terminate_as_interrupt, write_atomically
from ..errors import UsageError
from ..grading.cli import ArgumentParser
from ..grading.processes import signal_confirmed, start_time
from ..tournament.games import GAMES, SizeError, rules_for
from . import config

NAME = "ladder"
DEFAULT_TIME = 20.0
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
EXTRA = "the ladder needs its extra libraries: pip install '.[ladder]' ({})"


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value
    return parse


def parser() -> argparse.ArgumentParser:
    top = ArgumentParser(prog="python3 -m engine ladder", description=__doc__.split("\n")[0])
    commands = top.add_subparsers(dest="command", metavar="init|serve|work|stop|export")
    init = commands.add_parser("init", help="make a ladder in a new folder")
    init.add_argument("folder", metavar="DIR")
    init.add_argument("--game", required=True, choices=sorted(GAMES))
    init.add_argument("--roster", required=True, metavar="ROSTER.csv",
                      help="the students: a CSV with a 'name' column (else the first)")
    init.add_argument("--time", type=_positive(float), default=DEFAULT_TIME, metavar="SEC",
                      help=f"CPU seconds per player per game (default {DEFAULT_TIME:g})")
    init.add_argument("--sizes", metavar="LIST", help="board sizes (the tournament's)")
    init.add_argument("--seed", type=int, default=1, help="the boards' seed (default 1)")
    init.add_argument("--lease", type=_positive(float), default=None, metavar="SEC",
                      help="how long a worker may go silent before its game is replayed "
                           "(default 60)")
    init.add_argument("--upload-mb", type=_positive(int), default=None, metavar="MB",
                      help="the largest upload (default 8)")
    init.add_argument("--db", metavar="URL", help="postgresql://... (default: SQLite in DIR)")
    serve = commands.add_parser("serve", help="the web server and local workers")
    serve.add_argument("folder", metavar="DIR")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_positive(int), default=8000)
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="local workers (default 1; 0 for none)")
    serve.add_argument("--user", default="nobody",
                       help="the web process's user when started as root (default nobody)")
    web = commands.add_parser("web", help=argparse.SUPPRESS)
    web.add_argument("folder", metavar="DIR")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=_positive(int), default=8000)
    web.add_argument("--user", default="nobody")
    work = commands.add_parser("work", help="a worker: plays the server's games")
    work.add_argument("folder", metavar="DIR", nargs="?")
    work.add_argument("--server", metavar="URL")
    work.add_argument("--worker-token", metavar="T",
                      help="the workers' token (or LADDER_WORKER_TOKEN; with DIR, read "
                           "from DIR/worker-token)")
    work.add_argument("--name", help="this worker's name in the server's records")
    work.add_argument("--games", type=_positive(int), help="stop after N games")
    stop = commands.add_parser("stop", help="stop the ladder serve of DIR")
    stop.add_argument("folder", metavar="DIR")
    export = commands.add_parser("export", help="the tournament JSON, CSV and page")
    export.add_argument("folder", metavar="DIR")
    export.add_argument("--json", metavar="FILE")
    export.add_argument("--csv", metavar="FILE")
    export.add_argument("--report", metavar="FILE.html")
    return top


def say(text: str) -> None:
    print(f"ladder: {text}", file=sys.stderr, flush=True)


def _store_module() -> ModuleType:
    try:
        from . import store
    except ImportError as error:
        raise UsageError(EXTRA.format(error)) from None
    return store


# --- init -------------------------------------------------------------------------------

def read_roster(path: str) -> List[str]:
    """The students' names in ``path`` (CSV; a ``name`` column, else the first column)."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if row and any(c.strip() for c in row)]
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', error)}") \
            from None
    if not rows:
        raise UsageError(f"{path}: no students")
    header = [cell.strip().lower() for cell in rows[0]]
    column = header.index("name") if "name" in header else 0
    if "name" in header:
        rows = rows[1:]
    names = []
    for number, row in enumerate(rows, 2 if "name" in header else 1):
        name = row[column].strip() if column < len(row) else ""
        if not NAME_PATTERN.match(name):
            raise UsageError(f"{path}, line {number}: {name[:40]!r} is no name (letters, "
                             "digits, _ . -; at most 64)")
        if name in names:
            raise UsageError(f"{path}, line {number}: {name} twice")
        names.append(name)
    if not names:
        raise UsageError(f"{path}: no students")
    return names


def _make_ladder(options: argparse.Namespace, folder: str, rules: Any, sizes: Sequence[Any],
                 names: List[str],
                 store_module: ModuleType) -> Tuple[Dict[str, str], Dict[str, Any]]:
    """Make the ladder's folder, database and secrets; (tokens, settings)."""
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o755)
    os.makedirs(os.path.join(folder, config.DATA, config.UPLOADS), mode=0o700)
    os.chmod(os.path.join(folder, config.DATA), 0o700)
    settings = dict(config.DEFAULTS, game=rules.name, time=options.time,
                    sizes=[size if isinstance(size, int) else str(size) for size in sizes],
                    seed=options.seed, db=options.db)
    if options.lease:
        settings["lease"] = options.lease
    if options.upload_mb:
        settings["upload_mb"] = options.upload_mb
    config.save(folder, settings)
    settings = config.load(folder)
    worker_token = config.new_token()
    try:
        store = store_module.Store(settings)
        store_module.migrate(store.engine)
        tokens = store.create(names, worker_token)
        store.close()
    except config.LadderError as error:
        raise UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - a database we cannot use: one line
        raise UsageError(f"cannot create the database: {type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''}") from None
    config.write_secret(os.path.join(folder, config.TOKENS),
                        "name,token\n" + "".join(f"{name},{tokens[name]}\n"
                                                 for name in names))
    config.write_secret(os.path.join(folder, config.WORKER_TOKEN), worker_token + "\n")
    return tokens, settings


def run_init(options: argparse.Namespace) -> int:
    # The arguments are checked before the extra is imported: a usage error reads the
    # same with or without the ladder's libraries (the golden cases replay under PyPy and
    # CPython 3.8, which do not have them).
    rules = rules_for(options.game)
    try:
        sizes = rules.parse_sizes(options.sizes or rules.default_sizes)
    except SizeError as error:
        raise UsageError(f"--sizes: {error}") from None
    names = read_roster(options.roster)
    folder = options.folder
    if os.path.exists(folder) and (not os.path.isdir(folder) or os.listdir(folder)):
        raise UsageError(f"{folder} exists and is not an empty folder")
    if options.db and not options.db.startswith(("postgresql://", "postgres://")):
        raise UsageError("--db must be a postgresql:// URL (SQLite is the default)")
    store_module = _store_module()
    created = not os.path.exists(folder)
    try:
        tokens, settings = _make_ladder(options, folder, rules, sizes, names, store_module)
    except BaseException:
        # Nothing half-made stays: the folder as it was (absent, or empty).
        if created:
            shutil.rmtree(folder, ignore_errors=True)
        elif os.path.isdir(folder):
            for name in os.listdir(folder):
                path = os.path.join(folder, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
        raise
    anchors = ", ".join(store_module.STAFF_BY_GAME[rules.name])
    print(f"ladder: {folder} is a {rules.title} ladder for {len(names)} students "
          f"({options.time:g} s per player per game, sizes "
          f"{', '.join(map(str, settings['sizes']))}; anchors {anchors}; database "
          f"{'PostgreSQL' if options.db else 'SQLite'})")
    print(f"ladder: each student's token is in {os.path.join(folder, config.TOKENS)} "
          "(mode 0600: hand them out, keep the file)")
    return 0


# --- serve ------------------------------------------------------------------------------

def _web_user(name: str) -> Tuple[int, int]:
    import pwd
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise UsageError(f"--user {name}: no such user") from None
    if entry.pw_uid == 0:
        raise UsageError("--user must not be root: the web process never runs as root")
    return entry.pw_uid, entry.pw_gid


def give_data_to(settings: Dict[str, Any], uid: int, gid: int) -> None:
    """Make the web process's files (DIR/data, ladder.json) its user's."""
    data = config.data_folder(settings)
    for root, folders, files in os.walk(data):
        os.lchown(root, uid, gid)
        for name in folders + files:
            os.lchown(os.path.join(root, name), uid, gid)
    os.lchown(config.settings_path(settings["folder"]), uid, gid)


def _engine_environment() -> Dict[str, str]:
    environment = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    environment["PYTHONPATH"] = package_parent + (
        os.pathsep + environment["PYTHONPATH"] if environment.get("PYTHONPATH") else "")
    return environment


def _wait_for(url: str, process: "subprocess.Popen[bytes]", seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise UsageError(f"the web process stopped at once (exit {process.returncode})")
        try:
            with urllib.request.urlopen(url + "/api/leaderboard", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise UsageError(f"the web process did not answer on {url} in {seconds:g} s")


def run_serve(options: argparse.Namespace) -> int:
    settings = config.load(options.folder)
    terminate_as_interrupt()
    folder = settings["folder"]
    user_options = []
    if os.geteuid() == 0:
        uid, gid = _web_user(options.user)
        give_data_to(settings, uid, gid)
        user_options = ["--user", options.user]
    host = options.host
    url = f"http://{'[' + host + ']' if ':' in host else host}:{options.port}"
    python = [sys.executable, "-m", "engine", "ladder"]
    environment = _engine_environment()
    web = subprocess.Popen(python + ["web", folder, "--host", host, "--port",
                                     str(options.port)] + user_options, env=environment)
    workers: List["subprocess.Popen[bytes]"] = []
    state = {"url": url, "pid": os.getpid(), "started": start_time(os.getpid()),
             "web": web.pid, "workers": []}

    def publish() -> None:
        state["workers"] = [worker.pid for worker in workers]
        write_atomically(os.path.join(folder, config.SERVER), json.dumps(state) + "\n")

    def start_worker(index: int) -> "subprocess.Popen[bytes]":
        return subprocess.Popen(python + ["work", folder, "--server", url, "--name",
                                          f"local-{index}"], env=environment)
    try:
        publish()
        _wait_for(url, web)
        say(f"serving {url} (workers: {options.workers})")
        for index in range(max(options.workers, 0)):
            workers.append(start_worker(index))
        publish()
        while True:
            time.sleep(0.5)
            if web.poll() is not None:
                raise UsageError(f"the web process stopped (exit {web.returncode})")
            for index, worker in enumerate(workers):
                if worker.poll() is not None:
                    say(f"worker local-{index} stopped (exit {worker.returncode}); "
                        "starting another (its game, if any, is replayed)")
                    workers[index] = start_worker(index)
                    publish()
    except KeyboardInterrupt:
        say("stopping")
        return 130
    finally:
        for process in workers + [web]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in workers + [web]:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        try:
            os.unlink(os.path.join(folder, config.SERVER))
        except OSError:
            pass


def drop_privileges(user: str) -> None:
    """As root: become ``user`` for good (no supplementary groups, no way back)."""
    if os.geteuid() != 0:
        return
    uid, gid = _web_user(user)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.geteuid() == 0 or os.getuid() == 0:
        raise UsageError("could not drop root")


def run_web(options: argparse.Namespace) -> int:
    """The web process. Everything it will ever import is imported, and the server's
    protocol classes loaded, before root is dropped: the unprivileged user may not be
    able to read the interpreter's own library (a Python under /root)."""
    settings = config.load(options.folder)
    store_module = _store_module()
    try:
        from . import web
    except ImportError as error:
        raise UsageError(EXTRA.format(error)) from None
    store = store_module.Store(settings)
    server = web.server(web.make_app(store), options.host, options.port)
    try:
        # Alembic imports as it goes: migrations run before root is dropped, and the
        # files they made are given to the web process's user.
        store_module.migrate(store.engine)
        store.engine.dispose()
        if os.geteuid() == 0:
            give_data_to(settings, *_web_user(options.user))
        drop_privileges(options.user)
        store.recover()
    except UsageError:
        raise
    except Exception as error:  # noqa: BLE001 - a database we cannot open: one line
        hint = "" if settings.get("db") else (
            f" (the web process runs as {options.user}: {settings['folder']} and every "
            "folder above it must let that user pass)" if os.getuid() != 0 else "")
        raise UsageError(f"cannot open the database as uid {os.getuid()}: "
                         f"{type(error).__name__}: {str(error).splitlines()[0]}{hint}") \
            from None
    server.run()
    store.close()
    return 0


def run_stop(options: argparse.Namespace) -> int:
    """Stop the ``ladder serve`` of DIR (SIGTERM; its workers' games in progress are
    replayed at the next start) and wait until it has stopped."""
    path = os.path.join(options.folder, config.SERVER)
    try:
        with open(path, encoding="utf-8") as handle:
            state = json.load(handle)
        pid, started = int(state["pid"]), state.get("started")
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"no server is running for {options.folder}") from None
    # The file outlives a server that was killed: its pid may belong to another process
    # by now. Only the process that started when the server did is signalled (a file
    # written before the start time was kept: a process running ``ladder serve``).
    def still_the_server() -> List[int]:
        if started is not None:
            return [pid] if start_time(pid) == started else []
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                words = handle.read().split(b"\0")
        except OSError:
            return []
        return [pid] if b"ladder" in words and b"serve" in words else []

    if not signal_confirmed([pid], signal.SIGTERM, still_the_server):
        os.unlink(path)
        raise UsageError(f"the server of {options.folder} was gone already")
    deadline = time.monotonic() + 60
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.2)
    print(f"ladder: stopped the server of {options.folder}")
    return 0


# --- work -------------------------------------------------------------------------------

def run_work(options: argparse.Namespace) -> int:
    from .worker import Client, ServerError, Worker, say as worker_say
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
    worker_say(f"{worker.name} working for {url} (sandbox {worker.running_director().isolation})")
    try:
        played = worker.run(options.games)
    except KeyboardInterrupt:
        return 130
    finally:
        worker.close()
    print(f"ladder worker: {worker.name} played {played} games")
    return 0


# --- export -----------------------------------------------------------------------------

def run_export(options: argparse.Namespace) -> int:
    settings = config.load(options.folder)
    store_module = _store_module()
    from ..tournament import report, results
    folder = settings["folder"]
    out = os.path.join(folder, "export")
    paths = {"json": options.json or os.path.join(out, "results.json"),
             "csv": options.csv or os.path.join(out, "standings.csv"),
             "report": options.report or os.path.join(out, "report.html")}
    store = store_module.Store(settings)
    try:
        document = store.document()
    finally:
        store.close()
        if os.geteuid() == 0 and not settings.get("db"):
            data = os.stat(config.data_folder(settings))
            give_data_to(settings, data.st_uid, data.st_gid)
    for path in paths.values():
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
    results.save(paths["json"], document)
    write_atomically(paths["csv"], results.csv_text(document))
    write_atomically(paths["report"], report.render(document))
    print(f"ladder: {len(document['games'])} games of {len(document['entrants'])} entrants "
          f"written to {paths['json']}, {paths['csv']} and {paths['report']}")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run_program(NAME, _main, argv, help_text=__doc__)


def _main(argv: List[str]) -> int:
    try:
        return _command(parser().parse_args(argv))
    except config.LadderError as error:
        raise UsageError(str(error)) from None


def _command(options: argparse.Namespace) -> int:
    if options.command == "init":
        return run_init(options)
    if options.command == "serve":
        return run_serve(options)
    if options.command == "web":
        return run_web(options)
    if options.command == "work":
        return run_work(options)
    if options.command == "export":
        return run_export(options)
    if options.command == "stop":
        return run_stop(options)
    raise UsageError("give a command: init, serve, work, stop or export (see --help)")
