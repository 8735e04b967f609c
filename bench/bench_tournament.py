"""What the tournament's referee costs beyond the entrants' own CPU time.

    python3 bench/bench_tournament.py [--games G] [--time SEC] [--sizes 4,5] [--jobs J]
                                      [--isolation auto]

1. Referee overhead per move call: two trivial Python entrants (a Stake on the first or
   last empty square) play G games on one job. Every call is timed from the moment the
   referee starts writing its input.txt to the moment it has judged the move; the
   entrant's own CPU (user + system of every process of the call, as the sandbox
   measured it) is subtracted. The game's set-up (a fresh copy of each build, newgame)
   is shared out over its calls. Printed: median and mean overhead per call, in ms.
2. A round-robin of 8 of our own players (agent, classic, greedy, depth1..5), one
   colour-swapped pair per size, on J jobs (default: one per core): its wall time
   against the entrants' CPU (user + system, every call) divided by the jobs, and
   against the user CPU charged to their clocks. 1.00 would be a referee that costs
   nothing and cores that never wait for the last game.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from measure import write_stake_agent  # noqa: E402

from engine.tournament import entrants as entrants_module  # noqa: E402
from engine.tournament import referee, schedule  # noqa: E402
from engine.tournament.director import Director  # noqa: E402
from engine.tournament.games import rules_for  # noqa: E402

OURS = ["agent", "classic", "greedy", "depth1", "depth2", "depth3", "depth4", "depth5"]


class TimedSeat(referee.Seat):
    """A seat that records, per call, the referee's wall time and the entrant's CPU."""

    calls = []

    def call(self, input_text, remaining, grace=referee.GRACE_SECONDS):
        started = time.perf_counter()
        result, output = super().call(input_text, remaining, grace)
        self.calls.append([started, result.cpu])
        return result, output


def overhead(games, seconds, isolation):
    rules = rules_for("stake_raid")
    with tempfile.TemporaryDirectory() as root:
        paths = [write_stake_agent(os.path.join(root, order), order)
                 for order in ("first", "last")]
        found = entrants_module.resolve(rules, paths, [], None)
        director = Director(rules, found, seconds, 1, isolation, 256)
        try:
            for seats in director.seats:
                for seat in seats.values():
                    seat.__class__ = TimedSeat
            director.build()
            specs = schedule.round_robin([e.name for e in found], games // 2, [5])
            per_call = []

            def on_game(record):
                pass

            for spec in specs.games:
                TimedSeat.calls = []
                started = time.perf_counter()
                director.play([spec], on_game)
                wall = time.perf_counter() - started
                cpu = sum(entry[1] for entry in TimedSeat.calls)
                per_call.append((wall - cpu) / len(TimedSeat.calls))
        finally:
            director.close()
    return per_call, director.isolation


def round_robin(seconds, sizes, jobs, isolation):
    rules = rules_for("stake_raid")
    found = entrants_module.resolve(rules, [f"ours:{name}" for name in OURS], [], None)
    director = Director(rules, found, seconds, jobs, isolation, 1024)
    records = []
    TimedSeat.calls = []
    try:
        for seats in director.seats:
            for seat in seats.values():
                seat.__class__ = TimedSeat
        director.build()
        plan = schedule.round_robin([e.name for e in found], len(sizes), sizes)
        started = time.perf_counter()
        director.play(plan.games, records.append)
        wall = time.perf_counter() - started
    finally:
        director.close()
    charged = sum(sum(record["cpu"]) for record in records)
    used = sum(entry[1] for entry in TimedSeat.calls)
    return wall, charged, used, len(records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--time", type=float, default=2.0)
    parser.add_argument("--sizes", default="4,5")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--isolation", default="auto")
    parser.add_argument("--skip-round-robin", action="store_true")
    options = parser.parse_args()
    per_call, isolation = overhead(options.games, options.time, options.isolation)
    print(f"referee overhead per move call ({isolation}, {options.games} games of 5x5, "
          f"{len(per_call)} measured): median {statistics.median(per_call) * 1000:.1f} ms, "
          f"mean {statistics.mean(per_call) * 1000:.1f} ms, "
          f"max {max(per_call) * 1000:.1f} ms")
    if options.skip_round_robin:
        return
    sizes = [int(size) for size in options.sizes.split(",")]
    wall, charged, used, games = round_robin(options.time, sizes, options.jobs,
                                             options.isolation)
    print(f"round-robin of {len(OURS)} of our players, {games} games, sizes "
          f"{options.sizes}, {options.time:g} s each, {options.jobs} jobs: wall "
          f"{wall:.1f} s; the entrants' CPU {used:.1f} s (user + system; charged to "
          f"their clocks, user only: {charged:.1f} s); wall / (CPU / jobs) "
          f"{wall / (used / options.jobs):.2f} (user only: "
          f"{wall / (charged / options.jobs):.2f})")


if __name__ == "__main__":
    main()
