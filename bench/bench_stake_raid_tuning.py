"""Tuning series for the Stake/Raid agent: many short games in one process, search time only.

    python3 bench/bench_stake_raid_tuning.py [A [B]] [--time-a T] [--time-b T] [--pairs P]
        [--sizes 5,6,7,8] [--seed S] [--jobs J] [--set NAME=VALUE ...] [--only X|O]

The tournament's referee (``python3 -m engine tournament sprt``, see
bench/bench_stake_raid_strength.py) is the measure that counts: real ``homework.py``
processes, sandboxed, start-up included. But a run of homework.py costs about 0.09 s
before it searches, so short clocks measure start-up more than play, and long ones cost
minutes a game. This series plays the same strategies in one process, charging each move
its CPU time only (no start-up is reserved or charged), so 1 s a game is 1 s of search and
80 games take a few minutes: enough games to see differences of 5-10% of the points.

A and B are strategy names of homework.py (``agent``, ``classic``, ``greedy``, ``depthD``;
by default ``agent`` against ``classic``). The default 8 pairs are a smoke run (``make
bench``); the series behind a decision used ``--pairs 40`` (80 games).
``--set NAME=VALUE`` changes a field of the agent's settings (engine.programs.stake_raid.
agent.AgentSettings) for A only (e.g. ``--set beam=6 --set gain_weight=0.4``), so variants
are tried without editing the code.
Games come in colour-swapped pairs on seeded boards (same seed, same values); a game
lost on time counts as a loss. ``--only O`` (or ``X``) plays only the game of each pair
where A has that colour: half the time, where the other colour's games are not in doubt.
Prints every game with A's CPU seconds, then A's points, by colour and by size (and
colour), and the CPU time A used a game.
"""

import argparse
import functools
import os
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.programs.stake_raid import agent as agents  # noqa: E402
from engine.programs.stake_raid import player  # noqa: E402
from engine.games.stake_raid import EMPTY, MAX, MIN, StakeRaid  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_stake_raid_search import board_for  # noqa: E402

SWAP = bytes.maketrans(bytes([MAX, MIN]), bytes([MIN, MAX]))


def _no_startup():
    """Search time only: no start-up reserved for later runs (see the module doc)."""
    agents.AGENT_STARTUP_COST = 0.0
    player.move_budget.__defaults__ = (0.0,) + player.move_budget.__defaults__[1:]


def strategy(name, settings):
    """The strategy ``name``; with ``settings`` (only for the agent), the agent with its
    settings changed so."""
    play = agents.STRATEGIES[name]
    if not settings:
        return play
    if play is not agents.agent:
        raise SystemExit(f"--set applies to the agent only, not to {name}")
    return functools.partial(play, settings=agents.AGENT.but(**settings))


def play_game(job):
    """(A's margin (its score minus B's) of one game, or None when A ran out of time and
    "B" when B did; A's CPU seconds)."""
    names, times, settings, size, seed, pair, a_moves_first = job
    _no_startup()
    game = StakeRaid(size, board_for(seed, pair, size))
    a, b = strategy(names[0], settings), strategy(names[1], {})
    sides = {MAX: (a, times[0], "A"), MIN: (b, times[1], "B")} if a_moves_first else \
        {MAX: (b, times[1], "B"), MIN: (a, times[0], "A")}
    clock = {side: sides[side][1] for side in sides}
    a_side = MAX if a_moves_first else MIN
    board, mover = bytes(size * size), MAX
    while EMPTY in board:
        # Every strategy plays MAX: MIN's view is the board with the colours swapped.
        view = board if mover == MAX else board.translate(SWAP)
        started = time.process_time()
        _, child = sides[mover][0](game, game.initial_state(view, MAX), clock[mover],
                                   time.process_time, 0.0)
        clock[mover] -= time.process_time() - started
        if clock[mover] < 0:
            return (None if mover == a_side else "B"), times[0] - clock[a_side]
        board = child[0] if mover == MAX else child[0].translate(SWAP)
        mover = MAX + MIN - mover
    score = game.initial_state(board, MAX)[1]
    return (score if a_moves_first else -score), times[0] - clock[a_side]


def points(margin):
    if margin is None:
        return 0.0
    if margin == "B":
        return 1.0
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", nargs="?", default="agent")
    parser.add_argument("b", nargs="?", default="classic")
    parser.add_argument("--time-a", type=float, default=1.0)
    parser.add_argument("--time-b", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--sizes", default="5,6,7,8")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--only", choices=("X", "O"),
                        help="play only the games where A has this colour")
    options = parser.parse_args(argv)
    settings = {}
    for item in options.set:
        name, _, value = item.partition("=")
        settings[name] = float(value) if "." in value else int(value)
    sizes = [int(size) for size in options.sizes.split(",")]
    jobs = [((options.a, options.b), (options.time_a, options.time_b), settings,
             sizes[pair % len(sizes)], options.seed, pair, first)
            for pair in range(options.pairs) for first in (True, False)
            if options.only is None or first == (options.only == "X")]
    by_colour, by_size, a_seconds = {True: [], False: []}, {}, []
    with Pool(options.jobs) as pool:
        for job, (margin, seconds) in zip(jobs, pool.imap(play_game, jobs)):
            a_seconds.append(seconds)
            size, first = job[3], job[6]
            outcome = ("A out of time" if margin is None else "B out of time"
                       if margin == "B" else margin)
            print(f"{size}x{size} A {'X' if first else 'O'}: margin {outcome} "
                  f"(A {seconds:.1f} s)", flush=True)
            by_colour[first].append(points(margin))
            by_size.setdefault(size, {True: [], False: []})[first].append(points(margin))
    every = by_colour[True] + by_colour[False]
    share = lambda values: f"{sum(values) / len(values):.0%}" if values else "-"  # noqa: E731
    print(f"A = {options.a} {settings or ''} {options.time_a:g} s, B = {options.b} "
          f"{options.time_b:g} s: A {sum(every):g}/{len(every)} = {share(every)} of the points;"
          f" as X {share(by_colour[True])}, as O {share(by_colour[False])}; A used "
          f"{sum(a_seconds) / len(a_seconds):.2f} s a game (max {max(a_seconds):.2f}); by size "
          + ", ".join(f"{size}x{size} {share(both[True] + both[False])} (X "
                      f"{share(both[True])}, O {share(both[False])})"
                      for size, both in sorted(by_size.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
