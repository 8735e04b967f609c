"""A tournament results document as one self-contained HTML page (``render``).

The page opens from disk and fetches nothing: inline CSS, one inline script (allowed by
its hash in the page's Content-Security-Policy, so that nothing injected could run even
if an escape were missed), inline SVG. It shows the header (game, format, time control,
sizes, seed, isolation, completeness, SPRT), the standings (ratings with their 95%
intervals drawn on a common scale; entrants that did not build listed apart), the
crosstable, the pentanomial counts, the knockout bracket, the forfeits (the end of the
entrant's stderr) and every game, each replayable move by move on a drawn board.

Every string of the document is untrusted (entrants name their folders and write their
stderr): it is cut to a sensible length, its control characters are shown as backslash
escapes (:func:`engine.grading.printable.printable`) and it is HTML-escaped. A malformed
document (missing keys, wrong types, an unknown game, garbage moves) still renders:
what cannot be read shows as ``?`` or ``—`` and a section that cannot be drawn says so.

Replays: the positions come from the rules (:func:`engine.tournament.games.positions`),
computed here and embedded as JSON in ``<script type="application/json"
id="replay-data">`` (``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\\uXXXX``)::

    {"game": "stake_raid", "base": 1,          # base: the number of the top row
     "games": [null | {                         # one per record of "games", in order
         "n": 5,                                # rows (= columns) of the board
         "b": ".........................",      # the start position, rows joined
         "d": ["X0c", "O0dX0e", ...],           # per move: what changed, as triples
                                                #   <mark><cell, 2 base-36 digits>
         "v": [12, 7, ...],                     # Stake/Raid: the cell values
         "m": ["B2 Stake", ...],                # the recorded moves (printable, cut)
         "t": [0.41, null, ...],                # their CPU seconds
         "s": "xoxo",                           # their sides (x, o, ? when garbled)
         "e": "..."}]}                          # why the replay stops early, if it does

Frame k is the start with the changes of ``d[0..k-1]`` applied; moves past ``len(d)``
could not be replayed (the note ``e`` says why). The board is drawn on demand in the
browser when a game is opened. Measured: a 2,000-game Stake/Raid document (sizes 5, 6,
8, 10; 112,500 moves; 3.7 MB of JSON) gives a 4.2 MB page, rendered in about 7 s.
"""

import base64
import hashlib
import json
import math
import re
from typing import (Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple,
                    Union)
from html import escape as _html_escape

from ..grading.printable import printable
from .games import GAMES, LineEmUpRules, positions
from .results import placing_rank

# How much of an untrusted text is shown: names and the like are cut short (a name is
# repeated on every row of the games list); a forfeit's detail is the END of a stderr;
# a build error keeps its start (the failing command) and its end (the error).
NAME_CHARS = 60
PATH_CHARS = 200
WORD_CHARS = 40
MOVE_CHARS = 40
DETAIL_TAIL = 4096
BUILD_HEAD, BUILD_TAIL = 1024, 3072
# A replay without a board shows at most this many recorded moves.
MOVES_WITHOUT_BOARD = 1000

_ROW_BASE: Dict[Optional[str], int] = {"stake_raid": 1, "lineemup": 0}
_CELL_NAME = re.compile(r"^[A-Z][0-9]{1,2}$")


# --- reading an untrusted document ----------------------------------------------------

def _dict(value: object) -> Dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> List[Any]:
    return value if isinstance(value, list) else []


def _number(value: object) -> Optional[float]:
    """``value`` when it is a finite int or float (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    # Past 10**15 a number is garbage, and formatting it could overflow a float.
    if not (isinstance(value, int) or math.isfinite(value)) or abs(value) > 10 ** 15:
        return None
    return value


def _key(value: object) -> Optional[str]:
    """The identity of an entrant name as it appears in records (None when absent)."""
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def _cut(text: object, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"


def _h(value: object, limit: Optional[int] = None, newlines: bool = False) -> str:
    """``value`` as HTML text: cut to ``limit`` characters, controls shown, escaped."""
    if value is None:
        return ""
    text = str(value)
    if limit is not None:
        text = _cut(text, limit)
    return _html_escape(printable(text, newlines))


def _text(value: object, limit: int) -> str:
    """``value`` as plain text (for an attribute or the script): cut, controls shown."""
    return "?" if _key(value) is None else printable(_cut(value, limit))


_FILTER_WORDS = {"allowlist": "seccomp allowlist", "denylist": "seccomp denylist",
                 "none": "no seccomp filter"}


def _syscall_filters(entrants: Iterable[object]) -> str:
    """Which seccomp filter the entrants' moves ran under (their ``seccomp``, from the
    games), as HTML: e.g. "seccomp allowlist (3 entrants), seccomp denylist (1
    entrant)"; "" when no entrant says (no game played, or an older document)."""
    counts: Dict[str, int] = {}
    for entrant in entrants:
        said = entrant.get("seccomp") if isinstance(entrant, dict) else None
        for word in (said.split(", ") if isinstance(said, str) else ()):
            if word in _FILTER_WORDS:
                counts[word] = counts.get(word, 0) + 1
    return ", ".join(f"{_FILTER_WORDS[word]} ({counts[word]} entrant"
                     f"{'s' if counts[word] != 1 else ''})"
                     for word in _FILTER_WORDS if word in counts)


def _missing(text: str = "?") -> str:
    return f'<span class="missing" title="missing or unreadable in the document">{text}</span>'


def _tail(text: object, limit: int = DETAIL_TAIL) -> Tuple[str, str]:
    """The end of a long text, starting on a whole line when one starts near the cut."""
    text = str(text)
    if len(text) <= limit:
        return "", text
    kept = text[-limit:]
    newline = kept.find("\n", 0, 200)
    if newline >= 0:
        kept = kept[newline + 1:]
    return f"… ({len(text) - len(kept):,} earlier characters not shown)\n", kept


def _head_tail(text: object) -> str:
    text = str(text)
    if len(text) <= BUILD_HEAD + BUILD_TAIL:
        return text
    cut = len(text) - BUILD_HEAD - BUILD_TAIL
    return f"{text[:BUILD_HEAD]}\n… ({cut:,} characters not shown) …\n{text[-BUILD_TAIL:]}"


# --- numbers ----------------------------------------------------------------------------

def _minus(text: str) -> str:
    return "−" + text[1:] if text.startswith("-") else text


def _plain(value: object, digits: int = 2) -> str:
    """A number plainly: ``7``, ``7.5``, ``0.25``; ``—`` when it is not a number."""
    number = _number(value)
    if number is None:
        return "—"
    if float(number).is_integer() and abs(number) < 1e15:
        return _minus(str(int(number)))
    return _minus(f"{number:.{digits}f}".rstrip("0").rstrip("."))


def _fixed(value: object, digits: int = 1, signed: bool = False) -> str:
    number = _number(value)
    if number is None:
        return "—"
    return _minus(f"{number:{'+' if signed else ''}.{digits}f}")


def _num_cell(value: object, text: Optional[str] = None) -> str:
    shown = _plain(value) if text is None else text
    return f'<td class="n">{shown}</td>'


# --- the page -----------------------------------------------------------------------------

def render(document: Any) -> str:
    """The HTML text of a tournament results ``document`` (the parsed JSON).

    Args:
        document: the results document (docs/tournament.md); any JSON value is accepted.
    Returns:
        One self-contained HTML page (str).
    Raises:
        Nothing for a malformed document: what cannot be read is marked on the page.
    """
    view = _Tournament(document)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
             f"<title>{_h(view.title)} tournament</title>",
             f"<style>{STYLE}</style></head><body><main>"]
    parts.append(_guarded("header", _header, view))
    parts.append('<nav><a href="#standings">Standings</a><a href="#crosstable">Crosstable</a>'
                 + ('<a href="#pentanomial">Pairs</a>' if view.pentanomial else "")
                 + ('<a href="#knockout">Knockout</a>' if view.knockout else "")
                 + '<a href="#forfeits">Forfeits</a><a href="#games">Games</a></nav>')
    for name, section in (("standings", _standings), ("crosstable", _crosstable),
                          ("pentanomial", _pentanomial), ("knockout", _knockout),
                          ("forfeits", _forfeits), ("games", _games)):
        parts.append(_guarded(name, section, view))
    parts.append(f"</main><script>{SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _guarded(name: str, section: Callable[["_Tournament"], str], view: "_Tournament") -> str:
    """A section's HTML, or a note saying it could not be drawn: a document edited by
    hand must never cost the reader the rest of the page."""
    try:
        return section(view)
    except Exception as error:    # noqa: BLE001 -- any malformation, shown not raised
        return (f'<section id="{name}"><h2>{name.capitalize()}</h2>'
                f'<p class="broken">This section could not be drawn from the document '
                f"({_h(type(error).__name__)}: {_h(error, 200)}).</p></section>")


class _Tournament:
    """The document, read defensively once: entrants in standings order, games."""

    def __init__(self, document: object) -> None:
        doc = _dict(document)
        self.doc = doc
        self.game: Optional[str] = doc.get("game") if isinstance(doc.get("game"), str) \
            else None
        self.rules = GAMES.get(self.game) if self.game else None
        self.title = self.rules.title if self.rules else "Unknown game"
        entrants = _list(doc.get("entrants"))
        self.malformed_entrants = sum(1 for e in entrants if not isinstance(e, dict))
        entrants = [e for e in entrants if isinstance(e, dict)]
        self.eliminated = [e for e in entrants if e.get("build_error")]
        self.ranked = sorted((e for e in entrants if not e.get("build_error")),
                             key=_standing_key)
        self.games = _list(doc.get("games"))
        # A round-robin's games are scheduled as one round: each is shown in the round
        # of the round-robin table its meeting belongs to.
        self.rounds = (_round_robin_rounds([e.get("name") for e in entrants
                                            if not e.get("build_error")], self.games)
                       if doc.get("format") == "round-robin" else {})
        self.pentanomial = _list(doc.get("pentanomial"))
        self.knockout = _list(doc.get("knockout"))
        # The crosstable's order: the standings, then names met only in game records.
        self.names, known = [], set()
        named = [e.get("name") for e in self.ranked]
        named += [_dict(record).get(side) for record in self.games for side in ("x", "o")]
        for name in map(_key, named):
            if name is not None and name not in known:
                known.add(name)
                self.names.append(name)


    def round_of(self, index: int, record: Dict[str, Any]) -> object:
        """The round game ``index`` (its ``record``) is shown in."""
        return self.rounds.get(index, record.get("round"))


def circle_rounds(names: Sequence[str]) -> Dict[FrozenSet[str], int]:
    """{meeting of two of ``names``: its round}, by the circle method (the round-robin
    tables of chess tournaments): each round every entrant meets one other (or sits
    out, with an odd number), ``n - 1`` rounds for ``n`` entrants (``n`` when odd). The
    first entrant stays put and meets the others in their order, one a round, so the
    schedule's first meetings (the first entrant's) come in rounds 1, 2, ..."""
    seats: List[Optional[str]] = list(names) + ([None] if len(names) % 2 else [])
    others, count = seats[1:], len(seats) - 1
    rounds: Dict[FrozenSet[str], int] = {}
    for number in range(count):
        pairs = [(seats[0], others[number])] + [
            (others[(number + step) % count], others[(number - step) % count])
            for step in range(1, len(seats) // 2)]
        for a, b in pairs:
            if a is not None and b is not None:
                rounds[frozenset((a, b))] = number + 1
    return rounds


def _round_robin_rounds(names: Sequence[object], games: Sequence[object]) -> Dict[int, int]:
    """{game index: its round} of a round-robin's ``games`` among the entrants ``names``
    (document order, the schedule's): the circle method's round of the game's meeting;
    with several pairs a meeting, its k-th pair is played in the k-th cycle of rounds
    (rounds k * R + 1 to (k + 1) * R). Games that name no meeting of two entrants are
    left out (shown with their recorded round)."""
    keys = [_key(name) for name in names]
    table = circle_rounds([name for name in keys if name is not None])
    cycle = max(table.values(), default=0)
    meetings: Dict[FrozenSet[str], List[Any]] = {}
    found: Dict[int, Tuple[FrozenSet[str], Any]] = {}
    for index, record in enumerate(games):
        record = _dict(record)
        x, o, pair = _key(record.get("x")), _key(record.get("o")), record.get("pair")
        meeting = frozenset((x, o)) if x is not None and o is not None else frozenset()
        if meeting in table and (pair is None or isinstance(pair, int)):
            found[index] = (meeting, pair)
            if pair not in meetings.setdefault(meeting, []):
                meetings[meeting].append(pair)
    rounds = {}
    for index, (meeting, pair) in found.items():
        ordered = sorted(meetings[meeting], key=lambda value: -1 if value is None else value)
        rounds[index] = ordered.index(pair) * cycle + table[meeting]
    return rounds


def _standing_key(entrant: Dict[str, Any]
                  ) -> Tuple[Tuple[int, int], float, float, float, str]:
    """The standings' order, the very one of the CSV and the terminal
    (:func:`engine.tournament.results.ranked`): the knockout placing first, then points,
    then rating, then fewer games lost by forfeit, then the name (a tie is never left to
    the document's order)."""
    points = _number(entrant.get("points"))
    rating = _number(entrant.get("rating"))
    counts = [_number(count) for count in _dict(entrant.get("forfeits")).values()]
    forfeits = sum(count for count in counts if count is not None)
    return (placing_rank(entrant.get("placing")),
            -(points if points is not None else -math.inf),
            -(rating if rating is not None else -math.inf), forfeits,
            str(_key(entrant.get("name")) or ""))


# --- header -----------------------------------------------------------------------------

_FORMAT_PARAMETERS = (("pairs", "pairs"), ("games_per_match", "games per match"),
                      ("rounds", "rounds"))


def _size_text(game: Optional[str], size: object, short: bool = False) -> str:
    """A board size for people, as plain text: ``5×5``; ``6×6, 4 in a row, 3 blocs``
    (``6×6 s4 b3`` when ``short``); ``?`` when it is missing."""
    if game == "stake_raid" and _number(size) is not None:
        return f"{_plain(size)}×{_plain(size)}"
    if game == "lineemup" and isinstance(size, str) and len(size) <= WORD_CHARS:
        try:
            (line,) = LineEmUpRules.parse_sizes(size)
        except ValueError:
            return printable(size)
        if short:
            return f"{line.n}×{line.n} s{line.s} b{line.b}"
        return f"{line.n}×{line.n}, {line.s} in a row, {line.b} blocs"
    return _text(size, WORD_CHARS)


def _header(view: "_Tournament") -> str:
    doc = view.doc
    rows = []
    game = doc.get("game")
    if view.rules is None:
        rows.append(("game", f'{_missing("unknown")} {_h(game, WORD_CHARS)}'))
    fmt = doc.get("format")
    extras = [f"{label} {_plain(doc.get(key))}" for key, label in _FORMAT_PARAMETERS
              if _number(doc.get(key)) is not None]
    rows.append(("format", (_h(fmt, WORD_CHARS) if fmt is not None else _missing())
                 + (f' <span class="muted">({", ".join(extras)})</span>' if extras else "")))
    seconds = _number(doc.get("time"))
    rows.append(("time control", f"{_plain(seconds)} s of CPU per player per game"
                 if seconds is not None else _missing()))
    sizes = doc.get("sizes")
    rows.append(("board sizes", _html_escape(", ".join(_size_text(game, s) for s in sizes))
                 if isinstance(sizes, list) else _missing()))
    seed = doc.get("seed")
    rows.append(("seed", _h(seed, WORD_CHARS) if seed is not None else _missing()))
    isolation = doc.get("isolation")
    rows.append(("isolation", f"<code>{_h(isolation, PATH_CHARS)}</code>"
                 if isolation else _missing("not recorded")))
    filters = _syscall_filters(view.ranked + view.eliminated)
    if filters:
        rows.append(("system calls", filters))
    if doc.get("shard"):
        rows.append(("shard", _h(doc.get("shard"), WORD_CHARS)))
    played = len(view.games)
    if doc.get("complete") is True:
        status = f'<span class="ok">complete</span>: {played:,} games'
    else:
        status = f'<span class="warn">incomplete: {played:,} games played so far</span>'
    rows.append(("status", status))
    entrants = f"{len(view.ranked) + len(view.eliminated)}"
    if view.eliminated:
        entrants += f" ({len(view.eliminated)} eliminated: the build failed or went over a cap)"
    if view.malformed_entrants:
        entrants += f' {_missing(f"+ {view.malformed_entrants} unreadable")}'
    rows.append(("entrants", entrants))
    meta = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows)
    return (f'<header><h1>{_h(view.title)} tournament</h1><dl class="meta">{meta}</dl>'
            + _sprt(doc.get("sprt")) + "</header>")


def _sprt(sprt: object) -> str:
    if sprt is None:
        return ""
    if not isinstance(sprt, dict):
        return f'<div class="sprt"><b>SPRT</b> {_missing("unreadable")}</div>'
    llr, lower, upper = (_number(sprt.get(k)) for k in ("llr", "lower", "upper"))
    decision = sprt.get("decision")
    first, second = (_h(sprt.get(k), NAME_CHARS) if _key(sprt.get(k)) is not None
                     else _missing() for k in ("a", "b"))
    if decision == "H1":
        verdict = f'<span class="ok">H1 accepted</span>: {first} is stronger than {second}'
    elif decision == "H0":
        verdict = f'<span class="ok">H0 accepted</span>: {first} is not stronger than {second}'
    elif decision is None:
        verdict = '<span class="warn">no decision yet</span>'
    else:
        verdict = _missing(_h(decision, WORD_CHARS))
    hypotheses = (f"H0: Elo ≤ {_plain(sprt.get('elo0'))}, H1: Elo ≥ {_plain(sprt.get('elo1'))}"
                  f", α = {_plain(sprt.get('alpha'), 3)}, β = {_plain(sprt.get('beta'), 3)}")
    bar = ""
    if llr is not None and lower is not None and upper is not None and lower < upper:
        low, high = min(lower, llr), max(upper, llr)
        bar = _llr_bar(llr, lower, upper, low, high)
    return (f'<div class="sprt"><b>SPRT</b> {first} vs {second} · {hypotheses}<br>'
            f"LLR <b>{_fixed(llr, 2)}</b> (bounds {_fixed(lower, 2)} … {_fixed(upper, 2)}) "
            f"{bar} after {_plain(sprt.get('pairs'))} pairs · {verdict}</div>")


def _llr_bar(llr: float, lower: float, upper: float, low: float, high: float,
             width: int = 220) -> str:
    def x(value: float) -> float:
        return 4 + (value - low) / (high - low) * (width - 8)
    return (f'<svg class="llr" width="{width}" height="16" viewBox="0 0 {width} 16">'
            f"<title>LLR {llr:.2f} between {lower:.2f} and {upper:.2f}</title>"
            f'<rect class="track" x="{x(lower):.1f}" y="5" width="{x(upper) - x(lower):.1f}" '
            f'height="6" rx="3"/><line class="zero" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="2" '
            f'y2="14"/><circle class="pt" cx="{x(llr):.1f}" cy="8" r="4.5"/></svg>')


# --- standings --------------------------------------------------------------------------

def _places(ranked: Iterable[Dict[str, Any]]) -> List[int]:
    """1, 2, 2, 4, ...: entrants equal on points and rating share a place."""
    places, previous = [], None
    for index, entrant in enumerate(ranked):
        key = _standing_key(entrant)
        places.append(places[-1] if key == previous else index + 1)
        previous = key
    return places


def _rating_scale(ranked: Iterable[Dict[str, Any]]) -> Tuple[float, float]:
    values = [0.0]
    for entrant in ranked:
        for key in ("rating", "rating_low", "rating_high"):
            number = _number(entrant.get(key))
            if number is not None:
                values.append(number)
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 50, high + 50
    pad = (high - low) * 0.04
    return low - pad, high + pad


def _rating_bar(entrant: Dict[str, Any], scale: Tuple[float, float], width: int = 170) -> str:
    rating = _number(entrant.get("rating"))
    if rating is None:
        return ""
    low, high = scale

    def x(value: float) -> float:
        return max(0.0, min(width, (value - low) / (high - low) * width))
    lower, upper = _number(entrant.get("rating_low")), _number(entrant.get("rating_high"))
    interval = ""
    if lower is not None and upper is not None and lower <= upper:
        interval = (f'<rect class="ci" x="{x(lower):.1f}" y="4" '
                    f'width="{max(x(upper) - x(lower), 1):.1f}" height="8" rx="4"/>')
    title = f"rating {rating:.0f}"
    if interval:
        title += f", 95% interval {lower:.0f} … {upper:.0f}"
    return (f'<svg class="rbar" width="{width}" height="16" viewBox="0 0 {width} 16" '
            f'data-rating="{rating:.1f}"><title>{_minus(title)}</title>'
            f'<line class="axis" x1="0" x2="{width}" y1="8" y2="8"/>'
            f'<line class="zero" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="1" y2="15"/>{interval}'
            f'<circle class="pt" cx="{x(rating):.1f}" cy="8" r="3.5"/></svg>')


def _forfeit_counts(value: object) -> str:
    if value is None or value == {}:
        return "—"
    if not isinstance(value, dict):
        return _missing()
    shown = ", ".join(f"{_h(reason, WORD_CHARS)} {_plain(count)}"
                      for reason, count in list(value.items())[:8])
    return shown + (" …" if len(value) > 8 else "")


def _entrant_name(entrant: Dict[str, Any]) -> str:
    name = entrant.get("name")
    html = _h(name, NAME_CHARS) if _key(name) is not None else _missing("(no name)")
    title = f' title="{_h(entrant.get("path"), PATH_CHARS)}"' if entrant.get("path") else ""
    staff = ' <span class="badge">staff</span>' if entrant.get("staff") is True else ""
    return f"<span{title}>{html}</span>{staff}"


def _standings(view: "_Tournament") -> str:
    ranked = view.ranked
    knockout = view.doc.get("format") == "knockout" or any(e.get("placing") for e in ranked)
    byes = any(_number(e.get("byes")) for e in ranked) or view.doc.get("format") in (
        "swiss", "knockout")
    scale = _rating_scale(ranked)
    head = ["#", "name", "kind", "points", "games", "W", "D", "L",
            '<span title="opponents beaten: more than half the points against them">'
            'beat</span>', "forfeits", "rating",
            f'95% interval <span class="muted">({_fixed(scale[0], 0)} … '
            f"{_fixed(scale[1], 0)})</span>", "CPU / game", "margin"]
    head += ["byes"] if byes else []
    head += ["knockout"] if knockout else []
    parts = ['<section id="standings"><h2>Standings</h2>',
             '<table class="standings"><thead><tr>'
             + "".join(f"<th>{label}</th>" for label in head) + "</tr></thead><tbody>"]
    for place, entrant in zip(_places(ranked), ranked):
        cells = [f'<td class="n">{place}</td>', f'<td class="name">{_entrant_name(entrant)}</td>',
                 f'<td>{_h(entrant.get("kind"), WORD_CHARS)}</td>',
                 f'<td class="n pts">{_plain(entrant.get("points"))}</td>',
                 _num_cell(entrant.get("games")), _num_cell(entrant.get("wins")),
                 _num_cell(entrant.get("draws")), _num_cell(entrant.get("losses")),
                 _num_cell(entrant.get("beaten")),
                 f'<td class="small">{_forfeit_counts(entrant.get("forfeits"))}</td>',
                 _num_cell(None, _fixed(entrant.get("rating"), 0, signed=True)),
                 f'<td class="bar">{_rating_bar(entrant, scale)}</td>',
                 _num_cell(None, _fixed(entrant.get("cpu_per_game"), 1)
                           + (" s" if _number(entrant.get("cpu_per_game")) is not None else "")),
                 _num_cell(None, _fixed(entrant.get("margin"), 1, signed=True))]
        if byes:
            cells.append(_num_cell(entrant.get("byes")))
        if knockout:
            placing = entrant.get("placing")
            cells.append(f'<td>{_h(placing, WORD_CHARS) if placing else "—"}</td>')
        parts.append('<tr data-entrant>' + "".join(cells) + "</tr>")
    if not ranked:
        parts.append(f'<tr><td colspan="{len(head)}" class="muted">No entrant played.</td></tr>')
    parts.append("</tbody></table>")
    if view.eliminated:
        parts.append('<h3>Eliminated: the build failed or went over a cap</h3>'
                     '<table class="eliminated"><thead>'
                     "<tr><th>name</th><th>kind</th><th>folder</th><th>build error</th></tr>"
                     "</thead><tbody>")
        for entrant in view.eliminated:
            parts.append(f'<tr data-entrant><td class="name">{_entrant_name(entrant)}</td>'
                         f'<td>{_h(entrant.get("kind"), WORD_CHARS)}</td>'
                         f'<td><code>{_h(entrant.get("path"), PATH_CHARS)}</code></td>'
                         f'<td><pre>{_h(_head_tail(entrant.get("build_error")), None, True)}'
                         "</pre></td></tr>")
        parts.append("</tbody></table>")
    parts.append("</section>")
    return "".join(parts)


# --- crosstable and pairs ---------------------------------------------------------------

_POINTS = {"x": (1.0, 0.0), "o": (0.0, 1.0), "draw": (0.5, 0.5)}


def _result(record: Dict[str, Any]) -> Optional[str]:
    """A record's result, ``x``, ``o`` or ``draw``; None when it has none it can say."""
    result = record.get("result")
    return result if isinstance(result, str) and result in _POINTS else None


def _crosstable(view: "_Tournament") -> str:
    names = view.names
    index = {name: i for i, name in enumerate(names)}
    points: Dict[Tuple[str, str], float] = {}
    games: Dict[Tuple[str, str], int] = {}
    for record in view.games:
        record = _dict(record)
        x, o = _key(record.get("x")), _key(record.get("o"))
        result = _result(record)
        # (index holds names only: x or o None is not in it either)
        if x is None or o is None or x not in index or o not in index or x == o \
                or result is None:
            continue
        for me, them, got in ((x, o, _POINTS[result][0]), (o, x, _POINTS[result][1])):
            points[me, them] = points.get((me, them), 0.0) + got
            games[me, them] = games.get((me, them), 0) + 1
    parts = ['<section id="crosstable"><h2>Crosstable</h2>',
             '<p class="muted">Points of the row against the column, over the games they '
             "played (how many games).</p>"]
    if not names:
        return "".join(parts) + '<p class="muted">No entrants.</p></section>'
    parts.append('<div class="scroll"><table class="cross"><thead><tr><th></th>'
                 + "".join(f'<th class="n" title="{_h(name, NAME_CHARS)}">{i + 1}</th>'
                           for i, name in enumerate(names)) + "</tr></thead><tbody>")
    for i, row in enumerate(names):
        cells = [f'<th class="name">{i + 1}. {_h(row, NAME_CHARS)}</th>']
        for column in names:
            if row == column:
                cells.append('<td class="diag"></td>')
            elif (row, column) not in games:
                cells.append("<td></td>")
            else:
                got, count = points[row, column], games[row, column]
                tone = "win" if got * 2 > count else "loss" if got * 2 < count else "even"
                cells.append(f'<td class="n {tone}" title="{count} games">{_plain(got)}'
                             f"<small> ({count})</small></td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table></div></section>")
    return "".join(parts)


def _pentanomial(view: "_Tournament") -> str:
    if not view.pentanomial:
        return ""
    labels = ("0", "½", "1", "1½", "2")
    parts = ['<section id="pentanomial"><h2>Colour-swapped pairs</h2>',
             '<p class="muted">How many pairs of games (one with each colour) A scored 0, ½, 1, '
             "1½ or 2 points in against B.</p>",
             '<table class="penta"><thead><tr><th>A</th><th>B</th>'
             + "".join(f'<th class="n">{label}</th>' for label in labels)
             + '<th class="n">pairs</th><th class="n">A\'s score</th></tr></thead><tbody>']
    for entry in view.pentanomial:
        entry = _dict(entry)
        counts = _list(entry.get("counts"))
        numbers = [number for number in map(_number, counts) if number is not None]
        valid = len(counts) == 5 and len(numbers) == 5
        cells = "".join(_num_cell(c) for c in counts[:5]) if valid else (
            f'<td colspan="5">{_missing("unreadable counts")}</td>')
        total = sum(numbers) if valid else None
        score = "—"
        if valid and total:
            score = f"{sum(c * k / 2 for k, c in enumerate(numbers)) / total / 2:.0%}"
        parts.append(f'<tr><td>{_h(entry.get("a"), NAME_CHARS)}</td>'
                     f'<td>{_h(entry.get("b"), NAME_CHARS)}</td>{cells}'
                     f"{_num_cell(total)}{_num_cell(None, score)}</tr>")
    parts.append("</tbody></table></section>")
    return "".join(parts)


# --- knockout ---------------------------------------------------------------------------

def _knockout(view: "_Tournament") -> str:
    if not view.knockout:
        return ""
    rounds = [_dict(r) for r in view.knockout]
    parts = ['<section id="knockout"><h2>Knockout</h2><div class="bracket">']
    for position, entry in enumerate(rounds):
        matches = _list(entry.get("matches"))
        last = position == len(rounds) - 1 and len(matches) == 1
        number = entry.get("round") if entry.get("round") is not None else position + 1
        label = "Final" if last and position else f"Round {_h(number, WORD_CHARS)}"
        parts.append(f'<div class="round"><h3>{label}</h3>')
        for match in matches:
            parts.append(_match(_dict(match)))
        byes = _list(entry.get("byes"))
        if byes:
            parts.append('<div class="byes">bye: '
                         + ", ".join(_h(name, NAME_CHARS) for name in byes) + "</div>")
        parts.append("</div>")
    parts.append("</div></section>")
    return "".join(parts)


def _match(match: Dict[str, Any]) -> str:
    winner = _key(match.get("winner"))
    points = _list(match.get("points"))
    lines = []
    for i, side in enumerate(("a", "b")):
        name = _key(match.get(side))
        won = name is not None and name == winner
        got = _plain(points[i]) if i < len(points) else "—"
        lines.append(f'<div class="{"won" if won else "lost"}"><span>{"✓ " if won else ""}'
                     f"{_h(name, NAME_CHARS) if name is not None else _missing()}</span>"
                     f"<b>{got}</b></div>")
    margin = _number(match.get("margin"))
    foot = f'<div class="foot">margin {_plain(margin)}</div>' if margin is not None else ""
    if winner is None:
        foot += '<div class="foot">no winner yet</div>'
    return '<div class="match">' + "".join(lines) + foot + "</div>"


# --- forfeits ---------------------------------------------------------------------------

def _side_name(record: Dict[str, Any], side: str) -> str:
    name = record.get(side)
    return _h(name, NAME_CHARS) if _key(name) is not None else _missing()


def _forfeits(view: "_Tournament") -> str:
    rows = []
    for index, record in enumerate(view.games):
        record = _dict(record)
        forfeit = record.get("forfeit")
        if not forfeit:
            continue
        forfeit = _dict(forfeit)
        side = forfeit.get("player")
        who = (f"{_side_name(record, side)} ({side.upper()})" if side in ("x", "o")
               else _missing())
        note, detail = _tail(forfeit.get("detail") or "")
        shown = _h(detail, None, True)
        if note:
            shown = f'<span class="muted">{_h(note, None, True)}</span>{shown}'
        rows.append(f'<tr><td><a href="#game-{index}">game {_h(record.get("id"), WORD_CHARS)}'
                    f'</a></td><td class="n">{_h(view.round_of(index, record), WORD_CHARS)}</td>'
                    f"<td>{who}</td><td>{_h(forfeit.get('reason'), WORD_CHARS)}</td>"
                    f"<td><pre>{shown}</pre></td></tr>")
    head = '<section id="forfeits"><h2>Forfeits</h2>'
    if not rows:
        return head + '<p class="muted">No game was forfeited.</p></section>'
    return (head + '<table class="forfeits"><thead><tr><th>game</th><th>round</th>'
            "<th>player</th><th>reason</th><th>detail (the end of its stderr)</th></tr>"
            "</thead><tbody>" + "".join(rows) + "</tbody></table></section>")


# --- games and replays ------------------------------------------------------------------

_RESULTS = {"x": "1–0", "o": "0–1", "draw": "½–½"}


def _games(view: "_Tournament") -> str:
    game = view.game
    replays = [_replay(view, _dict(record)) for record in view.games]
    data = {"game": game if view.rules else None, "base": _ROW_BASE.get(game, 0),
            "games": replays}
    parts = ['<section id="games"><h2>Games</h2>']
    if view.rules is None:
        parts.append(f'<p class="broken">Unknown game {_h(view.doc.get("game"), WORD_CHARS)}: '
                     "the games cannot be replayed.</p>")
    parts.append('<p class="tools"><label>filter <input id="game-filter" type="search" '
                 'placeholder="name, round, result…"></label> <span class="muted">'
                 "Open a game to replay it; ← → step, Home/End jump.</span></p>"
                 f'<table class="games">{_GAMES_HEAD}<tbody id="game-rows">')
    for index, record in enumerate(view.games):
        parts.append(_game_row(view, index, _dict(record), replays[index]))
    parts.append(_VIEWER)
    parts.append("</tbody></table></section>")
    parts.append('<script type="application/json" id="replay-data">'
                 f"{_script_json(data)}</script>")
    return "".join(parts)


_GAMES_HEAD = ('<thead><tr><th class="n">game</th><th class="n">round</th><th>size</th>'
               '<th>X</th><th>O</th><th>result</th><th class="n">score</th>'
               '<th class="n">moves</th><th class="n">CPU X / O</th><th></th></tr></thead>')


def game_board(document: Any, index: int = 0) -> str:
    """The replay board of game ``index`` of ``document`` alone, as HTML for a page of
    one's own (a server's page of one game): the games table with that game's row,
    opened as the page loads, its viewer (board, controls, moves) and the replay data.

    The page must load :data:`SCRIPT` and :data:`BOARD_STYLE` and define the colours
    BOARD_STYLE names; nothing else of the tournament's page is needed. Everything of
    the record is escaped as on the tournament's page; a game that is not there (or not
    a record) gives a table with no game and a note."""
    doc = _dict(document)
    games = _list(doc.get("games"))
    chosen = games[index:index + 1] if 0 <= index < len(games) else []
    view = _Tournament(dict(doc, games=chosen))
    record = _dict(chosen[0]) if chosen else {}
    replay = _replay(view, record) if record else None
    data = {"game": view.game if view.rules else None,
            "base": _ROW_BASE.get(view.game, 0), "games": [replay]}
    row = (_game_row(view, 0, record, replay).replace("<tr ", "<tr data-open ", 1)
           if record else '<tr><td colspan="10" class="muted">No such game.</td></tr>')
    return (f'<table class="games one-game">{_GAMES_HEAD}<tbody id="game-rows">{row}'
            f'{_VIEWER}</tbody></table><script type="application/json" id="replay-data">'
            f"{_script_json(data)}</script>")


def _pair(value: object, digits: Optional[int] = None) -> str:
    values = _list(value)
    if len(values) != 2:
        return "—"
    if digits is None:
        return " – ".join(_plain(v) for v in values)
    return " / ".join(_fixed(v, digits) for v in values)


def _game_row(view: "_Tournament", index: int, record: Dict[str, Any],
              replay: Optional[Dict[str, Any]]) -> str:
    result = _result(record)
    shown = _RESULTS[result] if result else _missing()
    forfeit = _dict(record.get("forfeit"))
    if forfeit:
        shown += f' <span class="badge bad">forfeit: {_h(forfeit.get("reason"), WORD_CHARS)}</span>'
    names = []
    for side in ("x", "o"):
        name = _side_name(record, side)
        names.append(f"<b>{name}</b>" if result == side else name)
    moves = len(_list(record.get("moves")))
    x_name, o_name = _text(record.get("x"), NAME_CHARS), _text(record.get("o"), NAME_CHARS)
    title = (f"Game {_text(record.get('id'), WORD_CHARS)} · round "
             f"{_text(view.round_of(index, record), WORD_CHARS)} · "
             f"{_size_text(view.game, record.get('size'))} · {x_name} (X) vs {o_name} (O) · "
             f"{_RESULTS[result] if result else '?'}")
    button = ('<button type="button" class="play">replay</button>' if replay is not None
              else '<span class="muted">—</span>')
    return (f'<tr id="game-{index}" data-g="{index}" data-title="{_html_escape(title)}" '
            f'data-x="{_html_escape(x_name)}" data-o="{_html_escape(o_name)}">'
            f'<td class="n">{_h(record.get("id"), WORD_CHARS)}</td>'
            f'<td class="n">{_h(view.round_of(index, record), WORD_CHARS)}</td>'
            f'<td>{_html_escape(_size_text(view.game, record.get("size"), True))}</td>'
            f"<td>{names[0]}</td><td>{names[1]}</td><td>{shown}</td>"
            f'<td class="n">{_pair(record.get("score"))}</td><td class="n">{moves}</td>'
            f'<td class="n">{_pair(record.get("cpu"), 1)}</td><td>{button}</td></tr>')


def _clean_cells(game: Optional[str], cells: object
                 ) -> Union[List[int], Dict[str, Any], None]:
    """``cells`` when the rules can set a board up from them, else None (the rules would
    raise, or build a board nobody could draw)."""
    if game == "stake_raid":
        if not isinstance(cells, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10 ** 6
                for v in cells):
            return None
        size = int(len(cells) ** 0.5 + 0.5)
        return cells if 1 <= size <= 26 and size * size == len(cells) else None
    if game == "lineemup":
        cells = _dict(cells)
        n, s = cells.get("n"), cells.get("s")
        if not (isinstance(n, int) and isinstance(s, int) and 3 <= n <= 10 and 3 <= s <= n):
            return None
        names = _list(cells.get("blocs")) + _list(cells.get("opening", []))
        if not isinstance(cells.get("blocs"), list) or not all(
                isinstance(name, str) and _CELL_NAME.match(name)
                and ord(name[0]) - ord("A") < n and int(name[1:]) < n for name in names):
            return None
        return cells
    return None


def _clean_moves(moves: object) -> List[List[Any]]:
    """The recorded moves as [side, text, cpu], up to the first one that is not a list."""
    clean = []
    for move in _list(moves):
        if not isinstance(move, (list, tuple)) or len(move) < 2:
            break
        side = move[0] if move[0] in ("x", "o") else "?"
        cpu = _number(move[2]) if len(move) > 2 else None
        clean.append([side, str(move[1]), cpu])
    return clean


def _replay(view: "_Tournament", record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The embedded replay of a record (module docstring), or None when it has no moves
    and no board to show."""
    moves = _clean_moves(record.get("moves"))
    cells = _clean_cells(view.game, record.get("cells"))
    frames, note = None, ""
    if view.rules is None or view.game is None:     # (no game: no rules either)
        note = "unknown game: no board"
    elif cells is None:
        note = "the record's board (cells) is unreadable: no board"
    else:
        try:
            # The rules replay the moves: the page never holds a copy of them.
            boards = positions(view.game, cells, moves)
            size = len(boards[0])
            frames = ["".join(rows) for rows in boards]
        except Exception as error:   # noqa: BLE001 -- a hand-edited record, shown not raised
            note = f"the board cannot be set up ({type(error).__name__})"
    if frames is None and not moves:
        return None
    if frames is not None:
        replayed = len(frames) - 1
        if replayed < len(moves):
            note = (f"the replay stops at move {replayed + 1} "
                    f"({printable(_cut(moves[replayed][1], MOVE_CHARS))}): the rules cannot "
                    "play it")
        moves = moves[:replayed + 1]
    else:
        moves = moves[:MOVES_WITHOUT_BOARD]
    entry: Dict[str, Any] = {"m": [printable(_cut(m[1], MOVE_CHARS)) for m in moves],
             "t": [round(m[2], 3) if m[2] is not None else None for m in moves],
             "s": "".join(m[0] for m in moves)}
    if frames is not None:
        entry.update(n=size, b=frames[0],
                     d=[_delta(before, after) for before, after in zip(frames, frames[1:])])
        if view.game == "stake_raid":
            entry["v"] = cells
    if note:
        entry["e"] = note
    return entry


def _delta(before: str, after: str) -> str:
    """What changed between two joined positions: <mark><cell in 2 base-36 digits>...
    (cells < 26 * 26 = 676 < 36 ** 2)."""
    return "".join(f"{new}{_base36(i)}" for i, (old, new) in enumerate(zip(before, after))
                   if old != new)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    return digits[number // 36] + digits[number % 36]


def _script_json(value: Any) -> str:
    """``value`` as JSON safe inside <script>: ensure_ascii writes U+2028/U+2029 (and
    every other non-ASCII character) as \\uXXXX; <, > and & are escaped the same way so
    that neither ``</script>`` nor ``<!--`` can appear."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_VIEWER = """<tr id="viewer" class="viewer" hidden><td colspan="10"><div class="replay">
<div class="replay-main"><div id="replay-title" class="replay-title"></div>
<div class="legend"><span class="stone x"></span><span id="legend-x"></span>
<span class="stone o"></span><span id="legend-o"></span></div>
<div id="board" class="board" data-frame="0"></div>
<div class="controls"><button type="button" data-go="first" title="first (Home)">«</button>
<button type="button" data-go="prev" title="back (←)">‹</button>
<span id="replay-status" class="status"></span>
<button type="button" data-go="next" title="forward (→)">›</button>
<button type="button" data-go="last" title="last (End)">»</button>
<button type="button" data-go="close" title="close" class="close">close</button></div>
<div id="replay-score" class="score"></div><div id="replay-note" class="note"></div></div>
<ol id="moves" class="moves"></ol></div></td></tr>"""


# The replay board's own style: the games table's viewer (board, controls, moves).
# It is part of STYLE, and a server's page of one game (engine.ladder) serves it as a
# file beside its own style, which must define the colours --x, --o, --line, --muted.
BOARD_STYLE = """button{font:inherit;font-size:13px;padding:2px 10px;border:1px solid #c7cfdb;
border-radius:4px;background:#fff;cursor:pointer} button:hover{background:#eef3fb}
button:disabled{color:#a3aab8;background:#f3f4f6;cursor:default}
.controls button{font-size:16px;min-width:34px;line-height:1.2}
tr.open{background:#eef3fb !important}
tr.viewer>td{background:#fafbfd;padding:14px 16px;border-bottom:2px solid #b9c6dc}
.replay{display:flex;gap:28px;align-items:flex-start;flex-wrap:wrap}
.replay-title{font-weight:700;margin-bottom:4px}
.legend{display:flex;align-items:center;gap:6px;margin-bottom:8px;color:var(--muted)}
.legend span+.stone{margin-left:12px}
.stone{display:inline-block;width:14px;height:14px;border-radius:50%}
.stone.x{background:var(--x)} .stone.o{background:var(--o)}
.board{display:grid;gap:2px;justify-content:start}
.board .lab{display:flex;align-items:center;justify-content:center;font-size:11px;
color:var(--muted)}
.cell{position:relative;display:flex;align-items:center;justify-content:center;
background:#efe7d6;border-radius:3px;font-weight:600;color:#7d705a;
font-variant-numeric:tabular-nums}
.cell::before{content:"";position:absolute;inset:9%;border-radius:50%;display:none}
.cell[data-mark="X"]::before{display:block;background:var(--x)}
.cell[data-mark="O"]::before{display:block;background:var(--o)}
.cell[data-mark="X"]{color:#fff} .cell[data-mark="O"]{color:#3a2a05}
.cell[data-mark="*"]{background:#4a4f59}
.cell span{position:relative}
.cell.last{box-shadow:inset 0 0 0 2px #d6452f}
.controls{display:flex;align-items:center;gap:6px;margin-top:10px}
.controls .status{min-width:120px;text-align:center;font-variant-numeric:tabular-nums}
.controls .close{margin-left:14px}
.score{margin-top:6px;font-weight:600} .note{margin-top:4px;color:#9a5b00;max-width:420px}
.moves{list-style:none;margin:0;padding:0;max-height:460px;overflow:auto;min-width:230px;
border:1px solid var(--line);border-radius:4px;background:#fff;counter-reset:ply}
.moves li{display:flex;gap:8px;padding:2px 8px;cursor:pointer;counter-increment:ply;
font-variant-numeric:tabular-nums}
.moves li::before{content:counter(ply);color:var(--muted);min-width:2.2em;text-align:right}
.moves li:hover{background:#f1f4f9} .moves li.cur{background:#dbe6f8;font-weight:700}
.moves li.bad{color:#b3261e;cursor:default}
.moves .cpu{margin-left:auto;color:var(--muted);font-weight:400}
.moves .mv{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
"""


STYLE = """
:root{--x:#24406e;--o:#e9a23b;--line:#dfe3ea;--muted:#5f6b7e;--ink:#1c2230;--bg:#f5f6f8}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;
margin:0;color:var(--ink);background:var(--bg)}
main{max-width:1320px;margin:0 auto;padding:22px 28px 48px}
h1{font-size:24px;margin:0 0 10px} h3{font-size:14px;margin:18px 0 6px}
h2{font-size:18px;margin:34px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
nav{position:sticky;top:0;background:var(--bg);padding:8px 0;margin-top:14px;z-index:2;
border-bottom:1px solid var(--line)}
nav a{margin-right:18px;color:#2457b3;text-decoration:none;font-weight:600}
a{color:#2457b3}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:0}
.meta dt{color:var(--muted)} .meta dd{margin:0}
.sprt{margin-top:12px;background:#fff;border:1px solid var(--line);border-radius:6px;
padding:8px 12px;display:inline-block}
.muted{color:var(--muted)} .ok{color:#17703a;font-weight:600}
.warn{color:#9a5b00;font-weight:600} .broken{color:#b3261e}
.missing{color:#b3261e;font-style:italic}
table{border-collapse:collapse;background:#fff;margin:6px 0 14px;border:1px solid var(--line)}
th,td{border-bottom:1px solid var(--line);padding:5px 9px;text-align:left;vertical-align:middle}
thead th{background:#eef1f6;font-weight:600;font-size:13px;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.pts{font-weight:700} td.small{font-size:12px;white-space:nowrap}
td.name,th.name{font-weight:600;max-width:300px;overflow-wrap:anywhere}
.badge{font-size:11px;font-weight:600;background:#e3eaf7;color:var(--x);border-radius:9px;
padding:1px 7px;margin-left:4px;white-space:nowrap} .badge.bad{background:#fbe3e0;color:#a1261b}
svg .axis{stroke:#d5dae3;stroke-width:1} svg .zero{stroke:#9aa3b2;stroke-width:1}
svg .ci{fill:#9ab6e4} svg .pt{fill:var(--x)} svg .track{fill:#dfe6f2}
svg.rbar,svg.llr{vertical-align:middle}
td.bar{padding-top:2px;padding-bottom:2px}
pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f4f5f8;
border:1px solid #e3e6ec;border-radius:4px;padding:6px 8px;margin:0;max-height:260px;
overflow:auto;white-space:pre-wrap;word-break:break-all;max-width:760px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.scroll{overflow-x:auto}
table.cross td,table.cross th{border:1px solid var(--line);padding:4px 7px}
table.cross td{min-width:44px;text-align:center}
table.cross small{color:var(--muted)} .win{background:#e2f3e7} .loss{background:#fbe7e4}
.even{background:#f3f3f1} .diag{background:#e8ebf0}
.bracket{display:flex;gap:26px;overflow-x:auto;padding-bottom:6px}
.round{display:flex;flex-direction:column;justify-content:space-around;gap:12px;min-width:200px}
.round h3{margin:0 0 2px;color:var(--muted)}
.match{background:#fff;border:1px solid var(--line);border-radius:6px;overflow:hidden}
.match>div{display:flex;justify-content:space-between;gap:12px;padding:3px 10px}
.match .won{font-weight:700;background:#eef6f0} .match .foot{font-size:12px;color:var(--muted);
border-top:1px solid var(--line);justify-content:flex-start}
.byes{font-size:12px;color:var(--muted)}
table.forfeits td{vertical-align:top}
.tools{margin:6px 0} .tools input{font:inherit;padding:3px 6px;width:240px}
table.games td{padding:3px 9px} table.games tbody tr:hover{background:#f7f9fd}
""" + BOARD_STYLE + """\
@media print{nav,.tools,button,tr.viewer,table.games th:last-child{display:none}
body{background:#fff} main{max-width:none;padding:0} h2{break-after:avoid}
tr{break-inside:avoid} pre{max-height:none;overflow:visible}}
"""


SCRIPT = r"""(function () {
"use strict";
var data = null, cur = null, frames = [], at = 0, openRow = null;
var viewer = document.getElementById("viewer");
var board = document.getElementById("board"), list = document.getElementById("moves");
var status = document.getElementById("replay-status");
if (!viewer || !board || !document.getElementById("replay-data")) { return; }
function byId(id) { return document.getElementById(id); }
function load() {
  if (data === null) { data = JSON.parse(byId("replay-data").textContent); }
  return data;
}
function changes(delta) {
  var out = [];
  for (var k = 0; k + 2 < delta.length; k += 3) {
    out.push([delta.charAt(k), parseInt(delta.substr(k + 1, 2), 36)]);
  }
  return out;
}
function expand(g) {
  var cells = g.b.split(""), out = [g.b];
  g.d.forEach(function (delta) {
    changes(delta).forEach(function (c) { cells[c[1]] = c[0]; });
    out.push(cells.join(""));
  });
  return out;
}
function el(tag, cls, text) {
  var node = document.createElement(tag);
  if (cls) { node.className = cls; }
  if (text !== undefined) { node.textContent = text; }
  return node;
}
function letter(i) { return String.fromCharCode(65 + i); }
function build() {
  board.textContent = "";
  if (!cur.b) { board.style.gridTemplateColumns = ""; return; }
  var n = cur.n, size = Math.max(18, Math.min(46, Math.floor(460 / n)));
  board.style.gridTemplateColumns = "1.8em repeat(" + n + ", " + size + "px)";
  board.style.fontSize = Math.max(9, Math.floor(size * 0.34)) + "px";
  board.appendChild(el("div", "lab"));
  for (var c = 0; c < n; c++) { board.appendChild(el("div", "lab", letter(c))); }
  for (var r = 0; r < n; r++) {
    board.appendChild(el("div", "lab", String(r + data.base)));
    for (c = 0; c < n; c++) {
      var cell = el("div", "cell");
      cell.style.height = size + "px";
      cell.setAttribute("data-cell", letter(c) + (r + data.base));
      if (cur.v) { cell.appendChild(el("span", "", String(cur.v[r * n + c]))); }
      board.appendChild(cell);
    }
  }
}
function fillMoves() {
  list.textContent = "";
  cur.m.forEach(function (text, i) {
    var item = el("li", i < frames.length - 1 ? "" : "bad");
    item.setAttribute("data-move", String(i + 1));
    var side = cur.s.charAt(i);
    var stone = el("span", "stone " + (side === "x" || side === "o" ? side : ""));
    stone.title = side.toUpperCase();
    item.appendChild(stone);
    item.appendChild(el("span", "mv", text));
    var t = cur.t[i];
    item.appendChild(el("span", "cpu", t === null ? "" : t + " s"));
    if (i >= frames.length - 1) { item.title = "not replayed"; }
    list.appendChild(item);
  });
}
function show(k) {
  at = Math.max(0, Math.min(k, frames.length - 1));
  board.setAttribute("data-frame", String(at));
  var last = {};
  if (at > 0) { changes(cur.d[at - 1]).forEach(function (c) { last[c[1]] = true; }); }
  var cells = board.querySelectorAll(".cell"), f = frames[at], x = 0, o = 0;
  for (var i = 0; i < cells.length; i++) {
    var mark = f ? f.charAt(i) : ".";
    cells[i].setAttribute("data-mark", mark);
    cells[i].classList.toggle("last", !!last[i]);
    if (cur.v) { if (mark === "X") { x += cur.v[i]; } else if (mark === "O") { o += cur.v[i]; } }
  }
  var total = frames.length - 1;
  status.textContent = at === 0 ? "start (" + total + " moves)" : "move " + at + " of " + total;
  byId("replay-score").textContent = cur.v && f ? "X " + x + " · O " + o : "";
  var items = list.children;
  for (i = 0; i < items.length; i++) { items[i].classList.toggle("cur", i === at - 1); }
  var item = items[at - 1];
  if (item) {
    if (item.offsetTop < list.scrollTop) { list.scrollTop = item.offsetTop; }
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
    }
  } else if (at === 0) { list.scrollTop = 0; }
  viewer.querySelector('[data-go="first"]').disabled = at === 0;
  viewer.querySelector('[data-go="prev"]').disabled = at === 0;
  viewer.querySelector('[data-go="next"]').disabled = at === total;
  viewer.querySelector('[data-go="last"]').disabled = at === total;
}
function close() {
  viewer.hidden = true;
  if (openRow) { openRow.classList.remove("open"); }
  openRow = null;
}
function open(row) {
  var g = load().games[Number(row.getAttribute("data-g"))];
  if (!g) { return; }
  if (openRow) { openRow.classList.remove("open"); }
  openRow = row; cur = g;
  row.classList.add("open");
  row.parentNode.insertBefore(viewer, row.nextSibling);
  viewer.hidden = false;
  frames = g.b ? expand(g) : [null];
  byId("replay-title").textContent = row.getAttribute("data-title");
  byId("legend-x").textContent = row.getAttribute("data-x");
  byId("legend-o").textContent = row.getAttribute("data-o");
  byId("replay-note").textContent = g.e || "";
  build(); fillMoves(); show(0);
}
function go(how) {
  if (how === "close") { close(); return; }
  show({first: 0, prev: at - 1, next: at + 1, last: frames.length - 1}[how]);
}
byId("game-rows").addEventListener("click", function (event) {
  var button = event.target.closest("button.play");
  if (button) {
    var row = button.closest("tr");
    if (row === openRow) { close(); } else { open(row); }
    return;
  }
  var control = event.target.closest("[data-go]");
  if (control) { go(control.getAttribute("data-go")); return; }
  var item = event.target.closest("li[data-move]");
  if (item && !item.classList.contains("bad")) { show(Number(item.getAttribute("data-move"))); }
});
document.addEventListener("keydown", function (event) {
  if (viewer.hidden || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) { return; }
  var how = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last",
             Escape: "close"}[event.key];
  if (how) { event.preventDefault(); go(how); }
});
function filter() {
  var words = this.value.toLowerCase().split(/\s+/).filter(Boolean);
  var rows = byId("game-rows").children;
  for (var i = 0; i < rows.length; i++) {
    if (rows[i] === viewer) { continue; }
    var text = rows[i].textContent.toLowerCase();
    rows[i].hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    if (rows[i].hidden && rows[i] === openRow) { close(); }
  }
}
if (byId("game-filter")) { byId("game-filter").addEventListener("input", filter); }
function fromHash() {
  var match = /^#game-(\d+)$/.exec(location.hash);
  var row = match && byId("game-" + match[1]);
  if (row && row.querySelector("button.play")) { open(row); row.scrollIntoView(); return true; }
  return false;
}
window.addEventListener("hashchange", fromHash);
// A page of one game (game_board) opens it at once: its row says data-open.
var first = document.querySelector("#game-rows tr[data-open]");
if (!fromHash() && first) { open(first); }
})();
"""

# Only our own script may run: its hash is the whole script-src (an injected script or
# event handler would be refused even if an escape were ever missed); nothing is fetched.
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
        "form-action 'none'; script-src 'sha256-"
        + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
        + "'")
# The page's policy, for a server that sends it as a header too (the ladder).
CSP = _CSP
