"""Scores of a submission from its verdicts, by each assignment's own rule.

``score`` / ``max_score`` are always cases passed / cases run. ``points`` /
``max_points`` follow the assignment: its judge's ``score(verdicts) -> (points,
max_points)`` (Stake/Raid: 50 points, one lost per failed case, 0 when output.txt was
missing or unparsable in any case; the others: :func:`one_point_per_case`).

No case run: every figure is 0 (Stake/Raid: 0 of its 50 points).
"""

from typing import Iterable, Sequence, Tuple

from .judges import GradedAssignment
from .verdict import Score, Verdict


def one_point_per_case(verdicts: Sequence[Verdict]) -> Tuple[float, float]:
    """The usual rule: one point per case passed, of one per case run."""
    return sum(1 for verdict in verdicts if verdict.passed), len(verdicts)


def score(assignment: GradedAssignment, verdicts: Iterable[Verdict]) -> Score:
    """The :class:`~engine.grading.verdict.Score` of a submission's ``verdicts``."""
    judged = list(verdicts)
    passed, total = one_point_per_case(judged)
    points, most = assignment.judge.score(judged)
    return Score(passed, total, points, most)
