"""The report as one self-contained HTML page: readable offline, without a script, printed.

The page holds, in this order: what the report is and is not; the ranked pairs; the
clusters; the pairs whose programs printed the same wrong bytes (behaviour, kept apart
from the code); the entries not compared and the notes on those compared; then one
section per reported pair: both directions' shares, its regions (each linked to its
side-by-side view: the lines of both files, the matched ones highlighted), and its
behaviour evidence in a box of its own.

The page carries its style inline (assets/report.css, read with importlib.resources) and
a Content-Security-Policy that allows that style alone: no script, no request. Every
text a student controls (names, file names, source lines, diagnoses) is escaped, its
control characters shown as backslash escapes (:mod:`engine.grading.printable`).
Printed, each pair starts a page and long lines wrap.
"""

import base64
import hashlib
from typing import Any, Callable, Dict, List, Optional

from ..grading.report_html import escape

Document = Dict[str, Any]
# Lines shown around a region, before and after.
CONTEXT = 2
# The text of an entry's file: (entry name, file name) -> text, or None.
Texts = Callable[[str, str], Optional[str]]


def stylesheet() -> str:
    """The page's CSS (engine/similarity/assets/report.css)."""
    try:
        from importlib.resources import files
    except ImportError:                     # Python 3.8: no files(); the same bytes
        import pkgutil
        data = pkgutil.get_data(__package__, "assets/report.css") or b""
        return data.decode("utf-8")
    return (files(__package__) / "assets" / "report.css").read_text(encoding="utf-8")


def render(report: Document, texts: Texts, title: str) -> str:
    """The HTML page of ``report`` (engine.similarity.report's document); ``texts``
    gives the source of the files its pairs name; ``title`` names the class."""
    css = stylesheet()
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode()
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"style-src 'sha256-{digest}'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Similarity: {escape(title)}</title>", f"<style>{css}</style>",
        "</head><body>", f"<h1>Similarity: {escape(title)}</h1>", _meta(report),
        _caveat(report),
        '<nav class="contents"><a href="#pairs">Pairs</a><a href="#clusters">Clusters'
        '</a><a href="#behaviour">Same wrong outputs</a><a href="#entries">Entries</a>'
        "</nav>"]
    parts.extend(_pairs_table(report))
    parts.extend(_clusters(report))
    parts.extend(_behaviour(report))
    parts.extend(_entries(report))
    for pair in report["pairs"]:
        parts.extend(_pair_detail(pair, texts))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _meta(report: Document) -> str:
    parameters, summary = report["parameters"], report["summary"]
    prior = f", {summary['prior']} prior entries" if summary["prior"] else ""
    base = report["base"]
    handout = (f" · handout: {len(base['files'])} file(s), {base['fingerprints']:,} "
               "k-grams removed") if base["files"] else " · no handout given (--base)"
    return (f'<div class="meta">{escape(report["program"])} · {summary["compared"]} of '
            f'{summary["entries"]} entries compared{prior} · {summary["pairs_sharing"]:,} '
            f'pairs share {parameters["min_shared"]} fingerprints or more · k = '
            f'{parameters["k"]} tokens, window {parameters["window"]} (every match of '
            f'{parameters["guarantee"]} tokens found) · fingerprints in more than '
            f'{parameters["common_limit"]} entries ignored ({summary["common_ignored"]:,})'
            f"{handout}</div>")


def _caveat(report: Document) -> str:
    behaviour = report.get("behaviour")
    said = ("" if behaviour is None else " The same wrong output on the same case is "
            "a second, separate kind of evidence, shown apart from the code.")
    return ('<div class="caveat"><b>What this is, and is not.</b> A high score says that '
            "two programs share long stretches of code once names, literals, comments "
            "and layout are set aside; it is a reason to read both side by side, never "
            "proof of copying: a handout not given as <code>--base</code>, a shared "
            "tutorial, or a very short assignment also make programs alike." + said
            + "</div>")


def _bar(score: float) -> str:
    # A class per 5 % (assets/report.css): the page's policy allows no style attribute.
    return (f'<span class="bar"><span class="w{round(score * 20)}"></span></span>'
            f"{score:.2f}")


def _pairs_table(report: Document) -> List[str]:
    rows = ['<h2 id="pairs">Pairs, most similar first</h2>']
    if not report["pairs"]:
        return rows + ['<p class="muted">No pair shares '
                       f'{report["parameters"]["min_shared"]} fingerprints.</p>']
    rows.append("<table><tr><th>#</th><th>a</th><th>b</th><th>score</th>"
                "<th>a's code in b</th><th>b's code in a</th><th>shared fingerprints</th>"
                "<th>regions</th><th>cluster</th><th>same wrong outputs</th></tr>")
    for pair in report["pairs"]:
        prior = ' <span class="tag prior">prior</span>' if pair["prior"] else ""
        same = pair.get("behaviour")
        mark = (f'<span class="tag">{len(same)} case{"s" * (len(same) > 1)}</span>'
                if same else
                ("—" if same is not None else '<span class="muted">no results</span>'))
        rows.append(
            f'<tr><td class="num"><a href="#pair-{pair["rank"]}">{pair["rank"]}</a></td>'
            f'<td class="name">{escape(pair["a"])}</td>'
            f'<td class="name">{escape(pair["b"])}{prior}</td>'
            f'<td class="num">{_bar(pair["score"])}</td>'
            f'<td class="num">{pair["a_share"]:.0%}</td>'
            f'<td class="num">{pair["b_share"]:.0%}</td>'
            f'<td class="num">{pair["shared"]:,}</td>'
            f'<td class="num">{len(pair["regions"])}</td>'
            f'<td class="num">{_cluster_link(pair["cluster"])}</td><td>{mark}</td></tr>')
    rows.append("</table>")
    return rows


def _cluster_link(number: Optional[int]) -> str:
    return "—" if number is None else f'<a href="#cluster-{number}">{number}</a>'


def _clusters(report: Document) -> List[str]:
    threshold = report["parameters"]["threshold"]
    rows = ['<h2 id="clusters">Clusters</h2>',
            f'<p class="muted">Entries joined by pairs scoring {threshold:.2f} or more.</p>']
    if not report["clusters"]:
        return rows + ['<p class="muted">None.</p>']
    for cluster in report["clusters"]:
        rows.append(f'<h3 id="cluster-{cluster["number"]}">Cluster {cluster["number"]}: '
                    f'{len(cluster["members"])} entries, best score {cluster["best"]:.2f}'
                    "</h3><p>" + ", ".join(escape(name) for name in cluster["members"])
                    + "</p><ul class=\"notes\">")
        for pair in cluster["pairs"]:
            label = f'{escape(pair["a"])} – {escape(pair["b"])}: {pair["score"]:.2f}'
            rows.append(f'<li><a href="#pair-{pair["rank"]}">{label}</a></li>'
                        if pair["rank"] else f"<li>{label} (below the top pairs)</li>")
        rows.append("</ul>")
        for shared in cluster["behaviour"]:
            rows.append(f'<div class="evidence">Same wrong output on {escape(shared["case"])}'
                        ": " + ", ".join(escape(name) for name in shared["members"])
                        + "</div>")
    return rows


def _behaviour(report: Document) -> List[str]:
    rows = ['<h2 id="behaviour">Same wrong outputs (behaviour)</h2>']
    behaviour = report.get("behaviour")
    if behaviour is None:
        return rows + ['<p class="muted">No results file given (<code>--results</code> '
                       "from <code>grade run --json</code> of the same class).</p>"]
    rows.append(f'<p class="muted">From {escape(behaviour["results"] or "")}: pairs that '
                 "failed the same cases with the very same wrong bytes (passed cases never "
                 f"count; {behaviour['common_ignored']} wrong answers shared by more than "
                 "the common limit ignored).</p>")
    if behaviour["missing"]:
        rows.append('<p class="muted">No results for: '
                    + ", ".join(escape(name) for name in behaviour["missing"]) + "</p>")
    if not behaviour["pairs"]:
        return rows + ['<p class="muted">No pair shares a wrong output.</p>']
    rows.append("<table><tr><th>a</th><th>b</th><th>cases</th><th>which</th>"
                "<th>code score</th></tr>")
    for pair in behaviour["pairs"]:
        cases = ", ".join(f'{escape(case["case"])} ({escape(", ".join(case["kinds"]))})'
                          for case in pair["wrong"])
        rows.append(f'<tr><td class="name">{escape(pair["a"])}</td><td class="name">'
                    f'{escape(pair["b"])}</td><td class="num">{pair["cases"]}</td>'
                    f'<td>{cases}</td><td class="num">{pair["score"]:.2f}</td></tr>')
    return rows + ["</table>"]


def _entries(report: Document) -> List[str]:
    rows = ['<h2 id="entries">Entries</h2>']
    skipped = [entry for entry in report["entries"] if not entry["compared"]]
    noted = [entry for entry in report["entries"] if entry["compared"] and entry["notes"]]
    if not skipped and not noted:
        return rows + ['<p class="muted">Every entry was compared, every file read.</p>']
    if skipped:
        rows.append("<h3>Not compared</h3><table><tr><th>entry</th><th>why</th></tr>")
        rows.extend(f'<tr><td class="name">{escape(entry["name"])}</td>'
                    f'<td>{escape(entry["reason"])}</td></tr>' for entry in skipped)
        rows.append("</table>")
    if noted:
        rows.append("<h3>Compared, with notes</h3><table><tr><th>entry</th><th>notes</th>"
                    "</tr>")
        rows.extend(f'<tr><td class="name">{escape(entry["name"])}</td><td>'
                    + "<br>".join(escape(note) for note in entry["notes"]) + "</td></tr>"
                    for entry in noted)
        rows.append("</table>")
    return rows


def _pair_detail(pair: Document, texts: Texts) -> List[str]:
    rank = pair["rank"]
    rows = [f'<section class="pair" id="pair-{rank}">',
            f'<h3>#{rank}: {escape(pair["a"])} and {escape(pair["b"])}'
            + (' <span class="tag prior">prior</span>' if pair["prior"] else "") + "</h3>",
            f'<p>Score {pair["score"]:.2f}: {pair["a_share"]:.0%} of the fingerprints of '
            f'{escape(pair["a"])} are in {escape(pair["b"])}, {pair["b_share"]:.0%} of '
            f'those of {escape(pair["b"])} are in {escape(pair["a"])} '
            f'({pair["shared"]:,} shared). <a class="back" href="#pairs">↑ pairs</a></p>',
            '<div class="code-evidence"><h4>Code: matched regions</h4>'
            "<table><tr><th>region</th><th>in a</th><th>in b</th><th>fingerprints</th></tr>"]
    for number, region in enumerate(pair["regions"], 1):
        rows.append(f'<tr><td><a href="#pair-{rank}-region-{number}">{number}</a></td>'
                    f'<td>{escape(region["a_file"])}: {_span(region["a_lines"])}</td>'
                    f'<td>{escape(region["b_file"])}: {_span(region["b_lines"])}</td>'
                    f'<td class="num">{region["fingerprints"]}</td></tr>')
    rows.append("</table></div>")
    rows.extend(_pair_behaviour(pair))
    for number, region in enumerate(pair["regions"], 1):
        rows.append(_region_block(pair, number, region, texts))
    rows.append("</section>")
    return rows


def _span(lines: List[int]) -> str:
    return f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}–{lines[1]}"


def _pair_behaviour(pair: Document) -> List[str]:
    same = pair.get("behaviour")
    if not same:
        return []
    rows = ['<div class="evidence"><h4>Behaviour: the same wrong bytes on the same '
            "failing cases</h4><ul class=\"notes\">"]
    for case in same:
        diagnosis = (f" — the kit's diagnosis for both: {escape(case['diagnosis'])}"
                     if case["diagnosis"] else "")
        rows.append(f'<li>{escape(case["case"])}: same {escape(", ".join(case["kinds"]))} '
                    f'({escape(", ".join(case["outputs"]))}){diagnosis}</li>')
    return rows + ["</ul></div>"]


def _region_block(pair: Document, number: int, region: Document, texts: Texts) -> str:
    sides = []
    for side in ("a", "b"):
        name, file_name = pair[side], region[f"{side}_file"]
        first, last = region[f"{side}_lines"]
        sides.append(f"<div><b>{escape(name)} · {escape(file_name)}: {_span([first, last])}"
                     f"</b>{_listing(texts(name, file_name), first, last)}</div>")
    return (f'<div class="region" id="pair-{pair["rank"]}-region-{number}"><h4>Region '
            f'{number} <a class="back" href="#pair-{pair["rank"]}">↑ pair</a></h4>'
            f'<div class="side">{"".join(sides)}</div></div>')


def _listing(text: Optional[str], first: int, last: int) -> str:
    """Lines ``first`` to ``last`` of ``text`` highlighted, with :data:`CONTEXT` lines
    around them, numbered."""
    if text is None:
        return '<pre><span class="l muted">(the file is no longer readable)</span></pre>'
    lines = text.split("\n")
    start, end = max(1, first - CONTEXT), min(len(lines), last + CONTEXT)
    rows = []
    for number in range(start, end + 1):
        css = "l hit" if first <= number <= last else "l"
        rows.append(f'<span class="{css}"><span class="ln">{number}</span>'
                    f"{escape(lines[number - 1].rstrip(chr(13)))}</span>")
    return "<pre>" + "\n".join(rows) + "</pre>"
