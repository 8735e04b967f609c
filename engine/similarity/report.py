"""The report as a JSON document, and its CSV.

Shape of the document (``--json``)::

    {"program": "tictactoe",
     "parameters": {"k": 20, "window": 6, "guarantee": 25, "common_share": 0.1,
                    "common_min": 10, "common_limit": 30, "threshold": 0.5, "top": 25,
                    "min_shared": 3},
     "base": {"files": ["handout/tictactoe.py"], "fingerprints": 812},
     "summary": {"entries": 300, "compared": 298, "prior": 0, "pairs_sharing": 5120,
                 "common_ignored": 311},
     "pairs": [{"rank": 1, "a": NAME, "b": NAME, "prior": false, "score": 0.93,
                "a_share": 0.95, "b_share": 0.91, "shared": 412, "cluster": 1,
                "regions": [{"a_file": "tictactoe.py", "a_lines": [12, 80],
                             "b_file": "tictactoe.py", "b_lines": [30, 101],
                             "fingerprints": 96}],
                "behaviour": [{"case": "case007", "kinds": ["visit order"],
                               "outputs": ["visited.txt"], "diagnosis": "..."}]}],
     "clusters": [{"number": 1, "members": [NAME, ...], "best": 0.93,
                   "pairs": [{"a": NAME, "b": NAME, "score": 0.93, "rank": 1}],
                   "behaviour": [{"case": "case007", "members": [NAME, NAME]}]}],
     "behaviour": null | {"results": PATH, "missing": [NAME], "common_ignored": 4,
                          "pairs": [{"a": NAME, "b": NAME, "cases": 3, "score": 0.12,
                                     "wrong": [{"case": ..., "kinds": [...], ...}]}]},
     "entries": [{"name": NAME, "term": "class" | "prior", "compared": true,
                  "reason": null, "files": ["tictactoe.py"], "tokens": 3012,
                  "fingerprints": 498, "notes": ["syntax error: ..."]}]}

Scores and shares are between 0 and 1, rounded to 4 decimals. ``a`` is always of this
term; ``b`` is a prior entry when ``prior`` is true. The CSV has one row per reported
pair: rank, a, b, score, both shares, shared fingerprints, regions, cluster, and the
cases failed with the same wrong bytes.
"""

import csv
import io
import json
from typing import Any, Dict, List, Optional

from ..grading.printable import csv_cell
from .behaviour import Behaviour, WrongCase, behaviour_pairs, shared_wrong
from .compare import Comparison
from .pairs import MIN_SHARED

Document = Dict[str, Any]
# The behaviour section lists at most this many pairs.
BEHAVIOUR_PAIRS = 50


def document(comparison: Comparison, program: str,
             behaviour: Optional[Behaviour] = None, results: Optional[str] = None
             ) -> Document:
    """The report document of ``comparison`` (see the module docstring)."""
    settings = comparison.settings
    names = [entry.name for entry in comparison.entries]
    cluster_of = {member: number for number, cluster in enumerate(comparison.clusters, 1)
                  for member in cluster.members}
    pairs = []
    for rank, pair in enumerate(comparison.reported):
        record = _pair(comparison, rank, cluster_of)
        if behaviour is not None:
            record["behaviour"] = [_wrong(case) for case
                                   in shared_wrong(behaviour, names[pair.a], names[pair.b])]
        pairs.append(record)
    return {
        "program": program,
        "parameters": {"k": settings.k, "window": settings.window,
                       "guarantee": settings.k + settings.window - 1,
                       "common_share": settings.common_share,
                       "common_min": settings.common_min,
                       "common_limit": comparison.common_limit,
                       "threshold": settings.threshold, "top": settings.top,
                       "min_shared": MIN_SHARED},
        "base": {"files": comparison.base_files,
                 "fingerprints": comparison.base_fingerprints},
        "summary": _summary(comparison),
        "pairs": pairs,
        "clusters": _clusters(comparison, behaviour),
        "behaviour": _behaviour(comparison, behaviour, results),
        "entries": _entries(comparison),
    }


def _round(value: float) -> float:
    return round(value, 4)


def _pair(comparison: Comparison, rank: int, cluster_of: Dict[int, int]) -> Document:
    pair = comparison.reported[rank]
    a, b = comparison.printed[pair.a], comparison.printed[pair.b]
    regions = []
    for region in comparison.regions[rank]:
        regions.append({
            "a_file": a.files[region.a_file].name if a else "",
            "a_lines": [region.a_first, region.a_last],
            "b_file": b.files[region.b_file].name if b else "",
            "b_lines": [region.b_first, region.b_last],
            "fingerprints": region.fingerprints})
    return {"rank": rank + 1, "a": comparison.entries[pair.a].name,
            "b": comparison.entries[pair.b].name,
            "prior": comparison.entries[pair.b].term == "prior",
            "score": _round(pair.score), "a_share": _round(pair.a_share),
            "b_share": _round(pair.b_share), "shared": pair.shared,
            "cluster": cluster_of.get(pair.a) if cluster_of.get(pair.a) == cluster_of.get(
                pair.b) else None, "regions": regions}


def _wrong(case: WrongCase) -> Document:
    return {"case": case.case, "kinds": case.kinds, "outputs": case.outputs,
            "diagnosis": case.diagnosis}


def _summary(comparison: Comparison) -> Document:
    entries = comparison.entries
    compared = [index for index, reason in enumerate(comparison.reasons) if reason is None]
    return {"entries": sum(1 for entry in entries if entry.term == "class"),
            "compared": sum(1 for index in compared if entries[index].term == "class"),
            "prior": sum(1 for index in compared if entries[index].term == "prior"),
            "pairs_sharing": len(comparison.pairs),
            "common_ignored": comparison.common}


def _clusters(comparison: Comparison, behaviour: Optional[Behaviour]) -> List[Document]:
    names = [entry.name for entry in comparison.entries]
    ranks = {(pair.a, pair.b): rank for rank, pair in enumerate(comparison.reported, 1)}
    found = []
    for number, cluster in enumerate(comparison.clusters, 1):
        members = [names[index] for index in cluster.members]
        found.append({
            "number": number, "members": members,
            "best": _round(cluster.pairs[0].score),
            "pairs": [{"a": names[pair.a], "b": names[pair.b], "score": _round(pair.score),
                       "rank": ranks.get((pair.a, pair.b))} for pair in cluster.pairs],
            "behaviour": _cluster_behaviour(members, behaviour)})
    return found


def _cluster_behaviour(members: List[str], behaviour: Optional[Behaviour]
                       ) -> List[Document]:
    """The cases two or more members failed with the same rare wrong bytes."""
    if behaviour is None:
        return []
    groups: Dict[tuple, List[str]] = {}
    for member in members:
        for case, failure in behaviour.failures.get(member, {}).items():
            groups.setdefault((case, failure.digest), []).append(member)
    return [{"case": case, "members": together}
            for (case, _), together in sorted(groups.items()) if len(together) > 1]


def _behaviour(comparison: Comparison, behaviour: Optional[Behaviour],
               results: Optional[str]) -> Optional[Document]:
    if behaviour is None:
        return None
    index_of = {entry.name: index for index, entry in enumerate(comparison.entries)}
    scores = {(pair.a, pair.b): pair.score for pair in comparison.pairs}
    listed = []
    for a, b, count in behaviour_pairs(behaviour)[:BEHAVIOUR_PAIRS]:
        one, other = index_of.get(a), index_of.get(b)
        score = scores.get((one, other), scores.get((other, one), 0.0)) \
            if one is not None and other is not None else 0.0
        listed.append({"a": a, "b": b, "cases": count, "score": _round(score),
                       "wrong": [_wrong(case) for case in shared_wrong(behaviour, a, b)]})
    return {"results": results, "missing": behaviour.missing,
            "common_ignored": behaviour.common, "pairs": listed}


def _entries(comparison: Comparison) -> List[Document]:
    rows = []
    for index, entry in enumerate(comparison.entries):
        printed = comparison.printed[index]
        rows.append({
            "name": entry.name, "term": entry.term,
            "compared": comparison.reasons[index] is None,
            "reason": comparison.reasons[index],
            "files": [source.name for source in printed.files] if printed else [],
            "tokens": printed.tokens if printed else 0,
            "fingerprints": len(comparison.sets[index]),
            "notes": list(printed.notes) if printed else []})
    return rows


def json_text(report: Document) -> str:
    """The document as the text ``--json`` writes."""
    return json.dumps(report, indent=1) + "\n"


CSV_COLUMNS = ("rank", "a", "b", "prior", "score", "a_share", "b_share", "shared",
               "regions", "cluster", "same_wrong_cases")


def csv_text(report: Document) -> str:
    """One row per reported pair (see the module docstring); names a student controls
    are made safe for a spreadsheet (:func:`engine.grading.printable.csv_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for pair in report["pairs"]:
        same = " ".join(case["case"] for case in pair.get("behaviour", []))
        writer.writerow([csv_cell(value) for value in (
            pair["rank"], pair["a"], pair["b"], "yes" if pair["prior"] else "no",
            f"{pair['score']:.4f}", f"{pair['a_share']:.4f}", f"{pair['b_share']:.4f}",
            pair["shared"], len(pair["regions"]),
            "" if pair["cluster"] is None else pair["cluster"], same)])
    return out.getvalue()
