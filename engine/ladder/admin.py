"""The instructor's commands on a running ladder: ``ladder freeze`` (uploads close at a
time; games go on) and ``ladder worker-token`` (a token of its own for each worker,
written to a file only its owner may read; revocable).

Run as root, they open the database as the web process does and then give back to the
web user what they made in DIR/data (engine.ladder.serving.give_data_to, which never
resolves a path inside that folder).
"""

import argparse
import datetime
import os
import re
import time
from typing import Any, Callable, Optional

from ..errors import UsageError
from . import config
from .extra import store_module
from .serving import give_data_to

WORKER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def add_arguments(commands: Any) -> None:
    """The ``freeze`` and ``worker-token`` commands' arguments."""
    freeze = commands.add_parser("freeze", help="close uploads at a time (games go on)")
    freeze.add_argument("folder", metavar="DIR")
    freeze.add_argument("--at", required=True, metavar="TIME",
                        help="YYYY-MM-DDTHH:MM[+HH:MM] (local time without an offset), "
                             "'now', or 'off' to open uploads again")
    freeze.set_defaults(run=run_freeze)
    token = commands.add_parser("worker-token", help="a worker's own token (or revoke it)")
    token.add_argument("folder", metavar="DIR")
    token.add_argument("name", metavar="NAME", nargs="?")
    token.add_argument("--out", metavar="FILE",
                       help="where the token goes (mode 0600; default DIR/workers/NAME.token)")
    token.add_argument("--revoke", action="store_true", help="revoke NAME's token")
    token.add_argument("--list", action="store_true", help="list the workers' tokens")
    token.set_defaults(run=run_worker_token)


def parse_time(text: str, now: Optional[float] = None) -> Optional[float]:
    """The freeze time ``text`` as a Unix time ('now': now; 'off': None); UsageError
    for anything else."""
    if text == "off":
        return None
    if text == "now":
        return time.time() if now is None else now
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--at: {text!r} is no time (YYYY-MM-DDTHH:MM, 'now' or "
                         "'off')") from None
    return moment.timestamp()


def on_database(settings: Any, work: Callable[[Any], Any]) -> Any:
    """``work(store)`` on the ladder's database; what root made in DIR/data goes back
    to the web user afterwards."""
    store = store_module().Store(settings)
    try:
        return work(store)
    finally:
        store.close()
        if os.geteuid() == 0 and not settings.get("db"):
            data = os.stat(config.data_folder(settings))
            give_data_to(settings, data.st_uid, data.st_gid)


def run_freeze(options: argparse.Namespace) -> int:
    settings = config.load(options.folder)
    at = parse_time(options.at)
    on_database(settings, lambda store: store.set_freeze(at))
    if at is None:
        config.say("uploads are open again")
    else:
        shown = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))
        config.say(f"uploads {'closed' if at <= time.time() else 'close'} at {shown}; "
                   "games go on (ladder export --entrants FOLDER lays out each student's "
                   "latest working version for the final)")
    return 0


def run_worker_token(options: argparse.Namespace) -> int:
    settings = config.load(options.folder)
    if options.list:
        for name, revoked in on_database(settings, lambda store: store.accounts.workers()):
            print(f"{name}{' (revoked)' if revoked else ''}")
        return 0
    if not options.name or not WORKER_NAME.match(options.name):
        raise UsageError("give the worker's NAME (letters, digits, _ . -; at most 64)")
    if options.revoke:
        on_database(settings, lambda store: store.accounts.revoke_worker(options.name))
        config.say(f"worker {options.name}'s token is revoked: its leases end with it")
        return 0
    out = options.out or os.path.join(settings["folder"], "workers",
                                      f"{options.name}.token")
    if os.path.lexists(out):
        raise UsageError(f"{out} exists already")
    os.makedirs(os.path.dirname(os.path.abspath(out)), mode=0o700, exist_ok=True)
    token = on_database(settings, lambda store: store.accounts.add_worker(options.name))
    config.write_secret(out, token + "\n")
    config.say(f"worker {options.name}'s token is in {out} (mode 0600): copy it to the "
               f"worker's machine and run ladder work --server URL --worker-token-file FILE")
    return 0
