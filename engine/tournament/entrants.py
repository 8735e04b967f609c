"""Who plays: entrants found from the command line, and how each is built and run.

An entrant is a folder, as the course's competition handout sets them out: a Makefile
whose ``agent`` target builds (a failure eliminates the entrant), whose optional
``calibrate`` target runs once after the build (errors ignored; one still running
after 5 minutes of wall time or of CPU is killed and eliminates the entrant, with the
reason; what it writes stays in the folder), whose optional ``newgame`` target runs
before each game (errors ignored) and whose ``run`` target plays one move. Without a
Makefile, the game's entry points are run as the grading kit runs them (Stake/Raid:
``homework.py``, ``homework.java``, ``homework.cpp``, ``homework11.cpp``, ``homework.c``;
Line 'em Up: ``lineemup_agent.py``).

A folder that is no entrant but holds subfolders stands for each of them (a class
folder), those that are no entrant included: they are eliminated with the reason, so that
nobody silently drops out of the standings. ``ours:NAME`` is one of our own players,
run from a copy of this engine through the same protocol and the same sandbox.

Detection reads what students handed in, so it never follows a link and reads regular
files only (:mod:`engine.grading.detect`). Building runs in the grading kit's sandbox
(:func:`engine.grading.detect.build`).
"""

import os
import shutil
from pathlib import Path
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..errors import EngineError
from .games import Rules, our_command
from ..grading.detect import (
    Build, Plan, build, is_file, makefile_has_target, needs, submission_root)

# The handout's calibration: once, after the build, killed after 5 minutes of wall time
# (or of CPU), which eliminates the entrant: a stall is bounded and named, never silent.
CALIBRATE_SECONDS = 300.0
# make newgame before each game: errors ignored; these caps keep it from stalling a game.
NEWGAME_CPU, NEWGAME_WALL = 10.0, 30.0
# A build step's CPU seconds and wall-clock seconds (a C++ or Java compile takes a few):
# a build still running after BUILD_WALL seconds is killed and eliminates the entrant.
BUILD_SECONDS = 300.0
BUILD_WALL = 300.0
OURS_PREFIX = "ours:"
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# A folder as callers give it.
PathLike = Union[str, Path]


class EntrantError(EngineError, ValueError):
    """An entrant on the command line that cannot be taken (the message says why)."""


class Entrant(NamedTuple):
    """One entrant: ``name`` (unique in the tournament), ``path`` as given (a folder, or
    ``ours:NAME``), ``kind`` (makefile, python, java, c++, c, ours; none when nothing
    can run it), whether it is ``staff``, the ``plan`` that builds and runs it, the
    ``source`` folder copied for the build, and whether it has a ``newgame`` target."""
    name: str
    path: str
    kind: str
    staff: bool
    plan: Plan
    source: str
    newgame: bool = False

    def calibrate_steps(self) -> List[Tuple[Tuple[str, ...], float, float]]:
        """The steps run once after a successful build (their errors are ignored; one
        over its cap eliminates the entrant)."""
        if self.kind == "makefile" and makefile_has_target(Path(self.source), "calibrate"):
            return [(("make", "calibrate"), CALIBRATE_SECONDS, CALIBRATE_SECONDS)]
        return []


def has_makefile(folder: PathLike) -> bool:
    return any(is_file(Path(folder) / name) for name in MAKEFILES)


def plan_for(rules: Rules, folder: PathLike) -> Plan:
    """The :class:`Plan` that builds and runs the entrant ``folder`` for the game
    ``rules`` (kind "none", with the reason, when nothing can): its Makefile, else the
    game's own entry points (``rules.entrant_plan``)."""
    folder = Path(folder)
    if has_makefile(folder):
        return needs(Plan("makefile", ("make", "run"), build=("make", "agent")), "make")
    plan = rules.entrant_plan(folder)
    if plan is not None:
        return plan
    names = ["Makefile"] + list(rules.entry_points)
    # "no Makefile or lineemup_agent.py"; "no Makefile, homework.py, ... or homework.c"
    return Plan("none", error="no " + ", ".join(names[:-1]) + " or " + names[-1])


def _is_entrant(rules: Rules, folder: PathLike) -> bool:
    return plan_for(rules, folder).kind != "none"


def _subfolders(folder: str) -> List[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.abspath(os.path.join(folder, name)) for name in names
            if not name.startswith(".") and os.path.isdir(os.path.join(folder, name))
            and not os.path.islink(os.path.join(folder, name))]


def _loose_files(folder: str) -> List[str]:
    """The files (not folders, not hidden) beside a class folder's entrants."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.abspath(os.path.join(folder, name)) for name in names
            if not name.startswith(".") and not os.path.isdir(os.path.join(folder, name))]


LOOSE_FILE = ("a loose file beside the entrants' folders: put it in a folder of its own "
              "to enter it")


def expand(rules: Rules, paths: Iterable[str]) -> List[str]:
    """The entrant folders and ``ours:`` names among ``paths``, a class folder (no entrant
    itself, with at least one subfolder that is one) standing for all its subfolders.
    Raises EntrantError for a path that is neither a folder nor one of our players."""
    found = []
    for path in paths:
        if path.startswith(OURS_PREFIX):
            player = path[len(OURS_PREFIX):]
            if player not in rules.ours:
                raise EntrantError(f"no player {path} for {rules.title} (ours: "
                                   + ", ".join(OURS_PREFIX + name for name in rules.ours)
                                   + ")")
            found.append(path)
            continue
        if not os.path.isdir(path):
            raise EntrantError(f"{path}: no such folder (an entrant is a folder or "
                               f"{OURS_PREFIX}NAME)")
        if not _is_entrant(rules, path):
            children = _subfolders(path)
            if any(_is_entrant(rules, child) for child in children):
                # Every entry of a class folder is in the standings: a loose file too,
                # eliminated with the reason (see resolve), never dropped silently.
                found.extend(sorted(children + _loose_files(path)))
                continue
        found.append(os.path.abspath(path))
    return found


def _names(paths: Sequence[str]) -> List[str]:
    """A unique, readable name per path: the folder's name, with its parent's when two
    share it, and a number when even that is not enough."""
    def short(path: str, parts: int) -> str:
        if path.startswith(OURS_PREFIX):
            return path
        pieces = [piece for piece in Path(path).parts if piece != "/"]
        return "/".join(pieces[-parts:]) or path
    names = [short(path, 1) for path in paths]
    for parts in (2, 3):
        counts: Dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        names = [short(path, parts) if counts[name] > 1 else name
                 for path, name in zip(paths, names)]
    seen: Dict[str, int] = {}
    unique: List[str] = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return unique


def resolve(rules: Rules, paths: Iterable[str], staff_paths: Iterable[str], ours_source: Any,
            distinct: bool = True) -> List["Entrant"]:
    """The tournament's entrants: ``paths`` then ``staff_paths`` (see :func:`expand`),
    each folder once (with ``distinct`` False, a path given twice is two entrants, the
    second named ``NAME#2``: an SPRT of a player against itself). ``ours_source`` is a
    folder holding a copy of the engine package, which our players run from. Raises
    EntrantError."""
    players = [(path, False) for path in expand(rules, paths)]
    players += [(path, True) for path in expand(rules, staff_paths)]
    seen, unique = set(), []
    for path, staff in players:
        if path not in seen or not distinct:
            seen.add(path)
            unique.append((path, staff))
    if len(unique) < 2 and not any(staff for _, staff in unique):
        raise EntrantError(f"a tournament needs at least two entrants, got {len(unique)}")
    return [entrant_for(rules, name, path, staff, ours_source)
            for name, (path, staff) in zip(_names([path for path, _ in unique]), unique)]


def entrant_for(rules: Rules, name: str, path: str, staff: bool = False,
                ours_source: Any = None) -> "Entrant":
    """The :class:`Entrant` ``name`` for one ``path`` (a folder, a loose file of a class
    folder, or ``ours:NAME``, already checked): how it is built and run. A ladder makes
    its entrants one at a time."""
    if path.startswith(OURS_PREFIX):
        player = path[len(OURS_PREFIX):]
        plan = Plan("our repository", tuple(our_command(rules, player)))
        return Entrant(name, path, "ours", staff, plan, ours_source)
    if os.path.isdir(path):
        plan = plan_for(rules, path)
    else:
        plan = Plan("none", error=LOOSE_FILE)
    kind = "python" if plan.kind == "our repository" else plan.kind
    newgame = plan.kind == "makefile" and makefile_has_target(Path(path), "newgame")
    return Entrant(name, path, kind, staff, plan, path, newgame)


def error_summary(error: object) -> str:
    """One line for a build error: its first line, and the compiler's first line that
    says "error" (else the log's last line) when the first line ends with a colon."""
    lines = [line.strip() for line in str(error).split("\n") if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if not first.endswith(":") or len(lines) == 1:
        return first
    said = [line for line in lines[1:] if "error" in line.lower()]
    return f"{first} {(said or lines[-1:])[0]}"


def copy_engine(destination: str) -> str:
    """Copy this engine package (its Python files) into ``destination``/engine, for our
    players: their runs cannot see the checkout itself (the sandbox hides it)."""
    package = Path(__file__).resolve().parent.parent
    shutil.copytree(package, os.path.join(destination, "engine"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return destination


class Built(NamedTuple):
    """An entrant after its build: the kit's Build (``build.folder`` is None when it
    failed, ``build.error`` says why)."""
    entrant: Entrant
    build: Build

    @property
    def error(self) -> Optional[str]:
        return self.build.error


def steps_text(entrant: Entrant) -> str:
    """What building ``entrant`` runs, with each step's wall-clock cap, in words (for the
    progress line printed before it starts)."""
    words = []
    if entrant.plan.build is not None:
        words.append(f"{' '.join(entrant.plan.build)} (up to {BUILD_WALL:g} s)")
    for argv, _cpu, wall in entrant.calibrate_steps():
        words.append(f"{' '.join(argv)} (up to {wall:g} s)")
    return ", then ".join(words) or "copying"


def prepare(entrant: Entrant, sandbox: Any, builds: str) -> "Built":
    """Build ``entrant`` (and calibrate it) in ``sandbox``; the result lives under
    ``builds``. Never raises for the entrant's own failures: they are the Build's error
    (a build step over BUILD_WALL seconds of wall time is one)."""
    try:
        root = submission_root(entrant.source)
    except OSError as error:
        return Built(entrant, Build(None, f"cannot read {entrant.source}: {error}"))
    result = build(entrant.plan, root, sandbox, builds, timeout=BUILD_SECONDS,
                   after=entrant.calibrate_steps(), wall=BUILD_WALL)
    return Built(entrant, result)
