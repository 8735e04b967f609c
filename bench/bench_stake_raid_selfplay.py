"""Self-play: the Stake/Raid COMPETITION player against fixed-depth ALPHABETA players.

    python3 bench/bench_stake_raid_selfplay.py [--seconds-per-move S] [--depths 1,2,3]
                                               [--sizes 5,8,...] [--empties E] [--seed K]

A fixed set of random boards (sizes 5..26; cell values 1..99; boards larger than E empty
squares start with random X/O pieces so that E squares are left) is played to the end
twice per opponent, the COMPETITION player once as X (moving first) and once as O. The
opponent is ``engine.search.search(prune=True, depth=D)``: the grader's ALPHABETA.

Random positions can favour one side, so each board's two games are also added up (our
margin as X + our margin as O): a positive sum means the COMPETITION player did better
with both colours than its opponent did. And each game is compared with the baseline
game ALPHABETA depth D against itself on the same board: "better" when the COMPETITION
player's margin beats what ALPHABETA D scored with the same colour. The COMPETITION
player gets, for the whole game, ``S + STARTUP_COST`` CPU seconds per move it has to
make (plus the SAFETY margin), and is charged its real CPU time per move
(``time.process_time``) plus the STARTUP_COST a real run of homework.py would spend, so
the clock it sees is the one line 4 of input.txt would give it. Prints win/draw/loss per
opponent depth, per-move CPU times of both sides, the depths reached and the least time
left on the COMPETITION player's clock (negative would mean it ran out).
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games.stake_raid import EMPTY, MAX, MIN, StakeRaid  # noqa: E402
from engine.programs.stake_raid.player import (SAFETY, STARTUP_COST,  # noqa: E402
                                            competition_move)
from engine.search import ExactSearch, search  # noqa: E402

X, O = MAX, MIN  # noqa: E741 (absolute codes of the shared board; O: the game's mark)
SWAP = bytes.maketrans(b"\x01\x02", b"\x02\x01")


def make_board(rng, size, empties):
    """(values, cells): random values and a position with ``empties`` empty squares."""
    values = [rng.randint(1, 99) for _ in range(size * size)]
    cells = [EMPTY] * (size * size)
    filled = rng.sample(range(size * size), max(0, size * size - empties))
    for cell in filled:
        cells[cell] = rng.choice((X, O))
    return values, bytes(cells)


def as_seen_by(game, cells, side):
    """The state with ``side`` as MAX (YOUPLAY) and to move."""
    return game.initial_state(cells if side == X else cells.translate(SWAP), MAX)


def play_game(values, size, cells, competition_side, depth, seconds_per_move):
    """Play to the end; X moves first. Returns a dict of results for the report.

    With ``competition_side`` None both sides are ALPHABETA ``depth`` (the baseline),
    and the margin is X's."""
    game = StakeRaid(size, values)
    our_moves = (cells.count(EMPTY) + (competition_side == X)) // 2
    clock_left = our_moves * (seconds_per_move + STARTUP_COST) + SAFETY
    least_left = clock_left
    ours, theirs, reached = [], [], []
    side = X
    while EMPTY in cells:
        state = as_seen_by(game, cells, side)
        started = time.process_time()
        if side == competition_side:
            move = competition_move(game, state, clock_left, spent=STARTUP_COST)
            child = move.child
            used = time.process_time() - started
            clock_left -= used + STARTUP_COST
            least_left = min(least_left, clock_left)
            ours.append(used)
            reached.append(move.depth)
        else:
            result = search(game, state, ExactSearch(prune=True, depth=depth))
            child = result.child
            theirs.append(time.process_time() - started)
        cells = child[0] if side == X else child[0].translate(SWAP)
        side = X + O - side
    final = as_seen_by(game, cells, competition_side or X)[1]
    return {"margin": final, "ours": ours, "theirs": theirs, "depths": reached,
            "least_left": least_left}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds-per-move", type=float, default=0.1)
    parser.add_argument("--depths", default="1,2,3")
    parser.add_argument("--sizes", default="5,8,11,14,17,20,23,26")
    parser.add_argument("--empties", type=int, default=36)
    parser.add_argument("--seed", type=int, default=561)
    options = parser.parse_args(argv)
    depths = [int(d) for d in options.depths.split(",")]
    sizes = [int(s) for s in options.sizes.split(",")]
    rng = random.Random(options.seed)
    boards = [(size,) + make_board(rng, size, min(size * size, options.empties))
              for size in sizes]
    print(f"boards: sizes {sizes}, at most {options.empties} empty squares, seed "
          f"{options.seed}; COMPETITION clock {options.seconds_per_move} s + "
          f"{STARTUP_COST} s start-up per move")
    all_ours = []
    for depth in depths:
        wins = draws = losses = 0
        margins, ours, theirs, reached, least, pairs = [], [], [], [], [], []
        better = 0
        for size, values, cells in boards:
            pair = 0
            baseline = play_game(values, size, cells, None, depth, 0)["margin"]
            for competition_side in (X, O):
                game = play_game(values, size, cells, competition_side, depth,
                                 options.seconds_per_move)
                margin = game["margin"]
                wins += margin > 0
                draws += margin == 0
                losses += margin < 0
                margins.append(margin)
                pair += margin
                # what ALPHABETA itself scored with this colour against its twin
                better += margin > (baseline if competition_side == X else -baseline)
                ours += game["ours"]
                theirs += game["theirs"]
                reached += game["depths"]
                least.append(game["least_left"])
                print(f"  vs ALPHABETA depth {depth}: {size:2}x{size:<2} as "
                      f"{'X' if competition_side == X else 'O'}: margin {margin:+5d}, "
                      f"depth reached {min(game['depths'])}..{max(game['depths'])}",
                      flush=True)
            # Both games of a board together: the position's own advantage cancels out.
            pairs.append(pair)
        all_ours += ours
        games = wins + draws + losses
        print(f"vs ALPHABETA depth {depth}: {wins}W {draws}D {losses}L of {games} "
              f"(win rate {wins / games:.0%}), mean margin {statistics.mean(margins):+.1f}, "
              f"boards won as X+O {sum(p > 0 for p in pairs)}/{len(pairs)}, "
              f"games better than ALPHABETA {depth} itself {better}/{games}; "
              f"COMPETITION per move mean {statistics.mean(ours):.3f} s, max "
              f"{max(ours):.3f} s, mean depth {statistics.mean(reached):.1f}; "
              f"ALPHABETA per move mean {statistics.mean(theirs):.3f} s, max "
              f"{max(theirs):.3f} s; least clock left {min(least):.3f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
