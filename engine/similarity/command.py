"""``python3 -m engine grade similar``: the command line of the similarity report.

  python3 -m engine grade similar PROGRAM CLASS [--base HANDOUT]... [--prior DIR]...
          [--top N] [--json FILE] [--csv FILE] [--html FILE] [--results RESULTS.json]
          [--layout ...] [--jobs N] [--threshold SCORE] [--common SHARE] [--quiet]

CLASS is read as ``grade run`` reads it (one folder per student, or an LMS export:
``--layout``); every entry is compared or listed with the reason it is not. The best
pairs are printed, and written as JSON, CSV and a self-contained HTML page when asked.
Bad usage is one line on stderr and exit code 2, before any file is written.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from ..commandline import write_atomically
from ..errors import UsageError
from ..grading import layouts
from ..grading import results as grading_results
from ..grading.printable import printable
from . import report as report_module
from . import report_html
from .behaviour import Behaviour, read_behaviour
from .clusters import THRESHOLD
from .compare import Comparison, Entry, Settings, compare
from .corpus import COMMON_SHARE, base_hashes

# A run shows its progress on stderr once it has taken this long, then this often.
PROGRESS_AFTER = 2.0
PROGRESS_EVERY = 5.0
OUTPUTS = ("json", "csv", "html")


def add_parser(commands: Any, programs: Sequence[str],
               positive_int: Callable[[str], int]) -> argparse.ArgumentParser:
    """Add ``similar`` to the kit's subcommands (``commands``, argparse's subparsers)."""
    similar = commands.add_parser("similar", help="similarity report across a class")
    similar.add_argument("program", choices=programs)
    similar.add_argument("klass", metavar="CLASS",
                         help="the class folder (or LMS export), read as grade run reads it")
    similar.add_argument("--base", action="append", default=[], metavar="HANDOUT",
                         help="handout code (a file or folder) given to every student: "
                              "its code never makes two students similar")
    similar.add_argument("--prior", action="append", default=[], metavar="DIR",
                         help="a prior term's class folder, or known solutions: this "
                              "term is compared against it, never it against itself")
    similar.add_argument("--top", type=positive_int, default=Settings().top,
                         help="pairs reported (default 25)")
    similar.add_argument("--json", metavar="FILE", help="the report as JSON")
    similar.add_argument("--csv", metavar="FILE", help="the reported pairs as CSV")
    similar.add_argument("--html", metavar="FILE", help="a self-contained HTML page")
    similar.add_argument("--results", metavar="RESULTS.json",
                         help="grade run --json of the same class: mark pairs that fail "
                              "the same cases with the same wrong bytes")
    similar.add_argument("--layout", choices=layouts.LAYOUTS, default="auto",
                         help="how the class folder is laid out (default auto), as grade run")
    similar.add_argument("--jobs", type=positive_int, default=1,
                         help="processes reading the submissions (default 1)")
    similar.add_argument("--threshold", type=_share, default=THRESHOLD,
                         help=f"the score that joins two entries in a cluster "
                              f"(default {THRESHOLD})")
    similar.add_argument("--common", type=_share, default=COMMON_SHARE, metavar="SHARE",
                         help="ignore fingerprints found in more than this share of the "
                              f"class (default {COMMON_SHARE}; never 10 entries or fewer)")
    similar.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return similar


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1: {text!r}")
    return value


def run(options: argparse.Namespace) -> int:
    """Run ``grade similar`` with parsed ``options`` (``options.assignment`` resolved
    by the kit's command line); the exit code."""
    _check_paths(options)
    results_document = _load_results(options)
    settings = Settings(common_share=options.common, threshold=options.threshold,
                        top=options.top, jobs=options.jobs)
    base, base_files = base_hashes(options.base, settings.k)
    if options.base and not base_files:
        raise UsageError(f"--base {options.base[0]}: no source file to remove "
                         "(.py, .c, .cpp, .java, Makefile)")
    staging = tempfile.mkdtemp(prefix="similar-staging-")
    try:
        entries = _entries(options, staging)
        progress = Progress(enabled=not options.quiet)
        comparison = compare(entries, settings, base, base_files, progress)
        progress.finish()
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    behaviour = None
    if results_document is not None:
        behaviour = _behaviour(results_document, options, comparison)
    document = report_module.document(comparison, options.assignment.name, behaviour,
                                      options.results)
    _write_outputs(options, comparison, document)
    print_summary(document, sys.stdout)
    return 0


def _check_paths(options: argparse.Namespace) -> None:
    """Every path named exists, every output's folder is writable: refused before any
    work (one line, exit 2)."""
    if not os.path.exists(options.klass):
        raise UsageError(f"{options.klass}: no such class folder")
    for flag, paths in (("--base", options.base), ("--prior", options.prior)):
        for path in paths:
            if not os.path.exists(path):
                raise UsageError(f"{flag} {path}: no such file or folder")
    for path in options.prior:
        if not os.path.isdir(path):
            raise UsageError(f"--prior {path}: not a folder")
    if options.results and not os.path.isfile(options.results):
        raise UsageError(f"--results {options.results}: no such file")
    for option in OUTPUTS:
        path = getattr(options, option)
        if not path:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise UsageError(f"--{option} {path}: no folder {folder}")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UsageError(f"--{option} {path}: the folder {folder} is not writable")
        if os.path.isdir(path):
            raise UsageError(f"--{option} {path} is a folder, not a file")


def _load_results(options: argparse.Namespace) -> Optional[Dict[str, Any]]:
    if not options.results:
        return None
    try:
        document = grading_results.load(options.results)
    except ValueError as error:
        raise UsageError(f"--results: {error}") from None
    if document.get("program") != options.assignment.name:
        raise UsageError(f"--results {options.results} holds results of "
                         f"{document.get('program')!r}, not {options.assignment.name!r}")
    return document


def _entries(options: argparse.Namespace, staging: str) -> List[Entry]:
    """This term's rows, then each prior folder's (read with the same layouts)."""
    found = _rows(options.assignment, options.klass, options.layout, staging, "class")
    if not found:
        raise UsageError(f"{options.klass}: no submission in it")
    for number, path in enumerate(options.prior):
        folder = os.path.join(staging, f"prior-{number}")
        os.mkdir(folder, 0o700)
        found.extend(_rows(options.assignment, path, "auto", folder, "prior"))
    compared = [entry for entry in found if entry.folder is not None]
    if sum(1 for entry in compared if entry.term == "class") + bool(options.prior) < 2 \
            or not any(entry.term == "class" for entry in compared):
        raise UsageError(f"{options.klass}: fewer than two submissions to compare (read "
                         "as one submission? --layout folders reads one per folder; "
                         "--prior DIR compares it with a prior term)")
    return found


def _rows(assignment: Any, path: str, layout: str, staging: str, term: str
          ) -> List[Entry]:
    try:
        _, students = layouts.read_paths(assignment, [path], layout, staging)
    except ValueError as error:
        raise UsageError(str(error)) from None
    prefix = os.path.normpath(path) + os.sep
    return [Entry(student.label, _within(student.label, prefix), term, student.folder,
                  student.reason) for student in students]


def _within(label: str, prefix: str) -> str:
    normal = os.path.normpath(label)
    return normal[len(prefix):] if normal.startswith(prefix) else os.path.basename(normal)


def _behaviour(document: Dict[str, Any], options: argparse.Namespace,
               comparison: Comparison) -> Behaviour:
    here = [entry for entry in comparison.entries if entry.term == "class"]
    try:
        return read_behaviour(document, [entry.name for entry in here],
                              [entry.within for entry in here],
                              options.assignment.visited_arg is not None)
    except ValueError as error:
        raise UsageError(f"--results {options.results}: {error}") from None


def _write_outputs(options: argparse.Namespace, comparison: Comparison,
                   document: Dict[str, Any]) -> None:
    if options.json:
        write_atomically(options.json, report_module.json_text(document))
    if options.csv:
        write_atomically(options.csv, report_module.csv_text(document))
    if options.html:
        texts = _texts(comparison)
        page = report_html.render(document, lambda name, file: texts.get((name, file)),
                                  f"{options.assignment.name}, {options.klass}")
        write_atomically(options.html, page)


def _texts(comparison: Comparison) -> Dict[Tuple[str, str], str]:
    """{(entry name, file name): text} of the entries of the reported pairs."""
    wanted = {index for pair in comparison.reported for index in (pair.a, pair.b)}
    found = {}
    for index in wanted:
        printed = comparison.printed[index]
        for source in printed.files if printed else []:
            found[(comparison.entries[index].name, source.name)] = source.text
    return found


def print_summary(document: Dict[str, Any], out: TextIO) -> None:
    """The report in a few lines: counts, the reported pairs, the clusters, the entries
    not compared and the notes on those compared (every name
    :func:`~engine.grading.printable.printable`)."""
    summary = document["summary"]
    prior = f" and {summary['prior']} prior" if summary["prior"] else ""
    out.write(f"similar: {summary['compared']} of {summary['entries']} entries "
              f"compared{prior}; {summary['pairs_sharing']} pairs share "
              f"{document['parameters']['min_shared']} fingerprints or more\n")
    for pair in document["pairs"]:
        same = pair.get("behaviour")
        mark = (f"; same wrong output in {len(same)} case" + "s" * (len(same) > 1)
                if same else "")
        prior_mark = " (prior)" if pair["prior"] else ""
        out.write(f"{pair['rank']:>3}  {pair['score']:.2f}  {printable(pair['a'])}  "
                  f"{printable(pair['b'])}{prior_mark}  ({pair['a_share']:.0%} / "
                  f"{pair['b_share']:.0%}, {len(pair['regions'])} regions{mark})\n")
    for cluster in document["clusters"]:
        out.write(f"cluster {cluster['number']}: "
                  + ", ".join(printable(name) for name in cluster["members"]) + "\n")
    for entry in document["entries"]:
        if not entry["compared"]:
            out.write(f"not compared: {printable(entry['name'])}: "
                      f"{printable(entry['reason'])}\n")
        for note in entry["notes"]:
            out.write(f"note: {printable(entry['name'])}: {printable(note)}\n")


class Progress:
    """Progress on stderr for long runs: nothing for the first :data:`PROGRESS_AFTER`
    seconds, then a line (redrawn on a terminal) every :data:`PROGRESS_EVERY`."""

    def __init__(self, stream: Optional[TextIO] = None, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = self.start + PROGRESS_AFTER - PROGRESS_EVERY
        self.shown = False
        self.tty = self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        self.shown = True
        end = "\r" if self.tty else "\n"
        self.stream.write(f"similar: {done}/{total} submissions read, "
                          f"{now - self.start:.0f} s{end}")
        self.stream.flush()

    def finish(self) -> None:
        """A last line when any was shown."""
        if self.shown:
            text = f"similar: every submission read in {time.monotonic() - self.start:.1f} s"
            # On a terminal it overwrites the last progress line, which may be longer.
            self.stream.write(text.ljust(60) + "\n" if self.tty else text + "\n")
            self.stream.flush()
