"""The tournament as a new user met it (docs/tournament.md): a round-robin's games in the
round of its table, and the standings that ``tournament merge`` prints aligned whatever
the names."""

import html
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections import defaultdict

import pytest

from golden import REPO

from engine.tournament import report, results, schedule

HEADER = {"game": "stake_raid", "format": "round-robin", "time": 2.0, "seed": 1,
          "isolation": "rlimits", "sizes": [4], "pairs": 1, "games_per_match": None,
          "rounds": None, "shard": None}


def document(names, pairs=1, eliminated=(), forfeit_game=None):
    """A round-robin of ``names`` as results.assemble writes it: X wins every game."""
    header = dict(HEADER, pairs=pairs)
    plan = schedule.round_robin(names, pairs, header["sizes"])
    games = []
    for spec in plan.games:
        forfeit = ({"player": "o", "reason": "time", "detail": "used 2.1 s of 2 s"}
                   if spec.id == forfeit_game else None)
        games.append({"id": spec.id, "round": spec.round, "match": spec.match,
                      "pair": spec.pair, "size": spec.size, "x": spec.x, "o": spec.o,
                      "cells": None, "moves": [], "result": "x", "score": [10, 3],
                      "cpu": [0.5, 0.4], "forfeit": forfeit})
    entrants = [{"name": name, "path": f"/class/{name}", "kind": "python", "staff": False}
                for name in list(names) + list(eliminated)]
    builds = {name: None for name in names}
    builds.update({name: "build failed (make agent: exit code 2)" for name in eliminated})
    return results.assemble(header, entrants, builds, games, True)


def shown_rounds(page):
    """{game id: the round its row shows} of the page's games table."""
    rows = re.findall(r'<tr id="game-\d+"[^>]*>\s*<td class="n">(\d+)</td>'
                      r'<td class="n">([^<]*)</td>', page)
    return {int(game): html.unescape(shown) for game, shown in rows}


@pytest.mark.parametrize("count,pairs", [(4, 1), (5, 1), (4, 2)])
def test_round_robin_games_show_the_round_of_their_table(count, pairs):
    names = [f"entrant{number}" for number in range(count)]
    doc = document(names, pairs, eliminated=["dave"])
    rounds = shown_rounds(report.render(doc))
    assert len(rounds) == len(doc["games"])
    per_cycle = count - 1 if count % 2 == 0 else count
    assert sorted({int(shown) for shown in rounds.values()}) == list(
        range(1, per_cycle * pairs + 1))
    meetings = defaultdict(set)
    for game in doc["games"]:
        meetings[int(rounds[game["id"]])].add(frozenset((game["x"], game["o"])))
    for number, met in meetings.items():
        seated = [name for meeting in met for name in meeting]
        # Each round every entrant meets one other at most (one sits out when odd).
        assert len(seated) == len(set(seated)) >= count - 1, (number, met)
    # Both games of a colour-swapped pair are in one round.
    by_pair = defaultdict(set)
    for game in doc["games"]:
        by_pair[game["pair"]].add(rounds[game["id"]])
    assert all(len(shown) == 1 for shown in by_pair.values())


def test_a_forfeit_and_a_replay_title_name_the_same_round():
    doc = document(["a", "b", "c", "d"], forfeit_game=5)
    page = report.render(doc)
    shown = shown_rounds(page)[5]
    forfeit = re.search(r'<a href="#game-4">game 5</a></td><td class="n">([^<]*)</td>',
                        page).group(1)
    title = re.search(r'<tr id="game-4"[^>]*data-title="([^"]*)"', page).group(1)
    assert forfeit == shown and f"· round {shown} ·" in html.unescape(title)
    game = doc["games"][4]
    assert report.circle_rounds(["a", "b", "c", "d"])[frozenset((game["x"], game["o"]))] \
        == int(shown)


def test_other_formats_keep_their_recorded_rounds():
    doc = document(["a", "b", "c"])
    doc["format"] = "swiss"
    for number, game in enumerate(doc["games"]):
        game["round"] = 7 + number
    assert shown_rounds(report.render(doc)) == {game["id"]: str(game["round"])
                                                for game in doc["games"]}


LONG_NAMES = ["alice-with-a-very-long-folder-name-from-a-canvas-export_12345", "李小龍",
              "Zoë Ünïcödé", "bob"]


def display_width(text):
    """Terminal columns of ``text`` (the oracle): East Asian wide characters take two,
    combining marks none."""
    return sum(0 if unicodedata.combining(char) else
               2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def test_the_merge_table_stays_aligned_with_long_and_wide_names(tmp_path):
    doc = document(LONG_NAMES, eliminated=["dave-whose-name-is-long-too"])
    shard = tmp_path / "shard.json"
    shard.write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "merge", str(shard),
                           "--json", str(tmp_path / "all.json")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    heading, rows = lines[0], [line for line in lines[1:] if "eliminated" not in line]
    assert len(rows) == len(LONG_NAMES)
    # Every right-aligned column (points to the rating) ends where its heading ends.
    ends = [display_width(heading[:heading.index(title) + len(title)])
            for title in ("points", "games", "W-D-L", "beat", "rating [95%]")]
    for row in rows:
        name = next(name for name in LONG_NAMES if name in row)
        rest = row[row.index(name) + len(name):]
        start = display_width(row[:row.index(name) + len(name)])
        cells = [start + display_width(rest[:match.end()])
                 for match in re.finditer(r"\S+(?: \[[^]]*\])?", rest)]
        assert cells[:5] == ends, (row, heading)
    eliminated = next(line for line in lines if "eliminated" in line)
    assert display_width(eliminated[:eliminated.index("eliminated")]) == \
        display_width(heading[:heading.index("points")])


def test_display_width_counts_wide_and_combining_characters():
    from engine.tournament.cli import display_width
    assert display_width("bob") == 3
    assert display_width("李小龍") == 6
    assert display_width("Zoe\u0308") == 3
