#!/usr/bin/env python3
"""A careful plain Stake/Raid homework.py: the yardstick of bench_stake_raid.py.

    python3 PATH/TO/bench/plain_stake_raid.py    # in a folder: input.txt -> output.txt

Not part of the product, and not used by it: the single file a good student hands in for
the MINIMAX and ALPHABETA modes, written the straightforward way the assignment asks
(AIMA's MAX-VALUE and MIN-VALUE with a depth cut-off, Stakes then Raids in row-major
order, the root keeping the first strictly best move) and written with care: the board
is one flat list changed in place and put back after each child, the score and the
number of empty squares are carried along instead of recounted, neighbours are listed
once, and a Raid that flips nothing is left out (its child is the Stake's, which comes
first). None of the engine's own tricks: no bulk values at the horizon, no bytes boards,
no big-int masks. It reads and checks input.txt, and writes output.txt atomically.

bench_stake_raid.py runs it beside homework.py, both as whole processes, and prints the
ratio of their CPU times beyond the interpreter's own start; docs/stake_raid.md quotes it.
"""

import os
import sys

INF = float("inf")
EMPTY, MINE, THEIRS = 0, 1, -1       # cells as YOUPLAY sees them: MINE is Max


def fail(message):
    """Stop with one line on stderr and exit code 2 (output.txt untouched)."""
    print("homework.py: " + message, file=sys.stderr)
    sys.exit(2)


def read_input(path):
    """(n, mode, player, depth, values, cells) of input.txt, or fail naming the line."""
    try:
        with open(path) as handle:
            lines = [line.strip() for line in handle.read().splitlines()]
    except OSError as error:
        fail("cannot read %s: %s" % (path, error.strerror))
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) < 4 or not lines[0].isdigit() or not 1 <= int(lines[0]) <= 26:
        fail("input.txt line 1: N must be an integer from 1 to 26")
    n = int(lines[0])
    if len(lines) != 4 + 2 * n:
        fail("input.txt: expected %d lines, found %d" % (4 + 2 * n, len(lines)))
    mode, player = lines[1], lines[2]
    if mode not in ("MINIMAX", "ALPHABETA"):
        fail("input.txt line 2: MODE must be MINIMAX or ALPHABETA")
    if player not in ("X", "O"):
        fail("input.txt line 3: YOUPLAY must be X or O")
    if not lines[3].isdigit() or int(lines[3]) < 1:
        fail("input.txt line 4: DEPTH must be a positive integer")
    values = []
    for number in range(4, 4 + n):
        row = lines[number].split()
        if len(row) != n or not all(word.isdigit() and 1 <= int(word) <= 99 for word in row):
            fail("input.txt line %d: expected %d values from 1 to 99" % (number + 1, n))
        values.extend(int(word) for word in row)
    codes = {".": EMPTY, player: MINE, ("O" if player == "X" else "X"): THEIRS}
    cells = []
    for number in range(4 + n, 4 + 2 * n):
        row = lines[number]
        if len(row) != n or any(mark not in codes for mark in row):
            fail("input.txt line %d: expected %d characters from X, O, ." % (number + 1, n))
        cells.extend(codes[mark] for mark in row)
    if EMPTY not in cells:
        fail("input.txt: the board is full")
    return n, mode, player, int(lines[3]), values, cells


def neighbour_lists(n):
    """For each square (row-major), the squares orthogonally next to it."""
    lists = []
    for square in range(n * n):
        row, column = divmod(square, n)
        near = []
        if row > 0:
            near.append(square - n)
        if column > 0:
            near.append(square - 1)
        if column < n - 1:
            near.append(square + 1)
        if row < n - 1:
            near.append(square + n)
        lists.append(near)
    return lists


def board_moves(n, values, cells):
    """(moves, play, undo) on the board ``cells``, changed in place:

    moves(side)                 [(square, flipped squares or None for a Stake)]: every
                                Stake in row-major order, then every Raid that flips
                                something, in row-major order
    play(square, flipped, side) plays a move; returns what it adds to the score
    undo(square, flipped, side) takes it back
    """
    near = neighbour_lists(n)

    def moves(side):
        empty = [square for square, cell in enumerate(cells) if cell == EMPTY]
        found = [(square, None) for square in empty]
        for square in empty:
            around = near[square]
            if side in [cells[other] for other in around]:
                flipped = [other for other in around if cells[other] == -side]
                if flipped:
                    found.append((square, flipped))
        return found

    def play(square, flipped, side):
        cells[square] = side
        gain = values[square]
        if flipped:
            for other in flipped:
                cells[other] = side
                gain += 2 * values[other]
        return gain if side == MINE else -gain

    def undo(square, flipped, side):
        cells[square] = EMPTY
        if flipped:
            for other in flipped:
                cells[other] = -side

    return moves, play, undo


def value_functions(moves, play, undo, limit, prune):
    """AIMA's (MAX-VALUE, MIN-VALUE), each ``(score, empty squares, depth, alpha, beta)
    -> value``: a node is scored at depth ``limit`` or on a full board; alpha-beta when
    ``prune``, else minimax."""
    def max_value(score, empty, depth, alpha, beta):
        if empty == 0 or depth == limit:
            return score
        v = -INF
        for square, flipped in moves(MINE):
            child = min_value(score + play(square, flipped, MINE), empty - 1, depth + 1,
                              alpha, beta)
            undo(square, flipped, MINE)
            if child > v:
                v = child
            if prune:
                if v >= beta:
                    return v
                if v > alpha:
                    alpha = v
        return v

    def min_value(score, empty, depth, alpha, beta):
        if empty == 0 or depth == limit:
            return score
        v = INF
        for square, flipped in moves(THEIRS):
            child = max_value(score + play(square, flipped, THEIRS), empty - 1, depth + 1,
                              alpha, beta)
            undo(square, flipped, THEIRS)
            if child < v:
                v = child
            if prune:
                if v <= alpha:
                    return v
                if v < beta:
                    beta = v
        return v

    return max_value, min_value


def best_move(n, values, cells, limit, prune):
    """(square, flipped squares or None) of the first move with the strictly greatest
    value, YOUPLAY (MINE, Max) to move in ``cells``, searched to depth ``limit``.

    ``cells`` is changed in place while searching and put back as it was."""
    moves, play, undo = board_moves(n, values, cells)
    _, min_value = value_functions(moves, play, undo, limit, prune)
    score = sum(value * cell for value, cell in zip(values, cells))
    empty = cells.count(EMPTY)
    best, best_value, alpha = None, -INF, -INF
    for square, flipped in moves(MINE):
        value = min_value(score + play(square, flipped, MINE), empty - 1, 1, alpha, INF)
        undo(square, flipped, MINE)
        if value > best_value:
            best, best_value = (square, flipped), value
            if prune:
                alpha = value
    return best


def write_output(path, text):
    """Write ``text`` to ``path`` at once: a temporary file beside it, then a rename."""
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


def main():
    n, mode, player, depth, values, cells = read_input("input.txt")
    square, flipped = best_move(n, values, cells, depth, mode == "ALPHABETA")
    cells[square] = MINE
    for other in flipped or ():
        cells[other] = MINE
    marks = {EMPTY: ".", MINE: player, THEIRS: "O" if player == "X" else "X"}
    row, column = divmod(square, n)
    lines = ["%s%d %s" % (chr(65 + column), row + 1, "Raid" if flipped else "Stake")]
    lines += ["".join(marks[cell] for cell in cells[r * n:(r + 1) * n]) for r in range(n)]
    write_output("output.txt", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
