"""The ladder's pages in Chromium (Debian's, through Playwright) against a real server:
a student logs in on /me with the token and uploads an agent, the leaderboard at /
picks the new player up without a reload, a game's replay steps, a hostile agent's
stderr shows as text on its owner's page, and no page logs a console error or opens a
dialog (which would mean an injected script ran)."""

import os
import shutil

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

from ladder_helpers import AGENTS, Ladder, zip_bytes  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                 reason=f"no Chromium at {CHROMIUM}"),
              pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="the workers' sandbox needs bubblewrap here")]


def log_in(page, url, token):
    page.goto(url + "/me")
    page.fill('input[name="token"]', token)
    page.click('form.login button[type="submit"]')
    page.wait_for_selector("#upload")


@pytest.mark.browser
def test_upload_from_me_the_leaderboard_updates_a_replay_steps(tmp_path):
    ladder = Ladder(["ann", "eve"], workers=2)
    try:
        status = ladder.upload_agents({"eve": AGENTS["eve"]})
        assert status
        ann_zip = tmp_path / "ann.zip"
        ann_zip.write_bytes(zip_bytes(AGENTS["ann"]))
        with sync_api.sync_playwright() as playwright:
            args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
            try:
                page = browser.new_page(viewport={"width": 1200, "height": 900})
                errors, dialogs = [], []
                page.on("console", lambda m: errors.append(m.text)
                        if m.type == "error" else None)
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

                # The leaderboard before ann has uploaded: she is not on it.
                page.goto(ladder.url + "/")
                assert page.locator('tr[data-name="ann"]').count() == 0
                board = browser.new_page()
                board.on("console", lambda m: errors.append(m.text)
                         if m.type == "error" else None)
                board.goto(ladder.url + "/")

                log_in(page, ladder.url, ladder.tokens["ann"])
                page.set_input_files('#upload input[type="file"]', str(ann_zip))
                page.click('#upload button[type="submit"]')
                page.wait_for_selector("#message")
                assert "received" in page.inner_text("#message")
                assert page.locator("section.submission").count() == 1

                # The open leaderboard page shows ann once her games are played, by
                # itself (it polls /api/leaderboard), with her interval drawn.
                board.wait_for_selector('tr[data-name="ann"]', timeout=120_000)
                board.wait_for_function(
                    "() => { const r = document.querySelector('tr[data-name=\"ann\"]');"
                    " return r && r.querySelector('svg.interval rect.range'); }",
                    timeout=120_000)
                board.screenshot(path="/tmp/ladder_leaderboard.png", full_page=True)

                # A replay steps on the tournament's board.
                # One where ann moved: eve's one move is illegal, so a game eve opens
                # ends before any move and has nothing to step through.
                game = next(record for record in ladder.wait_for_games(2)
                            if record["moves"])
                page.goto(f"{ladder.url}/games/{game['id']}#game-0")
                page.wait_for_selector("#viewer:not([hidden])")
                assert page.get_attribute("#board", "data-frame") == "0"
                page.click('[data-go="next"]')
                assert page.get_attribute("#board", "data-frame") == "1"
                page.keyboard.press("End")
                assert page.get_attribute("#board", "data-frame") == str(len(game["moves"]))

                # eve's forfeits show her stderr, markup and all, as text.
                ladder.wait_for_games(6)
                eve = browser.new_page()
                eve.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                eve.on("console", lambda m: errors.append(m.text)
                       if m.type == "error" else None)
                log_in(eve, ladder.url, ladder.tokens["eve"])
                eve.wait_for_selector("details.forfeit")
                eve.click("details.forfeit summary")
                assert "<script>alert('pwned')</script>" in eve.inner_text(
                    "details.forfeit pre")
                eve.screenshot(path="/tmp/ladder_me.png", full_page=True)
                assert errors == [] and dialogs == []
            finally:
                browser.close()
    finally:
        ladder.stop()
        ladder.remove()
