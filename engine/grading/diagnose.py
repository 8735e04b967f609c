"""Judging a finished run: pass or fail, and why a person would want to know.

Contract: :func:`diagnose` gets the program name (``tictactoe``, ``tmmorris``,
``take_stones`` or ``stake_raid``), the :class:`~engine.grading.case.Case` and the
:class:`~engine.grading.case.Outcome` of a run that ended by itself (timeouts and limit
kills are judged by the runner), and returns a :class:`~engine.grading.verdict.Verdict`.
Only what the assignment's grader compares is graded; exit status, stderr and stray
files may be mentioned in ``detail`` but never fail a case.

FIRST VERSION: byte comparison of everything the case expects; the per-program
diagnoses replace it.
"""

from .case import compare
from .verdict import Verdict


def diagnose(program, case, outcome, lenient=False):
    """The Verdict of ``outcome`` on ``case`` for ``program`` (see the module docstring)."""
    problems = compare(case, outcome)
    if not problems:
        return Verdict(True, "passed")
    return Verdict(False, problems[0], "\n".join(problems))
