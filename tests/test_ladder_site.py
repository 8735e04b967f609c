"""The ladder's pages as a student uses them, through Starlette's test client (no
browser, no worker process: games are played through the workers' API with legal
records): POST-redirect-GET after an upload, refusals that are pages naming the limit,
the game page, /me's versions, games, rating history and forms, the files the pages
load, and the strict policy (no inline script or style)."""

import html
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
pytest.importorskip("httpx")

from golden import REPO  # noqa: E402
from ladder_helpers import AGENTS, zip_bytes  # noqa: E402
from ladder_site_helpers import Site, csrf_of  # noqa: E402

from engine.ladder import pages  # noqa: E402
from engine.ladder.store.schema import RatingPoint  # noqa: E402
from engine.tournament import report  # noqa: E402


@pytest.fixture
def site(tmp_path):
    made = Site(tmp_path, ["ann", "ben", "eve"], uploads_per_minute=3)
    yield made
    made.close()


def upload_form(site, csrf, files, **headers):
    return site.client.post("/me/upload", data={"csrf": csrf}, files={
        "file": ("agent.zip", zip_bytes(files), "application/zip")},
        follow_redirects=False, headers=headers)


def message(page):
    found = re.search(r'id="message">(.*?)</p>', page.text, re.S)
    return html.unescape(found.group(1)) if found else None


def played_ladder(site):
    """ann, ben and eve uploaded and built (eve forfeits with a hostile stderr), eight
    games played; the ids of the games."""
    for name in ("ann", "ben", "eve"):
        site.upload(name, AGENTS[name])
    site.build_all()
    return site.play(8, forfeit_by="eve")


# --- uploads from /me ----------------------------------------------------------------------

def test_an_upload_redirects_so_that_a_refresh_never_uploads_again(site):
    csrf = site.log_in("ann")
    answer = upload_form(site, csrf, AGENTS["ann"])
    assert answer.status_code == 303
    location = answer.headers["location"]
    mine = int(re.fullmatch(r"/me\?submitted=(\d+)", location).group(1))
    for _ in range(3):                  # the page after the redirect, refreshed twice
        page = site.client.get(location)
        assert page.status_code == 200
        assert message(page) == (f"Submission {mine} received: it is built and placed "
                                 "within minutes.")
    assert [view["id"] for view in site.store.submissions.of_player(
        site.store.accounts.player_named("ann").id)] == [mine]
    # The same files again within a minute: acknowledged by their submission.
    again = upload_form(site, csrf, {"folder/homework.py": AGENTS["ann"]["homework.py"]})
    assert again.headers["location"] == f"/me?again={mine}"
    assert message(site.client.get(again.headers["location"])).startswith(
        f"The same files as submission {mine}, uploaded a moment ago")
    assert len(site.store.submissions.of_player(
        site.store.accounts.player_named("ann").id)) == 1


def test_an_upload_past_the_cap_is_a_page_naming_the_limit(tmp_path):
    site = Site(tmp_path, ["ann"], upload_mb=1)
    try:
        csrf = site.log_in("ann")
        boundary = "b0undary"
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n'
                f'{csrf}\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                'filename="a.zip"\r\nContent-Type: application/zip\r\n\r\n').encode()

        def chunks():                   # streamed without a length: cut as it arrives
            yield head
            for _ in range(24):
                yield bytes(64 * 1024)
            yield f"\r\n--{boundary}--\r\n".encode()
        page = site.client.post("/me/upload", content=chunks(), headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert page.status_code == 413
        assert page.headers["content-type"].startswith("text/html")
        assert message(page) == "Upload refused: the archive is larger than 1 MB."
        assert 'id="upload"' in page.text           # the form, to try again
        assert site.store.submissions.of_player(
            site.store.accounts.player_named("ann").id) == []
    finally:
        site.close()


def test_too_many_uploads_is_a_page_naming_the_limit(site):
    csrf = site.log_in("ann")
    for index in range(3):
        files = {"homework.py": AGENTS["ann"]["homework.py"] + f"# {index}\n"}
        assert upload_form(site, csrf, files).status_code == 303
    page = upload_form(site, csrf, AGENTS["ben"])
    assert page.status_code == 429
    assert message(page) == "Upload refused: at most 3 uploads a minute; wait a minute."


def test_a_frozen_ladder_shows_when_uploads_closed_instead_of_the_form(site):
    csrf = site.log_in("ann")
    assert 'id="upload"' in site.client.get("/me").text
    closed = time.time() - 90
    site.store.set_freeze(closed)
    words = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(closed))
    page = site.client.get("/me")
    assert 'id="upload"' not in page.text
    notice = re.search(r'id="frozen">(.*?)</p>', page.text, re.S).group(1)
    assert f"Uploads closed at {words}" in " ".join(notice.split())
    refused = upload_form(site, csrf, AGENTS["ann"])
    assert refused.status_code == 403
    assert words in message(refused) and "frozen" in message(refused)


def test_a_challenge_from_me_redirects_with_its_pair(site):
    played_ladder(site)
    csrf = site.log_in("ann")
    page = site.client.get("/me")
    assert 'action="/me/challenge"' in page.text
    assert '<option value="ben">' in page.text and '<option value="ann">' not in page.text
    answer = site.client.post("/me/challenge", data={"csrf": csrf, "opponent": "ben"},
                              follow_redirects=False)
    assert answer.status_code == 303
    pair = int(re.fullmatch(r"/me\?challenged=(\d+)", answer.headers["location"]).group(1))
    assert message(site.client.get(answer.headers["location"])) == (
        f"Challenge sent: pair {pair} is queued.")
    refused = site.client.post("/me/challenge", data={"csrf": csrf, "opponent": "nobody"})
    assert refused.status_code == 409
    assert message(refused) == "Challenge refused: no other player named 'nobody'."
    forged = site.client.post("/me/challenge", data={"csrf": "forged", "opponent": "ben"})
    assert forged.status_code == 403


# --- the game page -------------------------------------------------------------------------

def test_the_game_page_is_the_board_and_its_players_not_a_tournament(site):
    games = played_ladder(site)
    forfeited = next(gid for gid in games if site.store.games.record(gid)["forfeit"])
    record = site.store.games.record(forfeited)
    players = site.store.games.players_of(forfeited)
    ratings = site.store.standings.snapshot().by_submission
    page = site.client.get(f"/games/{forfeited}")
    assert page.status_code == 200
    text = page.text
    for gone in ("entrants", "Standings", "No entrant played", "Crosstable"):
        assert gone not in text
    # The players, each with the submission that played and its rating.
    for side in ("x", "o"):
        card = re.search(rf'id="player-{side}">(.*?)</div>', text, re.S).group(1)
        assert players[side]["player"] in card
        assert f"submission {players[side]['submission']}" in card
        rating = ratings[players[side]["submission"]][0]
        assert pages.rating_text(ratings[players[side]["submission"]]) in card
        assert f"{round(rating):+d}".replace("-", "−") in card
    # The result and its public reason category, never the forfeit's detail.
    loser = record["forfeit"]["player"]
    winner = players["o" if loser == "x" else "x"]["player"]
    result = html.unescape(re.search(r'id="result">(.*?)</p>', text, re.S).group(1))
    assert result == (f"{winner} ({'O' if loser == 'x' else 'X'}) won "
                      f"{'0–1' if loser == 'x' else '1–0'} · {loser.upper()} forfeited: "
                      "no output")
    assert "alert" not in text and "onerror" not in text
    # The board comes first: the players, the result, then the board, opened as the
    # page loads (its row marked), with the replay of this one game.
    assert text.index('id="player-x"') < text.index('id="result"') < text.index(
        'id="board"')
    assert re.search(r'<tr data-open id="game-0"', text)
    data = re.search(r'id="replay-data">(.*?)</script>', text).group(1)
    assert '"games":[' in data and data.count('"n":') == 1
    assert '<script src="/static/replay.js"></script>' in text


def test_a_game_that_was_not_played_is_a_page(site):
    page = site.client.get("/games/4242")
    assert page.status_code == 404
    assert "<h1>No such game</h1>" in page.text


def test_the_game_page_shows_a_draw_and_a_challenge_as_such(site):
    record = {"id": 7, "size": 4, "cells": [1] * 16, "moves": [], "result": "draw",
              "score": [0, 0], "kind": "challenge", "rated": False, "forfeit": None}
    players = {side: {"player": name, "submission": number, "staff": False,
                       "rating": None} for side, name, number in (("x", "ann", 3),
                                                                  ("o", "ben", 4))}
    text = pages.game(site.store.rules, site.settings, record, players)
    assert "a challenge, not rated" in text
    assert "a draw, ½–½</p>" in text
    assert text.count("not rated") == 3         # the game, and each player's rating


# --- /me -------------------------------------------------------------------------------------

def test_me_shows_each_version_with_its_games_rating_and_private_details(site):
    games = played_ladder(site)
    eve = site.store.accounts.player_named("eve").id
    first = site.store.submissions.current_of(eve)
    site.upload("eve", {"homework.py": "this is not python\n"})
    site.build_all(failing={"eve": "make agent failed: <b>SyntaxError</b>\x1b[31m"})
    site.log_in("eve")
    text = site.client.get("/me").text
    sections = dict(re.findall(r'<section class="version[^"]*"\s+id="submission-(\d+)">'
                               r"(.*?)</section>", text, re.S))
    assert len(sections) == 2
    failed = next(int(sid) for sid in sections if int(sid) != first)
    # The version that plays (the first: the second failed) is marked, with its rating
    # and the games it played; the failed one shows its build log, escaped.
    playing = sections[str(first)]
    assert "playing now" in playing and "playing now" not in sections[str(failed)]
    rating = site.store.standings.snapshot().by_submission[first]
    assert f"rating {html.escape(pages.rating_text(rating))}" in playing
    mine = [gid for gid in games if first in {side["submission"] for side in
                                              site.store.games.players_of(gid).values()}]
    listed = [int(gid) for gid in re.findall(r'<td class="n"><a href="/games/(\d+)">',
                                             playing)]
    assert sorted(listed) == sorted(mine) and mine
    assert "lost" in playing and "forfeited: no output" in playing
    assert "make agent failed: &lt;b&gt;SyntaxError&lt;/b&gt;\\x1b[31m" in sections[str(failed)]
    # Her forfeits' details are hers: the hostile stderr, escaped, on her page only.
    assert html.escape("<script>alert(1)</script>") in playing
    assert "<script>alert" not in text and "\x1b" not in text
    site.log_in("ann")
    assert "alert(1)" not in site.client.get("/me").text


def test_me_draws_the_rating_history_without_a_script(site):
    site.upload("ann", AGENTS["ann"])
    site.build_all()
    ann = site.store.accounts.player_named("ann").id
    first = site.store.submissions.current_of(ann)
    site.log_in("ann")
    assert 'id="no-history"' in site.client.get("/me").text
    points = [(first, 2, -40.0), (first, 4, 12.0), (first + 100, 2, 30.0)]
    with site.store.session.begin() as db:
        for index, (submission, games, rating) in enumerate(points):
            db.add(RatingPoint(player_id=ann, submission_id=submission, at=1000.0 + index,
                               games=games, rating=rating, low=rating - 50,
                               high=rating + 50))
    text = site.client.get("/me").text
    chart = re.search(r'<svg class="history".*?</svg>', text, re.S).group(0)
    # One line per submission; x is the games played by then over all versions (the
    # second version's 2 games come after the first one's 4).
    drawn = re.findall(r'data-series="submission (\d+)" data-x="(\d+)" data-y="([-\d.]+)"',
                       chart)
    assert drawn == [(str(first), "2", "-40.0"), (str(first), "4", "12.0"),
                     (str(first + 100), "6", "30.0")]
    assert chart.count("<polyline") == 1        # a line needs two points
    assert "<style" not in chart and "<script" not in text.split("</main>")[0]


# --- what every page shares ---------------------------------------------------------------

def test_every_page_is_under_the_strict_policy_with_no_inline_script_or_style(site):
    games = played_ladder(site)
    site.store.standings.refresh()
    public = [site.client.get("/"), site.client.get(f"/games/{games[0]}"),
              site.client.get("/games/999"), site.client.get("/me")]
    site.log_in("eve")
    for page in public + [site.client.get("/me")]:
        assert page.headers["content-security-policy"] == pages.CSP
        assert "script-src 'self';" in pages.CSP and "style-src 'self';" in pages.CSP
        assert "unsafe-inline" not in pages.CSP
        assert "<style" not in page.text and " style=" not in page.text
        for script in re.findall(r"<script([^>]*)>", page.text):
            assert ' src="/static/' in script or 'type="application/json"' in script


def test_the_static_files_are_served_and_shipped(site):
    for name, kind in pages.STATIC_FILES.items():
        answer = site.client.get(f"/static/{name}")
        assert answer.status_code == 200, name
        assert answer.headers["content-type"].split(";")[0] == kind
    assert site.client.get("/static/replay.js").text == report.SCRIPT
    assert site.client.get("/static/replay.css").text == report.BOARD_STYLE
    assert site.client.get("/favicon.ico").content.startswith(b"<svg")
    for name in ("nope.js", "..%2fpages.py", "%2e%2e%2fpages.py"):
        assert site.client.get(f"/static/{name}").status_code == 404
    # `pip install .` ships every template and static file: pyproject's package-data
    # for engine.ladder names a pattern each one matches.
    text = (REPO / "pyproject.toml").read_text()
    listed = re.search(r'"engine\.ladder" = \[(.*?)\]', text, re.S).group(1)
    patterns = re.findall(r'"([^"]+)"', listed)
    ladder = REPO / "engine" / "ladder"
    files = sorted(ladder.glob("templates/*")) + sorted(ladder.glob("static/*"))
    assert len(files) >= 9
    for path in files:
        relative = path.relative_to(ladder)
        assert any(relative.match(pattern) for pattern in patterns), relative


def test_the_error_page_says_the_words_escaped(site):
    text = pages.error("Stake/Raid", "Too large", "the archive is larger than 8 MB <b>")
    assert "<h1>Too large</h1>" in text
    assert "the archive is larger than 8 MB &lt;b&gt;" in text
    assert '<link rel="stylesheet" href="/static/ladder.css">' in text


def test_no_string_constant_of_the_pages_is_over_40_lines():
    import ast
    for path in (REPO / "engine" / "ladder" / "pages.py", REPO / "engine" / "ladder" /
                 "web" / "site.py"):
        for node in ast.walk(ast.parse(Path(path).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value.count("\n") <= 40, (path.name, node.lineno)


def test_the_login_page_escapes_and_keeps_its_form(site):
    page = site.client.get("/me")
    assert 'action="/login"' in page.text and csrf_of(page.text)
    wrong = site.client.post("/login", data={"csrf": csrf_of(page.text), "token": "nope"})
    assert wrong.status_code == 403
    assert message(wrong) == "That token is not one of this ladder's."
