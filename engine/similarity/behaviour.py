"""Evidence from behaviour: the same wrong bytes on the same failing cases.

A ``grade run --json`` results file of the same class keeps, for every failed case, each
graded output that differs from the expected one (stdout, the visited file, output.txt)
from a few lines before the first difference on (at most 200 lines / 20 kB: the bytes
the results file keeps). Two students whose programs print the very same wrong bytes on
the same case made the same mistake the same way; two who pass a case tell nothing (a
correct answer is what everyone aims at), and neither do two whose program printed
nothing or did not run (a crash is no output to share).

A wrong answer many students share is a common mistake, not evidence: one found in more
than the class's common limit (:func:`engine.similarity.corpus.common_limit` of the
submissions in the file) is ignored, as common fingerprints are. Each shared wrong case
is named with what it was wrong in, in words: ``output`` (stdout, output.txt), ``visit
order`` (the visited file of tic-tac-toe and Three Men's Morris), and ``tie-break`` when
the kit diagnosed a tie-break slip in both.
"""

import hashlib
import json
import os
from itertools import combinations
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .corpus import common_limit


class WrongCase(NamedTuple):
    """One case two entries failed with the same wrong bytes: its name, what was wrong
    in words (``output``, ``visit order``, ``tie-break``), the outputs compared (as the
    results file names them) and the kit's diagnosis when both had the same one."""
    case: str
    kinds: List[str]
    outputs: List[str]
    diagnosis: Optional[str]


class _Failure(NamedTuple):
    digest: str
    outputs: List[str]
    reason: str


class Behaviour(NamedTuple):
    """The results file read against the entries: each entry's rare wrong answers
    (``{entry name: {case: failure}}``), how many distinct wrong answers were ignored as
    common, and the entries the file has no results for."""
    failures: Dict[str, Dict[str, _Failure]]
    common: int
    missing: List[str]
    visited_outputs: bool


def read_behaviour(document: Dict[str, Any], names: Sequence[str],
                   within: Sequence[str], visited_outputs: bool) -> Behaviour:
    """Match the results ``document``'s submissions to the entries ``names`` (each
    also known by ``within``, its name inside the class folder) and keep their rare
    wrong answers. ``visited_outputs``: the assignment's graded file is a visited file
    (its differences are the visit order). Raises ValueError for a document of the
    wrong shape."""
    by_label = _by_label(document)
    failures: Dict[str, Dict[str, _Failure]] = {}
    missing = []
    for name, inner in zip(names, within):
        entry = _find(by_label, name, inner)
        if entry is None:
            missing.append(name)
            continue
        failures[name] = _failures(entry)
    counts: Dict[Tuple[str, str], int] = {}
    for found in failures.values():
        for case, failure in found.items():
            counts[(case, failure.digest)] = counts.get((case, failure.digest), 0) + 1
    limit = common_limit(len(failures))
    common = {key for key, count in counts.items() if count > limit}
    rare = {name: {case: failure for case, failure in found.items()
                   if (case, failure.digest) not in common}
            for name, found in failures.items()}
    return Behaviour(rare, len(common), missing, visited_outputs)


def _by_label(document: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    entries = document.get("submissions")
    if not isinstance(entries, list):
        raise ValueError("no list of submissions")
    found = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("submission"), str) \
                or not isinstance(entry.get("cases", []), list):
            raise ValueError("a submission entry without a name or a list of cases")
        found[os.path.normpath(entry["submission"])] = entry
    return found


def _find(by_label: Dict[str, Dict[str, Any]], name: str, inner: str
          ) -> Optional[Dict[str, Any]]:
    """The results of the entry ``name``: under the same label, else the one label
    that ends with its name inside the class folder."""
    exact = by_label.get(os.path.normpath(name))
    if exact is not None:
        return exact
    inner = os.path.normpath(inner)
    ends = [entry for label, entry in by_label.items()
            if label == inner or label.endswith("/" + inner)]
    return ends[0] if len(ends) == 1 else None


def _failures(entry: Dict[str, Any]) -> Dict[str, _Failure]:
    """``{case: its wrong answer}`` of the cases the entry ran and failed with output."""
    if entry.get("build_error"):
        return {}
    found = {}
    for case in entry.get("cases", []):
        if not isinstance(case, dict) or case.get("passed") is not False:
            continue
        wrong = [(item.get("what"), item.get("from_line"), item.get("actual"),
                  item.get("actual_truncated"))
                 for item in case.get("compared") or [] if isinstance(item, dict)
                 and isinstance(item.get("actual"), str) and item.get("actual")]
        if not wrong or not isinstance(case.get("case"), str):
            continue
        digest = hashlib.sha256(json.dumps(wrong, sort_keys=True).encode()).hexdigest()
        found[case["case"]] = _Failure(digest, [str(item[0]) for item in wrong],
                                       str(case.get("reason", "")))
    return found


def shared_wrong(behaviour: Behaviour, a: str, b: str) -> List[WrongCase]:
    """The cases ``a`` and ``b`` failed with the same rare wrong bytes, by name."""
    mine, theirs = behaviour.failures.get(a, {}), behaviour.failures.get(b, {})
    found = []
    for case in sorted(set(mine) & set(theirs)):
        one, other = mine[case], theirs[case]
        if one.digest != other.digest:
            continue
        same_reason = one.reason if one.reason == other.reason else None
        found.append(WrongCase(case, _kinds(one.outputs, same_reason,
                                            behaviour.visited_outputs),
                               one.outputs, same_reason))
    return found


def _kinds(outputs: Sequence[str], reason: Optional[str], visited: bool) -> List[str]:
    kinds = []
    if any(what == "stdout" or not visited for what in outputs):
        kinds.append("output")
    if visited and any(what != "stdout" for what in outputs):
        kinds.append("visit order")
    if reason is not None and "tie-break" in reason:
        kinds.append("tie-break")
    return kinds


def behaviour_pairs(behaviour: Behaviour) -> List[Tuple[str, str, int]]:
    """``[(a, b, cases)]`` of every pair sharing at least one rare wrong answer, most
    cases first, then by names."""
    holders: Dict[Tuple[str, str], List[str]] = {}
    for name, found in behaviour.failures.items():
        for case, failure in found.items():
            holders.setdefault((case, failure.digest), []).append(name)
    counts: Dict[Tuple[str, str], int] = {}
    for members in holders.values():
        for pair in combinations(sorted(members), 2):
            counts[pair] = counts.get(pair, 0) + 1
    return sorted(((a, b, count) for (a, b), count in counts.items()),
                  key=lambda item: (-item[2], item[0], item[1]))
