"""Class tournaments of the competition assignments (Stake/Raid, Line 'em Up).

``python3 -m engine tournament run|merge|sprt`` (docs/tournament.md). Every call of an
entrant runs in the grading kit's sandbox (engine.grading.sandbox); the referee applies
the moves by the rules of engine.games itself.
"""
