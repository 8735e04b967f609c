"""Stake/Raid: homework.py and ``python3 -m engine stake_raid`` (docs/stake_raid.md).

    homework.py   the grader's program: input.txt -> output.txt, every mode
    agent.py      COMPETITION strategies: the tournament agent and sparring partners
    player.py     the CPU-time manager of a game, the earlier agent (classic), greedy

Games between programs are played by the tournament's sandboxed referee
(``python3 -m engine tournament sprt stake_raid ...``, docs/stake_raid_agent.md); the file
format is engine.games.stake_raid_files.
"""

from .homework import main

__all__ = ["main"]
