"""Gradescope autograder bundles: ``grade autograder`` makes the zip, ``grade
gradescope-run`` (what the zip's ``run_autograder`` calls) grades one student in it.

The zip (Gradescope unpacks it into ``/autograder/source``)::

    setup.sh           installs what the chosen languages need on Gradescope's Ubuntu
                       image (python3, bubblewrap, util-linux; a JDK; g++ and make)
    run_autograder     grades /autograder/submission; ALWAYS leaves
                       /autograder/results/results.json (score 0 and a message when the
                       kit itself fails)
    autograder.json    the program, limits, languages, leaderboard switch
    engine/            this engine (the reference and the kit)
    cases/visible/     the cases students see (``--cases``)
    cases/hidden/      the cases shown only once the grades are published (``--hidden``)

A student's code runs in the kit's sandbox as a uid of its own, never as root (the kit
runs as root on Gradescope). The score follows the assignment's rule over every case,
hidden ones included; each test's output (Markdown) gives the command, the inputs, the
diagnosis, an excerpt of the expected and actual output and how to rerun the case.
With ``--leaderboard`` (an assignment whose registry entry has a ``leaderboard``:
Stake/Raid), the student's competition agent also plays a short gauntlet against the
staff agents the registry names (``python3 -m engine tournament``, run as a command: the
kit imports no tournament code) and its points and rating go to the leaderboard.
"""

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import (Any, Callable, Collection, Dict, Iterable, List, Mapping, Optional, Set,
                    Tuple, Union)

from .exports import KIT_HINT, installed_stepper, standalone
from .judges import load as load_assignment
from .printable import printable
from .. import registry
from ..commandline import write_atomically
from ..errors import EngineError
from ..sandbox import IsolationError, syscall_filters

PACKAGE = Path(__file__).resolve().parent.parent
LANGUAGES = {"python": ["python3"], "java": ["default-jdk-headless"],
             "cpp": ["g++", "make"]}
# What every bundle needs whatever the language: the kit's sandbox (bwrap) and the
# limits it sets (prlimit, setpriv: util-linux).
BASE_PACKAGES = ["python3", "bubblewrap", "util-linux"]
CONFIG = "autograder.json"
HIDDEN_PREFIX = "hidden-"
# Gradescope's autograder root; tests point AUTOGRADER_ROOT at a folder laid out alike.
ROOT_VARIABLE = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
# The leaderboard's gauntlet is short: its opponents and boards are the assignment's
# (engine.registry's Leaderboard), the rest is this.
LEADERBOARD_ARGS = ("--format", "gauntlet", "--time", "5", "--jobs", "1", "--quiet")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder image is built: the packages
# the grading kit and the submissions' languages ({languages}) need.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq {packages}
"""

RUN_AUTOGRADER = """#!/bin/sh
# Gradescope runs this for each submission: grade /autograder/submission with the kit's
# sandbox against the bundled cases, write /autograder/results/results.json.
ROOT="${{{variable}:-{default}}}"
# A relative root (AUTOGRADER_ROOT=ag, to try a bundle) names a folder of the caller's
# current one: made absolute before the cd below changes what it would name.
case "$ROOT" in
    /*) ;;
    *) ROOT="$(pwd)/$ROOT" ;;
esac
SOURCE="$ROOT/source"
mkdir -p "$ROOT/results"
# The cases' expected outputs are the answers: readable by the kit alone, also where no
# file fence (bwrap, Landlock) can run and submissions run only as uids of their own.
chmod -R go-rwx "$SOURCE" 2>/dev/null
cd "$SOURCE" && PYTHONPATH="$SOURCE" python3 -m engine grade gradescope-run --root "$ROOT"
if [ ! -s "$ROOT/results/results.json" ]; then
    # Not even Python could write it: a results file all the same, with the reason.
    printf '%s' '{{"score": 0, "visibility": "visible", "tests": [], "output": ' \\
        '"The autograder failed before it could grade your submission ' \\
        '(this is not about your code): please tell your course staff."}}' \\
        > "$ROOT/results/results.json"
fi
exit 0
"""


class BundleError(EngineError, ValueError):
    """The bundle cannot be made (the message says why)."""


def setup_script(languages: Iterable[str]) -> str:
    """setup.sh for ``languages`` (names of LANGUAGES)."""
    packages = list(BASE_PACKAGES)
    for language in languages:
        for package in LANGUAGES[language]:
            if package not in packages:
                packages.append(package)
    return SETUP_SH.format(languages=", ".join(languages), packages=" ".join(packages))


def run_script() -> str:
    return RUN_AUTOGRADER.format(variable=ROOT_VARIABLE, default=DEFAULT_ROOT)


def _add(archive: zipfile.ZipFile, name: str, data: Union[str, bytes],
         executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _add_tree(archive: zipfile.ZipFile, folder: Union[str, Path], prefix: str) -> None:
    """Every regular file under ``folder`` (no links followed), as ``prefix/relative``."""
    folder = Path(folder)
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.suffix == ".pyc":
            continue
        mode = path.stat().st_mode
        _add(archive, f"{prefix}/{path.relative_to(folder).as_posix()}", path.read_bytes(),
             executable=bool(mode & 0o111))


def build_bundle(program: str, cases: str, hidden: Optional[str], out: str,
                 languages: List[str], timeout: float, memory: int, leaderboard: bool,
                 load_cases: Callable[[str], Collection[Any]]) -> Tuple[int, int]:
    """Write the zip ``out`` for ``program`` (see the module docstring); ``cases`` and
    ``hidden`` are case folders (``hidden`` may be None), checked with ``load_cases``.
    Returns (visible count, hidden count). Raises BundleError."""
    counts: List[int] = []
    for folder in (cases, hidden):
        if folder is None:
            counts.append(0)
            continue
        try:
            counts.append(len(load_cases(folder)))
        except (OSError, ValueError) as error:
            raise BundleError(str(error)) from None
    unknown = [language for language in languages if language not in LANGUAGES]
    if unknown or not languages:
        raise BundleError(f"--languages: choose from {', '.join(LANGUAGES)}, not "
                          f"{','.join(unknown) or 'nothing'}")
    entry = registry.assignment(program)
    if leaderboard and (entry is None or entry.leaderboard is None):
        raise BundleError("--leaderboard needs a competition agent: " + ", ".join(
            found.name for found in registry.with_leaderboard()))
    config = {"program": program, "timeout": timeout, "memory": memory,
              "languages": list(languages), "leaderboard": bool(leaderboard)}
    folder = os.path.dirname(os.path.abspath(out))
    descriptor, temporary = tempfile.mkstemp(prefix=".autograder.", suffix=".zip",
                                             dir=folder)
    os.close(descriptor)
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            _add(archive, "setup.sh", setup_script(languages), executable=True)
            _add(archive, "run_autograder", run_script(), executable=True)
            _add(archive, CONFIG, json.dumps(config, indent=1) + "\n")
            _add_tree(archive, PACKAGE, "engine")
            _add_tree(archive, cases, "cases/visible")
            if hidden is not None:
                _add_tree(archive, hidden, "cases/hidden")
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return counts[0], counts[1]


# --- inside Gradescope -------------------------------------------------------------------

def _fence(text: str) -> str:
    """``text`` in a Markdown code block that it cannot close."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text.rstrip(chr(10))}\n{fence}"


def test_output(case: Mapping[str, Any]) -> str:
    """A test's Markdown output: the diagnosis, the command and inputs, excerpts of the
    expected and actual outputs, and the command that reruns it."""
    parts = [printable(case["reason"])]
    if case.get("detail") and case["detail"] != case["reason"]:
        parts.append(_fence(printable(case["detail"], newlines=True)))
    if case.get("lenient"):
        parts.append("(passed only because trailing blanks were ignored)")
    if case["passed"]:
        return "\n\n".join(parts)
    if case.get("command"):
        parts.append("**Command:** `" + printable(case["command"]).replace("`", "'") + "`")
    for name, text in sorted(((case.get("inputs") or {}).get("files") or {}).items()):
        parts.append(f"**{printable(name)}:**\n\n" + (
            _fence(printable(text, newlines=True)) if text is not None
            else "(too large to show)"))
    for compared in case.get("compared") or ():
        line = compared.get("from_line", 1)
        for key in ("expected", "actual"):
            shown = compared.get(key)
            label = f"**{key.capitalize()} {printable(compared['what'])}** (from line {line})"
            parts.append(label + ":\n\n" + ("(missing)" if shown is None else "(empty)"
                                             if shown == "" and line == 1 else
                                             _fence(printable(shown, newlines=True))))
    if case.get("stderr"):
        parts.append("**stderr (the end):**\n\n" + _fence(printable(case["stderr"],
                                                                       newlines=True)))
    if case.get("rerun"):
        parts.append("**To rerun it in your folder:**\n\n"
                     + _fence(printable(case["rerun"], newlines=True)))
    stepper = installed_stepper(case)
    if stepper:
        parts.append("**To watch the expected search step by step with your visited file "
                     f"laid over it** (this reruns the case first; open steps.html; "
                     f"{KIT_HINT}):\n\n"
                     + _fence(printable(standalone(case, stepper), newlines=True)))
    return "\n\n".join(parts)


def results_json(document: Mapping[str, Any], entry: Mapping[str, Any],
                 hidden_names: Collection[str],
                 leaderboard: Optional[List[Dict[str, Any]]] = None) -> Dict[str, Any]:
    """Gradescope's results.json of one graded submission ``entry``: a test per case
    (hidden ones visible after publication), the score by the assignment's rule."""
    cases = entry["cases"]
    each = (entry["max_points"] / len(cases)) if cases else 0
    tests: List[Dict[str, Any]] = []
    for number, case in enumerate(cases, 1):
        hidden = case["case"] in hidden_names
        name = printable(case.get("title") or case["case"])
        output = test_output(case)
        if hidden:
            # Named by its number only: a name or an input would tell what it tests.
            title = name[len(HIDDEN_PREFIX):] if name.startswith(HIDDEN_PREFIX) else name
            output = f"**{title}**\n\n" + output
            name = f"hidden case {number}"
        tests.append({
            "name": name,
            "number": str(number), "score": round(each if case["passed"] else 0, 4),
            "max_score": round(each, 4), "status": "passed" if case["passed"] else "failed",
            "output": output, "output_format": "md",
            "visibility": "after_published" if hidden else "visible"})
    if entry.get("build_error"):
        # Not graded: one test saying why, not the same message once per case.
        tests = [{"name": "not graded", "number": "1", "score": 0,
                  "max_score": round(entry["max_points"], 4), "status": "failed",
                  "output": _fence(printable(entry["build_error"], newlines=True)),
                  "output_format": "md", "visibility": "visible"}]
    hidden_count = sum(1 for case in cases if case["case"] in hidden_names)
    visible = [case for case in cases if case["case"] not in hidden_names]
    lines = [f"**{entry['points']:g} / {entry['max_points']:g} points** "
             f"({document['program']}: {entry['score']:g} of {entry['max_score']:g} cases "
             f"passed)."]
    if hidden_count:
        lines.append(f"The score counts {len(visible)} visible and {hidden_count} hidden "
                     f"cases; the hidden ones appear here once the grades are published. "
                     f"Visible cases passed: {sum(1 for c in visible if c['passed'])} of "
                     f"{len(visible)}.")
    if entry.get("build_error"):
        lines.append("Your submission could not be run:\n\n"
                     + _fence(printable(entry["build_error"], newlines=True)))
    if any(case.get("unusable_output") for case in cases) and entry["points"] == 0:
        judge = load_assignment(document["program"]).judge
        if judge.UNREADABLE_ZEROES:
            lines.append(f"The assignment's rule: 0 points when {judge.FILE_LABEL} is "
                         "missing or cannot be read in any case.")
    filters = syscall_filters(case.get("seccomp") for case in cases)
    lines.append(f"Your code ran in a sandbox ({document.get('isolation', '')}"
                 + (f"; {filters}" if filters else "") + "), as its own user, with no "
                 "network.")
    results: Dict[str, Any] = {"score": entry["points"], "output": "\n\n".join(lines),
               "output_format": "md", "visibility": "visible",
               "stdout_visibility": "hidden", "tests": tests}
    if leaderboard is not None:
        results["leaderboard"] = leaderboard
    return results


def kit_failure(error: BaseException) -> Dict[str, Any]:
    """results.json when the kit itself failed: score 0, a message a student reads."""
    return {"score": 0, "visibility": "visible", "output_format": "md", "tests": [],
            "output": ("The autograder failed before it could grade your submission "
                       "(this is not about your code; please tell your course staff): "
                       f"`{printable(type(error).__name__)}: {printable(str(error))}`")}


def leaderboard_command(program: str, submission: str, out: str) -> List[str]:
    """The command that plays the leaderboard's gauntlet of ``submission``, the
    assignment ``program``'s competition agent, and writes its results to ``out``
    (KeyError for an assignment without a leaderboard)."""
    entry = registry.assignment(program)
    if entry is None or entry.leaderboard is None:
        raise KeyError(program)
    return [sys.executable, "-m", "engine", "tournament", "run", entry.name, submission,
            "--staff", *entry.leaderboard.staff, "--sizes", entry.leaderboard.sizes,
            *LEADERBOARD_ARGS, "--json", out]


def leaderboard_entries(source: Union[str, Path], submission: Union[str, Path],
                        program: str) -> Optional[List[Dict[str, Any]]]:
    """The leaderboard of a short gauntlet of ``submission`` (the assignment
    ``program``'s) against our staff agents, or None when it could not be played."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "gauntlet.json")
        command = leaderboard_command(program, str(submission), out)
        environment = dict(os.environ, PYTHONPATH=str(source))
        done = subprocess.run(command, cwd=str(source), env=environment,
                              capture_output=True, timeout=1800)
        if done.returncode != 0 or not os.path.exists(out):
            return None
        with open(out, encoding="utf-8") as handle:
            document = json.load(handle)
    mine = [row for row in document["entrants"] if not row["staff"]]
    if not mine or mine[0]["build_error"]:
        return None
    row = mine[0]
    return [{"name": "Points against the staff agents", "value": row["points"],
             "order": "desc"},
            {"name": "Rating (Elo)", "value": row["rating"] if row["rating"] is not None
             else 0, "order": "desc"}]


def gradescope_run(root: Union[str, Path],
                   grade: Callable[[str, List[Any], Path, Dict[str, Any]], Dict[str, Any]]
                   ) -> int:
    """Grade ``root``/submission by the bundle in ``root``/source and write
    ``root``/results/results.json whatever happens. ``grade(program, cases, submission,
    config)`` runs the kit and returns its results document. Returns 0."""
    root = Path(os.path.abspath(root))
    out = root / "results" / "results.json"
    code = 0
    try:
        os.makedirs(out.parent, exist_ok=True)
        source = root / "source"
        with open(source / CONFIG, encoding="utf-8") as handle:
            config = json.load(handle)
        results = _grade_one(root, source, config, grade)
    except IsolationError as error:
        # Fail closed: no fence could hold the submission here (not root, neither bwrap
        # nor Landlock): it is not run; the student and the staff are told why.
        results = isolation_refused(error)
        print(f"grade gradescope-run: {error}", file=sys.stderr)
        code = 2
    except Exception as error:  # noqa: BLE001 - a results file must be written
        results = kit_failure(error)
    write_atomically(str(out), json.dumps(results, indent=1) + "\n")
    return code


def isolation_refused(error: BaseException) -> Dict[str, Any]:
    """results.json when the container can fence no submission in (see
    :func:`engine.sandbox.refusal`): nothing was run."""
    return {"score": 0, "visibility": "visible", "output_format": "md", "tests": [],
            "output": ("Your submission was not run: this autograder cannot isolate "
                       "submissions in its container (not about your code; please tell "
                       f"your course staff): `{printable(str(error))}`")}


def _grade_one(root: Path, source: Path, config: Dict[str, Any],
               grade: Callable[[str, List[Any], Path, Dict[str, Any]], Dict[str, Any]]
               ) -> Dict[str, Any]:
    from .runner import load_cases
    program = config["program"]
    cases = list(load_cases(source / "cases" / "visible"))
    hidden_names: Set[str] = set()
    if (source / "cases" / "hidden").is_dir():
        for case in load_cases(source / "cases" / "hidden"):
            renamed = case._replace(name=HIDDEN_PREFIX + case.name)
            hidden_names.add(renamed.name)
            cases.append(renamed)
    submission = root / "submission"
    document = grade(program, cases, submission, config)
    entry = document["submissions"][0]
    leaderboard = None
    if config.get("leaderboard") and not entry.get("build_error"):
        leaderboard = leaderboard_entries(source, submission, program)
    return results_json(document, entry, hidden_names, leaderboard)

