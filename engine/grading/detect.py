"""How a submission folder is built and run, found from the files it holds.

:func:`detect` returns a :class:`Plan` as each assignment's grader would run the folder,
by the rules of the assignment's module in engine.grading.assignments (``detect``; e.g.
tic-tac-toe: our repository's tictactoe.py, a Makefile with a tictactoe target,
tictactoe.java, or tictactoe.py), built from the helpers here.

``--command CMD`` (see :func:`command_plan`) replaces detection: CMD runs through
``/bin/sh -c`` with ``{args}`` standing for the case's arguments, shell-quoted (without
``{args}`` they are appended).

:func:`build` builds once per submission, in a copy (the submission folder is never
written), inside the same sandbox as the runs and with a time limit. Every failure
(no entry point, a missing toolchain, a compiler error, a submission too large or too
deep to copy) is a string that becomes the verdict of every case of the submission,
never an exception.

Detection reads what a student handed in, so it never follows a link, reads regular
files only and at most 1 MB of a Makefile (:mod:`engine.sandbox.untrusted_files`): a
``GNUmakefile`` that links to ``/proc/self/mem`` or is a FIFO is no Makefile.
"""

import os
import pkgutil
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from .judges import GradedAssignment
from .plan import Plan
from ..sandbox import (SAFE_PATH, Bounds, Entry, TooLarge, copy_tree, move_out,
                       read_untrusted_text, regular_file_in, walk)

# How much of a submission is copied: past this it is not graded (its verdict says why).
SUBMISSION_BOUNDS = Bounds(depth=32, entries=10_000, bytes=256 * 1024 * 1024)

# Never copied from a submission: version control, virtual environments, caches.
IGNORED = (".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules",
           ".pytest_cache", ".mypy_cache")



def _tool(name: str) -> Optional[str]:
    return shutil.which(name, path=SAFE_PATH)


def needs(plan: Plan, *tools: str) -> Plan:
    """``plan``, or a Plan with an error when one of ``tools`` is not installed."""
    for tool in tools:
        if _tool(tool) is None:
            return plan._replace(error=f"{tool} not installed")
    return plan


def is_file(path: Union[str, Path]) -> bool:
    """True for a regular file that is not a link (detection never follows one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def makefile_has_target(folder: Path, target: str) -> bool:
    for name in ("GNUmakefile", "makefile", "Makefile"):
        text = read_untrusted_text(str(folder / name))
        if text is not None and re.search(rf"^{re.escape(target)}\s*:", text, re.MULTILINE):
            return True
    return False


def ours(folder: Path) -> bool:
    return is_file(folder / "engine" / "__init__.py")


def command_plan(command: str) -> Plan:
    """The plan of ``--command CMD`` (see the module docstring)."""
    return Plan("command", template=command)


def detect(assignment: GradedAssignment, folder: Union[str, Path]) -> Plan:
    """The :class:`Plan` that runs the submission ``folder`` for ``assignment`` (the
    assignment's own rules: its judge's ``detect``)."""
    folder = Path(folder)
    try:
        if not folder.is_dir():
            return Plan("none", error=f"{folder} is not a folder")
    except OSError as error:
        return Plan("none", error=f"{folder}: {error.strerror}")
    judge = assignment.judge
    plan = judge.detect(folder)
    if plan.kind == "none":
        hint = _hint(folder, judge.ENTRY_POINTS, judge.detect)
        if hint:
            plan = plan._replace(error=f"{plan.error} ({hint})")
    return plan


def _hint(folder: Path, entry_points: Iterable[str], detect_in: Callable[[Path], Plan]) -> str:
    """Why a folder that is no submission may have been meant as one: a file named like
    an entry point but for its case (names are case-sensitive), or a submission one
    level down. An empty string when neither."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ""
    wanted = {name.lower(): name for name in entry_points}
    for name in names:
        if name.lower() in wanted and name != wanted[name.lower()]:
            return f"found {name}: names are case-sensitive, the grader runs " \
                   f"{wanted[name.lower()]}"
    for name in names:
        path = folder / name
        if not name.startswith(".") and path.is_dir() and not path.is_symlink():
            if detect_in(path).kind != "none":
                return f"a submission is one level down: {name}/; --descend grades it"
    return ""


def script_or_java_or_make(folder: Path, name: str) -> Plan:
    """The plan of a program named ``name`` (tictactoe, tmmorris): NAME.py beside our
    engine/, a Makefile with a NAME (or NAME.bin) target, NAME.java, or NAME.py."""
    script = f"{name}.py"
    if is_file(folder / script) and ours(folder):
        return needs(Plan("our repository", ("python3", script), keep=(script, "engine")),
                     "python3")
    if makefile_has_target(folder, name) or makefile_has_target(folder, f"{name}.bin"):
        return needs(Plan("make", (f"./{name}.bin",), build=("make", name)), "make")
    if is_file(folder / f"{name}.java"):
        return needs(Plan("java", ("java", name), build=("javac", f"{name}.java")),
                     "javac", "java")
    if is_file(folder / script):
        return needs(Plan("python", ("python3", script)), "python3")
    return Plan("none", error=f"no {script}, {name}.java or Makefile with a {name} target")


def submission_root(path: str) -> str:
    """The folder to copy for the submission ``path``: ``path`` itself, or where it links
    to when the link is ours (the instructor made it); a link someone else owns is not
    followed (its target could be any file of ours). Raises OSError."""
    status = os.lstat(path)
    if stat.S_ISLNK(status.st_mode):
        if status.st_uid not in (0, os.getuid()):
            raise OSError(f"{path} is a link owned by uid {status.st_uid}; not followed")
        return os.path.realpath(path)
    return path


def _tail(data: bytes, lines: int = 15) -> str:
    text = data.decode("utf-8", errors="replace").rstrip("\n")
    return "\n".join(text.split("\n")[-lines:])


class Build(NamedTuple):
    """A built submission: the folder every case copies or links to (None on failure),
    the error (None on success), the build's log and its seconds, the group that may
    read the folder (None: anyone; see :meth:`Sandbox.take_back`), and its entries
    (from :func:`engine.sandbox.untrusted_files.walk`)."""
    folder: Optional[Path]
    error: Optional[str]
    log: str = ""
    seconds: float = 0.0
    group: Optional[int] = None
    entries: tuple = ()


# Byte-compiling a Python submission, in its own folder: ``-I`` (isolated) keeps that
# folder off sys.path (a compileall.py planted there never runs; ``-I`` implies ``-P``
# where Python has it) and ignores PYTHON* variables.
COMPILE_STEP = ("python3", "-I", "-m", "compileall", "-q", ".")


def compile_step(plan: Plan) -> List[str]:
    """The build step that byte-compiles a Python submission: what the plan's entry
    script imports (:mod:`engine.grading.precompile`, its text run by ``python3 -I -c``),
    or every file (:data:`COMPILE_STEP`) when the plan runs no Python script of its own
    (a ``--command``)."""
    if plan.kind in ("python", "our repository") and len(plan.run) >= 2:
        source = pkgutil.get_data(__package__, "precompile.py")
        if source is not None:
            return ["python3", "-I", "-c", source.decode("utf-8"), plan.run[1]]
    return list(COMPILE_STEP)


def build(plan: Plan, submission: str, sandbox: Any, builds: str, timeout: float = 120.0,
          after: Sequence[Tuple[Sequence[str], float, float]] = (),
          wall: Optional[float] = None) -> "Build":
    """Build ``submission`` by ``plan`` in the sandbox's run folder, then move the result
    into a new folder under ``builds``. Each build step has ``timeout`` CPU seconds and
    ``wall`` seconds of wall time (None: the sandbox's default for that CPU time).

    ``after`` are more steps ``(argv, cpu_seconds, wall_seconds)`` run once the build
    succeeded, whose failures are ignored (a tournament entrant's ``make calibrate``):
    what they write in the folder is kept, what they print goes to the log. One still
    running at its CPU or wall-clock cap fails the build (killed, with the reason: "make
    calibrate over its cap (...)"), so that a tournament eliminates it rather than
    wait for it silently.

    The copy is bounded (:data:`SUBMISSION_BOUNDS`) and never follows a link inside the
    submission. Python submissions are byte-compiled in the build (with the sandbox's
    python3, see :func:`compile_step`), so that no case pays for compiling the modules
    its program imports.
    """
    if plan.error is not None:
        return Build(None, plan.error)
    copied = _copy_submission(submission, sandbox, plan)
    if isinstance(copied, str):
        return Build(None, copied)
    log = _BuildLog()
    failure = (_run_build_steps(plan, copied, sandbox, timeout, wall, log)
               or _run_after_steps(after, sandbox, log)
               or _missing_binary(plan, sandbox))
    if failure is not None:
        sandbox.clear()
        return Build(None, failure, log.tail(200), log.seconds)
    try:
        entries = walk(sandbox.folder, SUBMISSION_BOUNDS)
    except TooLarge as error:
        sandbox.clear()
        return Build(None, f"build failed: the build left {error}", log.tail(200),
                     log.seconds)
    home = Path(tempfile.mkdtemp(prefix="build-", dir=builds))
    built = home / "submission"
    copied_across = move_out(sandbox.folder, str(built), str(home), SUBMISSION_BOUNDS)
    if copied_across is not None:   # to another file system: no special files
        entries = copied_across
    group = sandbox.take_back(str(built), entries)
    return Build(built, None, log.tail(200), log.seconds, group, tuple(entries))


class _BuildLog:
    """What a build's steps printed, in order, and their wall seconds in all."""

    def __init__(self) -> None:
        self.parts: List[bytes] = []
        self.seconds = 0.0

    def add(self, result: Any) -> None:
        """Count a step's wall time and keep its stdout and stderr."""
        self.seconds += result.wall
        self.parts.append(result.stdout + result.stderr)

    def tail(self, lines: int = 15) -> str:
        """The log's last ``lines`` lines as text."""
        return _tail(b"".join(self.parts), lines)


def _copy_submission(submission: str, sandbox: Any, plan: Plan) -> Union[List[Entry], str]:
    """Copy the submission into the emptied run folder and give it to the sandbox user;
    return the copied entries, or why the submission is not graded (the folder emptied
    again)."""
    sandbox.clear()
    try:
        copied = copy_tree(submission_root(submission), sandbox.folder, SUBMISSION_BOUNDS,
                           skip=IGNORED, keep=plan.keep, existing=True)
    except TooLarge as error:
        sandbox.clear()
        return (f"submission not graded: {error} (the kit copies at most "
                f"{SUBMISSION_BOUNDS.entries:,} files, {SUBMISSION_BOUNDS.depth} "
                f"levels deep, {SUBMISSION_BOUNDS.bytes >> 20} MB)")
    except OSError as error:
        sandbox.clear()
        return f"cannot copy the submission: {error.strerror or error}"
    sandbox.renew()
    sandbox.give(entry.path for entry in copied)
    return copied


def _run_build_steps(plan: Plan, copied: List[Entry], sandbox: Any, timeout: float,
                     wall: Optional[float], log: _BuildLog) -> Optional[str]:
    """Run the plan's build command, then byte-compile Python; return why the build
    failed (its log's end included), or None. A failed byte-compilation is no failure:
    a syntax error shows in the cases' own output."""
    steps: List[List[str]] = []
    compiling: Optional[List[str]] = None
    if plan.build is not None:
        steps.append(list(plan.build))
    if plan.kind in ("python", "our repository") or (
            plan.kind == "command" and any(entry.path.endswith(".py") for entry in copied)):
        compiling = compile_step(plan)
        steps.append(compiling)
    for step in steps:
        result = sandbox.run(step, timeout=timeout, wall=wall)
        log.add(result)
        if result.ended != "exited" or result.exit != 0:
            if step is compiling:
                continue  # a syntax error shows in the cases' own output
            reason = result.describe(sandbox.limits, timeout, wall)
            return f"build failed ({' '.join(step)}: {reason}):\n" + log.tail()
    return None


def _run_after_steps(after: Sequence[Tuple[Sequence[str], float, float]], sandbox: Any,
                     log: _BuildLog) -> Optional[str]:
    """Run the steps after the build (see :func:`build`); return why one failed the
    build (still running at its cap), or None. Other failures are only logged."""
    for argv, cpu, wall in after:
        result = sandbox.run(list(argv), timeout=cpu, wall=wall)
        log.add(result)
        if result.ended in ("timeout", "cpu"):
            reason = result.describe(sandbox.limits, cpu, wall)
            return f"{' '.join(argv)} over its cap ({reason})"
        if result.ended != "exited" or result.exit != 0:
            log.parts.append(f"({' '.join(argv)}: "
                             f"{result.describe(sandbox.limits, cpu, wall)}; "
                             f"ignored)\n".encode())
    return None


def _missing_binary(plan: Plan, sandbox: Any) -> Optional[str]:
    """Why a make build failed when it made no program to run, else None."""
    if plan.kind == "make":
        binary = plan.run[0][2:]
        if not regular_file_in(sandbox.folder, binary):
            return f"build failed: make produced no {binary}"
    return None
