"""The ladder's pages: the leaderboard, a game's replay, a student's own page.

Templates are Jinja2 with autoescaping on (every entrant-controlled string is escaped;
names and logs also pass through :func:`engine.grading.printable.printable`, so control
characters show as escapes). The pages run one script of ours, served from /static
(``script-src 'self'``), and no inline script or style: the Content-Security-Policy is
strict. The replay page is the tournament's own page (:func:`engine.tournament.report.
render`) for a one-game document, with its own policy.
"""

import time

from jinja2 import DictLoader, Environment, select_autoescape
from typing import Any, Dict, Optional, Sequence, Tuple

from ..grading.printable import printable
from ..tournament import report

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
REPLAY_CSP = report.CSP + "; frame-ancestors 'none'"
BAR_WIDTH = 200

_BASE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }} · {{ game_title }} ladder</title>
<link rel="stylesheet" href="/static/ladder.css"></head>
<body><header><a href="/" class="brand">{{ game_title }} ladder</a>
<nav><a href="/">Leaderboard</a><a href="/me">My submissions</a></nav></header>
<main>{% block main %}{% endblock %}</main>
<script src="/static/ladder.js"></script></body></html>
"""

_LEADERBOARD = """{% extends "base" %}{% block main %}
<h1>Leaderboard</h1>
<p class="muted">{{ summary }}. Ratings are Elo (Bradley-Terry over every game), with
their 95% intervals drawn; staff anchors are marked. The page updates itself.</p>
<table id="leaderboard" class="board" data-scale-low="{{ scale[0] }}"
 data-scale-high="{{ scale[1] }}"><thead><tr><th>#</th><th>name</th><th>rating</th>
<th>95% interval</th><th>games</th><th>W-D-L</th><th>submission</th></tr></thead>
<tbody id="leaderboard-rows">
{% for row in rows %}<tr data-name="{{ row.name }}"><td>{{ loop.index }}</td>
<td>{{ row.shown }}{% if row.staff %} <span class="badge">staff</span>{% endif %}</td>
<td class="n">{{ row.rating_text }}</td>
<td>{% if row.bar %}<svg class="interval" width="{{ bar_width }}" height="14"
 viewBox="0 0 {{ bar_width }} 14"><rect class="range" x="{{ row.bar[0] }}" y="4"
 width="{{ row.bar[1] }}" height="6"></rect><rect class="point" x="{{ row.bar[2] }}"
 y="1" width="2" height="12"></rect></svg>{% endif %}</td>
<td class="n">{{ row.games }}</td><td class="n">{{ row.wins }}-{{ row.draws }}-{{ row.losses }}</td>
<td class="n">{{ row.submission }}</td></tr>
{% endfor %}</tbody></table>
<h2>Recent games</h2>
<table class="games"><thead><tr><th>game</th><th>size</th><th>X</th><th>O</th>
<th>result</th><th>score</th><th></th></tr></thead><tbody id="recent-games">
{% for game in games %}<tr><td class="n">{{ game.id }}</td><td>{{ game.size }}</td>
<td>{{ game.x }}</td><td>{{ game.o }}</td><td>{{ game.result }}</td>
<td class="n">{{ game.score }}</td><td><a href="/games/{{ game.id }}#game-0">replay</a></td></tr>
{% endfor %}</tbody></table>
{% endblock %}"""

_LOGIN = """{% extends "base" %}{% block main %}
<h1>My submissions</h1>
<p>Log in with the token your instructor gave you.</p>
{% if error %}<p class="error">{{ error }}</p>{% endif %}
<form method="post" action="/login" class="login">
<input type="hidden" name="csrf" value="{{ csrf }}">
<label>token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">log in</button></form>
{% endblock %}"""

_ME = """{% extends "base" %}{% block main %}
<h1>{{ name }}</h1>
<form method="post" action="/logout" class="logout">
<input type="hidden" name="csrf" value="{{ csrf }}"><button type="submit">log out</button></form>
{% if message %}<p class="{{ message_class }}" id="message">{{ message }}</p>{% endif %}
<h2>Upload an agent</h2>
<form method="post" action="/me/upload" enctype="multipart/form-data" id="upload">
<input type="hidden" name="csrf" value="{{ csrf }}">
<input type="file" name="file" accept=".zip,.tar.gz,.tgz" required>
<button type="submit">upload</button>
<span class="muted">a .zip or .tar.gz of your folder (at most {{ upload_mb }} MB): a
Makefile (make agent, run) or {{ entry_points }}</span></form>
<h2>Submissions</h2>
{% if not submissions %}<p class="muted">None yet.</p>{% endif %}
{% for sub in submissions %}<section class="submission" id="submission-{{ sub.id }}">
<h3>Submission {{ sub.id }} <span class="status {{ sub.status }}">{{ sub.status }}</span></h3>
<p class="muted">uploaded {{ sub.when }} · {{ sub.size }} bytes · {{ sub.games }} games
{% if sub.current %}· <b>playing now</b>{% endif %}</p>
{% if sub.build_log %}<h4>Build errors</h4><pre class="log">{{ sub.build_log }}</pre>{% endif %}
{% if sub.forfeits %}<h4>Forfeits</h4>{% for f in sub.forfeits %}
<details class="forfeit"><summary>game <a href="/games/{{ f.game }}#game-0">{{ f.game }}</a>:
{{ f.reason }}</summary><pre class="log">{{ f.detail }}</pre></details>{% endfor %}{% endif %}
</section>{% endfor %}
{% endblock %}"""

_ERROR = """{% extends "base" %}{% block main %}<h1>{{ title }}</h1><p>{{ message }}</p>
{% endblock %}"""

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1c2230;background:#f5f6f8}
header{display:flex;gap:2em;align-items:center;padding:.6em 1.5em;background:#24406e}
header a{color:#fff;text-decoration:none;margin-right:1.2em}.brand{font-weight:600}
main{max-width:70em;margin:1em auto;padding:0 1.5em}
table{border-collapse:collapse;background:#fff;margin:.5em 0 1.5em}
th,td{padding:.3em .7em;border-bottom:1px solid #dfe3ea;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.badge{font-size:.75em;background:#e9a23b;color:#1c2230;border-radius:3px;padding:0 .3em}
.muted{color:#5f6b7e}.error{color:#a4161a;font-weight:600}.ok{color:#1b7a3d}
svg.interval .range{fill:#9fb3d6}svg.interval .point{fill:#24406e}
pre.log{background:#1c2230;color:#e8e8e8;padding:.6em;overflow:auto;max-height:20em}
.status{font-size:.8em;padding:0 .4em;border-radius:3px;background:#dfe3ea}
.status.ready{background:#c7ecd3}.status.failed{background:#f6c9c9}
section.submission{background:#fff;padding:.3em 1em;margin:.6em 0;border:1px solid #dfe3ea}
form{margin:.6em 0}form.logout{float:right}
"""

SCRIPT = r"""(function () {
"use strict";
var table = document.getElementById("leaderboard");
if (!table) { return; }
var WIDTH = 200;
function cell(row, text, numeric) {
  var td = document.createElement("td");
  if (numeric) { td.className = "n"; }
  td.textContent = text;
  row.appendChild(td);
  return td;
}
function signed(value) {
  var r = Math.round(value);
  return (r > 0 ? "+" : "") + r;
}
function bar(td, row, low, high) {
  if (row.rating === null) { return; }
  var ns = "http://www.w3.org/2000/svg";
  var span = Math.max(high - low, 1);
  function x(v) { return Math.max(0, Math.min(WIDTH - 2, (v - low) / span * (WIDTH - 2))); }
  var svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "interval");
  svg.setAttribute("width", WIDTH); svg.setAttribute("height", 14);
  svg.setAttribute("viewBox", "0 0 " + WIDTH + " 14");
  var range = document.createElementNS(ns, "rect");
  range.setAttribute("class", "range");
  range.setAttribute("x", x(row.rating_low)); range.setAttribute("y", 4);
  range.setAttribute("width", Math.max(x(row.rating_high) - x(row.rating_low), 1));
  range.setAttribute("height", 6);
  var point = document.createElementNS(ns, "rect");
  point.setAttribute("class", "point");
  point.setAttribute("x", x(row.rating)); point.setAttribute("y", 1);
  point.setAttribute("width", 2); point.setAttribute("height", 12);
  svg.appendChild(range); svg.appendChild(point);
  td.appendChild(svg);
}
function draw(rows) {
  var rated = rows.filter(function (r) { return r.rating !== null; });
  var low = Math.min.apply(null, rated.map(function (r) { return r.rating_low; }).concat([-100]));
  var high = Math.max.apply(null, rated.map(function (r) { return r.rating_high; }).concat([100]));
  var body = document.createElement("tbody");
  body.id = "leaderboard-rows";
  rows.forEach(function (r, i) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-name", r.name);
    cell(tr, String(i + 1));
    var name = cell(tr, r.name);
    if (r.staff) {
      var badge = document.createElement("span");
      badge.className = "badge"; badge.textContent = "staff";
      name.appendChild(document.createTextNode(" ")); name.appendChild(badge);
    }
    cell(tr, r.rating === null ? "—" : signed(r.rating), true);
    bar(cell(tr, ""), r, low, high);
    cell(tr, String(r.games), true);
    cell(tr, r.wins + "-" + r.draws + "-" + r.losses, true);
    cell(tr, String(r.submission), true);
    body.appendChild(tr);
  });
  var old = document.getElementById("leaderboard-rows");
  old.parentNode.replaceChild(body, old);
  table.setAttribute("data-updated", String(Date.now()));
}
function poll() {
  fetch("/api/leaderboard", {credentials: "omit"}).then(function (response) {
    return response.ok ? response.json() : null;
  }).then(function (rows) { if (rows) { draw(rows); } })
    .catch(function () {}).then(function () { setTimeout(poll, 3000); });
}
setTimeout(poll, 3000);
})();
"""

# The tab's icon (browsers ask for /favicon.ico): an X and an O.
ICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
        '<rect width="16" height="16" rx="3" fill="#24406e"/><path d="M3 3l5 5M8 3L3 8" '
        'stroke="#fff" stroke-width="1.6"/><circle cx="11" cy="11" r="2.6" fill="none" '
        'stroke="#e9a23b" stroke-width="1.6"/></svg>')

_ENV = Environment(loader=DictLoader({"base": _BASE, "leaderboard": _LEADERBOARD,
                                      "login": _LOGIN, "me": _ME, "error": _ERROR}),
                   autoescape=select_autoescape(default=True, default_for_string=True))


def shown(text: Any, limit: int = 200) -> str:
    """An untrusted string as it may be shown (escaped later by the template)."""
    text = printable(str(text))
    return text if len(text) <= limit else text[:limit] + "…"


def _bar(row: Dict[str, Any], low: float, high: float) -> Optional[Tuple[float, float, float]]:
    if row["rating"] is None:
        return None
    span = max(high - low, 1.0)

    def x(value: float) -> float:
        return round(max(0.0, min(BAR_WIDTH - 2, (value - low) / span * (BAR_WIDTH - 2))), 1)
    return (x(row["rating_low"]), max(round(x(row["rating_high"]) - x(row["rating_low"]), 1),
                                      1), x(row["rating"]))


def leaderboard(game_title: str, rows: Sequence[Dict[str, Any]], games: Sequence[Dict[str, Any]],
                summary: Any) -> str:
    rated = [row for row in rows if row["rating"] is not None]
    low = min([row["rating_low"] for row in rated] + [-100.0])
    high = max([row["rating_high"] for row in rated] + [100.0])
    shown_rows = []
    for row in rows:
        rating = "—" if row["rating"] is None else f"{round(row['rating']):+d}"
        shown_rows.append(dict(row, shown=shown(row["name"], 60), rating_text=rating,
                               bar=_bar(row, low, high)))
    shown_games = [{"id": game["id"], "size": shown(game["size"], 20),
                    "x": shown(game["x"], 60), "o": shown(game["o"], 60),
                    "result": {"x": "1–0", "o": "0–1", "draw": "½–½"}.get(game["result"], "?")
                    + (f" (forfeit: {shown(game['forfeit']['reason'], 40)})"
                       if game.get("forfeit") else ""),
                    "score": " – ".join(str(v) for v in game.get("score") or [])}
                   for game in games]
    return _ENV.get_template("leaderboard").render(
        title="Leaderboard", game_title=game_title, rows=shown_rows, games=shown_games,
        scale=(low, high), bar_width=BAR_WIDTH, summary=summary)


def login(game_title: str, csrf: str, error: Optional[str] = None) -> str:
    return _ENV.get_template("login").render(title="Log in", game_title=game_title,
                                             csrf=csrf, error=error)


def me(game_title: str, name: str, csrf: str, view: Dict[str, Any], settings: Dict[str, Any],
       entry_points: str, message: Optional[str] = None, message_class: str = "ok") -> str:
    """A student's own page: ``view`` holds ``versions`` (their submissions, newest
    first, each with its rating), ``current`` (the id that plays), ``history`` (rating
    points) and ``frozen`` (when uploads closed, or None)."""
    subs = []
    for sub in view["versions"]:
        subs.append(dict(sub, when=time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                 time.gmtime(sub["created"])),
                         current=sub["id"] == view["current"],
                         build_log=shown_log(sub["build_log"]),
                         forfeits=[{"game": f["game"], "reason": shown(f["reason"], 40),
                                    "detail": shown_log(f["detail"])}
                                   for f in sub["forfeits"]]))
    return _ENV.get_template("me").render(
        title=name, game_title=game_title, name=shown(name, 60), csrf=csrf,
        submissions=subs, upload_mb=settings["upload_mb"], entry_points=entry_points,
        message=message, message_class=message_class)


def shown_log(text: Any) -> str:
    """A log (several lines) as shown: each line printable, newlines kept."""
    return printable(str(text or ""), newlines=True)[-8000:]


def error(game_title: str, title: str, message: str) -> str:
    return _ENV.get_template("error").render(title=title, game_title=game_title,
                                             message=message)


def game(game_title: str, settings: Dict[str, Any], record: Dict[str, Any],
         players: Dict[str, Dict[str, Any]]) -> str:
    """A finished game's page: the replay board (the tournament's stepping board)."""
    document = {"game": settings["game"], "format": "ladder", "time": settings["time"],
                "seed": settings["seed"], "sizes": settings["sizes"],
                "isolation": settings.get("isolation", ""), "complete": True,
                "entrants": [], "games": [record]}
    return report.render(document)


def static(name: str) -> Optional[Tuple[str, str]]:
    """(media type, text) of the static file ``name``, or None."""
    if name == "ladder.js":
        return "text/javascript", SCRIPT
    if name == "ladder.css":
        return "text/css", STYLE
    return None
