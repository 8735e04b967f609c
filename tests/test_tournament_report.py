"""The tournament's HTML report (engine.tournament.report): content, safety, replays.

The documents are synthetic but their games are real: random legal moves played with the
referee's own boards (engine.tournament.games), so that the replays embedded in the page
can be checked against ``positions()``. The browser test opens the page in headless
Chromium (Debian's /usr/bin/chromium through Playwright) and steps through a replay.
"""

import html
import json
import os
import random
import re

import pytest

from engine.games.stake_raid import RAID
from engine.grading.printable import printable
from engine.tournament import report
from engine.tournament.games import LineEmUpRules, StakeRaidRules, positions

HOSTILE_NAME = "eve</script><img src=x onerror=alert(1)>\u2028\x1b[2J"
HOSTILE_DETAIL = ("used 200.4 s of 200 s\n" + "noise line\n" * 2000
                  + "<script>alert(1)</script>\x00\x1b[31mred\u2029</script><!--end")
HOSTILE_MOVE = "</script><!--\u2028 A1 Stake"
BUILD_ERROR = "make agent failed: <b>bold</b>\x00\x1b]0;title\x07 cc: error"
CHROMIUM = "/usr/bin/chromium"


# --- synthetic documents -----------------------------------------------------------------

def random_game(rules, cells, rng, stop_after=None):
    """Random legal moves from ``cells`` until the end (or ``stop_after`` moves):
    (moves as recorded, board)."""
    board = rules.board(cells)
    area = len(board.rows()) ** 2
    candidates = list(range(area))
    if rules is StakeRaidRules:
        candidates += [cell + RAID for cell in range(area)]
    moves = []
    while not board.over and (stop_after is None or len(moves) < stop_after):
        rng.shuffle(candidates)
        action = next(action for action in candidates if board.legal(action))
        side = board.side
        moves.append([side, board.play(action), round(rng.uniform(0, 2), 3)])
    return moves, board


def game_record(rules, number, x, o, size, rng, forfeit=None):
    cells = rules.setup(7, number, size)
    moves, board = random_game(rules, cells, rng, stop_after=3 if forfeit else None)
    if forfeit:
        loser = forfeit["player"]
        result, score = ("o", [0, 0]) if loser == "x" else ("x", [0, 0])
    else:
        result, score = board.winner(), board.scores()
    return {"id": number, "round": 1 + number // 3, "match": 1, "pair": (number + 1) // 2,
            "size": size if rules is StakeRaidRules else str(size), "x": x, "o": o,
            "cells": cells, "moves": moves, "result": result, "score": score,
            "cpu": [round(sum(m[2] for m in moves if m[0] == s), 2) for s in "xo"],
            "forfeit": forfeit}


def entrant(name, points, rating, **extra):
    rated = rating is not None
    base = {"name": name, "path": f"/class/{name}", "kind": "python", "staff": False,
            "build_error": None, "points": points, "games": 4, "wins": 2, "draws": 1,
            "losses": 1, "forfeits": {}, "rating": rating,
            "rating_low": rating - 80 if rated else None,
            "rating_high": rating + 80 if rated else None, "cpu_per_game": 41.3,
            "margin": 12.4, "byes": 0, "placing": None}
    base.update(extra)
    return base


def stake_raid_document(seed=1):
    rng = random.Random(seed)
    names = ["alice", "bob", HOSTILE_NAME]
    games = []
    number = 0
    for x in names:
        for o in names:
            if x != o:
                number += 1
                games.append(game_record(StakeRaidRules, number, x, o, 4 + number % 2, rng))
    number += 1
    games.append(game_record(StakeRaidRules, number, "alice", HOSTILE_NAME, 5, rng, forfeit={
        "player": "o", "reason": "illegal move", "detail": HOSTILE_DETAIL}))
    games[-1]["moves"].append(["o", HOSTILE_MOVE, 0.5])     # recorded, not playable
    return {
        "game": "stake_raid", "format": "knockout", "time": 200, "seed": 7,
        "isolation": "bwrap+cgroup+uid+rlimits", "sizes": [4, 5], "pairs": 1,
        "games_per_match": 2, "rounds": None, "shard": None, "complete": True,
        "entrants": [
            entrant("alice", 3.0, 10.0, placing="finalist"),
            entrant("bob", 3.0, 55.0, staff=True, kind="ours", placing="winner"),
            entrant(HOSTILE_NAME, 1.0, -70.0, forfeits={"illegal move": 1}, placing="round 1"),
            entrant("carol", 0, None, build_error=BUILD_ERROR, games=0),
        ],
        "games": games,
        "pentanomial": [{"a": "alice", "b": "bob", "counts": [0, 1, 0, 0, 0]},
                        {"a": "alice", "b": HOSTILE_NAME, "counts": [0, 0, 1, 0, 1]}],
        "knockout": [{"round": 1, "matches": [{"a": "alice", "b": HOSTILE_NAME,
                                                "winner": "alice", "points": [2, 0],
                                                "margin": 45}], "byes": ["bob"]},
                     {"round": 2, "matches": [{"a": "bob", "b": "alice", "winner": "bob",
                                                "points": [1.5, 0.5], "margin": 12}],
                      "byes": []}],
        "sprt": None,
    }


def line_document(seed=2):
    rng = random.Random(seed)
    size = LineEmUpRules.parse_sizes("5:4:2")[0]
    games = [game_record(LineEmUpRules, number, x, o, size, rng)
             for number, (x, o) in enumerate([("ann", "ben"), ("ben", "ann")] * 2, 1)]
    return {
        "game": "lineemup", "format": "sprt", "time": 60, "seed": 3, "isolation": "rlimits",
        "sizes": ["5:4:2"], "pairs": None, "games_per_match": None, "rounds": None,
        "shard": "2/4", "complete": False,
        "entrants": [entrant("ann", 2, 20.0), entrant("ben", 2, -20.0, staff=True)],
        "games": games, "pentanomial": [], "knockout": [],
        "sprt": {"a": "ann", "b": "ben", "elo0": 0, "elo1": 50, "alpha": 0.05, "beta": 0.05,
                 "llr": 1.2, "lower": -2.94, "upper": 2.94, "decision": None, "pairs": 2},
    }


# --- reading the page back -----------------------------------------------------------------

def replay_data(page):
    """The embedded replay JSON, parsed."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>',
                      page, re.S)
    assert match, "no replay data in the page"
    return json.loads(match.group(1))


def decode_frames(entry):
    """The positions of an embedded replay, as positions() writes them (lists of rows),
    decoded independently of the page's script (the format of the module docstring)."""
    n, cells = entry["n"], list(entry["b"])
    frames = [entry["b"]]
    for delta in entry["d"]:
        assert len(delta) % 3 == 0 and delta
        for k in range(0, len(delta), 3):
            cells[int(delta[k + 1:k + 3], 36)] = delta[k]
        frames.append("".join(cells))
    return [[frame[r * n:(r + 1) * n] for r in range(n)] for frame in frames]


def shown(text):
    """How an untrusted string is shown on the page."""
    return html.escape(printable(text))


@pytest.fixture(scope="module")
def stake():
    document = stake_raid_document()
    return document, report.render(document)


@pytest.fixture(scope="module")
def line():
    document = line_document()
    return document, report.render(document)


# --- content ----------------------------------------------------------------------------------

def test_every_entrant_appears_and_the_header_says_what_ran(stake):
    document, page = stake
    for entry in document["entrants"]:
        assert shown(entry["name"]) in page
    assert "Stake/Raid tournament" in page
    assert "200 s of CPU per player per game" in page
    assert "bwrap+cgroup+uid+rlimits" in page
    assert "4×4, 5×5" in page
    assert "complete</span>: 7 games" in page
    assert '<span class="badge">staff</span>' in page
    assert "Eliminated: the build failed or went over a cap" in page
    assert shown("make agent failed") in page
    assert "This section could not be drawn" not in page


def test_standings_go_by_points_then_rating_with_a_bar_each(stake):
    document, page = stake
    table = page.split('<table class="standings">')[1].split("</table>")[0]
    rows = table.split("<tr data-entrant>")[1:]
    order = [next(name for name in ("alice", "bob", "eve") if name in row) for row in rows]
    assert order == ["bob", "alice", "eve"]        # bob and alice tie on points
    assert table.count('<svg class="rbar"') == 3
    assert "carol" not in table                    # eliminated, listed apart
    assert "illegal move 1" in rows[2]


def test_crosstable_counts_the_games_played(stake):
    document, page = stake
    table = page.split('<table class="cross">')[1].split("</table>")[0]
    names = [entry["name"] for entry in document["entrants"][:3]]
    expected = {}
    for record in document["games"]:
        got = {"x": 1.0, "o": 0.0, "draw": 0.5}[record["result"]]
        key = (record["x"], record["o"])
        points, count = expected.get(key, (0.0, 0))
        expected[key] = (points + got, count + 1)
        back = (record["o"], record["x"])
        points, count = expected.get(back, (0.0, 0))
        expected[back] = (points + 1 - got, count + 1)
    rows = table.split("<tbody>")[1].split("<tr>")[1:]
    ordered = ["bob", "alice", HOSTILE_NAME]
    assert set(ordered) == set(names)
    for row_name, row in zip(ordered, rows):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert len(cells) == len(ordered)
        for column_name, cell in zip(ordered, cells):
            if row_name == column_name:
                assert cell == ""
                continue
            points, count = expected[row_name, column_name]
            assert cell == f"{report._plain(points)}<small> ({count})</small>"


def test_knockout_pentanomial_and_forfeits_are_shown(stake):
    document, page = stake
    bracket = page.split('<section id="knockout">')[1].split("</section>")[0]
    assert "Round 1" in bracket and "Final" in bracket and "bye: bob" in bracket
    assert "margin 45" in bracket and "✓ alice" in bracket
    pairs = page.split('<section id="pentanomial">')[1].split("</section>")[0]
    assert "75%" in pairs       # counts [0, 0, 1, 0, 1]: 3 points of 4
    forfeits = page.split('<section id="forfeits">')[1].split("</section>")[0]
    assert "illegal move" in forfeits and 'href="#game-6"' in forfeits
    # The end of a huge stderr is shown, its start is not, and the cut is said.
    assert "earlier characters not shown" in forfeits
    assert shown("red") in forfeits and "used 200.4 s" not in forfeits
    assert forfeits.count("noise line") < 450


def test_an_incomplete_run_and_sprt_are_reported(line):
    document, page = line
    assert "Line &#x27;em Up tournament" in page
    assert "incomplete: 4 games played so far" in page
    assert "5×5, 4 in a row, 2 blocs" in page
    assert "LLR <b>1.20</b>" in page and "no decision yet" in page and "shard" in page


# --- safety -----------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["stake", "line"])
def test_hostile_strings_never_appear_raw(which, request):
    document, page = request.getfixturevalue(which)
    for raw in ("<script>alert", "<img", "<b>bold", "<!--", "\u2028", "\u2029", "\x1b",
                "\x00", "\x07"):
        assert raw not in page, raw
    # Exactly our two script elements: the replay data and the code.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "\\x1b[2J" in page or which == "line"          # shown, not obeyed


def test_the_page_fetches_nothing(stake, line):
    for _, page in (stake, line):
        assert re.findall(r"https?://[^\s\"'<>]*", page) in ([], ["http://www.w3.org/2000/svg"])
        assert not re.search(r"\b(src|srcset|action|formaction)\s*=", page.replace(
            shown(HOSTILE_NAME), ""))
        assert all(href.startswith("#") for href in re.findall(r'href="([^"]*)"', page))
        assert "default-src 'none'" in page


def test_data_in_the_script_is_escaped():
    text = report._script_json({"m": ["</script><!--\u2028\u2029&"]})
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"m": ["</script><!--\u2028\u2029&"]}


# --- replays ----------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["stake", "line"])
def test_embedded_frames_are_the_rules_positions(which, request):
    document, page = request.getfixturevalue(which)
    data = replay_data(page)
    assert data["game"] == document["game"]
    assert data["base"] == (1 if which == "stake" else 0)
    assert len(data["games"]) == len(document["games"])
    for record, entry in zip(document["games"], data["games"]):
        moves = record["moves"]
        frames = positions(document["game"], record["cells"], moves)
        legal = len(moves) - (moves[-1][1] == HOSTILE_MOVE)      # the others are legal
        assert len(frames) == legal + 1
        assert decode_frames(entry) == frames
        assert entry["m"] == [printable(move[1]) for move in moves]
        assert entry["t"] == [move[2] for move in moves]
        assert entry["s"] == "".join(move[0] for move in moves)
        assert ("e" in entry) == (legal < len(moves))
        assert ("v" in entry) == (which == "stake")
        if which == "stake":
            assert entry["v"] == record["cells"]
    if which == "line":
        assert any("*" in "".join(rows) for rows in decode_frames(data["games"][0]))


def test_a_replay_stops_where_the_rules_do():
    document = stake_raid_document()
    record = document["games"][0]
    record["moves"] = record["moves"][:3] + [["x", "Z99 Stake", 0.1], ["o", "A1 Stake", 0.2]]
    entry = replay_data(report.render(document))["games"][0]
    assert len(entry["d"]) == 3 and len(entry["m"]) == 4      # the unplayable one is listed
    assert "stops at move 4" in entry["e"]


# --- malformed documents ----------------------------------------------------------------------

def malformed_documents():
    good = stake_raid_document()
    garbage = json.loads(json.dumps(good))
    garbage["games"][0]["moves"] = "garbage"
    garbage["games"][1]["moves"] = [[1], "x", None, ["x"]]
    garbage["games"][2]["cells"] = None
    garbage["games"][2]["result"] = ["x"]
    garbage["games"][3]["x"] = {"name": 1}
    garbage["games"][3]["round"] = 10 ** 400
    garbage["games"][3]["cpu"] = [10 ** 400, float("inf")]
    garbage["games"][3]["cells"] = [1, 2, 3]
    garbage["games"][4] = "not a record"
    garbage["games"][5] = {}
    garbage["games"][6]["forfeit"] = {"player": 3, "detail": {"x": 1}}
    garbage["games"][0]["score"] = "high"
    garbage["games"][1]["cpu"] = [None, "x"]
    garbage["entrants"][0].update(points="a lot", rating="high", forfeits=["timeout"],
                                  name=None, path=["x"])
    garbage["entrants"][1] = "bob"
    garbage["entrants"].append({})
    garbage["pentanomial"] = [{"a": 1, "counts": "many"}, 7, {"counts": [1, 2]}]
    garbage["knockout"] = [{"round": None, "matches": [7, {"points": "x"}]}, "r", {}]
    garbage["sprt"] = {"llr": "x", "decision": "maybe"}
    garbage["sizes"] = "5,6"
    line = line_document()
    line["games"][0]["cells"] = {"n": 5, "s": 4, "blocs": ["Z9"], "opening": []}
    line["games"][1]["cells"] = {"n": 50, "s": 4, "blocs": []}
    line["games"][2]["moves"] = [["x", "A0", "slow"], ["o", 12, None], "stop"]
    line["games"][3]["cells"] = {"n": 5, "s": 4, "blocs": [], "opening": ["A0", "A0x"]}
    unknown = stake_raid_document()
    unknown["game"] = "chess"
    return [None, [], {}, "text", {"game": "stake_raid", "games": None, "entrants": 3},
            {"complete": "yes", "time": float("nan"), "games": [None, 1, "x"]},
            garbage, line, unknown]


@pytest.mark.parametrize("document", malformed_documents())
def test_a_malformed_document_still_renders(document):
    page = report.render(document)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # Read defensively, not rescued by the section guard.
    assert "This section could not be drawn" not in page
    data = replay_data(page)
    games = document.get("games") if isinstance(document, dict) else None
    assert len(data["games"]) == (len(games) if isinstance(games, list) else 0)


def test_the_section_guard_keeps_the_rest_of_the_page(monkeypatch):
    def broken(view):
        raise RuntimeError("<b>boom</b>")
    monkeypatch.setattr(report, "_crosstable", broken)
    page = report.render(stake_raid_document())
    assert "This section could not be drawn" in page and "<b>boom" not in page
    assert '<section id="games">' in page


# A 4 s page of thousands of games; the report's every part is drawn daily above.
@pytest.mark.slow
def test_a_big_tournament_stays_small():
    """Replays are embedded compactly: 200 games of sizes 5..10 cost under 2.5 KB each
    (a 2,000-game tournament under 5 MB)."""
    rng = random.Random(5)
    document = stake_raid_document()
    document["games"] = [game_record(StakeRaidRules, number, "alice", "bob",
                                     (5, 6, 8, 10)[number % 4], rng)
                         for number in range(200)]
    page = report.render(document)
    assert len(page.encode("utf-8")) < 200 * 2500
    assert len(replay_data(page)["games"]) == 200


# --- in a browser -----------------------------------------------------------------------------

def browser_page(playwright, path):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    # Chromium refuses its own sandbox to root (containers, CI).
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    errors = []
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    dialogs = []       # an alert() would mean a hostile string ran
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri())
    return browser, page, errors, dialogs


def board_marks(page):
    return page.eval_on_selector_all(
        "#board .cell", "cells => cells.map(c => [c.dataset.cell, c.dataset.mark])")


def expected_marks(rows, base):
    return [[chr(ord("A") + c) + str(r + base), mark]
            for r, row in enumerate(rows) for c, mark in enumerate(row)]


@pytest.mark.browser
@pytest.mark.parametrize("which", ["stake", "line"])
def test_the_page_replays_games_in_a_browser(which, request, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    document, text = request.getfixturevalue(which)
    path = tmp_path / "report.html"
    path.write_text(text, encoding="utf-8")
    base = 1 if which == "stake" else 0
    index = 1
    record = document["games"][index]
    frames = positions(document["game"], record["cells"], record["moves"])
    with sync_api.sync_playwright() as playwright:
        browser, page, errors, dialogs = browser_page(playwright, path)
        try:
            ranked = [e for e in document["entrants"] if not e.get("build_error")]
            assert page.locator("svg.rbar").count() == len(ranked)
            assert page.locator("#viewer").is_hidden()
            page.click(f"#game-{index} button.play")
            assert page.locator("#viewer").is_visible()
            for number, rows in enumerate(frames):
                assert page.get_attribute("#board", "data-frame") == str(number)
                assert board_marks(page) == expected_marks(rows, base)
                if number:
                    current = page.locator("#moves li.cur")
                    assert current.count() == 1
                    assert current.get_attribute("data-move") == str(number)
                    assert printable(record["moves"][number - 1][1]) in current.inner_text()
                if number < len(frames) - 1:
                    page.click('[data-go="next"]')
            assert page.locator('[data-go="next"]').is_disabled()
            page.click('[data-go="first"]')
            assert board_marks(page) == expected_marks(frames[0], base)
            page.keyboard.press("End")
            assert board_marks(page) == expected_marks(frames[-1], base)
            if which == "stake":
                x, o = record["score"]
                assert page.inner_text("#replay-score") == f"X {x} · O {o}"
                page.set_viewport_size({"width": 1360, "height": 1500})
                page.screenshot(path="/tmp/tournament_report.png", full_page=True)
            if which == "stake":     # a link from the forfeits opens that game
                page.click('#forfeits a[href="#game-6"]')
                page.wait_for_selector("#game-6.open")
                assert page.get_attribute("#board", "data-frame") == "0"
                assert "Game 7" in page.inner_text("#replay-title")
                # The illegal move is listed as text, marked as not replayed.
                last = page.locator("#moves li").last
                assert "bad" in last.get_attribute("class")
                assert printable(HOSTILE_MOVE) in last.inner_text()
            else:
                assert page.locator('#board .cell[data-mark="*"]').count() == 2
                assert page.locator('#board .cell[data-cell="A0"]').count() == 1
            assert errors == [] and dialogs == []
        finally:
            browser.close()


@pytest.mark.browser
def test_malformed_replays_open_without_errors_in_a_browser(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    documents = [d for d in malformed_documents()
                 if isinstance(d, dict) and len(_games_of(d)) > 3]
    assert len(documents) == 3
    with sync_api.sync_playwright() as playwright:
        for number, document in enumerate(documents):
            path = tmp_path / f"report{number}.html"
            path.write_text(report.render(document), encoding="utf-8")
            browser, page, errors, dialogs = browser_page(playwright, path)
            try:
                buttons = page.locator("#game-rows button.play")
                assert buttons.count() > 0
                for index in range(buttons.count()):
                    buttons.nth(index).click()
                    page.keyboard.press("End")
                    page.keyboard.press("ArrowLeft")
                    frames = int(page.get_attribute("#board", "data-frame") or 0)
                    assert frames >= 0
                assert errors == [] and dialogs == []
            finally:
                browser.close()


def _games_of(document):
    games = document.get("games")
    return games if isinstance(games, list) else []
