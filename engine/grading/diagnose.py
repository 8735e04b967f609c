"""Judging a finished run: pass or fail, and why a person would want to know.

Contract: :func:`diagnose` gets the program name (``tictactoe``, ``tmmorris``,
``take_stones`` or ``stake_raid``), the :class:`~engine.grading.case.Case` and the
:class:`~engine.grading.case.Outcome` of a run that ended by itself (timeouts and limit
kills are judged by the runner), and returns a :class:`~engine.grading.verdict.Verdict`.

Only what the assignment's grader compares is graded, byte for byte:

* tictactoe: stdout and the visited file PATH (which must not exist after a terminal
  input);
* tmmorris: the assignment lets students write their own evaluation, so the visited file
  cannot match ours. Checked instead: the printed board is one legal move of TURN from
  STATE, the visited file exists and holds ``STATE VALUE`` lines (9 characters from
  ``xo-``, a space, an integer), and with PLY >= 7 the move keeps the solved value of the
  position (a won position stays won, a drawn one is not lost). Terminal inputs: nothing
  printed, no file;
* take_stones: stdout;
* stake_raid: output.txt (stdout ignored). A missing or unparsable output.txt sets
  ``Verdict.unusable_output`` (the assignment's rule: 0 points for the submission).

Exit status, stderr and stray files are mentioned in ``detail``, never graded.

Reasons (the first line a person reads) are worded for the fix: "CRLF line endings",
"trailing blanks on 3 lines", "missing final newline", "extra bytes after the expected
output", "garbage/non-text bytes", "wrong move: expected x@4, got x@2 (tie-break slip:
...)", "visited file missing", "visited file must not exist (terminal input)", "first
difference at node reached by x@4, o@0: expected value 1, got 0", "listed in pre-order",
"visits a node the expected search prunes: ...". Several findings are joined with "; ".

``lenient=True`` forgives trailing blanks and a missing final newline (not CRLF): a pass
that needed it has ``Verdict.lenient`` set and the reason "passed (lenient: ...)".
"""

import re

from ..errors import EngineError
from ..games.morris import OTHER, moves as morris_moves, solve
from ..games.stake_raid import RAID, action_cell
from ..games.take_stones import TakeStones
from ..games.tictactoe import TicTacToe
from ..programs.stake_raid.homework import parse_input, setup
from ..search import search
from .textdiff import compare_text, content_difference, first_line_difference, is_text
from .traces import Entry, diagnose_trace
from .verdict import Verdict

class Finding:
    """One graded output's judgement: ``ok`` (possibly only thanks to ``lenient_notes``),
    else ``reason`` and ``detail``; ``unusable`` for an output that cannot be read."""

    __slots__ = ("ok", "reason", "detail", "lenient_notes", "unusable")

    def __init__(self, ok, reason="", detail="", lenient_notes=(), unusable=False):
        self.ok, self.reason, self.detail = ok, reason, detail
        self.lenient_notes = list(lenient_notes)
        self.unusable = unusable


def fail(reason, detail="", unusable=False):
    return Finding(False, reason, detail or reason, unusable=unusable)


def diagnose(program, case, outcome, lenient=False):
    """The Verdict of ``outcome`` on ``case`` for ``program`` (see the module docstring)."""
    judge = _JUDGES.get(program)
    if judge is None:
        raise ValueError(f"no diagnosis for program {program!r}")
    if case.exit != 0 or case.stderr or not _fits(program, case):
        # Not a generated case (e.g. a fixture of bad input): plain byte comparison.
        judge = _plain
    try:
        findings = [f for f in judge(case, outcome, lenient) if f is not None]
    except (ValueError, IndexError, KeyError, UnicodeError, EngineError):
        # A case our program-specific reading does not fit: bytes still decide.
        judge = _plain
    if judge is _plain:
        findings = _plain(case, outcome, lenient, _graded_files(program, case))
    notes = _ungraded_notes(program, case, outcome)
    failures = [f for f in findings if not f.ok]
    if not failures:
        forgiven = [n for f in findings for n in f.lenient_notes]
        if forgiven:
            kinds = []
            for note in forgiven:
                kind = re.sub(r" on \d+ lines?$", "", note)
                if kind not in kinds:
                    kinds.append(kind)
            reason = f"passed (lenient: {', '.join(kinds)})"
            detail = "\n".join([f"passed only with --lenient: {'; '.join(forgiven)}"] + notes)
            return Verdict(True, reason, detail, lenient=True)
        return Verdict(True, "passed", "\n".join(notes))
    reason = _join_reasons([f.reason for f in failures])
    detail = "\n".join([f.detail for f in failures] + notes)
    return Verdict(False, reason, detail,
                   unusable_output=any(f.unusable for f in failures))


def _fits(program, case):
    """Whether ``case`` has the shape of a generated case of ``program``."""
    if program == "tictactoe":
        return 2 <= len(case.args) <= 4
    if program == "tmmorris":
        return len(case.args) == 4
    if program == "take_stones":
        return len(case.args) >= 3
    return "input.txt" in case.files


def _plain(case, outcome, lenient, graded=()):
    """Byte comparison of stdout and of every file the case expects; a ``graded`` file
    (the program's output file) that the case neither expects nor provides must not
    exist (e.g. after bad input)."""
    findings = [judge_text("stdout", case.stdout, outcome.stdout, lenient)]
    for name, data in sorted(case.expected.items()):
        if name not in outcome.files:
            findings.append(fail(f"{name} missing", f"{name} was not created"))
        else:
            findings.append(judge_text(name, data, outcome.files[name], lenient))
    for name in graded:
        if name in outcome.files and name not in case.expected and name not in case.files:
            findings.append(fail(f"{name} must not exist",
                                 f"{name} was created; this case expects no such file"))
    return [f for f in findings if f is not None]


def _join_reasons(reasons):
    """Reasons joined with "; ", the same cosmetic reason of several outputs once:
    "CRLF line endings (stdout, visited file)"."""
    split = [reason.split(": ", 1) if reason.startswith(("visited file: ", "output.txt: "))
             else ["stdout", reason] for reason in reasons]
    kinds = {kind for _, kind in split}
    if len(reasons) > 1 and len(kinds) == 1:
        return f"{split[0][1]} ({', '.join(where for where, _ in split)})"
    return "; ".join(reasons)


def _ungraded_notes(program, case, outcome):
    """What the grader does not compare but a person may want to know."""
    notes = []
    if outcome.exit not in (0, None):
        notes.append(f"note (not graded): exit status {outcome.exit}")
    if outcome.stderr:
        notes.append(f"note (not graded): stderr: {outcome.stderr[:300]!r}"
                     + (" ..." if len(outcome.stderr) > 300 else ""))
    graded = set(case.files) | set(case.expected) | set(_graded_files(program, case))
    stray = sorted(name for name in outcome.files if name not in graded)
    if stray:
        shown = ", ".join(stray[:10]) + (" ..." if len(stray) > 10 else "")
        notes.append(f"note (not graded): files left behind: {shown}")
    return notes


def _graded_files(program, case):
    if program in ("tictactoe", "tmmorris") and len(case.args) >= 2:
        return [case.args[1]]
    if program == "stake_raid":
        return ["output.txt"]
    return []


def affordable(expected, actual):
    """True when ``actual`` is small enough for a content diagnosis (a search trace
    rebuilt as a tree costs time and memory in proportion to its size): at most a
    quarter larger than ``expected``, plus 64 KB. A larger output is judged by its first
    differing line, so a submission cannot make the kit's diagnosis its weapon."""
    return len(actual) <= len(expected) * 5 // 4 + (64 << 10)


def judge_text(where, expected, actual, lenient, content=None):
    """The Finding for one text output compared byte for byte.

    ``content(expected, actual) -> (reason, detail)`` explains a difference of content
    (after cosmetic differences are normalised away); default: the first differing line.
    """
    comparison = compare_text(expected, actual)
    if comparison.identical:
        return Finding(True)
    if lenient and comparison.lenient_pass():
        return Finding(True, lenient_notes=comparison.notes)
    notes = "; ".join(comparison.notes)
    if comparison.same_content:
        return fail(notes if where == "stdout" else f"{where}: {notes}",
                    f"{where}: {notes}; otherwise the same bytes")
    expected, actual = comparison.expected, comparison.actual
    if content is None or not is_text(actual) or actual.startswith(expected) \
            or expected.startswith(actual) or not affordable(expected, actual):
        # Garbage, extra bytes at the end and output that stops early say it all; so
        # does the first differing line of an output too large to rebuild as a tree.
        reason, detail = content_difference(expected, actual, where)
        if where != "stdout":
            reason = f"{where}: {reason}"
    else:
        reason, detail = content(expected, actual)
    if comparison.notes:
        reason += f" (also {notes})"
        detail += f"\n{where} also has: {notes}"
    return fail(reason, detail)


# --- tic-tac-toe ---------------------------------------------------------------------

_VISITED_LINE = re.compile(rb"^([xo-]{9}) (-?\d+)$")


# Moves already named: a listing repeats the same few thousand parent/child pairs.
_CELL_MOVES = {}


def _cell_move(parent, child):
    """``x@4`` when ``child`` is ``parent`` with one more mark (cell 4), else None."""
    key = parent + child
    known = _CELL_MOVES.get(key)
    if known is None:
        if len(_CELL_MOVES) > 100000:
            _CELL_MOVES.clear()
        known = _CELL_MOVES[key] = _find_cell_move(parent, child) or ""
    return known or None


def _find_cell_move(parent, child):
    changed = [i for i in range(9) if parent[i] != child[i]]
    if len(changed) != 1 or parent[changed[0]] != "-":
        return None
    return f"{child[changed[0]]}@{changed[0]}"


def _marks(board):
    return 9 - board.count("-")


def _visited_entries(text, root):
    """Entries of a visited file (see engine.grading.traces), or (line number, line)
    for the first line that is not ``STATE VALUE``."""
    entries = []
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    # Listings repeat the same few thousand lines (549,945 lines, 5,478 positions):
    # each distinct line is parsed once.
    parsed = {}
    root_marks = _marks(root)
    for number, line in enumerate(lines, 1):
        entry = parsed.get(line)
        if entry is None:
            match = _VISITED_LINE.match(line)
            if not match:
                return number, line
            board = match.group(1).decode()
            entry = parsed[line] = Entry(_marks(board) - root_marks, line.decode(),
                                         f"value {int(match.group(2))}")
        entries.append(entry)
    return entries


def _show_cells(path):
    return ", ".join(path)


def visited_trace_difference(root, expected, actual, where="visited file"):
    """(reason, detail) for two tic-tac-toe visited files that differ in content."""
    want = _visited_entries(expected, root)
    got = _visited_entries(actual, root)
    if isinstance(got, tuple):
        number, line = got
        return (f"{where}: line {number} is not 'STATE VALUE'",
                f"{where} line {number}: {line[:200]!r} is not a 9-character board from "
                "x, o, - followed by a space and an integer")
    if isinstance(want, list):
        found = diagnose_trace(want, got, lambda parent, key: _cell_move(parent[:9], key[:9]),
                               root, _show_cells, what=where)
        if found is not None:
            lines = first_line_difference(expected, actual, where)[1]
            return f"{where}: {found.reason}", f"{found.detail}\n{lines}"
    reason, detail = content_difference(expected, actual, where)
    return f"{where}: {reason}", detail


def _tictactoe_value(board, ply):
    """The minimax value (x's view) of ``board`` as the assignment's search sees a root
    child: to the end, or cut off ``ply - 1`` plies below it."""
    game = TicTacToe(evaluate_terminals=ply is not None)
    return search(game, board, prune=True, depth=None if ply is None else ply - 1,
                  memo={}).value


def _tictactoe_move_difference(board, ply, expected, actual):
    """(reason, detail) for a tic-tac-toe stdout that differs in content."""
    lines = actual.split(b"\n")
    if len(lines) != 2 or lines[1] != b"":
        return content_difference(expected, actual, "stdout")
    got = lines[0].decode("ascii", "replace")
    want = expected.decode().strip()
    children = {child: action for action, child in TicTacToe().successors(board)}
    if got not in children:
        return (f"not a legal move: {got!r}",
                f"stdout: {got!r} is not {board} with one more "
                f"{'x' if board.count('x') == board.count('o') else 'o'}; expected {want}")
    want_move, got_move = _cell_move(board, want), _cell_move(board, got)
    want_value, got_value = _tictactoe_value(want, ply), _tictactoe_value(got, ply)
    head = f"wrong move: expected {want_move}, got {got_move}"
    view = "values from x's view: x takes the highest, o the lowest"
    if want_value == got_value:
        return (f"{head} (tie-break slip: both moves have value {want_value}; the grader "
                "keeps the first in raster order)",
                f"stdout: expected {want}, got {got}. Both moves have value {want_value} "
                f"({view}); the grader keeps the first of the best moves in raster order "
                f"(cell {children[want]}), and the only change is which equal move wins.")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"stdout: expected {want} (value {want_value}), got {got} (value "
            f"{got_value}); {view}")


def _tictactoe(case, outcome, lenient):
    board, path = case.args[0], case.args[1]
    ply = int(case.args[3]) if len(case.args) == 4 else None
    if path not in case.expected:
        return _terminal_input(case, outcome, path)
    findings = [judge_text("stdout", case.stdout, outcome.stdout, lenient,
                           lambda e, a: _tictactoe_move_difference(board, ply, e, a))]
    if path not in outcome.files:
        findings.append(fail("visited file missing", f"{path} was not created"))
    else:
        findings.append(judge_text(
            "visited file", case.expected[path], outcome.files[path], lenient,
            lambda e, a: visited_trace_difference(board, e, a)))
    return findings


def _terminal_input(case, outcome, path):
    """A terminal STATE: nothing printed and no visited file."""
    findings = []
    if outcome.stdout != case.stdout:
        findings.append(fail("printed something for a terminal input",
                             f"stdout should be empty for the terminal STATE "
                             f"{case.args[0]}; got {outcome.stdout[:200]!r}"))
    if path in outcome.files:
        findings.append(fail("visited file must not exist (terminal input)",
                             f"{path} was created for the terminal STATE {case.args[0]}; "
                             "the grader expects no file at all"))
    return findings


# --- Three Men's Morris --------------------------------------------------------------

def _canonical_lines(text):
    """``text`` as LF lines without trailing blanks, each ended by a newline."""
    lines = text.replace(b"\r\n", b"\n").split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return b"".join(line.rstrip(b" \t") + b"\n" for line in lines)


def _tmmorris(case, outcome, lenient):
    board, path, ply, turn = case.args[0], case.args[1], int(case.args[2]), case.args[3]
    if path not in case.expected:
        return _terminal_input(case, outcome, path)
    findings = []
    # stdout: one board, then a newline; cosmetic differences judged against that form.
    stdout = _canonical_lines(outcome.stdout)
    finding = judge_text("stdout", stdout, outcome.stdout, lenient)
    lines = stdout.split(b"\n")[:-1]
    if len(lines) != 1 or not re.match(rb"^[xo-]{9}$", lines[0]):
        findings.append(fail("no board printed" if not lines else "stdout is not one board",
                             f"stdout should be the 9-character board after the move, got "
                             f"{outcome.stdout[:200]!r}"))
    else:
        got = lines[0].decode()
        children = [child for _, child in morris_moves(board, turn)]
        if got not in children:
            findings.append(fail(f"illegal move for {turn}: {got}",
                                 f"stdout: {got} is not one legal move of {turn} from "
                                 f"{board} (placement while fewer than 3 pieces, then "
                                 f"orthogonal slides)"))
        elif ply >= 7:
            findings.append(_morris_keeps_value(board, turn, got))
        findings.append(finding)
    if path not in outcome.files:
        findings.append(fail("visited file missing", f"{path} was not created"))
    else:
        text = outcome.files[path]
        canonical = _canonical_lines(text)
        findings.append(judge_text("visited file", canonical, text, lenient))
        lines = canonical.split(b"\n")[:-1]
        if not lines:
            findings.append(fail("visited file is empty",
                                 f"{path} lists no node; every non-terminal search visits "
                                 "at least the root's children"))
        for number, line in enumerate(lines, 1):
            if not _VISITED_LINE.match(line):
                findings.append(fail(f"visited file: line {number} is not 'STATE VALUE'",
                                     f"{path} line {number}: {line[:200]!r} is not a "
                                     "9-character board from x, o, - followed by a space "
                                     "and an integer"))
                break
    return findings


def _morris_keeps_value(board, turn, child):
    """With PLY >= 7 the move must keep the exact value: won stays won, drawn not lost."""
    solved = solve()
    outcome, plies = solved[board + turn]
    after = -solved[child + OTHER[turn]][0]      # the child's value for ``turn``
    names = {1: "won", 0: "drawn", -1: "lost"}
    if after >= outcome:
        return Finding(True)
    return fail(f"the move throws away a {names[outcome]} position",
                f"{board} with {turn} to move is {names[outcome]} for {turn} (exact value, "
                f"repetition = draw); after {child} it is {names[after]} for {turn}. With "
                "PLY >= 7 the search sees every forced result, so a won position must stay "
                "won and a drawn one must not be lost.")


# --- Take-Stones ---------------------------------------------------------------------

_BOUNDS_LINE = re.compile(r"^alpha: (-?\d+)\tbeta: (-?\d+)$")


def _take_stones_listing(text):
    """(blocks, tail) of a Take-Stones stdout, blocks = [(last, stones, alpha, beta)],
    tail = the lines after them; or None when it cannot be read that way."""
    lines = text.decode("ascii", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blocks = []
    index = 0
    while index + 2 < len(lines) and lines[index] not in ("NEXT MOVE", "Invalid input"):
        last, stones, bounds = lines[index:index + 3]
        match = _BOUNDS_LINE.match(bounds.rstrip(" "))
        if not re.match(r"^-?\d+$", last) or not match or \
                not all(word.isdigit() for word in stones.split()):
            return None
        blocks.append((int(last), tuple(int(w) for w in stones.split()),
                       int(match.group(1)), int(match.group(2))))
        index += 3
    return blocks, lines[index:]


def _take_stones_problem(case):
    """(n, taken, depth) from the case's ``n k s1..sk depth`` (later arguments ignored)."""
    n, k = int(case.args[0]), int(case.args[1])
    numbers = [int(a) for a in case.args[2:3 + k]]
    return n, numbers[:k], numbers[k]


def _take_stones_value(n, taken, depth, stone):
    """The alpha-beta value (Max's view) of the child of ``taken`` after ``stone``."""
    game = TakeStones(n)
    state = game.replay_history(list(taken))
    child = game.result(state, stone)
    limit = depth or n + 1
    # The memo only saves time (values do not depend on it): big cases repeat subtrees.
    return search(game, child, prune=True, depth=limit - 1, window=(-1000, 1000),
                  memo={}).value


def _take_stones_difference(case, expected, actual):
    want = _take_stones_listing(expected)
    got = _take_stones_listing(actual)
    if want is None or got is None or not want[0] or not got[0] or \
            want[1][:1] != ["NEXT MOVE"]:
        return content_difference(expected, actual, "stdout")
    findings = []
    root = want[0][-1]
    got_root = got[0][-1]

    def entries(blocks):
        return [Entry(len(root[1]) - len(b[1]), b, f"alpha: {b[2]}, beta: {b[3]}")
                for b in blocks[:-1]]

    if want[0] != got[0]:
        if got_root[:2] != root[:2]:
            findings.append(("trace: the root block is wrong",
                             f"stdout: the last block (the root) should be "
                             f"{root[0]} / {' '.join(map(str, root[1]))} / alpha: "
                             f"{root[2]} beta: {root[3]}; got {got_root}"))
        else:
            found = diagnose_trace(entries(want[0]), entries(got[0]),
                                   lambda parent, key: str(key[0]), root,
                                   lambda path: "taking " + ", ".join(path),
                                   line_of=lambda i: 3 * i + 3, what="stdout")
            if found is None:
                findings.append(content_difference(expected, actual, "stdout"))
            elif want[0][:-1] == got[0][:-1]:
                findings.append(("trace: the root's bounds differ",
                                 f"stdout: the root block should end with alpha: "
                                 f"{root[2]} beta: {root[3]}, got alpha: {got_root[2]} "
                                 f"beta: {got_root[3]}"))
            else:
                lines = first_line_difference(expected, actual, "stdout")[1]
                findings.append((f"trace: {found.reason}", f"{found.detail}\n{lines}"))
    if want[1] != got[1]:
        findings.append(_take_stones_move(case, want[1], got[1]))
    if not findings:
        return content_difference(expected, actual, "stdout")
    return "; ".join(r for r, _ in findings), "\n".join(d for _, d in findings)


def _take_stones_move(case, want, got):
    if len(got) < 2 or got[0] != "NEXT MOVE" or not got[1].strip().isdigit():
        return ("the NEXT MOVE section is wrong",
                f"stdout: after the trace expected {want}, got {got[:4]}")
    want_stone, got_stone = int(want[1]), int(got[1].strip())
    if want_stone == got_stone:
        return ("wrong stones left after the move",
                f"stdout: after NEXT MOVE {want_stone} expected the stones {want[2:]!r}, "
                f"got {got[2:]!r}")
    n, taken, depth = _take_stones_problem(case)
    game = TakeStones(n)
    if got_stone not in game.actions(game.replay_history(taken)):
        return (f"wrong move: expected {want_stone}, got {got_stone} (not a legal stone)",
                f"stdout: NEXT MOVE {got_stone} is not a legal stone here")
    want_value = _take_stones_value(n, taken, depth, want_stone)
    got_value = _take_stones_value(n, taken, depth, got_stone)
    head = f"wrong move: expected {want_stone}, got {got_stone}"
    if want_value == got_value:
        return (f"{head} (tie-break slip: both stones have value {want_value}; the grader "
                "keeps the first, smallest stone)",
                f"stdout: NEXT MOVE {want_stone} and {got_stone} have the same value "
                f"{want_value} (Max's view); the grader keeps the first strictly better "
                "stone in ascending order")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"stdout: NEXT MOVE {want_stone} has value {want_value}, {got_stone} has "
            f"{got_value} (Max's view: Max takes the highest, Min the lowest)")


def _take_stones(case, outcome, lenient):
    return [judge_text("stdout", case.stdout, outcome.stdout, lenient,
                       lambda e, a: _take_stones_difference(case, e, a))]


# --- Stake/Raid ----------------------------------------------------------------------

_MOVE_LINE = re.compile(r"^([A-Z])([1-9][0-9]*) (Stake|Raid)$")


def _stake_raid(case, outcome, lenient):
    expected = case.expected.get("output.txt")
    if expected is None:
        return [judge_text("output.txt", b"", outcome.files.get("output.txt", b""), lenient)]
    actual = outcome.files.get("output.txt")
    if actual is None:
        return [fail("output.txt missing", "output.txt was not written (the assignment "
                     "gives 0 points when output.txt is missing in any case)",
                     unusable=True)]
    parsed = _parse_output(case, actual)
    if isinstance(parsed, str):
        return [fail(f"output.txt unparsable: {parsed}",
                     f"output.txt: {parsed} (the assignment gives 0 points when "
                     "output.txt cannot be parsed in any case)", unusable=True)]
    return [judge_text("output.txt", expected, actual, lenient,
                       lambda e, a: _stake_raid_difference(case, e, a))]


def _problem(case):
    problem = parse_input(case.files["input.txt"].decode("utf-8", "replace"))
    game, state = setup(problem)
    return problem, game, state


def _parse_output(case, data):
    """(column, row, kind, board rows) of an output.txt, or a string saying what is wrong."""
    size = int(case.files["input.txt"].split()[0])
    text = data.replace(b"\r\n", b"\n").decode("ascii", "replace")
    lines = [line.rstrip(" \t") for line in text.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return "the file is empty"
    match = _MOVE_LINE.match(lines[0])
    if not match:
        return f"line 1 {lines[0][:60]!r} is not '<column><row> Stake|Raid'"
    column, row = ord(match.group(1)) - ord("A"), int(match.group(2)) - 1
    if column >= size or row >= size:
        return f"square {match.group(1)}{row + 1} is off the {size}x{size} board"
    board = lines[1:]
    if len(board) != size:
        return f"expected {size} board lines after the move, found {len(board)}"
    for number, line in enumerate(board, 2):
        if len(line) != size or any(c not in "XO." for c in line):
            return f"line {number} {line[:60]!r} is not {size} characters from X, O, ."
    return column, row, match.group(3), board


def _action(size, column, row, kind):
    return row * size + column + (RAID if kind == "Raid" else 0)


def _stake_raid_difference(case, expected, actual):
    problem, game, state = _problem(case)
    size = problem.size
    want = _parse_output(case, expected)
    got = _parse_output(case, actual)
    want_name = f"{chr(65 + want[0])}{want[1] + 1} {want[2]}"
    got_name = f"{chr(65 + got[0])}{got[1] + 1} {got[2]}"
    if want[:3] == got[:3]:
        for number, (w, g) in enumerate(zip(want[3], got[3]), 2):
            if w != g:
                return ("wrong board after the move",
                        f"output.txt: the move {got_name} is right, but board line "
                        f"{number} should be {w!r}, got {g!r} (a Raid flips every enemy "
                        "piece orthogonally next to the raided square)")
        return content_difference(expected, actual, "output.txt")
    action = _action(size, got[0], got[1], got[2])
    if action not in game.actions(state):
        why = ("the square is not empty" if state[0][action_cell(action)] else
               "no piece of yours is next to it")
        return (f"illegal move: {got_name}", f"output.txt: {got_name} is not legal ({why})")
    child = game.play(state, action)
    want_child = game.play(state, _action(size, want[0], want[1], want[2]))
    depth = problem.limit
    want_value = search(game, want_child, prune=True, depth=depth - 1).value
    got_value = search(game, child, prune=True, depth=depth - 1).value
    head = f"wrong move: expected {want_name}, got {got_name}"
    if want_value == got_value:
        flipless = got[2] == "Raid" and child[0] == game.play(state, action - RAID)[0]
        extra = (f" ({got_name} flips nothing: it is the same as the Stake, which comes "
                 "first)") if flipless else ""
        return (f"{head} (tie-break slip: both moves have value {want_value}; the grader "
                "keeps the first in Stakes-then-Raids row-major order)",
                f"output.txt: {want_name} and {got_name} both score {want_value} at depth "
                f"{depth} (YOUPLAY's view){extra}; the grader keeps the first move with the "
                "strictly best value, all Stakes (row by row) before all Raids (row by row)")
    return (f"{head} (wrong value: expected move scores {want_value}, yours scores "
            f"{got_value})",
            f"output.txt: {want_name} scores {want_value}, {got_name} scores {got_value} "
            f"at depth {depth} (YOUPLAY's view: the sum of YOUPLAY's squares minus the "
            "opponent's)")


_JUDGES = {"tictactoe": _tictactoe, "tmmorris": _tmmorris, "take_stones": _take_stones,
           "stake_raid": _stake_raid}
