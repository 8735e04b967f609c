"""Helpers of the grading-kit tests: tiny submissions and cases written on the spot."""

import shutil
from pathlib import Path

import pytest

from golden import REPO

from engine.grading.case import Case
from engine.grading.results import Results
from engine.grading.runner import Runner
from engine.sandbox import Limits
from engine.sandbox._bubblewrap import bwrap_works
from engine.sandbox._landlock import landlock_works
from engine.grading.judges import load as load_assignment

# Every file fence this machine offers (cgroups and a uid per run join each when they
# can run here).
ISOLATIONS = (["rlimits"] + (["landlock"] if landlock_works() else [])
              + (["bwrap"] if bwrap_works() else []))


def isolation_params(keep=None):
    """ISOLATIONS as pytest parameters for the hostile suites: those of ``keep`` (default:
    the strongest fence here, the one ``auto`` picks: bwrap, else landlock, else rlimits)
    run every day, the others are their long variants, marked slow (make test-all)."""
    if keep is None:
        keep = ISOLATIONS[-1:]
    return [name if name in keep else pytest.param(name, marks=pytest.mark.slow)
            for name in ISOLATIONS]


def stake_raid_case(name="c1", output=b"ok\n"):
    """A Stake/Raid-shaped case: input.txt in, output.txt expected (contents arbitrary:
    the hostile submissions below decide what they write)."""
    return Case(name, "homework.py", (), files={"input.txt": b"anything\n"},
                expected={"output.txt": output})


def submission(folder, files):
    """Write ``files`` ({name: text}) into the new folder ``folder``; return its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def our_copy(folder, script, replace=None):
    """A copy of our repository's ``script`` and engine/ in ``folder``; ``replace``
    ({relative path: (old, new)}) edits a file of the copy (a deliberately broken one)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / script, folder / script)
    shutil.copytree(REPO / "engine", folder / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for relative, (old, new) in (replace or {}).items():
        path = folder / relative
        text = path.read_text()
        assert old in text, f"{old!r} not in {relative}"
        path.write_text(text.replace(old, new, 1))
    return folder


def grade(program, submissions, cases, isolation="auto", json_path=None, previous=None,
          jobs=2, command=None, lenient=False, hidden=(), **limits):
    """Grade ``submissions`` (paths) on ``cases``; return the results document."""
    limits = Limits(**dict(dict(timeout=5.0, memory_mb=512, output_mb=2), **limits))
    results = Results(program, json_path, lenient=lenient, previous=previous)
    runner = Runner(load_assignment(program), cases, results, limits, jobs=jobs, lenient=lenient,
                    command=command, isolation=isolation, build_timeout=60, hidden=hidden)
    results.document["isolation"] = runner.isolation
    results.document["fences"] = list(runner.fences)
    runner.run([str(path) for path in submissions])
    return results.document


def only_case(document):
    [entry] = document["submissions"]
    [case] = entry["cases"]
    return case


# A Stake/Raid COMPETITION agent that stakes the first empty square (row by row): always
# legal, deterministic, quick; LAST_EMPTY stakes the last one. For tournaments and
# cluster runs (tests and benchmarks).
FIRST_EMPTY = """\
lines = open("input.txt").read().split("\\n")
n = int(lines[0])
for r, row in enumerate(lines[4 + n:4 + 2 * n]):
    for c, mark in enumerate(row):
        if mark == ".":
            open("output.txt", "w").write("%s%d Stake\\n" % (chr(65 + c), r + 1))
            raise SystemExit(0)
"""
LAST_EMPTY = FIRST_EMPTY.replace("enumerate(lines[4 + n:4 + 2 * n])",
                                 "reversed(list(enumerate(lines[4 + n:4 + 2 * n])))")
