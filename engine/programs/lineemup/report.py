"""``python3 -m engine lineemup report scoreboard.txt --svg FILE | --html FILE``.

Reached through :mod:`engine.programs.lineemup` (first word ``report``); no ``main`` here,
so it is not a program of its own. Draws the series of a scoreboard (one *configuration*
per appended block) with :mod:`engine.pictures.charts`:

1. wins per heuristic per configuration (grouped bars, counts printed on the bars);
2. evaluations by depth: the share of each depth in the heuristic evaluations (stacked
   bars, 100% each);
3. average evaluation depth and average recursion depth per configuration, with each
   player's maximum depth d as dashed marks (t and d are in the category labels);
4. alpha-beta against minimax: heuristic evaluations per move (log scale), bars
   coloured by the configuration's search (alpha-beta for both players, minimax for
   both, or mixed). Per move = total evaluations / (games x average moves per game);
   random opening moves count as moves there, so it slightly understates the AI's work.

``--svg`` writes the four charts stacked in one SVG; ``--html`` one page with a short
text per chart. The scoreboard must have the course's layout (``lineemup check`` tells
what is wrong otherwise); its numbers are drawn as they are.
"""

import argparse
from typing import List, NoReturn

from ...pictures import charts
from ...errors import UsageError
from ...commandline import write_atomically
from .check import SeriesBlock, read_scoreboard


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"report: {message}")


def _t(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _search(block: SeriesBlock) -> str:
    if all(block.prunes):
        return "alpha-beta"
    if not any(block.prunes):
        return "minimax"
    return "mixed"


def category(block: SeriesBlock) -> List[str]:
    """Label lines of one configuration: board, limits, search."""
    d1, d2 = block.depths
    return [f"n={block.n} b={block.b} s={block.s}", f"t={_t(block.t)} d={d1}/{d2}",
            _search(block)]


def wins_chart(blocks: List[SeriesBlock]) -> charts.BarChart:
    names = blocks[0].names
    series = [charts.Series(f"{h} ({names[h]})", [b.wins[h] for b in blocks])
              for h in ("e1", "e2")]
    series.append(charts.Series("ties", [b.games - b.wins["e1"] - b.wins["e2"]
                                         for b in blocks], colour="#bbbbbb"))
    return charts.BarChart("Wins per heuristic", "configuration (one scoreboard block each)",
                           "games won", [category(b) for b in blocks], series,
                           value_labels=True,
                           subtitle="each heuristic plays half of the games as X")


def depths_chart(blocks: List[SeriesBlock]) -> charts.BarChart:
    depths = sorted({d for b in blocks for d in b.stats["by_depth"]})
    series = []
    for index, depth in enumerate(depths):
        values = []
        for block in blocks:
            total = sum(block.stats["by_depth"].values())
            count = block.stats["by_depth"].get(depth)
            values.append(round(100.0 * count / total, 2) if count and total else None)
        shade = _blue(index, len(depths))
        series.append(charts.Series(f"depth {depth}", values, colour=shade))
    return charts.BarChart("Evaluations by depth", "configuration",
                           "share of heuristic evaluations (%)",
                           [category(b) for b in blocks], series, stacked=True,
                           subtitle="where the heuristic was applied (root = depth 0)")


def _blue(index: int, count: int) -> str:
    """Light (shallow) to dark (deep) blues: depth reads as darkness."""
    share = index / max(1, count - 1)
    red = int(198 - share * (198 - 8))
    green = int(219 - share * (219 - 48))
    blue = int(239 - share * (239 - 107))
    return f"#{red:02x}{green:02x}{blue:02x}"


def depth_chart(blocks: List[SeriesBlock]) -> charts.BarChart:
    series = [charts.Series("average evaluation depth",
                            [b.stats["average_depth"] for b in blocks], colour="#1f77b4"),
              charts.Series("average recursion depth", [b.stats["ard"] for b in blocks],
                            colour="#ff7f0e")]
    markers = [("d of player 1 (X)", [b.depths[0] for b in blocks], "#111111", "7 3"),
               ("d of player 2 (O)", [b.depths[1] for b in blocks], "#8c564b", "2 2")]
    chart = charts.BarChart("Search depth against d and t", "configuration", "depth",
                            [category(b) for b in blocks], series, markers=markers,
                            value_labels=True,
                            subtitle="dashed lines: the players' maximum depths d")
    return chart


def search_chart(blocks: List[SeriesBlock]) -> charts.BarChart:
    per_move = [b.stats["evaluations"] / (b.games * b.average_moves)
                if b.games and b.average_moves else None for b in blocks]
    series = []
    for name, colour in (("alpha-beta", "#2ca02c"), ("minimax", "#d62728"),
                         ("mixed", "#9467bd")):
        values = [value if _search(b) == name else None for b, value in zip(blocks, per_move)]
        if any(v is not None for v in values):
            series.append(charts.Series(name, values, colour=colour))
    return charts.BarChart("Alpha-beta against minimax", "configuration",
                           "heuristic evaluations per move", [category(b) for b in blocks],
                           series, log_y=True,
                           subtitle="log scale; total evaluations / (games x moves per game)")


def report_charts(blocks: List[SeriesBlock]) -> List[charts.BarChart]:
    return [wins_chart(blocks), depths_chart(blocks), depth_chart(blocks),
            search_chart(blocks)]


TEXTS = (
    "Games won by each heuristic in each series; grey: ties.",
    "How deep in the tree the heuristic was applied: shallow evaluations come from "
    "forced ends of the game and from iterations cut short by the time limit.",
    "Average evaluation depth and average recursion depth reached, against the players' "
    "maximum depths (dashed) and the time per move t (in the labels).",
    "Work per move of each search: at equal time alpha-beta reaches deeper, at equal "
    "depth it evaluates far fewer positions.",
)


def run_report(argv: List[str]) -> int:
    parser = _Parser(prog="python3 -m engine lineemup report", add_help=False)
    parser.add_argument("scoreboard")
    parser.add_argument("--svg", default=None)
    parser.add_argument("--html", default=None)
    options = parser.parse_args(argv)
    if options.svg is None and options.html is None:
        raise UsageError("report: give --svg FILE and/or --html FILE")
    try:
        with open(options.scoreboard, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise UsageError(f"report: {options.scoreboard}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"report: cannot read {options.scoreboard}: {error}") from None
    blocks = read_scoreboard(text, options.scoreboard)
    if options.svg is not None:
        write_atomically(options.svg, charts.render_svg(report_charts(blocks)))
    if options.html is not None:
        sections = [(chart.title, words, [chart])
                    for chart, words in zip(report_charts(blocks), TEXTS)]
        write_atomically(options.html, charts.render_html(
            f"Line 'em Up: {options.scoreboard}", sections))
    return 0
