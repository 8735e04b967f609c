"""A TakeStones listing (its stdout, docs/take_stones.md) read from a stepper recording.

The program prints, as the search leaves each node (post-order, the root last), a block
of three lines: the last move (-1 for a new game), every stone on the table ascending
(each followed by one space), and ``alpha: A<TAB>beta: B`` (the node's final window);
then ``NEXT MOVE``, the chosen stone and the stones left after it. Everything here comes
from the recording (the tracer's ``leave`` events), so comparing a student's listing with
:func:`expected_listing_lines` compares it with the search the page replays.
"""

from typing import Any, Dict, List, Optional, Tuple

from ..games.take_stones import TakeStones
from .stepper import LEAVE, Recording, compare_lines

__all__ = ["expected_listing_lines", "compare_listing"]


def expected_listing_lines(recording: Recording,
                           game: TakeStones) -> List[Tuple[str, Optional[int]]]:
    """The listing the search implies, as ``(line, node id or None)`` in order.

    ``recording``: a stepper recording of a Take-Stones search (engine.games.take_stones,
    with the program's window so that the bounds are finite); ``game``: its TakeStones.
    The three NEXT MOVE lines belong to no node (None); they are absent when the root
    has no move (the program then prints "Invalid input", which no page is made for).
    """
    alphas, betas = recording.columns["alpha"], recording.columns["beta"]
    lines: List[Tuple[str, Optional[int]]] = []
    for kind, ident in recording.steps:
        if kind != LEAVE:
            continue
        state = recording.states[ident]
        lines.append((str(game.last_move(state) or -1), ident))
        lines.append((stones_line(game, state), ident))
        lines.append((f"alpha: {alphas[ident]}\tbeta: {betas[ident]}", ident))
    result = recording.result
    if result.action is not None:
        lines += [("NEXT MOVE", None), (str(result.action), None),
                  (stones_line(game, result.child), None)]
    return lines


def stones_line(game: TakeStones, state: int) -> str:
    """The stones on the table, ascending, each followed by one space (the listing's
    second line of a block; the comparison drops that trailing space)."""
    return "".join(f"{stone} " for stone in game.available_stones(state))


def compare_listing(recording: Recording, student_text: str, game: TakeStones) -> Dict[str, Any]:
    """Compare a student's TakeStones listing (text) with the expected one.

    Returns the report of engine.pictures.stepper.compare_visited (``line`` None when
    they agree); a node counts as agreed (a tick on the page) only when all three lines
    of its block agreed, and ``student_node`` is always None (a listing line does not
    name a node by itself).
    """
    expected = expected_listing_lines(recording, game)
    # compare_lines strips trailing white space from the student's lines: do the same to
    # ours, whose stones lines end with a space.
    expected = [(line.rstrip(), ident) for line, ident in expected]
    report = compare_lines(expected, student_text)
    agreed = report["agree"]
    report["agreed_nodes"] = [expected[end - 1][1] for end in range(3, agreed + 1, 3)
                              if expected[end - 1][1] is not None]
    return report
