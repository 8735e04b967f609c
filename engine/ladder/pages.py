"""The ladder's pages: the leaderboard, a game, a student's own page, the login and error
pages, and the files they load. This module renders; engine.ladder.web.site decides.

Templates are Jinja2 files (engine/ladder/templates/*.html) with autoescaping on: every
string an entrant controls is escaped, and names and logs also pass through
:func:`engine.grading.printable.printable`, so that control characters show as escapes.
Styles and scripts are files served from /static (engine/ladder/static/, and the
tournament's replay board: :data:`engine.tournament.report.SCRIPT` and
:data:`~engine.tournament.report.BOARD_STYLE`). No page holds an inline script or style,
so the policy :data:`CSP` is strict: ``script-src 'self'; style-src 'self'``.
"""

import math
import pkgutil
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from jinja2 import Environment, PackageLoader, select_autoescape

from ..grading.printable import printable
from ..markup import preload_assets
from ..pictures import charts
from ..tournament import report

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
BAR_WIDTH = 200
RESULTS = {"x": "1–0", "o": "0–1", "draw": "½–½"}
NAME_CHARS, REASON_CHARS, LOG_CHARS = 60, 40, 8000

# name -> media type of what /static serves (nothing else is served: no path is built
# from the request). ladder.css, ladder.js and icon.svg are engine/ladder/static's.
STATIC_FILES = {"ladder.css": "text/css", "ladder.js": "text/javascript",
                "icon.svg": "image/svg+xml", "replay.css": "text/css",
                "replay.js": "text/javascript"}

# Templates are compiled once and never looked at again (auto_reload off): the web
# process may run as a user who cannot read the package's folder (see preload()).
_ENV = Environment(loader=PackageLoader("engine.ladder", "templates"), auto_reload=False,
                   cache_size=-1,
                   autoescape=select_autoescape(default=True, default_for_string=True))
_STATIC: Dict[str, bytes] = {}


def _render(template: str, game_title: str, title: str, **values: Any) -> str:
    return _ENV.get_template(template).render(game_title=game_title, title=title, **values)


def shown(text: Any, limit: int = 200) -> str:
    """An untrusted string as it may be shown (escaped later by the template)."""
    text = printable(str(text))
    return text if len(text) <= limit else text[:limit] + "…"


def shown_log(text: Any) -> str:
    """A log (several lines) as shown: each line printable, newlines kept, its end."""
    return printable(str(text or ""), newlines=True)[-LOG_CHARS:]


def when(at: float) -> str:
    """A time as the pages say it (UTC, to the minute)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def rating_text(rating: Optional[Sequence[Optional[float]]]) -> str:
    """``+120 (95%: +60 … +180)`` of a (rating, low, high); "" without one."""
    if not rating or rating[0] is None:
        return ""
    text = f"{round(rating[0]):+d}"
    if len(rating) > 2 and rating[1] is not None and rating[2] is not None:
        text += f" (95%: {round(rating[1]):+d} … {round(rating[2]):+d})"
    return text.replace("-", "−")


def result_text(record: Dict[str, Any], winner: str = "") -> str:
    """The result and its public reason category: ``1–0 · O forfeited: no output``;
    with the ``winner``'s name: ``ann (X) won 1–0 · ...``, ``a draw, ½–½``."""
    result = record.get("result") or ""
    text = RESULTS.get(result, "?")
    if winner and result in ("x", "o"):
        text = f"{winner} ({result.upper()}) won {text}"
    elif winner and result == "draw":
        text = f"a draw, {text}"
    forfeit = record.get("forfeit")
    if isinstance(forfeit, dict):
        side = str(forfeit.get("player", "?")).upper()
        text += f" · {shown(side, 2)} forfeited: {shown(forfeit.get('reason'), REASON_CHARS)}"
    return text


# --- the pages ------------------------------------------------------------------------------

def error(game_title: str, heading: str, words: str) -> str:
    """The page of a refusal or failure saying ``heading``: ``words`` (which name the
    limit: "the archive is larger than 8 MB")."""
    return _render("error.html", game_title, heading, heading=heading, words=words)


def login(game_title: str, csrf: str, error: Optional[str] = None) -> str:
    return _render("login.html", game_title, "Log in", csrf=csrf, error=error)


def leaderboard(rules: Any, rows: Sequence[Dict[str, Any]], games: Sequence[Dict[str, Any]],
                summary: str) -> str:
    """The standings (``rows`` as /api/leaderboard's) and the recent ``games`` (public
    records) of the game of ``rules``; the page's script refreshes the table from
    /api/leaderboard every 3 s."""
    rated = [row for row in rows if row["rating"] is not None]
    low = min([row["rating_low"] for row in rated] + [-100.0])
    high = max([row["rating_high"] for row in rated] + [100.0])
    shown_rows = [dict(row, shown=shown(row["name"], NAME_CHARS),
                       rating_text="—" if row["rating"] is None
                       else f"{round(row['rating']):+d}", bar=_bar(row, low, high))
                  for row in rows]
    shown_games = [{"id": game["id"], "size": size_label(rules, game.get("size")),
                    "x": shown(game["x"], NAME_CHARS), "o": shown(game["o"], NAME_CHARS),
                    "result": result_text(game),
                    "score": " – ".join(str(v) for v in game.get("score") or [])}
                   for game in games]
    return _render("leaderboard.html", rules.title, "Leaderboard", rows=shown_rows,
                   games=shown_games, bar_width=BAR_WIDTH, summary=summary)


def _bar(row: Dict[str, Any], low: float, high: float) -> Optional[Tuple[float, float, float]]:
    """(x, width, point) of a row's interval bar on the scale [low, high]."""
    if row["rating"] is None:
        return None
    span = max(high - low, 1.0)

    def x(value: float) -> float:
        return round(max(0.0, min(BAR_WIDTH - 2, (value - low) / span * (BAR_WIDTH - 2))), 1)
    return (x(row["rating_low"]), max(round(x(row["rating_high"]) - x(row["rating_low"]), 1),
                                      1), x(row["rating"]))


def game(rules: Any, settings: Dict[str, Any], record: Dict[str, Any],
         players: Dict[str, Dict[str, Any]]) -> str:
    """A finished game's page: the board and its replay first (the tournament's board,
    :func:`engine.tournament.report.game_board`), both players with their submission
    and rating (``players``: {"x"/"o": {"player", "submission", "staff", "rating"}}),
    the result and its reason category. ``record`` is the public record: it carries no
    forfeit detail, and none is shown. ``rules``: the game's (engine.tournament.games)."""
    document = {"game": settings["game"], "format": "ladder", "time": settings["time"],
                "seed": settings["seed"], "sizes": settings["sizes"], "complete": True,
                "entrants": [], "games": [record]}
    sides = [{"side": side, "name": shown(players[side]["player"], NAME_CHARS),
              "staff": players[side].get("staff"), "won": record.get("result") == side,
              "submission": players[side]["submission"],
              "rating": rating_text(players[side].get("rating"))} for side in ("x", "o")]
    kind = "a challenge" if record.get("kind") == "challenge" else "a ladder game"
    if record.get("rated") is False:
        kind += ", not rated"
    winner = next((side["name"] for side in sides if side["won"]), "-")
    facts = {"id": record.get("id"), "size": size_label(rules, record.get("size")),
             "kind": kind, "result": result_text(record, winner)}
    return _render("game.html", rules.title, f"Game {record.get('id')}", game=facts,
                   players=sides, board=report.game_board(document))


def size_label(rules: Any, size: Any) -> str:
    """A record's board size as the game's rules name it (``5x5``), else as recorded."""
    try:
        return str(rules.size_label(rules.parse_sizes(str(size))[0]))
    except (ValueError, IndexError):
        return shown(size, 20)


def me(game_title: str, name: str, csrf: str, view: Dict[str, Any],
       message: Optional[str] = None, message_class: str = "ok") -> str:
    """A student's own page. ``view`` holds ``versions`` (their submissions, newest
    first, as the store's view with ``rating`` and ``played``: that version's latest
    games, public records), ``current`` (the id that plays, or None), ``history`` (the
    rating points, oldest first), ``frozen`` (when uploads closed, or None),
    ``opponents`` (names one may challenge) and ``limits`` (upload_mb,
    uploads_per_minute, challenges, challenges_per_hour, entry_points)."""
    versions = [_version(sub, view["current"], name) for sub in view["versions"]]
    playing = next((sub for sub in versions if sub["current"]), None)
    frozen = view.get("frozen")
    return _render(
        "me.html", game_title, name, name=shown(name, NAME_CHARS), csrf=csrf,
        versions=versions, playing=playing, frozen=None if frozen is None else when(frozen),
        opponents=[shown(other, NAME_CHARS) for other in view.get("opponents", ())],
        chart=history_chart(view["history"]), message=message,
        message_class=message_class, **view["limits"])


def _version(sub: Dict[str, Any], current: Optional[int], name: str) -> Dict[str, Any]:
    """A submission as /me shows it: its rating, build log, forfeits and games."""
    played = []
    for record in sub.get("played", ()):
        colour = "x" if record.get("x") == name else "o"
        other = record.get("o" if colour == "x" else "x")
        outcome = result_text(record)
        if record.get("result") in ("x", "o"):
            outcome = ("won " if record["result"] == colour else "lost ") + outcome
        played.append({"id": record.get("id"), "colour": colour.upper(),
                       "opponent": shown(other, NAME_CHARS), "outcome": outcome,
                       "score": " – ".join(str(v) for v in record.get("score") or [])})
    return dict(sub, when=when(sub["created"]), current=sub["id"] == current,
                rating=rating_text(sub.get("rating")), build_log=shown_log(sub["build_log"]),
                forfeits=[{"game": f["game"], "reason": shown(f["reason"], REASON_CHARS),
                           "detail": shown_log(f["detail"])} for f in sub["forfeits"]],
                played=played)


def history_chart(history: Sequence[Dict[str, Any]]) -> Optional[str]:
    """The rating history as an inline SVG line chart (engine.pictures.charts, styled by
    ladder.css: an SVG <style> would be refused by the policy), one line per submission,
    against the games the player had played by then (all versions). None without a
    point. The SVG's text is escaped by the chart; the template shows it as it is."""
    lines: Dict[int, List[Tuple[int, float]]] = {}
    latest: Dict[int, int] = {}           # submission -> its games at its latest point
    for point in history:
        if point.get("rating") is None or not math.isfinite(point["rating"]):
            continue
        submission = int(point["submission"])
        latest[submission] = int(point["games"])
        played = sum(latest.values())
        lines.setdefault(submission, []).append((played, round(float(point["rating"]), 1)))
    if not lines:
        return None
    chart = charts.LineChart(
        "Rating after each update", "games played (all your submissions)",
        "rating (Elo)", [charts.Series(f"submission {sid}", points)
                         for sid, points in sorted(lines.items())])
    width, height = chart.size()
    out = [f'<svg class="history" id="history" xmlns="http://www.w3.org/2000/svg" '
           f'viewBox="0 0 {width} {height:g}" role="img" aria-label="rating history">']
    chart.render(out)
    out.append("</svg>")
    return "".join(out)


# --- the files ------------------------------------------------------------------------------

def static(name: str) -> Optional[Tuple[str, bytes]]:
    """(media type, bytes) of the static file ``name``, or None when there is none."""
    media = STATIC_FILES.get(name)
    if media is None:
        return None
    if name == "replay.js":
        return media, report.SCRIPT.encode("utf-8")
    if name == "replay.css":
        return media, report.BOARD_STYLE.encode("utf-8")
    data = _STATIC.get(name)
    if data is None:
        data = pkgutil.get_data(__package__, f"static/{name}")
        if data is None:
            return None
        _STATIC[name] = data
    return media, data


def preload() -> None:
    """Compile every template, read every static file and the tournament's and the
    pictures' assets the pages use now, while the process can still read the code's
    folders (the web process calls this before it drops root)."""
    for name in _ENV.list_templates():
        _ENV.get_template(name)
    for name in STATIC_FILES:
        static(name)
    for package in (report.__name__.rpartition(".")[0], charts.__name__.rpartition(".")[0]):
        preload_assets(package)


def icon() -> bytes:
    """The tab's icon (browsers ask for /favicon.ico): an X and an O."""
    found = static("icon.svg")
    return found[1] if found else b""
