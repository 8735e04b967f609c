"""The results of a grading run, kept as the JSON document ``--json`` writes.

Shape (extra keys beyond the contract are marked *)::

    {"program": "tictactoe", "isolation"*: "bwrap+rlimits", "lenient"*: false,
     "limits"*: {...},
     "submissions": [{"submission": "class/alice", "kind"*: "python",
                      "build_error"*: null, "score": 11, "max_score": 12,
                      "points": 11, "max_points": 12,
                      "cases": [{"case": "case001", "passed": true, "reason": "passed",
                                 "seconds": 0.05, "detail": "", "cpu"*: 0.04,
                                 "command"*: "python3 tictactoe.py ...",
                                 "seccomp"*: "allowlist", ...}]}]}

A case's ``seccomp`` names the system-call filter its run had: "allowlist", "denylist"
or "none" (see :mod:`engine.sandbox._seccomp`).

:class:`Results` is filled by the runner from several threads; when it has a path it
rewrites the file atomically (temp file + rename) as cases finish, at most every
``interval`` seconds (longer when the file is large: writing stays under 5% of the time)
and always at the end, so an interrupted run keeps what was done.
:func:`load` and :func:`merge` read such files back.
"""

import json
import threading
import time
from collections import OrderedDict
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..commandline import write_atomically
from .verdict import Score

# A results document, or one submission's entry in it (JSON values).
Document = Dict[str, Any]


class Results:
    """The document being built (see the module docstring)."""

    def __init__(self, program: str, path: Optional[str] = None, isolation: str = "",
                 lenient: bool = False, limits: Optional[Dict[str, Any]] = None,
                 previous: Optional[Document] = None, interval: float = 0.5) -> None:
        self.path = path
        self.interval = interval
        self.lock = threading.Lock()
        self.last_write = 0.0
        self.pause = interval
        self.document: Document = {"program": program, "isolation": isolation, "lenient": lenient,
                         "limits": limits or {}, "submissions": []}
        self.by_name: Dict[str, Document] = OrderedDict()
        if previous is not None:
            if previous.get("program") != program:
                raise ValueError(f"{path} holds results of {previous.get('program')!r}, "
                                 f"not {program!r}")
            for entry in previous.get("submissions", []):
                self.by_name[entry["submission"]] = entry
                self.document["submissions"].append(entry)

    def add_submission(self, submission: str) -> None:
        with self.lock:
            if submission not in self.by_name:
                entry: Document = {"submission": submission, "kind": None, "build_error": None,
                         "score": 0, "max_score": 0, "points": 0, "max_points": 0,
                         "cases": []}
                self.by_name[submission] = entry
                self.document["submissions"].append(entry)

    def describe(self, submission: str, **fields: Any) -> None:
        """Add ``fields`` (what an export says of the student: ``source``, ``ids``) to
        the entry of ``submission``."""
        with self.lock:
            self.by_name[submission].update(fields)

    def has_case(self, submission: str, name: str) -> bool:
        with self.lock:
            entry = self.by_name.get(submission)
            return entry is not None and any(case["case"] == name for case in entry["cases"])

    def set_build(self, submission: str, kind: Optional[str], error: Optional[str],
                  seconds: float) -> None:
        with self.lock:
            entry = self.by_name[submission]
            entry.update(kind=kind, build_error=error, build_seconds=round(seconds, 3))

    def add_case(self, submission: str, record: Document) -> None:
        with self.lock:
            self.by_name[submission]["cases"].append(record)
            if self.path and time.monotonic() - self.last_write >= self.pause:
                self._write()

    def cases_by_submission(self) -> Dict[str, List[Document]]:
        with self.lock:
            return {name: list(entry["cases"]) for name, entry in self.by_name.items()}

    def finish(self, scores: Mapping[str, Score]) -> None:
        """Record the final ``scores`` ({submission: Score}), order cases by name and write."""
        with self.lock:
            for name, entry in self.by_name.items():
                entry["cases"].sort(key=lambda record: record["case"])
                if name in scores:
                    found = scores[name]
                    entry.update(score=found.score, max_score=found.max_score,
                                 points=found.points, max_points=found.max_points)
            if self.path:
                self._write()

    def _write(self) -> None:
        started = time.monotonic()
        # Called only for a document that has a file (``self.path``).
        write_atomically(self.path, json.dumps(self.document, indent=1) + "\n")  # type: ignore[arg-type]
        self.last_write = time.monotonic()
        # A class's file grows to megabytes: keep rewriting it under 5% of the time.
        self.pause = max(self.interval, 20 * (self.last_write - started))


def load(path: str) -> Document:
    """The results document stored at ``path``. Raises ValueError when it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    if not isinstance(document, dict) or "program" not in document or not isinstance(
            document.get("submissions"), list):
        raise ValueError(f"{path} is not a grading results file")
    return document


def merge(documents: Sequence[Document], names: Optional[Sequence[str]] = None
          ) -> Document:
    """One document joining shard ``documents`` (results of disjoint submissions).

    Raises ValueError when they grade different programs or when a submission appears
    in more than one (``names`` labels the documents in the message)."""
    names = names or [f"#{index + 1}" for index in range(len(documents))]
    if not documents:
        raise ValueError("nothing to merge")
    programs = {document["program"] for document in documents}
    if len(programs) > 1:
        raise ValueError(f"cannot merge results of different programs: {sorted(programs)}")
    merged = {key: value for key, value in documents[0].items() if key != "submissions"}
    isolations = sorted({document.get("isolation", "") for document in documents})
    merged["isolation"] = ", ".join(isolations)
    merged["submissions"] = []
    seen: Dict[str, str] = {}
    for name, document in zip(names, documents):
        for entry in document["submissions"]:
            if entry["submission"] in seen:
                raise ValueError(f"submission {entry['submission']} is in both "
                                 f"{seen[entry['submission']]} and {name}")
            seen[entry["submission"]] = name
            merged["submissions"].append(entry)
    merged["submissions"].sort(key=lambda entry: entry["submission"])
    return merged
