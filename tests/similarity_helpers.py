"""Classes of independently written programs, and disguised copies, for the similarity tests.

:func:`program` writes a tic-tac-toe minimax program in Python from a seed: the board is a
list, a string or a grid of rows; the search is a pair of max/min functions, one
function with a flag, or negamax, with or without alpha-beta and a depth cut-off; each
helper (the winner, the moves, placing a mark, the output, the checks, and as many
extras as the length asks: printing the board, symmetries, move names, a node counter,
a random player, ...) is one of several ways of writing it, and nearly every line of
each has choices of its own (loop forms, comparison order, comprehensions, early
returns). Names come from per-program vocabularies. No two seeds share more than
idioms, as two students would not.

:func:`disguise` makes a planted copy the way students hide one: identifiers renamed,
top-level functions reordered, comments and blank lines changed, comparisons flipped
(``a < b`` -> ``b > a``), dead code inserted. Every program and every copy compiles.

:func:`c_program` and :func:`java_program` write small C and Java programs the same way
(for the lexers' tests).
"""

import ast
import io
import keyword
import random
import re
import tokenize

# --- names ---------------------------------------------------------------------------------

VOCABULARY = {
    "board": ["board", "grid", "state", "cells", "squares", "position", "pos", "bd", "field"],
    "player": ["player", "turn", "mark", "who", "side", "to_move", "p", "symbol"],
    "other": ["other", "opponent", "enemy", "rival", "foe", "next_player"],
    "move": ["move", "square", "index", "spot", "cell", "idx", "i", "choice"],
    "moves": ["moves", "options", "free", "empties", "choices", "open_cells", "legal"],
    "value": ["value", "score", "v", "result", "val", "outcome", "utility"],
    "best": ["best", "best_value", "top", "bestv", "chosen", "record"],
    "depth": ["depth", "ply", "level", "d", "remaining", "horizon"],
    "alpha": ["alpha", "al", "lower", "lo", "floor_value"],
    "beta": ["beta", "bound", "upper", "hi", "ceiling_value"],
    "visited": ["visited", "trace", "log", "seen", "nodes", "history", "path_log"],
    "line": ["line", "triple", "row3", "combo", "trio", "win_line"],
    "lines": ["LINES", "WINS", "COMBOS", "TRIPLES", "WIN_LINES", "ROWS3"],
    "empty": ["EMPTY", "BLANK", "FREE", "NONE_MARK", "SPACE"],
    "winner": ["winner", "who_won", "check_winner", "find_winner", "get_winner", "won_by"],
    "moves_fn": ["legal_moves", "get_moves", "empty_squares", "available", "actions",
                 "possible_moves", "free_cells"],
    "place_fn": ["place", "play", "apply_move", "result", "make_move", "put", "do_move"],
    "full_fn": ["is_full", "board_full", "no_moves_left", "filled", "is_draw"],
    "utility_fn": ["utility", "score_of", "terminal_value", "payoff", "final_score"],
    "search_fn": ["minimax", "search", "mm", "game_value", "solve", "evaluate_tree"],
    "max_fn": ["max_value", "maximize", "max_turn", "best_for_max", "max_node"],
    "min_fn": ["min_value", "minimize", "min_turn", "best_for_min", "min_node"],
    "best_fn": ["best_move", "choose_move", "pick_move", "decide", "select_move"],
    "write_fn": ["write_visited", "save_trace", "dump_nodes", "write_log", "output_trace"],
    "check_fn": ["validate", "check_state", "parse_state", "read_state", "verify"],
    "main_fn": ["main", "run", "entry", "start", "program"],
    "path": ["path", "filename", "out_path", "target", "outfile", "dest"],
    "text": ["text", "arg", "raw", "s", "state_text", "given"],
    "count": ["count", "n", "total", "tally", "num"],
    "row": ["row", "r", "y", "line_no"],
    "col": ["col", "c", "x", "column"],
}


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class Names:
    """One program's names: a word per concept, written in the program's case style."""

    def __init__(self, rng):
        self.camel = rng.random() < 0.3
        prefix = rng.choice(["", "", "", "my_", "the_", "g_"])
        self.chosen = {}
        used = set()
        for concept, words in VOCABULARY.items():
            options = [word for word in words if word not in used] or words
            word = rng.choice(options)
            used.add(word)
            if concept in ("lines", "empty"):
                self.chosen[concept] = word
            else:
                word = prefix + word if concept.endswith("_fn") and prefix else word
                self.chosen[concept] = _camel(word) if self.camel else word

    def __getattr__(self, concept):
        try:
            return self.chosen[concept]
        except KeyError:
            raise AttributeError(concept) from None


# --- the program writer ---------------------------------------------------------------------


class Style:
    """A program's choices: its board, names, indentation, quotes, and its random."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.board = self.rng.choice(["list", "string", "grid"])
        self.n = Names(self.rng)
        self.indent = self.rng.choice(["    ", "    ", "  ", "\t"])
        self.quote = self.rng.choice(["'", '"'])
        self.comments = self.rng.random() < 0.6
        self.arg_order = self.rng.choice(["natural", "natural", "extras-first",
                                          "visited-first"])
        self.record_first = self.rng.random() < 0.6
        self.big = self.rng.choice(["2", "10", "999", "float"])
        self.scan_squares = self.rng.random() < 0.3
        self.search_way = "pair"

    def pick(self, *options):
        return self.rng.choice(options)

    def q(self, text):
        return f"{self.quote}{text}{self.quote}"

    def cell(self, board, index):
        """The expression of square ``index`` (an expression) of ``board``."""
        if self.board == "grid":
            return self.pick(f"{board}[{index} // 3][{index} % 3]",
                             f"{board}[int({index} / 3)][{index} % 3]")
        return f"{board}[{index}]"

    def flat(self, board):
        """An expression of the board as one sequence of 9 squares."""
        if self.board == "grid":
            return self.pick(f"[sq for row_ in {board} for sq in row_]",
                             f"sum(({board}[k] for k in range(3)), [])",
                             f"({board}[0] + {board}[1] + {board}[2])")
        return board


class Block:
    """Lines of code at indentation levels, then the text."""

    def __init__(self, style):
        self.style = style
        self.lines = []

    def __call__(self, level, text):
        self.lines.append((level, text))

    def comment(self, level, text):
        if self.style.comments and self.style.rng.random() < 0.5:
            self.lines.append((level, f"# {text}"))

    def text(self):
        unit = self.style.indent
        return "\n".join(unit * level + text for level, text in self.lines) + "\n"


def _def(style, name, params, docstring):
    block = Block(style)
    block(0, f"def {name}({', '.join(params)}):")
    if style.rng.random() < 0.5:
        block(1, f'"""{docstring}"""')
    return block


# --- the roles: each writes one function, in one of several ways ---------------------------


def role_winner(s):
    n = s.n
    block = _def(s, n.winner, [n.board], "Return the winning mark, or None.")
    way = s.pick("table", "loops", "any")
    if way == "table" or s.board != "grid" and way == "loops":
        squares = s.flat(n.board)
        if squares != n.board:
            block(1, f"{n.moves} = {squares}")
            squares = n.moves
        if s.rng.random() < 0.5:
            block(1, f"for {n.line} in {n.lines}:")
            block(2, f"a, b, c = {n.line}")
            level = 2
        else:
            block(1, f"for a, b, c in {n.lines}:")
            level = 2
        cond = s.pick(f"{squares}[a] != {n.empty} and {squares}[a] == {squares}[b] == "
                      f"{squares}[c]",
                      f"{squares}[a] == {squares}[b] and {squares}[b] == {squares}[c] and "
                      f"{squares}[a] != {n.empty}",
                      f"{squares}[a] in 'xo' and {squares}[a] == {squares}[b] == "
                      f"{squares}[c]")
        block(level, f"if {cond}:")
        block(level + 1, f"return {squares}[a]")
        block(1, s.pick("return None", "return None", "return ''"))
    elif way == "loops":
        block(1, "for k in range(3):")
        block(2, f"if {n.board}[k][0] != {n.empty} and {n.board}[k][0] == {n.board}[k][1]"
                 f" == {n.board}[k][2]:")
        block(3, f"return {n.board}[k][0]")
        block(2, f"if {n.board}[0][k] == {n.board}[1][k] == {n.board}[2][k] != {n.empty}:")
        block(3, f"return {n.board}[0][k]")
        block(1, f"if {n.board}[1][1] != {n.empty}:")
        block(2, f"if {n.board}[0][0] == {n.board}[1][1] == {n.board}[2][2]:")
        block(3, f"return {n.board}[1][1]")
        block(2, f"if {n.board}[0][2] == {n.board}[1][1] and {n.board}[1][1] == "
                 f"{n.board}[2][0]:")
        block(3, f"return {n.board}[1][1]")
        block(1, "return None")
    else:
        block(1, f"for {n.player} in ({s.q('x')}, {s.q('o')}):")
        inner = " and ".join(s.cell(n.board, x) + f" == {n.player}" for x in "abc")
        block(2, s.pick(f"if any({inner} for a, b, c in {n.lines}):",
                        f"if any(all({s.cell(n.board, 'k')} == {n.player} for k in "
                        f"{n.line}) for {n.line} in {n.lines}):"))
        block(3, f"return {n.player}")
        block(1, s.pick("return None", "return ''"))
    return block.text()


def role_moves(s):
    n = s.n
    block = _def(s, n.moves_fn, [n.board], "The empty squares, in order.")
    cell = s.cell(n.board, "k")
    way = s.pick("comprehension", "loop", "while", "enumerate")
    if way == "comprehension":
        block(1, s.pick(f"return [k for k in range(9) if {cell} == {n.empty}]",
                        f"return list(k for k in range(9) if {cell} == {n.empty})"))
    elif way == "loop":
        block(1, f"{n.moves} = []")
        block(1, "for k in range(9):")
        block(2, s.pick(f"if {cell} == {n.empty}:", f"if {n.empty} == {cell}:"))
        block(3, f"{n.moves}.append(k)")
        block(1, f"return {n.moves}")
    elif way == "while":
        block(1, f"{n.moves}, k = [], 0")
        block(1, "while k < 9:")
        block(2, f"if {cell} == {n.empty}:")
        block(3, s.pick(f"{n.moves}.append(k)", f"{n.moves} += [k]"))
        block(2, s.pick("k += 1", "k = k + 1"))
        block(1, f"return {n.moves}")
    else:
        block(1, f"return [k for k, sq in enumerate({s.flat(n.board)}) if sq == {n.empty}]")
    return block.text()


def role_place(s):
    n = s.n
    block = _def(s, n.place_fn, [n.board, n.move, n.player], "A new board with the mark.")
    if s.board == "string":
        block(1, s.pick(f"return {n.board}[:{n.move}] + {n.player} + {n.board}[{n.move} + 1:]",
                        f"return ''.join({n.player} if k == {n.move} else sq for k, sq in "
                        f"enumerate({n.board}))"))
    elif s.board == "list":
        block(1, s.pick(f"copy_ = list({n.board})", f"copy_ = {n.board}[:]",
                        f"copy_ = [sq for sq in {n.board}]"))
        block(1, f"copy_[{n.move}] = {n.player}")
        block(1, "return copy_")
    else:
        block(1, s.pick(f"copy_ = [list(r) for r in {n.board}]",
                        f"copy_ = [r[:] for r in {n.board}]"))
        block(1, s.pick(f"copy_[{n.move} // 3][{n.move} % 3] = {n.player}",
                        f"{n.row}, {n.col} = divmod({n.move}, 3)\n{s.indent}copy_[{n.row}]"
                        f"[{n.col}] = {n.player}"))
        block(1, "return copy_")
    return block.text()


def role_full(s):
    n = s.n
    block = _def(s, n.full_fn, [n.board], "True when no square is empty.")
    way = s.pick("in", "count", "all", "loop")
    if way == "in":
        block(1, f"return {n.empty} not in {s.flat(n.board)}")
    elif way == "count":
        block(1, s.pick(f"return {s.flat(n.board)}.count({n.empty}) == 0",
                        f"return not {s.flat(n.board)}.count({n.empty})"))
    elif way == "all":
        block(1, f"return all(sq != {n.empty} for sq in {s.flat(n.board)})")
    else:
        block(1, "for k in range(9):")
        block(2, f"if {s.cell(n.board, 'k')} == {n.empty}:")
        block(3, "return False")
        block(1, "return True")
    return block.text()


def role_utility(s):
    n = s.n
    block = _def(s, n.utility_fn, [n.board], "+1 when x won, -1 when o won, else 0.")
    block(1, f"{n.value} = {n.winner}({n.board})")
    way = s.pick("chain", "dict", "ternary")
    if way == "chain":
        block(1, s.pick(f"if {n.value} == {s.q('x')}:", f"if {s.q('x')} == {n.value}:"))
        block(2, "return 1")
        block(1, s.pick(f"elif {n.value} == {s.q('o')}:", f"if {n.value} == {s.q('o')}:"))
        block(2, "return -1")
        block(1, "return 0")
    elif way == "dict":
        block(1, f"return {{{s.q('x')}: 1, {s.q('o')}: -1}}.get({n.value}, 0)")
    else:
        block(1, f"return 1 if {n.value} == {s.q('x')} else (-1 if {n.value} == {s.q('o')} "
                 "else 0)")
    return block.text()


def _terminal(s, block, level, board, record):
    n = s.n
    if record and s.record_first:
        _record(s, block, level, board)
    way = s.pick("combined", "separate", "winner-first")
    if way == "combined":
        block(level, s.pick(f"if {n.winner}({board}) or {n.full_fn}({board}):",
                            f"if {n.full_fn}({board}) or {n.winner}({board}):",
                            f"if {n.winner}({board}) is not None or {n.full_fn}({board}):"))
        block(level + 1, f"return {n.utility_fn}({board})")
    elif way == "separate":
        block(level, f"{n.other}_won = {n.winner}({board})")
        block(level, s.pick(f"if {n.other}_won:", f"if {n.other}_won is not None and "
                                                   f"{n.other}_won != '':"))
        block(level + 1, s.pick(f"return 1 if {n.other}_won == 'x' else -1",
                                f"return {n.utility_fn}({board})"))
        block(level, f"if {n.full_fn}({board}):")
        block(level + 1, s.pick("return 0", f"return {n.utility_fn}({board})"))
    else:
        block(level, f"if {n.winner}({board}):")
        block(level + 1, f"return {n.utility_fn}({board})")
        block(level, s.pick(f"if not {n.moves_fn}({board}):", f"if {n.full_fn}({board}):",
                            f"if len({n.moves_fn}({board})) == 0:"))
        block(level + 1, "return 0")
    if record and not s.record_first:
        _record(s, block, level, board)


def _record(s, block, level, board):
    n = s.n
    block(level, s.pick(f"{n.visited}.append({_show(s, board)})",
                        f"{n.visited} += [{_show(s, board)}]",
                        f"{n.visited}.extend([{_show(s, board)}])"))


def _start(s, sign):
    """The starting value of a best so far (below every value when ``sign`` is -)."""
    big = s.big
    return f"{sign}{big}" if not big.startswith("float") else \
        f"float('{sign}inf')".replace("'+", "'")


def _for_moves(s, block, level):
    """Open the loop over the moves; the level of its body."""
    n = s.n
    if s.scan_squares:
        block(level, f"for {n.move} in range(9):")
        block(level + 1, s.pick(f"if {s.cell(n.board, n.move)} != {n.empty}:",
                                f"if {n.empty} != {s.cell(n.board, n.move)}:"))
        block(level + 2, "continue")
    else:
        block(level, s.pick(f"for {n.move} in {n.moves_fn}({n.board}):",
                            f"for {n.move} in list({n.moves_fn}({n.board})):"))
    return level + 1


def _keep(s, block, level, better, function):
    n = s.n
    way = s.pick("if", "if-mirrored", "function")
    if way == "function":
        block(level, f"{n.best} = {function}({n.best}, {n.value})")
    elif way == "if":
        block(level, f"if {n.value} {better} {n.best}:")
        block(level + 1, f"{n.best} = {n.value}")
    else:
        block(level, f"if {n.best} {'<' if better == '>' else '>'} {n.value}:")
        block(level + 1, f"{n.best} = {n.value}")


def _arranged(s, board_args, visited, extras):
    """Parameters or arguments of a search function, in the program's order."""
    if s.arg_order == "extras-first":
        return extras + board_args + [visited]
    if s.arg_order == "visited-first":
        return [visited] + board_args + extras
    return board_args + [visited] + extras


def _show(s, board):
    if s.board == "string":
        return board
    if s.board == "list":
        return s.pick(f"''.join({board})", f"str().join({board})")
    return s.pick(f"''.join(''.join(r) for r in {board})", f"''.join(sum({board}, []))")


def role_search(s, pruning, limited):
    way = s.pick("pair", "flag", "negamax")
    s.search_way = way
    return {"pair": _search_pair, "flag": _search_flag, "negamax": _search_negamax}[way](
        s, pruning, limited)


def _search_pair(s, pruning, limited):
    n = s.n
    extra = ([n.alpha, n.beta] if pruning else []) + ([n.depth] if limited else [])
    params = _arranged(s, [n.board], n.visited, extra)
    text = ""
    for name, other, mark, sign, better, function in (
            (n.max_fn, n.min_fn, "x", "-", ">", "max"), (n.min_fn, n.max_fn, "o", "", "<", "min")):
        block = _def(s, name, params, f"The value of the board with {mark} to move.")
        _terminal(s, block, 1, n.board, record=True)
        if limited:
            block(1, s.pick(f"if {n.depth} == 0:", f"if {n.depth} <= 0:"))
            block(2, "return 0")
        block(1, f"{n.best} = {_start(s, sign)}")
        level = _for_moves(s, block, 1)
        args = _arranged(s, [f"{n.place_fn}({n.board}, {n.move}, {s.q(mark)})"], n.visited,
                         ([n.alpha, n.beta] if pruning else [])
                         + ([f"{n.depth} - 1"] if limited else []))
        block(level, f"{n.value} = {other}({', '.join(args)})")
        _keep(s, block, level, better, function)
        if pruning:
            bound, cut = (n.beta, ">=") if mark == "x" else (n.alpha, "<=")
            block(level, f"if {n.best} {cut} {bound}:")
            block(level + 1, s.pick(f"return {n.best}", "break"))
            own = n.alpha if mark == "x" else n.beta
            block(level, s.pick(f"{own} = {function}({own}, {n.best})",
                                f"if {n.best} {better} {own}:\n{s.indent * (level + 1)}{own}"
                                f" = {n.best}"))
        block(1, f"return {n.best}")
        text += block.text() + "\n\n"
    return text.rstrip("\n") + "\n"


def _search_flag(s, pruning, limited):
    n = s.n
    extra = ([n.alpha, n.beta] if pruning else []) + ([n.depth] if limited else [])
    block = _def(s, n.search_fn, _arranged(s, [n.board, n.player], n.visited, extra),
                 "Minimax value of the board.")
    _terminal(s, block, 1, n.board, record=True)
    if limited:
        block(1, s.pick(f"if {n.depth} == 0:", f"if not {n.depth}:"))
        block(2, "return 0")
    block(1, s.pick(f"maximizing = {n.player} == {s.q('x')}",
                    f"maximizing = ({n.player} == {s.q('x')})",
                    f"maximizing = {n.player} != {s.q('o')}"))
    block(1, s.pick(f"{n.other} = {s.q('o')} if maximizing else {s.q('x')}",
                    f"{n.other} = {{'x': 'o', 'o': 'x'}}[{n.player}]"))
    block(1, s.pick(f"{n.best} = {_start(s, '-')} if maximizing else {_start(s, '')}",
                    f"if maximizing:\n{s.indent * 2}{n.best} = {_start(s, '-')}\n{s.indent}"
                    f"else:\n{s.indent * 2}{n.best} = {_start(s, '')}"))
    level = _for_moves(s, block, 1)
    args = _arranged(s, [f"{n.place_fn}({n.board}, {n.move}, {n.player})", n.other],
                     n.visited, ([n.alpha, n.beta] if pruning else [])
                     + ([f"{n.depth} - 1"] if limited else []))
    block(level, f"{n.value} = {n.search_fn}({', '.join(args)})")
    block(level, "if maximizing:")
    _keep(s, block, level + 1, ">", "max")
    if pruning:
        block(level + 1, f"{n.alpha} = max({n.alpha}, {n.best})")
    block(level, "else:")
    _keep(s, block, level + 1, "<", "min")
    if pruning:
        block(level + 1, f"{n.beta} = min({n.beta}, {n.best})")
        block(level, s.pick(f"if {n.alpha} >= {n.beta}:", f"if {n.beta} <= {n.alpha}:"))
        block(level + 1, "break")
    block(1, f"return {n.best}")
    return block.text()


def _search_negamax(s, pruning, limited):
    n = s.n
    extra = ([n.alpha, n.beta] if pruning else []) + ([n.depth] if limited else [])
    block = _def(s, n.search_fn, _arranged(s, [n.board, n.player], n.visited, extra),
                 "Negamax: the value for the side to move.")
    block(1, s.pick(f"sign = 1 if {n.player} == {s.q('x')} else -1",
                    f"sign = -1 if {n.player} == {s.q('o')} else 1",
                    f"sign = {{'x': 1, 'o': -1}}[{n.player}]"))
    _record(s, block, 1, n.board)
    block(1, s.pick(f"if {n.winner}({n.board}) or {n.full_fn}({n.board}):",
                    f"if {n.full_fn}({n.board}) or {n.winner}({n.board}) is not None:"))
    block(2, s.pick(f"return sign * {n.utility_fn}({n.board})",
                    f"return {n.utility_fn}({n.board}) * sign"))
    if limited:
        block(1, f"if not {n.depth}:")
        block(2, "return 0")
    block(1, s.pick(f"{n.other} = {s.q('o')} if sign == 1 else {s.q('x')}",
                    f"{n.other} = {s.q('x')} if sign == -1 else {s.q('o')}"))
    block(1, f"{n.best} = {_start(s, '-')}")
    level = _for_moves(s, block, 1)
    args = _arranged(s, [f"{n.place_fn}({n.board}, {n.move}, {n.player})", n.other],
                     n.visited, ([f"-{n.beta}", f"-{n.alpha}"] if pruning else [])
                     + ([f"{n.depth} - 1"] if limited else []))
    block(level, s.pick(f"{n.value} = -{n.search_fn}({', '.join(args)})",
                        f"{n.value} = -1 * {n.search_fn}({', '.join(args)})"))
    _keep(s, block, level, ">", "max")
    if pruning:
        block(level, s.pick(f"{n.alpha} = max({n.alpha}, {n.value})",
                            f"if {n.value} > {n.alpha}:\n{s.indent * (level + 1)}{n.alpha} = "
                            f"{n.value}"))
        block(level, s.pick(f"if {n.alpha} >= {n.beta}:", f"if {n.beta} <= {n.alpha}:"))
        block(level + 1, "break")
    block(1, f"return {n.best}")
    return block.text()


def role_best(s, pruning, limited):
    n = s.n
    block = _def(s, n.best_fn, [n.board, n.player, n.visited],
                 "The first move with the best value (the grader's tie-break).")
    collect = s.rng.random() < 0.35
    if collect:
        block(1, f"{n.moves}, values_ = [], []")
    else:
        block(1, s.pick(f"{n.best}, chosen_ = None, None",
                        f"{n.best} = None\n{s.indent}chosen_ = None"))
    level = _for_moves(s, block, 1)
    child = f"{n.place_fn}({n.board}, {n.move}, {n.player})"
    nxt = s.pick(f"({s.q('o')} if {n.player} == {s.q('x')} else {s.q('x')})",
                 f"{{'x': 'o', 'o': 'x'}}[{n.player}]")
    bounds = [_start(s, "-"), _start(s, "")] if pruning else []
    extra = bounds + (["8"] if limited else [])
    if s.search_way != "pair":
        call = f"{n.search_fn}({', '.join(_arranged(s, [child, nxt], n.visited, extra))})"
        if s.search_way == "negamax":
            block(level, f"{n.value} = -{call}")
            block(level, f"if {n.player} == {s.q('o')}:")
            block(level + 1, f"{n.value} = -{n.value}")
        else:
            block(level, f"{n.value} = {call}")
    else:
        arguments = ", ".join(_arranged(s, [child], n.visited, extra))
        block(level, f"if {n.player} == {s.q('x')}:")
        block(level + 1, f"{n.value} = {n.min_fn}({arguments})")
        block(level, "else:")
        block(level + 1, f"{n.value} = {n.max_fn}({arguments})")
    if collect:
        block(level, f"{n.moves}.append({n.move})")
        block(level, s.pick(f"values_.append({n.value})", f"values_ += [{n.value}]"))
        block(1, s.pick(f"if not {n.moves}:", f"if len({n.moves}) == 0:"))
        block(2, "return None")
        block(1, f"target_ = max(values_) if {n.player} == {s.q('x')} else min(values_)")
        block(1, f"return {n.moves}[values_.index(target_)]")
        return block.text()
    block(level, s.pick(f"if {n.best} is None or ({n.player} == {s.q('x')} and {n.value} > "
                        f"{n.best}) or ({n.player} == {s.q('o')} and {n.value} < {n.best}):",
                        f"if {n.best} is None or ({n.value} > {n.best} if {n.player} == "
                        f"{s.q('x')} else {n.value} < {n.best}):"))
    block(level + 1, s.pick(f"{n.best}, chosen_ = {n.value}, {n.move}",
                            f"{n.best} = {n.value}\n{s.indent * (level + 1)}chosen_ = {n.move}"))
    block(1, "return chosen_")
    return block.text()


def role_write(s):
    n = s.n
    block = _def(s, n.write_fn, [n.path, n.visited], "Write one visited board per line.")
    way = s.pick("with-join", "with-loop", "plain")
    if way == "with-join":
        block(1, f"with open({n.path}, {s.q('w')}) as handle:")
        block(2, s.pick(f"handle.write('\\n'.join({n.visited}) + '\\n')",
                        f"handle.write(''.join(v + '\\n' for v in {n.visited}))"))
    elif way == "with-loop":
        block(1, f"with open({n.path}, {s.q('w')}) as handle:")
        block(2, f"for node_ in {n.visited}:")
        block(3, s.pick("handle.write(node_ + '\\n')", "print(node_, file=handle)"))
    else:
        block(1, f"handle = open({n.path}, {s.q('w')})")
        block(1, f"for node_ in {n.visited}:")
        block(2, "handle.write(node_)")
        block(2, "handle.write('\\n')")
        block(1, "handle.close()")
    return block.text()


def role_check(s):
    n = s.n
    block = _def(s, n.check_fn, [n.text], "The board the argument describes, or exit 2.")
    block(1, s.pick(f"if len({n.text}) != 9:", f"if not len({n.text}) == 9:"))
    block(2, f"print({s.q('the state must have 9 squares')}, file=sys.stderr)")
    block(2, "sys.exit(2)")
    block(1, s.pick(f"for ch in {n.text}:", f"for k in range(len({n.text})):\n{s.indent * 2}"
                                            f"ch = {n.text}[k]"))
    block(2, s.pick("if ch not in 'xo-':", "if not (ch == 'x' or ch == 'o' or ch == '-'):"))
    block(3, f"print({s.q('bad square: ')} + ch, file=sys.stderr)")
    block(3, "sys.exit(2)")
    if s.rng.random() < 0.6:
        block(1, f"{n.count} = {n.text}.count('x') - {n.text}.count('o')")
        block(1, s.pick(f"if {n.count} not in (0, 1):", f"if {n.count} < 0 or {n.count} > 1:"))
        block(2, f"print({s.q('impossible counts')}, file=sys.stderr)")
        block(2, "sys.exit(2)")
    if s.board == "string":
        block(1, f"return {n.text}")
    elif s.board == "list":
        block(1, s.pick(f"return list({n.text})", f"return [ch for ch in {n.text}]"))
    else:
        block(1, s.pick(f"return [list({n.text}[k:k + 3]) for k in range(0, 9, 3)]",
                        f"return [list({n.text}[0:3]), list({n.text}[3:6]), "
                        f"list({n.text}[6:9])]"))
    return block.text()


def role_main(s, pruning, limited):
    n = s.n
    block = Block(s)
    block(0, f"def {n.main_fn}({s.pick('', 'argv')}):")
    args = "sys.argv" if "argv" not in block.lines[0][1] else "argv"
    block(1, s.pick(f"if len({args}) < 3:", f"if len({args}) not in (3, 4, 5):"))
    block(2, f"print({s.q('usage: tictactoe.py STATE PATH')}, file=sys.stderr)")
    block(2, s.pick("return 2", "sys.exit(2)"))
    block(1, f"{n.board} = {n.check_fn}({args}[1])")
    block(1, f"{n.visited} = []")
    block(1, f"{n.player} = {s.q('x')} if {s.flat(n.board)}.count('x') == "
             f"{s.flat(n.board)}.count('o') else {s.q('o')}")
    block(1, s.pick(f"if {n.winner}({n.board}) or {n.full_fn}({n.board}):",
                    f"if {n.full_fn}({n.board}) or {n.winner}({n.board}):"))
    block(2, s.pick("return 0", "sys.exit(0)"))
    block(1, f"{n.move} = {n.best_fn}({n.board}, {n.player}, {n.visited})")
    block(1, f"{n.write_fn}({args}[2], {n.visited})")
    block(1, s.pick(f"print({n.move})", f"print(str({n.move}))",
                    f"sys.stdout.write(str({n.move}) + '\\n')"))
    block(1, "return 0")
    return block.text()


# --- extras: the helpers a longer program also has -----------------------------------------


def extra_show(s, number):
    n = s.n
    block = _def(s, f"show_{number}" if not s.n.camel else f"show{number}", [n.board],
                 "Print the board, three rows.")
    if s.board == "grid":
        block(1, f"for {n.row} in {n.board}:")
        block(2, s.pick(f"print(' '.join({n.row}))", f"print('|'.join({n.row}))"))
    else:
        block(1, s.pick("for k in range(0, 9, 3):", "for k in (0, 3, 6):"))
        block(2, s.pick(f"print(' '.join({n.board}[k:k + 3]))",
                        f"print({n.board}[k] + ' ' + {n.board}[k + 1] + ' ' + "
                        f"{n.board}[k + 2])"))
        if s.rng.random() < 0.5:
            block(2, "if k < 6:")
            block(3, "print('-' * 5)")
    block(1, s.pick("print()", "print('')"))
    return block.text()


def extra_move_name(s, number):
    n = s.n
    block = _def(s, f"move_name_{number}", [n.move], "The square's name: a1 .. c3.")
    way = s.pick("divmod", "string", "table")
    if way == "divmod":
        block(1, f"{n.row}, {n.col} = divmod({n.move}, 3)")
        block(1, f"return 'abc'[{n.col}] + str({n.row} + 1)")
    elif way == "string":
        block(1, f"return chr(ord('a') + {n.move} % 3) + str({n.move} // 3 + 1)")
    else:
        block(1, "names_ = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3']")
        block(1, s.pick(f"return names_[{n.move}]", f"if 0 <= {n.move} < 9:\n{s.indent * 2}"
                                                     f"return names_[{n.move}]\n{s.indent}"
                                                     "return '??'"))
    return block.text()


def extra_parse_move(s, number):
    n = s.n
    block = _def(s, f"parse_move_{number}", [n.text], "The square a name like b2 stands for.")
    block(1, s.pick(f"{n.text} = {n.text}.strip().lower()", f"{n.text} = {n.text}.lower()"))
    block(1, s.pick(f"if len({n.text}) != 2 or {n.text}[0] not in 'abc' or {n.text}[1] not "
                    "in '123':", f"if not (len({n.text}) == 2 and {n.text}[0] in 'abc' and "
                    f"{n.text}[1] in '123'):"))
    block(2, s.pick("return None", "raise ValueError('not a square: ' + " + n.text + ")"))
    block(1, s.pick(f"return 'abc'.index({n.text}[0]) + 3 * (int({n.text}[1]) - 1)",
                    f"{n.col} = ord({n.text}[0]) - ord('a')\n{s.indent}{n.row} = "
                    f"int({n.text}[1]) - 1\n{s.indent}return {n.row} * 3 + {n.col}"))
    return block.text()


def extra_symmetry(s, number):
    n = s.n
    name = s.pick("rotate", "mirror", "transpose")
    block = _def(s, f"{name}_{number}", [n.board], f"The board, {name}d.")
    table = {"rotate": "[6, 3, 0, 7, 4, 1, 8, 5, 2]", "mirror": "[2, 1, 0, 5, 4, 3, 8, 7, 6]",
             "transpose": "[0, 3, 6, 1, 4, 7, 2, 5, 8]"}[name]
    squares = s.flat(n.board)
    if s.rng.random() < 0.5:
        block(1, f"order_ = {table}")
        block(1, f"flat_ = {squares}")
        block(1, "out_ = [flat_[k] for k in order_]")
    else:
        block(1, "out_ = []")
        block(1, f"for k in {table}:")
        block(2, s.pick(f"out_.append({s.cell(n.board, 'k')})",
                        f"out_ += [{s.cell(n.board, 'k')}]"))
    if s.board == "string":
        block(1, "return ''.join(out_)")
    elif s.board == "list":
        block(1, "return out_")
    else:
        block(1, "return [out_[0:3], out_[3:6], out_[6:9]]")
    return block.text()


def extra_counter(s, number):
    n = s.n
    block = Block(s)
    name = s.pick("Counter", "Stats", "NodeCount", "Tally")
    block(0, f"class {name}{number}:")
    block(1, s.pick(f'"""Counts {n.visited} nodes and cut-offs."""', "pass_ = None"))
    block(1, "def __init__(self):")
    block(2, "self.nodes = 0")
    block(2, s.pick("self.cuts = 0", "self.cutoffs = 0\n" + s.indent * 2 + "self.leaves = 0"))
    block(1, "def add(self, kind=None):")
    block(2, "self.nodes += 1")
    block(2, s.pick("if kind == 'cut':", "if kind is not None and kind.startswith('c'):"))
    block(3, s.pick("self.cuts = getattr(self, 'cuts', 0) + 1",
                    "setattr(self, 'cuts', getattr(self, 'cuts', 0) + 1)"))
    block(1, "def __str__(self):")
    block(2, s.pick("return '%d nodes' % self.nodes", "return str(self.nodes) + ' nodes'",
                    "return '{} nodes'.format(self.nodes)"))
    return block.text()


def extra_random_player(s, number):
    n = s.n
    block = _def(s, f"random_game_{number}", [n.board, s.pick("seed", "seed=None")],
                 "Play random moves to the end; the result.")
    block(1, "import random as rnd_")
    block(1, "chooser_ = rnd_.Random(seed)")
    block(1, f"{n.player} = {s.q('x')}")
    block(1, s.pick(f"while not ({n.winner}({n.board}) or {n.full_fn}({n.board})):",
                    f"while {n.winner}({n.board}) is None and not {n.full_fn}({n.board}):"))
    block(2, f"{n.move} = chooser_.choice({n.moves_fn}({n.board}))")
    block(2, f"{n.board} = {n.place_fn}({n.board}, {n.move}, {n.player})")
    block(2, s.pick(f"{n.player} = {s.q('o')} if {n.player} == {s.q('x')} else {s.q('x')}",
                    f"{n.player} = {{'x': 'o', 'o': 'x'}}[{n.player}]"))
    block(1, f"return {n.utility_fn}({n.board})")
    return block.text()


def extra_count_pieces(s, number):
    n = s.n
    block = _def(s, f"pieces_{number}", [n.board, n.player], "How many squares hold the mark.")
    way = s.pick("count", "sum", "loop")
    if way == "count":
        block(1, f"return {s.flat(n.board)}.count({n.player})")
    elif way == "sum":
        block(1, f"return sum(1 for sq in {s.flat(n.board)} if sq == {n.player})")
    else:
        block(1, f"{n.count} = 0")
        block(1, "for k in range(9):")
        block(2, s.pick(f"if {s.cell(n.board, 'k')} == {n.player}:",
                        f"if {n.player} == {s.cell(n.board, 'k')}:"))
        block(3, s.pick(f"{n.count} += 1", f"{n.count} = {n.count} + 1"))
        block(1, f"return {n.count}")
    return block.text()


def extra_heuristic(s, number):
    n = s.n
    block = _def(s, f"heuristic_{number}", [n.board], "Open lines for x minus open lines for o.")
    block(1, f"{n.value} = 0")
    block(1, f"flat_ = {s.flat(n.board)}")
    block(1, s.pick(f"for {n.line} in {n.lines}:", f"for a, b, c in {n.lines}:\n{s.indent * 2}"
                                                    f"{n.line} = (a, b, c)"))
    block(2, f"marks_ = [flat_[k] for k in {n.line}]")
    block(2, s.pick("if 'o' not in marks_:", "if marks_.count('o') == 0:"))
    block(3, s.pick(f"{n.value} += 1 + marks_.count('x')",
                    f"{n.value} = {n.value} + 1 + marks_.count('x')"))
    block(2, s.pick("if 'x' not in marks_:", "if not marks_.count('x'):"))
    block(3, s.pick(f"{n.value} -= 1 + marks_.count('o')",
                    f"{n.value} = {n.value} - (1 + marks_.count('o'))"))
    block(1, f"return {n.value}")
    return block.text()


def extra_self_test(s, number):
    n = s.n
    block = _def(s, f"self_test_{number}", [], "A few positions whose answers we know.")
    starts = {"string": lambda text: s.q(text), "list": lambda text: f"list({s.q(text)})",
              "grid": lambda text: f"[list({s.q(text[0:3])}), list({s.q(text[3:6])}), "
                                   f"list({s.q(text[6:9])})]"}[s.board]
    for text, mark in s.rng.sample([("xxx------", "x"), ("ooo------", "o"), ("x---x---x", "x"),
                                    ("--o-o-o--", "o"), ("xoxoxoox-", None),
                                    ("o--o--o--", "o")], 3):
        expected = s.q(mark) if mark else "None"
        block(1, s.pick(f"assert {n.winner}({starts(text)}) == {expected}",
                        f"if {n.winner}({starts(text)}) != {expected}:\n{s.indent * 2}raise "
                        f"AssertionError({s.q(text)})"))
    block(1, s.pick(f"assert {n.moves_fn}({starts('x-o------')}) == [1, 3, 4, 5, 6, 7, 8]",
                    f"assert len({n.moves_fn}({starts('x-o------')})) == 7"))
    block(1, s.pick("print('ok')", "return True"))
    return block.text()


def extra_usage(s, number):
    block = _def(s, f"usage_{number}", [], "The help text.")
    words = s.rng.sample(["STATE is nine squares", "x moves first", "PATH gets one board per "
                          "line", "prune turns on alpha-beta", "PLY limits the depth",
                          "squares are x, o or -", "the answer is the index of the square"], 4)
    if s.rng.random() < 0.5:
        block(1, "lines_ = [")
        for word in words:
            block(2, f"{s.q(word)},")
        block(1, "]")
        block(1, "print('\\n'.join(lines_))")
    else:
        for word in words:
            block(1, f"print({s.q(word)})")
    return block.text()


def extra_memo(s, number):
    n = s.n
    block = _def(s, f"memo_value_{number}", [n.board, n.player, s.pick("table", "cache")],
                 "The minimax value, remembered per position.")
    table = block.lines[0][1].split(", ")[-1].rstrip("):")
    block(1, f"key_ = ({_show(s, n.board)}, {n.player})")
    block(1, s.pick(f"if key_ in {table}:", f"if {table}.get(key_) is not None:"))
    block(2, f"return {table}[key_]")
    block(1, f"if {n.winner}({n.board}) or {n.full_fn}({n.board}):")
    block(2, s.pick(f"{table}[key_] = {n.utility_fn}({n.board})",
                    f"{n.value} = {n.utility_fn}({n.board})\n{s.indent * 2}{table}[key_] = "
                    f"{n.value}"))
    block(2, f"return {table}[key_]")
    block(1, f"{n.other} = {s.q('o')} if {n.player} == {s.q('x')} else {s.q('x')}")
    block(1, f"values_ = [memo_value_{number}({n.place_fn}({n.board}, {n.move}, {n.player}),"
             f" {n.other}, {table}) for {n.move} in {n.moves_fn}({n.board})]")
    block(1, s.pick(f"{table}[key_] = max(values_) if {n.player} == 'x' else min(values_)",
                    f"if {n.player} == 'x':\n{s.indent * 2}{table}[key_] = max(values_)\n"
                    f"{s.indent}else:\n{s.indent * 2}{table}[key_] = min(values_)"))
    block(1, f"return {table}[key_]")
    return block.text()


def extra_game_over(s, number):
    n = s.n
    block = _def(s, f"result_text_{number}", [n.board], "How the game stands, in words.")
    block(1, f"{n.value} = {n.winner}({n.board})")
    block(1, s.pick(f"if {n.value}:", f"if {n.value} is not None and {n.value} != '':"))
    block(2, s.pick(f"return {n.value} + ' wins'", f"return '%s wins' % {n.value}"))
    block(1, s.pick(f"if {n.full_fn}({n.board}):", f"elif {n.full_fn}({n.board}):"))
    block(2, "return 'draw'")
    block(1, s.pick(f"return str(len({n.moves_fn}({n.board}))) + ' squares left'",
                    f"return 'in play (%d free)' % len({n.moves_fn}({n.board}))"))
    return block.text()


def extra_play(s, number):
    n = s.n
    block = _def(s, f"play_against_{number}", [n.board], "Play x against the search on stdin.")
    block(1, f"{n.visited} = []")
    block(1, s.pick("while True:", "for _turn in range(9):"))
    block(2, f"if {n.winner}({n.board}) or {n.full_fn}({n.board}):")
    block(3, "break")
    block(2, s.pick("answer_ = input('your move (0-8): ')",
                    "answer_ = input().strip()"))
    block(2, s.pick("if not answer_.isdigit():", "if answer_ not in '012345678' or not "
                                                 "answer_:"))
    block(3, "continue")
    block(2, f"{n.board} = {n.place_fn}({n.board}, int(answer_), 'x')")
    block(2, f"if {n.winner}({n.board}) or {n.full_fn}({n.board}):")
    block(3, "break")
    block(2, f"{n.board} = {n.place_fn}({n.board}, {n.best_fn}({n.board}, 'o', {n.visited}), "
             "'o')")
    block(1, f"return {n.utility_fn}({n.board})")
    return block.text()


EXTRAS = (extra_show, extra_move_name, extra_parse_move, extra_symmetry, extra_counter,
          extra_random_player, extra_count_pieces, extra_heuristic, extra_self_test,
          extra_usage, extra_memo, extra_game_over, extra_play)


# --- a whole program -----------------------------------------------------------------------


def _header(s):
    n = s.n
    lines = []
    if s.rng.random() < 0.7:
        lines.append(s.pick('"""Tic-tac-toe: the best move by minimax."""',
                            "# tic-tac-toe minimax, homework 2", '"""HW: game search."""'))
    imports = ["import sys"] + s.rng.sample(["import os", "import time", "import math",
                                             "from functools import lru_cache"],
                                            s.rng.randint(0, 2))
    s.rng.shuffle(imports)
    lines += imports + [""]
    wins = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
            (2, 4, 6)]
    if s.rng.random() < 0.5:
        wins = wins[3:6] + wins[:3] + wins[6:]
    shape = s.pick("tuple", "list", "rows")
    if shape == "tuple":
        lines.append(f"{n.lines} = (" + ", ".join(str(w) for w in wins) + ")")
    elif shape == "list":
        lines.append(f"{n.lines} = [" + ", ".join(str(list(w)) for w in wins) + "]")
    else:
        lines.append(f"{n.lines} = [")
        lines += [f"{s.indent}{w}," for w in wins]
        lines.append("]")
    lines.append(f"{n.empty} = {s.q('-')}")
    return "\n".join(lines) + "\n"


def program(seed, lines=120):
    """The text of one tic-tac-toe program (about ``lines`` lines or more)."""
    s = Style(seed)
    pruning = s.rng.random() < 0.5
    limited = s.rng.random() < 0.3
    search = role_search(s, pruning, limited)
    roles = [role_winner(s), role_moves(s), role_place(s), role_full(s), role_utility(s),
             search, role_best(s, pruning, limited), role_write(s), role_check(s)]
    s.rng.shuffle(roles)
    count = sum(text.count("\n") for text in roles)
    extras = list(EXTRAS)
    s.rng.shuffle(extras)
    number = 0
    while count < lines:
        maker = extras[number % len(extras)]
        number += 1
        text = maker(s, number)
        roles.insert(s.rng.randint(0, len(roles)), text)
        count += text.count("\n") + 2
    guard = s.pick(f"if __name__ == '__main__':\n{s.indent}sys.exit({s.n.main_fn}())",
                   f"if __name__ == \"__main__\":\n{s.indent}{s.n.main_fn}()")
    main = role_main(s, pruning, limited)
    if f"def {s.n.main_fn}(argv)" in main:
        guard = f"if __name__ == '__main__':\n{s.indent}sys.exit({s.n.main_fn}(sys.argv))"
    gap = "\n\n" if s.rng.random() < 0.7 else "\n"
    body = gap.join(text.rstrip("\n") + "\n" for text in roles + [main])
    return habits(_header(s) + gap + body + gap + guard + "\n", s)


_RETURN = re.compile(r"^(\s*)return (.+)$")
_CONDITION = re.compile(r"^(\s*)(if|elif|while) (?!\()(.+):$")
_INCREMENT = re.compile(r"^(\s*)([A-Za-z_]\w*) \+= (.+)$")
_DEF = re.compile(r"^(\s*)def (\w+)\(([^,)]*)")


def habits(source, s):
    """``source`` written with one student's habits: each habit (a result kept in a
    variable before it is returned, conditions in parentheses, ``x = x + 1`` for
    ``x += 1``, a debug line or a guard at the start of functions) at a rate of the
    program's own."""
    rates = [s.rng.choice([0, 0, 0.3, 0.6, 0.9]) for _ in range(5)]
    out = []
    lines = source.split("\n")
    for number, line in enumerate(lines):
        match = _RETURN.match(line)
        if match and s.rng.random() < rates[0] and match.group(2) != "None":
            out.append(f"{match.group(1)}answer_ = {match.group(2)}")
            out.append(f"{match.group(1)}return answer_")
            continue
        match = _CONDITION.match(line)
        if match and s.rng.random() < rates[1]:
            line = f"{match.group(1)}{match.group(2)} ({match.group(3)}):"
        match = _INCREMENT.match(line)
        if match and s.rng.random() < rates[2]:
            line = f"{match.group(1)}{match.group(2)} = {match.group(2)} + ({match.group(3)})"
        out.append(line)
        match = _DEF.match(line)
        if match and match.group(1) == "" and number + 1 < len(lines):
            following = lines[number + 1]
            if following.strip().startswith('"""'):
                out.append(following)
                lines[number + 1] = ""
                following = lines[number + 2] if number + 2 < len(lines) else ""
            indent = following[:len(following) - len(following.lstrip())] or s.indent
            if s.rng.random() < rates[3]:
                out.append(f"{indent}if DEBUG_:")
                out.append(f"{indent}{s.indent}print({s.q('-> ' + match.group(2))}, "
                           "file=sys.stderr)")
            first = match.group(3).strip().split("=")[0]
            if first and s.rng.random() < rates[4]:
                out.append(f"{indent}assert {first} is not None")
    text = "\n".join(out)
    if "DEBUG_" in text:
        text = re.sub(r"^import sys$", "import sys\nDEBUG_ = False", text, count=1,
                      flags=re.MULTILINE)
    return text


def class_of(count, lines=120, first_seed=1000):
    """``{name: program text}`` of ``count`` independent programs."""
    return {f"student{index:03d}": program(first_seed + index, lines)
            for index in range(count)}


# --- disguises -----------------------------------------------------------------------------

# Names a disguise never renames: what the language and its library own.
_KEPT = set(keyword.kwlist) | {"self", "print", "range", "len", "list", "str", "int",
                               "open", "sys", "argv", "exit", "stderr", "stdout", "write",
                               "join", "append", "count", "index", "strip", "lower", "get",
                               "max", "min", "sum", "any", "all", "enumerate", "divmod",
                               "chr", "ord", "isdigit", "input", "close", "format",
                               "startswith", "getattr", "setattr", "Random", "choice",
                               "random", "os", "time", "math", "lru_cache", "functools",
                               "AssertionError", "ValueError", "__init__", "__str__",
                               "__name__", "__main__", "True", "False", "None"}


def defined_names(source):
    """The names the program defines (functions, classes, parameters, variables,
    attributes it sets): what a student can rename."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
    return found - _KEPT


def rename(source, rng):
    """``source`` with every name it defines renamed, consistently."""
    names = sorted(defined_names(source))
    fresh = {}
    for name in names:
        fresh[name] = f"{rng.choice(['q', 'z', 'k', 'w', 'v'])}{rng.choice(['ax', 'ol', 'im'])}" \
                      f"_{len(fresh)}"
    result = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in fresh:
            token = token._replace(string=fresh[token.string])
        result.append(token)
    return tokenize.untokenize(result)


def reorder(source, rng):
    """``source`` with its top-level functions and classes in another order."""
    tree = ast.parse(source)
    lines = source.split("\n")
    defs = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    if len(defs) < 2:
        return source
    first, last = defs[0].lineno - 1, defs[-1].end_lineno
    chunks = ["\n".join(lines[node.lineno - 1:node.end_lineno]) for node in defs]
    rng.shuffle(chunks)
    return "\n".join(lines[:first] + ["\n\n".join(chunks)] + lines[last:])


def recomment(source, rng):
    """``source`` without its comments, blank lines moved, new comments added."""
    tokens = [token for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type != tokenize.COMMENT]
    text = tokenize.untokenize(tokens)
    out = []
    for line in text.split("\n"):
        if not line.strip():
            if rng.random() < 0.5:
                continue
            out.append("")
            continue
        stripped = line.rstrip()
        if rng.random() < 0.15 and not stripped.endswith((",", "(", "[", "\\")):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}# {rng.choice(['step', 'here we go', 'TODO', 'check'])}")
        out.append(stripped)
        if rng.random() < 0.1:
            out.append("")
    return "\n".join(out) + "\n"


_COMPARISON = re.compile(r"(?<![\w\].)'\"])([A-Za-z_]\w*|\d+) (<|>|<=|>=|==|!=) "
                         r"([A-Za-z_]\w*|\d+)(?![\w(\[.'\"])")
_MIRROR = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def flip_comparisons(source, rng, share=0.7):
    """``source`` with simple comparisons written the other way round (``a < b`` ->
    ``b > a``), chained ones left alone."""
    def flip(match):
        before = match.string[max(0, match.start() - 4):match.start()]
        after = match.string[match.end():match.end() + 4]
        chained = re.search(r"(<|>|=|!)=?\s*$", before) or re.match(r"\s*(<|>|==|!=)", after)
        if chained or rng.random() > share:
            return match.group(0)
        return f"{match.group(3)} {_MIRROR[match.group(2)]} {match.group(1)}"
    return "\n".join(_COMPARISON.sub(flip, line) if not line.lstrip().startswith(
        ("#", '"""', "'")) else line for line in source.split("\n"))


_DEAD = ("unused_{n} = {k}", "if False:\n{i}print('never {n}')", "for _ in range(0):\n{i}pass",
         "trace_{n} = []", "_ = {k} * 2", "assert True, 'check {n}'")


def insert_dead_code(source, rng, count=6):
    """``source`` with ``count`` dead statements inserted inside its functions, and one
    unused function."""
    tree = ast.parse(source)
    spots = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
             for node in node.body if not isinstance(node, ast.Expr)]
    lines = source.split("\n")
    unit = "    " if "\n    " in source else ("\t" if "\n\t" in source else "  ")
    for number, node in enumerate(sorted(rng.sample(spots, min(count, len(spots))),
                                         key=lambda node: -node.lineno)):
        indent = " " * node.col_offset if not lines[node.lineno - 1].startswith("\t") \
            else "\t" * (len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip("\t")))
        statement = rng.choice(_DEAD).format(n=number, k=rng.randint(2, 99), i=indent + unit)
        lines.insert(node.lineno - 1, "\n".join(indent + part if not part.startswith(indent)
                                                else part for part in statement.split("\n")))
    lines.append("\n\ndef helper_never_called(x):\n" + unit + "y = x + 1\n" + unit
                 + "return y * y\n")
    return "\n".join(lines)


DISGUISES = ("rename", "reorder", "recomment", "flip", "dead code")


def disguise(source, seed, which=DISGUISES):
    """A copy of ``source`` hidden by the disguises named in ``which``."""
    rng = random.Random(seed)
    if "reorder" in which:
        source = reorder(source, rng)
    if "flip" in which:
        source = flip_comparisons(source, rng)
    if "dead code" in which:
        source = insert_dead_code(source, rng)
    if "rename" in which:
        source = rename(source, rng)
    if "recomment" in which:
        source = recomment(source, rng)
    compile(source, "<disguised>", "exec")
    return source


# --- C and Java ----------------------------------------------------------------------------


def c_program(seed):
    """A small C program counting tic-tac-toe positions, written one of several ways."""
    rng = random.Random(seed)
    board, count = rng.choice(["b", "board", "cells"]), rng.choice(["n", "count", "total"])
    loop = rng.choice([f"for (int i = 0; i < 9; i++) {{\n        if ({board}[i] == '-') "
                       f"{{\n            {board}[i] = p;\n            {count} += walk(p == 'x'"
                       f" ? 'o' : 'x');\n            {board}[i] = '-';\n        }}\n    }}",
                       f"int i = 0;\n    while (i < 9) {{\n        if ('-' == {board}[i]) {{\n"
                       f"            {board}[i] = p;\n            {count} = {count} + walk(p "
                       f"== 'x' ? 'o' : 'x');\n            {board}[i] = '-';\n        }}\n"
                       f"        i++;\n    }}"])
    return (f"#include <stdio.h>\n#include <string.h>\n\nstatic char {board}[10];\n\n"
            f"/* does p hold a line? */\nstatic int won(char p) {{\n    static const int "
            f"L[8][3] = {{{{0,1,2}},{{3,4,5}},{{6,7,8}},{{0,3,6}},{{1,4,7}},{{2,5,8}},"
            f"{{0,4,8}},{{2,4,6}}}};\n    for (int k = 0; k < 8; k++)\n        if ({board}"
            f"[L[k][0]] == p && {board}[L[k][1]] == p && {board}[L[k][2]] == p) return 1;\n"
            f"    return 0;\n}}\n\nstatic long walk(char p) {{\n    long {count} = 1;\n    "
            f"if (won('x') || won('o')) return {count};\n    {loop}\n    return {count};\n}}\n"
            f"\nint main(int argc, char **argv) {{\n    if (argc < 2 || strlen(argv[1]) != 9) "
            f"{{\n        fprintf(stderr, \"usage: count STATE\\n\");\n        return 2;\n    "
            f"}}\n    strcpy({board}, argv[1]);\n    printf(\"%ld\\n\", walk('x'));\n    "
            f"return 0;\n}}\n")


def java_program(seed):
    """A small Java program doing the same."""
    rng = random.Random(seed)
    cls, board = rng.choice(["Count", "Walker", "Positions"]), rng.choice(["b", "grid"])
    return (f"import java.util.*;\n\npublic class {cls} {{\n    static char[] {board};\n"
            f"    // the eight lines\n    static final int[][] L = {{{{0,1,2}},{{3,4,5}},"
            f"{{6,7,8}},{{0,3,6}},{{1,4,7}},{{2,5,8}},{{0,4,8}},{{2,4,6}}}};\n\n    static "
            f"boolean won(char p) {{\n        for (int[] l : L) {{\n            if ({board}"
            f"[l[0]] == p && {board}[l[1]] == p && {board}[l[2]] == p) return true;\n        "
            f"}}\n        return false;\n    }}\n\n    static long walk(char p) {{\n        "
            f"long n = 1;\n        if (won('x') || won('o')) return n;\n        for (int i = "
            f"0; i < 9; i++) {{\n            if ({board}[i] == '-') {{\n                "
            f"{board}[i] = p;\n                n += walk(p == 'x' ? 'o' : 'x');\n          "
            f"      {board}[i] = '-';\n            }}\n        }}\n        return n;\n    }}"
            f"\n\n    public static void main(String[] args) {{\n        {board} = args[0]."
            f"toCharArray();\n        System.out.println(walk('x'));\n    }}\n}}\n")
