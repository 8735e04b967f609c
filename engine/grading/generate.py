"""Seeded, valid, distinct cases for the four graded programs, with expected outputs.

Contract: ``generate_cases(assignment, count, seed, exclude)`` returns ``count`` distinct
:class:`~engine.grading.case.Case` objects, none equal (:func:`case_key`) to a case of
``exclude``, the same for the same arguments on any machine and any Python. Every
natural number is a seed. A set holds the assignment's edge cases first (every seed
has them, with choices of its own: which near-full board, which game-over history...),
then random cases. Its first ``COVERED_WITHIN`` (10) cases hold at least one case of
each of the assignment's categories (its judge's ``CATEGORIES``: a blank board, a game
already over, both modes...): while the edge and random cases leave some uncovered,
the last of those ten places go to instances of them, drawn from each category's own
family. So a hidden set made with ``exclude`` = the visible set covers every category
too, through other instances (another blank-board mode, another new game), and a
smaller count gives a prefix of a larger one. Two seeds may give the same case:
hidden cases stay hidden through ``exclude`` (``grade cases --exclude VISIBLE``) and
``grade autograder``'s refusal of a hidden case equal to a visible one, not through
the seeds. UsageError only when the assignment has fewer distinct cases of the kinds
generated (edges, random strata, category families) than asked, after the excluded
ones. The expected outputs are what our own programs produce. ``PROGRAMS`` names the
programs that can be graded; :func:`write_cases` stores cases as numbered case folders.
Each assignment's edge cases, strata and categories come from its judge
(engine.grading.judges; its module in engine.grading.assignments, named by
engine.registry).

Determinism: the edge cases and which stratum each random case comes from are drawn
from one ``random.Random`` seeded with a string built from the assignment's one name
and the seed (string seeds are hashed with SHA-512, the same on every Python since
3.2), and only its integer and sequence methods are used (``randrange``, ``choice``,
``shuffle``), whose results do not depend on the platform; which case of a stratum or
of a category's family, from SHAKE-256 (casespace.Walk). Candidates are drawn from
sorted lists, never from set or dict order.

Only valid inputs are generated: no error cases (no expected stderr is ever stored), no
COMPETITION mode (it has no single right answer). Each case's reference run stays small:
Take-Stones outputs stay under about 20,000 lines and Stake/Raid searches under about a
second, both judged by deterministic node counts (never by the clock).

The edge and random cases of each program, and their names (``001-blank-minimax``,
``raid-deciding-n4-alphabeta-x-depth2``...): docs/grading.md, "grade cases".
"""

import io
import itertools
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import (Any, Callable, Dict, Hashable, Iterable, Iterator, List, Optional,
                    Set, Tuple, Union)

from .. import registry
from ..errors import UsageError
from .casespace import Candidate, Category, Stratum, Walk
from .case import Case, Outcome, prepare, run_reference, snapshot, write_case
from .judges import GradedAssignment

# The programs that can be graded (engine.registry's assignments).
PROGRAMS = registry.assignment_names()
# The visited file every generated tic-tac-toe and Morris case names.
VISITED = "visited.txt"
# What makes two candidates of one assignment the same input: (args, sorted files).
InputKey = Tuple[Tuple[str, ...], Tuple[Tuple[str, bytes], ...]]


def case_key(case: Case) -> Tuple[Any, ...]:
    """What makes two cases the same case: the command and the input files (the name
    and the expected outputs follow from them)."""
    return (case.program, tuple(case.args), case.stdin, tuple(sorted(case.files.items())))


def generate_cases(assignment: GradedAssignment, count: int, seed: int,
                   runner: Optional[Callable[[Case], Outcome]] = None,
                   exclude: Iterable[Case] = ()) -> List[Case]:
    """``count`` distinct cases for ``assignment`` from ``seed`` (see the module docstring),
    none equal (:func:`case_key`) to one of the cases ``exclude`` (another set: the
    hidden cases of a bundle are made to exclude its visible ones).

    ``runner(case) -> Outcome`` computes the expected outputs; the default runs our
    program in this process (:func:`run_in_process`), which gives the same bytes as a
    subprocess (:func:`run_in_subprocess`) and costs a tenth of the time. Raises
    UsageError for a negative count, or more cases than the assignment has distinct
    inputs of the kinds generated.
    """
    if not isinstance(count, int) or count < 0:
        raise UsageError(f"the number of cases must be a non-negative integer, not {count!r}")
    if not isinstance(seed, int) or seed < 0:
        raise UsageError(f"a seed is a natural number (0, 1, 2, ...), not {seed!r}")
    runner = runner or run_in_process
    width = max(3, len(str(count)))
    cases: List[Case] = []
    for label, args, files in candidates(assignment, count, seed, exclude):
        name = f"{len(cases) + 1:0{width}d}-{label}"
        bare = Case(name=name, program=assignment.script, args=tuple(args),
                    files=dict(files))
        cases.append(_with_expected(bare, runner(bare)))
    return cases


def candidates(assignment: GradedAssignment, count: int, seed: int,
               exclude: Iterable[Case] = ()) -> List[Candidate]:
    """The first ``count`` distinct candidates ``(label, args, files)`` of ``seed`` (see
    :func:`generate_cases`, which runs our program on each), none equal to a case of
    ``exclude``; UsageError when the assignment has no more."""
    program, judge = assignment.name, assignment.judge
    rng = random.Random(f"engine.grading:{program}:{seed}")
    walk = Walk(program, seed)
    taken: Set[InputKey] = {(tuple(case.args), tuple(sorted(case.files.items())))
                            for case in exclude
                            if case.program == assignment.script and not case.stdin}
    excluded = len(taken)
    # One walk per category: its instances for the first ten places, then (once the
    # edges and strata have no more) for the rest.
    instances = [_new(_instances(assignment, category, walk), taken)
                 for category in judge.CATEGORIES]
    fill = itertools.chain(_new(judge.edges(rng), taken),
                           _new(_random_draws(assignment, rng, walk), taken), *instances)
    missing = list(zip(judge.CATEGORIES, instances))
    found: List[Candidate] = []
    while len(found) < count:
        # The places left among the first ten go to the categories still missing.
        due = missing[0] if missing and len(missing) >= COVERED_WITHIN - len(found) else None
        candidate = next(due[1] if due else fill, None)
        if candidate is None:
            if due is None:
                besides = f" besides the {excluded} excluded" if excluded else ""
                raise UsageError(f"{program} has only {len(found)} distinct cases of the "
                                 f"kinds generated{besides}, not {count}")
            missing.remove(due)       # every instance of it is excluded or taken
            continue
        taken.add(_input_key(candidate))
        found.append(candidate)
        missing = [pair for pair in missing if not pair[0].holds(candidate)]
    return found


# Every set of at least this many cases holds each category of its assignment (a
# blank board, a game over...): its first COVERED_WITHIN cases cover them all. No
# judge has more categories than this.
COVERED_WITHIN = 10
# Draws in a row from used-up strata after which a seed's random cases count as all
# drawn. A stratum with cases left is drawn far sooner: tic-tac-toe and Morris have one
# stratum, Take-Stones draws its rarest one time in 450 (10,000 misses in a row: e**-22),
# and Stake/Raid's strata but the smallest are too big to use up.
USED_UP_PATIENCE = 10000


def _input_key(candidate: Candidate) -> InputKey:
    """What makes two candidates of one assignment the same input."""
    _, args, files = candidate
    return tuple(args), tuple(sorted(files.items()))


def _new(draws: Iterable[Optional[Candidate]], taken: Set[InputKey]) -> Iterator[Candidate]:
    """The candidates of ``draws`` that are not None and not (yet) in ``taken``: checked
    as each is drawn, so a candidate the caller took meanwhile is never given again."""
    for candidate in draws:
        if candidate is not None and _input_key(candidate) not in taken:
            yield candidate


def _random_draws(assignment: GradedAssignment, rng: random.Random,
                  walk: Walk) -> Iterator[Optional[Candidate]]:
    """The seed's random candidates: a stratum drawn by the judge's own frequencies
    (``draw_stratum``), then the seed's next case of it (None for a number that decodes
    to none, or a stratum used up), until USED_UP_PATIENCE draws in a row find their
    stratum used up."""
    used_up_in_a_row = 0
    while used_up_in_a_row < USED_UP_PATIENCE:
        stratum = _stratum(assignment, assignment.judge.draw_stratum(rng))
        if walk.used_up(stratum):
            used_up_in_a_row += 1
            yield None
            continue
        used_up_in_a_row = 0
        yield walk.next_from(stratum)


def _instances(assignment: GradedAssignment, category: Category,
               walk: Walk) -> Iterator[Candidate]:
    """The instances of ``category`` in the seed's order (its family is made on the
    first draw, once per process)."""
    key = (assignment.name, "category: " + category.name)
    if key not in _STRATA:
        _STRATA[key] = category.family()
    yield from walk.through(_STRATA[key])


_STRATA: Dict[Tuple[str, Hashable], Stratum] = {}


def _stratum(assignment: GradedAssignment, key: Hashable) -> Stratum:
    """The judge's stratum ``key`` (made once per process: some count their cases)."""
    if (assignment.name, key) not in _STRATA:
        _STRATA[assignment.name, key] = assignment.judge.stratum(key)
    return _STRATA[assignment.name, key]


def categories_of(assignment: GradedAssignment, case: Case) -> List[str]:
    """The names of the categories of ``assignment`` that ``case`` is one of (judged
    from its command and files, as the generator does)."""
    candidate: Candidate = (case.name, list(case.args), dict(case.files))
    return [category.name for category in assignment.judge.CATEGORIES
            if category.holds(candidate)]


def _with_expected(case: Case, outcome: Outcome) -> Case:
    """``case`` with the outputs of our run as its expectations (never stderr)."""
    if outcome.exit != 0:
        raise RuntimeError(f"the reference program failed on generated case {case.name} "
                           f"({' '.join(case.args)}): exit {outcome.exit}, "
                           f"{outcome.stderr[-300:]!r}")
    expected = {name: data for name, data in outcome.files.items()
                if name not in case.files or case.files[name] != data}
    return case._replace(stdout=outcome.stdout, expected=expected)


def write_cases(cases: Iterable[Case], out_dir: Union[str, Path]) -> List[Path]:
    """Write each case to ``out_dir/<case.name>`` (see :func:`engine.grading.case.write_case`).

    ``out_dir`` is created if needed; UsageError if it exists and is not an empty folder
    (generated cases never mix with older ones). Returns the list of folders written.
    """
    out_dir = Path(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise UsageError(f"{out_dir} exists and is not a folder")
        if any(out_dir.iterdir()):
            raise UsageError(f"{out_dir} is not empty: write generated cases to a new "
                             "or empty folder")
    folders = []
    for case in cases:
        folder = out_dir / case.name
        write_case(case, folder)
        folders.append(folder)
    return folders


# --- running our programs ------------------------------------------------------------

def _program_main(script: str) -> Callable[[List[str]], int]:
    """``main(argv) -> exit code`` of the program behind ``script``, for in-process runs."""
    for assignment in registry.ASSIGNMENTS:
        if assignment.script == script:
            return assignment.reference_main()
    raise ValueError(f"no in-process entry point for {script!r}")


def run_in_process(case: Case) -> Outcome:
    """Run our program on ``case`` inside this process; return its Outcome.

    The program's ``main`` is called with the case's arguments in a fresh temporary
    folder (made the working folder for the call), with ``sys.stdout``/``sys.stderr``
    captured as bytes. Not thread-safe (it swaps process-wide state), and meant for our
    own programs only, which read no environment and leave no global state that changes
    their output. Not for Stake/Raid's COMPETITION mode, which reads the process's CPU
    clock (generated cases never use it).
    """
    main = _program_main(case.program)
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="gradecase-") as workdir:
        prepare(case, workdir)
        stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n", write_through=True)
        stderr = io.TextIOWrapper(err, encoding="utf-8", newline="\n", write_through=True)
        try:
            os.chdir(workdir)
            sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
            sys.stdout, sys.stderr = stdout, stderr
            try:
                code = main(list(case.args))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            stdout.flush()
            stderr.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved[:3]
            os.chdir(saved[3])
        files = snapshot(workdir)
        stdout_bytes, stderr_bytes = out.getvalue(), err.getvalue()
        stdout.detach()
        stderr.detach()
    return Outcome(code, stdout_bytes, stderr_bytes, files)


def run_in_subprocess(case: Case, python: Optional[str] = None) -> Outcome:
    """Run our program on ``case`` as a grader would, in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="gradecase-") as workdir:
        return run_reference(case, workdir, python=python)


# --- shared by the assignments' generators ---------------------------------------------

def reachable_positions(game: Any, root: Any) -> List[Any]:
    """Every position reachable from ``root`` (terminal ones included), sorted."""
    seen = {root}
    frontier = [root]
    while frontier:
        following = []
        for position in frontier:
            if game.is_terminal(position):
                continue
            for _, child in game.successors(position):
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        frontier = following
    return sorted(seen)
