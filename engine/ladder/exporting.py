"""``ladder export``: everything played as a tournament's results (JSON, CSV, page)."""

import argparse
import os

from typing import Any

from ..commandline import write_atomically
from . import config
from .extra import store_module
from .serving import give_data_to


def add_arguments(commands: Any) -> None:
    """The ``export`` command's arguments, on the subparsers ``commands``."""
    export = commands.add_parser("export", help="the tournament JSON, CSV and page")
    export.add_argument("folder", metavar="DIR")
    export.add_argument("--json", metavar="FILE")
    export.add_argument("--csv", metavar="FILE")
    export.add_argument("--report", metavar="FILE.html")
    export.set_defaults(run=command)


def command(options: argparse.Namespace) -> int:
    """``ladder export``: see the module docstring."""
    settings = config.load(options.folder)
    from ..tournament import report, results
    folder = settings["folder"]
    out = os.path.join(folder, "export")
    paths = {"json": options.json or os.path.join(out, "results.json"),
             "csv": options.csv or os.path.join(out, "standings.csv"),
             "report": options.report or os.path.join(out, "report.html")}
    store = store_module().Store(settings)
    try:
        document = store.standings.document(private=True)
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


