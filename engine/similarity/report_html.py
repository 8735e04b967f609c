"""The report as one self-contained HTML page: readable offline, without a script, printed.

The page holds, in this order: what the report is and is not; the ranked pairs; the
clusters; the pairs whose programs printed the same wrong bytes (behaviour, kept apart
from the code); the entries not compared and the notes on those compared; then one
section per reported pair: both directions' shares, its regions (each linked to its
side-by-side view: the lines of both files, the matched ones highlighted), and its
behaviour evidence in a box of its own.

The page is built with engine.markup: its skeleton is assets/report.html, its style
assets/report.css (inline, read with :func:`engine.markup.asset`), and its
Content-Security-Policy allows that style alone: no script, no request. Sections that run
over many lines are written a line at a time (``start``, rows, ``end``), the bytes the
page had before it was built this way. Every
text a student controls (names, file names, source lines, diagnoses) is escaped, its
control characters shown as backslash escapes (:mod:`engine.grading.printable`).
Printed, each pair starts a page and long lines wrap.
"""

import base64
import hashlib
from typing import Any, Callable, Dict, Iterable, List, Optional

from ..grading.report_html import escape
from ..markup import HTML, Content, Markup, asset

Document = Dict[str, Any]
# Lines shown around a region, before and after.
CONTEXT = 2
# The text of an entry's file: (entry name, file name) -> text, or None.
Texts = Callable[[str, str], Optional[str]]
# The page's skeleton and style: assets/report.html, assets/report.css.
ASSETS = __name__.rpartition(".")[0]

# Headings of ours with an apostrophe, which the HTML dialect would write as &#x27;
# (the page has always shown them as they are).
A_IN_B, B_IN_A = Markup("a's code in b"), Markup("b's code in a")
KITS_DIAGNOSIS = Markup(" — the kit's diagnosis for both: ")
# A listing's line: its span (highlighted or not), the number's span, their end.
_LINE, _LINE_HIT = HTML.start("span", class_="l"), HTML.start("span", class_="l hit")
_NUMBER, _END_SPAN = HTML.start("span", class_="ln"), HTML.end("span")


def render(report: Document, texts: Texts, title: str) -> str:
    """The HTML page of ``report`` (engine.similarity.report's document); ``texts``
    gives the source of the files its pairs name; ``title`` names the class."""
    css = asset(ASSETS, "report.css")
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode()
    lines = [*_pairs_table(report), *_clusters(report), *_behaviour(report),
             *_entries(report)]
    for pair in report["pairs"]:
        lines.extend(_pair_detail(pair, texts))
    return HTML.fill(asset(ASSETS, "report.html"), digest=digest, title=escape(title),
                     style=css, meta=_meta(report), caveat=_caveat(report),
                     sections=HTML.join(lines, "\n"))


def _muted(*content: Content) -> Markup:
    return HTML.element("p", *content, class_="muted")


def _head(labels: Iterable[Content]) -> Markup:
    """``<table>`` and its heading row (the rows and ``</table>`` follow, a line each)."""
    return HTML.join((HTML.start("table"),
                      HTML.element("tr", (HTML.element("th", label) for label in labels))))


def _names(names: Iterable[str]) -> Markup:
    return HTML.join((escape(name) for name in names), ", ")


def _meta(report: Document) -> Markup:
    parameters, summary = report["parameters"], report["summary"]
    prior = f", {summary['prior']} prior entries" if summary["prior"] else ""
    base = report["base"]
    handout = (f" · handout: {len(base['files'])} file(s), {base['fingerprints']:,} "
               "k-grams removed") if base["files"] else " · no handout given (--base)"
    return HTML.element(
        "div", escape(report["program"]),
        f" · {summary['compared']} of {summary['entries']} entries compared{prior} · "
        f"{summary['pairs_sharing']:,} pairs share {parameters['min_shared']} fingerprints "
        f"or more · k = {parameters['k']} tokens, window {parameters['window']} (every "
        f"match of {parameters['guarantee']} tokens found) · fingerprints in more than "
        f"{parameters['common_limit']} entries ignored ({summary['common_ignored']:,})"
        f"{handout}", class_="meta")


def _caveat(report: Document) -> Markup:
    said = (None if report.get("behaviour") is None else
            " The same wrong output on the same case is a second, separate kind of "
            "evidence, shown apart from the code.")
    return HTML.element(
        "div", HTML.element("b", "What this is, and is not."),
        " A high score says that two programs share long stretches of code once names, "
        "literals, comments and layout are set aside; it is a reason to read both side by "
        "side, never proof of copying: a handout not given as ", HTML.element("code", "--base"),
        ", a shared tutorial, or a very short assignment also make programs alike.", said,
        class_="caveat")


def _bar(score: float) -> Markup:
    # A class per 5 % (assets/report.css): the page's policy allows no style attribute.
    return HTML.join((HTML.element("span", HTML.element("span", class_=f"w{round(score * 20)}"),
                                   class_="bar"), f"{score:.2f}"))


def _tag(text: str, kind: str = "tag") -> Markup:
    return HTML.element("span", text, class_=kind)


def _pairs_table(report: Document) -> List[Markup]:
    rows = [HTML.element("h2", "Pairs, most similar first", id="pairs")]
    if not report["pairs"]:
        return rows + [_muted(f"No pair shares {report['parameters']['min_shared']} "
                              "fingerprints.")]
    rows.append(_head(("#", "a", "b", "score", A_IN_B, B_IN_A, "shared fingerprints",
                       "regions", "cluster", "same wrong outputs")))
    for pair in report["pairs"]:
        same = pair.get("behaviour")
        mark = (_tag(f"{len(same)} case{'s' * (len(same) > 1)}") if same else
                "—" if same is not None else _tag("no results", "muted"))
        rows.append(HTML.element(
            "tr", _cell(HTML.element("a", pair["rank"], href=f"#pair-{pair['rank']}"), "num"),
            _cell(escape(pair["a"]), "name"),
            _cell(HTML.join((escape(pair["b"]), _prior(pair))), "name"),
            _cell(_bar(pair["score"]), "num"), _cell(f"{pair['a_share']:.0%}", "num"),
            _cell(f"{pair['b_share']:.0%}", "num"), _cell(f"{pair['shared']:,}", "num"),
            _cell(len(pair["regions"]), "num"), _cell(_cluster_link(pair["cluster"]), "num"),
            _cell(mark)))
    rows.append(HTML.end("table"))
    return rows


def _cell(content: Content, kind: Optional[str] = None) -> Markup:
    return HTML.element("td", content, class_=kind)


def _prior(pair: Document) -> Optional[Markup]:
    return HTML.join((" ", _tag("prior", "tag prior"))) if pair["prior"] else None


def _cluster_link(number: Optional[int]) -> Content:
    return "—" if number is None else HTML.element("a", number, href=f"#cluster-{number}")


def _clusters(report: Document) -> List[Markup]:
    threshold = report["parameters"]["threshold"]
    rows = [HTML.element("h2", "Clusters", id="clusters"),
            _muted(f"Entries joined by pairs scoring {threshold:.2f} or more.")]
    if not report["clusters"]:
        return rows + [_muted("None.")]
    for cluster in report["clusters"]:
        number = cluster["number"]
        rows.append(HTML.join((
            HTML.element("h3", f"Cluster {number}: {len(cluster['members'])} entries, best "
                         f"score {cluster['best']:.2f}", id=f"cluster-{number}"),
            HTML.element("p", _names(cluster["members"])),
            HTML.start("ul", class_="notes"))))
        for pair in cluster["pairs"]:
            label = HTML.join((escape(pair["a"]), " – ", escape(pair["b"]),
                               f": {pair['score']:.2f}"))
            rows.append(HTML.element("li", HTML.element("a", label, href=f"#pair-{pair['rank']}")
                                     if pair["rank"] else (label, " (below the top pairs)")))
        rows.append(HTML.end("ul"))
        rows.extend(HTML.element("div", "Same wrong output on ", escape(shared["case"]), ": ",
                                 _names(shared["members"]), class_="evidence")
                    for shared in cluster["behaviour"])
    return rows


def _behaviour(report: Document) -> List[Markup]:
    rows = [HTML.element("h2", "Same wrong outputs (behaviour)", id="behaviour")]
    behaviour = report.get("behaviour")
    if behaviour is None:
        return rows + [_muted("No results file given (", HTML.element("code", "--results"),
                              " from ", HTML.element("code", "grade run --json"),
                              " of the same class).")]
    rows.append(_muted(
        "From ", escape(behaviour["results"] or ""), ": pairs that failed the same cases "
        "with the very same wrong bytes (passed cases never count; "
        f"{behaviour['common_ignored']} wrong answers shared by more than the common limit "
        "ignored)."))
    if behaviour["missing"]:
        rows.append(_muted("No results for: ", _names(behaviour["missing"])))
    if not behaviour["pairs"]:
        return rows + [_muted("No pair shares a wrong output.")]
    rows.append(_head(("a", "b", "cases", "which", "code score")))
    for pair in behaviour["pairs"]:
        cases = HTML.join((HTML.join((escape(case["case"]), " (",
                                      escape(", ".join(case["kinds"])), ")"))
                           for case in pair["wrong"]), ", ")
        rows.append(HTML.element("tr", _cell(escape(pair["a"]), "name"),
                                 _cell(escape(pair["b"]), "name"), _cell(pair["cases"], "num"),
                                 _cell(cases), _cell(f"{pair['score']:.2f}", "num")))
    return rows + [HTML.end("table")]


def _entries(report: Document) -> List[Markup]:
    rows = [HTML.element("h2", "Entries", id="entries")]
    skipped = [entry for entry in report["entries"] if not entry["compared"]]
    noted = [entry for entry in report["entries"] if entry["compared"] and entry["notes"]]
    if not skipped and not noted:
        return rows + [_muted("Every entry was compared, every file read.")]
    if skipped:
        rows.append(HTML.join((HTML.element("h3", "Not compared"), _head(("entry", "why")))))
        rows.extend(HTML.element("tr", _cell(escape(entry["name"]), "name"),
                                 _cell(escape(entry["reason"])))
                    for entry in skipped)
        rows.append(HTML.end("table"))
    if noted:
        rows.append(HTML.join((HTML.element("h3", "Compared, with notes"),
                               _head(("entry", "notes")))))
        rows.extend(HTML.element("tr", _cell(escape(entry["name"]), "name"),
                                 _cell(HTML.join((escape(note) for note in entry["notes"]),
                                                 HTML.element("br"))))
                    for entry in noted)
        rows.append(HTML.end("table"))
    return rows


def _pair_detail(pair: Document, texts: Texts) -> List[Markup]:
    rank = pair["rank"]
    a, b = escape(pair["a"]), escape(pair["b"])
    rows = [HTML.start("section", class_="pair", id=f"pair-{rank}"),
            HTML.element("h3", f"#{rank}: ", a, " and ", b, _prior(pair)),
            HTML.element(
                "p", f"Score {pair['score']:.2f}: {pair['a_share']:.0%} of the fingerprints of ",
                a, " are in ", b, f", {pair['b_share']:.0%} of those of ", b, " are in ", a,
                f" ({pair['shared']:,} shared). ",
                HTML.element("a", "↑ pairs", class_="back", href="#pairs")),
            HTML.join((HTML.start("div", class_="code-evidence"),
                       HTML.element("h4", "Code: matched regions"),
                       _head(("region", "in a", "in b", "fingerprints"))))]
    for number, region in enumerate(pair["regions"], 1):
        rows.append(HTML.element(
            "tr", _cell(HTML.element("a", number, href=f"#pair-{rank}-region-{number}")),
            _cell((escape(region["a_file"]), ": ", _span(region["a_lines"]))),
            _cell((escape(region["b_file"]), ": ", _span(region["b_lines"]))),
            _cell(region["fingerprints"], "num")))
    rows.append(HTML.join((HTML.end("table"), HTML.end("div"))))
    rows.extend(_pair_behaviour(pair))
    for number, region in enumerate(pair["regions"], 1):
        rows.append(_region_block(pair, number, region, texts))
    rows.append(HTML.end("section"))
    return rows


def _span(lines: List[int]) -> str:
    return f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}–{lines[1]}"


def _pair_behaviour(pair: Document) -> List[Markup]:
    same = pair.get("behaviour")
    if not same:
        return []
    rows = [HTML.join((HTML.start("div", class_="evidence"),
                       HTML.element("h4", "Behaviour: the same wrong bytes on the same "
                                    "failing cases"),
                       HTML.start("ul", class_="notes")))]
    for case in same:
        diagnosis = ((KITS_DIAGNOSIS, escape(case["diagnosis"])) if case["diagnosis"]
                     else None)
        rows.append(HTML.element("li", escape(case["case"]), ": same ",
                                 escape(", ".join(case["kinds"])), " (",
                                 escape(", ".join(case["outputs"])), ")", diagnosis))
    return rows + [HTML.join((HTML.end("ul"), HTML.end("div")))]


def _region_block(pair: Document, number: int, region: Document, texts: Texts) -> Markup:
    rank = pair["rank"]
    sides = []
    for side in ("a", "b"):
        name, file_name = pair[side], region[f"{side}_file"]
        first, last = region[f"{side}_lines"]
        sides.append(HTML.element(
            "div", HTML.element("b", escape(name), " · ", escape(file_name), ": ",
                                _span([first, last])),
            _listing(texts(name, file_name), first, last)))
    return HTML.element(
        "div", HTML.element("h4", f"Region {number} ",
                            HTML.element("a", "↑ pair", class_="back", href=f"#pair-{rank}")),
        HTML.element("div", sides, class_="side"), class_="region",
        id=f"pair-{rank}-region-{number}")


def _listing(text: Optional[str], first: int, last: int) -> Markup:
    """Lines ``first`` to ``last`` of ``text`` highlighted, with :data:`CONTEXT` lines
    around them, numbered."""
    if text is None:
        return HTML.element("pre", HTML.element("span", "(the file is no longer readable)",
                                                class_="l muted"))
    lines = text.split("\n")
    start, end = max(1, first - CONTEXT), min(len(lines), last + CONTEXT)
    rows = []
    for number in range(start, end + 1):
        # (the tags written once: a page holds thousands of these lines)
        rows.append(HTML.join((_LINE_HIT if first <= number <= last else _LINE, _NUMBER,
                               number, _END_SPAN, escape(lines[number - 1].rstrip(chr(13))),
                               _END_SPAN)))
    return HTML.element("pre", HTML.join(rows, "\n"))
