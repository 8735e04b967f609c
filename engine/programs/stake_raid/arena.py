"""The Stake/Raid arena: COMPETITION games between two programs, refereed.

The arena runs its commands as the user who starts it, without a sandbox: it is for
one's own programs (ours, while developing them). Students' agents, a class's
tournament and strength tests of our agent (SPRT) go through
``python3 -m engine tournament`` (docs/tournament.md), which runs every call in the
grading kit's sandbox and charges user CPU time as the competition handout does.

    python3 -m engine stake_raid arena "CMD_A" "CMD_B" [--games G] [--sizes 5,6,8,10]
        [--time T] [--time-b T] [--seed S] [--jobs J] [--json FILE] [--keep DIR]
        [--wall-factor F]

Each player is a command run like the tournament runs homework.py: in its own working
folder (kept for the whole game), with ``input.txt`` written there (N, COMPETITION, the
player's colour, its remaining CPU seconds, the values, the board), any old
``output.txt`` deleted, stdin closed, in a process group of its own. The call's CPU time
(user + system of the process and the children it waited for) is charged against the
player's clock; a call is killed (its whole group) once its wall-clock time passes
``remaining * F + 1`` seconds (F = 1.5 unless ``--wall-factor``), or by the kernel
once its CPU time passes ``remaining + 2`` seconds. The referee reads
only the first line of output.txt (``<col><row> Stake|Raid``), checks it against the
rules and plays it itself.

A player forfeits the game (it loses it, whatever the board says) for: running out of
time (CPU charged beyond its clock, or killed at the wall-clock cap), a non-zero exit,
no output.txt, a garbled first line, or an illegal move.

Games come in colour-swapped pairs: pair k is one board (size ``sizes[k % len(sizes)]``,
cell values from ``--seed`` and k), A plays X (moving first) in game 2k and O in game
2k+1. A win is 1 point, a draw 1/2. The table shows, per player, W/D/L, points, forfeits,
CPU time used per game, peak memory of a call, the mean score margin, and A's points per
board size; ``--json FILE`` writes every game too, with its cell values, final board and
every move played (colour, move in the rules' notation, CPU seconds of that call), so
that a game can be replayed.

A command is split like a shell would (shlex) and run without a shell; give absolute
paths (the working folder is the player's). A command that is only a strategy name of
homework.py (agent, classic, greedy, depth1..depth9) runs this project's homework.py
with that strategy. ``--time-b`` gives B another clock than ``--time`` (e.g. ten times
as much: the strong-opponent proxy).
"""

import argparse
import json
import os
import random
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ...errors import UsageError
from ...games.stake_raid import EMPTY, MAX, MIN, RAID, StakeRaid, move_name
from ...commandline import write_atomically
from .agent import STRATEGIES

X, O = MAX, MIN  # noqa: E741 (absolute codes on the referee's board; O: the game's mark)
SWAP = bytes.maketrans(b"\x01\x02", b"\x02\x01")
MARKS = {EMPTY: ".", X: "X", O: "O"}
WALL_FACTOR, WALL_EXTRA = 1.5, 1.0
# The folder holding the engine package (this file is engine/programs/stake_raid/arena.py).
PROJECT_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 3))

TIMEOUT, CRASH, NO_OUTPUT, GARBLED, ILLEGAL = (
    "timeout", "crash", "no output.txt", "garbled output", "illegal move")


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"arena: {message}")


def parse_options(argv):
    """The arena's options (see the module doc), or UsageError."""
    parser = _ArgumentParser(prog="python3 -m engine stake_raid arena",
                             description="Stake/Raid COMPETITION games between two programs.")
    parser.add_argument("command_a", metavar="CMD_A")
    parser.add_argument("command_b", metavar="CMD_B")
    parser.add_argument("--games", type=int, default=2, help="games to play (default 2)")
    parser.add_argument("--sizes", default="5,6,8,10", help="board sizes, cycled per pair")
    parser.add_argument("--time", type=float, default=30.0,
                        help="CPU seconds per player per game (default 30)")
    parser.add_argument("--time-b", type=float, default=None,
                        help="B's CPU seconds per game (default: --time)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wall-factor", type=float, default=WALL_FACTOR,
                        help="a call is killed after remaining * this + 1 wall seconds "
                             f"(default {WALL_FACTOR}; raise it on a loaded machine)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    parser.add_argument("--json", default=None, help="write all results to this file")
    parser.add_argument("--keep", default=None,
                        help="keep the players' working folders under this folder")
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip("\n"))
        raise _HelpShown
    options = parser.parse_args(argv)
    try:
        options.sizes = [int(s) for s in options.sizes.split(",")]
    except ValueError:
        raise UsageError(f"arena: --sizes must be integers separated by commas, "
                         f"not {options.sizes!r}") from None
    if not options.sizes or any(not 1 <= s <= 26 for s in options.sizes):
        raise UsageError("arena: board sizes must be 1..26")
    if options.games < 1 or options.jobs < 1:
        raise UsageError("arena: --games and --jobs must be at least 1")
    if options.time_b is None:
        options.time_b = options.time
    if not options.time > 0 or not options.time_b > 0:
        raise UsageError("arena: times must be positive")
    return options


class _HelpShown(Exception):
    pass


def command_words(command):
    """argv for ``command``: a strategy name becomes this project's homework.py with it."""
    if command in STRATEGIES:
        return [sys.executable, "-m", "engine", "stake_raid", "--strategy", command]
    words = shlex.split(command)
    if not words:
        raise UsageError("arena: an empty player command")
    return words


def board_for(seed, pair, size):
    """The cell values of pair ``pair``'s board: reproducible from ``seed``."""
    rng = random.Random(f"stake_raid arena {seed} {pair} {size}")
    return [rng.randint(1, 99) for _ in range(size * size)]


def plain_seconds(seconds):
    """``seconds`` as the plainest number that keeps its milliseconds: ``3`` for 3.0,
    ``2.5``, ``0.125`` (an agent may read it with an integer or a float reader)."""
    text = f"{max(seconds, 0.0):.3f}".rstrip("0").rstrip(".")
    return text or "0"


def input_text(size, values, cells, colour, seconds):
    """input.txt for the player of ``colour`` (X or O) with ``seconds`` left."""
    lines = [str(size), "COMPETITION", MARKS[colour], plain_seconds(seconds)]
    for row in range(size):
        lines.append(" ".join(str(v) for v in values[row * size:(row + 1) * size]))
    for row in range(size):
        lines.append("".join(MARKS[c] for c in cells[row * size:(row + 1) * size]))
    return "\n".join(lines) + "\n"


def parse_move(text, size):
    """The action (see engine.games.stake_raid) named by output.txt's first line, or None
    when the line is not ``<col><row> Stake|Raid`` on this board."""
    first = text.split("\n", 1)[0].strip()
    parts = first.split()
    if len(parts) != 2 or parts[1] not in ("Stake", "Raid") or len(parts[0]) < 2:
        return None
    column, row = parts[0][0], parts[0][1:]
    if not ("A" <= column <= "Z" and row.isascii() and row.isdigit()):
        return None
    column, row = ord(column) - ord("A"), int(row) - 1
    if not (0 <= column < size and 0 <= row < size):
        return None
    cell = row * size + column
    return cell + RAID if parts[1] == "Raid" else cell


class Call:
    """One run of a player: exit status, CPU seconds, wall seconds, peak RSS (KiB)."""

    def __init__(self, status, cpu, wall, rss_kib, killed):
        self.status, self.cpu, self.wall = status, cpu, wall
        self.rss_kib, self.killed = rss_kib, killed


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def run_call(words, folder, seconds, env=None, wall_factor=WALL_FACTOR):
    """Run ``words`` in ``folder`` as its own process group, killed past the wall cap."""
    with open(os.path.join(folder, "stderr.txt"), "ab") as errors:
        started = time.perf_counter()
        try:
            process = subprocess.Popen(words, cwd=folder, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=errors,
                                       start_new_session=True, env=env)
        except OSError as error:
            errors.write(f"arena: cannot start {words[0]}: {error}\n".encode())
            return Call(127, 0.0, 0.0, 0, False)
    try:
        # The kernel stops a call that burns its whole clock and more (SIGXCPU, then
        # SIGKILL): CPU time runs out even on a machine too loaded for the wall cap.
        limit = int(seconds) + 2
        resource.prlimit(process.pid, resource.RLIMIT_CPU, (limit, limit + 1))
    except (OSError, ValueError, AttributeError):
        pass  # already gone, or no prlimit here: the wall cap still holds
    killed = []

    def kill():
        killed.append(True)
        _kill_group(process.pid)

    timer = threading.Timer(seconds * wall_factor + WALL_EXTRA, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    wall = time.perf_counter() - started
    # Anything it left running in its group goes too (its pid is the group's id).
    _kill_group(process.pid)
    process.returncode = status  # reaped here: Popen must not wait for it again
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return Call(code, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, bool(killed))


def play_game(index, options, words, root):
    """Play game ``index`` (see the module doc) and return its record (a dict)."""
    pair, swapped = divmod(index, 2)
    size = options.sizes[pair % len(options.sizes)]
    values = board_for(options.seed, pair, size)
    game = StakeRaid(size, values)
    colour_of = [O, X] if swapped else [X, O]          # player 0 = A, 1 = B
    clocks = [options.time, options.time_b]
    used = [0.0, 0.0]
    calls = [0, 0]
    peak = [0, 0]
    folders = []
    for name in "AB":
        folder = os.path.join(root, f"game{index + 1}-{name}")
        os.makedirs(folder, exist_ok=True)
        folders.append(folder)
    cells = bytes(size * size)
    mover = X
    forfeit = None
    moves = []
    while EMPTY in cells:
        player = colour_of.index(mover)
        folder = folders[player]
        remaining = clocks[player] - used[player]
        write_atomically(os.path.join(folder, "input.txt"),
                         input_text(size, values, cells, mover, remaining))
        output = os.path.join(folder, "output.txt")
        try:
            os.unlink(output)
        except FileNotFoundError:
            pass
        call = run_call(words[player], folder, remaining, options.env,
                        options.wall_factor)
        used[player] += call.cpu
        calls[player] += 1
        peak[player] = max(peak[player], call.rss_kib)
        reason = None
        if call.killed or used[player] > clocks[player]:
            reason = TIMEOUT
        elif call.status != 0:
            reason = CRASH
        else:
            try:
                with open(output, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                text = None
                reason = NO_OUTPUT
            if text is not None:
                action = parse_move(text, size)
                state = game.initial_state(cells if mover == X else cells.translate(SWAP))
                if action is None:
                    reason = GARBLED
                elif action not in game.actions(state):
                    reason = ILLEGAL
                else:
                    child = game.play(state, action)[0]
                    cells = child if mover == X else child.translate(SWAP)
                    moves.append([MARKS[mover], move_name(size, action),
                                  round(call.cpu, 3)])
        if reason is not None:
            forfeit = {"player": "AB"[player], "reason": reason, "move": sum(calls)}
            break
        mover = X + O - mover
    margin_x = sum(values[i] for i in range(size * size) if cells[i] == X) - \
        sum(values[i] for i in range(size * size) if cells[i] == O)
    margin_a = margin_x if colour_of[0] == X else -margin_x
    if forfeit is not None:
        points_a = 0.0 if forfeit["player"] == "A" else 1.0
    else:
        points_a = 1.0 if margin_a > 0 else 0.5 if margin_a == 0 else 0.0
    return {"game": index + 1, "pair": pair + 1, "size": size, "a_colour": MARKS[colour_of[0]],
            "margin_a": margin_a, "points_a": points_a, "forfeit": forfeit,
            "cpu": used, "calls": calls, "peak_rss_mb": [p / 1024 for p in peak],
            "board": "".join(MARKS[c] for c in cells), "values": values, "moves": moves}


def summarise(records, player):
    """Totals for player 0 (A) or 1 (B) over ``records``."""
    sign = 1 if player == 0 else -1
    points = [r["points_a"] if player == 0 else 1.0 - r["points_a"] for r in records]
    wins = sum(p == 1.0 for p in points)
    draws = sum(p == 0.5 for p in points)
    forfeits = sum(1 for r in records if r["forfeit"] and r["forfeit"]["player"] == "AB"[player])
    cpu = [r["cpu"][player] for r in records]
    return {"wins": wins, "draws": draws, "losses": len(records) - wins - draws,
            "points": sum(points), "share": sum(points) / len(records),
            "forfeits": forfeits, "cpu_mean": sum(cpu) / len(cpu), "cpu_max": max(cpu),
            "peak_rss_mb": max(r["peak_rss_mb"][player] for r in records),
            "margin_mean": sign * sum(r["margin_a"] for r in records) / len(records)}


def table(options, records):
    """The results table as text."""
    lines = [f"{len(records)} games, sizes {','.join(map(str, options.sizes))}, "
             f"seed {options.seed}; CPU seconds per game: A {options.time:g}, "
             f"B {options.time_b:g}",
             f"{'':3}{'W':>4}{'D':>4}{'L':>4}{'points':>9}{'share':>7}{'forfeits':>9}"
             f"{'cpu/game':>10}{'max':>7}{'peak MB':>9}{'margin':>8}  command"]
    for player, command in enumerate((options.command_a, options.command_b)):
        s = summarise(records, player)
        lines.append(f"{'AB'[player]:3}{s['wins']:4}{s['draws']:4}{s['losses']:4}"
                     f"{s['points']:9.1f}{s['share']:7.0%}{s['forfeits']:9}"
                     f"{s['cpu_mean']:10.2f}{s['cpu_max']:7.2f}{s['peak_rss_mb']:9.0f}"
                     f"{s['margin_mean']:+8.1f}  {command}")
    by_size = {}
    for r in records:
        by_size.setdefault(r["size"], []).append(r)
    parts = [f"{size}x{size} {sum(r['points_a'] for r in rs):g}/{len(rs)}"
             for size, rs in sorted(by_size.items())]
    lines.append("A's points by size: " + ", ".join(parts))
    for r in records:
        if r["forfeit"]:
            f = r["forfeit"]
            lines.append(f"game {r['game']}: {f['player']} forfeits ({f['reason']}) "
                         f"at move {f['move']}")
    return "\n".join(lines)


def run_arena(argv):
    try:
        options = parse_options(argv)
    except _HelpShown:
        return 0
    words = [command_words(options.command_a), command_words(options.command_b)]
    root = options.keep or tempfile.mkdtemp(prefix="stake_raid_arena_")
    os.makedirs(root, exist_ok=True)
    # Built-in strategies run ``-m engine`` from the player's folder: find the package.
    options.env = dict(os.environ)
    env_path = options.env.get("PYTHONPATH")
    options.env["PYTHONPATH"] = PROJECT_ROOT + (os.pathsep + env_path if env_path else "")
    records = [None] * options.games
    try:
        def one(index):
            record = play_game(index, options, words, root)
            f = record["forfeit"]
            print(f"arena: game {index + 1}/{options.games} ({record['size']}x"
                  f"{record['size']}, A is {record['a_colour']}): A margin "
                  f"{record['margin_a']:+d}, A points {record['points_a']:g}"
                  + (f", {f['player']} forfeits ({f['reason']})" if f else "")
                  + f"; cpu A {record['cpu'][0]:.2f} s, B {record['cpu'][1]:.2f} s",
                  file=sys.stderr, flush=True)
            records[index] = record

        with ThreadPoolExecutor(max_workers=options.jobs) as pool:
            for future in [pool.submit(one, i) for i in range(options.games)]:
                future.result()
    finally:
        if options.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(table(options, records))
    if options.json:
        summary = {"options": {"command_a": options.command_a,
                               "command_b": options.command_b, "games": options.games,
                               "sizes": options.sizes, "time": options.time,
                               "time_b": options.time_b, "seed": options.seed},
                   "a": summarise(records, 0), "b": summarise(records, 1),
                   "games": records}
        write_atomically(options.json, json.dumps(summary, indent=1) + "\n")
    return 0
