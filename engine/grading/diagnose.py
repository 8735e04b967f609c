"""Judging a finished run: pass or fail, and why a person would want to know.

Contract: :func:`diagnose` gets the graded assignment (engine.grading.judges.load:
``tictactoe``, ``tmmorris``, ``take_stones`` or ``stake_raid``), the
:class:`~engine.grading.case.Case` and the
:class:`~engine.grading.case.Outcome` of a run that ended by itself (timeouts and limit
kills are judged by the runner), and returns a :class:`~engine.grading.verdict.Verdict`.

Only what the assignment's grader compares is graded, byte for byte:

* tictactoe: stdout and the visited file PATH (which must not exist after a terminal
  input);
* tmmorris: the assignment lets students write their own evaluation, so the visited file
  cannot match ours. Checked instead: the printed board is one legal move of TURN from
  STATE, the visited file exists and holds ``STATE VALUE`` lines (9 characters from
  ``xo-``, a space, an integer), and with PLY >= 7 the move keeps the solved value of the
  position (a won position stays won, a drawn one is not lost). Terminal inputs: nothing
  printed, no file;
* take_stones: stdout;
* stake_raid: output.txt (stdout ignored). A missing or unparsable output.txt sets
  ``Verdict.unusable_output`` (the assignment's rule: 0 points for the submission).

Exit status, stderr and stray files are mentioned in ``detail``, never graded.

Reasons (the first line a person reads) are worded for the fix: "CRLF line endings",
"trailing blanks on 3 lines", "missing final newline", "extra bytes after the expected
output", "garbage/non-text bytes", "wrong move: expected x@4, got x@2 (tie-break slip:
...)", "visited file missing", "visited file must not exist (terminal input)", "first
difference at node reached by x@4, o@0: expected value 1, got 0", "listed in pre-order",
"visits a node the expected search prunes: ...". Several findings are joined with "; ".

``lenient=True`` forgives trailing blanks and a missing final newline (not CRLF): a pass
that needed it has ``Verdict.lenient`` set and the reason "passed (lenient: ...)".

Each assignment's own judge is in engine.grading.assignments (named by engine.registry);
this module holds what they share: the Finding, the byte comparison of one output with
its cosmetic and content diagnoses, the notes on what is not graded.
"""

import re
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

from ..errors import EngineError
from .case import Case, Outcome
from .judges import GradedAssignment
from .textdiff import compare_text, content_difference, is_text
from .verdict import Finding, Verdict, fail

# A line of a tic-tac-toe or Morris visited file: a 9-character board and a value.
VISITED_LINE = re.compile(rb"^([xo-]{9}) (-?\d+)$")


def diagnose(assignment: GradedAssignment, case: Case, outcome: Outcome,
             lenient: bool = False) -> Verdict:
    """The Verdict of ``outcome`` on ``case`` for ``assignment`` (see the module
    docstring)."""
    module = assignment.judge
    judge = module.judge
    if case.exit != 0 or case.stderr or not module.fits(case):
        # Not a generated case (e.g. a fixture of bad input): plain byte comparison.
        judge = _plain
    try:
        findings = [f for f in judge(case, outcome, lenient) if f is not None]
    except (ValueError, IndexError, KeyError, UnicodeError, EngineError):
        # A case our program-specific reading does not fit: bytes still decide.
        judge = _plain
    if judge is _plain:
        findings = _plain(case, outcome, lenient, module.graded_files(case))
    notes = _ungraded_notes(case, outcome, module.graded_files(case))
    failures = [f for f in findings if not f.ok]
    if not failures:
        forgiven = [n for f in findings for n in f.lenient_notes]
        if forgiven:
            kinds = []
            for note in forgiven:
                kind = re.sub(r" (on \d+ lines?|\(\d+\))$", "", note)
                if kind not in kinds:
                    kinds.append(kind)
            reason = f"passed (lenient: {', '.join(kinds)})"
            detail = "\n".join([f"passed only with --lenient: {'; '.join(forgiven)}"] + notes)
            return Verdict(True, reason, detail, lenient=True)
        return Verdict(True, "passed", "\n".join(notes))
    reason = _join_reasons([f.reason for f in failures])
    detail = "\n".join([f.detail for f in failures] + notes)
    crash = crash_headline(outcome)
    if crash is not None:
        # What a person must fix first: the crash, not the outputs it left unwritten.
        detail = f"{crash[1]}\nwhat the graded outputs show: {reason}\n{detail}"
        reason = crash[0]
    return Verdict(False, reason, detail,
                   unusable_output=any(f.unusable for f in failures),
                   cosmetic=crash is None and all(f.forgivable for f in failures))


def _plain(case: Case, outcome: Outcome, lenient: bool,
           graded: Iterable[str] = ()) -> List[Finding]:
    """Byte comparison of stdout and of every file the case expects; a ``graded`` file
    (the program's output file) that the case neither expects nor provides must not
    exist (e.g. after bad input)."""
    findings = [judge_text("stdout", case.stdout, outcome.stdout, lenient)]
    for name, data in sorted(case.expected.items()):
        if name not in outcome.files:
            findings.append(fail(f"{name} missing", f"{name} was not created"))
        else:
            findings.append(judge_text(name, data, outcome.files[name], lenient))
    for name in graded:
        if name in outcome.files and name not in case.expected and name not in case.files:
            findings.append(fail(f"{name} must not exist",
                                 f"{name} was created; this case expects no such file"))
    return [f for f in findings if f is not None]


def _join_reasons(reasons: Sequence[str]) -> str:
    """Reasons joined with "; ", the same cosmetic reason of several outputs once:
    "CRLF line endings (stdout, visited file)"."""
    split = [reason.split(": ", 1) if reason.startswith(("visited file: ", "output.txt: "))
             else ["stdout", reason] for reason in reasons]
    kinds = {kind for _, kind in split}
    if len(reasons) > 1 and len(kinds) == 1:
        return f"{split[0][1]} ({', '.join(where for where, _ in split)})"
    return "; ".join(reasons)


def _ungraded_notes(case: Case, outcome: Outcome, graded_files: Iterable[str]) -> List[str]:
    """What the grader does not compare but a person may want to know."""
    notes = []
    if outcome.exit not in (0, None):
        notes.append(f"note (not graded): exit status {outcome.exit}")
    if outcome.stderr:
        tail = outcome.stderr[-600:].decode("utf-8", errors="replace").strip("\n")
        notes.append("note (not graded): stderr" + (" (its end)" if len(outcome.stderr) > 600
                                                     else "") + ":\n" + _indent(tail))
    graded = set(case.files) | set(case.expected) | set(graded_files)
    stray = sorted(name for name in outcome.files if name not in graded)
    if stray:
        shown = ", ".join(stray[:10]) + (" ..." if len(stray) > 10 else "")
        notes.append(f"note (not graded): files left behind: {shown}")
    return notes


def affordable(expected: bytes, actual: bytes) -> bool:
    """True when ``actual`` is small enough for a content diagnosis (a search trace
    rebuilt as a tree costs time and memory in proportion to its size): at most a
    quarter larger than ``expected``, plus 64 KB. A larger output is judged by its first
    differing line, so a submission cannot make the kit's diagnosis its weapon."""
    return len(actual) <= len(expected) * 5 // 4 + (64 << 10)


def judge_text(where: str, expected: bytes, actual: bytes, lenient: bool,
               content: Optional[Callable[[bytes, bytes], Tuple[str, str]]] = None) -> Finding:
    """The Finding for one text output compared byte for byte.

    ``content(expected, actual) -> (reason, detail)`` explains a difference of content
    (after cosmetic differences are normalised away); default: the first differing line.
    """
    comparison = compare_text(expected, actual)
    if comparison.identical:
        return Finding(True)
    if lenient and comparison.lenient_pass():
        return Finding(True, lenient_notes=comparison.notes)
    notes = "; ".join(comparison.notes)
    if comparison.same_content:
        finding = fail(notes if where == "stdout" else f"{where}: {notes}",
                       f"{where}: {notes}; otherwise the same bytes")
        finding.forgivable = comparison.lenient_pass()
        return finding
    expected, actual = comparison.expected, comparison.actual
    if content is None or not is_text(actual) or actual.startswith(expected) \
            or expected.startswith(actual) or not affordable(expected, actual):
        # Garbage, extra bytes at the end and output that stops early say it all; so
        # does the first differing line of an output too large to rebuild as a tree.
        reason, detail = content_difference(expected, actual, where)
        if where != "stdout":
            reason = f"{where}: {reason}"
    else:
        reason, detail = content(expected, actual)
    if comparison.notes:
        reason += f" (also {notes})"
        detail += f"\n{where} also has: {notes}"
    return fail(reason, detail)


def terminal_input(case: Case, outcome: Outcome, path: str) -> List[Finding]:
    """A terminal STATE: nothing printed and no visited file."""
    findings = []
    if outcome.stdout != case.stdout:
        findings.append(fail("printed something for a terminal input",
                             f"stdout should be empty for the terminal STATE "
                             f"{case.args[0]}; got {outcome.stdout[:200]!r}"))
    if path in outcome.files:
        findings.append(fail("visited file must not exist (terminal input)",
                             f"{path} was created for the terminal STATE {case.args[0]}; "
                             "the grader expects no file at all"))
    return findings


def last_of_equal_bounds(root_values: Sequence[Tuple[Any, float]], maximizing: bool
                         ) -> Optional[Tuple[Any, float]]:
    """``(move, value)``: the root move a search that keeps the LAST of equal values
    (``>=`` where the assignment keeps the first strictly better move) chooses, from the
    values alpha-beta gave the root's children in visit order (``root_values`` of
    :func:`engine.search.search`: after the first, bounds unless they improved the
    root), and the best value; None without children."""
    if not root_values:
        return None
    values = [value for _, value in root_values]
    best = max(values) if maximizing else min(values)
    last = [move for move, value in root_values if value == best][-1]
    return last, best


def tie_break_through_pruning(head: str, want: str, got: str, want_value: float,
                              got_value: float, view: str, first: str) -> Tuple[str, str]:
    """(reason, detail) of a move chosen by the tie-break slip (the LAST of equal values
    kept) that alpha-beta made look like a tie: the student's move is really worse
    (``got_value``), but its search was cut off once it could not beat ``want_value``,
    and returned that bound. ``first`` says which move the grader keeps ("cell 4")."""
    reason = (f"{head} (tie-break slip seen through pruning: alpha-beta bounds yours at "
              f"{want_value}, the expected move's value; its own value is {got_value})")
    detail = (f"stdout: expected {want} (value {want_value}), got {got} (value "
              f"{got_value}); {view}. Not an evaluation bug: the tie-break slip seen "
              f"through alpha-beta. Once the root has a move worth {want_value}, a later "
              f"move is searched only as far as needed to show that it cannot do better, "
              f"and its search returns {want_value}, a bound, not its own value "
              f"({got_value}). A root that keeps the last of equal values (>= where the "
              f"grader has >) takes that bound for a tie and moves there; the grader "
              f"keeps the first child with the strictly best value ({first}). The fix is "
              f"the tie-break's.")
    return reason, detail


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


# An import the grader's clean environment cannot satisfy: no PYTHONPATH, no packages of
# the user who ran the program at home.
_IMPORT_HINT = ("; the grader runs python3 with a clean environment (no PYTHONPATH, no "
                "packages installed for your user) in a copy of your folder: import only "
                "the standard library and your own files")


def crash_headline(outcome: Outcome) -> Optional[Tuple[str, str]]:
    """``(reason, detail)`` when the run died of an uncaught exception (a Python
    traceback, a Java exception, a C++ ``terminate``), else None: ``crashed: Kind:
    message``, the exception's own last line, with a hint for an import that the
    grader's environment cannot satisfy."""
    if outcome.exit == 0:
        return None
    text = outcome.stderr[-20000:].decode("utf-8", errors="replace")
    line = None
    if "Traceback (most recent call last):" in text:
        lines = [entry.strip() for entry in text.strip().splitlines() if entry.strip()]
        line = lines[-1] if lines else None
    else:
        java = re.search(r'Exception in thread "[^"]*" (\S[^\n]*)', text)
        cpp = re.search(r"terminate called after throwing an instance of '([^']+)'"
                        r"(?:\n\s*what\(\):\s*([^\n]*))?", text)
        if java:
            line = java.group(1).strip()
        elif cpp:
            line = cpp.group(1) + (f": {cpp.group(2).strip()}" if cpp.group(2) else "")
    if not line:
        return None
    hint = _IMPORT_HINT if line.startswith(("ModuleNotFoundError", "ImportError")) else ""
    return f"crashed: {line[:200]}", f"the program crashed: {line}{hint}"

