"""Results as a gradebook CSV and as Gradescope autograder ``results.json``.

CSV: one row per submission: submission, score, max_score, points, max_points, the
names of the failed cases (separated by spaces), the build error if any, and the
comparison used ("strict" or "lenient"). Text cells have their control characters
escaped and never start like a formula (:func:`engine.grading.printable.csv_cell`).

Gradescope reads one ``results.json`` per submission (the autograder runs one student at
a time). Its top-level ``score`` is the assignment's points; ``tests`` holds one entry per
case (``name``, ``score``, ``max_score``, ``output`` = the diagnosis, ``status``), each
case worth ``max_points / cases``. When several submissions were graded,
:func:`gradescope` returns one document per submission and the CLI writes them into a
folder (see docs/grading.md).
"""

import csv
import io
import re
import shlex
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from .printable import csv_cell, printable


def csv_text(document: Mapping[str, Any]) -> str:
    """The gradebook of a results document, as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", "points", "max_points",
                     "failed_cases", "build_error", "comparison", "failures"])
    comparison = "lenient" if document.get("lenient") else "strict"
    for entry in document["submissions"]:
        failed = [case["case"] for case in entry["cases"] if not case["passed"]]
        error = (entry.get("build_error") or "").split("\n", 1)[0]
        writer.writerow([csv_cell(cell) for cell in (
            entry["submission"], _number(entry["score"]), _number(entry["max_score"]),
            _number(entry["points"]), _number(entry["max_points"]), " ".join(failed),
            error, comparison, failure_summary(entry))])
    return out.getvalue()


def reason_kind(reason: str) -> str:
    """``reason`` without what differs from case to case: the moves (``wrong move:
    expected x@0, got x@8 (tie-break slip: ...)`` is ``wrong move (tie-break slip)``),
    the node a trace parts at, the numbers (line 3 and line 7 are line N)."""
    return re.sub(r"\d+", "N", _kind_with_numbers(reason))


def _kind_with_numbers(reason: str) -> str:
    """:func:`reason_kind` with its numbers still in."""
    kind = re.sub(r"\((tie-break slip|wrong value)[^)]*\)", r"(\1)", reason)
    kind = re.sub(r": expected [^,;]+, got [^;(]+?(?= \(|;|$)", "", kind)
    return re.sub(r"reached by [^:;]+", "reached by ...", kind)


def _merge_numbers(numbers: Optional[List[Optional[str]]], kind: str
                   ) -> Optional[List[Optional[str]]]:
    """The pieces of ``kind`` (a :func:`_kind_with_numbers`) split around its numbers,
    with None for each number that differs from the one ``numbers`` (pieces of another
    reason of the same kind, or None) has in the same place."""
    pieces = re.split(r"(\d+)", kind)
    if numbers is None or len(numbers) != len(pieces) or numbers[0::2] != pieces[0::2]:
        return pieces if numbers is None else None
    return [piece if index % 2 == 0 or piece == other else None
            for index, (piece, other) in enumerate(zip(pieces, numbers))]


def failure_kinds(entry: Mapping[str, Any]) -> List[Tuple[int, str, int]]:
    """[(count, reason, cosmetic count)] of a submission's failed cases, the most common
    first, reasons of the same kind (:func:`reason_kind`) counted as one: shown as the
    reason itself when it is the only one of its kind, else as the kind, keeping the
    numbers all its reasons share (``expected N board lines after the move, found 0``)."""
    # kind -> [count, cosmetic count, the one reason or None, pieces]
    groups: Dict[str, List[Any]] = {}
    for case in entry["cases"]:
        if case["passed"]:
            continue
        reason = case["reason"]
        kind = reason_kind(reason)
        group = groups.get(kind)
        if group is None:
            group = groups[kind] = [0, 0, reason, _merge_numbers(None, _kind_with_numbers(reason))]
        else:
            if group[2] != reason:
                group[2] = None
            if group[3] is not None:
                group[3] = _merge_numbers(group[3], _kind_with_numbers(reason))
        group[0] += 1
        group[1] += bool(case.get("cosmetic"))
    shown: List[Tuple[int, str, int]] = []
    for kind, (count, cosmetic, reason, pieces) in groups.items():
        if reason is None:
            reason = kind if pieces is None else "".join(
                "N" if piece is None else piece for piece in pieces)
        shown.append((count, reason, cosmetic))
    return sorted(shown, key=lambda item: (-item[0], item[1]))


def failure_summary(entry: Mapping[str, Any]) -> str:
    """A submission's failed cases by reason, e.g. ``20 failed: missing final newline
    (cosmetic; --lenient would pass 20); 3 failed: wrong move ...`` (empty: none)."""
    return "; ".join(failure_lines(entry))


def failure_lines(entry: Mapping[str, Any]) -> List[str]:
    """The parts of :func:`failure_summary`, one per reason."""
    parts: List[str] = []
    for count, reason, cosmetic in failure_kinds(entry):
        text = f"{count} failed: {reason}"
        if cosmetic:
            text += f" (cosmetic; --lenient would pass {cosmetic})"
        parts.append(text)
    return parts


def _number(value: float) -> Union[int, float]:
    return int(value) if float(value).is_integer() else round(value, 4)


def reproduction(case: Mapping[str, Any]) -> str:
    """How to see a failed case for oneself: the command the grader ran, its inputs and
    one command that reruns it in the submission's folder."""
    lines: List[str] = []
    if case.get("command"):
        lines.append(f"command: {case['command']}")
    inputs = case.get("inputs") or {}
    for name, text in sorted((inputs.get("files") or {}).items()):
        lines.append(f"{name}:" + ("\n" + text.rstrip("\n") if text is not None
                                   else " (too large to show)"))
    if case.get("rerun"):
        lines.append(f"to rerun it in your folder: {case['rerun']}")
    stepper = installed_stepper(case)
    if stepper:
        lines.append("to watch the expected search step by step with your visited file "
                     f"laid over it (this reruns the case first): "
                     f"{standalone(case, stepper)} (open steps.html; {KIT_HINT})")
    return "\n".join(lines)


def standalone(case: Mapping[str, Any], stepper: str) -> str:
    """The stepping command ``stepper`` of a failed case as one line that works pasted
    alone in the submission's folder: the rerun first (it writes the visited file the
    page reads), then the page, whatever the rerun's exit status."""
    return f"{case['rerun']}; {stepper}" if case.get("rerun") else stepper


# Where the reader of a Gradescope or PrairieLearn result gets the command the stepper
# needs (the grading machine's own path means nothing to a student).
KIT_HINT = ("game-search is this project's command: pipx install the copy your course "
            "staff hand out")


def installed_stepper(case: Mapping[str, Any]) -> Optional[str]:
    """The stepping command of a failed case as the installed command runs it (for a
    student reading a Gradescope result), or None."""
    if not case.get("stepper_args") or not case.get("stepper"):
        return None
    against = case["stepper"].split(" --against ", 1)[1]
    return "game-search picture " + " ".join(shlex.quote(word) for word in
                                            case["stepper_args"]) + " --against " + against


def gradescope(document: Mapping[str, Any], entry: Mapping[str, Any]) -> Dict[str, Any]:
    """The Gradescope ``results.json`` document of one submission ``entry``."""
    cases = entry["cases"]
    each = (entry["max_points"] / len(cases)) if cases else 0
    lenient = document.get("lenient", False)
    tests: List[Dict[str, Any]] = []
    if entry.get("build_error"):
        # Not graded: one test saying why, not the same message once per case.
        return {"score": entry["points"], "output": printable(
                    f"not graded ({document['program']}): {entry['build_error']}",
                    newlines=True),
                "visibility": "visible", "stdout_visibility": "hidden",
                "tests": [{"name": "not graded", "score": 0,
                           "max_score": round(entry["max_points"], 4), "status": "failed",
                           "output": printable(entry["build_error"], newlines=True),
                           "visibility": "visible"}]}
    for case in cases:
        output = case["reason"]
        if case.get("detail") and case["detail"] != case["reason"]:
            output += "\n\n" + case["detail"]
        if case.get("lenient"):
            output += "\n(passed only under --lenient comparison)"
        if not case["passed"]:
            output += "\n\n" + reproduction(case)
        tests.append({"name": printable(case.get("title") or case["case"]),
                      "score": round(each if case["passed"] else 0, 4),
                      "max_score": round(each, 4),
                      "status": "passed" if case["passed"] else "failed",
                      "output": printable(output, newlines=True), "visibility": "visible"})
    summary = (f"{entry['score']:g}/{entry['max_score']:g} cases passed; "
               f"{entry['points']:g}/{entry['max_points']:g} points "
               f"({document['program']}). Isolation: {document.get('isolation', '')}.")
    if lenient:
        summary += " Lenient comparison: trailing blanks and a missing final newline ignored."
    if entry.get("build_error"):
        summary += "\n" + entry["build_error"]
    return {"score": entry["points"], "output": printable(summary, newlines=True),
            "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def prairielearn(document: Mapping[str, Any], entry: Mapping[str, Any]) -> Dict[str, Any]:
    """PrairieLearn's external-grader ``results.json`` of one submission ``entry``:
    ``score`` from 0 to 1, a test per case with ``points`` and ``max_points``, and
    ``gradable`` false when the submission could not be built or run at all."""
    cases = entry["cases"]
    each = (entry["max_points"] / len(cases)) if cases else 0
    tests: List[Dict[str, Any]] = []
    for case in cases:
        output = case.get("detail") if case.get("detail") != case["reason"] else ""
        if not case["passed"]:
            output = ((output or "") + "\n\n" + reproduction(case)).strip("\n")
        tests.append({"name": printable(case.get("title") or case["case"]),
                      "description": printable(case.get("command") or ""),
                      "points": round(each if case["passed"] else 0, 4),
                      "max_points": round(each, 4),
                      "message": printable(case["reason"]),
                      "output": printable(output or "", newlines=True)})
    error = entry.get("build_error")
    score = entry["points"] / entry["max_points"] if entry["max_points"] else 0
    message = (f"{entry['points']:g}/{entry['max_points']:g} points "
               f"({entry['score']:g}/{entry['max_score']:g} cases passed)")
    return {"gradable": not error, "score": round(score, 6),
            "message": printable(error.split("\n", 1)[0] if error else message),
            "output": printable(error or "", newlines=True), "tests": tests}
