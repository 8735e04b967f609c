"""One game's replay board for a page of its own (report.game_board, which the ladder's
game page shows), and the tournament page's script that serves both: the board opens as
such a page loads, while the tournament page still opens nothing by itself and its
filter box still filters (the script no longer needs the box)."""

import os
import random

import pytest

from engine.tournament import report
from engine.tournament.games import StakeRaidRules

CHROMIUM = "/usr/bin/chromium"


def played(rng, game_id, x, o, size):
    """A record of random legal Stake moves (the referee's board) on a ``size`` board."""
    cells = StakeRaidRules.setup(1, game_id, size)
    board = StakeRaidRules.board(cells)
    moves = []
    while not board.over:
        action = rng.choice(sorted(a for a in range(size * size) if board.legal(a)))
        moves.append([board.side, board.play(action), 0.5])
    return {"id": game_id, "round": 1, "x": x, "o": o, "size": size, "cells": cells,
            "moves": moves, "result": board.winner(), "score": board.scores(),
            "cpu": [1.0, 1.0], "forfeit": None}


@pytest.fixture
def document():
    rng = random.Random(7)
    games = [played(rng, 1, "ann", "ben", 4), played(rng, 2, "ben", "cat", 5),
             played(rng, 3, "cat", "ann", 4)]
    return {"game": "stake_raid", "format": "round-robin", "time": 1, "seed": 1,
            "sizes": [4, 5], "complete": True, "games": games,
            "entrants": [{"name": name, "points": 1} for name in ("ann", "ben", "cat")]}


def test_game_board_holds_one_game_opened_and_escaped(document):
    document["games"][1]["x"] = "<b>ben</b>\x1b"
    board = report.game_board(document, 1)
    assert board.count('<tr data-open id="game-0"') == 1 and "game-1" not in board
    assert "&lt;b&gt;ben&lt;/b&gt;\\x1b" in board and "<b>ben" not in board
    assert '"games":[{' in board and board.count('"n":5') == 1
    assert "Standings" not in board and "entrants" not in board
    assert "No such game." in report.game_board(document, 9)
    # The tournament's page marks no row open: it opens a game only when asked.
    assert "<tr data-open" not in report.render(document)


def browser_page(playwright, path):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    return browser, page, errors


@pytest.mark.browser
def test_the_board_of_one_game_opens_as_its_page_loads(document, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "game.html"
    path.write_text("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>:root{--x:#24406e;"
                    f"--o:#e9a23b;--line:#ddd;--muted:#666}}{report.BOARD_STYLE}</style></head>"
                    f"<body>{report.game_board(document, 1)}<script>{report.SCRIPT}</script>"
                    "</body></html>", encoding="utf-8")
    record = document["games"][1]
    with sync_api.sync_playwright() as playwright:
        browser, page, errors = browser_page(playwright, path)
        try:
            assert page.locator("#viewer").is_visible()
            assert page.locator("#board .cell").count() == 25
            assert page.get_attribute("#board", "data-frame") == "0"
            page.keyboard.press("End")
            assert page.get_attribute("#board", "data-frame") == str(len(record["moves"]))
            page.click('[data-go="close"]')
            assert page.locator("#viewer").is_hidden()
            page.click("#game-0 button.play")          # the row reopens it
            assert page.locator("#viewer").is_visible()
            assert errors == []
        finally:
            browser.close()


@pytest.mark.browser
def test_the_tournament_page_opens_nothing_and_its_filter_filters(document, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "report.html"
    path.write_text(report.render(document), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser, page, errors = browser_page(playwright, path)
        try:
            assert page.locator("#viewer").is_hidden()
            page.fill("#game-filter", "cat")
            shown = [row for row in ("#game-0", "#game-1", "#game-2")
                     if page.locator(row).is_visible()]
            assert shown == ["#game-1", "#game-2"]
            page.fill("#game-filter", "")
            assert page.locator("#game-0").is_visible()
            assert errors == []
        finally:
            browser.close()
