"""Scores of a submission from its verdicts, by each assignment's own rule.

``score`` / ``max_score`` are always cases passed / cases run. ``points`` /
``max_points`` follow the assignment: its module in engine.grading.assignments may define
``score(verdicts) -> (points, max_points)`` (Stake/Raid: 50 points, one lost per failed
case, 0 when output.txt was missing or unparsable in any case); otherwise one point per
case passed, ``points = passed``, ``max_points = cases``.

No case run: every figure is 0 (Stake/Raid: 0 of its 50 points).
"""

from .. import registry
from .verdict import Score


def score(program, verdicts):
    """The :class:`~engine.grading.verdict.Score` of a submission's ``verdicts``."""
    verdicts = list(verdicts)
    passed = sum(1 for verdict in verdicts if verdict.passed)
    total = len(verdicts)
    rule = getattr(registry.assignment(program).judge_module(), "score", None)
    if rule is not None:
        points, most = rule(verdicts)
        return Score(passed, total, points, most)
    return Score(passed, total, passed, total)
