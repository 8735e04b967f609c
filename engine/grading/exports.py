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

from .printable import csv_cell, printable


def csv_text(document):
    """The gradebook of a results document, as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", "points", "max_points",
                     "failed_cases", "build_error", "comparison"])
    comparison = "lenient" if document.get("lenient") else "strict"
    for entry in document["submissions"]:
        failed = [case["case"] for case in entry["cases"] if not case["passed"]]
        error = (entry.get("build_error") or "").split("\n", 1)[0]
        writer.writerow([csv_cell(cell) for cell in (
            entry["submission"], _number(entry["score"]), _number(entry["max_score"]),
            _number(entry["points"]), _number(entry["max_points"]), " ".join(failed),
            error, comparison)])
    return out.getvalue()


def _number(value):
    return int(value) if float(value).is_integer() else round(value, 4)


def gradescope(document, entry):
    """The Gradescope ``results.json`` document of one submission ``entry``."""
    cases = entry["cases"]
    each = (entry["max_points"] / len(cases)) if cases else 0
    lenient = document.get("lenient", False)
    tests = []
    for case in cases:
        output = case["reason"]
        if case.get("detail") and case["detail"] != case["reason"]:
            output += "\n\n" + case["detail"]
        if case.get("lenient"):
            output += "\n(passed only under --lenient comparison)"
        tests.append({"name": printable(case["case"]),
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
