"""A Stake/Raid homework.py with one slip: it tries every Raid before the Stakes, where
the assignment orders all Stakes (row by row) first. Minimax or alpha-beta to DEPTH, the
first strictly best move kept: right whenever the best move is unique, wrong on a tie
between a Stake and a Raid. For the grading kit's examples: the student partly right."""


def read_input():
    words = open("input.txt").read().split()
    n, mode, me, depth = int(words[0]), words[1], words[2], int(words[3])
    values = [int(word) for word in words[4:4 + n * n]]
    board = list("".join(words[4 + n * n:4 + n * n + n]))
    return n, mode, me, depth, values, board


def neighbours(cell, n):
    row, column = divmod(cell, n)
    near = []
    if row > 0:
        near.append(cell - n)
    if column > 0:
        near.append(cell - 1)
    if column < n - 1:
        near.append(cell + 1)
    if row < n - 1:
        near.append(cell + n)
    return near


def moves(board, n, player):
    """(cell, name, cells that become the player's), Raids first (the slip), then Stakes."""
    other = "O" if player == "X" else "X"
    empty = [cell for cell in range(n * n) if board[cell] == "."]
    for cell in empty:
        near = neighbours(cell, n)
        if any(board[m] == player for m in near):
            yield cell, "Raid", [cell] + [m for m in near if board[m] == other]
    for cell in empty:
        yield cell, "Stake", [cell]


def play(board, cells, player):
    child = list(board)
    for cell in cells:
        child[cell] = player
    return child


def score(board, values, me):
    return sum(v if c == me else -v for c, v in zip(board, values) if c != ".")


def value(board, n, values, me, player, depth, alpha, beta, prune):
    """The minimax value of ``board`` (``me``'s view), ``player`` to move."""
    if depth == 0 or "." not in board:
        return score(board, values, me)
    other = "O" if player == "X" else "X"
    best = None
    for _, _, cells in moves(board, n, player):
        v = value(play(board, cells, player), n, values, me, other, depth - 1, alpha,
                  beta, prune)
        if player == me:
            best = v if best is None else max(best, v)
            alpha = max(alpha, best)
        else:
            best = v if best is None else min(best, v)
            beta = min(beta, best)
        if prune and alpha >= beta:
            break
    return best


def main():
    n, mode, me, depth, values, board = read_input()
    other = "O" if me == "X" else "X"
    prune = mode == "ALPHABETA"
    best = chosen = None
    alpha, beta = float("-inf"), float("inf")
    for cell, name, cells in moves(board, n, me):
        child = play(board, cells, me)
        v = value(child, n, values, me, other, depth - 1, alpha, beta, prune)
        if best is None or v > best:
            best, chosen = v, (cell, name, child)
            alpha = max(alpha, best)
    cell, name, child = chosen
    with open("output.txt", "w") as out:
        out.write("%s%d %s\n" % (chr(ord("A") + cell % n), cell // n + 1, name))
        for row in range(n):
            out.write("".join(child[row * n:(row + 1) * n]) + "\n")


main()
