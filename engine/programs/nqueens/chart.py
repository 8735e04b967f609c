"""The N-Queens time picture: CPU seconds (log scale) against N, one line per search.

Reached through :mod:`engine.programs.nqueens` (``table --svg FILE``, ``a4 --svg FILE``);
no ``main`` here. The times are read back from the table lines the program printed
(the same reader ``nqueens check`` uses), so the picture shows exactly the printed
numbers. On a log scale exponential growth is a straight line: the assignment's
"observe the exponential nature of the search" at a glance.
"""

from typing import Iterable, List, Optional, Tuple

from ...pictures import charts
from ...commandline import write_atomically
from .check import ROW, read_tables

Points = List[Tuple[int, float]]     # [(N, seconds)]

SUBTITLE = ("log scale: a straight line is exponential growth; times of 0 (too short to "
            "measure) are left out")


def times_from_lines(lines: Iterable[str]) -> Points:
    """[(N, seconds)] from table lines (header and rows), rows without a time skipped."""
    points = []
    for line in lines:
        row = ROW.fullmatch(line)
        if row and row.group(6) is not None:
            points.append((int(row.group(1)), float(row.group(6))))
    return points


def time_chart(series: List[Tuple[str, Points]],
               title: str = "N-Queens: search time against board size") -> charts.LineChart:
    """A log-scale line chart of ``series`` = [(name, [(N, seconds)])]."""
    return charts.LineChart(title, "board size N", "CPU seconds (log scale)",
                            [charts.Series(name, points) for name, points in series],
                            log_y=True, subtitle=SUBTITLE)


def write_time_chart(path: str, series: List[Tuple[str, Points]],
                     title: Optional[str] = None) -> None:
    chart = time_chart(series) if title is None else time_chart(series, title)
    write_atomically(path, charts.render_svg([chart]))


def a4_series(text: str) -> List[Tuple[str, Points]]:
    """Q1-Q4's series [(name, points)] from the text of an A4 output file."""
    tables, _ = read_tables(text)
    series = []
    for table in tables:
        if table.question in ("Q1", "Q2", "Q3", "Q4"):
            points = [(int(row.group(1)), float(row.group(6))) for _, row in table.rows
                      if row.group(6) is not None]
            name = f"{table.question}: {table.variation} {table.search or ''}".rstrip()
            series.append((name, points))
    return series
