"""What grading says of one run of a submission on one case, and of a whole submission."""

from typing import NamedTuple


class Verdict(NamedTuple):
    """The judgement of one case.

    ``reason`` is one line a person reads first ("passed", "wrong move", "CRLF line
    endings", "timed out after 10 s", ...); ``detail`` the longer explanation shown in
    reports (may span lines, may be empty). ``lenient`` marks a pass that needed the
    ``--lenient`` comparison. ``unusable_output`` marks a run whose graded output file
    was missing or could not be parsed (Stake/Raid's output.txt: the assignment then
    gives the whole submission 0 points, see engine.grading.scoring). ``cosmetic`` marks
    a failure that only cosmetic differences cause, all of which ``--lenient`` forgives.
    """
    passed: bool
    reason: str
    detail: str = ""
    lenient: bool = False
    unusable_output: bool = False
    cosmetic: bool = False


class Score(NamedTuple):
    """A submission's totals: cases passed of cases run, and the assignment's points."""
    score: float
    max_score: float
    points: float
    max_points: float
