"""Deliberately broken copies of our own programs, for the grading kit's tests.

:func:`make_mutant` copies the repository's programs (``engine/`` and the top-level
scripts) to a folder and applies textual edits. Every edit must find its target exactly
as often as stated, so a refactor of the original cannot silently turn a mutant into an
identical copy: the test fails instead, naming the edit to update.
"""

import shutil

from engine.grading.case import REPO

SCRIPTS = ("tictactoe.py", "tmmorris.py", "TakeStones", "homework.py")

SEARCH_MAX_CUT = """\
                if prune:
                    if v >= beta:               # the cut test, BEFORE the update
                        cut(state, d, children)
                        break
                    if v > alpha:
                        alpha = v
"""
SEARCH_MAX_CUT_AFTER_UPDATE = """\
                if prune:
                    if v > alpha:
                        alpha = v
                    if v >= beta:
                        cut(state, d, children)
                        break
"""
SEARCH_MIN_CUT = """\
                if prune:
                    if v <= alpha:
                        cut(state, d, children)
                        break
                    if v < beta:
                        beta = v
"""
SEARCH_MIN_CUT_AFTER_UPDATE = """\
                if prune:
                    if v < beta:
                        beta = v
                    if v <= alpha:
                        cut(state, d, children)
                        break
"""

VISITED_POST_ORDER = """\
    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        if depth:
            board = state if self.board is None else self.board(state)
            self.chunks.append(f"{board} {value}\\n")
"""
# Parents first: a slot is taken when a node is entered and filled when it is left.
VISITED_PRE_ORDER = """\
    def enter(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> None:
        if depth:
            self.__dict__.setdefault("slots", []).append(len(self.chunks))
            self.chunks.append("")

    def leave(self, state: Any, action: Any, depth: int, value: float, alpha: float,
              beta: float, kind: str) -> None:
        if depth:
            board = state if self.board is None else self.board(state)
            self.chunks[self.slots.pop()] = f"{board} {value}\\n"
"""

# name: [(file, old text, new text, how many times old occurs)]
MUTANTS = {
    # The root keeps the LAST of equal best moves instead of the first.
    "tie-break >=": [
        ("engine/search.py", "if best is None or (cv > v if maximizing else cv < v):",
         "if best is None or (cv >= v if maximizing else cv <= v):", 1)],
    "pre-order listing": [
        ("engine/trace.py", VISITED_POST_ORDER, VISITED_PRE_ORDER, 1)],
    "CRLF line endings": [
        ("engine/trace.py", 'self.chunks.append(f"{board} {value}\\n")',
         'self.chunks.append(f"{board} {value}\\r\\n")', 1),
        ("engine/programs/tictactoe.py", 'sys.stdout.write(result.child + "\\n")',
         'sys.stdout.write(result.child + "\\r\\n")', 1)],
    "cut test after the window update": [
        ("engine/searchparts.py", SEARCH_MAX_CUT, SEARCH_MAX_CUT_AFTER_UPDATE, 1),
        ("engine/searchparts.py", SEARCH_MIN_CUT, SEARCH_MIN_CUT_AFTER_UPDATE, 1)],
    "Raids before Stakes": [
        ("engine/games/stake_raid.py", "        return children\n",
         "        stakes = len(self.empties(cells))\n"
         "        return children[stakes:] + children[:stakes]\n", 1)],
    "missing final newline": [
        ("engine/games/stake_raid_files.py",
         'return "\\n".join([move_name(size, action)] + board_rows(cells, size, player)) + "\\n"',
         'return "\\n".join([move_name(size, action)] + board_rows(cells, size, player))', 1)],
}


def copy_programs(target):
    """Copy engine/ (without caches) and the top-level scripts to ``target``."""
    shutil.copytree(REPO / "engine", target / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for script in SCRIPTS:
        shutil.copy2(REPO / script, target / script)
    return target


def make_mutant(name, target):
    """A copy of our programs in ``target`` with the edits of ``MUTANTS[name]``."""
    copy_programs(target)
    for relative, old, new, times in MUTANTS[name]:
        path = target / relative
        text = path.read_text()
        found = text.count(old)
        assert found == times, (f"mutant {name!r}: {relative} holds the edited text "
                                f"{found} times, not {times}; update tests/grading_mutants.py")
        path.write_text(text.replace(old, new))
    return target
