"""Tracers: observers of :func:`engine.search.search`.

A tracer sees every node the search visits (see the search module for the exact calls).
Programs that print traces subclass :class:`TraceRecorder` and format lines in ``leave``;
the search itself never knows a format.

:class:`TraceRecorder` is *replayable*: the search may record the text a whole subtree
produced (``mark`` / ``capture``) and, on a later visit to an identical subtree, replay it
(``replay``) instead of searching again. The output is byte-identical to a full search;
this is what makes the 549,945-line tic-tac-toe listing cheap.
"""

from __future__ import annotations

# The observer protocol (Tracer) belongs to the search that calls it; it is re-exported
# here because every tracer of this module and of the programs derives from it.
from .search import EVALUATED, TERMINAL, TRANSPOSITION, Tracer

# The grader programs import this module on every run; typing (about 10 ms of start-up)
# is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional

__all__ = ["Tracer", "Tracers", "TraceRecorder", "VisitedListing", "RecursionDepthTracer"]


class Tracers(Tracer):
    """Fan-out: forwards every event to each tracer in order (not replayable)."""

    def __init__(self, *tracers: Tracer) -> None:
        self.tracers = tracers

    def enter(self, *event: Any) -> None:
        for tracer in self.tracers:
            tracer.enter(*event)

    def leave(self, *event: Any) -> None:
        for tracer in self.tracers:
            tracer.leave(*event)

    def pruned(self, *event: Any) -> None:
        for tracer in self.tracers:
            tracer.pruned(*event)


class TraceRecorder(Tracer):
    """Collects trace text in ``self.chunks`` and supports memoised subtree replay.

    Subclasses append their lines to ``self.chunks`` in ``enter``/``leave``.

    Without a ``sink`` everything stays in memory; :meth:`text` joins it. With a ``sink``
    (a callable taking a str) the text is streamed: once ``flush_chunks`` chunks or
    ``flush_chars`` replayed characters are pending, they are written out. A flush makes
    the subtrees still open unrecordable (their start is gone), which bounds memory:
    only segments of at most ``max_segment`` characters are kept for replay.
    """

    # Chunks and segments are str here; a subclass may record bytes (and capture richer
    # segments, engine/programs/take_stones/listing.py), hence the ``Any``s.
    def __init__(self, sink: Optional[Callable[[Any], Any]] = None, flush_chunks: int = 8192,
                 flush_chars: int = 1 << 20, max_segment: int = 1 << 18) -> None:
        self.chunks: List[Any] = []
        self.sink = sink
        self.flush_chunks = flush_chunks
        self.flush_chars = flush_chars
        self.max_segment = max_segment
        self.generation = 0          # bumped by every flush: older marks are void
        self.pending_chars = 0       # replayed characters not yet flushed

    # --- replay protocol used by engine.search -----------------------------------
    def mark(self, state: Any = None) -> Any:
        """An opaque position in the trace, taken before the subtree of ``state`` starts.

        The search matches every ``mark`` with one ``capture``, innermost first.
        """
        return self.generation, len(self.chunks)

    def capture(self, position: Any) -> Any:
        """The text emitted since ``position`` as one segment, or None if not kept.

        The chunks since ``position`` are replaced by the joined segment, so the text is
        held once whether or not it is memoised.
        """
        generation, start = position
        if generation != self.generation:
            return None
        chunks = self.chunks
        if len(chunks) - start == 1:
            segment = chunks[start]
        else:
            segment = "".join(chunks[start:])
            del chunks[start:]
            chunks.append(segment)
        if self.sink is not None and len(chunks) >= self.flush_chunks:
            self.flush()
        return segment if len(segment) <= self.max_segment else None

    def replay(self, segment: Any, state: Any = None) -> None:
        """Emit a segment captured earlier, for a subtree with the same memo key as
        ``state`` (the same state unless the game defines ``subtree_key``)."""
        self.chunks.append(segment)
        if self.sink is not None:
            self.pending_chars += len(segment)
            if self.pending_chars >= self.flush_chars or len(self.chunks) >= self.flush_chunks:
                self.flush()

    # --- output ----------------------------------------------------------------------
    def flush(self) -> None:
        """Write pending text to the sink (no-op without a sink)."""
        if self.sink is None or not self.chunks:
            return
        self.sink("".join(self.chunks))
        self.chunks.clear()
        self.pending_chars = 0
        self.generation += 1

    def text(self) -> str:
        """All text recorded and not yet flushed."""
        return "".join(self.chunks)


class RecursionDepthTracer(Tracer):
    """Average recursion depth (ARD) and evaluation depths, as Line 'em Up defines them.

    A node valued by the heuristic (or at the end of the game, or from the transposition
    table) has ARD equal to its own depth; any other node's ARD is the plain mean of the
    ARDs of the children it expanded. ``root_ard`` is the root's ARD after a search;
    ``evaluation_depths`` maps depth -> number of heuristic evaluations there (with
    ``count_terminals``, terminal leaves count as evaluations too, as in the Line 'em Up
    course sample where the evaluation function also values won positions).

    It accepts bulk horizon values (``leaves``): every such child is a leaf at ``depth``.
    """

    def __init__(self, count_terminals: bool = False) -> None:
        self.stack: List[List[float]] = []
        self.root_ard = 0.0
        self.evaluation_depths: Dict[int, int] = {}
        self.counted_kinds = (EVALUATED, TERMINAL) if count_terminals else (EVALUATED,)

    def leaves(self, state: Any, depth: int, count: int) -> None:
        counts = self.evaluation_depths
        counts[depth] = counts.get(depth, 0) + count
        if self.stack:
            parent = self.stack[-1]
            parent[0] += depth * count
            parent[1] += count

    def enter(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> None:
        self.stack.append([0.0, 0])

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        total, count = self.stack.pop()
        if kind in self.counted_kinds:
            counts = self.evaluation_depths
            counts[depth] = counts.get(depth, 0) + 1
        if kind in (EVALUATED, TERMINAL, TRANSPOSITION) or not count:
            ard = float(depth)
        else:
            ard = total / count
        if self.stack:
            parent = self.stack[-1]
            parent[0] += ard
            parent[1] += 1
        else:
            self.root_ard = ard


class VisitedListing(TraceRecorder):
    """The visited-nodes file of tictactoe.py and tmmorris.py.

    One ``BOARD VALUE`` line per visited node except the root, in post-order (a node's
    line after its whole subtree). ``board(state)`` gives the BOARD text; by default the
    state is the board string itself.
    """

    def __init__(self, board: Optional[Callable[[Any], str]] = None, **options: Any) -> None:
        super().__init__(**options)
        self.board = board

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        if depth:
            board = state if self.board is None else self.board(state)
            self.chunks.append(f"{board} {value}\n")
