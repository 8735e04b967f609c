"""Speed of the Stake/Raid agent's search: fixed depths on positions of real games.

    python3 bench/bench_stake_raid_search.py [--runs R] [--sizes 6,7,...,12] [--seed S]

Games are decided by how deep the agent searches in its time, and game series are too
noisy to see a 10% change of speed. This benchmark runs the agent's own search (its
deepening, table, move order, beam and reductions: ``agent`` with ``max_depth=D``, no
solve) to a fixed depth on two positions a board size, one early (70% of the squares
empty) and one in the middle game (45%), reached by the agent playing both sides at
depth 3 on seeded boards (:func:`board_for`). It prints each position's depth, move,
value, positions searched and CPU seconds (the best of ``--runs``), then the totals and a
digest of the moves, values and position counts. A change that leaves the search's tree
alone (a faster move generator, say) must leave the digest as it was; one that prunes or
orders differently changes the counts, and then the moves and values are compared line
by line.
"""

import argparse
import hashlib
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.games.stake_raid import EMPTY, MAX, MIN, StakeRaid  # noqa: E402
from engine.programs.stake_raid.agent import AGENT, agent  # noqa: E402

SWAP = bytes.maketrans(bytes([MAX, MIN]), bytes([MIN, MAX]))
# Shares of the squares still empty in the benchmark's positions.
STAGES = (0.70, 0.45)
# The fixed depth by board size: about what the agent (with ProbCut) reaches in 0.5-2 s
# a move there.
DEPTHS = {6: 13, 7: 12, 8: 12, 9: 11, 10: 11, 11: 11, 12: 11}
# The agent as it plays, but deepening to a fixed depth: no solve, no stopping rule.
FIXED = AGENT.but(overrun=0, solve_cells=0)
# Enough time that no fixed-depth search here meets the deadline (checked: the depth
# reached is printed and must be the one asked for).
AMPLE_SECONDS = 1e6


def board_for(seed, pair, size):
    """The cell values of pair ``pair``'s board, reproducible from ``seed`` (the boards of
    the retired arena, kept so that this benchmark's digest and the tuning series stay
    comparable with their earlier figures)."""
    rng = random.Random(f"stake_raid arena {seed} {pair} {size}")
    return [rng.randint(1, 99) for _ in range(size * size)]


def positions(size, seed):
    """[(game, state)]: the benchmark's positions of one board size, MAX to move."""
    game = StakeRaid(size, board_for(seed, size, size))
    board, mover, found = bytes(size * size), MAX, []
    wanted = [round(stage * size * size) for stage in STAGES]
    while wanted:
        empty = board.count(EMPTY)
        view = board if mover == MAX else board.translate(SWAP)
        state = game.initial_state(view, MAX)
        if empty <= wanted[0]:
            found.append((game, state))
            wanted.pop(0)
            continue
        _, child = agent(game, state, AMPLE_SECONDS, settings=FIXED.but(max_depth=3))
        board = child[0] if mover == MAX else child[0].translate(SWAP)
        mover = MAX + MIN - mover
    return found


def search_once(game, state, depth):
    """(move, value, depth reached, positions, CPU seconds) of one fixed-depth search."""
    reached = []
    started = time.process_time()
    action, _ = agent(game, state, AMPLE_SECONDS, settings=FIXED.but(max_depth=depth),
                      on_iteration=reached.append)
    seconds = time.process_time() - started
    last = reached[-1]
    return action, last.result.value, last.depth, last.result.stats.nodes, seconds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs a position (best kept)")
    parser.add_argument("--sizes", default="6,7,8,9,10,11,12")
    parser.add_argument("--seed", type=int, default=71)
    options = parser.parse_args(argv)
    if options.runs < 1:
        parser.error("--runs must be at least 1")
    try:
        sizes = [int(size) for size in options.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes must be integers separated by commas, not {options.sizes!r}")
    if any(size not in DEPTHS for size in sizes):
        parser.error(f"--sizes must be among {min(DEPTHS)}..{max(DEPTHS)}")
    digest = hashlib.sha256()
    total_nodes = total_seconds = 0
    print(f"{'size':>5} {'empty':>5} {'depth':>5} {'move':>6} {'value':>6} "
          f"{'positions':>10} {'cpu s':>7}")
    for size in sizes:
        for game, state in positions(size, options.seed):
            runs = [search_once(game, state, DEPTHS[size]) for _ in range(options.runs)]
            action, value, reached, nodes, _ = runs[0]
            seconds = min(run[4] for run in runs)
            total_nodes += nodes
            total_seconds += seconds
            digest.update(f"{size} {action} {value} {nodes};".encode())
            print(f"{size:>5} {state[0].count(EMPTY):>5} {reached:>5} {action:>6} "
                  f"{value:>6} {nodes:>10,} {seconds:>7.3f}", flush=True)
    print(f"total: {total_nodes:,} positions in {total_seconds:.3f} CPU s "
          f"({total_nodes / total_seconds:,.0f} a second); "
          f"digest {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main(sys.argv[1:])
