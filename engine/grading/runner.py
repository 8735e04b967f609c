"""Grading submissions: every case of every submission, in parallel, in sandboxes.

:class:`Runner` takes a graded assignment (engine.grading.judges.load, resolved once by
the caller), its cases and the submission folders; it builds each
submission once (:mod:`engine.grading.detect`), runs every case in a fresh folder that
shares the build (:mod:`engine.sandbox`), judges timeouts and limit kills itself,
hands runs that ended by themselves to :func:`engine.grading.diagnose.diagnose`, and scores
each submission with :func:`engine.grading.scoring.score`.

Parallelism: ``jobs`` worker threads, each driving ONE subprocess at a time in its own
sandbox slot, so at most ``jobs`` cases run at once and timings stay comparable. The
work items are first the builds of the submissions that have cases left, then the
(submission, case) pairs in submission order; a case whose build is still running on
another slot waits for it.

Results go to :class:`engine.grading.results.Results`, which writes the JSON file
atomically as cases finish; cases already present there are skipped (``--resume``).

Nothing a submission does stops the others: a failure while building or grading one
case (the kit's own trouble included) becomes that case's verdict, and grading goes on.
What a run left behind is read only after all of its processes are dead, never through
a link, regular files only, within :data:`LEFT_BEHIND` and with a cap per graded file
(twice the expected size plus 1 MB): a bigger one is reported as too large to diagnose.
"""

import itertools
import os
import shlex
import stat
import threading
from pathlib import Path
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple,
                    Union)

from ..commandline import command_words
from .case import Case, Outcome, load_case
from .detect import Build, Plan, build, command_plan, detect
from .diagnose import diagnose
from .judges import GradedAssignment
from .scoring import score
from .verdict import Score, Verdict
from . import workers
from .workers import hold_signals, run_workers
from ..sandbox import (Bounds, Limits, RunResult, Sandbox, TooLarge, close_all, lstat_beneath,
                       new_workspace, open_folder, open_path, populate, read_regular,
                       remove_beneath, remove_tree, syscall_filter_name, usable_cores, walk,
                       write_new)

EXCERPT_LINES = 200
EXCERPT_BYTES = 20000
# What the kit looks at of a case folder after the run: past it, the case fails unread.
LEFT_BEHIND = Bounds(depth=32, entries=10_000, bytes=1 << 62)
# Files the kit does not grade are listed by name; this much of each is read.
UNGRADED_READ = 4096
# A build's files as it left them: {relative path: (size, mtime in ns)}; a run's file
# still so is the submission's own, not the run's.
Baseline = Dict[str, Tuple[int, int]]


def load_cases(folder: Union[str, Path]) -> List[Case]:
    """The cases of a folder in the case layout: the folder itself when it holds ``cmd``,
    else every subfolder holding one, sorted by name. Raises ValueError when none."""
    folder = Path(folder)
    if (folder / "cmd").is_file():
        return [load_case(folder)]
    cases = [load_case(path) for path in sorted(folder.iterdir())
             if (path / "cmd").is_file()]
    if not cases:
        raise ValueError(f"no case folders (with a cmd file) in {folder}")
    return cases


def gradable(assignment: GradedAssignment, cases: Iterable[Case]
             ) -> Tuple[List[Case], List[Case]]:
    """(cases a grader would run, the others): a case is gradable when its command is the
    assignment's script (not e.g. ``engine tmmorris play``) and it feeds nothing on stdin
    (graders close it)."""
    kept: List[Case] = []
    skipped: List[Case] = []
    for case in cases:
        ok = case.program == assignment.script and not case.stdin
        (kept if ok else skipped).append(case)
    return kept, skipped


def find_submissions(assignment: GradedAssignment, paths: Iterable[str],
                     descend: bool = False) -> List[str]:
    """The submission folders among ``paths``, as given: a folder that looks like a
    submission for ``assignment`` is one; a folder that does not, but at least one of whose
    subfolders does, is a class folder and stands for ALL its subfolders (sorted; hidden
    ones aside): those that are no submission are kept too, and fail with the reason
    detection names, so that no student silently drops out of the gradebook. Anything
    else is kept as given. With ``descend``, a folder that is no submission but holds
    exactly one subfolder that is one (``alice/hw1``) stands for that subfolder."""
    found: List[str] = []
    for path in paths:
        if os.path.isdir(path) and not _is_submission(assignment, path):
            children = _subfolders(path)
            if any(_is_submission(assignment, child) for child in children):
                found.extend(_descended(assignment, child, descend) for child in children)
                continue
        found.append(_descended(assignment, path, descend))
    return found


def _is_submission(assignment: GradedAssignment, path: str) -> bool:
    return detect(assignment, path).kind != "none"


def _subfolders(path: str) -> List[str]:
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [os.path.join(path, name) for name in names
            if not name.startswith(".") and os.path.isdir(os.path.join(path, name))]


def _descended(assignment: GradedAssignment, path: str, descend: bool) -> str:
    """``path``, or with ``descend`` its only subfolder that is a submission."""
    if not descend or not os.path.isdir(path) or _is_submission(assignment, path):
        return path
    inside = [child for child in _subfolders(path) if _is_submission(assignment, child)]
    return inside[0] if len(inside) == 1 else path


# Expected CPU seconds of a submission by how it runs: its build, then each case (the
# interpreter's or the JVM's start-up dominates a case of these assignments). Measured on
# this project's test machine; only their ratios matter (see :func:`shard`).
BUILD_COST = {"python": 0.2, "our repository": 1.0, "java": 1.5, "c++": 1.0, "c": 0.5,
              "make": 1.5, "command": 0.0, "none": 0.0}
CASE_COST = {"python": 0.1, "our repository": 0.15, "java": 0.5, "c++": 0.02, "c": 0.02,
             "make": 0.05, "command": 0.1, "none": 0.0}


def expected_cost(assignment: GradedAssignment, submission: str, cases: int) -> float:
    """The expected CPU seconds of grading ``submission`` on ``cases`` cases, from how
    it would run (a pure function of the folder's files: the same on any machine)."""
    kind = detect(assignment, submission).kind
    return BUILD_COST.get(kind, 1.0) + cases * CASE_COST.get(kind, 0.1)


def shard(submissions: Iterable[str], index: int, count: int,
          cost: Optional[Callable[[str], float]] = None) -> List[str]:
    """The ``index``-th (1-based) of ``count`` slices of ``submissions``, balanced by
    ``cost(submission)`` (default: all equal): the costliest first, each to the slice
    with the least so far (ties: the lower slice, then the name), so that a Java class
    does not land on one task. Returned sorted; every submission is in exactly one
    slice, and the slices are the same on any machine for the same folders."""
    costs = {submission: (cost(submission) if cost else 1.0) for submission in submissions}
    loads = [0.0] * count
    slices: List[List[str]] = [[] for _ in range(count)]
    for submission in sorted(costs, key=lambda item: (-costs[item], item)):
        target = min(range(count), key=lambda slot: (loads[slot], slot))
        loads[target] += costs[submission]
        slices[target].append(submission)
    return sorted(slices[index - 1])


# Lines shown before the first difference in an expected/actual excerpt.
EXCERPT_CONTEXT = 5


def _excerpt(data: bytes, start: int = 0) -> Tuple[str, bool]:
    """Text of ``data`` from line ``start`` (0-based) on, cut to EXCERPT_LINES lines /
    EXCERPT_BYTES bytes; and whether anything was left out after it. Only the excerpt is
    split into lines: a graded output may be megabytes."""
    offset = _line_offset(data, start)
    window = data[offset:offset + EXCERPT_BYTES + 1]
    lines = window.split(b"\n")
    kept: List[bytes] = []
    size = 0
    for line in lines[:EXCERPT_LINES]:
        size += len(line) + 1
        if size > EXCERPT_BYTES:
            break
        kept.append(line)
    shown = sum(len(line) + 1 for line in kept)
    truncated = offset + shown < len(data)
    return b"\n".join(kept).decode("utf-8", errors="backslashreplace"), truncated


def _line_offset(data: bytes, line: int) -> int:
    """The byte offset where 0-based ``line`` of ``data`` starts (its end if shorter)."""
    offset = 0
    for _ in range(line):
        following = data.find(b"\n", offset)
        if following < 0:
            return len(data)
        offset = following + 1
    return offset


def first_differing_line(expected: bytes, actual: bytes) -> int:
    """The 0-based index of the line where ``expected`` and ``actual`` first differ
    (bytes: a CR or a trailing blank is a difference; where one ends, when the other
    goes on), found without splitting either into lines."""
    length = min(len(expected), len(actual))
    index, step = 0, 1 << 16
    while index < length:
        end = min(index + step, length)
        if expected[index:end] != actual[index:end]:
            while expected[index] == actual[index]:
                index += 1
            break
        index = end
    return expected.count(b"\n", 0, index)


def graded_differences(assignment: GradedAssignment, case: Case, outcome: Outcome
                       ) -> List[Tuple[str, Optional[bytes], Optional[bytes]]]:
    """[(what, expected bytes, actual bytes or None)] for each graded output that differs:
    stdout (not for Stake/Raid) and every file the case expects, or a file it says must
    not exist (the PATH file of a terminal tic-tac-toe input)."""
    judge = assignment.judge
    pairs: List[Tuple[str, Optional[bytes], Optional[bytes]]] = []
    if judge.STDOUT_GRADED and outcome.stdout != case.stdout:
        pairs.append(("stdout", case.stdout, outcome.stdout))
    for name in sorted(case.expected):
        actual = outcome.files.get(name)
        if actual != case.expected[name]:
            pairs.append((name, case.expected[name], actual))
    for name in judge.graded_files(case):
        if name not in case.expected and name in outcome.files:
            pairs.append((name + " (must not exist)", None, outcome.files[name]))
    return pairs


class Runner:
    """Grades submissions of ``assignment`` against ``cases`` (see the module docstring).

    ``results`` receives every case as it finishes (:class:`Results`); ``progress`` (a
    callable taking done, total) is told after each case. ``hidden`` are more paths
    (e.g. the cases folder) that submissions must not see. A Runner grades once: its
    sandboxes and workspace are released when :meth:`run` returns. Raises
    :class:`engine.sandbox.IsolationError` when the isolation asked for cannot
    run here.
    """

    def __init__(self, assignment: GradedAssignment, cases: Iterable[Case], results: Any,
                 limits: Limits = Limits(), jobs: Optional[int] = None,
                 lenient: bool = False, command: Optional[str] = None,
                 isolation: str = "auto", build_timeout: float = 120.0,
                 progress: Optional[Callable[[int, int], None]] = None,
                 hidden: Sequence[str] = (), cgroups_wanted: Optional[bool] = None,
                 dedicated_uids: Any = None, sources: Optional[Dict[str, Any]] = None
                 ) -> None:
        self.assignment = assignment
        # {submission label: engine.grading.layouts.Student}: where a row of an export
        # is built from, or why it is not graded (absent: the label is the folder).
        self.sources = dict(sources or {})
        self.cases = list(cases)
        self.results = results
        self.limits = limits
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.lenient = lenient
        self.command = command
        self.build_timeout = build_timeout
        self.progress = progress
        self.workspace: Optional[str] = new_workspace()
        self.builds = os.path.join(self.workspace, "builds")
        self.sandboxes: List[Sandbox] = []
        # A slot per core, each pinned to its own; with fewer slots than cores (a task of
        # a cluster array, where other tasks share the node) nothing is pinned.
        pin = self.jobs >= usable_cores()
        try:
            for slot in range(self.jobs):
                self.sandboxes.append(Sandbox(
                    limits, slot, isolation, self.workspace, dedicated_uids,
                    cgroups_wanted, hidden, shared=self.builds, pin=pin))
        except BaseException:
            self.close()
            raise
        self.isolation = self.sandboxes[0].isolation
        self.fences = self.sandboxes[0].fences
        self._builds: Dict[str, Tuple[Plan, Build, Baseline]] = {}
        self._build_locks: Dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def close(self) -> None:
        """Release the sandboxes and remove the workspace."""
        close_all(self.sandboxes)
        self.sandboxes = []
        if self.workspace is not None:
            remove_tree(self.workspace)
            self.workspace = None

    def folder(self, submission: str) -> Any:
        """The folder the row ``submission`` is built from."""
        source = self.sources.get(submission)
        return source.folder if source is not None else submission

    def plan(self, submission: str) -> Plan:
        source = self.sources.get(submission)
        if source is not None and source.folder is None:
            return Plan("none", error=source.reason)
        if self.command is not None:
            return command_plan(self.command)
        return detect(self.assignment, self.folder(submission))

    def _build(self, submission: str, sandbox: Sandbox) -> Tuple[Plan, Build, Baseline]:
        with self._lock:
            lock = self._build_locks.setdefault(submission, threading.Lock())
        with lock:
            if submission not in self._builds:
                plan = self.plan(submission)
                try:
                    built = build(plan, self.folder(submission), sandbox, self.builds,
                                  self.build_timeout)
                except Exception as error:  # noqa: BLE001 - the submission's verdict
                    built = build_failure(f"not graded: the kit failed building it "
                                          f"({type(error).__name__}: {error})")
                baseline = {entry.path: (entry.status.st_size, entry.status.st_mtime_ns)
                            for entry in built.entries if entry.kind == "file"}
                self._builds[submission] = (plan, built, baseline)
                self.results.set_build(submission, plan.kind, built.error, built.seconds)
            return self._builds[submission]

    def run(self, submissions: List[str]) -> None:
        """Grade every submission; return when all is done or after Ctrl-C (which kills
        the running cases, keeps what finished, and re-raises KeyboardInterrupt)."""
        for submission in submissions:
            self.results.add_submission(submission)
        work = [(submission, case) for submission in submissions for case in self.cases
                if not self.results.has_case(submission, case.name)]
        total, done = len(work), [0]
        # Builds first, each on its own slot, so that slots do not queue behind one
        # long build; then the cases (a case whose build is still running waits for it).
        to_build = sorted({submission for submission, _ in work}, key=submissions.index)
        queue: Iterator[Tuple[str, Optional[Case]]] = itertools.chain(
            ((submission, None) for submission in to_build), work)
        queue_lock = threading.Lock()
        errors: List[BaseException] = []

        def take() -> Optional[Tuple[str, Optional[Case]]]:
            with queue_lock:
                return next(queue, None)

        def case_done() -> None:
            with self._lock:
                done[0] += 1
                if self.progress:
                    self.progress(done[0], total)

        def worker(sandbox: Sandbox) -> None:
            try:
                self._work(sandbox, take, case_done)
            except BaseException as error:  # noqa: BLE001 - re-raised in the main thread
                errors.append(error)
                self._stop.set()

        def stop() -> None:
            self._stop.set()
            for sandbox in self.sandboxes:
                sandbox.abort()

        slots = list(self.sandboxes)
        try:
            # Ctrl-C (even as the slots start) stops them and waits for the aborted
            # runs to finish (killed and reaped) before the sandboxes and the
            # workspace go; see engine.grading.workers for why not Thread.join.
            run_workers(len(slots), lambda slot: worker(slots[slot]), stop,
                        name="grading-slot", patience=workers.STOP_PATIENCE)
        finally:
            # Not cut short by a (second) Ctrl-C: delivered once all is closed.
            with hold_signals():
                try:
                    self.results.finish(self.scores())
                finally:
                    self.close()
        if errors:
            raise errors[0]

    def _work(self, sandbox: Sandbox, take: Callable[[], Optional[Tuple[str, Optional[Case]]]],
              case_done: Callable[[], None]) -> None:
        """On ``sandbox``, build or grade what ``take()`` hands out ((submission, None):
        its build; (submission, case): that case) until nothing is left, the run stops,
        or a case is aborted; record each case and call ``case_done()`` after it."""
        while not self._stop.is_set():
            item = take()
            if item is None:
                return
            submission, case = item
            if case is None:
                self._build(submission, sandbox)
                continue
            try:
                record = self.grade_case(submission, case, sandbox)
            except Exception as error:  # noqa: BLE001 - this case's verdict
                if self._stop.is_set():
                    # Ctrl-C aborted the sandbox under the case (its cgroup
                    # gone, ...): no verdict; the case runs again on --resume.
                    return
                # The kit's own trouble (a full disk, a bug): the case says so,
                # the other cases and submissions still run.
                record = not_graded(case.name, error)
            if record is None:
                return
            self.results.add_case(submission, record)
            case_done()

    def scores(self) -> Dict[str, Score]:
        """{submission: Score} of every submission, from the verdicts recorded so far."""
        scores = {}
        for submission, records in self.results.cases_by_submission().items():
            verdicts = [Verdict(record["passed"], record["reason"], record.get("detail", ""),
                                record.get("lenient", False),
                                record.get("unusable_output", False)) for record in records]
            scores[submission] = score(self.assignment, verdicts)
        return scores

    def grade_case(self, submission: str, case: Case, sandbox: Sandbox
                   ) -> Optional[Dict[str, Any]]:
        """The JSON record of ``case`` run on ``submission`` in ``sandbox`` (None when the
        run was aborted)."""
        plan, built, baseline = self._build(submission, sandbox)
        argv = plan.argv(case.args)
        record: Dict[str, Any] = {"case": case.name, "title": case_title(
            case, None if built.error is not None else argv), "command": " ".join(argv)}
        if built.error is not None:
            record.update(command="", passed=False, reason=built.error.split("\n", 1)[0],
                          detail=built.error, seconds=0.0, cpu=0.0, ended="not run",
                          lenient=False)
            return record
        ran = self._run_case(case, sandbox, built, baseline, argv)
        if ran is None:
            return None
        result, outcome, verdict = ran
        record.update(passed=verdict.passed, reason=verdict.reason, detail=verdict.detail,
                      seconds=round(result.wall, 4), cpu=round(result.cpu, 4),
                      ended=result.ended, lenient=verdict.lenient, exit=result.exit,
                      unusable_output=verdict.unusable_output,
                      seccomp=syscall_filter_name(result.syscalls))
        if not verdict.passed:
            self._add_reproduction(record, case, argv, outcome, verdict)
        if result.memory is not None:
            record["memory_mb"] = round(result.memory / (1 << 20), 1)
        if not verdict.passed:
            record["stderr"] = _excerpt(result.stderr[-EXCERPT_BYTES:])[0]
            record["compared"] = [_compared_entry(what, expected, actual) for what, expected,
                                  actual in graded_differences(self.assignment, case, outcome)]
        return record

    def _run_case(self, case: Case, sandbox: Sandbox, built: Build, baseline: Baseline,
                  argv: List[str]) -> Optional[Tuple[RunResult, Outcome, Verdict]]:
        """Run ``argv`` on the case's inputs in ``sandbox`` (emptied before and after);
        return (the sandbox's result, what the run left, its verdict), or None when the
        run was aborted."""
        try:
            # A case file in a sub-folder would be written through a shared folder's
            # link into the build: such a case gets a real copy.
            shared = sandbox.shares_builds and not any("/" in name for name in case.files)
            sandbox.clear()
            given = write_inputs(sandbox.folder, built, shared, case)
            sandbox.renew()
            sandbox.give(given + _case_paths(case))
            result = sandbox.run(argv, read_only=[str(built.folder)] if shared else (),
                                 groups=[built.group] if built.group is not None else ())
            if result.ended == "aborted":
                return None
            left = self._files_after(sandbox.folder, baseline, case)
        finally:
            sandbox.clear()
        if not isinstance(left, str) and self.assignment.judge.STDOUT_GRADED and \
                len(result.stdout) > 2 * len(case.stdout) + (1 << 20):
            left[1]["stdout"] = len(result.stdout)
        files: Dict[str, bytes]
        oversized: Dict[str, int]
        unread: Optional[str]
        if isinstance(left, str):       # too much left behind to read
            (files, oversized), unread = ({}, {}), left
        else:
            (files, oversized), unread = left, None
        outcome = Outcome(result.exit, result.stdout, result.stderr, files)
        return result, outcome, self._verdict(case, result, outcome, oversized, unread)

    def _verdict(self, case: Case, result: RunResult, outcome: Outcome,
                 oversized: Dict[str, int], unread: Optional[str]) -> Verdict:
        """The case's verdict: unread (``unread`` says why), graded files too large to
        diagnose, the diagnosis of a run that ended by itself, or the sandbox's reason
        for ending it."""
        if unread is not None:
            return Verdict(False, unread, unread)
        if oversized:
            return _too_large(self.assignment, case, oversized)
        if result.ended in ("exited", "signal"):
            return diagnose(self.assignment, case, outcome, self.lenient)
        # A run killed before it wrote its graded file has left it missing, which the
        # assignment's scoring treats like any other missing output.
        missing = any(name not in outcome.files for name in case.expected)
        return Verdict(False, result.describe(self.limits),
                       result.stderr[-2000:].decode("utf-8", errors="replace"),
                       unusable_output=missing)

    def _add_reproduction(self, record: Dict[str, Any], case: Case, argv: List[str],
                          outcome: Outcome, verdict: Verdict) -> None:
        """What a failed case's record carries to reproduce it: its inputs, the command
        to rerun it and, for a search trace, the stepper's command and the trace."""
        record.update(cosmetic=verdict.cosmetic, inputs=case_inputs(case),
                      rerun=rerun_command(case, argv))
        moved = printed_move(case, outcome.stdout)
        steps = stepper_command(self.assignment, case, outcome.files, moved)
        visited = self.assignment.visited_arg
        if steps is not None and visited is not None:
            record["stepper"] = steps
            record["stepper_args"] = stepper_arguments(self.assignment, case, moved)
            trace = outcome.files[case.args[visited]]
            if len(trace) <= TRACE_KEPT:
                # Kept so that --report can draw the page itself (see cli).
                record["trace"] = trace.decode("utf-8", errors="replace")

    def _files_after(self, folder: str, baseline: Baseline, case: Case
                     ) -> Union[str, Tuple[Dict[str, bytes], Dict[str, int]]]:
        """``(files, oversized)`` of the run folder after the run (all of the run's
        processes are dead): the graded files' bytes up to their cap, other new or
        changed files by name (a short excerpt), without the submission's own files left
        unchanged and without Python byte-code caches; ``oversized`` maps a graded file
        over its cap to its size. A string instead when the folder is past
        :data:`LEFT_BEHIND`."""
        try:
            entries = walk(folder, LEFT_BEHIND, skip=("__pycache__",))
        except TooLarge as error:
            return f"left too much behind in its folder to grade: {error}"
        except OSError:
            return {}, {}
        caps = graded_caps(self.assignment, case)
        files, oversized = {}, {}
        root = open_folder(folder)
        try:
            for entry in entries:
                if entry.kind != "file" or "__pycache__" in entry.path.split("/"):
                    continue
                status = entry.status
                if entry.path not in caps and baseline.get(entry.path) == (
                        status.st_size, status.st_mtime_ns):
                    continue
                cap = caps.get(entry.path, UNGRADED_READ)
                parent, _, name = entry.path.rpartition("/")
                try:
                    parent_fd = open_path(parent, root)
                except OSError:
                    continue
                try:
                    found = read_regular(name, parent_fd, cap)
                finally:
                    os.close(parent_fd)
                if found is None:
                    continue
                files[entry.path] = found[0]
                if entry.path in caps and found[1] > cap:
                    oversized[entry.path] = found[1]
        finally:
            os.close(root)
        return dict(sorted(files.items())), oversized


def _compared_entry(what: str, expected: Optional[bytes], actual: Optional[bytes]
                    ) -> Dict[str, Any]:
    """A record's excerpt of one graded output that differs: both panes open a few lines
    before the first difference (a 550,000-line visited file that differs at its end
    shows its end); an absent side is None."""
    start = 0
    if expected is not None and actual is not None:
        start = max(0, first_differing_line(expected, actual) - EXCERPT_CONTEXT)
    entry: Dict[str, Any] = {"what": what, "from_line": start + 1}
    for key, data in (("expected", expected), ("actual", actual)):
        if data is None:
            entry[key] = None
        else:
            entry[key], cut = _excerpt(data, start)
            entry[key + "_truncated"] = cut
            entry[key + "_final_newline"] = data.endswith(b"\n")
    return entry


def graded_caps(assignment: GradedAssignment, case: Case) -> Dict[str, int]:
    """{file name: bytes the kit reads of it} for the files a case grades or provides:
    twice the expected size plus 1 MB (enough for any cosmetic difference, and the most
    a diagnosis is allowed to chew on)."""
    caps = {}
    for name, data in list(case.expected.items()) + list(case.files.items()):
        caps[name] = 2 * len(data) + (1 << 20)
    for name in assignment.judge.graded_files(case):
        caps.setdefault(name, 1 << 20)
    return caps


def _too_large(assignment: GradedAssignment, case: Case, oversized: Dict[str, int]
               ) -> Verdict:
    """The verdict of a run whose graded files are too large to diagnose."""
    parts = []
    judge = assignment.judge
    for name, size in sorted(oversized.items()):
        label = judge.FILE_LABEL if name in judge.graded_files(case) else name
        expected = len(case.stdout if name == "stdout" else case.expected.get(name, b""))
        parts.append(f"{label} too large to diagnose: {size:,} bytes, expected {expected:,}")
    reason = "; ".join(parts)
    return Verdict(False, reason, reason + " (the kit reads at most twice the expected "
                   "size plus 1 MB of a graded file)",
                   unusable_output=judge.UNREADABLE_ZEROES)


def _case_paths(case: Case) -> List[str]:
    """The case's input files and the folders they sit in, relative to the run folder."""
    paths = set()
    for name in case.files:
        parts = name.split("/")
        for depth in range(1, len(parts) + 1):
            paths.add("/".join(parts[:depth]))
    return sorted(paths)


def write_inputs(folder: str, built: Build, shared: bool, case: Case) -> List[str]:
    """Fill the emptied run ``folder`` from the build (:func:`populate`) and write the
    case's input files; return the relative paths the run must own.

    No process of the run exists yet, but the build's files may be hostile (links planted
    at ``input.txt``, at a folder a case file sits in, at the visited file's name): names
    the case writes are removed first (through a descriptor of their folder, never
    followed: with :func:`os.path.isdir` a planted link to a folder was kept, and a link
    on the way was followed), and each input is then created exclusively, never through
    a link (:func:`engine.sandbox.untrusted_files.write_new`)."""
    folder_fd = open_folder(folder)
    try:
        given = populate(folder_fd, str(built.folder), built.entries, shared)
        # Old outputs go first; so do names the case writes, so that writing them never
        # goes through a hard link into the build. An argument is removed only when it
        # is no folder (``engine``, say, may be both an argument and the package).
        for name in set(case.expected) | {"output.txt"} | set(case.files):
            _remove_quietly(name, folder_fd)
        # So does anything but a folder where a case file's folder goes (a link there
        # once took the input, and an unlink before it, outside the run).
        folders = {path for path in _case_paths(case) if path not in case.files}
        for name in sorted(set(case.args) | folders):
            status = _lstat_quietly(name, folder_fd)
            if status is not None and not stat.S_ISDIR(status.st_mode):
                _remove_quietly(name, folder_fd)
        for name, data in case.files.items():
            write_new(name, data, folder_fd)
    finally:
        os.close(folder_fd)
    return given + _case_paths(case)


def _remove_quietly(name: str, folder_fd: int) -> None:
    try:
        remove_beneath(name, folder_fd)
    except ValueError:           # an absolute name or a "..": nothing of the run's
        pass


def _lstat_quietly(name: str, folder_fd: int) -> Optional[os.stat_result]:
    try:
        return lstat_beneath(name, folder_fd)
    except ValueError:
        return None


def build_failure(message: str) -> Build:
    """A failed :class:`engine.grading.detect.Build` with ``message`` as its error."""
    return Build(None, message)


def not_graded(name: str, error: BaseException) -> Dict[str, Any]:
    """The record of a case the kit could not grade because of its own ``error``."""
    reason = f"not graded: {type(error).__name__}: {error}"
    return {"case": name, "command": "", "passed": False, "reason": reason,
            "detail": reason, "seconds": 0.0, "cpu": 0.0, "ended": "not run",
            "lenient": False}


# Input files larger than this are not copied into a record (the rerun command names them).
INPUT_SHOWN = 20000


def case_inputs(case: Case) -> Dict[str, Any]:
    """What a failed case was given, for a person to reproduce it: the arguments and the
    input files' text (``None`` for a file too large or not text)."""
    files = {}
    for name, data in sorted(case.files.items()):
        try:
            files[name] = data.decode("utf-8") if len(data) <= INPUT_SHOWN else None
        except UnicodeDecodeError:
            files[name] = None
    return {"args": list(case.args), "files": files}


def rerun_command(case: Case, argv: Sequence[str]) -> str:
    """One shell command that reruns ``case`` in a submission's folder as the grader ran
    it: the input files written first (``printf``), then the command."""
    parts = []
    for name, data in sorted(case.files.items()):
        if len(data) > INPUT_SHOWN:
            parts.append(f": {shlex.quote(name)} is too large to show here")
            continue
        text = data.decode("utf-8", errors="replace")
        escaped = (text.replace("\\", "\\\\").replace("%", "%%").replace("\n", "\\n")
                   .replace("\r", "\\r").replace("\t", "\\t"))
        parts.append(f"printf {shlex.quote(escaped)} > {shlex.quote(name)}")
    parts.append(" ".join(shlex.quote(word) for word in argv))
    return " && ".join(parts)


# The most nodes a stepping page replays (engine.pictures.stepper.MAX_NODES: the kit
# imports no picture code; a test keeps them equal). A visited file is a line per node
# below the root.
STEPPED_NODES = 200_000

# A visited file larger than this is not kept in a record (its page is then made by the
# command the record names, not by the report).
TRACE_KEPT = 64 * 1024


def stepper_arguments(assignment: GradedAssignment, case: Case,
                      moved: Optional[str] = None) -> List[str]:
    """The ``picture`` arguments of ``case``'s search: the assignment's name, then the
    grader's arguments without the visited file (engine.registry's ``visited_arg``),
    then ``--move`` and the board the submission printed when it is not the expected
    one (``moved``: the page then says that the move differs)."""
    return [assignment.name] + [word for index, word in enumerate(case.args)
                                if index != assignment.visited_arg] + (
        [] if moved is None else ["--move", moved])


def printed_move(case: Case, stdout: bytes) -> Optional[str]:
    """The one line a submission printed (its move, a board) when it differs from the
    expected stdout, else None (also for output that is no short line of text)."""
    line = stdout[:-1] if stdout.endswith(b"\n") else stdout
    if stdout == case.stdout or not 0 < len(line) <= 64 or b"\n" in line:
        return None
    text = line.decode("ascii", errors="replace").rstrip("\r")
    return text if text.isprintable() and text.strip() == text and text else None


def stepper_command(assignment: GradedAssignment, case: Case, written: Dict[str, bytes],
                    moved: Optional[str] = None) -> Optional[str]:
    """The command that opens our search of ``case`` step by step, with the visited file
    the submission wrote overlaid and its first divergence marked, and the move it
    printed (``moved``, see :func:`stepper_arguments`) set beside the search's (run after
    the rerun command, in the submission's folder); None for assignments without a trace
    file, or when the submission wrote none (``written``: the files it left)."""
    visited = assignment.visited_arg
    if visited is None or len(case.args) <= visited:
        return None
    path = case.args[visited]
    if path not in case.expected or path not in written:
        return None
    if case.expected[path].count(b"\n") + 1 > STEPPED_NODES:
        return None     # the page would refuse: printed, the command would not run
    words = ["picture"] + stepper_arguments(assignment, case, moved) + [
        "--against", path, "--html", "steps.html"]
    # As the user called the kit, runnable in the submission's folder (see
    # engine.commandline.command_words).
    return command_words() + " " + " ".join(shlex.quote(word) for word in words)


def case_title(case: Case, argv: Optional[Sequence[str]] = None) -> str:
    """A case in a few words: its name and the command that ran it (``argv``: what the
    submission was run with, ``./tictactoe.bin ...`` for a C program; without it, the
    case's own command line), and the first lines of an input.txt (the board size, mode,
    side and depth of a Stake/Raid case)."""
    if argv and list(argv[:2]) == ["/bin/sh", "-c"]:
        argv = argv[2:]         # --command CMD: the line the shell ran
    shown = " ".join(argv) if argv else " ".join((case.program,) + tuple(case.args))
    title = f"{case.name}: {shown}"
    data = case.files.get("input.txt")
    if data:
        head = data.decode("utf-8", errors="replace").split("\n")[:4]
        title += " (input.txt: " + " ".join(line.strip() for line in head if line.strip()) + ")"
    return title

