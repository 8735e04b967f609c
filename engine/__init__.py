"""Shared game-search engine for the classic two-player search assignments.

Layout (data flows one way: program -> game state -> search -> program):

    engine.game       the Game protocol every game implements (rules only)
    engine.search     the ONE minimax / alpha-beta implementation, its tracer hook,
                      statistics, transposition table and trace memoisation
    engine.iterative  iterative deepening under a deadline (injectable clock)
    engine.trace      tracers: trace recorders with replayable segments, fan-out, ARD
    engine.games.*    one module per game: rules and evaluation functions, no I/O
    engine.programs.* one module per program: argv/file parsing, output, exit codes
"""

__all__ = ["game", "search", "iterative", "trace"]
