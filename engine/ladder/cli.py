"""python3 -m engine ladder init|serve|work|stop|export: a class ladder (docs/ladder.md).

  python3 -m engine ladder init DIR --game GAME --roster ROSTER.csv
          [--time SEC] [--sizes LIST] [--seed S] [--lease SEC] [--upload-mb MB]
          [--db postgresql://USER@HOST/DB]
  python3 -m engine ladder serve DIR [--host 127.0.0.1] [--port 8000] [--workers N]
          [--user nobody]
  python3 -m engine ladder work DIR                       (a worker on this machine)
  python3 -m engine ladder work --server URL --worker-token-file FILE|-
                                                                  (on another machine)
  python3 -m engine ladder stop DIR
  python3 -m engine ladder export DIR [--json FILE] [--csv FILE] [--report FILE.html]
          [--entrants FOLDER]
  python3 -m engine ladder freeze DIR --at TIME|now|off
  python3 -m engine ladder worker-token DIR NAME [--out FILE] [--revoke] | --list

GAME is one of the tournament's games (python3 -m engine tournament --help lists them).
Students upload a .zip or .tar.gz of their agent's folder any time (POST
/api/submissions with their token, or the page /me); workers build it once in the
grading kit's sandbox, play placement games against our anchors and nearby ratings,
then keep pairing by rating uncertainty; / shows the standings, /games/ID each replay.
init and serve and export need the ladder extra (pip install '.[ladder]'); a worker
needs only this package. Exit code 0, 2 on bad usage, 130 when interrupted.
"""

import argparse
import sys
from typing import List, Optional

from ..commandline import argument_parser, run_program
from ..errors import UsageError
from . import admin, config, create, exporting, serving, worker

NAME = "ladder"


def parser() -> argparse.ArgumentParser:
    """The ladder's command line: each command's module adds its own arguments."""
    top = argument_parser(prog="python3 -m engine ladder",
                          description=(__doc__ or "").split("\n")[0])
    commands = top.add_subparsers(
        dest="command", metavar="init|serve|work|stop|export|freeze|worker-token")
    for module in (create, serving, worker, exporting, admin):
        module.add_arguments(commands)
    return top


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run_program(NAME, _main, argv, help_text=__doc__)


def _main(argv: List[str]) -> int:
    options = parser().parse_args(argv)
    if getattr(options, "run", None) is None:
        raise UsageError("give a command: init, serve, work, stop, export, freeze or "
                         "worker-token (see --help)")
    try:
        return int(options.run(options))
    except config.LadderError as error:
        raise UsageError(str(error)) from None
