"""``ladder serve``, its web process (``ladder web``, started by serve) and ``ladder stop``.

``serve`` binds the listening socket itself (a port another server holds: one line,
exit 2) and hands it to the web process, which drops root before it serves anything;
it starts the local workers, each reading its token (DIR/worker-token) on its standard
input, never from its command line or environment; restarts a worker that stops; and
writes DIR/server.json: its url, and serve's, the web process's and the workers' pids
with their start times, which ``stop`` checks before it signals anything. Every child
gets SIGTERM from the kernel when serve ends, however it ends (SIGKILL included).
"""

import argparse
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from ..commandline import positive, terminate_as_interrupt, write_atomically
from ..errors import UsageError
from ..sandbox import open_folder, signal_confirmed, start_time
from . import config
from .config import say
from .extra import store_module, web_module
from .lifelines import Named, dying_with_me, named_in, parent_death_signal, rearm
from .ownership import give_tree

STOP_PATIENCE = 30.0
# Open connections per client address: enough for a lab's browsers behind one address
# (each keeps one or two open while it polls), far too few to lock anyone out.
PER_ADDRESS = 64


def add_arguments(commands: Any) -> None:
    """The ``serve``, ``web`` (serve's own) and ``stop`` commands' arguments."""
    serve = commands.add_parser("serve", help="the web server and local workers")
    web = commands.add_parser("web", help=argparse.SUPPRESS)
    for parser in (serve, web):
        parser.add_argument("folder", metavar="DIR")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=positive(int), default=8000)
        parser.add_argument("--user", default="nobody",
                            help="the web process's user when started as root "
                                 "(default nobody)")
        parser.add_argument("--trust-proxy", type=addresses, default=[], metavar="IP[,IP...]",
                            help="believe X-Forwarded-For and X-Forwarded-Proto from these "
                                 "addresses or networks only (default: from none)")
        parser.add_argument("--per-address", type=positive(int), default=PER_ADDRESS,
                            metavar="N",
                            help="open connections per client address (default "
                                 f"{PER_ADDRESS}; a class behind one NAT address without "
                                 "a proxy may need more)")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="local workers (default 1; 0 for none)")
    serve.set_defaults(run=run_serve)
    web.add_argument("--socket-fd", type=int, help=argparse.SUPPRESS)
    web.set_defaults(run=run_web)
    stop = commands.add_parser("stop", help="stop the ladder serve of DIR")
    stop.add_argument("folder", metavar="DIR")
    stop.set_defaults(run=run_stop)


def addresses(text: str) -> List[str]:
    """``--trust-proxy``'s addresses or networks (comma-separated), each checked."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    for word in words:
        try:
            ipaddress.ip_network(word, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{word!r} is not an IP address or network") from None
    if not words:
        raise argparse.ArgumentTypeError("no address")
    return words


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
    """Make the web process's files (DIR/data and what root made in it, ladder.json)
    its user's, never resolving a path inside DIR/data, which that user owns
    (:func:`engine.ladder.ownership.give_tree`)."""
    folder = open_folder(settings["folder"])
    try:
        give_tree(folder, config.DATA, uid, gid)
        os.chown(config.SETTINGS, uid, gid, dir_fd=folder, follow_symlinks=False)
    finally:
        os.close(folder)


def _engine_environment() -> Dict[str, str]:
    """The children's environment: ours, with the engine importable, and without a
    worker token (a secret is never in an environment an entrant could read)."""
    environment = dict(os.environ)
    environment.pop("LADDER_WORKER_TOKEN", None)
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


def _refuse_a_second_serve(folder: str) -> None:
    """UsageError when a serve of ``folder`` runs already (its server.json names a live
    serve): two would hand out the same work twice."""
    try:
        with open(os.path.join(folder, config.SERVER), encoding="utf-8") as handle:
            serve = named_in(json.load(handle))[0]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return
    if serve.alive():
        raise UsageError(f"{folder} is served already (pid {serve.pid}): ladder stop "
                         f"{folder} first")


def _listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound here: UsageError when the port is taken."""
    from .web.guard import PortTaken, listening_socket
    try:
        return listening_socket(host, port)
    except PortTaken as error:
        raise UsageError(str(error)) from None


class Children:
    """serve's web process and local workers, and server.json, which names them."""

    def __init__(self, folder: str, url: str) -> None:
        self.folder = folder
        self.url = url
        self.python = [sys.executable, "-m", "engine", "ladder"]
        self.environment = _engine_environment()
        self.token: Optional[str] = None
        self.web: Optional["subprocess.Popen[bytes]"] = None
        self.workers: List["subprocess.Popen[bytes]"] = []

    def start_web(self, arguments: List[str], listener: socket.socket) -> None:
        """The web process, serving on ``listener`` (handed over: its descriptor)."""
        descriptor = listener.fileno()
        self.web = subprocess.Popen(
            self.python + ["web", self.folder, "--socket-fd", str(descriptor)] + arguments,
            env=self.environment, pass_fds=(descriptor,), preexec_fn=dying_with_me())

    def start_worker(self, index: int) -> "subprocess.Popen[bytes]":
        """Local worker ``local-INDEX``, its token written to its standard input."""
        if self.token is None:
            self.token = config.read_worker_token(self.folder)
        worker = subprocess.Popen(
            self.python + ["work", self.folder, "--server", self.url, "--name",
                           f"local-{index}", "--worker-token-file", "-"],
            env=self.environment, stdin=subprocess.PIPE, preexec_fn=dying_with_me())
        assert worker.stdin is not None
        try:
            worker.stdin.write(self.token.encode() + b"\n")
            worker.stdin.close()
        except OSError:         # it stopped at once: serve says so and starts another
            pass
        return worker

    def publish(self) -> None:
        """Write server.json: serve, the web process and the workers, each with the
        start time that names it for good."""
        alive = [process for process in [self.web] + self.workers if process is not None]
        state = {"url": self.url, "pid": os.getpid(), "started": start_time(os.getpid()),
                 "web": self.web.pid if self.web else None,
                 "workers": [worker.pid for worker in self.workers],
                 "starts": {str(process.pid): start_time(process.pid) for process in alive}}
        write_atomically(os.path.join(self.folder, config.SERVER), json.dumps(state) + "\n")

    def stop(self) -> None:
        """SIGTERM every child still running, wait for each (SIGKILL after
        :data:`STOP_PATIENCE` s), and remove server.json."""
        everyone = self.workers + ([self.web] if self.web else [])
        for process in everyone:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in everyone:
            try:
                process.wait(STOP_PATIENCE)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        try:
            os.unlink(os.path.join(self.folder, config.SERVER))
        except OSError:
            pass


def run_serve(options: argparse.Namespace) -> int:
    settings = config.load(options.folder)
    terminate_as_interrupt()
    folder = settings["folder"]
    _refuse_a_second_serve(folder)
    listener = _listen(options.host, options.port)
    arguments = ["--host", options.host, "--port", str(options.port)]
    if options.trust_proxy:
        arguments += ["--trust-proxy", ",".join(options.trust_proxy)]
    arguments += ["--per-address", str(options.per_address)]
    if os.geteuid() == 0:
        uid, gid = _web_user(options.user)
        give_data_to(settings, uid, gid)
        arguments += ["--user", options.user]
    host = options.host
    url = f"http://{'[' + host + ']' if ':' in host else host}:{options.port}"
    children = Children(folder, url)
    try:
        children.start_web(arguments, listener)
        listener.close()
        children.publish()
        assert children.web is not None
        _wait_for(url, children.web)
        say(f"serving {url} (workers: {options.workers})")
        _serve(children, max(options.workers, 0))
    except KeyboardInterrupt:
        say("stopping")
        return 130
    finally:
        listener.close()
        children.stop()


def _serve(children: Children, count: int) -> NoReturn:
    """Start ``count`` workers, then keep them running (a worker that stops is replaced)
    until the web process stops (UsageError) or serve is interrupted."""
    for index in range(count):
        children.workers.append(children.start_worker(index))
    children.publish()
    web = children.web
    assert web is not None
    while True:
        time.sleep(0.5)
        if web.poll() is not None:
            raise UsageError(f"the web process stopped (exit {web.returncode})")
        for index, worker in enumerate(children.workers):
            if worker.poll() is not None:
                say(f"worker local-{index} stopped (exit {worker.returncode}); "
                    "starting another (its work, if any, is handed out again)")
                children.workers[index] = children.start_worker(index)
                children.publish()


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
    able to read the interpreter's own library (a Python under /root). Started by
    serve, it dies with serve: the kernel forgets that wish when the process changes
    its user, so it is made again after root is dropped."""
    parent, death_signal = os.getppid(), parent_death_signal()
    settings = config.load(options.folder)
    module = store_module()
    web = web_module()
    from . import pages
    from .web import guard
    from .web.connections import Limits
    store = module.Store(settings)
    listener = None if options.socket_fd is None else socket.socket(fileno=options.socket_fd)
    try:
        server = guard.server(web.make_app(store), options.host, options.port, sock=listener,
                              trust_proxy=options.trust_proxy,
                              limits=Limits(per_address=options.per_address))
    except guard.PortTaken as error:
        raise UsageError(str(error)) from None
    try:
        # Alembic imports as it goes: migrations run before root is dropped, and the
        # files they made are given to the web process's user.
        module.migrate(store.engine)
        store.engine.dispose()
        was_root = os.geteuid() == 0
        if was_root:
            give_data_to(settings, *_web_user(options.user))
        pages.preload()
        drop_privileges(options.user)
        if was_root:
            guard.AfterRoot().install()
        rearm(parent, death_signal)
        store.submissions.recover()
        store.standings.start()
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


def _still_serve(serve: Named) -> bool:
    """Whether serve's pid is still serve: by its start time, or (a server.json of an
    older version, without one) by its command line."""
    if serve.started is not None:
        return serve.alive()
    try:
        with open(f"/proc/{serve.pid}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
    except OSError:
        return False
    return b"ladder" in words and b"serve" in words


def _end(processes: List[Named], patience: float) -> None:
    """SIGTERM each of ``processes`` that is still itself, wait up to ``patience`` s
    for them to end, then SIGKILL those left."""
    def still() -> List[int]:
        return [process.pid for process in processes if process.alive()]
    signal_confirmed(still(), signal.SIGTERM, still)
    deadline = time.monotonic() + patience
    while still() and time.monotonic() < deadline:
        time.sleep(0.1)
    signal_confirmed(still(), signal.SIGKILL, still)


def _what(processes: List[Named]) -> str:
    """``serve, its web process and 2 workers``: the roles in ``processes``."""
    roles = [process.role for process in processes]
    workers = roles.count("worker")
    words = (["serve"] if "serve" in roles else []) + \
        (["its web process"] if "web" in roles else []) + \
        ([f"{workers} worker{'s' * (workers != 1)}"] if workers else [])
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def run_stop(options: argparse.Namespace) -> int:
    """Stop the ``ladder serve`` of DIR and what it started (SIGTERM; its workers' work
    in progress is handed out again at the next start), each process checked by its
    start time first, and wait until they have stopped. A server.json whose processes
    are all gone is removed (one line, exit 2)."""
    folder = options.folder
    path = os.path.join(folder, config.SERVER)
    try:
        with open(path, encoding="utf-8") as handle:
            processes = named_in(json.load(handle))
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"no server is running for {folder}") from None
    serve, children = processes[0], processes[1:]
    # The file outlives a server that was killed: its pids may belong to other processes
    # by now. Only a process that started when the one named did is signalled.
    running = [process for process in children if process.alive()]
    if _still_serve(serve):
        running.insert(0, serve)

        def still() -> List[int]:
            return [serve.pid] if _still_serve(serve) else []
        signal_confirmed([serve.pid], signal.SIGTERM, still)
        deadline = time.monotonic() + 2 * STOP_PATIENCE
        while still() and time.monotonic() < deadline:
            time.sleep(0.1)
        signal_confirmed(still(), signal.SIGKILL, still)
    left = [process for process in children if process.alive()]
    if left:
        _end(left, STOP_PATIENCE)
    try:
        os.unlink(path)
    except OSError:
        pass
    if not running:
        raise UsageError(f"the server of {folder} was gone already")
    if running[0] is serve:
        print(f"ladder: stopped the server of {folder} ({_what(running)})")
    else:
        print(f"ladder: the server of {folder} had stopped; stopped what it left: "
              f"{_what(running)}")
    return 0
