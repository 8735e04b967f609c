"""A results document as one self-contained HTML page (inline CSS, no external assets).

The page holds a summary table (one row per submission: score, points, failed cases)
and, per submission, a table of every case (verdict, seconds); each failed case then gets
a section with its command, time, diagnosis (reason and detail) and, for every graded
output that differs, expected and actual side by side. Everything shown is escaped;
long outputs were already cut by the runner (marked "truncated"). Control characters
(escape sequences, carriage returns, bidi overrides) are shown as backslash escapes
(:mod:`engine.grading.printable`), carriage returns in red.
"""

from html import escape as _html_escape
from typing import Any, Iterator, List, Mapping, Optional, Tuple

from .exports import failure_lines, standalone
from ..sandbox import SYSCALL_FILTERS, syscall_filters
from .printable import printable


def escape(value: Any, newlines: bool = False) -> str:
    """``value`` as HTML text, its control characters made visible."""
    return _html_escape(printable(value, newlines))

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;
color:#1d2330;background:#fafbfc;font-size:14px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;
border-bottom:2px solid #d8dde6;padding-bottom:4px} h3{font-size:15px;margin:18px 0 6px}
.meta{color:#566074;margin-bottom:16px}
table{border-collapse:collapse;margin:6px 0 12px;background:#fff}
th,td{border:1px solid #d8dde6;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#eef1f6} td.num{white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#17703a;font-weight:600} .fail{color:#b3261e;font-weight:600}
.bar{display:inline-block;height:10px;background:#e4e7ee;width:120px;margin-right:6px;
vertical-align:middle} .bar span{display:block;height:10px;background:#2e8b57}
td.passed{white-space:nowrap} td.passed .count{display:inline-block;min-width:6em;
text-align:right;font-variant-numeric:tabular-nums} .why{margin:1px 0}
.failure{background:#fff;border:1px solid #e2c6c4;border-left:4px solid #b3261e;
padding:8px 12px;margin:12px 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f4f5f8;border:1px solid #e1e4ea;padding:6px 8px;margin:0;overflow:auto;
max-height:360px;white-space:pre}
.side{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:6px}
.side div>b{display:block;margin-bottom:2px;color:#566074;font-weight:600}
.note{color:#8a5a00} .cr{color:#fff;background:#b3261e;border-radius:2px;padding:0 1px}
.detail{white-space:pre-wrap}
.ln{display:inline-block;min-width:4em;color:#98a1b3;user-select:none}
.blank{background:#f3c5c2} .mark{color:#b3261e;font-style:italic}
"""


def _status(passed: bool) -> str:
    return '<span class="pass">passed</span>' if passed else '<span class="fail">failed</span>'


def _anchor(submission: str, case: Optional[str] = None) -> str:
    text = submission if case is None else submission + "--" + case
    return "s-" + "".join(ch if ch.isalnum() else "-" for ch in text)


def _block(label: str, text: Optional[str], truncated: Any, first_line: int = 1,
           final_newline: bool = True, other: Optional[str] = None) -> str:
    """One pane of expected or actual text, from line ``first_line`` on, numbered, with
    what the eye cannot see marked: carriage returns (a red ``\\r``), trailing blanks
    (shaded), blank lines past the other pane's end, a missing final newline."""
    if text is None:
        body = '<pre class="note">(no such file)</pre>'
    elif text == "" and first_line == 1 and not truncated:
        body = '<pre class="note">(empty)</pre>'     # nothing at all, not a line 1
    else:
        lines = text.split("\n")
        if lines and lines[-1] == "" and final_newline:
            lines.pop()
        other_count = len(other.split("\n")) if other is not None else None
        rows: List[str] = []
        for index, line in enumerate(lines):
            number = first_line + index
            rows.append(f'<span class="ln">{number}</span>' + _marked(line) + (
                ' <span class="mark">(blank line past the end)</span>'
                if other_count is not None and line == "" and index >= other_count - 1
                else ""))
        if not final_newline and not truncated:
            rows.append('<span class="mark">(no newline at the end of the file)</span>')
        body = "<pre>" + "\n".join(rows) + "</pre>"
    note = ' <span class="note">(truncated)</span>' if truncated else ""
    start = f' <span class="note">from line {first_line}</span>' if first_line > 1 else ""
    return f"<div><b>{escape(label)}{start}{note}</b>{body}</div>"


def _marked(line: str) -> str:
    """A line as HTML, carriage returns and trailing blanks made visible."""
    stripped = line.rstrip("\r")
    carriage = len(line) - len(stripped)
    content = stripped.rstrip(" \t")
    trailing = stripped[len(content):]
    html = '<span class="cr">\\r</span>'.join(escape(part) for part in content.split("\r"))
    if trailing:
        html += f'<span class="blank" title="trailing blanks">{escape(trailing)}</span>'
    return html + '<span class="cr">\\r</span>' * carriage


def render(document: Mapping[str, Any],
           steps: Optional[Mapping[Tuple[str, str], str]] = None) -> str:
    """The HTML text of a results document; ``steps`` maps (submission, case) to the
    relative address of a stepping page made for that failed case (see cli)."""
    steps = steps or {}
    program = document["program"]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>Grading report: {escape(program)}</title>",
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Grading report: {escape(program)}</h1>"]
    lenient = document.get("lenient")
    meta = [f"isolation: {escape(document.get('isolation') or 'unknown')}",
            "comparison: " + ("lenient (trailing blanks and a missing final newline "
                              "ignored)" if lenient else "strict, byte for byte")]
    filters = syscall_filters(case.get("seccomp") for entry in document["submissions"]
                              for case in entry["cases"])
    if filters:
        meta.append(f"system calls: {escape(filters)}")
    limits = document.get("limits") or {}
    if limits:
        meta.append("limits: " + ", ".join(f"{escape(str(key))} {escape(str(value))}"
                                           for key, value in limits.items()
                                           if value is not None))
    parts.append(f'<div class="meta">{" · ".join(meta)}</div>')
    parts.append("<h2>Summary</h2><table><tr><th>submission</th><th>how it ran</th>"
                 "<th>cases passed</th><th>points</th><th>why cases failed</th>"
                 "<th>failed cases</th></tr>")
    parts.extend(_summary_row(entry) for entry in document["submissions"])
    parts.append("</table>")
    for entry in document["submissions"]:
        parts.extend(_submission(entry, steps))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _summary_row(entry: Mapping[str, Any]) -> str:
    """A submission's row of the summary: its cases passed as a bar (every row's bar
    starts at the same place: the count after it has a width of its own), its points,
    its failures counted by reason as the console prints them, links to the cases."""
    failed = [case for case in entry["cases"] if not case["passed"]]
    fraction = entry["score"] / entry["max_score"] if entry["max_score"] else 0
    links = " ".join(f'<a href="#{_anchor(entry["submission"], case["case"])}">'
                     f'{escape(case["case"])}</a>' for case in failed[:30])
    if len(failed) > 30:
        links += f" … ({len(failed) - 30} more)"
    if entry.get("build_error"):
        # (its cases have no section of their own to link to: the reason is said once)
        reasons, links = [f"not graded: {entry['build_error'].split(chr(10))[0]}"], ""
    else:
        reasons = failure_lines(entry)
    why = "".join(f'<div class="why">{escape(reason)}</div>' for reason in reasons)
    return (f'<tr><td><a href="#{_anchor(entry["submission"])}">'
            f'{escape(entry["submission"])}</a></td><td>{escape(entry.get("kind") or "")}</td>'
            f'<td class="passed"><span class="bar"><span style="width:{fraction * 100:.0f}%">'
            f'</span></span><span class="count">{entry["score"]:g} / '
            f'{entry["max_score"]:g}</span></td>'
            f'<td class="num">{entry["points"]:g} / {entry["max_points"]:g}</td>'
            f"<td>{why or '—'}</td><td>{links or '—'}</td></tr>")


def _submission(entry: Mapping[str, Any], steps: Mapping[Tuple[str, str], str]
                ) -> Iterator[str]:
    name = entry["submission"]
    yield (f'<h2 id="{_anchor(name)}">{escape(name)}: {entry["score"]:g} / '
           f'{entry["max_score"]:g} cases, {entry["points"]:g} / {entry["max_points"]:g} '
           f"points</h2>")
    if entry.get("build_error"):
        # Not graded: said once, not once per case.
        yield (f'<div class="failure"><b>not graded</b> ({len(entry["cases"])} cases '
               f'not run)<pre>{escape(entry["build_error"], True)}</pre></div>')
        return
    yield "<table><tr><th>case</th><th>verdict</th><th>reason</th><th>seconds</th></tr>"
    for case in entry["cases"]:
        reason = escape(case["reason"])
        if not case["passed"]:
            reason = f'<a href="#{_anchor(name, case["case"])}">{reason}</a>'
        lenient = ' <span class="note">(lenient)</span>' if case.get("lenient") else ""
        yield (f'<tr><td>{escape(case["case"])}</td><td>{_status(case["passed"])}{lenient}'
               f'</td><td>{reason}</td><td class="num">{case.get("seconds", 0):.3f}</td></tr>')
    yield "</table>"
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


def _failure(name: str, case: Mapping[str, Any], page: Optional[str] = None) -> str:
    parts = [f'<div class="failure" id="{_anchor(name, case["case"])}">',
             f'<h3>{escape(case["case"])}: {escape(case["reason"])}</h3>',
             f'<div>command: <code>{escape(case.get("command", ""))}</code> · '
             f'{case.get("seconds", 0):.3f} s wall, {case.get("cpu", 0):.3f} s CPU · '
             f'{escape(_how_it_ended(case))}'
             + (f' · {escape(SYSCALL_FILTERS.get(case["seccomp"], "no seccomp filter"))}'
                if case.get("seccomp") else "") + '</div>']
    if case.get("detail") and case["detail"] != case["reason"]:
        parts.append(f'<div class="detail"><b>diagnosis:</b>\n{escape(case["detail"], True)}</div>')
    files = (case.get("inputs") or {}).get("files") or {}
    for name, text in sorted(files.items()):
        parts.append(f"<div><b>{escape(name)} (input)</b><pre>"
                     + (escape(text, True) if text is not None else "(too large to show)")
                     + "</pre></div>")
    if case.get("rerun"):
        parts.append(f'<div>to rerun it in the submission\'s folder: '
                     f'<code>{escape(case["rerun"])}</code></div>')
    if page:
        parts.append(f'<div><a href="{escape(page)}">Step through the expected search '
                     f'with this visited file laid over it</a> (its first divergence '
                     f'marked)</div>')
    if case.get("stepper"):
        parts.append(f'<div>to watch the expected search step by step, with this '
                     f'visited file laid over it and its first divergence marked (the '
                     f'command reruns the case first): '
                     f'<code>{escape(standalone(case, case["stepper"]))}</code> and open '
                     f'steps.html (see docs/trees.md)</div>')
    for compared in case.get("compared", []):
        parts.append('<div class="side">'
                     + _block(f'expected {compared["what"]}', compared["expected"],
                              compared.get("expected_truncated"),
                              compared.get("from_line", 1),
                              compared.get("expected_final_newline", True))
                     + _block(f'actual {compared["what"]}', compared["actual"],
                              compared.get("actual_truncated"),
                              compared.get("from_line", 1),
                              compared.get("actual_final_newline", True),
                              other=compared["expected"])
                     + "</div>")
    if case.get("stderr"):
        parts.append("<div><b>stderr (not graded)</b>"
                     f'<pre>{escape(case["stderr"], True)}</pre></div>')
    parts.append("</div>")
    return "\n".join(parts)
