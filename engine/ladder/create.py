"""``ladder init``: a new ladder's folder, database and secrets (docs/ladder.md).

The roster is checked and the arguments parsed before the ladder's libraries are
imported, so that a usage error reads the same with or without them.
"""

import argparse
import csv
import os
import re
import shutil
from types import ModuleType
from typing import Any, Dict, List, Sequence, Tuple

from ..commandline import positive
from ..errors import UsageError
from ..tournament.games import GAMES, SizeError, rules_for
from . import config
from .extra import store_module

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_TIME = 20.0


def add_arguments(commands: Any) -> None:
    """The ``init`` command's arguments, on the subparsers ``commands``."""
    init = commands.add_parser("init", help="make a ladder in a new folder")
    init.add_argument("folder", metavar="DIR")
    init.add_argument("--game", required=True, choices=sorted(GAMES))
    init.add_argument("--roster", required=True, metavar="ROSTER.csv",
                      help="the students: a CSV with a 'name' column (else the first)")
    init.add_argument("--time", type=positive(float), default=DEFAULT_TIME, metavar="SEC",
                      help=f"CPU seconds per player per game (default {DEFAULT_TIME:g})")
    init.add_argument("--sizes", metavar="LIST", help="board sizes (the tournament's)")
    init.add_argument("--seed", type=int, default=1, help="the boards' seed (default 1)")
    init.add_argument("--lease", type=positive(float), default=None, metavar="SEC",
                      help="how long a worker may go silent before its game is replayed "
                           "(default 60)")
    init.add_argument("--upload-mb", type=positive(int), default=None, metavar="MB",
                      help="the largest upload (default 8)")
    init.add_argument("--db", metavar="URL", help="postgresql://... (default: SQLite in DIR)")
    init.add_argument("--challenges", choices=("rated", "unrated", "off"), default="unrated",
                      help="whether a student may ask for a pair against a named "
                           "classmate or anchor, and whether those games count in the "
                           "ratings (default unrated)")
    init.set_defaults(run=command)


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
                 module: ModuleType) -> Tuple[Dict[str, str], Dict[str, Any]]:
    """Make the ladder's folder, database and secrets; (tokens, settings)."""
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o755)
    os.makedirs(os.path.join(folder, config.DATA, config.UPLOADS), mode=0o700)
    os.chmod(os.path.join(folder, config.DATA), 0o700)
    settings = dict(config.DEFAULTS, game=rules.name, time=options.time,
                    sizes=[size if isinstance(size, int) else str(size) for size in sizes],
                    seed=options.seed, db=options.db, challenges=options.challenges)
    if options.lease:
        settings["lease"] = options.lease
    if options.upload_mb:
        settings["upload_mb"] = options.upload_mb
    config.save(folder, settings)
    settings = config.load(folder)
    worker_token = config.new_token()
    try:
        store = module.Store(settings)
        module.migrate(store.engine)
        tokens = store.accounts.create(names, worker_token)
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


def command(options: argparse.Namespace) -> int:
    """``ladder init``: see the module docstring."""
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
    store = store_module()
    created = not os.path.exists(folder)
    try:
        tokens, settings = _make_ladder(options, folder, rules, sizes, names, store)
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
    anchors = f"anchors {', '.join(rules.anchors)}" if rules.anchors else "no anchors"
    print(f"ladder: {folder} is a {rules.title} ladder for {len(names)} students "
          f"({options.time:g} s per player per game, sizes "
          f"{', '.join(map(str, settings['sizes']))}; {anchors}; database "
          f"{'PostgreSQL' if options.db else 'SQLite'})")
    print(f"ladder: each student's token is in {os.path.join(folder, config.TOKENS)} "
          "(mode 0600: hand them out, keep the file)")
    return 0


