"""grade similar's HTML page in a real browser (Debian's Chromium through Playwright):
styled under its own Content-Security-Policy, readable and navigable with no script,
printable.
"""

import os

import pytest

from similarity_helpers import disguise, program

from engine.grading import cli

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def page_file(tmp_path, capsys):
    folder = tmp_path / "class"
    texts = {f"s{index}": program(700 + index, 80) for index in range(4)}
    texts["copy <i>x&amp;"] = disguise(texts["s1"], 4)
    for name, text in texts.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "tictactoe.py").write_text(text)
    assert cli.main(["similar", "tictactoe", str(folder), "--html",
                     str(tmp_path / "r.html")]) == 0
    capsys.readouterr()
    return tmp_path / "r.html"


@pytest.mark.browser
def test_the_page_is_styled_navigable_and_printable_without_a_script(page_file, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            context = browser.new_context(java_script_enabled=False,
                                          viewport={"width": 1360, "height": 900})
            page = context.new_page()
            messages = []
            page.on("console", lambda message: messages.append(message.text))
            page.goto(page_file.as_uri())
            # The inline style ran under the page's policy: the table header is shaded.
            header = page.locator("#pairs + table th").first
            assert header.evaluate("th => getComputedStyle(th).backgroundColor") == \
                "rgb(238, 241, 246)"
            assert not [text for text in messages if "Content Security Policy" in text]
            assert page.locator("#pairs + table tr").count() >= 2
            assert "copy <i>x&amp;" in page.locator("#pairs + table").text_content()
            # A pair's link leads to its section; a region's link to its side-by-side view.
            page.click("#pairs + table a[href='#pair-1']")
            assert page.evaluate("location.hash") == "#pair-1"
            page.click("#pair-1 a[href='#pair-1-region-1']")
            region = page.locator("#pair-1-region-1")
            assert region.is_visible() and region.locator(".hit").count() >= 2
            left, right = region.locator(".side > div").all()
            assert left.bounding_box()["x"] < right.bounding_box()["x"]
            page.emulate_media(media="print")
            assert page.locator("nav.contents").is_hidden()
            pdf = page.pdf(format="A4")
            assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") >= 2
        finally:
            browser.close()
