"""Scores of a submission from its verdicts, by each assignment's own rule.

``score`` / ``max_score`` are always cases passed / cases run. ``points`` /
``max_points`` follow the assignment:

* stake_raid (CSCI-561 HW2): "50 - failed" over 50 cases, i.e. 50 points, one lost per
  failed case; for another number of cases the same rule scaled to it:
  ``points = 50 * passed / cases`` (exactly ``50 - failed`` with 50 cases), rounded to
  two decimals. And 0 points when output.txt was missing or unparsable in ANY case
  (:attr:`Verdict.unusable_output`), however many cases passed.
* tictactoe, tmmorris, take_stones: one point per case passed, ``points = passed``,
  ``max_points = cases``.

No case run: every figure is 0.
"""

from .verdict import Score

STAKE_RAID_POINTS = 50


def score(program, verdicts):
    """The :class:`~engine.grading.verdict.Score` of a submission's ``verdicts``."""
    verdicts = list(verdicts)
    passed = sum(1 for verdict in verdicts if verdict.passed)
    total = len(verdicts)
    if program == "stake_raid":
        if not total or any(getattr(v, "unusable_output", False) for v in verdicts):
            points = 0
        else:
            points = round(STAKE_RAID_POINTS * passed / total, 2)
            if points == int(points):
                points = int(points)
        return Score(passed, total, points, STAKE_RAID_POINTS)
    return Score(passed, total, passed, total)
