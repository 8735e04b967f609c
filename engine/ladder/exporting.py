"""``ladder export``: everything played as a tournament's results (JSON, CSV, page,
with each forfeit's detail: the instructor's), and with ``--entrants FOLDER`` each
student's latest working version laid out for ``tournament run`` (the final: after
``ladder freeze``, the latest uploaded before the freeze)."""

import argparse
import os

from typing import Any, Dict, List, Tuple

from ..commandline import write_atomically
from ..errors import UsageError
from . import config, uploads
from .extra import store_module
from .serving import give_data_to

# The handout's clock of the final tournament: CPU seconds per player per game.
FINAL_TIME = 200.0


def add_arguments(commands: Any) -> None:
    """The ``export`` command's arguments, on the subparsers ``commands``."""
    export = commands.add_parser("export", help="the tournament JSON, CSV and page")
    export.add_argument("folder", metavar="DIR")
    export.add_argument("--json", metavar="FILE")
    export.add_argument("--csv", metavar="FILE")
    export.add_argument("--report", metavar="FILE.html")
    export.add_argument("--entrants", metavar="FOLDER",
                        help="also lay out each student's latest working version in "
                             "FOLDER/NAME (a new or empty folder), for tournament run")
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
    if options.entrants and os.path.exists(options.entrants) and (
            not os.path.isdir(options.entrants) or os.listdir(options.entrants)):
        raise UsageError(f"--entrants: {options.entrants} exists and is not an empty folder")
    store = store_module().Store(settings)
    try:
        document = store.standings.document(private=True)
        versions = store.submissions.working_versions(store.freeze_at()) \
            if options.entrants else []
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
    if options.entrants:
        lay_out(settings, versions, options.entrants)
    return 0


def lay_out(settings: Dict[str, Any], versions: List[Tuple[str, int, str]],
            folder: str) -> None:
    """Unpack each (player, submission, digest) of ``versions`` into FOLDER/player from
    its normalised archive (checked against its digest), and say how to play the final
    at the handout's clock."""
    os.makedirs(folder, exist_ok=True)
    for name, submission_id, digest in versions:
        try:
            uploads.unpack_normalised(config.upload_path(settings, submission_id),
                                      os.path.join(folder, name), sha256=digest)
        except (uploads.Refused, OSError) as error:
            raise UsageError(f"cannot lay out {name}'s submission {submission_id}: "
                             f"{error}") from None
    game = settings["game"]
    print(f"ladder: {len(versions)} students' latest working versions laid out in "
          f"{folder}; the final: python3 -m engine tournament run {game} "
          f"{os.path.join(folder, '*')} --time {FINAL_TIME:g} --json final.json")


