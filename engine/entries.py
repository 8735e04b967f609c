"""The entries of the search's transposition table and memo, by name.

The table and the memo hold plain tuples in these layouts, read by index in the node
(engine.searchparts says why); ``TableEntry._make(entry)`` reads one by name. Kept apart
from the search's own modules because a NamedTuple needs typing, which the programs do
not import (about 10 ms of start-up a run).
"""

from typing import Any, NamedTuple, Optional


class TableEntry(NamedTuple):
    """What the transposition table knows of one position.

    left    the levels that were searched below it (``inf``: a value that does not
            depend on the depth)
    value   its value, exact or a bound as ``flag`` says
    flag    EXACT, LOWER (the node failed high: ``value`` is a lower bound) or UPPER
            (it failed low: an upper bound), engine.searchparts' flags
    best    the best action found there (None if none), tried first next time
    """
    left: float
    value: float
    flag: int
    best: Any


class MemoEntry(NamedTuple):
    """A memoised subtree (ExactSearch's ``memo``): its value, the trace text it
    produced (None without a tracer), and the nodes and evaluations it counted.
    Take-Stones' 28 0 0 makes hundreds of thousands of them."""
    value: float
    segment: Optional[str]
    nodes: int
    evaluations: int
