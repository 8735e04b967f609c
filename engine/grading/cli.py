"""python3 -m engine grade cases|run|merge|similar|autograder: the grading kit (docs/grading.md).

  python3 -m engine grade cases PROGRAM --count K [--seed S] --out DIR [--exclude DIR]
  python3 -m engine grade run PROGRAM SUBMISSION... [--cases DIR | --count K --seed S]
          [--command CMD] [--jobs J] [--timeout SEC] [--memory MB] [--json FILE]
          [--gradescope FILE] [--csv FILE] [--report FILE.html] [--shard I/K] [--resume]
          [--lenient] [--isolation auto|bwrap|rlimits] [--prairielearn FILE]
          [--layout auto|single|folders|canvas|blackboard|moodle|gradescope|classroom]
  python3 -m engine grade merge SHARD.json... --json FILE [--csv FILE] [--report FILE]
          [--gradescope FILE] [--prairielearn FILE]
  python3 -m engine grade autograder PROGRAM --cases DIR [--hidden DIR] [--out FILE.zip]
          [--languages python,java,cpp] [--timeout SEC] [--memory MB] [--leaderboard]
  python3 -m engine grade similar PROGRAM CLASS [--base HANDOUT] [--prior DIR] [--top N]
          [--json FILE] [--csv FILE] [--html FILE] [--results RESULTS.json] [--jobs N]
          (docs/similarity.md)

PROGRAM is tictactoe, tmmorris, take_stones or stake_raid. A SUBMISSION is a folder, or a
class folder (one folder per student, or an LMS export: --layout), every entry of which is
graded or listed with the reason. `grade run` builds each submission once,
runs every case in a sandbox, prints a summary (and, for a single submission, why each
failed case failed; how to read it: docs/failures.md) and writes the requested files.
`grade autograder` makes a Gradescope autograder zip (visible and hidden cases; its
run_autograder calls `grade gradescope-run`).
Exit code 0 when it graded (whatever the scores), 2 on bad usage, 130 when interrupted
(what finished is kept).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import (Any, Callable, Dict, Iterable, List, Optional, Sequence, TextIO, Tuple,
                    Union)

from .. import registry
from ..commandline import (argument_parser, parse_positive_int, run_program,
                           shadowing_engine as _shadowing, terminate_as_interrupt,
                           write_atomically)
from ..errors import UsageError
from ..similarity import command as similarity_command
from . import autograder, exports, layouts, report_html, results as results_module
from .case import Case
from .detect import detect
from .generate import PROGRAMS, case_key, generate_cases, write_cases
from .judges import load as load_assignment
from .runner import (Runner, expected_cost, find_submissions, gradable, load_cases, shard)
from .printable import escaping_usage_errors, printable
from ..sandbox import IsolationError, Limits, exposure, parse_isolation
from .workers import hold_signals

NAME = "grade"


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        return parse_positive_int(text, "the value")
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def isolation_option(text: str) -> str:
    try:
        parse_isolation(text)
    except IsolationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def shard_option(text: str) -> Tuple[int, int]:
    parts = text.split("/")
    try:
        index, count = (int(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard must look like 2/8, not {text!r}") from None
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"--shard {text}: need 1 <= I <= K")
    return index, count


def parser() -> argparse.ArgumentParser:
    top = argument_parser(prog="python3 -m engine grade",
                          description=(__doc__ or "").split("\n")[0])
    commands = top.add_subparsers(dest="command",
                                  metavar="cases|run|merge|similar|autograder")
    _add_cases_command(commands)
    _add_run_command(commands)
    merge = commands.add_parser("merge", help="join the JSON results of shards")
    merge.add_argument("shards", nargs="+", metavar="SHARD.json")
    _output_options(merge)
    _add_autograder_commands(commands)
    similarity_command.add_parser(commands, PROGRAMS, _positive_int)
    return top


def _add_cases_command(commands: Any) -> None:
    """``grade cases``: generated cases with their expected outputs."""
    cases = commands.add_parser("cases", help="write generated cases with expected outputs")
    cases.add_argument("program", choices=PROGRAMS)
    cases.add_argument("--count", type=_positive_int, required=True)
    cases.add_argument("--seed", type=int, default=1, help="seed (1, as grade run)")
    cases.add_argument("--out", required=True, help="folder to write the case folders into")
    cases.add_argument("--exclude", action="append", default=[], metavar="DIR",
                       help="cases (a folder of them) none of the new ones may equal: "
                            "make a hidden set with --exclude VISIBLE")


def _add_run_command(commands: Any) -> None:
    """``grade run``: grade submissions."""
    run = commands.add_parser("run", help="grade submissions")
    run.add_argument("program", choices=PROGRAMS)
    run.add_argument("submissions", nargs="+", metavar="SUBMISSION")
    run.add_argument("--cases", help="folder of cases (case layout); default: generated")
    run.add_argument("--count", type=_positive_int, default=None,
                     help="generated cases (default 50)")
    run.add_argument("--seed", type=int, default=None, help="seed of generated cases (1)")
    run.add_argument("--command", dest="run_command", metavar="CMD",
                     help="run every submission with CMD ({args} = the case's arguments)")
    run.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1)
    run.add_argument("--timeout", type=_positive_number, default=10.0,
                     help="CPU seconds per case (default 10; the wall clock allows "
                          "twice that plus 2 s)")
    run.add_argument("--memory", type=_positive_int, default=1024,
                     help="MB of memory per case (default 1024)")
    run.add_argument("--output-limit", type=_positive_int, default=16,
                     help="MB of stdout+stderr per case (default 16)")
    run.add_argument("--build-timeout", type=_positive_number, default=120.0)
    run.add_argument("--isolation", type=isolation_option, default="auto",
                     metavar="auto|bwrap|landlock|rlimits[+cgroup][+uid][+seccomp]",
                     help="the fences to insist on (default auto: bwrap, else Landlock; "
                          "cgroups, a uid per run and seccomp wherever they can run)")
    run.add_argument("--layout", choices=layouts.LAYOUTS, default="auto",
                     help="how a class folder is laid out (default auto: recognised): "
                          "single, folders (one per student), canvas, blackboard, moodle, "
                          "gradescope (Export Submissions), classroom (GitHub Classroom)")
    run.add_argument("--descend", action="store_true",
                     help="grade a folder that holds no submission but exactly one "
                          "subfolder that does (alice/hw1) as that subfolder")
    run.add_argument("--lenient", action="store_true",
                     help="ignore trailing blanks, a missing final newline and extra "
                          "blank lines at the end")
    run.add_argument("--shard", type=shard_option, metavar="I/K",
                     help="grade only the I-th of K slices of the sorted submissions")
    run.add_argument("--resume", action="store_true",
                     help="skip cases already in the --json file")
    _output_options(run)
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _add_autograder_commands(commands: Any) -> None:
    """``grade autograder`` (the Gradescope bundle) and ``grade gradescope-run`` (what
    the bundle runs there)."""
    bundle = commands.add_parser("autograder", help="make a Gradescope autograder zip")
    bundle.add_argument("program", choices=PROGRAMS)
    bundle.add_argument("--cases", required=True, help="the cases students see")
    bundle.add_argument("--hidden", help="cases shown only once grades are published")
    bundle.add_argument("--out", default="autograder.zip", help="the zip (autograder.zip)")
    bundle.add_argument("--languages", default="python,java,cpp",
                        help="what submissions may be written in: what setup.sh installs "
                             "(default python,java,cpp)")
    bundle.add_argument("--timeout", type=_positive_number, default=10.0,
                        help="CPU seconds per case (default 10)")
    bundle.add_argument("--memory", type=_positive_int, default=768,
                        help="MB of memory per case (default 768, Gradescope's default)")
    bundle.add_argument("--leaderboard", action="store_true",
                        help="a short gauntlet against our agents, on Gradescope's "
                             "leaderboard (" + ", ".join(
                                 entry.name for entry in registry.with_leaderboard()) + ")")

    inside = commands.add_parser("gradescope-run",
                                 help="what the bundle's run_autograder runs on Gradescope")
    inside.add_argument("--root", default=os.environ.get(autograder.ROOT_VARIABLE)
                        or autograder.DEFAULT_ROOT, help="the autograder's root "
                        "(default $AUTOGRADER_ROOT, else /autograder)")


def _output_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--json", metavar="FILE", help="results as JSON")
    command.add_argument("--csv", metavar="FILE", help="gradebook, one row per submission")
    command.add_argument("--gradescope", metavar="FILE",
                         help="Gradescope results.json (a folder of them for several)")
    command.add_argument("--report", metavar="FILE.html", help="self-contained HTML report")
    command.add_argument("--prairielearn", metavar="FILE",
                         help="PrairieLearn external-grader results.json (a folder of them "
                              "for several)")


class Progress:
    """Progress on stderr: a redrawn bar with the ETA on a terminal, else a line every
    ``every`` seconds (and at the end).

    The ETA charges each submission's cases still to run at that submission's own mean
    wall time per finished case, so a submission whose runs hit their limits (a CPU
    limit of 10 s, a sleeper's wall cap) is charged its limits for the rest of its cases;
    a submission with no finished case yet is charged the median of those means (a
    typical submission). To that comes the kit's own time per case (slot time not spent
    in runs: builds, set-up, reading back); the sum is spread over the slots.
    :meth:`plan` says what is to run, :meth:`case_done` tells each finished case.
    """

    def __init__(self, stream: Optional[TextIO] = None, enabled: bool = True,
                 clock: Callable[[], float] = time.monotonic, every: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.clock = clock
        self.every = every
        self.start = clock()
        self.last = -float("inf")
        self.shown = 0              # the longest line drawn so far on a terminal
        self.slots = 1
        self.planned: Dict[str, int] = {}             # submission -> cases to run
        self.finished: Dict[str, List[float]] = {}    # submission -> [cases, seconds]
        self.lock = threading.Lock()

    def plan(self, cases: Dict[str, int], slots: int) -> None:
        """``cases``: {submission: number of its cases this run will grade}; ``slots``:
        how many run at once."""
        self.planned = dict(cases)
        self.slots = max(1, slots)

    def case_done(self, submission: str, record: Dict[str, Any]) -> None:
        """A finished case of ``submission`` (its JSON record: ``seconds`` of wall time)."""
        with self.lock:
            tally = self.finished.setdefault(submission, [0, 0.0])
            tally[0] += 1
            tally[1] += float(record.get("seconds") or 0.0)

    def eta(self, done: int, total: int) -> float:
        """Seconds still to go (see the class docstring); the mean rate so far when no
        case was told to :meth:`case_done`."""
        elapsed = self.clock() - self.start
        with self.lock:
            tallies = {name: tuple(tally) for name, tally in self.finished.items()}
        counted = sum(int(cases) for cases, _ in tallies.values())
        if not counted:
            return elapsed / done * (total - done) if done else 0.0
        means = sorted(seconds / cases for cases, seconds in tallies.values())
        typical = statistics.median(means)
        in_runs = sum(seconds for _, seconds in tallies.values())
        own = max(0.0, elapsed * self.slots - in_runs) / counted
        work = 0.0
        for name, cases in self.planned.items():
            ran, seconds = tallies.get(name, (0, 0.0))
            mean = seconds / ran if ran else typical
            work += max(0, cases - int(ran)) * (mean + own)
        return work / self.slots

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        now = self.clock()
        if done < total and now - self.last < (0.2 if self.tty else self.every):
            return
        self.last = now
        elapsed = now - self.start
        eta = self.eta(done, total)
        if self.tty:
            width = 30
            filled = int(width * done / total)
            line = (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} cases, "
                    f"{elapsed:.0f} s, ETA {eta:.0f} s")
            # Blanks over what a longer earlier line left (ETA 162 s, then ETA 16 s).
            self.stream.write("\r" + line.ljust(self.shown))
            self.shown = max(self.shown, len(line))
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
        else:
            self.stream.write(f"grade: {done}/{total} cases, {elapsed:.0f} s, "
                              f"ETA {eta:.0f} s\n")
            self.stream.flush()


class ObservedResults(results_module.Results):
    """:class:`engine.grading.results.Results` that also tells ``progress`` of every
    case as it is recorded (the runner reports only how many are done)."""

    progress: Optional[Progress] = None

    def add_case(self, submission: str, record: Dict[str, Any]) -> None:
        super().add_case(submission, record)
        if self.progress is not None:
            self.progress.case_done(submission, record)


def write_outputs(options: argparse.Namespace, document: Dict[str, Any]) -> None:
    """Write the files the options ask for from a results document."""
    if options.json:
        write_atomically(options.json, _json_text(document))
    if options.csv:
        write_atomically(options.csv, exports.csv_text(document))
    if options.report:
        steps = write_step_pages(options.report, document)
        write_atomically(options.report, report_html.render(document, steps))
    if getattr(options, "prairielearn", None):
        _write_per_submission(options.prairielearn, document, exports.prairielearn)
    if options.gradescope:
        entries = document["submissions"]
        if len(entries) == 1:
            write_atomically(options.gradescope,
                             _json_text(exports.gradescope(document, entries[0])))
        else:
            # Gradescope grades one student per results.json: one file per submission,
            # named by its folder within the class folder (alice.json, alice_hw1.json).
            os.makedirs(options.gradescope, exist_ok=True)
            names = gradescope_names([entry["submission"] for entry in entries])
            for entry, name in zip(entries, names):
                write_atomically(os.path.join(options.gradescope, f"{name}.json"),
                                 _json_text(exports.gradescope(document, entry)))


# The report draws at most this many stepping pages (each is a search run again).
STEP_PAGES = 100


def write_step_pages(report: str, document: Dict[str, Any]) -> Dict[Tuple[str, str], str]:
    """The stepping pages of the report's trace-diagnosed failures, in a folder beside
    it (``report.html`` -> ``report.steps/``): our search with the student's visited
    file laid over it. Returns {(submission, case): address relative to the report}.
    Made by ``python3 -m engine picture`` (the kit imports no program); a page that
    cannot be made is left out (its command stays in the report)."""
    wanted = [(entry["submission"], case) for entry in document["submissions"]
              for case in entry["cases"]
              if not case["passed"] and case.get("trace") is not None
              and case.get("stepper_args")][:STEP_PAGES]
    if not wanted:
        return {}
    base = os.path.splitext(os.path.basename(report))[0] + ".steps"
    folder = os.path.join(os.path.dirname(os.path.abspath(report)), base)
    os.makedirs(folder, exist_ok=True)
    package_parent = str(Path(__file__).resolve().parent.parent.parent)
    environment = dict(os.environ, PYTHONPATH=package_parent)
    pages = {}
    with tempfile.TemporaryDirectory() as scratch:
        for number, (submission, case) in enumerate(wanted, 1):
            trace = os.path.join(scratch, "visited.txt")
            with open(trace, "w", encoding="utf-8") as handle:
                handle.write(case["trace"])
            name = f"{number:03d}.html"
            done = subprocess.run(
                [sys.executable, "-m", "engine", "picture", *case["stepper_args"],
                 "--against", trace, "--html", os.path.join(folder, name)],
                env=environment, capture_output=True, timeout=600, cwd=scratch)
            if done.returncode == 0:
                pages[(submission, case["case"])] = f"{base}/{name}"
    return pages


def _write_per_submission(path: str, document: Dict[str, Any],
                          export: Callable[[Dict[str, Any], Dict[str, Any]], Dict[str, Any]]
                          ) -> None:
    """One file for one submission; a folder of files named by submission for several."""
    entries = document["submissions"]
    if len(entries) == 1:
        write_atomically(path, _json_text(export(document, entries[0])))
        return
    os.makedirs(path, exist_ok=True)
    names = gradescope_names([entry["submission"] for entry in entries])
    for entry, name in zip(entries, names):
        write_atomically(os.path.join(path, f"{name}.json"), _json_text(export(document, entry)))


def gradescope_names(submissions: Sequence[str]) -> List[str]:
    """File names (without .json) for the Gradescope files of ``submissions``: each
    folder's path relative to the folder they all sit in, with ``_`` for ``/``."""
    paths = [os.path.abspath(path) for path in submissions]
    parents = [os.path.dirname(path) for path in paths]
    common = os.path.commonpath(parents) if parents else ""
    names = []
    for path in paths:
        relative = os.path.relpath(path, common) if common else path
        name = relative.strip("/").replace("/", "_").replace(os.sep, "_")
        names.append(name if name not in ("", ".", "..") else "submission")
    return names


def _json_text(document: Dict[str, Any]) -> str:
    import json
    return json.dumps(document, indent=1) + "\n"


def run_cases(options: argparse.Namespace) -> int:
    exclude = []
    for folder in options.exclude:
        try:
            exclude.extend(load_cases(folder))
        except (OSError, ValueError) as error:
            raise UsageError(f"--exclude {folder}: {error}") from None
    try:
        cases = generate_cases(options.assignment, options.count, options.seed,
                               exclude=exclude)
    except NotImplementedError as error:
        raise UsageError(f"cannot generate cases: {error}") from None
    write_cases(cases, options.out)
    print(f"wrote {len(cases)} cases into {options.out}")
    return 0


def _cases_for(options: argparse.Namespace) -> List[Case]:
    if options.cases:
        if options.count is not None or options.seed is not None:
            raise UsageError("give either --cases or --count/--seed, not both")
        try:
            cases = load_cases(options.cases)
        except (OSError, ValueError) as error:
            raise UsageError(f"--cases {options.cases}: {error}") from None
        cases, skipped = gradable(options.assignment, cases)
        if skipped:
            print(f"grade: skipped {len(skipped)} case(s) that do not run "
                  f"{options.assignment.script} without stdin: "
                  + ", ".join(printable(case.name) for case in skipped), file=sys.stderr)
        if not cases:
            raise UsageError(f"--cases {options.cases}: no case runs "
                             f"{options.assignment.script}")
        return cases
    try:
        return generate_cases(options.assignment, options.count or 50,
                              1 if options.seed is None else options.seed)
    except NotImplementedError as error:
        raise UsageError(f"cannot generate cases ({error}); give --cases DIR") from None


def check_output_folders(options: argparse.Namespace) -> None:
    """Refuse, before any grading, an output whose folder does not exist (rather than
    failing after every case was graded)."""
    for option in ("json", "csv", "report", "gradescope", "prairielearn"):
        path = getattr(options, option, None)
        if path:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise UsageError(f"--{option} {path}: no folder {folder}")
            if not os.access(folder, os.W_OK | os.X_OK):
                raise UsageError(f"--{option} {path}: the folder {folder} is not writable")
            if os.path.isdir(path) and option not in ("gradescope", "prairielearn"):
                raise UsageError(f"--{option} {path} is a folder, not a file")


def run_grading(options: argparse.Namespace) -> int:
    terminate_as_interrupt()
    if options.resume and not options.json:
        raise UsageError("--resume needs --json FILE (the results to resume)")
    check_output_folders(options)
    missing = [path for path in options.submissions if not os.path.exists(path)]
    if missing:
        # Most likely a typo: grading it would "run" and exit 0 with a zero score.
        raise UsageError(f"{missing[0]}: no such submission (no file or folder there)")
    cases = _cases_for(options)
    staging = tempfile.mkdtemp(prefix="grade-staging-")
    try:
        return _grade_students(options, cases, staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _grade_students(options: argparse.Namespace, cases: List[Case], staging: str) -> int:
    """Grade every row of the SUBMISSION paths (:mod:`engine.grading.layouts`)."""
    sources, submissions = _students(options, cases, staging)
    limits = Limits(timeout=options.timeout, memory_mb=options.memory,
                    output_mb=options.output_limit)
    previous = _previous_results(options)
    progress = Progress(enabled=not options.quiet)
    runner_results = _observed_results(options, limits, previous, progress)
    held: List[int] = []
    # Set up whole: a Ctrl-C meanwhile never leaves sandboxes open; it stops the run as
    # it starts.
    with hold_signals(held):
        runner = _set_up_runner(options, cases, runner_results, limits, progress, sources,
                                submissions)
    interrupted = False
    try:
        if held:
            raise KeyboardInterrupt     # (came as the sandboxes were set up)
        runner.run(submissions)         # (closes the runner)
    except KeyboardInterrupt:
        interrupted = True
    # A Ctrl-C now stops nothing more: the outputs are written whole.
    with hold_signals(held):
        runner.close()                  # (when run() did not start)
        document = runner_results.document
        write_outputs(options, document)
        print_summary(document, sys.stdout)
    if interrupted or held:
        print("grade: interrupted; finished cases are kept", file=sys.stderr)
        return 130
    return 0


def _students(options: argparse.Namespace, cases: List[Case], staging: str
              ) -> Tuple[Dict[str, Any], List[str]]:
    """({row label: layouts.Student}, the labels to grade: this shard's with --shard)."""
    try:
        _, students = layouts.read_paths(options.assignment, options.submissions,
                                         options.layout, staging, options.descend)
    except ValueError as error:
        raise UsageError(str(error)) from None
    sources = {student.label: student for student in students}
    submissions = [student.label for student in students]
    if options.shard:
        # options.shard is (index, count): mypy cannot see it ends before ``cost``.
        submissions = shard(submissions, *options.shard, cost=lambda submission:  # type: ignore[misc]
                            expected_cost(options.assignment, sources[submission].folder
                                          or submission, len(cases)))
    return sources, submissions


def _previous_results(options: argparse.Namespace) -> Optional[Dict[str, Any]]:
    """The --json file's document to continue with --resume (None: start afresh);
    UsageError when it cannot be read."""
    if options.resume and os.path.exists(options.json):
        try:
            return results_module.load(options.json)
        except ValueError as error:
            raise UsageError(str(error)) from None
    return None


def _observed_results(options: argparse.Namespace, limits: Limits,
                      previous: Optional[Dict[str, Any]],
                      progress: Progress) -> ObservedResults:
    """The results document the run fills (continuing ``previous``), telling
    ``progress`` of each case; UsageError when ``previous`` cannot be continued."""
    try:
        runner_results = ObservedResults(
            options.assignment.name, options.json, lenient=options.lenient,
            limits=dict(limits._asdict()), previous=previous)
    except ValueError as error:
        raise UsageError(str(error)) from None
    runner_results.progress = progress
    if options.shard:
        runner_results.document["shard"] = "%d/%d" % options.shard
    return runner_results


def _set_up_runner(options: argparse.Namespace, cases: List[Case],
                   runner_results: ObservedResults, limits: Limits, progress: Progress,
                   sources: Dict[str, Any], submissions: List[str]) -> Runner:
    """The Runner (its sandboxes set up), with the isolation, the plan and every row
    recorded and said; UsageError when the isolation asked for cannot run here."""
    hidden = [os.path.realpath(options.cases)] if options.cases else []
    try:
        runner = Runner(options.assignment, cases, runner_results, limits, options.jobs,
                        options.lenient, options.run_command, options.isolation,
                        options.build_timeout, progress, hidden=hidden, sources=sources)
    except IsolationError as error:
        raise UsageError(f"--isolation {options.isolation}: {error}") from None
    runner_results.document["isolation"] = runner.isolation
    runner_results.document["fences"] = list(runner.fences)
    progress.plan({label: sum(1 for case in cases if not runner_results.has_case(
        label, case.name)) for label in submissions}, runner.jobs)
    if not options.quiet:
        print(f"grade: {len(submissions)} submission(s) x {len(cases)} cases, "
              f"{runner.jobs} at a time, isolation {runner.isolation}", file=sys.stderr)
    exposed = exposure(runner.fences)
    if exposed:
        print(f"grade: warning: {exposed}", file=sys.stderr)
    for label in submissions:
        student = sources[label]
        runner_results.add_submission(label)
        if student.source and (student.ids or student.source != os.path.basename(label)):
            runner_results.describe(label, source=student.source, ids=list(student.ids))
    return runner


def print_summary(document: Dict[str, Any], out: TextIO) -> None:
    """The run's summary on ``out``: one line per submission, then (for a single
    submission) every failed case with its diagnosis."""
    entries = document["submissions"]
    lenient = " (lenient comparison)" if document.get("lenient") else ""
    for entry in entries:
        out.write(f"{printable(entry['submission'])}: {entry['score']:g}/"
                  f"{entry['max_score']:g} cases passed, {entry['points']:g}/"
                  f"{entry['max_points']:g} points{lenient}\n")
        if entry.get("build_error"):
            out.write(f"  not graded: {printable(entry['build_error'].split(chr(10))[0])}\n")
        elif len(entries) > 1 and entry["score"] < entry["max_score"]:
            out.write(f"  {printable(exports.failure_summary(entry))}\n")
    if len(entries) == 1:
        for case in entries[0]["cases"]:
            if case["passed"] or entries[0].get("build_error"):
                continue
            out.write(f"\nFAILED {printable(case['case'])}: {printable(case['reason'])}\n")
            if case.get("command"):
                out.write(f"  command: {printable(case['command'])}\n")
            detail = case.get("detail") or ""
            if detail and detail != case["reason"]:
                lines = detail.split("\n")
                for line in lines[:20]:
                    out.write(f"  {printable(line)}\n")
                if len(lines) > 20:
                    out.write(f"  ... ({len(lines) - 20} more lines in the report)\n")
            if case.get("rerun"):
                out.write(f"  rerun it: {printable(case['rerun'])}\n")
            if case.get("stepper"):
                out.write("  watch it step by step (reruns it first): "
                          f"{printable(exports.standalone(case, case['stepper']))}\n")


def run_merge(options: argparse.Namespace) -> int:
    check_output_folders(options)
    documents = []
    for path in options.shards:
        try:
            documents.append(results_module.load(path))
        except ValueError as error:
            raise UsageError(str(error)) from None
    try:
        merged = results_module.merge(documents, options.shards)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not (options.json or options.csv or options.report or options.gradescope
            or options.prairielearn):
        raise UsageError("merge needs --json, --csv, --report, --gradescope or "
                         "--prairielearn")
    write_outputs(options, merged)
    print_summary(merged, sys.stdout)
    return 0


def same_cases(visible: Iterable[Case], hidden: Iterable[Case]) -> List[Tuple[str, str]]:
    """[(hidden name, visible name)] of the hidden cases equal (command and files) to a
    visible one."""
    seen = {case_key(case): case.name for case in visible}
    return [(case.name, seen[case_key(case)]) for case in hidden if case_key(case) in seen]


def run_bundle(options: argparse.Namespace) -> int:
    folder = os.path.dirname(os.path.abspath(options.out))
    if not os.path.isdir(folder):
        raise UsageError(f"--out {options.out}: no folder {folder}")
    if options.hidden:
        try:
            pairs = same_cases(load_cases(options.cases), load_cases(options.hidden))
        except (OSError, ValueError) as error:
            raise UsageError(str(error)) from None
        if pairs:
            # A student would see the answer of a hidden case in its visible twin.
            raise UsageError(
                f"{len(pairs)} hidden case(s) equal visible ones: " + ", ".join(
                    f"{hidden} = {visible}" for hidden, visible in pairs[:5])
                + (", ..." if len(pairs) > 5 else "")
                + f"; make the hidden set with grade cases ... --exclude {options.cases}")
    languages = [word.strip() for word in options.languages.split(",") if word.strip()]
    try:
        visible, hidden = autograder.build_bundle(
            options.assignment.name, options.cases, options.hidden, options.out, languages,
            options.timeout, options.memory, options.leaderboard, load_cases)
    except autograder.BundleError as error:
        raise UsageError(str(error)) from None
    hidden_text = f" and {hidden} hidden" if options.hidden else ""
    print(f"{options.out}: {options.assignment.name}, {visible} visible{hidden_text} cases, "
          f"setup.sh for {', '.join(languages)}"
          + (", a leaderboard" if options.leaderboard else "")
          + "; upload it as the assignment's autograder (Gradescope: Configure Autograder, "
            "zip file upload)")
    return 0


def grade_for_gradescope(program: str, cases: List[Case], submission: Union[str, Path],
                         config: Dict[str, Any]) -> Dict[str, Any]:
    """The results document of the one submission in ``submission`` (a folder Gradescope
    filled; one level down when the student uploaded a folder), graded on ``cases`` for
    the assignment named ``program`` (the bundle's autograder.json)."""
    assignment = load_assignment(program)
    found = [path for path in find_submissions(assignment, [str(submission)], descend=True)
             if detect(assignment, path).kind != "none"]
    submissions = found[:1] or [str(submission)]
    limits = Limits(timeout=float(config.get("timeout", 10.0)),
                    memory_mb=int(config.get("memory", 768)))
    results = results_module.Results(assignment.name, None, limits=dict(limits._asdict()))
    hidden = [str(Path(submission).resolve().parent / "source")]
    try:
        runner = Runner(assignment, cases, results, limits, None, hidden=hidden)
    except IsolationError:
        if os.geteuid() != 0:
            raise          # fail closed: the submission would run as the kit's user
        # No namespaces nor Landlock in this container: the kit (root) still runs every
        # command as a uid of its own (insisted on), and the bundle's files are root's.
        runner = Runner(assignment, cases, results, limits, None, isolation="rlimits+uid",
                        hidden=hidden)
    results.document["isolation"] = runner.isolation
    runner.run(submissions)
    return results.document


def shadowing_engine(pythonpath: Optional[str] = None,
                     loaded: Union[str, Path, None] = None) -> Optional[Tuple[Path, Path]]:
    """:func:`engine.commandline.shadowing_engine`, for the grading kit's package."""
    return _shadowing(pythonpath, loaded or Path(__file__).resolve().parent.parent)


def engine_inside(paths: Iterable[str], loaded: Union[str, Path, None] = None
                  ) -> Optional[str]:
    """The first of ``paths`` (submission folders) that holds the ``engine`` package
    running now, or None. Graded from there on generated cases, a copy of this
    repository in a submission would compute its own expected outputs: a buggy copy
    would pass itself. (Cases from ``--cases`` carry their expected outputs.)"""
    loaded = Path(loaded or Path(__file__).resolve().parent.parent).resolve()
    for path in paths:
        try:
            root = Path(path).resolve()
        except (OSError, RuntimeError):
            continue
        if root == loaded or root in loaded.parents:
            return path
    return None


def run(argv: List[str]) -> int:
    options = parser().parse_args(argv)
    # The assignment is resolved here, once, and passed on (engine.grading.judges).
    program = getattr(options, "program", None)
    options.assignment = load_assignment(program) if program is not None else None
    shadowed = shadowing_engine()
    if shadowed and options.command in ("cases", "run"):
        raise UsageError(f"the engine in {shadowed[0].parent} hides the one PYTHONPATH names "
                         f"({shadowed[1].parent}): python3 -m engine looks in the current "
                         "folder first; run the kit from another folder")
    if options.command == "run" and not options.cases:
        # Generated cases take their expected outputs from the engine running now.
        inside = engine_inside(options.submissions)
        if inside is not None:
            raise UsageError(
                f"the engine running now is the copy inside the submission {inside!r}, so "
                "it would grade itself: run the installed command (game-search grade ...) "
                "or python3 -m engine from the reference's folder")
    if options.command == "cases":
        return run_cases(options)
    if options.command == "run":
        return run_grading(options)
    if options.command == "merge":
        return run_merge(options)
    if options.command == "autograder":
        return run_bundle(options)
    if options.command == "similar":
        return similarity_command.run(options)
    if options.command == "gradescope-run":
        return autograder.gradescope_run(options.root, grade_for_gradescope)
    raise UsageError("give a command: cases, run, merge, similar or autograder (see --help)")


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program(NAME, escaping_usage_errors(run), sys.argv[1:] if argv is None
                       else argv, help_text=__doc__)
