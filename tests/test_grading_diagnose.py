"""Diagnoses: each kind of difference a submission can make is named as a person needs it.

The submissions here are our own outputs on generated cases, changed in one way each
(line endings, blanks, one value, the listing order, the move, ...); the expected reason
is checked against facts computed independently where it names a node or a value.
"""

import functools
import re

import pytest

from engine.games.morris import moves as morris_moves, solve
from engine.games.tictactoe import TicTacToe, winner
from engine.grading.case import Case, Outcome
from engine.grading.diagnose import diagnose as kit_diagnose
from engine.grading.generate import PROGRAMS, generate_cases, run_in_process
from engine.grading.judges import load as load_assignment
from engine.games.stake_raid_files import output_text, parse_input
from engine.games.stake_raid_files import position as setup
from engine.search import ExactSearch, search
from engine.trace import Tracer


def diagnose(program, case, outcome, lenient=False):
    """The kit's diagnosis for the assignment named ``program`` (resolved here: the kit
    itself is handed the resolved assignment)."""
    return kit_diagnose(load_assignment(program), case, outcome, lenient)


@pytest.fixture(scope="module")
def runs():
    """{program: [(case, outcome of our program)]}."""
    return {program: [(case, run_in_process(case))
                      for case in generate_cases(load_assignment(program), 24, 1)]
            for program in PROGRAMS}


def first(runs, program, predicate=lambda case: True):
    return next((c, o) for c, o in runs[program] if predicate(c))


def with_file(outcome, name, data):
    files = dict(outcome.files)
    if data is None:
        files.pop(name, None)
    else:
        files[name] = data
    return outcome._replace(files=files)


def playable(case):
    """A non-terminal case with a small visited file and a few levels to its tree."""
    return ("visited.txt" in case.expected and case.args[0].count("-") >= 4
            and len(case.expected["visited.txt"]) < 100000)


# --- our own outputs -----------------------------------------------------------------

@pytest.mark.parametrize("program", PROGRAMS)
def test_our_own_outputs_pass(program, runs):
    for case, outcome in runs[program]:
        verdict = diagnose(program, case, outcome)
        assert verdict.passed and verdict.reason == "passed" and not verdict.lenient, \
            (case.name, verdict)


def test_exit_status_stderr_and_stray_files_are_reported_not_graded(runs):
    case, outcome = first(runs, "tictactoe", playable)
    noisy = outcome._replace(exit=3, stderr=b"debug: thinking\n",
                             files=dict(outcome.files, **{"notes.log": b"x"}))
    verdict = diagnose("tictactoe", case, noisy)
    assert verdict.passed
    assert "exit status 3" in verdict.detail
    assert "debug: thinking" in verdict.detail
    assert "notes.log" in verdict.detail


# --- cosmetic differences ------------------------------------------------------------

@pytest.mark.parametrize("program", PROGRAMS)
def test_crlf_line_endings(program, runs):
    case, outcome = first(runs, program, lambda c: c.stdout or c.expected)
    crlf = outcome._replace(stdout=outcome.stdout.replace(b"\n", b"\r\n"),
                            files={k: v.replace(b"\n", b"\r\n") for k, v in outcome.files.items()})
    for lenient in (False, True):
        verdict = diagnose(program, case, crlf, lenient)
        assert not verdict.passed and "CRLF line endings" in verdict.reason, verdict


def test_trailing_blanks_fail_strictly_and_pass_leniently(runs):
    case, outcome = first(runs, "tictactoe", playable)
    lines = outcome.files["visited.txt"].split(b"\n")
    lines[0] += b"  "
    lines[2] += b"\t"
    changed = with_file(outcome, "visited.txt", b"\n".join(lines))
    strict = diagnose("tictactoe", case, changed)
    assert not strict.passed and strict.reason == "visited file: trailing blanks on 2 lines"
    lenient = diagnose("tictactoe", case, changed, lenient=True)
    assert lenient.passed and lenient.lenient
    assert lenient.reason == "passed (lenient: trailing blanks)"


def test_missing_trailing_blanks_take_stones(runs):
    case, outcome = first(runs, "take_stones", lambda c: b"NEXT MOVE" in c.stdout)
    stripped = b"\n".join(line.rstrip(b" ") for line in outcome.stdout.split(b"\n"))
    count = sum(1 for line in outcome.stdout.split(b"\n") if line.endswith(b" "))
    verdict = diagnose("take_stones", case, outcome._replace(stdout=stripped))
    assert verdict.reason == f"missing trailing blanks on {count} lines"
    assert diagnose("take_stones", case, outcome._replace(stdout=stripped), True).lenient


@pytest.mark.parametrize("program", ["tictactoe", "take_stones"])
def test_missing_final_newline(program, runs):
    case, outcome = first(runs, program, lambda c: c.stdout)
    cut = outcome._replace(stdout=outcome.stdout[:-1])
    strict = diagnose(program, case, cut)
    assert not strict.passed and strict.reason == "missing final newline"
    lenient = diagnose(program, case, cut, lenient=True)
    assert lenient.passed and lenient.lenient
    assert lenient.reason == "passed (lenient: missing final newline)"


def test_missing_final_newline_stake_raid(runs):
    case, outcome = first(runs, "stake_raid")
    cut = with_file(outcome, "output.txt", outcome.files["output.txt"][:-1])
    assert diagnose("stake_raid", case, cut).reason == "output.txt: missing final newline"
    assert diagnose("stake_raid", case, cut, lenient=True).lenient


def test_extra_bytes_and_garbage(runs):
    case, outcome = first(runs, "take_stones", lambda c: b"NEXT MOVE" in c.stdout)
    extra = diagnose("take_stones", case, outcome._replace(stdout=outcome.stdout + b"done\n"))
    assert extra.reason == "extra bytes after the expected output" and "done" in extra.detail
    middle = len(outcome.stdout) // 2
    garbled = outcome.stdout[:middle] + b"\x00\xff" + outcome.stdout[middle:]
    verdict = diagnose("take_stones", case, outcome._replace(stdout=garbled))
    assert verdict.reason.startswith("garbage/non-text bytes")
    assert f"byte {middle}" in verdict.detail


# --- tic-tac-toe traces and moves ----------------------------------------------------

def board_after(root, path):
    """Apply 'x@4, o@0'-style moves to ``root`` (independent of the diagnosis code)."""
    board = list(root)
    for move in path.split(", "):
        mark, cell = move.split("@")
        assert board[int(cell)] == "-"
        board[int(cell)] = mark
    return "".join(board)


def test_changed_value_names_the_node_and_its_path(runs):
    for case, outcome in runs["tictactoe"]:
        if not playable(case):
            continue
        lines = outcome.files["visited.txt"].split(b"\n")
        index = len(lines) // 3
        board, value = lines[index].decode().split()
        lines[index] = f"{board} {int(value) + 1}".encode()
        verdict = diagnose("tictactoe", case, with_file(outcome, "visited.txt", b"\n".join(lines)))
        match = re.match(r"visited file: first difference at node reached by (.*): "
                         r"expected value (-?\d+), got (-?\d+)$", verdict.reason)
        assert match, verdict.reason
        assert board_after(case.args[0], match.group(1)) == board
        assert (int(match.group(2)), int(match.group(3))) == (int(value), int(value) + 1)


class PreOrder(Tracer):
    """Lists 'BOARD VALUE' parents first (a slot taken on entry, filled on leaving)."""

    def __init__(self):
        self.lines, self.open = [], []

    def enter(self, state, action, depth, alpha, beta):
        if depth:
            self.open.append(len(self.lines))
            self.lines.append(None)

    def leave(self, state, action, depth, value, alpha, beta, kind):
        if depth:
            self.lines[self.open.pop()] = f"{state} {value}\n"


def listing(case, order_tracer=None, prune=None):
    """The visited file of ``case`` made by the engine's search with another tracer."""
    board = case.args[0]
    ply = int(case.args[3]) if len(case.args) == 4 else None
    tracer = order_tracer or PreOrder()
    search(TicTacToe(evaluate_terminals=ply is not None), board,
           ExactSearch(prune=len(case.args) >= 3 if prune is None else prune, depth=ply,
                       tracer=tracer))
    return "".join(tracer.lines).encode()


def test_pre_order_listing(runs):
    checked = 0
    for case, outcome in runs["tictactoe"]:
        if not playable(case):
            continue
        pre = listing(case)
        if pre == outcome.files["visited.txt"]:
            continue            # one level only: both orders are the same
        assert sorted(pre.split(b"\n")) == sorted(outcome.files["visited.txt"].split(b"\n"))
        verdict = diagnose("tictactoe", case, with_file(outcome, "visited.txt", pre))
        assert verdict.reason == "visited file: listed in pre-order", verdict
        checked += 1
    assert checked


class PostOrder(PreOrder):
    def enter(self, *args):
        pass

    def leave(self, state, action, depth, value, alpha, beta, kind):
        if depth:
            self.lines.append(f"{state} {value}\n")


def test_no_pruning_names_a_node_the_expected_search_prunes(runs):
    case, outcome = first(runs, "tictactoe",
                          lambda c: playable(c) and c.args[2:] == ("prune",))
    unpruned = listing(case, PostOrder(), prune=False)
    verdict = diagnose("tictactoe", case, with_file(outcome, "visited.txt", unpruned))
    assert "visits a node the expected search prunes" in verdict.reason, verdict
    pruned_path = verdict.reason.split("prunes: ")[1]
    pruned = board_after(case.args[0], pruned_path)
    assert pruned.encode() + b" " not in outcome.files["visited.txt"] or \
        outcome.files["visited.txt"].count(pruned.encode()) < unpruned.count(pruned.encode())


def test_pruning_a_minimax_case_names_a_skipped_node(runs):
    case, outcome = first(runs, "tictactoe", lambda c: playable(c) and len(c.args) == 2)
    pruned = listing(case, PostOrder(), prune=True)
    verdict = diagnose("tictactoe", case, with_file(outcome, "visited.txt", pruned))
    assert "skips a node the expected search visits" in verdict.reason, verdict


def test_terminal_input_must_leave_no_file_and_print_nothing(runs):
    case, outcome = first(runs, "tictactoe", lambda c: "terminal-x-won" in c.name)
    assert diagnose("tictactoe", case, outcome).passed
    made = with_file(outcome, "visited.txt", b"")
    assert diagnose("tictactoe", case, made).reason == \
        "visited file must not exist (terminal input)"
    printed = outcome._replace(stdout=b"xxx------\n")
    assert diagnose("tictactoe", case, printed).reason == "printed something for a terminal input"


def test_visited_file_missing(runs):
    case, outcome = first(runs, "tictactoe", playable)
    verdict = diagnose("tictactoe", case, with_file(outcome, "visited.txt", None))
    assert verdict.reason == "visited file missing"


@functools.lru_cache(maxsize=None)
def exact_value(board):
    """Plain recursive minimax of tic-tac-toe to the end (x's view), for the oracle."""
    won = winner(board)
    if won or "-" not in board:
        return {"x": 1, "o": -1, None: 0}[won]
    mark = "x" if board.count("x") == board.count("o") else "o"
    values = [exact_value(board[:i] + mark + board[i + 1:])
              for i in range(9) if board[i] == "-"]
    return max(values) if mark == "x" else min(values)


def test_wrong_moves_tie_break_slip_or_wrong_value(runs):
    kinds = set()
    for case, outcome in runs["tictactoe"]:
        if not playable(case) or len(case.args) == 4:
            continue
        board = case.args[0]
        best = outcome.stdout.decode().strip()
        for _, child in TicTacToe().successors(board):
            if child == best:
                continue
            verdict = diagnose("tictactoe", case, outcome._replace(stdout=child.encode() + b"\n"))
            assert verdict.reason.startswith("wrong move: expected ")
            if exact_value(child) == exact_value(best):
                assert "tie-break slip: both moves have value" in verdict.reason
                kinds.add("tie")
            else:
                assert (f"wrong value: expected move scores {exact_value(best)}, yours "
                        f"scores {exact_value(child)}") in verdict.reason
                kinds.add("value")
    assert kinds == {"tie", "value"}


def test_illegal_move(runs):
    case, outcome = first(runs, "tictactoe", playable)
    verdict = diagnose("tictactoe", case, outcome._replace(stdout=b"xxxxxxxxx\n"))
    assert verdict.reason.startswith("not a legal move")


# --- Three Men's Morris --------------------------------------------------------------

def morris_playable(case):
    return "visited.txt" in case.expected


def test_morris_any_legal_move_and_own_visited_file_pass_below_ply_7(runs):
    checked = 0
    for case, outcome in runs["tmmorris"]:
        if not morris_playable(case) or int(case.args[2]) >= 7:
            continue
        for _, child in morris_moves(case.args[0], case.args[3]):
            other = outcome._replace(stdout=child.encode() + b"\n")
            other = with_file(other, "visited.txt", f"{child} 17\n".encode())
            assert diagnose("tmmorris", case, other).passed
            checked += 1
    assert checked


def test_morris_illegal_move_and_bad_visited_format(runs):
    case, outcome = first(runs, "tmmorris", morris_playable)
    verdict = diagnose("tmmorris", case, outcome._replace(stdout=b"xxxooo---\n"))
    assert verdict.reason.startswith("illegal move for ")
    bad = with_file(outcome, "visited.txt", b"xo--x-o-- 1\nxo--x-o 2\n")
    assert diagnose("tmmorris", case, bad).reason == "visited file: line 2 is not 'STATE VALUE'"
    assert diagnose("tmmorris", case, with_file(outcome, "visited.txt", b"")).reason == \
        "visited file is empty"
    assert diagnose("tmmorris", case, with_file(outcome, "visited.txt", None)).reason == \
        "visited file missing"


def test_morris_at_ply_7_a_move_must_keep_the_solved_value(runs):
    solved = solve()
    found = 0
    for case, outcome in runs["tmmorris"]:
        if not morris_playable(case) or int(case.args[2]) < 7:
            continue
        board, turn = case.args[0], case.args[3]
        other = "o" if turn == "x" else "x"
        value = solved[board + turn][0]
        for _, child in morris_moves(board, turn):
            after = -solved[child + other][0]
            verdict = diagnose("tmmorris", case, outcome._replace(stdout=child.encode() + b"\n"))
            assert verdict.passed == (after >= value), (board, turn, child, verdict)
            if not verdict.passed:
                assert "throws away a" in verdict.reason
                found += 1
    assert found


def test_morris_terminal_input(runs):
    case, outcome = first(runs, "tmmorris", lambda c: "terminal" in c.name)
    assert diagnose("tmmorris", case, outcome).passed
    assert diagnose("tmmorris", case, with_file(outcome, "visited.txt", b"")).reason == \
        "visited file must not exist (terminal input)"


# --- Take-Stones ---------------------------------------------------------------------

def test_take_stones_changed_bounds_name_the_node(runs):
    checked = 0
    for case, outcome in runs["take_stones"]:
        lines = outcome.stdout.split(b"\n")
        if b"NEXT MOVE" not in lines or lines.index(b"NEXT MOVE") < 9:
            continue
        block = (lines.index(b"NEXT MOVE") // 3) // 2          # a block in the middle
        bounds = 3 * block + 2
        lines[bounds] = re.sub(rb"beta: (-?\d+)", b"beta: 999", lines[bounds])
        if lines[bounds] == outcome.stdout.split(b"\n")[bounds]:
            continue
        verdict = diagnose("take_stones", case, outcome._replace(stdout=b"\n".join(lines)))
        match = re.match(r"trace: first difference at node reached by taking ([\d, ]+): "
                         r"expected alpha: (-?\d+), beta: (-?\d+), got alpha: (-?\d+), "
                         r"beta: 999$", verdict.reason)
        assert match, verdict.reason
        # Replay the path's stones from the case's history: the node's stones line.
        numbers = [int(a) for a in case.args]
        n, k = numbers[0], numbers[1]
        left = set(range(1, n + 1)) - set(numbers[2:2 + k])
        for stone in match.group(1).split(", "):
            left.remove(int(stone))
        assert lines[3 * block + 1] == "".join(f"{s} " for s in sorted(left)).encode()
        assert lines[3 * block] == match.group(1).split(", ")[-1].encode()
        checked += 1
    assert checked


def test_take_stones_wrong_move(runs):
    for case, outcome in runs["take_stones"]:
        lines = outcome.stdout.split(b"\n")
        if b"NEXT MOVE" not in lines:
            continue
        at = lines.index(b"NEXT MOVE") + 1
        root_stones = [int(s) for s in lines[at - 3].split()]
        others = [s for s in root_stones if str(s).encode() != lines[at]]
        for stone in others:
            changed = list(lines)
            changed[at] = str(stone).encode()
            verdict = diagnose("take_stones", case, outcome._replace(stdout=b"\n".join(changed)))
            assert verdict.reason.startswith(f"wrong move: expected {int(lines[at])}, got {stone}")
            assert ("tie-break slip" in verdict.reason or "wrong value" in verdict.reason
                    or "not a legal stone" in verdict.reason)
        return
    pytest.fail("no case with a move")


# --- Stake/Raid ----------------------------------------------------------------------

def test_stake_raid_stdout_is_ignored(runs):
    case, outcome = first(runs, "stake_raid")
    assert diagnose("stake_raid", case, outcome._replace(stdout=b"thinking...\n")).passed


def test_stake_raid_missing_or_unparsable_output_is_unusable(runs):
    case, outcome = first(runs, "stake_raid")
    missing = diagnose("stake_raid", case, with_file(outcome, "output.txt", None))
    assert missing.reason == "output.txt missing" and missing.unusable_output
    for text in (b"", b"A1 Stak\n", b"A1 Stake\n"):
        verdict = diagnose("stake_raid", case, with_file(outcome, "output.txt", text))
        assert verdict.reason.startswith("output.txt unparsable") and verdict.unusable_output
    ok = diagnose("stake_raid", case, outcome)
    assert not ok.unusable_output


def stake_raid_moves(case):
    problem = parse_input(case.files["input.txt"].decode())
    game, state = setup(problem)
    for action in game.actions(state):
        yield action, output_text(problem.size, problem.player, action,
                                  game.play(state, action)[0]).encode(), \
            search(game, game.play(state, action), ExactSearch(prune=False,
                                                               depth=problem.limit - 1)).value


def test_stake_raid_tie_between_a_stake_and_a_raid(runs):
    case, outcome = first(runs, "stake_raid", lambda c: "tie-stake-raid" in c.name)
    expected = outcome.files["output.txt"]
    best = next(value for _, text, value in stake_raid_moves(case) if text == expected)
    ties = [text for _, text, value in stake_raid_moves(case)
            if value == best and text != expected and b"Raid" in text]
    assert ties
    verdict = diagnose("stake_raid", case, with_file(outcome, "output.txt", ties[0]))
    assert "tie-break slip" in verdict.reason
    assert "Stakes-then-Raids row-major order" in verdict.reason
    assert f"both moves have value {best}" in verdict.reason


def test_stake_raid_wrong_values(runs):
    case, outcome = first(runs, "stake_raid", lambda c: "5x5" in c.name)
    expected = outcome.files["output.txt"]
    best = next(value for _, text, value in stake_raid_moves(case) if text == expected)
    worse = [(text, value) for _, text, value in stake_raid_moves(case) if value != best]
    text, value = worse[0]
    verdict = diagnose("stake_raid", case, with_file(outcome, "output.txt", text))
    assert f"wrong value: expected move scores {best}, yours scores {value}" in verdict.reason


def test_stake_raid_illegal_move_and_wrong_board(runs):
    case, outcome = first(runs, "stake_raid", lambda c: "5x5" in c.name)
    expected = outcome.files["output.txt"]
    lines = expected.split(b"\n")
    board = lines[1:-1]
    full = next(i for i, row in enumerate(board) if b"X" in row or b"O" in row)
    column = next(i for i, c in enumerate(board[full]) if c in b"XO")
    illegal = f"{chr(65 + column)}{full + 1} Stake".encode()
    verdict = diagnose("stake_raid", case,
                       with_file(outcome, "output.txt", b"\n".join([illegal] + lines[1:])))
    assert verdict.reason.startswith("illegal move") and not verdict.unusable_output
    row = board[-1]
    flipped = bytes(ord("X") if c == ord(".") else c for c in row[:1]) + row[1:]
    if flipped != row:
        wrong = b"\n".join(lines[:-2] + [flipped, b""])
        assert diagnose("stake_raid", case, with_file(outcome, "output.txt", wrong)).reason \
            == "wrong board after the move"


def test_stake_raid_competition_moves_are_not_valued_by_a_search(monkeypatch):
    """A COMPETITION input's line 4 is seconds, not a depth: a different legal move is
    named, never valued (taking 100.5 seconds for plies searched the whole game: a 5x5
    board with 23 empty squares kept the diagnosis busy for minutes)."""
    text = ("3\nCOMPETITION\nX\n100.5\n" + "1 2 3\n" * 3 + "X..\n...\n..O\n").encode()
    game, state = setup(parse_input(text.decode()))
    first_move, other_move = game.actions(state)[:2]
    expected, actual = (output_text(3, "X", action, game.play(state, action)[0]).encode()
                        for action in (first_move, other_move))
    case = Case("competition", "homework.py", (), files={"input.txt": text},
                expected={"output.txt": expected})
    outcome = Outcome(0, b"", b"", {"input.txt": text, "output.txt": actual})

    def no_search(*args, **options):
        raise AssertionError("a COMPETITION move was valued by a search")
    monkeypatch.setattr("engine.grading.assignments.stake_raid.search", no_search)
    verdict = diagnose("stake_raid", case, outcome)
    assert verdict.reason == "wrong move: expected B1 Stake, got C1 Stake"
    assert "COMPETITION input has no depth" in verdict.detail


# --- scores --------------------------------------------------------------------------

from engine.grading.scoring import score as kit_score  # noqa: E402
from engine.grading.verdict import Verdict  # noqa: E402


def score(program, verdicts):
    return kit_score(load_assignment(program), verdicts)


def verdicts(passed, failed, unusable=0):
    return ([Verdict(True, "passed")] * passed + [Verdict(False, "wrong move")] * failed
            + [Verdict(False, "output.txt missing", unusable_output=True)] * unusable)


@pytest.mark.parametrize("program", ["tictactoe", "tmmorris", "take_stones"])
def test_scores_one_point_per_case(program):
    result = score(program, verdicts(7, 3))
    assert tuple(result) == (7, 10, 7, 10)
    assert tuple(score(program, [])) == (0, 0, 0, 0)


def test_stake_raid_fifty_minus_failed_over_fifty_cases():
    for failed in (0, 1, 13, 50):
        assert tuple(score("stake_raid", verdicts(50 - failed, failed))) == \
            (50 - failed, 50, 50 - failed, 50)


def test_stake_raid_scaled_to_other_counts():
    assert score("stake_raid", verdicts(9, 1)).points == 45
    assert score("stake_raid", verdicts(2, 1)).points == 33.33
    assert score("stake_raid", verdicts(2, 1)).max_points == 50


def test_stake_raid_zero_when_output_missing_in_any_case():
    result = score("stake_raid", verdicts(49, 0, unusable=1))
    assert tuple(result) == (49, 50, 0, 50)
    assert score("tictactoe", verdicts(49, 0, unusable=1)).points == 49


def test_scores_of_diagnosed_runs(runs):
    """The diagnosis marks what the score needs: a missing output.txt zeroes Stake/Raid."""
    judged = [diagnose("stake_raid", case, outcome) for case, outcome in runs["stake_raid"]]
    assert score("stake_raid", judged).points == 50
    case, outcome = runs["stake_raid"][0]
    judged[0] = diagnose("stake_raid", case, with_file(outcome, "output.txt", None))
    assert score("stake_raid", judged).points == 0
    assert score("stake_raid", judged).score == len(judged) - 1


# --- any case folder, not only generated ones ---------------------------------------

FIXTURE_PROGRAMS = {"tictactoe": "tictactoe", "tmmorris": "tmmorris",
                    "take_stones": "take_stones", "stake_raid": "stake_raid"}


def fixture_cases():
    from golden import program_cases
    for folder, program in FIXTURE_PROGRAMS.items():
        for case in program_cases(folder):
            # COMPETITION has no single right move (and reads the CPU clock).
            if case.program != "engine" and \
                    b"COMPETITION" not in case.files.get("input.txt", b""):
                yield program, case


def test_fixture_cases_pass_and_broken_outputs_never_crash():
    """Bad-input fixtures, extra arguments, official samples: our run passes, and a
    garbled run gets a reason, never an exception."""
    count = 0
    for program, case in fixture_cases():
        outcome = run_in_process(case)
        verdict = diagnose(program, case, outcome)
        assert verdict.passed, (program, case.name, verdict)
        broken = outcome._replace(stdout=outcome.stdout + b"\x00junk",
                                  files={k: v[:-3] for k, v in outcome.files.items()})
        verdict = diagnose(program, case, broken)
        assert not verdict.passed and verdict.reason, (program, case.name)
        count += 1
    assert count > 50


def test_bad_input_case_must_not_create_the_output_file():
    case = next(c for p, c in fixture_cases() if p == "tictactoe" and c.exit == 2
                and len(c.args) >= 2 and c.args[1] not in c.files)
    outcome = run_in_process(case)
    assert diagnose("tictactoe", case, outcome).passed
    made = with_file(outcome, case.args[1], b"---------  0\n")
    assert diagnose("tictactoe", case, made).reason == f"{case.args[1]} must not exist"
