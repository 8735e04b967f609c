"""engine/pictures/charts.py and the pictures built on it (lineemup report, nqueens table --svg):
each picture is parsed back (xml.etree) and compared with the data it was drawn from."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.pictures import charts
from engine.programs.lineemup import program as lineemup
from engine.programs.nqueens import program as nqueens
from engine.programs.lineemup.check import read_scoreboard
from thoroughness import examples

SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parent.parent
SAMPLE_SCOREBOARD = REPO / "fixtures" / "lineemup" / "course-samples" / "scoreboard.txt"


def parse(svg_text):
    return ET.fromstring(svg_text.encode("utf-8"))


def elements(root, tag, cls):
    return [e for e in root.iter(SVG + tag) if cls in e.get("class", "").split()]


def texts(root, cls):
    return ["".join(e.itertext()) for e in elements(root, "text", cls)]


# --- line charts ---------------------------------------------------------------------------------
points_strategy = st.lists(st.tuples(st.integers(1, 30), st.floats(1e-6, 1e4)), min_size=1,
                           max_size=12, unique_by=lambda p: p[0])


@settings(max_examples=examples(40), deadline=None)
@given(points=points_strategy, log_y=st.booleans())
def test_a_line_chart_draws_one_point_per_value_in_order(points, log_y):
    chart = charts.LineChart("T", "x title", "y title", [charts.Series("s", points)],
                             log_y=log_y)
    root = parse(charts.render_svg([chart]))
    drawn = elements(root, "circle", "point")
    assert [(int(c.get("data-x")), float(c.get("data-y"))) for c in drawn] == points
    # Higher values are drawn higher (smaller y), on either scale; equal x -> equal px.
    by_value = sorted(drawn, key=lambda c: float(c.get("data-y")))
    heights = [float(c.get("cy")) for c in by_value]
    assert all(a >= b - 1e-6 for a, b in zip(heights, heights[1:]))
    by_x = sorted(drawn, key=lambda c: int(c.get("data-x")))
    xs = [float(c.get("cx")) for c in by_x]
    assert all(a < b for a, b in zip(xs, xs[1:]))


def test_a_log_axis_spaces_decades_evenly_and_labels_them():
    points = [(1, 1e-5), (2, 1e-4), (3, 1e-3), (4, 1e-2)]
    chart = charts.LineChart("T", "N", "seconds", [charts.Series("s", points)], log_y=True)
    root = parse(charts.render_svg([chart]))
    ys = [float(c.get("cy")) for c in elements(root, "circle", "point")]
    gaps = [a - b for a, b in zip(ys, ys[1:])]
    assert all(gap > 0 for gap in gaps) and max(gaps) - min(gaps) < 0.2
    assert {"1e-5", "1e-4", "0.001", "0.01"} <= set(texts(root, "tick"))


def test_titles_axis_titles_and_legend_are_present_and_the_legend_is_right_of_the_plot():
    chart = charts.LineChart("Title here", "board size N", "CPU seconds",
                             [charts.Series("one", [(1, 2.0), (5, 3.0)]),
                              charts.Series("two", [(1, 1.0), (5, 4.0)])])
    root = parse(charts.render_svg([chart]))
    assert texts(root, "title") == ["Title here"]
    assert texts(root, "axis-title") == ["board size N", "CPU seconds"]
    assert texts(root, "legend") == ["one", "two"]
    rightmost_point = max(float(c.get("cx")) for c in elements(root, "circle", "point"))
    legend_x = min(float(t.get("x")) for t in elements(root, "text", "legend"))
    assert legend_x > rightmost_point + 20


# --- bar charts ----------------------------------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.integers(0, 500)), min_size=2, max_size=8))
def test_bars_match_their_values_and_grow_with_them(values):
    chart = charts.BarChart("T", "x", "y", [f"c{i}" for i in range(len(values))],
                            [charts.Series("a", values)])
    root = parse(charts.render_svg([chart]))
    bars = elements(root, "rect", "bar")
    assert [(int(b.get("data-x")), int(b.get("data-y"))) for b in bars] == \
        [(i, v) for i, v in enumerate(values) if v is not None]
    heights = {int(b.get("data-y")): float(b.get("height")) for b in bars}
    ordered = [heights[v] for v in sorted(heights)]
    assert all(a < b for a, b in zip(ordered, ordered[1:]))
    if 0 in heights:
        assert heights[0] == 0
    bottoms = {round(float(b.get("y")) + float(b.get("height")), 1) for b in bars}
    assert len(bottoms) <= 1                    # every bar stands on the axis


def test_stacked_bars_add_up():
    series = [charts.Series("d1", [10, 30]), charts.Series("d2", [90, 70])]
    chart = charts.BarChart("T", "x", "share", ["a", "b"], series, stacked=True)
    root = parse(charts.render_svg([chart]))
    bars = elements(root, "rect", "bar")
    assert len(bars) == 4
    per_category = {}
    for bar in bars:
        per_category.setdefault(bar.get("data-x"), []).append(float(bar.get("height")))
    totals = [sum(heights) for heights in per_category.values()]
    assert abs(totals[0] - totals[1]) < 0.5
    first = [float(b.get("height")) for b in bars if b.get("data-x") == "0"]
    assert abs(first[1] / first[0] - 9) < 0.1


def test_category_labels_of_several_lines_get_a_taller_margin():
    one = charts.BarChart("T", "x", "y", ["a"], [charts.Series("s", [1])])
    three = charts.BarChart("T", "x", "y", [["a", "b", "c"]], [charts.Series("s", [1])])
    assert three.size()[1] == one.size()[1] + 2 * charts.CATEGORY_LINE
    root = parse(charts.render_svg([three]))
    assert texts(root, "category") == ["a", "b", "c"]


# --- the pictures of the programs ----------------------------------------------------------------
def test_nqueens_table_svg_has_one_marker_per_row_with_the_printed_time(tmp_path, capsys):
    path = tmp_path / "t.svg"
    assert nqueens.main(["table", "--variation", "1a", "--search", "minimax", "--sizes",
                         "1-7", "--svg", str(path)]) == 0
    printed = capsys.readouterr().out.splitlines()[1:]
    times = [(int(line.split()[0]), float(line.split()[-1])) for line in printed]
    root = parse(path.read_text())
    drawn = [(int(c.get("data-x")), float(c.get("data-y")))
             for c in elements(root, "circle", "point")]
    assert drawn == [(n, s) for n, s in times if s > 0]
    assert "board size N" in texts(root, "axis-title")


def test_nqueens_a4_series_reads_q1_to_q4():
    text = "\n".join(["== Q1: Variation 1a, minimax, full depth ==",
                      "Size  Minimax Value  Best Opening Move  Time in Seconds",
                      "1     1              ('X', 0)           3e-05",
                      "2     1              ('X', 0)           4e-05", "",
                      "== Q5: Variation 1a, minimax, depth cut-off 4 ==",
                      "1     1              ('X', 0)           3e-05"])
    from engine.programs.nqueens.chart import a4_series
    assert a4_series(text) == [("Q1: 1a minimax", [(1, 3e-05), (2, 4e-05)])]


@pytest.fixture(scope="module")
def scoreboard(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    base = ["--series", "1", "-n", "4", "--blocs", "A0", "-s", "3", "-t", "2",
            "--clock-tick", "0.01", "--dir", str(folder), "--quiet"]
    assert lineemup.main(base + ["--d1", "2", "--d2", "3"]) == 0
    assert lineemup.main(base + ["--d1", "3", "--d2", "3", "--a1", "false",
                                 "--a2", "false"]) == 0
    text = SAMPLE_SCOREBOARD.read_text() + (folder / "scoreboard.txt").read_text()
    path = folder / "all.txt"
    path.write_text(text)
    return path


def test_the_lineemup_report_draws_every_series_of_the_scoreboard(scoreboard, tmp_path):
    svg, html = tmp_path / "r.svg", tmp_path / "r.html"
    assert lineemup.main(["report", str(scoreboard), "--svg", str(svg), "--html",
                          str(html)]) == 0
    blocks = read_scoreboard(scoreboard.read_text())
    assert len(blocks) == 3
    root = parse(svg.read_text())
    assert texts(root, "title") == ["Wins per heuristic", "Evaluations by depth",
                                    "Search depth against d and t",
                                    "Alpha-beta against minimax"]
    bars = elements(root, "rect", "bar")
    wins = [(b.get("data-series"), int(b.get("data-x")), b.get("data-y")) for b in bars
            if b.get("data-series").startswith(("e1", "e2"))]
    expected = [(f"{h} ({blocks[0].names[h]})", i, str(block.wins[h]))
                for h in ("e1", "e2") for i, block in enumerate(blocks)]
    assert sorted(wins) == sorted(expected)
    depth_shares = {}
    for bar in bars:
        if bar.get("data-series").startswith("depth "):
            depth_shares.setdefault(int(bar.get("data-x")), []).append(float(bar.get("data-y")))
    assert sorted(depth_shares) == [0, 1, 2]
    assert all(abs(sum(shares) - 100) < 0.1 for shares in depth_shares.values())
    aed = [float(b.get("data-y")) for b in bars
           if b.get("data-series") == "average evaluation depth"]
    assert aed == [block.stats["average_depth"] for block in blocks]
    markers = [e for e in root.iter(SVG + "line") if e.get("class") == "marker"]
    assert sorted((m.get("data-x"), m.get("data-y")) for m in markers) == sorted(
        (str(i), str(d)) for i, block in enumerate(blocks) for d in block.depths)
    searches = {b.get("data-series") for b in bars} & {"alpha-beta", "minimax", "mixed"}
    assert searches == {"alpha-beta", "minimax"}
    page = html.read_text()
    assert page.count("<svg") == 4 and page.startswith("<!DOCTYPE html>")


def test_the_report_refuses_a_broken_scoreboard_in_one_line(tmp_path, capsys):
    bad = tmp_path / "scoreboard.txt"
    bad.write_text(SAMPLE_SCOREBOARD.read_text().replace("4 games", "four games"))
    assert lineemup.main(["report", str(bad), "--svg", str(tmp_path / "r.svg")]) == 2
    error = capsys.readouterr().err
    assert len(error.splitlines()) == 1 and ":6: expected 'N games'" in error
    assert not (tmp_path / "r.svg").exists()
