"""``ladder serve``, its web process (``ladder web``, started by serve) and ``ladder stop``.

``serve`` starts the web process (which drops root before it serves anything) and the
local workers, restarts a worker that stops, and writes DIR/server.json (its url, pid
and start time, which ``stop`` checks before it signals anything).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, List, Tuple

from ..commandline import positive, terminate_as_interrupt, write_atomically
from ..errors import UsageError
from ..grading.processes import signal_confirmed, start_time
from . import config
from .config import say
from .extra import store_module, web_module


def add_arguments(commands: Any) -> None:
    """The ``serve``, ``web`` (serve's own) and ``stop`` commands' arguments."""
    serve = commands.add_parser("serve", help="the web server and local workers")
    serve.add_argument("folder", metavar="DIR")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=positive(int), default=8000)
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="local workers (default 1; 0 for none)")
    serve.add_argument("--user", default="nobody",
                       help="the web process's user when started as root (default nobody)")
    serve.set_defaults(run=run_serve)
    web = commands.add_parser("web", help=argparse.SUPPRESS)
    web.add_argument("folder", metavar="DIR")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=positive(int), default=8000)
    web.add_argument("--user", default="nobody")
    web.set_defaults(run=run_web)
    stop = commands.add_parser("stop", help="stop the ladder serve of DIR")
    stop.add_argument("folder", metavar="DIR")
    stop.set_defaults(run=run_stop)


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
    module = store_module()
    web = web_module()
    store = module.Store(settings)
    server = web.server(web.make_app(store), options.host, options.port)
    try:
        # Alembic imports as it goes: migrations run before root is dropped, and the
        # files they made are given to the web process's user.
        module.migrate(store.engine)
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


