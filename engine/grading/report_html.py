"""A results document as one self-contained HTML page (inline CSS, no external assets).

The page holds a summary table (one row per submission: score, points, failed cases)
and, per submission, a table of every case (verdict, seconds); each failed case then gets
a section with its command, time, diagnosis (reason and detail) and, for every graded
output that differs, expected and actual side by side. Everything shown is escaped;
long outputs were already cut by the runner (marked "truncated"). Control characters
(escape sequences, carriage returns, bidi overrides) are shown as backslash escapes
(:mod:`engine.grading.printable`), carriage returns in red.
"""

from typing import Any, Iterator, List, Mapping, Optional, Tuple

from ..markup import HTML, Markup, asset
from .exports import failure_lines, standalone
from ..sandbox import SYSCALL_FILTERS, syscall_filters
from .printable import printable


def escape(value: Any, newlines: bool = False) -> Markup:
    """``value`` as HTML text, its control characters made visible."""
    return HTML.escape(printable(value, newlines))


# The page's skeleton and style: assets/report.html, assets/report.css.
ASSETS = __name__.rpartition(".")[0]
CARRIAGE_RETURN = HTML.element("span", "\\r", class_="cr")


def _note(text: str, kind: str = "note") -> Markup:
    return HTML.element("span", text, class_=kind)


def _status(passed: bool) -> Markup:
    return _note("passed", "pass") if passed else _note("failed", "fail")


def _anchor(submission: str, case: Optional[str] = None) -> str:
    text = submission if case is None else submission + "--" + case
    return "s-" + "".join(ch if ch.isalnum() else "-" for ch in text)


def _lines(parts: Iterator[Markup]) -> Markup:
    """The parts one a line, each followed by a newline."""
    return HTML.join((part, Markup("\n")) for part in parts)


def _block(label: str, text: Optional[str], truncated: Any, first_line: int = 1,
           final_newline: bool = True, other: Optional[str] = None) -> Markup:
    """One pane of expected or actual text, from line ``first_line`` on, numbered, with
    what the eye cannot see marked: carriage returns (a red ``\\r``), trailing blanks
    (shaded), blank lines past the other pane's end, a missing final newline."""
    if text is None:
        body = HTML.element("pre", "(no such file)", class_="note")
    elif text == "" and first_line == 1 and not truncated:
        body = HTML.element("pre", "(empty)", class_="note")   # nothing at all, not a line 1
    else:
        lines = text.split("\n")
        if lines and lines[-1] == "" and final_newline:
            lines.pop()
        other_count = len(other.split("\n")) if other is not None else None
        number, end = HTML.start("span", class_="ln"), HTML.end("span")   # (once: fast)
        past = HTML.join((" ", _note("(blank line past the end)", "mark")))
        rows: List[Markup] = []
        for index, line in enumerate(lines):
            past_end = other_count is not None and line == "" and index >= other_count - 1
            rows.append(HTML.join((number, first_line + index, end, _marked(line),
                                   past if past_end else None)))
        if not final_newline and not truncated:
            rows.append(_note("(no newline at the end of the file)", "mark"))
        body = HTML.element("pre", HTML.join(rows, "\n"))
    start = (" ", _note(f"from line {first_line}")) if first_line > 1 else None
    note = (" ", _note("(truncated)")) if truncated else None
    return HTML.element("div", HTML.element("b", escape(label), start, note), body)


def _marked(line: str) -> Markup:
    """A line as HTML, carriage returns and trailing blanks made visible."""
    if "\r" not in line and not line.endswith((" ", "\t")):
        return escape(line)                     # (most lines: nothing to mark)
    stripped = line.rstrip("\r")
    carriage = len(line) - len(stripped)
    content = stripped.rstrip(" \t")
    trailing = stripped[len(content):]
    pieces: List[Markup] = []
    for part in content.split("\r"):
        pieces += [CARRIAGE_RETURN, escape(part)] if pieces else [escape(part)]
    if trailing:
        pieces.append(HTML.element("span", escape(trailing), class_="blank",
                                   title="trailing blanks"))
    return HTML.join(pieces + [CARRIAGE_RETURN] * carriage)


def render(document: Mapping[str, Any],
           steps: Optional[Mapping[Tuple[str, str], str]] = None) -> str:
    """The HTML text of a results document; ``steps`` maps (submission, case) to the
    relative address of a stepping page made for that failed case (see cli)."""
    steps = steps or {}
    return HTML.fill(
        asset(ASSETS, "report.html"), program=escape(document["program"]),
        style=asset(ASSETS, "report.css"), meta=_meta(document),
        rows=_lines(_summary_row(entry) for entry in document["submissions"]),
        submissions=_lines(part for entry in document["submissions"]
                           for part in _submission(entry, steps)))


def _meta(document: Mapping[str, Any]) -> Markup:
    """The line under the title: isolation, comparison, system calls, limits."""
    lenient = document.get("lenient")
    meta = [HTML.join(("isolation: ", escape(document.get("isolation") or "unknown"))),
            HTML.escape("comparison: " + ("lenient (trailing blanks and a missing final "
                                          "newline ignored)" if lenient
                                          else "strict, byte for byte"))]
    filters = syscall_filters(case.get("seccomp") for entry in document["submissions"]
                              for case in entry["cases"])
    if filters:
        meta.append(HTML.join(("system calls: ", escape(filters))))
    limits = document.get("limits") or {}
    if limits:
        meta.append(HTML.join(("limits: ", HTML.join(
            (HTML.join((escape(str(key)), " ", escape(str(value))))
             for key, value in limits.items() if value is not None), ", "))))
    return HTML.element("div", HTML.join(meta, " · "), class_="meta")


def _link(submission: str, case: Optional[str], text: Markup) -> Markup:
    return HTML.element("a", text, href="#" + _anchor(submission, case))


def _summary_row(entry: Mapping[str, Any]) -> Markup:
    """A submission's row of the summary: its cases passed as a bar (every row's bar
    starts at the same place: the count after it has a width of its own), its points,
    its failures counted by reason as the console prints them, links to the cases."""
    name = entry["submission"]
    failed = [case for case in entry["cases"] if not case["passed"]]
    fraction = entry["score"] / entry["max_score"] if entry["max_score"] else 0
    links = HTML.join((HTML.join((_link(name, case["case"], escape(case["case"]))
                                  for case in failed[:30]), " "),
                       f" … ({len(failed) - 30} more)" if len(failed) > 30 else None))
    if entry.get("build_error"):
        # (its cases have no section of their own to link to: the reason is said once)
        reasons, links = [f"not graded: {entry['build_error'].split(chr(10))[0]}"], Markup()
    else:
        reasons = failure_lines(entry)
    why = HTML.join(HTML.element("div", escape(reason), class_="why") for reason in reasons)
    bar = HTML.element("span", HTML.element("span", style=f"width:{fraction * 100:.0f}%"),
                       class_="bar")
    count = _note(f"{entry['score']:g} / {entry['max_score']:g}", "count")
    return HTML.element(
        "tr", HTML.element("td", _link(name, None, escape(name))),
        HTML.element("td", escape(entry.get("kind") or "")),
        HTML.element("td", bar, count, class_="passed"),
        HTML.element("td", f"{entry['points']:g} / {entry['max_points']:g}", class_="num"),
        HTML.element("td", why or "—"), HTML.element("td", links or "—"))


def _row(*cells: Markup) -> Markup:
    return HTML.element("tr", *(HTML.element("td", cell) for cell in cells))


def _submission(entry: Mapping[str, Any], steps: Mapping[Tuple[str, str], str]
                ) -> Iterator[Markup]:
    name = entry["submission"]
    yield HTML.element("h2", escape(name), f": {entry['score']:g} / {entry['max_score']:g} "
                       f"cases, {entry['points']:g} / {entry['max_points']:g} points",
                       id=_anchor(name))
    if entry.get("build_error"):
        # Not graded: said once, not once per case.
        yield HTML.element("div", HTML.element("b", "not graded"),
                           f" ({len(entry['cases'])} cases not run)",
                           HTML.element("pre", escape(entry["build_error"], True)),
                           class_="failure")
        return
    rows = [HTML.element("tr", *(HTML.element("th", head) for head in
                                 ("case", "verdict", "reason", "seconds")))]
    for case in entry["cases"]:
        reason = escape(case["reason"])
        if not case["passed"]:
            reason = _link(name, case["case"], reason)
        lenient = (" ", _note("(lenient)")) if case.get("lenient") else None
        rows.append(HTML.element(
            "tr", HTML.element("td", escape(case["case"])),
            HTML.element("td", _status(case["passed"]), lenient), HTML.element("td", reason),
            HTML.element("td", f"{case.get('seconds', 0):.3f}", class_="num")))
    yield HTML.element("table", HTML.join(rows, "\n"), "\n")
    for case in entry["cases"]:
        if not case["passed"]:
            yield _failure(name, case, steps.get((name, case["case"])))


def _how_it_ended(case: Mapping[str, Any]) -> str:
    """"exit 1", or for a run that did not exit by itself who ended it: "killed by the
    kit: <the verdict>" (a limit), "killed by a signal" (a crash); never "exit None"."""
    ended = case.get("ended", "")
    if case.get("exit") is not None:
        return f'exit {case["exit"]}' + (f" · ended: {ended}" if ended not in ("", "exited")
                                         else "")
    if ended == "signal":
        return "killed by a signal (the program crashed)"
    if ended in ("", "exited"):
        return "no exit status"
    return f"killed by the kit: {case.get('reason', ended)}"


def _failure(name: str, case: Mapping[str, Any], page: Optional[str] = None) -> Markup:
    """A failed case's section: what ran, how it ended, why it failed, its inputs, how
    to rerun and step through it, and every graded output that differs."""
    return HTML.element("div", "\n", _lines(_failure_parts(case, page)), class_="failure",
                        id=_anchor(name, case["case"]))


def _failure_parts(case: Mapping[str, Any], page: Optional[str]) -> Iterator[Markup]:
    yield HTML.element("h3", escape(case["case"]), ": ", escape(case["reason"]))
    filters = (" · ", escape(SYSCALL_FILTERS.get(case["seccomp"], "no seccomp filter"))
               ) if case.get("seccomp") else None
    yield HTML.element("div", "command: ", HTML.element("code", escape(case.get("command", ""))),
                       f" · {case.get('seconds', 0):.3f} s wall, {case.get('cpu', 0):.3f} s "
                       "CPU · ", escape(_how_it_ended(case)), filters)
    if case.get("detail") and case["detail"] != case["reason"]:
        yield HTML.element("div", HTML.element("b", "diagnosis:"), "\n",
                           escape(case["detail"], True), class_="detail")
    files = (case.get("inputs") or {}).get("files") or {}
    for file, text in sorted(files.items()):
        yield HTML.element("div", HTML.element("b", escape(file), " (input)"), HTML.element(
            "pre", escape(text, True) if text is not None else "(too large to show)"))
    if case.get("rerun"):
        yield HTML.element("div", Markup("to rerun it in the submission's folder: "),
                           HTML.element("code", escape(case["rerun"])))
    if page:
        yield HTML.element("div", HTML.element(
            "a", "Step through the expected search with this visited file laid over it",
            href=escape(page)), " (its first divergence marked)")
    if case.get("stepper"):
        yield HTML.element("div", "to watch the expected search step by step, with this "
                           "visited file laid over it and its first divergence marked (the "
                           "command reruns the case first): ",
                           HTML.element("code", escape(standalone(case, case["stepper"]))),
                           " and open steps.html (see docs/trees.md)")
    for compared in case.get("compared", []):
        yield HTML.element("div", _compared_pane(compared, "expected"),
                           _compared_pane(compared, "actual"), class_="side")
    if case.get("stderr"):
        yield HTML.element("div", HTML.element("b", "stderr (not graded)"),
                           HTML.element("pre", escape(case["stderr"], True)))


def _compared_pane(compared: Mapping[str, Any], side: str) -> Markup:
    """The expected or actual pane of a graded output that differs (the actual one marks
    the blank lines past the expected one's end)."""
    return _block(f'{side} {compared["what"]}', compared[side],
                  compared.get(f"{side}_truncated"), compared.get("from_line", 1),
                  compared.get(f"{side}_final_newline", True),
                  other=compared["expected"] if side == "actual" else None)
