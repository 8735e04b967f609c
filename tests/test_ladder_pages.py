"""The ladder's pages in Chromium (Debian's /usr/bin/chromium, through Playwright; never
a downloaded browser), as students use them.

Most tests serve the application in this process (uvicorn on a thread) over a ladder
whose games were played through the workers' API with legal records: an upload from
/me and a reload, a too-large upload, the game page (its board above the fold at
1280x800, stepping), /me's versions, chart and challenge form, a phone's width, the
leaderboard updating itself. The last test runs a real server with workers and
sandboxed agents end to end. No page may log a console error (a refused inline script
or style shows as one) or open a dialog (an injected script that ran)."""

import os
import re
import shutil

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

from ladder_helpers import AGENTS, Ladder, zip_bytes  # noqa: E402
from ladder_site_helpers import Site  # noqa: E402

from engine.ladder.store.schema import RatingPoint  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                 reason=f"no Chromium at {CHROMIUM}")]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        # Chromium refuses its own sandbox to root (containers, CI).
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        yield launched
        launched.close()


class Watched:
    """A page whose console errors and dialogs are collected (``problems``)."""

    def __init__(self, browser, width=1280, height=800):
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.problems = []
        self.page.on("console", lambda m: self.problems.append(m.text)
                     if m.type == "error" and "status of 4" not in m.text else None)
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.on("dialog", lambda d: (self.problems.append(d.message), d.dismiss()))

    def close(self):
        self.context.close()


@pytest.fixture
def watched(browser):
    made = []

    def open_page(width=1280, height=800):
        made.append(Watched(browser, width, height))
        return made[-1]
    yield open_page
    for one in made:
        assert one.problems == []
        one.close()


@pytest.fixture
def site(tmp_path):
    made = Site(tmp_path, ["ann", "ben", "eve"], sizes="10,4")
    made.url = made.serve()
    yield made
    made.close()


def played(site):
    for name in ("ann", "ben", "eve"):
        site.upload(name, AGENTS[name])
    site.build_all()
    return site.play(8, forfeit_by="eve")


def log_in(page, url, token):
    page.goto(url + "/me")
    page.fill('input[name="token"]', token)
    page.click('form.login button[type="submit"]')
    page.wait_for_selector("h1")


def submissions_of(site, name):
    return site.store.submissions.of_player(site.store.accounts.player_named(name).id)


# --- uploads -------------------------------------------------------------------------------

def test_a_reload_after_an_upload_from_me_does_not_upload_again(site, watched, tmp_path):
    archive = tmp_path / "ann.zip"
    archive.write_bytes(zip_bytes(AGENTS["ann"]))
    page = watched().page
    log_in(page, site.url, site.tokens["ann"])
    page.set_input_files('#upload input[type="file"]', str(archive))
    page.click('#upload button[type="submit"]')
    page.wait_for_selector("#message")
    mine = submissions_of(site, "ann")[0]["id"]
    assert page.url == f"{site.url}/me?submitted={mine}"
    for _ in range(2):
        page.reload()
        assert page.inner_text("#message") == (f"Submission {mine} received: it is built "
                                               "and placed within minutes.")
        assert page.locator("section.version").count() == 1
    assert len(submissions_of(site, "ann")) == 1


# A browser sends the form's length first, so the body cap's middleware
# (engine.ladder.web.guard.protect, given pages.error) answers before the handler: a page.
def test_a_too_large_upload_from_me_is_a_page_naming_the_limit(tmp_path, watched):
    site = Site(tmp_path, ["ann"], upload_mb=1)
    try:
        url = site.serve()
        archive = tmp_path / "big.zip"
        archive.write_bytes(os.urandom(1024 * 1024 + 200_000))
        page = watched().page
        log_in(page, url, site.tokens["ann"])
        page.set_input_files('#upload input[type="file"]', str(archive))
        with page.expect_navigation():
            page.click('#upload button[type="submit"]')
        page.wait_for_selector("#message")
        assert "the archive is larger than 1 MB" in page.inner_text("#message")
        assert page.locator("header .brand").inner_text() == "Stake/Raid ladder"
        assert submissions_of(site, "ann") == []
    finally:
        site.close()


# --- the game page -------------------------------------------------------------------------

def test_the_game_page_shows_the_board_above_the_fold_and_steps(site, watched):
    games = played(site)
    records = {gid: site.store.games.record(gid) for gid in games}
    big = next(gid for gid, record in records.items()
               if record["size"] == 10 and record["moves"])
    page = watched(1280, 800).page
    page.goto(f"{site.url}/games/{big}")
    page.wait_for_selector("#viewer:not([hidden])")
    box = page.locator("#board").bounding_box()
    assert box["y"] > 0 and box["y"] + box["height"] <= 800, box
    assert page.locator("#player-x").bounding_box()["y"] < box["y"]
    assert page.get_attribute("#board", "data-frame") == "0"
    assert page.locator("#board .cell").count() == 100
    page.click('[data-go="next"]')
    assert page.get_attribute("#board", "data-frame") == "1"
    page.keyboard.press("End")
    assert page.get_attribute("#board", "data-frame") == str(len(records[big]["moves"]))
    page.screenshot(path="/tmp/ladder_game.png")
    # A forfeit: the reason category, and nothing of what the program printed.
    lost = next(gid for gid, record in records.items() if record["forfeit"])
    page.goto(f"{site.url}/games/{lost}")
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.inner_text("#result").endswith("forfeited: no output")
    assert "alert" not in page.content()


# --- /me -----------------------------------------------------------------------------------

def test_me_shows_versions_their_games_a_chart_and_sends_a_challenge(site, watched):
    played(site)
    eve = site.store.accounts.player_named("eve").id
    first = site.store.submissions.current_of(eve)
    site.upload("eve", {"homework.py": "oops(\n"})
    site.build_all(failing={"eve": "make agent failed: <b>SyntaxError</b>"})
    with site.store.session.begin() as db:
        db.query(RatingPoint).delete()
        for index, (games, rating) in enumerate([(2, -80.0), (4, -120.0), (6, -150.0)]):
            db.add(RatingPoint(player_id=eve, submission_id=first, at=1000.0 + index,
                               games=games, rating=rating, low=rating - 90,
                               high=rating + 90))
    page = watched(1280, 900).page
    log_in(page, site.url, site.tokens["eve"])
    assert page.locator("section.version").count() == 2
    current = page.locator(f"#submission-{first}")
    assert "playing now" in current.inner_text()
    assert current.locator("table.played tbody tr").count() >= 2
    assert "make agent failed: <b>SyntaxError</b>" in page.inner_text("pre.log >> nth=0")
    page.click("details.forfeit summary >> nth=0")
    assert "<script>alert(1)</script>" in page.inner_text("details.forfeit pre >> nth=0")
    chart = page.locator("svg.history").bounding_box()
    assert chart["width"] > 600 and chart["height"] > 200
    assert page.locator("svg.history circle.point").count() == 3
    page.screenshot(path="/tmp/ladder_me.png", full_page=True)
    page.fill('#challenge input[name="opponent"]', "ann")
    page.click('#challenge button[type="submit"]')
    page.wait_for_selector("#message")
    assert re.fullmatch(r"Challenge sent: pair \d+ is queued\.", page.inner_text("#message"))


# --- every page ----------------------------------------------------------------------------

def test_every_page_fits_a_phone(site, watched):
    games = played(site)
    page = watched(390, 844).page
    log_in(page, site.url, site.tokens["ann"])
    for path, name in (("/", "leaderboard"), ("/me", "me"), (f"/games/{games[0]}", "game")):
        page.goto(site.url + path)
        page.wait_for_load_state("load")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
        page.screenshot(path=f"/tmp/ladder_phone_{name}.png", full_page=True)


def test_the_leaderboard_updates_itself(site, watched):
    site.upload("ann", AGENTS["ann"])
    site.build_all()
    page = watched().page
    page.goto(site.url + "/")
    # ann is listed, unrated: no interval drawn, no game counted.
    assert page.locator('tr[data-name="ann"] td:nth-child(5)').inner_text() == "0"
    assert page.locator('tr[data-name="ann"] svg.interval').count() == 0
    site.play(4)
    page.wait_for_selector('tr[data-name="ann"] svg.interval rect.range', timeout=20_000)
    page.screenshot(path="/tmp/ladder_leaderboard.png", full_page=True)


# --- end to end: a real server, workers, sandboxed agents ----------------------------------

@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(shutil.which("bwrap") is None,
                    reason="the workers' sandbox needs bubblewrap here")
def test_upload_from_me_the_leaderboard_updates_a_replay_steps(tmp_path, browser):
    ladder = Ladder(["ann", "eve"], workers=2)
    try:
        assert ladder.upload_agents({"eve": AGENTS["eve"]})
        ann_zip = tmp_path / "ann.zip"
        ann_zip.write_bytes(zip_bytes(AGENTS["ann"]))
        page, board, eve = (Watched(browser, 1200, 900) for _ in range(3))
        try:
            # The leaderboard before ann has uploaded: she is not on it.
            board.page.goto(ladder.url + "/")
            assert board.page.locator('tr[data-name="ann"]').count() == 0

            log_in(page.page, ladder.url, ladder.tokens["ann"])
            page.page.set_input_files('#upload input[type="file"]', str(ann_zip))
            page.page.click('#upload button[type="submit"]')
            page.page.wait_for_selector("#message")
            assert "received" in page.page.inner_text("#message")
            assert page.page.locator("section.version").count() == 1

            # The open leaderboard shows ann once her games are played, by itself.
            board.page.wait_for_function(
                "() => { const r = document.querySelector('tr[data-name=\"ann\"]');"
                " return r && r.querySelector('svg.interval rect.range'); }",
                timeout=120_000)

            # A replay steps (one where ann moved: eve's one move is illegal).
            game = next(record for record in ladder.wait_for_games(2) if record["moves"])
            page.page.goto(f"{ladder.url}/games/{game['id']}")
            page.page.wait_for_selector("#viewer:not([hidden])")
            assert page.page.get_attribute("#board", "data-frame") == "0"
            page.page.click('[data-go="next"]')
            assert page.page.get_attribute("#board", "data-frame") == "1"
            page.page.keyboard.press("End")
            assert page.page.get_attribute("#board", "data-frame") == str(len(game["moves"]))

            # eve's forfeits show her stderr, markup and all, as text, to her.
            ladder.wait_for_games(6)
            log_in(eve.page, ladder.url, ladder.tokens["eve"])
            eve.page.wait_for_selector("details.forfeit")
            eve.page.click("details.forfeit summary >> nth=0")
            assert "<script>alert('pwned')</script>" in eve.page.inner_text(
                "details.forfeit pre >> nth=0")
            for one in (page, board, eve):
                assert one.problems == []
            assert ladder.late_imports() == [], ladder.log_text()
        finally:
            for one in (page, board, eve):
                one.close()
    finally:
        ladder.stop()
        ladder.remove()
