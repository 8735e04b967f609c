"""The program's move: alpha-beta over the game the Morris program searches.

:func:`best_move` is what tmmorris.py prints and what ``morris play`` answers with: the
engine's one search on :class:`engine.games.morris.MorrisLookahead`, to depth
``min(PLY, DECISIVE_HORIZON)`` (every forced win of this game takes at most
DECISIVE_HORIZON - 1 plies, so a deeper search cannot change the choice).
"""

from __future__ import annotations

from ...games.morris import DECISIVE_HORIZON, MorrisLookahead
from ...search import ExactSearch, SearchResult, Tracer, search

# The grader programs import this module on every run; typing (about 10 ms of start-up)
# is for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Optional


def best_move(board: str, turn: str, ply: int, history: Iterable[str] = (),
              tracer: Optional[Tracer] = None,
              game: Optional[MorrisLookahead] = None) -> Optional[SearchResult]:
    """Alpha-beta from ``(board, turn)`` to depth ``min(ply, DECISIVE_HORIZON)``.

    ``history``: earlier positions (``board + turn``) of the game, which count for the
    repetition rule. Returns the engine's SearchResult, or None for a terminal position.
    """
    game = game if game is not None else MorrisLookahead()
    root = game.root(board, turn, history)
    if game.terminal_value(root) is not None:
        return None
    return search(game, root, ExactSearch(depth=min(ply, DECISIVE_HORIZON), tracer=tracer))
