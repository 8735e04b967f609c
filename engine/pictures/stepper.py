"""The search stepper: one offline HTML page that replays the engine's own alpha-beta.

Nothing here searches. :func:`record` runs THE search (:func:`engine.search.search`) with
a :class:`StepTracer` attached and keeps every event the tracer hook reports (``enter``,
``pruned``, ``leave``) as numbered *steps*; :func:`render` embeds those steps as JSON in a
self-contained page whose script only replays them (engine/pictures/assets/: the page's
skeleton stepper.html, its style stepper.css and its script stepper.js).

Steps: step 0 is "before the search", steps 1..E are the tracer's events in the order the
search made them, step E+1 is "search finished". A node's window while it is open is
read from the events too: the window it was entered with, then, after each child
returns, the window its next child was entered with (or, after its last child or a cut,
its own final window from ``leave``).

The DOM contract of the page (docs/trees.md, "Stepping through the search"):

* every node element carries ``data-node``: its path of child indices from the root
  ("" for the root, "0.2" for the root's first child's third child); a node's children
  are numbered in the order the search meets them (visited ones, then the ones a cut
  skipped), which is the game's move order;
* after each step ``data-value``, ``data-alpha``, ``data-beta`` hold what ``tree --json``
  writes (``"inf"``/``"-inf"`` for infinite bounds), empty while unknown (and always
  empty for bounds of a minimax search), and ``data-state`` is one of ``unvisited``,
  ``current``, ``open``, ``done``, ``pruned``;
* the controls carry ``data-action`` = ``first``, ``prev``, ``next``, ``last``, ``play``;
  the slider is ``input[data-action=seek]``; the page's ``data-step`` holds the step.

Untrusted text (a student's trace) reaches the page only as JSON inside
``<script type="application/json">`` with ``<``, ``>``, ``&``, U+2028 and U+2029 escaped,
and the script writes it with ``textContent``. A Content-Security-Policy lets only our
own script run (its sha256 is the whole ``script-src``) and fetches nothing.
"""

import json
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import UsageError
from ..markup import XML, Markup, asset, script_hash
from ..search import INF, INTERIOR, ExactSearch, SearchResult, search
from ..trace import Tracer

__all__ = ["StepTracer", "Recording", "TooManyNodes", "record", "compare_visited",
           "compare_lines", "compare_move", "render", "embedded_json", "MAX_NODES"]

# A page replays every step in the browser: beyond this many visited nodes it would be
# large and slow, so recording stops with a clear message.
MAX_NODES = 200_000

ENTER, CUT, LEAVE = "e", "c", "l"
KIND_CODES = {INTERIOR: "i", "terminal": "t", "evaluated": "e", "transposition": "x"}


class TooManyNodes(UsageError):
    """The search visits more nodes than a page can replay."""


def json_bound(bound: Optional[float]) -> Union[str, float, None]:
    """A bound as ``tree --json`` writes it: ``"inf"``, ``"-inf"`` or the number."""
    if bound == INF:
        return "inf"
    if bound == -INF:
        return "-inf"
    return bound


class StepTracer(Tracer):
    """Keeps every event of one search, numbered as steps (see the module docstring).

    Per visited node (ids in visit order, root 0): parent id, state, MAX or not, the step
    of its ``enter`` and ``leave`` (and of its cut, if any), its window on entry, its
    value, final window and value kind, and the actions a cut skipped.
    """

    def __init__(self, is_max: Callable[[Any], Any], max_nodes: int = MAX_NODES) -> None:
        self.is_max = is_max
        self.max_nodes = max_nodes
        self.nodes: List[Dict[str, Any]] = []   # one dict per visited node, see enter
        # (ENTER | CUT | LEAVE, node id); step number = index + 1
        self.steps: List[Tuple[str, int]] = []
        self.open: List[int] = []  # open[d]: id of the node of depth d on the current path

    def enter(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> None:
        if len(self.nodes) >= self.max_nodes:
            raise TooManyNodes(f"the search visits more than {self.max_nodes} nodes: too many "
                               "for one page (search with pruning, a depth limit or a later "
                               "position)")
        ident = len(self.nodes)
        parent = self.open[depth - 1] if depth else -1
        del self.open[depth:]
        self.open.append(ident)
        self.nodes.append({"parent": parent, "state": state, "action": action,
                           "max": bool(self.is_max(state)), "enter": len(self.steps) + 1,
                           "leave": -1, "cut": -1, "alpha_in": alpha, "beta_in": beta,
                           "value": None, "alpha": None, "beta": None, "kind": None,
                           "skipped": []})
        self.steps.append((ENTER, ident))

    def pruned(self, state: Any, depth: int, actions: List[Any]) -> None:
        ident = self.open[depth]
        node = self.nodes[ident]
        node["skipped"].extend(actions)
        node["cut"] = len(self.steps) + 1
        self.steps.append((CUT, ident))

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float, beta: float,
              kind: str) -> None:
        ident = self.open[depth]
        node = self.nodes[ident]
        node.update(value=value, alpha=alpha, beta=beta, kind=kind,
                    leave=len(self.steps) + 1)
        self.steps.append((LEAVE, ident))


class Recording:
    """One search replayed as a page: the node table and the steps.

    ``columns`` holds one list per field, indexed by node id (visited nodes first, in
    visit order, then the nodes no visit reached: the children a cut skipped and, for
    explicit trees, everything below them); :meth:`data` is the JSON the page embeds.
    """

    def __init__(self, tracer: StepTracer, result: SearchResult, prune: bool,
                 board: Optional[Callable[[Any], Sequence[str]]] = None,
                 label: Optional[Callable[[Any], Any]] = None,
                 child: Optional[Callable[[Any, Any], Any]] = None,
                 expand: Optional[Callable[[Any], Iterable[Any]]] = None,
                 given: Optional[Callable[[Any], Any]] = None, title: str = "",
                 caption: Iterable[str] = (),
                 move: Optional[Callable[[Any, Any], Optional[str]]] = None) -> None:
        self.prune = prune
        self.result = result
        self.title = title
        self.caption = list(caption)
        self.steps = tracer.steps
        self.states = [node["state"] for node in tracer.nodes]
        self.against: Optional[Dict[str, Any]] = None
        visited = tracer.nodes
        tree = _Tree(visited)
        tree.add_skipped(visited, self.states, child, expand)
        self.kids = tree.kids
        self.parent = tree.parent
        bound: Callable[[Any], Any] = json_bound if prune else (lambda _: None)
        self.columns = _search_columns(visited, tree, bound)
        self.columns["after_alpha"], self.columns["after_beta"] = \
            _windows_after_children(visited, tree.kids, bound)
        self._add_state_columns(label, move, given, board)
        self.visited_count = len(visited)
        self.actions = [node["action"] for node in visited]
        self.chosen = self._chosen_path()
        self.quiz = False

    def _add_state_columns(self, label: Optional[Callable[[Any], Any]],
                           move: Optional[Callable[[Any, Any], Optional[str]]],
                           given: Optional[Callable[[Any], Any]],
                           board: Optional[Callable[[Any], Sequence[str]]]) -> None:
        """The columns drawn from the nodes' states, for the callbacks given: ``label``,
        ``moves``, ``given``, ``board`` (None where a node has no state)."""
        states = self.states
        if label is not None:
            self.columns["label"] = [label(s) if s is not None else None for s in states]
        if move is not None:
            self.columns["moves"] = _move_names(states, self.parent, move)
        if given is not None:
            # Numbers that are part of the problem (an explicit tree's leaves), drawn
            # even where the search never looked: not search results.
            self.columns["given"] = [given(s) if s is not None else None for s in states]
        if board is not None:
            self.columns["board"] = ["/".join(board(s)) if s is not None else None
                                     for s in states]

    # --- facts about the recorded tree (used by the page and by tests) -------------------
    def path(self, ident: int) -> str:
        """The node's path text: child indices from the root joined by '.'."""
        parts = []
        while self.parent[ident] >= 0:
            up = self.parent[ident]
            parts.append(str(self.kids[up].index(ident)))
            ident = up
        return ".".join(reversed(parts))

    def pruned_tops(self) -> List[int]:
        """Ids of the children a cut skipped (the tops of pruned branches), by path."""
        count = self.visited_count
        return [i for i in range(count, len(self.parent)) if self.parent[i] < count]

    def _chosen_path(self) -> List[int]:
        """The chosen line: the root's chosen child, then each node's first child whose
        value is its own (the search keeps the first strictly better child)."""
        action = self.result.action
        if action is None:
            return []
        values = self.columns["value"]
        count = self.visited_count
        line = []
        node = next((c for c in self.kids[0] if c < count and self.actions[c] == action),
                    None)
        while node is not None:
            line.append(node)
            node = next((c for c in self.kids[node] if c < count
                         and values[c] == values[node]), None)
        return line

    def data(self) -> Dict[str, Any]:
        """The JSON-able dict the page embeds."""
        data: Dict[str, Any] = dict(self.columns)
        data["steps"] = "".join(kind for kind, _ in self.steps)
        data["step_node"] = [ident for _, ident in self.steps]
        data["prune"] = self.prune
        data["title"] = self.title
        data["caption"] = self.caption
        data["root_value"] = self.result.value
        data["chosen"] = self.chosen
        data["against"] = self.against
        data["quiz"] = self.quiz
        return data


class _Tree:
    """The recorded tree's shape: ``parent`` and ``kids`` per node id, whether each node
    is MAX, and the step of the cut that skipped it (-1 for visited nodes)."""

    def __init__(self, visited: List[Dict[str, Any]]) -> None:
        self.parent: List[int] = [node["parent"] for node in visited]
        self.is_max: List[bool] = [node["max"] for node in visited]
        self.pruned_at = [-1] * len(visited)
        self.kids: List[List[int]] = [[] for _ in visited]
        for ident, node in enumerate(visited):
            if node["parent"] >= 0:
                self.kids[node["parent"]].append(ident)

    def add_skipped(self, visited: List[Dict[str, Any]], states: List[Any],
                    child: Optional[Callable[[Any, Any], Any]],
                    expand: Optional[Callable[[Any], Iterable[Any]]]) -> None:
        """Add the children a cut skipped (and, with ``expand``, what lies below them)
        after the visited children of their parent, in move order, appending their
        states (None without ``child``) to ``states``."""
        for ident, node in enumerate(visited):
            if not node["skipped"]:
                continue
            queue = [(ident, node["state"], a, node["cut"], node["max"])
                     for a in node["skipped"]]
            while queue:
                up, up_state, action, cut, up_max = queue.pop(0)
                state = child(up_state, action) if child is not None else None
                new = len(self.parent)
                self.parent.append(up)
                self.is_max.append(not up_max)
                self.pruned_at.append(cut)
                states.append(state)
                self.kids.append([])
                self.kids[up].append(new)
                if expand is not None and state is not None:
                    queue.extend((new, state, a, cut, not up_max) for a in expand(state))


def _search_columns(visited: List[Dict[str, Any]], tree: _Tree,
                    bound: Callable[[Any], Any]) -> Dict[str, Any]:
    """The columns of what the search did, per node id; nodes it never visited get -1
    steps, no value, kind "-" and no bounds. ``bound`` writes a window's bound."""
    total = len(tree.parent)
    count = len(visited)

    def visited_field(name: str, convert: Callable[[Any], Any] = lambda x: x) -> List[Any]:
        return [convert(node[name]) for node in visited] + [None] * (total - count)

    return {
        "parent": tree.parent,
        "max": [1 if m else 0 for m in tree.is_max],
        "enter": [node["enter"] for node in visited] + [-1] * (total - count),
        "leave": [node["leave"] for node in visited] + [-1] * (total - count),
        "cut": [node["cut"] for node in visited] + [-1] * (total - count),
        "pruned": tree.pruned_at,
        "value": visited_field("value"),
        "kind": "".join(KIND_CODES.get(node["kind"], "i") for node in visited)
        + "-" * (total - count),
        "alpha_in": visited_field("alpha_in", bound),
        "beta_in": visited_field("beta_in", bound),
        "alpha": visited_field("alpha", bound),
        "beta": visited_field("beta", bound),
    }


def _windows_after_children(visited: List[Dict[str, Any]], kids: List[List[int]],
                            bound: Callable[[Any], Any]) -> Tuple[List[Any], List[Any]]:
    """(alpha, beta) per node id: the window its parent has once this child returned,
    i.e. the next visited sibling's entry window, or (after the last visited child, or
    a cut) the parent's final one; None for nodes never visited."""
    count = len(visited)
    after_alpha: List[Any] = [None] * len(kids)
    after_beta: List[Any] = [None] * len(kids)
    for ident in range(count):
        children = [c for c in kids[ident] if c < count]
        for position, c in enumerate(children):
            if position + 1 < len(children):
                nxt = visited[children[position + 1]]
                after_alpha[c], after_beta[c] = bound(nxt["alpha_in"]), bound(nxt["beta_in"])
            else:
                after_alpha[c] = bound(visited[ident]["alpha"])
                after_beta[c] = bound(visited[ident]["beta"])
    return after_alpha, after_beta


def _move_names(states: List[Any], parent: List[int],
                move: Callable[[Any, Any], Optional[str]]) -> List[str]:
    """Each node named by the moves that reach it ("x@0, o@4"), as the grading kit's
    diagnoses name it ("?" for a move ``move`` cannot name); parents come before their
    children in node order."""
    moves = [""] * len(parent)
    for ident in range(1, len(parent)):
        up = parent[ident]
        state, up_state = states[ident], states[up]
        step = move(up_state, state) if None not in (state, up_state) else None
        moves[ident] = (moves[up] + ", " if moves[up] else "") + (step or "?")
    return moves


def record(game: Any, state: Any, *, prune: bool = True, depth: Optional[int] = None,
           board: Optional[Callable[[Any], Sequence[str]]] = None,
           label: Optional[Callable[[Any], Any]] = None,
           child: Optional[Callable[[Any, Any], Any]] = None,
           expand: Optional[Callable[[Any], Iterable[Any]]] = None,
           given: Optional[Callable[[Any], Any]] = None, title: str = "",
           caption: Iterable[str] = (), max_nodes: int = MAX_NODES,
           window: Optional[Tuple[float, float]] = None,
           move: Optional[Callable[[Any, Any], Optional[str]]] = None) -> Recording:
    """Search ``state`` of ``game`` with THE search, recording every step.

    Arguments: ``prune``/``depth`` as for engine.search.search (the programs' options);
    ``board(state) -> rows`` draws a small board in each node (game positions);
    ``label(state)`` names a node (explicit trees); ``child(state, action)`` gives the
    state a skipped child would have had (to draw it greyed); ``expand(state)`` the
    actions below a skipped child, to draw whole pruned branches (explicit trees only);
    ``given(state)`` a number that is part of the problem (an explicit tree's leaf), shown
    greyed before the search reaches it; ``title`` and ``caption`` lines head the page;
    ``window`` the root's (alpha, beta) as for engine.search.search (None: its default,
    the full window), e.g. TakeStones's (-1000, 1000).

    Returns a :class:`Recording`. Raises :class:`TooManyNodes` beyond ``max_nodes``
    visited nodes.
    """
    tracer = StepTracer(game.is_maxs_turn, max_nodes)
    # Only a given window is passed on: search's own default stays the one source of it.
    extra: Dict[str, Any] = {} if window is None else {"window": window}
    result = search(game, state, ExactSearch(prune=prune, depth=depth, tracer=tracer, **extra))
    return Recording(tracer, result, prune, board=board, label=label, child=child, move=move,
                     expand=expand, given=given, title=title, caption=caption)


# --- a student's visited file against the expected one ---------------------------------
MAX_SHOWN = 300     # characters of a student's line shown on the page


def expected_visited_lines(recording: Recording,
                           key: Callable[[Any], str]) -> List[Tuple[str, int]]:
    """The visited file the programs write, as (line, node id) in order: one
    ``KEY VALUE`` line per visited node but the root, as it returns (post-order)."""
    values = recording.columns["value"]
    lines = []
    for kind, ident in recording.steps:
        if kind == LEAVE and ident != 0:
            lines.append((f"{key(recording.states[ident])} {values[ident]}", ident))
    return lines


def _shorten(line: str) -> str:
    return line if len(line) <= MAX_SHOWN else line[:MAX_SHOWN] + "\u2026"


def compare_visited(recording: Recording, student_text: str,
                    key: Callable[[Any], str]) -> Dict[str, Any]:
    """Compare a student's visited file with the one the search implies.

    ``student_text``: the file's text (anything; decoded by the caller); ``key(state)``:
    the KEY text of a node (the 9-character board for tic-tac-toe and Morris). Lines are
    compared after removing trailing white space (a CR of a Windows file included).

    Returns a dict for the page: ``agree`` (lines that matched before the first
    difference), ``line`` (1-based number of the first differing line, or None when the
    files agree), ``expected``/``student`` (those lines, None past an end), ``node`` (id
    of the node whose line was expected there, or None), ``student_node`` (a node of the
    page with the student's KEY among that node's siblings and their subtrees, if any),
    ``total``/``student_total`` (line counts).
    """
    expected = expected_visited_lines(recording, key)
    report = compare_lines(expected, student_text)
    if report["line"] is not None and report["student"] is not None:
        line = student_text_line(student_text, report["line"])
        report["student_node"] = _find_student_node(recording, report["node"], line, key)
    return report


def compare_move(recording: Recording, printed: str, key: Callable[[Any], str],
                 move: Optional[Callable[[Any, Any], Optional[str]]] = None
                 ) -> Dict[str, Any]:
    """The move a student's program printed (``printed``: the board after it, as the
    program's stdout line) against the search's choice, for the page: ``printed`` (the
    text, shortened), ``student`` (the root child with that KEY, or None when it is no
    move from the root), ``chosen`` (the search's chosen child, or None) and its KEY
    (``chosen_printed``), ``differs``,
    and the moves' names (``student_move``, ``chosen_move``: ``x@4``, or None)."""
    text = printed.strip()
    root = recording.states[0]
    student = next((c for c in recording.kids[0] if recording.states[c] is not None
                    and key(recording.states[c]) == text), None)
    chosen = recording.chosen[0] if recording.chosen else None

    def name(node: Optional[int]) -> Optional[str]:
        if node is None or move is None:
            return None
        return move(root, recording.states[node])
    return {"printed": _shorten(text), "student": student, "chosen": chosen,
            "chosen_printed": None if chosen is None else key(recording.states[chosen]),
            "differs": student is None or student != chosen,
            "student_move": name(student), "chosen_move": name(chosen)}


def _student_lines(student_text: str) -> List[str]:
    """The student's lines, trailing white space (a CR included) removed."""
    student = student_text.split("\n")
    if student and student[-1] == "":
        student.pop()
    return [line.rstrip() for line in student]


def student_text_line(student_text: str, number: int) -> str:
    """Line ``number`` (1-based) of the student's text as :func:`compare_lines` reads it."""
    return _student_lines(student_text)[number - 1]


def compare_lines(expected: Sequence[Tuple[str, Optional[int]]],
                  student_text: str) -> Dict[str, Any]:
    """Compare a student's file with the expected lines, ``expected`` a list of
    ``(line, node id or None)`` in file order (the node the line is about).

    Lines are compared after removing trailing white space (a CR of a Windows file
    included). Returns the report of :func:`compare_visited` with ``student_node`` None.
    """
    student = _student_lines(student_text)
    agree = 0
    while (agree < len(expected) and agree < len(student)
           and student[agree] == expected[agree][0]):
        agree += 1
    report: Dict[str, Any] = {
        "agree": agree, "total": len(expected), "student_total": len(student),
        "line": None, "expected": None, "student": None, "node": None,
        "student_node": None,
        "agreed_nodes": [ident for _, ident in expected[:agree] if ident is not None]}
    if agree == len(expected) and agree == len(student):
        return report
    report["line"] = agree + 1
    if agree < len(expected):
        report["expected"], report["node"] = expected[agree]
    if agree < len(student):
        report["student"] = _shorten(student[agree])
    return report


def _find_student_node(recording: Recording, expected_node: Optional[int], line: str,
                       key: Callable[[Any], str]) -> Optional[int]:
    """Where the student's differing line is about, if it names a node near the expected
    one: that node's parent's subtree, searched breadth first (pruned children included)."""
    board = line.split(" ", 1)[0]
    if expected_node is None:
        return None
    top = recording.parent[expected_node]
    top = top if top >= 0 else 0
    queue = [top]
    while queue:
        ident = queue.pop(0)
        state = recording.states[ident]
        if ident != top and state is not None and key(state) == board:
            return ident
        queue.extend(recording.kids[ident])
    return None


# --- the page ----------------------------------------------------------------------------
def embedded_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: ``<``, ``>``, ``&``, U+2028
    and U+2029 are written as ``\\u`` escapes, so no text can close the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def page_script() -> str:
    """The page's script (assets/stepper.js), byte for byte what its ``<script>`` element
    holds: the page's Content-Security-Policy lets exactly this text run."""
    return asset(__name__.rpartition(".")[0], "stepper.js")


def content_security_policy() -> str:
    """The page's policy: only our own script runs (its sha256 is the whole
    ``script-src``), inline styles apply, nothing is fetched."""
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
            "form-action 'none'; script-src " + script_hash(page_script()))


def render(recording: Recording, *, against: Optional[Dict[str, Any]] = None,
           move: Optional[Dict[str, Any]] = None) -> str:
    """The page (str): a self-contained HTML document replaying ``recording``.

    Arguments: ``recording`` from :func:`record`; ``against`` a report from
    :func:`compare_visited` to overlay (the first divergence highlighted), or None;
    ``move`` a report from :func:`compare_move` (the move the student printed, said
    beside the trace: a trace that agrees with a move that differs is no pass), or None.
    Returns the HTML text; raises nothing for any student text (it is escaped).
    """
    if against is not None:
        recording.against = dict(against, move=move)
    package = __name__.rpartition(".")[0]
    return XML.fill(asset(package, "stepper.html"), csp=content_security_policy(),
                    title=recording.title or "Search stepper",
                    style=asset(package, "stepper.css"),
                    data=Markup(embedded_json(recording.data())), script=page_script())
