"""Line 'em Up AI benchmark: node rate (per CPU second) and depth reached within t.

Spec target ("Strength and speed"): students' engines search ~10k nodes/s on n=8, s=5 and
reach depth 4 within t=5; we aim for 10x the node rate. For each board, heuristic and
interpreter one move is searched with the real clock and t seconds (default 5) from a fixed
opening position; the child process reports nodes, depth and seconds, and
bench/measure.py measures its CPU time (user + sys) and peak memory.

    python3 bench/bench_lineemup.py [--t SECONDS]
"""

import os
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from measure import PYTHON, run_measured  # noqa: E402

BOARDS = [(8, 5), (10, 5)]
HEURISTICS = ["e1", "e2"]


def child(n, s, heuristic, t):
    """Runs in the measured process: one move from a fixed position, figures on stdout."""
    from engine.games.line_em_up import LineEmUp
    from engine.programs.lineemup.ai import AIPlayer

    game = LineEmUp(n, s, (), heuristic)
    state = game.initial_state()
    rng = random.Random(n * 100 + s)
    for _ in range(6):  # a fixed, quiet opening near the centre
        near = [c for c in game.actions(state)[:16]]
        state = game.result(state, rng.choice(near))
    report = AIPlayer(game, 64, t).choose(state)
    print(report.nodes, report.depth, f"{report.seconds:.3f}", report.evaluations)


def interpreters():
    found = [("CPython", PYTHON)]
    for name, path in (("PyPy", "pypy3"),):
        try:
            subprocess.run([path, "-c", "pass"], check=True, capture_output=True)
            found.append((name, path))
        except (OSError, subprocess.CalledProcessError):
            pass
    return found


def main(argv):
    t = float(argv[argv.index("--t") + 1]) if "--t" in argv else 5.0
    print(f"Line 'em Up: one AI move from a 6-stone opening, t={t}s, depth unlimited")
    print(f"{'python':<8} {'board':<9} {'h':<3} {'depth':>5} {'nodes':>9} {'cpu s':>6} "
          f"{'nodes/cpu s':>11} {'move s':>7} {'peak MB':>7}")
    worst = 0.0
    for name, python in interpreters():
        for n, s in BOARDS:
            for heuristic in HEURISTICS:
                argv_child = [python, str(Path(__file__).resolve()), "--child", str(n),
                              str(s), heuristic, str(t)]
                env = dict(os.environ, PYTHONPATH=str(REPO))
                read, write = os.pipe()
                with os.fdopen(write, "wb") as sink:
                    cpu, wall, peak, code = run_measured(argv_child, env=env, stdout=sink)
                with os.fdopen(read) as source:
                    figures = source.read().split()
                if code or len(figures) != 4:
                    print(f"{name:<8} n={n} s={s}  {heuristic}: failed (exit {code})")
                    continue
                nodes, depth, seconds = int(figures[0]), int(figures[1]), float(figures[2])
                worst = max(worst, seconds / t)
                print(f"{name:<8} n={n},s={s} {heuristic:<3} {depth:>5} {nodes:>9} {cpu:>6.2f} "
                      f"{nodes / cpu:>11.0f} {seconds:>7.2f} {peak:>7.0f}", flush=True)
    print(f"largest move time / t: {worst:.3f} (must stay below 1)")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5]))
    else:
        sys.exit(main(sys.argv[1:]))
