"""Class tournaments of the competition assignments (Stake/Raid, Line 'em Up):
``python3 -m engine tournament run|merge|sprt`` (docs/tournament.md).

    games.py      the games as a referee sees them: boards, the protocol, replays
    entrants.py   who plays: folders, class folders, our players; building them
    referee.py    one game, every call in the grading kit's sandbox, CPU clocks, forfeits
    schedule.py   who meets whom: round-robin, gauntlet, knockout, Swiss; shards
    director.py   builds the entrants and plays the schedule on J jobs
    standings.py  points, W/D/L, forfeits, margins, pentanomials, the bracket
    ratings.py    one joint Bradley-Terry (Elo) fit with 95% intervals
    sprt.py       the sequential test over colour-swapped pairs
    results.py    the results file: assembled, saved atomically, loaded, merged; CSV
    report.py     the HTML page: standings, crosstable, bracket, replays
    cli.py        the command line

The tournament builds on the kit's sandbox (engine.grading) and runs our own players
through their command line, like any entrant: it imports no program and no search.
"""
