"""python3 -m engine tournament run|merge|sprt: class tournaments (docs/tournament.md).

  python3 -m engine tournament run GAME ENTRANT... [--staff ENTRANT...]
          [--format round-robin|knockout|gauntlet|swiss] [--rounds R] [--games-per-match N]
          [--time SEC] [--sizes LIST] [--pairs P] [--seed S] [--jobs J] [--json FILE]
          [--csv FILE] [--report FILE.html] [--shard I/K] [--resume] [--from FILE]
          [--isolation auto|bwrap|rlimits] [--memory MB] [--quiet]
  python3 -m engine tournament merge SHARD.json... --json FILE [--csv FILE] [--report FILE]
  python3 -m engine tournament sprt GAME ENTRANT_A ENTRANT_B --elo0 E0 --elo1 E1
          [--alpha 0.05] [--beta 0.05] [--max-pairs N] [--time SEC] [--sizes LIST]
          [--json FILE] [--seed S] [--jobs J] [--isolation ...] [--memory MB] [--quiet]

GAME is one of the games below. An ENTRANT is a folder (with a Makefile: make agent,
calibrate, newgame, run; or the game's entry point), a class folder holding one folder
per entrant, or one of our players of the game, ours:NAME. Every call runs in the grading
kit's sandbox; clocks charge CPU time, user + system. Exit code 0 when it ran (whatever
the games' results), 1 when a game could not be refereed (--resume plays it), 2 on bad
usage, 130 when interrupted (every finished game is kept). A student's entrant and
gauntlet: docs/agent.md; sprt: docs/stake_raid_agent.md.
"""

import argparse
import os
import sys
import textwrap
import time
import unicodedata
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence,
                    Tuple)

from ..commandline import (argument_parser, run_program, terminate_as_interrupt,
                           write_atomically)
from ..errors import UsageError
from ..grading.cli import check_output_folders, isolation_option, shard_option
from ..sandbox import IsolationError, exposure
from ..grading.printable import escaping_usage_errors, printable
from ..grading.workers import hold_signals
from . import entrants as entrants_module
from . import results, schedule
from .director import Director, schedule_todo
from .entrants import Entrant
from .games import GAMES, Rules, SizeError, rules_for
from .schedule import GameSpec, Schedule
from .sprt import Sprt, elo_estimate

NAME = "tournament"
DEFAULT_TIME = 200.0


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1e7:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer: {text!r}")
    return int(text)


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be between 0 and 0.5: {text!r}")
    return value


def _elo(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of Elo: {text!r}") from None


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _sandbox_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--time", type=_positive_number, default=DEFAULT_TIME,
                         metavar="SEC", help="CPU seconds per player per game "
                         f"(default {DEFAULT_TIME:g})")
    command.add_argument("--sizes", metavar="LIST",
                         help="board sizes, comma-separated (default: the game's, below)")
    command.add_argument("--seed", type=int, default=1, help="the boards' seed (default 1)")
    command.add_argument("--jobs", type=_positive_int, default=_default_jobs(),
                         help="games at once (default: one per CPU)")
    command.add_argument("--isolation", type=isolation_option, default="auto",
                         metavar="auto|bwrap|landlock|rlimits[+cgroup][+uid][+seccomp]",
                         help="the sandbox's fences to insist on (default auto)")
    command.add_argument("--memory", type=_positive_int, default=1024, metavar="MB",
                         help="memory per call (default 1024 MB)")
    command.add_argument("--quiet", action="store_true", help="no progress on stderr")


def parser() -> argparse.ArgumentParser:
    top = argument_parser(prog="python3 -m engine tournament",
                         description=__doc__.split("\n")[0])
    commands = top.add_subparsers(dest="command", metavar="run|merge|sprt")
    run = commands.add_parser("run", help="play a tournament")
    run.add_argument("game", choices=sorted(GAMES))
    run.add_argument("entrants", nargs="+", metavar="ENTRANT")
    run.add_argument("--staff", nargs="+", default=[], metavar="ENTRANT",
                     help="staff entrants (a gauntlet's opponents; marked in every output)")
    run.add_argument("--format", default="round-robin", choices=schedule.FORMATS)
    run.add_argument("--rounds", type=_positive_int,
                     help="Swiss rounds (default ceil(log2 entrants))")
    run.add_argument("--games-per-match", type=_positive_int, default=5, metavar="N",
                     help="knockout games per match, odd (default 5)")
    run.add_argument("--pairs", type=_positive_int,
                     help="colour-swapped pairs per meeting (round-robin, gauntlet: "
                          "default one per size; Swiss: 1)")
    _sandbox_options(run)
    run.add_argument("--shard", type=shard_option, metavar="I/K",
                     help="play only the I-th of K slices of the games")
    run.add_argument("--resume", action="store_true",
                     help="play only the games the --json file lacks")
    run.add_argument("--from", dest="start_from", metavar="FILE",
                     help="take the games of FILE (e.g. merged earlier rounds) as played")
    _output_options(run)

    merge = commands.add_parser("merge", help="join the JSON results of shards")
    merge.add_argument("shards", nargs="+", metavar="SHARD.json")
    _output_options(merge)
    merge.add_argument("--quiet", action="store_true", help="print no standings")

    sprt = commands.add_parser("sprt", help="play pairs until a sequential test decides")
    sprt.add_argument("game", choices=sorted(GAMES))
    sprt.add_argument("a", metavar="ENTRANT_A")
    sprt.add_argument("b", metavar="ENTRANT_B")
    sprt.add_argument("--elo0", type=_elo, required=True, help="H0: A is E0 Elo stronger")
    sprt.add_argument("--elo1", type=_elo, required=True, help="H1: A is E1 Elo stronger")
    sprt.add_argument("--alpha", type=_probability, default=0.05)
    sprt.add_argument("--beta", type=_probability, default=0.05)
    sprt.add_argument("--max-pairs", type=_positive_int, default=1000, metavar="N")
    _sandbox_options(sprt)
    sprt.add_argument("--json", metavar="FILE", help="the games and the test as JSON")
    sprt.set_defaults(csv=None, report=None)
    return top


def _output_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--json", metavar="FILE", help="results as JSON (replaced after "
                         "every game)")
    command.add_argument("--csv", metavar="FILE", help="standings, one row per entrant")
    command.add_argument("--report", metavar="FILE.html",
                         help="self-contained HTML page: standings, crosstable, replays")


# --- output ------------------------------------------------------------------------------

def say(options: argparse.Namespace, text: str) -> None:
    if not options.quiet:
        print(f"tournament: {text}", file=sys.stderr, flush=True)


def _warn_exposure(options: argparse.Namespace, director: Director) -> None:
    """Say (even with --quiet) what an entrant can do when no file fence holds it."""
    exposed = exposure(director.isolation.split("+"))
    if exposed:
        print(f"tournament: warning: {exposed}", file=sys.stderr, flush=True)


def write_outputs(options: argparse.Namespace, document: Dict[str, Any]) -> None:
    """Write the files the options ask for."""
    if options.json:
        try:
            results.save(options.json, document)
        except OSError as error:
            raise UsageError(f"cannot write {options.json}: {error.strerror}") from None
    if options.csv:
        write_atomically(options.csv, results.csv_text(document))
    if options.report:
        from . import report
        write_atomically(options.report, report.render(document))


# The standings' columns: heading, least width, aligned right (else left).
STANDING_COLUMNS = (("#", 3, True), ("name", 4, False), ("points", 6, True),
                    ("games", 5, True), ("W-D-L", 9, True), ("beat", 4, True),
                    ("rating [95%]", 18, True), ("forfeits", 0, False))


def display_width(text: str) -> int:
    """How many terminal columns ``text`` takes: wide (East Asian) characters two,
    combining marks none, others one."""
    return sum(0 if unicodedata.combining(char) else
               2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
               for char in text)


def _padded(text: str, width: int, right: bool) -> str:
    blanks = " " * max(0, width - display_width(text))
    return blanks + text if right else text + blanks


def standings_text(document: Dict[str, Any]) -> str:
    """The standings as a table for the terminal (and, for a gauntlet, each entrant's
    points against each staff entrant). Every column is as wide as its widest cell (a
    long or wide-charactered name, a four-digit rating), so the columns stay aligned."""
    table: List[List[str]] = []
    for place, row in enumerate(results.ranked(document["entrants"]), 1):
        name = printable(row["name"]) + (" (staff)" if row["staff"] else "")
        if row["build_error"]:
            first = printable(entrants_module.error_summary(row["build_error"]))
            table.append(["-", name, f"eliminated: {first}"])
            continue
        rating = ("" if row["rating"] is None else
                  f"{round(row['rating']):+d} [{round(row['rating_low']):+d}, "
                  f"{round(row['rating_high']):+d}]")
        forfeits = ", ".join(f"{count} {reason}" for reason, count in
                             sorted(row["forfeits"].items()))
        placing = f"  {row['placing']}" if row.get("placing") else ""
        table.append([str(place), name, f"{row['points']:g}", str(row["games"]),
                      f"{row['wins']}-{row['draws']}-{row['losses']}", str(row["beaten"]),
                      rating, forfeits + placing])
    widths = [max([least] + [display_width(cells[column]) for cells in table
                             if len(cells) > 3 or column < 2])
              for column, (_, least, _) in enumerate(STANDING_COLUMNS)]
    lines = []
    for cells in [[heading for heading, _, _ in STANDING_COLUMNS]] + table:
        shown = [_padded(cell, width, right) for cell, width, (_, _, right)
                 in zip(cells, widths, STANDING_COLUMNS)]
        if len(cells) == 3:         # eliminated: the reason runs on from the name
            shown[2] = cells[2]
        lines.append("  ".join(shown).rstrip())
    if document.get("format") == "gauntlet":
        lines += [""] + gauntlet_lines(document)
    return "\n".join(lines)


def gauntlet_lines(document: Dict[str, Any]) -> List[str]:
    """Per entrant who is not staff: its points against each staff entrant."""
    staff = [row["name"] for row in document["entrants"] if row["staff"]]
    lines = []
    for row in document["entrants"]:
        if row["staff"] or row["build_error"]:
            continue
        parts = []
        for other in staff:
            games = [g for g in document["games"] if {g["x"], g["o"]} == {row["name"], other}]
            got = sum(0.5 if g["result"] == "draw" else
                      1.0 if g[g["result"]] == row["name"] else 0.0 for g in games)
            parts.append(f"{printable(other)} {got:g}/{len(games)}")
        lines.append(f"{printable(row['name'])} against the staff: " + ", ".join(parts))
    return lines


class Progress:
    """A line on stderr per game, with the share done and the ETA of this run."""

    def __init__(self, options: argparse.Namespace, total: int) -> None:
        self.options = options
        self.total = total
        self.done = 0
        self.start = time.monotonic()

    def game(self, record: Dict[str, Any]) -> None:
        self.done += 1
        if self.options.quiet:
            return
        elapsed = time.monotonic() - self.start
        total = max(self.total, self.done)
        eta = elapsed / self.done * (total - self.done)
        outcome = {"x": "1-0", "o": "0-1", "draw": "½-½"}[record["result"]]
        forfeit = record["forfeit"]
        why = f", {forfeit['player'].upper()} forfeits: {forfeit['reason']}" if forfeit else ""
        score = record["score"]
        print(f"[{self.done}/{total}] game {record['id']} (round {record['round']}): "
              f"{printable(record['x'])} - {printable(record['o'])} {outcome} "
              f"({score[0]}-{score[1]}{why}); {_duration(elapsed)} elapsed, "
              f"ETA {_duration(eta)}", file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


# --- run ---------------------------------------------------------------------------------

def _sizes(rules: Rules, text: Optional[str]) -> List[Any]:
    try:
        return rules.parse_sizes(text or rules.default_sizes)
    except SizeError as error:
        raise UsageError(f"--sizes: {error}") from None


def _entrant_dicts(entrants: Iterable[Entrant]) -> List[Dict[str, Any]]:
    return [{"name": e.name, "path": e.path, "kind": e.kind, "staff": e.staff}
            for e in entrants]


def _header(options: argparse.Namespace, rules: Rules, sizes: Sequence[Any], pairs: Optional[int],
            rounds: Optional[int], isolation: str, fmt: str) -> Dict[str, Any]:
    return {"game": rules.name, "format": fmt, "time": options.time,
            "seed": options.seed, "isolation": isolation,
            "sizes": [size if isinstance(size, int) else str(size) for size in sizes],
            "pairs": pairs, "games_per_match": getattr(options, "games_per_match", None)
            if fmt == "knockout" else None,
            "rounds": rounds, "shard": None}


def _earlier(options: argparse.Namespace
             ) -> Tuple[Optional[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """The document to continue (--resume) and the one to start from (--from)."""
    resumed = None
    if options.resume:
        if not options.json:
            raise UsageError("--resume needs --json FILE (the results to resume)")
        if os.path.exists(options.json):
            resumed = _load(options.json)
        else:
            say(options, f"{options.json} does not exist yet: starting afresh")
    elif options.json and os.path.exists(options.json):
        raise UsageError(f"--json {options.json} exists: --resume continues it "
                         "(or remove it to start again)")
    start = _load(options.start_from) if options.start_from else None
    return resumed, start


def _load(path: str) -> Dict[str, Any]:
    try:
        return results.load(path)
    except results.ResultsError as error:
        raise UsageError(str(error)) from None


def run_tournament(options: argparse.Namespace) -> int:
    terminate_as_interrupt()
    rules = rules_for(options.game)
    check_output_folders(options)
    resumed, start = _earlier(options)
    sizes = _sizes(rules, options.sizes)
    fmt = options.format
    if fmt == "knockout" and options.games_per_match % 2 == 0:
        raise UsageError(f"--games-per-match must be odd (a match needs a winner), "
                         f"not {options.games_per_match}")
    if fmt == "gauntlet" and not options.staff:
        raise UsageError("a gauntlet needs --staff ENTRANT... (the opponents)")
    # Our players' source is the director's copy of the engine (set when built).
    entrants = _resolve(rules, options.entrants, options.staff)
    if fmt == "gauntlet" and all(entrant.staff for entrant in entrants):
        raise UsageError("a gauntlet needs entrants besides the staff")
    pairs = options.pairs or (1 if fmt == "swiss" else len(sizes))
    rounds = _swiss_rounds(options, len(entrants)) if fmt == "swiss" else None
    header = _header(options, rules, sizes, None if fmt == "knockout" else pairs, rounds,
                     "", fmt)
    header["shard"] = None if options.shard is None else "/".join(map(str, options.shard))
    tournament = _Tournament(options, rules, entrants, header, sizes, pairs, rounds)
    tournament.take_earlier(start, options.start_from)
    tournament.take_earlier(resumed, options.json)
    director, interrupted = tournament.direct()
    if interrupted:
        kept = f"; kept in {options.json} (--resume plays the rest)" if options.json else ""
        print(f"tournament: interrupted after {len(tournament.played)} games{kept}",
              file=sys.stderr)
        return 130
    print(standings_text(tournament.final))
    plan = tournament.plan
    if (options.shard is not None and fmt in ("knockout", "swiss") and plan is not None
            and not plan.final):
        say(options, "this shard's games of the current round are played; merge the "
                     "shards, then run the next round with --from MERGED.json")
    return 1 if director.failures else 0


def _resolve(rules: Rules, paths: Sequence[str], staff: Sequence[str],
             **how: Any) -> List[Entrant]:
    """The entrants of ``paths`` and ``staff`` (see entrants.resolve, which ``how`` is
    passed on to); UsageError when one cannot be."""
    try:
        return entrants_module.resolve(rules, paths, staff, None, **how)
    except entrants_module.EntrantError as error:
        raise UsageError(str(error)) from None


def _swiss_rounds(options: argparse.Namespace, entrants: int) -> int:
    """The rounds of a Swiss tournament: --rounds, by default enough to rank the
    entrants, never more than they can play without meeting twice."""
    most = max(entrants - 1, 1)
    rounds: int = options.rounds or min(schedule.swiss_rounds(entrants), most)
    if rounds > most:
        raise UsageError(f"--rounds {rounds}: {entrants} entrants can play at most "
                         f"{most} rounds without meeting twice")
    return rounds


class _Directed:
    """What ``run`` and ``sprt`` share: the director's set-up with Ctrl-C held, the play
    under a Ctrl-C that keeps every finished game, and the end written whole.

    A subclass says what to play (:meth:`play`) and writes its outputs at the end
    (:meth:`write_end`).
    """

    def __init__(self, options: argparse.Namespace, rules: Rules, entrants: List[Entrant],
                 header: Dict[str, Any]) -> None:
        self.options = options
        self.rules = rules
        self.entrants = entrants
        self.header = header
        self.dicts = _entrant_dicts(entrants)
        self.played: Dict[int, Dict[str, Any]] = {}

    def direct(self) -> Tuple[Director, bool]:
        """Set up the director (its sandboxes), play, then close it and write the end
        with SIGINT and SIGTERM held; return the director and whether a Ctrl-C (or a
        SIGTERM) came at any point. Any other error closes the director and goes on."""
        options = self.options
        held: List[int] = []
        director = _set_up(held, lambda: Director(
            self.rules, self.entrants, options.time, options.jobs, options.isolation,
            options.memory, options.seed), options)
        self.header["isolation"] = director.isolation
        interrupted = False
        try:
            if held:
                raise KeyboardInterrupt     # (came as the sandboxes were set up)
            _warn_exposure(options, director)
            self.play(director)
        except KeyboardInterrupt:
            interrupted = True
        except BaseException:
            _close(director)
            raise
        with hold_signals(held):    # a Ctrl-C now stops nothing more: the end is written whole
            director.close()
            self.write_end(director, interrupted)
        return director, interrupted or bool(held)

    def play(self, director: Director) -> None:
        """Build the entrants and play the games (a Ctrl-C may cut it short)."""
        raise NotImplementedError

    def write_end(self, director: Director, interrupted: bool) -> None:
        """Write the outputs once the director is closed."""
        raise NotImplementedError


class _Tournament(_Directed):
    """``tournament run``: the games of a format's schedule, round after round."""

    def __init__(self, options: argparse.Namespace, rules: Rules, entrants: List[Entrant],
                 header: Dict[str, Any], sizes: List[Any], pairs: int,
                 rounds: Optional[int]) -> None:
        super().__init__(options, rules, entrants, header)
        self.sizes, self.pairs, self.rounds = sizes, pairs, rounds
        # The earlier runs' build errors, and what the builds gave (those errors until
        # they end): Ctrl-C during the builds still writes the document, with the
        # entrants and no game.
        self.known: Dict[str, Optional[str]] = {}
        self.builds: Dict[str, Optional[str]] = {}
        self.built: List[str] = []
        self.staff = {entrant.name for entrant in entrants if entrant.staff}
        self.plan: Optional[Schedule] = None
        self.final: Dict[str, Any] = {}

    def take_earlier(self, earlier: Optional[Dict[str, Any]], what: str) -> None:
        """Continue ``earlier`` (the document of --from or --resume, if any): its games
        and its entrants' build errors; UsageError when it is another tournament."""
        if earlier is None:
            return
        _check_same(self.header, self.entrants, earlier, what)
        self.played.update({record["id"]: record for record in earlier["games"]})
        errors = {row["name"]: row.get("build_error") for row in earlier["entrants"]
                  if row.get("build_error")}
        self.known.update(errors)
        self.builds.update(errors)

    def document(self, complete: bool) -> Dict[str, Any]:
        return results.assemble(self.header, self.dicts, self.builds,
                                list(self.played.values()), complete)

    def play(self, director: Director) -> None:
        options = self.options
        say(options, f"{self.rules.title} {options.format}, {len(self.entrants)} entrants, "
                     f"{options.time:g} s of CPU per player per game, "
                     f"{director.jobs} job(s), sandbox {director.isolation}")
        self.builds = director.build(self.known, on_built=lambda name, error, seconds: say(
            options, f"{printable(name)} is eliminated: "
                     f"{printable(entrants_module.error_summary(error))}" if error else
                     f"{printable(name)} built in {seconds:.1f} s"),
            on_start=lambda name, what: say(options, f"{printable(name)}: {what}"))
        self.built = [entrant.name for entrant in self.entrants
                      if self.builds[entrant.name] is None]
        self.plan = plan = self._plan_now()
        shard_count = options.shard[1] if options.shard else 1
        progress = Progress(options, max(0, (plan.expected - len(self.played))) // shard_count
                            or len(schedule_todo(plan, self.played, options.shard, self.rules)))

        def on_game(record: Dict[str, Any]) -> None:
            self.played[record["id"]] = record
            progress.game(record)
            if options.json:
                results.save(options.json, self.document(False))

        while True:
            todo = schedule_todo(plan, self.played, options.shard, self.rules)
            if not todo or director.failures:
                break
            director.play(todo, on_game, _say_not_refereed)
            self.plan = plan = self._plan_now()

    def _plan_now(self) -> Schedule:
        """The schedule as the games played so far make it (a knockout's or a Swiss
        tournament's next round depends on them)."""
        options = self.options
        return schedule.make(options.format, self.built, self.staff, options.seed,
                             self.sizes, self.pairs, options.games_per_match, self.rounds,
                             self.played)

    def write_end(self, director: Director, interrupted: bool) -> None:
        options, plan = self.options, self.plan
        complete = not interrupted and not director.failures and plan is not None and (
            options.shard is not None
            or plan.final and not schedule_todo(plan, self.played, None, self.rules))
        self.final = self.document(complete)
        write_outputs(options, self.final)


def _say_not_refereed(spec: GameSpec, error: BaseException) -> None:
    """Tell that game ``spec`` could not be refereed because of ``error`` (the kit's)."""
    # The error's words may quote an entrant's file names: shown, never obeyed.
    print(f"tournament: game {spec.id} could not be refereed (an error of the "
          f"kit's: {type(error).__name__}: {printable(str(error))}); --resume "
          "plays it",
          file=sys.stderr, flush=True)


def _set_up(held: List[int], make: Callable[[], Director],
            options: argparse.Namespace) -> Director:
    """``make()``, with SIGINT and SIGTERM held (appended to ``held``) until it returns:
    a Ctrl-C as the sandboxes are set up never leaves some of them open; the caller
    acts on it once the director exists (and so can close them)."""
    try:
        with hold_signals(held):
            return make()
    except IsolationError as error:
        raise UsageError(f"--isolation {options.isolation}: {error}") from None


def _close(director: Director) -> None:
    """Close ``director`` on the way out of an error, not cut short by a Ctrl-C."""
    with hold_signals([]):
        director.close()


def _check_same(header: Dict[str, Any], entrants: Iterable[Entrant], earlier: Dict[str, Any],
                what: str) -> None:
    """Raise UsageError naming why ``earlier`` is not this tournament, if it is not."""
    mine = dict(header, entrants=[{"name": e.name, "path": e.path, "staff": e.staff}
                                  for e in entrants])
    try:
        results.check_same_tournament(mine, earlier, what)
    except results.ResultsError as error:
        raise UsageError(str(error)) from None


# --- merge -------------------------------------------------------------------------------

def run_merge(options: argparse.Namespace) -> int:
    if not options.json:
        raise UsageError("merge needs --json FILE (the merged results)")
    check_output_folders(options)
    documents = [_load(path) for path in options.shards]
    try:
        merged = results.merge(documents, options.shards)
    except results.ResultsError as error:
        raise UsageError(str(error)) from None
    write_outputs(options, merged)
    if not options.quiet:
        print(standings_text(merged))
    return 0


# --- sprt --------------------------------------------------------------------------------

def run_sprt(options: argparse.Namespace) -> int:
    terminate_as_interrupt()
    rules = rules_for(options.game)
    check_output_folders(options)
    if options.json and os.path.exists(options.json):
        raise UsageError(f"--json {options.json} exists (remove it to test again)")
    try:
        test = Sprt(options.elo0, options.elo1, options.alpha, options.beta)
    except ValueError as error:
        raise UsageError(str(error)) from None
    sizes = _sizes(rules, options.sizes)
    entrants = _resolve(rules, [options.a, options.b], [], distinct=False)
    if len(entrants) != 2:
        raise UsageError("sprt plays two entrants (two folders or players)")
    header = _header(options, rules, sizes, 1, None, "", "sprt")
    match = _SprtMatch(options, rules, entrants, header, test, sizes)
    _, interrupted = match.direct()
    if interrupted:
        print(f"tournament: interrupted after {match.pairs} pairs", file=sys.stderr)
        return 130
    print(match.verdict())
    return 0


class _SprtMatch(_Directed):
    """``tournament sprt``: pairs of games between A and B until the test decides (or
    --max-pairs). The test reads the pairs in order, whatever finished first."""

    def __init__(self, options: argparse.Namespace, rules: Rules, entrants: List[Entrant],
                 header: Dict[str, Any], test: Sprt, sizes: List[Any]) -> None:
        super().__init__(options, rules, entrants, header)
        self.test, self.sizes = test, sizes
        self.a, self.b = entrants[0].name, entrants[1].name
        self.builds: Dict[str, Optional[str]] = {}  # (none yet when Ctrl-C stops the builds)
        self.pairs = 0                              # pairs read by the test
        self.decision: Optional[str] = None         # None, "H0" or "H1"
        self.llr = 0.0

    def summary(self) -> Dict[str, Any]:
        test = self.test
        return {"a": self.a, "b": self.b, "elo0": test.elo0, "elo1": test.elo1,
                "alpha": test.alpha, "beta": test.beta, "llr": round(self.llr, 4),
                "lower": test.lower, "upper": test.upper, "decision": self.decision,
                "pairs": self.pairs}

    def play(self, director: Director) -> None:
        options, test = self.options, self.test
        say(options, f"{self.rules.title} SPRT {printable(self.a)} vs {printable(self.b)}: "
                     f"H0 {test.elo0:+g} Elo, H1 {test.elo1:+g} Elo, alpha {test.alpha:g}, "
                     f"beta {test.beta:g}, bounds [{test.lower:.2f}, {test.upper:.2f}]; "
                     f"sandbox {director.isolation}")
        self.builds = director.build()
        failed = [(name, error) for name, error in self.builds.items() if error]
        if failed:
            name, why = failed[0]
            raise UsageError(f"{printable(name)} did not build: "
                             f"{printable(why.split(chr(10), 1)[0])}")
        pairs = iter(range(options.max_pairs))

        def next_specs() -> Iterator[GameSpec]:
            for k in pairs:
                yield from schedule.sprt_pair(k, self.sizes, self.a, self.b)

        director.play_stream(next_specs(), lambda record: self._on_game(director, record))

    def _on_game(self, director: Director, record: Dict[str, Any]) -> None:
        """Keep a finished game; when it completes the next pair in order, update the
        test, say where it stands, save the results, and stop once it decides."""
        self.played[record["id"]] = record
        counts = _prefix_counts(self.played, self.a)
        done = sum(counts)
        if done == self.pairs:
            return
        test = self.test
        self.pairs = done
        self.llr = test.llr(counts)
        self.decision = test.decision(counts)
        played = self.played.values()
        wins = sum(1 for r in played if (r["result"] == "x") == (r["x"] == self.a)
                   and r["result"] != "draw")
        draws = sum(1 for r in played if r["result"] == "draw")
        losses = len(self.played) - wins - draws
        say(self.options, f"pair {done}: {printable(self.a)} {wins}-{draws}-{losses} "
                          f"(W-D-L), pentanomial {counts}, LLR {self.llr:.2f} "
                          f"[{test.lower:.2f}, {test.upper:.2f}]")
        if self.options.json:
            results.save(self.options.json, results.assemble(
                self.header, self.dicts, self.builds, list(played), False, self.summary()))
        if self.decision is not None:
            director.finish()

    def write_end(self, director: Director, interrupted: bool) -> None:
        document = results.assemble(self.header, self.dicts, self.builds,
                                    list(self.played.values()), self.decision is not None,
                                    self.summary())
        write_outputs(self.options, document)

    def verdict(self) -> str:
        """The test's conclusion, its LLR and the Elo estimate of A against B."""
        test = self.test
        a, b = printable(self.a), printable(self.b)
        if self.decision == "H1":
            verdict = (f"H1 accepted: {a} is stronger than {b} by about {test.elo1:g} Elo "
                       "or more")
        elif self.decision == "H0":
            verdict = f"H0 accepted: {a} is not {test.elo1:g} Elo stronger than {b}"
        else:
            verdict = f"no decision after {self.pairs} pairs (--max-pairs)"
        # Counted under the entrant's own name: the records hold it unescaped.
        elo, low, high = elo_estimate(_prefix_counts(self.played, self.a))
        return (f"{verdict}; LLR {self.llr:.2f} [{test.lower:.2f}, {test.upper:.2f}] after "
                f"{self.pairs} pairs; Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}]")


def _prefix_counts(played: Dict[int, Dict[str, Any]], a: str) -> List[int]:
    """Pentanomial counts of ``a`` over the pairs 1, 2, ... that are complete, up to the
    first that is not (so that the test reads pairs in order, whatever finished first)."""
    counts = [0] * 5
    pair = 1
    while True:
        found = [played.get(2 * pair - 1), played.get(2 * pair)]
        games = [record for record in found if record is not None]
        if len(games) < len(found):
            return counts
        got = 0.0
        for record in games:
            if record["result"] == "draw":
                got += 0.5
            elif (record["result"] == "x") == (record["x"] == a):
                got += 1.0
        counts[int(got * 2)] += 1
        pair += 1


def help_text() -> str:
    """``--help``: the module docstring, then each game of the registry with its
    entry points, our players and its default sizes (its rules' facts)."""
    lines = [(__doc__ or "").rstrip("\n"), "", "Games:"]
    for name, rules in GAMES.items():
        lines.append(textwrap.fill(
            f"{name} ({rules.title}): entry points {', '.join(rules.entry_points)}; "
            f"ours: {', '.join(rules.ours) or 'none'}; --sizes {rules.default_sizes}",
            width=88, initial_indent="  ", subsequent_indent="      ",
            break_on_hyphens=False))
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    argv = sys.argv[1:] if argv is None else argv
    return run_program(NAME, escaping_usage_errors(_main), argv, help_text=help_text())


def _main(argv: List[str]) -> int:
    options = parser().parse_args(argv)
    if options.command == "run":
        return run_tournament(options)
    if options.command == "merge":
        return run_merge(options)
    if options.command == "sprt":
        return run_sprt(options)
    raise UsageError("give a command: run, merge or sprt (see --help)")
