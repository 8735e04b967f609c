"""hillclimb: steepest-descent hill climbing on tours (the CS 540 HW2 tour question).

usage: python3 -m engine hillclimb MATRIX --tour M,C,W,E,S [--exhaustive|--no-exhaustive]

MATRIX: a header line of location names, then one line per location: its name and its
distances to the locations in header order (whitespace or commas separate fields). The
matrix must be square, symmetric, non-negative, with zeros on the diagonal.
--tour: the fixed start first, then the order of the other locations; the return to the
start is implied. A state is a tour; its neighbours are every swap of two locations other
than the start. Each step moves to the shortest neighbour (ties: the alphabetically first
tour, compared name by name) while it is strictly shorter; then the local minimum is
compared with the exhaustive optimum (default on up to 9 locations).
"""

import itertools
import sys
from decimal import Decimal, InvalidOperation
from typing import Dict, List, Optional, Tuple, cast

from ..errors import UsageError
from ..commandline import run_program

USAGE = "usage: python3 -m engine hillclimb MATRIX --tour START,A,B,... [--no-exhaustive]"
EXHAUSTIVE_LIMIT = 9

Tour = Tuple[str, ...]                       # location names, the start first
Distances = Dict[Tuple[str, str], Decimal]   # {(a, b): distance}


def parse_matrix(text: str, name: str = "MATRIX") -> Tuple[List[str], Distances]:
    """(names, {(a, b): distance}) from the homework layout, or UsageError."""
    rows = [line.replace(",", " ").split() for line in text.splitlines()]
    rows = [row for row in rows if row]
    if not rows:
        raise UsageError(f"{name} is empty")
    names = rows[0]
    if len(set(names)) != len(names):
        raise UsageError(f"{name}: a location name appears twice in the header")
    if len(rows) - 1 != len(names):
        raise UsageError(f"{name} is not square: {len(names)} names in the header but "
                         f"{len(rows) - 1} rows")
    distance = {}
    for number, row in enumerate(rows[1:], 2):
        if row[0] != names[number - 2]:
            raise UsageError(f"{name} line {number}: expected the row of "
                             f"{names[number - 2]!r}, found {row[0]!r}")
        if len(row) - 1 != len(names):
            raise UsageError(f"{name} is not square: the row of {row[0]!r} has "
                             f"{len(row) - 1} distances, expected {len(names)}")
        for other, field in zip(names, row[1:]):
            try:
                value = Decimal(field)
            except InvalidOperation:
                raise UsageError(f"{name}: distance {row[0]}-{other} is not a number: "
                                 f"{field!r}") from None
            if not value.is_finite() or value < 0:
                raise UsageError(f"{name}: distance {row[0]}-{other} must be a "
                                 f"non-negative number, not {field}")
            distance[row[0], other] = value
    for a in names:
        if distance[a, a] != 0:
            raise UsageError(f"{name}: distance {a}-{a} must be 0")
        for b in names:
            if distance[a, b] != distance[b, a]:
                raise UsageError(f"{name} is not symmetric: {a}-{b} is {distance[a, b]} "
                                 f"but {b}-{a} is {distance[b, a]}")
    return names, distance


def parse_tour(text: str, names: List[str]) -> Tour:
    """The tour as a tuple of names (start first), or UsageError."""
    tour = tuple(part.strip() for part in text.split(","))
    for place in tour:
        if place not in names:
            raise UsageError(f"unknown location {place!r} in the tour; known: "
                             f"{', '.join(names)}")
    if len(set(tour)) != len(tour):
        raise UsageError("a location appears twice in the tour")
    missing = [place for place in names if place not in tour]
    if missing:
        raise UsageError(f"the tour misses {', '.join(missing)}")
    return tour


def tour_length(tour: Tour, distance: Distances) -> Decimal:
    """Length of the closed tour (back to the start)."""
    # a Decimal: a tour holds at least the start
    return cast(Decimal, sum(distance[tour[i], tour[(i + 1) % len(tour)]]
                             for i in range(len(tour))))


def neighbours(tour: Tour) -> List[Tour]:
    """Every tour reached by swapping two locations other than the start."""
    result = []
    for i, j in itertools.combinations(range(1, len(tour)), 2):
        swapped = list(tour)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        result.append(tuple(swapped))
    return result


def climb(tour: Tour, distance: Distances) -> List[Tuple[Tour, Decimal]]:
    """The steps of steepest descent from ``tour``: [(tour, length), ...]; the last is a
    local minimum (no neighbour strictly shorter). Ties: alphabetically first tour."""
    steps = [(tour, tour_length(tour, distance))]
    while True:
        current, length = steps[-1]
        candidates = [(tour_length(n, distance), n) for n in neighbours(current)]
        if not candidates:
            return steps
        best_length, best = min(candidates)   # shortest, then alphabetically first
        if best_length >= length:
            return steps
        steps.append((best, best_length))


def optimum(tour: Tour, distance: Distances) -> Tuple[Decimal, Tour]:
    """(length, tour) of a shortest tour with the same start (alphabetically first)."""
    start, others = tour[0], sorted(tour[1:])
    return min((tour_length((start,) + order, distance), (start,) + order)
               for order in itertools.permutations(others))


def number_text(value: Decimal) -> str:
    value = value.normalize() if value != value.to_integral_value() else value.quantize(1)
    return format(value, "f")


def show(tour: Tour) -> str:
    return ",".join(tour + (tour[0],))


def run(argv: List[str]) -> int:
    words = list(argv)
    matrix_file, tour_text, exhaustive = None, None, None
    while words:
        word = words.pop(0)
        if word == "--tour":
            if not words:
                raise UsageError(f"--tour needs a value; {USAGE}")
            tour_text = words.pop(0)
        elif word.startswith("--tour="):
            tour_text = word[len("--tour="):]
        elif word == "--exhaustive":
            exhaustive = True
        elif word == "--no-exhaustive":
            exhaustive = False
        elif word.startswith("-") and word != "-":
            raise UsageError(f"unknown option {word!r}; {USAGE}")
        elif matrix_file is None:
            matrix_file = word
        else:
            raise UsageError(f"more than one MATRIX; {USAGE}")
    if matrix_file is None or tour_text is None:
        raise UsageError(f"MATRIX and --tour are required; {USAGE}")
    try:
        if matrix_file == "-":
            text = sys.stdin.read()
        else:
            with open(matrix_file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {matrix_file}: {error.strerror}") from None
    names, distance = parse_matrix(text, matrix_file)
    tour = parse_tour(tour_text, names)
    if exhaustive is None:
        exhaustive = len(names) <= EXHAUSTIVE_LIMIT
    n = len(tour) - 1
    lines = [f"locations: {len(tour)} (start {tour[0]}, {n} to order)",
             f"neighbours of a state: {n * (n - 1) // 2} (swaps of two of the {n})",
             f"distinct states: {max(1, _factorial(n) // 2)} ({n}!/2: a tour and its "
             "reverse are the same state)"]
    steps = climb(tour, distance)
    for number, (state, length) in enumerate(steps):
        lines.append(f"step {number}: {show(state)} length {number_text(length)}")
    final, final_length = steps[-1]
    lines.append(f"local minimum: {show(final)} length {number_text(final_length)} "
                 "(no neighbour is shorter)")
    if exhaustive:
        best_length, best = optimum(tour, distance)
        verdict = ("it is the global optimum" if final_length == best_length
                   else "it is NOT the global optimum")
        lines.append(f"global optimum: {show(best)} length {number_text(best_length)}; "
                     + verdict)
    else:
        lines.append(f"global optimum: not computed ({len(names)} locations; "
                     "--exhaustive forces it)")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _factorial(n: int) -> int:
    result = 1
    for k in range(2, n + 1):
        result *= k
    return result


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``main(sys.argv[1:])`` -> exit code."""
    return run_program("hillclimb", run, sys.argv[1:] if argv is None else argv,
                       help_text=__doc__)
