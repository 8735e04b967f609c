"""Stake/Raid: homework.py and ``python3 -m engine stake_raid`` (docs/stake_raid.md).

    homework.py   the grader's program: input.txt -> output.txt, every mode
    agent.py      COMPETITION strategies: the tournament agent and sparring partners
    player.py     the CPU-time manager of a game, the earlier agent (classic), greedy
    arena.py      ``stake_raid arena``: two programs play games against each other
"""

from .homework import main

__all__ = ["main"]
