"""Benchmark of the search stepper: the 18,297-node tic-tac-toe alpha-beta page.

Writes the page (`python3 -m engine picture tictactoe --------- prune --html ...`), then,
in headless Chromium (Playwright, /usr/bin/chromium), measures: the time from navigation
to the page being ready (`body[data-ready]`: data parsed, tree drawn, step 0 shown), one
"next" step, a jump to the last step, a jump into the middle with the slider, and
opening a collapsed subtree by a click. Each browser figure is the median of 5 runs.
Not a test: figures depend on the machine (docs/trees.md shows this machine's).
"""

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import PYTHON, best_of  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
RUNS = 5


def browser_figures(page_path):
    """{measure: median milliseconds} in headless Chromium."""
    from playwright.sync_api import sync_playwright
    figures = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox"] if os.geteuid() == 0 else [])
        samples = {}
        for _ in range(RUNS):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto("about:blank")
            started = page.evaluate("() => performance.timeOrigin + performance.now()")
            page.goto(page_path.as_uri())
            page.wait_for_selector("body[data-ready]")
            ready = page.evaluate("() => performance.timeOrigin + performance.now()")
            samples.setdefault("open (navigation to ready)", []).append(ready - started)
            timed = page.evaluate("""() => {
              const t = {};
              const click = (sel) => document.querySelector(sel).click();
              let a = performance.now(); click('button[data-action=next]');
              t.next = performance.now() - a;
              a = performance.now();
              for (let i = 0; i < 100; i++) click('button[data-action=next]');
              t.next100 = (performance.now() - a) / 100;
              a = performance.now(); click('button[data-action=last]');
              t.last = performance.now() - a;
              const seek = document.querySelector('input[data-action=seek]');
              a = performance.now(); seek.value = String(Math.floor(seek.max / 2));
              seek.dispatchEvent(new Event('input')); t.seek = performance.now() - a;
              const closed = document.querySelector('.tg:not(.opened)');
              a = performance.now(); closed.click(); t.open = performance.now() - a;
              t.rendered = document.querySelectorAll('.nd').length;
              return t; }""")
            for key, label in (("next", "first step"), ("next100", "a step (mean of 100)"),
                               ("last", "jump to the end"), ("seek", "slider to the middle"),
                               ("open", "open a collapsed subtree"),
                               ("rendered", "node elements in the DOM")):
                samples.setdefault(label, []).append(timed[key])
            page.close()
        browser.close()
    for label, values in samples.items():
        figures[label] = statistics.median(values)
    return figures


def main():
    folder = Path(tempfile.mkdtemp(prefix="bench-stepper-"))
    page_path = folder / "ttt.html"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cpu, wall, rss, code = best_of(3, [PYTHON, "-m", "engine", "picture", "tictactoe",
                                       "---------", "prune", "--html", str(page_path)],
                                   cwd=str(folder), env=env)
    print(f"write the page: cpu {cpu:.2f} s  wall {wall:.2f} s  peak {rss:.1f} MB"
          + ("" if code == 0 else f"  EXIT {code}"))
    print(f"page size: {page_path.stat().st_size / 1e6:.2f} MB")
    if not os.path.exists("/usr/bin/chromium"):
        print("browser figures skipped: no /usr/bin/chromium")
        return
    try:
        figures = browser_figures(page_path)
    except ImportError:
        print("browser figures skipped: Playwright for Python is not installed")
        return
    for label, value in figures.items():
        unit = "" if label.startswith("node elements") else " ms"
        print(f"{label:<32} {value:8.1f}{unit}")


if __name__ == "__main__":
    main()
