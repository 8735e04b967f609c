"""The golden harness: replay fixture cases exactly the way a grader runs a program.

The case layout, the run and the comparison live in :mod:`engine.grading.case` (the
grading kit uses the same code); this module only finds the fixture cases and picks the
interpreter. PYTHON is ``sys.executable`` unless the environment variable GOLDEN_PYTHON
names another interpreter (``.ci/run`` sets it to pypy3 and python3.8 to replay under
them).
"""

import os
import sys

from engine.grading.case import REPO, replay as replay_case

FIXTURES = REPO / "fixtures"


def interpreter():
    """The Python that runs the programs under test."""
    return os.environ.get("GOLDEN_PYTHON") or sys.executable


def all_cases():
    """Every case folder, sorted, as paths."""
    return sorted(path.parent for path in FIXTURES.glob("*/*/cmd"))


def case_id(case):
    return f"{case.parent.name}/{case.name}"


def replay(case, workdir, timeout=600):
    """Run the case folder ``case`` in the empty ``workdir``; return a list of mismatches."""
    return replay_case(case, workdir, python=interpreter(), timeout=timeout)
