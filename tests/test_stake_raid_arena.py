"""The Stake/Raid arena: refereeing, forfeits of misbehaving players, the table, JSON."""

import json
import os
import secrets
import shlex
import subprocess
import sys
import textwrap
import time

import pytest

from engine.games.stake_raid import RAID, StakeRaid
from engine.programs.stake_raid import arena
from engine.programs.stake_raid import main as homework_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A player that reads input.txt and plays the first empty square (always legal), plus
# a misbehaviour chosen by its first argument.
PLAYER = textwrap.dedent("""\
    import os, subprocess, sys, time
    how = sys.argv[1] if len(sys.argv) > 1 else "good"
    lines = open("input.txt").read().split("\\n")
    n = int(lines[0])
    board = "".join(lines[4 + n:4 + 2 * n])
    cell = board.index(".")
    move = chr(65 + cell % n) + str(cell // n + 1) + " Stake"
    if how == "spin":
        while True:
            pass
    if how == "sleep":
        time.sleep(60)
    if how == "crash":
        sys.exit(3)
    if how == "silent":
        sys.exit(0)
    if how == "garbled":
        move = "hello there"
    if how == "illegal" and "X" in board + "O":
        occupied = min(board.index(c) for c in "XO" if c in board)
        move = chr(65 + occupied % n) + str(occupied // n + 1) + " Stake"
    if how == "orphan":
        # a child left behind in the group: the arena must kill it with the group. Its
        # command line carries the word argv[3]; its pid is added to the file argv[2].
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                  sys.argv[3]], stdin=subprocess.DEVNULL)
        with open(sys.argv[2], "a") as pids:
            pids.write(f"{child.pid}\\n")
    with open("output.txt", "w") as out:
        out.write(move + "\\n")
""")


@pytest.fixture
def player(tmp_path):
    script = tmp_path / "player.py"
    script.write_text(PLAYER)
    return lambda how="good", *words: shlex.join([sys.executable, str(script), how, *words])


def run(argv, capsys):
    code = arena.run_arena(argv)
    return code, capsys.readouterr()


def test_parse_move():
    assert arena.parse_move("B3 Raid\nXX\n", 4) == 2 * 4 + 1 + RAID
    assert arena.parse_move("A1 Stake\r\n", 4) == 0
    for bad in ("", "A1", "A1 Take", "E1 Stake", "A5 Stake", "A0 Stake", "a1 Stake",
                "A1x Stake"):
        assert arena.parse_move(bad, 4) is None, bad


def test_input_text_is_what_homework_reads(tmp_path):
    values = list(range(1, 10))
    cells = bytes([1, 0, 2, 0, 0, 0, 0, 0, 0])
    text = arena.input_text(3, values, cells, arena.O, 12.5)
    assert text.split("\n")[:4] == ["3", "COMPETITION", "O", "12.5"]
    (tmp_path / "input.txt").write_text(text)
    code = homework_main([str(tmp_path / "input.txt"), str(tmp_path / "output.txt"),
                          ], fast_exit=False)
    assert code == 0
    assert arena.parse_move((tmp_path / "output.txt").read_text(), 3) is not None


def test_good_players_play_to_the_end(player, capsys, tmp_path):
    code, out = run([player(), player(), "--games", "2", "--sizes", "3", "--time", "20",
                     "--json", str(tmp_path / "r.json")], capsys)
    assert code == 0
    result = json.loads((tmp_path / "r.json").read_text())
    games = result["games"]
    assert [g["a_colour"] for g in games] == ["X", "O"]
    for game in games:
        assert game["forfeit"] is None
        assert "." not in game["board"]
        assert game["calls"] == [5, 4] if game["a_colour"] == "X" else [4, 5]
    # Both play "first empty square": colour-swapped games mirror each other.
    assert games[0]["margin_a"] == -games[1]["margin_a"]
    assert result["a"]["points"] + result["b"]["points"] == 2
    assert "forfeits" in out.out and "A's points by size: 3x3" in out.out


@pytest.mark.parametrize("how, reason", [
    ("crash", arena.CRASH), ("silent", arena.NO_OUTPUT), ("garbled", arena.GARBLED),
    ("illegal", arena.ILLEGAL), ("spin", arena.TIMEOUT), ("sleep", arena.TIMEOUT)])
def test_misbehaving_player_forfeits(player, capsys, tmp_path, how, reason):
    started = time.monotonic()
    code, out = run([player(), player(how), "--games", "2", "--sizes", "3",
                     "--time", "0.5", "--json", str(tmp_path / "r.json")], capsys)
    assert code == 0
    assert time.monotonic() - started < 55   # the wall-clock cap ended the sleeper (60 s)
    result = json.loads((tmp_path / "r.json").read_text())
    for game in result["games"]:
        assert game["forfeit"]["player"] == "B"
        assert game["forfeit"]["reason"] == reason
        assert game["points_a"] == 1.0
    assert result["b"]["forfeits"] == 2 and result["a"]["forfeits"] == 0
    assert f"B forfeits ({reason})" in out.out


def test_cpu_time_is_charged(player, capsys, tmp_path):
    """A player that spins is charged what it burnt; with the wall cap far away, the
    CPU limit stops it (a little past its clock)."""
    run([player(), player("spin"), "--games", "1", "--sizes", "2", "--time", "0.6",
         "--wall-factor", "200", "--json", str(tmp_path / "r.json")], capsys)
    game = json.loads((tmp_path / "r.json").read_text())["games"][0]
    assert game["forfeit"]["reason"] == arena.TIMEOUT
    assert 0.6 < game["cpu"][1] < 10


def running_with(pid, word):
    """Whether process ``pid`` is alive and has ``word`` in its command line (a zombie's
    command line is empty; a pid reused by another program does not have the word)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return word.encode() in handle.read()
    except OSError:
        return False


def test_orphans_are_killed_with_the_group(player, capsys, tmp_path):
    word = f"orphan-{os.getpid()}-{secrets.token_hex(8)}"      # this test's orphans only
    pids = tmp_path / "orphans.txt"
    run([player(), player("orphan", str(pids), word), "--games", "1", "--sizes", "2",
         "--time", "20"], capsys)
    orphans = [int(line) for line in pids.read_text().split()]
    assert orphans                                  # B played, and left a child each time
    # SIGKILL takes effect asynchronously: wait (a little) for the group to be gone.
    deadline = time.monotonic() + 10
    while any(running_with(pid, word) for pid in orphans) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [pid for pid in orphans if running_with(pid, word)] == []


def test_builtin_strategy_names_run_homework(capsys, tmp_path):
    code, out = run(["greedy", "depth1", "--games", "2", "--sizes", "3", "--time", "20",
                     "--json", str(tmp_path / "r.json")], capsys)
    result = json.loads((tmp_path / "r.json").read_text())
    assert all(g["forfeit"] is None for g in result["games"])
    assert result["a"]["peak_rss_mb"] > 0


def test_json_moves_replay_to_the_final_board(capsys, tmp_path):
    """The recorded moves, replayed by the rules from an empty board, give the final
    board and the margin; each was charged to the colour that played it."""
    run(["greedy", "depth2", "--games", "2", "--sizes", "4", "--time", "20",
         "--json", str(tmp_path / "r.json")], capsys)
    for record in json.loads((tmp_path / "r.json").read_text())["games"]:
        size, values = record["size"], record["values"]
        game = StakeRaid(size, values)
        cells, raids = bytes(size * size), 0
        assert [m[0] for m in record["moves"]] == ["X", "O"] * (size * size // 2)
        for colour, move, cpu in record["moves"]:
            action = arena.parse_move(move, size)
            raids += action >= RAID
            ours = cells if colour == "X" else cells.translate(arena.SWAP)
            child = game.play(game.initial_state(ours), action)[0]
            cells = child if colour == "X" else child.translate(arena.SWAP)
            assert cpu > 0
        assert "".join(arena.MARKS[c] for c in cells) == record["board"]
        margin_x = sum(v if c == arena.X else -v for v, c in zip(values, cells))
        assert record["margin_a"] == (margin_x if record["a_colour"] == "X" else -margin_x)
        assert sum(m[2] for m in record["moves"] if m[0] == record["a_colour"]) == \
            pytest.approx(record["cpu"][0], abs=0.01)
        assert raids > 0    # greedy and depth 2 raid on a 4x4 board


@pytest.mark.parametrize("argv", [[], ["a"], ["a", "b", "--sizes", "x"],
                                  ["a", "b", "--sizes", "27"], ["a", "b", "--time", "0"],
                                  ["a", "b", "--games", "0"]])
def test_bad_options_exit_2(argv):
    process = subprocess.run([sys.executable, "-m", "engine", "stake_raid", "arena"] + argv,
                             cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 2
    assert len(process.stderr.strip().splitlines()) == 1
    assert "Traceback" not in process.stderr


def test_help():
    process = subprocess.run([sys.executable, "-m", "engine", "stake_raid", "arena",
                              "--help"], cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 0 and "--time-b" in process.stdout


def test_unknown_strategy_exit_2(tmp_path):
    process = subprocess.run([sys.executable, os.path.join(ROOT, "homework.py"),
                              "--strategy", "nope"], cwd=tmp_path, capture_output=True,
                             text=True)
    assert process.returncode == 2 and "unknown strategy 'nope'" in process.stderr
