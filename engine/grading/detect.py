"""How a submission folder is built and run, found from the files it holds.

:func:`detect` returns a :class:`Plan` as each assignment's grader would run the folder:

    tictactoe / tmmorris  (NAME = tictactoe or tmmorris)
        NAME.py beside engine/   our repository: python3 NAME.py
        Makefile with NAME       make NAME, then ./NAME.bin
        NAME.java                javac NAME.java, then java NAME
        NAME.py                  python3 NAME.py
    take_stones
        TakeStones.java          javac *.java, then java TakeStones
        TakeStones (a script)    python3 TakeStones (our repository's script)
    stake_raid   (in a folder holding input.txt; it writes output.txt)
        homework.py              python3 homework.py
        homework.java            javac homework.java, then java homework
        homework.cpp / .c        g++ / gcc -O2 -o homework ..., then ./homework

``--command CMD`` (see :func:`command_plan`) replaces detection: CMD runs through
``/bin/sh -c`` with ``{args}`` standing for the case's arguments, shell-quoted (without
``{args}`` they are appended).

:func:`build` builds once per submission, in a copy (the submission folder is never
written), inside the same sandbox as the runs and with a time limit. Every failure
(no entry point, a missing toolchain, a compiler error) is a string that becomes the
verdict of every case of the submission, never an exception.
"""

import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

from .sandbox import SAFE_PATH

# Never copied from a submission: version control, virtual environments, caches.
IGNORED = (".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules",
           ".pytest_cache", ".mypy_cache")

SCRIPT_NAMES = {"tictactoe": "tictactoe", "tmmorris": "tmmorris"}


class Plan(NamedTuple):
    """How to build and run one submission.

    ``kind`` names the way (shown in reports); ``build`` is the build argv (None: nothing
    to build); ``run`` the argv the case's arguments follow (or a ``/bin/sh -c`` template,
    see ``template``); ``keep`` the top-level names to copy (None: the whole folder);
    ``error`` says why the folder cannot be run (then nothing else matters).
    """
    kind: str
    run: Tuple[str, ...] = ()
    build: Optional[Tuple[str, ...]] = None
    keep: Optional[Tuple[str, ...]] = None
    template: Optional[str] = None
    error: Optional[str] = None

    def argv(self, args):
        """The argv that runs this plan on a case's arguments."""
        if self.template is not None:
            quoted = " ".join(shlex.quote(arg) for arg in args)
            if "{args}" in self.template:
                line = self.template.replace("{args}", quoted)
            else:
                line = (self.template + " " + quoted) if quoted else self.template
            return ["/bin/sh", "-c", line]
        return list(self.run) + list(args)


def _tool(name):
    return shutil.which(name, path=SAFE_PATH)


def _needs(plan, *tools):
    """``plan``, or a Plan with an error when one of ``tools`` is not installed."""
    for tool in tools:
        if _tool(tool) is None:
            return plan._replace(error=f"{tool} not installed")
    return plan


def _makefile_has_target(folder, target):
    for name in ("GNUmakefile", "makefile", "Makefile"):
        path = folder / name
        if path.is_file():
            text = path.read_text(errors="replace")
            if re.search(rf"^{re.escape(target)}\s*:", text, re.MULTILINE):
                return True
    return False


def _ours(folder):
    return (folder / "engine" / "__init__.py").is_file()


def command_plan(command):
    """The plan of ``--command CMD`` (see the module docstring)."""
    return Plan("command", template=command)


def detect(program, folder):
    """The :class:`Plan` that runs the submission ``folder`` for ``program``."""
    folder = Path(folder)
    if not folder.is_dir():
        return Plan("none", error=f"{folder} is not a folder")
    if program in SCRIPT_NAMES:
        name = SCRIPT_NAMES[program]
        script = f"{name}.py"
        if (folder / script).is_file() and _ours(folder):
            return _needs(Plan("our repository", ("python3", script), keep=(script, "engine")),
                          "python3")
        if _makefile_has_target(folder, name) or _makefile_has_target(folder, f"{name}.bin"):
            return _needs(Plan("make", (f"./{name}.bin",), build=("make", name)), "make")
        if (folder / f"{name}.java").is_file():
            return _needs(Plan("java", ("java", name), build=("javac", f"{name}.java")),
                          "javac", "java")
        if (folder / script).is_file():
            return _needs(Plan("python", ("python3", script)), "python3")
        return Plan("none", error=f"no {script}, {name}.java or Makefile with a {name} target")
    if program == "take_stones":
        if (folder / "TakeStones.java").is_file():
            return _needs(Plan("java", ("java", "TakeStones"),
                               build=("/bin/sh", "-c", "javac *.java")), "javac", "java")
        if (folder / "TakeStones").is_file():
            keep = ("TakeStones", "engine") if _ours(folder) else None
            kind = "our repository" if keep else "python"
            return _needs(Plan(kind, ("python3", "TakeStones"), keep=keep), "python3")
        return Plan("none", error="no TakeStones.java or TakeStones script")
    if program == "stake_raid":
        if (folder / "homework.py").is_file():
            keep = ("homework.py", "engine") if _ours(folder) else None
            kind = "our repository" if keep else "python"
            return _needs(Plan(kind, ("python3", "homework.py"), keep=keep), "python3")
        if (folder / "homework.java").is_file():
            return _needs(Plan("java", ("java", "homework"),
                               build=("javac", "homework.java")), "javac", "java")
        if (folder / "homework.cpp").is_file():
            return _needs(Plan("c++", ("./homework",),
                               build=("g++", "-O2", "-std=c++17", "-o", "homework",
                                      "homework.cpp")), "g++")
        if (folder / "homework.c").is_file():
            return _needs(Plan("c", ("./homework",),
                               build=("gcc", "-O2", "-o", "homework", "homework.c", "-lm")),
                          "gcc")
        return Plan("none", error="no homework.py, homework.java, homework.cpp or homework.c")
    raise ValueError(f"unknown program {program!r}")


def copy_submission(source, destination, keep=None):
    """Copy the submission ``source`` into the new folder ``destination``: the names in
    ``keep`` only, or everything but version control and caches (symlinks stay links)."""
    source, destination = Path(source), Path(destination)
    destination.mkdir()
    ignore = shutil.ignore_patterns(*IGNORED)
    names = keep if keep is not None else sorted(os.listdir(source))
    for name in names:
        if name in IGNORED:
            continue
        path = source / name
        if path.is_symlink() or path.is_file():
            shutil.copy2(path, destination / name, follow_symlinks=False)
        elif path.is_dir():
            shutil.copytree(path, destination / name, symlinks=True, ignore=ignore)


def _tail(data, lines=15):
    text = data.decode("utf-8", errors="replace").rstrip("\n")
    return "\n".join(text.split("\n")[-lines:])


class Build(NamedTuple):
    """A built submission: the folder every case copies (None on failure), the error
    (None on success), the build's log and its seconds, and the group that may read
    the folder (None: anyone; see :meth:`Sandbox.take_back`)."""
    folder: Optional[Path]
    error: Optional[str]
    log: str = ""
    seconds: float = 0.0
    group: Optional[int] = None


def build(plan, submission, sandbox, workspace, timeout=120.0):
    """Build ``submission`` by ``plan`` in a new folder under ``workspace``.

    Python submissions are byte-compiled in the build (with the sandbox's python3), so
    that no case pays for compiling the same modules again.
    """
    if plan.error is not None:
        return Build(None, plan.error)
    folder = Path(tempfile.mkdtemp(prefix="build-", dir=workspace))
    built = folder / "submission"
    try:
        copy_submission(submission, built, plan.keep)
    except OSError as error:
        return Build(None, f"cannot copy the submission: {error}")
    sandbox.renew()
    sandbox.give(str(folder))
    steps = []
    if plan.build is not None:
        steps.append(list(plan.build))
    if plan.kind in ("python", "our repository") or (
            plan.kind == "command" and any(built.rglob("*.py"))):
        steps.append(["python3", "-m", "compileall", "-q", "."])
    log, seconds = [], 0.0
    for index, step in enumerate(steps):
        result = sandbox.run(step, str(built), timeout=timeout)
        seconds += result.wall
        log.append(result.stdout + result.stderr)
        compiling_only = step[:3] == ["python3", "-m", "compileall"]
        if result.ended != "exited" or result.exit != 0:
            if compiling_only:
                continue  # a syntax error shows in the cases' own output
            reason = result.describe(sandbox.limits._replace(timeout=timeout))
            return Build(None, f"build failed ({' '.join(step)}: {reason}):\n"
                         + _tail(b"".join(log)), _tail(b"".join(log), 200), seconds)
    if plan.kind == "make":
        binary = plan.run[0][2:]
        if not (built / binary).is_file():
            return Build(None, f"build failed: make produced no {binary}",
                         _tail(b"".join(log), 200), seconds)
    group = sandbox.take_back(str(folder))
    return Build(built, None, _tail(b"".join(log), 200), seconds, group)
