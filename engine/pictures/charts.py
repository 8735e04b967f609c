"""Small charts as SVG: line charts (linear or log y) and grouped / stacked bar charts.

Standard library only, drawn by our own code like the tree pictures of
:mod:`engine.pictures.trees` (both share :mod:`engine.pictures.svg` and the skeleton
assets/picture.svg; the markup is :mod:`engine.markup`'s). Used for the analysis
pictures of Line 'em Up (``lineemup report``) and N-Queens (``nqueens table --svg``).

What a chart promises (tests/test_charts.py checks it):

* a title, an x-axis title and a y-axis title (class ``axis-title``), tick labels
  (class ``tick``) on both axes, a legend (class ``legend``) with one entry per series;
* one mark per data point: ``<circle class="point">`` in a line chart, ``<rect
  class="bar">`` in a bar chart, each carrying ``data-series``, ``data-x`` and
  ``data-y`` (the value drawn), so that a picture can be checked against its input;
* y positions grow monotonically with the value (on a log axis: with its logarithm);
  the y axis of a bar chart starts at 0.

Layout rules that keep a chart legible: the legend sits right of the plot area, never
over it; category labels may have several lines (a list of strings) and the bottom
margin grows with them; a long title is never shortened, so callers keep titles short.
"""

import math
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from ..markup import XML, Markup, asset
from .svg import number as fmt

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
# The documents' skeletons and style are files: assets/picture.svg (the skeleton every
# picture shares), assets/chart.css, assets/charts.html (a page of charts).
ASSETS = __name__.rpartition(".")[0]

WIDTH = 960
PLOT_HEIGHT = 260
LEFT, RIGHT, TOP = 78, 230, 58
CATEGORY_LINE = 14

Plot = Tuple[float, float, float, float]           # the plot area: x0, y0, x1, y1 (pixels)
# A bar chart's marker: (name, one value or None per category, colour, SVG dash array).
Marker = Tuple[str, Sequence[Optional[float]], str, str]


class Series:
    """A named list of points [(x, y)] (line chart) or values (bar chart)."""

    def __init__(self, name: str, values: Iterable[Any], colour: Optional[str] = None) -> None:
        self.name = name
        self.values = list(values)
        self.colour = colour


class Chart:
    """Base: a title, axis titles and a list of :class:`Series`."""

    def __init__(self, title: str, x_title: str, y_title: str, series: Iterable[Series],
                 subtitle: Optional[str] = None) -> None:
        self.title = title
        self.subtitle = subtitle
        self.x_title = x_title
        self.y_title = y_title
        self.series = list(series)
        for index, one in enumerate(self.series):
            if one.colour is None:
                one.colour = PALETTE[index % len(PALETTE)]

    def bottom_margin(self) -> int:
        return 62

    def size(self) -> Tuple[int, float]:
        return WIDTH, TOP + PLOT_HEIGHT + self.bottom_margin()

    def render(self, out: List[str], top: float = 0) -> None:
        """Append this chart's SVG elements to ``out``, shifted down by ``top``."""
        width, height = self.size()
        out.append(XML.start("g", class_="chart", transform=f"translate(0,{fmt(top)})"))
        out.append(XML.element("text", self.title, class_="title", x=LEFT, y="24"))
        if self.subtitle:
            out.append(XML.element("text", self.subtitle, class_="subtitle", x=LEFT, y="42"))
        plot = (LEFT, TOP, width - RIGHT, TOP + PLOT_HEIGHT)
        self.draw_plot(out, plot)
        x0, y0, x1, y1 = plot
        out.append(XML.element("line", class_="axis", x1=x0, y1=y1, x2=x1, y2=y1))
        out.append(XML.element("line", class_="axis", x1=x0, y1=y0, x2=x0, y2=y1))
        out.append(XML.element("text", self.x_title, class_="axis-title",
                               x=fmt((x0 + x1) / 2), y=fmt(height - 12), text_anchor="middle"))
        middle = fmt((y0 + y1) / 2)
        out.append(XML.element("text", self.y_title, class_="axis-title", x="18", y=middle,
                               text_anchor="middle", transform=f"rotate(-90 18 {middle})"))
        self.draw_legend(out, x1 + 18, y0)
        out.append(XML.end("g"))

    def draw_plot(self, out: List[str], plot: Plot) -> None:
        """Append the plot's SVG elements (axes' ticks, the data) to ``out``."""
        raise NotImplementedError

    def legend_entries(self) -> List[Tuple[str, Optional[str], Optional[str]]]:
        """(name, colour, dash) per entry; dash None: a filled box, else a line."""
        return [(one.name, one.colour, None) for one in self.series]

    def draw_legend(self, out: List[str], x: float, y: float) -> None:
        out.append(XML.start("g", class_="legend-box"))
        for index, (name, colour, dash) in enumerate(self.legend_entries()):
            row = y + 8 + index * 20
            if dash is None:
                out.append(XML.element("rect", x=fmt(x), y=fmt(row - 9), width="14",
                                       height="10", fill=colour))
            else:
                out.append(XML.element("line", x1=fmt(x - 2), y1=fmt(row - 4), x2=fmt(x + 16),
                                       y2=fmt(row - 4), stroke=colour, stroke_width="2",
                                       stroke_dasharray=dash))
            out.append(XML.element("text", name, class_="legend", x=fmt(x + 20), y=fmt(row)))
        out.append(XML.end("g"))


# --- axes -----------------------------------------------------------------------------------------
def nice_ticks(low: float, high: float, count: int = 5, integers: bool = False) -> List[float]:
    """Round tick values covering [low, high] (low <= high), about ``count`` of them.

    ``integers``: whole-number steps only (counts of games, depths).
    """
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    if integers:
        step = max(1, round(step)) if step >= 1 else 1
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def tick_text(value: float) -> str:
    if value == int(value) and abs(value) < 1e6:
        return f"{int(value):,}"
    if abs(value) >= 1e6:
        return f"{value:.3g}"
    return f"{value:g}"


class LinearAxis:
    """Maps a value range onto [bottom, top] pixels (y) with round ticks."""

    def __init__(self, low: float, high: float, pixel_low: float, pixel_high: float,
                 integers: bool = False) -> None:
        self.ticks: Sequence[float] = nice_ticks(low, high, integers=integers)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.pixel_low, self.pixel_high = pixel_low, pixel_high

    def position(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return self.pixel_low + share * (self.pixel_high - self.pixel_low)

    def labels(self) -> List[Tuple[float, str]]:
        return [(value, tick_text(value)) for value in self.ticks]


class LogAxis:
    """A log-10 axis from the decade below the smallest value to the one above the largest."""

    def __init__(self, low: float, high: float, pixel_low: float, pixel_high: float) -> None:
        low = max(low, 1e-12)
        self.low_exponent = math.floor(math.log10(low))
        self.high_exponent = max(math.ceil(math.log10(max(high, low))), self.low_exponent + 1)
        self.pixel_low, self.pixel_high = pixel_low, pixel_high

    def position(self, value: float) -> float:
        exponent = math.log10(max(value, 1e-12))
        share = (exponent - self.low_exponent) / (self.high_exponent - self.low_exponent)
        return self.pixel_low + share * (self.pixel_high - self.pixel_low)

    def labels(self) -> List[Tuple[float, str]]:
        result = []
        for exponent in range(self.low_exponent, self.high_exponent + 1):
            value = 10.0 ** exponent
            text = (f"{value:g}" if -3 <= exponent <= 3 else f"1e{exponent}")
            result.append((value, text))
        return result


def _y_ticks(out: List[str], axis: Union[LinearAxis, LogAxis], x0: float, x1: float) -> None:
    for value, text in axis.labels():
        y = axis.position(value)
        out.append(XML.element("line", class_="grid", x1=x0, y1=fmt(y), x2=x1, y2=fmt(y)))
        out.append(XML.element("text", text, class_="tick", x=x0 - 6, y=fmt(y + 4),
                               text_anchor="end"))


# --- line charts ---------------------------------------------------------------------------------
class LineChart(Chart):
    """Series of (x, y) points joined by lines; ``log_y`` draws y on a log-10 axis.

    Points with y <= 0 cannot be drawn on a log axis: they are left out (and counted in
    ``skipped``) rather than drawn at a false height.
    """

    def __init__(self, title: str, x_title: str, y_title: str, series: Iterable[Series],
                 log_y: bool = False, subtitle: Optional[str] = None) -> None:
        super().__init__(title, x_title, y_title, series, subtitle)
        self.log_y = log_y
        self.skipped = 0

    def draw_plot(self, out: List[str], plot: Plot) -> None:
        x0, y0, x1, y1 = plot
        points = [(x, y) for one in self.series for x, y in one.values
                  if not (self.log_y and y <= 0)]
        xs = [x for x, _ in points] or [0, 1]
        ys = [y for _, y in points] or [1]
        x_axis = LinearAxis(min(xs), max(xs), x0 + 12, x1 - 12)
        if all(float(x).is_integer() for x in xs):
            # Whole x values (board sizes): whole ticks, the axis spanning the data.
            x_axis.ticks = _integer_ticks(min(xs), max(xs))
            x_axis.low = min(x_axis.ticks[0], min(xs))
            x_axis.high = max(x_axis.ticks[-1], max(xs), x_axis.low + 1)
        if self.log_y:
            y_axis: Union[LinearAxis, LogAxis] = LogAxis(min(ys), max(ys), y1, y0)
        else:
            y_axis = LinearAxis(min(0, min(ys)), max(ys), y1, y0)
        _y_ticks(out, y_axis, x0, x1)
        for value in x_axis.ticks:
            x = x_axis.position(value)
            out.append(XML.element("line", class_="axis", x1=fmt(x), y1=y1, x2=fmt(x),
                                   y2=y1 + 5))
            out.append(XML.element("text", tick_text(value), class_="tick", x=fmt(x),
                                   y=y1 + 18, text_anchor="middle"))
        for one in self.series:
            drawn = [(x, y) for x, y in one.values if not (self.log_y and y <= 0)]
            self.skipped += len(one.values) - len(drawn)
            coordinates = [(x_axis.position(x), y_axis.position(y)) for x, y in drawn]
            if len(coordinates) > 1:
                path = " ".join(f"{fmt(px)},{fmt(py)}" for px, py in coordinates)
                out.append(XML.element("polyline", class_="series", points=path,
                                       stroke=one.colour))
            for (x, y), (px, py) in zip(drawn, coordinates):
                out.append(XML.element(
                    "circle", XML.element("title", f"{one.name}: {x}, {y}"), class_="point",
                    cx=fmt(px), cy=fmt(py), r="3.5", fill=one.colour, data_series=one.name,
                    data_x=x, data_y=y))


def _integer_ticks(low: float, high: float) -> List[int]:
    span = max(1, int(high - low))
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100) if span / s <= 12)
    first = int(math.ceil(low / step) * step)
    return [value for value in range(first, int(high) + step, step)]


# --- bar charts ---------------------------------------------------------------------------------
class BarChart(Chart):
    """Bars per category: one bar per series side by side, or ``stacked`` on each other.

    ``categories``: one label per category, a string or a list of lines. Every series
    holds one value per category (None: no bar). ``markers``: optional list of
    (name, values, colour, dash) drawn as short dashed horizontal lines across each
    category (e.g. a limit).
    ``value_labels``: print each bar's value above it (grouped bars only).
    """

    def __init__(self, title: str, x_title: str, y_title: str,
                 categories: Iterable[Union[str, Sequence[str]]], series: Iterable[Series],
                 stacked: bool = False,
                 markers: Iterable[Marker] = (), log_y: bool = False, value_labels: bool = False,
                 subtitle: Optional[str] = None) -> None:
        super().__init__(title, x_title, y_title, series, subtitle)
        self.categories = [c if isinstance(c, (list, tuple)) else [c] for c in categories]
        self.stacked = stacked
        self.markers = list(markers)
        self.log_y = log_y
        self.value_labels = value_labels

    def bottom_margin(self) -> int:
        return 44 + CATEGORY_LINE * max(len(lines) for lines in self.categories)

    def legend_entries(self) -> List[Tuple[str, Optional[str], Optional[str]]]:
        entries = super().legend_entries()
        return entries + [(name, colour, dash) for name, _, colour, dash in self.markers]

    def draw_plot(self, out: List[str], plot: Plot) -> None:
        x0, y0, x1, y1 = plot
        count = len(self.categories)
        axis = self._value_axis(y0, y1)
        _y_ticks(out, axis, x0, x1)
        slot = (x1 - x0) / max(count, 1)
        bars = 1 if self.stacked else len(self.series)
        bar_width = min(46.0, slot * 0.8 / bars)
        size = self._category_font_size(slot)
        for index, lines in enumerate(self.categories):
            centre = x0 + slot * (index + 0.5)
            for number, line in enumerate(lines):
                out.append(XML.element("text", line, class_="category", x=fmt(centre),
                                       y=fmt(y1 + 18 + number * CATEGORY_LINE),
                                       style=f"font-size: {fmt(size)}px"))
            self._draw_bars(out, axis, index, centre, bar_width)
            self._draw_markers(out, axis, index, centre, bars * bar_width / 2 + 6)

    def _value_axis(self, y0: float, y1: float) -> Union[LinearAxis, LogAxis]:
        """The y axis from ``y1`` (bottom) to ``y0``, spanning the bars and the markers."""
        count = len(self.categories)
        if self.stacked:
            tops = [sum(one.values[i] or 0 for one in self.series) for i in range(count)]
        else:
            tops = [v for one in self.series for v in one.values if v is not None]
        tops += [v for _, values, _, _ in self.markers for v in values if v is not None]
        high = max(tops or [1]) or 1
        if self.log_y:
            positive = [v for v in tops if v > 0] or [1]
            return LogAxis(min(positive), max(positive), y1, y0)
        # Headroom above the highest bar for its value label and the markers.
        whole = all(float(v).is_integer() for v in tops)
        room = 1.06 if self.value_labels or self.markers else 1.0
        return LinearAxis(0, high * room, y1, y0, integers=whole)

    def _category_font_size(self, slot: float) -> float:
        """Category labels must not run into their neighbours: with many categories the
        font shrinks so that the longest line fits its slot (a glyph of the sans font
        is about 0.6 em wide), down to 7 px."""
        longest = max(len(line) for lines in self.categories for line in lines)
        return max(7.0, min(11.0, (slot - 6) / (0.6 * max(longest, 1))))

    def _draw_bars(self, out: List[str], axis: Union[LinearAxis, LogAxis], index: int,
                   centre: float, bar_width: float) -> None:
        """The bars of category ``index``, stacked or side by side around ``centre``."""
        base = axis.position(_base(axis))
        stacked_top = 0.0
        # Grouped bars: the series with a value here share the slot, centred.
        present = [one for one in self.series if one.values[index] is not None]
        for number, one in enumerate(present):
            value = one.values[index]
            if self.stacked:
                left = centre - bar_width / 2
                bottom = axis.position(stacked_top) if stacked_top else base
                stacked_top += value
                top = axis.position(stacked_top)
            else:
                left = centre - len(present) * bar_width / 2 + number * bar_width
                bottom = base
                top = axis.position(value) if value > 0 or not self.log_y else base
            out.append(XML.element(
                "rect", XML.element("title", f"{one.name}: {tick_text(value)}"), class_="bar",
                x=fmt(left + 1), y=fmt(min(top, bottom)), width=fmt(bar_width - 2),
                height=fmt(abs(bottom - top)), fill=one.colour, data_series=one.name,
                data_x=index, data_y=value))
            if self.value_labels and not self.stacked:
                out.append(XML.element("text", tick_text(value), class_="label",
                                       x=fmt(left + bar_width / 2), y=fmt(top - 3)))

    def _draw_markers(self, out: List[str], axis: Union[LinearAxis, LogAxis], index: int,
                      centre: float, half: float) -> None:
        """The markers' dashed lines across category ``index``, ``half`` wide each side."""
        for name, values, colour, dash in self.markers:
            value = values[index]
            if value is None:
                continue
            y = axis.position(value)
            out.append(XML.element("line", class_="marker", x1=fmt(centre - half), y1=fmt(y),
                                   x2=fmt(centre + half), y2=fmt(y), stroke=colour,
                                   stroke_width="2", stroke_dasharray=dash, data_series=name,
                                   data_x=index, data_y=value))


def _base(axis: Union[LinearAxis, LogAxis]) -> float:
    """The value bars grow from: 0 on a linear axis, the lowest decade on a log axis."""
    return 0 if isinstance(axis, LinearAxis) else 10.0 ** axis.low_exponent


# --- documents -----------------------------------------------------------------------------------
def render_svg(charts: Sequence[Chart], gap: float = 24) -> str:
    """One SVG document with the charts stacked top to bottom."""
    width = max(chart.size()[0] for chart in charts)
    height = sum(chart.size()[1] for chart in charts) + gap * (len(charts) - 1)
    out: List[str] = [XML.element("rect", x="0", y="0", width=width, height=fmt(height),
                                  fill="#ffffff")]
    top: float = 0
    for chart in charts:
        chart.render(out, top)
        top += chart.size()[1] + gap
    return XML.fill(asset(ASSETS, "picture.svg"), width=width, height=fmt(height),
                    style=asset(ASSETS, "chart.css"),
                    body=XML.join((Markup(line), Markup("\n")) for line in out))


def render_html(title: str, sections: Iterable[Tuple[str, Optional[str], Sequence[Chart]]]) -> str:
    """An HTML page: ``sections`` = [(heading, paragraph or None, [charts])]."""
    parts = []
    for heading, text, charts in sections:
        parts.append(XML.element("h2", heading))
        if text:
            parts.append(XML.element("p", text))
        svg = render_svg(charts)
        parts.append(Markup(svg.split("\n", 1)[1]))      # without the XML declaration
    return XML.fill(asset(ASSETS, "charts.html"), title=title,
                    sections=XML.join((part, Markup("\n")) for part in parts))
