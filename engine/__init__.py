"""Shared game-search engine for the classic two-player search assignments.

Layout (data flows one way: program -> game state -> search -> program; docs/engine.md):

    engine.game        the Game protocol every game implements (rules only)
    engine.search      the ONE minimax / alpha-beta implementation (AIMA form), its tracer
                       hook, statistics, transposition table, trace memoisation, time limit
    engine.selective   the hooks with which game-playing agents search less than everything
    engine.iterative   iterative deepening under a deadline (injectable clock)
    engine.trace       tracers: trace recorders with replayable segments, fan-out, ARD
    engine.searchtree  the visited tree rebuilt from a tracer's events
    engine.pictures.*  pictures as SVG: search trees (and DOT), line and bar charts
    engine.errors      typed errors (UsageError, SearchTimeout)
    engine.registry    the one table of programs and graded assignments
    engine.commandline the programs' error contract and atomic output files
    engine.games.*     one module per game: rules and evaluation functions, no I/O, no search
    engine.programs.*  one module or package per program: argv/file parsing, output, exit
                       codes, the players that choose moves
    engine.grading.*   the grading kit (python3 -m engine grade)
"""

__all__ = ["game", "search", "selective", "iterative", "trace"]
