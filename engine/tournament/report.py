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
                                                #   (the rules' first_row)
     "games": [null | {                         # one per record of "games", in order
         "n": 5,                                # rows (= columns) of the board
         "b": ".........................",      # the start position, rows joined
         "d": ["X0c", "O0dX0e", ...],           # per move: what changed, as triples
                                                #   <mark><cell, 2 base-36 digits>
         "v": [12, 7, ...],                     # the cells' values, when the rules
                                                #   give some (Stake/Raid's)
         "m": ["B2 Stake", ...],                # the recorded moves (printable, cut)
         "t": [0.41, null, ...],                # their CPU seconds
         "s": "xoxo",                           # their sides (x, o, ? when garbled)
         "e": "..."}]}                          # why the replay stops early, if it does

Frame k is the start with the changes of ``d[0..k-1]`` applied; moves past ``len(d)``
could not be replayed (the note ``e`` says why). The board is drawn on demand in the
browser when a game is opened. Measured: a 2,000-game Stake/Raid document (sizes 5, 6,
8, 10; 112,500 moves; 3.7 MB of JSON) gives a 4.2 MB page, rendered in about 7 s.
"""

import json
import math
from typing import (Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional,
                    Sequence, Tuple)

from ..grading.printable import printable
from ..markup import HTML, XML, Content, Markup, asset, script_hash
from .games import GAMES, Rules, positions
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


def _h(value: object, limit: Optional[int] = None, newlines: bool = False) -> Markup:
    """``value`` as HTML text: cut to ``limit`` characters, controls shown, escaped."""
    if value is None:
        return Markup()
    text = str(value)
    if limit is not None:
        text = _cut(text, limit)
    return HTML.escape(printable(text, newlines))


def _text(value: object, limit: int) -> str:
    """``value`` as plain text (for an attribute or the script): cut, controls shown."""
    return "?" if _key(value) is None else printable(_cut(value, limit))


_FILTER_WORDS = {"allowlist": "seccomp allowlist", "denylist": "seccomp denylist",
                 "none": "no seccomp filter"}


def _syscall_filters(entrants: Iterable[object]) -> str:
    """Which seccomp filter the entrants' moves ran under (their ``seccomp``, from the
    games), as text: e.g. "seccomp allowlist (3 entrants), seccomp denylist (1
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


def _missing(text: Content = "?") -> Markup:
    return HTML.element("span", text, class_="missing",
                        title="missing or unreadable in the document")


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


def _num_cell(value: object, text: Optional[str] = None) -> Markup:
    return HTML.element("td", _plain(value) if text is None else text, class_="n")


def _cell(content: Content, kind: Optional[str] = None) -> Markup:
    return HTML.element("td", content, class_=kind)


def _head_row(labels: Iterable[Content], numeric: Iterable[Content] = ()) -> Markup:
    """A table's head: a ``th`` per label, then a right-aligned one per ``numeric``."""
    return HTML.element("thead", HTML.element(
        "tr", *(HTML.element("th", label) for label in labels),
        *(HTML.element("th", label, class_="n") for label in numeric)))


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
    nav = [("standings", "Standings", True), ("crosstable", "Crosstable", True),
           ("pentanomial", "Pairs", bool(view.pentanomial)),
           ("knockout", "Knockout", bool(view.knockout)), ("forfeits", "Forfeits", True),
           ("games", "Games", True)]
    sections = {name: _guarded(name, section, view) for name, section in (
        ("standings", _standings), ("crosstable", _crosstable),
        ("pentanomial", _pentanomial), ("knockout", _knockout), ("forfeits", _forfeits),
        ("games", _games))}
    return HTML.fill(asset(ASSETS, "report.html"), csp=Markup(CSP), title=_h(view.title),
                     style=asset(ASSETS, "report.css"), replay_style=Markup(BOARD_STYLE),
                     print_style=asset(ASSETS, "report-print.css"),
                     header=_guarded("header", _header, view),
                     nav=HTML.element("nav", *(HTML.element("a", label, href="#" + name)
                                               for name, label, shown in nav if shown)),
                     script=Markup(SCRIPT), **sections)


def _guarded(name: str, section: Callable[["_Tournament"], Markup], view: "_Tournament"
             ) -> Markup:
    """A section's HTML, or a note saying it could not be drawn: a document edited by
    hand must never cost the reader the rest of the page."""
    try:
        return section(view)
    except Exception as error:    # noqa: BLE001 -- any malformation, shown not raised
        return HTML.element("section", HTML.element("h2", name.capitalize()), HTML.element(
            "p", "This section could not be drawn from the document (",
            _h(type(error).__name__), ": ", _h(error, 200), ").", class_="broken"), id=name)


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


def _size_text(rules: Optional[Rules], size: object, short: bool = False) -> str:
    """A recorded board size for people, as plain text, as the game's rules write it
    (:meth:`Rules.size_text`: ``5×5``; ``6×6, 4 in a row, 3 blocs``); as recorded when
    the game has no such size; ``?`` when it is missing."""
    if rules is not None and isinstance(size, (int, str)) and not isinstance(size, bool) \
            and len(str(size)) <= WORD_CHARS:
        try:
            (parsed,) = rules.parse_sizes(str(size))
        except ValueError:      # (a SizeError, or not one size)
            pass
        else:
            return rules.size_text(parsed, short)
    return _text(size, WORD_CHARS)


def _header(view: "_Tournament") -> Markup:
    doc = view.doc
    rows: List[Tuple[str, Content]] = []
    game = doc.get("game")
    if view.rules is None:
        rows.append(("game", (_missing("unknown"), " ", _h(game, WORD_CHARS))))
    fmt = doc.get("format")
    extras = [f"{label} {_plain(doc.get(key))}" for key, label in _FORMAT_PARAMETERS
              if _number(doc.get(key)) is not None]
    rows.append(("format", (_h(fmt, WORD_CHARS) if fmt is not None else _missing(),
                            (" ", _muted(f"({', '.join(extras)})")) if extras else None)))
    seconds = _number(doc.get("time"))
    rows.append(("time control", f"{_plain(seconds)} s of CPU per player per game"
                 if seconds is not None else _missing()))
    sizes = doc.get("sizes")
    rows.append(("board sizes", ", ".join(_size_text(view.rules, s) for s in sizes)
                 if isinstance(sizes, list) else _missing()))
    seed = doc.get("seed")
    rows.append(("seed", _h(seed, WORD_CHARS) if seed is not None else _missing()))
    isolation = doc.get("isolation")
    rows.append(("isolation", HTML.element("code", _h(isolation, PATH_CHARS))
                 if isolation else _missing("not recorded")))
    filters = _syscall_filters(view.ranked + view.eliminated)
    if filters:
        rows.append(("system calls", filters))
    if doc.get("shard"):
        rows.append(("shard", _h(doc.get("shard"), WORD_CHARS)))
    rows.append(("status", _status(doc.get("complete") is True, len(view.games))))
    rows.append(("entrants", _entrant_count(view)))
    meta = ((HTML.element("dt", label), HTML.element("dd", value)) for label, value in rows)
    return HTML.element("header", HTML.element("h1", _h(view.title), " tournament"),
                        HTML.element("dl", meta, class_="meta"), _sprt(doc.get("sprt")))


def _muted(text: Content) -> Markup:
    return HTML.element("span", text, class_="muted")


def _status(complete: bool, played: int) -> Markup:
    if complete:
        return HTML.join((HTML.element("span", "complete", class_="ok"),
                          f": {played:,} games"))
    return HTML.element("span", f"incomplete: {played:,} games played so far", class_="warn")


def _entrant_count(view: "_Tournament") -> Markup:
    eliminated = len(view.eliminated)
    return HTML.join((
        f"{len(view.ranked) + eliminated}",
        f" ({eliminated} eliminated: the build failed or went over a cap)"
        if eliminated else None,
        (" ", _missing(f"+ {view.malformed_entrants} unreadable"))
        if view.malformed_entrants else None))


def _sprt(sprt: object) -> Markup:
    if sprt is None:
        return Markup()
    title = HTML.element("b", "SPRT")
    if not isinstance(sprt, dict):
        return HTML.element("div", title, " ", _missing("unreadable"), class_="sprt")
    llr, lower, upper = (_number(sprt.get(k)) for k in ("llr", "lower", "upper"))
    first, second = (_h(sprt.get(k), NAME_CHARS) if _key(sprt.get(k)) is not None
                     else _missing() for k in ("a", "b"))
    hypotheses = (f"H0: Elo ≤ {_plain(sprt.get('elo0'))}, H1: Elo ≥ {_plain(sprt.get('elo1'))}"
                  f", α = {_plain(sprt.get('alpha'), 3)}, β = {_plain(sprt.get('beta'), 3)}")
    bar = None
    if llr is not None and lower is not None and upper is not None and lower < upper:
        low, high = min(lower, llr), max(upper, llr)
        bar = _llr_bar(llr, lower, upper, low, high)
    return HTML.element(
        "div", title, " ", first, " vs ", second, " · ", hypotheses, HTML.element("br"),
        "LLR ", HTML.element("b", _fixed(llr, 2)),
        f" (bounds {_fixed(lower, 2)} … {_fixed(upper, 2)}) ", bar,
        f" after {_plain(sprt.get('pairs'))} pairs · ",
        _verdict(sprt.get("decision"), first, second), class_="sprt")


def _verdict(decision: object, first: Markup, second: Markup) -> Markup:
    """What an SPRT decided, in words."""
    if decision == "H1":
        return HTML.join((HTML.element("span", "H1 accepted", class_="ok"), ": ", first,
                          " is stronger than ", second))
    if decision == "H0":
        return HTML.join((HTML.element("span", "H0 accepted", class_="ok"), ": ", first,
                          " is not stronger than ", second))
    if decision is None:
        return HTML.element("span", "no decision yet", class_="warn")
    return _missing(_h(decision, WORD_CHARS))


def _llr_bar(llr: float, lower: float, upper: float, low: float, high: float,
             width: int = 220) -> Markup:
    def x(value: float) -> float:
        return 4 + (value - low) / (high - low) * (width - 8)
    return XML.element(
        "svg", XML.element("title", f"LLR {llr:.2f} between {lower:.2f} and {upper:.2f}"),
        XML.element("rect", class_="track", x=f"{x(lower):.1f}", y="5",
                    width=f"{x(upper) - x(lower):.1f}", height="6", rx="3"),
        XML.element("line", class_="zero", x1=f"{x(0):.1f}", x2=f"{x(0):.1f}", y1="2",
                    y2="14"),
        XML.element("circle", class_="pt", cx=f"{x(llr):.1f}", cy="8", r="4.5"),
        class_="llr", width=width, height="16", viewBox=f"0 0 {width} 16")


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


def _rating_bar(entrant: Dict[str, Any], scale: Tuple[float, float], width: int = 170
                ) -> Optional[Markup]:
    rating = _number(entrant.get("rating"))
    if rating is None:
        return None
    low, high = scale

    def x(value: float) -> float:
        return max(0.0, min(width, (value - low) / (high - low) * width))
    lower, upper = _number(entrant.get("rating_low")), _number(entrant.get("rating_high"))
    interval = None
    title = f"rating {rating:.0f}"
    if lower is not None and upper is not None and lower <= upper:
        interval = XML.element("rect", class_="ci", x=f"{x(lower):.1f}", y="4",
                               width=f"{max(x(upper) - x(lower), 1):.1f}", height="8",
                               rx="4")
        title += f", 95% interval {lower:.0f} … {upper:.0f}"
    return XML.element(
        "svg", XML.element("title", _minus(title)),
        XML.element("line", class_="axis", x1="0", x2=width, y1="8", y2="8"),
        XML.element("line", class_="zero", x1=f"{x(0):.1f}", x2=f"{x(0):.1f}", y1="1",
                    y2="15"), interval,
        XML.element("circle", class_="pt", cx=f"{x(rating):.1f}", cy="8", r="3.5"),
        class_="rbar", width=width, height="16", viewBox=f"0 0 {width} 16",
        data_rating=f"{rating:.1f}")


def _forfeit_counts(value: object) -> Content:
    if value is None or value == {}:
        return "—"
    if not isinstance(value, dict):
        return _missing()
    shown = HTML.join((HTML.join((_h(reason, WORD_CHARS), " ", _plain(count)))
                       for reason, count in list(value.items())[:8]), ", ")
    return HTML.join((shown, " …" if len(value) > 8 else None))


def _entrant_name(entrant: Dict[str, Any]) -> Markup:
    name = entrant.get("name")
    shown = _h(name, NAME_CHARS) if _key(name) is not None else _missing("(no name)")
    path = _h(entrant.get("path"), PATH_CHARS) if entrant.get("path") else None
    staff = (" ", HTML.element("span", "staff", class_="badge")) \
        if entrant.get("staff") is True else None
    return HTML.join((HTML.element("span", shown, title=path), staff))


def _standings(view: "_Tournament") -> Markup:
    ranked = view.ranked
    knockout = view.doc.get("format") == "knockout" or any(e.get("placing") for e in ranked)
    byes = any(_number(e.get("byes")) for e in ranked) or view.doc.get("format") in (
        "swiss", "knockout")
    scale = _rating_scale(ranked)
    head: List[Content] = [
        "#", "name", "kind", "points", "games", "W", "D", "L",
        HTML.element("span", "beat",
                     title="opponents beaten: more than half the points against them"),
        "forfeits", "rating",
        HTML.join(("95% interval ", _muted(f"({_fixed(scale[0], 0)} … "
                                            f"{_fixed(scale[1], 0)})"))),
        "CPU / game", "margin"]
    head += ["byes"] if byes else []
    head += ["knockout"] if knockout else []
    rows = [HTML.element("tr", _standing_cells(entrant, place, scale, byes, knockout),
                         data_entrant=True)
            for place, entrant in zip(_places(ranked), ranked)]
    if not ranked:
        rows.append(HTML.element("tr", HTML.element("td", "No entrant played.",
                                                    colspan=len(head), class_="muted")))
    return HTML.element(
        "section", HTML.element("h2", "Standings"),
        HTML.element("table", _head_row(head), HTML.element("tbody", rows),
                     class_="standings"),
        _eliminated(view.eliminated) if view.eliminated else None, id="standings")


def _standing_cells(entrant: Dict[str, Any], place: int, scale: Tuple[float, float],
                    byes: bool, knockout: bool) -> Iterator[Markup]:
    """The cells of an entrant's row of the standings."""
    yield _cell(place, "n")
    yield _cell(_entrant_name(entrant), "name")
    yield _cell(_h(entrant.get("kind"), WORD_CHARS))
    yield _cell(_plain(entrant.get("points")), "n pts")
    for key in ("games", "wins", "draws", "losses", "beaten"):
        yield _num_cell(entrant.get(key))
    yield _cell(_forfeit_counts(entrant.get("forfeits")), "small")
    yield _num_cell(None, _fixed(entrant.get("rating"), 0, signed=True))
    yield _cell(_rating_bar(entrant, scale), "bar")
    yield _num_cell(None, _fixed(entrant.get("cpu_per_game"), 1)
                    + (" s" if _number(entrant.get("cpu_per_game")) is not None else ""))
    yield _num_cell(None, _fixed(entrant.get("margin"), 1, signed=True))
    if byes:
        yield _num_cell(entrant.get("byes"))
    if knockout:
        placing = entrant.get("placing")
        yield _cell(_h(placing, WORD_CHARS) if placing else "—")


def _eliminated(entrants: Iterable[Dict[str, Any]]) -> Markup:
    """The entrants whose build failed or went over a cap, with the build's error."""
    rows = (HTML.element("tr", _cell(_entrant_name(entrant), "name"),
                         _cell(_h(entrant.get("kind"), WORD_CHARS)),
                         _cell(HTML.element("code", _h(entrant.get("path"), PATH_CHARS))),
                         _cell(HTML.element("pre", _h(_head_tail(entrant.get("build_error")),
                                                      None, True))), data_entrant=True)
            for entrant in entrants)
    return HTML.join((
        HTML.element("h3", "Eliminated: the build failed or went over a cap"),
        HTML.element("table", _head_row(("name", "kind", "folder", "build error")),
                     HTML.element("tbody", rows), class_="eliminated")))


# --- crosstable and pairs ---------------------------------------------------------------

_POINTS = {"x": (1.0, 0.0), "o": (0.0, 1.0), "draw": (0.5, 0.5)}


def _result(record: Dict[str, Any]) -> Optional[str]:
    """A record's result, ``x``, ``o`` or ``draw``; None when it has none it can say."""
    result = record.get("result")
    return result if isinstance(result, str) and result in _POINTS else None


def _crosstable(view: "_Tournament") -> Markup:
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
    intro = HTML.element("p", "Points of the row against the column, over the games they "
                         "played (how many games).", class_="muted")
    if not names:
        return HTML.element("section", HTML.element("h2", "Crosstable"), intro,
                            HTML.element("p", "No entrants.", class_="muted"), id="crosstable")
    head = HTML.element("thead", HTML.element("tr", HTML.element("th"), (
        HTML.element("th", i + 1, class_="n", title=_h(name, NAME_CHARS))
        for i, name in enumerate(names))))
    rows = (HTML.element("tr", HTML.element("th", f"{i + 1}. ", _h(row, NAME_CHARS),
                                            class_="name"),
                         (_cross_cell(row, column, points, games) for column in names))
            for i, row in enumerate(names))
    return HTML.element("section", HTML.element("h2", "Crosstable"), intro, HTML.element(
        "div", HTML.element("table", head, HTML.element("tbody", rows), class_="cross"),
        class_="scroll"), id="crosstable")


def _cross_cell(row: str, column: str, points: Dict[Tuple[str, str], float],
                games: Dict[Tuple[str, str], int]) -> Markup:
    """The points of ``row`` against ``column`` over their games (how many games)."""
    if row == column:
        return _cell(None, "diag")
    if (row, column) not in games:
        return _cell(None)
    got, count = points[row, column], games[row, column]
    tone = "win" if got * 2 > count else "loss" if got * 2 < count else "even"
    return HTML.element("td", _plain(got), HTML.element("small", f" ({count})"),
                        class_=f"n {tone}", title=f"{count} games")


def _pentanomial(view: "_Tournament") -> Markup:
    if not view.pentanomial:
        return Markup()
    rows = []
    for entry in view.pentanomial:
        entry = _dict(entry)
        counts = _list(entry.get("counts"))
        numbers = [number for number in map(_number, counts) if number is not None]
        valid = len(counts) == 5 and len(numbers) == 5
        cells = HTML.join(_num_cell(c) for c in counts[:5]) if valid else (
            HTML.element("td", _missing("unreadable counts"), colspan="5"))
        total = sum(numbers) if valid else None
        score = "—"
        if valid and total:
            score = f"{sum(c * k / 2 for k, c in enumerate(numbers)) / total / 2:.0%}"
        rows.append(HTML.element("tr", _cell(_h(entry.get("a"), NAME_CHARS)),
                                 _cell(_h(entry.get("b"), NAME_CHARS)), cells,
                                 _num_cell(total), _num_cell(None, score)))
    return HTML.element(
        "section", HTML.element("h2", "Colour-swapped pairs"),
        HTML.element("p", "How many pairs of games (one with each colour) A scored 0, ½, 1, "
                     "1½ or 2 points in against B.", class_="muted"),
        HTML.element("table", _head_row(("A", "B"), ("0", "½", "1", "1½", "2", "pairs",
                                                     Markup("A's score"))),
                     HTML.element("tbody", rows), class_="penta"), id="pentanomial")


# --- knockout ---------------------------------------------------------------------------

def _knockout(view: "_Tournament") -> Markup:
    if not view.knockout:
        return Markup()
    rounds = [_dict(r) for r in view.knockout]
    shown = []
    for position, entry in enumerate(rounds):
        matches = _list(entry.get("matches"))
        last = position == len(rounds) - 1 and len(matches) == 1
        number = entry.get("round") if entry.get("round") is not None else position + 1
        label = "Final" if last and position else HTML.join(("Round ",
                                                             _h(number, WORD_CHARS)))
        byes = _list(entry.get("byes"))
        shown.append(HTML.element(
            "div", HTML.element("h3", label), (_match(_dict(match)) for match in matches),
            HTML.element("div", "bye: ", HTML.join((_h(name, NAME_CHARS) for name in byes),
                                                   ", "), class_="byes") if byes else None,
            class_="round"))
    return HTML.element("section", HTML.element("h2", "Knockout"),
                        HTML.element("div", shown, class_="bracket"), id="knockout")


def _match(match: Dict[str, Any]) -> Markup:
    winner = _key(match.get("winner"))
    points = _list(match.get("points"))
    lines = []
    for i, side in enumerate(("a", "b")):
        name = _key(match.get(side))
        won = name is not None and name == winner
        got = _plain(points[i]) if i < len(points) else "—"
        lines.append(HTML.element(
            "div", HTML.element("span", "✓ " if won else "",
                                _h(name, NAME_CHARS) if name is not None else _missing()),
            HTML.element("b", got), class_="won" if won else "lost"))
    margin = _number(match.get("margin"))
    return HTML.element(
        "div", lines,
        HTML.element("div", f"margin {_plain(margin)}", class_="foot")
        if margin is not None else None,
        HTML.element("div", "no winner yet", class_="foot") if winner is None else None,
        class_="match")


# --- forfeits ---------------------------------------------------------------------------

def _side_name(record: Dict[str, Any], side: str) -> Markup:
    name = record.get(side)
    return _h(name, NAME_CHARS) if _key(name) is not None else _missing()


def _forfeits(view: "_Tournament") -> Markup:
    rows = []
    for index, record in enumerate(view.games):
        record = _dict(record)
        forfeit = record.get("forfeit")
        if not forfeit:
            continue
        forfeit = _dict(forfeit)
        side = forfeit.get("player")
        who = (HTML.join((_side_name(record, side), f" ({side.upper()})"))
               if side in ("x", "o") else _missing())
        note, detail = _tail(forfeit.get("detail") or "")
        rows.append(HTML.element(
            "tr", _cell(HTML.element("a", "game ", _h(record.get("id"), WORD_CHARS),
                                     href=f"#game-{index}")),
            _cell(_h(view.round_of(index, record), WORD_CHARS), "n"), _cell(who),
            _cell(_h(forfeit.get("reason"), WORD_CHARS)),
            _cell(HTML.element("pre", _muted(_h(note, None, True)) if note else None,
                               _h(detail, None, True)))))
    if not rows:
        shown = HTML.element("p", "No game was forfeited.", class_="muted")
    else:
        shown = HTML.element("table", _head_row(
            ("game", "round", "player", "reason", "detail (the end of its stderr)")),
            HTML.element("tbody", rows), class_="forfeits")
    return HTML.element("section", HTML.element("h2", "Forfeits"), shown, id="forfeits")


# --- games and replays ------------------------------------------------------------------

_RESULTS = {"x": "1–0", "o": "0–1", "draw": "½–½"}


def _games(view: "_Tournament") -> Markup:
    game = view.game
    replays = [_replay(view, _dict(record)) for record in view.games]
    data = {"game": game if view.rules else None, "base": _first_row(view),
            "games": replays}
    unknown = HTML.element("p", "Unknown game ", _h(view.doc.get("game"), WORD_CHARS),
                           ": the games cannot be replayed.", class_="broken")
    tools = HTML.element("p", HTML.element("label", "filter ", HTML.element(
        "input", id="game-filter", type="search", placeholder="name, round, result…")),
        " ", _muted("Open a game to replay it; ← → step, Home/End jump."), class_="tools")
    rows = (_game_row(view, index, _dict(record), replays[index])
            for index, record in enumerate(view.games))
    return HTML.join((
        HTML.element("section", HTML.element("h2", "Games"),
                     unknown if view.rules is None else None, tools,
                     _games_table(rows, "games"), id="games"),
        _replay_data(data)))


def _games_table(rows: Iterable[Markup], kind: str) -> Markup:
    """The games table: its head, the ``rows``, then the replay viewer's row."""
    head = HTML.element("thead", HTML.element(
        "tr", HTML.element("th", "game", class_="n"), HTML.element("th", "round", class_="n"),
        HTML.element("th", "size"), HTML.element("th", "X"), HTML.element("th", "O"),
        HTML.element("th", "result"), HTML.element("th", "score", class_="n"),
        HTML.element("th", "moves", class_="n"), HTML.element("th", "CPU X / O", class_="n"),
        HTML.element("th")))
    viewer = Markup(asset(ASSETS, "replay-viewer.html").rstrip("\n"))
    return HTML.element("table", head, HTML.element("tbody", rows, viewer, id="game-rows"),
                        class_=kind)


def _first_row(view: "_Tournament") -> int:
    """The number of the top row in the replays' labels (0 for an unknown game)."""
    return view.rules.first_row if view.rules is not None else 0


def _replay_data(data: Dict[str, Any]) -> Markup:
    return HTML.element("script", Markup(_script_json(data)), type="application/json",
                        id="replay-data")


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
    data = {"game": view.game if view.rules else None, "base": _first_row(view),
            "games": [replay]}
    row = (_game_row(view, 0, record, replay, opened=True) if record else
           HTML.element("tr", HTML.element("td", "No such game.", colspan="10",
                                           class_="muted")))
    return HTML.join((_games_table((row,), "games one-game"), _replay_data(data)))


def _pair(value: object, digits: Optional[int] = None) -> str:
    values = _list(value)
    if len(values) != 2:
        return "—"
    if digits is None:
        return " – ".join(_plain(v) for v in values)
    return " / ".join(_fixed(v, digits) for v in values)


def _game_row(view: "_Tournament", index: int, record: Dict[str, Any],
              replay: Optional[Dict[str, Any]], opened: bool = False) -> Markup:
    """A game's row of the games table (``opened``: the page opens it as it loads)."""
    result = _result(record)
    forfeit = _dict(record.get("forfeit"))
    shown = HTML.join((
        _RESULTS[result] if result else _missing(),
        (" ", HTML.element("span", "forfeit: ", _h(forfeit.get("reason"), WORD_CHARS),
                           class_="badge bad")) if forfeit else None))
    names = []
    for side in ("x", "o"):
        name = _side_name(record, side)
        names.append(HTML.element("b", name) if result == side else name)
    moves = len(_list(record.get("moves")))
    x_name, o_name = _text(record.get("x"), NAME_CHARS), _text(record.get("o"), NAME_CHARS)
    title = (f"Game {_text(record.get('id'), WORD_CHARS)} · round "
             f"{_text(view.round_of(index, record), WORD_CHARS)} · "
             f"{_size_text(view.rules, record.get('size'))} · {x_name} (X) vs {o_name} (O) · "
             f"{_RESULTS[result] if result else '?'}")
    button = (HTML.element("button", "replay", type="button", class_="play")
              if replay is not None else _muted("—"))
    return HTML.element(
        "tr", _cell(_h(record.get("id"), WORD_CHARS), "n"),
        _cell(_h(view.round_of(index, record), WORD_CHARS), "n"),
        _cell(_size_text(view.rules, record.get("size"), True)), _cell(names[0]),
        _cell(names[1]), _cell(shown), _cell(_pair(record.get("score")), "n"),
        _cell(moves, "n"), _cell(_pair(record.get("cpu"), 1), "n"), _cell(button),
        data_open=opened, id=f"game-{index}", data_g=index, data_title=title, data_x=x_name,
        data_o=o_name)


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
    rules = view.rules
    cells = rules.clean_cells(record.get("cells")) if rules is not None else None
    frames, note = None, ""
    if rules is None or view.game is None:     # (no game: no rules either)
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
        values = rules.cell_values(cells) if rules is not None else None
        if values is not None:
            entry["v"] = values
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


# --- the files of the page ----------------------------------------------------------------
# assets/: report.html (the page's skeleton), report.css, replay.css and report-print.css
# (its style, in this order), replay-viewer.html (the games table's viewer row) and
# replay.js (the one script).
ASSETS = __name__.rpartition(".")[0]

# The replay board's own style: the games table's viewer (board, controls, moves).
# It is part of the page's style, and a server's page of one game (engine.ladder) serves
# it as a file beside its own style, which must define the colours --x, --o, --line,
# --muted.
BOARD_STYLE: str = asset(ASSETS, "replay.css")
# The page's script, which a server's page of one game serves as a file too.
SCRIPT: str = asset(ASSETS, "replay.js")

# Only our own script may run: its hash is the whole script-src (an injected script or
# event handler would be refused even if an escape were ever missed); nothing is fetched.
# The page's policy, for a server that sends it as a header too (the ladder).
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
       "form-action 'none'; script-src " + script_hash(SCRIPT))
