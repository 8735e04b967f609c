"""Scores of a submission from its verdicts, by each assignment's own rule.

FIRST VERSION: passed / total for every program; the per-assignment rules replace it.
"""

from .verdict import Score


def score(program, verdicts):
    """The :class:`~engine.grading.verdict.Score` of a submission's ``verdicts``."""
    passed = sum(1 for verdict in verdicts if verdict.passed)
    total = len(verdicts)
    return Score(passed, total, passed, total)
