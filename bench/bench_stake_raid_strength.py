"""Strength of the Stake/Raid COMPETITION agent: tournament series against sparring partners.

    python3 bench/bench_stake_raid_strength.py [--pairs P] [--sizes 5,6,...] [--time T]
        [--opponents classic,greedy,depth2] [--seed S] [--jobs J] [--elo1 E] [--json FILE]

Each opponent plays ``agent`` through the tournament's referee (``python3 -m engine
tournament sprt stake_raid ours:agent ours:OPPONENT``: every call sandboxed, CPU time
charged, colour-swapped pairs on seeded boards), up to P pairs: the sequential test stops
sooner once it decides between "no stronger" (H0, +0 Elo) and "stronger by E Elo" (H1).
The opponents are homework.py strategies: ``classic`` (the earlier agent, same clock),
``greedy`` and ``depthD`` (fixed-depth ALPHABETA). Prints the tournament's progress for
each series, then one summary line per opponent: the agent's points share, W/D/L,
forfeits, its CPU per game, its mean margin and the test's decision.

The tournament gives both players the same clock, so the former "proxy" series (the
earlier agent with ten times the time) is not played any more.

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
AGENT = "ours:agent"


def series(opponent, options, folder):
    """Play one SPRT series; returns the tournament's JSON results (a dict)."""
    result = os.path.join(folder, f"{opponent}.json")
    argv = [sys.executable, "-m", "engine", "tournament", "sprt", "stake_raid", AGENT,
            f"ours:{opponent}", "--elo0", "0", "--elo1", str(options.elo1),
            "--max-pairs", str(options.pairs), "--sizes", options.sizes,
            "--time", str(options.time), "--seed", str(options.seed),
            "--jobs", str(options.jobs), "--json", result]
    print(f"== agent vs {opponent}: {' '.join(argv[1:])}", flush=True)
    subprocess.run(argv, cwd=ROOT, check=True)
    with open(result) as handle:
        return json.load(handle)


def summary(opponent, result):
    """One line: the agent's share of the points, W/D/L, forfeits, CPU, margin, decision."""
    agent = next(e for e in result["entrants"] if e["name"] == AGENT)
    other = next(e for e in result["entrants"] if e["name"] != AGENT)
    games = agent["games"] or 1
    test = result.get("sprt") or {}
    return (f"vs {opponent:8} {agent['points'] / games:5.0%} of the points "
            f"({agent['wins']}W {agent['draws']}D {agent['losses']}L of {agent['games']}), "
            f"forfeits {sum(agent['forfeits'].values())} (opponent "
            f"{sum(other['forfeits'].values())}), agent cpu/game {agent['cpu_per_game']:.2f} s, "
            f"margin {agent['margin']:+.1f}; SPRT {test.get('decision') or 'undecided'} after "
            f"{test.get('pairs')} pairs (LLR {test.get('llr', 0):.2f})")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2, help="at most this many pairs")
    parser.add_argument("--sizes", default="5,6")
    parser.add_argument("--time", type=float, default=3.0)
    parser.add_argument("--opponents", default="classic")
    parser.add_argument("--seed", type=int, default=561)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--elo1", type=float, default=50.0,
                        help="H1 of the sequential test: the agent is this much stronger")
    parser.add_argument("--json", default=None, help="write every series' results here")
    options = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for opponent in options.opponents.split(","):
            results[opponent] = series(opponent, options, folder)
    print(f"== summary: agent, {options.time:g} s per game; sizes {options.sizes}; "
          f"seed {options.seed}")
    for opponent, result in results.items():
        print(summary(opponent, result), flush=True)
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
