"""The stepping page as a student opens it from the kit (docs/failures.md, "The rerun and
stepper commands"): a right trace with a wrong move is not called a pass, and the root
is on screen before the search starts, however far the page had scrolled."""

import json
import os
import re
import subprocess
import sys

import pytest

from golden import REPO

from engine.games.tictactoe import TicTacToe

STUDENT = REPO / "examples" / "grading" / "student" / "tictactoe.py"


def engine(args, cwd):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def page_data(path):
    text = path.read_text()
    return json.loads(re.search(r'<script type="application/json" id="stepper-data">'
                                r"(.*?)</script>", text, re.S).group(1))


def our_trace(board, tmp_path, *mode):
    """Our program's move and visited file for ``board`` (in ``tmp_path``)."""
    done = subprocess.run([sys.executable, str(REPO / "tictactoe.py"), board, "visited.txt",
                           *mode], cwd=tmp_path, capture_output=True, text=True, check=True,
                          timeout=120)
    return done.stdout.strip()


def other_move(board, chosen):
    return next(child for _, child in TicTacToe().successors(board) if child != chosen)


def test_the_page_is_told_which_move_the_student_printed(tmp_path):
    board = "xxoo-----"
    chosen = our_trace(board, tmp_path, "prune", "2")
    wrong = other_move(board, chosen)
    done = engine(["picture", "tictactoe", board, "prune", "2", "--against", "visited.txt",
                   "--move", wrong, "--html", "wrong.html"], tmp_path)
    assert done.returncode == 0, done.stderr
    against = page_data(tmp_path / "wrong.html")["against"]
    assert against["line"] is None                      # every line of the trace agrees
    move = against["move"]
    cell = next(i for i in range(9) if board[i] != wrong[i])
    assert move["differs"] and move["printed"] == wrong
    assert move["student_move"] == f"x@{cell}" and move["chosen_printed"] == chosen
    assert engine(["picture", "tictactoe", board, "prune", "2", "--against", "visited.txt",
                   "--move", chosen, "--html", "right.html"], tmp_path).returncode == 0
    assert not page_data(tmp_path / "right.html")["against"]["move"]["differs"]


@pytest.mark.parametrize("args", [
    ["tictactoe", "xxoo-----", "--move", "xxoox----", "--html", "p.html"],
    ["take_stones", "7", "0", "3", "--against", "listing.txt", "--move", "3"]])
def test_a_move_without_a_trace_or_a_board_is_refused_in_one_line(args, tmp_path):
    (tmp_path / "listing.txt").write_text("x\n")
    done = engine(["picture", *args], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--move goes with --against" in done.stderr
    assert not (tmp_path / "p.html").exists()


# --- in a real browser ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright for Python is not installed")
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("no /usr/bin/chromium (Debian's chromium package) to drive")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox"] if os.geteuid() == 0 else [])
        yield chromium
        chromium.close()


def open_page(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


@pytest.mark.browser
def test_a_right_trace_with_a_wrong_move_is_said_to_differ(browser, tmp_path):
    board = "xxoo-----"
    chosen = our_trace(board, tmp_path, "prune", "2")
    wrong = other_move(board, chosen)
    assert engine(["picture", "tictactoe", board, "prune", "2", "--against", "visited.txt",
                   "--move", wrong, "--html", "steps.html"], tmp_path).returncode == 0
    page = open_page(browser, tmp_path / "steps.html")
    said = page.inner_text("#against")
    cell = next(i for i in range(9) if board[i] != wrong[i])
    assert "Your trace agrees, but your move differs" in said
    assert f"you played x@{cell} ({wrong}" in said and f"({chosen})" in said
    assert "ok" not in (page.get_attribute("#against", "class") or "").split()
    assert page.locator('.nd[data-move="yours"]').count() == 1
    assert not page.errors
    page.close()


@pytest.mark.browser
def test_the_root_is_on_screen_at_step_0(browser, tmp_path):
    """The page opens where a pre-order trace first differs, deep in the tree; at step 0
    (the "first" button) the root board is wholly inside the tree's box and the window."""
    board = "x---o----"
    subprocess.run([sys.executable, str(STUDENT), board, "visited.txt", "prune"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    assert engine(["picture", "tictactoe", board, "prune", "--against", "visited.txt",
                   "--html", "steps.html"], tmp_path).returncode == 0
    page = open_page(browser, tmp_path / "steps.html")
    assert page.get_attribute("body", "data-step") != "0"
    page.click("button[data-action=first]")
    assert page.get_attribute("body", "data-step") == "0"
    box, root = page.evaluate("""() => [document.getElementById('tree'),
        document.querySelector('.nd[data-node=""] .board, .nd[data-node=""]')].map(e => {
          const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })""")
    assert box[0] <= root[0] and root[2] <= box[2], (box, root)
    assert box[1] <= root[1] and root[3] <= box[3], (box, root)
    assert 0 <= root[0] and root[2] <= 1280 and 0 <= root[1] and root[3] <= 900
    page.screenshot(path=str(tmp_path / "step0.png"))
    assert not page.errors
    page.close()
