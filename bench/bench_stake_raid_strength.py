"""Strength of the Stake/Raid COMPETITION agent: arena series against the sparring partners.

    python3 bench/bench_stake_raid_strength.py [--games G] [--sizes 5,6,...] [--time T]
        [--proxy-factor F] [--opponents classic,proxy,greedy,depth2] [--seed S]
        [--jobs J] [--json FILE]

Each opponent plays G games against ``agent`` in the arena (python3 -m engine stake_raid
arena: real homework.py processes, the tournament's file interface, CPU time charged,
colour-swapped pairs on seeded boards). The opponents are homework.py strategies:
``classic`` (the earlier agent, same clock), ``proxy`` (the earlier agent with F times the
clock: the stand-in for an agent that searches far more nodes per second), ``greedy``
and ``depthD`` (fixed-depth ALPHABETA). Prints the arena's table for each series, then
one summary line per opponent: the agent's points share, W/D/L, forfeits, its CPU per
game, its peak memory and its points per board size.

Without arguments (as ``make bench`` runs it) a short series; ``make
bench-stake-raid-strength`` runs the full one (see mk/stake_raid.mk).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def series(opponent, options, folder):
    """Run one arena series; returns its JSON summary (a dict)."""
    command, time_b = opponent, options.time
    if opponent == "proxy":
        command, time_b = "classic", options.time * options.proxy_factor
    result = os.path.join(folder, f"{opponent}.json")
    argv = [sys.executable, "-m", "engine", "stake_raid", "arena", "agent", command,
            "--games", str(options.games), "--sizes", options.sizes,
            "--time", str(options.time), "--time-b", str(time_b),
            "--seed", str(options.seed), "--jobs", str(options.jobs),
            "--wall-factor", str(options.wall_factor), "--json", result]
    print(f"== agent vs {opponent}: {' '.join(argv[1:])}", flush=True)
    subprocess.run(argv, cwd=ROOT, check=True)
    with open(result) as handle:
        return json.load(handle)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--sizes", default="5,6")
    parser.add_argument("--time", type=float, default=3.0)
    parser.add_argument("--proxy-factor", type=float, default=10.0)
    parser.add_argument("--opponents", default="classic,proxy")
    parser.add_argument("--seed", type=int, default=561)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--wall-factor", type=float, default=1.5,
                        help="the arena's wall-clock cap factor (raise it on a busy machine)")
    parser.add_argument("--json", default=None, help="write every series' results here")
    options = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for opponent in options.opponents.split(","):
            results[opponent] = series(opponent, options, folder)
    print(f"== summary: agent, {options.time:g} s per game; proxy = classic with "
          f"{options.proxy_factor:g}x; sizes {options.sizes}; seed {options.seed}")
    for opponent, result in results.items():
        a = result["a"]
        by_size = {}
        for game in result["games"]:
            by_size.setdefault(game["size"], []).append(game["points_a"])
        sizes = ", ".join(f"{s}x{s} {sum(p):g}/{len(p)}" for s, p in sorted(by_size.items()))
        print(f"vs {opponent:8} {a['share']:5.0%} of the points ({a['wins']}W {a['draws']}D "
              f"{a['losses']}L of {len(result['games'])}), forfeits {a['forfeits']} "
              f"(opponent {result['b']['forfeits']}), agent cpu/game {a['cpu_mean']:.2f} s "
              f"(max {a['cpu_max']:.2f}), peak {a['peak_rss_mb']:.0f} MB, margin "
              f"{a['margin_mean']:+.1f}; by size: {sizes}", flush=True)
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
