"""Tests of the search stepper (engine/pictures/stepper.py, `tree --html`, `picture --html
--against`): the data it embeds, the page's safety, and the page in a real browser."""

import hashlib
import base64
import json
import os
import re
import subprocess
import sys

import pytest

from engine.games.explicit_tree import ExplicitTree, node_at, parse_tree
from engine.games.tictactoe import TicTacToe
from engine.pictures import stepper
from engine.programs.tree import TreeAnswer, format_json, random_tree_text
from golden import REPO

FIGURE_5_2 = "A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))"


def run_engine(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO,
                          input=stdin.encode(), capture_output=True, timeout=120)


def tree_recording(text=FIGURE_5_2, prune=True):
    root = parse_tree(text)
    game = ExplicitTree(root)
    return stepper.record(game, (), prune=prune, label=lambda p: node_at(root, p).label,
                          child=game.result,
                          expand=lambda p: [] if game.is_terminal(p) else game.actions(p),
                          given=lambda p: node_at(root, p).value)


def page_data(html):
    match = re.search(r'<script type="application/json" id="stepper-data">(.*?)</script>',
                      html, re.S)
    return json.loads(match.group(1))


# --- the embedded data --------------------------------------------------------------------
def test_final_values_and_bounds_are_those_of_tree_json():
    recording = tree_recording()
    expected = json.loads(format_json(TreeAnswer(parse_tree(FIGURE_5_2))))
    columns = recording.columns
    by_path = {recording.path(i): i for i in range(len(recording.parent))}
    assert len(by_path) == 13
    for entry in expected["nodes"]:
        ident = by_path[entry["path"]]
        assert (columns["value"][ident], columns["alpha"][ident], columns["beta"][ident]) \
            == (entry["value"], entry["alpha"], entry["beta"]), entry["path"]
    assert sorted(recording.path(i) for i in recording.pruned_tops()) == expected["pruned"]
    # Nothing is known of the nodes no visit reached, except the leaves' given numbers.
    for ident in recording.pruned_tops():
        assert columns["value"][ident] is None and columns["enter"][ident] == -1
        assert columns["given"][ident] is not None


def test_steps_are_the_tracer_events_in_order():
    recording = tree_recording()
    kinds = "".join(kind for kind, _ in recording.steps)
    assert kinds.count("e") == kinds.count("l") == 11 and kinds.count("c") == 1
    assert kinds.startswith("eeel")                       # A, B, 0.0 entered; 0.0 leaves
    c = recording.parent.index(0, 2)                       # second child of the root: C
    assert recording.path(c) == "1"
    cut = recording.columns["cut"][c]
    assert recording.steps[cut - 1] == ("c", c)
    assert recording.steps[cut] == ("l", c)                # the cut comes right before leave
    for top in recording.pruned_tops():
        assert recording.columns["pruned"][top] == cut


def test_parent_window_after_each_child_comes_from_the_events():
    recording = tree_recording()
    columns = recording.columns
    b, c, d = [i for i in range(11) if recording.parent[i] == 0]
    # After B returns 3 the root's window is C's entry window (3, inf) ...
    assert (columns["after_alpha"][b], columns["after_beta"][b]) == (3, "inf")
    assert (columns["alpha_in"][c], columns["beta_in"][c]) == (3, "inf")
    # ... and after the last child, the root's final window.
    assert (columns["after_alpha"][d], columns["after_beta"][d]) == (3, "inf")
    # Inside D: after 14 returns, beta is 14 (the next leaf's entry window).
    first = recording.kids[d][0]
    assert columns["after_beta"][first] == 14


def test_minimax_has_no_bounds():
    recording = tree_recording(prune=False)
    assert set(recording.columns["alpha"]) == {None}
    assert not recording.pruned_tops() and len(recording.parent) == 13


def test_too_many_nodes_is_refused():
    game = TicTacToe()
    with pytest.raises(stepper.TooManyNodes):
        stepper.record(game, "---------", prune=False, max_nodes=1000)


def test_random_trees_are_reproducible_and_parse():
    assert random_tree_text(7) == random_tree_text(7)
    assert random_tree_text(7) != random_tree_text(8)
    parse_tree(random_tree_text(7))


# --- the student's visited file -----------------------------------------------------------
def tictactoe_case(board="xxoo-----", ply=2):
    game = TicTacToe(evaluate_terminals=True)
    recording = stepper.record(game, board, prune=True, depth=ply,
                               board=lambda s: (s[0:3], s[3:6], s[6:9]))
    return game, recording


def visited_file(tmp_path, board="xxoo-----", ply=2):
    run = subprocess.run([sys.executable, "tictactoe.py", board, str(tmp_path / "v.txt"),
                          "prune", str(ply)], cwd=REPO, capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return (tmp_path / "v.txt").read_text()


def test_expected_lines_are_what_tictactoe_py_writes(tmp_path):
    _, recording = tictactoe_case()
    lines = [line for line, _ in stepper.expected_visited_lines(recording, key=str)]
    assert "".join(line + "\n" for line in lines) == visited_file(tmp_path)


def test_compare_visited_finds_the_first_difference(tmp_path):
    _, recording = tictactoe_case()
    good = visited_file(tmp_path)
    assert stepper.compare_visited(recording, good, key=str)["line"] is None
    lines = good.splitlines()
    board, value = lines[4].split()
    lines[4] = f"{board} {int(value) + 1}"
    report = stepper.compare_visited(recording, "\r\n".join(lines), key=str)
    assert report["line"] == 5 and report["agree"] == 4
    assert report["expected"] == good.splitlines()[4]
    assert recording.states[report["node"]] == board
    short = stepper.compare_visited(recording, "\n".join(good.splitlines()[:3]), key=str)
    assert short["line"] == 4 and short["student"] is None


# --- the page's safety ------------------------------------------------------------------
def test_embedded_json_cannot_close_the_script_element():
    text = stepper.embedded_json({"x": "</script><script>alert(1)</script>&\u2028\u2029"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text)["x"].startswith("</script>")


def test_hostile_student_trace_is_data_only():
    _, recording = tictactoe_case()
    hostile = "<script>alert(1)</script> 0\n\u2028</script><img src=x onerror=alert(1)>\n"
    html = stepper.render(recording, against=stepper.compare_visited(recording, hostile,
                                                                     key=str))
    assert html.count("<script") == 2 and "alert(1)</script>" not in html
    assert "<img" not in html
    # The policy's hash is that of the script the page holds, which is the asset's bytes.
    script = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert script == [(REPO / "engine" / "pictures" / "assets" / "stepper.js").read_text()]
    digest = base64.b64encode(hashlib.sha256(script[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html and "default-src 'none'" in html
    assert page_data(html)["against"]["student"].startswith("<script>")


# --- the command lines -------------------------------------------------------------------
def test_tree_html_and_errors_write_nothing_half_done(tmp_path):
    out = tmp_path / "page.html"
    run = run_engine("tree", "-", "--html", str(out), stdin=FIGURE_5_2)
    assert run.returncode == 0 and out.exists()
    data = page_data(out.read_text())
    assert data["quiz"] is True and len(data["parent"]) == 13
    bad = tmp_path / "bad.html"
    run = run_engine("tree", "-", "--html", str(bad), stdin="A:(B:(3 12")
    assert run.returncode == 2 and not bad.exists()
    assert len(run.stderr.decode().strip().splitlines()) == 1


def test_picture_against_a_missing_file_exits_2(tmp_path):
    out = tmp_path / "page.html"
    run = run_engine("picture", "tictactoe", "xxoo-----", "prune", "2", "--html", str(out),
                     "--against", str(tmp_path / "nope.txt"))
    assert run.returncode == 2 and not out.exists()
    assert run.stderr.decode().count("\n") == 1


def test_picture_html_of_the_blank_board_has_every_node(tmp_path):
    out = tmp_path / "ttt.html"
    run = run_engine("picture", "tictactoe", "---------", "prune", "--html", str(out))
    assert run.returncode == 0, run.stderr
    data = page_data(out.read_text())
    assert sum(1 for e in data["enter"] if e >= 0) == 18297
    assert out.stat().st_size < 4_000_000


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
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


NODE_FACTS = """() => Array.from(document.querySelectorAll('.nd[data-node]')).map(e => [
  e.dataset.node, e.dataset.value, e.dataset.alpha, e.dataset.beta, e.dataset.state])"""


@pytest.mark.browser
def test_browser_steps_figure_5_2_to_the_end(browser, tmp_path):
    out = tmp_path / "fig.html"
    assert run_engine("tree", "-", "--html", str(out), stdin=FIGURE_5_2).returncode == 0
    expected = json.loads(format_json(TreeAnswer(parse_tree(FIGURE_5_2))))
    page = open_page(browser, out)
    last = int(page.get_attribute("input[data-action=seek]", "max"))
    texts = []
    for _ in range(last):
        page.click("button[data-action=next]")
        texts.append(page.inner_text("#narration .what"))
    assert page.get_attribute("body", "data-step") == str(last)
    facts = {row[0]: row[1:] for row in page.evaluate(NODE_FACTS)}
    assert len(facts) == 13

    def text(bound):
        return "" if bound is None else str(bound)
    for entry in expected["nodes"]:
        assert facts[entry["path"]] == [text(entry["value"]), text(entry["alpha"]),
                                        text(entry["beta"]), "done"], entry["path"]
    pruned = sorted(p for p, row in facts.items() if row[3] == "pruned")
    assert pruned == expected["pruned"]
    assert all(facts[p][:3] == ["", "", ""] for p in pruned)
    assert any("MIN node: 2 <= alpha 3, the remaining children are pruned" in t
               for t in texts)
    # back and first undo it all
    page.click("button[data-action=prev]")
    assert page.get_attribute("body", "data-step") == str(last - 1)
    page.click("button[data-action=first]")
    states = {row[4] for row in page.evaluate(NODE_FACTS)}
    assert states == {"unvisited"}
    assert not page.errors
    page.close()


@pytest.mark.browser
def test_browser_steps_tictactoe_prune_2_like_the_visited_file(browser, tmp_path):
    out = tmp_path / "ttt.html"
    run = run_engine("picture", "tictactoe", "xxoo-----", "prune", "2", "--html", str(out))
    assert run.returncode == 0, run.stderr
    page = open_page(browser, out)
    last = int(page.get_attribute("input[data-action=seek]", "max"))
    seen = []
    read_current = """() => { const e = document.querySelector('.nd[data-state=current]');
      if (!e) return null;
      const cells = Array.from(e.querySelectorAll('.grid span')).map(s => s.textContent || '-');
      return [e.dataset.node, cells.join(''), e.dataset.value]; }"""
    for _ in range(last):
        page.click("button[data-action=next]")
        current = page.evaluate(read_current)
        if current and current[0] != "" and current[2] != "":
            seen.append(f"{current[1]} {current[2]}")
    assert "\n".join(seen) + "\n" == visited_file(tmp_path)
    assert not page.errors
    page.close()


@pytest.mark.browser
def test_browser_quiz_rejects_a_wrong_pruned_set_and_accepts_the_right_one(browser, tmp_path):
    out = tmp_path / "quiz.html"
    assert run_engine("tree", "-", "--html", str(out), stdin=FIGURE_5_2).returncode == 0
    expected = json.loads(format_json(TreeAnswer(parse_tree(FIGURE_5_2))))
    page = open_page(browser, out)
    page.click("button[data-mode=quiz]")
    for entry in expected["nodes"]:
        node = page.locator(f'.nd[data-node="{entry["path"]}"]')
        if node.locator("[data-quiz=value]").count():
            node.locator("[data-quiz=value]").fill(str(entry["value"]))
        node.locator("[data-quiz=alpha]").fill(str(entry["alpha"]))
        node.locator("[data-quiz=beta]").fill(str(entry["beta"]))
    result = page.locator("[data-quiz=result]")
    page.fill("[data-quiz=pruned]", "1.1")
    page.click("[data-quiz=check]")
    assert result.get_attribute("data-verdict") == "wrong"
    assert "wrong" in page.inner_text("[data-quiz-part=pruned]")
    assert "right" in page.inner_text("[data-quiz-part=values]")
    page.fill("[data-quiz=pruned]", "1.1, 1.2")
    page.click("[data-quiz=check]")
    assert result.get_attribute("data-verdict") == "right"
    # A value written into a pruned node is refused without telling its value.
    page.locator('.nd[data-node="1.1"] [data-quiz=alpha]').fill("3")
    page.click("[data-quiz=check]")
    assert result.get_attribute("data-verdict") == "wrong"
    assert "1.1 is never visited" in result.inner_text()
    assert not page.errors
    page.close()


@pytest.mark.browser
def test_browser_overlay_marks_the_first_divergence(browser, tmp_path):
    good = visited_file(tmp_path).splitlines()
    board, value = good[6].split()
    good[6] = f"{board} {int(value) - 5}"
    student = tmp_path / "student.txt"
    student.write_text("\n".join(good) + "\n")
    out = tmp_path / "against.html"
    run = run_engine("picture", "tictactoe", "xxoo-----", "prune", "2", "--html", str(out),
                     "--against", str(student))
    assert run.returncode == 0, run.stderr
    _, recording = tictactoe_case()
    expected_node = stepper.expected_visited_lines(recording, key=str)[6][1]
    page = open_page(browser, out)
    marked = page.locator(".nd[data-diverge=expected]")
    assert marked.count() == 1
    assert marked.get_attribute("data-node") == recording.path(expected_node)
    assert "line 7" in page.inner_text("#against")
    assert not page.errors
    page.close()


# --- Take-Stones and Stake/Raid pages (picture take_stones / stake_raid --html) ----------
def take_stones_stdout(*args):
    run = subprocess.run([sys.executable, "TakeStones", *args], cwd=REPO,
                         capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.decode()


def take_stones_recording(*args):
    from engine.programs.picture import TakeStonesAdapter
    adapter = TakeStonesAdapter()
    game, state, options, _ = adapter.parse(list(args))
    recording = stepper.record(game, state, prune=True, depth=options["depth"],
                               window=options["window"], label=adapter.label)
    return game, recording


@pytest.mark.parametrize("args", [("7", "0", "0"), ("7", "2", "1", "4", "2"),
                                  ("10", "3", "4", "2", "6", "4"), ("12", "0", "3"),
                                  ("9", "1", "3", "0")])
def test_take_stones_recording_is_the_program_listing(args):
    from engine.pictures.stepper_listing import compare_listing, expected_listing_lines
    game, recording = take_stones_recording(*args)
    listing = take_stones_stdout(*args)
    lines = expected_listing_lines(recording, game)
    assert "".join(line + "\n" for line, _ in lines) == listing
    assert compare_listing(recording, listing, game)["line"] is None
    # one block per visited node, the root's last
    assert len(lines) == 3 * recording.visited_count + 3 and lines[-4][1] == 0


def test_take_stones_page_holds_the_programs_move_and_root_window(tmp_path):
    out = tmp_path / "ts.html"
    run = run_engine("picture", "take_stones", "10", "3", "4", "2", "6", "4",
                     "--html", str(out))
    assert run.returncode == 0, run.stderr
    data = page_data(out.read_text())
    listing = take_stones_stdout("10", "3", "4", "2", "6", "4").splitlines()
    assert listing[-3] == "NEXT MOVE"
    chosen = data["chosen"][0]
    assert data["label"][chosen] == f"{listing[-2]}: {listing[-1].strip()}"
    # the root's block comes right before NEXT MOVE: its final window
    assert listing[-4] == f"alpha: {data['alpha'][0]}\tbeta: {data['beta'][0]}"
    assert data["label"][0] == f"{listing[-6]}: {listing[-5].strip()}"
    assert data["root_value"] in (data["alpha"][0], data["beta"][0])


def test_take_stones_compare_listing_finds_the_first_difference():
    from engine.pictures.stepper_listing import compare_listing
    game, recording = take_stones_recording("7", "0", "0")
    lines = take_stones_stdout("7", "0", "0").splitlines()
    lines[8] = lines[8].replace("alpha: ", "alpha: 1")       # the third block's bounds
    report = compare_listing(recording, "\r\n".join(lines), game)
    assert report["line"] == 9 and report["agree"] == 8
    assert len(report["agreed_nodes"]) == 2 and report["node"] not in report["agreed_nodes"]
    good = take_stones_stdout("7", "0", "0").splitlines()
    short = compare_listing(recording, "\n".join(good[:-3]), game)
    assert short["line"] == len(good) - 2 and short["expected"] == "NEXT MOVE"
    assert short["node"] is None and short["student"] is None


STAKE_RAID_INPUTS = {
    "3": "3\nALPHABETA\nO\n2\n5 1 9\n2 8 3\n4 7 6\nX..\n.O.\n...\n",
    "4": "4\nMINIMAX\nX\n2\n5 1 9 2\n2 8 3 4\n4 7 6 1\n1 1 1 1\nX...\n.O..\n....\n....\n",
}


@pytest.mark.parametrize("size", sorted(STAKE_RAID_INPUTS))
def test_stake_raid_page_holds_homeworks_move(tmp_path, size):
    source = tmp_path / "input.txt"
    source.write_text(STAKE_RAID_INPUTS[size])
    run = subprocess.run([sys.executable, "homework.py", str(source), str(tmp_path / "o.txt")],
                         cwd=REPO, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = (tmp_path / "o.txt").read_text().splitlines()[1:]
    out = tmp_path / "sr.html"
    run = run_engine("picture", "stake_raid", str(source), "--html", str(out))
    assert run.returncode == 0, run.stderr
    data = page_data(out.read_text())
    chosen = data["chosen"][0]
    assert data["board"][chosen] == "/".join(rows)     # every size drawn as a board
    assert data["prune"] is (size == "3")
    # --against is refused, and no page is written
    bad = tmp_path / "bad.html"
    run = run_engine("picture", "stake_raid", str(source), "--html", str(bad),
                     "--against", str(tmp_path / "o.txt"))
    assert run.returncode == 2 and not bad.exists()


@pytest.mark.browser
def test_browser_steps_take_stones_to_the_end_like_the_listing(browser, tmp_path):
    out = tmp_path / "ts.html"
    run = run_engine("picture", "take_stones", "7", "0", "0", "--html", str(out))
    assert run.returncode == 0, run.stderr
    _, recording = take_stones_recording("7", "0", "0")
    listing = take_stones_stdout("7", "0", "0").splitlines()
    page = open_page(browser, out)
    last = int(page.get_attribute("input[data-action=seek]", "max"))
    for _ in range(last):
        page.click("button[data-action=next]")
    assert page.get_attribute("body", "data-step") == str(last)
    facts = {row[0]: row[1:] for row in page.evaluate(NODE_FACTS)}
    leaves = [ident for kind, ident in recording.steps if kind == "l"]
    assert len(leaves) * 3 + 3 == len(listing)
    for block, ident in enumerate(leaves):
        row = facts[recording.path(ident)]
        assert f"alpha: {row[1]}\tbeta: {row[2]}" == listing[3 * block + 2]
        assert row[3] == "done"
        label = page.inner_text(f'.nd[data-node="{recording.path(ident)}"] .lb')
        assert label == f"{listing[3 * block]}: {listing[3 * block + 1].strip() or '(none)'}"
    assert not page.errors
    page.close()


@pytest.mark.browser
def test_browser_take_stones_overlay_marks_the_first_difference(browser, tmp_path):
    lines = take_stones_stdout("7", "0", "0").splitlines()
    lines[11] = lines[11].replace("beta: ", "beta: -")        # the fourth block's bounds
    student = tmp_path / "listing.txt"
    student.write_text("\n".join(lines) + "\n")
    out = tmp_path / "against.html"
    run = run_engine("picture", "take_stones", "7", "0", "0", "--html", str(out),
                     "--against", str(student))
    assert run.returncode == 0, run.stderr
    _, recording = take_stones_recording("7", "0", "0")
    expected_node = [ident for kind, ident in recording.steps if kind == "l"][3]
    page = open_page(browser, out)
    marked = page.locator(".nd[data-diverge=expected]")
    assert marked.count() == 1
    assert marked.get_attribute("data-node") == recording.path(expected_node)
    assert "line 12" in page.inner_text("#against")
    assert page.locator(".nd.agreed").count() == 3
    assert not page.errors
    page.close()
