"""A game added through engine.registry alone (issue 67, part 5; docs/adding_a_game.md).

tests/toy_game.py defines Take Away, a tiny game of our own (its rules class and board),
and ``register()``, which adds one ``Assignment`` entry to the registry's table and
edits nothing else. Every command here runs in a subprocess that registers it first, the
way a game in the table is known: ``tournament run`` with two entrants written here
(their moves made in the real sandbox), its report, ``tournament --help`` and ``ladder
init``. Without the entry the game is unknown (the first test), so it is the entry, not
something else, that makes the rest work.
"""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import toy_game

from engine.tournament.games import LineEmUpRules, Rules, StakeRaidRules

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

# Take Away's two entrants: one plays the game's theory (leave a multiple of four), one
# always takes a single counter.
PERFECT = """\
left = int(open("input.txt").read().split()[0])
open("output.txt", "w").write(f"{left % 4 or 1}\\n")
"""
ONE = 'open("output.txt", "w").write("1\\n")\n'
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def engine(args, cwd, registered=True, timeout=600):
    """``python3 -m engine ARGS`` in ``cwd``, with Take Away registered (or not)."""
    program = ["-c", toy_game.MAIN] if registered else ["-m", "engine"]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join((str(REPO), str(TESTS))))
    return subprocess.run([sys.executable, *program, *args], cwd=cwd, capture_output=True,
                          text=True, env=environment, timeout=timeout)


def frames(cells, moves):
    """Every position of a recorded game by Take Away's rules, rows joined."""
    board = toy_game.TakeAwayRules.board(cells)
    shown = ["".join(board.rows())]
    for _, move, _ in moves:
        board.play(board.parse(move))
        shown.append("".join(board.rows()))
    return shown


def entrant(folder, program):
    folder.mkdir()
    (folder / toy_game.ENTRY_POINT).write_text(program)
    return str(folder)


def test_every_rules_class_supplies_every_member_of_the_protocol():
    """The toy is a whole game: it has every member the Rules protocol lists, as our
    games do (so the commands below exercise all of them)."""
    members = sorted(name for name in vars(Rules) if not name.startswith("_"))
    assert {"board", "first_row", "size_text", "size_cost", "clean_cells",
            "cell_values"} <= set(members)
    for rules in (toy_game.TakeAwayRules, StakeRaidRules, LineEmUpRules):
        assert [name for name in members if not hasattr(rules, name)] == [], rules


def test_the_game_is_unknown_without_its_registry_entry(tmp_path):
    done = engine(["tournament", "run", toy_game.NAME, "a", "b"], tmp_path, registered=False)
    assert done.returncode == 2 and "invalid choice: 'take_away'" in done.stderr
    listed = engine(["tournament", "--help"], tmp_path, registered=False)
    assert listed.returncode == 0 and "Take Away" not in listed.stdout


def test_a_registered_game_is_in_the_tournaments_help(tmp_path):
    done = engine(["tournament", "--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("take_away (Take Away): entry points take_away_agent.py; ours: none; --sizes "
            "3,4") in done.stdout


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    """A round-robin of the two entrants on Take Away's default sizes (3 and 4: one
    colour-swapped pair each): the command's run, the results and the report."""
    place = tmp_path_factory.mktemp("take_away")
    perfect = entrant(place / "perfect", PERFECT)
    one = entrant(place / "one", ONE)
    done = engine(["tournament", "run", toy_game.NAME, perfect, one, "--time", "5",
                   "--jobs", "1", "--json", "results.json", "--report", "report.html"],
                  place)
    document = (json.loads((place / "results.json").read_text())
                if (place / "results.json").exists() else None)
    page = (place / "report.html").read_text() if (place / "report.html").exists() else ""
    return done, document, page


def test_a_tournament_of_the_registered_game_is_played_by_its_rules(tournament):
    done, document, _ = tournament
    assert done.returncode == 0, done.stderr
    assert document["game"] == toy_game.NAME and document["complete"] is True
    assert document["sizes"] == [3, 4]
    rules = toy_game.TakeAwayRules
    games = document["games"]
    assert len(games) == 4 and {game["size"] for game in games} == {3, 4}
    for game in games:
        assert game["forfeit"] is None, game
        # The referee set the board up and played the moves by the toy's rules: they
        # replay to the end, the last mover won and the score is the board's.
        assert game["cells"] == rules.setup(1, game["pair"] - 1, game["size"])
        board = rules.board(game["cells"])
        for side, move, _ in game["moves"]:
            assert side == board.side and board.legal(board.parse(move))
            board.play(board.parse(move))
        assert board.over and game["result"] == game["moves"][-1][0] == board.winner()
        assert game["score"] == board.scores()
    # The entrant that keeps to the theory wins every game against one that takes a
    # single counter (every board starts with 7 counters or more).
    points = {row["name"]: row["points"] for row in document["entrants"]}
    assert points == {"perfect": 4, "one": 0}


def test_the_report_draws_the_registered_game_by_its_rules(tournament):
    _, document, page = tournament
    assert "<h1>Take Away tournament</h1>" in page
    assert "3×3 counters, 4×4 counters" in page           # the rules' size_text
    start = page.index('id="replay-data">') + len('id="replay-data">')
    data = json.loads(page[start:page.index("</script>", start)])
    assert data["game"] == toy_game.NAME and data["base"] == 1      # the rules' first_row
    for game, replay in zip(document["games"], data["games"]):
        shown = frames(game["cells"], game["moves"])
        assert replay["n"] == game["size"] and replay["b"] == shown[0]
        assert len(replay["d"]) == len(game["moves"]) and "v" not in replay
        # The first change: X's counters, each as its index in two base-36 digits.
        assert replay["d"][0] == "".join(
            f"X{DIGITS[index // 36]}{DIGITS[index % 36]}"
            for index, (old, new) in enumerate(zip(shown[0], shown[1])) if old != new)


def test_a_ladder_of_the_registered_game_is_made(tmp_path):
    pytest.importorskip("sqlalchemy")
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nann\nbob\n")
    folder = tmp_path / "ladder"
    done = engine(["ladder", "init", str(folder), "--game", toy_game.NAME, "--roster",
                   str(roster), "--sizes", "4,5"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"ladder: {folder} is a Take Away ladder for 2 students (20 s per player per game, "
        "sizes 4, 5; no anchors; database SQLite)\n")
    settings = json.loads((folder / "ladder.json").read_text())
    assert settings["game"] == toy_game.NAME and settings["sizes"] == [4, 5]
    with sqlite3.connect(str(folder / "data" / "ladder.db")) as database:
        players = database.execute("SELECT name, staff FROM players ORDER BY name")
        assert players.fetchall() == [("ann", 0), ("bob", 0)]     # no anchors: ours is empty
    refused = engine(["ladder", "init", str(tmp_path / "other"), "--game", toy_game.NAME,
                      "--roster", str(roster), "--sizes", "9"], tmp_path)
    assert refused.returncode == 2
    assert "--sizes: Take Away boards are 2..5 wide, not '9'" in refused.stderr
