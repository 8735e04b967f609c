"""The judge contract: what the grading kit asks of each graded assignment, resolved once.

engine.registry names each graded assignment's judge: a module of
engine.grading.assignments that fulfils :class:`Judge` (every member below is required;
a module that lacks one is refused when it is loaded, and the type checker checks their
signatures, see engine/grading/assignments/__init__.py). :func:`load` resolves an
assignment's name (or alias) once per run into a :class:`GradedAssignment`, the
registry's facts and the judge together, which the kit then passes on: to detection,
generation, the runner, the diagnosis and the scores. Nothing of the kit looks an
assignment up again by its name.
"""

import functools
from pathlib import Path
from random import Random
from typing import (Callable, Hashable, Iterable, Iterator, List, NamedTuple, Optional, Protocol,
                    Sequence, Tuple, runtime_checkable)

from .. import registry
from ..errors import EngineError, UsageError
from .case import Case, Outcome
from .casespace import Candidate, Category, Stratum
from .plan import Plan
from .verdict import Finding, Verdict

# Candidate, a generated case before its expected outputs (label, the grader's arguments,
# input files), is defined beside the families that number them (engine.grading.casespace).


@runtime_checkable
class Judge(Protocol):
    """One graded assignment's part of the kit (a module: each member a module-level name).

    Its members, each described where it is declared: how a submission runs
    (``ENTRY_POINTS``, ``detect``), what its grader compares (``STDOUT_GRADED``,
    ``graded_files``, ``FILE_LABEL``, ``UNREADABLE_ZEROES``), generated cases
    (engine.grading.generate: ``edges``, ``draw_stratum``, ``stratum``, ``CATEGORIES``)
    and judging a run that ended by itself (engine.grading.diagnose: ``fits``,
    ``judge``, ``score``).
    """

    @property
    def ENTRY_POINTS(self) -> Tuple[str, ...]:
        """The files a submission is recognised by, in the order the grader tries them;
        the kit names them when a folder is none (and hints at a name that differs only
        in case, or a submission one level down)."""

    @property
    def STDOUT_GRADED(self) -> bool:
        """Whether stdout is graded (Stake/Raid: no, only output.txt)."""

    @property
    def FILE_LABEL(self) -> str:
        """How a report names the graded file (``visited file``, ``output.txt``)."""

    @property
    def UNREADABLE_ZEROES(self) -> bool:
        """Whether a missing or unreadable graded file costs the whole submission its
        points (Stake/Raid's rule): a verdict then carries ``unusable_output``."""

    @property
    def CATEGORIES(self) -> Sequence[Category]:
        """The situations every set of ten or more cases covers, each a
        :class:`~engine.grading.casespace.Category` (its test and a family of its
        instances), at most ten, in the order a set that lacks several is given them."""

    def detect(self, folder: Path) -> Plan:
        """The :class:`~engine.grading.plan.Plan` that builds and runs the submission
        ``folder`` as the assignment's grader would (kind ``"none"``, with the reason,
        when nothing can). Reads the folder link-safely (engine.grading.detect's
        helpers), never writes it."""

    def graded_files(self, case: Case) -> List[str]:
        """The output files the grader compares besides stdout (the visited file PATH,
        output.txt), including one a case says must not exist."""

    def edges(self, rng: Random) -> Iterator[Candidate]:
        """The edge-case candidates, in order (every seed's, its choices drawn from
        ``rng``)."""

    def draw_stratum(self, rng: Random) -> Hashable:
        """The key of the stratum a random case is drawn from (how often each is drawn
        is the judge's choice, but a stratum that can be used up must come up far more
        often than once in 10,000 draws: engine.grading.generate's USED_UP_PATIENCE)."""

    def stratum(self, key: Hashable) -> Stratum:
        """That stratum, an :class:`~engine.grading.casespace.Stratum` numbering its
        candidates one to one (a seed walks it in an order of its own,
        engine.grading.casespace)."""

    def fits(self, case: Case) -> bool:
        """Whether ``case`` has the shape of a generated one; else the kit compares
        bytes alone."""

    def judge(self, case: Case, outcome: Outcome,
              lenient: bool) -> Iterable[Optional[Finding]]:
        """The Findings (None entries are skipped) of ``outcome`` on a fitting
        ``case``; may raise ValueError, IndexError, KeyError, UnicodeError or
        EngineError on a case its reading does not fit (bytes decide then)."""

    def score(self, verdicts: Sequence[Verdict]) -> Tuple[float, float]:
        """``(points, max_points)`` of a submission's verdicts by the assignment's rule
        (:func:`engine.grading.scoring.one_point_per_case` unless it has its own)."""


def contract() -> Tuple[str, ...]:
    """The names every judge must supply (the members of :class:`Judge`), sorted."""
    return tuple(sorted(name for name in vars(Judge)
                        if not name.startswith("_") and name != "register"))


class GradedAssignment(NamedTuple):
    """An assignment the kit grades, resolved once (:func:`load`): ``facts``, its
    engine.registry entry, and ``judge``, its module."""
    facts: registry.Assignment
    judge: Judge

    @property
    def name(self) -> str:
        """The assignment's one name (never an alias): what results, reports and the
        seeds of generated cases use."""
        return self.facts.name

    @property
    def script(self) -> str:
        """The grader's script word in a case's ``cmd`` (``tictactoe.py``, ...)."""
        script = self.facts.script
        assert script is not None, f"graded assignment {self.name} has no script"
        return script

    @property
    def visited_arg(self) -> Optional[int]:
        """The position of the visited file among the grader's arguments (see
        engine.registry), None when the grader compares no search trace."""
        return self.facts.visited_arg

    def reference_main(self) -> Callable[[List[str]], int]:
        """``main(argv) -> exit code`` of our program, for in-process runs."""
        return self.facts.reference_main()


class JudgeError(EngineError, TypeError):
    """A judge module that lacks part of the :class:`Judge` contract (our bug)."""


@functools.lru_cache(maxsize=None)
def load(name: str) -> GradedAssignment:
    """The graded assignment ``name`` (or one of its aliases), its judge imported and
    checked. UsageError for a name the kit does not grade; JudgeError when the judge
    lacks a member of the contract (the message names each)."""
    entry = registry.assignment(name)
    if entry is None or entry.judge is None:
        raise UsageError(f"unknown program {name!r}; choose from "
                         f"{', '.join(registry.assignment_names())}")
    module = registry.import_named(entry.judge)
    missing = [member for member in contract() if not hasattr(module, member)]
    if missing:
        raise JudgeError(f"{entry.judge} lacks {', '.join(missing)} (engine.grading."
                         f"judges.Judge)")
    return GradedAssignment(entry, module)
