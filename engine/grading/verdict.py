"""What grading says of one run of a submission on one case (a Verdict, from the Findings
of its graded outputs), and of a whole submission (a Score)."""

from typing import Iterable, NamedTuple


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


class Finding:
    """One graded output's judgement: ``ok`` (possibly only thanks to ``lenient_notes``),
    else ``reason`` and ``detail``; ``unusable`` for an output that cannot be read;
    ``forgivable`` for a failure that --lenient would forgive (cosmetic only)."""

    __slots__ = ("ok", "reason", "detail", "lenient_notes", "unusable", "forgivable")

    def __init__(self, ok: bool, reason: str = "", detail: str = "",
                 lenient_notes: Iterable[str] = (), unusable: bool = False,
                 forgivable: bool = False) -> None:
        self.ok, self.reason, self.detail = ok, reason, detail
        self.lenient_notes = list(lenient_notes)
        self.unusable = unusable
        self.forgivable = forgivable


def fail(reason: str, detail: str = "", unusable: bool = False) -> Finding:
    """A failed Finding: ``reason``, and ``detail`` (the reason again when empty)."""
    return Finding(False, reason, detail or reason, unusable=unusable)
