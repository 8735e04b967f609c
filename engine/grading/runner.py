"""Grading submissions: every case of every submission, in parallel, in sandboxes.

:class:`Runner` takes a program, its cases and the submission folders; it builds each
submission once (:mod:`engine.grading.detect`), runs every case in a fresh folder that
shares the build (:mod:`engine.grading.sandbox`), judges timeouts and limit kills itself,
hands runs that ended by themselves to :func:`engine.grading.diagnose.diagnose`, and scores
each submission with :func:`engine.grading.scoring.score`.

Parallelism: ``jobs`` worker threads, each driving ONE subprocess at a time in its own
sandbox slot, so at most ``jobs`` cases run at once and timings stay comparable. The
work items are first the builds of the submissions that have cases left, then the
(submission, case) pairs in submission order; a case whose build is still running on
another slot waits for it.

Results go to :class:`engine.grading.results.Results`, which writes the JSON file
atomically as cases finish; cases already present there are skipped (``--resume``).
"""

import itertools
import os
import shutil
import tempfile
import threading
from pathlib import Path

from .case import Outcome, load_case, prepare
from .detect import build, command_plan, detect
from .diagnose import diagnose
from .sandbox import Limits, Sandbox, fresh_copy, list_top, new_workspace
from .scoring import score
from .verdict import Verdict

# What each program's grader compares (for the excerpts shown in reports).
GRADED = {
    "tictactoe": "stdout and the PATH file",
    "tmmorris": "stdout and the PATH file",
    "take_stones": "stdout",
    "stake_raid": "output.txt",
}
# The program word of a case run as the assignment's grader runs it (see case.py).
GRADER_SCRIPTS = {
    "tictactoe": "tictactoe.py",
    "tmmorris": "tmmorris.py",
    "take_stones": "TakeStones",
    "stake_raid": "homework.py",
}
EXCERPT_LINES = 200
EXCERPT_BYTES = 20000


def load_cases(folder):
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


def gradable(program, cases):
    """(cases a grader would run, the others): a case is gradable when its command is the
    assignment's script (not e.g. ``engine morris play``) and it feeds nothing on stdin
    (graders close it)."""
    kept, skipped = [], []
    for case in cases:
        ok = case.program == GRADER_SCRIPTS[program] and not case.stdin
        (kept if ok else skipped).append(case)
    return kept, skipped


def find_submissions(program, paths):
    """The submission folders among ``paths``, as given: a folder that looks like a
    submission for ``program`` is one; a folder that does not, but whose subfolders do,
    is a class folder and stands for those subfolders (sorted). Anything else is kept
    as given and fails with the reason detection names."""
    found = []
    for path in paths:
        if os.path.isdir(path) and detect(program, path).kind == "none":
            children = [os.path.join(path, name) for name in sorted(os.listdir(path))
                        if os.path.isdir(os.path.join(path, name))
                        and not name.startswith(".")]
            members = [child for child in children if detect(program, child).kind != "none"]
            if members:
                found.extend(members)
                continue
        found.append(path)
    return found


def shard(submissions, index, count):
    """The ``index``-th (1-based) of ``count`` contiguous slices of the sorted
    ``submissions``; slice sizes differ by at most one."""
    ordered = sorted(submissions)
    size, extra = divmod(len(ordered), count)
    start = (index - 1) * size + min(index - 1, extra)
    end = start + size + (1 if index - 1 < extra else 0)
    return ordered[start:end]


def _excerpt(data):
    """Text of ``data`` cut to EXCERPT_LINES lines / EXCERPT_BYTES bytes; and whether it
    was cut."""
    cut = data[:EXCERPT_BYTES]
    lines = cut.split(b"\n")
    truncated = len(cut) < len(data) or len(lines) > EXCERPT_LINES + 1
    cut = b"\n".join(lines[:EXCERPT_LINES])
    return cut.decode("utf-8", errors="backslashreplace"), truncated


def graded_differences(program, case, outcome):
    """[(what, expected bytes, actual bytes or None)] for each graded output that differs:
    stdout (not for Stake/Raid) and every file the case expects, or a file it says must
    not exist (the PATH file of a terminal tic-tac-toe input)."""
    pairs = []
    if program != "stake_raid" and outcome.stdout != case.stdout:
        pairs.append(("stdout", case.stdout, outcome.stdout))
    for name in sorted(case.expected):
        actual = outcome.files.get(name)
        if actual != case.expected[name]:
            pairs.append((name, case.expected[name], actual))
    if program in ("tictactoe", "tmmorris") and len(case.args) > 1:
        name = case.args[1]
        if name not in case.expected and name in outcome.files:
            pairs.append((name + " (must not exist)", None, outcome.files[name]))
    return pairs


class Runner:
    """Grades submissions of ``program`` against ``cases`` (see the module docstring).

    ``results`` receives every case as it finishes (:class:`Results`); ``progress`` (a
    callable taking done, total) is told after each case.
    """

    def __init__(self, program, cases, results, limits=Limits(), jobs=None, lenient=False,
                 command=None, isolation="auto", build_timeout=120.0, progress=None,
                 workspace=None):
        self.program = program
        self.cases = list(cases)
        self.results = results
        self.limits = limits
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.lenient = lenient
        self.command = command
        self.build_timeout = build_timeout
        self.progress = progress
        self.sandboxes = [Sandbox(limits, slot, isolation) for slot in range(self.jobs)]
        self.isolation = self.sandboxes[0].isolation
        self.workspace = workspace
        self._builds = {}
        self._build_locks = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def plan(self, submission):
        if self.command is not None:
            return command_plan(self.command)
        return detect(self.program, submission)

    def _build(self, submission, sandbox):
        with self._lock:
            lock = self._build_locks.setdefault(submission, threading.Lock())
        with lock:
            if submission not in self._builds:
                plan = self.plan(submission)
                built = build(plan, submission, sandbox, self.workspace, self.build_timeout)
                baseline, listing = {}, None
                if built.folder is not None:
                    listing = list_top(str(built.folder))
                    for path in built.folder.rglob("*"):
                        if path.is_file() and not path.is_symlink():
                            stat = path.stat()
                            baseline[path.relative_to(built.folder).as_posix()] = (
                                stat.st_size, stat.st_mtime_ns)
                self._builds[submission] = (plan, built, baseline, listing)
                self.results.set_build(submission, plan.kind, built.error, built.seconds)
            return self._builds[submission]

    def run(self, submissions):
        """Grade every submission; return when all is done or after Ctrl-C (which kills
        the running cases, keeps what finished, and re-raises KeyboardInterrupt)."""
        own_workspace = self.workspace is None
        if own_workspace:
            self.workspace = new_workspace()
        for submission in submissions:
            self.results.add_submission(submission)
        work = [(submission, case) for submission in submissions for case in self.cases
                if not self.results.has_case(submission, case.name)]
        total, done = len(work), [0]
        # Builds first, each on its own slot, so that slots do not queue behind one
        # long build; then the cases (a case whose build is still running waits for it).
        to_build = sorted({submission for submission, _ in work}, key=submissions.index)
        queue = itertools.chain(((submission, None) for submission in to_build), work)
        queue_lock = threading.Lock()
        errors = []

        def worker(sandbox):
            try:
                while not self._stop.is_set():
                    with queue_lock:
                        item = next(queue, None)
                    if item is None:
                        return
                    if item[1] is None:
                        self._build(item[0], sandbox)
                        continue
                    try:
                        record = self.grade_case(item[0], item[1], sandbox)
                    except OSError as error:
                        # The kit's own trouble (a full disk, ...): the case says so, the
                        # other cases still run.
                        record = {"case": item[1].name, "command": "", "passed": False,
                                  "reason": f"not graded: {error}", "detail": "",
                                  "seconds": 0.0, "cpu": 0.0, "ended": "not run",
                                  "lenient": False}
                    if record is None:
                        return
                    self.results.add_case(item[0], record)
                    with self._lock:
                        done[0] += 1
                        if self.progress:
                            self.progress(done[0], total)
            except BaseException as error:  # noqa: BLE001 - re-raised in the main thread
                errors.append(error)
                self._stop.set()

        threads = [threading.Thread(target=worker, args=(sandbox,), daemon=True)
                   for sandbox in self.sandboxes]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)
        except KeyboardInterrupt:
            self._stop.set()
            for sandbox in self.sandboxes:
                sandbox.abort()
            for thread in threads:
                thread.join(5)
            raise
        finally:
            self.results.finish(self.scores())
            if own_workspace:
                shutil.rmtree(self.workspace, ignore_errors=True)
                self.workspace = None
        if errors:
            raise errors[0]

    def scores(self):
        """{submission: Score} of every submission, from the verdicts recorded so far."""
        scores = {}
        for submission, records in self.results.cases_by_submission().items():
            verdicts = [Verdict(record["passed"], record["reason"], record.get("detail", ""),
                                record.get("lenient", False),
                                record.get("unusable_output", False)) for record in records]
            scores[submission] = score(self.program, verdicts)
        return scores

    def grade_case(self, submission, case, sandbox):
        """The JSON record of ``case`` run on ``submission`` in ``sandbox`` (None when the
        run was aborted)."""
        plan, built, baseline, listing = self._build(submission, sandbox)
        argv = plan.argv(case.args)
        record = {"case": case.name, "command": " ".join(argv)}
        if built.error is not None:
            record.update(command="",passed=False, reason=built.error.split("\n", 1)[0],
                          detail=built.error, seconds=0.0, cpu=0.0, ended="not run",
                          lenient=False)
            return record
        folder = tempfile.mkdtemp(prefix="case-", dir=self.workspace)
        os.rmdir(folder)
        sandbox.renew()
        try:
            # A case file in a sub-folder would be written through a shared folder's
            # link into the build: such a case gets a real copy.
            shared = sandbox.shares_builds and not any("/" in name for name in case.files)
            fresh_copy(str(built.folder), folder, shared, listing)
            # Old outputs go first; so do names the case writes, so that writing them
            # never goes through a hard link into the build.
            stale = set(case.expected) | {"output.txt"} | set(case.args) | set(case.files)
            for name in stale:
                path = os.path.join(folder, name)
                if os.path.lexists(path) and not os.path.isdir(path):
                    os.unlink(path)
            prepare(case, folder)
            sandbox.give(folder, directories_only=shared)
            for name in case.files:
                sandbox.give_file(os.path.join(folder, name))
            result = sandbox.run(argv, folder,
                                 read_only=[str(built.folder)] if shared else (),
                                 groups=[built.group] if built.group is not None else ())
            if result.ended == "aborted":
                return None
            files = self._files_after(folder, baseline, case)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        outcome = Outcome(result.exit, result.stdout, result.stderr, files)
        if result.ended in ("exited", "signal"):
            verdict = diagnose(self.program, case, outcome, self.lenient)
        else:
            # A run killed before it wrote its graded file has left it missing, which the
            # assignment's scoring treats like any other missing output.
            missing = any(name not in files for name in case.expected)
            verdict = Verdict(False, result.describe(self.limits),
                              result.stderr[-2000:].decode("utf-8", errors="replace"),
                              unusable_output=missing)
        record.update(passed=verdict.passed, reason=verdict.reason, detail=verdict.detail,
                      seconds=round(result.wall, 4), cpu=round(result.cpu, 4),
                      ended=result.ended, lenient=verdict.lenient, exit=result.exit,
                      unusable_output=verdict.unusable_output)
        if not verdict.passed:
            record["stderr"] = _excerpt(result.stderr[-EXCERPT_BYTES:])[0]
            record["compared"] = []
            for what, expected, actual in graded_differences(self.program, case, outcome):
                entry = {"what": what}
                for key, data in (("expected", expected), ("actual", actual)):
                    if data is None:
                        entry[key] = None
                    else:
                        entry[key], cut = _excerpt(data)
                        entry[key + "_truncated"] = cut
                record["compared"].append(entry)
        return record

    @staticmethod
    def _files_after(folder, baseline, case):
        """The case folder's files after the run, without the submission's own files left
        unchanged and without Python byte-code caches; case input files always count."""
        files = {}
        pending = [("", folder)]
        while pending:
            prefix, path = pending.pop()
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue
            for entry in entries:
                relative = prefix + entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            pending.append((relative + "/", entry.path))
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    stat = entry.stat(follow_symlinks=False)
                    if relative not in case.files and baseline.get(relative) == (
                            stat.st_size, stat.st_mtime_ns):
                        continue
                    with open(entry.path, "rb") as handle:
                        files[relative] = handle.read()
                except OSError:
                    continue
        return dict(sorted(files.items()))
